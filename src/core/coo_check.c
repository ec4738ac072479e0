/* Validation of a COO matrix: sizes, nnz <= capacity, every index in range. */
#include "core/convert_internal.h"

ts_status tsi_coo_check(ts_context *ctx, const char *op, const ts_coo *coo) {
  if (!coo)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: coo is NULL", op);
  int64_t rows = coo->rows, cols = coo->cols, nnz = coo->nnz;
  if (rows < 0 || cols < 0 || nnz < 0 || coo->capacity < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: negative size (%lld x %lld, %lld entries, capacity %lld)", op,
                     (long long)rows, (long long)cols, (long long)nnz, (long long)coo->capacity);
  if (rows > TS_MAX_DIMENSION || cols > TS_MAX_DIMENSION)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: %lld x %lld exceeds the largest dimension %d", op, (long long)rows,
                     (long long)cols, TS_MAX_DIMENSION);
  if (nnz > coo->capacity)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: %lld entries exceed the capacity %lld", op, (long long)nnz,
                     (long long)coo->capacity);
  if (ts_dtype_size(coo->dtype) == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: unknown value type %d", op, (int)coo->dtype);
  ts_symmetry symmetry = coo->symmetry;
  if (symmetry != TS_GENERAL && symmetry != TS_SYMMETRIC && symmetry != TS_SKEW_SYMMETRIC && symmetry != TS_HERMITIAN)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: unknown symmetry %d", op, (int)symmetry);
  if (symmetry != TS_GENERAL && rows != cols)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: %s storage of a non-square %lld x %lld matrix", op,
                     ts_symmetry_name(symmetry), (long long)rows, (long long)cols);
  if (nnz > 0 && (!coo->row_idx || !coo->col_idx || !coo->values))
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: index or value array is NULL with %lld entries", op,
                     (long long)nnz);

  /* The first bad entry, whatever the thread count: a min-reduction, in
   * blocks with a cancellation check after each. */
  const int32_t *row_idx = coo->row_idx, *col_idx = coo->col_idx;
  int64_t first_bad = nnz;
  for (int64_t start = 0, end; start < nnz && first_bad == nnz; start = end) {
    end = tsi_block_end(start, nnz);
#ifdef _OPENMP
#pragma omp parallel for reduction(min : first_bad) num_threads(tsi_thread_count(ctx)) if (end - start > 100000)
#endif
    for (int64_t k = start; k < end; k++)
      if (k < first_bad && (row_idx[k] < 0 || row_idx[k] >= rows || col_idx[k] < 0 || col_idx[k] >= cols))
        first_bad = k;
    ts_status st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      return st;
  }
  if (first_bad < nnz)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX,
                     "%s: entry %lld (row %d, column %d) is outside the %lld x %lld matrix (indices are zero-based)",
                     op, (long long)first_bad, (int)row_idx[first_bad], (int)col_idx[first_bad], (long long)rows,
                     (long long)cols);
  return TS_SUCCESS;
}

ts_status ts_coo_check(ts_context *ctx, const ts_coo *coo) { return tsi_coo_check(ctx, "ts_coo_check", coo); }
