/* GPU triangular solves with refinement: A x = b and A^T x = b for one and
 * several right-hand sides (ldb, ldx > n), double and float factors, on
 * circuit matrices and a 2-D Laplacian: normwise backward error (computed
 * here, in double) at most 1e-14 after refinement, the solution close to
 * the dense reference on a small system, and bitwise the same run to run. */
#include "test_gpu_lu_common.h"

static void check_solves(const char *name, const ts_csr *a, int float_factors) {
  const int64_t n = a->rows, nrhs = 3, ld = n + 5;
  ts_lu *lu = gpu_lu_create(TS_BACKEND_CUDA, float_factors, 0);
  CHECK_OK(gpu, ts_lu_analyze(lu, a));
  ts_status st = ts_lu_factor(lu, a);
  CHECK_MSG(!TS_IS_ERROR(st), "%s: %s", name, ts_last_error(gpu));
  CHECK(lu->factors_on_device);
  double *b = calloc((size_t)(ld * nrhs), sizeof *b), *x = calloc((size_t)(ld * nrhs), sizeof *x);
  double *x2 = calloc((size_t)(ld * nrhs), sizeof *x2);
  unsigned long long state = 99;
  for (int64_t i = 0; i < ld * nrhs; i++)
    b[i] = test_random(&state);
  for (int op = 0; op < 2; op++) {
    ts_operation operation = op ? TS_OP_TRANSPOSE : TS_OP_NONE;
    CHECK_OK(gpu, ts_lu_solve(lu, operation, nrhs, b, ld, x, ld));
    ts_lu_stats stats;
    ts_lu_get_stats(lu, &stats);
    double worst = 0.0;
    for (int64_t c = 0; c < nrhs; c++)
      worst = fmax(worst, lu_test_backward_error(a, op, x + c * ld, b + c * ld));
    CHECK_MSG(worst <= 1e-14, "%s %s %s: backward error %.3g", name, float_factors ? "float" : "double",
              op ? "A^T" : "A", worst);
    CHECK_MSG(stats.backward_error <= 1e-14 && fabs(stats.backward_error - worst) <= 1e-14 + 0.5 * worst,
              "%s: reported backward error %.3g, measured %.3g", name, stats.backward_error, worst);
    CHECK(stats.time_solve > 0.0 && stats.peak_device_bytes > 0);
    CHECK_OK(gpu, ts_lu_solve(lu, operation, nrhs, b, ld, x2, ld));
    int same = 1;
    for (int64_t c = 0; c < nrhs; c++)
      same &= memcmp(x + c * ld, x2 + c * ld, (size_t)n * sizeof *x) == 0;
    CHECK_MSG(same, "%s: two GPU solves differ", name);
    printf("%-22s %-6s %-3s n %7lld  refinement steps %d  backward error %.2g\n", name,
           float_factors ? "float" : "double", op ? "A^T" : "A", (long long)n, stats.refinement_steps, worst);
  }
  free(b);
  free(x);
  free(x2);
  ts_lu_destroy(lu);
}

/* A small random system against the dense solve with partial pivoting. */
static void test_dense_reference(void) {
  const int64_t n = 120;
  ts_csr *a = lu_test_random(gpu, n, 4, 0, 7);
  double *d = lu_test_dense(a, 0), *b = malloc((size_t)n * sizeof *b), *x = calloc((size_t)n, sizeof *x);
  unsigned long long state = 3;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state);
  double *reference = malloc((size_t)n * sizeof *reference);
  memcpy(reference, b, (size_t)n * sizeof *b);
  CHECK(lu_test_dense_solve(d, reference, n) == 0);
  ts_lu *lu = gpu_lu_create(TS_BACKEND_CUDA, 0, 0);
  CHECK_OK(gpu, ts_lu_analyze(lu, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a)));
  CHECK_OK(gpu, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  double cond = lu_test_condition(a), diff = 0.0, size = 0.0;
  for (int64_t i = 0; i < n; i++) {
    diff = fmax(diff, fabs(x[i] - reference[i]));
    size = fmax(size, fabs(reference[i]));
  }
  CHECK_MSG(diff <= 1e-13 * cond * size, "dense reference: difference %.3g, condition %.3g", diff, cond);
  free(d);
  free(b);
  free(x);
  free(reference);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

int main(void) {
  int skip = gpu_lu_setup();
  if (skip)
    return skip;
  test_dense_reference();
  ts_csr *grid = gpu_lu_circuit(small_sizes ? 1500 : 30000, 1.0, 5);
  ts_csr *netlist = gpu_lu_circuit(small_sizes ? 1500 : 50000, 0.0, 6);
  ts_csr *laplacian = NULL;
  CHECK_OK(gpu, ts_gen_laplacian_2d(gpu, small_sizes ? 30 : 150, small_sizes ? 30 : 150, TS_FLOAT64, &laplacian));
  for (int float_factors = 0; float_factors < 2; float_factors++) {
    if (grid)
      check_solves("circuit grid", grid, float_factors);
    if (netlist)
      check_solves("circuit netlist", netlist, float_factors);
    if (laplacian)
      check_solves("laplacian 2d", laplacian, float_factors);
  }
  ts_csr_destroy(grid);
  ts_csr_destroy(netlist);
  ts_csr_destroy(laplacian);
  ts_context_destroy(gpu);
  return test_finish();
}
