/* What the LU reports about a solve, on the host:
 * - non-finite data is an error: a right-hand side holding Inf or NaN (the
 *   message names its row and right-hand side, from 0), a solution that
 *   overflows, a refactorization with every value zero, a refactorization
 *   with Inf or NaN among the values (the first such entry named, a row of
 *   finite values whose sum overflows not taken for one);
 * - the backward errors cannot overflow: on a system whose rows and columns
 *   span 300 decades (A = Dr B Dc, B well conditioned), the solution agrees
 *   entry by entry with the one computed here from B by dense elimination,
 *   with double and with float factors (the refinement goes on until the
 *   scaled and componentwise backward errors are small), and the reported
 *   residual norm, solution norm and normwise backward error equal the ones
 *   recomputed here in long double (whose exponent range holds |A| |x|);
 *   without the matching, either that accuracy or the singular status, never
 *   a wrong solution reported as solved;
 * - a denormal pivot: [1e-320] is solved (the matching's scales balanced);
 *   a matrix whose entries span more than double's range of scales is
 *   refused by name. */
#include "test_lu_numeric_common.h"

#include <float.h>

static ts_context *ctx;

static ts_lu *factored(const ts_csr *a, const ts_lu_options *options, ts_status *status) {
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, options, &lu));
  *status = ts_lu_analyze(lu, a);
  if (*status == TS_SUCCESS)
    *status = ts_lu_factor(lu, a);
  return lu;
}

static void test_non_finite(void) {
  ts_csr *a = lu_test_random(ctx, 50, 3, 1, 3);
  ts_status st;
  ts_lu *lu = NULL;
  double b[100], x[100];
  const double bad[3] = {INFINITY, -INFINITY, NAN};
  for (int variant = 0; variant < 6; variant++) {
    /* the three values, in checked then in unchecked solves */
    const int k = variant % 3;
    if (k == 0) {
      ts_lu_destroy(lu);
      ts_lu_options options = lu_test_options();
      options.unchecked_solves = variant / 3;
      lu = factored(a, &options, &st);
      CHECK_OK(ctx, st);
    }
    for (int i = 0; i < 100; i++)
      b[i] = 1.0;
    b[50 + 17] = bad[k]; /* row 17 of the second right-hand side */
    CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 2, b, 50, x, 50), TS_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(ts_last_error(ctx), "row 17 of right-hand side 1 (both from 0)") != NULL, "message: %s",
              ts_last_error(ctx));
    CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_TRANSPOSE, 2, b, 50, x, 50), TS_ERROR_INVALID_ARGUMENT);
  }
  ts_lu_destroy(lu);
  ts_csr_destroy(a);

  /* The host checks b once a solution is not finite: the same error through
   * perturbed pivots (whose solves would otherwise fall back to partial
   * pivoting first) and in unchecked solves, and nothing changed for the
   * next solve. [[1 1 0] [1 1 1] [0 1 1]] in the natural order without the
   * matching perturbs its second pivot. */
  ts_csr *cancel = lu_test_csr(ctx, 3, 7, (const int32_t[]){0, 0, 1, 1, 1, 2, 2},
                               (const int32_t[]){0, 1, 0, 1, 2, 1, 2}, (const double[]){1, 1, 1, 1, 1, 1, 1});
  for (int unchecked = 0; unchecked < 2; unchecked++) {
    ts_lu_options o = lu_test_options();
    o.ordering = TS_LU_ORDER_NATURAL;
    o.no_matching = 1;
    o.unchecked_solves = unchecked;
    lu = factored(cancel, &o, &st);
    CHECK_STATUS(ctx, st, TS_WARNING_PERTURBED_PIVOTS);
    for (int k = 0; k < 3; k++) {
      double bb[3] = {1.0, bad[k], 1.0}, xx[3];
      CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, bb, 3, xx, 3), TS_ERROR_INVALID_ARGUMENT);
      CHECK_MSG(strstr(ts_last_error(ctx), "row 1 of right-hand side 0 (both from 0)") != NULL, "message: %s",
                ts_last_error(ctx));
    }
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK_MSG(stats.partial_pivoting == 0, "unchecked %d: b with a NaN sent the solves to partial pivoting", unchecked);
    double x_true[3] = {1, -2, 3}, bb[3], xx[3];
    lu_test_multiply(cancel, 0, x_true, bb);
    CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, bb, 3, xx, 3));
    CHECK(lu_test_backward_error(cancel, 0, xx, bb) <= 1e-14);
    ts_lu_destroy(lu);
  }
  ts_csr_destroy(cancel);

  /* x = 1e10 / 1e-300 does not fit in double: an error, with or without
   * the matching. */
  ts_csr *tiny = lu_test_csr(ctx, 1, 1, (const int32_t[]){0}, (const int32_t[]){0}, (const double[]){1e-300});
  for (int matching = 0; matching < 2; matching++) {
    ts_lu_options o = lu_test_options();
    o.no_matching = !matching;
    lu = factored(tiny, &o, &st);
    CHECK_OK(ctx, st);
    double big = 1e10, out = 0.0;
    CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, &big, 1, &out, 1), TS_ERROR_OVERFLOW);
    ts_lu_destroy(lu);
  }
  ts_csr_destroy(tiny);
}

/* A refactorization whose values hold Inf or NaN is refused, naming the
 * first such entry of A's storage: one bad entry at the first, a middle and
 * the last position of A, two in one row (the first named), and in two rows
 * (the earlier row's named); a row of finite values whose magnitudes sum
 * past double's range is no such entry. */
static void test_non_finite_values(void) {
  ts_csr *a = lu_test_random(ctx, 40, 4, 1, 11);
  ts_lu_options options = lu_test_options();
  ts_status st;
  ts_lu *lu = a ? factored(a, &options, &st) : NULL;
  CHECK(lu != NULL);
  if (!lu) {
    ts_csr_destroy(a);
    return;
  }
  CHECK_OK(ctx, st);
  double *kept = malloc((size_t)a->nnz * sizeof(double));
  CHECK(kept != NULL);
  if (kept)
    memcpy(kept, a->values, (size_t)a->nnz * sizeof(double));
  double *values = a->values;
  const int64_t nnz = a->nnz, row3 = a->row_ptr[3], row7 = a->row_ptr[7];
  const int64_t cases[][2] = {{0, -1}, {nnz / 2, -1}, {nnz - 1, -1}, {row3 + 1, row3 + 2}, {row7, row3}};
  const double bad[3] = {INFINITY, -INFINITY, NAN};
  for (int c = 0; kept && c < 5; c++) {
    memcpy(values, kept, (size_t)nnz * sizeof(double));
    values[cases[c][0]] = bad[c % 3];
    if (cases[c][1] >= 0)
      values[cases[c][1]] = bad[(c + 1) % 3];
    const int64_t first = cases[c][1] >= 0 && cases[c][1] < cases[c][0] ? cases[c][1] : cases[c][0];
    CHECK_STATUS(ctx, ts_lu_refactor(lu, a), TS_ERROR_INVALID_MATRIX);
    char want[48];
    snprintf(want, sizeof want, "entry %lld (row", (long long)first);
    CHECK_MSG(strstr(ts_last_error(ctx), want) != NULL, "case %d: want \"%s\" in: %s", c, want, ts_last_error(ctx));
  }
  if (kept) {
    /* Finite values whose magnitudes overflow a row's sum: not refused as
     * non-finite (the factorization may still call the values singular). */
    memcpy(values, kept, (size_t)nnz * sizeof(double));
    for (int64_t e = a->row_ptr[5]; e < a->row_ptr[6]; e++)
      values[e] = e % 2 ? DBL_MAX : -DBL_MAX;
    st = ts_lu_refactor(lu, a);
    CHECK_MSG(st != TS_ERROR_INVALID_MATRIX || strstr(ts_last_error(ctx), "is inf") == NULL,
              "a row of finite values summing past double's range refused as non-finite: %s", ts_last_error(ctx));
    memcpy(values, kept, (size_t)nnz * sizeof(double));
    CHECK_OK(ctx, ts_lu_refactor(lu, a));
  }
  free(kept);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

static void test_denormal_and_span(void) {
  ts_csr *denormal = lu_test_csr(ctx, 1, 1, (const int32_t[]){0}, (const int32_t[]){0}, (const double[]){1e-320});
  for (int matching = 0; matching < 2; matching++) {
    ts_lu_options o = lu_test_options();
    o.no_matching = !matching;
    ts_status st;
    ts_lu *lu = factored(denormal, &o, &st);
    CHECK_MSG(st == TS_SUCCESS, "[1e-320], matching %d: %s", matching, ts_last_error(ctx));
    double b = 1e-320, x = 0.0;
    if (st == TS_SUCCESS) {
      CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, &b, 1, &x, 1));
      CHECK_MSG(x == 1.0, "[1e-320] x = 1e-320: x = %.17g", x);
    }
    ts_lu_destroy(lu);
  }
  ts_csr_destroy(denormal);
  /* diag(5e-324, 1.7e308): its scales would span 632 decades. */
  ts_csr *span =
      lu_test_csr(ctx, 2, 2, (const int32_t[]){0, 1}, (const int32_t[]){0, 1}, (const double[]){4.9e-324, 1.7e308});
  ts_lu_options o = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &o, &lu));
  CHECK_STATUS(ctx, ts_lu_analyze(lu, span), TS_ERROR_OVERFLOW);
  CHECK_MSG(strstr(ts_last_error(ctx), "matching's scaling") != NULL, "message: %s", ts_last_error(ctx));
  ts_lu_destroy(lu);
  ts_csr_destroy(span);
}

/* A = Dr B Dc with B dominant (3 off-diagonal entries a row), Dr and Dc
 * 10^u, u uniform in [-150, 150]; b = Dr c with c in [-1, 1). x_true =
 * Dc^{-1} B^{-1} c from a dense solve of B. */
typedef struct scaled_system {
  ts_csr *a;
  double *b, *x_true;
} scaled_system;

static scaled_system scaled_system_make(int64_t n, unsigned long long seed) {
  scaled_system s = {NULL, NULL, NULL};
  ts_csr *base = lu_test_random(ctx, n, 3, 1, seed);
  unsigned long long state = seed * 31 + 7;
  double *dr = malloc((size_t)n * sizeof *dr), *dc = malloc((size_t)n * sizeof *dc);
  double *c = malloc((size_t)n * sizeof *c);
  s.b = malloc((size_t)n * sizeof *s.b);
  s.x_true = malloc((size_t)n * sizeof *s.x_true);
  for (int64_t i = 0; i < n; i++) {
    dr[i] = pow(10.0, 150.0 * test_random(&state));
    dc[i] = pow(10.0, 150.0 * test_random(&state));
    c[i] = test_random(&state);
    s.b[i] = dr[i] * c[i];
  }
  double *dense = lu_test_dense(base, 0);
  memcpy(s.x_true, c, (size_t)n * sizeof *c);
  CHECK(lu_test_dense_solve(dense, s.x_true, n) == 0);
  for (int64_t i = 0; i < n; i++)
    s.x_true[i] /= dc[i];
  double *v = base->values;
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = base->row_ptr[i]; e < base->row_ptr[i + 1]; e++)
      v[e] = dr[i] * v[e] * dc[base->col_idx[e]];
  s.a = base;
  free(dense);
  free(dr);
  free(dc);
  free(c);
  return s;
}

/* The largest |x_i - y_i| / |y_i|. */
static double forward_error(int64_t n, const double *x, const double *y) {
  double worst = 0.0;
  for (int64_t i = 0; i < n; i++)
    worst = fmax(worst, fabs(x[i] - y[i]) / fabs(y[i]));
  return worst;
}

static void test_scaled_system(void) {
  const int64_t n = 400;
  scaled_system s = scaled_system_make(n, 5);
  double *x = malloc((size_t)n * sizeof *x);
  for (int variant = 0; variant < 3; variant++) {
    const char *names[3] = {"double factors", "float factors", "no matching"};
    ts_lu_options options = lu_test_options();
    options.float_factors = variant == 1;
    options.no_matching = variant == 2;
    ts_status st;
    ts_lu *lu = factored(s.a, &options, &st);
    if (TS_IS_ERROR(st)) {
      printf("scaled system, %s: %s (%s)\n", names[variant], ts_status_string(st), ts_last_error(ctx));
      CHECK_MSG(variant == 2 && st == TS_ERROR_NUMERICALLY_SINGULAR, "%s: %s", names[variant], ts_last_error(ctx));
      ts_lu_destroy(lu);
      continue;
    }
    st = ts_lu_solve(lu, TS_OP_NONE, 1, s.b, n, x, n);
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    double error = forward_error(n, x, s.x_true);
    printf("scaled system, %s: %s, forward error %.2e, backward errors %.2e (scaled %.2e, componentwise %.2e), "
           "%d steps\n",
           names[variant], ts_status_string(st), error, stats.backward_error, stats.scaled_backward_error,
           stats.componentwise_backward_error, stats.refinement_steps);
    if (st == TS_SUCCESS) {
      CHECK_MSG(error <= 1e-12, "%s: solved, but the solution is off by %.3g", names[variant], error);
      /* The figures, recomputed: the residual in double (it is rounding
       * noise of terms up to 1e150, so only its own arithmetic reproduces
       * it), the norms and the ratio in long double, whose exponent range
       * holds |A|_inf |x|_inf. */
      long double r_norm = 0, x_norm = 0, b_norm = 0, a_norm = 0;
      const double *v = s.a->values;
      for (int64_t i = 0; i < n; i++) {
        double sum = s.b[i];
        long double row = 0;
        for (int64_t e = s.a->row_ptr[i]; e < s.a->row_ptr[i + 1]; e++) {
          sum -= v[e] * x[s.a->col_idx[e]];
          row += fabsl((long double)v[e]);
        }
        r_norm = fmaxl(r_norm, fabsl((long double)sum));
        x_norm = fmaxl(x_norm, fabsl((long double)x[i]));
        b_norm = fmaxl(b_norm, fabsl((long double)s.b[i]));
        a_norm = fmaxl(a_norm, row);
      }
      const double normwise = (double)(r_norm / (a_norm * x_norm + b_norm));
      CHECK_MSG(stats.solution_norm == (double)x_norm, "solution norm %.17g, recomputed %.17Lg", stats.solution_norm,
                x_norm);
      CHECK_MSG(stats.residual_norm == (double)r_norm, "residual norm %.17g, recomputed %.17Lg", stats.residual_norm,
                r_norm);
      CHECK_MSG(stats.backward_error > 0.0 && fabs(stats.backward_error - normwise) <= 1e-6 * normwise,
                "backward error %.6g, recomputed %.6g", stats.backward_error, normwise);
      CHECK(stats.scaled_backward_error <= 1e-14 && stats.componentwise_backward_error <= 1e-12);
    } else {
      CHECK_MSG(variant == 2 && st == TS_ERROR_NUMERICALLY_SINGULAR, "%s: %s", names[variant], ts_last_error(ctx));
    }
    ts_lu_destroy(lu);
  }
  free(x);
  free(s.b);
  free(s.x_true);
  ts_csr_destroy(s.a);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_non_finite();
  test_non_finite_values();
  test_denormal_and_span();
  test_scaled_system();
  ts_context_destroy(ctx);
  return test_finish();
}
