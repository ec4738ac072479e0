/* Columns a pass for pass_columns = 0 (spmm_tuning.h): bands of
 * TSI_SPMM_PASS_BYTES a row of B where a row-major B at least two bands wide
 * is TSI_SPMM_PASS_L2_MULTIPLE L2s or more, A's sampled offsets show no
 * stencil and the schedule walks rows; otherwise the width (one pass). `why`
 * gets the reason, for the explain line. Host code, O(1). */
#include "spmm_internal.h"

#include <stdio.h>

static double megabytes(double bytes) { return bytes / 1e6; }

int64_t tsi_spmm_pass_rule(const ts_device_info *info, ts_schedule schedule, ts_dtype dtype, const tsi_dense_shape *b,
                           const tsi_spmm_far_offset *far, char *why, size_t why_size) {
  const int64_t width = b->cols, value = (int64_t)ts_dtype_size(dtype);
  const int64_t band = value > 0 ? TSI_SPMM_PASS_BYTES / value : width;
  const double bytes = (double)b->rows * (double)width * (double)value;
  const double l2 = info ? (double)info->l2_cache_bytes : 0.0;
  if (l2 <= 0) {
    snprintf(why, why_size, "no L2 size: the CPU backend");
    return width;
  }
  if (b->layout != TS_LAYOUT_ROW_MAJOR) {
    snprintf(why, why_size, "column-major B");
    return width;
  }
  if (width < 2 * band) {
    snprintf(why, why_size, "%lld columns, under two bands of %lld", (long long)width, (long long)band);
    return width;
  }
  if (schedule != TS_SCHEDULE_THREAD_MAPPED && schedule != TS_SCHEDULE_SPLIT_ROWS) {
    snprintf(why, why_size, "%s does not walk rows", ts_schedule_name(schedule));
    return width;
  }
  if (bytes < TSI_SPMM_PASS_L2_MULTIPLE * l2) {
    snprintf(why, why_size, "B of %.0f MB, under %d L2s of %.0f MB", megabytes(bytes), TSI_SPMM_PASS_L2_MULTIPLE,
             megabytes(l2));
    return width;
  }
  const double share = far->sampled > 0 ? 100.0 * (double)far->count / (double)far->sampled : 0.0;
  if (far->sampled == 0 || tsi_spmm_stencil(far)) {
    snprintf(why, why_size, "%s: offset %lld holds %.0f %% of %lld sampled entries",
             far->sampled == 0 ? "no entries" : "a stencil", (long long)far->offset, share, (long long)far->sampled);
    return width;
  }
  snprintf(why, why_size,
           "B of %.0f MB, %d L2s of %.0f MB or more, and no stencil: offset %lld holds %.0f %% of %lld "
           "sampled entries",
           megabytes(bytes), TSI_SPMM_PASS_L2_MULTIPLE, megabytes(l2), (long long)far->offset, share,
           (long long)far->sampled);
  return band;
}
