/* B = A^T in CSR. General storage: a counting transpose (rows and columns
 * exchange). Symmetric or hermitian storage: A^T = A, so B is a copy that
 * keeps the stored triangle and the tag; skew-symmetric: A^T = -A, a copy
 * with negated values. Transposing the stored triangle itself would move it
 * to the other side and break the tag's convention (lower triangle stored). */
#include "core/convert_internal.h"

ts_status ts_csr_transpose(ts_context *ctx, const ts_csr *a, ts_csr **at) {
  if (!at)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_transpose: at is NULL");
  *at = NULL;
  if (!a)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_transpose: a is NULL");
  ts_status st = tsi_compressed_check(ctx, "ts_csr_transpose", "row", "column", a->rows, a->cols, a->rows, a->cols,
                                      a->nnz, a->row_ptr, a->col_idx, a->values, a->dtype, a->symmetry);
  if (st != TS_SUCCESS)
    return st;
  ts_csr *out = NULL;
  if (a->symmetry != TS_GENERAL) {
    st = ts_csr_copy(ctx, a, &out);
    if (st != TS_SUCCESS)
      return st;
    if (a->symmetry == TS_SKEW_SYMMETRIC) {
      for (int64_t k = 0; k < out->nnz; k++) {
        if (out->dtype == TS_FLOAT32)
          ((float *)out->values)[k] = -((float *)out->values)[k];
        else
          ((double *)out->values)[k] = -((double *)out->values)[k];
      }
    }
    *at = out;
    return TS_SUCCESS;
  }
  st = ts_csr_create(ctx, a->cols, a->rows, a->nnz, a->dtype, &out);
  if (st != TS_SUCCESS)
    return st;
  tsi_compressed_transpose(a->rows, a->cols, a->nnz, a->row_ptr, a->col_idx, a->values, a->dtype, out->row_ptr,
                           out->col_idx, out->values);
  out->symmetry = TS_GENERAL;
  *at = out;
  return TS_SUCCESS;
}
