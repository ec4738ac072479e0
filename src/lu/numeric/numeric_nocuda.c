/* The GPU numeric phase in a build without CUDA: asking for it is refused,
 * and there is no device cache to release. */
#include "lu/numeric/numeric_internal.h"

ts_status tsi_lu_numeric_cuda(ts_lu *lu, const char *caller) {
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "%s: tessera was built without CUDA", caller);
}

ts_status tsi_lu_cuda_download_factors(ts_lu *lu) {
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "LU: tessera was built without CUDA");
}

ts_status tsi_lu_cuda_pivot_quality(ts_lu *lu) {
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "LU: tessera was built without CUDA");
}

void tsi_lu_cuda_release(ts_lu *lu) {
  if (lu)
    lu->factors_on_device = 0;
}
