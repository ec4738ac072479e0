/* ts_csr_spmv_host (float and double) against a double-precision reference
 * summed over the COO entries, with a tolerance from the bound
 * |fl(y) - y| <= gamma_(n+2) * (|alpha| |A||x| + |beta| |y|) of a
 * recursive sum of n products (Higham, Accuracy and Stability of Numerical
 * Algorithms, 2nd ed., section 3.1); on the matrix corpus, generated
 * matrices and edge shapes. Also bitwise equality for 1 and 2 threads. */
#include "test_common.h"

#include <float.h>
#include <stdint.h>

static ts_context *cpu_context(int threads) {
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

/* Check y = alpha*A*x + beta*y for A (general CSR) and one (alpha, beta);
 * returns the number of rows outside the tolerance. */
static int64_t check_one(const char *name, const ts_csr *a, double alpha, double beta, unsigned long long *seed,
                         int nan_y) {
  ts_dtype dtype = a->dtype;
  const int64_t rows = a->rows, cols = a->cols;
  size_t vs = ts_dtype_size(dtype);
  void *x = malloc((size_t)cols * vs + 8), *y = malloc((size_t)rows * vs + 8);
  double *y0 = calloc((size_t)rows + 1, sizeof(double));
  double *ref = calloc((size_t)rows + 1, sizeof(double)), *bound = calloc((size_t)rows + 1, sizeof(double));
  for (int64_t j = 0; j < cols; j++) {
    double v = test_random(seed);
    if (dtype == TS_FLOAT32)
      ((float *)x)[j] = (float)v;
    else
      ((double *)x)[j] = v;
  }
  for (int64_t i = 0; i < rows; i++) {
    double v = nan_y ? NAN : test_random(seed);
    if (dtype == TS_FLOAT32)
      ((float *)y)[i] = (float)v;
    else
      ((double *)y)[i] = v;
    y0[i] = value_at(y, dtype, i);
  }
  /* Reference over the entries as COO, in double. */
  for (int64_t i = 0; i < rows; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      double p = value_at(a->values, dtype, k) * value_at(x, dtype, a->col_idx[k]);
      ref[i] += p;
      bound[i] += fabs(p);
    }
  ts_context *ctx = cpu_context(0);
  ts_status st = ts_csr_spmv_host(ctx, alpha, a, x, beta, y);
  CHECK_MSG(st == TS_SUCCESS, "%s: %s", name, ts_last_error(ctx));
  double u = dtype == TS_FLOAT32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
  double tiny = dtype == TS_FLOAT32 ? FLT_MIN : DBL_MIN;
  int64_t bad = 0;
  for (int64_t i = 0; i < rows; i++) {
    double want = alpha * ref[i] + (beta == 0 ? 0.0 : beta * y0[i]);
    double n = (double)(a->row_ptr[i + 1] - a->row_ptr[i]) + 2;
    double gamma = n * u / (1 - n * u);
    double tol = 2 * gamma * (fabs(alpha) * bound[i] + (beta == 0 ? 0.0 : fabs(beta * y0[i]))) + 4 * tiny;
    double got = value_at(y, dtype, i);
    if (!(fabs(got - want) <= tol)) {
      if (bad < 3)
        fprintf(stderr, "%s (%s, alpha %g, beta %g): row %lld: %.17g, want %.17g (tolerance %.3g)\n", name,
                dtype == TS_FLOAT32 ? "float" : "double", alpha, beta, (long long)i, got, want, tol);
      bad++;
    }
  }
  ts_context_destroy(ctx);
  free(x);
  free(y);
  free(y0);
  free(ref);
  free(bound);
  return bad;
}

/* The alpha/beta combinations of interest, exactly representable in float. */
static void check_matrix(const char *name, const ts_csr *a, unsigned long long *seed) {
  static const double pairs[][2] = {{1, 0}, {-1.25, 0}, {0.5, 2}, {1, 1}, {0, 0.75}, {0, 0}, {3, -1}};
  int64_t bad = 0;
  for (int p = 0; p < 7; p++)
    bad += check_one(name, a, pairs[p][0], pairs[p][1], seed, 0);
  /* beta = 0 with NaN in y: the NaN must not come through. */
  bad += check_one(name, a, 1.5, 0, seed, 1);
  CHECK_MSG(bad == 0, "%s: %lld rows outside the tolerance", name, (long long)bad);
}

/* The same y bit for bit with 1 and 2 threads. */
static void check_threads(const char *name, const ts_csr *a) {
  size_t vs = ts_dtype_size(a->dtype);
  unsigned char *x = malloc((size_t)a->cols * vs + 8);
  unsigned char *y[2] = {malloc((size_t)a->rows * vs + 8), malloc((size_t)a->rows * vs + 8)};
  unsigned long long seed = 11;
  for (int64_t j = 0; j < a->cols; j++) {
    if (a->dtype == TS_FLOAT32)
      ((float *)x)[j] = (float)test_random(&seed);
    else
      ((double *)x)[j] = test_random(&seed);
  }
  for (int t = 0; t < 2; t++) {
    memset(y[t], 0x7f, (size_t)a->rows * vs);
    ts_context *ctx = cpu_context(t + 1);
    CHECK_OK(ctx, ts_csr_spmv_host(ctx, 0.75, a, x, 0.5, y[t]));
    ts_context_destroy(ctx);
  }
  CHECK_MSG(memcmp(y[0], y[1], (size_t)a->rows * vs) == 0, "%s: 1 and 2 threads differ", name);
  free(x);
  free(y[0]);
  free(y[1]);
}

/* A CSR of the given dtype from a double CSR (same pattern). */
static ts_csr *as_float(const ts_csr *a) {
  ts_csr *f = NULL;
  if (ts_csr_create(NULL, a->rows, a->cols, a->nnz, TS_FLOAT32, &f) != TS_SUCCESS)
    return NULL;
  memcpy(f->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
  memcpy(f->col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
  for (int64_t k = 0; k < a->nnz; k++)
    ((float *)f->values)[k] = (float)((const double *)a->values)[k];
  return f;
}

static void check_both_types(const char *name, const ts_csr *a, unsigned long long *seed) {
  check_matrix(name, a, seed);
  check_threads(name, a);
  ts_csr *f = as_float(a);
  CHECK(f != NULL);
  if (f) {
    check_matrix(name, f, seed);
    check_threads(name, f);
  }
  ts_csr_destroy(f);
}

/* Random CSR: rows of random length (some empty), random columns. */
static ts_csr *random_csr(unsigned long long *seed, int64_t rows, int64_t cols, double density) {
  ts_coo *coo = NULL;
  ts_csr *csr = NULL;
  int64_t nnz = (int64_t)(density * (double)rows * (double)cols);
  ts_coo_create(NULL, rows, cols, nnz, TS_FLOAT64, &coo);
  for (int64_t k = 0; k < nnz; k++) {
    coo->row_idx[k] = (int32_t)((test_random(seed) + 1) * 0.5 * (double)rows);
    coo->col_idx[k] = (int32_t)((test_random(seed) + 1) * 0.5 * (double)cols);
    ((double *)coo->values)[k] = test_random(seed) * 100;
  }
  coo->nnz = nnz;
  ts_csr_from_coo(NULL, coo, TS_DUPLICATES_SUM, &csr);
  ts_coo_destroy(coo);
  return csr;
}

static void test_edge_shapes(void) {
  unsigned long long seed = 1;
  const int64_t shapes[][2] = {{0, 0}, {3, 4}, {1, 1}, {0, 7}, {7, 0}};
  for (int s = 0; s < 5; s++) {
    ts_csr *a = NULL;
    CHECK_OK(NULL, ts_csr_create(NULL, shapes[s][0], shapes[s][1], 0, TS_FLOAT64, &a));
    char name[64];
    snprintf(name, sizeof name, "empty %lldx%lld", (long long)shapes[s][0], (long long)shapes[s][1]);
    check_both_types(name, a, &seed);
    ts_csr_destroy(a);
  }
  /* 0x0 and 3x4 without entries need no x; 0 rows need no y. */
  ts_csr *a = NULL;
  ts_csr_create(NULL, 3, 4, 0, TS_FLOAT64, &a);
  double y[3] = {NAN, 1, 2};
  CHECK_OK(NULL, ts_csr_spmv_host(NULL, 1, a, NULL, 0, y));
  CHECK(y[0] == 0 && y[1] == 0 && y[2] == 0);
  ts_csr_destroy(a);

  /* 1x1 with a stored entry. */
  ts_csr_create(NULL, 1, 1, 1, TS_FLOAT64, &a);
  a->row_ptr[1] = 1;
  a->col_idx[0] = 0;
  ((double *)a->values)[0] = -3.5;
  check_both_types("1x1", a, &seed);
  double x1 = 2, y1 = 10;
  CHECK_OK(NULL, ts_csr_spmv_host(NULL, 2, a, &x1, -1, &y1));
  CHECK(y1 == 2 * -7.0 - 10);
  ts_csr_destroy(a);

  /* A single column, a single dense row of 10^6 columns, empty rows. */
  a = random_csr(&seed, 500, 1, 0.5);
  check_both_types("single column", a, &seed);
  ts_csr_destroy(a);
  const int64_t wide = 1000000;
  ts_csr_create(NULL, 1, wide, wide, TS_FLOAT64, &a);
  a->row_ptr[1] = wide;
  for (int64_t k = 0; k < wide; k++) {
    a->col_idx[k] = (int32_t)k;
    ((double *)a->values)[k] = test_random(&seed);
  }
  check_both_types("1 x 10^6 row", a, &seed);
  ts_csr_destroy(a);
  a = random_csr(&seed, 2000, 300, 0.002); /* most rows empty */
  check_both_types("mostly empty rows", a, &seed);
  ts_csr_destroy(a);
  for (int t = 0; t < 6; t++) {
    a = random_csr(&seed, 1 + t * 97, 1 + t * 61, 0.05 * (t + 1));
    check_both_types("random", a, &seed);
    ts_csr_destroy(a);
  }
}

static void test_errors(void) {
  ts_csr *a = NULL;
  ts_csr_create(NULL, 2, 2, 1, TS_FLOAT64, &a);
  a->row_ptr[1] = a->row_ptr[2] = 1;
  a->col_idx[0] = 1;
  ((double *)a->values)[0] = 1;
  double x[2] = {1, 2}, y[2] = {0, 0};
  CHECK_STATUS(NULL, ts_csr_spmv_host(NULL, 1, NULL, x, 0, y), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_csr_spmv_host(NULL, 1, a, NULL, 0, y), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_csr_spmv_host(NULL, 1, a, x, 0, NULL), TS_ERROR_INVALID_ARGUMENT);
  a->symmetry = TS_SYMMETRIC;
  CHECK_STATUS(NULL, ts_csr_spmv_host(NULL, 1, a, x, 0, y), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "ts_coo_expand_symmetric") != NULL);
  a->symmetry = TS_GENERAL;
  a->dtype = (ts_dtype)4;
  CHECK_STATUS(NULL, ts_csr_spmv_host(NULL, 1, a, x, 0, y), TS_ERROR_INVALID_MATRIX);
  a->dtype = TS_FLOAT64;
  CHECK_OK(NULL, ts_csr_spmv_host(NULL, 1, a, x, 0, y));
  CHECK(y[0] == 2 && y[1] == 0);
  ts_csr_destroy(a);
}

/* Generated matrices (general CSR straight from the generators). */
static void test_generated(void) {
  unsigned long long seed = 3;
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 40, 30, TS_FLOAT64, &a));
  if (a)
    check_both_types("laplacian 2d", a, &seed);
  ts_csr_destroy(a);
  a = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_3d(NULL, 12, 10, 8, TS_FLOAT64, &a));
  if (a)
    check_both_types("laplacian 3d", a, &seed);
  ts_csr_destroy(a);
  a = NULL;
  CHECK_OK(NULL, ts_gen_banded(NULL, 3000, 5, 9, 17, TS_FLOAT64, &a));
  if (a)
    check_both_types("banded", a, &seed);
  ts_csr_destroy(a);
  a = NULL;
  CHECK_OK(NULL, ts_gen_random_uniform(NULL, 2000, 1500, 16, 5, TS_FLOAT64, &a));
  if (a)
    check_both_types("random uniform", a, &seed);
  ts_csr_destroy(a);
  a = NULL;
  CHECK_OK(NULL, ts_gen_power_law(NULL, 5000, 5000, 60000, 1.0, 8, TS_FLOAT64, &a));
  if (a)
    check_both_types("power law", a, &seed);
  ts_csr_destroy(a);
  a = NULL;
  ts_rmat_params rmat = ts_rmat_graph500(12, 8);
  CHECK_OK(NULL, ts_gen_rmat(NULL, &rmat, 9, TS_FLOAT64, &a));
  if (a)
    check_both_types("rmat", a, &seed);
  ts_csr_destroy(a);
  a = NULL;
  ts_circuit_params circuit = ts_circuit_defaults(4000);
  CHECK_OK(NULL, ts_gen_circuit(NULL, &circuit, 4, TS_FLOAT64, &a));
  if (a)
    check_both_types("circuit", a, &seed);
  ts_csr_destroy(a);
}

/* Every corpus matrix: read, expand symmetric storage, convert, multiply. */
static void test_corpus(void) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("SKIPPED: corpus part (TESSERA_MATRICES is not set or has no MANIFEST.tsv)\n");
    return;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  char line[8192];
  int matrices = 0;
  unsigned long long seed = 77;
  while (manifest && fgets(line, sizeof line, manifest)) {
    char name[256];
    if (sscanf(line, "%255[^\t]", name) != 1 || strcmp(name, "name") == 0)
      continue;
    snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
    ts_csr *a = NULL;
    ts_status st = ts_mm_read_csr(NULL, path, TS_FLOAT64, &a, NULL);
    CHECK_MSG(st == TS_SUCCESS, "%s: %s", name, ts_last_error(NULL));
    if (a) {
      CHECK_OK(NULL, ts_csr_check(NULL, a));
      check_both_types(name, a, &seed);
      matrices++;
    }
    ts_csr_destroy(a);
  }
  if (manifest)
    fclose(manifest);
  printf("corpus: %d matrices checked\n", matrices);
  CHECK(matrices > 0);
}

int main(void) {
  test_edge_shapes();
  test_errors();
  test_generated();
  test_corpus();
  return test_finish();
}
