/* ts_csr_stats_compute against hand-computed figures and a naive
 * computation (linear search for mirrors) on random matrices. */
#include "test_common.h"

#include <stdint.h>

static ts_csr *csr_from_triplets(int64_t rows, int64_t cols, int n, const int *ri, const int *ci, const double *v,
                                 ts_dtype dtype) {
  ts_coo *coo = NULL;
  ts_csr *csr = NULL;
  if (ts_coo_create(NULL, rows, cols, n, dtype, &coo) != TS_SUCCESS)
    return NULL;
  for (int k = 0; k < n; k++) {
    coo->row_idx[k] = ri[k];
    coo->col_idx[k] = ci[k];
    if (dtype == TS_FLOAT32)
      ((float *)coo->values)[k] = (float)v[k];
    else
      ((double *)coo->values)[k] = v[k];
  }
  coo->nnz = n;
  ts_csr_from_coo(NULL, coo, TS_DUPLICATES_SUM, &csr);
  ts_coo_destroy(coo);
  return csr;
}

static void test_hand_example(void) {
  /* 4x4: row 0 = {(0,0)=1, (0,2)=5}; row 1 empty; row 2 = {(2,0)=5, (2,1)=3,
   * (2,3)=2}; row 3 = {(3,2)=-2, (3,3)=4}. Row lengths 2,0,3,2: mean 1.75,
   * population variance 4.75/4. Off-diagonal: 5 entries; mirrors stored for
   * (0,2),(2,0),(2,3),(3,2) -> 4/5; equal values for (0,2),(2,0) -> 2/5. */
  const int ri[] = {0, 0, 2, 2, 2, 3, 3};
  const int ci[] = {0, 2, 0, 1, 3, 2, 3};
  const double v[] = {1, 5, 5, 3, 2, -2, 4};
  for (int t = 0; t < 2; t++) {
    ts_csr *csr = csr_from_triplets(4, 4, 7, ri, ci, v, t ? TS_FLOAT32 : TS_FLOAT64);
    ts_csr_stats s;
    CHECK_OK(NULL, ts_csr_stats_compute(NULL, csr, &s));
    CHECK(s.rows == 4 && s.cols == 4 && s.nnz == 7);
    CHECK(s.min_row == 0 && s.max_row == 3 && s.empty_rows == 1);
    CHECK(fabs(s.mean_row - 1.75) < 1e-15);
    CHECK(fabs(s.stddev_row - sqrt(4.75 / 4)) < 1e-15);
    CHECK(s.max_col == 2 && s.empty_cols == 0);
    CHECK(s.diagonal == 2 && s.bandwidth == 2);
    CHECK(fabs(s.pattern_symmetry - 0.8) < 1e-15);
    CHECK(fabs(s.value_symmetry - 0.4) < 1e-15);
    ts_csr_destroy(csr);
  }

  /* 3x5, non-square: symmetry fractions are 0. Columns 1 and 3 empty. */
  const int ri2[] = {0, 2, 2, 2};
  const int ci2[] = {4, 0, 2, 4};
  const double v2[] = {1, 1, 1, 1};
  ts_csr *wide = csr_from_triplets(3, 5, 4, ri2, ci2, v2, TS_FLOAT64);
  ts_csr_stats s;
  CHECK_OK(NULL, ts_csr_stats_compute(NULL, wide, &s));
  CHECK(s.min_row == 0 && s.max_row == 3 && s.empty_rows == 1 && s.max_col == 2 && s.empty_cols == 2);
  CHECK(s.diagonal == 1 && s.bandwidth == 4); /* (2,2) is on the diagonal */
  CHECK(s.pattern_symmetry == 0.0 && s.value_symmetry == 0.0);
  ts_csr_destroy(wide);

  /* Empty and diagonal matrices: no off-diagonal entry, fractions 1. */
  ts_csr *empty = NULL;
  ts_csr_create(NULL, 0, 0, 0, TS_FLOAT64, &empty);
  CHECK_OK(NULL, ts_csr_stats_compute(NULL, empty, &s));
  CHECK(s.rows == 0 && s.nnz == 0 && s.min_row == 0 && s.max_row == 0 && s.mean_row == 0 && s.stddev_row == 0);
  CHECK(s.pattern_symmetry == 1.0 && s.value_symmetry == 1.0);
  ts_csr_destroy(empty);
  const int rd[] = {0, 1, 2};
  ts_csr *diag = csr_from_triplets(3, 3, 3, rd, rd, v2, TS_FLOAT32);
  CHECK_OK(NULL, ts_csr_stats_compute(NULL, diag, &s));
  CHECK(s.diagonal == 3 && s.bandwidth == 0 && s.stddev_row == 0 && s.pattern_symmetry == 1.0);

  /* Errors: NULL arguments, invalid matrix. */
  CHECK_STATUS(NULL, ts_csr_stats_compute(NULL, NULL, &s), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_csr_stats_compute(NULL, diag, NULL), TS_ERROR_INVALID_ARGUMENT);
  diag->col_idx[1] = 3;
  CHECK_STATUS(NULL, ts_csr_stats_compute(NULL, diag, &s), TS_ERROR_INVALID_MATRIX);
  CHECK(strstr(ts_last_error(NULL), "row 1, entry 1: column 3") != NULL);
  ts_csr_destroy(diag);
}

/* Naive statistics straight from the definitions. */
static ts_csr_stats naive_stats(const ts_csr *a) {
  ts_csr_stats s;
  memset(&s, 0, sizeof s);
  s.rows = a->rows;
  s.cols = a->cols;
  s.nnz = a->nnz;
  s.min_row = a->rows ? a->nnz : 0;
  double sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < a->rows; i++) {
    int64_t n = a->row_ptr[i + 1] - a->row_ptr[i];
    if (n < s.min_row)
      s.min_row = n;
    if (n > s.max_row)
      s.max_row = n;
    s.empty_rows += n == 0;
    sum += (double)n;
    sum_sq += (double)n * (double)n;
  }
  if (a->rows) {
    s.mean_row = sum / (double)a->rows;
    double var = sum_sq / (double)a->rows - s.mean_row * s.mean_row;
    s.stddev_row = sqrt(var > 0 ? var : 0);
  }
  int64_t *count = calloc((size_t)a->cols + 1, sizeof *count);
  for (int64_t k = 0; k < a->nnz; k++)
    count[a->col_idx[k]]++;
  for (int64_t j = 0; j < a->cols; j++) {
    if (count[j] > s.max_col)
      s.max_col = count[j];
    s.empty_cols += count[j] == 0;
  }
  free(count);
  int64_t off = 0, mirrored = 0, equal = 0;
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      int64_t j = a->col_idx[k];
      s.diagonal += j == i;
      if (llabs(j - i) > s.bandwidth)
        s.bandwidth = llabs(j - i);
      if (j == i || a->rows != a->cols)
        continue;
      off++;
      for (int64_t m = a->row_ptr[j]; m < a->row_ptr[j + 1]; m++)
        if (a->col_idx[m] == i) {
          mirrored++;
          double x = a->dtype == TS_FLOAT32 ? ((float *)a->values)[k] : ((double *)a->values)[k];
          double y = a->dtype == TS_FLOAT32 ? ((float *)a->values)[m] : ((double *)a->values)[m];
          equal += x == y;
        }
    }
  if (a->rows == a->cols) {
    s.pattern_symmetry = off ? (double)mirrored / (double)off : 1.0;
    s.value_symmetry = off ? (double)equal / (double)off : 1.0;
  }
  return s;
}

static void test_random_matrices(void) {
  unsigned long long seed = 2024;
  for (int trial = 0; trial < 40; trial++) {
    int64_t rows = 1 + (int64_t)((test_random(&seed) + 1) * 40);
    int64_t cols = trial % 3 == 0 ? rows : 1 + (int64_t)((test_random(&seed) + 1) * 40);
    int n = (int)((test_random(&seed) + 1) * 0.3 * (double)(rows * cols));
    int *ri = malloc((size_t)(2 * n + 1) * sizeof(int)), *ci = malloc((size_t)(2 * n + 1) * sizeof(int));
    double *v = malloc((size_t)(2 * n + 1) * sizeof(double));
    int m = 0;
    for (int k = 0; k < n; k++) {
      ri[m] = (int)((test_random(&seed) + 1) * 0.5 * (double)rows);
      ci[m] = (int)((test_random(&seed) + 1) * 0.5 * (double)cols);
      v[m] = (double)(int)(test_random(&seed) * 3); /* few distinct values: some mirrors equal */
      m++;
      /* Square matrices: mirror about half of the entries, equal or not. */
      if (rows == cols && test_random(&seed) > 0) {
        ri[m] = ci[m - 1];
        ci[m] = ri[m - 1];
        v[m] = test_random(&seed) > 0 ? v[m - 1] : v[m - 1] + 1;
        m++;
      }
    }
    ts_csr *csr = csr_from_triplets(rows, cols, m, ri, ci, v, trial % 2 ? TS_FLOAT32 : TS_FLOAT64);
    ts_csr_stats got, want = naive_stats(csr);
    CHECK_OK(NULL, ts_csr_stats_compute(NULL, csr, &got));
    CHECK_MSG(got.rows == want.rows && got.cols == want.cols && got.nnz == want.nnz && got.min_row == want.min_row &&
                  got.max_row == want.max_row && got.empty_rows == want.empty_rows && got.max_col == want.max_col &&
                  got.empty_cols == want.empty_cols && got.diagonal == want.diagonal && got.bandwidth == want.bandwidth,
              "trial %d: counts differ", trial);
    CHECK(fabs(got.mean_row - want.mean_row) <= 1e-12 * (1 + want.mean_row));
    CHECK(fabs(got.stddev_row - want.stddev_row) <= 1e-9 * (1 + want.stddev_row));
    CHECK_MSG(got.pattern_symmetry == want.pattern_symmetry && got.value_symmetry == want.value_symmetry,
              "trial %d: symmetry %g/%g, want %g/%g", trial, got.pattern_symmetry, got.value_symmetry,
              want.pattern_symmetry, want.value_symmetry);
    if (rows == cols && m > 4)
      CHECK(want.pattern_symmetry > 0 && want.pattern_symmetry <= 1);
    ts_csr_destroy(csr);
    free(ri);
    free(ci);
    free(v);
  }
}

/* A larger matrix takes the threaded path: the same figures with 1 and 2 threads. */
static void test_threads(void) {
  ts_csr *a = NULL;
  const int64_t n = 20000, per_row = 12;
  ts_csr_create(NULL, n, n, n * per_row, TS_FLOAT64, &a);
  unsigned long long seed = 5;
  for (int64_t i = 0; i < n; i++) {
    a->row_ptr[i + 1] = (i + 1) * per_row;
    for (int64_t t = 0; t < per_row; t++) {
      /* Banded columns i - 6 .. i + 5 (wrapped), sorted after the wrap. */
      a->col_idx[i * per_row + t] = (int32_t)t;
      ((double *)a->values)[i * per_row + t] = test_random(&seed) > 0 ? 1.0 : 2.0;
    }
    int64_t first = i - 6 < 0 ? 0 : (i + 6 > n ? n - per_row : i - 6);
    for (int64_t t = 0; t < per_row; t++)
      a->col_idx[i * per_row + t] = (int32_t)(first + t);
  }
  ts_csr_stats s[2];
  for (int threads = 1; threads <= 2; threads++) {
    ts_context_options options = {0};
    options.backend = TS_BACKEND_CPU;
    options.num_threads = threads;
    ts_context *ctx = NULL;
    ts_context_create(&ctx, &options);
    CHECK_OK(ctx, ts_csr_stats_compute(ctx, a, &s[threads - 1]));
    ts_context_destroy(ctx);
  }
  ts_csr_stats want = naive_stats(a);
  CHECK(s[0].nnz == s[1].nnz && s[0].min_row == s[1].min_row && s[0].max_row == s[1].max_row &&
        s[0].mean_row == s[1].mean_row && s[0].stddev_row == s[1].stddev_row && s[0].empty_rows == s[1].empty_rows &&
        s[0].max_col == s[1].max_col && s[0].empty_cols == s[1].empty_cols && s[0].diagonal == s[1].diagonal &&
        s[0].bandwidth == s[1].bandwidth && s[0].pattern_symmetry == s[1].pattern_symmetry &&
        s[0].value_symmetry == s[1].value_symmetry);
  CHECK(s[0].pattern_symmetry == want.pattern_symmetry && s[0].value_symmetry == want.value_symmetry);
  CHECK(s[0].bandwidth == want.bandwidth && s[0].diagonal == n);
  ts_csr_destroy(a);
}

int main(void) {
  test_hand_example();
  test_random_matrices();
  test_threads();
  return test_finish();
}
