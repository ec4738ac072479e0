/* Split-rows schedule, host side: the table of pieces of the long rows, built
 * once at plan creation and copied into the plan's workspace, and the rows'
 * arrival counters, zeroed there. */
#include "sparse/spmv_cuda.h"

#include <stdlib.h>

static int64_t pieces_of(int64_t length) {
  return length <= TSI_SPLIT_SHORT ? 0 : (length + TSI_SPLIT_PIECE - 1) / TSI_SPLIT_PIECE;
}

void tsi_spmv_split_count(int64_t rows, const int64_t *offsets, int64_t *pieces, int64_t *multi) {
  int64_t p = 0, m = 0;
  for (int64_t r = 0; r < rows; r++) {
    int64_t n = pieces_of(offsets[r + 1] - offsets[r]);
    p += n;
    m += n > 1;
  }
  *pieces = p;
  *multi = m;
}

static size_t align_up(size_t n) { return (n + 255) / 256 * 256; }

tsi_spmv_split_layout tsi_spmv_split_layout_of(int64_t pieces, int64_t multi, size_t value_size) {
  tsi_spmv_split_layout l;
  size_t p = (size_t)pieces;
  l.piece_row = 0;
  l.piece_begin = l.piece_row + align_up(p * sizeof(int32_t));
  l.partial = l.piece_begin + align_up(p * sizeof(int64_t));
  l.arrivals = l.partial + align_up(p * value_size);
  /* Counters indexed by a row's first piece: the kernel finds it from the
   * piece alone, with no table of rows of several pieces. */
  l.bytes = pieces > 0 ? l.arrivals + (multi > 0 ? align_up(p * sizeof(uint32_t)) : 0) : 0;
  return l;
}

ts_status tsi_spmv_split_upload(ts_context *ctx, int64_t rows, const int64_t *offsets, const tsi_spmv_device_matrix *a,
                                void *workspace) {
  const int64_t pieces = a->split_pieces, multi = a->split_multi;
  if (pieces == 0)
    return TS_SUCCESS;
  tsi_spmv_split_layout l = tsi_spmv_split_layout_of(pieces, multi, tsi_spmv_sum_bytes(a->dtype));
  int32_t *piece_row = tsi_malloc_array(pieces, sizeof(int32_t));
  int64_t *piece_begin = tsi_malloc_array(pieces, sizeof(int64_t));
  ts_status st = TS_SUCCESS;
  if (!piece_row || !piece_begin) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_spmv_plan_create: no host memory for %lld row pieces",
                   (long long)pieces);
    goto cleanup;
  }
  int64_t p = 0;
  for (int64_t r = 0; r < rows; r++) {
    int64_t n = pieces_of(offsets[r + 1] - offsets[r]);
    for (int64_t k = 0; k < n; k++, p++) {
      piece_row[p] = (int32_t)r;
      piece_begin[p] = offsets[r] + k * TSI_SPLIT_PIECE;
    }
  }
  char *base = (char *)workspace;
  st = tsi_cuda_memcpy_to_device(ctx, base + l.piece_row, piece_row, (size_t)pieces * sizeof(int32_t));
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_device(ctx, base + l.piece_begin, piece_begin, (size_t)pieces * sizeof(int64_t));
  /* Every call leaves the counters at zero again; they start there. */
  if (st == TS_SUCCESS && multi > 0)
    st = tsi_cuda_memset(ctx, base + l.arrivals, 0, (size_t)pieces * sizeof(uint32_t));
cleanup:
  free(piece_row);
  free(piece_begin);
  return st;
}
