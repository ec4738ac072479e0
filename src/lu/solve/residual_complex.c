/* The refinement's residual for complex values: r = b - op(A) x in complex
 * double from the values last factored (op: A, A^T or A^H), and the
 * normwise backward error |r|_inf / (|op(A)|_inf |x|_inf + |b|_inf) with
 * moduli, as solve.c's residual() gives it for real values. Each r_i is one
 * row's sum in a fixed order and the norms are maxima, so the result is
 * the same bits whatever the threads. */
#include "core/complex_value.h"
#include "lu/solve/solve_internal.h"

#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static int residual_threads(const ts_lu *lu) {
#ifdef _OPENMP
  if (omp_in_parallel() || lu->n < TSI_LU_RESIDUAL_PARALLEL_ROWS)
    return 1;
  return tsi_lu_threads(lu);
#else
  (void)lu;
  return 1;
#endif
}

/* The larger of a norm so far and a modulus, ignoring a NaN modulus. */
static inline double larger(double norm, double magnitude) { return magnitude > norm ? magnitude : norm; }

double tsi_lu_residual_complex(const ts_lu *lu, double a_norm, ts_operation op, const double *b_parts,
                               const double *x_parts, double *r_parts) {
  const int64_t n = lu->n;
  const int64_t *row_ptr = lu->a_row_ptr;
  const int32_t *col_idx = lu->a_col_idx;
  const tsi_complex128 *a = (const tsi_complex128 *)lu->a_values;
  const tsi_complex128 *b = (const tsi_complex128 *)b_parts, *x = (const tsi_complex128 *)x_parts;
  tsi_complex128 *r = (tsi_complex128 *)r_parts;
  const int threads = residual_threads(lu);
  double x_norm = 0.0, b_norm = 0.0, r_norm = 0.0;
  int finite = 1;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : x_norm, b_norm) reduction(&& : finite)
  for (int64_t i = 0; i < n; i++) {
    finite = finite && tsi_z_isfinite(x[i]);
    x_norm = larger(x_norm, tsi_z_abs(x[i]));
    b_norm = larger(b_norm, tsi_z_abs(b[i]));
  }
  if (!finite)
    return INFINITY;
  if (op == TS_OP_NONE) {
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : r_norm)
    for (int64_t i = 0; i < n; i++) {
      tsi_complex128 sum = b[i];
      for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
        sum = tsi_z_minus_product(sum, a[e], x[col_idx[e]]);
      r[i] = sum;
      r_norm = larger(r_norm, tsi_z_abs(sum));
    }
  } else {
    const bool conjugate = op == TS_OP_CONJ_TRANSPOSE;
    memcpy(r, b, (size_t)n * sizeof *r);
    for (int64_t i = 0; i < n; i++) {
      const tsi_complex128 x_i = x[i];
      for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
        r[col_idx[e]] = tsi_z_minus_product(r[col_idx[e]], conjugate ? tsi_z_conj(a[e]) : a[e], x_i);
    }
    for (int64_t i = 0; i < n; i++)
      r_norm = larger(r_norm, tsi_z_abs(r[i]));
  }
  double scale = a_norm * x_norm + b_norm;
  if (scale == 0.0)
    return r_norm == 0.0 ? 0.0 : INFINITY;
  double error = r_norm / scale;
  return isfinite(error) ? error : INFINITY;
}
