/* The plan's choice of thread-mapped's stacked warp order (spmm_tuning.h,
 * spmm_cuda_rows.cu): A's most frequent long column offset d from a sample
 * of its entries, and the rule that stacks the 8 warps of a block d rows
 * apart. Host code, no allocation past the sample's TSI_SPMM_STACK_SAMPLE
 * offsets. */
#include "io/gen_random.h"
#include "spmm_internal.h"

#include <stdlib.h>

/* The row holding entry k < row_ptr[rows]: the last i with row_ptr[i] <= k
 * (empty rows share their offset with the next row). */
static int64_t row_of(int64_t rows, const int64_t *row_ptr, int64_t k) {
  int64_t lo = 0, hi = rows; /* row_ptr[lo] <= k < row_ptr[hi] */
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (row_ptr[mid] <= k)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static int compare_offsets(const void *x, const void *y) {
  const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

tsi_spmm_far_offset tsi_spmm_far_offset_of(int64_t rows, const int64_t *row_ptr, const int32_t *col_idx) {
  tsi_spmm_far_offset far = {0, 0, 0};
  const int64_t nnz = rows > 0 ? row_ptr[rows] : 0;
  const int64_t m = nnz < TSI_SPMM_STACK_SAMPLE ? nnz : TSI_SPMM_STACK_SAMPLE;
  if (m == 0)
    return far;
  int64_t *offsets = malloc((size_t)m * sizeof *offsets);
  if (!offsets)
    return far; /* no sample: plain order */
  /* Entry j of the sample: one in each of m strata of the nonzeros, at a
   * hashed place in it (j nnz / m without overflow: nnz % m < m). */
  const int64_t q = nnz / m, r = nnz % m;
  int64_t n = 0;
  for (int64_t j = 0; j < m; j++) {
    const int64_t lo = j * q + j * r / m, hi = (j + 1) * q + (j + 1) * r / m;
    /* A fixed hash of the stratum (the generators' splitmix64 mixer): the
     * same entry on every run. */
    const int64_t k = lo + (int64_t)(tsi_mix64((uint64_t)j + TSI_GOLDEN_GAMMA) % (uint64_t)(hi - lo));
    const int64_t i = row_of(rows, row_ptr, k);
    const int64_t off = col_idx[k] > i ? col_idx[k] - i : i - col_idx[k];
    if (off > TSI_SPMM_STACK_NEAR)
      offsets[n++] = off;
  }
  far.sampled = m;
  qsort(offsets, (size_t)n, sizeof *offsets, compare_offsets);
  int64_t best = 0;
  for (int64_t x = 0, y; x < n; x = y) {
    for (y = x; y < n && offsets[y] == offsets[x];)
      y++;
    best = y - x > best ? y - x : best;
  }
  /* The smallest offset tied with the most frequent one. */
  for (int64_t x = 0, y; x < n; x = y) {
    for (y = x; y < n && offsets[y] == offsets[x];)
      y++;
    if ((double)(y - x) >= TSI_SPMM_STACK_TIE * (double)best) {
      far.offset = offsets[x];
      far.count = y - x;
      break;
    }
  }
  free(offsets);
  return far;
}

bool tsi_spmm_stack_walk(ts_schedule schedule, const tsi_spmm_lanes *lanes, ts_layout layout_b) {
  return schedule == TS_SCHEDULE_THREAD_MAPPED && layout_b == TS_LAYOUT_ROW_MAJOR && lanes->lanes == 32 &&
         lanes->columns == 1 && lanes->slices >= TSI_SPMM_STACK_MIN_SLICES;
}

bool tsi_spmm_stencil(const tsi_spmm_far_offset *far) {
  return far->offset > TSI_SPMM_STACK_NEAR && far->sampled > 0 &&
         (double)far->count >= TSI_SPMM_STACK_SHARE * (double)far->sampled;
}

int64_t tsi_spmm_stack_rows(int64_t rows, const tsi_spmm_far_offset *far) {
  const int64_t d = far->offset, warps = TSI_SPMM_BLOCK / 32;
  if (!tsi_spmm_stencil(far))
    return 0;
  /* A whole band: the launcher rounds d to whole groups of up to 32 rows,
   * so its 8 warps span at most 8 (d + 16) rows. */
  if (rows / warps < d + TSI_SPMM_STACK_NEAR / 2)
    return 0;
  return d;
}
