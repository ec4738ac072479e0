/* The workspace of a GPU SpMM plan, by schedule: for merge-path and
 * work-oriented the partition coordinates and the head and tail records of
 * every part (a partial row of C each); for split-rows the pieces of the long
 * rows, the long rows, the near rows' counters (one a slice, bounded by one a
 * column) and a record per piece. SIZE_MAX when a size passes
 * 64 bits. */
#include "spmm_internal.h"

#include <stdint.h>

static size_t align_up(size_t n) { return (n + 255) / 256 * 256; }

/* count * size, aligned; false when it passes INT64_MAX. */
static bool array_bytes(int64_t count, int64_t size, size_t *out) {
  int64_t bytes;
  if (tsi_mul_overflows(count, size, &bytes) || bytes > INT64_MAX - 256)
    return false;
  *out = align_up((size_t)bytes);
  return true;
}

/* Records of `count` partial rows of `width` values. */
static bool records_bytes(int64_t count, int64_t width, int64_t value_size, size_t *out) {
  int64_t values;
  return !tsi_mul_overflows(count, width, &values) && array_bytes(values, value_size, out);
}

static bool add_to(size_t *total, size_t bytes, size_t *at) {
  if (bytes > SIZE_MAX - *total)
    return false;
  *at = *total;
  *total += bytes;
  return true;
}

size_t tsi_spmm_workspace_layout(tsi_spmm_device *d, ts_schedule schedule) {
  const int64_t v = (int64_t)ts_dtype_size(d->dtype);
  size_t total = 0, bytes = 0;
  if (d->rows == 0 || d->lanes.slices == 0)
    return 0;
  if (schedule == TS_SCHEDULE_MERGE_PATH || schedule == TS_SCHEDULE_WORK_ORIENTED) {
    const int64_t items = schedule == TS_SCHEDULE_MERGE_PATH ? d->rows + d->nnz : d->nnz;
    d->parts = (items + TSI_SPMM_PART_ITEMS - 1) / TSI_SPMM_PART_ITEMS;
    if (d->parts < 1)
      d->parts = 1;
    if (!array_bytes(d->parts + 1, TSI_SPMM_COORDINATE_BYTES, &bytes) || !add_to(&total, bytes, &d->coords_at) ||
        !records_bytes(d->parts, d->width, v, &bytes) || !add_to(&total, bytes, &d->head_at) ||
        !add_to(&total, bytes, &d->tail_at))
      return SIZE_MAX;
    return total;
  }
  if (schedule == TS_SCHEDULE_SPLIT_ROWS) {
    if (d->pieces == 0)
      return 0;
    /* The counters go right before the records: their bytes are the gap. */
    if (!array_bytes(d->pieces, (int64_t)sizeof(int32_t), &bytes) || !add_to(&total, bytes, &d->piece_row_at) ||
        !array_bytes(d->pieces, (int64_t)sizeof(int64_t), &bytes) || !add_to(&total, bytes, &d->piece_begin_at) ||
        !array_bytes(d->pieces, (int64_t)sizeof(int32_t), &bytes) || !add_to(&total, bytes, &d->piece_long_at) ||
        !array_bytes(d->long_rows, (int64_t)sizeof(int32_t), &bytes) || !add_to(&total, bytes, &d->long_row_at) ||
        !array_bytes(d->long_rows + 1, (int64_t)sizeof(int64_t), &bytes) || !add_to(&total, bytes, &d->long_first_at) ||
        !records_bytes(d->long_rows - d->joined_rows, d->width, (int64_t)sizeof(uint32_t), &bytes) ||
        !add_to(&total, bytes, &d->counters_at) || !records_bytes(d->pieces, d->width, v, &bytes) ||
        !add_to(&total, bytes, &d->records_at))
      return SIZE_MAX;
    return total;
  }
  return 0;
}
