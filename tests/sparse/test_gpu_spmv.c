/* SpMV plans on the CUDA backend against ts_csr_spmv_host in double, with
 * |alpha||A||x| + |beta||y| error bounds: hand-made and random matrices in
 * float and double, edge shapes, alpha/beta combinations, NaN in y with
 * beta = 0, bitwise repeatability, the corpus, and refused arguments.
 *
 * Under compute-sanitizer (TESSERA_UNDER_SANITIZER names the tool) the long
 * rows and large matrices shrink to tens of thousands of entries (still
 * several blocks of merge-path on a split row), repeatability takes 2 runs
 * and the corpus 5 small matrices. Racecheck costs about 0.16 s per kernel
 * launch on the H200 and checks shared memory only: it runs the matrices
 * whose plan (AUTO: merge-path) uses shared memory, the long rows and the
 * skewed ones, in one value type each, once; test_gpu_spmv_schedules
 * racechecks every schedule. */
#define _POSIX_C_SOURCE 200112L

#include "test_common.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static ts_context *gpu;
static int spmv_runs; /* ts_spmv_execute calls, for the time per call */

/* What runs: everything, the sanitizer's selection, or racecheck's. */
typedef enum { RUN_FULL, RUN_SANITIZER, RUN_RACECHECK } run_mode;
static run_mode mode = RUN_FULL;

/* A size: the full one, or the sanitizer's. */
static int64_t pick(int64_t full, int64_t small) { return mode == RUN_FULL ? full : small; }

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CSR from a row-major list of (row, col, value) triplets already sorted. */
static ts_csr *csr_from_triplets(int64_t rows, int64_t cols, int64_t nnz, const int32_t *ri, const int32_t *ci,
                                 const double *v, ts_dtype dtype) {
  ts_csr *a = NULL;
  if (ts_csr_create(NULL, rows, cols, nnz, dtype, &a) != TS_SUCCESS)
    return NULL;
  for (int64_t k = 0; k < nnz; k++) {
    a->row_ptr[ri[k] + 1]++;
    a->col_idx[k] = ci[k];
    if (dtype == TS_FLOAT32)
      ((float *)a->values)[k] = (float)v[k];
    else
      ((double *)a->values)[k] = v[k];
  }
  for (int64_t i = 0; i < rows; i++)
    a->row_ptr[i + 1] += a->row_ptr[i];
  return a;
}

/* Random matrix: row i has a length drawn from `lengths` (cycled), columns
 * distinct and sorted, values in [-1, 1). Some rows are empty. */
static ts_csr *random_csr(int64_t rows, int64_t cols, const int *lengths, int nlengths, ts_dtype dtype,
                          unsigned long long *state) {
  int64_t nnz = 0;
  for (int64_t i = 0; i < rows; i++) {
    int64_t len = lengths[i % nlengths];
    nnz += len < cols ? len : cols;
  }
  ts_csr *a = NULL;
  if (ts_csr_create(NULL, rows, cols, nnz, dtype, &a) != TS_SUCCESS)
    return NULL;
  unsigned char *used = calloc((size_t)cols + 1, 1);
  if (!used) {
    ts_csr_destroy(a);
    return NULL;
  }
  int64_t k = 0;
  for (int64_t i = 0; i < rows; i++) {
    int64_t len = lengths[i % nlengths];
    if (len > cols)
      len = cols;
    int64_t picked = 0;
    if (len * 2 > cols) {
      /* Dense row: take a contiguous-ish selection by skipping at random. */
      for (int64_t j = 0; j < cols && picked < len; j++) {
        if (cols - j == len - picked || test_random(state) > -0.2) {
          used[j] = 1;
          picked++;
        }
      }
    } else {
      while (picked < len) {
        int64_t j = (int64_t)((test_random(state) + 1.0) * 0.5 * (double)cols);
        if (j >= cols)
          j = cols - 1;
        if (!used[j]) {
          used[j] = 1;
          picked++;
        }
      }
    }
    for (int64_t j = 0; j < cols && picked > 0; j++) {
      if (!used[j])
        continue;
      used[j] = 0;
      picked--;
      a->col_idx[k] = (int32_t)j;
      double v = test_random(state);
      if (dtype == TS_FLOAT32)
        ((float *)a->values)[k] = (float)v;
      else
        ((double *)a->values)[k] = v;
      k++;
    }
    a->row_ptr[i + 1] = k;
  }
  free(used);
  return a;
}

static double get_value(const void *p, ts_dtype dtype, int64_t i) {
  return dtype == TS_FLOAT32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

static void set_value(void *p, ts_dtype dtype, int64_t i, double v) {
  if (dtype == TS_FLOAT32)
    ((float *)p)[i] = (float)v;
  else
    ((double *)p)[i] = v;
}

/* The matrix with values widened to double, for the reference. */
static ts_csr *widen(const ts_csr *a) {
  ts_csr *w = NULL;
  if (ts_csr_create(NULL, a->rows, a->cols, a->nnz, TS_FLOAT64, &w) != TS_SUCCESS)
    return NULL;
  memcpy(w->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
  if (a->nnz > 0)
    memcpy(w->col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
  for (int64_t k = 0; k < a->nnz; k++)
    ((double *)w->values)[k] = get_value(a->values, a->dtype, k);
  return w;
}

/* Run y = alpha A x + beta y on the GPU; y_in is y's input, y_out receives
 * the result. Returns the status of the first failing call. */
static ts_status gpu_spmv(const ts_csr *a, double alpha, const void *x, double beta, const void *y_in, void *y_out) {
  size_t v = ts_dtype_size(a->dtype);
  ts_spmv_plan *plan = NULL;
  ts_buffer *bx = NULL, *by = NULL;
  ts_status st = ts_spmv_plan_create(gpu, a, &plan);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(gpu, TS_MEMORY_DEVICE, (size_t)a->cols * v, &bx);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(gpu, TS_MEMORY_DEVICE, (size_t)a->rows * v, &by);
  if (st == TS_SUCCESS)
    st = ts_buffer_upload(gpu, bx, 0, x, (size_t)a->cols * v);
  if (st == TS_SUCCESS)
    st = ts_buffer_upload(gpu, by, 0, y_in, (size_t)a->rows * v);
  if (st == TS_SUCCESS) {
    st = ts_spmv_execute(plan, alpha, bx, beta, by);
    spmv_runs++;
  }
  if (st == TS_SUCCESS)
    st = ts_context_sync(gpu);
  if (st == TS_SUCCESS)
    st = ts_buffer_download(gpu, by, 0, y_out, (size_t)a->rows * v);
  ts_buffer_destroy(bx);
  ts_buffer_destroy(by);
  ts_spmv_plan_destroy(plan);
  return st;
}

/* Compare the GPU against ts_csr_spmv_host on the widened matrix in double.
 * Bound per row (Higham, Accuracy and Stability, 2nd ed., sec. 3.1), doubled
 * since the double reference rounds too:
 * |y - y_ref| <= 2 (len + 3) u (|alpha| sum |a||x| + |beta||y_in|). NaN in y_in
 * with beta = 0 must not reach y. Returns the failing rows. */
static int64_t check_spmv(const char *what, const ts_csr *a, double alpha, double beta, unsigned long long *state,
                          int nan_y) {
  size_t v = ts_dtype_size(a->dtype);
  int64_t bad = 0;
  void *x = calloc((size_t)a->cols + 1, v), *y_in = calloc((size_t)a->rows + 1, v);
  void *y_out = calloc((size_t)a->rows + 1, v);
  double *xd = calloc((size_t)a->cols + 1, sizeof(double)), *ref = calloc((size_t)a->rows + 1, sizeof(double));
  double *yd = calloc((size_t)a->rows + 1, sizeof(double));
  ts_csr *w = widen(a);
  if (!x || !y_in || !y_out || !xd || !ref || !yd || !w) {
    CHECK_MSG(0, "%s: out of host memory", what);
    bad = 1;
    goto cleanup;
  }
  for (int64_t j = 0; j < a->cols; j++) {
    set_value(x, a->dtype, j, test_random(state));
    xd[j] = get_value(x, a->dtype, j);
  }
  for (int64_t i = 0; i < a->rows; i++) {
    set_value(y_in, a->dtype, i, nan_y ? NAN : test_random(state));
    set_value(y_out, a->dtype, i, -12345.0);
    yd[i] = nan_y ? 0.0 : get_value(y_in, a->dtype, i);
    ref[i] = yd[i];
  }
  ts_status st = ts_csr_spmv_host(NULL, alpha, w, xd, nan_y ? 0.0 : beta, ref);
  CHECK_MSG(st == TS_SUCCESS, "%s: host reference: %s", what, ts_last_error(NULL));
  st = gpu_spmv(a, alpha, x, beta, y_in, y_out);
  CHECK_MSG(st == TS_SUCCESS, "%s: %s: %s", what, ts_status_string(st), ts_last_error(gpu));
  if (st != TS_SUCCESS) {
    bad = 1;
    goto cleanup;
  }
  double u = a->dtype == TS_FLOAT32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
  for (int64_t i = 0; i < a->rows; i++) {
    double abs_sum = 0;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      abs_sum += fabs(((double *)w->values)[k] * xd[a->col_idx[k]]);
    double len = (double)(a->row_ptr[i + 1] - a->row_ptr[i]);
    double tol = 2 * (len + 3) * u * (fabs(alpha) * abs_sum + fabs(beta) * fabs(yd[i]));
    double got = get_value(y_out, a->dtype, i);
    if (!(fabs(got - ref[i]) <= tol)) {
      if (bad < 3)
        fprintf(stderr, "%s: alpha %g beta %g row %lld: got %.17g, want %.17g (tol %.3g)\n", what, alpha, beta,
                (long long)i, got, ref[i], tol);
      bad++;
    }
  }
  CHECK_MSG(bad == 0, "%s (%s, alpha %g, beta %g%s): %lld of %lld rows wrong", what,
            a->dtype == TS_FLOAT32 ? "float" : "double", alpha, beta, nan_y ? ", NaN y" : "", (long long)bad,
            (long long)a->rows);
cleanup:
  free(x);
  free(y_in);
  free(y_out);
  free(xd);
  free(ref);
  free(yd);
  ts_csr_destroy(w);
  return bad;
}

/* alpha/beta pairs, exact in float: the plain product, accumulate, scale,
 * negate, beta only (alpha = 0). */
static const double alphas[] = {1.0, 1.0, -0.5, 2.0, 0.0, 1.5};
static const double betas[] = {0.0, 1.0, -0.5, 0.0, 2.0, 0.25};

/* Racecheck: accumulate and NaN in y, beta = 0 (the scalars change no
 * shared-memory access). */
static void check_all_scalars(const char *what, const ts_csr *a, unsigned long long *state) {
  if (mode == RUN_RACECHECK) {
    check_spmv(what, a, alphas[1], betas[1], state, 0);
    check_spmv(what, a, 1.0, 0.0, state, 1);
    return;
  }
  for (size_t s = 0; s < sizeof alphas / sizeof alphas[0]; s++)
    check_spmv(what, a, alphas[s], betas[s], state, 0);
  check_spmv(what, a, 1.0, 0.0, state, 1); /* NaN in y, beta = 0 */
  check_spmv(what, a, -2.0, 0.0, state, 1);
}

static void test_hand_made(ts_dtype dtype) {
  unsigned long long state = 11;
  /* [1 0 2; 0 0 0; 3 4 5; 0 6 0]: with an empty row. Checked by hand once. */
  const int32_t ri[] = {0, 0, 2, 2, 2, 3}, ci[] = {0, 2, 0, 1, 2, 1};
  const double v[] = {1, 2, 3, 4, 5, 6};
  ts_csr *a = csr_from_triplets(4, 3, 6, ri, ci, v, dtype);
  CHECK(a != NULL);
  if (!a)
    return;
  double x[3] = {1, -2, 0.5}, y[4] = {9, 9, 9, 9}, yin[4] = {1, 2, 3, 4};
  float xf[3] = {1, -2, 0.5f}, yf[4] = {9, 9, 9, 9}, yinf[4] = {1, 2, 3, 4};
  const double want[4] = {2 + 1, 2, 3 - 8 + 2.5 + 3, -12 + 4}; /* A x + y */
  ts_status st = dtype == TS_FLOAT32 ? gpu_spmv(a, 1.0, xf, 1.0, yinf, yf) : gpu_spmv(a, 1.0, x, 1.0, yin, y);
  CHECK_OK(gpu, st);
  for (int i = 0; i < 4; i++)
    CHECK(get_value(dtype == TS_FLOAT32 ? (void *)yf : (void *)y, dtype, i) == want[i]);
  check_all_scalars("hand-made 4x3", a, &state);
  ts_csr_destroy(a);
}

static void test_edge_shapes(ts_dtype dtype) {
  unsigned long long state = 23;
  ts_csr *a = NULL;
  /* 0x0 and 3x4 with no entries: y = beta y, or 0 with beta = 0 (even NaN). */
  CHECK_OK(NULL, ts_csr_create(NULL, 0, 0, 0, dtype, &a));
  if (a) {
    ts_spmv_plan *plan = NULL;
    ts_buffer *x = NULL, *y = NULL;
    CHECK_OK(gpu, ts_spmv_plan_create(gpu, a, &plan));
    CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, 0, &x));
    CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, 0, &y));
    if (plan && x && y)
      CHECK_OK(gpu, ts_spmv_execute(plan, 1.0, x, 0.0, y));
    CHECK_OK(gpu, ts_context_sync(gpu));
    ts_buffer_destroy(x);
    ts_buffer_destroy(y);
    ts_spmv_plan_destroy(plan);
    ts_csr_destroy(a);
    a = NULL;
  }
  CHECK_OK(NULL, ts_csr_create(NULL, 3, 4, 0, dtype, &a));
  if (a) {
    check_all_scalars("empty 3x4", a, &state);
    ts_csr_destroy(a);
    a = NULL;
  }
  /* 1x1. */
  const int32_t zero[1] = {0};
  const double seven[1] = {7};
  a = csr_from_triplets(1, 1, 1, zero, zero, seven, dtype);
  if (a)
    check_all_scalars("1x1", a, &state);
  ts_csr_destroy(a);
  /* A single column: 1000x1, every other row empty. */
  int lengths_col[2] = {1, 0};
  a = random_csr(1000, 1, lengths_col, 2, dtype, &state);
  if (a)
    check_all_scalars("1000x1", a, &state);
  ts_csr_destroy(a);
}

/* Long rows: alone, and among short and empty ones. */
static void test_long_rows(ts_dtype dtype) {
  unsigned long long state = 29;
  ts_csr *a = NULL;
  /* A single dense row of 10^6 entries (sanitizer: 20,000, still split
   * across 10 to 14 blocks of merge-path). */
  const int long_row = (int)pick(1000000, 20000);
  int lengths_long[1] = {long_row};
  a = random_csr(1, long_row, lengths_long, 1, dtype, &state);
  CHECK(a && a->nnz == long_row);
  if (a) {
    check_spmv("1 x long row", a, 1.0, 0.0, &state, 1);
    if (mode != RUN_RACECHECK)
      check_spmv("1 x long row", a, -0.5, 2.0, &state, 0);
  }
  ts_csr_destroy(a);
  /* Long rows among short and empty ones (the lane count comes from the
   * mean, so the long rows are split across few lanes). */
  int lengths_mixed[8] = {0, 3, 0, 1, 5, 0, 2, (int)pick(20000, 2500)};
  char what[64];
  snprintf(what, sizeof what, "mixed rows %lldx%lld", (long long)pick(4096, 256), (long long)pick(30000, 3000));
  a = random_csr(pick(4096, 256), pick(30000, 3000), lengths_mixed, 8, dtype, &state);
  if (a)
    check_all_scalars(what, a, &state);
  ts_csr_destroy(a);
}

/* Random shapes with mean row lengths that select each lane count 1..32. */
static void test_random_shapes(ts_dtype dtype) {
  unsigned long long state = 37 + (unsigned long long)dtype;
  const int means[] = {1, 2, 3, 6, 12, 24, 48, 200};
  for (size_t m = 0; m < sizeof means / sizeof means[0]; m++) {
    int lengths[5] = {means[m], 0, 2 * means[m], means[m] / 2, means[m] + 1};
    int64_t rows = (1000 + 517 * (int64_t)m) / pick(1, 10), cols = 700 + 911 * (int64_t)m;
    ts_csr *a = random_csr(rows, cols, lengths, 5, dtype, &state);
    CHECK(a != NULL);
    if (!a)
      continue;
    char what[64];
    snprintf(what, sizeof what, "random %lldx%lld mean %d", (long long)rows, (long long)cols, means[m]);
    check_spmv(what, a, 1.0, 0.0, &state, 0);
    if (mode != RUN_RACECHECK)
      check_spmv(what, a, -1.5, 0.25, &state, 0);
    ts_csr_destroy(a);
  }
}

/* Five runs of the same plan give the same bits (sanitizer: 2 runs of a
 * smaller matrix of the same skew; racecheck: 1 run). */
static void test_repeatable(ts_dtype dtype) {
  unsigned long long state = 51;
  const int runs = mode == RUN_FULL ? 5 : mode == RUN_SANITIZER ? 2 : 1;
  int lengths[4] = {40, 3, 0, (int)pick(5000, 200)};
  ts_csr *a = random_csr(pick(20000, 1000), pick(20000, 2000), lengths, 4, dtype, &state);
  CHECK(a != NULL);
  if (!a)
    return;
  size_t v = ts_dtype_size(dtype);
  void *x = malloc((size_t)a->cols * v), *first = malloc((size_t)a->rows * v), *again = malloc((size_t)a->rows * v);
  ts_spmv_plan *plan = NULL;
  ts_buffer *bx = NULL, *by = NULL;
  CHECK(x && first && again);
  if (!x || !first || !again)
    goto cleanup;
  for (int64_t j = 0; j < a->cols; j++)
    set_value(x, dtype, j, test_random(&state));
  CHECK_OK(gpu, ts_spmv_plan_create(gpu, a, &plan));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, (size_t)a->cols * v, &bx));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, (size_t)a->rows * v, &by));
  if (!plan || !bx || !by)
    goto cleanup;
  CHECK_OK(gpu, ts_buffer_upload(gpu, bx, 0, x, (size_t)a->cols * v));
  for (int run = 0; run < runs; run++) {
    CHECK_OK(gpu, ts_buffer_fill_bytes(gpu, by, 0xFF));
    CHECK_OK(gpu, ts_spmv_execute(plan, 1.0, bx, 0.0, by));
    CHECK_OK(gpu, ts_buffer_download(gpu, by, 0, run == 0 ? first : again, (size_t)a->rows * v));
    if (run > 0)
      CHECK_MSG(memcmp(first, again, (size_t)a->rows * v) == 0, "run %d differs from run 0", run);
  }
cleanup:
  ts_buffer_destroy(bx);
  ts_buffer_destroy(by);
  ts_spmv_plan_destroy(plan);
  free(x);
  free(first);
  free(again);
  ts_csr_destroy(a);
}

static void test_refused(void) {
  const int32_t ri[] = {0, 1}, ci[] = {1, 0};
  const double v[] = {1, 2};
  ts_csr *a = csr_from_triplets(2, 3, 2, ri, ci, v, TS_FLOAT32);
  ts_spmv_plan *plan = NULL;
  ts_buffer *x = NULL, *y = NULL, *x_small = NULL, *y_small = NULL, *x_host = NULL, *y_host = NULL;
  CHECK(a != NULL);
  if (!a)
    return;
  CHECK_OK(gpu, ts_spmv_plan_create(gpu, a, &plan));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, 3 * sizeof(float), &x));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, 2 * sizeof(float), &y));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, 2 * sizeof(float), &x_small));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, 1 * sizeof(float), &y_small));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_HOST, 3 * sizeof(float), &x_host));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_HOST, 2 * sizeof(float), &y_host));
  if (plan && x && y && x_small && y_small && x_host && y_host) {
    CHECK_STATUS(gpu, ts_spmv_execute(plan, 1.0, x_small, 0.0, y), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(gpu), "x holds 8 bytes") != NULL);
    CHECK_STATUS(gpu, ts_spmv_execute(plan, 1.0, x, 0.0, y_small), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(gpu, ts_spmv_execute(plan, 1.0, x_host, 0.0, y), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(gpu), "TS_MEMORY_DEVICE") != NULL);
    CHECK_STATUS(gpu, ts_spmv_execute(plan, 1.0, x, 0.0, y_host), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(gpu, ts_spmv_execute(plan, 1.0, NULL, 0.0, y), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(gpu, ts_spmv_execute(NULL, 1.0, x, 0.0, y), TS_ERROR_INVALID_ARGUMENT);
    /* The plan still works after the refusals. */
    float xv[3] = {1, 2, 3}, yv[2] = {0, 0};
    CHECK_OK(gpu, ts_buffer_upload(gpu, x, 0, xv, sizeof xv));
    CHECK_OK(gpu, ts_spmv_execute(plan, 1.0, x, 0.0, y));
    CHECK_OK(gpu, ts_buffer_download(gpu, y, 0, yv, sizeof yv));
    CHECK(yv[0] == 2.0f && yv[1] == 2.0f);
  }
  /* Symmetric storage and invalid matrices are refused at plan time. */
  ts_spmv_plan *bad_plan = NULL;
  a->symmetry = TS_SYMMETRIC;
  CHECK_STATUS(gpu, ts_spmv_plan_create(gpu, a, &bad_plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(bad_plan == NULL);
  a->symmetry = TS_GENERAL;
  a->col_idx[1] = 3; /* out of range */
  CHECK_STATUS(gpu, ts_spmv_plan_create(gpu, a, &bad_plan), TS_ERROR_INVALID_MATRIX);
  CHECK(bad_plan == NULL);
  CHECK_STATUS(gpu, ts_spmv_plan_create(gpu, NULL, &bad_plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_OK(gpu, ts_context_sync(gpu));
  ts_buffer_destroy(x);
  ts_buffer_destroy(y);
  ts_buffer_destroy(x_small);
  ts_buffer_destroy(y_small);
  ts_buffer_destroy(x_host);
  ts_buffer_destroy(y_host);
  ts_spmv_plan_destroy(plan);
  ts_csr_destroy(a);
}

static bool is_small(long long rows, long long cols, long long stored_nnz) {
  return rows + cols <= 4000 && stored_nnz <= 20000;
}

/* Every corpus matrix (symmetric ones expanded), float and double; under
 * the sanitizer a few small ones (rows + cols at most 4000, at most 20,000
 * stored entries) spread over the manifest. */
static void test_corpus(void) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("corpus: absent (TESSERA_MATRICES unset or without MANIFEST.tsv); skipped\n");
    return;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  if (!manifest)
    return;
  char line[8192];
  char name[256];
  long long rows = 0, cols = 0, nnz = 0;
  /* The sanitizer's sample: every step-th small matrix. */
  const int samples = mode == RUN_FULL ? 0 : 5;
  int small_count = 0;
  while (samples > 0 && fgets(line, sizeof line, manifest))
    if (sscanf(line, "%255[^\t]\t%lld\t%lld\t%lld", name, &rows, &cols, &nnz) == 4 && is_small(rows, cols, nnz))
      small_count++;
  rewind(manifest);
  const int step = samples > 0 && small_count / samples > 1 ? small_count / samples : 1;
  int matrices = 0, small = 0;
  unsigned long long state = 77;
  while (fgets(line, sizeof line, manifest)) {
    if (sscanf(line, "%255[^\t]\t%lld\t%lld\t%lld", name, &rows, &cols, &nnz) != 4)
      continue; /* the header */
    if (samples > 0 && (!is_small(rows, cols, nnz) || small++ % step != 0 || matrices >= samples))
      continue;
    snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
    FILE *probe = fopen(path, "r");
    if (!probe)
      snprintf(path, sizeof path, "%s/%s.mtx.gz", dir, name);
    else
      fclose(probe);
    for (int d = 0; d < 2; d++) {
      ts_dtype dtype = d ? TS_FLOAT64 : TS_FLOAT32;
      ts_csr *a = NULL;
      ts_status st = ts_mm_read_csr(NULL, path, dtype, &a, NULL);
      CHECK_MSG(st == TS_SUCCESS, "reading %s: %s", path, ts_last_error(NULL));
      if (a) {
        a->symmetry = TS_GENERAL;
        check_spmv(name, a, 1.0, 0.0, &state, 1);
        check_spmv(name, a, 0.5, -1.0, &state, 0);
      }
      ts_csr_destroy(a);
    }
    matrices++;
  }
  fclose(manifest);
  printf("corpus: %d matrices checked in float and double\n", matrices);
  CHECK(matrices > 0);
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  if (ts_context_create(&gpu, &options) != TS_SUCCESS) {
    fprintf(stderr, "%s\n", ts_last_error(NULL));
    return test_skip("no usable CUDA device");
  }
  const char *tool = getenv("TESSERA_UNDER_SANITIZER");
  if (tool && *tool)
    mode = strcmp(tool, "racecheck") == 0 ? RUN_RACECHECK : RUN_SANITIZER;
  static const char *mode_names[] = {
      "full", "sanitizer (long rows of 20,000, small random shapes, 2 runs, 5 small corpus matrices)",
      "racecheck (the merge-path matrices only: long row and mixed rows in double, 2 alpha/beta pairs; the "
      "skewed matrix in float, 1 run)"};
  printf("selection: %s\n", mode_names[mode]);
  fflush(stdout);
  const double start = now_seconds();
  /* Racecheck: the long rows in double, the repeated run in float. */
  for (int d = 0; d < 2; d++) {
    ts_dtype dtype = d ? TS_FLOAT64 : TS_FLOAT32;
    const bool all = mode != RUN_RACECHECK;
    if (all)
      test_hand_made(dtype);
    if (all)
      test_edge_shapes(dtype);
    if (all || d == 1)
      test_long_rows(dtype);
    if (all)
      test_random_shapes(dtype);
    if (all || d == 0)
      test_repeatable(dtype);
  }
  if (mode != RUN_RACECHECK) {
    test_refused();
    printf("generated parts in %.1f s\n", now_seconds() - start);
    test_corpus(); /* racecheck: the small corpus matrices run thread- or warp-mapped */
  }
  printf("all in %.1f s (%d SpMV calls through gpu_spmv)\n", now_seconds() - start, spmv_runs);
  ts_context_destroy(gpu);
  return test_finish();
}
