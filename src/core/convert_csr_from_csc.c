/* CSR from CSC: the same matrix stored by row (a counting transpose of the
 * layout). Explicit zeros and the symmetry tag are kept. */
#include "core/convert_internal.h"

ts_status ts_csr_from_csc(ts_context *ctx, const ts_csc *csc, ts_csr **csr) {
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_from_csc: csr is NULL");
  *csr = NULL;
  if (!csc)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_from_csc: csc is NULL");
  ts_status st =
      tsi_compressed_check(ctx, "ts_csr_from_csc", "column", "row", csc->rows, csc->cols, csc->cols, csc->rows,
                           csc->nnz, csc->col_ptr, csc->row_idx, csc->values, csc->dtype, csc->symmetry);
  if (st != TS_SUCCESS)
    return st;
  ts_csr *out = NULL;
  st = ts_csr_create(ctx, csc->rows, csc->cols, csc->nnz, csc->dtype, &out);
  if (st != TS_SUCCESS)
    return st;
  tsi_compressed_transpose(csc->cols, csc->rows, csc->nnz, csc->col_ptr, csc->row_idx, csc->values, csc->dtype,
                           out->row_ptr, out->col_idx, out->values);
  out->symmetry = csc->symmetry;
  *csr = out;
  return TS_SUCCESS;
}
