/* The AUTO schedule of SpMM and the threads a mapped schedule gives a row.
 *
 * From the roofline (bench/notes/spmm.md): at 8 to 512 columns each nonzero
 * of A brings a row slice of B (32 bytes to 2 KB), so one vector thread a
 * row keeps every load coalesced and needs no joining; what it lacks is
 * balance when a few rows hold much of the work, and parallelism when the
 * rows are few or long. "Units" are rows x column slices per SM; "short of
 * work" is rows x slices x lanes under TSI_SPMM_AUTO_FILL_PER_SM per SM. In
 * order:
 *   1. no rows, entries or columns: thread-mapped (one launch writes beta*C);
 *   2. short of work, few units (TSI_SPMM_AUTO_BLOCK_UNITS_WIDE for vector
 *      threads of a whole warp, _NARROW for narrower ones) and a row of at
 *      least TSI_SPMM_AUTO_BLOCK_MAX_ROW entries, or hardly a unit
 *      (TSI_SPMM_AUTO_TINY_UNITS) of rows of TSI_SPMM_AUTO_TINY_MEAN, or
 *      rows of TSI_SPMM_AUTO_BLOCK_MEAN on average: block-mapped (a block a
 *      row: a long row no longer waits for one warp);
 *   3. skewed rows (cv > TSI_SPMM_AUTO_SKEW_CV, a row longer than
 *      TSI_SPMM_AUTO_LONG_ROW): split-rows, the rows longer than a piece
 *      (tsi_spmm_split_piece()) cut into pieces;
 *   4. vector threads of a whole warp over at most TSI_SPMM_AUTO_WARP_UNITS
 *      units: warp-mapped (a warp a row without thread-mapped's group walk,
 *      which pays only past the resident warps);
 *   5. narrower vector threads, short of work, rows of
 *      TSI_SPMM_AUTO_WARP_MEAN on average or one of
 *      TSI_SPMM_AUTO_WARP_MAX_ROW: warp-mapped (a row's entries over a
 *      warp's vector threads);
 *   6. a row longer than TSI_SPMM_AUTO_LONG_ROW among regular ones, with too
 *      few rows to hide it: split-rows;
 *   7. otherwise thread-mapped; with vector threads of a whole warp and a
 *      row-major B each warp then takes a group of consecutive rows
 *      (spmm_warp_rows.cuh: the group's offsets and indices loaded at once,
 *      B loads in flight across row ends), as many rows a group (up to 32)
 *      as leave TSI_SPMM_GROUP_WAVES warps a resident warp.
 * The thresholds were fitted on the corpus with every schedule timed
 * (spmm_tuning.h); the generated meshes, R-MAT and power-law matrices, all
 * of 2^16 rows or more, take steps 3, 6 and 7 as before. */
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
  const double sms = multiprocessors > 0 ? (double)multiprocessors : 1.0;
  const double fill = (double)TSI_SPMM_AUTO_FILL_PER_SM * sms;
  const double units = (double)s->rows * (double)l->slices / sms;
  const bool wide = l->lanes >= 32, short_of_work = threads < fill;
  const double block_units = wide ? TSI_SPMM_AUTO_BLOCK_UNITS_WIDE : TSI_SPMM_AUTO_BLOCK_UNITS_NARROW;
  if (s->rows == 0 || s->nnz == 0 || l->slices == 0) {
    choice = TS_SCHEDULE_THREAD_MAPPED;
    snprintf(why, sizeof why, "no entries or no columns: one launch writes beta*C");
  } else if (short_of_work && units <= block_units && s->max_row >= TSI_SPMM_AUTO_BLOCK_MAX_ROW) {
    choice = TS_SCHEDULE_BLOCK_MAPPED;
    snprintf(why, sizeof why,
             "%.3g rows x slices an SM <= %.0f and max row >= %d (few rows, a long one: a block a row)", units,
             block_units, TSI_SPMM_AUTO_BLOCK_MAX_ROW);
  } else if (short_of_work && units <= TSI_SPMM_AUTO_TINY_UNITS && s->mean_row >= TSI_SPMM_AUTO_TINY_MEAN) {
    choice = TS_SCHEDULE_BLOCK_MAPPED;
    snprintf(why, sizeof why, "%.3g rows x slices an SM <= %d (hardly any rows: a block a row)", units,
             TSI_SPMM_AUTO_TINY_UNITS);
  } else if (short_of_work && s->mean_row >= TSI_SPMM_AUTO_BLOCK_MEAN) {
    choice = TS_SCHEDULE_BLOCK_MAPPED;
    snprintf(why, sizeof why, "%.0f threads < %.0f and mean row >= %.0f (few long rows: a block a row)", threads, fill,
             TSI_SPMM_AUTO_BLOCK_MEAN);
  } else if (s->cv_row > TSI_SPMM_AUTO_SKEW_CV && s->max_row > TSI_SPMM_AUTO_LONG_ROW) {
    choice = TS_SCHEDULE_SPLIT_ROWS;
    snprintf(why, sizeof why, "cv %.3g > %.3g and max row > %d (skewed rows: long rows in pieces)", s->cv_row,
             TSI_SPMM_AUTO_SKEW_CV, TSI_SPMM_AUTO_LONG_ROW);
  } else if (wide && units <= TSI_SPMM_AUTO_WARP_UNITS) {
    choice = TS_SCHEDULE_WARP_MAPPED;
    snprintf(why, sizeof why, "%.3g rows x slices an SM <= %d (a warp a row, no group walk)", units,
             TSI_SPMM_AUTO_WARP_UNITS);
  } else if (!wide && short_of_work &&
             (s->mean_row >= TSI_SPMM_AUTO_WARP_MEAN || s->max_row >= TSI_SPMM_AUTO_WARP_MAX_ROW)) {
    choice = TS_SCHEDULE_WARP_MAPPED;
    snprintf(why, sizeof why, "%.0f threads < %.0f and mean row >= %.0f or max row >= %d (few rows: a warp a row)",
             threads, fill, TSI_SPMM_AUTO_WARP_MEAN, TSI_SPMM_AUTO_WARP_MAX_ROW);
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
