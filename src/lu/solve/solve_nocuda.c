/* The GPU solves in a build without CUDA: no factorization leaves its
 * factors on a device there, so this is never reached through ts_lu_solve. */
#include "lu/solve/solve_internal.h"

ts_status tsi_lu_cuda_apply_inverse(ts_lu *lu, ts_operation op, int64_t nrhs, const double *rhs, int64_t ldr, double *x,
                                    int64_t ldx) {
  (void)op, (void)nrhs, (void)rhs, (void)ldr, (void)ldx;
  if (x && nrhs > 0)
    x[0] = 0.0; /* nothing solved */
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_solve: tessera was built without CUDA");
}

ts_status tsi_lu_cuda_apply_inverse_device(ts_lu *lu, ts_operation op, const double *rhs, double *x) {
  (void)op, (void)rhs;
  if (x && lu->n > 0)
    x[0] = 0.0; /* nothing solved */
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_solve: tessera was built without CUDA");
}

ts_status tsi_lu_cuda_refine(ts_lu *lu, const tsi_lu_refine_setup *setup, const double *b, double *x,
                             bool device_vectors, tsi_lu_residual_measures *measures, int *steps) {
  (void)setup, (void)b, (void)device_vectors, (void)measures;
  if (x && lu->n > 0)
    x[0] = 0.0; /* nothing solved */
  *steps = 0;
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_solve: tessera was built without CUDA");
}

bool tsi_lu_front_solve_applies(const ts_lu *lu, const tsi_lu_device *dev, ts_operation op) {
  (void)lu, (void)dev, (void)op;
  return false;
}

ts_status tsi_lu_front_solve(ts_lu *lu, tsi_lu_device *dev, int64_t nrhs, double *y, void *stream) {
  (void)dev, (void)stream;
  if (y && nrhs > 0 && lu->n > 0)
    y[0] = 0.0; /* nothing solved */
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_solve: tessera was built without CUDA");
}
