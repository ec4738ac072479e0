/* Generators: grid Laplacians, banded, uniform random and power-law
 * matrices: exact sizes and values, statistics against independent
 * computations, determinism over thread counts, bad arguments. */
#include "test_gen_common.h"

/* Reference Laplacian entry from the grid geometry. */
static double laplacian_reference(int64_t nx, int64_t ny, int64_t nz, int64_t r, int64_t c) {
  int64_t rx = r % nx, ry = (r / nx) % ny, rz = r / (nx * ny);
  int64_t cx = c % nx, cy = (c / nx) % ny, cz = c / (nx * ny);
  int64_t distance = llabs(rx - cx) + llabs(ry - cy) + llabs(rz - cz);
  (void)nz;
  return distance == 1 ? -1.0 : 0.0; /* the diagonal is the caller's */
}

static void check_laplacian_dense(const ts_csr *a, int64_t nx, int64_t ny, int64_t nz, double diagonal) {
  int64_t n = nx * ny * nz, mismatches = 0;
  for (int64_t r = 0; r < n; r++)
    for (int64_t c = 0; c < n; c++) {
      double want = laplacian_reference(nx, ny, nz, r, c);
      if (r == c)
        want = diagonal;
      int64_t k = find_entry(a, r, c);
      double got = k < 0 ? 0.0 : value_at(a, k);
      if (got != want || (k >= 0) != (want != 0.0))
        mismatches++;
    }
  CHECK_MSG(mismatches == 0, "%lld entries differ from the %lldx%lldx%lld grid", (long long)mismatches, (long long)nx,
            (long long)ny, (long long)nz);
}

static void test_laplacians(void) {
  int64_t shapes[][2] = {{5, 4}, {1, 7}, {6, 1}, {1, 1}, {9, 9}};
  for (int s = 0; s < 5; s++) {
    int64_t nx = shapes[s][0], ny = shapes[s][1];
    ts_csr *a = NULL;
    CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, nx, ny, TS_FLOAT64, &a));
    if (!a)
      continue;
    CHECK_OK(NULL, ts_csr_check(NULL, a));
    CHECK(a->rows == nx * ny && a->cols == nx * ny && a->symmetry == TS_GENERAL);
    CHECK(a->nnz == 5 * nx * ny - 2 * nx - 2 * ny);
    check_laplacian_dense(a, nx, ny, 1, 4.0);
    ts_csr_destroy(a);
  }
  ts_csr *b = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_3d(NULL, 3, 4, 5, TS_FLOAT32, &b));
  if (b) {
    CHECK_OK(NULL, ts_csr_check(NULL, b));
    CHECK(b->rows == 60 && b->nnz == 7 * 60 - 2 * (4 * 5 + 3 * 5 + 3 * 4));
    check_laplacian_dense(b, 3, 4, 5, 6.0);
    ts_csr_destroy(b);
  }
  /* A flat 3-D grid keeps the 3-D diagonal. */
  CHECK_OK(NULL, ts_gen_laplacian_3d(NULL, 4, 3, 1, TS_FLOAT64, &b));
  if (b) {
    check_laplacian_dense(b, 4, 3, 1, 6.0);
    ts_csr_destroy(b);
  }
  CHECK_STATUS(NULL, ts_gen_laplacian_2d(NULL, 0, 5, TS_FLOAT64, &b), TS_ERROR_INVALID_ARGUMENT);
  CHECK(b == NULL);
  CHECK_STATUS(NULL, ts_gen_laplacian_2d(NULL, 5, -1, TS_FLOAT64, &b), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_laplacian_2d(NULL, 65536, 65536, TS_FLOAT64, &b), TS_ERROR_OVERFLOW);
  CHECK(strstr(ts_last_error(NULL), "65536") != NULL);
  CHECK_STATUS(NULL, ts_gen_laplacian_3d(NULL, 2048, 2048, 1024, TS_FLOAT64, &b), TS_ERROR_OVERFLOW);
  CHECK_STATUS(NULL, ts_gen_laplacian_3d(NULL, INT64_MAX, INT64_MAX, 2, TS_FLOAT64, &b), TS_ERROR_OVERFLOW);
  CHECK_STATUS(NULL, ts_gen_laplacian_2d(NULL, 3, 3, (ts_dtype)9, &b), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_laplacian_2d(NULL, 3, 3, TS_FLOAT64, NULL), TS_ERROR_INVALID_ARGUMENT);
}

static void test_banded(void) {
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_banded(NULL, 50, 3, 2, 7, TS_FLOAT64, &a));
  if (a) {
    CHECK_OK(NULL, ts_csr_check(NULL, a));
    int64_t expected_nnz = 0, bad_rows = 0, bad_values = 0;
    for (int64_t i = 0; i < 50; i++) {
      int64_t first = i - 3 < 0 ? 0 : i - 3, last = i + 2 > 49 ? 49 : i + 2;
      expected_nnz += last - first + 1;
      if (a->row_ptr[i + 1] - a->row_ptr[i] != last - first + 1 || a->col_idx[a->row_ptr[i]] != first)
        bad_rows++;
      double off = 0.0, diagonal = 0.0;
      for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
        double v = value_at(a, k);
        if (a->col_idx[k] == i) {
          diagonal = v;
        } else {
          off += fabs(v);
          if (v < -1.0 || v >= 1.0)
            bad_values++;
        }
      }
      if (!(diagonal > off) || fabs(diagonal - 1.0 - off) > 1e-12)
        bad_rows++;
    }
    CHECK(a->nnz == expected_nnz);
    CHECK(bad_rows == 0 && bad_values == 0);
    ts_csr_destroy(a);
  }
  /* Widths past n are clipped: a full matrix. */
  CHECK_OK(NULL, ts_gen_banded(NULL, 5, 10, 10, 7, TS_FLOAT32, &a));
  if (a) {
    CHECK(a->nnz == 25);
    ts_csr_destroy(a);
  }
  CHECK_OK(NULL, ts_gen_banded(NULL, 4, 0, 0, 7, TS_FLOAT64, &a));
  if (a) {
    CHECK(a->nnz == 4 && value_at(a, 2) == 1.0);
    ts_csr_destroy(a);
  }
  CHECK_STATUS(NULL, ts_gen_banded(NULL, 0, 1, 1, 7, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_banded(NULL, 10, -1, 1, 7, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_banded(NULL, (int64_t)1 << 32, 1, 1, 7, TS_FLOAT64, &a), TS_ERROR_OVERFLOW);
}

/* Rows of `per_row` distinct columns: counts per column near uniform. */
static void check_uniform_rows(int64_t rows, int64_t cols, int64_t per_row) {
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_random_uniform(NULL, rows, cols, per_row, 99, TS_FLOAT64, &a));
  if (!a)
    return;
  CHECK_OK(NULL, ts_csr_check(NULL, a));
  CHECK(a->rows == rows && a->cols == cols && a->nnz == rows * per_row);
  int64_t *column_count = calloc((size_t)cols, sizeof(int64_t)), bad_values = 0;
  for (int64_t k = 0; k < a->nnz; k++) {
    column_count[a->col_idx[k]]++;
    if (value_at(a, k) < -1.0 || value_at(a, k) >= 1.0)
      bad_values++;
  }
  /* Chi-square of the column counts against uniform: mean cols - 1, and far
   * below 2 cols for any sane sampler (a biased one gives many times more). */
  double expected = (double)rows * per_row / cols, chi2 = 0.0;
  for (int64_t j = 0; j < cols; j++)
    chi2 += (column_count[j] - expected) * (column_count[j] - expected) / expected;
  /* Sampling without replacement shrinks the variance by (1 - per_row/cols). */
  double dof = (double)(cols - 1) * (1.0 - (double)per_row / cols);
  CHECK_MSG(per_row == cols || (chi2 < dof + 6.0 * sqrt(2.0 * dof) && chi2 > dof - 6.0 * sqrt(2.0 * dof)),
            "%lld x %lld, %lld per row: chi2 %.1f for %.1f expected", (long long)rows, (long long)cols,
            (long long)per_row, chi2, dof);
  CHECK(bad_values == 0);
  free(column_count);
  ts_csr_destroy(a);
}

static void test_random_uniform(void) {
  check_uniform_rows(2000, 500, 7);    /* small rows: linear membership test */
  check_uniform_rows(2000, 5000, 100); /* Floyd's algorithm with a hash set */
  check_uniform_rows(400, 1000, 300);  /* selection sampling */
  check_uniform_rows(30, 40, 40);      /* full rows */
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_random_uniform(NULL, 10, 10, 0, 1, TS_FLOAT32, &a));
  if (a) {
    CHECK(a->nnz == 0 && a->row_ptr[10] == 0);
    CHECK_OK(NULL, ts_csr_check(NULL, a));
    ts_csr_destroy(a);
  }
  CHECK_STATUS(NULL, ts_gen_random_uniform(NULL, 10, 10, 11, 1, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_random_uniform(NULL, 10, 10, -1, 1, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_random_uniform(NULL, 0, 10, 1, 1, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_random_uniform(NULL, 10, (int64_t)INT32_MAX + 1, 1, 1, TS_FLOAT64, &a), TS_ERROR_OVERFLOW);
}

static int compare_descending(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x < y) - (x > y);
}

static void check_power_law(int64_t rows, int64_t cols, int64_t nnz, double exponent) {
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_power_law(NULL, rows, cols, nnz, exponent, 3, TS_FLOAT64, &a));
  if (!a)
    return;
  CHECK_OK(NULL, ts_csr_check(NULL, a));
  CHECK_MSG(llabs(a->nnz - nnz) <= nnz / 1000 + 1, "total %lld for %lld requested", (long long)a->nnz, (long long)nnz);
  int64_t *length = malloc((size_t)rows * sizeof(int64_t));
  int64_t increasing_steps = 0;
  for (int64_t i = 0; i < rows; i++) {
    length[i] = a->row_ptr[i + 1] - a->row_ptr[i];
    if (i > 0 && length[i] > length[i - 1])
      increasing_steps++;
  }
  /* Ranks are a random permutation, not the row order. */
  CHECK(increasing_steps > 0);
  qsort(length, (size_t)rows, sizeof(int64_t), compare_descending);
  /* Reference C by bisection on this test's own sum; the sorted lengths
   * must follow round(C / r^e) (off by one at rounding ties at most). */
  double lo = 0.0, hi = (double)cols * pow((double)rows, exponent);
  for (int it = 0; it < 100; it++) {
    double mid = 0.5 * (lo + hi);
    if (zipf_total(mid, rows, cols, exponent) < a->nnz)
      lo = mid;
    else
      hi = mid;
  }
  int64_t off = 0;
  for (int64_t r = 1; r <= rows; r++) {
    double len = hi * pow((double)r, -exponent);
    int64_t want = len >= (double)cols ? cols : (int64_t)llround(len);
    if (want < 1)
      want = 1;
    if (llabs(length[r - 1] - want) > 1)
      off++;
  }
  CHECK_MSG(off == 0, "%lld rows differ from round(C / r^%g) with C = %.1f", (long long)off, exponent, hi);
  CHECK(llabs(length[0] - (int64_t)fmin(hi, (double)cols)) <= 1);
  free(length);
  ts_csr_destroy(a);
}

static void test_power_law(void) {
  check_power_law(1 << 14, 1 << 14, (int64_t)(1 << 14) * 16, 0.9); /* longest row about 2600 */
  check_power_law(1 << 12, 1 << 12, (int64_t)(1 << 12) * 12, 1.2); /* the top rows hit the cap */
  check_power_law(1000, 300, 5000, 2.0);
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_power_law(NULL, 100, 100, 100, 1.0, 3, TS_FLOAT64, &a));
  if (a) {
    CHECK(a->nnz == 100 && a->row_ptr[1] == 1);
    ts_csr_destroy(a);
  }
  CHECK_OK(NULL, ts_gen_power_law(NULL, 20, 30, 600, 1.0, 3, TS_FLOAT64, &a));
  if (a) {
    CHECK(a->nnz == 600);
    ts_csr_destroy(a);
  }
  CHECK_STATUS(NULL, ts_gen_power_law(NULL, 100, 100, 99, 1.0, 3, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_power_law(NULL, 10, 10, 101, 1.0, 3, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_power_law(NULL, 10, 10, 50, 0.0, 3, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "exponent") != NULL);
  CHECK_STATUS(NULL, ts_gen_power_law(NULL, 10, 10, 50, -1.0, 3, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_power_law(NULL, 10, 10, 50, NAN, 3, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_power_law(NULL, 0, 10, 50, 1.0, 3, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
  CHECK(a == NULL);
}

static ts_status make_banded(const void *args, uint64_t seed, ts_csr **csr) {
  (void)args;
  return ts_gen_banded(NULL, 3000, 4, 6, seed, TS_FLOAT64, csr);
}
static ts_status make_uniform(const void *args, uint64_t seed, ts_csr **csr) {
  (void)args;
  return ts_gen_random_uniform(NULL, 3000, 2000, 150, seed, TS_FLOAT32, csr);
}
static ts_status make_power_law(const void *args, uint64_t seed, ts_csr **csr) {
  (void)args;
  return ts_gen_power_law(NULL, 1 << 13, 1 << 13, 16 << 13, 0.9, seed, TS_FLOAT64, csr);
}

static void test_determinism(void) {
  check_deterministic("banded", make_banded, NULL);
  check_deterministic("random_uniform", make_uniform, NULL);
  check_deterministic("power_law", make_power_law, NULL);
}

/* Progress reports reach the callback, and a cancel stops the generator. */
static int progress_calls;
static int count_progress(void *user, int64_t done, int64_t total) {
  (void)user;
  progress_calls++;
  return done > total;
}
static int cancel_at_once(void *user, int64_t done, int64_t total) {
  (void)user;
  (void)done;
  (void)total;
  return 1;
}

static void test_progress(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  if (!ctx)
    return;
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_context_set_progress(ctx, count_progress, NULL));
  CHECK_OK(ctx, ts_gen_laplacian_2d(ctx, 20, 20, TS_FLOAT64, &a));
  CHECK(progress_calls >= 1);
  ts_csr_destroy(a);
  CHECK_OK(ctx, ts_context_set_progress(ctx, cancel_at_once, NULL));
  CHECK_STATUS(ctx, ts_gen_random_uniform(ctx, 100, 100, 5, 1, TS_FLOAT64, &a), TS_ERROR_CANCELLED);
  CHECK(a == NULL && strstr(ts_last_error(ctx), "cancel") != NULL);
  CHECK_STATUS(ctx, ts_gen_power_law(ctx, 100, 100, 500, 1.0, 1, TS_FLOAT64, &a), TS_ERROR_CANCELLED);
  CHECK_STATUS(ctx, ts_gen_banded(ctx, 100, 1, 1, 1, TS_FLOAT64, &a), TS_ERROR_CANCELLED);
  CHECK(a == NULL);
  ts_context_destroy(ctx);
}

int main(void) {
  test_laplacians();
  test_banded();
  test_random_uniform();
  test_power_law();
  test_determinism();
  test_progress();
  return test_finish();
}
