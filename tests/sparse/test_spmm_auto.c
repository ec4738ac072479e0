/* SpMM's AUTO rule (spmm_auto.c) on row-length shapes and widths: each step
 * of the rule at its threshold and just past it, for vector threads of a
 * whole warp (128 and 256 fp32 columns) and narrower ones (8 and 32), on a
 * GPU of 132 multiprocessors; the meshes and random matrices of 2^16 rows
 * and more keep the choices they had (thread-mapped, split-rows); the
 * choice never AUTO and its reason written. */
#include "sparse/spmm_internal.h"
#include "test_common.h"

#include <string.h>

#define SMS 132

static tsi_spmv_shape shape(int64_t rows, double mean, int64_t max_row, double cv) {
  tsi_spmv_shape s;
  memset(&s, 0, sizeof s);
  s.rows = rows;
  s.cols = rows;
  s.mean_row = mean;
  s.nnz = (int64_t)(mean * (double)rows + 0.5);
  s.max_row = max_row;
  s.cv_row = cv;
  return s;
}

static void expect(const char *what, tsi_spmv_shape s, int64_t width, ts_schedule want) {
  const tsi_dense_shape b = {s.cols, width, width, TS_LAYOUT_ROW_MAJOR, s.cols * width},
                        c = {s.rows, width, width, TS_LAYOUT_ROW_MAJOR, s.rows * width};
  const tsi_spmm_lanes lanes = tsi_spmm_lanes_for(TS_FLOAT32, width, &b, &c);
  char reason[512] = "";
  const ts_schedule got = tsi_spmm_auto_choose(&s, &lanes, SMS, reason, sizeof reason);
  CHECK_MSG(got == want, "%s (%lld columns, %d lanes x %lld slices): %s, want %s (%s)", what, (long long)width,
            lanes.lanes, (long long)lanes.slices, ts_schedule_name(got), ts_schedule_name(want), reason);
  CHECK_MSG(got != TS_SCHEDULE_AUTO && reason[0] != '\0', "%s: no choice or no reason", what);
}

int main(void) {
  const ts_schedule thread = TS_SCHEDULE_THREAD_MAPPED, warp = TS_SCHEDULE_WARP_MAPPED,
                    block = TS_SCHEDULE_BLOCK_MAPPED, split = TS_SCHEDULE_SPLIT_ROWS;
  /* Units (rows x slices per SM) for a block a row: below 16 with a warp's
   * lanes (where the GPU is short of work: 2,111 rows at 128 columns, 1,055
   * at 256), at most 8 with narrower ones. */
  expect("few rows, one long", shape(2111, 6.0, 24, 0.5), 128, block);
  expect("past the block units", shape(2112, 6.0, 24, 0.5), 128, warp);
  expect("few rows, none long", shape(2111, 6.0, 23, 0.5), 128, warp);
  expect("two slices: half the rows", shape(1055, 6.0, 124, 1.8), 256, block);
  expect("two slices, past", shape(1056, 6.0, 124, 1.8), 256, warp);
  expect("narrow lanes, few rows", shape(1056, 6.0, 124, 1.8), 32, block);
  expect("narrow lanes, past", shape(1057, 6.0, 124, 1.8), 32, warp);
  /* A block a row ahead of split-rows where the rows are few. */
  expect("few rows, skewed", shape(822, 5.7, 311, 2.1), 128, block);
  expect("more rows, skewed", shape(6833, 6.3, 1442, 4.0), 128, split);
  /* Hardly a unit: a block a row for rows of 2 on average. */
  expect("tiny", shape(100, 3.0, 10, 0.5), 128, block);
  expect("tiny, near-empty rows", shape(100, 1.5, 3, 0.5), 128, warp);
  /* A warp's lanes: warp-mapped up to 128 units, thread-mapped past. */
  expect("warp units", shape(16896, 7.0, 20, 0.5), 128, warp);
  expect("past the warp units", shape(16897, 7.0, 20, 0.5), 128, thread);
  expect("warp units, two slices", shape(8448, 7.0, 20, 0.5), 256, warp);
  expect("past them, two slices", shape(8449, 7.0, 20, 0.5), 256, thread);
  /* Narrow lanes short of work: warp-mapped for a mean of 8 or a row of 32. */
  expect("narrow, mean 8", shape(5000, 8.0, 12, 0.3), 32, warp);
  expect("narrow, a row of 32", shape(5000, 4.0, 32, 0.9), 32, warp);
  expect("narrow, short rows", shape(5000, 4.0, 31, 0.9), 32, thread);
  expect("narrow, enough rows", shape(8448, 9.0, 12, 0.3), 32, thread);
  /* The generated sets: a 2-D mesh, R-MAT and power-law rows. */
  expect("laplacian2d_1024", shape(1 << 20, 5.0, 5, 0.05), 128, thread);
  expect("laplacian2d_1024, 256", shape(1 << 20, 5.0, 5, 0.05), 256, thread);
  expect("laplacian2d_1024, 8", shape(1 << 20, 5.0, 5, 0.05), 8, thread);
  expect("rmat_16", shape(1 << 16, 14.6, 2800, 3.5), 128, split);
  expect("rmat_16, 8", shape(1 << 16, 14.6, 2800, 3.5), 8, split);
  expect("powerlaw", shape(1 << 18, 16.4, 40000, 9.0), 32, split);
  /* Nothing to do. */
  expect("no entries", shape(1000, 0.0, 0, 0.0), 128, thread);
  return test_finish();
}
