/* Built instead of sort_cuda.cu without CUDA; a CUDA context cannot exist then. */
#include "sort/sort_internal.h"

size_t tsi_sort_cuda_scratch_bytes(int64_t max_n, size_t key_size, size_t value_size) {
  (void)max_n;
  (void)key_size;
  (void)value_size;
  return 0;
}

ts_status tsi_sort_cuda(const ts_sort_plan *plan, int64_t n, void *keys, void *values, void *workspace) {
  (void)n;
  (void)keys;
  (void)values;
  (void)workspace;
  return tsi_error(plan->ctx, TS_ERROR_NO_DEVICE, "ts_sort_execute: tessera was built without CUDA");
}

ts_status tsi_sort_cuda_prepare(const ts_sort_plan *plan) {
  return tsi_error(plan->ctx, TS_ERROR_NO_DEVICE, "ts_sort_plan_create: tessera was built without CUDA");
}
