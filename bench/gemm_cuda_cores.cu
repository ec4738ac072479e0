/* Dense GEMM on CUDA cores: every tessera tile configuration (forced), the
 * configuration tessera chooses, and cuBLAS in the same process on the same
 * device data and stream. fp32: cuBLAS SGEMM with CUBLAS_PEDANTIC_MATH (no
 * TF32, no tensor cores), the anchor. fp64: cuBLAS DGEMM is reported but
 * uses FP64 tensor cores (DMMA), so the figure of merit is the fraction of
 * the CUDA-core FP64 peak (SMs x 64 FMA/clock x 2 x clock; FP32: x 128).
 * C = A * B (alpha 1, beta 0), column-major, no transposes. Every result is
 * checked on sampled entries against a host dot product in double (inputs
 * are a hash of their index, so the host recomputes them without a copy).
 * Times: median of CUDA-event timed calls after a warm-up. Output: one CSV
 * row per shape and variant (the per-configuration timings that the
 * performance model is validated against) and a Markdown summary. */
#include "tsb_cuda.h"

#include "tessera/gemm.h"

#include <cublas_v2.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CUBLAS_TRY(call)                                                                                               \
  do {                                                                                                                 \
    cublasStatus_t st_ = (call);                                                                                       \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                                                \
      fprintf(stderr, "%s:%d: cuBLAS error %d: %s\n", __FILE__, __LINE__, (int)st_, #call);                            \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

/* Entries of C checked per variant. */
#define SAMPLES 256
/* A variant's timed calls are cut to last about this long. */
#define MAX_SECONDS_PER_VARIANT 1.5

typedef struct shape {
  int64_t m, n, k;
  const char *kind;
} shape;

static const shape shapes[] = {{1024, 1024, 1024, "square"},  {2048, 2048, 2048, "square"},
                               {4096, 4096, 4096, "square"},  {8192, 8192, 8192, "square"},
                               {8192, 8192, 1024, "short k"}, {4096, 4096, 16384, "long k"},
                               {16384, 1024, 4096, "tall"},   {1024, 16384, 4096, "wide"},
                               {8192, 256, 8192, "skinny n"}, {3001, 2999, 3000, "odd edges"}};
#define SHAPE_COUNT ((int)(sizeof shapes / sizeof shapes[0]))

/* Input value of index i of matrix `which`: a hash in [-1, 1), rounded to
 * the precision by the caller. The same function runs on host and device. */
__host__ __device__ static inline double input_value(uint64_t i, uint64_t which) {
  uint64_t z = i * 0x9e3779b97f4a7c15ULL + which * 0xd1b54a32d192ed03ULL + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

template <typename T> __global__ void fill_kernel(T *x, int64_t count, uint64_t which) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
    x[i] = (T)input_value((uint64_t)i, which);
}

typedef struct job {
  ts_context *ctx;
  cublasHandle_t handle;
  ts_dtype dtype;
  int64_t m, n, k;
  ts_buffer *a, *b, *c;
  int config; /* 0: tessera's choice; -1: cuBLAS */
} job;

static int run_job(void *user, void *stream) {
  job *j = (job *)user;
  (void)stream;
  if (j->config >= 0) {
    ts_gemm_options o;
    memset(&o, 0, sizeof o);
    o.config = j->config;
    TSB_TS_TRY(j->ctx,
               ts_gemm_ex(j->ctx, j->dtype, j->m, j->n, j->k, 1.0, j->a, j->m, j->b, j->k, 0.0, j->c, j->m, &o));
    return 0;
  }
  int m = (int)j->m, n = (int)j->n, k = (int)j->k;
  if (j->dtype == TS_FLOAT32) {
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_TRY(cublasSgemm(j->handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, (const float *)ts_buffer_data(j->a), m,
                           (const float *)ts_buffer_data(j->b), k, &zero, (float *)ts_buffer_data(j->c), m));
  } else {
    const double one = 1.0, zero = 0.0;
    CUBLAS_TRY(cublasDgemm(j->handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, (const double *)ts_buffer_data(j->a), m,
                           (const double *)ts_buffer_data(j->b), k, &zero, (double *)ts_buffer_data(j->c), m));
  }
  return 0;
}

/* Largest error on SAMPLES entries over the bound 2 (k + 2) u sum |a||b|. */
static int check_samples(const job *j, double *worst) {
  size_t value = ts_dtype_size(j->dtype);
  double u = j->dtype == TS_FLOAT32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
  *worst = 0.0;
  uint64_t state = 12345;
  for (int s = 0; s < SAMPLES; s++) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t i = (int64_t)((state >> 33) % (uint64_t)j->m);
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t col = (int64_t)((state >> 33) % (uint64_t)j->n);
    double got = 0.0;
    if (j->dtype == TS_FLOAT32) {
      float g;
      TSB_TS_TRY(j->ctx, ts_buffer_download(j->ctx, j->c, (size_t)(i + col * j->m) * value, &g, value));
      got = g;
    } else {
      TSB_TS_TRY(j->ctx, ts_buffer_download(j->ctx, j->c, (size_t)(i + col * j->m) * value, &got, value));
    }
    double sum = 0.0, magnitude = 0.0;
    for (int64_t p = 0; p < j->k; p++) {
      double x = input_value((uint64_t)(i + p * j->m), 1), y = input_value((uint64_t)(p + col * j->k), 2);
      if (j->dtype == TS_FLOAT32) {
        x = (float)x;
        y = (float)y;
      }
      sum += x * y;
      magnitude += fabs(x * y);
    }
    double ratio = fabs(got - sum) / (2.0 * (double)(j->k + 2) * u * magnitude + DBL_MIN);
    if (!(ratio <= *worst))
      *worst = isnan(ratio) ? INFINITY : ratio;
  }
  return 0;
}

typedef struct result {
  int config; /* -1: cuBLAS */
  tsb_stats ms;
  double tflops;
  double worst;
} result;

struct options {
  const char *csv_path, *md_path;
  bool fp32, fp64, quick;
  int warmup, repeat;
  int only_shape; /* -1: every shape */
};

static int bench_shape(ts_context *ctx, cublasHandle_t handle, ts_dtype dtype, const shape *sh, const options *opt,
                       double peak_tflops, int sms, tsb_table *t, FILE *md, int *check_failures) {
  int64_t div = opt->quick ? 8 : 1;
  job j;
  memset(&j, 0, sizeof j);
  j.ctx = ctx;
  j.handle = handle;
  j.dtype = dtype;
  j.m = sh->m / div;
  j.n = sh->n / div;
  j.k = sh->k / div;
  size_t value = ts_dtype_size(dtype);
  cudaStream_t stream = (cudaStream_t)ts_context_stream(ctx);
  TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)(j.m * j.k) * value, &j.a));
  TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)(j.k * j.n) * value, &j.b));
  TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)(j.m * j.n) * value, &j.c));
  if (dtype == TS_FLOAT32) {
    fill_kernel<float><<<1024, 256, 0, stream>>>((float *)ts_buffer_data(j.a), j.m * j.k, 1);
    fill_kernel<float><<<1024, 256, 0, stream>>>((float *)ts_buffer_data(j.b), j.k * j.n, 2);
  } else {
    fill_kernel<double><<<1024, 256, 0, stream>>>((double *)ts_buffer_data(j.a), j.m * j.k, 1);
    fill_kernel<double><<<1024, 256, 0, stream>>>((double *)ts_buffer_data(j.b), j.k * j.n, 2);
  }
  TSB_LAUNCH_TRY("fill_kernel");

  int chosen = 0;
  char reason[256] = "";
  TSB_TS_TRY(ctx, ts_gemm_config_choose(ctx, dtype, j.m, j.n, j.k, &chosen, reason, sizeof reason));
  double flops = 2.0 * (double)j.m * (double)j.n * (double)j.k;
  result results[64];
  int count = 0;
  /* cuBLAS first, then every configuration of this precision, then the choice. */
  for (int variant = -1; variant <= ts_gemm_config_count() + 1 && count < 64; variant++) {
    int config = variant;
    if (variant == ts_gemm_config_count() + 1)
      config = 0;
    else if (variant == 0)
      continue;
    if (config > 0) {
      ts_gemm_config_info info;
      TSB_TS_TRY(ctx, ts_gemm_config_describe(config, &info));
      if (info.dtype != dtype)
        continue;
    }
    j.config = config;
    TSB_CUDA_TRY(cudaMemsetAsync(ts_buffer_data(j.c), 0xff, (size_t)(j.m * j.n) * value, stream)); /* NaN */
    if (run_job(&j, stream) != 0)
      return 1;
    result *r = &results[count++];
    r->config = config;
    if (check_samples(&j, &r->worst) != 0)
      return 1;
    if (!(r->worst <= 1.0))
      (*check_failures)++;
    /* Calls per variant: as many as fit in MAX_SECONDS_PER_VARIANT at the first call's pace. */
    double t0 = tsb_wall_seconds();
    if (run_job(&j, stream) != 0)
      return 1;
    TSB_CUDA_TRY(cudaStreamSynchronize(stream));
    double once = tsb_wall_seconds() - t0;
    int repeat = opt->repeat;
    if (once * (repeat + opt->warmup) > MAX_SECONDS_PER_VARIANT)
      repeat = (int)(MAX_SECONDS_PER_VARIANT / once) - opt->warmup > 3
                   ? (int)(MAX_SECONDS_PER_VARIANT / once) - opt->warmup
                   : 3;
    if (tsb_time_events(stream, opt->warmup, repeat, run_job, &j, &r->ms) != 0)
      return 1;
    r->tflops = flops / (r->ms.median * 1e-3) / 1e12;
  }
  double cublas_ms = results[0].ms.median;
  int best = 1;
  for (int v = 1; v < count; v++) {
    result *r = &results[v];
    if (r->config > 0 && r->ms.median < results[best].ms.median)
      best = v;
    ts_gemm_config_info info;
    memset(&info, 0, sizeof info);
    int id = r->config > 0 ? r->config : chosen;
    ts_gemm_config_describe(id, &info);
    int64_t tiles = ((j.m + info.block_m - 1) / info.block_m) * ((j.n + info.block_n - 1) / info.block_n);
    tsb_table_cell(t, "%s", dtype == TS_FLOAT32 ? "fp32" : "fp64");
    tsb_table_cell(t, "%s", sh->kind);
    tsb_table_cell(t, "%lld", (long long)j.m);
    tsb_table_cell(t, "%lld", (long long)j.n);
    tsb_table_cell(t, "%lld", (long long)j.k);
    tsb_table_cell(t, "%s", r->config > 0 ? "config" : "chosen");
    tsb_table_cell(t, "%d", id);
    tsb_table_cell(t, "%s", info.name);
    tsb_table_cell(t, "%d", info.block_m);
    tsb_table_cell(t, "%d", info.block_n);
    tsb_table_cell(t, "%d", info.block_k);
    tsb_table_cell(t, "%d", info.threads);
    tsb_table_cell(t, "%d", info.blocks_per_sm);
    tsb_table_cell(t, "%lld", (long long)tiles);
    tsb_table_cell(t, "%.3f", (double)tiles / ((double)sms * info.blocks_per_sm));
    tsb_table_cell(t, "%.4f", r->ms.median);
    tsb_table_cell(t, "%.4f", r->ms.min);
    tsb_table_cell(t, "%.2f", r->tflops);
    tsb_table_cell(t, "%.3f", cublas_ms / r->ms.median);
    tsb_table_cell(t, "%.3f", r->tflops / peak_tflops);
    tsb_table_cell(t, "%.3g", r->worst);
    tsb_table_cell(t, "%s", r->worst <= 1.0 ? "ok" : "FAILED");
  }
  /* cuBLAS row. */
  tsb_table_cell(t, "%s", dtype == TS_FLOAT32 ? "fp32" : "fp64");
  tsb_table_cell(t, "%s", sh->kind);
  tsb_table_cell(t, "%lld", (long long)j.m);
  tsb_table_cell(t, "%lld", (long long)j.n);
  tsb_table_cell(t, "%lld", (long long)j.k);
  tsb_table_cell(t, "%s", "cublas");
  tsb_table_cell(t, "%d", -1);
  tsb_table_cell(t, "%s", dtype == TS_FLOAT32 ? "cublasSgemm pedantic" : "cublasDgemm (FP64 tensor cores)");
  for (int x = 0; x < 7; x++)
    tsb_table_cell(t, "%s", "");
  tsb_table_cell(t, "%.4f", results[0].ms.median);
  tsb_table_cell(t, "%.4f", results[0].ms.min);
  tsb_table_cell(t, "%.2f", results[0].tflops);
  tsb_table_cell(t, "%.3f", 1.0);
  tsb_table_cell(t, "%.3f", results[0].tflops / peak_tflops);
  tsb_table_cell(t, "%.3g", results[0].worst);
  tsb_table_cell(t, "%s", results[0].worst <= 1.0 ? "ok" : "FAILED");

  result *ch = &results[count - 1];
  ts_gemm_config_info best_info, chosen_info;
  ts_gemm_config_describe(results[best].config, &best_info);
  ts_gemm_config_describe(chosen, &chosen_info);
  const char *line = "| %s | %s %lldx%lldx%lld | %.2f | %s %.2f (%.1f%%) | %s %.2f (%.1f%%) | %.2f | %.1f%% |\n";
  for (FILE *f = stdout; f; f = f == stdout ? md : NULL) {
    fprintf(f, line, dtype == TS_FLOAT32 ? "fp32" : "fp64", sh->kind, (long long)j.m, (long long)j.n, (long long)j.k,
            results[0].tflops, chosen_info.name, ch->tflops, 100.0 * cublas_ms / ch->ms.median, best_info.name,
            results[best].tflops, 100.0 * cublas_ms / results[best].ms.median, ch->tflops / results[best].tflops,
            100.0 * ch->tflops / peak_tflops);
  }
  (void)reason;
  ts_buffer_destroy(j.a);
  ts_buffer_destroy(j.b);
  ts_buffer_destroy(j.c);
  return 0;
}

static void usage(const char *argv0) {
  printf("usage: %s [--precision single|double|both] [--quick] [--warmup N] [--repeat N] [--shape I]\n"
         "          [--md PATH] [CSV_PATH]\n"
         "  --shape I runs only the I-th shape of the list (0: 1024^3, 2: 4096^3; for profilers)\n"
         "  CSV_PATH defaults to bench-out/gemm_cuda_cores.csv; the summary goes to the same path with .md\n"
         "  --quick divides every size by 8 (a check of the program, not a measurement)\n"
         "  exit status: 0 when every check passed, 1 on a failed check or error, 2 for a bad command line,\n"
         "  77 when no GPU is usable\n",
         argv0);
}

int main(int argc, char **argv) {
  options opt;
  memset(&opt, 0, sizeof opt);
  opt.csv_path = "bench-out/gemm_cuda_cores.csv";
  opt.fp32 = opt.fp64 = true;
  opt.warmup = 3;
  opt.repeat = 20;
  opt.only_shape = -1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(arg, "--precision") == 0 && has_value) {
      const char *p = argv[++i];
      opt.fp32 = strcmp(p, "single") == 0 || strcmp(p, "both") == 0;
      opt.fp64 = strcmp(p, "double") == 0 || strcmp(p, "both") == 0;
      if (!opt.fp32 && !opt.fp64) {
        fprintf(stderr, "error: --precision single, double or both\n");
        return 2;
      }
    } else if (strcmp(arg, "--quick") == 0) {
      opt.quick = true;
    } else if (strcmp(arg, "--warmup") == 0 && has_value) {
      opt.warmup = atoi(argv[++i]);
    } else if (strcmp(arg, "--repeat") == 0 && has_value) {
      opt.repeat = atoi(argv[++i]);
    } else if (strcmp(arg, "--shape") == 0 && has_value) {
      opt.only_shape = atoi(argv[++i]);
      if (opt.only_shape < 0 || opt.only_shape >= SHAPE_COUNT) {
        fprintf(stderr, "error: --shape takes 0 to %d\n", SHAPE_COUNT - 1);
        return 2;
      }
    } else if (strcmp(arg, "--md") == 0 && has_value) {
      opt.md_path = argv[++i];
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      usage(argv[0]);
      return 0;
    } else if (arg[0] == '-') {
      fprintf(stderr, "error: unknown option %s (or a missing value)\n", arg);
      usage(argv[0]);
      return 2;
    } else {
      opt.csv_path = arg;
    }
  }
  if (opt.warmup < 0 || opt.repeat < 1) {
    fprintf(stderr, "error: --warmup >= 0 and --repeat >= 1\n");
    return 2;
  }
  char md_default[4096];
  if (!opt.md_path) {
    snprintf(md_default, sizeof md_default, "%s", opt.csv_path);
    char *dot = strrchr(md_default, '.');
    char *slash = strrchr(md_default, '/');
    if (dot && (!slash || dot > slash))
      *dot = '\0';
    strncat(md_default, ".md", sizeof md_default - strlen(md_default) - 1);
    opt.md_path = md_default;
  }

  ts_context_options co;
  memset(&co, 0, sizeof co);
  co.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  ts_status created = ts_context_create(&ctx, &co);
  if (created == TS_ERROR_NO_DEVICE) {
    printf("SKIPPED: %s\n", ts_last_error(NULL));
    return 77;
  }
  if (created != TS_SUCCESS) {
    fprintf(stderr, "error: %s\n", ts_last_error(NULL));
    return 2;
  }
  int device = 0, sms = 0, clock_khz = 0;
  TSB_CUDA_TRY(cudaGetDevice(&device));
  TSB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TSB_CUDA_TRY(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  /* CUDA-core peaks at the reported (boost) clock: 128 FP32 and 64 FP64 FMA per SM per clock (sm_90). */
  double peak32 = (double)sms * 128 * 2 * clock_khz * 1e3 / 1e12;
  double peak64 = (double)sms * 64 * 2 * clock_khz * 1e3 / 1e12;

  cublasHandle_t handle = NULL;
  CUBLAS_TRY(cublasCreate(&handle));
  CUBLAS_TRY(cublasSetStream(handle, (cudaStream_t)ts_context_stream(ctx)));
  CUBLAS_TRY(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));

  const char *columns[] = {"dtype",
                           "shape",
                           "m",
                           "n",
                           "k",
                           "variant",
                           "config",
                           "name",
                           "block_m",
                           "block_n",
                           "block_k",
                           "threads",
                           "blocks_per_sm",
                           "tiles",
                           "waves",
                           "median_ms",
                           "min_ms",
                           "tflops",
                           "vs_cublas",
                           "frac_of_cuda_core_peak",
                           "max_err_over_bound",
                           "check"};
  tsb_table *t = tsb_table_create((int)(sizeof columns / sizeof columns[0]), columns);
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "clock_mhz", "%d (cudaDevAttrClockRate)", clock_khz / 1000);
  tsb_metadata_set(&meta, "peaks", "FP32 %.1f TFLOP/s, FP64 %.1f TFLOP/s on CUDA cores (%d SMs)", peak32, peak64, sms);
  tsb_metadata_set(&meta, "anchor", "cuBLAS SGEMM with CUBLAS_PEDANTIC_MATH; cuBLAS DGEMM (FP64 tensor cores)");
  tsb_metadata_set(&meta, "timing",
                   "median of up to %d CUDA-event timed calls after %d warm-up calls (fewer where a "
                   "variant would pass %.1f s); alpha 1, beta 0, no transposes",
                   opt.repeat, opt.warmup, MAX_SECONDS_PER_VARIANT);
  tsb_metadata_print(&meta, stdout, "# ");
  FILE *md = NULL;
  if (tsb_make_parent_dirs(opt.md_path) == 0)
    md = fopen(opt.md_path, "w");
  if (!t || !md) {
    fprintf(stderr, "error: cannot create the table or %s\n", opt.md_path);
    return 1;
  }
  fprintf(md, "# GEMM on CUDA cores\n\n");
  tsb_metadata_print(&meta, md, "- ");
  const char *head = "\n| precision | shape | cuBLAS TFLOP/s | chosen: TFLOP/s (%% of cuBLAS) | best config: TFLOP/s "
                     "(%% of cuBLAS) | chosen/best | chosen, %% of CUDA-core peak |\n|---|---|---|---|---|---|---|\n";
  fprintf(md, "%s", head);
  printf("%s", head);
  int failures = 0, status = 0;
  for (int d = 0; d < 2 && status == 0; d++) {
    ts_dtype dtype = d == 0 ? TS_FLOAT32 : TS_FLOAT64;
    if ((dtype == TS_FLOAT32 && !opt.fp32) || (dtype == TS_FLOAT64 && !opt.fp64))
      continue;
    for (int s = 0; s < SHAPE_COUNT && status == 0; s++)
      if (opt.only_shape < 0 || opt.only_shape == s)
        status = bench_shape(ctx, handle, dtype, &shapes[s], &opt, dtype == TS_FLOAT32 ? peak32 : peak64, sms, t, md,
                             &failures);
  }
  fclose(md);
  if (status == 0)
    status = tsb_table_write_csv(t, &meta, opt.csv_path);
  printf("\n%d variant(s) failed the check; CSV %s, summary %s\n", failures, opt.csv_path, opt.md_path);
  tsb_table_destroy(t);
  cublasDestroy(handle);
  ts_context_destroy(ctx);
  return status != 0 || failures > 0 ? 1 : 0;
}
