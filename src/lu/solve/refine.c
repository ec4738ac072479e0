/* Iterative refinement in double (Wilkinson 1963; Moler 1967; with the
 * factors in float, mixed-precision refinement): r = b - op(A) x from the
 * unscaled values last factored, x += op(A)^{-1} r through the factors,
 * steered by the normwise backward errors of A and of the scaled matrix the
 * factors are of (both evaluated without overflow), then polished by the
 * componentwise one where that shows entries of x wrong in their leading
 * digits. */
#include "lu/solve/solve_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Whether this runs inside a team of several threads (the solve's loop over
 * right-hand sides). */
static bool in_parallel(void) {
#ifdef _OPENMP
  return omp_in_parallel();
#else
  return false;
#endif
}

/* Threads of the residual: the numeric phase's, one inside the solve's own
 * parallel loop over right-hand sides. */
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

/* The larger of a norm so far and a magnitude, ignoring a NaN magnitude; a
 * plain comparison, since fmax is a library call here, a visible part of a
 * solve's profile. */
static inline double larger(double norm, double magnitude) { return magnitude > norm ? magnitude : norm; }

/* Row i's share of the componentwise backward error, |r_i| / (|A||x| + |b|)_i:
 * 0 for an exact residual, and LAPACK's guard (xGERFS) for a denominator near
 * the underflow threshold, (|r_i| + s) / (d + s) with s = (n + 1) DBL_MIN. */
static inline double componentwise_share(double residual, double denominator, int64_t n) {
  const double guard = (double)(n + 1) * DBL_MIN;
  if (residual == 0.0)
    return 0.0;
  if (denominator > guard / DBL_EPSILON)
    return fabs(residual) / denominator;
  return (fabs(residual) + guard) / (denominator + guard);
}

/* r / (a x + b) for non-negative norms, without forming an a x beyond
 * DBL_MAX (then b <= DBL_MAX is below its rounding and the ratio is
 * (r / a) / x); infinity for a non-finite r, 0 for 0 / 0. */
static double backward_error(double r, double a, double x, double b) {
  double error;
  if (x > 0.0 && a > DBL_MAX / x)
    error = r / a / x;
  else if (a * x + b == 0.0)
    error = r == 0.0 ? 0.0 : INFINITY;
  else
    error = (0.5 * r) / (0.5 * (a * x) + 0.5 * b);
  return isfinite(error) ? error : INFINITY;
}

void tsi_lu_residual(const ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b,
                     const double *x, double *r, double *magnitude, tsi_lu_residual_measures *measures) {
  const int64_t n = lu->n;
  const int64_t *row_ptr = lu->a_row_ptr;
  const int32_t *col_idx = lu->a_col_idx;
  const double *a = lu->a_values;
  /* A x = b scales r and b by Dr and x by Dc^{-1}; A^T x = b the reverse. */
  const double *residual_scale = op == TS_OP_NONE ? lu->row_scale : lu->col_scale;
  const double *solution_scale = op == TS_OP_NONE ? lu->col_scale : lu->row_scale;
  const int threads = residual_threads(lu);
  double x_norm = 0.0, b_norm = 0.0, r_norm = 0.0, x_scaled = 0.0, b_scaled = 0.0, r_scaled = 0.0;
  double componentwise = 0.0;
  int finite = 1;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : x_norm, b_norm, x_scaled, b_scaled)   \
    reduction(&& : finite)
  for (int64_t i = 0; i < n; i++) {
    finite = finite && isfinite(x[i]);
    x_norm = larger(x_norm, fabs(x[i]));
    b_norm = larger(b_norm, fabs(b[i]));
    x_scaled = larger(x_scaled, fabs(x[i] / solution_scale[i]));
    b_scaled = larger(b_scaled, fabs(b[i] * residual_scale[i]));
  }
  if (!finite) {
    measures->normwise = measures->scaled = measures->componentwise = INFINITY;
    measures->residual_norm = measures->solution_norm = INFINITY;
    return;
  }
  if (op == TS_OP_NONE) {
    /* Each r_i is one row's sum in a fixed order and the norms are maxima:
     * the threads change no bit. */
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : r_norm, r_scaled, componentwise)
    for (int64_t i = 0; i < n; i++) {
      double sum = b[i], row_magnitude = fabs(b[i]);
      for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
        const double term = a[e] * x[col_idx[e]];
        sum -= term;
        row_magnitude += fabs(term);
      }
      r[i] = sum;
      r_norm = larger(r_norm, fabs(sum));
      r_scaled = larger(r_scaled, fabs(sum * residual_scale[i]));
      componentwise = larger(componentwise, componentwise_share(sum, row_magnitude, n));
    }
  } else {
    /* magnitude gathers (|A^T| |x| + |b|)_j. */
    memcpy(r, b, (size_t)n * sizeof *r);
    for (int64_t j = 0; j < n; j++)
      magnitude[j] = fabs(b[j]);
    for (int64_t i = 0; i < n; i++) {
      const double x_i = x[i];
      for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
        const double term = a[e] * x_i;
        r[col_idx[e]] -= term;
        magnitude[col_idx[e]] += fabs(term);
      }
    }
    for (int64_t j = 0; j < n; j++) {
      r_norm = larger(r_norm, fabs(r[j]));
      r_scaled = larger(r_scaled, fabs(r[j] * residual_scale[j]));
      componentwise = larger(componentwise, componentwise_share(r[j], magnitude[j], n));
    }
  }
  const bool r_finite = isfinite(r_norm);
  measures->normwise = r_finite ? backward_error(r_norm, setup->a_norm, x_norm, b_norm) : INFINITY;
  measures->scaled = r_finite ? backward_error(r_scaled, setup->m_norm, x_scaled, b_scaled) : INFINITY;
  measures->componentwise = r_finite && isfinite(componentwise) ? componentwise : INFINITY;
  measures->residual_norm = r_finite ? r_norm : INFINITY;
  measures->solution_norm = x_norm;
}

/* What the refinement drives down first. */
static inline double normwise(const tsi_lu_residual_measures *m) { return fmax(m->normwise, m->scaled); }

ts_status tsi_lu_refine(ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b, double *x,
                        bool solved, double *work, tsi_lu_residual_measures *measures, int *steps) {
  const int64_t n = lu->n;
  double *y = work, *r = work + n, *candidate = work + 2 * n, *magnitude = work + 3 * n;
  *steps = 0;
  ts_status st = solved ? TS_SUCCESS : tsi_lu_apply_inverse(lu, op, b, x, y);
  if (st != TS_SUCCESS)
    return st;
  tsi_lu_residual(lu, setup, op, b, x, r, magnitude, measures);
  while (*steps < setup->max_steps && isfinite(normwise(measures))) {
    /* Each step of a large system is a solve and a residual: a chance to
     * stop, taken on the caller's thread only. */
    if (!in_parallel() && (st = tsi_check_cancel(lu->ctx)) != TS_SUCCESS)
      return st;
    /* The normwise errors first; then the componentwise one, for a badly
     * scaled system whose normwise errors are blind to its small entries. */
    const bool polishing = normwise(measures) <= setup->tolerance;
    if (polishing && !(measures->componentwise > TSI_LU_POLISH_THRESHOLD))
      break;
    st = tsi_lu_apply_inverse(lu, op, r, candidate, y);
    if (st != TS_SUCCESS)
      return st;
    for (int64_t i = 0; i < n; i++)
      candidate[i] += x[i];
    tsi_lu_residual_measures next;
    tsi_lu_residual(lu, setup, op, b, candidate, r, magnitude, &next);
    const double before = polishing ? measures->componentwise : normwise(measures);
    const double after = polishing ? next.componentwise : normwise(&next);
    if (!(after < before) || (polishing && !(normwise(&next) <= setup->tolerance)))
      break; /* no better: keep x */
    memcpy(x, candidate, (size_t)n * sizeof *x);
    (*steps)++;
    *measures = next;
    /* A smaller gain: the refinement has converged as far as the factors
     * allow (a normwise step that reached the tolerance may go on polishing). */
    if (after > 0.5 * before && (polishing || normwise(&next) > setup->tolerance))
      break;
  }
  return TS_SUCCESS;
}
