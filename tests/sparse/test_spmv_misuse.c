/* SpMV misuse: ts_csr_spmv_host checks its matrix as every other consumer
 * does (TS_ERROR_INVALID_MATRIX naming the call and the place, y left
 * untouched) and, like ts_spmv_execute, refuses x and y that overlap (a
 * kernel reading x while writing y gives a wrong y, not an error). Vectors
 * side by side in one array are fine: the result is checked against a naive
 * product. */
#include "test_common.h"

#include <stdbool.h>

/* 3 x 4: rows {0: (0,1) (2,-2)}, {1: empty}, {2: (1,3) (3,0.5)}. */
static ts_csr *make_matrix(void) {
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_csr_create(NULL, 3, 4, 4, TS_FLOAT64, &a));
  int64_t ptr[] = {0, 2, 2, 4};
  int32_t col[] = {0, 2, 1, 3};
  double val[] = {1, -2, 3, 0.5};
  memcpy(a->row_ptr, ptr, sizeof ptr);
  memcpy(a->col_idx, col, sizeof col);
  memcpy(a->values, val, sizeof val);
  return a;
}

/* Break the matrix one way, expect a refusal naming `needle`, y untouched, restore. */
static void expect_refused(ts_csr *a, const char *what, const char *needle) {
  double x[4] = {1, 2, 3, 4}, y[3] = {-7, -7, -7};
  ts_status st = ts_csr_spmv_host(NULL, 1.0, a, x, 0.0, y);
  CHECK_MSG(st == TS_ERROR_INVALID_MATRIX, "%s: %s (%s)", what, ts_status_string(st), ts_last_error(NULL));
  CHECK_MSG(strstr(ts_last_error(NULL), "ts_csr_spmv_host") && strstr(ts_last_error(NULL), needle), "%s: '%s'", what,
            ts_last_error(NULL));
  CHECK_MSG(y[0] == -7 && y[1] == -7 && y[2] == -7, "%s: y was written", what);
}

static void test_bad_matrices(void) {
  ts_csr *a = make_matrix();
  a->row_ptr[1] = 3;
  a->row_ptr[2] = 1; /* offsets out of order */
  expect_refused(a, "offsets decreasing", "row 1");
  a->row_ptr[1] = a->row_ptr[2] = 2;
  a->row_ptr[3] = 5; /* past nnz */
  expect_refused(a, "offsets past nnz", "offsets end at 5");
  a->row_ptr[3] = 4;
  a->row_ptr[0] = -1;
  expect_refused(a, "first offset", "starts at offset -1");
  a->row_ptr[0] = 0;
  a->col_idx[1] = 4; /* column out of range */
  expect_refused(a, "column past the last", "column 4 is outside");
  a->col_idx[1] = -3;
  expect_refused(a, "negative column", "column -3 is outside");
  a->col_idx[1] = 0; /* a duplicate (0, 0) */
  expect_refused(a, "duplicate column", "twice");
  a->col_idx[1] = 2;
  void *values = a->values;
  a->values = NULL;
  expect_refused(a, "NULL values", "NULL");
  a->values = values;
  int32_t *cols = a->col_idx;
  a->col_idx = NULL;
  expect_refused(a, "NULL indices", "NULL");
  a->col_idx = cols;
  int64_t *ptr = a->row_ptr;
  a->row_ptr = NULL;
  expect_refused(a, "NULL offsets", "NULL");
  a->row_ptr = ptr;
  a->cols = -4;
  expect_refused(a, "negative size", "negative size");
  a->cols = 4;
  a->symmetry = (ts_symmetry)9;
  expect_refused(a, "unknown symmetry", "unknown symmetry 9");
  a->symmetry = TS_GENERAL;
  /* Restored: it works. */
  double x[4] = {1, 2, 3, 4}, y[3] = {0, 0, 0};
  CHECK_OK(NULL, ts_csr_spmv_host(NULL, 1.0, a, x, 0.0, y));
  CHECK(y[0] == 1 - 6 && y[1] == 0 && y[2] == 6 + 2);
  ts_csr_destroy(a);
}

/* The naive y = alpha*A*x + beta*y0 of make_matrix(). */
static void naive(double alpha, const double *x, double beta, const double *y0, double *y) {
  double ax[3] = {1 * x[0] - 2 * x[2], 0, 3 * x[1] + 0.5 * x[3]};
  for (int i = 0; i < 3; i++)
    y[i] = alpha * ax[i] + beta * y0[i];
}

static void test_overlap_host(void) {
  ts_csr *a = make_matrix();
  double v[7] = {1, 2, 3, 4, 5, 6, 7};
  /* y = x: refused, nothing written. */
  CHECK_STATUS(NULL, ts_csr_spmv_host(NULL, 1.0, a, v, 0.0, v), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "ts_csr_spmv_host: x and y overlap") != NULL);
  CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3);
  /* y starting inside x (x is 4 values, y 3). */
  CHECK_STATUS(NULL, ts_csr_spmv_host(NULL, 1.0, a, v, 0.0, v + 3), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_csr_spmv_host(NULL, 1.0, a, v + 1, 0.0, v), TS_ERROR_INVALID_ARGUMENT);
  /* Side by side in one array: fine. */
  double want[3];
  double y0[3] = {5, 6, 7};
  naive(2.0, v, -1.0, y0, want);
  CHECK_OK(NULL, ts_csr_spmv_host(NULL, 2.0, a, v, -1.0, v + 4));
  CHECK(v[4] == want[0] && v[5] == want[1] && v[6] == want[2]);
  /* Single precision: the byte ranges count, not the entries. */
  ts_csr *f = NULL;
  ts_coo *coo = NULL;
  CHECK_OK(NULL, ts_coo_from_csr(NULL, a, &coo));
  float fv[7] = {1, 2, 3, 4, 5, 6, 7};
  if (coo) {
    ts_coo *single = NULL;
    CHECK_OK(NULL, ts_coo_create(NULL, 3, 4, 4, TS_FLOAT32, &single));
    for (int k = 0; k < 4; k++) {
      single->row_idx[k] = coo->row_idx[k];
      single->col_idx[k] = coo->col_idx[k];
      ((float *)single->values)[k] = (float)((double *)coo->values)[k];
    }
    single->nnz = 4;
    CHECK_OK(NULL, ts_csr_from_coo(NULL, single, TS_DUPLICATES_ERROR, &f));
    ts_coo_destroy(single);
  }
  CHECK_STATUS(NULL, ts_csr_spmv_host(NULL, 1.0, f, fv, 0.0, fv + 3), TS_ERROR_INVALID_ARGUMENT);
  CHECK_OK(NULL, ts_csr_spmv_host(NULL, 1.0, f, fv, 0.0, fv + 4));
  CHECK(fv[4] == -5 && fv[5] == 0 && fv[6] == 8);
  ts_csr_destroy(f);
  ts_coo_destroy(coo);
  ts_csr_destroy(a);
}

static void test_overlap_plan(void) {
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, NULL)); /* the GPU where there is one */
  ts_csr *a = make_matrix();
  for (int transposed = 0; transposed < 2; transposed++) {
    ts_spmv_options options = {0};
    options.op = transposed ? TS_OP_TRANSPOSE : TS_OP_NONE;
    ts_spmv_plan *plan = NULL;
    CHECK_OK(ctx, ts_spmv_plan_create_ex(ctx, a, &options, &plan));
    ts_buffer *one = NULL, *other = NULL;
    CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 4 * sizeof(double), &one));
    CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 4 * sizeof(double), &other));
    double x[4] = {1, 2, 3, 4}, back[4] = {0};
    CHECK_OK(ctx, ts_buffer_upload(ctx, one, 0, x, sizeof x));
    CHECK_STATUS(ctx, ts_spmv_execute(plan, 1.0, one, 0.0, one), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(ctx), "ts_spmv_execute: x and y overlap") != NULL);
    CHECK_OK(ctx, ts_buffer_download(ctx, one, 0, back, sizeof back));
    CHECK(memcmp(back, x, sizeof x) == 0); /* untouched */
    /* Separate buffers: the naive product. */
    CHECK_OK(ctx, ts_spmv_execute(plan, 1.0, one, 0.0, other));
    CHECK_OK(ctx, ts_buffer_download(ctx, other, 0, back, sizeof back));
    if (transposed)
      CHECK(back[0] == 1 && back[1] == 3 * 3 && back[2] == -2 && back[3] == 0.5 * 3);
    else
      CHECK(back[0] == 1 - 6 && back[1] == 0 && back[2] == 6 + 2);
    ts_buffer_destroy(one);
    ts_buffer_destroy(other);
    ts_spmv_plan_destroy(plan);
  }
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
}

int main(void) {
  test_bad_matrices();
  test_overlap_host();
  test_overlap_plan();
  return test_finish();
}
