/* CSR from COO: counting sort by row (O(nnz + rows)), then a stable sort of
 * each row by column, then duplicates summed in input order or refused.
 * Explicit zeros, and sums that come to zero, stay stored. The result is the
 * same for any thread count: rows are sorted independently and the scatter
 * and the summing run in one thread. */
#include "core/convert_internal.h"

#include <stdlib.h>
#include <string.h>

/* Rows up to TSI_SHORT_ROW entries are insertion-sorted; up to
 * TSI_MEDIUM_ROW merge-sorted with per-thread scratch; longer unsorted rows
 * one at a time with scratch of the longest. */
#define TSI_SORT_RUN 32
#define TSI_SHORT_ROW 32
#define TSI_MEDIUM_ROW 4096

#define TSI_VALUE float
#define TSI_NAME(x) x##_f32
#include "core/convert_csr_from_coo_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_NAME(x) x##_f64
#include "core/convert_csr_from_coo_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

static bool row_sorted(const int32_t *cols, int64_t n) {
  for (int64_t k = 1; k < n; k++)
    if (cols[k] < cols[k - 1])
      return false;
  return true;
}

static void sort_row(ts_dtype dtype, int32_t *cols, void *values, int64_t n, int32_t *scratch_cols,
                     void *scratch_values) {
  if (dtype == TS_FLOAT32) {
    if (n <= TSI_SHORT_ROW)
      insertion_sort_f32(cols, values, n);
    else
      merge_sort_f32(cols, values, n, scratch_cols, scratch_values);
  } else {
    if (n <= TSI_SHORT_ROW)
      insertion_sort_f64(cols, values, n);
    else
      merge_sort_f64(cols, values, n, scratch_cols, scratch_values);
  }
}

static ts_status sort_rows(ts_context *ctx, ts_csr *m) {
  const int64_t *ptr = m->row_ptr;
  int64_t rows = m->rows;
  size_t value_size = ts_dtype_size(m->dtype);
  int allocation_failed = 0;
  int64_t longest_left = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(tsi_thread_count(ctx)) reduction(|                                                    \
                                                                  : allocation_failed)                                 \
    reduction(max                                                                                                      \
              : longest_left) if (m->nnz > 100000)
#endif
  {
    int32_t *scratch_cols = NULL;
    void *scratch_values = NULL;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (int64_t i = 0; i < rows; i++) {
      int64_t n = ptr[i + 1] - ptr[i];
      int32_t *cols = m->col_idx + ptr[i];
      void *values = (char *)m->values + (size_t)ptr[i] * value_size;
      if (n < 2 || row_sorted(cols, n))
        continue;
      if (n > TSI_MEDIUM_ROW) {
        if (n > longest_left)
          longest_left = n;
        continue;
      }
      if (n > TSI_SHORT_ROW && !scratch_cols) {
        scratch_cols = tsi_malloc_array(TSI_MEDIUM_ROW, sizeof(int32_t));
        scratch_values = tsi_malloc_array(TSI_MEDIUM_ROW, value_size);
        if (!scratch_cols || !scratch_values) {
          free(scratch_cols);
          free(scratch_values);
          scratch_cols = NULL;
          scratch_values = NULL;
          allocation_failed = 1;
          continue;
        }
      }
      sort_row(m->dtype, cols, values, n, scratch_cols, scratch_values);
    }
    free(scratch_cols);
    free(scratch_values);
  }
  if (allocation_failed)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_csr_from_coo: cannot allocate sorting workspace");
  if (longest_left == 0)
    return TS_SUCCESS;

  int32_t *scratch_cols = tsi_malloc_array(longest_left, sizeof(int32_t));
  void *scratch_values = tsi_malloc_array(longest_left, value_size);
  ts_status st = TS_SUCCESS;
  if (!scratch_cols || !scratch_values) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_csr_from_coo: cannot allocate sorting workspace of %lld entries",
                   (long long)longest_left);
    goto cleanup;
  }
  for (int64_t i = 0; i < rows; i++) {
    int64_t n = ptr[i + 1] - ptr[i];
    int32_t *cols = m->col_idx + ptr[i];
    if (n > TSI_MEDIUM_ROW && !row_sorted(cols, n))
      sort_row(m->dtype, cols, (char *)m->values + (size_t)ptr[i] * value_size, n, scratch_cols, scratch_values);
  }
cleanup:
  free(scratch_cols);
  free(scratch_values);
  return st;
}

/* Name the first duplicate (lowest row, then column) by its input entries. */
static ts_status refuse_duplicate(ts_context *ctx, const ts_coo *coo, const ts_csr *m, int64_t row) {
  int32_t col = 0;
  for (int64_t k = m->row_ptr[row] + 1; k < m->row_ptr[row + 1]; k++)
    if (m->col_idx[k] == m->col_idx[k - 1]) {
      col = m->col_idx[k];
      break;
    }
  int64_t first = -1, second = -1;
  for (int64_t k = 0; k < coo->nnz && second < 0; k++)
    if (coo->row_idx[k] == row && coo->col_idx[k] == col) {
      if (first < 0)
        first = k;
      else
        second = k;
    }
  return tsi_error(ctx, TS_ERROR_INVALID_MATRIX,
                   "ts_csr_from_coo: entries %lld and %lld are both at row %lld, column %d (duplicates refused)",
                   (long long)first, (long long)second, (long long)row, (int)col);
}

ts_status ts_csr_from_coo(ts_context *ctx, const ts_coo *coo, ts_duplicates duplicates, ts_csr **csr) {
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_from_coo: csr is NULL");
  *csr = NULL;
  if (duplicates != TS_DUPLICATES_SUM && duplicates != TS_DUPLICATES_ERROR)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_from_coo: unknown duplicates option %d", (int)duplicates);
  ts_status st = tsi_coo_check(ctx, "ts_csr_from_coo", coo);
  if (st != TS_SUCCESS)
    return st;

  ts_csr *m = NULL;
  st = ts_csr_create(ctx, coo->rows, coo->cols, coo->nnz, coo->dtype, &m);
  if (st != TS_SUCCESS)
    return st;
  m->symmetry = coo->symmetry;
  if (coo->dtype == TS_FLOAT32)
    scatter_by_row_f32(coo, m);
  else
    scatter_by_row_f64(coo, m);
  st = sort_rows(ctx, m);
  if (st != TS_SUCCESS)
    goto cleanup;

  /* Rows are sorted: a duplicate sits next to its twin. */
  const int64_t *ptr = m->row_ptr;
  const int32_t *cols = m->col_idx;
  int64_t rows = m->rows, repeated = 0, first_row = rows;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : repeated) reduction(min : first_row)                \
    num_threads(tsi_thread_count(ctx)) if (m->nnz > 100000)
#endif
  for (int64_t i = 0; i < rows; i++)
    for (int64_t k = ptr[i] + 1; k < ptr[i + 1]; k++)
      if (cols[k] == cols[k - 1]) {
        repeated++;
        if (i < first_row)
          first_row = i;
      }
  if (repeated > 0) {
    if (duplicates == TS_DUPLICATES_ERROR) {
      st = refuse_duplicate(ctx, coo, m, first_row);
      goto cleanup;
    }
    if (m->dtype == TS_FLOAT32)
      m->nnz = sum_duplicates_f32(rows, m->row_ptr, m->col_idx, m->values);
    else
      m->nnz = sum_duplicates_f64(rows, m->row_ptr, m->col_idx, m->values);
    /* Give back the space of the merged entries; keeping it is harmless. */
    int32_t *shrunk_cols = realloc(m->col_idx, (size_t)(m->nnz > 0 ? m->nnz : 1) * sizeof(int32_t));
    if (shrunk_cols)
      m->col_idx = shrunk_cols;
    void *shrunk_values = realloc(m->values, (size_t)(m->nnz > 0 ? m->nnz : 1) * ts_dtype_size(m->dtype));
    if (shrunk_values)
      m->values = shrunk_values;
  }
  *csr = m;
  m = NULL;
cleanup:
  ts_csr_destroy(m);
  return st;
}
