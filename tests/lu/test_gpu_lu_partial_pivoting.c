/* Partial pivoting asked for on a CUDA context (ts_lu_options.pivoting =
 * TS_LU_PIVOTING_PARTIAL): the analysis (on the host, the whole matrix's
 * factors: no blocks factored alone there) gives the GPU and the host the
 * same pivots and pattern; the GPU's factors agree with the host's, no
 * pivot is perturbed, the solves are accurate, and a refactorization with
 * new values keeps the pivots and stays accurate. */
#include "test_gpu_lu_common.h"

static double solve_berr(ts_lu *lu, const ts_csr *a) {
  const int64_t n = a->rows;
  double *b = malloc((size_t)n * sizeof *b), *x = calloc((size_t)n, sizeof *x);
  unsigned long long state = 23;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state);
  CHECK_OK(gpu, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  const double berr = lu_test_backward_error(a, 0, x, b);
  free(b);
  free(x);
  return berr;
}

static ts_lu *partial_lu(ts_backend backend) {
  ts_lu_options options = lu_test_options();
  options.backend = backend;
  options.pivoting = TS_LU_PIVOTING_PARTIAL;
  ts_lu *lu = NULL;
  CHECK_OK(gpu, ts_lu_create(gpu, &options, &lu));
  if (lu)
    lu->switches.numeric_method = TSI_LU_METHOD_COLUMNS;
  return lu;
}

static void test_matrix(const char *name, const ts_csr *a) {
  ts_lu *device = partial_lu(TS_BACKEND_CUDA), *host = partial_lu(TS_BACKEND_CPU);
  CHECK_OK(gpu, ts_lu_analyze(device, a));
  CHECK_OK(gpu, ts_lu_analyze(host, a));
  const int64_t n = a->rows;
  CHECK_MSG(device->lu_nnz == host->lu_nnz &&
                memcmp(device->row_perm, host->row_perm, (size_t)n * sizeof(int32_t)) == 0,
            "%s: the two analyses differ", name);
  CHECK_OK(gpu, ts_lu_factor(device, a));
  CHECK_OK(gpu, ts_lu_factor(host, a));
  ts_lu_stats stats;
  CHECK_OK(gpu, ts_lu_get_stats(device, &stats));
  CHECK_MSG(stats.pivoting == TS_LU_PIVOTING_PARTIAL && stats.perturbed_pivots == 0 &&
                stats.factor_backend == TS_BACKEND_CUDA && stats.max_multiplier <= 1.001e3,
            "%s: pivoting %d, %lld perturbed, backend %d, max |L| %.3g", name, (int)stats.pivoting,
            (long long)stats.perturbed_pivots, (int)stats.factor_backend, stats.max_multiplier);
  /* Partial pivoting's multipliers reach 1000 (the tolerance 10^-3), where
   * the matching's scaled static pivots keep them near 1: the GPU's other
   * order of updates rounds apart by more than the static tests' 1e-12
   * allow (the growth max|U| / max|M| reaches 10^6 on these random
   * matrices, as with KLU's tolerance); each side's accuracy is checked by
   * its solve, which needs at most a step of refinement. */
  double *vd = gpu_lu_factor_values(device), *vh = gpu_lu_factor_values(host);
  int bitwise = 0;
  const double diff = gpu_lu_factor_difference(host, vd, vh, &bitwise);
  CHECK_MSG(diff <= 1e-8, "%s: the GPU's factors differ from the host's by %.3g", name, diff);
  const double berr = solve_berr(device, a);
  CHECK_OK(gpu, ts_lu_get_stats(device, &stats));
  CHECK_MSG(berr <= 1e-14 && stats.refinement_steps <= 1, "%s: backward error %.3g after %d refinement steps", name,
            berr, stats.refinement_steps);
  ts_csr *changed = lu_test_perturbed_copy(gpu, a, 0.05, 77);
  CHECK(!TS_IS_ERROR(ts_lu_refactor(device, changed)));
  const double berr2 = solve_berr(device, changed);
  CHECK_MSG(berr2 <= 1e-14, "%s: refactored, backward error %.3g", name, berr2);
  printf("%-12s n %lld: GPU against host %.2g (%s), backward errors %.2g %.2g\n", name, (long long)n, diff,
         bitwise ? "bitwise" : "not bitwise", berr, berr2);
  free(vd);
  free(vh);
  ts_csr_destroy(changed);
  ts_lu_destroy(device);
  ts_lu_destroy(host);
}

int main(void) {
  int skip = gpu_lu_setup();
  if (skip)
    return skip;
  for (unsigned long long seed = 1; seed <= 2; seed++) {
    ts_csr *random = lu_test_random(gpu, small_sizes ? 150 : 600, 5, 0, seed);
    if (random)
      test_matrix("random", random);
    ts_csr_destroy(random);
  }
  ts_csr *grid = gpu_lu_circuit(small_sizes ? 1500 : 20000, 1.0, 9);
  if (grid)
    test_matrix("circuit", grid);
  ts_csr_destroy(grid);
  ts_context_destroy(gpu);
  return test_finish();
}
