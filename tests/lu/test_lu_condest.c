/* ts_lu_condest, ts_lu_rcond and ts_lu_rgrowth on the host.
 * - On a fixed family of near-singular matrices (tests' lu_test_near_singular:
 *   condition numbers from about 10 to 10^12, n from 10 to 2,000), the
 *   estimate is at least a tenth of the true 1-norm condition number that
 *   LAPACK's dense inverse gives, and never above it beyond the rounding of
 *   the solves (cond * eps relative), through the static factors (double and,
 *   where cond < 1e5, float) and through the partial-pivoting fallback's.
 * - Where tessera and KLU eliminate in the same order (natural order, no
 *   scaling, no BTF, diagonally dominant: no row exchange), rcond and
 *   rgrowth equal klu_rcond's and klu_rgrowth's to rounding and condest
 *   klu_condest's within a few percent (the same algorithm on rounding-level
 *   different solves).
 * - rgrowth is recomputed from the extracted factors; the 1 x 1 case is
 *   exact; calls without a factorization are refused. */
#include "test_lu_estimates_common.h"

#include "lu/numeric/numeric_internal.h"

#ifdef TESSERA_TEST_HAVE_KLU
#include <klu.h>
#endif

static ts_context *ctx;

static ts_lu *factored(const ts_csr *a, const ts_lu_options *options) {
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a)));
  return lu;
}

#ifdef TESSERA_TEST_HAVE_LAPACK
/* The estimate of lu against the true condition number. */
static void check_bounds(ts_lu *lu, int64_t n, double truth, double eps, const char *what) {
  double estimate = 0.0;
  CHECK_OK(ctx, ts_lu_condest(lu, &estimate));
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK(stats.condest == estimate);
  /* A solve's relative error is bounded by about 3 n eps cond (the
   * forward error bound of LU with partial pivoting; Higham, "Accuracy and
   * Stability of Numerical Algorithms", 2002, section 9.4), the truth's too. */
  double slack = 1.0 + 1e-10 + 3.0 * (double)n * eps * truth;
  printf("%-48s true %.3e  estimate %.3e  ratio %.4f\n", what, truth, estimate, estimate / truth);
  CHECK_MSG(estimate >= 0.1 * truth, "%s: estimate %.3e below a tenth of the true %.3e", what, estimate, truth);
  CHECK_MSG(estimate <= truth * slack, "%s: estimate %.3e above the true %.3e (allowed x %.6f)", what, estimate, truth,
            slack);
}

static void test_against_lapack(void) {
  const int64_t sizes[] = {10, 100, 500, 2000};
  const double epsilons[] = {1e-1, 1e-4, 1e-7, 1e-10, 1e-12};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    for (size_t e = 0; e < sizeof epsilons / sizeof epsilons[0]; e++) {
      /* The largest size once, to keep the dense inverse's time down. */
      if (sizes[s] == 2000 && e != 2)
        continue;
      ts_csr *a = lu_test_near_singular(ctx, sizes[s], epsilons[e], 100 + s * 10 + e);
      CHECK(a != NULL);
      double truth = lu_test_condition_lapack(a);
      CHECK(isfinite(truth));
      char what[128];
      ts_lu_options options = lu_test_options();
      ts_lu *lu = factored(a, &options);
      ts_lu_stats stats;
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      snprintf(what, sizeof what, "n %lld, epsilon %.0e, double (%lld perturbed)", (long long)sizes[s], epsilons[e],
               (long long)stats.perturbed_pivots);
      check_bounds(lu, sizes[s], truth, DBL_EPSILON, what);
      /* The same factors' fallback: partial pivoting of M. */
      CHECK_OK(ctx, tsi_lu_pivoted_factor(lu));
      snprintf(what, sizeof what, "n %lld, epsilon %.0e, fallback factors", (long long)sizes[s], epsilons[e]);
      check_bounds(lu, sizes[s], truth, DBL_EPSILON, what);
      ts_lu_destroy(lu);
      if (truth < 1e5) {
        options.float_factors = 1;
        lu = factored(a, &options);
        snprintf(what, sizeof what, "n %lld, epsilon %.0e, float", (long long)sizes[s], epsilons[e]);
        check_bounds(lu, sizes[s], truth, FLT_EPSILON, what);
        ts_lu_destroy(lu);
      }
      ts_csr_destroy(a);
    }
  }
  /* A member whose static factorization perturbs a pivot, and whose
   * refinement through those factors stalls (the factors are of a matrix
   * 100 times better conditioned): the policy moves the solves to the
   * partial-pivoting fallback's factors, through which the estimate is A's.
   * Static pivots asked for: the default (AUTO) would factor it again with
   * partial pivoting, whose estimate test_lu_singular_policy checks. */
  const struct {
    int64_t n;
    double epsilon;
    unsigned long long seed;
  } perturbed[] = {{100, 1e-11, 113}};
  for (size_t k = 0; k < sizeof perturbed / sizeof perturbed[0]; k++) {
    ts_csr *a = lu_test_near_singular(ctx, perturbed[k].n, perturbed[k].epsilon, perturbed[k].seed);
    CHECK(a != NULL);
    double truth = lu_test_condition_lapack(a);
    ts_lu_options options = lu_test_options();
    options.pivoting = TS_LU_PIVOTING_STATIC;
    ts_lu *lu = factored(a, &options);
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK_MSG(stats.perturbed_pivots > 0, "n %lld, epsilon %.0e: no pivot perturbed (the case needs one)",
              (long long)perturbed[k].n, perturbed[k].epsilon);
    char what[128];
    snprintf(what, sizeof what, "n %lld, epsilon %.0e, %lld perturbed", (long long)perturbed[k].n, perturbed[k].epsilon,
             (long long)stats.perturbed_pivots);
    check_bounds(lu, perturbed[k].n, truth, DBL_EPSILON, what);
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
}
#endif

/* rgrowth from the extracted factors: min(1, min_k max|M(:,k)| / max|U(:,k)|). */
static double rgrowth_from_factors(ts_lu *lu, const ts_csr *a) {
  const int64_t n = a->rows;
  ts_csc *u = NULL;
  int32_t *col_perm = malloc((size_t)n * sizeof *col_perm);
  double *row_scale = malloc((size_t)n * sizeof *row_scale), *col_scale = malloc((size_t)n * sizeof *col_scale);
  double *column_max = calloc((size_t)n, sizeof *column_max), growth = 1.0;
  CHECK_OK(ctx, ts_lu_extract_csc(lu, NULL, &u, NULL, col_perm, row_scale, col_scale));
  const double *v = a->values;
  for (int64_t i = 0; u && i < n; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
      column_max[a->col_idx[e]] = fmax(column_max[a->col_idx[e]], fabs(row_scale[i] * v[e] * col_scale[a->col_idx[e]]));
  for (int64_t k = 0; u && k < n; k++) {
    double u_max = 0.0;
    for (int64_t p = u->col_ptr[k]; p < u->col_ptr[k + 1]; p++)
      u_max = fmax(u_max, fabs(((const double *)u->values)[p]));
    if (u_max > 0.0)
      growth = fmin(growth, column_max[col_perm[k]] / u_max);
  }
  ts_csc_destroy(u);
  free(col_perm);
  free(row_scale);
  free(col_scale);
  free(column_max);
  return growth;
}

static void test_growth_from_factors(void) {
  ts_csr *a = lu_test_random(ctx, 400, 4, 0, 7);
  CHECK(a != NULL);
  ts_lu_options options = lu_test_options();
  options.no_matching = 1; /* a weak diagonal: the factors grow */
  ts_lu *lu = factored(a, &options);
  double growth = 0.0;
  CHECK_OK(ctx, ts_lu_rgrowth(lu, &growth));
  double reference = rgrowth_from_factors(lu, a);
  printf("rgrowth without matching: %.6e (recomputed %.6e)\n", growth, reference);
  CHECK_MSG(growth == reference, "rgrowth %.17g, recomputed %.17g", growth, reference);
  CHECK(growth > 0.0 && growth < 1.0);
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK(stats.rgrowth == growth);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

#ifdef TESSERA_TEST_HAVE_KLU
/* KLU with the natural order, no scaling and no BTF on a diagonally
 * dominant matrix pivots on the diagonal, as tessera does without matching
 * in the natural order: the same U, to rounding. */
static void test_against_klu(void) {
  const double epsilons[] = {1e-2, 1e-6, 1e-10};
  for (size_t e = 0; e < sizeof epsilons / sizeof epsilons[0]; e++) {
    ts_csr *a = lu_test_random(ctx, 300, 4, 1, 50 + e);
    CHECK(a != NULL);
    /* Shrink the last diagonal entry towards cancellation with its row. */
    for (int64_t p = a->row_ptr[299]; p < a->row_ptr[300]; p++)
      if (a->col_idx[p] == 299)
        ((double *)a->values)[p] *= epsilons[e];
    ts_csc *csc = NULL;
    CHECK_OK(ctx, ts_csc_from_csr(ctx, a, &csc));
    int *col_ptr = malloc(301 * sizeof *col_ptr);
    for (int j = 0; j <= 300; j++)
      col_ptr[j] = (int)csc->col_ptr[j];
    klu_common common;
    klu_defaults(&common);
    common.ordering = 2; /* the given order: natural */
    common.scale = 0;
    common.btf = 0;
    klu_symbolic *symbolic = klu_analyze_given(300, col_ptr, csc->row_idx, NULL, NULL, &common);
    klu_numeric *numeric = symbolic ? klu_factor(col_ptr, csc->row_idx, csc->values, symbolic, &common) : NULL;
    CHECK(numeric != NULL && common.status == KLU_OK);
    if (numeric) {
      klu_rcond(symbolic, numeric, &common);
      klu_condest(col_ptr, csc->values, symbolic, numeric, &common);
      klu_rgrowth(col_ptr, csc->row_idx, csc->values, symbolic, numeric, &common);
      ts_lu_options options = lu_test_options();
      options.no_matching = 1;
      options.ordering = TS_LU_ORDER_NATURAL;
      ts_lu *lu = factored(a, &options);
      double condest = 0.0, rcond = 0.0, rgrowth = 0.0;
      CHECK_OK(ctx, ts_lu_condest(lu, &condest));
      CHECK_OK(ctx, ts_lu_rcond(lu, &rcond));
      CHECK_OK(ctx, ts_lu_rgrowth(lu, &rgrowth));
      printf("epsilon %.0e: condest %.6e (KLU %.6e), rcond %.6e (KLU %.6e), rgrowth %.6e (KLU %.6e)\n", epsilons[e],
             condest, common.condest, rcond, common.rcond, rgrowth, common.rgrowth);
      CHECK_MSG(fabs(rcond - common.rcond) <= 1e-9 * common.rcond, "rcond %.17g, KLU %.17g", rcond, common.rcond);
      CHECK_MSG(fabs(rgrowth - common.rgrowth) <= 1e-9 * common.rgrowth, "rgrowth %.17g, KLU %.17g", rgrowth,
                common.rgrowth);
      CHECK_MSG(fabs(condest - common.condest) <= 0.05 * common.condest, "condest %.17g, KLU %.17g", condest,
                common.condest);
      ts_lu_destroy(lu);
    }
    klu_free_numeric(&numeric, &common);
    klu_free_symbolic(&symbolic, &common);
    free(col_ptr);
    ts_csc_destroy(csc);
    ts_csr_destroy(a);
  }
}
#endif

static void test_small_cases(void) {
  /* 1 x 1: |a| |1 / a| = 1 exactly; rcond and rgrowth 1. */
  ts_csr *one = lu_test_csr(ctx, 1, 1, (const int32_t[]){0}, (const int32_t[]){0}, (const double[]){-3.0});
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  double value = -1.0;
  CHECK_STATUS(ctx, ts_lu_condest(lu, &value), TS_ERROR_NOT_FACTORED);
  CHECK_STATUS(ctx, ts_lu_rcond(lu, &value), TS_ERROR_NOT_FACTORED);
  CHECK_STATUS(ctx, ts_lu_rgrowth(lu, &value), TS_ERROR_NOT_FACTORED);
  CHECK_STATUS(ctx, ts_lu_condest(NULL, &value), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_condest(lu, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ctx, ts_lu_analyze(lu, one));
  CHECK_OK(ctx, ts_lu_factor(lu, one));
  CHECK_OK(ctx, ts_lu_condest(lu, &value));
  CHECK_MSG(value == 1.0, "condest of a 1 x 1: %.17g", value);
  CHECK_OK(ctx, ts_lu_rcond(lu, &value));
  CHECK(value == 1.0);
  CHECK_OK(ctx, ts_lu_rgrowth(lu, &value));
  CHECK(value == 1.0);
  ts_lu_destroy(lu);
  ts_csr_destroy(one);
  /* Diagonal: cond = max|d| / min|d| exactly, found by the ascent. */
  ts_csr *diagonal = lu_test_csr(ctx, 4, 4, (const int32_t[]){0, 1, 2, 3}, (const int32_t[]){0, 1, 2, 3},
                                 (const double[]){2.0, -0.5, 8.0, 1.0});
  ts_lu_options plain = lu_test_options();
  plain.no_matching = 1; /* the matching's scaling would make it the identity */
  lu = factored(diagonal, &plain);
  CHECK_OK(ctx, ts_lu_condest(lu, &value));
  CHECK_MSG(value == 16.0, "condest of diag(2, -0.5, 8, 1): %.17g, want 16", value);
  CHECK_OK(ctx, ts_lu_rcond(lu, &value));
  CHECK(value == 0.0625);
  ts_lu_destroy(lu);
  ts_csr_destroy(diagonal);
  /* Entries near double's largest: |A|_1 = 2.7e308 overflows, yet
   * kappa_1 = 2.7^2 / 1.89 = 3.857 (|A^{-1}|_1 = 2.7e308 / |det|, det =
   * -1.89e616); the estimate is finite and exact on a 2 x 2. */
  ts_csr *huge = lu_test_csr(ctx, 2, 4, (const int32_t[]){0, 0, 1, 1}, (const int32_t[]){0, 1, 0, 1},
                             (const double[]){1e308, 1.7e308, 1.7e308, 1e308});
  ts_lu_options scaled = lu_test_options(); /* unscaled, the elimination's products overflow */
  lu = factored(huge, &scaled);
  CHECK_OK(ctx, ts_lu_condest(lu, &value));
  CHECK_MSG(fabs(value - 2.7 * 2.7 / 1.89) <= 1e-6 * value,
            "condest of [1e308 1.7e308; 1.7e308 1e308]: %.17g, want %.6g", value, 2.7 * 2.7 / 1.89);
  ts_lu_destroy(lu);
  ts_csr_destroy(huge);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_small_cases();
  test_growth_from_factors();
#ifdef TESSERA_TEST_HAVE_LAPACK
  test_against_lapack();
#else
  printf("SKIPPED (part): the bounds against the dense condition number (built without LAPACK)\n");
#endif
#ifdef TESSERA_TEST_HAVE_KLU
  test_against_klu();
#else
  printf("SKIPPED (part): the comparison with KLU (built without it)\n");
#endif
  ts_context_destroy(ctx);
  return test_finish();
}
