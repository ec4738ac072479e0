/* Container life cycle: create, fill, copy, destroy; argument errors leave
 * the output NULL and leak nothing (checked under LeakSanitizer in CI). */
#include "test_common.h"

#include <stdint.h>

static void test_create(void) {
  ts_coo *coo = NULL;
  CHECK_OK(NULL, ts_coo_create(NULL, 3, 4, 5, TS_FLOAT64, &coo));
  CHECK(coo && coo->rows == 3 && coo->cols == 4 && coo->nnz == 0 && coo->capacity == 5);
  CHECK(coo && coo->dtype == TS_FLOAT64 && coo->symmetry == TS_GENERAL);
  CHECK(coo && coo->row_idx && coo->col_idx && coo->values);
  ts_coo_destroy(coo);

  ts_csr *csr = NULL;
  CHECK_OK(NULL, ts_csr_create(NULL, 4, 2, 3, TS_FLOAT32, &csr));
  CHECK(csr && csr->rows == 4 && csr->cols == 2 && csr->nnz == 3 && csr->dtype == TS_FLOAT32);
  int zero = 1;
  for (int i = 0; csr && i <= 4; i++)
    zero &= csr->row_ptr[i] == 0;
  CHECK(zero); /* row_ptr starts zeroed */
  ts_csr_destroy(csr);

  ts_csc *csc = NULL;
  CHECK_OK(NULL, ts_csc_create(NULL, 2, 6, 0, TS_FLOAT64, &csc));
  zero = 1;
  for (int j = 0; csc && j <= 6; j++)
    zero &= csc->col_ptr[j] == 0;
  CHECK(csc && zero && csc->nnz == 0);
  ts_csc_destroy(csc);

  /* Zero sizes are valid. */
  CHECK_OK(NULL, ts_coo_create(NULL, 0, 0, 0, TS_FLOAT32, &coo));
  CHECK_OK(NULL, ts_csr_create(NULL, 0, 0, 0, TS_FLOAT32, &csr));
  CHECK(csr && csr->row_ptr && csr->row_ptr[0] == 0);
  ts_coo_destroy(coo);
  ts_csr_destroy(csr);

  ts_coo_destroy(NULL);
  ts_csr_destroy(NULL);
  ts_csc_destroy(NULL);
}

static void test_create_errors(void) {
  ts_coo *coo = (ts_coo *)&coo;
  CHECK_STATUS(NULL, ts_coo_create(NULL, -1, 4, 5, TS_FLOAT64, &coo), TS_ERROR_INVALID_ARGUMENT);
  CHECK(coo == NULL);
  CHECK(strstr(ts_last_error(NULL), "ts_coo_create: negative size") != NULL);
  CHECK_STATUS(NULL, ts_coo_create(NULL, 1, 4, -5, TS_FLOAT64, &coo), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_coo_create(NULL, 1, 4, 5, (ts_dtype)4, &coo), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "unknown value type 4") != NULL);
  CHECK_STATUS(NULL, ts_coo_create(NULL, 1, 4, 5, TS_FLOAT64, NULL), TS_ERROR_INVALID_ARGUMENT);
  ts_csr *csr = (ts_csr *)&csr;
  CHECK_STATUS(NULL, ts_csr_create(NULL, 2, -4, 0, TS_FLOAT64, &csr), TS_ERROR_INVALID_ARGUMENT);
  CHECK(csr == NULL);
  CHECK_STATUS(NULL, ts_csr_create(NULL, 2, 4, 0, TS_FLOAT64, NULL), TS_ERROR_INVALID_ARGUMENT);
  ts_csc *csc = (ts_csc *)&csc;
  CHECK_STATUS(NULL, ts_csc_create(NULL, 2, 4, -1, TS_FLOAT64, &csc), TS_ERROR_INVALID_ARGUMENT);
  CHECK(csc == NULL);
  CHECK_STATUS(NULL, ts_csc_create(NULL, 2, 4, 0, TS_FLOAT64, NULL), TS_ERROR_INVALID_ARGUMENT);
}

/* A deep copy: equal content, separate storage, tag kept. */
static void test_copy(void) {
  ts_csr *a = NULL, *b = NULL;
  CHECK_OK(NULL, ts_csr_create(NULL, 3, 3, 4, TS_FLOAT64, &a));
  const int64_t ptr[] = {0, 1, 3, 4};
  const int32_t cols[] = {0, 0, 2, 1};
  const double values[] = {1.5, -2, 0, 4};
  memcpy(a->row_ptr, ptr, sizeof ptr);
  memcpy(a->col_idx, cols, sizeof cols);
  memcpy(a->values, values, sizeof values);
  a->symmetry = TS_SYMMETRIC;
  CHECK_OK(NULL, ts_csr_copy(NULL, a, &b));
  CHECK(b && b->rows == 3 && b->cols == 3 && b->nnz == 4 && b->symmetry == TS_SYMMETRIC);
  CHECK(b && memcmp(b->row_ptr, ptr, sizeof ptr) == 0 && memcmp(b->col_idx, cols, sizeof cols) == 0);
  for (int k = 0; b && k < 4; k++)
    CHECK(((double *)b->values)[k] == values[k]);
  CHECK(b && b->row_ptr != a->row_ptr && b->col_idx != a->col_idx && b->values != a->values);
  ((double *)a->values)[0] = 99;
  CHECK(b && ((double *)b->values)[0] == 1.5);

  /* A hand-built struct with missing arrays is refused, not read. */
  ts_csr broken = *a;
  broken.col_idx = NULL;
  ts_csr *c = (ts_csr *)&c;
  CHECK_STATUS(NULL, ts_csr_copy(NULL, &broken, &c), TS_ERROR_INVALID_MATRIX);
  CHECK(c == NULL);
  CHECK_STATUS(NULL, ts_csr_copy(NULL, NULL, &c), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_csr_copy(NULL, a, NULL), TS_ERROR_INVALID_ARGUMENT);
  ts_csr_destroy(a);
  ts_csr_destroy(b);
}

static void test_names(void) {
  CHECK(strcmp(ts_symmetry_name(TS_GENERAL), "general") == 0);
  CHECK(strcmp(ts_symmetry_name(TS_SYMMETRIC), "symmetric") == 0);
  CHECK(strcmp(ts_symmetry_name(TS_SKEW_SYMMETRIC), "skew-symmetric") == 0);
  CHECK(strcmp(ts_symmetry_name(TS_HERMITIAN), "hermitian") == 0);
  CHECK(strcmp(ts_symmetry_name((ts_symmetry)17), "unknown") == 0);
}

/* A COO filled by the caller converts; the messages go to the context. */
static void test_fill_and_convert(void) {
  ts_context *ctx = NULL;
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  ts_coo *coo = NULL;
  CHECK_OK(ctx, ts_coo_create(ctx, 2, 2, 3, TS_FLOAT32, &coo));
  const int32_t ri[] = {1, 0, 1}, ci[] = {1, 1, 0};
  const float v[] = {3, 1, 2};
  memcpy(coo->row_idx, ri, sizeof ri);
  memcpy(coo->col_idx, ci, sizeof ci);
  memcpy(coo->values, v, sizeof v);
  coo->nnz = 3;
  ts_csr *csr = NULL;
  CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_ERROR, &csr));
  const int64_t want_ptr[] = {0, 1, 3};
  const int32_t want_cols[] = {1, 0, 1};
  const float want_values[] = {1, 2, 3};
  CHECK(csr && memcmp(csr->row_ptr, want_ptr, sizeof want_ptr) == 0 &&
        memcmp(csr->col_idx, want_cols, sizeof want_cols) == 0);
  for (int k = 0; csr && k < 3; k++)
    CHECK(((float *)csr->values)[k] == want_values[k]);
  coo->row_idx[2] = 2;
  ts_csr *bad = NULL;
  CHECK_STATUS(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_ERROR, &bad), TS_ERROR_INVALID_MATRIX);
  CHECK(strstr(ts_last_error(ctx), "ts_csr_from_coo: entry 2 (row 2, column 0)") != NULL);
  ts_csr_destroy(csr);
  ts_coo_destroy(coo);
  ts_context_destroy(ctx);
}

int main(void) {
  test_create();
  test_create_errors();
  test_copy();
  test_names();
  test_fill_and_convert();
  return test_finish();
}
