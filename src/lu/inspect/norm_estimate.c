/* est <= |B|_1 from products with B and B^T: Hager's estimator ("Condition
 * estimates", SIAM J. Sci. Stat. Comput. 5(2), 1984) with Higham's
 * safeguards ("FORTRAN codes for estimating the one-norm of a real or
 * complex matrix, with applications to condition estimation", ACM TOMS
 * 14(4), 1988, Algorithm 4.1; LAPACK's xLACON and xLACN2): a gradient ascent
 * of |B x|_1 over the unit ball's vertices e_j, at most five of them, then
 * one extra vector whose entries alternate in sign and grow linearly, which
 * catches matrices where the ascent stops early. Every figure kept is
 * |B w|_1 / |w|_1 for a computed w, so the estimate is a lower bound of the
 * true norm (up to the rounding of the products). */
#include "core/complex_value.h"
#include "lu/inspect/inspect_internal.h"

#include <math.h>
#include <stdlib.h>

/* Vertices the ascent visits at most (Higham's ITMAX). */
#define ASCENT_STEPS 5

/* Vectors of n values, each `parts` doubles (2: complex, (re, im)). */
static inline double magnitude(const double *v, int64_t parts, int64_t i) {
  return parts == 2 ? tsi_z_abs(tsi_z(v[2 * i], v[2 * i + 1])) : fabs(v[i]);
}

static double norm_one(int64_t n, int64_t parts, const double *v) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; i++)
    sum += magnitude(v, parts, i);
  return sum;
}

static bool all_finite(int64_t n, int64_t parts, const double *v) {
  for (int64_t i = 0; i < n * parts; i++)
    if (!isfinite(v[i]))
      return false;
  return true;
}

/* The first index of the largest |v_i|. */
static int64_t largest_entry(int64_t n, int64_t parts, const double *v) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; i++)
    if (magnitude(v, parts, i) > magnitude(v, parts, best))
      best = i;
  return best;
}

/* x_i = v_i for i = 0 .. n - 1 (real parts; imaginary parts 0). */
static void set_real(int64_t n, int64_t parts, double *x, double (*value)(int64_t i, int64_t n)) {
  for (int64_t i = 0; i < n; i++) {
    x[i * parts] = value(i, n);
    if (parts == 2)
      x[2 * i + 1] = 0.0;
  }
}

static double mean_weight(int64_t i, int64_t n) {
  (void)i;
  return 1.0 / (double)n;
}
static double zero(int64_t i, int64_t n) {
  (void)i;
  (void)n;
  return 0.0;
}
/* The extra vector x_i = (-1)^i (1 + i / (n - 1)), |x|_1 = 3n / 2. */
static double alternating(int64_t i, int64_t n) {
  return (i % 2 == 0 ? 1.0 : -1.0) * (1.0 + (double)i / (double)(n - 1));
}

/* x_i = sign(y_i) (+1 for 0) into signs and x; whether it equals the signs
 * held before. Complex values: x_i = y_i / |y_i| (1 for 0), and never
 * "repeated" (ZLACN2 has no such test). */
static bool take_signs(int64_t n, int64_t parts, const double *y, signed char *signs, double *x) {
  if (parts == 2) {
    for (int64_t i = 0; i < n; i++) {
      const tsi_complex128 s = tsi_z_direction_times(tsi_z(y[2 * i], y[2 * i + 1]), 1.0);
      x[2 * i] = s.re;
      x[2 * i + 1] = s.im;
    }
    return false;
  }
  bool repeated = true;
  for (int64_t i = 0; i < n; i++) {
    signed char s = y[i] >= 0.0 ? 1 : -1;
    repeated = repeated && s == signs[i];
    signs[i] = s;
    x[i] = (double)s;
  }
  return repeated;
}

ts_status tsi_lu_norm_one_estimate(ts_context *ctx, int64_t n, bool complex_values, tsi_lu_operator_fn apply,
                                   void *data, double *estimate) {
  *estimate = 0.0;
  if (n <= 0)
    return TS_SUCCESS;
  /* B's adjoint: B^T, or B^H for complex values. */
  const int64_t parts = complex_values ? 2 : 1;
  const ts_operation adjoint = complex_values ? TS_OP_CONJ_TRANSPOSE : TS_OP_TRANSPOSE;
  double *x = tsi_malloc_array(n * parts, sizeof *x), *y = tsi_malloc_array(n * parts, sizeof *y);
  signed char *signs = tsi_calloc_array(n, sizeof *signs);
  ts_status st = TS_SUCCESS;
  if (!x || !y || !signs) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "condition estimate: no memory for 2 vectors of %lld entries",
                   (long long)n);
    goto cleanup;
  }
  double best = 0.0;
  /* x = e / n: |B x|_1 is the mean column norm's lower bound. */
  set_real(n, parts, x, mean_weight);
  if ((st = apply(data, TS_OP_NONE, x, y)) != TS_SUCCESS)
    goto cleanup;
  if (!all_finite(n, parts, y)) {
    best = INFINITY;
    goto done;
  }
  best = norm_one(n, parts, y);
  if (n == 1)
    goto done;
  (void)take_signs(n, parts, y, signs, x);
  if ((st = apply(data, adjoint, x, y)) != TS_SUCCESS)
    goto cleanup;
  int64_t j = largest_entry(n, parts, y);
  for (int step = 2;; step++) {
    /* y = B e_j, the column the gradient points to. */
    set_real(n, parts, x, zero);
    x[j * parts] = 1.0;
    if ((st = apply(data, TS_OP_NONE, x, y)) != TS_SUCCESS)
      goto cleanup;
    if (!all_finite(n, parts, y)) {
      best = INFINITY;
      goto done;
    }
    double column_norm = norm_one(n, parts, y);
    bool gained = column_norm > best;
    best = fmax(best, column_norm);
    /* A repeated sign vector or no gain: the ascent has converged. */
    if (take_signs(n, parts, y, signs, x) || !gained)
      break;
    if ((st = apply(data, adjoint, x, y)) != TS_SUCCESS)
      goto cleanup;
    int64_t last = j;
    j = largest_entry(n, parts, y);
    if (magnitude(y, parts, last) == magnitude(y, parts, j) || step >= ASCENT_STEPS)
      break;
  }
  set_real(n, parts, x, alternating);
  if ((st = apply(data, TS_OP_NONE, x, y)) != TS_SUCCESS)
    goto cleanup;
  if (!all_finite(n, parts, y)) {
    best = INFINITY;
    goto done;
  }
  best = fmax(best, 2.0 * norm_one(n, parts, y) / (3.0 * (double)n));
done:
  *estimate = best;
cleanup:
  free(x);
  free(y);
  free(signs);
  return st;
}
