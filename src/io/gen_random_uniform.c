/* rows-by-cols matrix with per_row distinct uniformly random columns in
 * every row, values uniform in [-1, 1). */
#include "gen_internal.h"

ts_status ts_gen_random_uniform(ts_context *ctx, int64_t rows, int64_t cols, int64_t per_row, uint64_t seed,
                                ts_dtype dtype, ts_csr **csr) {
  const char *op = "ts_gen_random_uniform";
  ts_status st = tsi_gen_check_output(ctx, op, dtype, csr);
  if (st != TS_SUCCESS)
    return st;
  st = tsi_gen_check_shape(ctx, op, rows, cols);
  if (st != TS_SUCCESS)
    return st;
  if (per_row < 0 || per_row > cols)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: per_row = %lld must lie in [0, cols = %lld]", op,
                     (long long)per_row, (long long)cols);
  int64_t nnz;
  if (tsi_mul_overflows(rows, per_row, &nnz))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: %lld rows of %lld entries overflow a 64-bit count", op,
                     (long long)rows, (long long)per_row);
  st = tsi_progress(ctx, 0, rows);
  if (st != TS_SUCCESS)
    return st;
  ts_csr *out = NULL;
  st = ts_csr_create(ctx, rows, cols, nnz, dtype, &out);
  if (st != TS_SUCCESS)
    return st;
  for (int64_t start = 0, end; start <= rows && st == TS_SUCCESS; start = end) {
    end = tsi_block_end(start, rows + 1);
#pragma omp parallel for schedule(static)
    for (int64_t i = start; i < end; i++)
      out->row_ptr[i] = i * per_row;
    st = tsi_check_cancel(ctx);
  }
  if (st == TS_SUCCESS)
    st = tsi_gen_fill_sampled_rows(ctx, op, out, seed);
  if (st != TS_SUCCESS) {
    ts_csr_destroy(out);
    return st;
  }
  out->symmetry = TS_GENERAL;
  *csr = out;
  return TS_SUCCESS;
}
