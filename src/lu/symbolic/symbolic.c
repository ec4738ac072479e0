/* The steps of the symbolic LU factorization of M = P Dr A Dc Q that both
 * backends share: M's pattern, the rows of L + U by the backend's way of
 * finding them (tsi_lu_rows_fn), then, in one sweep on the host, the columns
 * of L + U with sorted rows, the position of each entry of A in them, and
 * the counts and flops. */
#include "lu/symbolic/symbolic_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Rows ahead whose places in A (and in a_to_lu) are prefetched: M's rows
 * are A's in another order, each row's offset and entries a cache miss
 * waited for in turn otherwise. */
#define ROWS_AHEAD INT64_C(8)

/* M's pattern by rows: row i is row row_perm[i] of A with its columns
 * renumbered by the inverse of col_perm. */
static ts_status matched_pattern(ts_lu *lu, const ts_csr *a, int32_t *col_inverse, int64_t **m_ptr, int32_t **m_idx) {
  int64_t n = a->rows;
  for (int64_t k = 0; k < n; k++)
    col_inverse[lu->col_perm[k]] = (int32_t)k;
  int64_t *ptr = tsi_malloc_array(n + 1, sizeof(int64_t));
  int32_t *idx = tsi_malloc_array(a->nnz, sizeof(int32_t));
  if (!ptr || !idx) {
    free(ptr);
    free(idx);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "ts_lu_analyze: cannot allocate the permuted pattern (%lld entries)", (long long)a->nnz);
  }
  ptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i + ROWS_AHEAD < n) /* rows of A in M's order: anywhere in A */
      __builtin_prefetch(&a->row_ptr[lu->row_perm[i + ROWS_AHEAD]]);
    int64_t r = lu->row_perm[i];
    ptr[i + 1] = ptr[i] + (a->row_ptr[r + 1] - a->row_ptr[r]);
  }
  const int threads = tsi_lu_host_threads(lu, TSI_LU_WORK_PASS, (double)a->nnz);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1024) if (threads > 1)
  for (int64_t i = 0; i < n; i++) {
    if (i + ROWS_AHEAD < n)
      __builtin_prefetch(&a->col_idx[a->row_ptr[lu->row_perm[i + ROWS_AHEAD]]]);
    int64_t r = lu->row_perm[i], at = ptr[i];
    for (int64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++)
      idx[at++] = col_inverse[a->col_idx[k]];
  }
  *m_ptr = ptr;
  *m_idx = idx;
  return TS_SUCCESS;
}

/* Where column j's next entry goes, and whether (and where in its row of
 * M) the row being written has M's entry in column j: one record per
 * column, so that each entry of L + U costs one random access, not three
 * (10^6 rows: the columns are far apart). */
typedef struct column_cursor {
  int64_t fill;
  int32_t mark;   /* i + 1 while row i of M has an entry in this column */
  int32_t offset; /* that entry's place in the row of M (and of A) */
} column_cursor;

/* In block form, where each column's own block starts among its sorted
 * rows: the entries before are M's off-diagonal blocks. */
static ts_status find_block_begins(ts_lu *lu) {
  const int64_t n = lu->n;
  free(lu->block_begin);
  lu->block_begin = tsi_malloc_array(n > 0 ? n : 1, sizeof(int64_t));
  if (!lu->block_begin)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the block starts of %lld columns",
                     (long long)n);
  for (int64_t b = 0; b < lu->btf_blocks; b++)
    for (int64_t k = lu->block_ptr[b]; k < lu->block_ptr[b + 1]; k++) {
      int64_t p = lu->lu_col_ptr[k];
      while (lu->lu_row_idx[p] < lu->block_ptr[b])
        p++;
      lu->block_begin[k] = p;
    }
  return TS_SUCCESS;
}

/* The rows of L + U (any order within a row) to columns with sorted rows,
 * in one sweep of the rows in increasing order (a counting sort by column):
 * each entry's place is known as it is written, so the position of each
 * entry of A (in A's CSR order: row i of M is row row_perm[i] of A, entries
 * in the same order) is taken there, M's row marked in the cursors first;
 * and the strict U entries of each row counted for the flops. */
static ts_status rows_to_columns(ts_lu *lu, const ts_csr *a, const tsi_lu_rows *rows) {
  ts_status st = TS_SUCCESS;
  const int64_t *row_ptr = rows->row_ptr, *m_ptr = rows->m_ptr;
  const int32_t *row_idx = rows->row_idx, *m_idx = rows->m_idx;
  int64_t n = lu->n, nnz = row_ptr[n];
  lu->lu_col_ptr = tsi_calloc_array(n + 1, sizeof(int64_t));
  lu->lu_row_idx = tsi_malloc_array(nnz, sizeof(int32_t));
  lu->diag_pos = tsi_malloc_array(n, sizeof(int64_t));
  lu->a_to_lu = tsi_malloc_array(a->nnz, sizeof(int64_t));
  column_cursor *cursor = tsi_malloc_array(n, sizeof(column_cursor));
  int64_t *u_row = tsi_malloc_array(n, sizeof(int64_t));
  if (!lu->lu_col_ptr || !lu->lu_row_idx || !lu->diag_pos || !lu->a_to_lu || !cursor || !u_row) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                   "ts_lu_analyze: cannot allocate the pattern of L + U (%lld entries)", (long long)nnz);
    goto cleanup;
  }
  tsi_lu_advise_huge_pages(lu->lu_row_idx, (size_t)nnz * sizeof(int32_t));
  int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos, *a_to_lu = lu->a_to_lu;
  int32_t *lu_row_idx = lu->lu_row_idx;
  if (rows->col_count)
    memcpy(col_ptr + 1, rows->col_count, (size_t)n * sizeof(int64_t));
  else
    for (int64_t k = 0; k < nnz; k++)
      col_ptr[row_idx[k] + 1]++;
  for (int64_t j = 0; j < n; j++) {
    col_ptr[j + 1] += col_ptr[j];
    cursor[j] = (column_cursor){.fill = col_ptr[j], .mark = 0, .offset = 0};
  }
  const int64_t *block_ptr = lu->block_ptr;
  int64_t block = 0;
  for (int64_t i = 0; i < n; i++) {
    const int32_t row_mark = (int32_t)i + 1;
    /* Row i of M's offset in A, then its place in a_to_lu, ahead. */
    if (i + 2 * ROWS_AHEAD < n)
      __builtin_prefetch(&a->row_ptr[lu->row_perm[i + 2 * ROWS_AHEAD]]);
    if (i + ROWS_AHEAD < n)
      __builtin_prefetch(&a_to_lu[a->row_ptr[lu->row_perm[i + ROWS_AHEAD]]], 1);
    const int64_t a_first = a->row_ptr[lu->row_perm[i]];
    for (int64_t q = m_ptr[i]; q < m_ptr[i + 1]; q++) {
      column_cursor *c = &cursor[m_idx[q]];
      c->mark = row_mark;
      c->offset = (int32_t)(q - m_ptr[i]);
    }
    int64_t upper = 0, found = 0;
    if (block_ptr)
      while (block_ptr[block + 1] <= i)
        block++;
    const int64_t block_end = block_ptr ? block_ptr[block + 1] : n;
    for (int64_t p = row_ptr[i]; p < row_ptr[i + 1]; p++) {
      int32_t j = row_idx[p];
      column_cursor *c = &cursor[j];
      int64_t at = c->fill++;
      lu_row_idx[at] = (int32_t)i;
      upper += j > i && j < block_end; /* the entries the elimination updates */
      if (j == i)
        diag_pos[j] = at;
      if (c->mark == row_mark) {
        a_to_lu[a_first + c->offset] = at;
        found++;
      }
    }
    u_row[i] = upper;
    if (found != m_ptr[i + 1] - m_ptr[i]) {
      /* Name the first entry of A's row missing from the row of L + U. */
      int64_t missing = a_first;
      for (int64_t q = m_ptr[i]; q < m_ptr[i + 1]; q++) {
        int64_t p = row_ptr[i];
        while (p < row_ptr[i + 1] && row_idx[p] != m_idx[q])
          p++;
        if (p == row_ptr[i + 1]) {
          missing = a_first + (q - m_ptr[i]);
          break;
        }
      }
      st = tsi_error(lu->ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: entry %lld of A is missing from the pattern of L + U",
                     (long long)missing);
      goto cleanup;
    }
  }
  lu->lu_nnz = nnz;
  if (block_ptr) {
    st = find_block_begins(lu);
    if (st != TS_SUCCESS)
      goto cleanup;
  }

  /* nnz(L) (unit diagonal counted), nnz(U) (diagonal included) and the
   * flops of a right-looking numeric factorization in this pattern: column
   * j does |L(:, j)| divisions and 2 |L(:, j)| |U(j, :)| multiply-adds
   * (strict parts). */
  int64_t strict_lower = 0;
  double flops = 0.0;
  for (int64_t j = 0; j < n; j++) {
    int64_t below = col_ptr[j + 1] - diag_pos[j] - 1;
    strict_lower += below;
    flops += (double)below + 2.0 * (double)below * (double)u_row[j];
  }
  lu->stats.nnz_l = strict_lower + n;
  lu->stats.nnz_u = nnz - strict_lower;
  lu->stats.flops = flops;
cleanup:
  free(cursor);
  free(u_row);
  return st;
}

ts_status tsi_lu_symbolic_with(ts_lu *lu, const ts_csr *a, tsi_lu_rows_fn find_rows) {
  ts_status st = TS_SUCCESS;
  int64_t n = a->rows;
  tsi_lu_rows rows = {n, NULL, NULL, NULL, NULL, NULL};
  int32_t *col_inverse = tsi_malloc_array(n, sizeof(int32_t));
  if (!col_inverse) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the symbolic phase's arrays");
    goto cleanup;
  }
  st = matched_pattern(lu, a, col_inverse, &rows.m_ptr, &rows.m_idx);
  if (st != TS_SUCCESS)
    goto cleanup;
  st = find_rows(lu, &rows);
  if (st != TS_SUCCESS)
    goto cleanup;
  st = rows_to_columns(lu, a, &rows);
cleanup:
  free(col_inverse);
  free(rows.m_ptr);
  free(rows.m_idx);
  free(rows.row_ptr);
  free(rows.row_idx);
  free(rows.col_count);
  return st;
}

ts_status tsi_lu_symbolic_given_rows(ts_lu *lu, const ts_csr *a, int64_t *row_ptr, int32_t *row_idx,
                                     int64_t *col_count) {
  int64_t n = a->rows;
  tsi_lu_rows rows = {n, NULL, NULL, row_ptr, row_idx, col_count};
  int32_t *col_inverse = tsi_malloc_array(n, sizeof(int32_t));
  ts_status st = col_inverse ? matched_pattern(lu, a, col_inverse, &rows.m_ptr, &rows.m_idx)
                             : tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                                         "ts_lu_analyze: cannot allocate the symbolic phase's arrays");
  if (st == TS_SUCCESS)
    st = rows_to_columns(lu, a, &rows);
  free(col_inverse);
  free(rows.m_ptr);
  free(rows.m_idx);
  free(row_ptr);
  free(row_idx);
  free(col_count);
  return st;
}
