/* SpMM split-rows tables (tsi_spmm_split_piece, _huge, _near, _count,
 * _fill): for every vector thread and random row lengths around the piece
 * (empty rows, rows of exactly a piece, one more, many pieces), the pieces
 * are checked against a walk of the rows written here: each row longer than
 * the piece, and only those, is listed once, the huge ones (more pieces than
 * the huge threshold) first, then the far ones (more than the near
 * threshold), then the near ones, each kind in row order; its pieces are
 * consecutive, start at the row's start, step by the piece, cover the row
 * and name the row's place in the list; the counts match; the near
 * threshold is at most the huge one; and a piece is the narrow length for
 * vector threads of up to 8 lanes and no shorter for wider ones. */
#include "sparse/spmm_internal.h"
#include "test_common.h"

#include <stdlib.h>

/* Pieces of a row of n nonzeros, counted by taking pieces off it. */
static int64_t pieces_of(int64_t n, int64_t piece) {
  int64_t count = 0;
  for (int64_t left = n; n > piece && left > 0; left -= piece)
    count++;
  return count;
}

/* 0: huge, 1: far, 2: near. */
static int kind_of(int64_t n, int64_t huge, int64_t near) {
  if (n > huge)
    return 0;
  return n > near ? 1 : 2;
}

static void check_tables(const int64_t *offsets, int64_t rows, int64_t piece, int64_t huge, int64_t near) {
  const tsi_spmm_split_counts got = tsi_spmm_split_count(rows, offsets, piece, huge, near);
  int64_t want[4] = {0, 0, 0, 0}; /* pieces, long rows, huge rows, huge and far rows */
  for (const int64_t *row = offsets; row < offsets + rows; row++) {
    const int64_t n = pieces_of(row[1] - row[0], piece);
    want[0] += n;
    want[1] += n ? 1 : 0;
    want[2] += n && kind_of(n, huge, near) == 0 ? 1 : 0;
    want[3] += n && kind_of(n, huge, near) < 2 ? 1 : 0;
  }
  const int64_t pieces = got.pieces, long_rows = got.long_rows;
  CHECK_MSG(pieces == want[0] && long_rows == want[1] && got.huge_rows == want[2] && got.joined_rows == want[3],
            "piece %lld: %lld pieces of %lld long rows (%lld huge, %lld joined), want %lld of %lld (%lld, %lld)",
            (long long)piece, (long long)pieces, (long long)long_rows, (long long)got.huge_rows,
            (long long)got.joined_rows, (long long)want[0], (long long)want[1], (long long)want[2], (long long)want[3]);
  if (pieces != want[0] || long_rows != want[1])
    return;
  int32_t *piece_row = malloc((size_t)(pieces + 1) * sizeof(int32_t));
  int64_t *piece_begin = malloc((size_t)(pieces + 1) * sizeof(int64_t));
  int32_t *piece_long = malloc((size_t)(pieces + 1) * sizeof(int32_t));
  int32_t *long_row = malloc((size_t)(long_rows + 1) * sizeof(int32_t));
  int64_t *long_first = malloc((size_t)(long_rows + 1) * sizeof(int64_t));
  CHECK(piece_row && piece_begin && piece_long && long_row && long_first);
  if (piece_row && piece_begin && piece_long && long_row && long_first) {
    tsi_spmm_split_fill(rows, offsets, piece, huge, near, piece_row, piece_begin, piece_long, long_row, long_first);
    /* Read the tables back: the listed rows are long, huge ones first,
     * then far, then near, each kind in increasing row order (so each long
     * row once, as their count matches); each row's pieces follow the
     * previous row's, belong to it, step through it by the piece and name
     * the row's place. */
    CHECK(long_rows == 0 || long_first[0] == 0);
    for (int64_t l = 0; l < long_rows; l++) {
      const int64_t i = long_row[l], n = pieces_of(offsets[i + 1] - offsets[i], piece);
      const int want_kind = l < want[2] ? 0 : (l < want[3] ? 1 : 2);
      const bool kind_ok = n > 0 && kind_of(n, huge, near) == want_kind;
      const bool order_ok = l == 0 || l == want[2] || l == want[3] || long_row[l - 1] < long_row[l];
      CHECK_MSG(kind_ok && order_ok && long_first[l + 1] - long_first[l] == n,
                "piece %lld: long row %lld (row %lld of %lld pieces) listed with %lld pieces", (long long)piece,
                (long long)l, (long long)i, (long long)n, (long long)(long_first[l + 1] - long_first[l]));
      int64_t bad = 0;
      for (int64_t q = long_first[l]; q < long_first[l + 1] && q < pieces; q++)
        bad += piece_row[q] != (int32_t)i || piece_begin[q] != offsets[i] + (q - long_first[l]) * piece ||
               piece_long[q] != (int32_t)l;
      CHECK_MSG(bad == 0, "piece %lld: %lld pieces of row %lld misplaced", (long long)piece, (long long)bad,
                (long long)i);
    }
    CHECK(long_first[long_rows] == pieces);
  }
  free(piece_row);
  free(piece_begin);
  free(piece_long);
  free(long_row);
  free(long_first);
}

int main(void) {
  unsigned long long state = 2026;
  for (int lanes = 1; lanes <= 32; lanes *= 2) {
    tsi_spmm_lanes l = {1, lanes, 1, lanes, 1, false};
    const int64_t piece = tsi_spmm_split_piece(&l);
    CHECK_MSG(lanes <= 8 ? piece == TSI_SPMM_SPLIT_PIECE_NARROW : piece >= TSI_SPMM_SPLIT_PIECE_NARROW,
              "%d lanes: piece %lld", lanes, (long long)piece);
    const int64_t rows = 500;
    int64_t offsets[501];
    offsets[0] = 0;
    const int64_t around[] = {0, 1, piece - 1, piece, piece + 1, 2 * piece, 2 * piece + 1, 37 * piece + 5};
    for (int64_t i = 0; i < rows; i++) {
      const int64_t n = i < 8 ? around[i] : (int64_t)((test_random(&state) + 1.0) * 2.5 * (double)piece);
      offsets[i + 1] = offsets[i] + n;
    }
    const int64_t huge = tsi_spmm_split_huge(&l);
    CHECK_MSG(huge >= 1, "%d lanes: huge past %lld pieces", lanes, (long long)huge);
    const int64_t near = tsi_spmm_split_near(huge);
    CHECK_MSG(near >= 1 && near <= huge, "%d lanes: near up to %lld pieces, huge past %lld", lanes, (long long)near,
              (long long)huge);
    check_tables(offsets, rows, piece, huge, near);
    check_tables(offsets, rows, piece, huge, 1);
    check_tables(offsets, rows, piece, 3, 2);
    check_tables(offsets, rows, piece, 3, 3);
    check_tables(offsets, 0, piece, huge, near);
  }
  return test_finish();
}
