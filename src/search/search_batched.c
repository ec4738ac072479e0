/* Many small independent searches: check the arguments, then a binary
 * search per query on the CPU or the shared-memory kernels on the GPU. */
#include "search/search_internal.h"

static int32_t count_below_in(ts_key_type type, const void *keys, int64_t first, int64_t n, uint64_t q, bool upper) {
  if (upper) {
    if (q == (ts_key_type_size(type) == 4 ? 0xffffffffull : ~0ull))
      return (int32_t)n;
    q++;
  }
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (tsi_order_key(type, keys, first + mid) < q)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (int32_t)lo;
}

ts_status ts_search_batched(ts_context *ctx, ts_key_type type, ts_search_bound bound,
                            ts_search_batched_algorithm algorithm, const ts_buffer *keys, int64_t arrays, int64_t n,
                            const ts_buffer *queries, int64_t m, ts_buffer *results) {
  if (!ctx || !keys || !queries || !results)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_batched: NULL argument");
  size_t key_size = ts_key_type_size(type);
  if (key_size == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_batched: unknown key type %d", (int)type);
  if (bound != TS_BOUND_LOWER && bound != TS_BOUND_UPPER)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_batched: unknown bound %d", (int)bound);
  if ((int)algorithm < TS_SEARCH_BATCHED_AUTO || (int)algorithm > TS_SEARCH_BATCHED_CONFLICT_LIMITED)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_batched: unknown algorithm %d", (int)algorithm);
  if (arrays < 0 || n < 0 || m < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_batched: negative size (%lld arrays, n %lld, m %lld)",
                     (long long)arrays, (long long)n, (long long)m);
  if (n > TS_SEARCH_BATCHED_MAX_KEYS)
    return tsi_error(ctx, TS_ERROR_UNSUPPORTED, "ts_search_batched: arrays of %lld keys pass the limit of %d",
                     (long long)n, TS_SEARCH_BATCHED_MAX_KEYS);
  if (tsi_buffer_context(keys) != ctx || tsi_buffer_context(queries) != ctx || tsi_buffer_context(results) != ctx)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_batched: buffers must belong to the context");
  if (ts_buffer_memory(keys) != TS_MEMORY_DEVICE || ts_buffer_memory(queries) != TS_MEMORY_DEVICE ||
      ts_buffer_memory(results) != TS_MEMORY_DEVICE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_batched: buffers must be TS_MEMORY_DEVICE buffers");
  int64_t key_count, query_count, key_bytes, query_bytes, result_bytes;
  if (tsi_mul_overflows(arrays, n, &key_count) || tsi_mul_overflows(arrays, m, &query_count) ||
      tsi_mul_overflows(key_count, (int64_t)key_size, &key_bytes) ||
      tsi_mul_overflows(query_count, (int64_t)key_size, &query_bytes) ||
      tsi_mul_overflows(query_count, (int64_t)sizeof(int32_t), &result_bytes))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_search_batched: %lld arrays of %lld keys and %lld queries overflow",
                     (long long)arrays, (long long)n, (long long)m);
  if (ts_buffer_size(keys) < (size_t)key_bytes || ts_buffer_size(queries) < (size_t)query_bytes ||
      ts_buffer_size(results) < (size_t)result_bytes)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_search_batched: buffers of %zu, %zu and %zu bytes; keys, queries and results need %lld, %lld "
                     "and %lld",
                     ts_buffer_size(keys), ts_buffer_size(queries), ts_buffer_size(results), (long long)key_bytes,
                     (long long)query_bytes, (long long)result_bytes);
  /* The results are written while keys and queries are read. */
  void *out = ts_buffer_data(results);
  if (tsi_ranges_overlap(ts_buffer_data(keys), (size_t)key_bytes, out, (size_t)result_bytes) ||
      tsi_ranges_overlap(ts_buffer_data(queries), (size_t)query_bytes, out, (size_t)result_bytes))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_search_batched: the results overlap the keys or the queries in memory");
  if (query_count == 0)
    return TS_SUCCESS;
  if (algorithm == TS_SEARCH_BATCHED_AUTO)
    algorithm = TS_SEARCH_BATCHED_CONFLICT_LIMITED;
  if (ctx->backend == TS_BACKEND_CUDA)
    return tsi_search_cuda_batched(ctx, type, bound, algorithm, ts_buffer_data(keys), arrays, n,
                                   ts_buffer_data(queries), m, ts_buffer_data(results));
  const void *k = ts_buffer_data(keys), *q = ts_buffer_data(queries);
  int32_t *r = ts_buffer_data(results);
  const bool upper = bound == TS_BOUND_UPPER;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < query_count; i++)
    r[i] = count_below_in(type, k, (i / m) * n, n, tsi_order_key(type, q, i), upper);
  return TS_SUCCESS;
}
