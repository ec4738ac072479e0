/* Built instead of spmv_cuda.cu without CUDA; a CUDA context cannot exist then. */
#include "sparse/spmv_cuda.h"

size_t tsi_spmv_cuda_workspace_bytes(const tsi_spmv_device_matrix *a, ts_schedule schedule, int group_size) {
  (void)a;
  (void)schedule;
  (void)group_size;
  return 0;
}
ts_status tsi_spmv_cuda_prepare(ts_context *ctx, tsi_spmv_device_matrix *a, ts_schedule schedule, int group_size,
                                void *workspace, size_t workspace_bytes) {
  (void)a;
  (void)schedule;
  (void)group_size;
  (void)workspace;
  (void)workspace_bytes;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}
ts_status tsi_spmv_cuda_run(ts_context *ctx, const tsi_spmv_device_matrix *a, ts_schedule schedule, int group_size,
                            void *workspace, size_t workspace_bytes, double alpha, const void *x, double beta,
                            void *y) {
  (void)a;
  (void)schedule;
  (void)group_size;
  (void)workspace;
  (void)workspace_bytes;
  (void)alpha;
  (void)x;
  (void)beta;
  (void)y;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}
