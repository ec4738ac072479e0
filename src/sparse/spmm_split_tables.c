/* Split-rows tables of SpMM: the rows longer than a piece cut into pieces
 * of that many nonzeros (the last piece takes the rest), the pieces of a row
 * consecutive, each piece's long row, and the first piece of each long row;
 * the huge rows (more than `huge` pieces) first, then the far ones (more
 * than `near`), then the near ones that the split kernel joins itself. */
#include "spmm_internal.h"

int64_t tsi_spmm_split_piece(const tsi_spmm_lanes *lanes) {
  return lanes->lanes <= 8 ? TSI_SPMM_SPLIT_PIECE_NARROW : TSI_SPMM_SPLIT_PIECE_WIDE;
}

int64_t tsi_spmm_split_huge(const tsi_spmm_lanes *lanes) {
  const int64_t warp_threads = lanes->lanes < 32 ? 32 / lanes->lanes : 1;
  return (int64_t)TSI_SPMM_JOIN_WARP_ROUNDS * TSI_SPMM_JOIN_BATCH * warp_threads;
}

static int64_t pieces_of(int64_t n, int64_t piece) { return n > piece ? (n + piece - 1) / piece : 0; }

int64_t tsi_spmm_split_near(int64_t huge) {
  return huge < TSI_SPMM_JOIN_NEAR_PIECES ? huge : TSI_SPMM_JOIN_NEAR_PIECES;
}

/* 0: huge, 1: far, 2: near, for a row of n > 0 pieces. */
static int kind_of(int64_t n, int64_t huge, int64_t near) { return n > huge ? 0 : (n > near ? 1 : 2); }

tsi_spmm_split_counts tsi_spmm_split_count(int64_t rows, const int64_t *offsets, int64_t piece, int64_t huge,
                                           int64_t near) {
  tsi_spmm_split_counts c = {0, 0, 0, 0};
  for (int64_t i = 0; i < rows; i++) {
    const int64_t n = pieces_of(offsets[i + 1] - offsets[i], piece);
    if (n == 0)
      continue;
    const int kind = kind_of(n, huge, near);
    c.pieces += n;
    c.long_rows++;
    c.huge_rows += kind == 0;
    c.joined_rows += kind < 2;
  }
  return c;
}

void tsi_spmm_split_fill(int64_t rows, const int64_t *offsets, int64_t piece, int64_t huge, int64_t near,
                         int32_t *piece_row, int64_t *piece_begin, int32_t *piece_long, int32_t *long_row,
                         int64_t *long_first) {
  int64_t p = 0, l = 0;
  for (int kind = 0; kind < 3; kind++) {
    for (int64_t i = 0; i < rows; i++) {
      const int64_t n = pieces_of(offsets[i + 1] - offsets[i], piece);
      if (n == 0 || kind_of(n, huge, near) != kind)
        continue;
      long_row[l] = (int32_t)i;
      long_first[l] = p;
      for (int64_t k = offsets[i]; k < offsets[i + 1]; k += piece) {
        piece_row[p] = (int32_t)i;
        piece_begin[p] = k;
        piece_long[p] = (int32_t)l;
        p++;
      }
      l++;
    }
  }
  long_first[l] = p;
}
