/* B = A^T in CSR. General storage: a counting transpose (rows and columns
 * exchange). Symmetric storage: A^T = A, so B is a copy that keeps the
 * stored triangle and the tag; skew-symmetric: A^T = -A, a copy with
 * negated values; hermitian: A^T = conj(A), a copy with conjugated values
 * (still hermitian; a plain copy for real values). Transposing the stored
 * triangle itself would move it to the other side and break the tag's
 * convention (lower triangle stored). */
#include "core/complex_value.h"
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
    const bool negate = a->symmetry == TS_SKEW_SYMMETRIC;
    if (negate || (a->symmetry == TS_HERMITIAN && TS_DTYPE_IS_COMPLEX(a->dtype))) {
      for (int64_t k = 0; k < out->nnz; k++) {
        tsi_complex128 v = tsi_value_get(out->dtype, out->values, k);
        tsi_value_set(out->dtype, out->values, k, negate ? tsi_z(-v.re, -v.im) : tsi_z_conj(v));
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
