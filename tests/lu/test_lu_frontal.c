/* The multifrontal path on the host: the fronts of an analysis against a
 * brute-force symbolic elimination of the symmetrized L + U pattern (every
 * index list, extend-add map and entry place), under three amalgamation
 * rules; then the host's multifrontal factors against the column path's (to
 * a tolerance: the sums go in another order), their solutions' backward
 * errors in both operations and both precisions, the same pivot outcomes
 * (perturbed and singular pivots), and bitwise the same factors whatever
 * the thread count and from run to run. */
#include "test_lu_numeric_common.h"

#include "lu/lu_internal.h"
#include "lu/symbolic/symbolic_internal.h"

static ts_context *ctx, *ctx_one;

/* The Cholesky pattern of L + U + (L + U)^T by dense elimination (n small):
 * c[i * n + j] for both triangles. */
static unsigned char *dense_pattern(const ts_lu *lu) {
  const int64_t n = lu->n;
  unsigned char *c = calloc((size_t)(n * n), 1);
  if (!c)
    return NULL;
  for (int64_t k = 0; k < n; k++)
    for (int64_t p = lu->lu_col_ptr[k]; p < lu->lu_col_ptr[k + 1]; p++) {
      const int64_t i = lu->lu_row_idx[p];
      c[i * n + k] = c[k * n + i] = 1;
    }
  for (int64_t k = 0; k < n; k++)
    for (int64_t i = k + 1; i < n; i++)
      if (c[i * n + k])
        for (int64_t j = k + 1; j < n; j++)
          if (c[j * n + k])
            c[i * n + j] = c[j * n + i] = 1;
  return c;
}

/* Position of x in front s's list, or -1. */
static int64_t position(const tsi_lu_fronts *fr, int64_t s, int32_t x) {
  for (int64_t a = 0; a < fr->size[s]; a++)
    if (fr->index[fr->index_ptr[s] + a] == x)
      return a;
  return -1;
}

static void check_fronts(const ts_lu *lu, const tsi_lu_fronts *fr, const unsigned char *c, const char *what) {
  const int64_t n = lu->n;
  int bad = 0;
  int64_t chol = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = j; i < n; i++)
      chol += c[i * n + j] || i == j;
  CHECK_MSG(fr->chol_entries == chol, "%s: %lld Cholesky entries, brute force %lld", what, (long long)fr->chol_entries,
            (long long)chol);
  CHECK(fr->level_ptr[0] == 0 && fr->level_ptr[fr->levels] == fr->count);
  int64_t pivots = 0;
  for (int64_t s = 0; s < fr->count && bad < 5; s++) {
    const int32_t *list = fr->index + fr->index_ptr[s];
    const int64_t f = fr->size[s], p = fr->pivots[s];
    pivots += p;
    bool ok = p >= 1 && p <= f && fr->index_ptr[s + 1] - fr->index_ptr[s] == f;
    for (int64_t a = 1; ok && a < f; a++)
      ok = list[a] > list[a - 1];
    for (int64_t a = 0; ok && a < p; a++)
      ok = fr->front_of[list[a]] == s;
    /* The update rows are exactly the last pivot's rows of C below it. */
    const int64_t root = list[p - 1];
    int64_t below = 0;
    for (int64_t i = root + 1; i < n; i++)
      below += c[i * n + root];
    ok = ok && below == f - p;
    for (int64_t a = p; ok && a < f; a++)
      ok = c[list[a] * n + root] && list[a] > root;
    /* Every pivot's rows of C lie in the list. */
    for (int64_t a = 0; ok && a < p; a++)
      for (int64_t i = list[a] + 1; ok && i < n; i++)
        ok = !c[i * n + list[a]] || position(fr, s, (int32_t)i) >= 0;
    /* The parent: one level up at least, and the extend-add map. */
    const int32_t up = fr->parent[s];
    int64_t level = 0, up_level = -1;
    while (fr->level_ptr[level + 1] <= s)
      level++;
    if (up >= 0) {
      up_level = 0;
      while (fr->level_ptr[up_level + 1] <= up)
        up_level++;
    }
    ok = ok && (up < 0 ? f == p : up_level > level);
    for (int64_t a = p; ok && a < f && up >= 0; a++)
      ok = fr->index[fr->index_ptr[up] + fr->relative[fr->index_ptr[s] + a]] == list[a];
    bool listed = up < 0;
    for (int64_t k = up >= 0 ? fr->child_ptr[up] : 0; up >= 0 && k < fr->child_ptr[up + 1]; k++)
      listed = listed || fr->children[k] == s;
    ok = ok && listed;
    if (!ok) {
      bad++;
      CHECK_MSG(0, "%s: front %lld (%lld pivots of %lld rows) is inconsistent", what, (long long)s, (long long)p,
                (long long)f);
    }
  }
  CHECK_MSG(pivots == n, "%s: the fronts hold %lld pivots of %lld", what, (long long)pivots, (long long)n);
  /* Every entry of L + U in its place. */
  for (int64_t k = 0; k < n && bad < 10; k++)
    for (int64_t p = lu->lu_col_ptr[k]; p < lu->lu_col_ptr[k + 1]; p++) {
      const int32_t i = lu->lu_row_idx[p];
      const int32_t s = fr->front_of[i < k ? i : k];
      const int64_t at = fr->lu_to_front[p] - fr->offset[s], f = fr->size[s];
      if (at < 0 || at >= f * f || fr->index[fr->index_ptr[s] + at % f] != i ||
          fr->index[fr->index_ptr[s] + at / f] != k) {
        bad++;
        CHECK_MSG(0, "%s: entry (%d, %lld) of L + U is out of place", what, i, (long long)k);
      }
    }
  CHECK(fr->factor_entries >= fr->chol_entries);
}

static void test_structure(const ts_csr *a, const char *what) {
  ts_lu_options options = lu_test_options();
  options.backend = TS_BACKEND_CPU;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  lu->switches.whole_factors = 1; /* the fronts factor the whole matrix */
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  unsigned char *c = dense_pattern(lu);
  CHECK(c != NULL);
  const tsi_lu_front_rule rules[3] = {
      {{0, 0, 0}, {0.0, 0.0, 0.0}},      /* fundamental supernodes only */
      tsi_lu_front_rule_default(),       /* the default */
      {{64, 256, 1024}, {1.0, 1.0, 0.9}} /* nearly everything merged */
  };
  const char *names[3] = {"fundamental", "default", "aggressive"};
  for (int r = 0; r < 3 && c; r++) {
    tsi_lu_fronts *fr = NULL;
    CHECK_OK(ctx, tsi_lu_fronts_build(lu, &rules[r], &fr));
    if (fr) {
      char label[160];
      snprintf(label, sizeof label, "%s, %s rule", what, names[r]);
      check_fronts(lu, fr, c, label);
      if (r == 0)
        for (int64_t s = 0; s < fr->count; s++) /* fundamental: no zeros at all */
          CHECK(fr->factor_entries == fr->chol_entries);
      printf("  %s: %lld fronts, %lld levels, largest %d\n", label, (long long)fr->count, (long long)fr->levels,
             fr->max_size);
    }
    tsi_lu_fronts_free(fr);
  }
  free(c);
  ts_lu_destroy(lu);
}

/* Factor a by both methods on the host; compare. */
static void test_numeric(ts_context *context, const ts_csr *a, int float_factors, const char *what) {
  const int64_t n = a->rows;
  ts_lu_options options = lu_test_options();
  options.backend = TS_BACKEND_CPU;
  options.float_factors = float_factors;
  ts_lu *lu = NULL;
  CHECK_OK(context, ts_lu_create(context, &options, &lu));
  lu->switches.whole_factors = 1; /* the fronts factor the whole matrix */
  CHECK_OK(context, ts_lu_analyze(lu, a));
  ts_status column_status = ts_lu_factor(lu, a);
  CHECK(!TS_IS_ERROR(column_status));
  const size_t value_size = float_factors ? sizeof(float) : sizeof(double);
  void *column = malloc((size_t)lu->lu_nnz * value_size);
  memcpy(column, float_factors ? (void *)lu->lu_values_f32 : (void *)lu->lu_values, (size_t)lu->lu_nnz * value_size);
  const int64_t column_perturbed = lu->stats.perturbed_pivots;

  lu->switches.numeric_method = TSI_LU_METHOD_FRONTS;
  ts_status frontal_status = ts_lu_refactor(lu, a);
  CHECK_MSG(frontal_status == column_status, "%s: status %d, columns %d", what, (int)frontal_status,
            (int)column_status);
  CHECK_MSG(lu->stats.perturbed_pivots == column_perturbed, "%s: %lld perturbed, columns %lld", what,
            (long long)lu->stats.perturbed_pivots, (long long)column_perturbed);
  double scale = 0.0, worst = 0.0;
  for (int64_t p = 0; p < lu->lu_nnz; p++) {
    const double c = float_factors ? ((float *)column)[p] : ((double *)column)[p];
    const double f = float_factors ? lu->lu_values_f32[p] : lu->lu_values[p];
    scale = fmax(scale, fabs(c));
    worst = fmax(worst, fabs(f - c));
  }
  const double tolerance = float_factors ? 1e-4 : 1e-10;
  CHECK_MSG(worst <= tolerance * fmax(scale, 1.0), "%s: factors differ by %.3g (largest %.3g)", what, worst, scale);

  /* Solutions through the multifrontal factors, both operations, three
   * right-hand sides. */
  const int64_t m = 3;
  double *b = calloc((size_t)(n * m), sizeof *b), *x = calloc((size_t)(n * m), sizeof *x);
  unsigned long long state = 5;
  for (int64_t k = 0; k < n * m; k++)
    b[k] = test_random(&state);
  for (int op = 0; op < 2; op++) {
    CHECK_OK(context, ts_lu_solve(lu, op ? TS_OP_TRANSPOSE : TS_OP_NONE, m, b, n, x, n));
    for (int64_t c = 0; c < m; c++) {
      const double berr = lu_test_backward_error(a, op, x + c * n, b + c * n);
      CHECK_MSG(berr <= 1e-14, "%s: op %d, right-hand side %lld: backward error %.3g", what, op, (long long)c, berr);
    }
  }

  /* Bitwise the same factors again, and on one thread. */
  void *first = malloc((size_t)lu->lu_nnz * value_size);
  memcpy(first, float_factors ? (void *)lu->lu_values_f32 : (void *)lu->lu_values, (size_t)lu->lu_nnz * value_size);
  CHECK(!TS_IS_ERROR(ts_lu_refactor(lu, a)));
  CHECK_MSG(memcmp(first, float_factors ? (void *)lu->lu_values_f32 : (void *)lu->lu_values,
                   (size_t)lu->lu_nnz * value_size) == 0,
            "%s: the factors changed from run to run", what);
  ts_lu *single = NULL;
  CHECK_OK(ctx_one, ts_lu_create(ctx_one, &options, &single));
  single->switches.whole_factors = 1; /* the fronts factor the whole matrix */
  CHECK_OK(ctx_one, ts_lu_analyze(single, a));
  single->switches.numeric_method = TSI_LU_METHOD_FRONTS;
  CHECK(!TS_IS_ERROR(ts_lu_factor(single, a)));
  CHECK_MSG(single->lu_nnz == lu->lu_nnz &&
                memcmp(first, float_factors ? (void *)single->lu_values_f32 : (void *)single->lu_values,
                       (size_t)lu->lu_nnz * value_size) == 0,
            "%s: one thread gives other factors", what);
  printf("  %s (%s factors): columns and fronts differ by %.2e of %.2e\n", what, float_factors ? "float" : "double",
         worst, scale);
  ts_lu_destroy(single);
  free(first);
  free(b);
  free(x);
  free(column);
  ts_lu_destroy(lu);
}

/* Complex values: the fronts compute in real arithmetic, so the switch
 * leaves a complex matrix on the columns; the factors are the column path's
 * bit for bit and the solution solves the system. */
static void test_complex_takes_columns(const ts_csr *real) {
  const int64_t n = real->rows, nnz = real->nnz;
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_csr_create(ctx, n, n, nnz, TS_COMPLEX128, &a));
  memcpy(a->row_ptr, real->row_ptr, (size_t)(n + 1) * sizeof *a->row_ptr);
  memcpy(a->col_idx, real->col_idx, (size_t)nnz * sizeof *a->col_idx);
  double *v = a->values;
  const double *r = real->values;
  for (int64_t e = 0; e < nnz; e++) {
    v[2 * e] = r[e];
    v[2 * e + 1] = 0.25 * r[e] + (e % 3 == 0 ? 0.125 : 0.0);
  }
  ts_lu_options options = lu_test_options();
  options.backend = TS_BACKEND_CPU;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  lu->switches.whole_factors = 1; /* the fronts factor the whole matrix */
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a)));
  const size_t bytes = (size_t)lu->lu_nnz * 2 * sizeof(double);
  double *column = malloc(bytes);
  memcpy(column, lu->lu_values, bytes);
  lu->switches.numeric_method = TSI_LU_METHOD_FRONTS;
  CHECK(!TS_IS_ERROR(ts_lu_refactor(lu, a)));
  CHECK_MSG(memcmp(column, lu->lu_values, bytes) == 0, "complex: the fronts switch changed the factors");
  /* A x = b with x = (1 + i, ...): the residual's largest part small. */
  double *x = malloc((size_t)(2 * n) * sizeof *x), *b = calloc((size_t)(2 * n), sizeof *b);
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      b[2 * i] += v[2 * e] - v[2 * e + 1];
      b[2 * i + 1] += v[2 * e] + v[2 * e + 1];
    }
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  double worst = 0.0;
  for (int64_t k = 0; k < 2 * n; k++)
    worst = fmax(worst, fabs(x[k] - 1.0));
  CHECK_MSG(worst <= 1e-8, "complex: the solution differs from 1 + i by %.3g", worst);
  printf("  complex values with the fronts switch: the columns' factors; solution within %.2e\n", worst);
  free(x);
  free(b);
  free(column);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* A zero pivot by exact cancellation: M's block [[1, 1], [1, 1]] (the
 * matching cannot avoid it: every product is 1). Perturbed on both paths in
 * the same column; with perturbation off, the same singular column. */
static void test_pivot_outcomes(void) {
  const int64_t n = 6;
  const int32_t rows[] = {0, 0, 1, 1, 2, 3, 4, 5, 2, 5};
  const int32_t cols[] = {0, 1, 0, 1, 2, 3, 4, 5, 5, 2};
  const double values[] = {1, 1, 1, 1, 2, 3, 4, 5, 0.5, 0.25};
  ts_csr *a = lu_test_csr(ctx, n, 10, rows, cols, values);
  for (int perturb = 0; perturb < 2; perturb++) {
    ts_lu_options options = lu_test_options();
    options.backend = TS_BACKEND_CPU;
    options.no_perturbation = !perturb;
    ts_lu *lu = NULL;
    CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
    lu->switches.whole_factors = 1; /* the fronts factor the whole matrix */
    CHECK_OK(ctx, ts_lu_analyze(lu, a));
    const ts_status column = ts_lu_factor(lu, a);
    ts_lu_stats column_stats;
    ts_lu_get_stats(lu, &column_stats);
    lu->switches.numeric_method = TSI_LU_METHOD_FRONTS;
    const ts_status fronts = ts_lu_refactor(lu, a);
    ts_lu_stats stats;
    ts_lu_get_stats(lu, &stats);
    CHECK_MSG(fronts == column, "perturbation %d: status %d, columns %d", perturb, (int)fronts, (int)column);
    CHECK(stats.perturbed_pivots == column_stats.perturbed_pivots);
    CHECK(stats.singular_column == column_stats.singular_column);
    CHECK(perturb ? stats.perturbed_pivots == 1 : stats.singular_column >= 0);
    ts_lu_destroy(lu);
  }
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  options.num_threads = 1;
  CHECK_OK(NULL, ts_context_create(&ctx_one, &options));

  ts_csr *small[5] = {NULL};
  ts_circuit_params netlist = ts_circuit_defaults(300), grid = ts_circuit_defaults(300);
  grid.locality = 1;
  CHECK_OK(ctx, ts_gen_circuit(ctx, &netlist, 3, TS_FLOAT64, &small[0]));
  CHECK_OK(ctx, ts_gen_circuit(ctx, &grid, 4, TS_FLOAT64, &small[1]));
  CHECK_OK(ctx, ts_gen_laplacian_2d(ctx, 17, 13, TS_FLOAT64, &small[2]));
  small[3] = lu_test_random(ctx, 250, 4, 0, 11);
  small[4] = lu_test_random(ctx, 120, 12, 1, 12);
  const char *small_names[5] = {"netlist 300", "circuit grid 300", "Laplacian 17x13", "random 250", "random 120"};
  for (int k = 0; k < 5; k++)
    if (small[k])
      test_structure(small[k], small_names[k]);

  /* Numeric: the small ones, and larger ones whose fronts take the panels
   * (several panels: the 3-D Laplacian's top fronts). */
  ts_csr *large[3] = {NULL};
  ts_circuit_params big_grid = ts_circuit_defaults(6000);
  big_grid.locality = 1;
  CHECK_OK(ctx, ts_gen_circuit(ctx, &big_grid, 5, TS_FLOAT64, &large[0]));
  CHECK_OK(ctx, ts_gen_laplacian_3d(ctx, 14, 13, 12, TS_FLOAT64, &large[1]));
  large[2] = lu_test_random(ctx, 800, 6, 0, 13);
  const char *large_names[3] = {"circuit grid 6000", "Laplacian 14x13x12", "random 800"};
  for (int float_factors = 0; float_factors < 2; float_factors++) {
    for (int k = 0; k < 5; k++)
      if (small[k])
        test_numeric(ctx, small[k], float_factors, small_names[k]);
    for (int k = 0; k < 3; k++)
      if (large[k])
        test_numeric(ctx, large[k], float_factors, large_names[k]);
  }
  test_pivot_outcomes();
  if (small[2])
    test_complex_takes_columns(small[2]);
  for (int k = 0; k < 5; k++)
    ts_csr_destroy(small[k]);
  for (int k = 0; k < 3; k++)
    ts_csr_destroy(large[k]);
  ts_context_destroy(ctx_one);
  ts_context_destroy(ctx);
  return test_finish();
}
