/* LU factor and solve: hand-checked systems, random sparse matrices against a
 * dense LU with partial pivoting, transpose solves, several right-hand
 * sides, float factors with refinement in double, the flop count, argument
 * checks, and factors bitwise equal whatever the thread count. */
#include "test_lu_numeric_common.h"

#include "lu/lu_internal.h" /* the factor values, for the bitwise comparison */

/* Analyze and factor a; returns the LU object or NULL (checks recorded). */
/* Analyzed and factored on `threads` host threads (> 0: the switch that
 * bypasses the size rule, so that small matrices reach the threaded
 * schedules; 0: the library's choice). */
static ts_lu *factor_on(ts_context *ctx, const ts_csr *a, const ts_lu_options *options, int threads) {
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, options, &lu));
  if (!lu)
    return NULL;
  lu->switches.cpu_threads = threads;
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  ts_status status = ts_lu_factor(lu, a);
  CHECK_MSG(status == TS_SUCCESS || status == TS_WARNING_PERTURBED_PIVOTS, "%s: %s", ts_status_string(status),
            ts_last_error(ctx));
  return lu;
}

static ts_lu *factor(ts_context *ctx, const ts_csr *a, const ts_lu_options *options) {
  return factor_on(ctx, a, options, 0);
}

/* 3x3 unsymmetric system with x = (1, -1, 2): A x = (1, -1, 9), A^T x = (4, -2,
 * 7). */
static void test_hand_checked(ts_context *ctx) {
  const int32_t rows[] = {0, 0, 1, 1, 2, 2};
  const int32_t cols[] = {0, 1, 1, 2, 0, 2};
  const double values[] = {2, 1, 3, 1, 1, 4};
  ts_csr *a = lu_test_csr(ctx, 3, 6, rows, cols, values);
  CHECK(a != NULL);
  const double expect[3] = {1, -1, 2};
  for (int ordering = 0; ordering < 3; ordering++) {
    if (lu_test_skip_without((ts_lu_ordering)ordering, "hand-checked 3 x 3"))
      continue;
    for (int matching = 0; matching < 2; matching++) {
      ts_lu_options options = lu_test_options();
      options.ordering = (ts_lu_ordering)ordering;
      options.no_matching = !matching;
      ts_lu *lu = factor(ctx, a, &options);
      double b[3] = {1, -1, 9}, bt[3] = {4, -2, 7}, x[3] = {0}, xt[3] = {0};
      CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 3, x, 3));
      CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_TRANSPOSE, 1, bt, 3, xt, 3));
      for (int i = 0; i < 3; i++) {
        CHECK_MSG(fabs(x[i] - expect[i]) <= 1e-15 * 4, "ordering %d matching %d x[%d] = %.17g", ordering, matching, i,
                  x[i]);
        CHECK_MSG(fabs(xt[i] - expect[i]) <= 1e-15 * 4, "ordering %d matching %d xt[%d] = %.17g", ordering, matching, i,
                  xt[i]);
      }
      ts_lu_stats stats;
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      CHECK(stats.backward_error <= 1e-15 && stats.perturbed_pivots == 0 && stats.singular_column == -1);
      CHECK(stats.time_factor >= 0.0 && stats.time_solve >= 0.0);
      ts_lu_destroy(lu);
    }
  }
  ts_csr_destroy(a);
}

/* A full 4x4 pattern: the left-looking count is sum over m < 4 of
 * (m divisions + 2 m^2 multiply-adds) = 6 + 28 = 34 flops. */
static void test_flop_count(ts_context *ctx) {
  int32_t rows[16], cols[16];
  double values[16];
  for (int k = 0; k < 16; k++) {
    rows[k] = k / 4;
    cols[k] = k % 4;
    values[k] = rows[k] == cols[k] ? 10.0 : 1.0 + 0.1 * k;
  }
  ts_csr *a = lu_test_csr(ctx, 4, 16, rows, cols, values);
  ts_lu_options options = lu_test_options();
  options.ordering = TS_LU_ORDER_NATURAL;
  ts_lu *lu = factor(ctx, a, &options);
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK_MSG(stats.flops == 34.0, "flops %g", stats.flops);
  CHECK(stats.nnz_l == 10 && stats.nnz_u == 10);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* Solve op(A) x = b with tessera and with the dense reference; the
 * difference must be within what the condition number allows for the
 * backward error reached. */
static void check_against_dense(ts_context *ctx, const ts_csr *a, const ts_lu_options *options, const char *what) {
  int64_t n = a->rows;
  ts_lu *lu = factor(ctx, a, options);
  double condition = lu_test_condition(a);
  double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
  double *reference = malloc((size_t)n * sizeof *reference);
  unsigned long long state = 99;
  for (int transpose = 0; transpose < 2; transpose++) {
    for (int64_t i = 0; i < n; i++)
      b[i] = test_random(&state);
    double *dense = lu_test_dense(a, transpose);
    memcpy(reference, b, (size_t)n * sizeof *b);
    CHECK(lu_test_dense_solve(dense, reference, n) == 0);
    free(dense);
    CHECK_OK(ctx, ts_lu_solve(lu, transpose ? TS_OP_TRANSPOSE : TS_OP_NONE, 1, b, n, x, n));
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    double berr = lu_test_backward_error(a, transpose, x, b);
    CHECK_MSG(berr <= 1e-14, "%s%s: backward error %.3g", what, transpose ? " (transpose)" : "", berr);
    /* The library's own figure agrees with the one computed here. */
    CHECK_MSG(fabs(stats.backward_error - berr) <= 1e-16 + 0.01 * berr, "%s: library berr %.3g, test %.3g", what,
              stats.backward_error, berr);
    double diff = 0.0, scale = 0.0;
    for (int64_t i = 0; i < n; i++) {
      diff = fmax(diff, fabs(x[i] - reference[i]));
      scale = fmax(scale, fabs(reference[i]));
    }
    double allowed = 10.0 * condition * 1e-15 * (double)n;
    CHECK_MSG(diff <= allowed * scale, "%s%s: |x - x_dense| = %.3g, allowed %.3g (cond %.3g)", what,
              transpose ? " (transpose)" : "", diff / scale, allowed, condition);
  }
  free(b);
  free(x);
  free(reference);
  ts_lu_destroy(lu);
}

static void test_random_matrices(ts_context *ctx) {
  const struct {
    int64_t n;
    int per_row;
    int dominant;
  } cases[] = {{1, 0, 1}, {2, 1, 1}, {50, 3, 1}, {300, 5, 1}, {40, 3, 0}, {200, 4, 0}, {400, 6, 0}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    ts_csr *a = lu_test_random(ctx, cases[c].n, cases[c].per_row, cases[c].dominant, 1000 + c);
    CHECK(a != NULL);
    if (!a)
      continue;
    for (int ordering = 0; ordering < 3; ordering++) {
      if (lu_test_skip_without((ts_lu_ordering)ordering, "random matrices against a dense LU"))
        continue;
      ts_lu_options options = lu_test_options();
      options.ordering = (ts_lu_ordering)ordering;
      char what[96];
      snprintf(what, sizeof what, "n %lld %s ordering %d", (long long)cases[c].n,
               cases[c].dominant ? "dominant" : "unsymmetric", ordering);
      check_against_dense(ctx, a, &options, what);
    }
    ts_csr_destroy(a);
  }
}

/* Several right-hand sides with padded leading dimensions: each column
 * solved as if alone (bitwise), padding untouched. */
static void test_several_rhs(ts_context *ctx) {
  const int64_t n = 120, nrhs = 5, ldb = n + 3, ldx = n + 1;
  ts_csr *a = lu_test_random(ctx, n, 4, 0, 7);
  ts_lu_options options = lu_test_options();
  ts_lu *lu = factor(ctx, a, &options);
  double *b = malloc((size_t)(ldb * nrhs) * sizeof *b), *x = malloc((size_t)(ldx * nrhs) * sizeof *x);
  double *single = malloc((size_t)n * sizeof *single);
  unsigned long long state = 5;
  for (int64_t k = 0; k < ldb * nrhs; k++)
    b[k] = test_random(&state);
  for (int64_t k = 0; k < ldx * nrhs; k++)
    x[k] = -777.0;
  for (int transpose = 0; transpose < 2; transpose++) {
    ts_operation op = transpose ? TS_OP_TRANSPOSE : TS_OP_NONE;
    CHECK_OK(ctx, ts_lu_solve(lu, op, nrhs, b, ldb, x, ldx));
    ts_lu_stats all;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &all));
    double worst = 0.0;
    for (int64_t j = 0; j < nrhs; j++) {
      double berr = lu_test_backward_error(a, transpose, x + j * ldx, b + j * ldb);
      worst = fmax(worst, berr);
      CHECK_MSG(berr <= 1e-14, "rhs %lld: backward error %.3g", (long long)j, berr);
      CHECK(x[j * ldx + n] == -777.0); /* the padding row stays */
      CHECK_OK(ctx, ts_lu_solve(lu, op, 1, b + j * ldb, n, single, n));
      CHECK_MSG(memcmp(single, x + j * ldx, (size_t)n * sizeof *single) == 0, "rhs %lld differs alone", (long long)j);
    }
    CHECK_MSG(fabs(all.backward_error - worst) <= 0.01 * worst + 1e-16, "max berr %.3g vs %.3g", all.backward_error,
              worst);
  }
  free(b);
  free(x);
  free(single);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* Float factors: one solve alone is only float-accurate; refinement with
 * the double residual brings the backward error to double level. */
static void test_float_factors(ts_context *ctx) {
  const int64_t n = 500;
  ts_csr *a = lu_test_random(ctx, n, 6, 1, 11);
  double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
  unsigned long long state = 3;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state);
  for (int refine = 0; refine < 2; refine++) {
    ts_lu_options options = lu_test_options();
    options.float_factors = 1;
    options.refine_max_steps = refine ? 0 : -1;
    ts_lu *lu = factor(ctx, a, &options);
    CHECK(lu && lu->lu_values_f32 != NULL && lu->lu_values == NULL);
    for (int transpose = 0; transpose < 2; transpose++) {
      CHECK_OK(ctx, ts_lu_solve(lu, transpose ? TS_OP_TRANSPOSE : TS_OP_NONE, 1, b, n, x, n));
      ts_lu_stats stats;
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      double berr = lu_test_backward_error(a, transpose, x, b);
      if (refine) {
        CHECK_MSG(berr <= 1e-12, "float factors, refined: backward error %.3g", berr);
        CHECK(stats.refinement_steps >= 1);
      } else {
        CHECK_MSG(berr > 1e-12 && berr < 1e-5, "float factors, no refinement: backward error %.3g", berr);
        CHECK(stats.refinement_steps == 0);
      }
    }
    ts_lu_destroy(lu);
  }
  free(b);
  free(x);
  ts_csr_destroy(a);
}

/* The 5-point Laplacian of a side x side grid, its vertices numbered strip
 * by strip: every eighth grid column is a separator, numbered last, so the
 * strips between them are independent even in the natural order (a one-
 * level dissection: wide levels without a fill-reducing ordering). The
 * upper triangle is scaled so the two triangles differ. */
static ts_csr *dissected_laplacian(ts_context *ctx, int side) {
  const int n = side * side, count = 5 * n;
  int32_t *number = malloc((size_t)n * sizeof *number), *rows = malloc((size_t)count * sizeof *rows);
  int32_t *cols = malloc((size_t)count * sizeof *cols);
  double *values = malloc((size_t)count * sizeof *values);
  ts_csr *a = NULL;
  if (!number || !rows || !cols || !values)
    goto cleanup;
  int next = 0;
  for (int separators = 0; separators < 2; separators++)
    for (int c = 0; c < side; c++)
      if ((c % 8 == 7) == separators)
        for (int r = 0; r < side; r++)
          number[r * side + c] = next++;
  int at = 0;
  for (int r = 0; r < side; r++)
    for (int c = 0; c < side; c++) {
      const int v = number[r * side + c];
      const int neighbours[4][2] = {{r - 1, c}, {r + 1, c}, {r, c - 1}, {r, c + 1}};
      rows[at] = cols[at] = v;
      values[at++] = 4.0;
      for (int k = 0; k < 4; k++) {
        int rr = neighbours[k][0], cc = neighbours[k][1];
        if (rr < 0 || rr >= side || cc < 0 || cc >= side)
          continue;
        int w = number[rr * side + cc];
        rows[at] = v;
        cols[at] = w;
        values[at++] = w > v ? -0.5 - 0.001 * (double)(v % 7) : -1.0;
      }
    }
  a = lu_test_csr(ctx, n, at, rows, cols, values);
cleanup:
  free(number);
  free(rows);
  free(cols);
  free(values);
  return a;
}

/* The host's three schedules: one thread without a parallel region, the
 * dataflow on four threads (more than this machine may have free cores:
 * threads sleep on column marks), and level by level (cpu_level_sync):
 * bitwise equal factors on a dissected grid and a circuit grid; with
 * perturbation off and a high pivot threshold, the same status and
 * singular column. */
enum { SCHEDULE_SERIAL, SCHEDULE_FLOW, SCHEDULE_LEVELS, SCHEDULES };
static const char *const schedule_names[SCHEDULES] = {"one thread", "dataflow", "level by level"};

static void set_schedule(ts_lu *lu, int schedule) {
  lu->switches.cpu_threads = schedule == SCHEDULE_SERIAL ? 1 : 4;
  lu->switches.cpu_level_sync = schedule == SCHEDULE_LEVELS;
}

static void test_schedules_agree(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  copts.num_threads = 4;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  ts_circuit_params params = ts_circuit_defaults(20000);
  params.locality = 1.0;
  ts_csr *grid = NULL;
  CHECK_OK(ctx, lu_test_gen_circuit(ctx, &params, 3, TS_FLOAT64, &grid));
  ts_csr *matrices[2] = {dissected_laplacian(ctx, 60), grid};
  for (int m = 0; m < 2; m++) {
    if (!matrices[m])
      continue;
    ts_lu_options options = lu_test_options();
    ts_lu *lu = factor_on(ctx, matrices[m], &options, 1);
    if (!lu || !lu->lu_values) {
      ts_lu_destroy(lu);
      continue;
    }
    double *serial = malloc((size_t)lu->lu_nnz * sizeof(double));
    memcpy(serial, lu->lu_values, (size_t)lu->lu_nnz * sizeof(double));
    for (int schedule = SCHEDULE_FLOW; schedule < SCHEDULES; schedule++) {
      set_schedule(lu, schedule);
      ts_status st = ts_lu_refactor(lu, matrices[m]);
      CHECK(st == TS_SUCCESS || st == TS_WARNING_PERTURBED_PIVOTS);
      CHECK_MSG(memcmp(serial, lu->lu_values, (size_t)lu->lu_nnz * sizeof(double)) == 0,
                "matrix %d: the %s factors differ from one thread's", m, schedule_names[schedule]);
    }
    printf("schedules agree bitwise: n %lld, %lld levels\n", (long long)lu->n, (long long)lu->stats.levels);
    free(serial);
    ts_lu_destroy(lu);
  }
  /* Perturbation off and a pivot threshold so high that pivots on many
   * levels fail, several of them at once in the dataflow: the first in
   * (level, column) order is reported by every schedule. */
  for (int m = 0; m < 2; m++) {
    if (!matrices[m])
      continue;
    int64_t column[SCHEDULES];
    ts_status status[SCHEDULES];
    for (int schedule = 0; schedule < SCHEDULES; schedule++) {
      column[schedule] = -2 - schedule;
      status[schedule] = TS_SUCCESS;
      ts_lu_options options = lu_test_options();
      options.no_perturbation = 1;
      options.pivot_threshold = 1.0;
      ts_lu *lu = NULL;
      CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
      if (!lu)
        continue;
      set_schedule(lu, schedule);
      CHECK_OK(ctx, ts_lu_analyze(lu, matrices[m]));
      status[schedule] = ts_lu_factor(lu, matrices[m]);
      ts_lu_stats stats;
      ts_lu_get_stats(lu, &stats);
      column[schedule] = stats.singular_column;
      ts_lu_destroy(lu);
    }
    for (int schedule = SCHEDULE_FLOW; schedule < SCHEDULES; schedule++)
      CHECK_MSG(status[0] == TS_ERROR_NUMERICALLY_SINGULAR && status[schedule] == status[0] &&
                    column[schedule] == column[0] && column[0] >= 0,
                "matrix %d, pivot threshold 1: one thread %s column %lld, %s %s column %lld", m,
                ts_status_string(status[0]), (long long)column[0], schedule_names[schedule],
                ts_status_string(status[schedule]), (long long)column[schedule]);
    printf("pivot threshold 1: every schedule stops at column %lld\n", (long long)column[0]);
  }
  ts_csr_destroy(matrices[0]);
  ts_csr_destroy(matrices[1]);
  ts_context_destroy(ctx);
}

/* The same matrix factored with 1 and 2 threads: bitwise equal factors and
 * solutions. The dissected grid gives wide levels (with AMD or without), so
 * the threads do share them. */
static void test_thread_determinism(void) {
  double *x[2] = {NULL, NULL}, *values[2] = {NULL, NULL};
  int64_t lu_nnz[2] = {-1, -2}, levels = 0, widest = 0;
  ts_csr *a = dissected_laplacian(NULL, 60);
  CHECK(a != NULL);
  if (!a)
    return;
  int64_t n = a->rows;
  double *b = malloc((size_t)n * sizeof *b);
  for (int64_t i = 0; i < n; i++)
    b[i] = 1.0 + (double)(i % 13);
  for (int t = 0; t < 2; t++) {
    ts_context_options copts = {0};
    copts.backend = TS_BACKEND_CPU;
    copts.num_threads = t + 1;
    ts_context *ctx = NULL;
    CHECK_OK(NULL, ts_context_create(&ctx, &copts));
    ts_lu_options options = lu_test_options();
    ts_lu *lu = factor_on(ctx, a, &options, t + 1);
    if (lu && lu->lu_values) {
      lu_nnz[t] = lu->lu_nnz;
      values[t] = malloc((size_t)lu->lu_nnz * sizeof(double));
      memcpy(values[t], lu->lu_values, (size_t)lu->lu_nnz * sizeof(double));
      levels = lu->stats.levels;
      widest = lu->stats.max_level_size;
    }
    x[t] = malloc((size_t)n * sizeof(double));
    CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x[t], n));
    ts_lu_destroy(lu);
    ts_context_destroy(ctx);
  }
  CHECK_MSG(widest >= 8 && levels < n, "levels %lld, widest %lld: no parallel levels to test", (long long)levels,
            (long long)widest);
  CHECK(lu_nnz[0] == lu_nnz[1]);
  CHECK(values[0] && values[1] && memcmp(values[0], values[1], (size_t)lu_nnz[0] * sizeof(double)) == 0);
  CHECK(memcmp(x[0], x[1], (size_t)n * sizeof(double)) == 0);
  free(values[0]);
  free(values[1]);
  free(x[0]);
  free(x[1]);
  free(b);
  ts_csr_destroy(a);
}

static void test_arguments(ts_context *ctx) {
  const int32_t rows[] = {0, 1, 1};
  const int32_t cols[] = {0, 0, 1};
  const double values[] = {2, 1, 3};
  ts_csr *a = lu_test_csr(ctx, 2, 3, rows, cols, values);
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  double b[4] = {2, 4, 0, 0}, x[4] = {0};
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 2, x, 2), TS_ERROR_NOT_FACTORED);
  CHECK_STATUS(ctx, ts_lu_factor(lu, a), TS_ERROR_NOT_ANALYZED);
  CHECK_STATUS(ctx, ts_lu_refactor(lu, a), TS_ERROR_NOT_ANALYZED);
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 2, x, 2), TS_ERROR_NOT_FACTORED);
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  CHECK_STATUS(NULL, ts_lu_solve(NULL, TS_OP_NONE, 1, b, 2, x, 2), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_lu_factor(NULL, a), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_factor(lu, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, NULL, 2, x, 2), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 2, NULL, 2), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, -1, b, 2, x, 2), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 1, x, 2), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "ldb 1") != NULL);
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 2, x, 1), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_solve(lu, (ts_operation)5, 1, b, 2, x, 2), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 2, b, 2, b + 2, 2), TS_ERROR_INVALID_ARGUMENT); /* overlap */
  CHECK(strstr(ts_last_error(ctx), "overlap") != NULL);
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 0, NULL, 2, NULL, 2)); /* nothing to do */
  /* x = (1, 1): b = (2, 4); the solution is exact in binary. */
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 2, x, 2));
  CHECK(x[0] == 1.0 && x[1] == 1.0);
  /* A value that is not finite is refused, naming the entry. */
  ((double *)a->values)[2] = NAN;
  CHECK_STATUS(ctx, ts_lu_refactor(lu, a), TS_ERROR_INVALID_MATRIX);
  CHECK(strstr(ts_last_error(ctx), "entry 2 (row 1, column 1, all from 0)") != NULL);
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, 2, x, 2), TS_ERROR_NOT_FACTORED);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_hand_checked(ctx);
  test_flop_count(ctx);
  test_random_matrices(ctx);
  test_several_rhs(ctx);
  test_float_factors(ctx);
  test_thread_determinism();
  test_schedules_agree();
  test_arguments(ctx);
  ts_context_destroy(ctx);
  return test_finish();
}
