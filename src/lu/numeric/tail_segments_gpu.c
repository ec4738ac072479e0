/* Which entries of the GPU's sparse tail are summed by segments (host rule,
 * kept apart from the kernels so that it is tested without a GPU). An entry
 * of a tail column from tail_start down takes the terms L(i, j) U(j, k) of
 * its whole row of L; on a netlist's rails (rows and columns as long as a
 * fifth of the order) those are some 2 x 10^5 terms, which the row walk
 * subtracts one after another: a chain of dependent subtractions that the
 * rest of the GPU waits for. An entry whose row holds more than segment_row
 * entries has its row cut into segments of segment_length positions, each
 * summed by a block (numeric_sparse_tail_cuda.cu), and the segments' sums
 * subtracted in order: a fixed order, so deterministic, but not the row
 * walk's, so not the host's bits (to rounding, as the dense tail's panels). */
#include "lu/numeric/numeric_internal.h"

#include <stdlib.h>
#include <string.h>

void tsi_lu_tail_segments_free(tsi_lu_tail_segments *segments) {
  free(segments->entry);
  free(segments->entry_column);
  free(segments->entry_first);
  free(segments->segment_entry);
  memset(segments, 0, sizeof *segments);
}

ts_status tsi_lu_tail_segments_find(const ts_lu *lu, int64_t tail_start, const int64_t *lrow_tail, int64_t segment_row,
                                    int64_t segment_length, tsi_lu_tail_segments *out) {
  memset(out, 0, sizeof *out);
  const int64_t n = lu->n, *col_ptr = lu->lu_col_ptr;
  const int32_t *row_idx = lu->lu_row_idx;
  if (segment_length < 1)
    segment_length = 1;
  /* Count, then fill: the long entries and their segments. */
  for (int pass = 0; pass < 2; pass++) {
    int64_t entries = 0, segments = 0;
    for (int64_t k = tail_start; k < n; k++)
      for (int64_t p = col_ptr[k + 1] - 1; p >= col_ptr[k] && row_idx[p] >= tail_start; p--) {
        const int64_t i = row_idx[p] - tail_start, length = lrow_tail[i + 1] - lrow_tail[i];
        if (length <= segment_row)
          continue;
        const int64_t count = (length + segment_length - 1) / segment_length;
        if (pass == 1) {
          out->entry[entries] = p;
          out->entry_column[entries] = (int32_t)(k - tail_start);
          out->entry_first[entries] = segments;
          for (int64_t s = 0; s < count; s++)
            out->segment_entry[segments + s] = (int32_t)entries;
        }
        entries++;
        segments += count;
      }
    if (pass == 1) {
      out->entry_first[entries] = segments;
      break;
    }
    if (entries == 0)
      return TS_SUCCESS;
    if (entries > INT32_MAX)
      return tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "LU on the GPU: %lld long entries in the tail", (long long)entries);
    out->entries = entries;
    out->segments = segments;
    out->entry = (int64_t *)tsi_malloc_array(entries, sizeof(int64_t));
    out->entry_column = (int32_t *)tsi_malloc_array(entries, sizeof(int32_t));
    out->entry_first = (int64_t *)tsi_malloc_array(entries + 1, sizeof(int64_t));
    out->segment_entry = (int32_t *)tsi_malloc_array(segments, sizeof(int32_t));
    if (!out->entry || !out->entry_column || !out->entry_first || !out->segment_entry) {
      tsi_lu_tail_segments_free(out);
      return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for %lld segments of the tail",
                       (long long)segments);
    }
  }
  return TS_SUCCESS;
}
