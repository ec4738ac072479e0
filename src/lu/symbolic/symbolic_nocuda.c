/* The GPU analysis phases in a build without CUDA: the CPU path runs. */
#include "lu/symbolic/symbolic_internal.h"

ts_status tsi_lu_symbolic_cuda(ts_lu *lu, const ts_csr *a) {
  (void)a;
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_analyze: GPU symbolic factorization: built without CUDA");
}

ts_status tsi_lu_symbolic_cuda_rows(ts_lu *lu, tsi_lu_rows *rows) {
  (void)rows;
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_analyze: GPU symbolic factorization: built without CUDA");
}

ts_status tsi_lu_levelize_cuda(ts_lu *lu) {
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED, "ts_lu_analyze: GPU levelization: built without CUDA");
}
