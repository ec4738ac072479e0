/* ts_lu_batch_factor, ts_lu_batch_factor_buffer: every member factored from
 * new values, on the GPU (members it cannot decide handed to the host) or on
 * the host threads; each member's outcome recorded, a failed member named
 * in the call's status and message without failing the others. */
#include "lu/batch/batch_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ts_status tsi_lu_batch_outcome(ts_lu_batch *batch, const char *caller, bool solve) {
  int64_t failed = 0, perturbed = 0, degraded = 0, on_host = 0, first = -1;
  double worst_error = 0.0;
  bool error_unknown = false;
  int most_steps = 0;
  for (int64_t m = 0; m < batch->members; m++) {
    const ts_lu_batch_member *info = &batch->member[m].info;
    if (TS_IS_ERROR(info->status)) {
      if (failed++ == 0)
        first = m;
      continue;
    }
    perturbed += info->perturbed_pivots > 0;
    degraded += info->status == TS_WARNING_PIVOTS_DEGRADED;
    on_host += info->on_host != 0;
    /* An unchecked solve knows no backward error (NaN): nor does the batch. */
    if (isnan(info->backward_error))
      error_unknown = true;
    else if (info->backward_error > worst_error)
      worst_error = info->backward_error;
    if (info->refinement_steps > most_steps)
      most_steps = info->refinement_steps;
  }
  batch->stats.failed_members = failed;
  if (solve) {
    batch->stats.backward_error = error_unknown ? NAN : worst_error;
    batch->stats.refinement_steps = most_steps;
  } else {
    batch->stats.perturbed_members = perturbed;
    batch->stats.host_members = on_host;
  }
  if (failed > 0) {
    const tsi_lu_batch_member_state *state = &batch->member[first];
    /* A solve that failed on its own (an overflow, a singular verdict)
     * leaves its x as computed: only members without factors or with a
     * refused b get NaN. */
    const char *what = solve ? "have no factors or failed to solve (x is NaN where a member has no factors or its b "
                               "was refused)"
                       : failed < batch->members ? "failed (the others are factored)"
                                                 : "failed";
    return tsi_error(
        batch->ctx, state->info.status, "%s: %lld of %lld members %s; the first, member %lld (pattern %lld): %s%s",
        caller, (long long)failed, (long long)batch->members, what, (long long)first, (long long)state->info.pattern,
        state->message ? state->message : ts_status_string(state->info.status),
        solve ? "" : "; ts_lu_batch_get_member says which");
  }
  if (!solve && perturbed > 0)
    return TS_WARNING_PERTURBED_PIVOTS;
  return !solve && degraded > 0 ? TS_WARNING_PIVOTS_DEGRADED : TS_SUCCESS;
}

/* The host path for the members listed (all when list is NULL), values
 * from host memory (`values`, the whole array) or, for a GPU batch whose
 * values are on the device, each member's part downloaded. */
static ts_status host_factor(ts_lu_batch *batch, int64_t count, const int64_t *list, const double *values,
                             bool on_device) {
  if (count == 0)
    return TS_SUCCESS;
  const double **parts = tsi_malloc_array(count, sizeof *parts);
  double **copies = on_device ? tsi_calloc_array(count, sizeof *copies) : NULL;
  ts_status st = parts && (!on_device || copies)
                     ? TS_SUCCESS
                     : tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch: no memory for %lld members' values",
                                 (long long)count);
  for (int64_t i = 0; i < count && st == TS_SUCCESS; i++) {
    const ts_lu_batch_member *info = &batch->member[list ? list[i] : i].info;
    if (!on_device) {
      parts[i] = values + info->value_offset;
      continue;
    }
    copies[i] = tsi_malloc_array(info->nnz > 0 ? info->nnz : 1, sizeof(double));
    if (!copies[i])
      st = tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch: no memory for a member's %lld values",
                     (long long)info->nnz);
    else
      st = tsi_lu_batch_gpu_copy(batch, copies[i], values + info->value_offset, info->nnz, false);
    parts[i] = copies[i];
  }
  if (st == TS_SUCCESS)
    st = tsi_lu_batch_host_factor(batch, count, list, parts);
  if (copies)
    for (int64_t i = 0; i < count; i++)
      free(copies[i]);
  free(copies);
  free(parts);
  return st;
}

/* The members the GPU handed over, listed. */
static ts_status host_handed(ts_lu_batch *batch, const double *values, bool on_device) {
  int64_t count = 0;
  for (int64_t m = 0; m < batch->members; m++)
    count += batch->member[m].info.on_host != 0;
  if (count == 0)
    return TS_SUCCESS;
  int64_t *list = tsi_malloc_array(count, sizeof *list);
  if (!list)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch: no memory for %lld members", (long long)count);
  for (int64_t m = 0, i = 0; m < batch->members; m++)
    if (batch->member[m].info.on_host)
      list[i++] = m;
  ts_status st = host_factor(batch, count, list, values, on_device);
  free(list);
  return st;
}

/* A host array of every member's values for a host batch whose values are
 * in device memory. */
static ts_status download_all(ts_lu_batch *batch, const double *device, double **copy) {
  *copy = tsi_malloc_array(batch->values > 0 ? batch->values : 1, sizeof(double));
  if (!*copy)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "ts_lu_batch_factor_buffer: no memory for %lld values on the host", (long long)batch->values);
  return tsi_cuda_memcpy_to_host(batch->ctx, *copy, device, (size_t)batch->values * sizeof(double));
}

/* A call stopped before every member was factored (cancelled, no memory):
 * the batch has no factors, so no member's record may say it has; the
 * message names the call. */
static ts_status factor_stopped(ts_lu_batch *batch, ts_status st, const char *caller) {
  for (int64_t m = 0; m < batch->members; m++) {
    ts_lu_batch_member *info = &batch->member[m].info;
    info->status = TS_ERROR_NOT_FACTORED;
    info->singular_column = -1;
    info->perturbed_pivots = 0;
  }
  batch->stats.failed_members = batch->members;
  batch->stats.perturbed_members = 0;
  batch->stats.host_members = 0;
  char detail[TSI_MESSAGE_SIZE];
  snprintf(detail, sizeof detail, "%s", ts_last_error(batch->ctx));
  return tsi_error(batch->ctx, st, "%s: %s; no member has factors (every member's status is TS_ERROR_NOT_FACTORED)",
                   caller, detail);
}

static ts_status batch_factor(ts_lu_batch *batch, const double *values, bool on_device, const char *caller) {
  /* From here the old factors are gone, whatever happens. */
  batch->factored = false;
  for (int64_t m = 0; m < batch->members; m++) {
    ts_lu_batch_member *info = &batch->member[m].info;
    batch->member[m].factor_status = TS_ERROR_NOT_FACTORED;
    info->status = TS_ERROR_NOT_FACTORED;
    info->singular_column = -1;
    info->perturbed_pivots = 0;
    info->backward_error = 0.0;
    info->refinement_steps = 0;
    info->partial_pivoting = 0;
    info->on_host = 0;
  }
  const double start = tsi_seconds();
  ts_status st;
  if (batch->on_gpu) {
    st = tsi_lu_batch_gpu_factor(batch, values, on_device);
    if (st == TS_SUCCESS)
      st = host_handed(batch, values, on_device);
  } else if (on_device) {
    double *copy = NULL;
    st = download_all(batch, values, &copy);
    if (st == TS_SUCCESS)
      st = host_factor(batch, batch->members, NULL, copy, false);
    free(copy);
  } else {
    st = host_factor(batch, batch->members, NULL, values, false);
  }
  batch->stats.time_factor = tsi_seconds() - start;
  if (st != TS_SUCCESS)
    return factor_stopped(batch, st, caller);
  for (int64_t m = 0; m < batch->members; m++)
    batch->member[m].factor_status = batch->member[m].info.status;
  batch->factored = true;
  return tsi_lu_batch_outcome(batch, caller, false);
}

ts_status ts_lu_batch_factor(ts_lu_batch *batch, const double *values) {
  const char *op = "ts_lu_batch_factor";
  if (!batch)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: batch is NULL", op);
  if (!values && batch->values > 0)
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: values is NULL", op);
  return batch_factor(batch, values, false, op);
}

ts_status ts_lu_batch_factor_buffer(ts_lu_batch *batch, const ts_buffer *values) {
  const char *op = "ts_lu_batch_factor_buffer";
  if (!batch)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: batch is NULL", op);
  if (!values)
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: values is NULL", op);
  if (tsi_buffer_context(values) != batch->ctx)
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the buffer belongs to another context", op);
  if (ts_buffer_size(values) / sizeof(double) < (size_t)batch->values)
    return tsi_error(batch->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the buffer holds %zu bytes, the batch's values %lld",
                     op, ts_buffer_size(values), (long long)batch->values * (long long)sizeof(double));
  const bool on_device = ts_buffer_memory(values) == TS_MEMORY_DEVICE && batch->ctx->backend == TS_BACKEND_CUDA;
  return batch_factor(batch, (const double *)ts_buffer_data(values), on_device, op);
}
