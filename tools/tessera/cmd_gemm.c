/* tessera gemm: C = A*B (or with transposes) for random m x k and k x n
 * matrices on the chosen backend, timed, with the GPU tile configuration
 * and the reason for it, and checked on sampled entries of C against a dot
 * product in double. */
#include "cli_common.h"
#include "tessera/gemm.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entries of C checked against the host dot product. */
#define GEMM_CHECK_SAMPLES 512

static const char gemm_help[] =
    "Usage: tessera gemm [options]\n"
    "\n"
    "Fill column-major A (m x k) and B (k x n) with random values in [-1, 1),\n"
    "compute C = A*B with ts_gemm_ex on the chosen backend, time it, and\n"
    "print the tile configuration (chosen, or forced with --config).\n"
    "\n"
    "Options:\n"
    "  --n N                       size of a square product (default 1024)\n"
    "  --m M, --k K                other sizes (default: N)\n"
    "  --backend auto|cpu|cuda     where to run (default auto)\n"
    "  --precision single|double   value type (default single)\n"
    "  --config ID                 GPU tile configuration, 1 to the count shown by\n"
    "                              --list (default 0: chosen)\n"
    "  --transpose-a, --transpose-b  use A^T (A stored k x m) or B^T (B stored n x k)\n"
    "  --repeat N                  timed calls (default 10)\n"
    "  --check                     check sampled entries of C against a dot\n"
    "                              product in double\n"
    "  --list                      list the tile configurations and exit\n" CLI_HELP_OUTPUT_OPTIONS "\n"
    "The tile configurations are the GPU's: the CPU backend has one blocked\n"
    "implementation and ignores --config.\n"
    "Exit status: 0 on success (and a passed check), 1 when the check fails\n"
    "or on an error, 2 for a bad command line, 130 when cancelled.\n";

static void list_configs(bool json) {
  cli_json out;
  if (json) {
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "gemm");
    cli_json_object(&out, "configurations");
  } else {
    printf("id  name              threads  shared B  regs  blocks/SM  global B/k-step  FMAs/k-step\n");
  }
  for (int id = 1; id <= ts_gemm_config_count(); id++) {
    ts_gemm_config_info c;
    if (ts_gemm_config_describe(id, &c) != TS_SUCCESS)
      continue;
    if (json) {
      char key[16];
      snprintf(key, sizeof key, "%d", c.id);
      cli_json_object(&out, key);
      cli_json_text(&out, "name", c.name);
      cli_json_int(&out, "threads", c.threads);
      cli_json_int(&out, "shared_bytes", c.shared_bytes);
      cli_json_int(&out, "registers", c.registers);
      cli_json_int(&out, "blocks_per_sm", c.blocks_per_sm);
      cli_json_int(&out, "global_bytes_per_k_step", c.global_bytes);
      cli_json_int(&out, "fmas_per_k_step", c.fmas);
      cli_json_close(&out);
    } else {
      printf("%-3d %-17s %7d  %8d  %4d  %9d  %15lld  %11lld\n", c.id, c.name, c.threads, c.shared_bytes, c.registers,
             c.blocks_per_sm, (long long)c.global_bytes, (long long)c.fmas);
    }
  }
  if (json) {
    cli_json_close(&out);
    cli_json_end(&out);
  }
}

/* rows x cols elements of 8 bytes (the host's doubles), or false where
 * their bytes would pass 2^63. */
static bool element_count(int64_t rows, int64_t cols, int64_t *count) {
  const int64_t limit = INT64_MAX / (int64_t)sizeof(double);
  if (rows > 0 && cols > limit / rows)
    return false;
  *count = rows * cols;
  return true;
}

static double *random_values(int64_t count, unsigned long long seed) {
  double *v = malloc((size_t)(count > 0 ? count : 1) * sizeof(double));
  for (int64_t i = 0; v && i < count; i++) {
    unsigned long long z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    v[i] = (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
  return v;
}

/* Round the doubles to dtype (so that the check sees what the product
 * sees) and upload them into a new buffer. */
static ts_status upload(ts_context *ctx, ts_dtype dtype, double *values, int64_t count, ts_buffer **buffer) {
  size_t size = ts_dtype_size(dtype);
  float *narrow = NULL;
  const void *source = values;
  if (dtype == TS_FLOAT32) {
    narrow = malloc((size_t)(count > 0 ? count : 1) * sizeof(float));
    if (!narrow) {
      cli_set_error("no host memory for the operands");
      return TS_ERROR_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; i < count; i++) {
      narrow[i] = (float)values[i];
      values[i] = narrow[i];
    }
    source = narrow;
  }
  ts_status st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)count * size, buffer);
  if (st == TS_SUCCESS)
    st = ts_buffer_upload(ctx, *buffer, 0, source, (size_t)count * size);
  free(narrow);
  return st;
}

static int compare_doubles(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static int run_gemm(int argc, char **argv) {
  int backend = TS_BACKEND_AUTO, precision = TS_FLOAT32;
  int64_t n = 1024, m = 0, k = 0, config = 0, repeat = 10;
  bool transpose_a = false, transpose_b = false, check = false, list = false;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--n", .kind = CLI_INT, .target = &n, .imin = 0, .imax = INT32_MAX},
      {.name = "--m", .kind = CLI_INT, .target = &m, .imin = 0, .imax = INT32_MAX},
      {.name = "--k", .kind = CLI_INT, .target = &k, .imin = 0, .imax = INT32_MAX},
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      {.name = "--config", .kind = CLI_INT, .target = &config, .imin = 0, .imax = 1000},
      {.name = "--transpose-a", .kind = CLI_FLAG, .target = &transpose_a},
      {.name = "--transpose-b", .kind = CLI_FLAG, .target = &transpose_b},
      {.name = "--repeat", .kind = CLI_INT, .target = &repeat, .imin = 1, .imax = 100000},
      {.name = "--check", .kind = CLI_FLAG, .target = &check},
      {.name = "--list", .kind = CLI_FLAG, .target = &list},
      CLI_OUTPUT_OPTIONS(output),
  };
  int option_count = CLI_COUNT(options);
  const cli_syntax syntax = {"gemm", gemm_help, options, option_count, NULL, 0, 0};
  int rc = cli_parse(&syntax, argc, argv, NULL, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  if (list) {
    list_configs(output.json);
    return CLI_EXIT_OK;
  }
  if (!cli_option_seen(options, option_count, "--m"))
    m = n;
  if (!cli_option_seen(options, option_count, "--k"))
    k = n;
  ts_dtype dtype = (ts_dtype)precision;
  int64_t a_rows = transpose_a ? k : m, a_cols = transpose_a ? m : k;
  int64_t b_rows = transpose_b ? n : k, b_cols = transpose_b ? k : n;
  int64_t lda = a_rows > 1 ? a_rows : 1, ldb = b_rows > 1 ? b_rows : 1, ldc = m > 1 ? m : 1;

  int64_t a_count = 0, b_count = 0, c_count = 0;
  const char *too_large = !element_count(lda, a_cols, &a_count)   ? "A"
                          : !element_count(ldb, b_cols, &b_count) ? "B"
                          : !element_count(ldc, n, &c_count)      ? "C"
                                                                  : NULL;
  if (too_large) {
    cli_set_error("%s of m = %lld, n = %lld, k = %lld is too large: its elements' bytes pass 2^63", too_large,
                  (long long)m, (long long)n, (long long)k);
    return cli_library_error(NULL, TS_ERROR_OVERFLOW);
  }

  ts_context *ctx = NULL;
  ts_buffer *da = NULL, *db = NULL, *dc = NULL;
  double *a = NULL, *b = NULL, *c = NULL, *times = NULL;
  cli_progress progress;
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output);
  if (status != TS_SUCCESS)
    goto cleanup;
  a = random_values(a_count, 1);
  b = random_values(b_count, 2);
  c = malloc((size_t)(c_count > 0 ? c_count : 1) * sizeof(double));
  times = malloc((size_t)repeat * sizeof(double));
  if (!a || !b || !c || !times) {
    cli_set_error("no host memory for the operands");
    status = TS_ERROR_OUT_OF_MEMORY;
    goto cleanup;
  }
  status = upload(ctx, dtype, a, a_count, &da);
  if (status == TS_SUCCESS)
    status = upload(ctx, dtype, b, b_count, &db);
  if (status == TS_SUCCESS)
    status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)c_count * ts_dtype_size(dtype), &dc);
  if (status != TS_SUCCESS)
    goto cleanup;

  int chosen = 0;
  char reason[256] = "";
  status = ts_gemm_config_choose(ctx, dtype, m, n, k, &chosen, reason, sizeof reason);
  if (status != TS_SUCCESS)
    goto cleanup;
  ts_gemm_options o = {.op_a = transpose_a ? TS_OP_TRANSPOSE : TS_OP_NONE,
                       .op_b = transpose_b ? TS_OP_TRANSPOSE : TS_OP_NONE,
                       .config = (int)config};
  cli_progress_begin(&progress, "multiplying");
  double start = cli_now();
  status = ts_gemm_ex(ctx, dtype, m, n, k, 1.0, da, lda, db, ldb, 0.0, dc, ldc, &o);
  if (status == TS_SUCCESS)
    status = ts_context_sync(ctx);
  double first_ms = 1e3 * (cli_now() - start);
  for (int64_t r = 0; r < repeat && status == TS_SUCCESS; r++) {
    start = cli_now();
    status = ts_gemm_ex(ctx, dtype, m, n, k, 1.0, da, lda, db, ldb, 0.0, dc, ldc, &o);
    if (status == TS_SUCCESS)
      status = ts_context_sync(ctx);
    times[r] = 1e3 * (cli_now() - start);
    if (status == TS_SUCCESS && cli_progress_report(&progress, r + 1, repeat) != 0)
      status = TS_ERROR_CANCELLED;
  }
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  qsort(times, (size_t)repeat, sizeof(double), compare_doubles);
  double median_ms = times[repeat / 2];
  double flops = 2.0 * (double)m * (double)n * (double)k;

  ts_device_info device;
  status = ts_context_device_info(ctx, &device);
  if (status != TS_SUCCESS)
    goto cleanup;
  ts_gemm_config_info info;
  memset(&info, 0, sizeof info);
  const bool on_gpu = ts_context_backend(ctx) == TS_BACKEND_CUDA;
  int ran = config && on_gpu ? (int)config : chosen;
  if (ran > 0)
    ts_gemm_config_describe(ran, &info);
  const double gflops = median_ms > 0 ? flops / (median_ms * 1e-3) / 1e9 : 0.0;

  /* The check: sampled entries of C against a dot product in double. */
  bool checked = check && m > 0 && n > 0, pass = true;
  double worst = 0.0;
  if (checked) {
    size_t size = ts_dtype_size(dtype);
    status = ts_buffer_download(ctx, dc, 0, c, (size_t)c_count * size);
    if (status != TS_SUCCESS)
      goto cleanup;
    double u = dtype == TS_FLOAT32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    unsigned long long state = 99;
    for (int s = 0; s < GEMM_CHECK_SAMPLES; s++) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      int64_t i = (int64_t)((state >> 33) % (unsigned long long)m);
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      int64_t j = (int64_t)((state >> 33) % (unsigned long long)n);
      double got;
      if (dtype == TS_FLOAT32) {
        float f;
        memcpy(&f, (char *)c + (size_t)(i + j * ldc) * size, size);
        got = f;
      } else {
        got = c[i + j * ldc];
      }
      double sum = 0.0, magnitude = 0.0;
      for (int64_t p = 0; p < k; p++) {
        double x = transpose_a ? a[p + i * lda] : a[i + p * lda];
        double y = transpose_b ? b[j + p * ldb] : b[p + j * ldb];
        sum += x * y;
        magnitude += fabs(x * y);
      }
      double ratio = fabs(got - sum) / (2.0 * (double)(k + 2) * u * magnitude + DBL_MIN);
      if (!(ratio <= worst))
        worst = isnan(ratio) ? INFINITY : ratio;
    }
    pass = worst <= 1.0;
  }

  const char *precision_name = dtype == TS_FLOAT32 ? "single" : "double";
  if (output.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "gemm");
    cli_json_text(&out, "backend", ts_backend_name(ts_context_backend(ctx)));
    cli_fallback_json(&out, ctx);
    cli_json_text(&out, "device", device.name);
    cli_json_text(&out, "precision", precision_name);
    cli_json_int(&out, "m", m);
    cli_json_int(&out, "n", n);
    cli_json_int(&out, "k", k);
    cli_json_bool(&out, "transpose_a", transpose_a);
    cli_json_bool(&out, "transpose_b", transpose_b);
    if (ran > 0) {
      cli_json_int(&out, "config", ran);
      cli_json_text(&out, "config_name", info.name);
    } else {
      cli_json_null(&out, "config");
    }
    cli_json_bool(&out, "config_forced", config != 0 && on_gpu);
    cli_json_text(&out, "config_reason", config && on_gpu ? "forced" : reason);
    cli_json_int(&out, "repeat", repeat);
    cli_json_real(&out, "first_ms", first_ms);
    cli_json_real(&out, "median_ms", median_ms);
    cli_json_real(&out, "gflops", gflops);
    if (checked) {
      cli_json_int(&out, "check_samples", GEMM_CHECK_SAMPLES);
      cli_json_real(&out, "check_worst_ratio", worst);
    }
    cli_json_text(&out, "check", checked ? (pass ? "PASS" : "FAIL") : "not asked");
    cli_json_end(&out);
  } else {
    cli_line(stdout, "backend", "%s (%s)", ts_backend_name(ts_context_backend(ctx)), device.name);
    cli_fallback_print(stdout, ctx);
    cli_line(stdout, "product", "%s C = %s * %s, m %lld, n %lld, k %lld", dtype == TS_FLOAT32 ? "fp32" : "fp64",
             transpose_a ? "A^T" : "A", transpose_b ? "B^T" : "B", (long long)m, (long long)n, (long long)k);
    if (ran > 0)
      cli_line(stdout, "configuration", "%d %s (%s)", ran, info.name, config && on_gpu ? "forced" : reason);
    else if (config)
      cli_line(stdout, "configuration", "%s; --config %lld ignored", reason, (long long)config);
    else
      cli_line(stdout, "configuration", "%s", reason);
    cli_line(stdout, "first call", "%.3f ms", first_ms);
    cli_line(stdout, "median call", "%.3f ms over %lld calls (each synchronised)", median_ms, (long long)repeat);
    cli_line(stdout, "rate", "%.1f GFLOP/s", gflops);
    if (checked)
      cli_line(stdout, "check", "%s: %d sampled entries, largest error %.3g of the bound 2(k+2)u sum|a||b|",
               pass ? "pass" : "FAIL", GEMM_CHECK_SAMPLES, worst);
  }
  rc = pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  ts_buffer_destroy(da);
  ts_buffer_destroy(db);
  ts_buffer_destroy(dc);
  free(a);
  free(b);
  free(c);
  free(times);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_gemm = {
    .name = "gemm",
    .summary = "time and check a dense matrix product C = A*B",
    .help = gemm_help,
    .run = run_gemm,
};
