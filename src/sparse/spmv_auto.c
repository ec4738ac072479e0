/* The AUTO schedule: which SpMV schedule to run for an operand, from its
 * size and row-length shape (rows, cols, nnz, mean and longest row, the
 * coefficient of variation of row lengths).
 *
 * Start: Osama, Porumbescu and Owens (PPoPP 2023, section 6.2) run
 * merge-path unless the matrix has fewer than 500 rows or columns and fewer
 * than 10,000 nonzeros, where thread- or group-mapped wins. Measured here
 * the rule becomes, in order (thresholds and their evidence in
 * sparse_tuning.h):
 *   1. no rows or no entries: thread-mapped (one launch writes beta*y);
 *   2. tiny (nnz < TSI_AUTO_TINY_NNZ) with no row longer than
 *      TSI_SPLIT_SHORT: split-rows, which is then one thread a row in one
 *      launch;
 *   3. other tiny matrices: the call costs the launch floor, so the
 *      schedule with the lowest floor, warp-mapped, unless one row is too
 *      long for a warp (split-rows);
 *   4. small (nnz < TSI_AUTO_SMALL_NNZ, rows <= TSI_AUTO_SMALL_ROWS) with
 *      rows longer than a warp but none too long for one: warp-mapped, in
 *      one launch with few enough warps to run in a single wave;
 *   5. skewed rows (cv > TSI_AUTO_SKEW_CV, a row longer than
 *      TSI_SPLIT_SHORT): split-rows, short rows one per thread and long rows
 *      cut into pieces, one warp each;
 *   6. regular rows: block-mapped for long rows when there are enough of
 *      them to fill the GPU; split-rows when one row is long
 *      (> TSI_AUTO_LONG_ROW) for a warp; warp-mapped for rows that keep a
 *      warp busy; otherwise (short rows, large nnz) TSI_AUTO_SHORT_ROWS. */
#include "sparse/sparse_tuning.h"
#include "sparse/spmv_plan.h"

#include <stdio.h>

int tsi_spmv_default_group_size(const tsi_spmv_shape *shape) {
  int size = TSI_AUTO_GROUP_SIZE;
  while (size < TSI_AUTO_MAX_GROUP_SIZE && (double)size < shape->mean_row)
    size *= 2;
  return size;
}

int tsi_spmv_split_default_lanes(const tsi_spmv_shape *shape) {
  (void)shape;
  return TSI_AUTO_SPLIT_LANES;
}

ts_schedule tsi_spmv_auto_choose(const tsi_spmv_shape *s, int group_size_hint, int *group_size, char *reason,
                                 size_t reason_size) {
  ts_schedule choice;
  char why[192];
  if (s->rows == 0 || s->nnz == 0) {
    choice = TS_SCHEDULE_THREAD_MAPPED;
    snprintf(why, sizeof why, "no entries: one launch writes y");
  } else if (s->nnz < TSI_AUTO_TINY_NNZ && s->max_row <= TSI_SPLIT_SHORT) {
    /* No row longer than split-rows' short rows: one thread a row in one
     * launch with no pieces, the lowest floor measured. */
    choice = TS_SCHEDULE_SPLIT_ROWS;
    snprintf(why, sizeof why, "nnz < %d and max row <= %d (tiny, short rows: one thread a row, one launch)",
             TSI_AUTO_TINY_NNZ, TSI_SPLIT_SHORT);
  } else if (s->nnz < TSI_AUTO_TINY_NNZ) {
    /* Warp-mapped had the lowest floor on the tiny matrices, and was close
     * to the best on the corpus's tiny ones with a row longer than a warp
     * (spmv-schedules-fp32-corpus-tiny-h200.md). */
    choice = s->max_row <= TSI_AUTO_LONG_ROW ? TS_SCHEDULE_WARP_MAPPED : TSI_AUTO_SKEWED;
    snprintf(why, sizeof why, "nnz < %d (tiny: launch-bound) and max row %s %d", TSI_AUTO_TINY_NNZ,
             s->max_row <= TSI_AUTO_LONG_ROW ? "<=" : ">", TSI_AUTO_LONG_ROW);
  } else if (s->nnz < TSI_AUTO_SMALL_NNZ && s->rows <= TSI_AUTO_SMALL_ROWS && s->max_row > 32 &&
             s->max_row <= TSI_AUTO_LONG_ROW) {
    choice = TS_SCHEDULE_WARP_MAPPED;
    snprintf(why, sizeof why, "nnz < %d, rows <= %d and 32 < max row <= %d (small: one wave of warps)",
             TSI_AUTO_SMALL_NNZ, TSI_AUTO_SMALL_ROWS, TSI_AUTO_LONG_ROW);
  } else if (s->cv_row > TSI_AUTO_SKEW_CV && s->max_row > TSI_SPLIT_SHORT) {
    choice = TSI_AUTO_SKEWED;
    snprintf(why, sizeof why, "cv %.3g > %.3g and max row > %d (skewed rows)", s->cv_row, TSI_AUTO_SKEW_CV,
             TSI_SPLIT_SHORT);
  } else if (s->mean_row >= TSI_AUTO_BLOCK_MEAN && s->rows >= TSI_AUTO_BLOCK_MIN_ROWS) {
    choice = TS_SCHEDULE_BLOCK_MAPPED;
    snprintf(why, sizeof why, "cv %.3g <= %.3g, mean row >= %.0f and rows >= %d (long regular rows)", s->cv_row,
             TSI_AUTO_SKEW_CV, TSI_AUTO_BLOCK_MEAN, TSI_AUTO_BLOCK_MIN_ROWS);
  } else if (s->max_row > TSI_AUTO_LONG_ROW) {
    choice = TSI_AUTO_SKEWED;
    snprintf(why, sizeof why, "cv %.3g <= %.3g but max row > %d (too long for one warp)", s->cv_row, TSI_AUTO_SKEW_CV,
             TSI_AUTO_LONG_ROW);
  } else if (s->mean_row >= TSI_AUTO_WARP_MEAN) {
    choice = TS_SCHEDULE_WARP_MAPPED;
    snprintf(why, sizeof why, "cv %.3g <= %.3g, mean row >= %.0f, max row <= %d (regular rows of a warp)", s->cv_row,
             TSI_AUTO_SKEW_CV, TSI_AUTO_WARP_MEAN, TSI_AUTO_LONG_ROW);
  } else {
    choice = TSI_AUTO_SHORT_ROWS;
    snprintf(why, sizeof why, "cv %.3g <= %.3g, mean row < %.0f, nnz >= %d (short regular rows)", s->cv_row,
             TSI_AUTO_SKEW_CV, TSI_AUTO_WARP_MEAN, TSI_AUTO_TINY_NNZ);
  }
  *group_size = 0;
  if (choice == TS_SCHEDULE_GROUP_MAPPED)
    *group_size = group_size_hint > 0 ? group_size_hint : tsi_spmv_default_group_size(s);
  else if (choice == TS_SCHEDULE_SPLIT_ROWS)
    *group_size = group_size_hint > 0 && group_size_hint <= TSI_SPLIT_MAX_LANES ? group_size_hint
                                                                                : tsi_spmv_split_default_lanes(s);
  snprintf(reason, reason_size, "%lld rows, %lld cols, %lld nnz, mean row %.3g, max row %lld, cv %.3g: %s",
           (long long)s->rows, (long long)s->cols, (long long)s->nnz, s->mean_row, (long long)s->max_row, s->cv_row,
           why);
  return choice;
}
