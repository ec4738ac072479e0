/* The singularity policy on the host (documented in tessera/lu.h): a
 * factorization gives TS_ERROR_NUMERICALLY_SINGULAR, with a column in the
 * user's numbering, when partial pivoting finds a zero pivot, or when pivots
 * had to be perturbed and the condition estimate passes 1/eps or refinement
 * cannot bring the backward error to 1e-14; otherwise it succeeds (with
 * TS_WARNING_PERTURBED_PIVOTS and the count where pivots were perturbed).
 * - Generated rank-deficient matrices, structurally full (a duplicated row
 *   with a scaled copy, a zero Schur complement, a row that is the sum of
 *   two others; exact, and with rows and columns scaled so that the
 *   cancellation is only exact in exact arithmetic): the singular status
 *   with every ordering, with float factors, without the matching, by
 *   factor and by refactor; a dense elimination finds each singular to
 *   working precision (condition number 1e14 or more).
 * - Rank-deficient matrices whose cancelled pivot rounding leaves above the
 *   perturbation threshold (no pivot perturbed): singular all the same;
 *   a nonsingular matrix with a pivot that small but a moderate condition
 *   number: success.
 * - Nonsingular matrices whose static pivots cancel (perturbed pivots):
 *   success with the warning, the solve accurate, the condition estimate
 *   between a tenth of the true value (LAPACK) and the true value; and
 *   above 1/eps, the singular status.
 * - Every corpus matrix KLU calls numerically singular (TESSERA_MATRICES;
 *   skipped visibly without it): the singular status by default, with the
 *   perturbed pivots counted; with perturbation off, the singular status
 *   too; the matrices KLU factors in the corpus are test_lu_corpus's. */
#include "test_lu_estimates_common.h"
#include "test_lu_rank_deficient.h"

#include <stdbool.h>

#include "lu/numeric/numeric_internal.h" /* the judgements' count */

#ifdef TESSERA_TEST_HAVE_KLU
#include <klu.h>
#endif

static ts_context *ctx;

/* Matrices whose AMD fill estimate passes this are left out (minutes each). */
#define FILL_LIMIT 3000000

/* KLU's verdict: 1 singular (numerically or structurally), 0 factors, -1 not built. */
static int klu_singular(const ts_csr *a) {
#ifdef TESSERA_TEST_HAVE_KLU
  const int n = (int)a->rows;
  ts_csc *csc = NULL;
  CHECK_OK(ctx, ts_csc_from_csr(ctx, a, &csc));
  int *col_ptr = malloc((size_t)(n + 1) * sizeof *col_ptr);
  for (int j = 0; j <= n; j++)
    col_ptr[j] = (int)csc->col_ptr[j];
  klu_common common;
  klu_defaults(&common);
  klu_symbolic *symbolic = klu_analyze(n, col_ptr, csc->row_idx, &common);
  klu_numeric *numeric = symbolic ? klu_factor(col_ptr, csc->row_idx, csc->values, symbolic, &common) : NULL;
  int singular = !numeric || common.status == KLU_SINGULAR || common.structural_rank < n;
  klu_free_numeric(&numeric, &common);
  klu_free_symbolic(&symbolic, &common);
  free(col_ptr);
  ts_csc_destroy(csc);
  return singular;
#else
  (void)a;
  return -1;
#endif
}

/* Created, analyzed and factored with options: the LU object (the
 * caller's to destroy), the factorization's status and statistics. */
static ts_lu *factored_with(const ts_csr *a, const ts_lu_options *options, ts_status *status, ts_lu_stats *stats) {
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  *status = ts_lu_factor(lu, a);
  CHECK_OK(ctx, ts_lu_get_stats(lu, stats));
  return lu;
}

/* Factor (or analyze with `first` and refactor with a) and expect the
 * singular status, a column in range named in the message, the column in
 * the statistics, and no solve afterwards. */
static void expect_singular(const char *what, const ts_csr *first, const ts_csr *a, const ts_lu_options *options) {
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, options, &lu));
  ts_status st = ts_lu_analyze(lu, first);
  CHECK_MSG(st == TS_SUCCESS, "%s: analysis: %s", what, ts_last_error(ctx));
  if (st != TS_SUCCESS) {
    ts_lu_destroy(lu);
    return;
  }
  if (first != a)
    CHECK(!TS_IS_ERROR(ts_lu_factor(lu, first)));
  st = first == a ? ts_lu_factor(lu, a) : ts_lu_refactor(lu, a);
  CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "%s: %s, want the singular status (%s)", what, ts_status_string(st),
            TS_IS_ERROR(st) ? ts_last_error(ctx) : "");
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK_MSG(stats.singular_column >= 0 && stats.singular_column < a->rows, "%s: singular column %lld", what,
            (long long)stats.singular_column);
  if (st == TS_ERROR_NUMERICALLY_SINGULAR) {
    char expect[64];
    snprintf(expect, sizeof expect, "column %lld (from 0)", (long long)stats.singular_column);
    CHECK_MSG(strstr(ts_last_error(ctx), expect) != NULL, "%s: message '%s' lacks '%s'", what, ts_last_error(ctx),
              expect);
  }
  double *b = calloc((size_t)a->rows, sizeof *b), *x = calloc((size_t)a->rows, sizeof *x);
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, a->rows, x, a->rows), TS_ERROR_NOT_FACTORED);
  free(b);
  free(x);
  ts_lu_destroy(lu);
}

/* Each generated kind under each set of options. */
static void test_rank_deficient(void) {
  ts_lu_options variants[5];
  const char *variant_names[5] = {"default", "float factors", "no matching", "natural order", "no perturbation"};
  for (int v = 0; v < 5; v++)
    variants[v] = lu_test_options();
  variants[1].float_factors = 1;
  variants[2].no_matching = 1;
  variants[3].ordering = TS_LU_ORDER_NATURAL;
  variants[4].no_perturbation = 1;
  for (int scaled = 0; scaled < 2; scaled++) {
    for (unsigned long long seed = 1; seed <= 3; seed++) {
      ts_csr *cases[3] = {lu_test_duplicated_row(ctx, 200, -2.5, scaled, seed),
                          lu_test_zero_schur(ctx, 150, 4, scaled, seed), lu_test_row_sum(ctx, 200, scaled, seed)};
      const char *case_names[3] = {"duplicated row (x -2.5)", "zero Schur complement", "row sum"};
      for (int c = 0; c < 3; c++) {
        CHECK(cases[c] != NULL);
        if (!cases[c])
          continue;
        /* Independently: singular to working precision in dense Gaussian
         * elimination with partial pivoting. */
        double condition = lu_test_condition(cases[c]);
        CHECK_MSG(!(condition < 1e14), "%s (seed %llu, scaled %d): dense condition number %.3g: the generator is wrong",
                  case_names[c], seed, scaled, condition);
        for (int v = 0; v < 5; v++) {
          char what[160];
          snprintf(what, sizeof what, "%s%s, seed %llu, %s", case_names[c], scaled ? ", scaled" : "", seed,
                   variant_names[v]);
          expect_singular(what, cases[c], cases[c], &variants[v]);
        }
      }
      /* A refactorization with the singular values on a nonsingular start:
       * the duplicated row's pattern with the copy's factor moved off. */
      ts_csr *start = NULL;
      CHECK_OK(ctx, ts_csr_copy(ctx, cases[0], &start));
      unsigned long long state = seed;
      for (int64_t e = 0; start && e < start->nnz; e++)
        ((double *)start->values)[e] *= 1.0 + 0.5 * test_random(&state);
      if (start)
        expect_singular("refactor into a duplicated row", start, cases[0], &variants[0]);
      ts_csr_destroy(start);
      for (int c = 0; c < 3; c++)
        ts_csr_destroy(cases[c]);
    }
  }
  /* All values zero in a refactorization. */
  ts_csr *a = lu_test_random(ctx, 100, 3, 1, 77), *zero = NULL;
  CHECK_OK(ctx, ts_csr_copy(ctx, a, &zero));
  if (zero) {
    memset(zero->values, 0, (size_t)zero->nnz * sizeof(double));
    expect_singular("refactor with every value zero", a, zero, &variants[0]);
  }
  ts_csr_destroy(a);
  ts_csr_destroy(zero);
}

/* [[1 1 0] [1 1+d 1] [0 1 1]] in the natural order without the matching: the
 * second pivot cancels (0 for d = 0) although the matrix is nonsingular
 * (determinant d - 1): the pivot is perturbed, refinement recovers, and the
 * factorization succeeds with the warning. */
static void test_perturbed_nonsingular(void) {
  const int32_t rows[] = {0, 0, 1, 1, 1, 2, 2}, cols[] = {0, 1, 0, 1, 2, 1, 2};
  const double deltas[] = {0.0, 0x1p-60, -0x1p-60};
  for (int f = 0; f < 2; f++) {
    for (int c = 0; c < 3; c++) {
      ts_csr *a = lu_test_csr(ctx, 3, 7, rows, cols, (const double[]){1, 1, 1, 1 + deltas[c], 1, 1, 1});
      ts_lu_options options = lu_test_options();
      options.ordering = TS_LU_ORDER_NATURAL;
      options.no_matching = 1;
      options.float_factors = f;
      ts_lu *lu = NULL;
      CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
      CHECK_OK(ctx, ts_lu_analyze(lu, a));
      CHECK_STATUS(ctx, ts_lu_factor(lu, a), TS_WARNING_PERTURBED_PIVOTS);
      ts_lu_stats stats;
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      CHECK(stats.perturbed_pivots == 1 && stats.singular_column == -1);
      double x_true[3] = {1, -2, 3}, b[3], x[3];
      lu_test_multiply(a, 0, x_true, b);
      CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 3, x, 3));
      double berr = lu_test_backward_error(a, 0, x, b);
      CHECK_MSG(berr <= 1e-14, "3 x 3, delta %g, float %d: backward error %.3g", deltas[c], f, berr);
      ts_lu_destroy(lu);
      ts_csr_destroy(a);
    }
  }
}

/* One pivoting of test_near_singular (below). */
static void test_near_singular_with(ts_lu_pivoting pivoting) {
  /* needs_amd: the static pivot perturbed only in AMD's order (in the
   * natural order it stays above the threshold). */
  const struct {
    int64_t n;
    double epsilon;
    unsigned long long seed;
    bool needs_amd;
  } cases[] = {{100, 1e-11, 113, false},
               {2000, 1e-7, 132, true},
               {300, 1e-13, 7, false},
               {300, 1e-18, 8, false},
               {300, 0.0, 9, false}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char part[96];
    snprintf(part, sizeof part, "near-singular n %lld, epsilon %.0e, pivoting %d", (long long)cases[k].n,
             cases[k].epsilon, (int)pivoting);
    if (cases[k].needs_amd && lu_test_skip_without(TS_LU_ORDER_AMD, part))
      continue;
    ts_csr *a = lu_test_near_singular(ctx, cases[k].n, cases[k].epsilon, cases[k].seed);
    CHECK(a != NULL);
    ts_lu_options options = lu_test_options();
    options.pivoting = pivoting;
    ts_status st;
    ts_lu_stats stats;
    ts_lu *lu = factored_with(a, &options, &st, &stats);
#ifdef TESSERA_TEST_HAVE_LAPACK
    double truth = lu_test_condition_lapack(a);
#else
    double truth = NAN;
#endif
    printf("near-singular n %lld, epsilon %.0e, pivoting %d: %s, %lld perturbed, condest %.3e, true %.3e\n",
           (long long)cases[k].n, cases[k].epsilon, (int)pivoting, ts_status_string(st),
           (long long)stats.perturbed_pivots, stats.condest, truth);
    if (!(truth < 0.01 / DBL_EPSILON)) {
      /* Singular, or beyond 1/eps up to the estimate's factor: singular. */
      if (!(truth < 100.0 / DBL_EPSILON))
        CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "epsilon %.0e: %s, want singular", cases[k].epsilon,
                  ts_status_string(st));
    } else {
      const bool automatic = pivoting == TS_LU_PIVOTING_AUTO;
      CHECK_MSG(st == (automatic ? TS_SUCCESS : TS_WARNING_PERTURBED_PIVOTS),
                "epsilon %.0e, pivoting %d: %s (%s), want %s", cases[k].epsilon, (int)pivoting, ts_status_string(st),
                TS_IS_ERROR(st) ? ts_last_error(ctx) : "", automatic ? "success" : "the perturbed-pivot warning");
      CHECK(stats.pivoting == (automatic ? TS_LU_PIVOTING_PARTIAL : TS_LU_PIVOTING_STATIC));
      /* The judgement's estimate, made by the factorization itself. */
      CHECK_MSG(stats.condest >= 0.1 * truth, "epsilon %.0e, pivoting %d: the factorization's estimate %.3e",
                cases[k].epsilon, (int)pivoting, stats.condest);
      double estimate = 0.0;
      CHECK_OK(ctx, ts_lu_condest(lu, &estimate));
      double slack = 1.0 + 1e-10 + 3.0 * (double)cases[k].n * DBL_EPSILON * truth;
      CHECK_MSG(estimate >= 0.1 * truth && estimate <= truth * slack,
                "epsilon %.0e: condest %.3e against the true %.3e (pivoting %d)", cases[k].epsilon, estimate, truth,
                (int)pivoting);
    }
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
}

/* The near-singular family where static pivoting perturbs a pivot: success
 * with the warning and a true condition estimate while cond < 1/eps; the
 * singular status once the dependent row is within rounding of its copy.
 * Static pivots asked for; under the default (AUTO) the same matrices are
 * factored again with partial pivoting: success without the warning, and
 * the same judgement (a true estimate, the singular status). */
static void test_near_singular(void) {
  for (int automatic = 0; automatic < 2; automatic++)
    test_near_singular_with(automatic ? TS_LU_PIVOTING_AUTO : TS_LU_PIVOTING_STATIC);
}

/* Every corpus matrix KLU finds numerically singular. */
static void test_corpus(void) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("SKIPPED (part): the corpus (TESSERA_MATRICES names no folder with MANIFEST.tsv)\n");
    return;
  }
#ifndef TESSERA_TEST_HAVE_KLU
  printf("SKIPPED (part): the corpus against KLU (built without KLU)\n");
  return;
#endif
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  char line[8192];
  int singular_seen = 0;
  while (manifest && fgets(line, sizeof line, manifest)) {
    char name[256];
    long long rows, cols;
    if (sscanf(line, "%255s %lld %lld", name, &rows, &cols) != 3 || rows != cols)
      continue;
    ts_csr *a = test_read_general(ctx, dir, name);
    CHECK_MSG(a != NULL, "%s: %s", name, ts_last_error(ctx));
    int64_t fill = 0;
    if (!a || (ts_csr_fill_estimate(ctx, a, &fill, NULL) == TS_SUCCESS && fill > FILL_LIMIT)) {
      ts_csr_destroy(a);
      continue;
    }
    if (klu_singular(a) == 1) {
      ts_lu_options options = lu_test_options();
      ts_lu *lu = NULL;
      CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
      ts_status st = ts_lu_analyze(lu, a);
      if (st == TS_SUCCESS) { /* structurally full: KLU's verdict is numerical */
        singular_seen++;
        st = ts_lu_factor(lu, a);
        ts_lu_stats stats;
        CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
        printf("%-16s KLU: singular; tessera: %s, column %lld, %lld perturbed pivots\n", name, ts_status_string(st),
               (long long)stats.singular_column, (long long)stats.perturbed_pivots);
        CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "%s: %s, KLU finds it singular", name, ts_status_string(st));
        CHECK_MSG(stats.perturbed_pivots > 0, "%s: singular without perturbed pivots counted", name);
        ts_lu_options strict = lu_test_options();
        strict.no_perturbation = 1;
        expect_singular(name, a, a, &strict);
      } else {
        CHECK_MSG(st == TS_ERROR_STRUCTURALLY_SINGULAR, "%s: analysis %s", name, ts_status_string(st));
      }
      ts_lu_destroy(lu);
    }
    ts_csr_destroy(a);
  }
  if (manifest)
    fclose(manifest);
  /* The full corpus holds five (bcspwr10, chesapeake, dwt_992, gent113,
   * rajat01), the repository's small one three of them. */
  const int expected = test_corpus_is_full() ? 5 : 3;
  CHECK_MSG(singular_seen >= expected, "only %d structurally full matrices KLU finds singular, want %d", singular_seen,
            expected);
}

/* Seeds and sizes of the row-sum generator whose cancelled pivot lands
 * above pivot_threshold * max|M| (found by factoring; the test checks
 * that it does, so that it keeps testing what it says), and a matrix whose
 * smallest pivot is small and honest. */
static void test_small_unperturbed_pivot(void) {
  int unperturbed = 0;
  for (int n = 120; n <= 400; n += 280) {
    for (unsigned long long seed = 1; seed <= 8; seed++) {
      ts_csr *a = lu_test_row_sum(ctx, n, 1, seed);
      CHECK(a != NULL);
      if (!a)
        continue;
      double condition = lu_test_condition(a);
      CHECK_MSG(!(condition < 1e14), "row sum n %d seed %llu: dense condition number %.3g", n, seed, condition);
      for (int f = 0; f < 2; f++) {
        ts_lu_options options = lu_test_options();
        options.float_factors = f;
        char what[96];
        snprintf(what, sizeof what, "row sum, scaled, n %d, seed %llu, %s factors", n, seed, f ? "float" : "double");
        ts_status st;
        ts_lu_stats stats;
        ts_lu *lu = factored_with(a, &options, &st, &stats);
        unperturbed += st == TS_ERROR_NUMERICALLY_SINGULAR && stats.perturbed_pivots == 0;
        CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "%s: %s, want the singular status", what, ts_status_string(st));
        CHECK_MSG(stats.singular_column >= 0 && stats.singular_column < n, "%s: singular column %lld", what,
                  (long long)stats.singular_column);
        ts_lu_destroy(lu);
      }
      ts_csr_destroy(a);
    }
  }
  CHECK_MSG(unperturbed > 0, "no case reached the small unperturbed pivot: the generator changed");
  printf("row sum, scaled: %d of 32 singular verdicts without a perturbed pivot\n", unperturbed);

  /* diag(1, 1e-10, 1) without the matching's scaling: a pivot of 1e-10
   * max|M|, condition number 1e10: it stands, and solves. */
  ts_csr *d =
      lu_test_csr(ctx, 3, 3, (const int32_t[]){0, 1, 2}, (const int32_t[]){0, 1, 2}, (const double[]){1.0, 1e-10, 1.0});
  ts_lu *lu = lu_test_factor_unmatched(ctx, d);
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK_MSG(stats.condest > 0.5e10 && stats.condest < 2e10, "diag(1, 1e-10, 1): condest %.3g", stats.condest);
  double b[3] = {1.0, 1e-10, 2.0}, x[3];
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 3, x, 3));
  CHECK_MSG(fabs(x[0] - 1.0) < 1e-15 && fabs(x[1] - 1.0) < 1e-15 && fabs(x[2] - 2.0) < 1e-15, "x = %g %g %g", x[0],
            x[1], x[2]);
  ts_lu_destroy(lu);
  ts_csr_destroy(d);
}

/* The condition estimates the judgements made since the analysis. */
static int64_t estimates_made(ts_lu *lu) {
  const tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  return ws ? ws->condition_estimates : -1;
}

/* [[1 1 0] [1 1 s] [0 1 1]] in the natural order without the matching: the
 * second pivot cancels (perturbed) whatever s; the determinant is -s. A
 * judgement that stood carries to a refactorization of the same or nearby
 * values (no new estimate; the factors stand and solve, the condition bound
 * at least the dense condition number), and not to values beyond the
 * perturbation bound: s = 0, singular with the same perturbed pivot, is
 * judged and refused after a carried refactorization; a second perturbed
 * pivot (the pivots went bad) is judged anew too. */
static void test_judgement_carry(void) {
  const int32_t rows[] = {0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5},
                cols[] = {0, 1, 0, 1, 2, 1, 2, 3, 4, 3, 4, 5, 4, 5};
  /* A second block [[1 1 0] [1 e 1] [0 1 1]] (determinant e - 2): e = 3
   * leaves its pivot at 2, e = 1 cancels it. */
#define CARRY_MATRIX(s, e)                                                                                             \
  lu_test_csr(ctx, 6, 14, rows, cols, (const double[]){1, 1, 1, 1, s, 1, 1, 1, 1, 1, e, 1, 1, 1})
  ts_csr *first = CARRY_MATRIX(1.0, 3.0), *near = CARRY_MATRIX(1.0 + 1e-6, 3.0);
  ts_csr *singular_values = CARRY_MATRIX(0.0, 3.0), *two_perturbed = CARRY_MATRIX(1.0, 1.0);
#undef CARRY_MATRIX
  ts_lu_options options = lu_test_options();
  options.ordering = TS_LU_ORDER_NATURAL;
  options.no_matching = 1;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, first));
  CHECK_STATUS(ctx, ts_lu_factor(lu, first), TS_WARNING_PERTURBED_PIVOTS);
  CHECK_MSG(estimates_made(lu) == 1, "first factorization: %lld estimates", (long long)estimates_made(lu));
  const ts_csr *carried[2] = {first, near};
  for (int c = 0; c < 2; c++) {
    CHECK_STATUS(ctx, ts_lu_refactor(lu, carried[c]), TS_WARNING_PERTURBED_PIVOTS);
    CHECK_MSG(estimates_made(lu) == 1, "carried refactorization %d: %lld estimates", c, (long long)estimates_made(lu));
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    const double dense = lu_test_condition_lapack(carried[c]);
    CHECK_MSG(stats.condest >= dense * (1.0 - 1e-12), "carried refactorization %d: bound %.6g below the dense %.6g", c,
              stats.condest, dense);
    double x_true[6] = {1, -2, 3, -4, 5, -6}, b[6], x[6];
    lu_test_multiply(carried[c], 0, x_true, b);
    CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 6, x, 6));
    const double berr = lu_test_backward_error(carried[c], 0, x, b);
    CHECK_MSG(berr <= 1e-14, "carried refactorization %d: backward error %.3g", c, berr);
  }
  /* Singular with the same perturbed pivot: judged, refused. */
  CHECK_STATUS(ctx, ts_lu_refactor(lu, singular_values), TS_ERROR_NUMERICALLY_SINGULAR);
  CHECK_MSG(estimates_made(lu) >= 2, "singular values: %lld estimates", (long long)estimates_made(lu));
  /* Back to the first values: the refused judgement left no reference, so
   * they are judged again, then a second perturbed pivot is judged anew. */
  CHECK_STATUS(ctx, ts_lu_refactor(lu, first), TS_WARNING_PERTURBED_PIVOTS);
  const int64_t before = estimates_made(lu);
  CHECK_MSG(before >= 3, "first values again: %lld estimates", (long long)before);
  /* (the factors stand; the pivot check then reports the new perturbed
   * pivot against the analysis's) */
  CHECK_STATUS(ctx, ts_lu_refactor(lu, two_perturbed), TS_WARNING_PIVOTS_DEGRADED);
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK(stats.perturbed_pivots == 2);
  CHECK_MSG(estimates_made(lu) == before + 1, "two perturbed pivots: %lld estimates, %lld before",
            (long long)estimates_made(lu), (long long)before);
  ts_lu_destroy(lu);
  ts_csr_destroy(first);
  ts_csr_destroy(near);
  ts_csr_destroy(singular_values);
  ts_csr_destroy(two_perturbed);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_rank_deficient();
  test_perturbed_nonsingular();
  test_judgement_carry();
  test_near_singular();
  test_small_unperturbed_pivot();
  test_corpus();
  ts_context_destroy(ctx);
  return test_finish();
}
