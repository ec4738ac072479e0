/* Helpers of the LU numeric tests: matrices built from triplets, random
 * sparse matrices, a dense LU with partial pivoting in double (the
 * reference), and the normwise backward error. */
#ifndef TESSERA_TEST_LU_NUMERIC_COMMON_H
#define TESSERA_TEST_LU_NUMERIC_COMMON_H

#include "test_common.h"
#include "test_lu_orderings.h"

#include <stdint.h>

/* An LU of a with the default options but no matching (the values' own
 * pivots), analysed and factored; each step checked. */
static inline ts_lu *lu_test_factor_unmatched(ts_context *ctx, const ts_csr *a) {
  ts_lu_options options = lu_test_options();
  options.no_matching = 1;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  return lu;
}

/* A general double CSR matrix from triplets (duplicates summed). */
static inline ts_csr *lu_test_csr(ts_context *ctx, int64_t n, int64_t count, const int32_t *rows, const int32_t *cols,
                                  const double *values) {
  ts_coo *coo = NULL;
  ts_csr *csr = NULL;
  if (ts_coo_create(ctx, n, n, count > 0 ? count : 1, TS_FLOAT64, &coo) != TS_SUCCESS)
    return NULL;
  for (int64_t k = 0; k < count; k++) {
    coo->row_idx[k] = rows[k];
    coo->col_idx[k] = cols[k];
    ((double *)coo->values)[k] = values[k];
  }
  coo->nnz = count;
  if (ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr) != TS_SUCCESS)
    csr = NULL;
  ts_coo_destroy(coo);
  return csr;
}

/*
 * A random n x n matrix with about per_row off-diagonal entries per row,
 * values in [-1, 1). With dominant set, the diagonal is 1 + the row's sum of
 * |off-diagonal| (strictly diagonally dominant); otherwise the diagonal is a
 * random value in [-1, 1) too, and the matrix is made nonsingular with high
 * probability by a random permutation of full rows: row i gets a large entry
 * in column perm(i), so no pivoting-free LU of A itself is safe.
 */
/* A copy of a (double values) with every value multiplied by 1 + spread * r,
 * r in [-1, 1): new values on the same pattern, for refactorizations. */
static inline ts_csr *lu_test_perturbed_copy(ts_context *ctx, const ts_csr *a, double spread, unsigned long long seed) {
  ts_csr *copy = NULL;
  if (ts_csr_copy(ctx, a, &copy) != TS_SUCCESS)
    return NULL;
  unsigned long long state = seed;
  double *v = (double *)copy->values;
  for (int64_t e = 0; e < copy->nnz; e++)
    v[e] *= 1.0 + spread * test_random(&state);
  return copy;
}

static inline ts_csr *lu_test_random(ts_context *ctx, int64_t n, int per_row, int dominant, unsigned long long seed) {
  int64_t capacity = n * (per_row + 2);
  int32_t *rows = malloc((size_t)capacity * sizeof *rows);
  int32_t *cols = malloc((size_t)capacity * sizeof *cols);
  double *values = malloc((size_t)capacity * sizeof *values);
  int32_t *perm = malloc((size_t)n * sizeof *perm);
  ts_csr *csr = NULL;
  if (!rows || !cols || !values || !perm)
    goto cleanup;
  unsigned long long state = seed;
  for (int64_t i = 0; i < n; i++)
    perm[i] = (int32_t)i;
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)((test_random(&state) + 1.0) * 0.5 * (double)(i + 1));
    if (j > i)
      j = i;
    int32_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++) {
    double row_sum = 0.0;
    for (int k = 0; k < per_row; k++) {
      int64_t j = (int64_t)((test_random(&state) + 1.0) * 0.5 * (double)n);
      if (j >= n)
        j = n - 1;
      if (j == i)
        continue;
      double v = test_random(&state);
      rows[count] = (int32_t)i;
      cols[count] = (int32_t)j;
      values[count++] = v;
      row_sum += fabs(v);
    }
    rows[count] = (int32_t)i;
    cols[count] = (int32_t)i;
    values[count++] = dominant ? 1.0 + row_sum : test_random(&state);
    if (!dominant) {
      rows[count] = (int32_t)i;
      cols[count] = perm[i];
      values[count++] = 4.0 + 2.0 * test_random(&state);
    }
  }
  csr = lu_test_csr(ctx, n, count, rows, cols, values);
cleanup:
  free(rows);
  free(cols);
  free(values);
  free(perm);
  return csr;
}

/* Chains of the 3 x 3 block [s t 0; u (tu/s) second 1; 0 1 1] (s, t, u
 * random powers of two, so that with second = 1 the second static pivot,
 * tu/s - ut/s, cancels exactly in the natural order, whichever of the two
 * largest matchings is taken), each block coupled to the next above the
 * diagonal; with `singular` the last block's third row repeats its second
 * ([u tu/s 1] in the same columns): singular with a perfect matching. */
static inline ts_csr *lu_test_chain_of_blocks(ts_context *ctx, int64_t blocks, unsigned long long seed, double second,
                                              int singular) {
  const int64_t n = 3 * blocks;
  int32_t *rows = calloc((size_t)(9 * blocks), sizeof *rows), *cols = calloc((size_t)(9 * blocks), sizeof *cols);
  double *values = calloc((size_t)(9 * blocks), sizeof *values);
  ts_csr *a = NULL;
  if (!rows || !cols || !values)
    goto cleanup;
  unsigned long long state = seed;
  int64_t count = 0;
  for (int64_t b = 0; b < blocks; b++) {
    const int32_t o = (int32_t)(3 * b);
    const double s = ldexp(1.0, (int)(4.0 * test_random(&state))), t = ldexp(1.0, (int)(4.0 * test_random(&state)));
    const double u = ldexp(1.0, (int)(4.0 * test_random(&state)));
    const int last_singular = singular && b + 1 == blocks;
    const int32_t r[] = {o, o, o + 1, o + 1, o + 1, o + 2, o + 2, o + 2};
    const int32_t c[] = {o, o + 1, o, o + 1, o + 2, o, o + 1, o + 2};
    const double v[] = {s,  t, u, second * t * u / s, 1.0, last_singular ? u : 0.0, last_singular ? t * u / s : 1.0,
                        1.0};
    for (int k = 0; k < 8; k++) {
      if (v[k] == 0.0)
        continue;
      rows[count] = r[k];
      cols[count] = c[k];
      values[count++] = v[k];
    }
    if (b + 1 < blocks) {
      rows[count] = o + 2;
      cols[count] = o + 3;
      values[count++] = 0.5 + 0.25 * test_random(&state);
    }
  }
  a = lu_test_csr(ctx, n, count, rows, cols, values);
cleanup:
  free(rows);
  free(cols);
  free(values);
  return a;
}

/* Dense row-major copy of a double CSR matrix (or of its transpose). */
static inline double *lu_test_dense(const ts_csr *a, int transpose) {
  int64_t n = a->rows;
  double *d = calloc((size_t)(n * n), sizeof *d);
  if (!d)
    return NULL;
  const double *v = (const double *)a->values;
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      int64_t j = a->col_idx[e];
      if (transpose)
        d[j * n + i] += v[e];
      else
        d[i * n + j] += v[e];
    }
  return d;
}

/* Solve the dense row-major system d X = B in place for m right-hand sides
 * (B is n x m, column-major; d and B overwritten) by Gaussian elimination
 * with partial pivoting; returns 0, or -1 when a pivot is exactly zero. */
static inline int lu_test_dense_solve_many(double *d, double *b, int64_t n, int64_t m) {
  for (int64_t k = 0; k < n; k++) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; i++)
      if (fabs(d[i * n + k]) > fabs(d[p * n + k]))
        p = i;
    if (d[p * n + k] == 0.0)
      return -1;
    if (p != k) {
      for (int64_t j = 0; j < n; j++) {
        double t = d[k * n + j];
        d[k * n + j] = d[p * n + j];
        d[p * n + j] = t;
      }
      for (int64_t c = 0; c < m; c++) {
        double t = b[c * n + k];
        b[c * n + k] = b[c * n + p];
        b[c * n + p] = t;
      }
    }
    for (int64_t i = k + 1; i < n; i++) {
      double f = d[i * n + k] / d[k * n + k];
      if (f == 0.0)
        continue;
      for (int64_t j = k + 1; j < n; j++)
        d[i * n + j] -= f * d[k * n + j];
      for (int64_t c = 0; c < m; c++)
        b[c * n + i] -= f * b[c * n + k];
    }
  }
  for (int64_t c = 0; c < m; c++) {
    double *x = b + c * n;
    for (int64_t k = n - 1; k >= 0; k--) {
      double s = x[k];
      for (int64_t j = k + 1; j < n; j++)
        s -= d[k * n + j] * x[j];
      x[k] = s / d[k * n + k];
    }
  }
  return 0;
}

static inline int lu_test_dense_solve(double *d, double *b, int64_t n) { return lu_test_dense_solve_many(d, b, n, 1); }

/* max |x - x_dense| for op(A) x = b, x_dense by dense elimination (small n
 * only), and max |x_dense| in *size; -1 when the dense solve fails. */
static inline double lu_test_dense_gap(const ts_csr *a, int transpose, const double *b, const double *x, double *size) {
  const int64_t n = a->rows;
  double *d = lu_test_dense(a, transpose), *ref = malloc((size_t)(n > 0 ? n : 1) * sizeof *ref);
  double gap = -1.0;
  *size = 0.0;
  if (d && ref) {
    memcpy(ref, b, (size_t)n * sizeof *ref);
    if (lu_test_dense_solve(d, ref, n) == 0) {
      gap = 0.0;
      for (int64_t i = 0; i < n; i++) {
        gap = fmax(gap, fabs(x[i] - ref[i]));
        *size = fmax(*size, fabs(ref[i]));
      }
    }
  }
  free(d);
  free(ref);
  return gap;
}

/* |A^{-1}|_inf |A|_inf from the dense matrix (small n only). */
static inline double lu_test_condition(const ts_csr *a) {
  int64_t n = a->rows;
  double *d = lu_test_dense(a, 0), *inverse = calloc((size_t)(n * n), sizeof *inverse);
  double a_norm = 0.0, inv_norm = 0.0;
  if (!d || !inverse)
    goto cleanup;
  for (int64_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int64_t j = 0; j < n; j++)
      s += fabs(d[i * n + j]);
    a_norm = fmax(a_norm, s);
    inverse[i * n + i] = 1.0;
  }
  if (lu_test_dense_solve_many(d, inverse, n, n) != 0) {
    inv_norm = INFINITY;
    goto cleanup;
  }
  for (int64_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int64_t j = 0; j < n; j++)
      s += fabs(inverse[j * n + i]); /* row i of A^{-1}: column j holds A^{-1} e_j */
    inv_norm = fmax(inv_norm, s);
  }
cleanup:
  free(d);
  free(inverse);
  return a_norm * inv_norm;
}

/* y = op(A) x in double. */
static inline void lu_test_multiply(const ts_csr *a, int transpose, const double *x, double *y) {
  const double *v = (const double *)a->values;
  for (int64_t i = 0; i < a->rows; i++)
    y[i] = 0.0;
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      if (transpose)
        y[a->col_idx[e]] += v[e] * x[i];
      else
        y[i] += v[e] * x[a->col_idx[e]];
    }
}

/* Normwise backward error |b - op(A) x|_inf / (|op(A)|_inf |x|_inf + |b|_inf),
 * computed here independently of the library. */
static inline double lu_test_backward_error(const ts_csr *a, int transpose, const double *x, const double *b) {
  int64_t n = a->rows;
  double *ax = malloc((size_t)(n > 0 ? n : 1) * sizeof *ax), *sums = calloc((size_t)(n > 0 ? n : 1), sizeof *sums);
  const double *v = (const double *)a->values;
  double r = 0.0, xn = 0.0, bn = 0.0, an = 0.0;
  lu_test_multiply(a, transpose, x, ax);
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
      sums[transpose ? a->col_idx[e] : i] += fabs(v[e]);
  for (int64_t i = 0; i < n; i++) {
    r = fmax(r, fabs(b[i] - ax[i]));
    xn = fmax(xn, fabs(x[i]));
    bn = fmax(bn, fabs(b[i]));
    an = fmax(an, sums[i]);
    if (!isfinite(x[i]))
      r = INFINITY;
  }
  free(ax);
  free(sums);
  double scale = an * xn + bn;
  return scale > 0.0 ? r / scale : r;
}

#endif
