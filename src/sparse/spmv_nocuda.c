/* Built instead of spmv_cuda.cu without CUDA; a CUDA context cannot exist then. */
#include "spmv_plan.h"

ts_status tsi_spmv_cuda_upload(ts_spmv_plan *plan, const ts_csr *a) {
  (void)a;
  return tsi_error(plan->ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}
void tsi_spmv_cuda_release(ts_spmv_plan *plan) { (void)plan; }
ts_status tsi_spmv_cuda_execute(ts_spmv_plan *plan, double alpha, const void *x, double beta, void *y) {
  (void)alpha;
  (void)x;
  (void)beta;
  (void)y;
  return tsi_error(plan->ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}
