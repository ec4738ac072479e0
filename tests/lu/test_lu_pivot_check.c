/* The pivot check of a Newton loop: after a refactorization whose values
 * no longer suit the analysis's static pivots, ts_lu_refactor returns
 * TS_WARNING_PIVOTS_DEGRADED; with ts_lu_options.refresh_pivots it analyzes
 * the new values again and factors anew, and the solution then matches a
 * dense solve with partial pivoting (the independent reference). Values
 * that still suit the pivots raise no warning.
 * The matrices (test_lu_pivot_common.h) switch some pivots to d = 1e-9, far
 * above the tiny-pivot threshold, in the natural order (a fill-reducing
 * order may eliminate the 4 first and leave d - 1/4 as the pivot: the
 * natural order keeps the case sharp). */
#include "test_lu_pivot_common.h"

static ts_context *ctx;

enum { PAIRS = PIVOT_TEST_PAIRS, N = PIVOT_TEST_N };

static ts_csr *pair_matrix(int switched, double tiny, double jitter) {
  return pivot_test_matrix(ctx, switched, tiny, jitter);
}

/* Solve with b = A * (1, 2, ..., n) / n; returns the backward error (computed
 * here) and the largest difference from a dense solve with partial
 * pivoting over the solution's largest entry. */
static double solve_against_dense(ts_lu *lu, const ts_csr *a, double *difference) {
  double *truth = malloc(N * sizeof *truth), *b = malloc(N * sizeof *b), *x = malloc(N * sizeof *x);
  for (int64_t i = 0; i < N; i++)
    truth[i] = (double)(i + 1) / N;
  lu_test_multiply(a, 0, truth, b);
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, N, x, N));
  double berr = lu_test_backward_error(a, 0, x, b);
  double *dense = lu_test_dense(a, 0), *reference = malloc(N * sizeof *reference);
  memcpy(reference, b, N * sizeof *b);
  CHECK(dense && lu_test_dense_solve(dense, reference, N) == 0);
  double diff = 0.0, size = 0.0;
  for (int64_t i = 0; i < N; i++) {
    diff = fmax(diff, fabs(x[i] - reference[i]));
    size = fmax(size, fabs(reference[i]));
  }
  *difference = diff / size;
  free(truth);
  free(b);
  free(x);
  free(dense);
  free(reference);
  return berr;
}

static ts_lu *analyzed(ts_csr *a, int refresh, int float_factors) {
  ts_lu_options options = lu_test_options();
  options.ordering = TS_LU_ORDER_NATURAL;
  options.refresh_pivots = refresh;
  options.float_factors = float_factors;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  return lu;
}

/* Values that still suit the pivots (10 % jitter of the dominant pairs): no
 * warning, and the statistics of the check near those of the first
 * factorization. */
static void test_no_false_alarm(void) {
  ts_csr *a0 = pair_matrix(0, 0.0, 0.0);
  ts_lu *lu = analyzed(a0, 0, 0);
  ts_lu_stats first, stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &first));
  CHECK_MSG(first.max_multiplier > 0.0 && first.max_multiplier < 1.0 && first.pivot_growth > 0.0,
            "first factorization: multiplier %g, growth %g", first.max_multiplier, first.pivot_growth);
  for (int step = 1; step <= 5; step++) {
    ts_csr *a = pair_matrix(0, 0.0, 0.02 * step);
    CHECK_OK(ctx, ts_lu_refactor(lu, a));
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK(!stats.pivots_refreshed && stats.max_multiplier < 1.0);
    double difference = 0.0;
    CHECK(solve_against_dense(lu, a, &difference) <= 1e-14 && difference <= 1e-12);
    ts_csr_destroy(a);
  }
  ts_lu_destroy(lu);
  ts_csr_destroy(a0);
}

/* The switched values: the warning, with the message and statistics that
 * say why; the factors are still complete (a solve runs). ts_lu_factor on
 * the same analysis checks as ts_lu_refactor does. */
static void test_degraded_warning(int float_factors) {
  ts_csr *a0 = pair_matrix(0, 0.0, 0.0), *a1 = pair_matrix(1, 1e-9, 0.0);
  ts_lu *lu = analyzed(a0, 0, float_factors);
  CHECK_STATUS(ctx, ts_lu_refactor(lu, a1), TS_WARNING_PIVOTS_DEGRADED);
  CHECK(strstr(ts_last_error(ctx), "no longer suit") != NULL);
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  /* In double d is a pivot (multiplier 1e9); in float it is below the
   * tiny-pivot threshold (1e-7) and replaced: more perturbed pivots. */
  if (float_factors)
    CHECK_MSG(stats.perturbed_pivots > 0 && !stats.pivots_refreshed, "%lld perturbed",
              (long long)stats.perturbed_pivots);
  else
    CHECK_MSG(stats.max_multiplier > 1e8 && stats.perturbed_pivots == 0 && !stats.pivots_refreshed, "multiplier %g",
              stats.max_multiplier);
  double *b = calloc(N, sizeof *b), *x = malloc(N * sizeof *x);
  b[0] = 1.0;
  ts_status solved = ts_lu_solve(lu, TS_OP_NONE, 1, b, N, x, N);
  CHECK_MSG(!TS_IS_ERROR(solved), "%s", ts_last_error(ctx));
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  printf("%s factors with the old pivots: multiplier %.3g, growth %.3g, %lld perturbed; solve: %d refinement steps, "
         "backward error %.2g%s\n",
         float_factors ? "float" : "double", stats.max_multiplier, stats.pivot_growth,
         (long long)stats.perturbed_pivots, stats.refinement_steps, stats.backward_error,
         stats.partial_pivoting ? ", partial-pivoting fallback" : "");
  /* The same verdict from ts_lu_factor reusing the analysis, and none from
   * values that suit the pivots again. */
  CHECK_STATUS(ctx, ts_lu_factor(lu, a1), TS_WARNING_PIVOTS_DEGRADED);
  CHECK_OK(ctx, ts_lu_refactor(lu, a0));
  free(b);
  free(x);
  ts_lu_destroy(lu);
  ts_csr_destroy(a0);
  ts_csr_destroy(a1);
}

/* A switched diagonal of exactly zero: the old pivot is perturbed, more
 * perturbed pivots than the analysis had is degraded too. */
static void test_new_perturbed_pivots(void) {
  ts_csr *a0 = pair_matrix(0, 0.0, 0.0), *a1 = pair_matrix(1, 0.0, 0.0);
  ts_lu *lu = analyzed(a0, 0, 0);
  CHECK_STATUS(ctx, ts_lu_refactor(lu, a1), TS_WARNING_PIVOTS_DEGRADED);
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK_MSG(stats.perturbed_pivots == (PAIRS + 3) / 7, "%lld perturbed pivots", (long long)stats.perturbed_pivots);
  ts_lu_destroy(lu);
  ts_csr_destroy(a0);
  ts_csr_destroy(a1);
}

/* refresh_pivots: the switched values are analyzed again and factored
 * anew, with pivots that suit them: success, small multipliers, and the
 * dense solve's answer. A second refactorization of the same values then
 * needs no refresh (the new analysis is the reference). */
static void test_refresh(void) {
  ts_csr *a0 = pair_matrix(0, 0.0, 0.0), *a1 = pair_matrix(1, 1e-9, 0.0);
  ts_lu *lu = analyzed(a0, 1, 0);
  CHECK_OK(ctx, ts_lu_refactor(lu, a1));
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK_MSG(stats.pivots_refreshed && stats.max_multiplier < 10.0 && stats.perturbed_pivots == 0,
            "refreshed %d, multiplier %g", stats.pivots_refreshed, stats.max_multiplier);
  double difference = 0.0, berr = solve_against_dense(lu, a1, &difference);
  CHECK_MSG(berr <= 1e-14 && difference <= 1e-12, "backward error %g, difference from the dense solve %g", berr,
            difference);
  printf("refreshed pivots: multiplier %.3g, backward error %.2g, difference from the dense solve %.2g\n",
         stats.max_multiplier, berr, difference);
  CHECK_OK(ctx, ts_lu_refactor(lu, a1));
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK(!stats.pivots_refreshed);
  ts_lu_destroy(lu);
  ts_csr_destroy(a0);
  ts_csr_destroy(a1);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_no_false_alarm();
  test_degraded_warning(0);
  test_degraded_warning(1);
  test_new_perturbed_pivots();
  test_refresh();
  ts_context_destroy(ctx);
  return test_finish();
}
