/* Partial pivoting chosen in the analysis (ts_lu_options.pivoting):
 * - a matrix whose static pivots cancel exactly (M = [1 1 0; 1 1 1; 0 1 1]
 *   and generated chains of such blocks): static pivoting perturbs a pivot,
 *   AUTO then analyzes again with partial pivoting and factors with no
 *   perturbed pivot, and the solutions, of A and A^T, match a dense LU with
 *   partial pivoting in double;
 * - random matrices without a safe diagonal under TS_LU_PIVOTING_PARTIAL:
 *   multipliers within the tolerance's bound, the solve's backward error
 *   (recomputed here) at rounding level without refinement, refactorization
 *   with new values, bitwise the same factors twice;
 * - the pattern of L + U the pivoting finds (pruned searches) equals the
 *   host's symbolic phase (the row merge) run on the same row and column
 *   orders, entry by entry, with the positions of A's entries;
 * - bad input: a singular matrix, a structurally singular one, a non-finite
 *   entry, an unknown option; complex values keep static pivots. */
#include "test_lu_numeric_common.h"

#include "lu/lu_internal.h"
#include "lu/symbolic/symbolic_internal.h"

#include <stdbool.h>

static ts_context *ctx;

/* The dense reference: x = A^-1 b (or A^-T b) by LU with partial pivoting in
 * double; returns the largest |x - x_ref| / max|x_ref|. */
static double gap_to_dense(const ts_csr *a, int transpose, const double *b, const double *x) {
  double size = 0.0;
  const double gap = lu_test_dense_gap(a, transpose, b, x, &size);
  return gap < 0.0 ? INFINITY : size > 0.0 ? gap / size : gap;
}

static ts_lu *factored_in(const ts_csr *a, ts_lu_pivoting pivoting, ts_lu_ordering ordering, ts_status *status) {
  ts_lu_options options = lu_test_options();
  options.pivoting = pivoting;
  options.ordering = ordering;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  *status = ts_lu_factor(lu, a);
  return lu;
}

static ts_lu *factored(const ts_csr *a, ts_lu_pivoting pivoting, ts_status *status) {
  return factored_in(a, pivoting, lu_test_options().ordering, status);
}

/* The chains of lu_test_chain_of_blocks (second = 1: the cancelling
 * chain). */
static ts_csr *chain_of_blocks(int64_t blocks, unsigned long long seed, double second) {
  return lu_test_chain_of_blocks(ctx, blocks, seed, second, 0);
}

static ts_csr *cancelling_chain(int64_t blocks, unsigned long long seed) { return chain_of_blocks(blocks, seed, 1.0); }

static void solve_and_compare(ts_lu *lu, const ts_csr *a, const char *what) {
  const int64_t n = a->rows;
  double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
  unsigned long long state = 7;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state);
  for (int transpose = 0; transpose < 2; transpose++) {
    CHECK_OK(ctx, ts_lu_solve(lu, transpose ? TS_OP_TRANSPOSE : TS_OP_NONE, 1, b, n, x, n));
    const double berr = lu_test_backward_error(a, transpose, x, b), gap = gap_to_dense(a, transpose, b, x);
    CHECK_MSG(berr <= 1e-15, "%s, transpose %d: backward error %.3g", what, transpose, berr);
    CHECK_MSG(gap <= 1e-12, "%s, transpose %d: |x - x_dense| / |x_dense| = %.3g", what, transpose, gap);
  }
  free(b);
  free(x);
}

static void test_cancelling_pivots(void) {
  const int64_t sizes[] = {1, 2, 40};
  for (int k = 0; k < 3; k++) {
    ts_csr *a = cancelling_chain(sizes[k], 11 + (unsigned long long)k);
    CHECK(a != NULL);
    if (!a)
      continue;
    ts_status status = TS_SUCCESS;
    ts_lu_stats stats;
    /* Static pivots meet the cancellation... */
    ts_lu *lu = factored_in(a, TS_LU_PIVOTING_STATIC, TS_LU_ORDER_NATURAL, &status);
    ts_lu_get_stats(lu, &stats);
    CHECK_MSG(stats.pivoting == TS_LU_PIVOTING_STATIC && stats.perturbed_pivots >= 1,
              "static, %lld blocks: pivoting %d, %lld perturbed", (long long)sizes[k], (int)stats.pivoting,
              (long long)stats.perturbed_pivots);
    ts_lu_destroy(lu);
    /* ...which AUTO answers with partial pivoting, and so does PARTIAL. */
    for (int forced = 0; forced < 2; forced++) {
      lu = factored_in(a, forced ? TS_LU_PIVOTING_PARTIAL : TS_LU_PIVOTING_AUTO, TS_LU_ORDER_NATURAL, &status);
      CHECK_MSG(status == TS_SUCCESS, "%s: %s", ts_status_string(status), ts_last_error(ctx));
      ts_lu_get_stats(lu, &stats);
      CHECK_MSG(stats.pivoting == TS_LU_PIVOTING_PARTIAL && stats.perturbed_pivots == 0 &&
                    stats.max_multiplier <= 1.001e3,
                "%s, %lld blocks: pivoting %d, %lld perturbed, max |L| %.3g", forced ? "partial" : "auto",
                (long long)sizes[k], (int)stats.pivoting, (long long)stats.perturbed_pivots, stats.max_multiplier);
      solve_and_compare(lu, a, forced ? "partial" : "auto");
      ts_lu_destroy(lu);
    }
    ts_csr_destroy(a);
  }
}

/* AUTO with refresh_pivots: a refactorization whose values cancel the
 * static pivots is degraded, analyzed anew, perturbs again, and ends with
 * partial pivots (pivots_refreshed, no perturbed pivot, accurate). */
static void test_refresh_to_partial(void) {
  ts_csr *fine = chain_of_blocks(12, 3, 1.7), *cancelling = chain_of_blocks(12, 3, 1.0);
  ts_lu_options options = lu_test_options();
  options.ordering = TS_LU_ORDER_NATURAL;
  options.refresh_pivots = 1;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, fine));
  CHECK_OK(ctx, ts_lu_factor(lu, fine));
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK(stats.pivoting == TS_LU_PIVOTING_STATIC && stats.perturbed_pivots == 0);
  ts_status status = ts_lu_refactor(lu, cancelling);
  CHECK_MSG(status == TS_SUCCESS, "refresh: %s (%s)", ts_status_string(status), ts_last_error(ctx));
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK_MSG(stats.pivots_refreshed == 1 && stats.pivoting == TS_LU_PIVOTING_PARTIAL && stats.perturbed_pivots == 0,
            "refresh: refreshed %d, pivoting %d, %lld perturbed", stats.pivots_refreshed, (int)stats.pivoting,
            (long long)stats.perturbed_pivots);
  solve_and_compare(lu, cancelling, "refreshed to partial pivots");
  ts_lu_destroy(lu);
  ts_csr_destroy(fine);
  ts_csr_destroy(cancelling);
}

/* Without a safe diagonal (lu_test_random's large entries off it). */
static void test_random_matrices(void) {
  for (unsigned long long seed = 1; seed <= 4; seed++) {
    ts_csr *a = lu_test_random(ctx, 300, 4, 0, seed);
    CHECK(a != NULL);
    if (!a)
      continue;
    ts_status status = TS_SUCCESS;
    ts_lu *lu = factored(a, TS_LU_PIVOTING_PARTIAL, &status);
    CHECK_MSG(status == TS_SUCCESS, "seed %llu: %s", seed, ts_last_error(ctx));
    ts_lu_stats stats;
    ts_lu_get_stats(lu, &stats);
    CHECK(stats.pivoting == TS_LU_PIVOTING_PARTIAL && stats.perturbed_pivots == 0);
    CHECK_MSG(stats.max_multiplier <= 1.001e3, "seed %llu: max |L| %.3g", seed, stats.max_multiplier);
    solve_and_compare(lu, a, "random, partial");
    /* The same values factored by a second object: the same bits. */
    ts_lu *again = factored(a, TS_LU_PIVOTING_PARTIAL, &status);
    const int64_t n = a->rows;
    double *b = malloc((size_t)n * sizeof *b), *x1 = malloc((size_t)n * sizeof *x1);
    double *x2 = malloc((size_t)n * sizeof *x2);
    for (int64_t i = 0; i < n; i++)
      b[i] = 1.0 + (double)(i % 7);
    CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x1, n));
    CHECK_OK(ctx, ts_lu_solve(again, TS_OP_NONE, 1, b, n, x2, n));
    CHECK(memcmp(x1, x2, (size_t)n * sizeof *x1) == 0);
    /* New values on the pattern keep the pivots (refactorization). */
    ts_csr *changed = lu_test_perturbed_copy(ctx, a, 0.05, seed + 100);
    ts_status refactored = ts_lu_refactor(lu, changed);
    CHECK_MSG(!TS_IS_ERROR(refactored), "seed %llu: refactor: %s", seed, ts_last_error(ctx));
    CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x1, n));
    const double berr = lu_test_backward_error(changed, 0, x1, b);
    CHECK_MSG(berr <= 1e-14, "seed %llu: refactored, backward error %.3g", seed, berr);
    ts_lu_get_stats(lu, &stats);
    CHECK(stats.pivoting == TS_LU_PIVOTING_PARTIAL);
    ts_csr_destroy(changed);
    free(b);
    free(x1);
    free(x2);
    ts_lu_destroy(again);
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
}

static void *copy_of(const void *from, size_t bytes) {
  void *to = malloc(bytes > 0 ? bytes : 1);
  if (to && bytes > 0)
    memcpy(to, from, bytes);
  return to;
}

/* The row merge on the orders the pivoting chose gives the same pattern. */
static void check_pattern(const char *what, ts_lu *lu, const ts_csr *a) {
  ts_lu_options options = lu_test_options();
  options.pivoting = TS_LU_PIVOTING_STATIC;
  ts_lu *merge = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &merge));
  const int64_t n = lu->n;
  merge->n = n;
  merge->row_perm = copy_of(lu->row_perm, (size_t)n * sizeof(int32_t));
  merge->col_perm = copy_of(lu->col_perm, (size_t)n * sizeof(int32_t));
  merge->btf_blocks = lu->btf_blocks;
  if (lu->block_ptr)
    merge->block_ptr = copy_of(lu->block_ptr, (size_t)(lu->btf_blocks + 1) * sizeof(int64_t));
  CHECK_OK(ctx, tsi_lu_symbolic_cpu(merge, a));
  const bool same = merge->lu_nnz == lu->lu_nnz &&
                    memcmp(merge->lu_col_ptr, lu->lu_col_ptr, (size_t)(n + 1) * sizeof(int64_t)) == 0 &&
                    memcmp(merge->lu_row_idx, lu->lu_row_idx, (size_t)lu->lu_nnz * sizeof(int32_t)) == 0 &&
                    memcmp(merge->diag_pos, lu->diag_pos, (size_t)n * sizeof(int64_t)) == 0 &&
                    memcmp(merge->a_to_lu, lu->a_to_lu, (size_t)a->nnz * sizeof(int64_t)) == 0;
  CHECK_MSG(same, "%s: the pivoting's pattern (%lld entries) differs from the row merge's (%lld)", what,
            (long long)lu->lu_nnz, (long long)merge->lu_nnz);
  ts_lu_destroy(merge);
}

static void test_patterns(void) {
  for (unsigned long long seed = 1; seed <= 6; seed++) {
    ts_csr *a = lu_test_random(ctx, 120 + 60 * (int64_t)seed, (int)(2 + seed % 4), 0, seed);
    ts_status status = TS_SUCCESS;
    ts_lu *lu = factored(a, TS_LU_PIVOTING_PARTIAL, &status);
    char what[64];
    snprintf(what, sizeof what, "random, seed %llu", seed);
    check_pattern(what, lu, a);
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
  ts_csr *chain = cancelling_chain(30, 5);
  ts_status status = TS_SUCCESS;
  ts_lu *lu = factored(chain, TS_LU_PIVOTING_PARTIAL, &status);
  check_pattern("cancelling chain", lu, chain);
  ts_lu_destroy(lu);
  ts_csr_destroy(chain);
  /* The corpus (the repository's, or the full one) where it is square. */
  const char *dir = test_matrices_dir();
  const char *names[] = {"west0479", "mahindas", "bp_1200", "impcol_a", "fs_183_6", "sherman5", "arc130", "west0067"};
  for (size_t k = 0; dir && k < sizeof names / sizeof names[0]; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.mtx", dir, names[k]);
    FILE *exists = fopen(path, "r");
    if (!exists)
      continue;
    fclose(exists);
    ts_csr *a = NULL;
    CHECK_OK(ctx, ts_mm_read_csr(ctx, path, TS_FLOAT64, &a, NULL));
    if (!a)
      continue;
    lu = factored(a, TS_LU_PIVOTING_PARTIAL, &status);
    check_pattern(names[k], lu, a);
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
}

/* Rows spanning double's range (1e-310 subnormal, 1e300): finite scales, an
 * accurate solve; columns in other units; an empty matrix; float32 values;
 * a batch whose members keep the pattern's partial pivots. */
static void test_scales_precisions_batches(void) {
  const int32_t rows[] = {0, 0, 1, 1, 2, 2};
  const int32_t cols[] = {1, 2, 0, 1, 0, 2};
  const double values[] = {1e-310, 2e-310, 3e300, 1e300, 1.0, 5.0};
  ts_csr *wide = lu_test_csr(ctx, 3, 6, rows, cols, values);
  ts_status status = TS_SUCCESS;
  ts_lu *lu = factored(wide, TS_LU_PIVOTING_PARTIAL, &status);
  CHECK_MSG(status == TS_SUCCESS, "wide rows: %s", ts_last_error(ctx));
  const double b[] = {3e-310, 4e300, 6.0};
  double x[3] = {0};
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 3, x, 3));
  CHECK_MSG(fabs(x[0] - 1.0) < 1e-13 && fabs(x[1] - 1.0) < 1e-13 && fabs(x[2] - 1.0) < 1e-13, "wide rows: x = %g %g %g",
            x[0], x[1], x[2]);
  ts_lu_destroy(lu);
  ts_csr_destroy(wide);

  /* Columns in other units: [1e-20 1; 0 1], solved by each pivoting; a
   * well-conditioned 4 x 4 whose columns were multiplied by 1e12, 1e5, 1e-2
   * and 1e-9, by the static pivots (the matching's scaling equilibrates it;
   * partial pivoting's one pass of row then column scaling does not, and its
   * smallest pivot sends it to the singularity policy, which judges A's own
   * condition: bench/notes/lu-newton.md). */
  const int32_t u_rows[] = {0, 0, 1}, u_cols[] = {0, 1, 1};
  const double u_values[] = {1e-20, 1.0, 1.0};
  const int32_t c_rows[] = {0, 0, 0, 1, 1, 2, 3, 3}, c_cols[] = {0, 1, 3, 0, 3, 3, 0, 2};
  const double c_values[] = {2.0000056085465023e-12,  -3.1078767059138913e-05, -287774777.90307814,
                             -3.3855943128179633e-12, 4642292139.7416515,      -3554899368.8525119,
                             -2.7790519364045385e-12, 200.85834029955996};
  ts_csr *units[2] = {lu_test_csr(ctx, 2, 3, u_rows, u_cols, u_values),
                      lu_test_csr(ctx, 4, 8, c_rows, c_cols, c_values)};
  for (int u = 0; u < 2; u++)
    for (int p = 0; p < (u == 0 ? 3 : 2); p++) {
      const ts_lu_pivoting pivoting = p == 0   ? TS_LU_PIVOTING_AUTO
                                      : p == 1 ? TS_LU_PIVOTING_STATIC
                                               : TS_LU_PIVOTING_PARTIAL;
      lu = factored(units[u], pivoting, &status);
      CHECK_MSG(!TS_IS_ERROR(status), "units %d, pivoting %d: %s", u, (int)pivoting, ts_last_error(ctx));
      const int64_t un = units[u]->rows;
      double ub[4], ux[4] = {0}, ones[4] = {1.0, 1.0, 1.0, 1.0};
      lu_test_multiply(units[u], 0, ones, ub);
      if (!TS_IS_ERROR(status)) {
        CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, ub, un, ux, un));
        const double berr = lu_test_backward_error(units[u], 0, ux, ub);
        CHECK_MSG(berr <= 1e-15, "units %d, pivoting %d: backward error %.3g", u, (int)pivoting, berr);
      }
      ts_lu_destroy(lu);
    }
  ts_csr_destroy(units[0]);
  ts_csr_destroy(units[1]);

  /* An empty matrix reports the pivoting asked for. */
  ts_csr *empty = NULL;
  CHECK_OK(ctx, ts_csr_create(ctx, 0, 0, 0, TS_FLOAT64, &empty));
  ts_lu_options asked = lu_test_options();
  asked.pivoting = TS_LU_PIVOTING_PARTIAL;
  CHECK_OK(ctx, ts_lu_create(ctx, &asked, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, empty));
  ts_lu_stats empty_stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &empty_stats));
  CHECK(empty_stats.pivoting == TS_LU_PIVOTING_PARTIAL);
  ts_lu_destroy(lu);
  ts_csr_destroy(empty);

  ts_csr *a = lu_test_random(ctx, 200, 4, 0, 9);
  ts_csr *single = NULL;
  CHECK_OK(ctx, ts_csr_create(ctx, a->rows, a->cols, a->nnz, TS_FLOAT32, &single));
  if (single) {
    memcpy(single->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
    memcpy(single->col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
    for (int64_t e = 0; e < a->nnz; e++)
      ((float *)single->values)[e] = (float)((const double *)a->values)[e];
    lu = factored(single, TS_LU_PIVOTING_PARTIAL, &status);
    CHECK_MSG(status == TS_SUCCESS, "float32 values: %s", ts_last_error(ctx));
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK(stats.pivoting == TS_LU_PIVOTING_PARTIAL && stats.perturbed_pivots == 0);
    ts_lu_destroy(lu);
    ts_csr_destroy(single);
  }

  /* Three members on a's pattern: a itself and two perturbed copies. */
  ts_lu_options options = lu_test_options();
  options.pivoting = TS_LU_PIVOTING_PARTIAL;
  const int64_t count = 3, n = a->rows, nnz = a->nnz;
  ts_lu_batch *batch = NULL;
  CHECK_OK(ctx, ts_lu_batch_create(ctx, &options, 1, (const ts_csr *const[]){a}, &count, &batch));
  double *all = malloc((size_t)(count * nnz) * sizeof *all), *rhs = malloc((size_t)(count * n) * sizeof *rhs);
  double *sol = malloc((size_t)(count * n) * sizeof *sol);
  ts_csr *members[3] = {a, lu_test_perturbed_copy(ctx, a, 0.1, 1), lu_test_perturbed_copy(ctx, a, 0.1, 2)};
  for (int64_t m = 0; m < count; m++) {
    memcpy(all + m * nnz, members[m]->values, (size_t)nnz * sizeof *all);
    for (int64_t i = 0; i < n; i++)
      rhs[m * n + i] = 1.0 + (double)((i + m) % 5);
  }
  if (batch) {
    CHECK(!TS_IS_ERROR(ts_lu_batch_factor(batch, all)));
    CHECK_OK(ctx, ts_lu_batch_solve(batch, rhs, sol));
    for (int64_t m = 0; m < count; m++) {
      const double berr = lu_test_backward_error(members[m], 0, sol + m * n, rhs + m * n);
      CHECK_MSG(berr <= 1e-14, "batch member %lld: backward error %.3g", (long long)m, berr);
    }
  }
  ts_lu_batch_destroy(batch);
  ts_csr_destroy(members[1]);
  ts_csr_destroy(members[2]);
  free(all);
  free(rhs);
  free(sol);
  ts_csr_destroy(a);
}

static void test_bad_input(void) {
  /* Row 2 = row 0 + row 1: numerically singular, a perfect matching. */
  const int32_t rows[] = {0, 0, 1, 1, 2, 2, 2};
  const int32_t cols[] = {1, 2, 0, 2, 0, 1, 2};
  const double values[] = {1.0, 2.0, 3.0, 4.0, 3.0, 1.0, 6.0};
  ts_csr *singular = lu_test_csr(ctx, 3, 7, rows, cols, values);
  ts_status status = TS_SUCCESS;
  ts_lu *lu = factored(singular, TS_LU_PIVOTING_PARTIAL, &status);
  CHECK_MSG(status == TS_ERROR_NUMERICALLY_SINGULAR, "singular: %s (%s)", ts_status_string(status), ts_last_error(ctx));
  CHECK(strstr(ts_last_error(ctx), "ts_lu_factor") != NULL);
  ts_lu_destroy(lu);
  ts_csr_destroy(singular);

  /* Two rows with one column between them: structural rank 2. */
  const int32_t s_rows[] = {0, 1, 2, 2};
  const int32_t s_cols[] = {0, 0, 1, 2};
  const double s_values[] = {1.0, 2.0, 3.0, 4.0};
  ts_csr *structural = lu_test_csr(ctx, 3, 4, s_rows, s_cols, s_values);
  ts_lu_options options = lu_test_options();
  options.pivoting = TS_LU_PIVOTING_PARTIAL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_STATUS(ctx, ts_lu_analyze(lu, structural), TS_ERROR_STRUCTURALLY_SINGULAR);
  ts_lu_stats stats;
  ts_lu_get_stats(lu, &stats);
  CHECK_MSG(stats.structural_rank == 2, "structural rank %lld", (long long)stats.structural_rank);
  CHECK_STATUS(ctx, ts_lu_factor(lu, structural), TS_ERROR_NOT_ANALYZED);
  /* An explicit zero cannot be a pivot: rank 2 again. */
  const int32_t z_rows[] = {0, 0, 1, 2};
  const int32_t z_cols[] = {0, 1, 1, 2};
  const double z_values[] = {1.0, 5.0, 0.0, 4.0};
  ts_csr *zero = lu_test_csr(ctx, 3, 4, z_rows, z_cols, z_values);
  CHECK_STATUS(ctx, ts_lu_analyze(lu, zero), TS_ERROR_STRUCTURALLY_SINGULAR);
  ts_lu_get_stats(lu, &stats);
  CHECK(stats.structural_rank == 2);
  /* A non-finite entry, named. */
  ((double *)zero->values)[2] = NAN;
  CHECK_STATUS(ctx, ts_lu_analyze(lu, zero), TS_ERROR_INVALID_MATRIX);
  CHECK(strstr(ts_last_error(ctx), "not finite") != NULL);
  ts_lu_destroy(lu);
  ts_csr_destroy(structural);
  ts_csr_destroy(zero);

  options.pivoting = (ts_lu_pivoting)7;
  lu = NULL;
  CHECK_STATUS(ctx, ts_lu_create(ctx, &options, &lu), TS_ERROR_INVALID_ARGUMENT);
  CHECK(lu == NULL);
  CHECK(strstr(ts_last_error(ctx), "pivoting") != NULL);
}

/* Complex values: partial pivoting asked for, static pivots taken (and said). */
static void test_complex_keeps_static(void) {
  ts_coo *coo = NULL;
  CHECK_OK(ctx, ts_coo_create(ctx, 2, 2, 3, TS_COMPLEX128, &coo));
  const int32_t r[] = {0, 0, 1}, c[] = {0, 1, 0};
  const double v[] = {1.0, 1.0, 2.0, 0.0, 0.0, 3.0};
  for (int k = 0; k < 3; k++) {
    coo->row_idx[k] = r[k];
    coo->col_idx[k] = c[k];
  }
  memcpy(coo->values, v, sizeof v);
  coo->nnz = 3;
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &a));
  ts_coo_destroy(coo);
  ts_status status = TS_SUCCESS;
  ts_lu *lu = factored(a, TS_LU_PIVOTING_PARTIAL, &status);
  CHECK_OK(ctx, status);
  ts_lu_stats stats;
  ts_lu_get_stats(lu, &stats);
  CHECK(stats.pivoting == TS_LU_PIVOTING_STATIC);
  /* x = (1, 1): b = (1 + i + 2, 3i). */
  const double b[] = {3.0, 1.0, 0.0, 3.0};
  double x[4] = {0};
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 2, x, 2));
  CHECK(fabs(x[0] - 1.0) < 1e-14 && fabs(x[1]) < 1e-14 && fabs(x[2] - 1.0) < 1e-14 && fabs(x[3]) < 1e-14);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_cancelling_pivots();
  test_refresh_to_partial();
  test_random_matrices();
  test_patterns();
  test_scales_precisions_batches();
  test_bad_input();
  test_complex_keeps_static();
  ts_context_destroy(ctx);
  return test_finish();
}
