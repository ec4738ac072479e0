/* A batch's members on the host: each member is an LU object that borrows
 * its pattern's analysis (a shallow copy of the pattern's object: the
 * permutations, scaling, pattern and levels are shared, read-only) and owns
 * what a factorization makes (factors, values, workspace, the partial-
 * pivoting fallback). Factor and solve are then the single-system calls,
 * ts_lu_refactor and ts_lu_solve, on one thread each: the same pivot rule,
 * refinement and singularity verdicts, bitwise the same results. The
 * members are shared out over the host threads (OpenMP), each thread with a
 * single-threaded context of its own, so that the members' phases run on
 * one thread and their error messages stay apart. */
#include "lu/batch/batch_internal.h"
#include "lu/numeric/numeric_internal.h"
#include "lu/symbolic/symbolic_internal.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static int thread_id(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

ts_status tsi_lu_batch_slots(ts_lu_batch *batch, int threads) {
  if (batch->slots >= threads)
    return TS_SUCCESS;
  ts_context **grown = realloc(batch->slot_ctx, (size_t)threads * sizeof(ts_context *));
  if (!grown)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch: cannot allocate %d thread contexts", threads);
  batch->slot_ctx = grown;
  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CPU;
  options.num_threads = 1;
  while (batch->slots < threads) {
    ts_status st = ts_context_create(&batch->slot_ctx[batch->slots], &options);
    if (st != TS_SUCCESS)
      return tsi_error(batch->ctx, st, "LU batch: cannot create a thread context");
    batch->slots++;
  }
  return TS_SUCCESS;
}

/* Member m's LU object, made on first use: its pattern's, with the numeric
 * fields its own and its phases on the host. */
static ts_lu *member_lu(ts_lu_batch *batch, int64_t m) {
  tsi_lu_batch_member_state *state = &batch->member[m];
  if (state->view)
    return state->view;
  const ts_lu *owner = batch->patterns[state->info.pattern].lu;
  ts_lu *view = malloc(sizeof *view);
  if (!view)
    return NULL;
  *view = *owner;
  view->lu_values = NULL;
  view->lu_values_f32 = NULL;
  view->numeric_aux = NULL;
  view->a_values = NULL;
  view->a_values_pinned = 0;
  view->numeric_device = NULL;
  view->factors_on_device = 0;
  view->pivoted = NULL;
  view->options.backend = TS_BACKEND_CPU;
  /* The analysis is borrowed: degraded pivots are reported in the
   * member's status, never answered by analysing again (that would free
   * the pattern's arrays under the other members). */
  view->options.refresh_pivots = 0;
  /* What a factorization builds once per analysis is the member's own: its
   * schedule check and fill list (in its workspace), its multifrontal
   * fronts, and its pivot check's reference (its first factorization);
   * nothing is written to the pattern's object, which the other threads
   * read. */
  view->schedule_checked = 0;
  view->fronts = NULL;
  view->pivot_base_set = 0;
  view->state = TSI_LU_ANALYZED;
  state->view = view;
  return view;
}

/* The work vectors go between calls (the norms stay): a batch of many
 * members would otherwise keep four n-vectors for each. */
static void trim_workspace(ts_lu *view) {
  tsi_lu_numeric_workspace *ws = (tsi_lu_numeric_workspace *)view->numeric_aux;
  if (!ws)
    return;
  free(ws->factor_work);
  ws->factor_work = NULL;
  ws->factor_threads = 0;
  free(ws->solve_work);
  ws->solve_work = NULL;
  ws->solve_threads = 0;
}

/* Keep the member's message of a failed call (NULL otherwise). */
static void keep_message(tsi_lu_batch_member_state *state, ts_status st, const ts_context *slot) {
  free(state->message);
  state->message = NULL;
  if (TS_IS_ERROR(st)) {
    const char *text = ts_last_error(slot);
    size_t length = strlen(text);
    state->message = malloc(length + 1);
    if (state->message)
      memcpy(state->message, text, length + 1);
  }
}

void tsi_lu_batch_member_fail(ts_lu_batch *batch, int64_t m, ts_status status, const char *message) {
  tsi_lu_batch_member_state *state = &batch->member[m];
  state->info.status = status;
  free(state->message);
  const size_t length = strlen(message);
  state->message = malloc(length + 1);
  if (state->message)
    memcpy(state->message, message, length + 1);
}

ts_status tsi_lu_batch_member_factor(ts_lu_batch *batch, int64_t m, const double *values, int slot) {
  tsi_lu_batch_member_state *state = &batch->member[m];
  ts_lu_batch_member *info = &state->info;
  info->singular_column = -1;
  info->perturbed_pivots = 0;
  info->backward_error = 0.0;
  info->refinement_steps = 0;
  info->partial_pivoting = 0;
  ts_lu *view = member_lu(batch, m);
  if (!view) {
    info->status = TS_ERROR_OUT_OF_MEMORY;
    keep_message(state, TS_SUCCESS, NULL);
    return info->status;
  }
  view->ctx = batch->slot_ctx[slot];
  ts_csr a;
  memset(&a, 0, sizeof a);
  a.rows = a.cols = view->n;
  a.nnz = view->nnz_a;
  a.row_ptr = view->a_row_ptr;
  a.col_idx = view->a_col_idx;
  a.values = (void *)values;
  a.dtype = TS_FLOAT64;
  a.symmetry = TS_GENERAL;
  ts_status st = ts_lu_refactor(view, &a);
  trim_workspace(view);
  info->status = st;
  info->singular_column = view->stats.singular_column;
  info->perturbed_pivots = view->stats.perturbed_pivots;
  keep_message(state, st, view->ctx);
  return st;
}

ts_status tsi_lu_batch_member_solve(ts_lu_batch *batch, int64_t m, const double *b, double *x, int slot) {
  tsi_lu_batch_member_state *state = &batch->member[m];
  ts_lu_batch_member *info = &state->info;
  ts_lu *view = state->view;
  view->ctx = batch->slot_ctx[slot];
  const int64_t ld = view->n > 1 ? view->n : 1;
  ts_status st = ts_lu_solve(view, TS_OP_NONE, 1, b, ld, x, ld);
  trim_workspace(view);
  info->backward_error = view->stats.backward_error;
  info->refinement_steps = view->stats.refinement_steps;
  info->partial_pivoting = view->stats.partial_pivoting;
  if (TS_IS_ERROR(st)) {
    info->status = st;
    /* A solve that finds the member singular (its fallback's pivoting)
     * names the column, as the single LU's statistics do. */
    info->singular_column = view->stats.singular_column;
    keep_message(state, st, view->ctx);
  }
  return st;
}

void tsi_lu_batch_member_release(tsi_lu_batch_member_state *state) {
  ts_lu *view = state->view;
  if (view) {
    /* Only what the member made is freed: the analysis is its pattern's. */
    tsi_lu_numeric_release(view);
    tsi_lu_pivoted_release(view);
    tsi_lu_fronts_free(view->fronts);
    free(view);
  }
  state->view = NULL;
  free(state->message);
  state->message = NULL;
}

/* Threads for `count` members (list as host_members takes it): at most
 * one a member, one below TSI_LU_BATCH_HOST_PARALLEL_WORK, and only as
 * many as find a free core: the members are independent, but the call
 * ends at a barrier, and a thread the scheduler sets aside holds it for a
 * time slice. */
static int host_threads(ts_lu_batch *batch, int64_t count, const int64_t *list, bool solve) {
  double work = 0.0;
  for (int64_t i = 0; i < (list ? count : batch->pattern_count); i++) {
    /* Every member: pattern by pattern; a list: member by member. */
    const tsi_lu_batch_pattern *p = &batch->patterns[list ? batch->member[list[i]].info.pattern : i];
    const double each = solve ? 2.0 * (double)(p->lu->lu_nnz + p->lu->nnz_a) : p->lu->factor_work;
    work += list ? each : each * (double)p->members;
  }
  int threads = tsi_lu_threads(batch->patterns[0].lu);
  if ((int64_t)threads > count)
    threads = count > 0 ? (int)count : 1;
  return work >= TSI_LU_BATCH_HOST_PARALLEL_WORK ? tsi_lu_free_cores(threads) : 1;
}

/* The members listed, one per thread at a time; the calling thread asks
 * the progress callback before them and between its members. */
static ts_status host_members(ts_lu_batch *batch, int64_t count, const int64_t *list, const double *const *in,
                              double *const *out) {
  const int threads = host_threads(batch, count, list, out != NULL);
  ts_status st = tsi_lu_batch_slots(batch, threads);
  if (st != TS_SUCCESS)
    return st;
  int cancelled = tsi_check_cancel(batch->ctx) != TS_SUCCESS;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int64_t i = 0; i < count; i++) {
    int stop;
#pragma omp atomic read
    stop = cancelled;
    const int64_t m = list ? list[i] : i;
    if (stop) {
      /* A solve's record says it did not run (a factorization's stays
       * TS_ERROR_NOT_FACTORED). */
      if (out)
        tsi_lu_batch_member_fail(batch, m, TS_ERROR_CANCELLED, "cancelled by the progress callback before its solve");
      continue;
    }
    const int slot = thread_id();
    if (out)
      (void)tsi_lu_batch_member_solve(batch, m, in[i], out[i], slot);
    else
      (void)tsi_lu_batch_member_factor(batch, m, in[i], slot);
    if (slot == 0 && tsi_check_cancel(batch->ctx) != TS_SUCCESS) {
#pragma omp atomic write
      cancelled = 1;
    }
  }
  return cancelled ? TS_ERROR_CANCELLED : TS_SUCCESS;
}

ts_status tsi_lu_batch_host_factor(ts_lu_batch *batch, int64_t count, const int64_t *list,
                                   const double *const *values) {
  return host_members(batch, count, list, values, NULL);
}

ts_status tsi_lu_batch_host_solve(ts_lu_batch *batch, int64_t count, const int64_t *list, const double *const *b,
                                  double *const *x) {
  return host_members(batch, count, list, b, x);
}
