/* Helpers of the LU analysis tests: small matrices built from dense arrays
 * or at random, M = P Dr A Dc Q rebuilt from an analysis, and a dense
 * boolean elimination as the symbolic reference. */
#ifndef TESSERA_TEST_LU_ANALYSIS_COMMON_H
#define TESSERA_TEST_LU_ANALYSIS_COMMON_H

#include "test_common.h"
#include "test_lu_orderings.h"

#include "lu/lu_internal.h"

/* CSR of the n x n dense array `dense` (row-major); present[i*n+j] says
 * which entries are stored (NULL: the nonzeros), so explicit zeros can be kept. */
static inline ts_csr *csr_from_dense(int64_t n, const double *dense, const unsigned char *present) {
  int64_t nnz = 0;
  for (int64_t k = 0; k < n * n; k++)
    nnz += present ? present[k] != 0 : dense[k] != 0.0;
  ts_csr *a = NULL;
  if (ts_csr_create(NULL, n, n, nnz, TS_FLOAT64, &a) != TS_SUCCESS)
    return NULL;
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t j = 0; j < n; j++)
      if (present ? present[i * n + j] != 0 : dense[i * n + j] != 0.0) {
        a->col_idx[at] = (int32_t)j;
        ((double *)a->values)[at++] = dense[i * n + j];
      }
    a->row_ptr[i + 1] = at;
  }
  return a;
}

/* Random n x n matrix with about `density` of its entries stored (values
 * of magnitude in [0.5^8, 1] times a random power of ten so the matching has
 * work to do) and, when `diagonal`, the whole diagonal stored too. */
static inline ts_csr *random_matrix(int64_t n, double density, int diagonal, unsigned long long *state) {
  double *dense = calloc((size_t)(n * n > 0 ? n * n : 1), sizeof(double));
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      if ((diagonal && i == j) || 0.5 * (test_random(state) + 1.0) < density) {
        double magnitude = 0.1 + 0.9 * 0.5 * (test_random(state) + 1.0);
        double scale = pow(10.0, floor(4.0 * test_random(state)));
        dense[i * n + j] = (test_random(state) < 0 ? -1.0 : 1.0) * magnitude * scale;
      }
  ts_csr *a = csr_from_dense(n, dense, NULL);
  free(dense);
  return a;
}

/* Dense boolean pattern of M (row i = A's row row_perm[i], columns by the
 * inverse of col_perm), n * n bytes. */
static inline unsigned char *matched_dense_pattern(const ts_lu *lu, const ts_csr *a) {
  int64_t n = a->rows;
  unsigned char *m = calloc((size_t)(n * n > 0 ? n * n : 1), 1);
  int64_t *col_inverse = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  for (int64_t j = 0; j < n; j++)
    col_inverse[lu->col_perm[j]] = j;
  for (int64_t i = 0; i < n; i++) {
    int64_t r = lu->row_perm[i];
    for (int64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++)
      m[i * n + col_inverse[a->col_idx[k]]] = 1;
  }
  free(col_inverse);
  return m;
}

/* Boolean Gaussian elimination without pivoting, in place: the pattern of
 * L + U (the diagonal is set, as the factorization always stores it). */
static inline void dense_symbolic(unsigned char *m, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    m[k * n + k] = 1;
    for (int64_t i = k + 1; i < n; i++) {
      if (!m[i * n + k])
        continue;
      for (int64_t j = k + 1; j < n; j++)
        if (m[k * n + j])
          m[i * n + j] = 1;
    }
  }
}

/* The pattern lu's analysis should have found, from M's dense pattern m:
 * L + U of M (dense_symbolic), or, with the diagonal blocks factored alone
 * (lu->block_ptr), each block's L + U and M's entries above the blocks as
 * they are (an elimination that updates no column beyond the pivot's
 * block). */
static inline void dense_symbolic_of(const ts_lu *lu, unsigned char *m) {
  const int64_t n = lu->n;
  if (!lu->block_ptr) {
    dense_symbolic(m, n);
    return;
  }
  int64_t block = 0;
  for (int64_t k = 0; k < n; k++) {
    while (lu->block_ptr[block + 1] <= k)
      block++;
    const int64_t end = lu->block_ptr[block + 1];
    m[k * n + k] = 1;
    for (int64_t i = k + 1; i < n; i++) {
      if (!m[i * n + k])
        continue;
      for (int64_t j = k + 1; j < end; j++)
        if (m[k * n + j])
          m[i * n + j] = 1;
    }
  }
}

/* Is lu's L + U pattern (by columns) exactly `dense` (row-major)? Also checks
 * sorted rows and diag_pos; returns the number of differences. */
static inline int64_t compare_pattern(const ts_lu *lu, const unsigned char *dense) {
  int64_t n = lu->n, differences = 0, count = 0;
  unsigned char *seen = calloc((size_t)(n * n > 0 ? n * n : 1), 1);
  for (int64_t j = 0; j < n; j++) {
    for (int64_t p = lu->lu_col_ptr[j]; p < lu->lu_col_ptr[j + 1]; p++) {
      int64_t i = lu->lu_row_idx[p];
      if (i < 0 || i >= n || (p > lu->lu_col_ptr[j] && lu->lu_row_idx[p - 1] >= i)) {
        differences++;
        continue;
      }
      seen[i * n + j] = 1;
      count++;
    }
    if (lu->diag_pos[j] < lu->lu_col_ptr[j] || lu->diag_pos[j] >= lu->lu_col_ptr[j + 1] ||
        lu->lu_row_idx[lu->diag_pos[j]] != j)
      differences++;
  }
  for (int64_t k = 0; k < n * n; k++)
    differences += seen[k] != dense[k];
  if (count != lu->lu_nnz)
    differences++;
  free(seen);
  return differences;
}

#endif
