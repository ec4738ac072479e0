/* The device cache's memory: every allocation and release of the GPU
 * numeric phases goes through these two, so that dev->bytes is what the
 * cache holds and dev->peak the most it held (ts_lu_stats.peak_device_bytes). */
#include "lu/numeric/numeric_internal.h"

ts_status tsi_lu_device_alloc(ts_context *ctx, tsi_lu_device *dev, void **ptr, int64_t count, size_t size,
                              const char *what) {
  *ptr = NULL;
  int64_t bytes;
  if (tsi_mul_overflows(count > 0 ? count : 1, (int64_t)size, &bytes))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "LU on the GPU: %s: %lld entries overflow", what, (long long)count);
  ts_status st = tsi_cuda_malloc(ctx, ptr, (size_t)bytes);
  if (st != TS_SUCCESS)
    return tsi_error(ctx, st, "LU on the GPU: no device memory for %s (%lld bytes; %lld held)", what, (long long)bytes,
                     (long long)dev->bytes);
  dev->bytes += bytes;
  if (dev->bytes > dev->peak)
    dev->peak = dev->bytes;
  return TS_SUCCESS;
}

void tsi_lu_device_free(tsi_lu_device *dev, void *ptr, int64_t count, size_t size) {
  if (!ptr)
    return;
  tsi_cuda_free(ptr);
  dev->bytes -= (count > 0 ? count : 1) * (int64_t)size;
}
