/* Ctrl-C in the host's LU factorization (ts_context_set_progress): a
 * cancel asked for while the columns are being factored (the callback sees
 * 0 < done < n) ends ts_lu_factor and ts_lu_refactor with
 * TS_ERROR_CANCELLED within a second, leaves no factors (a solve is
 * refused), and the same object factors afterwards to a solution whose
 * backward error, computed here, is at rounding level. The partial-pivoting
 * fallback's loop (called directly here) stops the same way and keeps no
 * factors. The matrix: the 3-D Laplacian on a 20^3 grid in its natural
 * order, whose band of 400 makes a factorization take seconds. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "lu/numeric/numeric_internal.h"
#include "test_lu_numeric_common.h"

#include <time.h>

static ts_context *ctx;

typedef struct cancel_watch {
  int armed;           /* cancel at the first call from inside the loop */
  int calls_inside;    /* calls with 0 < done < total */
  double cancelled_at; /* when the callback returned non-zero */
} cancel_watch;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cancel_inside(void *user, int64_t done, int64_t total) {
  cancel_watch *watch = user;
  if (!watch->armed || done <= 0 || done >= total)
    return 0;
  watch->calls_inside++;
  watch->cancelled_at = now();
  return 1;
}

/* Run factor (or refactor) with the cancel armed: the status, the delay
 * from the cancel to the return, and no solve after. */
static void expect_cancelled(ts_lu *lu, const ts_csr *a, cancel_watch *watch, int refactor, double *b, double *x) {
  const char *what = refactor ? "ts_lu_refactor" : "ts_lu_factor";
  watch->armed = 1;
  watch->calls_inside = 0;
  ts_status st = refactor ? ts_lu_refactor(lu, a) : ts_lu_factor(lu, a);
  const double returned = now();
  watch->armed = 0;
  CHECK_MSG(watch->calls_inside == 1, "%s: the callback was called %d times from inside the loop", what,
            watch->calls_inside);
  CHECK_MSG(st == TS_ERROR_CANCELLED, "%s: %s after a cancel, want TS_ERROR_CANCELLED", what, ts_status_string(st));
  if (watch->calls_inside == 1) {
    CHECK_MSG(returned - watch->cancelled_at < 1.0, "%s: returned %.3f s after the cancel", what,
              returned - watch->cancelled_at);
    printf("%s: returned %.4f s after the cancel\n", what, returned - watch->cancelled_at);
  }
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, a->rows, x, a->rows), TS_ERROR_NOT_FACTORED);
}

/* The partial-pivoting fallback of a factored object, cancelled inside its
 * loop: the status, the delay, no fallback factors kept. */
static void expect_fallback_cancelled(ts_lu *lu, cancel_watch *watch) {
  watch->armed = 1;
  watch->calls_inside = 0;
  ts_status st = tsi_lu_pivoted_factor(lu);
  const double returned = now();
  watch->armed = 0;
  CHECK_MSG(watch->calls_inside == 1, "fallback: the callback was called %d times from inside the loop",
            watch->calls_inside);
  CHECK_MSG(st == TS_ERROR_CANCELLED, "fallback: %s after a cancel, want TS_ERROR_CANCELLED", ts_status_string(st));
  CHECK(lu->pivoted == NULL);
  if (watch->calls_inside == 1) {
    CHECK_MSG(returned - watch->cancelled_at < 1.0, "fallback: returned %.3f s after the cancel",
              returned - watch->cancelled_at);
    printf("partial-pivoting fallback: returned %.4f s after the cancel\n", returned - watch->cancelled_at);
  }
  tsi_lu_pivoted_release(lu);
}

/* Factor (or refactor) without a cancel and solve A x = A * ones. */
static void expect_solved(ts_lu *lu, const ts_csr *a, int refactor, double *b, double *x) {
  const int64_t n = a->rows;
  CHECK_OK(ctx, refactor ? ts_lu_refactor(lu, a) : ts_lu_factor(lu, a));
  double *ones = malloc((size_t)n * sizeof *ones);
  for (int64_t i = 0; i < n; i++)
    ones[i] = 1.0;
  lu_test_multiply(a, 0, ones, b);
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  const double berr = lu_test_backward_error(a, 0, x, b);
  CHECK_MSG(berr <= 1e-14, "%s after a cancelled one: backward error %.3g", refactor ? "refactor" : "factor", berr);
  free(ones);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  cancel_watch watch = {0};
  CHECK_OK(ctx, ts_context_set_progress(ctx, cancel_inside, &watch));
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_gen_laplacian_3d(ctx, 20, 20, 20, TS_FLOAT64, &a));
  if (!a) {
    ts_context_destroy(ctx);
    return test_finish();
  }
  ts_lu_options options = lu_test_options();
  options.ordering = TS_LU_ORDER_NATURAL;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  double *b = calloc((size_t)a->rows, sizeof *b), *x = calloc((size_t)a->rows, sizeof *x);
  expect_cancelled(lu, a, &watch, 0, b, x);
  expect_solved(lu, a, 0, b, x);
  expect_cancelled(lu, a, &watch, 1, b, x);
  expect_solved(lu, a, 1, b, x);
  expect_fallback_cancelled(lu, &watch);
  free(b);
  free(x);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
  return test_finish();
}
