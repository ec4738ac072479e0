/* CSR from COO: counting sort by row (O(nnz + rows)), then a stable sort of
 * each row by column, then duplicates summed in input order or refused.
 * Explicit zeros, and sums that come to zero, stay stored. The result is the
 * same for any thread count: rows are sorted independently and the scatter
 * and the summing run in one thread. */
#include "core/complex_value.h"
#include "core/convert_internal.h"

#include <math.h>
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

/* Complex sums part by part, each part rounded to the type as the real
 * sums are. */
#define TSI_ADD_INTO(sum, v) ((sum).re += (v).re, (sum).im += (v).im)
#define TSI_VALUE_FINITE(v) (isfinite((v).re) && isfinite((v).im))
#define TSI_VALUE tsi_complex64
#define TSI_NAME(x) x##_c64
#include "core/convert_csr_from_coo_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE tsi_complex128
#define TSI_NAME(x) x##_c128
#include "core/convert_csr_from_coo_impl.h"
#undef TSI_VALUE
#undef TSI_NAME
#undef TSI_ADD_INTO
#undef TSI_VALUE_FINITE

static bool row_sorted(const int32_t *cols, int64_t n) {
  for (int64_t k = 1; k < n; k++)
    if (cols[k] < cols[k - 1])
      return false;
  return true;
}

/* The typed function of the value type: f##_f32, _f64, _c64 or _c128. */
#define TSI_BY_DTYPE(dtype, f, ...)                                                                                    \
  ((dtype) == TS_FLOAT32      ? f##_f32(__VA_ARGS__)                                                                   \
   : (dtype) == TS_COMPLEX64  ? f##_c64(__VA_ARGS__)                                                                   \
   : (dtype) == TS_COMPLEX128 ? f##_c128(__VA_ARGS__)                                                                  \
                              : f##_f64(__VA_ARGS__))

static void sort_row(ts_dtype dtype, int32_t *cols, void *values, int64_t n, int32_t *scratch_cols,
                     void *scratch_values) {
  if (n <= TSI_SHORT_ROW) {
    switch (dtype) {
    case TS_FLOAT32:
      insertion_sort_f32(cols, values, n);
      break;
    case TS_COMPLEX64:
      insertion_sort_c64(cols, values, n);
      break;
    case TS_COMPLEX128:
      insertion_sort_c128(cols, values, n);
      break;
    default:
      insertion_sort_f64(cols, values, n);
      break;
    }
    return;
  }
  switch (dtype) {
  case TS_FLOAT32:
    merge_sort_f32(cols, values, n, scratch_cols, scratch_values);
    break;
  case TS_COMPLEX64:
    merge_sort_c64(cols, values, n, scratch_cols, scratch_values);
    break;
  case TS_COMPLEX128:
    merge_sort_c128(cols, values, n, scratch_cols, scratch_values);
    break;
  default:
    merge_sort_f64(cols, values, n, scratch_cols, scratch_values);
    break;
  }
}

/* Sort rows [first, last) of up to TSI_MEDIUM_ROW entries in parallel; the
 * longest row left unsorted (longer ones) goes into *longest_left. */
static void sort_row_block(ts_context *ctx, ts_csr *m, int64_t first, int64_t last, int *allocation_failed,
                           int64_t *longest_left) {
  const int64_t *ptr = m->row_ptr;
  size_t value_size = ts_dtype_size(m->dtype);
  int failed = 0;
  int64_t longest = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(tsi_thread_count(ctx)) reduction(|                                                    \
                                                                  : failed)                                            \
    reduction(max                                                                                                      \
              : longest) if (ptr[last] - ptr[first] > 100000)
#endif
  {
    int32_t *scratch_cols = NULL;
    void *scratch_values = NULL;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (int64_t i = first; i < last; i++) {
      int64_t n = ptr[i + 1] - ptr[i];
      int32_t *cols = m->col_idx + ptr[i];
      void *values = (char *)m->values + (size_t)ptr[i] * value_size;
      if (n < 2 || row_sorted(cols, n))
        continue;
      if (n > TSI_MEDIUM_ROW) {
        if (n > longest)
          longest = n;
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
          failed = 1;
          continue;
        }
      }
      sort_row(m->dtype, cols, values, n, scratch_cols, scratch_values);
    }
    free(scratch_cols);
    free(scratch_values);
  }
  *allocation_failed |= failed;
  if (longest > *longest_left)
    *longest_left = longest;
}

/* Sort every row by column: blocks of rows by their entries in parallel,
 * a cancellation check after each block, then the few long rows one at a
 * time with scratch of the longest. */
static ts_status sort_rows(ts_context *ctx, ts_csr *m) {
  const int64_t *ptr = m->row_ptr;
  int64_t rows = m->rows;
  size_t value_size = ts_dtype_size(m->dtype);
  int allocation_failed = 0;
  int64_t longest_left = 0;
  for (int64_t block = 0, block_end; block < rows && !allocation_failed; block = block_end) {
    block_end = tsi_block_end_by_work(ptr, block, rows);
    sort_row_block(ctx, m, block, block_end, &allocation_failed, &longest_left);
    ts_status st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      return st;
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
  for (int64_t i = 0; i < rows && st == TS_SUCCESS; i++) {
    int64_t n = ptr[i + 1] - ptr[i];
    int32_t *cols = m->col_idx + ptr[i];
    if (n > TSI_MEDIUM_ROW && !row_sorted(cols, n)) {
      sort_row(m->dtype, cols, (char *)m->values + (size_t)ptr[i] * value_size, n, scratch_cols, scratch_values);
      st = tsi_check_cancel(ctx);
    }
  }
cleanup:
  free(scratch_cols);
  free(scratch_values);
  return st;
}

/* The first two input entries at (row, col), -1 where there are fewer. */
static void find_entries(const ts_coo *coo, int64_t row, int32_t col, int64_t *first, int64_t *second) {
  *first = *second = -1;
  for (int64_t k = 0; k < coo->nnz && *second < 0; k++)
    if (coo->row_idx[k] == row && coo->col_idx[k] == col) {
      if (*first < 0)
        *first = k;
      else
        *second = k;
    }
}

/* Name the first duplicate (lowest row, then column) by its input entries. */
static ts_status refuse_duplicate(ts_context *ctx, const ts_coo *coo, const ts_csr *m, int64_t row) {
  int32_t col = 0;
  for (int64_t k = m->row_ptr[row] + 1; k < m->row_ptr[row + 1]; k++)
    if (m->col_idx[k] == m->col_idx[k - 1]) {
      col = m->col_idx[k];
      break;
    }
  int64_t first, second;
  find_entries(coo, row, col, &first, &second);
  return tsi_error(ctx, TS_ERROR_INVALID_MATRIX,
                   "ts_csr_from_coo: entries %lld and %lld are both at row %lld, column %d (duplicates refused)",
                   (long long)first, (long long)second, (long long)row, (int)col);
}

ts_status tsi_csr_from_coo(ts_context *ctx, const ts_coo *coo, ts_duplicates duplicates, ts_csr **csr,
                           tsi_entry_place *nonfinite_sum) {
  if (nonfinite_sum)
    nonfinite_sum->row = nonfinite_sum->col = -1;
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
  st = TSI_BY_DTYPE(coo->dtype, scatter_by_row, ctx, coo, m);
  if (st == TS_SUCCESS)
    st = sort_rows(ctx, m);
  if (st != TS_SUCCESS)
    goto cleanup;

  /* Rows are sorted: a duplicate sits next to its twin. */
  const int64_t *ptr = m->row_ptr;
  const int32_t *cols = m->col_idx;
  int64_t rows = m->rows, repeated = 0, first_row = rows;
  for (int64_t block = 0, block_end; block < rows; block = block_end) {
    block_end = tsi_block_end_by_work(ptr, block, rows);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : repeated) reduction(min : first_row)                \
    num_threads(tsi_thread_count(ctx)) if (ptr[block_end] - ptr[block] > 100000)
#endif
    for (int64_t i = block; i < block_end; i++)
      for (int64_t k = ptr[i] + 1; k < ptr[i + 1]; k++)
        if (cols[k] == cols[k - 1]) {
          repeated++;
          if (i < first_row)
            first_row = i;
        }
    st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      goto cleanup;
  }
  if (repeated > 0) {
    if (duplicates == TS_DUPLICATES_ERROR) {
      st = refuse_duplicate(ctx, coo, m, first_row);
      goto cleanup;
    }
    int64_t bad_row = -1;
    int32_t bad_col = -1;
    int64_t merged = 0;
    st = TSI_BY_DTYPE(m->dtype, sum_duplicates, ctx, rows, m->row_ptr, m->col_idx, m->values, &bad_row, &bad_col,
                      &merged);
    if (st != TS_SUCCESS)
      goto cleanup;
    m->nnz = merged;
    if (bad_row >= 0) {
      /* A sum past the largest value of the type (or inf - inf) is refused:
       * the matrix would hold a value no input entry holds. */
      int64_t first, second;
      find_entries(coo, bad_row, bad_col, &first, &second);
      if (nonfinite_sum) {
        nonfinite_sum->row = bad_row;
        nonfinite_sum->col = bad_col;
        nonfinite_sum->first = first;
        nonfinite_sum->second = second;
      }
      st = tsi_error(ctx, TS_ERROR_INVALID_MATRIX,
                     "ts_csr_from_coo: the duplicates at row %lld, column %d (entries %lld, %lld, ...) sum to a "
                     "value beyond the range of %s",
                     (long long)bad_row, (int)bad_col, (long long)first, (long long)second,
                     tsi_value_type_name(m->dtype));
      goto cleanup;
    }
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

ts_status ts_csr_from_coo(ts_context *ctx, const ts_coo *coo, ts_duplicates duplicates, ts_csr **csr) {
  return tsi_csr_from_coo(ctx, coo, duplicates, csr, NULL);
}
