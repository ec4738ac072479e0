/* GPU refactorization: new values on the analyzed pattern give bitwise the
 * factors of a fresh GPU factorization of those values (same analysis),
 * within tolerance of the host's, and an accurate solution; a Newton-like
 * loop of refactorizations stays accurate; double and float factors. */
#include "test_gpu_lu_common.h"

static double solve_berr(ts_lu *lu, const ts_csr *a) {
  int64_t n = a->rows;
  double *b = malloc((size_t)n * sizeof *b), *x = calloc((size_t)n, sizeof *x);
  unsigned long long state = 17;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state);
  CHECK_OK(gpu, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  double berr = lu_test_backward_error(a, 0, x, b);
  free(b);
  free(x);
  return berr;
}

static void test_refactor(const char *name, ts_csr *a1, int float_factors) {
  ts_csr *a2 = lu_test_perturbed_copy(gpu, a1, 0.3, 32);
  ts_lu *refactored = gpu_lu_create(TS_BACKEND_CUDA, float_factors, 0);
  ts_lu *fresh = gpu_lu_create(TS_BACKEND_CUDA, float_factors, 0);
  ts_lu *host = gpu_lu_create(TS_BACKEND_CPU, float_factors, 0);
  CHECK_OK(gpu, ts_lu_analyze(refactored, a1));
  CHECK_OK(gpu, ts_lu_analyze(fresh, a1));
  CHECK_OK(gpu, ts_lu_analyze(host, a1));
  CHECK(!TS_IS_ERROR(ts_lu_factor(refactored, a1)));
  double berr1 = solve_berr(refactored, a1);
  CHECK_MSG(berr1 <= 1e-14, "%s: first factorization: backward error %.3g", name, berr1);
  CHECK(!TS_IS_ERROR(ts_lu_refactor(refactored, a2)));
  CHECK(!TS_IS_ERROR(ts_lu_factor(fresh, a2)));
  CHECK(!TS_IS_ERROR(ts_lu_factor(host, a2)));
  double *vr = gpu_lu_factor_values(refactored), *vf = gpu_lu_factor_values(fresh), *vh = gpu_lu_factor_values(host);
  CHECK_MSG(memcmp(vr, vf, (size_t)refactored->lu_nnz * sizeof *vr) == 0, "%s: refactor != fresh factorization", name);
  int bitwise = 0;
  double diff = gpu_lu_factor_difference(host, vr, vh, &bitwise);
  CHECK_MSG(diff <= (float_factors ? 1e-5 : 1e-12), "%s: refactored factors differ from the host's by %.3g", name,
            diff);
  double berr2 = solve_berr(refactored, a2);
  CHECK_MSG(berr2 <= 1e-14, "%s: refactored: backward error %.3g", name, berr2);
  /* Newton-like loop: small changes, each refactorization solved accurately. */
  for (int step = 0; step < 4; step++) {
    ts_csr *next = lu_test_perturbed_copy(gpu, a1, 0.05, 100 + (unsigned long long)step);
    CHECK(!TS_IS_ERROR(ts_lu_refactor(refactored, next)));
    double berr = solve_berr(refactored, next);
    CHECK_MSG(berr <= 1e-14, "%s: Newton step %d: backward error %.3g", name, step, berr);
    ts_csr_destroy(next);
  }
  printf("%-16s %-6s refactor == factor, host diff %.2g (%s), backward errors %.2g %.2g\n", name,
         float_factors ? "float" : "double", diff, bitwise ? "bitwise" : "not bitwise", berr1, berr2);
  free(vr);
  free(vf);
  free(vh);
  ts_lu_destroy(refactored);
  ts_lu_destroy(fresh);
  ts_lu_destroy(host);
  ts_csr_destroy(a2);
}

/* AUTO on a CUDA context: the analysis's first factorization goes to the
 * GPU only from TSI_LU_GPU_FIRST_FACTOR_WORK, its refactorizations from
 * TSI_LU_GPU_FACTOR_WORK; where the two differ (the first on the host, the
 * next on the GPU) the factors are bitwise those of the GPU forced, and the
 * solves accurate. */
static void test_auto_backend(const char *name, ts_csr *a1, int expect_first_gpu, int expect_later_gpu) {
  ts_csr *a2 = lu_test_perturbed_copy(gpu, a1, 0.3, 41);
  ts_lu_options options = lu_test_options();
  options.backend = TS_BACKEND_AUTO;
  ts_lu *automatic = NULL, *forced = NULL;
  CHECK_OK(gpu, ts_lu_create(gpu, &options, &automatic));
  options.backend = TS_BACKEND_CUDA;
  CHECK_OK(gpu, ts_lu_create(gpu, &options, &forced));
  if (!automatic || !forced || !a2) {
    ts_lu_destroy(automatic);
    ts_lu_destroy(forced);
    ts_csr_destroy(a2);
    return;
  }
  CHECK_OK(gpu, ts_lu_analyze(automatic, a1));
  CHECK_OK(gpu, ts_lu_analyze(forced, a1));
  const double work = automatic->factor_work;
  CHECK_MSG((work >= TSI_LU_GPU_FIRST_FACTOR_WORK) == expect_first_gpu &&
                (work >= TSI_LU_GPU_FACTOR_WORK) == expect_later_gpu,
            "%s: work %.3g is not in the range this case is for", name, work);
  ts_lu_stats stats;
  CHECK(!TS_IS_ERROR(ts_lu_factor(automatic, a1)));
  CHECK_OK(gpu, ts_lu_get_stats(automatic, &stats));
  CHECK_MSG((stats.factor_backend == TS_BACKEND_CUDA) == expect_first_gpu, "%s: first factorization on %s", name,
            ts_backend_name(stats.factor_backend));
  double berr1 = solve_berr(automatic, a1);
  CHECK_MSG(berr1 <= 1e-14, "%s: first factorization: backward error %.3g", name, berr1);
  CHECK(!TS_IS_ERROR(ts_lu_refactor(automatic, a2)));
  CHECK_OK(gpu, ts_lu_get_stats(automatic, &stats));
  CHECK_MSG((stats.factor_backend == TS_BACKEND_CUDA) == expect_later_gpu, "%s: refactorization on %s", name,
            ts_backend_name(stats.factor_backend));
  CHECK(!TS_IS_ERROR(ts_lu_factor(forced, a2)));
  double *va = gpu_lu_factor_values(automatic), *vf = gpu_lu_factor_values(forced);
  CHECK_MSG(automatic->lu_nnz == forced->lu_nnz && memcmp(va, vf, (size_t)automatic->lu_nnz * sizeof *va) == 0,
            "%s: AUTO's refactorization differs from the GPU's factorization", name);
  double berr2 = solve_berr(automatic, a2);
  CHECK_MSG(berr2 <= 1e-14, "%s: refactored: backward error %.3g", name, berr2);
  printf("%-16s AUTO, work %.2g: first on %s, refactorization on %s, factors bitwise the GPU's\n", name, work,
         expect_first_gpu ? "the GPU" : "the host", expect_later_gpu ? "the GPU" : "the host");
  free(va);
  free(vf);
  ts_lu_destroy(automatic);
  ts_lu_destroy(forced);
  ts_csr_destroy(a2);
}

static void test_auto_backends(void) {
  static const struct {
    const char *name;
    int side, dimensions, first_gpu, later_gpu;
  } cases[] = {{"laplacian 20^2", 20, 2, 0, 0}, {"laplacian 100^2", 100, 2, 0, 1}, {"laplacian 20^3", 20, 3, 1, 1}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    ts_csr *a = NULL;
    const int k = cases[c].side;
    CHECK_OK(gpu, cases[c].dimensions == 2 ? ts_gen_laplacian_2d(gpu, k, k, TS_FLOAT64, &a)
                                           : ts_gen_laplacian_3d(gpu, k, k, k, TS_FLOAT64, &a));
    if (a)
      test_auto_backend(cases[c].name, a, cases[c].first_gpu, cases[c].later_gpu);
    ts_csr_destroy(a);
  }
}

/* Two 2-D Laplacians (k1^2 and k2^2 rows) coupled one way (each row of the
 * second has an entry in a column of the first): a block triangular form of
 * two diagonal blocks. */
static ts_csr *two_grid_blocks(int k1, int k2) {
  const int64_t n1 = (int64_t)k1 * k1, n = n1 + (int64_t)k2 * k2;
  const int64_t room = 6 * n;
  int32_t *rows = malloc((size_t)room * sizeof *rows), *cols = malloc((size_t)room * sizeof *cols);
  double *values = malloc((size_t)room * sizeof *values);
  ts_csr *a = NULL;
  if (rows && cols && values) {
    int64_t count = 0;
    for (int part = 0; part < 2; part++) {
      const int k = part ? k2 : k1;
      const int32_t base = part ? (int32_t)n1 : 0;
      for (int y = 0; y < k; y++)
        for (int x = 0; x < k; x++) {
          const int32_t i = base + y * k + x;
          const int32_t neighbours[4] = {x > 0 ? i - 1 : -1, x + 1 < k ? i + 1 : -1, y > 0 ? i - k : -1,
                                         y + 1 < k ? i + k : -1};
          rows[count] = i, cols[count] = i, values[count++] = 4.0;
          for (int q = 0; q < 4; q++)
            if (neighbours[q] >= 0)
              rows[count] = i, cols[count] = neighbours[q], values[count++] = -1.0;
          if (part)
            rows[count] = i, cols[count] = (int32_t)((i - base) % n1), values[count++] = -0.5;
        }
    }
    a = lu_test_csr(gpu, n, count, rows, cols, values);
  }
  free(rows);
  free(cols);
  free(values);
  return a;
}

/* AUTO on a CUDA context, a matrix of two diagonal blocks: below
 * TSI_LU_GPU_FACTOR_WORK the analysis keeps to the host with its blocks
 * factored alone, as on a CPU context (the same factors, bit for bit); above
 * it, the whole matrix's factors, which the GPU refactors. */
static void test_auto_blocks(int k1, int k2, int expect_host_analysis) {
  ts_csr *a1 = two_grid_blocks(k1, k2);
  ts_csr *a2 = a1 ? lu_test_perturbed_copy(gpu, a1, 0.2, 43) : NULL;
  ts_context *cpu = NULL;
  ts_context_options cpu_options = {0};
  cpu_options.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&cpu, &cpu_options));
  ts_lu_options options = lu_test_options();
  options.backend = TS_BACKEND_AUTO;
  ts_lu *automatic = NULL, *reference = NULL;
  CHECK_OK(gpu, ts_lu_create(gpu, &options, &automatic));
  if (!expect_host_analysis)
    options.backend = TS_BACKEND_CUDA;
  if (cpu)
    CHECK_OK(cpu, ts_lu_create(expect_host_analysis ? cpu : gpu, &options, &reference));
  if (!a1 || !a2 || !automatic || !reference) {
    ts_lu_destroy(automatic);
    ts_lu_destroy(reference);
    ts_csr_destroy(a1);
    ts_csr_destroy(a2);
    ts_context_destroy(cpu);
    return;
  }
  CHECK_OK(gpu, ts_lu_analyze(automatic, a1));
  CHECK_OK(gpu, ts_lu_analyze(reference, a1));
  /* Two blocks; the whole matrix's analysis may take AMD's ordering of the whole instead (less fill). */
  CHECK_MSG(automatic->btf_blocks == 2 || !expect_host_analysis, "%d^2 + %d^2: %lld blocks", k1, k2,
            (long long)automatic->btf_blocks);
  CHECK_MSG(automatic->host_analysis == expect_host_analysis && (automatic->block_ptr != NULL) == expect_host_analysis,
            "%d^2 + %d^2 (work %.3g): host analysis %d, blocks alone %d", k1, k2, automatic->factor_work,
            automatic->host_analysis, automatic->block_ptr != NULL);
  ts_lu_stats stats;
  CHECK(!TS_IS_ERROR(ts_lu_factor(automatic, a1)));
  CHECK_OK(gpu, ts_lu_get_stats(automatic, &stats));
  CHECK(stats.factor_backend == TS_BACKEND_CPU);
  double berr1 = solve_berr(automatic, a1);
  CHECK_MSG(berr1 <= 1e-14, "%d^2 + %d^2: first factorization: backward error %.3g", k1, k2, berr1);
  CHECK(!TS_IS_ERROR(ts_lu_refactor(automatic, a2)));
  CHECK_OK(gpu, ts_lu_get_stats(automatic, &stats));
  CHECK_MSG((stats.factor_backend == TS_BACKEND_CUDA) == !expect_host_analysis, "%d^2 + %d^2: refactorization on %s",
            k1, k2, ts_backend_name(stats.factor_backend));
  CHECK(!TS_IS_ERROR(ts_lu_factor(reference, a2)));
  double *va = gpu_lu_factor_values(automatic), *vr = gpu_lu_factor_values(reference);
  CHECK_MSG(automatic->lu_nnz == reference->lu_nnz && memcmp(va, vr, (size_t)automatic->lu_nnz * sizeof *va) == 0,
            "%d^2 + %d^2: AUTO's factors differ from the %s's", k1, k2, expect_host_analysis ? "CPU context" : "GPU");
  double berr2 = solve_berr(automatic, a2);
  CHECK_MSG(berr2 <= 1e-14, "%d^2 + %d^2: refactored: backward error %.3g", k1, k2, berr2);
  printf("%d^2 + %d^2 blocks AUTO, work %.2g: %s, factors bitwise the %s's\n", k1, k2, automatic->factor_work,
         expect_host_analysis ? "blocks alone on the host" : "the whole matrix, refactored on the GPU",
         expect_host_analysis ? "CPU context" : "GPU");
  free(va);
  free(vr);
  ts_lu_destroy(automatic);
  ts_lu_destroy(reference);
  ts_csr_destroy(a1);
  ts_csr_destroy(a2);
  ts_context_destroy(cpu);
}

int main(void) {
  int skip = gpu_lu_setup();
  if (skip)
    return skip;
  ts_csr *random = lu_test_random(gpu, small_sizes ? 150 : 500, 5, 0, 31);
  ts_csr *grid = gpu_lu_circuit(small_sizes ? 1500 : 20000, 1.0, 8);
  for (int float_factors = 0; float_factors < 2; float_factors++) {
    if (random)
      test_refactor("random", random, float_factors);
    if (grid)
      test_refactor("circuit grid", grid, float_factors);
  }
  ts_csr_destroy(random);
  ts_csr_destroy(grid);
  test_auto_backends();
  test_auto_blocks(10, 12, 1);
  test_auto_blocks(100, 20, 0);
  ts_context_destroy(gpu);
  return test_finish();
}
