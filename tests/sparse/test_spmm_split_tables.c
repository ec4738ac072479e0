/* SpMM split-rows tables (tsi_spmm_split_piece, _huge, _count, _fill): for every
 * vector thread and random row lengths around the piece (empty rows, rows of
 * exactly a piece, one more, many pieces), the pieces are checked against a
 * walk of the rows written here: each row longer than the piece, and only
 * those, is listed once, the huge ones (more pieces than the threshold)
 * first, each kind in row order; its pieces are consecutive, start at
 * the row's start, step by the piece and cover the row; the counts match;
 * and a piece is the narrow length for vector threads of up to 8 lanes and
 * no shorter for wider ones. */
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

static void check_tables(const int64_t *offsets, int64_t rows, int64_t piece, int64_t huge) {
  int64_t pieces = -1, long_rows = -1, huge_rows = -1;
  tsi_spmm_split_count(rows, offsets, piece, huge, &pieces, &long_rows, &huge_rows);
  int64_t want[3] = {0, 0, 0}; /* pieces, long rows, huge rows */
  for (const int64_t *row = offsets; row < offsets + rows; row++) {
    const int64_t n = pieces_of(row[1] - row[0], piece);
    want[0] += n;
    want[1] += n ? 1 : 0;
    want[2] += n > huge ? 1 : 0;
  }
  const int64_t want_pieces = want[0], want_long = want[1], want_huge = want[2];
  CHECK_MSG(pieces == want_pieces && long_rows == want_long && huge_rows == want_huge,
            "piece %lld: %lld pieces of %lld long rows (%lld huge), want %lld of %lld (%lld)", (long long)piece,
            (long long)pieces, (long long)long_rows, (long long)huge_rows, (long long)want_pieces, (long long)want_long,
            (long long)want_huge);
  if (pieces != want_pieces || long_rows != want_long)
    return;
  int32_t *piece_row = malloc((size_t)(pieces + 1) * sizeof(int32_t));
  int64_t *piece_begin = malloc((size_t)(pieces + 1) * sizeof(int64_t));
  int32_t *long_row = malloc((size_t)(long_rows + 1) * sizeof(int32_t));
  int64_t *long_first = malloc((size_t)(long_rows + 1) * sizeof(int64_t));
  CHECK(piece_row && piece_begin && long_row && long_first);
  if (piece_row && piece_begin && long_row && long_first) {
    tsi_spmm_split_fill(rows, offsets, piece, huge, piece_row, piece_begin, long_row, long_first);
    /* Read the tables back: the listed rows are long, the huge ones
     * first, each kind in increasing row order (so each long row once, as
     * their count matches); each row's pieces follow the previous row's,
     * belong to it and step through it by the piece. */
    CHECK(long_rows == 0 || long_first[0] == 0);
    for (int64_t l = 0; l < long_rows; l++) {
      const int64_t i = long_row[l], n = pieces_of(offsets[i + 1] - offsets[i], piece);
      const bool kind_ok = l < huge_rows ? n > huge : (n > 0 && n <= huge);
      const bool order_ok = l == 0 || l == huge_rows || long_row[l - 1] < long_row[l];
      CHECK_MSG(kind_ok && order_ok && long_first[l + 1] - long_first[l] == n,
                "piece %lld: long row %lld (row %lld of %lld pieces) listed with %lld pieces", (long long)piece,
                (long long)l, (long long)i, (long long)n, (long long)(long_first[l + 1] - long_first[l]));
      int64_t bad = 0;
      for (int64_t q = long_first[l]; q < long_first[l + 1] && q < pieces; q++)
        bad += piece_row[q] != (int32_t)i || piece_begin[q] != offsets[i] + (q - long_first[l]) * piece;
      CHECK_MSG(bad == 0, "piece %lld: %lld pieces of row %lld misplaced", (long long)piece, (long long)bad,
                (long long)i);
    }
    CHECK(long_first[long_rows] == pieces);
  }
  free(piece_row);
  free(piece_begin);
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
    check_tables(offsets, rows, piece, huge);
    check_tables(offsets, rows, piece, 3);
    check_tables(offsets, 0, piece, huge);
  }
  return test_finish();
}
