/* Rows of given lengths filled with distinct uniformly random columns and
 * values uniform in [-1, 1): the body of the uniform and power-law
 * generators. */
#include "gen_internal.h"

enum { STREAM_SAMPLED_COLUMNS = 11, STREAM_SAMPLED_VALUES = 12 };

ts_status tsi_gen_fill_sampled_rows(ts_context *ctx, const char *op, ts_csr *out, uint64_t seed) {
  int64_t rows = out->rows, longest = 0;
  for (int64_t start = 0, end; start < rows; start = end) {
    end = tsi_block_end(start, rows);
    for (int64_t i = start; i < end; i++)
      if (out->row_ptr[i + 1] - out->row_ptr[i] > longest)
        longest = out->row_ptr[i + 1] - out->row_ptr[i];
    ts_status st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      return st;
  }
  /* Blocks of rows by their entries: power-law rows differ in length by
   * orders of magnitude, so a fixed count of rows could be minutes of work. */
  for (int64_t start = 0, end; start < rows; start = end) {
    end = tsi_block_end_by_work(out->row_ptr, start, rows);
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
      tsi_sample_workspace ws;
      bool ready = tsi_sample_workspace_init(&ws, out->cols, longest);
      if (!ready)
        failed = 1;
        /* Dynamic: power-law rows differ in length by orders of magnitude. */
#pragma omp for schedule(dynamic, 64)
      for (int64_t i = start; i < end; i++) {
        if (!ready)
          continue;
        int64_t first = out->row_ptr[i], len = out->row_ptr[i + 1] - first;
        tsi_sample_sorted(tsi_random_key(seed, STREAM_SAMPLED_COLUMNS, (uint64_t)i), out->cols, len,
                          out->col_idx + first, &ws);
        uint64_t key = tsi_random_key(seed, STREAM_SAMPLED_VALUES, (uint64_t)i);
        for (int64_t k = 0; k < len; k++)
          tsi_store_value(out->values, out->dtype, first + k, tsi_uniform_signed(tsi_random_draw(key, (uint64_t)k)));
      }
      if (ready)
        tsi_sample_workspace_free(&ws);
    }
    if (failed)
      return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate sampling workspace for rows of %lld", op,
                       (long long)longest);
    ts_status st = tsi_progress(ctx, end, rows);
    if (st != TS_SUCCESS)
      return st;
  }
  return TS_SUCCESS;
}
