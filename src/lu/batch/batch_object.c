/* The batch object: ts_lu_batch_create (each pattern analysed once by an LU
 * object of its own), ts_lu_batch_destroy, the member records and the
 * statistics. */
#include "lu/batch/batch_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Members and the lengths of the value and vector arrays, refused past 2^62
 * entries (the batch's offsets stay far from wrapping). */
static ts_status batch_totals(ts_context *ctx, int64_t patterns, const ts_csr *const *matrices, const int64_t *counts,
                              int64_t *members, int64_t *values, int64_t *rows) {
  const char *op = "ts_lu_batch_create";
  const int64_t limit = (int64_t)1 << 62;
  *members = *values = *rows = 0;
  for (int64_t p = 0; p < patterns; p++) {
    const ts_csr *a = matrices[p];
    if (!a)
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: matrix %lld is NULL", op, (long long)p);
    if (counts[p] < 1)
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: pattern %lld has %lld members (want at least 1)", op,
                       (long long)p, (long long)counts[p]);
    if (a->rows < 0 || a->nnz < 0)
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: matrix %lld has negative sizes", op, (long long)p);
    /* Members' values, right-hand sides and solutions are arrays of double. */
    char what[48];
    snprintf(what, sizeof what, "matrix %lld", (long long)p);
    ts_status st = tsi_require_real(ctx, op, what, a->dtype);
    if (st != TS_SUCCESS)
      return st;
    int64_t nnz_total, row_total;
    if (tsi_mul_overflows(counts[p], a->nnz, &nnz_total) || tsi_mul_overflows(counts[p], a->rows, &row_total) ||
        counts[p] > limit - *members || nnz_total > limit - *values || row_total > limit - *rows)
      return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: %lld members of pattern %lld (%lld x %lld, %lld entries) overflow",
                       op, (long long)counts[p], (long long)p, (long long)a->rows, (long long)a->cols,
                       (long long)a->nnz);
    *members += counts[p];
    *values += nnz_total;
    *rows += row_total;
  }
  return TS_SUCCESS;
}

/* Flops of one factorization with lu's pattern, counted as
 * numeric_cpu_impl.h counts them. */
static double pattern_flops(const ts_lu *lu) {
  double flops = 0.0;
  for (int64_t k = 0; k < lu->n; k++) {
    const int64_t diag = lu->diag_pos[k];
    for (int64_t p = lu->lu_col_ptr[k]; p < diag; p++) {
      const int32_t j = lu->lu_row_idx[p];
      flops += 2.0 * (double)(lu->lu_col_ptr[j + 1] - lu->diag_pos[j] - 1);
    }
    flops += (double)(lu->lu_col_ptr[k + 1] - diag - 1);
  }
  return flops;
}

/* Analyse pattern p with its own LU object; the message names the pattern. */
static ts_status analyse_pattern(ts_lu_batch *batch, int64_t p, const ts_csr *a) {
  tsi_lu_batch_pattern *pattern = &batch->patterns[p];
  ts_status st = ts_lu_create(batch->ctx, &batch->options, &pattern->lu);
  if (st == TS_SUCCESS) {
    pattern->lu->switches.whole_factors = 1; /* the batch's kernels factor L + U of the whole matrix */
    st = ts_lu_analyze(pattern->lu, a);
  }
  if (st != TS_SUCCESS) {
    char detail[TSI_MESSAGE_SIZE];
    snprintf(detail, sizeof detail, "%s", ts_last_error(batch->ctx));
    return tsi_error(batch->ctx, st, "ts_lu_batch_create: pattern %lld: %s", (long long)p, detail);
  }
  return TS_SUCCESS;
}

ts_status ts_lu_batch_create(ts_context *ctx, const ts_lu_options *options, int64_t patterns,
                             const ts_csr *const *matrices, const int64_t *counts, ts_lu_batch **batch) {
  const char *op = "ts_lu_batch_create";
  if (!batch)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: batch is NULL", op);
  *batch = NULL;
  if (!ctx)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", op);
  if (patterns < 1)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %lld patterns (want at least 1)", op, (long long)patterns);
  if (!matrices || !counts)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, matrices ? "counts" : "matrices");
  ts_lu_options resolved;
  ts_status st = tsi_lu_options_resolve(ctx, options, &resolved);
  if (st != TS_SUCCESS)
    return st;
  if (resolved.backend == TS_BACKEND_CUDA && ctx->backend != TS_BACKEND_CUDA)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the GPU backend needs a CUDA context", op);
  int64_t members, values, rows;
  st = batch_totals(ctx, patterns, matrices, counts, &members, &values, &rows);
  if (st != TS_SUCCESS)
    return st;

  ts_lu_batch *b = calloc(1, sizeof *b);
  if (!b)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the batch", op);
  b->ctx = ctx;
  tsi_context_retain(ctx); /* released by ts_lu_batch_destroy */
  b->options = resolved;
  b->pattern_count = patterns;
  b->members = members;
  b->values = values;
  b->rows = rows;
  b->patterns = tsi_calloc_array(patterns, sizeof *b->patterns);
  if (!b->patterns) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld pattern records", op, (long long)patterns);
    goto fail;
  }

  const double start = tsi_seconds();
  int64_t member = 0, value_offset = 0, vector_offset = 0;
  double flops = 0.0, nnz_lu = 0.0, work = 0.0;
  for (int64_t p = 0; p < patterns; p++) {
    st = analyse_pattern(b, p, matrices[p]);
    if (st != TS_SUCCESS)
      goto fail;
    tsi_lu_batch_pattern *pattern = &b->patterns[p];
    pattern->members = counts[p];
    pattern->first_member = member;
    pattern->value_offset = value_offset;
    pattern->vector_offset = vector_offset;
    member += counts[p];
    value_offset += counts[p] * matrices[p]->nnz;
    vector_offset += counts[p] * matrices[p]->rows;
    flops += (double)counts[p] * pattern_flops(pattern->lu);
    nnz_lu += (double)counts[p] * (double)(pattern->lu->lu_nnz + pattern->lu->n);
    work += (double)counts[p] * pattern->lu->factor_work;
  }
  b->stats.time_analyze = tsi_seconds() - start;

  b->member = tsi_calloc_array(members, sizeof *b->member);
  if (!b->member) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld member records", op, (long long)members);
    goto fail;
  }
  for (int64_t p = 0; p < patterns; p++) {
    const tsi_lu_batch_pattern *pattern = &b->patterns[p];
    for (int64_t i = 0; i < pattern->members; i++) {
      b->member[pattern->first_member + i].factor_status = TS_ERROR_NOT_FACTORED;
      ts_lu_batch_member *info = &b->member[pattern->first_member + i].info;
      info->pattern = p;
      info->n = pattern->lu->n;
      info->nnz = pattern->lu->nnz_a;
      info->value_offset = pattern->value_offset + i * info->nnz;
      info->vector_offset = pattern->vector_offset + i * info->n;
      info->status = TS_ERROR_NOT_FACTORED;
      info->singular_column = -1;
    }
  }
  /* AUTO weighs the whole batch's work against the GPU's fixed costs (the
   * members' factorizations share one launch sequence), not one member's:
   * many small systems are what batches on the GPU are for. */
  const ts_lu *first = b->patterns[0].lu;
  if (resolved.backend == TS_BACKEND_AUTO)
    b->on_gpu = first->ctx && first->ctx->backend == TS_BACKEND_CUDA && work >= TSI_LU_GPU_FACTOR_WORK;
  else
    b->on_gpu = tsi_lu_runs_on_gpu(first, TSI_LU_PHASE_NUMERIC);
  b->stats.members = members;
  b->stats.patterns = patterns;
  b->stats.values = values;
  b->stats.rows = rows;
  b->stats.nnz_lu = (int64_t)nnz_lu;
  b->stats.flops = flops;
  b->stats.on_gpu = b->on_gpu;
  *batch = b;
  return TS_SUCCESS;
fail:
  ts_lu_batch_destroy(b);
  return st;
}

void ts_lu_batch_destroy(ts_lu_batch *batch) {
  if (!batch)
    return;
  tsi_lu_batch_gpu_release(batch);
  if (batch->member)
    for (int64_t m = 0; m < batch->members; m++)
      tsi_lu_batch_member_release(&batch->member[m]);
  free(batch->member);
  if (batch->patterns)
    for (int64_t p = 0; p < batch->pattern_count; p++)
      ts_lu_destroy(batch->patterns[p].lu);
  free(batch->patterns);
  for (int s = 0; s < batch->slots; s++)
    ts_context_destroy(batch->slot_ctx[s]);
  free(batch->slot_ctx);
  ts_context *ctx = batch->ctx;
  free(batch);
  tsi_context_release(ctx);
}

int64_t tsi_lu_batch_pattern_of(const ts_lu_batch *batch, int64_t m) {
  int64_t low = 0, high = batch->pattern_count - 1;
  while (low < high) {
    const int64_t mid = low + (high - low + 1) / 2;
    if (batch->patterns[mid].first_member <= m)
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

ts_status ts_lu_batch_get_member(const ts_lu_batch *batch, int64_t member, ts_lu_batch_member *info) {
  if (!batch || !info)
    return tsi_error(batch ? batch->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_lu_batch_get_member: %s is NULL",
                     batch ? "info" : "batch");
  if (member < 0 || member >= batch->members)
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_lu_batch_get_member: member %lld outside the batch's %lld members", (long long)member,
                     (long long)batch->members);
  *info = batch->member[member].info;
  return TS_SUCCESS;
}

ts_status ts_lu_batch_get_stats(const ts_lu_batch *batch, ts_lu_batch_stats *stats) {
  if (!batch || !stats)
    return tsi_error(batch ? batch->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_lu_batch_get_stats: %s is NULL",
                     batch ? "stats" : "batch");
  *stats = batch->stats;
  return TS_SUCCESS;
}
