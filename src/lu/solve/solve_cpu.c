/* The triangular solves through the host's factors, in the precision they
 * are stored in (solve_cpu_impl.h, compiled for float and double). */
#include "lu/solve/solve_internal.h"

#define TSI_VALUE float
#define TSI_NAME(x) x##_f32
#include "lu/solve/solve_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_NAME(x) x##_f64
#include "lu/solve/solve_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

void tsi_lu_apply_inverse_cpu(const ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y) {
  if (lu->lu_values_f32)
    lu_apply_inverse_f32(lu, lu->lu_values_f32, op, rhs, x, y);
  else
    lu_apply_inverse_f64(lu, lu->lu_values, op, rhs, x, y);
}
