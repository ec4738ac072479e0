/* The GPU levelization in a build without CUDA: asking for it is refused
 * (the host's runs unless the switches force the GPU). */
#include "lu/levelize/levelize_internal.h"

ts_status tsi_lu_levelize_cuda(ts_lu *lu) {
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_analyze: GPU levelization: built without CUDA");
}
