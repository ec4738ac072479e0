/* The context: backend choice (AUTO resolves to CUDA when a GPU is usable),
 * device, stream, thread count, last-error message, progress callback. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

ts_status ts_context_create(ts_context **ctx, const ts_context_options *options) {
  if (!ctx)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_context_create: ctx is NULL");
  *ctx = NULL;
  ts_context_options defaults = {0};
  if (!options)
    options = &defaults;
  if (options->backend != TS_BACKEND_AUTO && options->backend != TS_BACKEND_CPU && options->backend != TS_BACKEND_CUDA)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_context_create: unknown backend %d", (int)options->backend);
  if (options->num_threads < 0)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_context_create: num_threads %d is negative",
                     options->num_threads);
  /* The OpenMP runtime ends the process when it cannot start the threads
   * asked for: a count past the documented limit is refused here instead. */
  if (options->num_threads > TS_MAX_THREADS)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT,
                     "ts_context_create: num_threads %d exceeds the limit of %d threads (TS_MAX_THREADS)",
                     options->num_threads, TS_MAX_THREADS);
  ts_context *c = calloc(1, sizeof *c);
  if (!c)
    return tsi_error(NULL, TS_ERROR_OUT_OF_MEMORY, "ts_context_create: out of host memory");
  c->references = 1;
  c->num_threads = options->num_threads;
  c->device = -1;
  c->backend = TS_BACKEND_CPU;
  if (options->backend != TS_BACKEND_CPU) {
    ts_status st = tsi_cuda_context_init(c, options);
    if (st == TS_SUCCESS) {
      c->backend = TS_BACKEND_CUDA;
    } else if (options->backend == TS_BACKEND_CUDA) {
      /* The reason is in c->message; hand it to the thread-local slot. */
      tsi_error(NULL, st, "%s", c->message);
      free(c);
      return st;
    } else {
      /* AUTO: the CPU runs instead; keep why, for the caller to say. */
      snprintf(c->fallback_reason, sizeof c->fallback_reason, "%s", c->message);
    }
  }
  c->message[0] = '\0';
  *ctx = c;
  return TS_SUCCESS;
}

void tsi_context_retain(ts_context *ctx) {
  if (ctx)
    (void)__atomic_add_fetch(&ctx->references, 1, __ATOMIC_RELAXED);
}

void tsi_context_release(ts_context *ctx) {
  if (!ctx || __atomic_sub_fetch(&ctx->references, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  if (ctx->backend == TS_BACKEND_CUDA)
    tsi_cuda_context_release(ctx);
  free(ctx);
}

void ts_context_destroy(ts_context *ctx) { tsi_context_release(ctx); }

const char *ts_context_fallback_reason(const ts_context *ctx) {
  return ctx && ctx->fallback_reason[0] ? ctx->fallback_reason : NULL;
}

ts_backend ts_context_backend(const ts_context *ctx) { return ctx ? ctx->backend : TS_BACKEND_CPU; }

void *ts_context_stream(const ts_context *ctx) { return (ctx && ctx->backend == TS_BACKEND_CUDA) ? ctx->stream : NULL; }

ts_status ts_context_sync(ts_context *ctx) {
  if (!ctx)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_context_sync: ctx is NULL");
  if (ctx->backend == TS_BACKEND_CUDA)
    return tsi_cuda_sync(ctx);
  return TS_SUCCESS;
}

ts_status ts_context_device_info(ts_context *ctx, ts_device_info *info) {
  if (!ctx || !info)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_context_device_info: NULL argument");
  memset(info, 0, sizeof *info);
  if (ctx->backend == TS_BACKEND_CUDA)
    return tsi_cuda_device_info(ctx, info);
  info->ordinal = -1;
#ifdef _OPENMP
  info->multiprocessors = ctx->num_threads > 0 ? ctx->num_threads : omp_get_max_threads();
#else
  info->multiprocessors = 1;
#endif
  snprintf(info->name, sizeof info->name, "host CPU (%d threads)", info->multiprocessors);
  return TS_SUCCESS;
}

ts_status ts_context_set_progress(ts_context *ctx, ts_progress_fn fn, void *user) {
  if (!ctx)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_context_set_progress: ctx is NULL");
  ctx->progress = fn;
  ctx->progress_user = user;
  return TS_SUCCESS;
}

ts_status tsi_progress(ts_context *ctx, int64_t done, int64_t total) {
  if (!ctx || !ctx->progress)
    return TS_SUCCESS;
  ctx->progress_done = done;
  ctx->progress_total = total;
  if (ctx->progress(ctx->progress_user, done, total) != 0)
    return tsi_error(ctx, TS_ERROR_CANCELLED, "cancelled by the progress callback");
  return TS_SUCCESS;
}

ts_status tsi_check_cancel(ts_context *ctx) {
  if (!ctx || !ctx->progress)
    return TS_SUCCESS;
  return tsi_progress(ctx, ctx->progress_done, ctx->progress_total);
}
