/* Conversions COO -> CSR -> CSC -> CSR -> COO, transpose and symmetric
 * expansion, against hand-written arrays and naive dense references. */
#include "test_common.h"

#include <stdint.h>

static ts_context *make_context(int threads) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  options.num_threads = threads;
  ts_context *ctx = NULL;
  ts_context_create(&ctx, &options);
  return ctx;
}

static double value_at(const void *values, ts_dtype dtype, int64_t k) {
  return dtype == TS_FLOAT32 ? (double)((const float *)values)[k] : ((const double *)values)[k];
}

static void set_value(void *values, ts_dtype dtype, int64_t k, double v) {
  if (dtype == TS_FLOAT32)
    ((float *)values)[k] = (float)v;
  else
    ((double *)values)[k] = v;
}

/* COO from triplets. */
static ts_coo *coo_from_triplets(int64_t rows, int64_t cols, int64_t nnz, const int *ri, const int *ci, const double *v,
                                 ts_dtype dtype) {
  ts_coo *coo = NULL;
  if (ts_coo_create(NULL, rows, cols, nnz, dtype, &coo) != TS_SUCCESS)
    return NULL;
  for (int64_t k = 0; k < nnz; k++) {
    coo->row_idx[k] = ri[k];
    coo->col_idx[k] = ci[k];
    set_value(coo->values, dtype, k, v[k]);
  }
  coo->nnz = nnz;
  return coo;
}

/* The 4x5 example: unsorted, duplicates (one summing to zero), an explicit
 * zero, row 1 and column 2 empty. Expected arrays written by hand. */
static void test_hand_example(ts_dtype dtype) {
  const int ri[] = {2, 0, 2, 0, 2, 3, 0, 3};
  const int ci[] = {3, 4, 0, 1, 3, 1, 4, 0};
  const double v[] = {1, 2, 3, 4, 5, 0, -2, 7};
  ts_coo *coo = coo_from_triplets(4, 5, 8, ri, ci, v, dtype);
  CHECK(coo != NULL);
  coo->symmetry = TS_GENERAL;
  ts_context *ctx = make_context(0);
  ts_csr *csr = NULL;
  CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr));
  const int64_t want_ptr[] = {0, 2, 2, 4, 6};
  const int32_t want_cols[] = {1, 4, 0, 3, 0, 1};
  const double want_values[] = {4, 0, 3, 6, 7, 0};
  CHECK(csr && csr->rows == 4 && csr->cols == 5 && csr->nnz == 6 && csr->dtype == dtype);
  if (csr && csr->nnz == 6) {
    CHECK(memcmp(csr->row_ptr, want_ptr, sizeof want_ptr) == 0);
    CHECK(memcmp(csr->col_idx, want_cols, sizeof want_cols) == 0);
    for (int k = 0; k < 6; k++)
      CHECK(value_at(csr->values, dtype, k) == want_values[k]);
    CHECK_OK(ctx, ts_csr_check(ctx, csr));
  }

  /* CSC by hand: column 0: rows 2 (3), 3 (7); column 1: rows 0 (4), 3 (0);
   * column 2 empty; column 3: row 2 (6); column 4: row 0 (0). */
  ts_csc *csc = NULL;
  CHECK_OK(ctx, ts_csc_from_csr(ctx, csr, &csc));
  const int64_t want_col_ptr[] = {0, 2, 4, 4, 5, 6};
  const int32_t want_rows[] = {2, 3, 0, 3, 2, 0};
  const double want_csc_values[] = {3, 7, 4, 0, 6, 0};
  if (csc) {
    CHECK(memcmp(csc->col_ptr, want_col_ptr, sizeof want_col_ptr) == 0);
    CHECK(memcmp(csc->row_idx, want_rows, sizeof want_rows) == 0);
    for (int k = 0; k < 6; k++)
      CHECK(value_at(csc->values, dtype, k) == want_csc_values[k]);
    CHECK_OK(ctx, ts_csc_check(ctx, csc));
  }

  /* Transpose (5x4) by hand equals the CSC arrays read as CSR. */
  ts_csr *at = NULL;
  CHECK_OK(ctx, ts_csr_transpose(ctx, csr, &at));
  if (at) {
    CHECK(at->rows == 5 && at->cols == 4 && at->nnz == 6);
    CHECK(memcmp(at->row_ptr, want_col_ptr, sizeof want_col_ptr) == 0);
    CHECK(memcmp(at->col_idx, want_rows, sizeof want_rows) == 0);
  }

  /* Back to COO: row-major order. */
  ts_coo *back = NULL;
  CHECK_OK(ctx, ts_coo_from_csr(ctx, csr, &back));
  const int32_t want_coo_rows[] = {0, 0, 2, 2, 3, 3};
  if (back) {
    CHECK(back->nnz == 6 && back->capacity >= 6);
    CHECK(memcmp(back->row_idx, want_coo_rows, sizeof want_coo_rows) == 0);
    CHECK(memcmp(back->col_idx, want_cols, sizeof want_cols) == 0);
  }

  /* Duplicates refused: the message names both input entries and (row, col). */
  ts_csr *refused = (ts_csr *)ctx; /* must come back NULL */
  CHECK_STATUS(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_ERROR, &refused), TS_ERROR_INVALID_MATRIX);
  CHECK(refused == NULL);
  CHECK_MSG(strstr(ts_last_error(ctx), "entries 1 and 6 are both at row 0, column 4") != NULL, "%s",
            ts_last_error(ctx));

  /* Without duplicates, ERROR mode succeeds. */
  coo->nnz = 4; /* entries 0..3 are distinct */
  ts_csr *distinct = NULL;
  CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_ERROR, &distinct));
  CHECK(distinct && distinct->nnz == 4);

  /* The symmetry tag is kept. */
  coo->symmetry = TS_SKEW_SYMMETRIC;
  coo->rows = 5; /* tags need a square matrix */
  ts_csr *tagged = NULL;
  CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &tagged));
  CHECK(tagged && tagged->symmetry == TS_SKEW_SYMMETRIC);

  ts_csr_destroy(tagged);
  ts_csr_destroy(distinct);
  ts_coo_destroy(back);
  ts_csr_destroy(at);
  ts_csc_destroy(csc);
  ts_csr_destroy(csr);
  ts_coo_destroy(coo);
  ts_context_destroy(ctx);
}

/* Duplicates are added in input order: (1e16 + 1) - 1e16 = 0 in double,
 * where another order would give 1. Checked in short, medium and long rows
 * (insertion sort, merge sort with per-thread and shared workspace). */
static void test_duplicate_order(void) {
  const int lengths[] = {12, 300, 9000}; /* column 7 in every row */
  for (int t = 0; t < 3; t++) {
    int n = lengths[t];
    ts_coo *coo = NULL;
    CHECK_OK(NULL, ts_coo_create(NULL, 2, n + 10, n + 3, TS_FLOAT64, &coo));
    double *v = coo->values;
    /* Row 1 holds columns n-1 .. 0 in decreasing order (unsorted), with the
     * three duplicates of column 7 spread among them. */
    int64_t k = 0;
    for (int c = n - 1; c >= 0; c--) {
      coo->row_idx[k] = 1;
      coo->col_idx[k] = c;
      v[k++] = c == 7 ? 1e16 : (double)c;
      if (c == n / 2 + 1 || c == n / 2) {
        coo->row_idx[k] = 1;
        coo->col_idx[k] = 7;
        v[k++] = c == n / 2 + 1 ? 1.0 : -1e16;
      }
    }
    coo->row_idx[k] = 0;
    coo->col_idx[k] = 3;
    v[k++] = 2.5;
    coo->nnz = k;
    for (int threads = 1; threads <= 2; threads++) {
      ts_context *ctx = make_context(threads);
      ts_csr *csr = NULL;
      CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr));
      if (csr) {
        CHECK(csr->nnz == n + 1 && csr->row_ptr[1] == 1 && csr->row_ptr[2] == n + 1);
        CHECK_OK(ctx, ts_csr_check(ctx, csr));
        const double *cv = csr->values;
        int ok = 1;
        for (int c = 0; c < n; c++)
          ok &= csr->col_idx[1 + c] == c && cv[1 + c] == (c == 7 ? 0.0 : (double)c);
        CHECK_MSG(ok, "row of %d entries: order or sum wrong (column 7 holds %g)", n, cv[8]);
      }
      ts_csr_destroy(csr);
      ts_context_destroy(ctx);
    }
    ts_coo_destroy(coo);
  }
}

/* Dense reference of a COO: sums in input order and a presence flag. */
typedef struct dense {
  int64_t rows, cols;
  double *value;
  char *present;
} dense;

static dense dense_from_coo(const ts_coo *coo) {
  dense d = {coo->rows, coo->cols, NULL, NULL};
  d.value = calloc((size_t)(d.rows * d.cols) + 1, sizeof(double));
  d.present = calloc((size_t)(d.rows * d.cols) + 1, 1);
  float *fsum = calloc((size_t)(d.rows * d.cols) + 1, sizeof(float));
  for (int64_t k = 0; k < coo->nnz; k++) {
    int64_t at = coo->row_idx[k] * d.cols + coo->col_idx[k];
    if (coo->dtype == TS_FLOAT32) {
      fsum[at] += ((const float *)coo->values)[k];
      d.value[at] = fsum[at];
    } else {
      d.value[at] += ((const double *)coo->values)[k];
    }
    d.present[at] = 1;
  }
  free(fsum);
  return d;
}

static void dense_free(dense *d) {
  free(d->value);
  free(d->present);
}

/* The CSR holds exactly the dense reference's entries, in column order. */
static int csr_equals_dense(const ts_csr *csr, const dense *d) {
  if (csr->rows != d->rows || csr->cols != d->cols)
    return 0;
  int64_t k = 0;
  for (int64_t i = 0; i < d->rows; i++) {
    if (csr->row_ptr[i] != k)
      return 0;
    for (int64_t j = 0; j < d->cols; j++) {
      if (!d->present[i * d->cols + j])
        continue;
      if (k >= csr->nnz || csr->col_idx[k] != j)
        return 0;
      if (value_at(csr->values, csr->dtype, k) != d->value[i * d->cols + j])
        return 0;
      k++;
    }
  }
  return csr->row_ptr[d->rows] == k && csr->nnz == k;
}

static int csc_equals_dense(const ts_csc *csc, const dense *d) {
  int64_t k = 0;
  for (int64_t j = 0; j < d->cols; j++) {
    if (csc->col_ptr[j] != k)
      return 0;
    for (int64_t i = 0; i < d->rows; i++) {
      if (!d->present[i * d->cols + j])
        continue;
      if (k >= csc->nnz || csc->row_idx[k] != i)
        return 0;
      if (value_at(csc->values, csc->dtype, k) != d->value[i * d->cols + j])
        return 0;
      k++;
    }
  }
  return csc->col_ptr[d->cols] == k && csc->nnz == k;
}

static ts_coo *random_coo(unsigned long long *seed, int64_t rows, int64_t cols, int64_t nnz, ts_dtype dtype) {
  ts_coo *coo = NULL;
  if (ts_coo_create(NULL, rows, cols, nnz, dtype, &coo) != TS_SUCCESS)
    return NULL;
  for (int64_t k = 0; k < nnz; k++) {
    coo->row_idx[k] = (int32_t)((test_random(seed) + 1) * 0.5 * (double)rows);
    coo->col_idx[k] = (int32_t)((test_random(seed) + 1) * 0.5 * (double)cols);
    double v = test_random(seed);
    if (v > 0.8)
      v = 0.0; /* explicit zeros */
    set_value(coo->values, dtype, k, v);
  }
  coo->nnz = nnz;
  return coo;
}

static int same_csr(const ts_csr *a, const ts_csr *b) {
  if (a->rows != b->rows || a->cols != b->cols || a->nnz != b->nnz || a->dtype != b->dtype)
    return 0;
  size_t vs = ts_dtype_size(a->dtype);
  return memcmp(a->row_ptr, b->row_ptr, (size_t)(a->rows + 1) * 8) == 0 &&
         memcmp(a->col_idx, b->col_idx, (size_t)a->nnz * 4) == 0 &&
         memcmp(a->values, b->values, (size_t)a->nnz * vs) == 0;
}

/* COO -> CSR -> CSC -> CSR -> COO on random matrices, against dense sums. */
static void test_random_round_trips(void) {
  unsigned long long seed = 42;
  ts_context *ctx = make_context(0);
  for (int trial = 0; trial < 60; trial++) {
    ts_dtype dtype = trial % 2 ? TS_FLOAT32 : TS_FLOAT64;
    int64_t rows = 1 + (int64_t)((test_random(&seed) + 1) * 30);
    int64_t cols = 1 + (int64_t)((test_random(&seed) + 1) * 30);
    int64_t nnz = (int64_t)((test_random(&seed) + 1) * 0.6 * (double)(rows * cols));
    if (trial == 0)
      rows = 1;
    if (trial == 1)
      cols = 1;
    if (trial == 2)
      nnz = 0;
    ts_coo *coo = random_coo(&seed, rows, cols, nnz, dtype);
    dense d = dense_from_coo(coo);
    ts_csr *csr = NULL, *csr2 = NULL, *at = NULL, *att = NULL;
    ts_csc *csc = NULL;
    ts_coo *back = NULL;
    CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr));
    if (!csr)
      break;
    CHECK_MSG(csr_equals_dense(csr, &d), "trial %d: CSR differs from the dense reference", trial);
    CHECK_OK(ctx, ts_csr_check(ctx, csr));
    CHECK_OK(ctx, ts_csc_from_csr(ctx, csr, &csc));
    CHECK_MSG(csc && csc_equals_dense(csc, &d), "trial %d: CSC differs", trial);
    CHECK_OK(ctx, ts_csr_from_csc(ctx, csc, &csr2));
    CHECK_MSG(csr2 && same_csr(csr, csr2), "trial %d: CSR -> CSC -> CSR changed the matrix", trial);
    CHECK_OK(ctx, ts_coo_from_csr(ctx, csr2, &back));
    if (back) {
      /* Entry by entry: the COO is the CSR in row-major order. */
      int ok = back->nnz == csr->nnz;
      for (int64_t i = 0; ok && i < rows; i++)
        for (int64_t k = csr->row_ptr[i]; k < csr->row_ptr[i + 1]; k++)
          ok &= back->row_idx[k] == i && back->col_idx[k] == csr->col_idx[k] &&
                value_at(back->values, dtype, k) == value_at(csr->values, dtype, k);
      CHECK_MSG(ok, "trial %d: CSR -> COO differs", trial);
    }
    /* Transpose against the dense transpose, and twice = identity. */
    CHECK_OK(ctx, ts_csr_transpose(ctx, csr, &at));
    if (at) {
      int ok = at->rows == cols && at->cols == rows && at->nnz == csr->nnz;
      int64_t k = 0;
      for (int64_t j = 0; ok && j < cols; j++) {
        ok &= at->row_ptr[j] == k;
        for (int64_t i = 0; ok && i < rows; i++) {
          if (!d.present[i * cols + j])
            continue;
          ok &= at->col_idx[k] == i && value_at(at->values, dtype, k) == d.value[i * cols + j];
          k++;
        }
      }
      CHECK_MSG(ok, "trial %d: transpose differs from the dense transpose", trial);
      CHECK_OK(ctx, ts_csr_transpose(ctx, at, &att));
      CHECK_MSG(att && same_csr(att, csr), "trial %d: transposing twice changed the matrix", trial);
    }
    ts_coo_destroy(back);
    ts_csr_destroy(att);
    ts_csr_destroy(at);
    ts_csr_destroy(csr2);
    ts_csc_destroy(csc);
    ts_csr_destroy(csr);
    dense_free(&d);
    ts_coo_destroy(coo);
  }
  ts_context_destroy(ctx);
}

/* Sort key of an entry for the large reference: (row, column, input order). */
typedef struct keyed {
  int32_t row, col;
  int64_t k;
} keyed;

static int compare_keyed(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  if (a->row != b->row)
    return a->row < b->row ? -1 : 1;
  if (a->col != b->col)
    return a->col < b->col ? -1 : 1;
  return a->k < b->k ? -1 : a->k > b->k;
}

/* A larger matrix (threaded paths): against a qsort reference, and the
 * same arrays bit for bit with 1 and 2 threads. */
static void test_large_and_threads(void) {
  unsigned long long seed = 7;
  const int64_t rows = 3000, cols = 2000, nnz = 400000;
  ts_coo *coo = random_coo(&seed, rows, cols, nnz, TS_FLOAT64);
  /* A few long unsorted rows too. */
  for (int64_t k = 0; k < 30000; k++)
    coo->row_idx[k] = (int32_t)(k % 3) * 1000;
  keyed *order = malloc((size_t)nnz * sizeof *order);
  for (int64_t k = 0; k < nnz; k++)
    order[k] = (keyed){coo->row_idx[k], coo->col_idx[k], k};
  qsort(order, (size_t)nnz, sizeof *order, compare_keyed);
  /* Reference CSR, duplicates summed in input order. */
  int64_t *ref_ptr = calloc((size_t)rows + 1, sizeof(int64_t));
  int32_t *ref_cols = malloc((size_t)nnz * sizeof(int32_t));
  double *ref_values = malloc((size_t)nnz * sizeof(double));
  const double *v = coo->values;
  int64_t m = 0;
  for (int64_t t = 0; t < nnz; t++) {
    if (m > 0 && t > 0 && order[t].row == order[t - 1].row && order[t].col == order[t - 1].col) {
      ref_values[m - 1] += v[order[t].k];
    } else {
      ref_cols[m] = order[t].col;
      ref_values[m++] = v[order[t].k];
      ref_ptr[order[t].row + 1]++;
    }
  }
  for (int64_t i = 0; i < rows; i++)
    ref_ptr[i + 1] += ref_ptr[i];

  ts_csr *result[2] = {NULL, NULL};
  for (int threads = 1; threads <= 2; threads++) {
    ts_context *ctx = make_context(threads);
    CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &result[threads - 1]));
    ts_csr *c = result[threads - 1];
    if (c) {
      CHECK(c->nnz == m);
      CHECK(memcmp(c->row_ptr, ref_ptr, (size_t)(rows + 1) * 8) == 0);
      CHECK(c->nnz == m && memcmp(c->col_idx, ref_cols, (size_t)m * 4) == 0);
      CHECK(c->nnz == m && memcmp(c->values, ref_values, (size_t)m * 8) == 0);
    }
    ts_context_destroy(ctx);
  }
  CHECK(result[0] && result[1] && same_csr(result[0], result[1]));
  ts_csr_destroy(result[0]);
  ts_csr_destroy(result[1]);
  free(ref_ptr);
  free(ref_cols);
  free(ref_values);
  free(order);
  ts_coo_destroy(coo);
}

/* Expansion against the dense mirror, for each tag and both value types. */
static void test_expand_symmetric(void) {
  unsigned long long seed = 99;
  ts_context *ctx = make_context(0);
  const ts_symmetry tags[] = {TS_GENERAL, TS_SYMMETRIC, TS_SKEW_SYMMETRIC, TS_HERMITIAN};
  for (int trial = 0; trial < 24; trial++) {
    ts_symmetry tag = tags[trial % 4];
    ts_dtype dtype = (trial / 4) % 2 ? TS_FLOAT32 : TS_FLOAT64;
    int64_t n = 1 + (int64_t)((test_random(&seed) + 1) * 20);
    int64_t nnz = (int64_t)((test_random(&seed) + 1) * (double)(n * n) / 4);
    ts_coo *coo = random_coo(&seed, n, n, nnz, dtype);
    /* Lower triangle, except every 7th entry left where it is (either
     * triangle: mirrored all the same); skew: no diagonal. */
    for (int64_t k = 0; k < nnz; k++) {
      int32_t i = coo->row_idx[k], j = coo->col_idx[k];
      if (k % 7 != 0 && j > i) {
        coo->row_idx[k] = j;
        coo->col_idx[k] = i;
      }
      if (tag == TS_SKEW_SYMMETRIC && coo->row_idx[k] == coo->col_idx[k])
        coo->col_idx[k] = (i + 1) % (int32_t)n;
      if (tag == TS_SKEW_SYMMETRIC && coo->row_idx[k] == coo->col_idx[k])
        coo->row_idx[k] = 0, coo->col_idx[k] = 0;
    }
    coo->symmetry = tag;
    /* Dense mirror: mirrors follow their entry, as the expansion writes them. */
    ts_coo *mirror = NULL;
    ts_coo_create(NULL, n, n, 2 * nnz, dtype, &mirror);
    int64_t w = 0;
    for (int64_t k = 0; k < nnz; k++) {
      int32_t i = coo->row_idx[k], j = coo->col_idx[k];
      double x = value_at(coo->values, dtype, k);
      mirror->row_idx[w] = i, mirror->col_idx[w] = j, set_value(mirror->values, dtype, w++, x);
      if (tag != TS_GENERAL && i != j)
        mirror->row_idx[w] = j, mirror->col_idx[w] = i,
        set_value(mirror->values, dtype, w++, tag == TS_SKEW_SYMMETRIC ? -x : x);
    }
    mirror->nnz = w;
    dense d = dense_from_coo(mirror);

    ts_coo *general = NULL;
    ts_csr *csr = NULL;
    CHECK_OK(ctx, ts_coo_expand_symmetric(ctx, coo, &general));
    if (general) {
      CHECK(general->symmetry == TS_GENERAL && general->nnz == w);
      CHECK(memcmp(general->row_idx, mirror->row_idx, (size_t)w * 4) == 0);
      CHECK(memcmp(general->col_idx, mirror->col_idx, (size_t)w * 4) == 0);
      CHECK(memcmp(general->values, mirror->values, (size_t)w * ts_dtype_size(dtype)) == 0);
      CHECK_OK(ctx, ts_csr_from_coo(ctx, general, TS_DUPLICATES_SUM, &csr));
      CHECK_MSG(csr && csr_equals_dense(csr, &d), "trial %d (%s): expanded matrix differs from the dense mirror", trial,
                ts_symmetry_name(tag));
      /* The expanded pattern is symmetric. */
      int64_t unmatched = 0;
      for (int64_t i = 0; tag != TS_GENERAL && i < n; i++)
        for (int64_t j = 0; j < n; j++)
          unmatched += d.present[i * n + j] != d.present[j * n + i];
      CHECK(unmatched == 0);
    }
    /* Transpose of tagged storage: A^T = A (copy), skew: -A. */
    ts_csr *stored = NULL, *at = NULL;
    ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &stored);
    CHECK_OK(ctx, ts_csr_transpose(ctx, stored, &at));
    if (stored && at && tag != TS_GENERAL) {
      int ok = at->symmetry == tag && at->nnz == stored->nnz &&
               memcmp(at->row_ptr, stored->row_ptr, (size_t)(n + 1) * 8) == 0 &&
               memcmp(at->col_idx, stored->col_idx, (size_t)stored->nnz * 4) == 0;
      for (int64_t k = 0; ok && k < stored->nnz; k++)
        ok &=
            value_at(at->values, dtype, k) == (tag == TS_SKEW_SYMMETRIC ? -1 : 1) * value_at(stored->values, dtype, k);
      CHECK_MSG(ok, "trial %d: transpose of %s storage", trial, ts_symmetry_name(tag));
    }
    ts_csr_destroy(at);
    ts_csr_destroy(stored);
    ts_csr_destroy(csr);
    ts_coo_destroy(general);
    dense_free(&d);
    ts_coo_destroy(mirror);
    ts_coo_destroy(coo);
  }
  ts_context_destroy(ctx);
}

/* Bad input: statuses, messages naming the entry, outputs reset to NULL. */
static void test_errors(void) {
  ts_context *ctx = make_context(0);
  const int ri[] = {0, 1, 5, 2};
  const int ci[] = {0, 1, 1, 2};
  const double v[] = {1, 2, 3, 4};
  ts_coo *coo = coo_from_triplets(4, 3, 4, ri, ci, v, TS_FLOAT64);
  ts_csr *csr = (ts_csr *)ctx;
  CHECK_STATUS(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr), TS_ERROR_INVALID_MATRIX);
  CHECK(csr == NULL);
  CHECK_MSG(strstr(ts_last_error(ctx), "entry 2 (row 5, column 1)") != NULL, "%s", ts_last_error(ctx));
  coo->row_idx[2] = 3;
  coo->col_idx[3] = -1;
  CHECK_STATUS(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr), TS_ERROR_INVALID_MATRIX);
  CHECK_MSG(strstr(ts_last_error(ctx), "entry 3 (row 2, column -1)") != NULL, "%s", ts_last_error(ctx));
  coo->col_idx[3] = 2;
  CHECK_STATUS(ctx, ts_coo_expand_symmetric(ctx, coo, NULL), TS_ERROR_INVALID_ARGUMENT);
  coo->symmetry = TS_SYMMETRIC; /* 4x3 cannot be symmetric */
  ts_coo *general = (ts_coo *)ctx;
  CHECK_STATUS(ctx, ts_coo_expand_symmetric(ctx, coo, &general), TS_ERROR_INVALID_MATRIX);
  CHECK(general == NULL);
  CHECK(strstr(ts_last_error(ctx), "non-square") != NULL);
  coo->symmetry = TS_GENERAL;
  coo->nnz = 5; /* more than the capacity */
  CHECK_STATUS(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr), TS_ERROR_INVALID_MATRIX);
  CHECK(strstr(ts_last_error(ctx), "exceed the capacity") != NULL);
  coo->nnz = 4;
  CHECK_STATUS(ctx, ts_csr_from_coo(ctx, coo, (ts_duplicates)9, &csr), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_from_coo(ctx, NULL, TS_DUPLICATES_SUM, &csr), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_coo_from_csr(NULL, NULL, &general), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "ts_coo_from_csr") != NULL);
  ts_csc *csc = NULL;
  CHECK_STATUS(ctx, ts_csc_from_csr(ctx, NULL, &csc), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_from_csc(ctx, NULL, &csr), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_transpose(ctx, NULL, &csr), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_transpose(ctx, csr, NULL), TS_ERROR_INVALID_ARGUMENT);

  /* An invalid CSR is refused by every conversion, naming the row and entry. */
  CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr));
  if (csr) {
    csr->col_idx[1] = 7;
    CHECK_STATUS(ctx, ts_csc_from_csr(ctx, csr, &csc), TS_ERROR_INVALID_MATRIX);
    CHECK_MSG(strstr(ts_last_error(ctx), "ts_csc_from_csr: row 1, entry 1: column 7") != NULL, "%s",
              ts_last_error(ctx));
    ts_csr *at = NULL;
    CHECK_STATUS(ctx, ts_csr_transpose(ctx, csr, &at), TS_ERROR_INVALID_MATRIX);
    CHECK_STATUS(ctx, ts_coo_from_csr(ctx, csr, &general), TS_ERROR_INVALID_MATRIX);
    CHECK(at == NULL && csc == NULL && general == NULL);
  }
  ts_csr_destroy(csr);
  ts_coo_destroy(coo);
  ts_context_destroy(ctx);
}

/* Edge shapes: 0x0, 3x4 without entries, 1x1. */
static void test_empty(void) {
  const int64_t shapes[][2] = {{0, 0}, {3, 4}, {1, 1}, {0, 5}, {5, 0}};
  for (int s = 0; s < 5; s++) {
    ts_coo *coo = NULL, *back = NULL;
    ts_csr *csr = NULL, *csr2 = NULL, *at = NULL;
    ts_csc *csc = NULL;
    CHECK_OK(NULL, ts_coo_create(NULL, shapes[s][0], shapes[s][1], 0, TS_FLOAT32, &coo));
    CHECK_OK(NULL, ts_csr_from_coo(NULL, coo, TS_DUPLICATES_ERROR, &csr));
    CHECK_OK(NULL, ts_csc_from_csr(NULL, csr, &csc));
    CHECK_OK(NULL, ts_csr_from_csc(NULL, csc, &csr2));
    CHECK_OK(NULL, ts_csr_transpose(NULL, csr2, &at));
    CHECK_OK(NULL, ts_coo_from_csr(NULL, at, &back));
    CHECK(csr && csr->nnz == 0 && csr->row_ptr[csr->rows] == 0);
    CHECK(at && at->rows == shapes[s][1] && at->cols == shapes[s][0]);
    CHECK(back && back->nnz == 0);
    ts_coo_destroy(back);
    ts_csr_destroy(at);
    ts_csr_destroy(csr2);
    ts_csc_destroy(csc);
    ts_csr_destroy(csr);
    ts_coo_destroy(coo);
  }
}

int main(void) {
  test_hand_example(TS_FLOAT64);
  test_hand_example(TS_FLOAT32);
  test_duplicate_order();
  test_random_round_trips();
  test_large_and_threads();
  test_expand_symmetric();
  test_errors();
  test_empty();
  return test_finish();
}
