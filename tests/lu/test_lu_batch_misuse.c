/* LU batches on the host, misuse and odd cases: a factorization or a solve
 * cancelled part way leaves member records that say what happened (no
 * member claims factors the batch no longer has; a member the cancelled
 * solve did not reach has a NaN x and says so), the calls' messages say
 * what failed without claiming what did not happen, and mixed batches with
 * empty and 1 x 1 patterns report their failing members while the others
 * are solved as single systems. */
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

/* Every member of a one-pattern batch against its single system, bitwise. */
static void compare_all(ts_context *c, const ts_lu_options *options, const ts_csr *a, const ts_lu_batch *batch,
                        int64_t count, const double *values, const double *b, const double *x, const char *what) {
  for (int64_t m = 0; m < count; m++) {
    batch_single s;
    batch_test_single(c, options, a, values + m * a->nnz, b + m * a->rows, &s);
    batch_test_compare(what, batch, m, &s, x, 1, 0.0);
    batch_single_free(&s);
  }
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
  compare_all(c, &options, a, batch, count, values, b, x, "refactored after a cancellation");
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
  compare_all(c, &options, a, batch, count, values, b, x, "solved again");
  ts_lu_batch_destroy(batch);
  free(values);
  free(b);
  free(x);
  ts_csr_destroy(a);
  ts_context_destroy(c);
}

/* Mixed patterns: empty matrices and 1 x 1 ones, a singular member among
 * them, a member whose solution overflows and one with an infinite b. The
 * calls name the first failed member; the messages claim neither factored
 * members that do not exist nor NaN solutions that are not. */
static void test_small_patterns(void) {
  ts_csr *empty = NULL;
  CHECK_OK(ctx, ts_csr_create(ctx, 0, 0, 0, TS_FLOAT64, &empty));
  int32_t zero = 0;
  double one = 1.0;
  ts_csr *tiny = lu_test_csr(ctx, 1, 1, &zero, &zero, &one);
  const ts_csr *const mats[3] = {empty, tiny, empty};
  const int64_t counts[3] = {2, 4, 1};
  ts_lu_options options = lu_test_options();
  options.no_perturbation = 1;
  ts_lu_batch *batch = NULL;
  CHECK_OK(ctx, ts_lu_batch_create(ctx, &options, 3, mats, counts, &batch));
  if (!batch)
    return;
  ts_lu_batch_stats stats;
  CHECK_OK(ctx, ts_lu_batch_get_stats(batch, &stats));
  CHECK(stats.members == 7 && stats.values == 4 && stats.rows == 4 && stats.patterns == 3);
  /* Members 2 .. 5 are the 1 x 1 ones: 4, 0 (singular), 1e-300, 2. */
  double values[4] = {4.0, 0.0, 1e-300, 2.0}, b[4] = {8.0, 1.0, 1e300, INFINITY}, x[4];
  CHECK_STATUS(ctx, ts_lu_batch_factor(batch, values), TS_ERROR_NUMERICALLY_SINGULAR);
  const char *message = ts_last_error(ctx);
  CHECK_MSG(strstr(message, "1 of 7 members") != NULL && strstr(message, "member 3 (pattern 1)") != NULL,
            "the message counts the failures and names the first: %s", message);
  ts_status st = ts_lu_batch_solve(batch, b, x);
  CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "solve: %s (%s)", ts_status_string(st), ts_last_error(ctx));
  message = ts_last_error(ctx);
  CHECK_MSG(strstr(message, "3 of 7 members") != NULL && strstr(message, "member 3 (pattern 1)") != NULL,
            "the solve's message counts the failures and names the first: %s", message);
  CHECK_MSG(strstr(message, "their x is NaN") == NULL, "an overflowed x is not NaN: %s", message);
  for (int64_t m = 0; m < stats.members; m++) {
    ts_lu_batch_member info;
    CHECK_OK(ctx, ts_lu_batch_get_member(batch, m, &info));
    const int64_t p = m < 2 ? 0 : m < 6 ? 1 : 2;
    CHECK(info.pattern == p && info.n == mats[p]->rows && info.nnz == mats[p]->nnz);
    if (p != 1) {
      CHECK_MSG(info.status == TS_SUCCESS, "empty member %lld: %s", (long long)m, ts_status_string(info.status));
      continue;
    }
    batch_single s;
    batch_test_single(ctx, &options, tiny, values + info.value_offset, b + info.vector_offset, &s);
    batch_test_compare("small patterns", batch, m, &s, x, 1, 0.0);
    batch_single_free(&s);
  }
  ts_lu_batch_member info;
  CHECK_OK(ctx, ts_lu_batch_get_member(batch, 3, &info));
  CHECK(info.status == TS_ERROR_NUMERICALLY_SINGULAR && info.singular_column == 0);
  CHECK_OK(ctx, ts_lu_batch_get_member(batch, 4, &info));
  CHECK_MSG(info.status == TS_ERROR_OVERFLOW && isinf(x[info.vector_offset]), "member 4: %s, x %g",
            ts_status_string(info.status), x[info.vector_offset]);
  CHECK_OK(ctx, ts_lu_batch_get_member(batch, 5, &info));
  CHECK(info.status == TS_ERROR_INVALID_ARGUMENT && isnan(x[info.vector_offset]));
  CHECK(x[0] == 2.0);

  /* Every member failing: no "others" are factored. */
  double bad[4] = {NAN, 0.0, INFINITY, 0.0};
  CHECK_STATUS(ctx, ts_lu_batch_factor(batch, bad), TS_ERROR_INVALID_MATRIX);
  message = ts_last_error(ctx);
  CHECK_MSG(strstr(message, "4 of 7") != NULL && strstr(message, "member 2 (pattern 1)") != NULL, "message: %s",
            message);
  ts_lu_batch_destroy(batch);

  /* Only the failing pattern: no member is factored, and the message does not say the others are. */
  const int64_t two = 2;
  CHECK_OK(ctx, ts_lu_batch_create(ctx, &options, 1, (const ts_csr *const[]){tiny}, &two, &batch));
  CHECK_STATUS(ctx, ts_lu_batch_factor(batch, (const double[]){0.0, NAN}), TS_ERROR_NUMERICALLY_SINGULAR);
  message = ts_last_error(ctx);
  CHECK_MSG(strstr(message, "2 of 2 members failed") != NULL && strstr(message, "the others are factored") == NULL,
            "every member failed: %s", message);
  ts_lu_batch_destroy(batch);
  ts_csr_destroy(empty);
  ts_csr_destroy(tiny);
}

/* Unchecked solves compute no backward error: every member's and the
 * batch's statistic say NaN, not 0. */
static void test_unchecked_backward_error(void) {
  ts_csr *a = batch_test_circuit(ctx, 60, 5);
  if (!a)
    return;
  const ts_csr *const mats[1] = {a};
  const int64_t counts[1] = {3};
  ts_lu_options options = lu_test_options();
  options.unchecked_solves = 1;
  ts_lu_batch *batch = NULL;
  CHECK_OK(ctx, ts_lu_batch_create(ctx, &options, 1, mats, counts, &batch));
  double *values = batch_test_values(1, mats, counts, 0.1, 9);
  double *b = batch_test_rhs(3 * a->rows, 11);
  double *x = calloc((size_t)(3 * a->rows), sizeof(double));
  if (batch && values && b && x) {
    CHECK_OK(ctx, ts_lu_batch_factor(batch, values));
    CHECK_OK(ctx, ts_lu_batch_solve(batch, b, x));
    ts_lu_batch_stats stats;
    CHECK_OK(ctx, ts_lu_batch_get_stats(batch, &stats));
    CHECK_MSG(isnan(stats.backward_error), "the batch's backward error of unchecked solves: %g", stats.backward_error);
    for (int64_t m = 0; m < 3; m++) {
      ts_lu_batch_member info;
      CHECK_OK(ctx, ts_lu_batch_get_member(batch, m, &info));
      CHECK(info.status == TS_SUCCESS && isnan(info.backward_error));
      batch_single s;
      batch_test_single(ctx, &options, a, values + info.value_offset, b + info.vector_offset, &s);
      batch_test_compare("unchecked", batch, m, &s, x, 0, 0.0); /* x exactly (NaN errors compare unequal) */
      batch_single_free(&s);
    }
    /* A checked solve after it reports a number again. */
    ts_lu_batch_destroy(batch);
    batch = NULL;
    options.unchecked_solves = 0;
    CHECK_OK(ctx, ts_lu_batch_create(ctx, &options, 1, mats, counts, &batch));
    CHECK_OK(ctx, ts_lu_batch_factor(batch, values));
    CHECK_OK(ctx, ts_lu_batch_solve(batch, b, x));
    CHECK_OK(ctx, ts_lu_batch_get_stats(batch, &stats));
    CHECK_MSG(stats.backward_error >= 0.0 && stats.backward_error < 1e-13, "checked: %g", stats.backward_error);
  }
  free(values);
  free(b);
  free(x);
  ts_lu_batch_destroy(batch);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CPU;
  if (ts_context_create(&ctx, &options) != TS_SUCCESS)
    return 1;
  test_cancelled_factor();
  test_cancelled_solve();
  test_small_patterns();
  test_unchecked_backward_error();
  ts_context_destroy(ctx);
  return test_finish();
}
