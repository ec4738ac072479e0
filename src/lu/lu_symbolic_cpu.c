/* Symbolic LU factorization of M = P Dr A Dc Q without pivoting: M's
 * pattern, the rows of L + U (lu_symbolic_row_merge_cpu.c, or the fill-path
 * traversal of lu_symbolic_fill_path_cpu.c when lu->symbolic_fill_path is
 * set), then the columns of L + U with sorted rows, the position of each
 * entry of A in them, and the counts and flops. */
#include "lu_symbolic.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

int tsi_lu_symbolic_threads(const ts_lu *lu) {
  int threads = lu->ctx ? lu->ctx->num_threads : 0;
#ifdef _OPENMP
  if (threads <= 0)
    threads = omp_get_max_threads();
#else
  threads = 1;
#endif
  return threads > 0 ? threads : 1;
}

int64_t tsi_lu_symbolic_budget(const ts_lu *lu, int64_t largest_slot_words, int threads) {
  int64_t budget = lu->options.symbolic_memory_budget;
  if (budget > 0)
    return budget;
  if (tsi_mul_overflows((int64_t)TSI_LU_SYMBOLIC_ROWS_PER_THREAD * threads,
                        largest_slot_words * (int64_t)sizeof(int32_t), &budget) ||
      budget > TSI_LU_SYMBOLIC_DEFAULT_CAP)
    budget = TSI_LU_SYMBOLIC_DEFAULT_CAP;
  return budget;
}

int64_t tsi_lu_symbolic_chunk_rows(int64_t budget, int64_t words, int64_t rows) {
  int64_t bytes_per_row = words * (int64_t)sizeof(int32_t);
  int64_t chunk = bytes_per_row > 0 ? budget / bytes_per_row : 1;
  if (chunk < 1)
    chunk = 1;
  if (chunk > rows)
    chunk = rows > 0 ? rows : 1;
  return chunk;
}

/* M's pattern by rows: row i is row row_perm[i] of A with its columns
 * renumbered by the inverse of col_perm. */
static ts_status matched_pattern(ts_lu *lu, const ts_csr *a, int32_t *col_inverse, int32_t *row_inverse,
                                 int64_t **m_ptr, int32_t **m_idx) {
  int64_t n = a->rows;
  for (int64_t k = 0; k < n; k++) {
    col_inverse[lu->col_perm[k]] = (int32_t)k;
    row_inverse[lu->row_perm[k]] = (int32_t)k;
  }
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
    int64_t r = lu->row_perm[i];
    ptr[i + 1] = ptr[i] + (a->row_ptr[r + 1] - a->row_ptr[r]);
  }
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = 0; i < n; i++) {
    int64_t r = lu->row_perm[i], at = ptr[i];
    for (int64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++)
      idx[at++] = col_inverse[a->col_idx[k]];
  }
  *m_ptr = ptr;
  *m_idx = idx;
  return TS_SUCCESS;
}

/* The rows of L + U (any order within a row) to columns with sorted rows:
 * a counting sort by column visits the rows in increasing order. */
static ts_status rows_to_columns(ts_lu *lu, const int64_t *row_ptr, const int32_t *row_idx) {
  int64_t n = lu->n, nnz = row_ptr[n];
  lu->lu_col_ptr = tsi_calloc_array(n + 1, sizeof(int64_t));
  lu->lu_row_idx = tsi_malloc_array(nnz, sizeof(int32_t));
  lu->diag_pos = tsi_malloc_array(n, sizeof(int64_t));
  int64_t *fill = tsi_malloc_array(n, sizeof(int64_t));
  if (!lu->lu_col_ptr || !lu->lu_row_idx || !lu->diag_pos || !fill) {
    free(fill);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "ts_lu_analyze: cannot allocate the pattern of L + U (%lld entries)", (long long)nnz);
  }
  for (int64_t k = 0; k < nnz; k++)
    lu->lu_col_ptr[row_idx[k] + 1]++;
  for (int64_t j = 0; j < n; j++)
    lu->lu_col_ptr[j + 1] += lu->lu_col_ptr[j];
  memcpy(fill, lu->lu_col_ptr, (size_t)n * sizeof(int64_t));
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
      int32_t j = row_idx[k];
      if (j == i)
        lu->diag_pos[j] = fill[j];
      lu->lu_row_idx[fill[j]++] = (int32_t)i;
    }
  free(fill);
  lu->lu_nnz = nnz;
  return TS_SUCCESS;
}

/* Position in lu_row_idx of each entry of A (in A's CSR order). */
static ts_status map_entries(ts_lu *lu, const ts_csr *a, const int32_t *col_inverse, const int32_t *row_inverse) {
  lu->a_to_lu = tsi_malloc_array(a->nnz, sizeof(int64_t));
  if (!lu->a_to_lu)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the entry map (%lld entries)",
                     (long long)a->nnz);
  int64_t missing = -1;
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t r = 0; r < a->rows; r++) {
    int32_t i = row_inverse[r];
    for (int64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++) {
      int32_t j = col_inverse[a->col_idx[k]];
      int64_t low = lu->lu_col_ptr[j], high = lu->lu_col_ptr[j + 1];
      while (low < high) {
        int64_t mid = low + (high - low) / 2;
        if (lu->lu_row_idx[mid] < i)
          low = mid + 1;
        else
          high = mid;
      }
      if (low < lu->lu_col_ptr[j + 1] && lu->lu_row_idx[low] == i) {
        lu->a_to_lu[k] = low;
      } else {
        lu->a_to_lu[k] = -1;
#pragma omp atomic write
        missing = k;
      }
    }
  }
  if (missing >= 0)
    return tsi_error(lu->ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: entry %lld of A is missing from the pattern of L + U",
                     (long long)missing);
  return TS_SUCCESS;
}

/* nnz(L) (unit diagonal counted), nnz(U) (diagonal included) and the flops
 * of a right-looking numeric factorization in this pattern: column j does
 * |L(:, j)| divisions and 2 |L(:, j)| |U(j, :)| multiply-adds (strict parts). */
static ts_status count_factors(ts_lu *lu) {
  int64_t n = lu->n, strict_lower = 0;
  int64_t *u_row = tsi_calloc_array(n, sizeof(int64_t));
  if (!u_row)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the row counts of U");
  for (int64_t j = 0; j < n; j++)
    for (int64_t k = lu->lu_col_ptr[j]; k < lu->diag_pos[j]; k++)
      u_row[lu->lu_row_idx[k]]++;
  double flops = 0.0;
  for (int64_t j = 0; j < n; j++) {
    int64_t below = lu->lu_col_ptr[j + 1] - lu->diag_pos[j] - 1;
    strict_lower += below;
    flops += (double)below + 2.0 * (double)below * (double)u_row[j];
  }
  free(u_row);
  lu->stats.nnz_l = strict_lower + n;
  lu->stats.nnz_u = lu->lu_nnz - strict_lower;
  lu->stats.flops = flops;
  return TS_SUCCESS;
}

ts_status tsi_lu_symbolic_cpu(ts_lu *lu, const ts_csr *a) {
  return tsi_lu_symbolic_with(lu, a,
                              lu->symbolic_fill_path ? tsi_lu_symbolic_fill_path_rows : tsi_lu_symbolic_row_merge_rows);
}

ts_status tsi_lu_symbolic_with(ts_lu *lu, const ts_csr *a, tsi_lu_rows_fn find_rows) {
  ts_status st = TS_SUCCESS;
  int64_t n = a->rows;
  tsi_lu_rows rows = {n, NULL, NULL, NULL, NULL};
  int32_t *col_inverse = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *row_inverse = tsi_malloc_array(n, sizeof(int32_t));
  if (!col_inverse || !row_inverse) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the symbolic phase's arrays");
    goto cleanup;
  }
  st = matched_pattern(lu, a, col_inverse, row_inverse, &rows.m_ptr, &rows.m_idx);
  if (st != TS_SUCCESS)
    goto cleanup;
  st = find_rows(lu, &rows);
  if (st != TS_SUCCESS)
    goto cleanup;
  /* The rows are not needed past the columns: free M first. */
  free(rows.m_ptr);
  free(rows.m_idx);
  rows.m_ptr = NULL;
  rows.m_idx = NULL;
  st = rows_to_columns(lu, rows.row_ptr, rows.row_idx);
  if (st == TS_SUCCESS)
    st = map_entries(lu, a, col_inverse, row_inverse);
  if (st == TS_SUCCESS)
    st = count_factors(lu);
cleanup:
  free(col_inverse);
  free(row_inverse);
  free(rows.m_ptr);
  free(rows.m_idx);
  free(rows.row_ptr);
  free(rows.row_idx);
  return st;
}
