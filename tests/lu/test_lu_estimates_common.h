/* Helpers of the tests of the LU's estimates and extracted factors (CPU and
 * GPU): the check that the extracted factors reproduce P R A C Q = L U, a
 * family of near-singular matrices, and their true 1-norm condition number
 * from a dense inverse (LAPACK). */
#ifndef TESSERA_TEST_LU_ESTIMATES_COMMON_H
#define TESSERA_TEST_LU_ESTIMATES_COMMON_H

#include "test_lu_numeric_common.h"

#include <float.h>

/* Whether p holds each of 0 .. n-1 once. */
static inline int lu_test_is_permutation(const int32_t *p, int64_t n) {
  char *seen = calloc((size_t)(n > 0 ? n : 1), 1);
  int ok = seen != NULL;
  for (int64_t i = 0; ok && i < n; i++) {
    ok = p[i] >= 0 && p[i] < n && !seen[p[i]];
    if (ok)
      seen[p[i]] = 1;
  }
  free(seen);
  return ok;
}

/*
 * Extract the factors of lu (the factorization of a) as CSR and CSC and
 * check: L unit lower and U upper triangular, the permutations are
 * permutations, the CSC copies hold the same matrices, and every entry of
 * L U matches P R A C Q within tolerance * (|L| |U|)(i, j) (the standard
 * bound of LU's backward error; a perturbed pivot would break it, so
 * factorizations with perturbed pivots are not for this check). Returns the
 * largest ratio |L U - P R A C Q| / (|L| |U|) seen.
 */
static inline double lu_test_check_factors(ts_context *ctx, ts_lu *lu, const ts_csr *a, double tolerance,
                                           const char *what) {
  const int64_t n = a->rows;
  ts_csr *l = NULL, *u = NULL;
  ts_csc *l_csc = NULL, *u_csc = NULL;
  int32_t *row_perm = malloc((size_t)n * sizeof *row_perm), *col_perm = malloc((size_t)n * sizeof *col_perm);
  double *row_scale = malloc((size_t)n * sizeof *row_scale), *col_scale = malloc((size_t)n * sizeof *col_scale);
  double *product = calloc((size_t)n, sizeof *product), *magnitude = calloc((size_t)n, sizeof *magnitude);
  double *m_row = calloc((size_t)n, sizeof *m_row);
  int32_t *col_of = malloc((size_t)n * sizeof *col_of);
  double worst = 0.0;
  CHECK(row_perm && col_perm && row_scale && col_scale && product && magnitude && m_row && col_of);
  CHECK_OK(ctx, ts_lu_extract_csr(lu, &l, &u, row_perm, col_perm, row_scale, col_scale));
  CHECK_OK(ctx, ts_lu_extract_csc(lu, &l_csc, &u_csc, NULL, NULL, NULL, NULL));
  if (!l || !u || !l_csc || !u_csc)
    goto cleanup;
  CHECK_MSG(lu_test_is_permutation(row_perm, n) && lu_test_is_permutation(col_perm, n), "%s: permutations", what);
  CHECK(l->rows == n && l->cols == n && u->rows == n && u->cols == n && l->dtype == TS_FLOAT64);
  /* Shapes: L's last entry of row i is its unit diagonal, U's first its pivot. */
  int shapes = 1;
  for (int64_t i = 0; i < n; i++) {
    int64_t l_end = l->row_ptr[i + 1], u_begin = u->row_ptr[i];
    shapes = shapes && l_end > l->row_ptr[i] && l->col_idx[l_end - 1] == i && ((double *)l->values)[l_end - 1] == 1.0;
    shapes = shapes && u->row_ptr[i + 1] > u_begin && u->col_idx[u_begin] == i;
    for (int64_t e = l->row_ptr[i]; e + 1 < l_end; e++)
      shapes = shapes && l->col_idx[e] < l->col_idx[e + 1];
    for (int64_t e = u_begin; e + 1 < u->row_ptr[i + 1]; e++)
      shapes = shapes && u->col_idx[e] < u->col_idx[e + 1];
  }
  CHECK_MSG(shapes, "%s: L is not unit lower triangular or U not upper triangular (sorted)", what);
  /* The CSC copies: the same matrices. */
  ts_csr *from_l = NULL, *from_u = NULL;
  CHECK_OK(ctx, ts_csr_from_csc(ctx, l_csc, &from_l));
  CHECK_OK(ctx, ts_csr_from_csc(ctx, u_csc, &from_u));
  if (from_l && from_u) {
    CHECK_MSG(from_l->nnz == l->nnz && from_u->nnz == u->nnz &&
                  memcmp(from_l->col_idx, l->col_idx, (size_t)l->nnz * sizeof(int32_t)) == 0 &&
                  memcmp(from_l->values, l->values, (size_t)l->nnz * sizeof(double)) == 0 &&
                  memcmp(from_u->col_idx, u->col_idx, (size_t)u->nnz * sizeof(int32_t)) == 0 &&
                  memcmp(from_u->values, u->values, (size_t)u->nnz * sizeof(double)) == 0,
              "%s: the CSC factors differ from the CSR ones", what);
  }
  ts_csr_destroy(from_l);
  ts_csr_destroy(from_u);
  /* Row i of L U against row row_perm[i] of A, scaled and permuted. */
  for (int64_t j = 0; j < n; j++)
    col_of[col_perm[j]] = (int32_t)j;
  const double *lv = l->values, *uv = u->values, *av = a->values;
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t e = l->row_ptr[i]; e < l->row_ptr[i + 1]; e++) {
      int64_t k = l->col_idx[e];
      for (int64_t f = u->row_ptr[k]; f < u->row_ptr[k + 1]; f++) {
        product[u->col_idx[f]] += lv[e] * uv[f];
        magnitude[u->col_idx[f]] += fabs(lv[e] * uv[f]);
      }
    }
    int32_t r = row_perm[i];
    for (int64_t e = a->row_ptr[r]; e < a->row_ptr[r + 1]; e++) {
      int32_t c = a->col_idx[e];
      m_row[col_of[c]] += row_scale[r] * av[e] * col_scale[c];
    }
    for (int64_t j = 0; j < n; j++) {
      double difference = fabs(product[j] - m_row[j]);
      if (difference > 0.0) {
        double ratio = magnitude[j] > 0.0 ? difference / magnitude[j] : INFINITY;
        worst = fmax(worst, ratio);
        if (ratio > tolerance && bad++ < 3)
          fprintf(stderr, "%s: (L U)(%lld, %lld) = %.17g, P R A C Q holds %.17g\n", what, (long long)i, (long long)j,
                  product[j], m_row[j]);
      }
      product[j] = magnitude[j] = m_row[j] = 0.0;
    }
  }
  CHECK_MSG(bad == 0, "%s: %lld entries of L U differ from P R A C Q by more than %.1e |L||U| (worst %.2e)", what,
            (long long)bad, tolerance, worst);
cleanup:
  ts_csr_destroy(l);
  ts_csr_destroy(u);
  ts_csc_destroy(l_csc);
  ts_csc_destroy(u_csc);
  free(row_perm);
  free(col_perm);
  free(row_scale);
  free(col_scale);
  free(product);
  free(magnitude);
  free(m_row);
  free(col_of);
  return worst;
}

/*
 * The near-singular family: a strictly diagonally dominant random matrix
 * (about 4 off-diagonal entries a row) whose row n-1 is replaced by row 0
 * plus epsilon times a random sparse row (with its own diagonal entry), so
 * that the condition number grows like 1 / epsilon.
 */
static inline ts_csr *lu_test_near_singular(ts_context *ctx, int64_t n, double epsilon, unsigned long long seed) {
  ts_csr *base = lu_test_random(ctx, n, 4, 1, seed);
  if (!base || n < 2)
    return base;
  const double *v = base->values;
  int64_t count = base->row_ptr[n - 1] + (base->row_ptr[1] - base->row_ptr[0]) + 4;
  int32_t *rows = malloc((size_t)count * sizeof *rows), *cols = malloc((size_t)count * sizeof *cols);
  double *values = malloc((size_t)count * sizeof *values);
  ts_csr *a = NULL;
  if (rows && cols && values) {
    int64_t used = 0;
    for (int64_t i = 0; i < n - 1; i++)
      for (int64_t e = base->row_ptr[i]; e < base->row_ptr[i + 1]; e++) {
        rows[used] = (int32_t)i;
        cols[used] = base->col_idx[e];
        values[used++] = v[e];
      }
    for (int64_t e = base->row_ptr[0]; e < base->row_ptr[1]; e++) {
      rows[used] = (int32_t)(n - 1);
      cols[used] = base->col_idx[e];
      values[used++] = v[e];
    }
    unsigned long long state = seed * 7919ull + 1ull;
    rows[used] = (int32_t)(n - 1);
    cols[used] = (int32_t)(n - 1);
    values[used++] = epsilon * (1.5 + test_random(&state));
    for (int k = 0; k < 3; k++) {
      rows[used] = (int32_t)(n - 1);
      cols[used] = (int32_t)((test_random(&state) + 1.0) * 0.5 * (double)(n - 1));
      values[used++] = epsilon * test_random(&state);
    }
    a = lu_test_csr(ctx, n, used, rows, cols, values);
  }
  free(rows);
  free(cols);
  free(values);
  ts_csr_destroy(base);
  return a;
}

/* |A|_1, the largest column sum of |A|. */
static inline double lu_test_norm_one(const ts_csr *a) {
  double *sums = calloc((size_t)(a->cols > 0 ? a->cols : 1), sizeof *sums), norm = 0.0;
  const double *v = a->values;
  for (int64_t e = 0; sums && e < a->nnz; e++)
    sums[a->col_idx[e]] += fabs(v[e]);
  for (int64_t j = 0; sums && j < a->cols; j++)
    norm = fmax(norm, sums[j]);
  free(sums);
  return norm;
}

#ifdef TESSERA_TEST_HAVE_LAPACK
/* LAPACK (Fortran interface). */
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work, const int *lwork, int *info);

/* The 1-norm condition number |A|_1 |A^{-1}|_1 from LAPACK's dense inverse
 * (dgetrf, dgetri); infinity when a pivot is exactly zero, NaN when out of
 * memory. */
static inline double lu_test_condition_lapack(const ts_csr *a) {
  const int n = (int)a->rows;
  double *d = calloc((size_t)n * (size_t)n, sizeof *d), *work = NULL;
  int *pivots = malloc((size_t)n * sizeof *pivots), info = 0;
  double condition = NAN;
  if (!d || !pivots)
    goto cleanup;
  const double *v = a->values;
  for (int64_t i = 0; i < n; i++) /* column-major */
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
      d[(size_t)a->col_idx[e] * (size_t)n + (size_t)i] += v[e];
  dgetrf_(&n, &n, d, &n, pivots, &info);
  if (info > 0) {
    condition = INFINITY;
    goto cleanup;
  }
  int lwork = 64 * n;
  work = malloc((size_t)lwork * sizeof *work);
  if (!work || info != 0)
    goto cleanup;
  dgetri_(&n, d, &n, pivots, work, &lwork, &info);
  if (info != 0)
    goto cleanup;
  double inverse_norm = 0.0;
  for (int64_t j = 0; j < n; j++) {
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++)
      sum += fabs(d[(size_t)j * (size_t)n + (size_t)i]);
    inverse_norm = fmax(inverse_norm, sum);
  }
  condition = lu_test_norm_one(a) * inverse_norm;
cleanup:
  free(d);
  free(work);
  free(pivots);
  return condition;
}
#endif

#endif
