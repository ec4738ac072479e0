/* LU on singular inputs: structurally singular patterns give the structural
 * rank; numerically singular matrices stop at the right column when
 * perturbation is off, and are singular with it on too; a nonsingular
 * matrix whose static pivot cancels is factored as the perturbed system
 * (the perturbation's value checked); wrong call orders and a refactor with
 * another pattern are refused. The policy's other cases:
 * test_lu_singular_policy.c. */
#include "lu/lu_internal.h" /* switches.cpu_threads */
#include "test_lu_numeric_common.h"

#include <float.h>

static ts_context *ctx;

/* Analyze a matrix given by triplets and expect a structural rank. */
static void expect_structural(const char *what, int64_t n, int64_t count, const int32_t *rows, const int32_t *cols,
                              int64_t rank) {
  ts_csr *a = lu_test_csr(ctx, n, count, rows, cols, (const double[]){1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(a != NULL);
  for (int matching = 0; matching < 2; matching++) {
    ts_lu_options options = lu_test_options();
    options.no_matching = !matching;
    ts_lu *lu = NULL;
    CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
    CHECK_STATUS(ctx, ts_lu_analyze(lu, a), TS_ERROR_STRUCTURALLY_SINGULAR);
    char expect[64];
    snprintf(expect, sizeof expect, "%lld", (long long)rank);
    CHECK_MSG(strstr(ts_last_error(ctx), expect) != NULL, "%s: message '%s' lacks the rank %s", what,
              ts_last_error(ctx), expect);
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK_MSG(stats.structural_rank == rank, "%s: structural rank %lld, want %lld", what,
              (long long)stats.structural_rank, (long long)rank);
    /* Nothing was analyzed, so nothing can be factored or solved. */
    CHECK_STATUS(ctx, ts_lu_factor(lu, a), TS_ERROR_NOT_ANALYZED);
    double b[4] = {1, 1, 1, 1}, x[4];
    CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n), TS_ERROR_NOT_FACTORED);
    ts_lu_destroy(lu);
  }
  ts_csr_destroy(a);
}

static void test_structurally_singular(void) {
  /* Row 1 empty. */
  expect_structural("empty row", 3, 4, (const int32_t[]){0, 0, 2, 2}, (const int32_t[]){0, 1, 1, 2}, 2);
  /* Column 2 empty. */
  expect_structural("empty column", 3, 4, (const int32_t[]){0, 1, 1, 2}, (const int32_t[]){0, 0, 1, 1}, 2);
  /* Rows 0 and 1 hold only column 0. */
  expect_structural("two rows, one column", 3, 4, (const int32_t[]){0, 1, 2, 2}, (const int32_t[]){0, 0, 1, 2}, 2);
}

/* The corpus's klu_two_2x2 (KLU's two.mtx): one entry in a 2x2 matrix. */
static void test_corpus_two(void) {
  const char *dir = test_matrices_dir();
  char path[4096];
  if (!dir) {
    printf("SKIPPED (part): klu_two_2x2: no corpus (neither TESSERA_MATRICES nor TESSERA_TEST_CORPUS)\n");
    return;
  }
  if (!test_corpus_matrix(dir, "klu_two_2x2", path, sizeof path))
    return;
  ts_coo *coo = NULL;
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT64, &coo, NULL));
  CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &a));
  ts_lu *lu = NULL;
  ts_lu_options options = lu_test_options();
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_STATUS(ctx, ts_lu_analyze(lu, a), TS_ERROR_STRUCTURALLY_SINGULAR);
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK(stats.structural_rank == 1);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
  ts_coo_destroy(coo);
}

/* Factor a with perturbation off: the column (user numbering) reported. */
static int64_t singular_column(const ts_csr *a, const ts_lu_options *options) {
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_STATUS(ctx, ts_lu_factor(lu, a), TS_ERROR_NUMERICALLY_SINGULAR);
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  char expect[64];
  snprintf(expect, sizeof expect, "column %lld (from 0)", (long long)stats.singular_column);
  CHECK_MSG(strstr(ts_last_error(ctx), expect) != NULL, "message '%s' does not name %s", ts_last_error(ctx), expect);
  double b[8] = {1, 1, 1, 1, 1, 1, 1, 1}, x[8];
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, a->rows, x, a->rows), TS_ERROR_NOT_FACTORED);
  ts_lu_destroy(lu);
  return stats.singular_column;
}

/* Rows 1 and 3 are equal (values too): rank 3. In the natural order without
 * matching, elimination makes row 3 exactly zero, so column 3 fails. */
static ts_csr *duplicate_rows(void) {
  const int32_t rows[] = {0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3};
  const int32_t cols[] = {0, 1, 0, 1, 2, 3, 1, 2, 3, 0, 1, 2, 3};
  const double values[] = {4, 1, 1, 5, 2, 3, 2, 6, 1, 1, 5, 2, 3};
  return lu_test_csr(ctx, 4, 13, rows, cols, values);
}

static void test_numerically_singular(void) {
  ts_lu_options plain = lu_test_options();
  plain.ordering = TS_LU_ORDER_NATURAL;
  plain.no_matching = 1;
  plain.no_perturbation = 1;
  ts_lu_options full = lu_test_options();
  full.no_perturbation = 1;

  const int32_t rows[] = {0, 0, 1, 1}, cols[] = {0, 1, 0, 1};
  ts_csr *ones = lu_test_csr(ctx, 2, 4, rows, cols, (const double[]){1, 1, 1, 1});
  CHECK(singular_column(ones, &plain) == 1);
  int64_t column = singular_column(ones, &full);
  CHECK(column == 0 || column == 1);

  ts_csr *dup = duplicate_rows();
  CHECK(singular_column(dup, &plain) == 3);
  column = singular_column(dup, &full);
  CHECK(column >= 0 && column < 4);

  /* A tiny pivot (1e-15 relative) is singular under the default threshold
   * 1e-14, and accepted under a threshold of 1e-16. */
  ts_csr *tiny = lu_test_csr(ctx, 2, 4, rows, cols, (const double[]){1, 1, 1, 1 + 1e-15});
  CHECK(singular_column(tiny, &plain) == 1);
  ts_lu_options lenient = plain;
  lenient.pivot_threshold = 1e-16;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &lenient, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, tiny));
  CHECK_OK(ctx, ts_lu_factor(lu, tiny));
  ts_lu_destroy(lu);

  /* Every value zero (a refactorization with zeros: the analysis leaves
   * explicit zeros out): the bound is zero, and the message says why
   * instead of "|u| < 0". */
  const int32_t diagonal[] = {0, 1};
  for (int64_t n = 1; n <= 2; n++) {
    ts_csr *identity = lu_test_csr(ctx, n, n, diagonal, diagonal, (const double[]){1, 1});
    ts_csr *zeros = lu_test_csr(ctx, n, n, diagonal, diagonal, (const double[]){0, 0});
    CHECK_OK(ctx, ts_lu_create(ctx, &full, &lu));
    CHECK_OK(ctx, ts_lu_analyze(lu, identity));
    CHECK_OK(ctx, ts_lu_factor(lu, identity));
    CHECK_STATUS(ctx, ts_lu_refactor(lu, zeros), TS_ERROR_NUMERICALLY_SINGULAR);
    CHECK_MSG(strstr(ts_last_error(ctx), "every value of the scaled matrix is zero") != NULL &&
                  strstr(ts_last_error(ctx), "< 0 ") == NULL,
              "n = %lld: message '%s'", (long long)n, ts_last_error(ctx));
    ts_lu_destroy(lu);
    ts_csr_destroy(identity);
    ts_csr_destroy(zeros);
  }

  ts_csr_destroy(ones);
  ts_csr_destroy(dup);
  ts_csr_destroy(tiny);
}

/*
 * With perturbation on, A = [[1, 1, 0], [1, 1 + d, 1], [0, 1, 1]] with a tiny
 * d (natural order, no matching; the largest entry is 1) has the second
 * static pivot d, replaced by s * r (s the sign of d, + for d = 0; r =
 * sqrt(eps) of the factors' precision, or the pivot threshold when that is
 * larger): the factors are those of A with (1, 1) = 1 + s r. A is
 * nonsingular (determinant d - 1), so refinement recovers and the
 * factorization stands with the warning; without refinement, the solve
 * returns the solution of that perturbed system, checked here by a dense
 * solve of it.
 */
static void test_perturbed(void) {
  const int32_t rows[] = {0, 0, 1, 1, 1, 2, 2}, cols[] = {0, 1, 0, 1, 2, 1, 2};
  const double deltas[] = {0.0, -0x1p-52, 0x1p-50};
  const struct {
    int float_factors;
    double threshold, replacement, tolerance;
  } rules[] = {
      {0, 0.0, sqrt(DBL_EPSILON), 1e-12}, {1, 0.0, (float)sqrt((double)FLT_EPSILON), 1e-6}, {0, 1e-6, 1e-6, 1e-9}};
  for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
    for (int c = 0; c < 3; c++) {
      ts_csr *a = lu_test_csr(ctx, 3, 7, rows, cols, (const double[]){1, 1, 1, 1 + deltas[c], 1, 1, 1});
      ts_lu_options options = lu_test_options();
      options.ordering = TS_LU_ORDER_NATURAL;
      options.no_matching = 1;
      options.refine_max_steps = -1;
      options.float_factors = rules[r].float_factors;
      options.pivot_threshold = rules[r].threshold;
      ts_lu *lu = NULL;
      CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
      CHECK_OK(ctx, ts_lu_analyze(lu, a));
      CHECK_STATUS(ctx, ts_lu_factor(lu, a), TS_WARNING_PERTURBED_PIVOTS);
      ts_lu_stats stats;
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      CHECK(stats.perturbed_pivots == 1 && stats.singular_column == -1 && stats.partial_pivoting == 0);
      double b[3] = {1, 2, 3}, x[3];
      CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 3, x, 3));
      /* d is below every threshold here, and 1 + d rounds to 1 in float. */
      double sign = deltas[c] < 0 && !rules[r].float_factors ? -1.0 : 1.0;
      double perturbed[9] = {1, 1, 0, 1, 1 + sign * rules[r].replacement, 1, 0, 1, 1}, want[3] = {1, 2, 3};
      CHECK(lu_test_dense_solve(perturbed, want, 3) == 0);
      double tolerance = rules[r].tolerance;
      for (int i = 0; i < 3; i++)
        CHECK_MSG(fabs(x[i] - want[i]) <= tolerance * fabs(want[i]), "rule %zu, delta %g: x[%d] = %.17g, want %.17g", r,
                  deltas[c], i, x[i], want[i]);
      ts_lu_destroy(lu);
      ts_csr_destroy(a);
    }
  }

  /* [[1, 1], [1, 1 + d]] for those d is singular, or within rounding of it
   * (condition number 4 / d >= 1 / eps): the singular status, naming its
   * second column, with perturbation on as off. */
  const int32_t rows2[] = {0, 0, 1, 1}, cols2[] = {0, 1, 0, 1};
  for (int c = 0; c < 3; c++) {
    ts_csr *a = lu_test_csr(ctx, 2, 4, rows2, cols2, (const double[]){1, 1, 1, 1 + deltas[c]});
    ts_lu_options options = lu_test_options();
    options.ordering = TS_LU_ORDER_NATURAL;
    options.no_matching = 1;
    CHECK(singular_column(a, &options) == 1);
    ts_csr_destroy(a);
  }

  /* The rank-deficient 4x4 with a consistent right-hand side: singular,
   * although a solution of A x = b exists (KLU says singular too). */
  ts_csr *dup = duplicate_rows();
  ts_lu_options options = lu_test_options();
  int64_t column = singular_column(dup, &options);
  CHECK(column >= 0 && column < 4);
  ts_csr_destroy(dup);
}

/* A refactor with another pattern is refused and keeps the old factors. */
static void test_pattern_change(void) {
  ts_csr *a = lu_test_random(ctx, 30, 3, 1, 21);
  ts_csr *other = lu_test_random(ctx, 30, 3, 1, 22);
  ts_csr *smaller = lu_test_random(ctx, 29, 3, 1, 21);
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  CHECK_STATUS(ctx, ts_lu_refactor(lu, other), TS_ERROR_INVALID_ARGUMENT);
  /* The first row where the two random patterns differ. */
  int64_t first = -1;
  for (int64_t i = 0; i < 30 && first < 0; i++) {
    int64_t len = a->row_ptr[i + 1] - a->row_ptr[i];
    if (other->row_ptr[i] != a->row_ptr[i] || other->row_ptr[i + 1] != a->row_ptr[i + 1] ||
        memcmp(a->col_idx + a->row_ptr[i], other->col_idx + other->row_ptr[i], (size_t)len * sizeof(int32_t)) != 0)
      first = i;
  }
  char expect[64];
  snprintf(expect, sizeof expect, "row %lld (from 0) differs", (long long)first);
  CHECK_MSG(strstr(ts_last_error(ctx), expect) != NULL, "message '%s' lacks '%s'", ts_last_error(ctx), expect);
  CHECK_STATUS(ctx, ts_lu_refactor(lu, smaller), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_factor(lu, other), TS_ERROR_INVALID_ARGUMENT);
  double b[30], x[30];
  for (int i = 0; i < 30; i++)
    b[i] = 1.0;
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 30, x, 30));
  CHECK(lu_test_backward_error(a, 0, x, b) <= 1e-14);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
  ts_csr_destroy(other);
  ts_csr_destroy(smaller);
}

/* The pattern comparison over threads: one column index changed in the
 * last row (the last piece of the comparison) is refused and named; the
 * same pattern in other arrays passes. */
static void test_pattern_change_threaded(void) {
  ts_csr *a = lu_test_random(ctx, 200, 4, 1, 23);
  ts_csr *copy = lu_test_random(ctx, 200, 4, 1, 23);
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  lu->switches.cpu_threads = 4;
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  CHECK(!TS_IS_ERROR(ts_lu_refactor(lu, copy)));
  /* An entry of row 199 moves to the next column, one the row does not
   * hold (the row stays sorted). */
  int64_t moved = -1;
  for (int64_t e = copy->row_ptr[199]; e + 1 < copy->row_ptr[200] && moved < 0; e++)
    if (copy->col_idx[e + 1] > copy->col_idx[e] + 1)
      moved = e;
  CHECK_MSG(moved >= 0, "row 199 of the test matrix has no gap between its entries");
  if (moved >= 0) {
    copy->col_idx[moved]++;
    CHECK_STATUS(ctx, ts_lu_refactor(lu, copy), TS_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(ts_last_error(ctx), "row 199 (from 0) differs") != NULL, "message '%s'", ts_last_error(ctx));
  }
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
  ts_csr_destroy(copy);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_structurally_singular();
  test_corpus_two();
  test_numerically_singular();
  test_perturbed();
  test_pattern_change();
  test_pattern_change_threaded();
  ts_context_destroy(ctx);
  return test_finish();
}
