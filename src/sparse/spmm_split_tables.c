/* Split-rows tables of SpMM: the rows longer than a piece cut into pieces
 * of that many nonzeros (the last piece takes the rest), the pieces of a row
 * consecutive, and the first piece of each long row. */
#include "spmm_internal.h"

int64_t tsi_spmm_split_piece(const tsi_spmm_lanes *lanes) {
  return lanes->lanes <= 8 ? TSI_SPMM_SPLIT_PIECE_NARROW : TSI_SPMM_SPLIT_PIECE_WIDE;
}

void tsi_spmm_split_count(int64_t rows, const int64_t *offsets, int64_t piece, int64_t *pieces, int64_t *long_rows) {
  int64_t p = 0, l = 0;
  for (int64_t i = 0; i < rows; i++) {
    int64_t n = offsets[i + 1] - offsets[i];
    if (n > piece) {
      p += (n + piece - 1) / piece;
      l++;
    }
  }
  *pieces = p;
  *long_rows = l;
}

void tsi_spmm_split_fill(int64_t rows, const int64_t *offsets, int64_t piece, int32_t *piece_row, int64_t *piece_begin,
                         int32_t *long_row, int64_t *long_first) {
  int64_t p = 0, l = 0;
  for (int64_t i = 0; i < rows; i++) {
    int64_t n = offsets[i + 1] - offsets[i];
    if (n <= piece)
      continue;
    long_row[l] = (int32_t)i;
    long_first[l] = p;
    l++;
    for (int64_t k = offsets[i]; k < offsets[i + 1]; k += piece) {
      piece_row[p] = (int32_t)i;
      piece_begin[p] = k;
      p++;
    }
  }
  long_first[l] = p;
}
