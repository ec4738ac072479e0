/* The sparse tail's gather order (tsi_lu_tail_gather_order), checked without
 * a GPU on analyses of generated matrices (circuit netlists with dense rails,
 * a circuit grid, a 2-D Laplacian) and several tail widths: each tail
 * column's entries above the tail appear once, by level and then by row, in
 * runs of one level; every entry's L-row predecessors in the column lie in
 * earlier runs; and the gather in that order, on random values, gives the
 * bits of the one-column-after-another scatter it replaces (the host's
 * left-looking order, as the old kernel did it); the split columns' pieces
 * (a launch per level) cover their runs once, and gathered launch by launch,
 * each launch's pieces backwards, give those bits too; and every entry
 * driven by its column instead of its row of L gives them as well; the
 * entries summed by segments are exactly the tail's long rows. */
#include "lu/lu_internal.h"
#include "lu/numeric/numeric_internal.h"
#include "test_common.h"
#include "test_lu_orderings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double minus_product(double x, double l, double u) {
  volatile double product = l * u; /* rounded on its own, as the kernels do */
  return x - product;
}

static uint64_t next_random(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return *state >> 11;
}

/* The kernel's gather_entry (numeric/numeric_sparse_tail_cuda.cu) on the host. */
static void gather_entry(const ts_lu *lu, const int64_t *lrow_ptr, const int32_t *lrow_col, const int64_t *lrow_pos,
                         const double *factor, double *acc, int64_t p, int64_t begin, int64_t first_tail,
                         int64_t tail_start) {
  const int32_t i = lu->lu_row_idx[p];
  const int64_t search_end = p < first_tail ? p : first_tail;
  double x = acc[p];
  for (int64_t e = lrow_ptr[i]; e < lrow_ptr[i + 1] && lrow_col[e] < tail_start; e++) {
    const int64_t pj = tsi_sorted_find(lu->lu_row_idx, begin, search_end, lrow_col[e]);
    if (pj >= 0 && acc[pj] != 0.0)
      x = minus_product(x, factor[lrow_pos[e]], acc[pj]);
  }
  acc[p] = x;
}

/* The split columns' pieces: each within one run of its column, the runs
 * of every split column covered once, a launch's pieces of one level and
 * the launches by increasing level; the others' split_index -1. Returns
 * the misplaced pieces. */
static int check_pieces(const ts_lu *lu, const tsi_lu_tail_order *order, const int32_t *level_of, int64_t split_entries,
                        int64_t piece_entries) {
  int bad = 0;
  int64_t expected = 0;
  for (int64_t c = 0; c < order->columns; c++)
    expected += split_entries > 0 && order->order_ptr[c + 1] - order->order_ptr[c] >= split_entries;
  if (order->split_columns != expected)
    return 1;
  if (expected == 0)
    return order->pieces != 0 || order->launches != 0;
  int64_t covered = 0, split = 0;
  for (int64_t c = 0; c < order->columns; c++) {
    const bool is_split = order->order_ptr[c + 1] - order->order_ptr[c] >= split_entries;
    bad += is_split ? (order->split_index[c] != split || order->split_cols[split] != c) : order->split_index[c] != -1;
    if (is_split) {
      covered += order->order_ptr[c + 1] - order->order_ptr[c];
      split++;
    }
  }
  int64_t pieces_entries = 0, last_level = -1;
  if (order->launch_ptr[0] != 0 || order->launch_ptr[order->launches] != order->pieces)
    bad++;
  for (int64_t s = 0; s < order->launches; s++) {
    if (order->launch_ptr[s + 1] <= order->launch_ptr[s]) {
      bad++;
      continue;
    }
    const int32_t level = level_of[lu->lu_row_idx[order->order[order->piece_first[order->launch_ptr[s]]]]];
    bad += level <= last_level;
    last_level = level;
    for (int64_t q = order->launch_ptr[s]; q < order->launch_ptr[s + 1]; q++) {
      const int64_t c = order->piece_column[q], first = order->piece_first[q], last = order->piece_last[q];
      if (c < 0 || c >= order->columns || order->split_index[c] < 0 || first < order->order_ptr[c] ||
          last > order->order_ptr[c + 1] || last <= first || last - first > piece_entries) {
        bad++;
        continue;
      }
      pieces_entries += last - first;
      for (int64_t e = first; e < last; e++)
        bad += level_of[lu->lu_row_idx[order->order[e]]] != level;
    }
  }
  return bad + (pieces_entries != covered);
}

/* The same entry driven by column k instead of row i (the kernels' way for
 * a long row of L met through a short column, numeric_sparse_tail_cuda.cu):
 * each U(j, k) above the search's end, not zero, with L(i, j) found in
 * column j's rows below the diagonal; the same terms in the same order as
 * gather_entry's walk of the row, so the same bits. */
static void gather_entry_by_column(const ts_lu *lu, const double *factor, double *acc, int64_t p, int64_t begin,
                                   int64_t first_tail) {
  const int32_t i = lu->lu_row_idx[p];
  const int64_t search_end = p < first_tail ? p : first_tail;
  double x = acc[p];
  for (int64_t q = begin; q < search_end; q++) {
    const int32_t j = lu->lu_row_idx[q];
    const int64_t position = tsi_sorted_find(lu->lu_row_idx, lu->diag_pos[j] + 1, lu->lu_col_ptr[j + 1], i);
    if (acc[q] != 0.0 && position >= 0)
      x = minus_product(x, factor[position], acc[q]);
  }
  acc[p] = x;
}

static void check_order(const char *name, ts_lu *lu, int64_t tail_start, int64_t split_entries, int64_t piece_entries,
                        bool check_by_column) {
  const int64_t n = lu->n, *col_ptr = lu->lu_col_ptr, *diag = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  int32_t *level_of = malloc((size_t)n * sizeof(int32_t));
  for (int64_t l = 0; l < lu->levels; l++)
    for (int64_t c = lu->level_ptr[l]; c < lu->level_ptr[l + 1]; c++)
      level_of[lu->level_cols[c]] = (int32_t)l;
  tsi_lu_tail_order order;
  CHECK_OK(NULL, tsi_lu_tail_gather_order(lu, tail_start, level_of, split_entries, piece_entries, &order));
  const int bad_pieces = check_pieces(lu, &order, level_of, split_entries, piece_entries);
  CHECK_MSG(bad_pieces == 0, "%s, tail of %lld, split from %lld entries, pieces of %lld: %d misplaced pieces", name,
            (long long)(n - tail_start), (long long)split_entries, (long long)piece_entries, bad_pieces);
  int64_t *lrow_ptr = NULL, *lrow_pos = NULL;
  int32_t *lrow_col = NULL;
  CHECK_OK(NULL, tsi_lu_build_rows(lu, false, &lrow_ptr, &lrow_col, &lrow_pos));
  int64_t *run_of = malloc((size_t)(lu->lu_nnz > 0 ? lu->lu_nnz : 1) * sizeof(int64_t));
  double *scatter = malloc((size_t)lu->lu_nnz * sizeof(double)), *gather = malloc((size_t)lu->lu_nnz * sizeof(double));
  double *factor = malloc((size_t)lu->lu_nnz * sizeof(double)),
         *by_column = malloc((size_t)lu->lu_nnz * sizeof(double));
  uint64_t state = 12345;
  for (int64_t p = 0; p < lu->lu_nnz; p++) {
    factor[p] = (double)(next_random(&state) % 2001) / 1000.0 - 1.0; /* some exact zeros */
    scatter[p] = gather[p] = by_column[p] = (double)(next_random(&state) % 2001) / 1000.0 - 1.0;
  }
  int bad_sorted = 0, bad_runs = 0, bad_dependency = 0, bad_bits = 0, bad_column_bits = 0;
  CHECK(order.columns == n - tail_start);
  /* The split columns' entries above the tail by launches, each launch's
   * pieces backwards (the kernels run them in any order). */
  if (bad_pieces == 0)
    for (int64_t s = 0; s < order.launches; s++)
      for (int64_t q = order.launch_ptr[s + 1] - 1; q >= order.launch_ptr[s]; q--) {
        const int64_t c = order.piece_column[q], k = tail_start + c, begin = col_ptr[k];
        const int64_t first_tail = begin + (order.order_ptr[c + 1] - order.order_ptr[c]);
        for (int64_t e = order.piece_first[q]; e < order.piece_last[q]; e++)
          gather_entry(lu, lrow_ptr, lrow_col, lrow_pos, factor, gather, order.order[e], begin, first_tail, tail_start);
      }
  for (int64_t c = 0; c < order.columns; c++) {
    const int64_t k = tail_start + c, begin = col_ptr[k];
    int64_t first_tail = begin;
    while (first_tail < col_ptr[k + 1] && row_idx[first_tail] < tail_start)
      first_tail++;
    if (order.order_ptr[c + 1] - order.order_ptr[c] != first_tail - begin) {
      bad_sorted++;
      continue;
    }
    /* A permutation of [begin, first_tail), by (level, row), cut at level changes. */
    char *seen = calloc((size_t)(first_tail - begin + 1), 1);
    int64_t run = order.run_ptr[c], run_start = order.order_ptr[c];
    for (int64_t e = order.order_ptr[c]; e < order.order_ptr[c + 1]; e++) {
      const int64_t p = order.order[e];
      if (p < begin || p >= first_tail || seen[p - begin]++) {
        bad_sorted++;
        break;
      }
      if (e > order.order_ptr[c]) {
        const int32_t prev = row_idx[order.order[e - 1]], row = row_idx[p];
        if (level_of[prev] > level_of[row] || (level_of[prev] == level_of[row] && prev >= row))
          bad_sorted++;
      }
      if (run >= order.run_ptr[c + 1]) {
        bad_runs++;
        break;
      }
      if (level_of[row_idx[p]] != level_of[row_idx[order.order[run_start]]])
        bad_runs++;
      run_of[p] = run;
      if (e + 1 == order.run_end[run]) {
        run_start = e + 1;
        run++;
      }
    }
    if (run != order.run_ptr[c + 1])
      bad_runs++;
    free(seen);
    /* Each entry's predecessors through its row of L lie in earlier runs. */
    for (int64_t p = begin; p < first_tail; p++)
      for (int64_t e = lrow_ptr[row_idx[p]]; e < lrow_ptr[row_idx[p] + 1]; e++) {
        const int64_t pj = tsi_sorted_find(row_idx, begin, first_tail, lrow_col[e]);
        if (pj >= 0 && run_of[pj] >= run_of[p])
          bad_dependency++;
      }
    /* The old scatter: finished columns j one after another. */
    for (int64_t p = begin; p < first_tail; p++) {
      const int32_t j = row_idx[p];
      const double u = scatter[p];
      if (u == 0.0)
        continue;
      for (int64_t q = diag[j] + 1; q < col_ptr[j + 1]; q++) {
        const int64_t pos = tsi_sorted_find(row_idx, p + 1, col_ptr[k + 1], row_idx[q]);
        if (pos >= 0)
          scatter[pos] = minus_product(scatter[pos], factor[q], u);
      }
    }
    /* The gather in the order's runs (the split columns' done above), then
     * the rows from tail_start down. */
    const bool split = order.split_index && order.split_index[c] >= 0;
    for (int64_t e = order.order_ptr[c]; !split && e < order.order_ptr[c + 1]; e++)
      gather_entry(lu, lrow_ptr, lrow_col, lrow_pos, factor, gather, order.order[e], begin, first_tail, tail_start);
    for (int64_t p = first_tail; p < col_ptr[k + 1]; p++)
      gather_entry(lu, lrow_ptr, lrow_col, lrow_pos, factor, gather, p, begin, first_tail, tail_start);
    for (int64_t p = begin; p < col_ptr[k + 1]; p++)
      bad_bits += memcmp(&scatter[p], &gather[p], sizeof(double)) != 0;
    /* Every entry driven by the column instead, in the order's runs. */
    if (!check_by_column)
      continue;
    for (int64_t e = order.order_ptr[c]; e < order.order_ptr[c + 1]; e++)
      gather_entry_by_column(lu, factor, by_column, order.order[e], begin, first_tail);
    for (int64_t p = first_tail; p < col_ptr[k + 1]; p++)
      gather_entry_by_column(lu, factor, by_column, p, begin, first_tail);
    for (int64_t p = begin; p < col_ptr[k + 1]; p++)
      bad_column_bits += memcmp(&by_column[p], &gather[p], sizeof(double)) != 0;
  }
  CHECK_MSG(bad_sorted == 0 && bad_runs == 0, "%s, tail of %lld: %d misplaced entries, %d bad runs", name,
            (long long)(n - tail_start), bad_sorted, bad_runs);
  CHECK_MSG(bad_dependency == 0, "%s, tail of %lld: %d predecessors in the same or a later run", name,
            (long long)(n - tail_start), bad_dependency);
  CHECK_MSG(bad_bits == 0, "%s, tail of %lld: %d entries differ from the scatter's bits", name,
            (long long)(n - tail_start), bad_bits);
  CHECK_MSG(bad_column_bits == 0, "%s, tail of %lld: %d entries driven by the column differ from the row's bits", name,
            (long long)(n - tail_start), bad_column_bits);
  tsi_lu_tail_order_free(&order);
  free(lrow_ptr);
  free(lrow_col);
  free(lrow_pos);
  free(run_of);
  free(scatter);
  free(gather);
  free(by_column);
  free(factor);
  free(level_of);
}

/* The entries summed by segments (tsi_lu_tail_segments_find): exactly the
 * entries of the tail columns from tail_start down whose rows of L hold more
 * than segment_row entries, by column, each with ceil(length /
 * segment_length) segments numbered in order. */
static void check_segments(const char *name, ts_lu *lu, int64_t tail_start, int64_t segment_row,
                           int64_t segment_length) {
  const int64_t n = lu->n, *col_ptr = lu->lu_col_ptr;
  const int32_t *row_idx = lu->lu_row_idx;
  int64_t *lrow_ptr = NULL, *lrow_pos = NULL;
  int32_t *lrow_col = NULL;
  CHECK_OK(NULL, tsi_lu_build_rows(lu, false, &lrow_ptr, &lrow_col, &lrow_pos));
  if (!lrow_ptr)
    return;
  tsi_lu_tail_segments seg;
  CHECK_OK(NULL, tsi_lu_tail_segments_find(lu, tail_start, lrow_ptr + tail_start, segment_row, segment_length, &seg));
  int64_t *listed = malloc((size_t)(lu->lu_nnz > 0 ? lu->lu_nnz : 1) * sizeof(int64_t));
  if (!listed)
    return;
  for (int64_t p = 0; p < lu->lu_nnz; p++)
    listed[p] = -1;
  int64_t bad = 0;
  for (int64_t e = 0; e < seg.entries; e++) {
    bad += listed[seg.entry[e]] >= 0;
    listed[seg.entry[e]] = e;
  }
  int64_t expected = 0, expected_segments = 0, q = 0;
  for (int64_t k = tail_start; k < n; k++)
    for (int64_t p = col_ptr[k]; p < col_ptr[k + 1]; p++) {
      const int64_t i = row_idx[p], length = lrow_ptr[i + 1] - lrow_ptr[i];
      if (i < tail_start || length <= segment_row)
        continue;
      expected++;
      expected_segments += (length + segment_length - 1) / segment_length;
      /* Listed once, in its column, with its segments in order. */
      const int64_t found = listed[p];
      if (found < 0 || seg.entry_column[found] != k - tail_start ||
          seg.entry_first[found + 1] - seg.entry_first[found] != (length + segment_length - 1) / segment_length) {
        bad++;
        continue;
      }
      for (int64_t s = seg.entry_first[found]; s < seg.entry_first[found + 1]; s++)
        bad += seg.segment_entry[s] != found;
      q++;
    }
  for (int64_t e = 0; e + 1 < seg.entries; e++)
    bad += seg.entry_column[e] > seg.entry_column[e + 1];
  CHECK_MSG(bad == 0 && q == expected && seg.entries == expected && seg.segments == expected_segments,
            "%s, tail of %lld, rows over %lld in segments of %lld: %lld of %lld long entries listed (%lld misplaced), "
            "%lld segments of %lld",
            name, (long long)(n - tail_start), (long long)segment_row, (long long)segment_length,
            (long long)seg.entries, (long long)expected, (long long)bad, (long long)seg.segments,
            (long long)expected_segments);
  tsi_lu_tail_segments_free(&seg);
  free(listed);
  free(lrow_ptr);
  free(lrow_col);
  free(lrow_pos);
}

static void check_matrix(const char *name, const ts_csr *a) {
  ts_lu_options options = {0};
  options.ordering = lu_test_fill_ordering();
  ts_lu *lu = NULL;
  CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
  ts_status st = ts_lu_analyze(lu, a);
  CHECK_MSG(st == TS_SUCCESS, "%s: analysis: %s", name, ts_last_error(NULL));
  if (st == TS_SUCCESS) {
    const int64_t n = lu->n;
    const int64_t tails[] = {1, 19, n / 10, n / 2, n};
    /* Split: none, the default rule's, every column in pieces of 7. */
    const int64_t splits[][2] = {{0, 0}, {TSI_LU_TAIL_SPLIT_ENTRIES, TSI_LU_TAIL_PIECE}, {1, 7}};
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
      for (size_t v = 0; v < sizeof splits / sizeof splits[0]; v++)
        check_order(name, lu, n - tails[t], splits[v][0], splits[v][1], v == 0);
      check_segments(name, lu, n - tails[t], 16, 7);
      check_segments(name, lu, n - tails[t], TSI_LU_TAIL_SEGMENT_ROW, TSI_LU_TAIL_SEGMENT);
    }
  }
  ts_lu_destroy(lu);
}

int main(void) {
  const int64_t sizes[] = {2000, 20000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    ts_circuit_params params = ts_circuit_defaults(sizes[s]);
    ts_csr *a = NULL;
    char name[64];
    snprintf(name, sizeof name, "circuit netlist %lld", (long long)sizes[s]);
    /* The larger netlist fills in to minutes of checks in the natural order. */
    if (sizes[s] < 20000 || !lu_test_skip_unordered(name)) {
      CHECK_OK(NULL, lu_test_gen_circuit(NULL, &params, 7, TS_FLOAT64, &a));
      if (a)
        check_matrix(name, a);
      ts_csr_destroy(a);
      a = NULL;
    }
    params.locality = 1.0;
    CHECK_OK(NULL, lu_test_gen_circuit(NULL, &params, 7, TS_FLOAT64, &a));
    snprintf(name, sizeof name, "circuit grid %lld", (long long)sizes[s]);
    if (a)
      check_matrix(name, a);
    ts_csr_destroy(a);
  }
  ts_csr *grid = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 60, 60, TS_FLOAT64, &grid));
  if (grid)
    check_matrix("laplacian 60x60", grid);
  ts_csr_destroy(grid);
  return test_finish();
}
