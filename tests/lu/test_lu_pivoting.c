/* The partial-pivoting fallback: on the adjacency pattern of a random graph
 * (every value 1, zero diagonal), static pivoting meets exact cancellations
 * and replaces pivots; where refinement cannot then make the factors solve
 * with A, the factorization falls back to partially pivoted factors (the
 * singularity policy), and the solves must reach the refinement tolerance,
 * for A and A^T; a refactorization with the same values reaches the same
 * verdict (static pivots asked for: under the default, AUTO, such a first
 * factorization is analyzed again with partial pivoting, which the second
 * test checks on the same graphs: no perturbed pivot, no fallback, the same
 * accuracy). Where KLU finds the graph singular, so must tessera. Each
 * backward error is recomputed here in double from A, x and b. */
#include "test_lu_numeric_common.h"

#include <stdbool.h>

#ifdef TESSERA_TEST_HAVE_KLU
#include <klu.h>
#endif

static ts_context *ctx;

/* Symmetric 0/1 pattern of a random graph on n vertices with about degree
 * neighbours each, no self loops (the wing matrix's kind, small). */
static ts_csr *graph_pattern(int64_t n, int degree, unsigned long long seed) {
  int64_t capacity = 2 * n * degree;
  int32_t *rows = malloc((size_t)capacity * sizeof *rows), *cols = malloc((size_t)capacity * sizeof *cols);
  double *ones = malloc((size_t)capacity * sizeof *ones);
  ts_csr *a = NULL;
  if (rows && cols && ones) {
    unsigned long long state = seed;
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) {
      for (int d = 0; d < degree / 2 + 1; d++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        int32_t j = (int32_t)((state >> 33) % (unsigned long long)n);
        if (j == i)
          continue;
        rows[count] = (int32_t)i;
        cols[count] = j;
        rows[count + 1] = j;
        cols[count + 1] = (int32_t)i;
        count += 2;
      }
    }
    for (int64_t k = 0; k < count; k++)
      ones[k] = 1.0;
    a = lu_test_csr(ctx, n, count, rows, cols, ones);
    /* Duplicate edges were summed: back to a 0/1 pattern. */
    for (int64_t k = 0; a && k < a->nnz; k++)
      ((double *)a->values)[k] = 1.0;
  }
  free(rows);
  free(cols);
  free(ones);
  return a;
}

/* Whether KLU (defaults) finds a numerically singular; 0 without KLU. */
static int klu_finds_singular(const ts_csr *a) {
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
  int singular = common.status == KLU_SINGULAR;
  klu_free_numeric(&numeric, &common);
  klu_free_symbolic(&symbolic, &common);
  free(col_ptr);
  ts_csc_destroy(csc);
  return singular;
#else
  (void)a;
  return 0;
#endif
}

/* An LU object with static pivots asked for, analyzing a (its status in *st). */
static ts_lu *static_analysis(const ts_csr *a, ts_status *st) {
  ts_lu_options options = lu_test_options();
  options.pivoting = TS_LU_PIVOTING_STATIC;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  *st = ts_lu_analyze(lu, a);
  return lu;
}

static void test_graph_patterns(void) {
  int exercised = 0;
  for (unsigned long long seed = 1; seed <= 40 && exercised < 3; seed++) {
    ts_csr *a = graph_pattern(400, 4, seed);
    CHECK(a != NULL);
    ts_status st = TS_SUCCESS;
    ts_lu *lu = static_analysis(a, &st);
    if (st == TS_ERROR_STRUCTURALLY_SINGULAR) { /* no perfect matching: another graph */
      ts_lu_destroy(lu);
      ts_csr_destroy(a);
      continue;
    }
    CHECK_OK(ctx, st);
    st = ts_lu_factor(lu, a);
    if (klu_finds_singular(a)) {
      CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "graph seed %llu: KLU finds it singular, tessera: %s", seed,
                ts_status_string(st));
      ts_lu_destroy(lu);
      ts_csr_destroy(a);
      continue;
    }
    CHECK_MSG(!TS_IS_ERROR(st), "graph seed %llu: %s", seed, ts_last_error(ctx));
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    if (stats.perturbed_pivots == 0) { /* static pivoting was enough here */
      ts_lu_destroy(lu);
      ts_csr_destroy(a);
      continue;
    }
    const int64_t n = a->rows;
    double *ones = malloc((size_t)n * sizeof *ones), *b = malloc((size_t)n * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x);
    CHECK(ones && b && x);
    for (int64_t i = 0; i < n; i++)
      ones[i] = 1.0;
    for (int transpose = 0; transpose < 2; transpose++) {
      lu_test_multiply(a, transpose, ones, b);
      CHECK_OK(ctx, ts_lu_solve(lu, transpose ? TS_OP_TRANSPOSE : TS_OP_NONE, 1, b, n, x, n));
      double error = lu_test_backward_error(a, transpose, x, b);
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      printf("graph seed %llu %s: %lld perturbed pivots, partial pivoting %d, backward error %.2e\n", seed,
             transpose ? "A^T" : "A", (long long)stats.perturbed_pivots, stats.partial_pivoting, error);
      CHECK_MSG(error <= 1e-14, "seed %llu %s: backward error %.3g", seed, transpose ? "A^T" : "A", error);
      CHECK(stats.backward_error <= 1e-14); /* the solver's own figure agrees */
    }
    /* A refactorization starts again from static pivoting and is judged
     * again: the same values, the same verdict. */
    int had_fallback = stats.partial_pivoting;
    CHECK(!TS_IS_ERROR(ts_lu_refactor(lu, a)));
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK(stats.partial_pivoting == had_fallback);
    lu_test_multiply(a, 0, ones, b);
    CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
    CHECK(lu_test_backward_error(a, 0, x, b) <= 1e-14);
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK(stats.partial_pivoting == had_fallback);
    exercised += had_fallback;
    free(ones);
    free(b);
    free(x);
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
  printf("graphs whose solve fell back to partial pivoting: %d\n", exercised);
  CHECK_MSG(exercised >= 1, "no graph pattern exercised the fallback");
}

/* The default's answer to perturbed static pivots on the same graphs. */
static void test_graph_patterns_auto(void) {
  int exercised = 0;
  for (unsigned long long seed = 1; seed <= 40 && exercised < 3; seed++) {
    ts_csr *a = graph_pattern(400, 4, seed);
    CHECK(a != NULL);
    ts_status st = TS_SUCCESS;
    ts_lu *lu = static_analysis(a, &st);
    ts_lu_stats stats = {0};
    const bool perturbed = st == TS_SUCCESS && !TS_IS_ERROR(ts_lu_factor(lu, a)) &&
                           ts_lu_get_stats(lu, &stats) == TS_SUCCESS && stats.perturbed_pivots > 0;
    ts_lu_destroy(lu);
    if (!perturbed || klu_finds_singular(a)) {
      ts_csr_destroy(a);
      continue;
    }
    ts_lu_options options = lu_test_options(); /* AUTO */
    CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
    CHECK_OK(ctx, ts_lu_analyze(lu, a));
    CHECK_OK(ctx, ts_lu_factor(lu, a));
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK_MSG(stats.pivoting == TS_LU_PIVOTING_PARTIAL && stats.perturbed_pivots == 0,
              "graph seed %llu: pivoting %d, %lld perturbed pivots", seed, (int)stats.pivoting,
              (long long)stats.perturbed_pivots);
    const int64_t n = a->rows;
    double *ones = malloc((size_t)n * sizeof *ones), *b = malloc((size_t)n * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++)
      ones[i] = 1.0;
    for (int transpose = 0; transpose < 2; transpose++) {
      lu_test_multiply(a, transpose, ones, b);
      CHECK_OK(ctx, ts_lu_solve(lu, transpose ? TS_OP_TRANSPOSE : TS_OP_NONE, 1, b, n, x, n));
      const double error = lu_test_backward_error(a, transpose, x, b);
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      CHECK_MSG(error <= 1e-14 && stats.partial_pivoting == 0, "seed %llu %s: backward error %.3g, fallback %d", seed,
                transpose ? "A^T" : "A", error, stats.partial_pivoting);
    }
    exercised++;
    free(ones);
    free(b);
    free(x);
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
  printf("graphs whose static pivots AUTO replaced by partial pivoting: %d\n", exercised);
  CHECK_MSG(exercised >= 1, "no graph pattern had perturbed static pivots");
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_graph_patterns();
  test_graph_patterns_auto();
  ts_context_destroy(ctx);
  return test_finish();
}
