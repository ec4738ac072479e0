/* n-by-n banded matrix: A(i,j) stored for i - lower <= j <= i + upper,
 * uniform in [-1, 1) off the diagonal, A(i,i) = 1 + sum_j |A(i,j)|. */
#include "gen_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { STREAM_BANDED_VALUES = 1 };

ts_status ts_gen_banded(ts_context *ctx, int64_t n, int64_t lower, int64_t upper, uint64_t seed, ts_dtype dtype,
                        ts_csr **csr) {
  const char *op = "ts_gen_banded";
  ts_status st = tsi_gen_check_output(ctx, op, dtype, csr);
  if (st != TS_SUCCESS)
    return st;
  if (n < 1)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: n must be at least 1 (got %lld)", op, (long long)n);
  if (n > TS_MAX_DIMENSION)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: n = %lld exceeds the largest dimension %d", op, (long long)n,
                     TS_MAX_DIMENSION);
  if (lower < 0 || upper < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: band widths must be >= 0 (lower %lld, upper %lld)", op,
                     (long long)lower, (long long)upper);
  if (lower > n - 1)
    lower = n - 1;
  if (upper > n - 1)
    upper = n - 1;

  st = tsi_progress(ctx, 0, n);
  if (st != TS_SUCCESS)
    return st;
  ts_csr *out = NULL;
  int64_t *counts = tsi_calloc_array(n + 1, sizeof(int64_t));
  if (!counts)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld row counts", op, (long long)n);
  for (int64_t start = 0, end; start < n && st == TS_SUCCESS; start = end) {
    end = tsi_block_end(start, n);
#pragma omp parallel for schedule(static)
    for (int64_t i = start; i < end; i++) {
      int64_t first = i - lower > 0 ? i - lower : 0, last = i + upper < n - 1 ? i + upper : n - 1;
      counts[i + 1] = last - first + 1;
    }
    st = tsi_check_cancel(ctx);
  }
  if (st == TS_SUCCESS)
    st = tsi_gen_prefix_sum(ctx, counts, n);
  if (st == TS_SUCCESS)
    st = ts_csr_create(ctx, n, n, counts[n], dtype, &out);
  if (st != TS_SUCCESS)
    goto cleanup;
  memcpy(out->row_ptr, counts, (size_t)(n + 1) * sizeof(int64_t));

  /* Blocks of rows by their entries: a wide band has up to n per row. */
  for (int64_t start = 0, end; start < n; start = end) {
    end = tsi_block_end_by_work(out->row_ptr, start, n);
#pragma omp parallel for schedule(static)
    for (int64_t i = start; i < end; i++) {
      uint64_t key = tsi_random_key(seed, STREAM_BANDED_VALUES, (uint64_t)i);
      int64_t first = i - lower > 0 ? i - lower : 0, k = out->row_ptr[i], diagonal_at = -1;
      double off_sum = 0.0;
      for (int64_t j = first; k < out->row_ptr[i + 1]; j++, k++) {
        out->col_idx[k] = (int32_t)j;
        if (j == i) {
          diagonal_at = k;
          continue;
        }
        double v = tsi_uniform_signed(tsi_random_draw(key, (uint64_t)(j - i + n)));
        /* Round to the stored type first, so that dominance holds for the
         * stored values in single precision too. */
        if (dtype == TS_FLOAT32)
          v = (float)v;
        off_sum += fabs(v);
        tsi_store_value(out->values, dtype, k, v);
      }
      tsi_store_value(out->values, dtype, diagonal_at, 1.0 + off_sum);
    }
    st = tsi_progress(ctx, end, n);
    if (st != TS_SUCCESS)
      goto cleanup;
  }
  out->symmetry = TS_GENERAL;
  *csr = out;
  out = NULL;
cleanup:
  free(counts);
  ts_csr_destroy(out);
  return st;
}
