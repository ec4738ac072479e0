/* The norms of b and x that the host's solve of A x = b takes in its
 * scaling and permutation passes (tsi_lu_apply_inverse_norms), for the
 * residual's measures: against the same norms computed here from b, x and
 * the scales; x itself bitwise the plain solve's; transposed solves leave
 * them to the residual. Then a solve's reported measures: the first solve's
 * (norms from the solve) bitwise those the residual takes on its own from
 * the same x, and with float factors (a refinement step, its residual
 * taking the norms itself) the solution's norm that of the x returned. */
#include "test_lu_numeric_common.h"

#include "lu/solve/solve_internal.h" /* the solve with norms, the residual */

#include <float.h>

static ts_context *ctx;

/* a within a rounding or two of b (b >= 0): the library divides only for
 * the entries whose ratio can be the largest. */
static bool close_to(double a, double b) { return fabs(a - b) <= 4.0 * DBL_EPSILON * b; }

static void check_norms(const char *what, const ts_csr *a, bool matching) {
  const int64_t n = a->rows;
  ts_lu_options options = lu_test_options();
  options.no_matching = !matching;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  ts_status status = ts_lu_factor(lu, a);
  CHECK_MSG(status == TS_SUCCESS || status == TS_WARNING_PERTURBED_PIVOTS, "%s: %s", what, ts_last_error(ctx));
  /* Zeroed: should a solve fail, the checks below read no garbage. */
  double *b = malloc((size_t)n * sizeof *b), *x = calloc((size_t)n, sizeof *x), *plain = calloc((size_t)n, sizeof *x);
  double *y = calloc((size_t)n, sizeof *y);
  unsigned long long state = 5;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state) * (1.0 + (double)(i % 7));
  tsi_lu_solve_norms norms;
  CHECK_OK(ctx, tsi_lu_apply_inverse_norms(lu, TS_OP_NONE, b, x, y, &norms));
  CHECK_OK(ctx, tsi_lu_apply_inverse(lu, TS_OP_NONE, b, plain, y));
  CHECK_MSG(memcmp(x, plain, (size_t)n * sizeof *x) == 0, "%s: x differs from the plain solve's", what);
  /* The norms here: |x|, |Dc^{-1} x|, |b|, |Dr b| (Dr, Dc by A's rows and columns). */
  double x_norm = 0.0, x_scaled = 0.0, b_norm = 0.0, b_scaled = 0.0;
  for (int64_t i = 0; i < n; i++) {
    x_norm = fmax(x_norm, fabs(x[i]));
    x_scaled = fmax(x_scaled, fabs(x[i]) / lu->col_scale[i]);
    b_norm = fmax(b_norm, fabs(b[i]));
    b_scaled = fmax(b_scaled, fabs(b[i]) * lu->row_scale[i]);
  }
  CHECK_MSG(norms.known && norms.finite, "%s: norms not taken by the solve", what);
  CHECK_MSG(norms.x_norm == x_norm && norms.b_norm == b_norm && norms.b_scaled == b_scaled,
            "%s: |x| %.17g / %.17g, |b| %.17g / %.17g, |Dr b| %.17g / %.17g", what, norms.x_norm, x_norm, norms.b_norm,
            b_norm, norms.b_scaled, b_scaled);
  CHECK_MSG(close_to(norms.x_scaled, x_scaled), "%s: |Dc^-1 x| %.17g against %.17g", what, norms.x_scaled, x_scaled);
  if (matching)
    CHECK_MSG(x_scaled != x_norm || b_scaled != b_norm, "%s: the scaling is the identity; nothing tested", what);
  /* A transposed solve: the residual takes its own. */
  tsi_lu_solve_norms transposed;
  CHECK_OK(ctx, tsi_lu_apply_inverse_norms(lu, TS_OP_TRANSPOSE, b, x, y, &transposed));
  CHECK(!transposed.known);

  /* The measures of a solve: the first solve's residual with the norms from
   * the solve, against the residual taking them itself. */
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  /* Through the matching's scaling this system needs no step: the measures
   * are the first solve's. Without it, a step's residual took its own. */
  if (matching)
    CHECK_MSG(stats.refinement_steps == 0, "%s: %d refinement steps (the first solve's measures wanted)", what,
              stats.refinement_steps);
  tsi_lu_refine_setup setup = {.max_steps = 0, .tolerance = 1e-14, .check = true};
  CHECK_OK(ctx, tsi_lu_norms(lu, tsi_lu_numeric_workspace_get(lu), TS_OP_NONE, &setup.a_norm, &setup.m_norm));
  double *r = calloc((size_t)n, sizeof *r), *magnitude = calloc((size_t)n, sizeof *magnitude);
  tsi_lu_residual_measures own;
  tsi_lu_residual(lu, &setup, TS_OP_NONE, b, x, NULL, r, magnitude, &own);
  CHECK_MSG(own.normwise == stats.backward_error && own.scaled == stats.scaled_backward_error &&
                own.componentwise == stats.componentwise_backward_error && own.residual_norm == stats.residual_norm &&
                own.solution_norm == stats.solution_norm,
            "%s: measures %g %g %g %g %g, the residual's own %g %g %g %g %g", what, stats.backward_error,
            stats.scaled_backward_error, stats.componentwise_backward_error, stats.residual_norm, stats.solution_norm,
            own.normwise, own.scaled, own.componentwise, own.residual_norm, own.solution_norm);
  CHECK_MSG(lu_test_backward_error(a, 0, x, b) <= 1e-14, "%s: backward error %g", what,
            lu_test_backward_error(a, 0, x, b));
  free(r);
  free(magnitude);
  free(b);
  free(x);
  free(plain);
  free(y);
  ts_lu_destroy(lu);
}

/* Float factors: a refinement step, whose residual takes the norms of the
 * new x itself; the solution norm reported is that of the x returned. */
static void check_refined(const ts_csr *a) {
  const int64_t n = a->rows;
  ts_lu_options options = lu_test_options();
  options.float_factors = 1;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  ts_status status = ts_lu_factor(lu, a);
  CHECK_MSG(status == TS_SUCCESS || status == TS_WARNING_PERTURBED_PIVOTS, "float factors: %s", ts_last_error(ctx));
  double *b = malloc((size_t)n * sizeof *b), *x = calloc((size_t)n, sizeof *x);
  for (int64_t i = 0; i < n; i++)
    b[i] = 1.0 + (double)(i % 5);
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  double x_norm = 0.0;
  for (int64_t i = 0; i < n; i++)
    x_norm = fmax(x_norm, fabs(x[i]));
  CHECK_MSG(stats.refinement_steps >= 1, "float factors: %d refinement steps", stats.refinement_steps);
  CHECK_MSG(stats.solution_norm == x_norm, "float factors: solution norm %.17g, |x| %.17g", stats.solution_norm,
            x_norm);
  CHECK_MSG(stats.backward_error <= 1e-14 && lu_test_backward_error(a, 0, x, b) <= 1e-14,
            "float factors: backward error %g (reported %g)", lu_test_backward_error(a, 0, x, b), stats.backward_error);
  free(b);
  free(x);
  ts_lu_destroy(lu);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  ts_csr *a = lu_test_random(ctx, 400, 4, 0, 3);
  CHECK(a != NULL);
  if (a) {
    /* Rows and columns of very different sizes, so that the scaling is far
     * from the identity. */
    double *v = (double *)a->values;
    for (int64_t i = 0; i < a->rows; i++)
      for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
        v[e] *= ldexp(1.0, (int)(i % 9) - 4) * ldexp(1.0, (int)(a->col_idx[e] % 5) - 2);
    check_norms("scaled by the matching", a, true);
    check_norms("no matching", a, false);
    check_refined(a);
    ts_csr_destroy(a);
  }
  ts_context_destroy(ctx);
  return test_finish();
}
