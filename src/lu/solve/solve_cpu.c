/* The triangular solves through the host's factors, in the precision they
 * are stored in (solve_cpu_impl.h, compiled for float, double and the
 * complex types). */
#include "lu/solve/solve_internal.h"

#include <math.h>

/* The block solves inlined into the loop over the blocks, whose matrices
 * can have thousands of small blocks. */
#if defined(__GNUC__)
#define TSI_LU_SOLVE_INLINE inline __attribute__((always_inline))
#else
#define TSI_LU_SOLVE_INLINE inline
#endif

#include "lu/lu_arith_real.h"
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
#include "lu/lu_arith_undef.h"

#include "lu/lu_arith_complex.h"
#define TSI_VALUE tsi_complex64
#define TSI_NAME(x) x##_c64
#include "lu/solve/solve_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE tsi_complex128
#define TSI_NAME(x) x##_c128
#include "lu/solve/solve_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME
#include "lu/lu_arith_undef.h"

/* Through the factors in the precision they are stored in; norms (or
 * NULL) as tsi_lu_apply_inverse_cpu_norms. */
static void apply_inverse(const ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y,
                          tsi_lu_solve_norms *norms) {
  if (lu->complex_values && lu->lu_values_f32)
    lu_apply_inverse_c64(lu, (const tsi_complex64 *)lu->lu_values_f32, op, (const tsi_complex128 *)rhs,
                         (tsi_complex128 *)x, (tsi_complex128 *)y, norms);
  else if (lu->complex_values)
    lu_apply_inverse_c128(lu, (const tsi_complex128 *)lu->lu_values, op, (const tsi_complex128 *)rhs,
                          (tsi_complex128 *)x, (tsi_complex128 *)y, norms);
  else if (lu->lu_values_f32)
    lu_apply_inverse_f32(lu, lu->lu_values_f32, op, rhs, x, y, norms);
  else
    lu_apply_inverse_f64(lu, lu->lu_values, op, rhs, x, y, norms);
}

void tsi_lu_apply_inverse_cpu(const ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y) {
  apply_inverse(lu, op, rhs, x, y, NULL);
}

void tsi_lu_apply_inverse_cpu_norms(const ts_lu *lu, const double *rhs, double *x, double *y,
                                    tsi_lu_solve_norms *norms) {
  apply_inverse(lu, TS_OP_NONE, rhs, x, y, norms);
}
