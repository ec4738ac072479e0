/* ts_model_calibrate in a build without CUDA: there is no GPU to measure. */
#include "model/model_internal.h"

ts_status ts_model_calibrate(ts_context *ctx, ts_model_params *params) {
  (void)params;
  return tsi_error(ctx, TS_ERROR_UNSUPPORTED, "ts_model_calibrate: tessera was built without CUDA");
}
