/* Built instead of spmv_locality_cuda.cu without CUDA; locality layouts are
 * made only for CUDA plans, so these are never reached. */
#include "spmv_locality.h"

ts_status tsi_spmv_segments_prepare(ts_context *ctx, const tsi_spmv_locality *l) {
  (void)l;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

ts_status tsi_spmv_hot_fill(ts_context *ctx, const tsi_spmv_locality *l, const void *x) {
  (void)l;
  (void)x;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

ts_status tsi_spmv_segments_run(ts_context *ctx, const tsi_spmv_locality *l, double alpha, const void *x, void *y) {
  (void)l;
  (void)alpha;
  (void)x;
  (void)y;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}
