/* COO from CSR: entry k of the result is entry k of the CSR (row-major order).
 * Explicit zeros and the symmetry tag are kept. */
#include "core/convert_internal.h"

#include <string.h>

ts_status ts_coo_from_csr(ts_context *ctx, const ts_csr *csr, ts_coo **coo) {
  if (!coo)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_coo_from_csr: coo is NULL");
  *coo = NULL;
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_coo_from_csr: csr is NULL");
  ts_status st =
      tsi_compressed_check(ctx, "ts_coo_from_csr", "row", "column", csr->rows, csr->cols, csr->rows, csr->cols,
                           csr->nnz, csr->row_ptr, csr->col_idx, csr->values, csr->dtype, csr->symmetry);
  if (st != TS_SUCCESS)
    return st;
  ts_coo *out = NULL;
  st = ts_coo_create(ctx, csr->rows, csr->cols, csr->nnz, csr->dtype, &out);
  if (st != TS_SUCCESS)
    return st;
  const int64_t *row_ptr = csr->row_ptr;
  int32_t *row_idx = out->row_idx;
  int64_t rows = csr->rows;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4096) num_threads(tsi_thread_count(ctx)) if (csr->nnz > 100000)
#endif
  for (int64_t i = 0; i < rows; i++)
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++)
      row_idx[k] = (int32_t)i;
  if (csr->nnz > 0) {
    memcpy(out->col_idx, csr->col_idx, (size_t)csr->nnz * sizeof(int32_t));
    memcpy(out->values, csr->values, (size_t)csr->nnz * ts_dtype_size(csr->dtype));
  }
  out->nnz = csr->nnz;
  out->symmetry = csr->symmetry;
  *coo = out;
  return TS_SUCCESS;
}
