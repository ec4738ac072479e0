/* Validation of a CSC matrix: the CSR checks with rows and columns exchanged
 * (offsets per column, row indices strictly increasing within a column). */
#include "core/convert_internal.h"

ts_status ts_csc_check(ts_context *ctx, const ts_csc *csc) {
  if (!csc)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csc_check: csc is NULL");
  return tsi_compressed_check(ctx, "ts_csc_check", "column", "row", csc->rows, csc->cols, csc->cols, csc->rows,
                              csc->nnz, csc->col_ptr, csc->row_idx, csc->values, csc->dtype, csc->symmetry);
}
