/* Generated matrices that are singular in exact arithmetic but structurally
 * full (a perfect matching exists), for the singularity policy's tests on
 * both paths:
 * - lu_test_duplicated_row: row j is row i times a factor;
 * - lu_test_zero_schur: [B C; D D B^{-1} C], whose Schur complement is zero
 *   once B is eliminated (B diagonal of powers of 2, so that it is exactly
 *   zero in floating point too);
 * - lu_test_row_sum: row k is the sum of rows i and j (small integers:
 *   exact cancellation);
 * each under a random symmetric permutation, and optionally with rows and
 * columns scaled by factors that are not powers of 2 (then the cancellation
 * is exact only in exact arithmetic). */
#ifndef TESSERA_TEST_LU_RANK_DEFICIENT_H
#define TESSERA_TEST_LU_RANK_DEFICIENT_H

#include "test_lu_numeric_common.h"

/* Triplets being built. */
typedef struct lu_test_triplets {
  int64_t count, capacity;
  int32_t *rows, *cols;
  double *values;
} lu_test_triplets;

static inline void lu_test_triplet(lu_test_triplets *t, int64_t i, int64_t j, double v) {
  if (t->count == t->capacity) {
    t->capacity = t->capacity ? 2 * t->capacity : 256;
    t->rows = realloc(t->rows, (size_t)t->capacity * sizeof *t->rows);
    t->cols = realloc(t->cols, (size_t)t->capacity * sizeof *t->cols);
    t->values = realloc(t->values, (size_t)t->capacity * sizeof *t->values);
  }
  t->rows[t->count] = (int32_t)i;
  t->cols[t->count] = (int32_t)j;
  t->values[t->count++] = v;
}

/* A small integer in [1, 9] or its negative. */
static inline double lu_test_small_integer(unsigned long long *state) {
  double v = floor((test_random(state) + 1.0) * 4.5) + 1.0;
  return test_random(state) < 0.0 ? -v : v;
}

/* The triplets as a CSR matrix under a random symmetric permutation, rows and
 * columns scaled by 10^u (u uniform in [-2, 2]) when scaled is set; the
 * triplets are freed. */
static inline ts_csr *lu_test_finish(ts_context *ctx, int64_t n, lu_test_triplets *t, int scaled,
                                     unsigned long long *state) {
  int32_t *perm = malloc((size_t)n * sizeof *perm);
  double *row_factor = malloc((size_t)n * sizeof *row_factor), *col_factor = malloc((size_t)n * sizeof *col_factor);
  ts_csr *a = NULL;
  if (perm && row_factor && col_factor && t->rows) {
    for (int64_t i = 0; i < n; i++) {
      perm[i] = (int32_t)i;
      row_factor[i] = scaled ? pow(10.0, 2.0 * test_random(state)) : 1.0;
      col_factor[i] = scaled ? pow(10.0, 2.0 * test_random(state)) : 1.0;
    }
    for (int64_t i = n - 1; i > 0; i--) {
      int64_t j = (int64_t)((test_random(state) + 1.0) * 0.5 * (double)(i + 1));
      j = j > i ? i : j;
      int32_t swap = perm[i];
      perm[i] = perm[j];
      perm[j] = swap;
    }
    for (int64_t k = 0; k < t->count; k++) {
      t->values[k] *= row_factor[t->rows[k]] * col_factor[t->cols[k]];
      t->rows[k] = perm[t->rows[k]];
      t->cols[k] = perm[t->cols[k]];
    }
    a = lu_test_csr(ctx, n, t->count, t->rows, t->cols, t->values);
  }
  free(perm);
  free(row_factor);
  free(col_factor);
  free(t->rows);
  free(t->cols);
  free(t->values);
  memset(t, 0, sizeof *t);
  return a;
}

/* A random sparse row i of a nonsingular base: a diagonal entry and about
 * three more, small integers, a dominant diagonal. */
static inline void lu_test_base_row(lu_test_triplets *t, int64_t n, int64_t i, int64_t row, unsigned long long *state) {
  double sum = 0.0;
  for (int k = 0; k < 3; k++) {
    int64_t j = (int64_t)((test_random(state) + 1.0) * 0.5 * (double)n);
    j = j >= n ? n - 1 : j;
    if (j == i)
      continue;
    double v = lu_test_small_integer(state);
    lu_test_triplet(t, row, j, v);
    sum += fabs(v);
  }
  lu_test_triplet(t, row, i, sum + 1.0);
}

/* n x n: a dominant base whose row `copy` is `factor` times row `source`
 * (plus, so that the matching still finds a perfect one, the copied row's
 * pattern widened by an entry in column `copy` of row `source` too). */
static inline ts_csr *lu_test_duplicated_row(ts_context *ctx, int64_t n, double factor, int scaled,
                                             unsigned long long seed) {
  unsigned long long state = seed;
  lu_test_triplets t = {0};
  const int64_t source = n / 3, copy = (2 * n) / 3;
  lu_test_triplets row = {0};
  for (int64_t i = 0; i < n; i++) {
    if (i == copy)
      continue;
    if (i == source) {
      lu_test_base_row(&row, n, i, i, &state);
      lu_test_triplet(&row, i, copy, lu_test_small_integer(&state));
      for (int64_t k = 0; k < row.count; k++) {
        lu_test_triplet(&t, source, row.cols[k], row.values[k]);
        lu_test_triplet(&t, copy, row.cols[k], factor * row.values[k]);
      }
    } else {
      lu_test_base_row(&t, n, i, i, &state);
    }
  }
  free(row.rows);
  free(row.cols);
  free(row.values);
  return lu_test_finish(ctx, n, &t, scaled, &state);
}

/* (n + m) x (n + m): [B C; D S] with B = diag(2^k), C and D sparse small
 * integers with nonzero diagonals, S = D B^{-1} C exactly: rank n. */
static inline ts_csr *lu_test_zero_schur(ts_context *ctx, int64_t n, int64_t m, int scaled, unsigned long long seed) {
  unsigned long long state = seed;
  lu_test_triplets t = {0};
  double *b = malloc((size_t)n * sizeof *b);
  double *c = calloc((size_t)(n * m), sizeof *c), *d = calloc((size_t)(m * n), sizeof *d);
  if (!b || !c || !d) {
    free(b);
    free(c);
    free(d);
    return NULL;
  }
  for (int64_t i = 0; i < n; i++) {
    b[i] = ldexp(1.0, (int)((test_random(&state) + 1.0) * 3.0) - 3);
    lu_test_triplet(&t, i, i, b[i]);
  }
  /* C: n x m and D: m x n, each column of C and row of D with a few entries,
   * C(j, j) and D(j, j) set so that S has a diagonal. */
  for (int64_t j = 0; j < m; j++) {
    c[j * m + j] = lu_test_small_integer(&state);
    d[j * n + j] = lu_test_small_integer(&state);
    for (int k = 0; k < 2; k++) {
      int64_t i = (int64_t)((test_random(&state) + 1.0) * 0.5 * (double)n);
      i = i >= n ? n - 1 : i;
      c[i * m + j] = lu_test_small_integer(&state);
      d[j * n + i] = lu_test_small_integer(&state);
    }
  }
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < m; j++) {
      if (c[i * m + j] != 0.0)
        lu_test_triplet(&t, i, n + j, c[i * m + j]);
      if (d[j * n + i] != 0.0)
        lu_test_triplet(&t, n + j, i, d[j * n + i]);
    }
  for (int64_t r = 0; r < m; r++)
    for (int64_t s = 0; s < m; s++) {
      double sum = 0.0;
      for (int64_t i = 0; i < n; i++)
        sum += d[r * n + i] * c[i * m + s] / b[i]; /* exact: integers over powers of 2 */
      if (sum != 0.0)
        lu_test_triplet(&t, n + r, n + s, sum);
    }
  free(b);
  free(c);
  free(d);
  return lu_test_finish(ctx, n + m, &t, scaled, &state);
}

/* n x n: a dominant base whose row k is the sum of rows i and j. */
static inline ts_csr *lu_test_row_sum(ts_context *ctx, int64_t n, int scaled, unsigned long long seed) {
  unsigned long long state = seed;
  lu_test_triplets t = {0}, rows = {0};
  const int64_t i = n / 4, j = n / 2, k = (3 * n) / 4;
  for (int64_t r = 0; r < n; r++) {
    if (r == k)
      continue;
    if (r == i || r == j) {
      int64_t first = rows.count;
      lu_test_base_row(&rows, n, r, r, &state);
      if (r == i)
        lu_test_triplet(&rows, r, k, lu_test_small_integer(&state)); /* the sum's row reaches its diagonal */
      for (int64_t e = first; e < rows.count; e++)
        lu_test_triplet(&t, r, rows.cols[e], rows.values[e]);
    } else {
      lu_test_base_row(&t, n, r, r, &state);
    }
  }
  for (int64_t e = 0; e < rows.count; e++) /* duplicates summed by the CSR conversion */
    lu_test_triplet(&t, k, rows.cols[e], rows.values[e]);
  free(rows.rows);
  free(rows.cols);
  free(rows.values);
  return lu_test_finish(ctx, n, &t, scaled, &state);
}

#endif
