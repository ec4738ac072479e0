/* Levels of the column dependency graph of the numeric factorization
 * (Xia, Jiang, Agrawal and Ramnath, PPoPP 2023, section 3.3): column k
 * depends on column j < k when U(j, k) != 0 or L(k, j) != 0. The levels are
 * those of Kahn's topological sort taken one level at a time (Kahn, CACM
 * 5(11), 1962): a column joins the level after the last of the columns it
 * depends on, i.e. its level is the length of the longest dependency path
 * ending at it. Every dependency goes from a lower column to a higher one,
 * so one sweep over the columns in increasing order finds those lengths
 * (the longest path of a DAG in topological order): column k pulls from
 * U(:, k) and pushes along L(:, k); a counting sort by level then lists each
 * level's columns in increasing order. One pass over L + U and no
 * transpose of U, instead of the queue's three. */
#include "lu/levelize/levelize_internal.h"

#include <stdlib.h>

/* Why both rules: a left-looking column k reads the finished columns j with
 * U(j, k) != 0 only, so the first rule suffices for it; GLU 3.0 added the
 * second for its right-looking updates, where column j updates column k
 * through L(k, j). Levels honouring both are safe for either numeric
 * scheme, at the price of a few more levels. */

ts_status tsi_lu_levelize_cpu(ts_lu *lu) {
  ts_status st = TS_SUCCESS;
  int64_t n = lu->n;
  const int64_t *col_ptr = lu->lu_col_ptr, *diag = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  int32_t *level = tsi_calloc_array(n, sizeof(int32_t));
  int64_t *level_ptr = tsi_calloc_array(n + 1, sizeof(int64_t));
  int32_t *level_cols = tsi_malloc_array(n, sizeof(int32_t));
  if (!level || !level_ptr || !level_cols) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the levels of %lld columns",
                   (long long)n);
    goto cleanup;
  }

  /* Longest paths: by the time column k is reached, every column it depends
   * on has its final level and has pushed it along L. */
  int32_t deepest = -1;
  for (int64_t k = 0; k < n; k++) {
    int32_t at = level[k];
    /* With the diagonal blocks factored alone, the entries above a column's
     * block are M's, which no column updates: no dependency. */
    for (int64_t p = lu->block_begin ? lu->block_begin[k] : col_ptr[k]; p < diag[k]; p++) {
      int32_t above = level[row_idx[p]] + 1;
      at = above > at ? above : at;
    }
    level[k] = at;
    if (at > deepest)
      deepest = at;
    const int32_t next = at + 1;
    for (int64_t p = diag[k] + 1; p < col_ptr[k + 1]; p++)
      if (level[row_idx[p]] < next)
        level[row_idx[p]] = next;
  }

  /* Counting sort by level, stable: each level's columns come in order. */
  int64_t levels = (int64_t)deepest + 1, widest = 0;
  for (int64_t k = 0; k < n; k++)
    level_ptr[level[k] + 1]++;
  for (int64_t l = 0; l < levels; l++) {
    if (level_ptr[l + 1] > widest)
      widest = level_ptr[l + 1];
    level_ptr[l + 1] += level_ptr[l];
  }
  /* level_ptr[l] walks level l's places, then shifts back to its start. */
  for (int64_t k = 0; k < n; k++)
    level_cols[level_ptr[level[k]]++] = (int32_t)k;
  for (int64_t l = levels; l > 0; l--)
    level_ptr[l] = level_ptr[l - 1];
  level_ptr[0] = 0;

  lu->levels = levels;
  lu->level_ptr = level_ptr;
  lu->level_cols = level_cols;
  level_ptr = NULL;
  level_cols = NULL;
  lu->stats.levels = levels;
  lu->stats.max_level_size = widest;
cleanup:
  free(level);
  free(level_ptr);
  free(level_cols);
  return st;
}
