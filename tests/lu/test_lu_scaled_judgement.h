/* The cases of test_lu_scaled_judgement.c and test_gpu_lu_scaled_judgement.c:
 * the singularity policy on matrices whose rows and columns are in other
 * units (see the former). */
#ifndef TESSERA_TEST_LU_SCALED_JUDGEMENT_H
#define TESSERA_TEST_LU_SCALED_JUDGEMENT_H

#include "test_lu_numeric_common.h"

#include "lu/numeric/numeric_internal.h" /* the judgements' count */

#include <float.h>
#include <stdbool.h>

/* The componentwise backward error a solve must reach: refinement through
 * perturbed static pivots stops at 1e-14 normwise on M, which leaves up to
 * about 1e-12 entry by entry on these chains. */
#define SCALED_BACKWARD_ERROR 1e-11

/* The context the cases run on, and where the LU's phases run. */
static ts_context *ctx;
static ts_backend scaled_backend = TS_BACKEND_CPU;

/* A copy of a (n x n) with row i multiplied by row_scale[i] and column j
 * by col_scale[j] (n entries each). */
static ts_csr *scaled_copy(const ts_csr *a, int64_t n, const double *row_scale, const double *col_scale) {
  ts_csr *copy = NULL;
  if (a->rows != n || a->cols != n || ts_csr_copy(ctx, a, &copy) != TS_SUCCESS)
    return NULL;
  double *v = (double *)copy->values;
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = copy->row_ptr[i]; e < copy->row_ptr[i + 1]; e++) {
      const int64_t j = copy->col_idx[e];
      v[e] *= row_scale[i] * (j >= 0 && j < n ? col_scale[j] : 1.0);
    }
  return copy;
}

/* Random powers of ten in [10^-spread, 10^spread] (1 where spread is 0). */
static void random_units(int64_t n, int spread, unsigned long long *state, double *scale) {
  for (int64_t i = 0; i < n; i++)
    scale[i] = spread == 0 ? 1.0 : pow(10.0, floor((2.0 * spread + 1.0) * (0.5 + 0.5 * test_random(state))) - spread);
}

/* Block-diagonal matrix of two (rows of `second` shifted by first's size). */
static ts_csr *block_diagonal(const ts_csr *first, const ts_csr *second) {
  const int64_t n = first->rows + second->rows, count = first->nnz + second->nnz;
  int32_t *rows = calloc((size_t)count, sizeof *rows), *cols = calloc((size_t)count, sizeof *cols);
  double *values = calloc((size_t)count, sizeof *values);
  int64_t k = 0;
  const ts_csr *parts[2] = {first, second};
  int64_t offset = 0;
  for (int p = 0; p < 2; p++) {
    const double *v = (const double *)parts[p]->values;
    for (int64_t i = 0; i < parts[p]->rows; i++)
      for (int64_t e = parts[p]->row_ptr[i]; e < parts[p]->row_ptr[i + 1]; e++) {
        rows[k] = (int32_t)(offset + i);
        cols[k] = (int32_t)(offset + parts[p]->col_idx[e]);
        values[k++] = v[e];
      }
    offset += parts[p]->rows;
  }
  ts_csr *a = lu_test_csr(ctx, n, count, rows, cols, values);
  free(rows);
  free(cols);
  free(values);
  return a;
}

/* The cancelling chains of lu_test_chain_of_blocks; singular: the last
 * block's third row repeats its second. */
static ts_csr *chain(int64_t blocks, unsigned long long seed, int singular) {
  return lu_test_chain_of_blocks(ctx, blocks, seed, 1.0, singular);
}

/* A = D_r A0 D_c, units drawn from `state` (10^-row_spread .. 10^row_spread
 * for the rows, likewise the columns); the column units in *col_scale (n
 * entries, the caller frees it); NULL when a0 is NULL or memory ran out. */
static ts_csr *in_units(const ts_csr *a0, int row_spread, int col_spread, unsigned long long state,
                        double **col_scale) {
  *col_scale = NULL;
  if (!a0)
    return NULL;
  const int64_t n = a0->rows;
  double *row_scale = calloc((size_t)n, sizeof *row_scale), *cols = calloc((size_t)n, sizeof *cols);
  ts_csr *a = NULL;
  if (row_scale && cols) {
    random_units(n, row_spread, &state, row_scale);
    random_units(n, col_spread, &state, cols);
    a = scaled_copy(a0, n, row_scale, cols);
  }
  free(row_scale);
  if (a)
    *col_scale = cols;
  else
    free(cols);
  return a;
}

/* max_i |b - A x|_i / (|A| |x| + |b|)_i, the componentwise backward error
 * (Oettli and Prager), which a diagonal scaling of A leaves unchanged. */
static double componentwise_backward_error(const ts_csr *a, const double *x, const double *b) {
  const double *v = (const double *)a->values;
  double worst = 0.0;
  for (int64_t i = 0; i < a->rows; i++) {
    long double r = b[i], size = fabs(b[i]);
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      r -= (long double)v[e] * x[a->col_idx[e]];
      size += fabsl((long double)v[e] * x[a->col_idx[e]]);
    }
    const double ratio = size > 0 ? (double)(fabsl(r) / size) : (r == 0 ? 0.0 : INFINITY);
    worst = fmax(worst, isfinite(x[i]) ? ratio : INFINITY);
  }
  return worst;
}

typedef struct outcome {
  ts_status status;
  ts_lu_stats stats;
  double backward_error; /* componentwise, of the solution found */
  double forward_error;  /* max_i |x_i - x0_i| / |x0_i| */
} outcome;

/* Solve a x = A x0 through lu's factors, x0_i = (1 + i mod 7) /
 * col_scale_i: the componentwise backward error of x into *backward and
 * max_i |x_i - x0_i| / |x0_i| into *forward (both left as they were when
 * the solve fails); the solve's status. */
static ts_status solve_in_units(ts_lu *lu, const ts_csr *a, const double *col_scale, double *backward,
                                double *forward) {
  const int64_t n = a->rows;
  double *x0 = calloc((size_t)n, sizeof *x0), *b = calloc((size_t)n, sizeof *b), *x = calloc((size_t)n, sizeof *x);
  ts_status solved = TS_ERROR_OUT_OF_MEMORY;
  if (x0 && b && x) {
    for (int64_t i = 0; i < n; i++)
      x0[i] = (double)(1 + i % 7) / col_scale[i];
    lu_test_multiply(a, 0, x0, b);
    solved = ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n);
    if (!TS_IS_ERROR(solved)) {
      *backward = componentwise_backward_error(a, x, b);
      *forward = 0.0;
      for (int64_t i = 0; i < n; i++)
        *forward = fmax(*forward, fabs(x[i] - x0[i]) / fabs(x0[i]));
    }
  }
  free(x0);
  free(b);
  free(x);
  return solved;
}

/* Factor and solve a (analyzed with `pivoting` and `ordering`) for the
 * right-hand side A x0 with x0_i = (1 + i mod 7) / col_scale_i. */
static outcome factor_and_solve(const ts_csr *a, const double *col_scale, ts_lu_pivoting pivoting,
                                ts_lu_ordering ordering) {
  outcome result = {.status = TS_ERROR_INVALID_ARGUMENT, .backward_error = INFINITY, .forward_error = INFINITY};
  CHECK(a != NULL);
  if (!a)
    return result;
  ts_lu_options options = lu_test_options();
  options.backend = scaled_backend;
  options.pivoting = pivoting;
  options.ordering = ordering;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  result.status = ts_lu_factor(lu, a);
  ts_lu_get_stats(lu, &result.stats);
  if (!TS_IS_ERROR(result.status)) {
    const ts_status solved = solve_in_units(lu, a, col_scale, &result.backward_error, &result.forward_error);
    CHECK_MSG(!TS_IS_ERROR(solved), "solve after a factorization that stood: %s", ts_last_error(ctx));
  }
  ts_lu_destroy(lu);
  return result;
}

static const char *pivoting_name(ts_lu_pivoting p) {
  return p == TS_LU_PIVOTING_STATIC ? "static" : p == TS_LU_PIVOTING_PARTIAL ? "partial" : "auto";
}

/* A0's factors trip the trigger under static pivoting (the cancelling
 * chain, natural order); beside it a block in other units. Every pivoting
 * solves A = D_r A0 D_c for scalings across 10^-spread .. 10^spread. */
static void test_scaled_chains(void) {
  const ts_lu_pivoting pivotings[] = {TS_LU_PIVOTING_STATIC, TS_LU_PIVOTING_AUTO, TS_LU_PIVOTING_PARTIAL};
  const int spreads[] = {0, 8, 20, 60};
  int checked = 0, judged_scaled = 0;
  for (int s = 0; s < 4; s++)
    for (unsigned long long seed = 1; seed <= 6; seed++) {
      ts_csr *a0 = chain(1 + (int64_t)(seed * 3 % 11), seed, 0);
      double *col_scale = NULL;
      ts_csr *a = in_units(a0, spreads[s], spreads[s], 100 + seed, &col_scale);
      CHECK(a != NULL);
      if (!a) {
        ts_csr_destroy(a0);
        continue;
      }
      const int64_t n = a->rows;
      for (int p = 0; p < 3; p++)
        for (int natural = 0; natural < 2; natural++) {
          const ts_lu_ordering ordering = natural ? TS_LU_ORDER_NATURAL : lu_test_options().ordering;
          outcome o = factor_and_solve(a, col_scale, pivotings[p], ordering);
          CHECK_MSG(!TS_IS_ERROR(o.status) && o.backward_error <= SCALED_BACKWARD_ERROR && o.forward_error <= 1e-9,
                    "chain of %lld rows, units 10^+-%d, seed %llu, %s, %s order: %s (%s), backward error %.3g, "
                    "forward error %.3g, %lld perturbed",
                    (long long)n, spreads[s], seed, pivoting_name(pivotings[p]), natural ? "natural" : "fill",
                    ts_status_string(o.status), TS_IS_ERROR(o.status) ? ts_last_error(ctx) : "", o.backward_error,
                    o.forward_error, (long long)o.stats.perturbed_pivots);
          /* Where A's estimate was beyond 1/eps, the factors stood on M's. */
          if (o.stats.condest > 1.0 / DBL_EPSILON) {
            CHECK_MSG(o.stats.scaled_condest > 0.0 && o.stats.scaled_condest <= 1.0 / DBL_EPSILON,
                      "seed %llu, %s: condest %.3g, scaled %.3g", seed, pivoting_name(pivotings[p]), o.stats.condest,
                      o.stats.scaled_condest);
            judged_scaled++;
          }
          checked++;
        }
      ts_csr_destroy(a);
      ts_csr_destroy(a0);
      free(col_scale);
    }
  printf("scaled chains: %d factorizations checked, %d stood on the scaled matrix's estimate\n", checked,
         judged_scaled);
  CHECK(judged_scaled > 0);
}

/* The two cases that were called singular: a cancelling chain beside the
 * upper triangular [1e-20 1; 0 1] under static pivots in the natural order,
 * and a well-conditioned 4 x 4 whose columns were multiplied by 1e-12, 1e-5,
 * 1e2 and 1e9 under partial pivoting. */
static void test_known_cases(void) {
  const int32_t u_rows[] = {0, 0, 1}, u_cols[] = {0, 1, 1};
  const double u_values[] = {1e-20, 1.0, 1.0};
  ts_csr *units = lu_test_csr(ctx, 2, 3, u_rows, u_cols, u_values);
  ts_csr *cancelling = chain(4, 9, 0);
  ts_csr *beside = block_diagonal(cancelling, units);
  const int32_t c_rows[] = {0, 0, 0, 1, 1, 2, 3, 3}, c_cols[] = {0, 1, 3, 0, 3, 3, 0, 2};
  const double c_values[] = {2.0000056085465023e-12,  -3.1078767059138913e-05, -287774777.90307814,
                             -3.3855943128179633e-12, 4642292139.7416515,      -3554899368.8525119,
                             -2.7790519364045385e-12, 200.85834029955996};
  ts_csr *columns = lu_test_csr(ctx, 4, 8, c_rows, c_cols, c_values);
  /* [2.9 .58; -.75 -2.4] with columns in units of 1e176 and 1e-162: the
   * matching's duals then pass exp()'s range before its shift brings the
   * scales back. */
  const int32_t w_rows[] = {0, 0, 1, 1}, w_cols[] = {0, 1, 0, 1};
  const double w_values[] = {2.89882260616495e+176, 5.7731492482619749e-163, -7.537046588132157e+175,
                             -2.3940085138888773e-162};
  ts_csr *wide = lu_test_csr(ctx, 2, 4, w_rows, w_cols, w_values);
  const ts_csr *cases[3] = {beside, columns, wide};
  const char *names[3] = {"chain beside [1e-20 1; 0 1]", "column-scaled 4 x 4", "columns 338 decades apart"};
  const ts_lu_pivoting pivotings[] = {TS_LU_PIVOTING_STATIC, TS_LU_PIVOTING_AUTO, TS_LU_PIVOTING_PARTIAL};
  /* The columns' units, so that x0 has a like magnitude in every column's
   * product. */
  const double column_units[3][14] = {
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1e-20, 1}, {1e-12, 1e-5, 1e2, 1e9}, {1e176, 1e-162}};
  for (int c = 0; c < 3; c++) {
    const double *units_of = column_units[c];
    for (int p = 0; p < 3; p++)
      for (int natural = 0; natural < 2; natural++) {
        const ts_lu_ordering ordering = natural ? TS_LU_ORDER_NATURAL : lu_test_options().ordering;
        outcome o = factor_and_solve(cases[c], units_of, pivotings[p], ordering);
        CHECK_MSG(!TS_IS_ERROR(o.status) && o.backward_error <= SCALED_BACKWARD_ERROR && o.forward_error <= 1e-9,
                  "%s, %s, %s order: %s (%s), backward error %.3g, forward error %.3g", names[c],
                  pivoting_name(pivotings[p]), natural ? "natural" : "fill", ts_status_string(o.status),
                  TS_IS_ERROR(o.status) ? ts_last_error(ctx) : "", o.backward_error, o.forward_error);
      }
  }
  ts_csr_destroy(units);
  ts_csr_destroy(cancelling);
  ts_csr_destroy(beside);
  ts_csr_destroy(columns);
  ts_csr_destroy(wide);
}

/* Singular A0 stays singular whatever the units: a chain whose last block
 * has two equal rows, and [1 1; 1 1 + 2^-52] (condition about 2^54, beyond
 * 1/eps in any diagonal scaling: a scaling cannot separate two rows whose
 * entries agree to the last bit). */
static void test_singular_stays_singular(void) {
  const ts_lu_pivoting pivotings[] = {TS_LU_PIVOTING_STATIC, TS_LU_PIVOTING_AUTO, TS_LU_PIVOTING_PARTIAL};
  const int32_t n_rows[] = {0, 0, 1, 1}, n_cols[] = {0, 1, 0, 1};
  const double n_values[] = {1.0, 1.0, 1.0, 1.0 + DBL_EPSILON};
  for (unsigned long long seed = 1; seed <= 8; seed++) {
    ts_csr *a0 = seed % 2 ? chain(1 + (int64_t)(seed % 5), seed, 1) : lu_test_csr(ctx, 2, 4, n_rows, n_cols, n_values);
    double *col_scale = NULL;
    ts_csr *a = in_units(a0, (int)(seed * 5 % 31), (int)(seed * 7 % 31), 300 + seed, &col_scale);
    CHECK(a != NULL);
    if (!a) {
      ts_csr_destroy(a0);
      continue;
    }
    const int64_t n = a->rows;
    for (int p = 0; p < 3; p++)
      for (int natural = 0; natural < 2; natural++) {
        const ts_lu_ordering ordering = natural ? TS_LU_ORDER_NATURAL : lu_test_options().ordering;
        outcome o = factor_and_solve(a, col_scale, pivotings[p], ordering);
        CHECK_MSG(o.status == TS_ERROR_NUMERICALLY_SINGULAR,
                  "singular %s of %lld rows, seed %llu, %s, %s order: %s, %lld perturbed, forward error %.3g",
                  seed % 2 ? "chain" : "2 x 2", (long long)n, seed, pivoting_name(pivotings[p]),
                  natural ? "natural" : "fill", ts_status_string(o.status), (long long)o.stats.perturbed_pivots,
                  o.forward_error);
      }
    ts_csr_destroy(a);
    ts_csr_destroy(a0);
    free(col_scale);
  }
}

/* A judgement that stood on the scaled matrix's estimate carries to the
 * refactorizations of the same and of nearby values (no new estimate, the
 * bound in stats.scaled_condest at least the judged estimate), in M's
 * terms: the units that put A's condition beyond 1/eps do not stop it. */
static void test_scaled_carry(void) {
  ts_csr *a0 = chain(6, 5, 0);
  double *col_scale = NULL;
  ts_csr *a = in_units(a0, 20, 20, 77, &col_scale);
  ts_csr *near = NULL;
  /* Nearby values that keep the cancellation: the couplings between the
   * blocks moved by 1e-10 of themselves. */
  if (a && ts_csr_copy(ctx, a, &near) == TS_SUCCESS)
    for (int64_t i = 2; i < near->rows; i += 3)
      for (int64_t e = near->row_ptr[i]; e < near->row_ptr[i + 1]; e++)
        if (near->col_idx[e] == i + 1)
          ((double *)near->values)[e] *= 1.0 + 1e-10;
  CHECK(a != NULL && near != NULL);
  if (a && near) {
    ts_lu_options options = lu_test_options();
    options.backend = scaled_backend;
    options.pivoting = TS_LU_PIVOTING_STATIC;
    options.ordering = TS_LU_ORDER_NATURAL;
    ts_lu *lu = NULL;
    CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
    CHECK_OK(ctx, ts_lu_analyze(lu, a));
    CHECK_STATUS(ctx, ts_lu_factor(lu, a), TS_WARNING_PERTURBED_PIVOTS);
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    const double judged = stats.scaled_condest;
    const tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
    const int64_t estimates = ws ? ws->condition_estimates : -1;
    CHECK_MSG(stats.condest > 1.0 / DBL_EPSILON && judged > 0.0 && judged <= 1.0 / DBL_EPSILON && estimates == 1,
              "first factorization: condest %.3g, scaled %.3g, %lld estimates", stats.condest, judged,
              (long long)estimates);
    const ts_csr *values[2] = {a, near};
    for (int k = 0; k < 2; k++) {
      CHECK_STATUS(ctx, ts_lu_refactor(lu, values[k]), TS_WARNING_PERTURBED_PIVOTS);
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      ws = tsi_lu_numeric_workspace_get(lu);
      CHECK_MSG(ws && ws->condition_estimates == 1 && stats.scaled_condest >= judged,
                "refactorization %d: %lld estimates, bound %.6g against the judged %.6g", k,
                ws ? (long long)ws->condition_estimates : -1LL, stats.scaled_condest, judged);
      double backward = INFINITY, forward = INFINITY;
      CHECK_OK(ctx, solve_in_units(lu, values[k], col_scale, &backward, &forward));
      CHECK_MSG(backward <= SCALED_BACKWARD_ERROR, "refactorization %d: backward error %.3g", k, backward);
    }
    ts_lu_destroy(lu);
  }
  ts_csr_destroy(near);
  ts_csr_destroy(a);
  ts_csr_destroy(a0);
  free(col_scale);
}

/* A refactorization whose values changed units (10^+-0 to 10^+-80): the
 * analysis's scaling is then stale, the static pivots may be perturbed and
 * the judgement may refuse them; with refresh_pivots the values are
 * analyzed anew, and the factors solve accurately (a fresh analysis of the
 * same values stands). */
static void test_units_change_refreshed(void) {
  int refused = 0;
  for (unsigned long long seed = 1; seed <= 12; seed++) {
    ts_csr *a0 = lu_test_random(ctx, 12 + (int64_t)seed, 3, 0, seed);
    double *col_scale = NULL;
    ts_csr *moved = in_units(a0, 80, 80, 900 + seed, &col_scale);
    CHECK(a0 != NULL && moved != NULL);
    for (int refresh = 0; refresh < 2 && a0 && moved; refresh++) {
      ts_lu_options options = lu_test_options();
      options.backend = scaled_backend;
      options.pivoting = TS_LU_PIVOTING_STATIC;
      options.refresh_pivots = refresh;
      ts_lu *lu = NULL;
      CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
      CHECK_OK(ctx, ts_lu_analyze(lu, a0));
      CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a0)));
      const ts_status st = ts_lu_refactor(lu, moved);
      ts_lu_stats stats;
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      if (!refresh) {
        refused += st == TS_ERROR_NUMERICALLY_SINGULAR;
      } else {
        CHECK_MSG(!TS_IS_ERROR(st), "seed %llu, refreshed: %s (%s)", seed, ts_status_string(st), ts_last_error(ctx));
      }
      if (!TS_IS_ERROR(st)) {
        double backward = INFINITY, forward = INFINITY;
        CHECK_OK(ctx, solve_in_units(lu, moved, col_scale, &backward, &forward));
        CHECK_MSG(backward <= SCALED_BACKWARD_ERROR && forward <= 1e-6,
                  "seed %llu, refresh %d (%s, refreshed %d): backward error %.3g, forward error %.3g", seed, refresh,
                  ts_status_string(st), stats.pivots_refreshed, backward, forward);
      }
      ts_lu_destroy(lu);
    }
    ts_csr_destroy(moved);
    ts_csr_destroy(a0);
    free(col_scale);
  }
  printf("units changed on refactorization: %d of 12 refused without refresh_pivots\n", refused);
}

/* Every case on ctx with the LU's phases on scaled_backend. */
static void scaled_judgement_cases(void) {
  test_known_cases();
  test_scaled_chains();
  test_singular_stays_singular();
  test_scaled_carry();
  test_units_change_refreshed();
}

#endif
