/* Validation of a CSR matrix: offsets start at 0, never decrease and end at
 * nnz; column indices are in range and strictly increase within each row. */
#include "core/convert_internal.h"

static bool symmetry_known(ts_symmetry symmetry) {
  return symmetry == TS_GENERAL || symmetry == TS_SYMMETRIC || symmetry == TS_SKEW_SYMMETRIC ||
         symmetry == TS_HERMITIAN;
}

ts_status tsi_compressed_check(ts_context *ctx, const char *op, const char *major_name, const char *minor_name,
                               int64_t rows, int64_t cols, int64_t majors, int64_t minors, int64_t nnz,
                               const int64_t *ptr, const int32_t *idx, const void *values, ts_dtype dtype,
                               ts_symmetry symmetry) {
  if (rows < 0 || cols < 0 || nnz < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: negative size (%lld x %lld, %lld entries)", op, (long long)rows,
                     (long long)cols, (long long)nnz);
  if (rows > TS_MAX_DIMENSION || cols > TS_MAX_DIMENSION)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: %lld x %lld exceeds the largest dimension %d", op, (long long)rows,
                     (long long)cols, TS_MAX_DIMENSION);
  if (ts_dtype_size(dtype) == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: unknown value type %d", op, (int)dtype);
  if (!symmetry_known(symmetry))
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: unknown symmetry %d", op, (int)symmetry);
  if (symmetry != TS_GENERAL && rows != cols)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: %s storage of a non-square %lld x %lld matrix", op,
                     ts_symmetry_name(symmetry), (long long)rows, (long long)cols);
  if (!ptr && (majors > 0 || nnz > 0))
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: %s offsets are NULL", op, major_name);
  if (nnz > 0 && (!idx || !values))
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: %s indices or values are NULL with %lld entries", op,
                     minor_name, (long long)nnz);
  if (!ptr)
    return TS_SUCCESS; /* 0 majors, no entries */

  /* Offsets first: once they are monotone from 0 to nnz, every entry index
   * read below lies inside the arrays. */
  if (ptr[0] != 0)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: %s 0 starts at offset %lld (must be 0)", op, major_name,
                     (long long)ptr[0]);
  for (int64_t i = 0; i < majors; i++)
    if (ptr[i + 1] < ptr[i])
      return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: %s %lld ends at offset %lld before it starts at %lld", op,
                       major_name, (long long)i, (long long)ptr[i + 1], (long long)ptr[i]);
  if (ptr[majors] != nnz)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: offsets end at %lld but the matrix has %lld entries", op,
                     (long long)ptr[majors], (long long)nnz);

  for (int64_t i = 0; i < majors; i++) {
    for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
      int32_t j = idx[k];
      if (j < 0 || j >= minors)
        return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: %s %lld, entry %lld: %s %d is outside [0, %lld)", op,
                         major_name, (long long)i, (long long)k, minor_name, (int)j, (long long)minors);
      if (k > ptr[i] && j <= idx[k - 1]) {
        if (j == idx[k - 1])
          return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: %s %lld, entry %lld: %s %d appears twice (duplicate)", op,
                           major_name, (long long)i, (long long)k, minor_name, (int)j);
        return tsi_error(ctx, TS_ERROR_INVALID_MATRIX,
                         "%s: %s %lld, entry %lld: %s %d follows %s %d (%ss must increase)", op, major_name,
                         (long long)i, (long long)k, minor_name, (int)j, minor_name, (int)idx[k - 1], minor_name);
      }
    }
  }
  return TS_SUCCESS;
}

ts_status tsi_csr_check(ts_context *ctx, const char *op, const ts_csr *csr) {
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: csr is NULL", op);
  return tsi_compressed_check(ctx, op, "row", "column", csr->rows, csr->cols, csr->rows, csr->cols, csr->nnz,
                              csr->row_ptr, csr->col_idx, csr->values, csr->dtype, csr->symmetry);
}

ts_status ts_csr_check(ts_context *ctx, const ts_csr *csr) { return tsi_csr_check(ctx, "ts_csr_check", csr); }
