/* Shared by the complex LU tests (host and GPU): complex test matrices, an
 * independent dense complex LU with partial pivoting (the reference), KLU's
 * complex routines (klu_zl_*, where SuiteSparse is installed), and the
 * backward error of a solution recomputed from the matrix as given. */
#ifndef TESSERA_TEST_LU_COMPLEX_COMMON_H
#define TESSERA_TEST_LU_COMPLEX_COMMON_H

#include "test_common.h"
#include "test_lu_orderings.h"

#include <complex.h>
#include <stdint.h>

#ifdef TESSERA_TEST_HAVE_KLU
#include <klu.h>
#endif

/* A uniform number in [0, 1) from (seed, i, j): splitmix64 of a mix. */
static inline double cx_uniform(uint64_t seed, uint64_t i, uint64_t j) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull + j * 0x94D049BB133111EBull + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* The complex matrix of AC analysis, A = G + i omega C, on the pattern of
 * ts_gen_circuit (through lu_test_gen_circuit: without AMD, the dense nets
 * numbered last): G its conductances (the generator's values), C a second
 * value set of capacitances on the same pattern (off-diagonal -c_ij with
 * c_ij in [0.25, 1), diagonal the sum of its row's c_ij times a factor in
 * [0.5, 1.5): not dominant). dtype TS_COMPLEX128 or TS_COMPLEX64. */
static ts_csr *cx_circuit(ts_context *ctx, int64_t n, double locality, uint64_t seed, double omega, ts_dtype dtype) {
  ts_circuit_params p = ts_circuit_defaults(n);
  p.locality = locality;
  ts_csr *g = NULL;
  if (lu_test_gen_circuit(ctx, &p, seed, TS_FLOAT64, &g) != TS_SUCCESS)
    return NULL;
  ts_csr *a = NULL;
  if (ts_csr_create(ctx, n, n, g->nnz, dtype, &a) != TS_SUCCESS) {
    ts_csr_destroy(g);
    return NULL;
  }
  memcpy(a->row_ptr, g->row_ptr, (size_t)(n + 1) * sizeof *a->row_ptr);
  memcpy(a->col_idx, g->col_idx, (size_t)g->nnz * sizeof *a->col_idx);
  const double *gv = g->values;
  for (int64_t i = 0; i < n; i++) {
    double row_sum = 0.0;
    int64_t diagonal = -1;
    for (int64_t e = g->row_ptr[i]; e < g->row_ptr[i + 1]; e++) {
      const int32_t j = g->col_idx[e];
      if (j == i) {
        diagonal = e;
        continue;
      }
      const double c = 0.25 + 0.75 * cx_uniform(seed + 1, (uint64_t)i, (uint64_t)j);
      row_sum += c;
      const double complex v = gv[e] - I * omega * c;
      if (dtype == TS_COMPLEX64)
        ((float complex *)a->values)[e] = (float complex)v;
      else
        ((double complex *)a->values)[e] = v;
    }
    if (diagonal >= 0) {
      const double c = row_sum * (0.5 + cx_uniform(seed + 2, (uint64_t)i, 0));
      const double complex v = gv[diagonal] + I * omega * c;
      if (dtype == TS_COMPLEX64)
        ((float complex *)a->values)[diagonal] = (float complex)v;
      else
        ((double complex *)a->values)[diagonal] = v;
    }
  }
  ts_csr_destroy(g);
  return a;
}

/* A random complex n x n matrix needing the matching: per_row random
 * entries a row, and a permuted diagonal of larger entries (the row
 * order hides it), values with parts in [-1, 1). */
static ts_csr *cx_random_permuted(ts_context *ctx, int64_t n, int64_t per_row, uint64_t seed) {
  ts_csr *pattern = NULL;
  if (ts_gen_random_uniform(ctx, n, n, per_row, seed, TS_FLOAT64, &pattern) != TS_SUCCESS)
    return NULL;
  ts_coo *coo = NULL;
  if (ts_coo_create(ctx, n, n, pattern->nnz + n, TS_COMPLEX128, &coo) != TS_SUCCESS) {
    ts_csr_destroy(pattern);
    return NULL;
  }
  double complex *v = coo->values;
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = pattern->row_ptr[i]; e < pattern->row_ptr[i + 1]; e++, k++) {
      coo->row_idx[k] = (int32_t)i;
      coo->col_idx[k] = pattern->col_idx[e];
      v[k] = (2 * cx_uniform(seed, (uint64_t)i, (uint64_t)e) - 1) +
             I * (2 * cx_uniform(seed + 7, (uint64_t)i, (uint64_t)e) - 1);
    }
  /* Row i holds the large entry of column (i * 7 + 3) mod n (a permutation when n is prime to 7). */
  for (int64_t i = 0; i < n; i++, k++) {
    coo->row_idx[k] = (int32_t)i;
    coo->col_idx[k] = (int32_t)((i * 7 + 3) % n);
    v[k] = (4 + 4 * cx_uniform(seed + 3, (uint64_t)i, 1)) * cexp(I * 6.283185307179586 * cx_uniform(seed + 5, i, 2));
  }
  coo->nnz = k;
  ts_csr *a = NULL;
  ts_status st = ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &a);
  ts_coo_destroy(coo);
  ts_csr_destroy(pattern);
  return st == TS_SUCCESS ? a : NULL;
}

/* A scrambled block upper triangular matrix: hidden blocks of `size` rows,
 * each a cycle with a large diagonal and some more entries, random entries
 * above the blocks, rows and columns permuted by (i * 7 + 3) mod n and
 * (i * 11 + 5) mod n (n prime to 7 and 11). The analysis finds the blocks. */
static inline ts_csr *cx_block_triangular(ts_context *ctx, int64_t n, int64_t size, uint64_t seed) {
  ts_coo *coo = NULL;
  if (ts_coo_create(ctx, n, n, 4 * n, TS_COMPLEX128, &coo) != TS_SUCCESS)
    return NULL;
  double complex *v = coo->values;
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t first = i / size * size, end = first + size < n ? first + size : n;
    const int64_t next = i + 1 < end ? i + 1 : first, above = end + (int64_t)(cx_uniform(seed, (uint64_t)i, 9) * 40);
    const int64_t cols[4] = {i, next, first + (int64_t)(cx_uniform(seed, (uint64_t)i, 3) * (double)(end - first)),
                             above};
    for (int c = 0; c < 4; c++) {
      if (cols[c] >= n || (c > 0 && cols[c] == i) || (c == 2 && cols[c] == next))
        continue;
      coo->row_idx[k] = (int32_t)((i * 7 + 3) % n);
      coo->col_idx[k] = (int32_t)((cols[c] * 11 + 5) % n);
      v[k] = (2 * cx_uniform(seed, (uint64_t)i, (uint64_t)c) - 1) +
             I * (2 * cx_uniform(seed + 7, (uint64_t)i, (uint64_t)c) - 1);
      if (c == 0)
        v[k] += 4.0 * cexp(I * 6.283185307179586 * cx_uniform(seed + 5, (uint64_t)i, 2));
      k++;
    }
  }
  coo->nnz = k;
  ts_csr *a = NULL;
  ts_status st = ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &a);
  ts_coo_destroy(coo);
  return st == TS_SUCCESS ? a : NULL;
}

/* The matrix as a dense column-major n x n array (complex double). */
static double complex *cx_dense(const ts_csr *a) {
  const int64_t n = a->rows;
  double complex *d = calloc((size_t)(n * n), sizeof *d);
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      double complex v = a->dtype == TS_COMPLEX64 ? (double complex)((const float complex *)a->values)[e]
                                                  : ((const double complex *)a->values)[e];
      d[i + a->col_idx[e] * n] += v;
    }
  return d;
}

/* The reference: Gaussian elimination with partial pivoting (largest
 * modulus) on a dense copy, in place; piv[k] the row swapped with k.
 * Returns 0, or 1 + the column of an exactly zero pivot. */
static int64_t cx_dense_lu(int64_t n, double complex *d, int64_t *piv) {
  for (int64_t k = 0; k < n; k++) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; i++)
      if (cabs(d[i + k * n]) > cabs(d[p + k * n]))
        p = i;
    piv[k] = p;
    if (d[p + k * n] == 0)
      return k + 1;
    if (p != k)
      for (int64_t j = 0; j < n; j++) {
        double complex t = d[k + j * n];
        d[k + j * n] = d[p + j * n];
        d[p + j * n] = t;
      }
    for (int64_t i = k + 1; i < n; i++)
      d[i + k * n] /= d[k + k * n];
    for (int64_t j = k + 1; j < n; j++) {
      const double complex u = d[k + j * n];
      if (u == 0)
        continue;
      for (int64_t i = k + 1; i < n; i++)
        d[i + j * n] -= d[i + k * n] * u;
    }
  }
  return 0;
}

/* x = op(A)^{-1} b through the dense factors: op 0 = A, 1 = A^T, 2 = A^H. */
static void cx_dense_solve(int64_t n, const double complex *lu, const int64_t *piv, int op, double complex *x) {
  if (op == 0) {
    for (int64_t k = 0; k < n; k++) {
      double complex t = x[k];
      x[k] = x[piv[k]];
      x[piv[k]] = t;
    }
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = j + 1; i < n; i++)
        x[i] -= lu[i + j * n] * x[j];
    for (int64_t j = n - 1; j >= 0; j--) {
      x[j] /= lu[j + j * n];
      for (int64_t i = 0; i < j; i++)
        x[i] -= lu[i + j * n] * x[j];
    }
    return;
  }
  /* op(A) = op(P^T L U) = op(U) op(L) P: U^T first, then L^T, then P^T. */
  for (int64_t j = 0; j < n; j++) {
    double complex s = x[j];
    for (int64_t i = 0; i < j; i++)
      s -= (op == 2 ? conj(lu[i + j * n]) : lu[i + j * n]) * x[i];
    x[j] = s / (op == 2 ? conj(lu[j + j * n]) : lu[j + j * n]);
  }
  for (int64_t j = n - 1; j >= 0; j--) {
    double complex s = x[j];
    for (int64_t i = j + 1; i < n; i++)
      s -= (op == 2 ? conj(lu[i + j * n]) : lu[i + j * n]) * x[i];
    x[j] = s;
  }
  for (int64_t k = n - 1; k >= 0; k--) {
    double complex t = x[k];
    x[k] = x[piv[k]];
    x[piv[k]] = t;
  }
}

/* The 1-norm of A (max column sum of moduli) and, through the dense
 * factors, of A^{-1}: the true condition number kappa_1. */
static double cx_dense_condition(const ts_csr *a) {
  const int64_t n = a->rows;
  double complex *d = cx_dense(a);
  int64_t *piv = malloc((size_t)n * sizeof *piv);
  double a_norm = 0.0, inverse_norm = 0.0;
  for (int64_t j = 0; j < n; j++) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
      s += cabs(d[i + j * n]);
    a_norm = fmax(a_norm, s);
  }
  double condition = INFINITY;
  if (cx_dense_lu(n, d, piv) == 0) {
    double complex *col = malloc((size_t)n * sizeof *col);
    for (int64_t j = 0; j < n; j++) {
      for (int64_t i = 0; i < n; i++)
        col[i] = i == j;
      cx_dense_solve(n, d, piv, 0, col);
      double s = 0.0;
      for (int64_t i = 0; i < n; i++)
        s += cabs(col[i]);
      inverse_norm = fmax(inverse_norm, s);
    }
    free(col);
    condition = a_norm * inverse_norm;
  }
  free(d);
  free(piv);
  return condition;
}

/* The normwise backward error of x for op(A) x = b, recomputed from the
 * matrix as given (complex double, moduli; op 0, 1, 2 as above):
 * |b - op(A) x|_inf / (|op(A)|_inf |x|_inf + |b|_inf). */
static double cx_backward_error(const ts_csr *a, int op, const double complex *b, const double complex *x) {
  const int64_t n = a->rows;
  double complex *r = malloc((size_t)n * sizeof *r);
  double *row_sum = calloc((size_t)n, sizeof *row_sum);
  for (int64_t i = 0; i < n; i++)
    r[i] = b[i];
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      const int32_t j = a->col_idx[e];
      double complex v = a->dtype == TS_COMPLEX64 ? (double complex)((const float complex *)a->values)[e]
                                                  : ((const double complex *)a->values)[e];
      if (op == 0) {
        r[i] -= v * x[j];
        row_sum[i] += cabs(v);
      } else {
        r[j] -= (op == 2 ? conj(v) : v) * x[i];
        row_sum[j] += cabs(v);
      }
    }
  double r_norm = 0.0, a_norm = 0.0, x_norm = 0.0, b_norm = 0.0;
  for (int64_t i = 0; i < n; i++) {
    r_norm = fmax(r_norm, cabs(r[i]));
    a_norm = fmax(a_norm, row_sum[i]);
    x_norm = fmax(x_norm, cabs(x[i]));
    b_norm = fmax(b_norm, cabs(b[i]));
  }
  free(r);
  free(row_sum);
  const double scale = a_norm * x_norm + b_norm;
  return scale > 0.0 ? r_norm / scale : (r_norm == 0.0 ? 0.0 : INFINITY);
}

/* |x - y|_inf / |y|_inf. */
static double cx_relative_difference(int64_t n, const double complex *x, const double complex *y) {
  double d = 0.0, m = 0.0;
  for (int64_t i = 0; i < n; i++) {
    d = fmax(d, cabs(x[i] - y[i]));
    m = fmax(m, cabs(y[i]));
  }
  return m > 0.0 ? d / m : d;
}

/* b with random parts in [-1, 1). */
static void cx_random_vector(int64_t n, uint64_t seed, double complex *b) {
  for (int64_t i = 0; i < n; i++)
    b[i] = (2 * cx_uniform(seed, (uint64_t)i, 11) - 1) + I * (2 * cx_uniform(seed, (uint64_t)i, 13) - 1);
}

/* KLU's complex solution of op(A) x = b (op 0, 1, 2), in x; returns 1 when
 * KLU factored A, 0 when it found A singular, -1 without KLU. */
static int cx_klu_solve(ts_context *ctx, const ts_csr *a, int op, const double complex *b, double complex *x) {
#ifdef TESSERA_TEST_HAVE_KLU
  const int64_t n = a->rows;
  ts_csc *csc = NULL;
  if (ts_csc_from_csr(ctx, a, &csc) != TS_SUCCESS)
    return 0;
  SuiteSparse_long *col_ptr = malloc((size_t)(n + 1) * sizeof *col_ptr);
  SuiteSparse_long *row_idx = malloc((size_t)(csc->nnz > 0 ? csc->nnz : 1) * sizeof *row_idx);
  for (int64_t j = 0; j <= n; j++)
    col_ptr[j] = (SuiteSparse_long)csc->col_ptr[j];
  for (int64_t e = 0; e < csc->nnz; e++)
    row_idx[e] = csc->row_idx[e];
  klu_l_common common;
  klu_l_defaults(&common);
  klu_l_symbolic *symbolic = klu_l_analyze((SuiteSparse_long)n, col_ptr, row_idx, &common);
  /* KLU takes complex double: complex64 values widened. */
  double complex *values = malloc((size_t)(csc->nnz > 0 ? csc->nnz : 1) * sizeof *values);
  for (int64_t e = 0; e < csc->nnz; e++)
    values[e] = a->dtype == TS_COMPLEX64 ? (double complex)((const float complex *)csc->values)[e]
                                         : ((const double complex *)csc->values)[e];
  klu_l_numeric *numeric = symbolic ? klu_zl_factor(col_ptr, row_idx, (double *)values, symbolic, &common) : NULL;
  int factored = numeric != NULL && common.status == KLU_OK;
  if (factored) {
    memcpy(x, b, (size_t)n * sizeof *x);
    if (op == 0)
      klu_zl_solve(symbolic, numeric, (SuiteSparse_long)n, 1, (double *)x, &common);
    else
      klu_zl_tsolve(symbolic, numeric, (SuiteSparse_long)n, 1, (double *)x, op == 2, &common);
  }
  klu_l_free_numeric(&numeric, &common);
  klu_l_free_symbolic(&symbolic, &common);
  free(col_ptr);
  free(row_idx);
  free(values);
  ts_csc_destroy(csc);
  return factored;
#else
  (void)ctx;
  (void)a;
  (void)op;
  (void)b;
  (void)x;
  return -1;
#endif
}

/* The dense reference of a (when n <= dense_limit): its LU with partial
 * pivoting and its condition number (infinity when not made). */
typedef struct cx_reference {
  double complex *dense;
  int64_t *piv;
  double condition;
} cx_reference;

static cx_reference cx_reference_make(const ts_csr *a, int64_t dense_limit) {
  cx_reference r = {NULL, NULL, INFINITY};
  const int64_t n = a->rows;
  if (n > dense_limit)
    return r;
  r.condition = cx_dense_condition(a);
  r.dense = cx_dense(a);
  r.piv = malloc((size_t)n * sizeof *r.piv);
  CHECK_MSG(cx_dense_lu(n, r.dense, r.piv) == 0, "the dense reference found a zero pivot");
  return r;
}

static void cx_reference_free(cx_reference *r) {
  free(r->dense);
  free(r->piv);
  r->dense = NULL;
  r->piv = NULL;
}

#endif
