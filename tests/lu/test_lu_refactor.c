/* LU refactorization: new values on the analyzed pattern give bitwise the
 * factors of ts_lu_factor on the same analysis, an accurate solution of the
 * new system, and stay accurate over a Newton-like loop on a circuit matrix. */
#include "test_lu_numeric_common.h"

#include "lu/numeric/numeric_internal.h" /* the factor values, and the smallest pivot's pass */

static ts_context *ctx;

static double solve_and_check(ts_lu *lu, const ts_csr *a, const char *what, double *x) {
  int64_t n = a->rows;
  double *b = malloc((size_t)n * sizeof *b);
  unsigned long long state = 17;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state);
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  double berr = lu_test_backward_error(a, 0, x, b);
  CHECK_MSG(berr <= 1e-14, "%s: backward error %.3g", what, berr);
  free(b);
  return berr;
}

/* Analyzed with A1 for both; one factors A1 then refactors A2, the other
 * factors A2 directly: the factors and the solutions are bitwise equal. */
static void test_refactor_equals_factor(int dominant, int float_factors) {
  const int64_t n = 400;
  ts_csr *a1 = lu_test_random(ctx, n, 5, dominant, 31);
  ts_csr *a2 = lu_test_perturbed_copy(ctx, a1, 0.3, 32);
  ts_lu_options options = lu_test_options();
  options.float_factors = float_factors;
  ts_lu *refactored = NULL, *factored = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &refactored));
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &factored));
  CHECK_OK(ctx, ts_lu_analyze(refactored, a1));
  CHECK_OK(ctx, ts_lu_analyze(factored, a1));
  CHECK_OK(ctx, ts_lu_factor(refactored, a1));
  double *x1 = malloc((size_t)n * sizeof *x1), *x2 = malloc((size_t)n * sizeof *x2);
  solve_and_check(refactored, a1, "first factorization", x1);
  CHECK_OK(ctx, ts_lu_refactor(refactored, a2));
  CHECK_OK(ctx, ts_lu_factor(factored, a2));
  CHECK(refactored->lu_nnz == factored->lu_nnz);
  size_t bytes = (size_t)refactored->lu_nnz * (float_factors ? sizeof(float) : sizeof(double));
  const void *v1 = float_factors ? (const void *)refactored->lu_values_f32 : refactored->lu_values;
  const void *v2 = float_factors ? (const void *)factored->lu_values_f32 : factored->lu_values;
  CHECK(v1 && v2 && memcmp(v1, v2, bytes) == 0);
  solve_and_check(refactored, a2, "refactored", x1);
  solve_and_check(factored, a2, "factored", x2);
  CHECK(memcmp(x1, x2, (size_t)n * sizeof *x1) == 0);
  /* The solution changed with the matrix (the refactor did something). */
  double *x_old = malloc((size_t)n * sizeof *x_old);
  ts_lu *old = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &old));
  CHECK_OK(ctx, ts_lu_analyze(old, a1));
  CHECK_OK(ctx, ts_lu_factor(old, a1));
  solve_and_check(old, a1, "old matrix", x_old);
  double change = 0.0;
  for (int64_t i = 0; i < n; i++)
    change = fmax(change, fabs(x_old[i] - x1[i]));
  CHECK(change > 1e-3);
  ts_lu_destroy(old);
  free(x_old);
  free(x1);
  free(x2);
  ts_lu_destroy(refactored);
  ts_lu_destroy(factored);
  ts_csr_destroy(a1);
  ts_csr_destroy(a2);
}

/* Newton-like loop: analyze once, then 10 refactorizations of a circuit
 * matrix whose conductances drift (diagonal dominance kept: the generator's
 * off-diagonals are negative and the diagonal exceeds their sum). Without
 * SuiteSparse AMD the natural order fills the 20000-row circuit far too
 * much: a smaller one without dense nets stands in. */
static void test_newton_loop(void) {
  const int amd = lu_test_have_ordering(TS_LU_ORDER_AMD);
  ts_circuit_params params = ts_circuit_defaults(amd ? 20000 : 3000);
  if (!amd)
    params.dense_nets = 0;
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_gen_circuit(ctx, &params, 5, TS_FLOAT64, &a));
  if (!a)
    return;
  int64_t n = a->rows;
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  double *x = malloc((size_t)n * sizeof *x);
  solve_and_check(lu, a, "circuit, step 0", x);
  ts_lu_stats first;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &first));
  double worst = 0.0;
  for (int step = 1; step <= 10; step++) {
    ts_csr *next = lu_test_perturbed_copy(ctx, a, 0.05 * step, 100 + step);
    CHECK_OK(ctx, ts_lu_refactor(lu, next));
    char what[64];
    snprintf(what, sizeof what, "circuit, step %d", step);
    worst = fmax(worst, solve_and_check(lu, next, what, x));
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK(stats.flops == first.flops && stats.nnz_l == first.nnz_l && stats.perturbed_pivots == 0);
    ts_csr_destroy(next);
  }
  printf("circuit n = %lld, nnz(L+U) = %lld, levels %lld: worst backward error over 10 refactorizations %.2g\n",
         (long long)n, (long long)(first.nnz_l + first.nnz_u), (long long)first.levels, worst);
  free(x);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* A matrix refused before the numeric phase (another pattern, another
 * size, symmetric storage, no matrix) leaves the factors as they were: the
 * next solve gives the earlier solve's bits. Values that are not finite are
 * refused by the numeric phase, which leaves no factors (lu.h); a refactor
 * of good values then factors again. */
static void test_refused_refactor_keeps_factors(void) {
  const int64_t n = 200;
  ts_csr *a = lu_test_random(ctx, n, 4, 1, 51);
  ts_csr *other_pattern = lu_test_random(ctx, n, 4, 1, 52);
  ts_csr *other_size = lu_test_random(ctx, n + 1, 4, 1, 51);
  ts_csr *symmetric = lu_test_perturbed_copy(ctx, a, 0.1, 53);
  ts_csr *not_finite = lu_test_perturbed_copy(ctx, a, 0.0, 54);
  CHECK(a && other_pattern && other_size && symmetric && not_finite);
  if (!a || !other_pattern || !other_size || !symmetric || !not_finite)
    return;
  symmetric->symmetry = TS_SYMMETRIC;
  ((double *)not_finite->values)[not_finite->nnz / 2] = NAN;
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  double *before = malloc((size_t)n * sizeof *before), *after = malloc((size_t)n * sizeof *after);
  solve_and_check(lu, a, "before the refused refactors", before);
  const struct {
    const char *what;
    const ts_csr *matrix;
  } refused[] = {{"another pattern", other_pattern},
                 {"another size", other_size},
                 {"symmetric storage", symmetric},
                 {"no matrix", NULL}};
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
    CHECK_MSG(ts_lu_refactor(lu, refused[k].matrix) == TS_ERROR_INVALID_ARGUMENT, "%s: %s", refused[k].what,
              ts_last_error(ctx));
    solve_and_check(lu, a, refused[k].what, after);
    CHECK_MSG(memcmp(before, after, (size_t)n * sizeof *after) == 0, "%s: the factors changed", refused[k].what);
  }
  CHECK(ts_lu_refactor(lu, not_finite) == TS_ERROR_INVALID_MATRIX);
  CHECK_MSG(strstr(ts_last_error(ctx), "nan") != NULL, "%s", ts_last_error(ctx));
  CHECK(ts_lu_solve(lu, TS_OP_NONE, 1, before, n, after, n) == TS_ERROR_NOT_FACTORED);
  CHECK_OK(ctx, ts_lu_refactor(lu, a));
  solve_and_check(lu, a, "factored again", after);
  CHECK(memcmp(before, after, (size_t)n * sizeof *after) == 0);
  free(before);
  free(after);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
  ts_csr_destroy(other_pattern);
  ts_csr_destroy(other_size);
  ts_csr_destroy(symmetric);
  ts_csr_destroy(not_finite);
}

/* The smallest pivot of a refactorization (the singularity policy's look
 * at small pivots) against a pass of the test's own over the stored pivots:
 * the smallest |u_kk| / max|M| rounded to single precision, the first
 * column among equals; on one thread and on the two schedules of two (the
 * counted column inlined into each), for double and float factors. */
static void test_smallest_pivot(void) {
  const int64_t n = 300;
  ts_csr *a = lu_test_random(ctx, n, 4, 0, 41);
  for (int f = 0; f < 2; f++)
    for (int schedule = 0; schedule < 6; schedule++) {
      ts_lu_options options = lu_test_options();
      options.float_factors = f;
      ts_lu *lu = NULL;
      CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
      /* Schedules 3-5: the pass over the pivots instead of the kernel's tally. */
      lu->switches.cpu_threads = schedule % 3 == 0 ? 1 : 2;
      lu->switches.cpu_level_sync = schedule % 3 == 2;
      lu->switches.cpu_smallest_pivot_pass = schedule >= 3;
      CHECK_OK(ctx, ts_lu_analyze(lu, a));
      ts_status st = ts_lu_factor(lu, a);
      CHECK_MSG(!TS_IS_ERROR(st), "factor: %s", ts_status_string(st));
      CHECK_OK(ctx, ts_lu_refactor(lu, a));
      float smallest = INFINITY;
      int64_t column = -1;
      for (int64_t k = 0; k < lu->n; k++) {
        const int64_t p = lu->diag_pos[k];
        const double u = f ? fabs((double)lu->lu_values_f32[p]) : fabs(lu->lu_values[p]);
        const float ratio = (float)(u / lu->pivot_now.max_m);
        if (ratio < smallest) {
          smallest = ratio;
          column = k;
        }
      }
      CHECK_MSG(lu->pivot_now.smallest_pivot_column == column && lu->pivot_now.smallest_pivot_ratio == (double)smallest,
                "%s factors, schedule %d: smallest pivot %.9g at column %lld, the pass over the pivots %.9g at %lld",
                f ? "float" : "double", schedule, lu->pivot_now.smallest_pivot_ratio,
                (long long)lu->pivot_now.smallest_pivot_column, (double)smallest, (long long)column);
      ts_lu_destroy(lu);
    }
  ts_csr_destroy(a);
}

/* Pivots whose ratios round to the same single while their doubles differ
 * (the kernel's tally cannot settle them: the pass), or that are equal (the
 * tally settles them): the first of them in pivot order is the smallest
 * pivot's column, as in the test's own pass over the stored pivots. A
 * diagonal matrix without the matching's scaling, so that the pivots are
 * A's entries. */
static void test_smallest_pivot_ties_with(bool equal) {
  const int64_t n = 40;
  int32_t rows[40], cols[40];
  double values[40];
  for (int64_t i = 0; i < n; i++) {
    rows[i] = cols[i] = (int32_t)i;
    values[i] = 2.0 + (double)(i % 3);
  }
  values[9] = equal ? 0.5 : 0.5 * (1.0 + ldexp(1.0, -30));
  values[17] = 0.5;
  values[26] = equal ? 0.5 : 0.5 * (1.0 + ldexp(1.0, -40));
  values[33] = 0.5 * (1.0 + ldexp(1.0, -20)); /* rounds to another single */
  ts_csr *a = lu_test_csr(ctx, n, n, rows, cols, values);
  ts_lu *lu = lu_test_factor_unmatched(ctx, a);
  float smallest = INFINITY;
  int64_t column = -1;
  for (int64_t k = 0; k < lu->n; k++) {
    const float ratio = (float)(fabs(lu->lu_values[lu->diag_pos[k]]) / lu->pivot_now.max_m);
    if (ratio < smallest) {
      smallest = ratio;
      column = k;
    }
  }
  CHECK_MSG(lu->pivot_now.smallest_pivot_column == column && lu->pivot_now.smallest_pivot_ratio == (double)smallest,
            "%s ties: smallest pivot %.9g at column %lld, the pass over the pivots %.9g at %lld",
            equal ? "equal" : "near", lu->pivot_now.smallest_pivot_ratio,
            (long long)lu->pivot_now.smallest_pivot_column, (double)smallest, (long long)column);
  const int32_t first = lu->col_perm[column];
  CHECK_MSG(first == 9 || first == 17 || first == 26, "%s ties: column %d of A", equal ? "equal" : "near", (int)first);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

static void test_smallest_pivot_ties(void) {
  test_smallest_pivot_ties_with(false);
  test_smallest_pivot_ties_with(true);
}

/* The smallest pivot of stored pivots set by hand (tsi_lu_smallest_pivot_host
 * on the factors of a diagonal matrix, their diagonal overwritten) against
 * the test's own pass: ratios that round to zero in single precision (1e-50
 * and 1e-60 of max|M|: the first of them in pivot order), a subnormal single
 * (3e-39), many pivots equal to the smallest, a NaN among them, and none
 * below 1 (n = 1). Such factors would not stand the singularity policy,
 * which is why they are set by hand. */
static void test_smallest_pivot_extremes(void) {
  enum { N = 30, CASES = 5 };
  int32_t rows[N], cols[N];
  double ones[N];
  for (int i = 0; i < N; i++) {
    rows[i] = cols[i] = i;
    ones[i] = 1.0;
  }
  ts_csr *a = lu_test_csr(ctx, N, N, rows, cols, ones);
  ts_lu *lu = lu_test_factor_unmatched(ctx, a);
  for (int c = 0; c < CASES && lu; c++) {
    double pivots[N];
    for (int k = 0; k < N; k++)
      pivots[k] = 1.0 + 0.25 * (double)(k % 4);
    if (c == 0) {
      pivots[4] = 1e-40;
      pivots[11] = -1e-60;
      pivots[7] = 1e-50;
    } else if (c == 1) {
      pivots[4] = 1e-40;
      pivots[11] = 3e-39;
    } else if (c == 2) {
      for (int k = 3; k < N; k += 5)
        pivots[k] = 0.5;
    } else if (c == 3) {
      pivots[2] = NAN;
      pivots[20] = 0.75;
      pivots[21] = 0.75 * (1.0 + ldexp(1.0, -35));
    }
    for (int k = 0; k < N; k++)
      lu->lu_values[lu->diag_pos[k]] = pivots[k];
    lu->pivot_now.max_m = c == 4 ? 0.0 : 2.0; /* 0: no maximum (an all-zero matrix), taken as 1 */
    tsi_lu_smallest_pivot_host(lu);
    const double max_m = lu->pivot_now.max_m > 0.0 ? lu->pivot_now.max_m : 1.0;
    float smallest = INFINITY;
    int64_t column = -1;
    for (int64_t k = 0; k < N; k++) {
      const float ratio = (float)(fabs(lu->lu_values[lu->diag_pos[k]]) / max_m);
      if (ratio < smallest) {
        smallest = ratio;
        column = k;
      }
    }
    CHECK_MSG(lu->pivot_now.smallest_pivot_column == column && lu->pivot_now.smallest_pivot_ratio == (double)smallest,
              "extremes %d: smallest pivot %.9g at column %lld, the pass over the pivots %.9g at %lld", c,
              lu->pivot_now.smallest_pivot_ratio, (long long)lu->pivot_now.smallest_pivot_column, (double)smallest,
              (long long)column);
    if (c == 0)
      CHECK_MSG(smallest == 0.0f && column == 7, "extremes: ratio %.9g at column %lld", (double)smallest,
                (long long)column);
  }
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_refactor_equals_factor(1, 0);
  test_refactor_equals_factor(0, 0);
  test_refactor_equals_factor(1, 1);
  test_newton_loop();
  test_refused_refactor_keeps_factors();
  test_smallest_pivot();
  test_smallest_pivot_ties();
  test_smallest_pivot_extremes();
  ts_context_destroy(ctx);
  return test_finish();
}
