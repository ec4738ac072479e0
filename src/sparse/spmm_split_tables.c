/* Split-rows tables of SpMM: the rows longer than a piece cut into pieces
 * of that many nonzeros (the last piece takes the rest), the pieces of a row
 * consecutive, and the first piece of each long row; the huge rows (more
 * than `huge` pieces) first. */
#include "spmm_internal.h"

int64_t tsi_spmm_split_piece(const tsi_spmm_lanes *lanes) {
  return lanes->lanes <= 8 ? TSI_SPMM_SPLIT_PIECE_NARROW : TSI_SPMM_SPLIT_PIECE_WIDE;
}

int64_t tsi_spmm_split_huge(const tsi_spmm_lanes *lanes) {
  const int64_t warp_threads = lanes->lanes < 32 ? 32 / lanes->lanes : 1;
  return (int64_t)TSI_SPMM_JOIN_WARP_ROUNDS * TSI_SPMM_JOIN_BATCH * warp_threads;
}

static int64_t pieces_of(int64_t n, int64_t piece) { return n > piece ? (n + piece - 1) / piece : 0; }

void tsi_spmm_split_count(int64_t rows, const int64_t *offsets, int64_t piece, int64_t huge, int64_t *pieces,
                          int64_t *long_rows, int64_t *huge_rows) {
  int64_t p = 0, l = 0, h = 0;
  for (int64_t i = 0; i < rows; i++) {
    const int64_t n = pieces_of(offsets[i + 1] - offsets[i], piece);
    p += n;
    l += n > 0;
    h += n > huge;
  }
  *pieces = p;
  *long_rows = l;
  *huge_rows = h;
}

void tsi_spmm_split_fill(int64_t rows, const int64_t *offsets, int64_t piece, int64_t huge, int32_t *piece_row,
                         int64_t *piece_begin, int32_t *long_row, int64_t *long_first) {
  int64_t p = 0, l = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t i = 0; i < rows; i++) {
      const int64_t n = pieces_of(offsets[i + 1] - offsets[i], piece);
      if (n == 0 || (n > huge) != (pass == 0))
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
  }
  long_first[l] = p;
}
