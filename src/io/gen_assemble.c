/* Common steps of the generators: output checks, offsets from row counts,
 * and CSR assembly from unsorted rows with repeated columns. */
#include "gen_internal.h"

#include <stdlib.h>
#include <string.h>

ts_status tsi_gen_check_output(ts_context *ctx, const char *op, ts_dtype dtype, ts_csr **csr) {
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: csr is NULL", op);
  *csr = NULL;
  if (ts_dtype_size(dtype) == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown value type %d", op, (int)dtype);
  return tsi_require_real(ctx, op, "the value type asked for", dtype);
}

ts_status tsi_gen_check_shape(ts_context *ctx, const char *op, int64_t rows, int64_t cols) {
  if (rows < 1 || cols < 1)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: rows and cols must be at least 1 (got %lld x %lld)", op,
                     (long long)rows, (long long)cols);
  if (rows > TS_MAX_DIMENSION || cols > TS_MAX_DIMENSION)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: %lld x %lld exceeds the largest dimension %d", op, (long long)rows,
                     (long long)cols, TS_MAX_DIMENSION);
  return TS_SUCCESS;
}

ts_status tsi_gen_prefix_sum(ts_context *ctx, int64_t *ptr, int64_t rows) {
  ptr[0] = 0;
  for (int64_t start = 0, end; start < rows; start = end) {
    end = tsi_block_end(start, rows);
    for (int64_t i = start; i < end; i++)
      ptr[i + 1] += ptr[i];
    ts_status st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      return st;
  }
  return TS_SUCCESS;
}

ts_status tsi_gen_compact_rows(ts_context *ctx, const char *op, int64_t rows, int64_t cols, const int64_t *raw_ptr,
                               int32_t *raw_cols, ts_dtype dtype, ts_csr **csr) {
  ts_status st = TS_SUCCESS;
  ts_csr *out = NULL;
  int64_t *distinct = tsi_calloc_array(rows + 1, sizeof(int64_t));
  int64_t longest = 0;
  int failed = 0;
  if (!distinct) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld row counts", op, (long long)rows);
    goto cleanup;
  }
  for (int64_t start = 0, end; start < rows && st == TS_SUCCESS; start = end) {
    end = tsi_block_end(start, rows);
    for (int64_t i = start; i < end; i++)
      if (raw_ptr[i + 1] - raw_ptr[i] > longest)
        longest = raw_ptr[i + 1] - raw_ptr[i];
    st = tsi_check_cancel(ctx);
  }
  /* Blocks of rows by their entries, with a cancellation check after each. */
  for (int64_t start = 0, end; start < rows && st == TS_SUCCESS && !failed; start = end) {
    end = tsi_block_end_by_work(raw_ptr, start, rows);
#pragma omp parallel reduction(| : failed)
    {
      int32_t *scratch = tsi_malloc_array(longest > 1 ? longest : 1, sizeof(int32_t));
      if (!scratch)
        failed = 1;
        /* Dynamic chunks: row lengths of skewed graphs vary by orders of
         * magnitude. Each row's result does not depend on the thread. */
#pragma omp for schedule(dynamic, 1024)
      for (int64_t i = start; i < end; i++) {
        if (!scratch)
          continue;
        int32_t *row = raw_cols + raw_ptr[i];
        int64_t len = raw_ptr[i + 1] - raw_ptr[i], kept = 0;
        tsi_sort_int32(row, len, scratch);
        for (int64_t k = 0; k < len; k++)
          if (kept == 0 || row[k] != row[kept - 1])
            row[kept++] = row[k];
        distinct[i + 1] = kept;
      }
      free(scratch);
    }
    st = tsi_check_cancel(ctx);
  }
  if (failed) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate sort workspace of %lld columns", op,
                   (long long)longest);
    goto cleanup;
  }
  if (st == TS_SUCCESS)
    st = tsi_gen_prefix_sum(ctx, distinct, rows);
  if (st == TS_SUCCESS)
    st = ts_csr_create(ctx, rows, cols, distinct[rows], dtype, &out);
  if (st != TS_SUCCESS)
    goto cleanup;
  memcpy(out->row_ptr, distinct, (size_t)(rows + 1) * sizeof(int64_t));
  for (int64_t start = 0, end; start < rows && st == TS_SUCCESS; start = end) {
    end = tsi_block_end_by_work(distinct, start, rows);
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t i = start; i < end; i++)
      memcpy(out->col_idx + distinct[i], raw_cols + raw_ptr[i],
             (size_t)(distinct[i + 1] - distinct[i]) * sizeof(int32_t));
    st = tsi_check_cancel(ctx);
  }
  if (st != TS_SUCCESS)
    goto cleanup;
  out->symmetry = TS_GENERAL;
  *csr = out;
  out = NULL;
cleanup:
  free(distinct);
  ts_csr_destroy(out);
  return st;
}

/* Bucket of a row: rows >> shift, at most 4096 buckets. */
static int bucket_shift(int64_t rows) {
  int shift = 0;
  while ((rows >> shift) > 4096)
    shift++;
  return shift;
}

ts_status tsi_gen_csr_from_pairs(ts_context *ctx, const char *op, int64_t rows, int64_t cols, const int32_t *rows_of,
                                 const int32_t *cols_of, int64_t count, bool add_mirrors, ts_dtype dtype,
                                 ts_csr **csr) {
  ts_status st = TS_SUCCESS;
  const int shift = bucket_shift(rows);
  const int64_t buckets = ((rows - 1) >> shift) + 1;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  int64_t *histogram = tsi_calloc_array((int64_t)threads * buckets + 1, sizeof(int64_t));
  int64_t *bucket_start = tsi_calloc_array(buckets + 1, sizeof(int64_t));
  int64_t *raw_ptr = tsi_calloc_array(rows + 1, sizeof(int64_t));
  uint64_t *bucketed = NULL;
  int32_t *raw_cols = NULL;
  if (!histogram || !bucket_start || !raw_ptr)
    goto out_of_memory;

  /* 1. Per-thread histograms of entries per bucket, over rounds of the
   * entries (a cancellation check after each), each round split in static
   * blocks. The order of the entries within a bucket depends on the rounds
   * and threads; the result does not (tsi_gen_compact_rows sorts each row
   * and merges repeats). */
  for (int64_t round = 0, round_end; round < count; round = round_end) {
    round_end = tsi_block_end(round, count);
#pragma omp parallel num_threads(threads)
    {
      int t = 0, nt = 1;
#ifdef _OPENMP
      t = omp_get_thread_num();
      nt = omp_get_num_threads();
#endif
      int64_t first = round + (round_end - round) * t / nt, last = round + (round_end - round) * (t + 1) / nt;
      int64_t *mine = histogram + (int64_t)t * buckets;
      for (int64_t e = first; e < last; e++) {
        mine[rows_of[e] >> shift]++;
        if (add_mirrors && rows_of[e] != cols_of[e])
          mine[cols_of[e] >> shift]++;
      }
    }
    st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      goto cleanup;
  }
  /* 2. Offsets, bucket-major, so that each bucket's entries are contiguous. */
  int64_t total = 0;
  for (int64_t b = 0; b < buckets; b++) {
    bucket_start[b] = total;
    for (int t = 0; t < threads; t++) {
      int64_t c = histogram[(int64_t)t * buckets + b];
      histogram[(int64_t)t * buckets + b] = total;
      total += c;
    }
  }
  bucket_start[buckets] = total;
  bucketed = tsi_malloc_array(total > 0 ? total : 1, sizeof(uint64_t));
  raw_cols = tsi_malloc_array(total > 0 ? total : 1, sizeof(int32_t));
  if (!bucketed || !raw_cols)
    goto out_of_memory;

  /* 3. Scatter (row, column) keys into their buckets; same rounds and
   * blocks as 1. */
  for (int64_t round = 0, round_end; round < count; round = round_end) {
    round_end = tsi_block_end(round, count);
#pragma omp parallel num_threads(threads)
    {
      int t = 0, nt = 1;
#ifdef _OPENMP
      t = omp_get_thread_num();
      nt = omp_get_num_threads();
#endif
      int64_t first = round + (round_end - round) * t / nt, last = round + (round_end - round) * (t + 1) / nt;
      int64_t *cursor = histogram + (int64_t)t * buckets;
      for (int64_t e = first; e < last; e++) {
        uint64_t u = (uint32_t)rows_of[e], v = (uint32_t)cols_of[e];
        bucketed[cursor[u >> shift]++] = u << 32 | v;
        if (add_mirrors && u != v)
          bucketed[cursor[v >> shift]++] = v << 32 | u;
      }
    }
    st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      goto cleanup;
  }
  /* 4. Row lengths: each bucket owns its rows, so no two threads write one.
   * Groups of buckets by their entries, a cancellation check after each. */
  for (int64_t group = 0, group_end; group < buckets; group = group_end) {
    group_end = tsi_block_end_by_work(bucket_start, group, buckets);
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = group; b < group_end; b++)
      for (int64_t k = bucket_start[b]; k < bucket_start[b + 1]; k++)
        raw_ptr[(bucketed[k] >> 32) + 1]++;
    st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      goto cleanup;
  }
  st = tsi_gen_prefix_sum(ctx, raw_ptr, rows);
  if (st != TS_SUCCESS)
    goto cleanup;
  /* 5. Counting sort by row inside each bucket, into the raw rows, with
   * raw_ptr of the bucket's own rows as cursors: afterwards raw_ptr[r] is
   * the end of row r, i.e. the start of row r + 1, and the bucket's first
   * row starts where the bucket does. */
  for (int64_t group = 0, group_end; group < buckets; group = group_end) {
    group_end = tsi_block_end_by_work(bucket_start, group, buckets);
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = group; b < group_end; b++) {
      int64_t row_first = b << shift, row_end = (b + 1) << shift;
      if (row_end > rows)
        row_end = rows;
      for (int64_t k = bucket_start[b]; k < bucket_start[b + 1]; k++)
        raw_cols[raw_ptr[bucketed[k] >> 32]++] = (int32_t)(bucketed[k] & 0xffffffffULL);
      for (int64_t r = row_end - 1; r > row_first; r--)
        raw_ptr[r] = raw_ptr[r - 1];
      raw_ptr[row_first] = bucket_start[b];
    }
    st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      goto cleanup;
  }
  free(bucketed);
  bucketed = NULL;
  free(histogram);
  histogram = NULL;
  st = tsi_gen_compact_rows(ctx, op, rows, cols, raw_ptr, raw_cols, dtype, csr);
  goto cleanup;
out_of_memory:
  st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the entry lists (%lld entries)", op,
                 (long long)count);
cleanup:
  free(histogram);
  free(bucket_start);
  free(raw_ptr);
  free(bucketed);
  free(raw_cols);
  return st;
}
