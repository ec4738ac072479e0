/* LU on exactly singular integer matrices (a row an integer combination of
 * four others; dense, so that static pivots without the matching grow
 * large multipliers) under the options that weaken the judgement: no
 * matching in the natural order (factors whose multipliers make them those
 * of a matrix far from A, whose estimate can fall below 1/eps), float
 * factors (whose cancelled pivot keeps the digits float's growth left it),
 * and a pivot_threshold far below the default (which must not switch the
 * judgement off). Each must be TS_ERROR_NUMERICALLY_SINGULAR, never solved;
 * the same matrices with the combined row replaced by an independent one
 * must still be factored and solved to 1e-14 where double factors are
 * asked for (float factors: to 1e-6 after refinement). */
#include "test_lu_numeric_common.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static ts_context *ctx;

static uint64_t next_random(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return *state >> 33;
}

/* n x n, entries in [-9, 9]; with `singular`, the last row is
 * 1 r0 + 2 r1 - 3 r2 + 1 r3 (exact in double). */
static ts_csr *integer_matrix(int64_t n, uint64_t seed, bool singular) {
  double *dense = malloc((size_t)(n * n) * sizeof(double));
  int32_t *rows = malloc((size_t)(n * n) * sizeof(int32_t)), *cols = malloc((size_t)(n * n) * sizeof(int32_t));
  if (!dense || !rows || !cols) {
    free(dense);
    free(rows);
    free(cols);
    return NULL;
  }
  uint64_t state = seed;
  for (int64_t k = 0; k < n * n; k++)
    dense[k] = (double)((int64_t)(next_random(&state) % 19) - 9);
  if (singular) {
    const double weight[4] = {1, 2, -3, 1};
    for (int64_t j = 0; j < n; j++) {
      double sum = 0.0;
      for (int r = 0; r < 4; r++)
        sum += weight[r] * dense[r * n + j];
      dense[(n - 1) * n + j] = sum;
    }
  }
  int64_t count = 0;
  double *values = malloc((size_t)(n * n) * sizeof(double));
  for (int64_t i = 0; values && i < n; i++)
    for (int64_t j = 0; j < n; j++)
      if (dense[i * n + j] != 0.0) {
        rows[count] = (int32_t)i;
        cols[count] = (int32_t)j;
        values[count++] = dense[i * n + j];
      }
  ts_csr *a = values ? lu_test_csr(ctx, n, count, rows, cols, values) : NULL;
  free(dense);
  free(rows);
  free(cols);
  free(values);
  return a;
}

enum {
  WEAK_NONE,
  WEAK_NO_MATCHING,
  WEAK_NO_MATCHING_ORDERED,
  WEAK_FLOAT,
  WEAK_FLOAT_NO_MATCHING,
  WEAK_TINY_THRESHOLD,
  WEAK_TINY_NO_PERTURBATION,
  WEAKS
};

static const char *const weak_names[WEAKS] = {"the defaults",
                                              "no matching, natural order",
                                              "no matching",
                                              "float factors",
                                              "float factors, no matching, natural order",
                                              "pivot_threshold 1e-300",
                                              "pivot_threshold 1e-300, no perturbation"};

static ts_lu_options weak_options(int weak) {
  ts_lu_options options = lu_test_options();
  options.no_matching = weak == WEAK_NO_MATCHING || weak == WEAK_NO_MATCHING_ORDERED || weak == WEAK_FLOAT_NO_MATCHING;
  if (weak == WEAK_NO_MATCHING || weak == WEAK_FLOAT_NO_MATCHING)
    options.ordering = TS_LU_ORDER_NATURAL;
  options.float_factors = weak == WEAK_FLOAT || weak == WEAK_FLOAT_NO_MATCHING;
  if (weak == WEAK_TINY_THRESHOLD || weak == WEAK_TINY_NO_PERTURBATION)
    options.pivot_threshold = 1e-300;
  options.no_perturbation = weak == WEAK_TINY_NO_PERTURBATION;
  return options;
}

/* Factor and solve a under a weak option set; returns the factorization's
 * status and, when it stood, the solve's backward error in *error. */
static ts_status factor_and_solve(const ts_csr *a, int weak, double *error) {
  const int64_t n = a->rows;
  ts_lu_options options = weak_options(weak);
  ts_lu *lu = NULL;
  *error = INFINITY;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  ts_status st = ts_lu_analyze(lu, a);
  if (st == TS_SUCCESS)
    st = ts_lu_factor(lu, a);
  if (!TS_IS_ERROR(st)) {
    double *b = malloc((size_t)n * sizeof(double)), *x = malloc((size_t)n * sizeof(double));
    for (int64_t i = 0; b && i < n; i++)
      b[i] = (double)(i % 5) - 2.0;
    if (b && x && ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n) == TS_SUCCESS) {
      ts_lu_stats stats;
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      *error = stats.backward_error;
    }
    free(b);
    free(x);
  }
  ts_lu_destroy(lu);
  return st;
}

static void test_weak_options(void) {
  const int64_t sizes[] = {30, 80};
  int singular_refused = 0, singular_total = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (uint64_t seed = 1; seed <= 12; seed++) {
      ts_csr *singular = integer_matrix(sizes[s], seed, true), *regular = integer_matrix(sizes[s], seed, false);
      CHECK(singular != NULL && regular != NULL);
      for (int weak = 0; singular && regular && weak < WEAKS; weak++) {
        double error = 0.0;
        ts_status st = factor_and_solve(singular, weak, &error);
        singular_total++;
        singular_refused += st == TS_ERROR_NUMERICALLY_SINGULAR;
        CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR,
                  "%lld x %lld singular matrix, seed %llu, %s: %s (status %s), not numerically singular",
                  (long long)sizes[s], (long long)sizes[s], (unsigned long long)seed, weak_names[weak],
                  TS_IS_ERROR(st) ? ts_last_error(ctx) : "factored", ts_status_string(st));
        st = factor_and_solve(regular, weak, &error);
        const bool single = weak == WEAK_FLOAT || weak == WEAK_FLOAT_NO_MATCHING;
        CHECK_MSG(!TS_IS_ERROR(st) && error <= (single ? 1e-6 : 1e-14),
                  "%lld x %lld nonsingular matrix, seed %llu, %s: %s, backward error %.2e", (long long)sizes[s],
                  (long long)sizes[s], (unsigned long long)seed, weak_names[weak],
                  TS_IS_ERROR(st) ? ts_last_error(ctx) : "factored", error);
      }
      ts_csr_destroy(singular);
      ts_csr_destroy(regular);
    }
  printf("singular integer matrices refused under the weak options: %d of %d\n", singular_refused, singular_total);
}

/* The adversarial pass's matrices (tests/data/singular): numerically
 * singular under every option set. */
static void test_found_matrices(void) {
  const char *data = getenv("TESSERA_TEST_DATA");
  if (!data) {
    printf("SKIPPED the found matrices: TESSERA_TEST_DATA is not set\n");
    return;
  }
  const char *names[] = {"integer_singular_30a", "integer_singular_30b", "integer_singular_40a", "integer_singular_40b",
                         "integer_singular_60a", "integer_singular_60b", "integer_singular_80a"};
  for (size_t m = 0; m < sizeof names / sizeof names[0]; m++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/singular/%s.mtx", data, names[m]);
    ts_csr *a = NULL;
    CHECK_OK(ctx, ts_mm_read_csr(ctx, path, TS_FLOAT64, &a, NULL));
    for (int weak = 0; a && weak < WEAKS; weak++) {
      double error = 0.0;
      const ts_status st = factor_and_solve(a, weak, &error);
      CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "%s, %s: %s (status %s), not numerically singular", names[m],
                weak_names[weak], TS_IS_ERROR(st) ? ts_last_error(ctx) : "factored", ts_status_string(st));
    }
    ts_csr_destroy(a);
  }
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_weak_options();
  test_found_matrices();
  ts_context_destroy(ctx);
  return test_finish();
}
