/* The AUTO schedule: which SpMV schedule to run for an operand, from its
 * size and row-length shape (rows, cols, nnz, mean and longest row, the
 * coefficient of variation of row lengths).
 *
 * Start: Osama, Porumbescu and Owens (PPoPP 2023, section 6.2) run
 * merge-path unless the matrix has fewer than 500 rows or columns and fewer
 * than 10,000 nonzeros, where thread- or group-mapped wins (V100). On the
 * H200 the rule becomes, in order:
 *   1. no rows or no entries: thread-mapped (one launch writes beta*y);
 *   2. tiny (nnz < TSI_AUTO_TINY_NNZ) with no row longer than 32:
 *      split-rows, which is then one thread a row in one launch: within 5 %
 *      of the best on 35 and 32 of the corpus's 41 tiny matrices of such
 *      rows in two runs (H200, commits d88cbbe and d51c4fb, spmv_schedules
 *      --set corpus,tiny), warp-mapped on 21 and 31, thread-mapped on 20
 *      and 28;
 *   3. other tiny matrices: the call costs the launch floor, so
 *      the schedule with the lowest floor, warp-mapped, unless one row is
 *      too long for a warp (split-rows);
 *   4. small (nnz < TSI_AUTO_SMALL_NNZ, rows <= TSI_AUTO_SMALL_ROWS) with
 *      rows longer than a warp but none too long for one: warp-mapped, in
 *      one launch with few enough warps to run in a single wave;
 *   5. skewed rows (cv > TSI_AUTO_SKEW_CV, a row longer than 32):
 *      split-rows, short rows one per thread and long rows cut into pieces,
 *      one warp each;
 *   6. regular rows: block-mapped for long rows when there are enough of
 *      them to fill the GPU; split-rows when one row is long
 *      (> TSI_AUTO_LONG_ROW) for a warp; warp-mapped for rows that keep a
 *      warp busy; otherwise (short rows, large nnz) TSI_AUTO_SHORT_ROWS.
 * Each threshold below names the measurement that set it. */
#include "spmv_plan.h"

#include <stdio.h>

/* Below this many nonzeros a call is launch-bound. The paper used 10^4; on
 * the H200 (spmv_schedules --set tiny, 2026-11-29, commit ff628d5) the 2-D
 * Laplacian 100^2 (49,600 nnz) still ran at the floor: warp-mapped 6.4 us,
 * group-mapped 6.3, thread-mapped 7.4, merge-path 9.3. */
#define TSI_AUTO_TINY_NNZ 50000
/* Small matrices with some rows longer than a warp: warp-mapped was the
 * fastest schedule on every corpus matrix of 5*10^4..10^6 nonzeros, at most
 * this many rows and a longest row of 33..4096 (H200, 2026-11-30, commit
 * fc0c307, spmv_schedules --set corpus: as-22july06 7.2 us against
 * split-rows 10.2, MIT8 5.8 against 7.4, astro-ph 5.3 against 5.9, memplus
 * 5.1 against 5.2, bcsstk13 4.2 against 4.2). With more rows (wing,
 * luxembourg_osm: 62 k and 115 k rows) warp-mapped took 2-4x longer than
 * one thread per row. */
#define TSI_AUTO_SMALL_NNZ 1000000
#define TSI_AUTO_SMALL_ROWS 32768
/* Row lengths with a coefficient of variation above this are skewed, when
 * some row is longer than split-rows' short rows (TSI_SPLIT_SHORT; else
 * split-rows is one thread a row with a second grid: bayer10, cv 1.05 and
 * rows of at most 27, took 7.0 us split against 4.5 thread-mapped). On
 * every skewed generated matrix measured (H200, commit a072b44,
 * spmv_schedules --set circuit,powerlaw,rmat: circuit 1 M, Zipf 0.9 and 1.2,
 * R-MAT 20-23) split-rows was the fastest tessera schedule or within 4 % of
 * it (circuit 1 M: 0.027 ms against work-oriented 0.042 and merge-path
 * 0.046; Zipf 1.2: 0.078 against 0.103). */
#define TSI_AUTO_SKEW_CV 1.0
#define TSI_AUTO_SKEWED TS_SCHEDULE_SPLIT_ROWS
/* A row longer than this is too long for one warp to walk while the rest of
 * the GPU idles (Ginkgo's load-balanced switch is at 1024 on NVIDIA). To be
 * measured. */
#define TSI_AUTO_LONG_ROW 4096
/* Regular rows at least this long on average go one warp a row. At a mean
 * of 33 one thread a row was still 1.6x faster (H200, 2026-11-30, commit
 * d88cbbe, model_validate's banded_1M_w32: thread-mapped 0.121 ms, warp-mapped
 * 0.191 ms): the thread's consecutive loads stay in its L1 lines. Between 33
 * and 64 not measured. */
#define TSI_AUTO_WARP_MEAN 64.0
/* Regular rows at least this long on average keep a block busy. To be
 * measured. */
#define TSI_AUTO_BLOCK_MEAN 1024.0
/* Block-mapped needs this many rows (tiles) to occupy 132 SMs a few times
 * over. To be measured. */
#define TSI_AUTO_BLOCK_MIN_ROWS 1024
/* Short regular rows with many nonzeros (2-D/3-D stencils): thread-mapped
 * was the fastest tessera schedule on all 8 matrices of spmv_schedules
 * --set regular (H200, 2026-11-29, commit ff628d5; 2-D Laplacian 4096^2:
 * thread 0.303 ms, work-oriented 0.436, merge-path 0.454). */
#define TSI_AUTO_SHORT_ROWS TS_SCHEDULE_THREAD_MAPPED
/* Group size for group-mapped when nobody chose one: a warp, grown to cover
 * the mean row. To be measured. */
#define TSI_AUTO_GROUP_SIZE 32
#define TSI_AUTO_MAX_GROUP_SIZE 1024

int tsi_spmv_default_group_size(const tsi_spmv_shape *shape) {
  int size = TSI_AUTO_GROUP_SIZE;
  while (size < TSI_AUTO_MAX_GROUP_SIZE && (double)size < shape->mean_row)
    size *= 2;
  return size;
}

/* Threads a short row for split-rows: one (H200, 2026-11-30, commit
 * d88cbbe, spmv_schedules --set rmat,powerlaw,circuit --group-size
 * 1|2|4|8): one thread was fastest or within 2 % on 8 of 10 matrices
 * (circuit 1 M: 0.019 ms against 0.023, 0.030, 0.047 with 2, 4, 8); 4 threads
 * gained 4-7 % on Zipf 0.9 only. */
int tsi_spmv_split_default_lanes(const tsi_spmv_shape *shape) {
  (void)shape;
  return 1;
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
    /* Warp-mapped had the lowest floor on 7 of the 8 tiny matrices measured
     * (4.1 us on 1x1 to 460 nnz; thread-mapped equal or up to 1.4 us slower);
     * with a row longer than 32 it was within 5 % of the best on 11 and 17
     * of the corpus's 17 (two runs, commits d88cbbe and d51c4fb). */
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
