/* ts_lu_solve: X = op(A)^{-1} B with the factors, then iterative refinement
 * in double (refine.c) for each right-hand side, and the singularity
 * policy's part in the solve. */
#include "lu/solve/solve_internal.h"

#include <float.h>
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

/* The worst of each measure over the right-hand sides so far. */
typedef struct solve_summary {
  tsi_lu_residual_measures worst;
  int most_steps;
} solve_summary;

static void summary_add(solve_summary *summary, const tsi_lu_residual_measures *m, int steps) {
  tsi_lu_residual_measures *w = &summary->worst;
  w->normwise = fmax(w->normwise, m->normwise);
  w->scaled = fmax(w->scaled, m->scaled);
  w->componentwise = fmax(w->componentwise, m->componentwise);
  w->residual_norm = fmax(w->residual_norm, m->residual_norm);
  w->solution_norm = fmax(w->solution_norm, m->solution_norm);
  summary->most_steps = steps > summary->most_steps ? steps : summary->most_steps;
}

/* Each right-hand side in turn through tsi_lu_refine (solved: x already
 * holds the solutions through the factors, only refine), a cancellation
 * check between them. */
static ts_status solve_each(ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, int64_t nrhs, const double *b,
                            int64_t ldb, double *x, int64_t ldx, bool solved, double *work, solve_summary *summary) {
  ts_status status = TS_SUCCESS;
  const int64_t parts = tsi_lu_parts(lu);
  for (int64_t j = 0; j < nrhs && status == TS_SUCCESS; j++) {
    tsi_lu_residual_measures measures;
    int steps = 0;
    status = tsi_lu_refine(lu, setup, op, b + j * ldb * parts, x + j * ldx * parts, solved, work, &measures, &steps);
    if (status == TS_SUCCESS) {
      summary_add(summary, &measures, steps);
      status = tsi_check_cancel(lu->ctx);
    }
  }
  return status;
}

/* Right-hand sides on the host's threads, one per thread at a time; the
 * caller's thread checks for cancellation between its right-hand sides and
 * the others then leave theirs. */
static ts_status solve_in_parallel(ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, int64_t nrhs,
                                   const double *b, int64_t ldb, double *x, int64_t ldx, int threads,
                                   double *solve_work, solve_summary *summary) {
  const int64_t n = lu->n, parts = tsi_lu_parts(lu);
  double normwise = 0.0, scaled = 0.0, componentwise = 0.0, residual_norm = 0.0, solution_norm = 0.0;
  int most_steps = 0, stop = 0;
  ts_status status = TS_SUCCESS;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)                                                     \
    reduction(max                                                                                                      \
              : normwise, scaled, componentwise, residual_norm, solution_norm, most_steps)
  for (int64_t j = 0; j < nrhs; j++) {
    int stopped;
#pragma omp atomic read
    stopped = stop;
    if (stopped)
      continue;
    const int thread = solve_thread_id();
    tsi_lu_residual_measures m;
    int steps = 0;
    (void)tsi_lu_refine(lu, setup, op, b + j * ldb * parts, x + j * ldx * parts, false,
                        solve_work + (int64_t)thread * 4 * n * parts, &m, &steps);
    normwise = fmax(normwise, m.normwise);
    scaled = fmax(scaled, m.scaled);
    componentwise = fmax(componentwise, m.componentwise);
    residual_norm = fmax(residual_norm, m.residual_norm);
    solution_norm = fmax(solution_norm, m.solution_norm);
    most_steps = steps > most_steps ? steps : most_steps;
    if (thread == 0 && tsi_check_cancel(lu->ctx) != TS_SUCCESS) {
#pragma omp atomic write
      stop = 1;
    }
  }
  if (stop)
    status = TS_ERROR_CANCELLED; /* the message is set */
  tsi_lu_residual_measures all = {normwise, scaled, componentwise, residual_norm, solution_norm};
  summary_add(summary, &all, most_steps);
  return status;
}

/* The first entry of B that is not finite (either part of a complex one):
 * an error naming it. */
static ts_status check_rhs(ts_lu *lu, int64_t nrhs, const double *b, int64_t ldb) {
  const int64_t parts = tsi_lu_parts(lu);
  for (int64_t j = 0; j < nrhs; j++)
    for (int64_t i = 0; i < lu->n * parts; i++)
      if (!isfinite(b[(j * ldb) * parts + i]))
        return tsi_error(lu->ctx, TS_ERROR_INVALID_ARGUMENT,
                         "ts_lu_solve: b holds %g at row %lld of right-hand side %lld (both from 0%s): the "
                         "right-hand sides must be finite",
                         b[(j * ldb) * parts + i], (long long)(i / parts), (long long)j,
                         parts == 2 ? (i % 2 ? ", imaginary part" : ", real part") : "");
  return TS_SUCCESS;
}

/* ts_lu_solve, b and x on the host or (device_vectors: tsi_lu_solve_device's
 * case) on the device. */
static ts_status solve(ts_lu *lu, ts_operation op, int64_t nrhs, const double *b, int64_t ldb, double *x, int64_t ldx,
                       bool device_vectors) {
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
  /* Complex values: b and x hold (re, im) pairs; ldb and ldx count values. */
  const int64_t n = lu->n, parts = tsi_lu_parts(lu);
  if (nrhs < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve: nrhs %lld is negative", (long long)nrhs);
  int64_t min_ld = n > 1 ? n : 1;
  if (ldb < min_ld || ldx < min_ld)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve: ldb %lld and ldx %lld must be at least %lld",
                     (long long)ldb, (long long)ldx, (long long)min_ld);
  if (nrhs == 0 || n == 0) {
    lu->stats.backward_error = lu->stats.scaled_backward_error = lu->stats.componentwise_backward_error = 0.0;
    lu->stats.residual_norm = lu->stats.solution_norm = 0.0;
    lu->stats.refinement_steps = 0;
    lu->stats.time_solve = 0.0;
    return TS_SUCCESS;
  }
  if (!b || !x)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve: b or x is NULL");
  int64_t b_span, x_span, b_bytes, x_bytes;
  if (tsi_mul_overflows(nrhs - 1, ldb, &b_span) || tsi_mul_overflows(nrhs - 1, ldx, &x_span) ||
      b_span > INT64_MAX - n || x_span > INT64_MAX - n ||
      tsi_mul_overflows(b_span + n, parts * (int64_t)sizeof(double), &b_bytes) ||
      tsi_mul_overflows(x_span + n, parts * (int64_t)sizeof(double), &x_bytes))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_lu_solve: %lld right-hand sides with ldb %lld, ldx %lld overflow",
                     (long long)nrhs, (long long)ldb, (long long)ldx);
  if (tsi_ranges_overlap(b, (size_t)b_bytes, x, (size_t)x_bytes))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve: b and x overlap");

  /* Device vectors' finiteness is checked by the first residual on the GPU.
   * The host's solves check b only when a solution is not finite (below):
   * an entry of b that is not finite makes its entry of x so through the
   * factors' nonzero pivots, and the pass over b would otherwise be one
   * more per solve. */
  const bool check_b_after = !device_vectors && !tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SOLVE);
  ts_status status = device_vectors || check_b_after ? TS_SUCCESS : check_rhs(lu, nrhs, b, ldb);
  if (status != TS_SUCCESS)
    return status;

  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_solve: no memory for the workspace");
  /* The host's lower solve holds L's dense row in a register (found by the
   * host's column factorization, here for factors made otherwise). */
  if (!ws->dense_row_known && !tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SOLVE) && !tsi_lu_dense_row(lu, ws))
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_solve: no memory to count the rows of L");
  /* The GPU's solves run one after another on the context's stream; on
   * the host, threads share the right-hand sides when there is enough work
   * (a solve and a residual each, at least). */
  int threads = 1;
  if (!tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SOLVE) && !lu->pivoted && nrhs > 1)
    threads = tsi_lu_host_threads(lu, TSI_LU_WORK_PASS, (double)nrhs * (double)(lu->lu_nnz + lu->nnz_a));
  if ((int64_t)threads > nrhs)
    threads = (int)nrhs;
  if (!ws->solve_work || ws->n != n || ws->solve_threads < threads) {
    free(ws->solve_work);
    ws->solve_work = NULL;
    ws->solve_threads = 0;
    int64_t count;
    if (tsi_mul_overflows(4 * n * parts, threads, &count))
      return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_lu_solve: work vectors of %lld entries overflow", (long long)n);
    ws->solve_work = tsi_malloc_array(count, sizeof(double));
    if (!ws->solve_work)
      return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_solve: no memory for %d x 4 vectors of %lld entries",
                       threads, (long long)n);
    ws->n = n;
    ws->solve_threads = threads;
  }

  tsi_lu_refine_setup setup;
  status = tsi_lu_norms(lu, ws, op, &setup.a_norm, &setup.m_norm);
  if (status != TS_SUCCESS)
    return status;
  setup.max_steps = lu->options.refine_max_steps < 0 ? 0 : lu->options.refine_max_steps;
  setup.tolerance = lu->options.refine_tolerance > 0.0 ? lu->options.refine_tolerance : TSI_LU_REFINE_TOLERANCE;
  /* Unchecked solves only through factors the singularity policy did not
   * have to judge: perturbed pivots and the fallback keep their check. */
  setup.check = !lu->options.unchecked_solves || lu->stats.perturbed_pivots > 0 || lu->pivoted != NULL;
  solve_summary summary;
  memset(&summary, 0, sizeof summary);
  double start = tsi_seconds();
  status = tsi_progress(ctx, 0, nrhs);
  const bool on_gpu = status == TS_SUCCESS && tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SOLVE) && !lu->pivoted;
  if (device_vectors &&
      !(on_gpu && setup.check && !lu->complex_values && op == TS_OP_NONE && lu->stats.perturbed_pivots == 0))
    return tsi_error(ctx, TS_ERROR_INTERNAL, "ts_lu_solve_buffers: the device path does not apply");
  if (on_gpu && setup.check && !lu->complex_values && op == TS_OP_NONE) {
    /* Real A x = b: each right-hand side solved and refined on the GPU, the
     * residual formed there (refine_cuda.cu). */
    for (int64_t j = 0; j < nrhs && status == TS_SUCCESS; j++) {
      tsi_lu_residual_measures measures;
      int steps = 0;
      status = tsi_lu_cuda_refine(lu, &setup, b + j * ldb, x + j * ldx, device_vectors, &measures, &steps);
      if (status == TS_SUCCESS) {
        summary_add(&summary, &measures, steps);
        status = tsi_check_cancel(ctx);
      }
    }
  } else if (on_gpu) {
    /* All right-hand sides through the GPU's factors at once, then the
     * refinement of each, its corrections solved on the GPU too. */
    status = tsi_lu_cuda_apply_inverse(lu, op, nrhs, b, ldb, x, ldx);
    if (status == TS_SUCCESS)
      status = solve_each(lu, &setup, op, nrhs, b, ldb, x, ldx, true, ws->solve_work, &summary);
  } else if (status == TS_SUCCESS && threads <= 1) {
    status = solve_each(lu, &setup, op, nrhs, b, ldb, x, ldx, false, ws->solve_work, &summary); /* no region */
  } else if (status == TS_SUCCESS) {
    status = solve_in_parallel(lu, &setup, op, nrhs, b, ldb, x, ldx, threads, ws->solve_work, &summary);
  }
  lu->stats.time_solve = tsi_seconds() - start;
  if (status != TS_SUCCESS)
    return status;
  const bool solutions_finite = summary.worst.solution_norm <= DBL_MAX &&
                                (!setup.check || fmax(summary.worst.normwise, summary.worst.scaled) <= DBL_MAX);
  if (check_b_after && !solutions_finite && (status = check_rhs(lu, nrhs, b, ldb)) != TS_SUCCESS)
    return status;
  /* The singularity policy's part in the solve (tessera/lu.h): with
   * perturbed pivots, a backward error that refinement cannot bring down
   * sends the solves to the partial-pivoting fallback; one that stays up
   * there is the singular status. */
  const double judged = fmax(summary.worst.normwise, summary.worst.scaled);
  const double limit = fmax(TSI_LU_SINGULAR_BACKWARD_ERROR, setup.tolerance);
  const bool judge = lu->stats.perturbed_pivots > 0 && setup.max_steps > 0;
  if (judge && !(judged <= limit) && !lu->pivoted) {
    status = tsi_lu_fall_back(lu, "ts_lu_solve");
    if (status == TS_SUCCESS) {
      memset(&summary, 0, sizeof summary);
      status = solve_each(lu, &setup, op, nrhs, b, ldb, x, ldx, false, ws->solve_work, &summary);
    }
    lu->stats.time_solve = tsi_seconds() - start;
    if (status != TS_SUCCESS)
      return status;
  }
  lu->stats.partial_pivoting = lu->pivoted != NULL;
  lu->stats.backward_error = summary.worst.normwise;
  lu->stats.scaled_backward_error = summary.worst.scaled;
  lu->stats.componentwise_backward_error = summary.worst.componentwise;
  lu->stats.residual_norm = summary.worst.residual_norm;
  lu->stats.solution_norm = summary.worst.solution_norm;
  lu->stats.refinement_steps = summary.most_steps;
  if (!setup.check) {
    lu->stats.backward_error = lu->stats.scaled_backward_error = NAN;
    lu->stats.componentwise_backward_error = lu->stats.residual_norm = NAN;
  }
  if (judge && !(fmax(summary.worst.normwise, summary.worst.scaled) <= limit))
    return tsi_lu_singular_by_refinement(lu, fmax(summary.worst.normwise, summary.worst.scaled), limit, "ts_lu_solve");
  if (!isfinite(summary.worst.solution_norm))
    return tsi_error(ctx, TS_ERROR_OVERFLOW,
                     "ts_lu_solve: the solution does not fit in double (an entry overflowed to infinity or NaN); "
                     "the matrix is too ill-conditioned for the right-hand side's magnitude");
  return TS_SUCCESS;
}

ts_status ts_lu_solve(ts_lu *lu, ts_operation op, int64_t nrhs, const double *b, int64_t ldb, double *x, int64_t ldx) {
  return solve(lu, op, nrhs, b, ldb, x, ldx, false);
}

ts_status tsi_lu_solve_device(ts_lu *lu, int64_t nrhs, const double *b, int64_t ldb, double *x, int64_t ldx) {
  return solve(lu, TS_OP_NONE, nrhs, b, ldb, x, ldx, true);
}
