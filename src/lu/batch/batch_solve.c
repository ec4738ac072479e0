/* ts_lu_batch_solve, ts_lu_batch_solve_buffer: every member with factors
 * solved with iterative refinement in double, on the GPU (the members the
 * host factored solved on the host) or on the host threads; the solution of
 * a member without factors is NaN. */
#include "lu/batch/batch_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether member m was factored (possibly with replaced pivots). */
static bool has_factors(const ts_lu_batch *batch, int64_t m) { return !TS_IS_ERROR(batch->member[m].factor_status); }

/* Whether member m's x is NaN after the solve: no factors, a right-hand
 * side the solve refused, or a solve a cancellation kept from running. */
static bool unsolved(const ts_lu_batch *batch, int64_t m) {
  const ts_status status = batch->member[m].info.status;
  return !has_factors(batch, m) || status == TS_ERROR_INVALID_ARGUMENT || status == TS_ERROR_CANCELLED;
}

/* The members the host solves: those with factors that it factored (or
 * all with factors when the batch runs on the host). */
static bool host_solves(const ts_lu_batch *batch, int64_t m) {
  return has_factors(batch, m) && (!batch->on_gpu || batch->member[m].info.on_host);
}

/* Solve the members listed on the host; with on_device, b and x are device
 * arrays: each member's b is downloaded and its x uploaded. */
static ts_status host_solve(ts_lu_batch *batch, int64_t count, const int64_t *list, const double *b, double *x,
                            bool on_device) {
  if (count == 0)
    return TS_SUCCESS;
  const double **in = tsi_calloc_array(count, sizeof *in);
  double **out = tsi_calloc_array(count, sizeof *out);
  double **copies = on_device ? tsi_calloc_array(count, sizeof *copies) : NULL;
  ts_status st = in && out && (!on_device || copies)
                     ? TS_SUCCESS
                     : tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch: no memory for %lld members' vectors",
                                 (long long)count);
  for (int64_t i = 0; i < count && st == TS_SUCCESS; i++) {
    const ts_lu_batch_member *info = &batch->member[list[i]].info;
    if (!on_device) {
      in[i] = b + info->vector_offset;
      out[i] = x + info->vector_offset;
      continue;
    }
    const int64_t n = info->n > 0 ? info->n : 1;
    copies[i] = tsi_malloc_array(2 * n, sizeof(double));
    if (!copies[i])
      st = tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch: no memory for a member's vectors (n = %lld)",
                     (long long)info->n);
    else
      st = tsi_lu_batch_gpu_copy(batch, copies[i], b + info->vector_offset, info->n, false);
    in[i] = copies[i];
    out[i] = copies[i] ? copies[i] + n : NULL;
  }
  if (st == TS_SUCCESS)
    st = tsi_lu_batch_host_solve(batch, count, list, in, out);
  for (int64_t i = 0; i < count && st == TS_SUCCESS && on_device; i++) {
    const ts_lu_batch_member *info = &batch->member[list[i]].info;
    st = tsi_lu_batch_gpu_copy(batch, x + info->vector_offset, out[i], info->n, true);
  }
  if (copies)
    for (int64_t i = 0; i < count; i++)
      free(copies[i]);
  free(copies);
  free(out);
  free(in);
  return st;
}

/* A cancellation's status unless a later step failed otherwise. */
static ts_status keep_cancel(ts_status st, ts_status later) { return later == TS_SUCCESS ? st : later; }

/* x of every member without factors, whose b the solve refused or whose
 * solve was cancelled, set to NaN. */
static ts_status fill_unsolved(ts_lu_batch *batch, double *x, bool on_device) {
  double *nans = NULL;
  ts_status st = TS_SUCCESS;
  for (int64_t m = 0; m < batch->members && st == TS_SUCCESS; m++) {
    if (!unsolved(batch, m))
      continue;
    const ts_lu_batch_member *info = &batch->member[m].info;
    if (!on_device) {
      for (int64_t i = 0; i < info->n; i++)
        x[info->vector_offset + i] = NAN;
      continue;
    }
    free(nans);
    nans = tsi_malloc_array(info->n > 0 ? info->n : 1, sizeof(double));
    if (!nans)
      return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch: no memory for a member's NaN solution");
    for (int64_t i = 0; i < info->n; i++)
      nans[i] = NAN;
    st = tsi_lu_batch_gpu_copy(batch, x + info->vector_offset, nans, info->n, true);
  }
  free(nans);
  return st;
}

/* The host path for a host batch whose vectors are in device memory: all
 * of b down, the solutions up. */
static ts_status host_batch_device_vectors(ts_lu_batch *batch, int64_t count, const int64_t *list, const double *b,
                                           double *x) {
  const size_t bytes = (size_t)(batch->rows > 0 ? batch->rows : 1) * sizeof(double);
  double *b_host = malloc(bytes), *x_host = malloc(bytes);
  ts_status st = b_host && x_host ? TS_SUCCESS
                                  : tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY,
                                              "ts_lu_batch_solve_buffer: no memory for %lld entries on the host",
                                              (long long)batch->rows);
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(batch->ctx, b_host, b, (size_t)batch->rows * sizeof(double));
  if (st == TS_SUCCESS)
    st = host_solve(batch, count, list, b_host, x_host, false);
  if (st == TS_SUCCESS || st == TS_ERROR_CANCELLED)
    st = keep_cancel(st, fill_unsolved(batch, x_host, false));
  if (st == TS_SUCCESS || st == TS_ERROR_CANCELLED)
    st = keep_cancel(st, tsi_cuda_memcpy_to_device(batch->ctx, x, x_host, (size_t)batch->rows * sizeof(double)));
  free(b_host);
  free(x_host);
  return st;
}

static ts_status batch_solve(ts_lu_batch *batch, const double *b, double *x, bool on_device, const char *caller) {
  if (!batch->factored)
    return tsi_error(batch->ctx, TS_ERROR_NOT_FACTORED,
                     "%s: no factorization (call ts_lu_batch_factor first; the last one failed or was not run)",
                     caller);
  for (int64_t m = 0; m < batch->members; m++) {
    ts_lu_batch_member *info = &batch->member[m].info;
    info->status = batch->member[m].factor_status;
    info->backward_error = 0.0;
    info->refinement_steps = 0;
    info->partial_pivoting = 0;
  }
  int64_t count = 0;
  for (int64_t m = 0; m < batch->members; m++)
    count += host_solves(batch, m);
  int64_t *list = tsi_malloc_array(count > 0 ? count : 1, sizeof *list);
  if (!list)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no memory for %lld members", caller, (long long)count);
  for (int64_t m = 0, i = 0; m < batch->members; m++)
    if (host_solves(batch, m))
      list[i++] = m;

  const double start = tsi_seconds();
  ts_status st = TS_SUCCESS;
  if (batch->on_gpu) {
    st = tsi_lu_batch_gpu_solve(batch, b, x, on_device);
    if (st == TS_SUCCESS)
      st = host_solve(batch, count, list, b, x, on_device);
    if (st == TS_SUCCESS || st == TS_ERROR_CANCELLED)
      st = keep_cancel(st, fill_unsolved(batch, x, on_device));
  } else if (on_device) {
    st = host_batch_device_vectors(batch, count, list, b, x);
  } else {
    st = host_solve(batch, count, list, b, x, false);
    if (st == TS_SUCCESS || st == TS_ERROR_CANCELLED)
      st = keep_cancel(st, fill_unsolved(batch, x, false));
  }
  free(list);
  batch->stats.time_solve = tsi_seconds() - start;
  if (st == TS_ERROR_CANCELLED) {
    (void)tsi_lu_batch_outcome(batch, caller, true); /* the statistics */
    int64_t cancelled = 0;
    for (int64_t m = 0; m < batch->members; m++)
      cancelled += batch->member[m].info.status == TS_ERROR_CANCELLED;
    return tsi_error(batch->ctx, st,
                     "%s: cancelled by the progress callback; %lld of %lld members were not solved (their x is NaN, "
                     "their status TS_ERROR_CANCELLED)",
                     caller, (long long)cancelled, (long long)batch->members);
  }
  if (st != TS_SUCCESS)
    return st;
  return tsi_lu_batch_outcome(batch, caller, true);
}

ts_status ts_lu_batch_solve(ts_lu_batch *batch, const double *b, double *x) {
  const char *op = "ts_lu_batch_solve";
  if (!batch)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: batch is NULL", op);
  if (batch->rows > 0 && (!b || !x))
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, b ? "x" : "b");
  const size_t bytes = (size_t)batch->rows * sizeof(double);
  if (batch->rows > 0 && tsi_ranges_overlap(b, bytes, x, bytes))
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: b and x overlap", op);
  return batch_solve(batch, b, x, false, op);
}

ts_status ts_lu_batch_solve_buffer(ts_lu_batch *batch, const ts_buffer *b, ts_buffer *x) {
  const char *op = "ts_lu_batch_solve_buffer";
  if (!batch)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: batch is NULL", op);
  if (!b || !x)
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, b ? "x" : "b");
  if (tsi_buffer_context(b) != batch->ctx || tsi_buffer_context(x) != batch->ctx)
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: a buffer belongs to another context", op);
  if (b == x)
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: b and x are the same buffer", op);
  if (ts_buffer_memory(b) != ts_buffer_memory(x))
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: b and x must both be in device or in host memory", op);
  const size_t need = (size_t)batch->rows * sizeof(double);
  if (ts_buffer_size(b) < need || ts_buffer_size(x) < need)
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: the buffers hold %zu and %zu bytes, the batch's vectors %zu", op, ts_buffer_size(b),
                     ts_buffer_size(x), need);
  const bool on_device = ts_buffer_memory(b) == TS_MEMORY_DEVICE && batch->ctx->backend == TS_BACKEND_CUDA;
  return batch_solve(batch, (const double *)ts_buffer_data(b), (double *)ts_buffer_data(x), on_device, op);
}
