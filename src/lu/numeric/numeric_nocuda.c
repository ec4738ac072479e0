/* The GPU numeric phases of the LU solver in a build without CUDA: the host
 * runs them, and asking for the GPU is refused. */
#include "lu/lu_internal.h"

bool tsi_lu_use_gpu(const ts_lu *lu) { return lu->options.backend == TS_BACKEND_CUDA; }

ts_status tsi_lu_numeric_cuda(ts_lu *lu) {
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "LU factorization: tessera was built without CUDA");
}

ts_status tsi_lu_cuda_apply_inverse(ts_lu *lu, ts_operation op, int64_t nrhs, const double *rhs, int64_t ldr, double *x,
                                    int64_t ldx) {
  (void)op, (void)nrhs, (void)rhs, (void)ldr, (void)ldx;
  if (x && nrhs > 0)
    x[0] = 0.0; /* nothing solved */
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_solve: tessera was built without CUDA");
}

ts_status tsi_lu_cuda_download_factors(ts_lu *lu) {
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "LU: tessera was built without CUDA");
}

void tsi_lu_cuda_release(ts_lu *lu) {
  if (lu)
    lu->factors_on_device = 0;
}
