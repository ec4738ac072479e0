/* Run a search plan on a batch of queries: check the buffers, then the
 * backend's search. */
#include "search/search_internal.h"

ts_status ts_search_execute(ts_search_plan *plan, ts_search_bound bound, const ts_buffer *queries, int64_t count,
                            ts_buffer *results) {
  if (!plan || !queries || !results)
    return tsi_error(plan ? plan->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_search_execute: NULL argument");
  ts_context *ctx = plan->ctx;
  if (bound != TS_BOUND_LOWER && bound != TS_BOUND_UPPER)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_execute: unknown bound %d", (int)bound);
  if (count < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_execute: negative query count %lld", (long long)count);
  if (tsi_buffer_context(queries) != ctx || tsi_buffer_context(results) != ctx)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_search_execute: queries and results must belong to the plan's context");
  if (ts_buffer_memory(queries) != TS_MEMORY_DEVICE || ts_buffer_memory(results) != TS_MEMORY_DEVICE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_search_execute: queries and results must be TS_MEMORY_DEVICE buffers");
  int64_t query_bytes, result_bytes;
  if (tsi_mul_overflows(count, (int64_t)plan->key_size, &query_bytes) ||
      tsi_mul_overflows(count, (int64_t)plan->index_size, &result_bytes))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_search_execute: %lld queries overflow a byte count", (long long)count);
  if (ts_buffer_size(queries) < (size_t)query_bytes || ts_buffer_size(results) < (size_t)result_bytes)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_search_execute: %lld queries need %lld bytes of queries and %lld of results; the buffers "
                     "hold %zu and %zu",
                     (long long)count, (long long)query_bytes, (long long)result_bytes, ts_buffer_size(queries),
                     ts_buffer_size(results));
  /* Results wider than the queries would overwrite queries not yet read. */
  if (tsi_ranges_overlap(ts_buffer_data(queries), (size_t)query_bytes, ts_buffer_data(results), (size_t)result_bytes))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_execute: queries and results overlap in memory");
  if (count == 0)
    return TS_SUCCESS;
  if (ctx->backend == TS_BACKEND_CUDA)
    return tsi_search_cuda_execute(plan, bound, ts_buffer_data(queries), count, ts_buffer_data(results));
  return tsi_search_cpu(plan, bound, ts_buffer_data(queries), count, ts_buffer_data(results));
}
