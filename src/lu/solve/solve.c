/* ts_lu_solve: X = op(A)^{-1} B with the factors, then iterative refinement
 * in double (residual from the unscaled A last factored, correction through
 * the factors, which may be float: mixed-precision refinement, Wilkinson
 * 1963; Moler 1967) until the normwise backward error is small. */
#include "lu/solve/solve_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
static int solve_thread_id(void) { return omp_get_thread_num(); }
#else
static int solve_thread_id(void) { return 0; }
#endif

/* x = op(A)^{-1} rhs through the factors, on the GPU when they are there
 * (y is host scratch for the host's solves). */
static ts_status apply_inverse(ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y) {
  if (lu->pivoted) {
    tsi_lu_pivoted_apply(lu, op, rhs, x, y);
    return TS_SUCCESS;
  }
  if (tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SOLVE))
    return tsi_lu_cuda_apply_inverse(lu, op, 1, rhs, lu->n, x, lu->n);
  tsi_lu_apply_inverse_cpu(lu, op, rhs, x, y);
  return TS_SUCCESS;
}

/* The larger of a norm so far and a magnitude, ignoring a NaN magnitude as
 * fmax does; a plain comparison, since fmax is a library call here, a
 * visible part of a solve's profile. */
static inline double larger(double norm, double magnitude) { return magnitude > norm ? magnitude : norm; }

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

/* r = b - op(A) x in double from the values last factored; returns the
 * normwise backward error |r|_inf / (|op(A)|_inf |x|_inf + |b|_inf), or
 * infinity when x is not finite. Each r_i is one row's sum in a fixed
 * order and the norms are maxima, so the threads change no bit. */
static double residual(const ts_lu *lu, double a_norm, ts_operation op, const double *b, const double *x, double *r) {
  if (lu->complex_values)
    return tsi_lu_residual_complex(lu, a_norm, op, b, x, r);
  const int64_t n = lu->n;
  const int64_t *row_ptr = lu->a_row_ptr;
  const int32_t *col_idx = lu->a_col_idx;
  const double *a = lu->a_values;
  const int threads = residual_threads(lu);
  double x_norm = 0.0, b_norm = 0.0, r_norm = 0.0;
  int finite = 1;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : x_norm, b_norm) reduction(&& : finite)
  for (int64_t i = 0; i < n; i++) {
    finite = finite && isfinite(x[i]);
    x_norm = larger(x_norm, fabs(x[i]));
    b_norm = larger(b_norm, fabs(b[i]));
  }
  if (!finite)
    return INFINITY;
  if (op == TS_OP_NONE) {
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : r_norm)
    for (int64_t i = 0; i < n; i++) {
      double sum = b[i];
      for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
        sum -= a[e] * x[col_idx[e]];
      r[i] = sum;
      r_norm = larger(r_norm, fabs(sum));
    }
  } else {
    memcpy(r, b, (size_t)n * sizeof *r);
    for (int64_t i = 0; i < n; i++) {
      const double x_i = x[i];
      for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
        r[col_idx[e]] -= a[e] * x_i;
    }
    for (int64_t i = 0; i < n; i++)
      r_norm = larger(r_norm, fabs(r[i]));
  }
  double scale = a_norm * x_norm + b_norm;
  if (scale == 0.0)
    return r_norm == 0.0 ? 0.0 : INFINITY;
  double error = r_norm / scale;
  return isfinite(error) ? error : INFINITY;
}

/* One right-hand side: solve (unless x already holds the solution through
 * the factors), then refine while the backward error is above the tolerance
 * and each step at least halves it (a smaller gain means the refinement has
 * converged as far as the factors allow). */
static ts_status solve_one(ts_lu *lu, double a_norm, ts_operation op, const double *b, double *x, bool solved,
                           double *work, int max_steps, double tolerance, double *backward_error, int *steps_taken) {
  /* The vectors' numbers: n, or 2n for complex values (x += d is the same
   * part by part). */
  const int64_t n = lu->n * tsi_lu_parts(lu);
  double *y = work, *r = work + n, *candidate = work + 2 * n;
  ts_status st = solved ? TS_SUCCESS : apply_inverse(lu, op, b, x, y);
  if (st != TS_SUCCESS)
    return st;
  double error = residual(lu, a_norm, op, b, x, r);
  int steps = 0;
  while (steps < max_steps && error > tolerance && isfinite(error)) {
    st = apply_inverse(lu, op, r, candidate, y);
    if (st != TS_SUCCESS)
      return st;
    for (int64_t i = 0; i < n; i++)
      candidate[i] += x[i];
    double candidate_error = residual(lu, a_norm, op, b, candidate, r);
    if (!(candidate_error < error))
      break; /* no better: keep x */
    memcpy(x, candidate, (size_t)n * sizeof *x);
    steps++;
    bool stagnated = candidate_error > 0.5 * error;
    error = candidate_error;
    if (stagnated)
      break;
  }
  *backward_error = error;
  *steps_taken = steps;
  return TS_SUCCESS;
}

/* Each right-hand side in turn through solve_one (solved: x already holds
 * the solutions, only refine); the worst backward error and most steps. */
static ts_status solve_each(ts_lu *lu, double a_norm, ts_operation op, int64_t nrhs, const double *b, int64_t ldb,
                            double *x, int64_t ldx, bool solved, double *work, int max_steps, double tolerance,
                            double *worst_error, int *most_steps) {
  ts_status status = TS_SUCCESS;
  for (int64_t j = 0; j < nrhs && status == TS_SUCCESS; j++) {
    double error = 0.0;
    int steps = 0;
    const int64_t parts = tsi_lu_parts(lu);
    status = solve_one(lu, a_norm, op, b + j * ldb * parts, x + j * ldx * parts, solved, work, max_steps, tolerance,
                       &error, &steps);
    *worst_error = fmax(*worst_error, error);
    *most_steps = steps > *most_steps ? steps : *most_steps;
  }
  return status;
}

ts_status ts_lu_solve(ts_lu *lu, ts_operation op, int64_t nrhs, const double *b, int64_t ldb, double *x, int64_t ldx) {
  if (!lu)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve: lu is NULL");
  ts_context *ctx = lu->ctx;
  if (lu->state != TSI_LU_FACTORED)
    return tsi_error(ctx, TS_ERROR_NOT_FACTORED, "ts_lu_solve: no valid factorization (call ts_lu_factor first%s)",
                     lu->state == TSI_LU_ANALYZED ? "; the last one failed or was not run" : "");
  if (op != TS_OP_NONE && op != TS_OP_TRANSPOSE && op != TS_OP_CONJ_TRANSPOSE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve: unknown operation %d", (int)op);
  if (op == TS_OP_CONJ_TRANSPOSE && !lu->complex_values)
    op = TS_OP_TRANSPOSE; /* A^H = A^T for real values */
  const int64_t n = lu->n, parts = tsi_lu_parts(lu);
  if (nrhs < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve: nrhs %lld is negative", (long long)nrhs);
  int64_t min_ld = n > 1 ? n : 1;
  if (ldb < min_ld || ldx < min_ld)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve: ldb %lld and ldx %lld must be at least %lld",
                     (long long)ldb, (long long)ldx, (long long)min_ld);
  if (nrhs == 0 || n == 0) {
    lu->stats.backward_error = 0.0;
    lu->stats.refinement_steps = 0;
    lu->stats.time_solve = 0.0;
    return TS_SUCCESS;
  }
  if (!b || !x)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve: b or x is NULL");
  int64_t b_span, x_span, b_bytes, x_bytes;
  if (tsi_mul_overflows(nrhs - 1, ldb, &b_span) || tsi_mul_overflows(nrhs - 1, ldx, &x_span) ||
      tsi_mul_overflows(b_span + n, parts * (int64_t)sizeof(double), &b_bytes) ||
      tsi_mul_overflows(x_span + n, parts * (int64_t)sizeof(double), &x_bytes))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_lu_solve: %lld right-hand sides with ldb %lld, ldx %lld overflow",
                     (long long)nrhs, (long long)ldb, (long long)ldx);
  if (tsi_ranges_overlap(b, (size_t)b_bytes, x, (size_t)x_bytes))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve: b and x overlap");

  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_solve: no memory for the workspace");
  /* The GPU's solves run one after another on the context's stream. */
  int threads = tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SOLVE) || lu->pivoted ? 1 : tsi_lu_threads(lu);
  if ((int64_t)threads > nrhs)
    threads = (int)nrhs;
  if (!ws->solve_work || ws->n != n || ws->solve_threads < threads) {
    free(ws->solve_work);
    ws->solve_threads = 0;
    int64_t count;
    if (tsi_mul_overflows(3 * n * parts, threads, &count))
      return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_lu_solve: work vectors of %lld entries overflow", (long long)n);
    ws->solve_work = tsi_malloc_array(count, sizeof(double));
    if (!ws->solve_work)
      return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_solve: no memory for %d x 3 vectors of %lld entries",
                       threads, (long long)n);
    ws->n = n;
    ws->solve_threads = threads;
  }

  double a_norm = ws->a_norm_inf;
  if (op != TS_OP_NONE) {
    ts_status norm_status = tsi_lu_norm_one(lu, ws, &a_norm);
    if (norm_status != TS_SUCCESS)
      return norm_status;
  }
  const int max_steps = lu->options.refine_max_steps < 0 ? 0 : lu->options.refine_max_steps;
  const double tolerance = lu->options.refine_tolerance > 0.0 ? lu->options.refine_tolerance : TSI_LU_REFINE_TOLERANCE;
  double *solve_work = ws->solve_work;
  double worst_error = 0.0;
  int most_steps = 0;
  double start = tsi_seconds();
  ts_status status = TS_SUCCESS;
  if (tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SOLVE)) {
    /* All right-hand sides through the GPU's factors at once, then the
     * refinement of each, its corrections solved on the GPU too. */
    status = tsi_lu_cuda_apply_inverse(lu, op, nrhs, b, ldb, x, ldx);
    if (status == TS_SUCCESS)
      status = solve_each(lu, a_norm, op, nrhs, b, ldb, x, ldx, true, solve_work, max_steps, tolerance, &worst_error,
                          &most_steps);
  } else {
    /* Right-hand sides are independent: one per thread at a time. */
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(max : worst_error, most_steps)
    for (int64_t j = 0; j < nrhs; j++) {
      double *work = solve_work + (int64_t)solve_thread_id() * 3 * n * parts;
      double error = 0.0;
      int steps = 0;
      (void)solve_one(lu, a_norm, op, b + j * ldb * parts, x + j * ldx * parts, false, work, max_steps, tolerance,
                      &error, &steps);
      if (error > worst_error)
        worst_error = error;
      if (steps > most_steps)
        most_steps = steps;
    }
  }
  lu->stats.time_solve = tsi_seconds() - start;
  if (status != TS_SUCCESS)
    return status;
  /* Static pivoting's factors may be too far from A for refinement (pivots
   * replaced after exact cancellation): factor again with partial pivoting
   * on the host and solve every right-hand side through those factors. */
  if (worst_error > TSI_LU_PIVOTED_FALLBACK_ERROR * tolerance && lu->stats.perturbed_pivots > 0 && max_steps > 0 &&
      !lu->pivoted) {
    status = tsi_lu_pivoted_factor(lu);
    if (status != TS_SUCCESS)
      return status;
    worst_error = 0.0;
    most_steps = 0;
    status = solve_each(lu, a_norm, op, nrhs, b, ldb, x, ldx, false, solve_work, max_steps, tolerance, &worst_error,
                        &most_steps);
    lu->stats.time_solve = tsi_seconds() - start;
    if (status != TS_SUCCESS)
      return status;
  }
  lu->stats.partial_pivoting = lu->pivoted != NULL;
  lu->stats.backward_error = worst_error;
  lu->stats.refinement_steps = most_steps;
  return TS_SUCCESS;
}
