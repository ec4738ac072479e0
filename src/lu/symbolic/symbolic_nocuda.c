/* The GPU symbolic phase in a build without CUDA: asking for it is refused
 * (the host's runs unless the switches force the GPU). */
#include "lu/symbolic/symbolic_internal.h"

ts_status tsi_lu_symbolic_cuda(ts_lu *lu, const ts_csr *a) {
  (void)a;
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_analyze: GPU symbolic factorization: built without CUDA");
}

ts_status tsi_lu_symbolic_cuda_rows(ts_lu *lu, tsi_lu_rows *rows) {
  (void)rows;
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_analyze: GPU symbolic factorization: built without CUDA");
}
