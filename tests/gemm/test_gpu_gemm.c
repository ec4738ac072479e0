/* GEMM on the GPU: every tile configuration (forced) on random shapes with
 * every transposition and padded leading dimensions, edge tiles, the BLAS
 * special cases, the chosen configuration against the CPU backend, bitwise
 * repeatability and the statuses of GPU-only misuse. Skips (77) without a
 * usable GPU; smaller inputs under TESSERA_UNDER_SANITIZER. */
#include "test_gemm_check.h"

static bool under_sanitizer(void) {
  const char *v = getenv("TESSERA_UNDER_SANITIZER");
  return v && *v;
}

static void test_every_config(ts_context *ctx, bool small) {
  int count = ts_gemm_config_count();
  for (int id = 1; id <= count; id++) {
    ts_gemm_config_info info;
    CHECK_OK(NULL, ts_gemm_config_describe(id, &info));
    ts_gemm_options o = {.config = id};
    unsigned long long state = 7 + (unsigned long long)id;
    int trials = small ? 4 : 24;
    for (int trial = 0; trial < trials; trial++) {
      gemm_case g = gemm_random_case(&state, info.dtype, small ? 70 : 300);
      int64_t wrong = gemm_run_case(ctx, &g, &o, 500 + trial, NULL);
      CHECK_MSG(wrong == 0, "%s: %lldx%lldx%lld ta %d tb %d lda %lld ldb %lld ldc %lld alpha %g beta %g: %lld wrong",
                info.name, (long long)g.m, (long long)g.n, (long long)g.k, g.trans_a, g.trans_b, (long long)g.lda,
                (long long)g.ldb, (long long)g.ldc, g.alpha, g.beta, (long long)wrong);
    }
    /* Whole tiles plus one row, column and k of edge, all transpositions. */
    for (int t = 0; t < 4; t++) {
      gemm_case g = {.dtype = info.dtype, .alpha = -1.0, .beta = 0.5, .trans_a = t & 1, .trans_b = t & 2};
      g.m = (small ? 1 : 2) * info.block_m + 1;
      g.n = (small ? 1 : 2) * info.block_n + 1;
      g.k = (small ? 2 : 6) * info.block_k + 1;
      CHECK_MSG(gemm_run_case(ctx, &g, &o, 900 + t, NULL) == 0, "%s: edge tiles, transposition %d", info.name, t);
      g.m -= 1; /* exact tiles: the unchecked loads and 16-byte stores of C */
      g.n -= 1;
      g.k -= 1;
      g.ldc = g.m;
      CHECK_MSG(gemm_run_case(ctx, &g, &o, 950 + t, NULL) == 0, "%s: whole tiles, transposition %d", info.name, t);
    }
    gemm_case one = {.dtype = info.dtype, .m = 1, .n = 1, .k = 1, .alpha = 1.0, .beta = 0.0, .nan_in_c = true};
    CHECK_MSG(gemm_run_case(ctx, &one, &o, 990, NULL) == 0, "%s: 1x1x1", info.name);
  }
}

static void test_special_cases(ts_context *ctx, ts_dtype dtype) {
  gemm_case g = {.dtype = dtype, .m = 70, .n = 9, .k = 0, .alpha = 1.0, .beta = -0.5, .nan_in_ab = true};
  CHECK(gemm_run_case(ctx, &g, NULL, 1, NULL) == 0);
  g.beta = 0.0;
  g.nan_in_c = true;
  CHECK(gemm_run_case(ctx, &g, NULL, 2, NULL) == 0);
  gemm_case z = {.dtype = dtype, .m = 40, .n = 33, .k = 12, .alpha = 0.0, .beta = 2.0, .nan_in_ab = true, .ldc = 45};
  CHECK(gemm_run_case(ctx, &z, NULL, 3, NULL) == 0);
  gemm_case w = {.dtype = dtype, .m = 130, .n = 129, .k = 77, .alpha = 1.0, .beta = 0.0, .nan_in_c = true};
  CHECK(gemm_run_case(ctx, &w, NULL, 4, NULL) == 0);
}

/* The chosen configuration agrees with the CPU backend within the bound of
 * both (each is checked against double), and repeats bit for bit. */
static void test_against_cpu(ts_context *gpu, bool small) {
  ts_context *cpu = NULL;
  ts_context_options o = {.backend = TS_BACKEND_CPU};
  CHECK_OK(NULL, ts_context_create(&cpu, &o));
  if (!cpu)
    return;
  const ts_dtype dtypes[] = {TS_FLOAT32, TS_FLOAT64};
  for (int d = 0; d < 2; d++) {
    int64_t size = small ? 96 : 515;
    gemm_case g = {.dtype = dtypes[d], .m = size, .n = size - 3, .k = size + 5, .alpha = 1.0, .beta = 1.0};
    double *on_gpu = NULL, *on_gpu_again = NULL, *on_cpu = NULL;
    CHECK(gemm_run_case(gpu, &g, NULL, 77, &on_gpu) == 0);
    CHECK(gemm_run_case(gpu, &g, NULL, 77, &on_gpu_again) == 0);
    CHECK(gemm_run_case(cpu, &g, NULL, 77, &on_cpu) == 0);
    CHECK(on_gpu && on_gpu_again && memcmp(on_gpu, on_gpu_again, (size_t)(g.m * g.n) * sizeof(double)) == 0);
    double u = dtypes[d] == TS_FLOAT32 ? FLT_EPSILON : DBL_EPSILON, worst = 0.0;
    for (int64_t i = 0; on_gpu && on_cpu && i < g.m * g.n; i++) {
      double diff = fabs(on_gpu[i] - on_cpu[i]);
      worst = diff > worst ? diff : worst;
    }
    /* Entries: k products of magnitude < 1 plus C: each within (k + 2) u (k + 1) of the truth. */
    CHECK_MSG(on_cpu && worst <= 2.0 * (double)(g.k + 2) * u * (double)(g.k + 1), "GPU vs CPU %g", worst);
    free(on_gpu);
    free(on_gpu_again);
    free(on_cpu);
    int id = 0;
    char reason[256] = "";
    CHECK_OK(gpu, ts_gemm_config_choose(gpu, dtypes[d], 4096, 4096, 4096, &id, reason, sizeof reason));
    ts_gemm_config_info info;
    CHECK(ts_gemm_config_describe(id, &info) == TS_SUCCESS && info.dtype == dtypes[d]);
    printf("chosen for %s 4096^3: %s (%s)\n", dtypes[d] == TS_FLOAT32 ? "fp32" : "fp64", info.name, reason);
  }
  ts_context_destroy(cpu);
}

static void test_host_buffer_refused(ts_context *ctx) {
  ts_buffer *host = NULL, *dev = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_HOST, 64 * sizeof(float), &host));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 64 * sizeof(float), &dev));
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT32, 4, 4, 4, 1, host, 4, dev, 4, 0, dev, 4), TS_ERROR_INVALID_ARGUMENT);
  ts_buffer_destroy(host);
  ts_buffer_destroy(dev);
}

int main(void) {
  ts_context *ctx = NULL;
  ts_context_options o = {.backend = TS_BACKEND_CUDA};
  if (ts_context_create(&ctx, &o) != TS_SUCCESS)
    return test_skip(ts_last_error(NULL));
  bool small = under_sanitizer();
  test_every_config(ctx, small);
  test_special_cases(ctx, TS_FLOAT32);
  test_special_cases(ctx, TS_FLOAT64);
  test_against_cpu(ctx, small);
  test_host_buffer_refused(ctx);
  CHECK_OK(ctx, ts_context_sync(ctx));
  ts_context_destroy(ctx);
  return test_finish();
}
