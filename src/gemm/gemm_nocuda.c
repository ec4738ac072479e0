/* Built instead of gemm_cuda.cu without CUDA; a CUDA context cannot exist then. */
#include "gemm/gemm_internal.h"

ts_status tsi_gemm_cuda(ts_context *ctx, const tsi_gemm_args *args, int config_id) {
  (void)args;
  (void)config_id;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

ts_status tsi_gemm_cuda_scale(ts_context *ctx, const tsi_gemm_args *args) {
  (void)args;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

ts_status tsi_gemm_cuda_multiprocessors(ts_context *ctx, int *multiprocessors) {
  *multiprocessors = 0;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}
