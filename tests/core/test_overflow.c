/* Sizes past the index limits are refused with TS_ERROR_OVERFLOW before any
 * allocation, never wrapped. Nothing here allocates much memory: the large
 * inputs are structs filled by hand, without arrays behind them. */
#include "test_common.h"

#include <stdint.h>

#define TWO_POW_31 ((int64_t)1 << 31)

static void test_create_limits(void) {
  ts_csr *csr = (ts_csr *)&csr;
  CHECK_STATUS(NULL, ts_csr_create(NULL, TWO_POW_31, 4, 0, TS_FLOAT64, &csr), TS_ERROR_OVERFLOW);
  CHECK(csr == NULL);
  CHECK(strstr(ts_last_error(NULL), "exceeds the largest dimension") != NULL);
  CHECK_STATUS(NULL, ts_csr_create(NULL, 4, TWO_POW_31, 0, TS_FLOAT64, &csr), TS_ERROR_OVERFLOW);
  CHECK_STATUS(NULL, ts_csr_create(NULL, INT64_MAX, 1, 0, TS_FLOAT64, &csr), TS_ERROR_OVERFLOW);
  ts_csc *csc = NULL;
  CHECK_STATUS(NULL, ts_csc_create(NULL, TWO_POW_31, 4, 0, TS_FLOAT32, &csc), TS_ERROR_OVERFLOW);
  CHECK_STATUS(NULL, ts_csc_create(NULL, 4, INT64_MAX, 0, TS_FLOAT32, &csc), TS_ERROR_OVERFLOW);
  ts_coo *coo = (ts_coo *)&coo;
  CHECK_STATUS(NULL, ts_coo_create(NULL, TWO_POW_31, 2, 0, TS_FLOAT32, &coo), TS_ERROR_OVERFLOW);
  CHECK(coo == NULL);

  /* Entry counts whose byte size passes INT64_MAX: refused, not attempted. */
  CHECK_STATUS(NULL, ts_coo_create(NULL, 10, 10, INT64_MAX / 8 + 1, TS_FLOAT64, &coo), TS_ERROR_OVERFLOW);
  CHECK(strstr(ts_last_error(NULL), "exceed the largest addressable size") != NULL);
  CHECK_STATUS(NULL, ts_coo_create(NULL, 10, 10, INT64_MAX, TS_FLOAT32, &coo), TS_ERROR_OVERFLOW);
  CHECK_STATUS(NULL, ts_coo_create(NULL, 10, 10, INT64_MAX / 4 + 1, TS_FLOAT32, &coo), TS_ERROR_OVERFLOW);
  CHECK_STATUS(NULL, ts_csr_create(NULL, 10, 10, INT64_MAX / 2, TS_FLOAT64, &csr), TS_ERROR_OVERFLOW);
  CHECK_STATUS(NULL, ts_csc_create(NULL, 10, 10, INT64_MAX / 8 + 1, TS_FLOAT64, &csc), TS_ERROR_OVERFLOW);

  /* The largest dimension itself is accepted by the checks (no entries,
   * so only the check runs: a 1 x INT32_MAX COO needs no offsets). */
  CHECK_OK(NULL, ts_coo_create(NULL, 1, TS_MAX_DIMENSION, 0, TS_FLOAT32, &coo));
  CHECK(coo && coo->cols == INT32_MAX);
  ts_coo_destroy(coo);
}

/* Structs filled by hand: the checks refuse them before reading arrays. */
static void test_fake_structs(void) {
  ts_coo fake;
  memset(&fake, 0, sizeof fake);
  fake.rows = fake.cols = 10;
  fake.nnz = fake.capacity = INT64_MAX / 2 + 1;
  fake.dtype = TS_FLOAT64;
  fake.symmetry = TS_SYMMETRIC;
  ts_coo *general = (ts_coo *)&general;
  /* Doubling nnz would pass INT64_MAX: refused before the (absent) arrays are read. */
  CHECK_STATUS(NULL, ts_coo_expand_symmetric(NULL, &fake, &general), TS_ERROR_OVERFLOW);
  CHECK(general == NULL);
  CHECK(strstr(ts_last_error(NULL), "ts_coo_expand_symmetric") != NULL);
  fake.symmetry = TS_SKEW_SYMMETRIC;
  CHECK_STATUS(NULL, ts_coo_expand_symmetric(NULL, &fake, &general), TS_ERROR_OVERFLOW);
  fake.symmetry = TS_HERMITIAN;
  fake.nnz = fake.capacity = INT64_MAX;
  CHECK_STATUS(NULL, ts_coo_expand_symmetric(NULL, &fake, &general), TS_ERROR_OVERFLOW);
  /* Just below the limit, the missing arrays are what is refused. */
  fake.nnz = fake.capacity = INT64_MAX / 2;
  CHECK_STATUS(NULL, ts_coo_expand_symmetric(NULL, &fake, &general), TS_ERROR_INVALID_MATRIX);

  /* Dimensions past INT32_MAX in hand-made structs. */
  ts_coo big;
  memset(&big, 0, sizeof big);
  big.rows = TWO_POW_31;
  big.cols = 3;
  big.dtype = TS_FLOAT32;
  CHECK_STATUS(NULL, ts_coo_check(NULL, &big), TS_ERROR_OVERFLOW);
  ts_csr *csr = (ts_csr *)&csr;
  CHECK_STATUS(NULL, ts_csr_from_coo(NULL, &big, TS_DUPLICATES_SUM, &csr), TS_ERROR_OVERFLOW);
  CHECK(csr == NULL);
  CHECK_STATUS(NULL, ts_coo_expand_symmetric(NULL, &big, &general), TS_ERROR_OVERFLOW);

  ts_csr wide;
  memset(&wide, 0, sizeof wide);
  wide.rows = 2;
  wide.cols = INT64_MAX;
  wide.dtype = TS_FLOAT64;
  int64_t ptr[3] = {0, 0, 0};
  wide.row_ptr = ptr;
  CHECK_STATUS(NULL, ts_csr_check(NULL, &wide), TS_ERROR_OVERFLOW);
  ts_csr *at = NULL;
  CHECK_STATUS(NULL, ts_csr_transpose(NULL, &wide, &at), TS_ERROR_OVERFLOW);
  ts_csc *csc = NULL;
  CHECK_STATUS(NULL, ts_csc_from_csr(NULL, &wide, &csc), TS_ERROR_OVERFLOW);
  ts_coo *coo = NULL;
  CHECK_STATUS(NULL, ts_coo_from_csr(NULL, &wide, &coo), TS_ERROR_OVERFLOW);
  ts_csr_stats stats;
  CHECK_STATUS(NULL, ts_csr_stats_compute(NULL, &wide, &stats), TS_ERROR_OVERFLOW);
  CHECK(at == NULL && csc == NULL && coo == NULL);
  wide.cols = TS_MAX_DIMENSION; /* at the limit: valid */
  CHECK_OK(NULL, ts_csr_check(NULL, &wide));

  /* An offset past nnz is refused, not used to index. */
  int64_t bad_ptr[3] = {0, INT64_MAX, 1};
  int32_t cols[1] = {0};
  double values[1] = {1};
  ts_csr odd = {.rows = 2, .cols = 2, .nnz = 1, .row_ptr = bad_ptr, .col_idx = cols, .values = values};
  CHECK_STATUS(NULL, ts_csr_check(NULL, &odd), TS_ERROR_INVALID_MATRIX);
  CHECK(strstr(ts_last_error(NULL), "row 1 ends at offset 1 before it starts at") != NULL);
}

int main(void) {
  test_create_limits();
  test_fake_structs();
  return test_finish();
}
