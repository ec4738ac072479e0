/* The AUTO schedule of SpMM and the threads a mapped schedule gives a row.
 *
 * From the roofline (bench/notes/spmm.md): at 8 to 512 columns each nonzero
 * of A brings a row slice of B (32 bytes to 2 KB), so one vector thread a
 * row keeps every load coalesced and needs no joining; what it lacks is
 * balance when a few rows hold much of the work, and parallelism when the
 * rows are few and long. In order:
 *   1. no rows, entries or columns: thread-mapped (one launch writes beta*C);
 *   2. skewed rows (cv > TSI_SPMM_AUTO_SKEW_CV, a row longer than
 *      TSI_SPMM_AUTO_LONG_ROW): split-rows, the rows longer than a piece
 *      (tsi_spmm_split_piece()) cut into pieces;
 *   3. too few vector threads to fill the GPU (rows x slices x lanes under
 *      TSI_SPMM_AUTO_FILL_PER_SM a multiprocessor) with long rows:
 *      block-mapped (mean >= TSI_SPMM_AUTO_BLOCK_MEAN) or warp-mapped (mean
 *      >= TSI_SPMM_AUTO_GROUP_MEAN, vector threads narrower than a warp);
 *   4. a row longer than TSI_SPMM_AUTO_LONG_ROW among regular ones, with too
 *      few rows to hide it: split-rows;
 *   5. otherwise thread-mapped; with vector threads of a whole warp and a
 *      row-major B each warp then takes a group of consecutive rows
 *      (spmm_warp_rows.cuh: the group's offsets and indices loaded at once,
 *      B loads in flight across row ends), as many rows a group (up to 32)
 *      as leave TSI_SPMM_GROUP_WAVES warps a resident warp. */
#include "spmm_internal.h"

#include <stdio.h>

int tsi_spmm_row_threads(ts_schedule schedule, int lanes, int group_size) {
  switch (schedule) {
  case TS_SCHEDULE_WARP_MAPPED:
    return lanes > 32 ? lanes : 32;
  case TS_SCHEDULE_BLOCK_MAPPED:
    return TSI_SPMM_BLOCK;
  case TS_SCHEDULE_GROUP_MAPPED: {
    /* A power of two from the vector thread's lanes to a warp, or a block:
     * groups between a warp and a block would need a barrier of their own. */
    int threads = group_size > 0 ? group_size : 32;
    if (threads < lanes)
      threads = lanes;
    return threads <= 32 ? threads : TSI_SPMM_BLOCK;
  }
  default:
    return lanes;
  }
}

ts_schedule tsi_spmm_auto_choose(const tsi_spmv_shape *s, const tsi_spmm_lanes *l, int multiprocessors, char *reason,
                                 size_t reason_size) {
  ts_schedule choice;
  char why[256];
  const double threads = (double)s->rows * (double)l->slices * (double)l->lanes;
  const double fill = (double)TSI_SPMM_AUTO_FILL_PER_SM * (multiprocessors > 0 ? multiprocessors : 1);
  if (s->rows == 0 || s->nnz == 0 || l->slices == 0) {
    choice = TS_SCHEDULE_THREAD_MAPPED;
    snprintf(why, sizeof why, "no entries or no columns: one launch writes beta*C");
  } else if (s->cv_row > TSI_SPMM_AUTO_SKEW_CV && s->max_row > TSI_SPMM_AUTO_LONG_ROW) {
    choice = TS_SCHEDULE_SPLIT_ROWS;
    snprintf(why, sizeof why, "cv %.3g > %.3g and max row > %d (skewed rows: long rows in pieces)", s->cv_row,
             TSI_SPMM_AUTO_SKEW_CV, TSI_SPMM_AUTO_LONG_ROW);
  } else if (threads < fill && s->mean_row >= TSI_SPMM_AUTO_BLOCK_MEAN) {
    choice = TS_SCHEDULE_BLOCK_MAPPED;
    snprintf(why, sizeof why, "%.0f threads < %.0f and mean row >= %.0f (few long rows: a block a row)", threads, fill,
             TSI_SPMM_AUTO_BLOCK_MEAN);
  } else if (threads < fill && s->mean_row >= TSI_SPMM_AUTO_GROUP_MEAN && l->lanes < 32) {
    choice = TS_SCHEDULE_WARP_MAPPED;
    snprintf(why, sizeof why, "%.0f threads < %.0f and mean row >= %.0f (few rows: a warp a row)", threads, fill,
             TSI_SPMM_AUTO_GROUP_MEAN);
  } else if (s->max_row > TSI_SPMM_AUTO_LONG_ROW && threads < 4 * fill) {
    choice = TS_SCHEDULE_SPLIT_ROWS;
    snprintf(why, sizeof why, "max row > %d with %.0f threads < %.0f (a long row would run alone)",
             TSI_SPMM_AUTO_LONG_ROW, threads, 4 * fill);
  } else {
    choice = TS_SCHEDULE_THREAD_MAPPED;
    snprintf(why, sizeof why, "cv %.3g, max row %lld: one vector thread a row and slice", s->cv_row,
             (long long)s->max_row);
  }
  snprintf(reason, reason_size, "%lld rows, %lld nnz, mean row %.3g, max row %lld, cv %.3g: %s", (long long)s->rows,
           (long long)s->nnz, s->mean_row, (long long)s->max_row, s->cv_row, why);
  return choice;
}
