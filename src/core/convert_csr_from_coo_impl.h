/* Typed steps of ts_csr_from_coo: scatter by row, stable sort of a row by
 * column, summing of duplicates. Included once per value type with TSI_VALUE
 * (float, double, tsi_complex64 or tsi_complex128) and TSI_NAME(x) defined,
 * and for the complex types TSI_ADD_INTO(sum, v) (sum += v) and
 * TSI_VALUE_FINITE(v) (the real types' are the operators). */
#ifndef TSI_ADD_INTO
#define TSI_ADD_INTO(sum, v) ((sum) += (v))
#define TSI_VALUE_FINITE(v) isfinite(v)
#define TSI_REAL_ARITHMETIC_DEFAULTS
#endif

/* Counting sort of the COO entries by row into csr (row_ptr holds the row
 * counts' prefix sums on return). Stable: a row keeps its input order.
 * Checks for cancellation between blocks of entries. */
static ts_status TSI_NAME(scatter_by_row)(ts_context *ctx, const ts_coo *coo, ts_csr *csr) {
  int64_t *ptr = csr->row_ptr;
  const int32_t *row_idx = coo->row_idx, *col_idx = coo->col_idx;
  const TSI_VALUE *values = (const TSI_VALUE *)coo->values;
  int32_t *out_cols = csr->col_idx;
  TSI_VALUE *out_values = (TSI_VALUE *)csr->values;
  int64_t nnz = coo->nnz, rows = coo->rows;
  for (int64_t i = 0; i <= rows; i++)
    ptr[i] = 0;
  for (int64_t start = 0, end; start < nnz; start = end) {
    end = tsi_block_end(start, nnz);
    for (int64_t k = start; k < end; k++)
      ptr[row_idx[k] + 1]++;
    ts_status st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      return st;
  }
  for (int64_t i = 0; i < rows; i++)
    ptr[i + 1] += ptr[i];
  /* The scatter's first block writes all over the output, so the first
   * touch of all its fresh pages would fall between two cancellation
   * checks (over a second for 24M entries on a slow virtual machine).
   * Where a progress callback waits on those checks, the pages are
   * touched block by block first. */
  if (ctx && ctx->progress && nnz > TSI_CANCEL_BLOCK) {
    for (int64_t start = 0, end; start < nnz; start = end) {
      end = tsi_block_end(start, nnz);
      memset(out_cols + start, 0, (size_t)(end - start) * sizeof *out_cols);
      memset(out_values + start, 0, (size_t)(end - start) * sizeof *out_values);
      ts_status st = tsi_check_cancel(ctx);
      if (st != TS_SUCCESS)
        return st;
    }
  }
  /* ptr[i] is row i's cursor; afterwards it holds the row's end. */
  for (int64_t start = 0, end; start < nnz; start = end) {
    end = tsi_block_end(start, nnz);
    for (int64_t k = start; k < end; k++) {
      int64_t dest = ptr[row_idx[k]]++;
      out_cols[dest] = col_idx[k];
      out_values[dest] = values[k];
    }
    ts_status st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      return st;
  }
  for (int64_t i = rows; i > 0; i--)
    ptr[i] = ptr[i - 1];
  ptr[0] = 0;
  return TS_SUCCESS;
}

/* Stable insertion sort of a short row by column. */
static void TSI_NAME(insertion_sort)(int32_t *cols, TSI_VALUE *values, int64_t n) {
  for (int64_t a = 1; a < n; a++) {
    int32_t c = cols[a];
    TSI_VALUE v = values[a];
    int64_t b = a;
    for (; b > 0 && cols[b - 1] > c; b--) {
      cols[b] = cols[b - 1];
      values[b] = values[b - 1];
    }
    cols[b] = c;
    values[b] = v;
  }
}

/* Stable bottom-up merge sort of a row by column, with n entries of scratch;
 * runs of TSI_SORT_RUN entries are insertion-sorted first. */
static void TSI_NAME(merge_sort)(int32_t *cols, TSI_VALUE *values, int64_t n, int32_t *scratch_cols,
                                 TSI_VALUE *scratch_values) {
  for (int64_t s = 0; s < n; s += TSI_SORT_RUN)
    TSI_NAME(insertion_sort)(cols + s, values + s, n - s < TSI_SORT_RUN ? n - s : TSI_SORT_RUN);
  int32_t *src_c = cols, *dst_c = scratch_cols;
  TSI_VALUE *src_v = values, *dst_v = scratch_values;
  for (int64_t width = TSI_SORT_RUN; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      int64_t mid = lo + width < n ? lo + width : n;
      int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t a = lo, b = mid, w = lo;
      /* Ties take the left run first: that is what keeps the sort stable. */
      while (a < mid && b < hi) {
        if (src_c[b] < src_c[a]) {
          dst_c[w] = src_c[b];
          dst_v[w++] = src_v[b++];
        } else {
          dst_c[w] = src_c[a];
          dst_v[w++] = src_v[a++];
        }
      }
      for (; a < mid; a++, w++) {
        dst_c[w] = src_c[a];
        dst_v[w] = src_v[a];
      }
      for (; b < hi; b++, w++) {
        dst_c[w] = src_c[b];
        dst_v[w] = src_v[b];
      }
    }
    int32_t *tc = src_c;
    src_c = dst_c;
    dst_c = tc;
    TSI_VALUE *tv = src_v;
    src_v = dst_v;
    dst_v = tv;
  }
  if (src_c != cols) {
    memcpy(cols, src_c, (size_t)n * sizeof *cols);
    memcpy(values, src_v, (size_t)n * sizeof *values);
  }
}

/* Merge runs of equal columns within each sorted row, adding their values
 * left to right (input order); compacts in place, the new count in *nnz.
 * The first merged value that is not finite (row order) is recorded in
 * *bad_row and *bad_col (left alone when there is none). */
static ts_status TSI_NAME(sum_duplicates)(ts_context *ctx, int64_t rows, int64_t *ptr, int32_t *cols, TSI_VALUE *values,
                                          int64_t *bad_row, int32_t *bad_col, int64_t *nnz) {
  int64_t w = 0, start = 0, checked = 0;
  for (int64_t i = 0; i < rows; i++) {
    if (start - checked >= TSI_CANCEL_BLOCK) {
      checked = start;
      ts_status st = tsi_check_cancel(ctx);
      if (st != TS_SUCCESS)
        return st;
    }
    int64_t end = ptr[i + 1], row_start = w;
    for (int64_t k = start; k < end; k++) {
      if (w > row_start && cols[w - 1] == cols[k]) {
        TSI_ADD_INTO(values[w - 1], values[k]);
        if (!TSI_VALUE_FINITE(values[w - 1]) && *bad_row < 0) {
          *bad_row = i;
          *bad_col = cols[k];
        }
      } else {
        cols[w] = cols[k];
        values[w++] = values[k];
      }
    }
    start = end;
    ptr[i + 1] = w;
  }
  *nnz = w;
  return TS_SUCCESS;
}

#ifdef TSI_REAL_ARITHMETIC_DEFAULTS
#undef TSI_ADD_INTO
#undef TSI_VALUE_FINITE
#undef TSI_REAL_ARITHMETIC_DEFAULTS
#endif
