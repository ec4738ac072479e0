/* ts_lu_extract_csr and ts_lu_extract_csc on the host: the extracted factors
 * reproduce P R A C Q = L U to rounding (every entry within a multiple of
 * eps (|L| |U|)(i, j), recomputed here from A, the permutations and the
 * scalings), with and without the matching, with each ordering, with float
 * factors, after a refactorization with new values, and from the
 * partial-pivoting fallback's factors; NULL outputs are skipped, and calls
 * without a valid factorization are refused. */
#include "test_lu_estimates_common.h"

#include "lu/numeric/numeric_internal.h"

static ts_context *ctx;

/* Factor a with options and check the extracted factors. */
static void check_case(const ts_csr *a, const ts_lu_options *options, double tolerance, const char *what) {
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK_MSG(stats.perturbed_pivots == 0, "%s: %lld perturbed pivots (the case needs none)", what,
            (long long)stats.perturbed_pivots);
  double worst = lu_test_check_factors(ctx, lu, a, tolerance, what);
  printf("%-40s n = %5lld  worst |LU - PRACQ| / (|L||U|) = %.2e\n", what, (long long)a->rows, worst);
  ts_lu_destroy(lu);
}

static void test_orderings_and_precisions(void) {
  ts_csr *general = lu_test_random(ctx, 300, 4, 0, 11);
  ts_csr *dominant = lu_test_random(ctx, 500, 5, 1, 12);
  CHECK(general && dominant);
  ts_lu_options options = lu_test_options();
  check_case(general, &options, 1e-13, "default options");
  check_case(dominant, &options, 1e-13, "default options, dominant");
  options.float_factors = 1;
  check_case(general, &options, 1e-5, "float factors");
  ts_lu_options natural = lu_test_options();
  natural.ordering = TS_LU_ORDER_NATURAL;
  natural.no_matching = 1;
  check_case(dominant, &natural, 1e-13, "natural order, no matching");
  if (lu_test_have_ordering(TS_LU_ORDER_COLAMD)) {
    ts_lu_options colamd = lu_test_options();
    colamd.ordering = TS_LU_ORDER_COLAMD;
    check_case(general, &colamd, 1e-13, "COLAMD");
  } else {
    printf("SKIPPED (part): COLAMD (built without it)\n");
  }
  ts_csr_destroy(general);
  ts_csr_destroy(dominant);
}

/* A refactorization with new values: the factors extracted are the new ones. */
static void test_refactor(void) {
  ts_csr *a = lu_test_random(ctx, 200, 4, 0, 21);
  CHECK(a != NULL);
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  unsigned long long state = 5;
  for (int64_t e = 0; e < a->nnz; e++)
    ((double *)a->values)[e] *= 1.0 + 0.25 * test_random(&state);
  CHECK_OK(ctx, ts_lu_refactor(lu, a));
  lu_test_check_factors(ctx, lu, a, 1e-13, "after a refactorization");
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* The partial-pivoting fallback's factors (forced here through the
 * internal call the solve makes) are the ones extracted, with the fallback's
 * row order composed into row_perm. */
static void test_fallback_factors(void) {
  ts_csr *a = lu_test_random(ctx, 250, 4, 0, 31);
  CHECK(a != NULL);
  /* Without the matching the diagonal is weak (each row's large entry lies
   * elsewhere), so partial pivoting moves rows. */
  ts_lu_options options = lu_test_options();
  options.no_matching = 1;
  options.ordering = TS_LU_ORDER_NATURAL;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a)));
  CHECK_OK(ctx, tsi_lu_pivoted_factor(lu));
  CHECK(lu->pivoted != NULL && lu->pivoted->replaced == 0);
  lu_test_check_factors(ctx, lu, a, 1e-13, "partial-pivoting fallback");
  /* The fallback moves rows: its row order differs from the static one. */
  int32_t *static_perm = malloc(250 * sizeof *static_perm), *fallback_perm = malloc(250 * sizeof *fallback_perm);
  CHECK(static_perm && fallback_perm);
  memcpy(static_perm, lu->row_perm, 250 * sizeof *static_perm);
  CHECK_OK(ctx, ts_lu_extract_csr(lu, NULL, NULL, fallback_perm, NULL, NULL, NULL));
  int64_t moved = 0;
  for (int i = 0; i < 250; i++)
    moved += static_perm[i] != fallback_perm[i];
  CHECK_MSG(moved > 0, "the fallback kept every row in place: the case does not test its row order");
  free(static_perm);
  free(fallback_perm);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* NULL outputs are skipped; without a valid factorization nothing is given. */
static void test_arguments(void) {
  ts_csr *a = lu_test_random(ctx, 50, 3, 1, 41);
  CHECK(a != NULL);
  ts_csr *l = (ts_csr *)&l, *u = (ts_csr *)&u; /* not NULL: the call must clear them */
  ts_csc *l_csc = (ts_csc *)&l_csc;
  CHECK_STATUS(ctx, ts_lu_extract_csr(NULL, &l, &u, NULL, NULL, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK(l == NULL && u == NULL);
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  l = (ts_csr *)&l;
  CHECK_STATUS(ctx, ts_lu_extract_csr(lu, &l, NULL, NULL, NULL, NULL, NULL), TS_ERROR_NOT_FACTORED);
  CHECK(l == NULL);
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_STATUS(ctx, ts_lu_extract_csc(lu, &l_csc, NULL, NULL, NULL, NULL, NULL), TS_ERROR_NOT_FACTORED);
  CHECK(l_csc == NULL);
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  /* Only U, and only the column permutation. */
  int32_t col_perm[50];
  CHECK_OK(ctx, ts_lu_extract_csr(lu, NULL, &u, NULL, col_perm, NULL, NULL));
  CHECK(u != NULL && u->rows == 50 && lu_test_is_permutation(col_perm, 50));
  ts_csr_destroy(u);
  CHECK_OK(ctx, ts_lu_extract_csc(lu, NULL, NULL, NULL, NULL, NULL, NULL));
  /* A failed factorization leaves nothing to extract. */
  const int32_t rows[] = {0, 0, 1, 1}, cols[] = {0, 1, 0, 1};
  ts_csr *ones = lu_test_csr(ctx, 2, 4, rows, cols, (const double[]){1, 1, 1, 1});
  ts_lu_options strict = lu_test_options();
  strict.no_perturbation = 1;
  ts_lu *singular = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &strict, &singular));
  CHECK_OK(ctx, ts_lu_analyze(singular, ones));
  CHECK_STATUS(ctx, ts_lu_factor(singular, ones), TS_ERROR_NUMERICALLY_SINGULAR);
  l = (ts_csr *)&l;
  CHECK_STATUS(ctx, ts_lu_extract_csr(singular, &l, NULL, NULL, NULL, NULL, NULL), TS_ERROR_NOT_FACTORED);
  CHECK(l == NULL);
  ts_lu_destroy(singular);
  ts_csr_destroy(ones);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_orderings_and_precisions();
  test_refactor();
  test_fallback_factors();
  test_arguments();
  ts_context_destroy(ctx);
  return test_finish();
}
