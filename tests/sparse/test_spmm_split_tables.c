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

static int64_t pieces_of(int64_t n, int64_t piece) { return n > piece ? n / piece + (n % piece != 0) : 0; }

static void check_tables(const int64_t *offsets, int64_t rows, int64_t piece, int64_t huge) {
  int64_t pieces = -1, long_rows = -1, huge_rows = -1;
  tsi_spmm_split_count(rows, offsets, piece, huge, &pieces, &long_rows, &huge_rows);
  int64_t want_pieces = 0, want_long = 0, want_huge = 0;
  for (int64_t i = 0; i < rows; i++) {
    const int64_t n = pieces_of(offsets[i + 1] - offsets[i], piece);
    want_pieces += n;
    want_long += n > 0;
    want_huge += n > huge;
  }
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
    int64_t l = 0, p = 0;
    /* The huge rows in row order, then the other long ones. */
    for (int pass = 0; pass < 2; pass++) {
      for (int64_t i = 0; i < rows; i++) {
        const int64_t n = pieces_of(offsets[i + 1] - offsets[i], piece);
        if (n == 0 || (n > huge) != (pass == 0))
          continue;
        CHECK_MSG(long_row[l] == (int32_t)i && long_first[l] == p,
                  "piece %lld: long row %lld is %d (first piece %lld), want %lld (%lld)", (long long)piece,
                  (long long)l, long_row[l], (long long)long_first[l], (long long)i, (long long)p);
        for (int64_t k = offsets[i]; k < offsets[i + 1]; k += piece, p++)
          CHECK_MSG(piece_row[p] == (int32_t)i && piece_begin[p] == k,
                    "piece %lld: piece %lld is (%d, %lld), want (%lld, %lld)", (long long)piece, (long long)p,
                    piece_row[p], (long long)piece_begin[p], (long long)i, (long long)k);
        l++;
      }
    }
    CHECK(l == long_rows && p == pieces && long_first[long_rows] == pieces);
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
