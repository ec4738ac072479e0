/* The singularity policy on the GPU path (factor and refactor on the device,
 * the partial-pivoting fallback on the host): the generated rank-deficient
 * matrices (tests' test_lu_rank_deficient.h) give the singular status with
 * a column in range, double and float factors, by factor and by refactor;
 * a refactorization with every value zero too; a nonsingular matrix whose
 * static pivot cancels succeeds with the perturbed-pivot warning and solves
 * accurately; each verdict is the host path's. Exits 77 without a usable GPU. */
#include "test_gpu_lu_common.h"
#include "test_lu_rank_deficient.h"

/* Factor (refactor after `first` when it differs) on the backend; the status and the column. */
static ts_status verdict(ts_backend backend, int float_factors, const ts_csr *first, const ts_csr *a, int64_t *column) {
  ts_lu *lu = gpu_lu_create(backend, float_factors, 0);
  ts_status st = ts_lu_analyze(lu, first);
  CHECK_MSG(st == TS_SUCCESS, "analysis: %s", ts_last_error(gpu));
  if (st == TS_SUCCESS && first != a)
    CHECK(!TS_IS_ERROR(ts_lu_factor(lu, first)));
  if (st == TS_SUCCESS)
    st = first == a ? ts_lu_factor(lu, a) : ts_lu_refactor(lu, a);
  ts_lu_stats stats;
  CHECK_OK(gpu, ts_lu_get_stats(lu, &stats));
  *column = stats.singular_column;
  if (st == TS_ERROR_NUMERICALLY_SINGULAR) {
    double *b = calloc((size_t)a->rows, sizeof *b), *x = calloc((size_t)a->rows, sizeof *x);
    CHECK_STATUS(gpu, ts_lu_solve(lu, TS_OP_NONE, 1, b, a->rows, x, a->rows), TS_ERROR_NOT_FACTORED);
    free(b);
    free(x);
  }
  ts_lu_destroy(lu);
  return st;
}

static void expect_singular(const char *what, const ts_csr *first, const ts_csr *a, int float_factors) {
  int64_t column = -1, host_column = -1;
  ts_status st = verdict(TS_BACKEND_CUDA, float_factors, first, a, &column);
  ts_status host = verdict(TS_BACKEND_CPU, float_factors, first, a, &host_column);
  CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "%s (%s factors): %s on the GPU, want the singular status", what,
            float_factors ? "float" : "double", ts_status_string(st));
  CHECK_MSG(column >= 0 && column < a->rows, "%s: singular column %lld", what, (long long)column);
  CHECK_MSG(host == st, "%s: the host says %s", what, ts_status_string(host));
}

static void test_rank_deficient(void) {
  const int64_t n = small_sizes ? 120 : 400;
  for (int scaled = 0; scaled < 2; scaled++) {
    ts_csr *cases[3] = {lu_test_duplicated_row(gpu, n, -2.5, scaled, 5), lu_test_zero_schur(gpu, n - 6, 6, scaled, 5),
                        lu_test_row_sum(gpu, n, scaled, 5)};
    const char *names[3] = {"duplicated row", "zero Schur complement", "row sum"};
    for (int c = 0; c < 3; c++) {
      CHECK(cases[c] != NULL);
      if (!cases[c])
        continue;
      char what[96];
      snprintf(what, sizeof what, "%s%s", names[c], scaled ? ", scaled" : "");
      for (int f = 0; f < 2; f++)
        expect_singular(what, cases[c], cases[c], f);
    }
    /* A refactorization into the duplicated row from values that are not. */
    ts_csr *start = NULL;
    CHECK_OK(gpu, ts_csr_copy(gpu, cases[0], &start));
    unsigned long long state = 3;
    for (int64_t e = 0; start && e < start->nnz; e++)
      ((double *)start->values)[e] *= 1.0 + 0.5 * test_random(&state);
    if (start)
      expect_singular("refactor into a duplicated row", start, cases[0], 0);
    ts_csr_destroy(start);
    for (int c = 0; c < 3; c++)
      ts_csr_destroy(cases[c]);
  }
  ts_csr *a = gpu_lu_circuit(small_sizes ? 500 : 2000, 1.0, 4), *zero = NULL;
  CHECK_OK(gpu, ts_csr_copy(gpu, a, &zero));
  if (zero) {
    memset(zero->values, 0, (size_t)zero->nnz * sizeof(double));
    expect_singular("refactor with every value zero", a, zero, 0);
  }
  ts_csr_destroy(a);
  ts_csr_destroy(zero);
}

/* The 3 x 3 whose second static pivot cancels, nonsingular: the warning and an accurate solve. */
static void test_perturbed_nonsingular(void) {
  const int32_t rows[] = {0, 0, 1, 1, 1, 2, 2}, cols[] = {0, 1, 0, 1, 2, 1, 2};
  ts_csr *a = lu_test_csr(gpu, 3, 7, rows, cols, (const double[]){1, 1, 1, 1, 1, 1, 1});
  for (int f = 0; f < 2; f++) {
    ts_lu_options options = lu_test_options();
    options.backend = TS_BACKEND_CUDA;
    options.ordering = TS_LU_ORDER_NATURAL;
    options.no_matching = 1;
    options.float_factors = f;
    ts_lu *lu = NULL;
    CHECK_OK(gpu, ts_lu_create(gpu, &options, &lu));
    CHECK_OK(gpu, ts_lu_analyze(lu, a));
    CHECK_STATUS(gpu, ts_lu_factor(lu, a), TS_WARNING_PERTURBED_PIVOTS);
    double x_true[3] = {1, -2, 3}, b[3], x[3];
    lu_test_multiply(a, 0, x_true, b);
    CHECK_OK(gpu, ts_lu_solve(lu, TS_OP_NONE, 1, b, 3, x, 3));
    double berr = lu_test_backward_error(a, 0, x, b);
    CHECK_MSG(berr <= 1e-14, "3 x 3 on the GPU, float %d: backward error %.3g", f, berr);
    ts_lu_destroy(lu);
  }
  ts_csr_destroy(a);
}

int main(void) {
  int skip = gpu_lu_setup();
  if (skip)
    return skip;
  test_rank_deficient();
  test_perturbed_nonsingular();
  ts_context_destroy(gpu);
  return test_finish();
}
