/* The GPU path of LU batches in a build without CUDA: refused. */
#include "lu/batch/batch_internal.h"

#include <math.h>

ts_status tsi_lu_batch_gpu_factor(ts_lu_batch *batch, const double *values, bool on_device) {
  (void)values;
  (void)on_device;
  return tsi_error(batch->ctx, TS_ERROR_UNSUPPORTED, "LU batch: tessera was built without CUDA");
}

ts_status tsi_lu_batch_gpu_solve(ts_lu_batch *batch, const double *b, double *x, bool on_device) {
  (void)b;
  (void)on_device;
  if (x && batch->rows > 0)
    x[0] = NAN; /* nothing solved */
  return tsi_error(batch->ctx, TS_ERROR_UNSUPPORTED, "LU batch: tessera was built without CUDA");
}

ts_status tsi_lu_batch_gpu_copy(ts_lu_batch *batch, void *dst, const void *src, int64_t count, bool to_device) {
  (void)dst;
  (void)src;
  (void)count;
  (void)to_device;
  return tsi_error(batch->ctx, TS_ERROR_UNSUPPORTED, "LU batch: tessera was built without CUDA");
}

void tsi_lu_batch_gpu_release(ts_lu_batch *batch) { (void)batch; }
