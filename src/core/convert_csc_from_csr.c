/* CSC from CSR: the same matrix stored by column (a counting transpose of
 * the layout). Explicit zeros and the symmetry tag are kept. */
#include "core/convert_internal.h"

ts_status ts_csc_from_csr(ts_context *ctx, const ts_csr *csr, ts_csc **csc) {
  if (!csc)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csc_from_csr: csc is NULL");
  *csc = NULL;
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csc_from_csr: csr is NULL");
  ts_status st =
      tsi_compressed_check(ctx, "ts_csc_from_csr", "row", "column", csr->rows, csr->cols, csr->rows, csr->cols,
                           csr->nnz, csr->row_ptr, csr->col_idx, csr->values, csr->dtype, csr->symmetry);
  if (st != TS_SUCCESS)
    return st;
  ts_csc *out = NULL;
  st = ts_csc_create(ctx, csr->rows, csr->cols, csr->nnz, csr->dtype, &out);
  if (st != TS_SUCCESS)
    return st;
  tsi_compressed_transpose(csr->rows, csr->cols, csr->nnz, csr->row_ptr, csr->col_idx, csr->values, csr->dtype,
                           out->col_ptr, out->row_idx, out->values);
  out->symmetry = csr->symmetry;
  *csc = out;
  return TS_SUCCESS;
}
