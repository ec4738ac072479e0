/* ts_csr_check, ts_csc_check, ts_coo_check: each violation is refused with
 * the right status and a message naming the offending row (or column) and
 * entry. */
#include "test_common.h"

#include <stdint.h>

/* A valid 20 x 12 CSR with rows of varying length (row i holds columns
 * 0, 1, ..., i % 9 + 1, except empty rows 4 and 11). */
static ts_csr *make_valid(void) {
  int64_t nnz = 0;
  for (int i = 0; i < 20; i++)
    nnz += (i == 4 || i == 11) ? 0 : i % 9 + 2;
  ts_csr *m = NULL;
  if (ts_csr_create(NULL, 20, 12, nnz, TS_FLOAT64, &m) != TS_SUCCESS)
    return NULL;
  int64_t k = 0;
  for (int i = 0; i < 20; i++) {
    int n = (i == 4 || i == 11) ? 0 : i % 9 + 2;
    for (int j = 0; j < n; j++) {
      m->col_idx[k] = j;
      ((double *)m->values)[k++] = i + 0.5 * j;
    }
    m->row_ptr[i + 1] = k;
  }
  return m;
}

static int message_has(const ts_context *ctx, const char *text) {
  if (strstr(ts_last_error(ctx), text))
    return 1;
  fprintf(stderr, "message \"%s\" lacks \"%s\"\n", ts_last_error(ctx), text);
  return 0;
}

/* Row that entry k belongs to, from a valid matrix's offsets. */
static int64_t row_of(const ts_csr *m, int64_t k) {
  int64_t i = 0;
  while (m->row_ptr[i + 1] <= k)
    i++;
  return i;
}

static void test_csr_violations(void) {
  ts_context *ctx = NULL;
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  ts_context_create(&ctx, &options);
  ts_csr *m = make_valid();
  char want[256];
  CHECK_OK(ctx, ts_csr_check(ctx, m));

  /* Columns decreasing inside row 15 (the row is found from the entry). */
  int64_t k = m->row_ptr[15] + 3, row = row_of(m, k);
  CHECK(row == 15);
  CHECK(k > m->row_ptr[row]); /* not the first of its row */
  int32_t saved = m->col_idx[k];
  m->col_idx[k] = m->col_idx[k - 1] - 1;
  CHECK_STATUS(ctx, ts_csr_check(ctx, m), TS_ERROR_INVALID_MATRIX);
  snprintf(want, sizeof want, "row %lld, entry %lld: column %d follows column %d (columns must increase)",
           (long long)row, (long long)k, (int)m->col_idx[k], (int)m->col_idx[k - 1]);
  CHECK(message_has(ctx, want));
  /* A repeated column is a duplicate. */
  m->col_idx[k] = m->col_idx[k - 1];
  CHECK_STATUS(ctx, ts_csr_check(ctx, m), TS_ERROR_INVALID_MATRIX);
  snprintf(want, sizeof want, "row %lld, entry %lld: column %d appears twice", (long long)row, (long long)k,
           (int)m->col_idx[k]);
  CHECK(message_has(ctx, want));
  m->col_idx[k] = saved;
  CHECK_OK(ctx, ts_csr_check(ctx, m));

  /* Column out of range, at the last entry of row 17, and negative. */
  k = m->row_ptr[18] - 1;
  saved = m->col_idx[k];
  m->col_idx[k] = 12;
  CHECK_STATUS(ctx, ts_csr_check(ctx, m), TS_ERROR_INVALID_MATRIX);
  snprintf(want, sizeof want, "row 17, entry %lld: column 12 is outside [0, 12)", (long long)k);
  CHECK(message_has(ctx, want));
  m->col_idx[k] = saved;
  m->col_idx[m->row_ptr[3]] = -4;
  CHECK_STATUS(ctx, ts_csr_check(ctx, m), TS_ERROR_INVALID_MATRIX);
  snprintf(want, sizeof want, "row 3, entry %lld: column -4 is outside", (long long)m->row_ptr[3]);
  CHECK(message_has(ctx, want));
  m->col_idx[m->row_ptr[3]] = 0;

  /* Offsets: first not zero, decreasing, last not nnz. */
  m->row_ptr[0] = 1;
  CHECK_STATUS(ctx, ts_csr_check(ctx, m), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(ctx, "row 0 starts at offset 1 (must be 0)"));
  m->row_ptr[0] = 0;
  int64_t saved_ptr = m->row_ptr[8];
  m->row_ptr[8] = m->row_ptr[7] - 1;
  CHECK_STATUS(ctx, ts_csr_check(ctx, m), TS_ERROR_INVALID_MATRIX);
  snprintf(want, sizeof want, "row 7 ends at offset %lld before it starts at %lld", (long long)m->row_ptr[8],
           (long long)m->row_ptr[7]);
  CHECK(message_has(ctx, want));
  /* An offset past nnz in the middle is caught as a decrease, not read. */
  m->row_ptr[8] = INT64_MAX;
  CHECK_STATUS(ctx, ts_csr_check(ctx, m), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(ctx, "row 8 ends at offset"));
  m->row_ptr[8] = saved_ptr;
  m->nnz -= 1;
  CHECK_STATUS(ctx, ts_csr_check(ctx, m), TS_ERROR_INVALID_MATRIX);
  snprintf(want, sizeof want, "offsets end at %lld but the matrix has %lld entries", (long long)m->nnz + 1,
           (long long)m->nnz);
  CHECK(message_has(ctx, want));
  m->nnz += 1;
  CHECK_OK(ctx, ts_csr_check(ctx, m));

  /* Sizes, types, tags, NULL arrays. */
  ts_csr fake = *m;
  fake.rows = -1;
  CHECK_STATUS(ctx, ts_csr_check(ctx, &fake), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(ctx, "negative size"));
  fake = *m;
  fake.nnz = -3;
  CHECK_STATUS(ctx, ts_csr_check(ctx, &fake), TS_ERROR_INVALID_MATRIX);
  fake = *m;
  fake.cols = (int64_t)INT32_MAX + 1;
  CHECK_STATUS(ctx, ts_csr_check(ctx, &fake), TS_ERROR_OVERFLOW);
  fake = *m;
  fake.dtype = (ts_dtype)5;
  CHECK_STATUS(ctx, ts_csr_check(ctx, &fake), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(ctx, "unknown value type 5"));
  fake = *m;
  fake.symmetry = TS_SYMMETRIC; /* 20 x 12 */
  CHECK_STATUS(ctx, ts_csr_check(ctx, &fake), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(ctx, "symmetric storage of a non-square 20 x 12 matrix"));
  fake = *m;
  fake.symmetry = (ts_symmetry)9;
  CHECK_STATUS(ctx, ts_csr_check(ctx, &fake), TS_ERROR_INVALID_MATRIX);
  fake = *m;
  fake.col_idx = NULL;
  CHECK_STATUS(ctx, ts_csr_check(ctx, &fake), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(ctx, "NULL"));
  fake = *m;
  fake.values = NULL;
  CHECK_STATUS(ctx, ts_csr_check(ctx, &fake), TS_ERROR_INVALID_MATRIX);
  fake = *m;
  fake.row_ptr = NULL;
  CHECK_STATUS(ctx, ts_csr_check(ctx, &fake), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(ctx, "row offsets are NULL"));
  CHECK_STATUS(ctx, ts_csr_check(ctx, NULL), TS_ERROR_INVALID_ARGUMENT);
  /* Without a context the message is kept per thread. */
  fake = *m;
  fake.rows = -2;
  CHECK_STATUS(NULL, ts_csr_check(NULL, &fake), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(NULL, "ts_csr_check: negative size"));

  /* Valid edge cases: 0 x 0, empty 3 x 4, no arrays for 0 x 0. */
  ts_csr *empty = NULL;
  CHECK_OK(ctx, ts_csr_create(ctx, 0, 0, 0, TS_FLOAT32, &empty));
  CHECK_OK(ctx, ts_csr_check(ctx, empty));
  ts_csr_destroy(empty);
  CHECK_OK(ctx, ts_csr_create(ctx, 3, 4, 0, TS_FLOAT32, &empty));
  CHECK_OK(ctx, ts_csr_check(ctx, empty));
  ts_csr_destroy(empty);
  ts_csr bare = {0};
  CHECK_OK(ctx, ts_csr_check(ctx, &bare));

  ts_csr_destroy(m);
  ts_context_destroy(ctx);
}

/* CSC: the same checks by column; the message speaks of columns and rows. */
static void test_csc_violations(void) {
  ts_csr *m = make_valid();
  ts_csc *c = NULL;
  CHECK_OK(NULL, ts_csc_from_csr(NULL, m, &c));
  CHECK_OK(NULL, ts_csc_check(NULL, c));
  /* Column 1 holds rows 0..3, 5..10, ...: swap two rows of it. */
  int64_t k = c->col_ptr[1] + 2;
  int32_t a = c->row_idx[k], b = c->row_idx[k + 1];
  c->row_idx[k] = b;
  c->row_idx[k + 1] = a;
  char want[256];
  CHECK_STATUS(NULL, ts_csc_check(NULL, c), TS_ERROR_INVALID_MATRIX);
  snprintf(want, sizeof want, "column 1, entry %lld: row %d follows row %d (rows must increase)", (long long)k + 1,
           (int)a, (int)b);
  CHECK(message_has(NULL, want));
  c->row_idx[k] = 20;
  CHECK_STATUS(NULL, ts_csc_check(NULL, c), TS_ERROR_INVALID_MATRIX);
  snprintf(want, sizeof want, "column 1, entry %lld: row 20 is outside [0, 20)", (long long)k);
  CHECK(message_has(NULL, want));
  c->row_idx[k] = a;
  c->row_idx[k + 1] = b;
  CHECK_OK(NULL, ts_csc_check(NULL, c));
  c->col_ptr[12] += 1;
  CHECK_STATUS(NULL, ts_csc_check(NULL, c), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(NULL, "offsets end at"));
  c->col_ptr[12] -= 1;
  c->col_ptr[0] = -1;
  CHECK_STATUS(NULL, ts_csc_check(NULL, c), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(NULL, "column 0 starts at offset -1"));
  c->col_ptr[0] = 0;
  ts_csc fake = *c;
  fake.rows = (int64_t)1 << 40;
  CHECK_STATUS(NULL, ts_csc_check(NULL, &fake), TS_ERROR_OVERFLOW);
  CHECK_STATUS(NULL, ts_csc_check(NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  /* The conversion back refuses an invalid CSC with the same detail. */
  c->row_idx[k] = 25;
  ts_csr *back = NULL;
  CHECK_STATUS(NULL, ts_csr_from_csc(NULL, c, &back), TS_ERROR_INVALID_MATRIX);
  CHECK(back == NULL && message_has(NULL, "ts_csr_from_csc: column 1, entry"));
  ts_csc_destroy(c);
  ts_csr_destroy(m);
}

static void test_coo_violations(void) {
  ts_coo *coo = NULL;
  CHECK_OK(NULL, ts_coo_create(NULL, 6, 5, 10, TS_FLOAT32, &coo));
  for (int k = 0; k < 8; k++) {
    coo->row_idx[k] = k % 6;
    coo->col_idx[k] = (k * 3) % 5;
    ((float *)coo->values)[k] = (float)k;
  }
  coo->nnz = 8;
  CHECK_OK(NULL, ts_coo_check(NULL, coo));
  coo->col_idx[5] = 5;
  CHECK_STATUS(NULL, ts_coo_check(NULL, coo), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(NULL, "entry 5 (row 5, column 5) is outside the 6 x 5 matrix"));
  coo->row_idx[2] = -1; /* the first bad entry is named */
  CHECK_STATUS(NULL, ts_coo_check(NULL, coo), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(NULL, "entry 2 (row -1, column 1)"));
  coo->row_idx[2] = 2;
  coo->col_idx[5] = 0;
  CHECK_OK(NULL, ts_coo_check(NULL, coo));
  coo->nnz = 11;
  CHECK_STATUS(NULL, ts_coo_check(NULL, coo), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(NULL, "11 entries exceed the capacity 10"));
  coo->nnz = 8;
  ts_coo fake = *coo;
  fake.row_idx = NULL;
  CHECK_STATUS(NULL, ts_coo_check(NULL, &fake), TS_ERROR_INVALID_MATRIX);
  fake = *coo;
  fake.rows = -6;
  CHECK_STATUS(NULL, ts_coo_check(NULL, &fake), TS_ERROR_INVALID_MATRIX);
  fake = *coo;
  fake.rows = (int64_t)INT32_MAX + 1;
  CHECK_STATUS(NULL, ts_coo_check(NULL, &fake), TS_ERROR_OVERFLOW);
  fake = *coo;
  fake.symmetry = TS_HERMITIAN;
  CHECK_STATUS(NULL, ts_coo_check(NULL, &fake), TS_ERROR_INVALID_MATRIX);
  CHECK_STATUS(NULL, ts_coo_check(NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  /* A large COO (threaded scan): still the first bad entry. */
  ts_coo *big = NULL;
  CHECK_OK(NULL, ts_coo_create(NULL, 1000, 1000, 300000, TS_FLOAT32, &big));
  for (int64_t k = 0; k < 300000; k++) {
    big->row_idx[k] = (int32_t)(k % 1000);
    big->col_idx[k] = (int32_t)((k * 7) % 1000);
    ((float *)big->values)[k] = 1.0f;
  }
  big->nnz = 300000;
  big->col_idx[299999] = 1000;
  big->col_idx[123457] = -1;
  big->row_idx[200001] = 1000;
  CHECK_STATUS(NULL, ts_coo_check(NULL, big), TS_ERROR_INVALID_MATRIX);
  CHECK(message_has(NULL, "entry 123457 (row 457, column -1)"));
  ts_coo_destroy(big);
  ts_coo_destroy(coo);
}

int main(void) {
  test_csr_violations();
  test_csc_violations();
  test_coo_violations();
  return test_finish();
}
