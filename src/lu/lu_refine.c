/* Iterative refinement in double (Wilkinson 1963; Moler 1967; with the
 * factors in float, mixed-precision refinement): r = b - op(A) x from the
 * unscaled values last factored, x += op(A)^{-1} r through the factors,
 * steered by the componentwise backward error, which, unlike the normwise
 * one, sees a wrong solution of a system scaled over hundreds of decades
 * (its |A|_inf |x|_inf dwarfs every residual). */
#include "lu/lu_refine.h"
#include "lu/lu_estimates.h"
#include "lu/lu_numeric_workspace.h"

#include <float.h>
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Rows from which the residual's loops share out over the threads (fewer
 * cost more in the fork than they save). */
#define RESIDUAL_PARALLEL_ROWS 16384

/* Threads of the residual: the numeric phase's, one inside the solve's own
 * parallel loop over right-hand sides. */
static int residual_threads(const ts_lu *lu) {
#ifdef _OPENMP
  if (omp_in_parallel() || lu->n < RESIDUAL_PARALLEL_ROWS)
    return 1;
  return tsi_lu_numeric_threads(lu);
#else
  (void)lu;
  return 1;
#endif
}

/* The larger of a norm so far and a magnitude, ignoring a NaN magnitude; a
 * plain comparison, since fmax is a library call here (7 % of a solve on the
 * 10^5-row netlist, perf on the development machine). */
static inline double larger(double norm, double magnitude) { return magnitude > norm ? magnitude : norm; }

/* a * b + c for non-negative operands, +infinity where it passes DBL_MAX. */
static inline double product_plus(double a, double b, double c) {
  if (b > 0.0 && a > DBL_MAX / b)
    return INFINITY;
  return a * b + c;
}

/* Row i's share of the componentwise backward error: |r_i| / (|A||x| + |b|)_i,
 * with Arioli, Demmel and Duff's denominator where that one is within
 * rounding of 0 (1000 n eps of what it could be), so that a row whose
 * products cancel to nothing does not dominate. */
static inline double componentwise_share(double residual, double abs_product, double abs_b, double line_sum,
                                         double x_norm, double tiny_factor) {
  double denominator = abs_product + abs_b;
  double ceiling = product_plus(line_sum, x_norm, abs_b);
  if (denominator <= tiny_factor * ceiling)
    denominator = product_plus(line_sum, x_norm, abs_product);
  if (denominator == 0.0)
    return residual == 0.0 ? 0.0 : INFINITY;
  return fabs(residual) / denominator;
}

void tsi_lu_residual(const ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b,
                     const double *x, double *r, double *scratch, tsi_lu_residual_measures *measures) {
  const int64_t n = lu->n;
  const int64_t *row_ptr = lu->a_row_ptr;
  const int32_t *col_idx = lu->a_col_idx;
  const double *a = lu->a_values;
  const int threads = residual_threads(lu);
  const double tiny_factor = 1000.0 * (double)n * DBL_EPSILON;
  double x_norm = 0.0, b_norm = 0.0, r_norm = 0.0, componentwise = 0.0;
  int finite = 1;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : x_norm, b_norm) reduction(&& : finite)
  for (int64_t i = 0; i < n; i++) {
    finite = finite && isfinite(x[i]);
    x_norm = larger(x_norm, fabs(x[i]));
    b_norm = larger(b_norm, fabs(b[i]));
  }
  if (!finite) {
    measures->normwise = measures->componentwise = measures->residual_norm = measures->solution_norm = INFINITY;
    return;
  }
  if (op == TS_OP_NONE) {
    /* Each r_i is one row's sum in a fixed order and the norms are maxima:
     * the threads change no bit. */
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : r_norm, componentwise)
    for (int64_t i = 0; i < n; i++) {
      double sum = b[i], abs_product = 0.0, line_sum = 0.0;
      for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
        const double term = a[e] * x[col_idx[e]];
        sum -= term;
        abs_product += fabs(term);
        line_sum += fabs(a[e]);
      }
      r[i] = sum;
      r_norm = larger(r_norm, fabs(sum));
      componentwise =
          larger(componentwise, componentwise_share(sum, abs_product, fabs(b[i]), line_sum, x_norm, tiny_factor));
    }
  } else {
    memcpy(r, b, (size_t)n * sizeof *r);
    memset(scratch, 0, (size_t)n * sizeof *scratch);
    for (int64_t i = 0; i < n; i++) {
      const double x_i = x[i];
      for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
        const double term = a[e] * x_i;
        r[col_idx[e]] -= term;
        scratch[col_idx[e]] += fabs(term);
      }
    }
    for (int64_t j = 0; j < n; j++) {
      r_norm = larger(r_norm, fabs(r[j]));
      componentwise = larger(
          componentwise, componentwise_share(r[j], scratch[j], fabs(b[j]), setup->line_sums[j], x_norm, tiny_factor));
    }
  }
  /* |r| / (|A| |x| + |b|) without forming an |A| |x| beyond DBL_MAX: then
   * |b| <= DBL_MAX is below its rounding, and the ratio is (|r| / |A|) / |x|. */
  double normwise;
  if (x_norm > 0.0 && setup->a_norm > DBL_MAX / x_norm)
    normwise = r_norm / setup->a_norm / x_norm;
  else if (setup->a_norm * x_norm + b_norm == 0.0)
    normwise = r_norm == 0.0 ? 0.0 : INFINITY;
  else
    normwise = (0.5 * r_norm) / (0.5 * (setup->a_norm * x_norm) + 0.5 * b_norm);
  measures->normwise = isfinite(normwise) ? normwise : INFINITY;
  measures->componentwise = isfinite(componentwise) ? componentwise : INFINITY;
  measures->residual_norm = isfinite(r_norm) ? r_norm : INFINITY;
  measures->solution_norm = x_norm;
}

ts_status tsi_lu_refine(ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b, double *x,
                        bool solved, double *work, tsi_lu_residual_measures *measures, int *steps) {
  const int64_t n = lu->n;
  double *y = work, *r = work + n, *candidate = work + 2 * n, *scratch = work + 3 * n;
  *steps = 0;
  ts_status st = solved ? TS_SUCCESS : tsi_lu_apply_inverse(lu, op, b, x, y);
  if (st != TS_SUCCESS)
    return st;
  tsi_lu_residual(lu, setup, op, b, x, r, scratch, measures);
  while (*steps < setup->max_steps && measures->componentwise > setup->tolerance && isfinite(measures->componentwise)) {
    st = tsi_lu_apply_inverse(lu, op, r, candidate, y);
    if (st != TS_SUCCESS)
      return st;
    for (int64_t i = 0; i < n; i++)
      candidate[i] += x[i];
    tsi_lu_residual_measures next;
    tsi_lu_residual(lu, setup, op, b, candidate, r, scratch, &next);
    if (!(next.componentwise < measures->componentwise))
      break; /* no better: keep x */
    memcpy(x, candidate, (size_t)n * sizeof *x);
    (*steps)++;
    /* A smaller gain: the refinement has converged as far as the factors allow. */
    bool stagnated = next.componentwise > 0.5 * measures->componentwise;
    *measures = next;
    if (stagnated)
      break;
  }
  return TS_SUCCESS;
}
