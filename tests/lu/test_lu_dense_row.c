/* The host's column loops with L's dense row held in a register (an
 * arrowhead's, tsi_lu_dense_row): the row is found, the factors and
 * solutions are bitwise those of the loops without it (the row forced off),
 * through a factorization and a refactorization, and the solutions agree
 * with a dense LU with partial pivoting. One arrowhead, and two side by side
 * with a coupling entry (two blocks of the block triangular form where the
 * analysis keeps it). */
#include "test_lu_numeric_common.h"

#include "lu/numeric/numeric_internal.h" /* the dense row, and the switch that turns it off */

static ts_context *ctx;

/* Index i numbered backwards within its arrowhead (orders sizes[...]). */
static int32_t reversed_index(const int64_t *sizes, int32_t i) {
  int64_t start = 0;
  while (i >= start + sizes[0])
    start += *sizes++;
  return (int32_t)(2 * start + sizes[0] - 1 - i);
}

/* Arrowheads of orders sizes[0..count) on the diagonal, each with its dense
 * row and column first (as SuiteSparse's arrow.mtx), random values, the
 * diagonal large enough that no pivot is tiny; with couple set, one entry
 * links the first arrowhead's first row to the second's last column. With
 * reversed set, each arrowhead's rows and columns are numbered backwards
 * (the same matrix, symmetrically permuted): its dense row comes last, where
 * AMD orders it, so that the natural order holds it too. */
static ts_csr *arrowheads(const int64_t *sizes, int count, bool couple, bool reversed, unsigned long long seed) {
  int64_t n = 0, entries = 0;
  for (int s = 0; s < count; s++) {
    n += sizes[s];
    entries += 3 * sizes[s];
  }
  int32_t *rows = malloc((size_t)(entries + 1) * sizeof *rows), *cols = malloc((size_t)(entries + 1) * sizeof *cols);
  double *values = malloc((size_t)(entries + 1) * sizeof *values);
  unsigned long long state = seed;
  int64_t k = 0, start = 0;
  for (int s = 0; s < count; s++) {
    const int32_t head = (int32_t)start;
    rows[k] = cols[k] = head;
    values[k++] = 4.0 + (double)sizes[s];
    for (int64_t i = start + 1; i < start + sizes[s]; i++) {
      rows[k] = (int32_t)i;
      cols[k] = (int32_t)i;
      values[k++] = 3.0 + test_random(&state);
      rows[k] = head;
      cols[k] = (int32_t)i;
      values[k++] = test_random(&state);
      rows[k] = (int32_t)i;
      cols[k] = head;
      values[k++] = test_random(&state);
    }
    start += sizes[s];
  }
  if (couple && count > 1) {
    rows[k] = 0;
    cols[k] = (int32_t)(sizes[0] + sizes[1] - 1);
    values[k++] = 0.5;
  }
  for (int64_t e = 0; reversed && e < k; e++) {
    rows[e] = reversed_index(sizes, rows[e]);
    cols[e] = reversed_index(sizes, cols[e]);
  }
  ts_csr *a = lu_test_csr(ctx, n, k, rows, cols, values);
  free(rows);
  free(cols);
  free(values);
  return a;
}

/* Analyzed and factored, the dense row left on or forced off. */
static ts_lu *factored(const ts_csr *a, bool dense_row_off) {
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  if (!lu)
    return NULL;
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  if (dense_row_off) {
    tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
    CHECK(ws != NULL);
    if (ws) {
      ws->dense_row_known = 1;
      ws->dense_row = -1;
    }
  }
  CHECK_OK(ctx, ts_lu_factor(lu, a));
  return lu;
}

/* x = A^{-1} b (n rows) by the dense LU with partial pivoting, into a new
 * array; NULL when it fails. */
static double *dense_solution(const ts_csr *a, int64_t n, const double *b) {
  double *d = lu_test_dense(a, 0), *x = calloc((size_t)n, sizeof *x);
  if (d && x) {
    memcpy(x, b, (size_t)n * sizeof *x);
    if (lu_test_dense_solve(d, x, n) != 0) {
      free(x);
      x = NULL;
    }
  }
  free(d);
  return x;
}

/* The normwise backward error |b - A x| / (|A| |x| + |b|) of n rows (the
 * infinity norms), computed here. */
static double backward_error(const ts_csr *a, int64_t n, const double *x, const double *b) {
  const double *v = (const double *)a->values;
  double r = 0.0, a_norm = 0.0, x_norm = 0.0, b_norm = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double ax = 0.0, row = 0.0;
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      ax += v[e] * x[a->col_idx[e]];
      row += fabs(v[e]);
    }
    r = fmax(r, fabs(b[i] - ax));
    a_norm = fmax(a_norm, row);
    x_norm = fmax(x_norm, fabs(x[i]));
    b_norm = fmax(b_norm, fabs(b[i]));
  }
  return r / (a_norm * x_norm + b_norm);
}

/* Both objects' factors and solutions of a x = b (n rows): bitwise equal,
 * and within reach of the dense LU's solution `dense`. */
static void compare(const char *what, ts_lu *held, ts_lu *plain, const ts_csr *a, int64_t n, const double *b,
                    const double *dense) {
  double *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y); /* zero should a solve fail */
  CHECK_OK(ctx, ts_lu_solve(held, TS_OP_NONE, 1, b, n, x, n));
  CHECK_OK(ctx, ts_lu_solve(plain, TS_OP_NONE, 1, b, n, y, n));
  CHECK_MSG(held->lu_nnz == plain->lu_nnz &&
                memcmp(held->lu_values, plain->lu_values, (size_t)held->lu_nnz * sizeof(double)) == 0,
            "%s: factors differ with the dense row held", what);
  CHECK_MSG(memcmp(x, y, (size_t)n * sizeof *x) == 0, "%s: solutions differ with the dense row held", what);
  double gap = 0.0, size = 0.0;
  for (int64_t i = 0; i < n; i++) {
    gap = fmax(gap, fabs(x[i] - dense[i]));
    size = fmax(size, fabs(dense[i]));
  }
  CHECK_MSG(gap <= 1e-12 * size, "%s: |x - x_dense| %g against |x_dense| %g", what, gap, size);
  const double backward = backward_error(a, n, x, b);
  CHECK_MSG(backward <= 1e-14, "%s: backward error %g", what, backward);
  free(x);
  free(y);
}

static void check_arrowheads(const char *what, const int64_t *sizes, int count, bool couple) {
  /* Without AMD the dense rows are numbered last (AMD's place for them). */
  const bool reversed = lu_test_fill_ordering() == TS_LU_ORDER_NATURAL;
  ts_csr *a = arrowheads(sizes, count, couple, reversed, 7);
  CHECK(a != NULL);
  if (!a)
    return;
  const int64_t n = a->rows;
  double *b = calloc((size_t)n, sizeof *b);
  unsigned long long state = 11;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state);
  /* New values on the same pattern, for the refactorization's loops; the
   * dense references first. */
  ts_csr *moved = lu_test_perturbed_copy(ctx, a, 0.25, 13);
  double *dense = dense_solution(a, n, b), *dense_moved = moved ? dense_solution(moved, n, b) : NULL;
  CHECK(moved != NULL && dense != NULL && dense_moved != NULL);
  ts_lu *held = factored(a, false), *plain = factored(a, true);
  if (held && plain && moved && dense && dense_moved) {
    CHECK_MSG(tsi_lu_dense_row_known(held) >= 0, "%s: no dense row found (%lld blocks)", what,
              (long long)held->btf_blocks);
    CHECK(tsi_lu_dense_row_known(plain) == -1);
    compare(what, held, plain, a, n, b, dense);
    CHECK_OK(ctx, ts_lu_refactor(held, moved));
    CHECK_OK(ctx, ts_lu_refactor(plain, moved));
    compare(what, held, plain, moved, n, b, dense_moved);
    printf("%s: n %lld, %lld blocks, dense row %lld\n", what, (long long)n, (long long)held->btf_blocks,
           (long long)tsi_lu_dense_row_known(held));
  }
  free(b);
  free(dense);
  free(dense_moved);
  ts_lu_destroy(held);
  ts_lu_destroy(plain);
  ts_csr_destroy(moved);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  check_arrowheads("one arrowhead", (const int64_t[]){600}, 1, false);
  check_arrowheads("two arrowheads, coupled", (const int64_t[]){300, 200}, 2, true);
  ts_context_destroy(ctx);
  return test_finish();
}
