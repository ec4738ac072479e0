/* Ordering a context's stream with another library's stream on the GPU
 * (events, no host wait), for arrays the two share. */
#include "internal.h"

static ts_status order(ts_context *ctx, void *stream, bool context_waits, const char *op) {
  if (!ctx)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", op);
  if (ctx->backend != TS_BACKEND_CUDA || stream == ctx->stream)
    return TS_SUCCESS;
  return context_waits ? tsi_cuda_order_streams(ctx, stream, ctx->stream)
                       : tsi_cuda_order_streams(ctx, ctx->stream, stream);
}

ts_status ts_context_wait_for_stream(ts_context *ctx, void *stream) {
  return order(ctx, stream, true, "ts_context_wait_for_stream");
}

ts_status ts_stream_wait_for_context(ts_context *ctx, void *stream) {
  return order(ctx, stream, false, "ts_stream_wait_for_context");
}
