/* LU batches on the host, misuse and odd cases: a factorization or a solve
 * cancelled part way leaves member records that say what happened (no
 * member claims factors the batch no longer has; a member the cancelled
 * solve did not reach has a NaN x and says so). */
#include "test_lu_batch_common.h"

static ts_context *ctx;

/* Cancels from the call after `cancel_after` (counted in `calls`). */
static int calls, cancel_after;
static int cancel_later(void *user, int64_t done, int64_t total) {
  (void)user;
  (void)done;
  (void)total;
  return ++calls > cancel_after;
}

/* A context of one thread: the members run in order, so a cancellation
 * after k calls of the callback stops at a known member. */
static ts_context *one_thread_context(void) {
  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CPU;
  options.num_threads = 1;
  ts_context *c = NULL;
  CHECK_OK(NULL, ts_context_create(&c, &options));
  return c;
}

/* A cancelled factorization: the batch has no factors, and no member's
 * record may say otherwise; a new factorization then succeeds. */
static void test_cancelled_factor(void) {
  ts_context *c = one_thread_context();
  ts_csr *a = batch_test_circuit(c, 80, 61);
  const int64_t count = 6, rows = count * a->rows;
  ts_lu_options options = lu_test_options();
  ts_lu_batch *batch = NULL;
  CHECK_OK(c, ts_lu_batch_create(c, &options, 1, (const ts_csr *const[]){a}, &count, &batch));
  double *values = batch_test_values(1, (const ts_csr *const[]){a}, &count, 0.2, 62);
  double *b = batch_test_rhs(rows, 63), *x = malloc((size_t)rows * sizeof *x);
  CHECK_OK(c, ts_lu_batch_factor(batch, values));
  CHECK_OK(c, ts_lu_batch_solve(batch, b, x));

  /* The callback is asked before the members and after each: three members
   * are factored before it stops the call. */
  calls = 0;
  cancel_after = 3;
  CHECK_OK(c, ts_context_set_progress(c, cancel_later, NULL));
  CHECK_STATUS(c, ts_lu_batch_factor(batch, values), TS_ERROR_CANCELLED);
  CHECK_OK(c, ts_context_set_progress(c, NULL, NULL));
  CHECK_MSG(strstr(ts_last_error(c), "ts_lu_batch_factor") != NULL, "the message names the call: %s", ts_last_error(c));
  for (int64_t m = 0; m < count; m++) {
    ts_lu_batch_member info;
    CHECK_OK(c, ts_lu_batch_get_member(batch, m, &info));
    CHECK_MSG(info.status == TS_ERROR_NOT_FACTORED && info.singular_column == -1 && info.perturbed_pivots == 0,
              "member %lld after a cancelled factorization: %s", (long long)m, ts_status_string(info.status));
  }
  ts_lu_batch_stats stats;
  CHECK_OK(c, ts_lu_batch_get_stats(batch, &stats));
  CHECK_MSG(stats.failed_members == count, "%lld failed members after a cancelled factorization",
            (long long)stats.failed_members);
  CHECK_STATUS(c, ts_lu_batch_solve(batch, b, x), TS_ERROR_NOT_FACTORED);

  /* Factored again: every member as its single system. */
  CHECK_OK(c, ts_lu_batch_factor(batch, values));
  CHECK_OK(c, ts_lu_batch_solve(batch, b, x));
  for (int64_t m = 0; m < count; m++) {
    batch_single s;
    batch_test_single(c, &options, a, values + m * a->nnz, b + m * a->rows, &s);
    batch_test_compare("refactored after a cancellation", batch, m, &s, x, 1, 0.0);
    batch_single_free(&s);
  }
  ts_lu_batch_destroy(batch);
  free(values);
  free(b);
  free(x);
  ts_csr_destroy(a);
  ts_context_destroy(c);
}

/* A cancelled solve: the members solved before it match their single
 * systems; the others say TS_ERROR_CANCELLED and have a NaN x (never what
 * the caller's array held); a new solve solves them all. */
static void test_cancelled_solve(void) {
  ts_context *c = one_thread_context();
  ts_csr *a = batch_test_circuit(c, 80, 71);
  const int64_t count = 6, rows = count * a->rows, solved = 2;
  ts_lu_options options = lu_test_options();
  ts_lu_batch *batch = NULL;
  CHECK_OK(c, ts_lu_batch_create(c, &options, 1, (const ts_csr *const[]){a}, &count, &batch));
  double *values = batch_test_values(1, (const ts_csr *const[]){a}, &count, 0.2, 72);
  double *b = batch_test_rhs(rows, 73), *x = malloc((size_t)rows * sizeof *x);
  CHECK_OK(c, ts_lu_batch_factor(batch, values));
  for (int64_t i = 0; i < rows; i++)
    x[i] = 7.0;

  calls = 0;
  cancel_after = (int)solved; /* asked before the members and after each */
  CHECK_OK(c, ts_context_set_progress(c, cancel_later, NULL));
  CHECK_STATUS(c, ts_lu_batch_solve(batch, b, x), TS_ERROR_CANCELLED);
  CHECK_OK(c, ts_context_set_progress(c, NULL, NULL));
  CHECK_MSG(strstr(ts_last_error(c), "ts_lu_batch_solve") != NULL, "the message names the call: %s", ts_last_error(c));
  for (int64_t m = 0; m < count; m++) {
    ts_lu_batch_member info;
    CHECK_OK(c, ts_lu_batch_get_member(batch, m, &info));
    if (m < solved) {
      batch_single s;
      batch_test_single(c, &options, a, values + m * a->nnz, b + m * a->rows, &s);
      batch_test_compare("solved before the cancellation", batch, m, &s, x, 1, 0.0);
      batch_single_free(&s);
      continue;
    }
    CHECK_MSG(info.status == TS_ERROR_CANCELLED, "member %lld, not solved: status %s", (long long)m,
              ts_status_string(info.status));
    int nan = 1;
    for (int64_t i = 0; i < a->rows; i++)
      nan = nan && isnan(x[info.vector_offset + i]);
    CHECK_MSG(nan, "member %lld, not solved: its x is not NaN", (long long)m);
  }
  ts_lu_batch_stats stats;
  CHECK_OK(c, ts_lu_batch_get_stats(batch, &stats));
  CHECK_MSG(stats.failed_members == count - solved, "%lld failed members after a cancelled solve",
            (long long)stats.failed_members);

  CHECK_OK(c, ts_lu_batch_solve(batch, b, x));
  for (int64_t m = 0; m < count; m++) {
    batch_single s;
    batch_test_single(c, &options, a, values + m * a->nnz, b + m * a->rows, &s);
    batch_test_compare("solved again", batch, m, &s, x, 1, 0.0);
    batch_single_free(&s);
  }
  ts_lu_batch_destroy(batch);
  free(values);
  free(b);
  free(x);
  ts_csr_destroy(a);
  ts_context_destroy(c);
}

int main(void) {
  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CPU;
  if (ts_context_create(&ctx, &options) != TS_SUCCESS)
    return 1;
  test_cancelled_factor();
  test_cancelled_solve();
  ts_context_destroy(ctx);
  return test_finish();
}
