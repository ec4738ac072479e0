/* A host array copied into a new GPU array (sparse plans' operands). */
#include "device_upload.h"

ts_status tsi_upload_array(ts_context *ctx, void **dst, const void *src, size_t bytes) {
  ts_status st = tsi_cuda_malloc(ctx, dst, bytes + 1);
  if (st == TS_SUCCESS && bytes > 0)
    st = tsi_cuda_memcpy_to_device(ctx, *dst, src, bytes);
  if (st != TS_SUCCESS) {
    tsi_cuda_free(*dst);
    *dst = NULL;
  }
  return st;
}
