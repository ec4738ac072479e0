/* ts_lu_options::unchecked_solves: a solve through clean factors forms no
 * residual. Checked against a dense LU with partial pivoting (the test's
 * own, in double) and against the library's checked solve of the same
 * factors: the unchecked x is that of one pass through the factors (the
 * checked solve's x when it took no refinement step), its backward error
 * (computed here) small, the statistics' backward errors and residual NaN,
 * |x| kept; factors with perturbed pivots are still checked; an overflowing
 * solution is still an error; transposed and several right-hand sides too. */
#include "test_lu_numeric_common.h"

static ts_context *ctx;

static ts_lu *factored(const ts_csr *a, int unchecked, ts_status *status) {
  ts_lu_options options = lu_test_options();
  options.unchecked_solves = unchecked;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  *status = ts_lu_factor(lu, a);
  return lu;
}

static void test_clean_factors(void) {
  for (int k = 0; k < 4; k++) {
    const int64_t n = k < 2 ? 60 : 700;
    ts_csr *a = lu_test_random(ctx, n, 4, k % 2, 11 + (unsigned long long)k);
    CHECK(a != NULL);
    if (!a)
      continue;
    ts_status st_checked, st_unchecked;
    ts_lu *checked = factored(a, 0, &st_checked), *unchecked = factored(a, 1, &st_unchecked);
    CHECK_MSG(st_checked == TS_SUCCESS && st_unchecked == TS_SUCCESS, "case %d: %s / %s", k,
              ts_status_string(st_checked), ts_status_string(st_unchecked));
    const int64_t nrhs = 3;
    double *b = malloc((size_t)(n * nrhs) * sizeof *b), *x = calloc((size_t)(n * nrhs), sizeof *x);
    double *y = calloc((size_t)(n * nrhs), sizeof *y), *dense = lu_test_dense(a, 0);
    unsigned long long state = 5 + (unsigned long long)k;
    for (int64_t i = 0; i < n * nrhs; i++)
      b[i] = test_random(&state);
    for (int transpose = 0; transpose < 2; transpose++) {
      const ts_operation op = transpose ? TS_OP_TRANSPOSE : TS_OP_NONE;
      CHECK_OK(ctx, ts_lu_solve(unchecked, op, nrhs, b, n, x, n));
      ts_lu_stats s;
      CHECK_OK(ctx, ts_lu_get_stats(unchecked, &s));
      CHECK_MSG(isnan(s.backward_error) && isnan(s.scaled_backward_error) && isnan(s.componentwise_backward_error) &&
                    isnan(s.residual_norm) && s.refinement_steps == 0,
                "case %d op %d: berr %g residual %g steps %d", k, transpose, s.backward_error, s.residual_norm,
                (int)s.refinement_steps);
      double largest = 0.0;
      for (int64_t j = 0; j < nrhs; j++) {
        const double berr = lu_test_backward_error(a, transpose, x + j * n, b + j * n);
        CHECK_MSG(berr <= 1e-13, "case %d op %d rhs %lld: backward error %.3g", k, transpose, (long long)j, berr);
        for (int64_t i = 0; i < n; i++)
          largest = fmax(largest, fabs(x[j * n + i]));
      }
      CHECK_MSG(s.solution_norm == largest, "case %d: solution norm %.17g, |x| %.17g", k, s.solution_norm, largest);
      /* The dense reference (the first right-hand side). */
      double size;
      const double err = lu_test_dense_gap(a, transpose, b, x, &size);
      CHECK(err >= 0.0);
      CHECK_MSG(err <= 1e-10 * size, "case %d op %d: |x - x_dense| %.3g of %.3g", k, transpose, err, size);
      /* The checked solve: the same x when it took no refinement step. */
      CHECK_OK(ctx, ts_lu_solve(checked, op, nrhs, b, n, y, n));
      ts_lu_stats c;
      CHECK_OK(ctx, ts_lu_get_stats(checked, &c));
      CHECK(c.backward_error <= 1e-14);
      if (c.refinement_steps == 0)
        CHECK_MSG(memcmp(x, y, (size_t)(n * nrhs) * sizeof *x) == 0, "case %d op %d: unchecked x differs", k,
                  transpose);
    }
    free(b);
    free(x);
    free(y);
    free(dense);
    ts_lu_destroy(checked);
    ts_lu_destroy(unchecked);
    ts_csr_destroy(a);
  }
}

/* The 3 x 3 whose second static pivot cancels (perturbed, nonsingular):
 * its solves keep the residual and the refinement. */
static void test_perturbed_still_checked(void) {
  const int32_t rows[] = {0, 0, 1, 1, 1, 2, 2}, cols[] = {0, 1, 0, 1, 2, 1, 2};
  ts_csr *a = lu_test_csr(ctx, 3, 7, rows, cols, (const double[]){1, 1, 1, 1, 1, 1, 1});
  ts_lu_options options = lu_test_options();
  options.ordering = TS_LU_ORDER_NATURAL;
  options.no_matching = 1;
  options.unchecked_solves = 1;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_STATUS(ctx, ts_lu_factor(lu, a), TS_WARNING_PERTURBED_PIVOTS);
  double x_true[3] = {1, -2, 3}, b[3], x[3];
  lu_test_multiply(a, 0, x_true, b);
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 3, x, 3));
  ts_lu_stats s;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &s));
  CHECK_MSG(s.backward_error <= 1e-14, "perturbed factors: backward error %g (want a checked solve)", s.backward_error);
  CHECK(lu_test_backward_error(a, 0, x, b) <= 1e-14);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* x = 1e10 / 1e-300 overflows: still an error without the check. */
static void test_overflow(void) {
  ts_csr *tiny = lu_test_csr(ctx, 1, 1, (const int32_t[]){0}, (const int32_t[]){0}, (const double[]){1e-300});
  ts_status st;
  ts_lu *lu = factored(tiny, 1, &st);
  CHECK_OK(ctx, st);
  double big = 1e10, out = 0.0;
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, &big, 1, &out, 1), TS_ERROR_OVERFLOW);
  ts_lu_destroy(lu);
  ts_csr_destroy(tiny);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_clean_factors();
  test_perturbed_still_checked();
  test_overflow();
  ts_context_destroy(ctx);
  return test_finish();
}
