/* General COO from symmetric, skew-symmetric or hermitian storage: each
 * off-diagonal entry (i, j, v) is followed by its mirror (j, i, v), or
 * (j, i, -v) for skew-symmetric; diagonal entries appear once. Entries stored
 * in the upper triangle are mirrored the same way, so an entry stored in both
 * triangles gives duplicates (ts_csr_from_coo sums them). Hermitian storage
 * mirrors (i, j, v) as (j, i, conj(v)): like symmetric for real values. */
#include "core/complex_value.h"
#include "core/convert_internal.h"

#include <string.h>

ts_status ts_coo_expand_symmetric(ts_context *ctx, const ts_coo *coo, ts_coo **general) {
  if (!general)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_coo_expand_symmetric: general is NULL");
  *general = NULL;
  if (!coo)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_coo_expand_symmetric: coo is NULL");
  /* The doubled count must fit before anything is read or allocated. */
  if (coo->symmetry != TS_GENERAL && coo->nnz > INT64_MAX / 2)
    return tsi_error(ctx, TS_ERROR_OVERFLOW,
                     "ts_coo_expand_symmetric: %lld entries and their mirrors exceed the largest count %lld",
                     (long long)coo->nnz, (long long)INT64_MAX);
  ts_status st = tsi_coo_check(ctx, "ts_coo_expand_symmetric", coo);
  if (st != TS_SUCCESS)
    return st;

  const int32_t *row_idx = coo->row_idx, *col_idx = coo->col_idx;
  int64_t nnz = coo->nnz, off_diagonal = 0;
  for (int64_t start = 0, end; start < nnz && coo->symmetry != TS_GENERAL; start = end) {
    end = tsi_block_end(start, nnz);
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : off_diagonal) num_threads(tsi_thread_count(ctx)) if (end - start > 100000)
#endif
    for (int64_t k = start; k < end; k++)
      off_diagonal += row_idx[k] != col_idx[k];
    st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      return st;
  }
  ts_coo *out = NULL;
  st = ts_coo_create(ctx, coo->rows, coo->cols, nnz + off_diagonal, coo->dtype, &out);
  if (st != TS_SUCCESS)
    return st;

  if (coo->symmetry == TS_GENERAL) {
    if (nnz > 0) {
      memcpy(out->row_idx, row_idx, (size_t)nnz * sizeof(int32_t));
      memcpy(out->col_idx, col_idx, (size_t)nnz * sizeof(int32_t));
      memcpy(out->values, coo->values, (size_t)nnz * ts_dtype_size(coo->dtype));
    }
  } else {
    const bool negate = coo->symmetry == TS_SKEW_SYMMETRIC;
    const bool conjugate = coo->symmetry == TS_HERMITIAN && TS_DTYPE_IS_COMPLEX(coo->dtype);
    const size_t value_size = ts_dtype_size(coo->dtype);
    int64_t w = 0;
    for (int64_t k = 0; k < nnz; k++) {
      if (k % TSI_CANCEL_BLOCK == TSI_CANCEL_BLOCK - 1 && (st = tsi_check_cancel(ctx)) != TS_SUCCESS) {
        ts_coo_destroy(out);
        return st;
      }
      int32_t i = row_idx[k], j = col_idx[k];
      out->row_idx[w] = i;
      out->col_idx[w] = j;
      tsi_value_copy(value_size, out->values, w, coo->values, k);
      w++;
      if (i == j)
        continue;
      out->row_idx[w] = j;
      out->col_idx[w] = i;
      if (negate || conjugate) {
        tsi_complex128 v = tsi_value_get(coo->dtype, coo->values, k);
        tsi_value_set(coo->dtype, out->values, w, negate ? tsi_z(-v.re, -v.im) : tsi_z_conj(v));
      } else {
        tsi_value_copy(value_size, out->values, w, coo->values, k);
      }
      w++;
    }
  }
  out->nnz = nnz + off_diagonal;
  out->symmetry = TS_GENERAL;
  *general = out;
  return TS_SUCCESS;
}
