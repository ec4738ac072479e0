/* Built instead of search_cuda.cu without CUDA; a CUDA context cannot exist then. */
#include "search/search_internal.h"

ts_status tsi_search_cuda_prepare(ts_search_plan *plan) {
  return tsi_error(plan->ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

ts_status tsi_search_cuda_execute(ts_search_plan *plan, ts_search_bound bound, const void *queries, int64_t count,
                                  void *results) {
  (void)bound;
  (void)queries;
  (void)count;
  (void)results;
  return tsi_error(plan->ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

ts_status tsi_search_cuda_batched(ts_context *ctx, ts_key_type type, ts_search_bound bound,
                                  ts_search_batched_algorithm algorithm, const void *keys, int64_t arrays, int64_t n,
                                  const void *queries, int64_t m, void *results) {
  (void)type;
  (void)bound;
  (void)algorithm;
  (void)keys;
  (void)arrays;
  (void)n;
  (void)queries;
  (void)m;
  (void)results;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}
