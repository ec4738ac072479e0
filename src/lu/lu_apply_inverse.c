/* x = op(A)^{-1} rhs through the factors the solves use, without
 * refinement: the partial-pivoting fallback's when it replaced the static
 * factors, else the GPU's when they are there, else the host's (float or
 * double). */
#include "lu/lu_estimates.h"
#include "lu/lu_pivoted.h"

#define TSI_VALUE float
#define TSI_NAME(x) x##_f32
#include "lu/lu_numeric_solve_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_NAME(x) x##_f64
#include "lu/lu_numeric_solve_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

ts_status tsi_lu_apply_inverse(ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y) {
  if (lu->pivoted) {
    tsi_lu_pivoted_apply(lu, op, rhs, x, y);
    return TS_SUCCESS;
  }
  if (lu->factors_on_device)
    return tsi_lu_cuda_apply_inverse(lu, op, 1, rhs, lu->n, x, lu->n);
  if (lu->lu_values_f32)
    lu_apply_inverse_f32(lu, lu->lu_values_f32, op, rhs, x, y);
  else
    lu_apply_inverse_f64(lu, lu->lu_values, op, rhs, x, y);
  return TS_SUCCESS;
}
