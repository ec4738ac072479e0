/* Levels of the column dependency graph of the numeric factorization, by
 * Kahn's topological sort taken one level at a time (Kahn, CACM 5(11), 1962;
 * Xia, Jiang, Agrawal and Ramnath, PPoPP 2023, section 3.3): column k
 * depends on column j < k when U(j, k) != 0 or L(k, j) != 0. */
#include "lu_analysis.h"

#include <stdlib.h>

/* Why both rules: a left-looking column k reads the finished columns j with
 * U(j, k) != 0 only, so the first rule suffices for it; GLU 3.0 added the
 * second for its right-looking updates, where column j updates column k
 * through L(k, j). Levels honouring both are safe for either numeric
 * scheme, at the price of a few more levels. */

static int compare_columns(const void *left, const void *right) {
  int32_t a = *(const int32_t *)left, b = *(const int32_t *)right;
  return (a > b) - (a < b);
}

ts_status tsi_lu_levelize_cpu(ts_lu *lu) {
  ts_status st = TS_SUCCESS;
  int64_t n = lu->n;
  const int64_t *col_ptr = lu->lu_col_ptr, *diag = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  int64_t *in_degree = tsi_calloc_array(n, sizeof(int64_t));
  int64_t *u_row_ptr = tsi_calloc_array(n + 1, sizeof(int64_t));
  int64_t *fill = tsi_malloc_array(n, sizeof(int64_t));
  int64_t *level_ptr = tsi_malloc_array(n + 1, sizeof(int64_t));
  int32_t *level_cols = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *u_col_idx = NULL;
  if (!in_degree || !u_row_ptr || !fill || !level_ptr || !level_cols)
    goto out_of_memory;

  /* U's strict upper part by rows (the out-edges of the first rule). */
  for (int64_t k = 0; k < n; k++)
    for (int64_t p = col_ptr[k]; p < diag[k]; p++)
      u_row_ptr[row_idx[p] + 1]++;
  for (int64_t j = 0; j < n; j++)
    u_row_ptr[j + 1] += u_row_ptr[j];
  u_col_idx = tsi_malloc_array(u_row_ptr[n], sizeof(int32_t));
  if (!u_col_idx)
    goto out_of_memory;
  for (int64_t j = 0; j < n; j++)
    fill[j] = u_row_ptr[j];
  for (int64_t k = 0; k < n; k++)
    for (int64_t p = col_ptr[k]; p < diag[k]; p++)
      u_col_idx[fill[row_idx[p]]++] = (int32_t)k;

  /* In-degrees: U(j, k) above the diagonal of column k, L(k, j) below the
   * diagonal of column j (an edge found by both rules counts twice and is
   * removed twice). */
  for (int64_t k = 0; k < n; k++) {
    in_degree[k] += diag[k] - col_ptr[k];
    for (int64_t p = diag[k] + 1; p < col_ptr[k + 1]; p++)
      in_degree[row_idx[p]]++;
  }

  int64_t placed = 0, levels = 0, widest = 0;
  for (int64_t k = 0; k < n; k++)
    if (in_degree[k] == 0)
      level_cols[placed++] = (int32_t)k;
  level_ptr[0] = 0;
  int64_t begin = 0;
  while (begin < placed) {
    int64_t end = placed;
    levels++;
    level_ptr[levels] = end;
    if (end - begin > widest)
      widest = end - begin;
    for (int64_t s = begin; s < end; s++) {
      int32_t j = level_cols[s];
      for (int64_t p = diag[j] + 1; p < col_ptr[j + 1]; p++)
        if (--in_degree[row_idx[p]] == 0)
          level_cols[placed++] = row_idx[p];
      for (int64_t p = u_row_ptr[j]; p < u_row_ptr[j + 1]; p++)
        if (--in_degree[u_col_idx[p]] == 0)
          level_cols[placed++] = u_col_idx[p];
    }
    /* Columns of a level in increasing order (level 0 already is). */
    qsort(level_cols + end, (size_t)(placed - end), sizeof(int32_t), compare_columns);
    begin = end;
  }
  if (placed != n) {
    st = tsi_error(lu->ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: %lld of %lld columns left out of the levels",
                   (long long)(n - placed), (long long)n);
    goto cleanup;
  }
  lu->levels = levels;
  lu->level_ptr = level_ptr;
  lu->level_cols = level_cols;
  level_ptr = NULL;
  level_cols = NULL;
  lu->stats.levels = levels;
  lu->stats.max_level_size = widest;
  goto cleanup;
out_of_memory:
  st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the levels of %lld columns",
                 (long long)n);
cleanup:
  free(in_degree);
  free(u_row_ptr);
  free(fill);
  free(level_ptr);
  free(level_cols);
  free(u_col_idx);
  return st;
}
