/* Statistics of a CSR matrix's stored entries: row lengths (min, max, mean,
 * population standard deviation, empty rows), column counts, diagonal,
 * bandwidth, and for square matrices the fraction of off-diagonal entries
 * whose mirror is stored (and holds an equal value), found by binary search
 * in the mirror's sorted row: O(nnz log(max row)). */
#include "core/complex_value.h"
#include "core/convert_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Values m and k compare equal (both parts for complex values; NaN never). */
static bool values_equal(ts_dtype dtype, const void *values, int64_t m, int64_t k) {
  if (dtype == TS_FLOAT32)
    return ((const float *)values)[m] == ((const float *)values)[k];
  if (dtype == TS_FLOAT64)
    return ((const double *)values)[m] == ((const double *)values)[k];
  tsi_complex128 a = tsi_value_get(dtype, values, m), b = tsi_value_get(dtype, values, k);
  return a.re == b.re && a.im == b.im;
}

ts_status ts_csr_stats_compute(ts_context *ctx, const ts_csr *csr, ts_csr_stats *stats) {
  if (!csr || !stats)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_stats_compute: NULL argument");
  ts_status st =
      tsi_compressed_check(ctx, "ts_csr_stats_compute", "row", "column", csr->rows, csr->cols, csr->rows, csr->cols,
                           csr->nnz, csr->row_ptr, csr->col_idx, csr->values, csr->dtype, csr->symmetry);
  if (st != TS_SUCCESS)
    return st;
  int64_t rows = csr->rows, cols = csr->cols, nnz = csr->nnz;
  const int64_t *ptr = csr->row_ptr;
  const int32_t *col_idx = csr->col_idx;
  int64_t *col_count = tsi_calloc_array(cols, sizeof(int64_t));
  if (!col_count)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_csr_stats_compute: cannot allocate %lld column counts",
                     (long long)cols);

  ts_csr_stats s;
  memset(&s, 0, sizeof s);
  s.rows = rows;
  s.cols = cols;
  s.nnz = nnz;
  s.min_row = rows > 0 ? INT64_MAX : 0;
  s.mean_row = rows > 0 ? (double)nnz / (double)rows : 0.0;
  double squares = 0.0;
  st = tsi_progress(ctx, 0, 2 * nnz);
  /* Rows in blocks of about TSI_CANCEL_BLOCK entries, a cancellation check between. */
  for (int64_t start = 0, end; start < rows && st == TS_SUCCESS; start = end) {
    end = tsi_block_end_by_work(ptr, start, rows);
    for (int64_t i = start; i < end; i++) {
      int64_t n = ptr[i + 1] - ptr[i];
      if (n < s.min_row)
        s.min_row = n;
      if (n > s.max_row)
        s.max_row = n;
      if (n == 0)
        s.empty_rows++;
      /* Two passes (mean first) avoid the cancellation of sum(x^2) - n*mean^2. */
      squares += ((double)n - s.mean_row) * ((double)n - s.mean_row);
      for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
        int64_t j = col_idx[k];
        col_count[j]++;
        if (j == i)
          s.diagonal++;
        int64_t distance = j > i ? j - i : i - j;
        if (distance > s.bandwidth)
          s.bandwidth = distance;
      }
    }
    st = tsi_progress(ctx, ptr[end], 2 * nnz);
  }
  if (st != TS_SUCCESS) {
    free(col_count);
    return st;
  }
  s.stddev_row = rows > 0 ? sqrt(squares / (double)rows) : 0.0;
  for (int64_t j = 0; j < cols; j++) {
    if (col_count[j] > s.max_col)
      s.max_col = col_count[j];
    if (col_count[j] == 0)
      s.empty_cols++;
  }

  if (rows == cols) {
    int64_t off_diagonal = nnz - s.diagonal, mirrored = 0, equal = 0;
    const ts_dtype dtype = csr->dtype;
    const void *values = csr->values;
    for (int64_t start = 0, end; start < rows && st == TS_SUCCESS; start = end) {
      end = tsi_block_end_by_work(ptr, start, rows);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : mirrored, equal) num_threads(tsi_thread_count(ctx)) \
    if (ptr[end] - ptr[start] > 100000)
#endif
      for (int64_t i = start; i < end; i++) {
        for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
          int32_t j = col_idx[k];
          if (j == i)
            continue;
          int64_t m = tsi_sorted_find(col_idx, ptr[j], ptr[j + 1], (int32_t)i);
          if (m < 0)
            continue;
          mirrored++;
          if (values_equal(dtype, values, m, k))
            equal++;
        }
      }
      st = tsi_progress(ctx, nnz + ptr[end], 2 * nnz);
    }
    if (st != TS_SUCCESS) {
      free(col_count);
      return st;
    }
    s.pattern_symmetry = off_diagonal > 0 ? (double)mirrored / (double)off_diagonal : 1.0;
    s.value_symmetry = off_diagonal > 0 ? (double)equal / (double)off_diagonal : 1.0;
  }
  free(col_count);
  *stats = s;
  return TS_SUCCESS;
}
