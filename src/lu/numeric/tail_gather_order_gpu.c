/* The order in which the GPU's sparse right-looking tail gathers the updates
 * of the finished columns (host rule, kept apart from the kernels so that it
 * is tested without a GPU). A tail column k receives, for each finished
 * column j < tail_start with U(j, k) != 0, the update L(:, j) U(j, k); done
 * one j after another (as the host's left-looking code does), a column with
 * many such entries is as many dependent steps of one block. Gathered
 * by target instead, entry i of column k subtracts L(i, j) U(j, k) over the
 * columns j of row i of L in increasing order: the same operations on each
 * entry in the same order, so the same bits. U(j, k) must be final first,
 * and it is once the entries of lower levels are: L(i, j) != 0 puts column
 * j on a lower level than column i (the levelization's second rule,
 * levelize/levelize_cpu.c). So each tail column's entries above tail_start are
 * visited level by level (runs of one level, in increasing row order), and
 * its entries from tail_start down (which take updates only from j <
 * tail_start) after all of them. */
#include "lu/numeric/numeric_internal.h"

#include <stdlib.h>
#include <string.h>

static int compare_keys(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a > b) - (a < b);
}

void tsi_lu_tail_order_free(tsi_lu_tail_order *order) {
  free(order->order_ptr);
  free(order->order);
  free(order->run_ptr);
  free(order->run_end);
  free(order->split_index);
  free(order->split_cols);
  free(order->launch_ptr);
  free(order->piece_column);
  free(order->piece_first);
  free(order->piece_last);
  memset(order, 0, sizeof *order);
}

/* The pieces of the split columns' runs, a launch per level that has any:
 * a level's entries do not read one another, so its pieces of every split
 * column run at once, and the levels in increasing order keep each entry
 * after its predecessors in the column. One block gathering a rail's column
 * of 10^5 entries alone leaves the rest of the GPU idle. */
static ts_status split_runs(const ts_lu *lu, const int32_t *level_of, int64_t levels, int64_t split_entries,
                            int64_t piece_entries, tsi_lu_tail_order *out) {
  const int32_t *row_idx = lu->lu_row_idx;
  if (piece_entries < 1)
    piece_entries = 1;
  for (int64_t c = 0; c < out->columns; c++)
    if (out->order_ptr[c + 1] - out->order_ptr[c] >= split_entries)
      out->split_columns++;
  if (out->split_columns == 0)
    return TS_SUCCESS;
  int64_t *count = (int64_t *)tsi_calloc_array(levels + 1, sizeof(int64_t));
  out->split_index = (int32_t *)tsi_malloc_array(out->columns, sizeof(int32_t));
  out->split_cols = (int32_t *)tsi_malloc_array(out->split_columns, sizeof(int32_t));
  if (!count || !out->split_index || !out->split_cols) {
    free(count);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for the tail's split columns");
  }
  /* Pieces per level, then their places by a counting sort over the levels. */
  int64_t split = 0;
  for (int64_t c = 0; c < out->columns; c++) {
    out->split_index[c] = -1;
    if (out->order_ptr[c + 1] - out->order_ptr[c] < split_entries)
      continue;
    out->split_index[c] = (int32_t)split;
    out->split_cols[split++] = (int32_t)c;
    int64_t run_begin = out->order_ptr[c];
    for (int64_t r = out->run_ptr[c]; r < out->run_ptr[c + 1]; r++) {
      const int64_t length = out->run_end[r] - run_begin;
      count[level_of[row_idx[out->order[run_begin]]] + 1] += (length + piece_entries - 1) / piece_entries;
      run_begin = out->run_end[r];
    }
  }
  for (int64_t l = 0; l < levels; l++) {
    out->launches += count[l + 1] > 0;
    count[l + 1] += count[l];
  }
  out->pieces = count[levels];
  out->launch_ptr = (int64_t *)tsi_malloc_array(out->launches + 1, sizeof(int64_t));
  out->piece_column = (int32_t *)tsi_malloc_array(out->pieces, sizeof(int32_t));
  out->piece_first = (int64_t *)tsi_malloc_array(out->pieces, sizeof(int64_t));
  out->piece_last = (int64_t *)tsi_malloc_array(out->pieces, sizeof(int64_t));
  if (!out->launch_ptr || !out->piece_column || !out->piece_first || !out->piece_last) {
    free(count);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for %lld pieces of the tail's gather",
                     (long long)out->pieces);
  }
  int64_t launch = 0;
  out->launch_ptr[0] = 0;
  for (int64_t l = 0; l < levels; l++)
    if (count[l + 1] > count[l])
      out->launch_ptr[++launch] = count[l + 1];
  for (int64_t b = 0; b < out->split_columns; b++) {
    const int64_t c = out->split_cols[b];
    int64_t run_begin = out->order_ptr[c];
    for (int64_t r = out->run_ptr[c]; r < out->run_ptr[c + 1]; r++) {
      const int32_t level = level_of[row_idx[out->order[run_begin]]];
      for (int64_t first = run_begin; first < out->run_end[r]; first += piece_entries) {
        const int64_t q = count[level]++;
        out->piece_column[q] = (int32_t)c;
        out->piece_first[q] = first;
        out->piece_last[q] = first + piece_entries < out->run_end[r] ? first + piece_entries : out->run_end[r];
      }
      run_begin = out->run_end[r];
    }
  }
  free(count);
  return TS_SUCCESS;
}

ts_status tsi_lu_tail_gather_order(const ts_lu *lu, int64_t tail_start, const int32_t *level_of, int64_t split_entries,
                                   int64_t piece_entries, tsi_lu_tail_order *out) {
  memset(out, 0, sizeof *out);
  const int64_t n = lu->n, columns = n - tail_start;
  if (columns <= 0)
    return TS_SUCCESS;
  const int64_t *col_ptr = lu->lu_col_ptr;
  const int32_t *row_idx = lu->lu_row_idx;
  int64_t levels = 1;
  for (int64_t j = 0; j < tail_start; j++)
    if (level_of[j] + 1 > levels)
      levels = level_of[j] + 1;
  out->columns = columns;
  out->order_ptr = (int64_t *)tsi_calloc_array(columns + 1, sizeof(int64_t));
  out->run_ptr = (int64_t *)tsi_calloc_array(columns + 1, sizeof(int64_t));
  int64_t *count = (int64_t *)tsi_calloc_array(levels + 1, sizeof(int64_t));
  uint64_t *keys = NULL;
  ts_status st = TS_SUCCESS;
  if (!out->order_ptr || !out->run_ptr || !count) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for the tail's gather order");
    goto done;
  }
  /* Entries above tail_start: the leading rows of each column (rows sorted). */
  for (int64_t c = 0; c < columns; c++) {
    const int64_t k = tail_start + c;
    int64_t p = col_ptr[k];
    while (p < col_ptr[k + 1] && row_idx[p] < tail_start)
      p++;
    out->order_ptr[c + 1] = out->order_ptr[c] + (p - col_ptr[k]);
  }
  const int64_t total = out->order_ptr[columns];
  out->order = (int64_t *)tsi_malloc_array(total > 0 ? total : 1, sizeof(int64_t));
  out->run_end = (int64_t *)tsi_malloc_array(total > 0 ? total : 1, sizeof(int64_t));
  int64_t longest = 0;
  for (int64_t c = 0; c < columns; c++)
    if (out->order_ptr[c + 1] - out->order_ptr[c] > longest)
      longest = out->order_ptr[c + 1] - out->order_ptr[c];
  keys = (uint64_t *)tsi_malloc_array(longest < levels ? (longest > 0 ? longest : 1) : levels, sizeof(uint64_t));
  if (!out->order || !out->run_end || !keys) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                   "LU on the GPU: no memory for the tail's gather order (%lld entries)", (long long)total);
    goto done;
  }
  /* Per column, its entries by level: a sort of (level, offset) keys for a
   * column shorter than the level count, else a stable counting sort over
   * the levels, so that neither costs more than the column's length times
   * its logarithm or the levels. */
  int64_t runs = 0;
  for (int64_t c = 0; c < columns; c++) {
    const int64_t begin = col_ptr[tail_start + c], length = out->order_ptr[c + 1] - out->order_ptr[c];
    int64_t *order = out->order + out->order_ptr[c];
    if (length <= levels) {
      /* Keys (level, offset in the column), sorted: a total order, and the
       * offsets keep rows increasing within a level. */
      for (int64_t e = 0; e < length; e++)
        keys[e] = (uint64_t)level_of[row_idx[begin + e]] << 32 | (uint64_t)e;
      qsort(keys, (size_t)length, sizeof(uint64_t), compare_keys);
      for (int64_t e = 0; e < length; e++)
        order[e] = begin + (int64_t)(keys[e] & 0xffffffffu);
    } else {
      memset(count, 0, (size_t)(levels + 1) * sizeof(int64_t));
      for (int64_t e = 0; e < length; e++)
        count[level_of[row_idx[begin + e]] + 1]++;
      for (int64_t l = 0; l < levels; l++)
        count[l + 1] += count[l];
      for (int64_t e = 0; e < length; e++)
        order[count[level_of[row_idx[begin + e]]]++] = begin + e;
    }
    for (int64_t e = 0; e < length; e++)
      if (e + 1 == length || level_of[row_idx[order[e + 1]]] != level_of[row_idx[order[e]]])
        out->run_end[runs++] = out->order_ptr[c] + e + 1;
    out->run_ptr[c + 1] = runs;
  }
  out->runs = runs;
  if (split_entries > 0)
    st = split_runs(lu, level_of, levels, split_entries, piece_entries, out);
done:
  free(count);
  free(keys);
  if (st != TS_SUCCESS)
    tsi_lu_tail_order_free(out);
  return st;
}
