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
  if (omp_in_parallel())
    return 1;
  return tsi_lu_host_threads(lu, TSI_LU_WORK_PASS, (double)lu->nnz_a);
#else
  (void)lu;
  return 1;
#endif
}

/* The larger of a maximum so far and row i's share of the componentwise
 * backward error (componentwise_share), dividing only when it can be larger. */
static inline double larger_share(double norm, double residual, double denominator, int64_t n) {
  const double guard = (double)(n + 1) * DBL_MIN;
  if (denominator > guard / DBL_EPSILON) /* an exact residual's share, 0, is no larger */
    return tsi_lu_larger_ratio(norm, fabs(residual), denominator);
  if (residual == 0.0)
    return tsi_lu_larger(norm, 0.0);
  return tsi_lu_larger(norm, (fabs(residual) + guard) / (denominator + guard));
}

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

/* What a slice of rows of the residual found: the maxima of the measures'
 * parts (residual_rows in residual_impl.h) and whether x is finite there. */
typedef struct tsi_lu_residual_part {
  double x_norm, b_norm, x_scaled, b_scaled, r_norm, r_scaled, componentwise;
  int finite;
} tsi_lu_residual_part;

static void tsi_lu_residual_merge(tsi_lu_residual_part *total, const tsi_lu_residual_part *part) {
  total->x_norm = tsi_lu_larger(total->x_norm, part->x_norm);
  total->b_norm = tsi_lu_larger(total->b_norm, part->b_norm);
  total->x_scaled = tsi_lu_larger(total->x_scaled, part->x_scaled);
  total->b_scaled = tsi_lu_larger(total->b_scaled, part->b_scaled);
  total->r_norm = tsi_lu_larger(total->r_norm, part->r_norm);
  total->r_scaled = tsi_lu_larger(total->r_scaled, part->r_scaled);
  total->componentwise = tsi_lu_larger(total->componentwise, part->componentwise);
  total->finite = total->finite && part->finite;
}

/* The residual for real and for complex values (residual_impl.h). */
#include "lu/lu_arith_real.h"
#define TSI_NAME(x) x##_real
#include "lu/solve/residual_impl.h"
#undef TSI_NAME
#include "lu/lu_arith_undef.h"

#include "lu/lu_arith_complex.h"
#define TSI_NAME(x) x##_complex
#include "lu/solve/residual_impl.h"
#undef TSI_NAME
#include "lu/lu_arith_undef.h"

void tsi_lu_residual(const ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b,
                     const double *x, const tsi_lu_solve_norms *norms, double *r, double *magnitude,
                     tsi_lu_residual_measures *measures) {
  if (lu->complex_values)
    residual_complex(lu, setup, op, (const tsi_complex128 *)b, (const tsi_complex128 *)x, norms, (tsi_complex128 *)r,
                     magnitude, measures);
  else
    residual_real(lu, setup, op, b, x, norms, r, magnitude, measures);
}

void tsi_lu_measures_from_maxima(const tsi_lu_refine_setup *setup, const double *maxima, bool x_finite,
                                 tsi_lu_residual_measures *measures) {
  const double r_norm = maxima[TSI_LU_REFINE_R];
  if (!x_finite) {
    measures->normwise = measures->scaled = measures->componentwise = INFINITY;
    measures->residual_norm = measures->solution_norm = INFINITY;
    return;
  }
  const bool r_finite = isfinite(r_norm) && isfinite(maxima[TSI_LU_REFINE_R_SCALED]);
  const double componentwise = maxima[TSI_LU_REFINE_COMPONENTWISE];
  measures->normwise =
      r_finite ? backward_error(r_norm, setup->a_norm, maxima[TSI_LU_REFINE_X], maxima[TSI_LU_REFINE_B]) : INFINITY;
  measures->scaled = r_finite ? backward_error(maxima[TSI_LU_REFINE_R_SCALED], setup->m_norm,
                                               maxima[TSI_LU_REFINE_X_SCALED], maxima[TSI_LU_REFINE_B_SCALED])
                              : INFINITY;
  measures->componentwise = r_finite && isfinite(componentwise) ? componentwise : INFINITY;
  measures->residual_norm = r_finite ? r_norm : INFINITY;
  measures->solution_norm = maxima[TSI_LU_REFINE_X];
}

/* What the refinement drives down first. */
static inline double normwise(const tsi_lu_residual_measures *m) { return fmax(m->normwise, m->scaled); }

ts_status tsi_lu_refine(ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b, double *x,
                        bool solved, double *work, tsi_lu_residual_measures *measures, int *steps) {
  /* The vectors' numbers: n, or 2n for complex values (x += d goes part by
   * part); magnitude takes n. */
  const int64_t n = lu->n * tsi_lu_parts(lu);
  double *y = work, *r = work + n, *candidate = work + 2 * n, *magnitude = work + 3 * n;
  *steps = 0;
  tsi_lu_solve_norms norms = {.known = false};
  ts_status st = solved ? TS_SUCCESS : tsi_lu_apply_inverse_norms(lu, op, b, x, y, &norms);
  if (st != TS_SUCCESS)
    return st;
  if (!setup->check) {
    /* An unchecked solve (ts_lu_options::unchecked_solves): |x| only, for
     * the overflow check; the backward errors are not known. */
    double x_norm = 0.0;
    bool finite = true;
    if (norms.known && !lu->complex_values) { /* taken by the solve (a modulus there is not hypot's) */
      x_norm = norms.x_norm;
      finite = norms.finite;
    } else if (lu->complex_values) { /* n counts doubles: lu->n (re, im) pairs */
      for (int64_t i = 0; i < lu->n; i++)
        x_norm = tsi_lu_larger(x_norm, hypot(x[2 * i], x[2 * i + 1]));
      for (int64_t i = 0; i < n; i++)
        finite = finite && isfinite(x[i]);
    } else {
      for (int64_t i = 0; i < n; i++) { /* one pass: |x| and finiteness */
        x_norm = tsi_lu_larger(x_norm, fabs(x[i]));
        finite = finite && isfinite(x[i]);
      }
    }
    measures->normwise = measures->scaled = measures->componentwise = measures->residual_norm = NAN;
    measures->solution_norm = finite ? x_norm : INFINITY;
    return TS_SUCCESS;
  }
  tsi_lu_residual(lu, setup, op, b, x, &norms, r, magnitude, measures);
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
    tsi_lu_residual(lu, setup, op, b, candidate, NULL, r, magnitude, &next);
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
