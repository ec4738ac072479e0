/* A cancellation in the middle of the host factorization, on each of its
 * schedules (one thread; the dataflow on four threads, more than this
 * machine may have free cores, so that threads sleep on column marks; level
 * by level): the refactor returns TS_ERROR_CANCELLED without hanging (no
 * thread may sleep for ever on a column whose ticket was left), the solve
 * then refuses, and the next refactor without the callback gives factors
 * bitwise equal to an uninterrupted one-thread factorization. */
#include "test_lu_numeric_common.h"

#include "lu/lu_internal.h" /* the schedule switches and the factor values */

enum { SCHEDULE_SERIAL, SCHEDULE_FLOW, SCHEDULE_LEVELS, SCHEDULES };
static const char *const schedule_names[SCHEDULES] = {"one thread", "dataflow", "level by level"};

/* Asks to stop at its first call; counts the calls. */
static int cancel_now(void *user, int64_t done, int64_t total) {
  (void)done;
  (void)total;
  (*(int *)user)++;
  return 1;
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  copts.num_threads = 4;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  ts_circuit_params params = ts_circuit_defaults(20000);
  params.locality = 1.0; /* a grid circuit: many levels, columns that wait on others */
  ts_csr *a = NULL;
  CHECK_OK(ctx, lu_test_gen_circuit(ctx, &params, 5, TS_FLOAT64, &a));
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  if (!a || !lu) {
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
    ts_context_destroy(ctx);
    return test_finish();
  }
  lu->switches.cpu_threads = 1;
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  ts_status first = ts_lu_factor(lu, a);
  CHECK(first == TS_SUCCESS || first == TS_WARNING_PERTURBED_PIVOTS);
  double *reference = malloc((size_t)lu->lu_nnz * sizeof(double));
  CHECK(reference != NULL && lu->lu_values != NULL);
  if (reference && lu->lu_values)
    memcpy(reference, lu->lu_values, (size_t)lu->lu_nnz * sizeof(double));
  const int64_t n = lu->n;
  double *b = malloc((size_t)n * sizeof(double)), *x = malloc((size_t)n * sizeof(double));
  CHECK(b != NULL && x != NULL);
  for (int64_t i = 0; b && i < n; i++)
    b[i] = 1.0;

  for (int schedule = 0; schedule < SCHEDULES && reference && b && x; schedule++) {
    lu->switches.cpu_threads = schedule == SCHEDULE_SERIAL ? 1 : 4;
    lu->switches.cpu_level_sync = schedule == SCHEDULE_LEVELS;
    int calls = 0;
    CHECK_OK(ctx, ts_context_set_progress(ctx, cancel_now, &calls));
    CHECK_STATUS(ctx, ts_lu_refactor(lu, a), TS_ERROR_CANCELLED);
    CHECK_MSG(calls >= 1, "%s: the callback was not called", schedule_names[schedule]);
    CHECK_OK(ctx, ts_context_set_progress(ctx, NULL, NULL));
    CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n), TS_ERROR_NOT_FACTORED);
    ts_status again = ts_lu_refactor(lu, a);
    CHECK_MSG(again == first, "%s: refactor after the cancel: %s", schedule_names[schedule], ts_status_string(again));
    CHECK_MSG(memcmp(reference, lu->lu_values, (size_t)lu->lu_nnz * sizeof(double)) == 0,
              "%s: the factors after a cancelled refactor differ from one thread's", schedule_names[schedule]);
    printf("%s: cancelled after %d callback call(s), then refactored bitwise as before\n", schedule_names[schedule],
           calls);
  }
  free(reference);
  free(b);
  free(x);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
  return test_finish();
}
