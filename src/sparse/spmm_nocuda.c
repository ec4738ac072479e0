/* Built instead of spmm_cuda.cu without CUDA; a CUDA context cannot exist then. */
#include "spmm_internal.h"

ts_status tsi_spmm_cuda_prepare(ts_context *ctx, const tsi_spmm_device *d, ts_schedule schedule, void *workspace) {
  (void)d;
  (void)schedule;
  (void)workspace;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

ts_status tsi_spmm_cuda_run(ts_context *ctx, const tsi_spmm_device *d, ts_schedule schedule, void *workspace,
                            double alpha, const void *b, double beta, void *c) {
  (void)d;
  (void)schedule;
  (void)workspace;
  (void)alpha;
  (void)b;
  (void)beta;
  (void)c;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}
