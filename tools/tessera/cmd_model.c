/* tessera model: calibrate the performance model on the GPU (writes the
 * parameter file), show a parameter file, and rank the SpMV schedules of a
 * matrix from its statistics. */
#include "cli_common.h"
#include "cli_suggest.h"
#include "tessera/model.h"

#include <stdio.h>
#include <string.h>

static const char model_help[] =
    "Usage: tessera model calibrate [--out FILE] [--json] [--quiet]\n"
    "       tessera model show FILE [--json]\n"
    "       tessera model predict --params FILE --spmv MATRIX.mtx [--precision single|double] [--json]\n"
    "\n"
    "The performance model of include/tessera/model.h (docs/model.md): a kernel\n"
    "as synchronous rounds whose cost is set by memory latency hidden by the\n"
    "warps in flight, bandwidth, shared memory, operations and barriers.\n"
    "\n"
    "  calibrate   run the microbenchmarks on the GPU (about 10 s): memory and\n"
    "              L2 latency, bandwidth against warps per SM, shared memory,\n"
    "              bank conflicts, FMA and integer throughput, barriers,\n"
    "              launches, atomics; print a table and write the parameters\n"
    "              as JSON to FILE (default model-params.json)\n"
    "  show        print the table of a parameter file\n"
    "  predict     predicted time of each SpMV schedule on the matrix, fastest\n"
    "              first, from its row statistics and the parameter file\n"
    "\n"
    "Options:\n"
    "  -o, --out FILE              calibrate: where to write the parameters\n"
    "                              (through a temporary file beside it; '-':\n"
    "                              standard output, the table then on stderr)\n"
    "  --params FILE               predict: the parameter file\n"
    "  --spmv FILE                 predict: the Matrix Market file\n"
    "  --precision P               predict: single (default) or double\n" CLI_HELP_OUTPUT_OPTIONS "\n"
    "A FILE read may be '-' (standard input), for one of them at a time.\n"
    "Exit status: 0 on success, 1 on an error (no GPU, unreadable file),\n"
    "2 for a bad command line, 130 when cancelled.\n";

static void print_params(FILE *out, const ts_model_params *p) {
  cli_line(out, "device", "%s (compute capability %d.%d, %d SMs)", p->device, p->compute_major, p->compute_minor,
           p->sm_count);
  cli_line(out, "limits", "%d threads, %d blocks, %d registers, %lld shared bytes per SM; L2 %.1f MiB",
           p->max_threads_per_sm, p->max_blocks_per_sm, p->registers_per_sm, (long long)p->shared_per_sm,
           (double)p->l2_bytes / (1 << 20));
  cli_line(out, "DRAM latency", "%.1f ns", p->dram_latency_ns);
  cli_line(out, "L2 latency", "%.1f ns", p->l2_latency_ns);
  cli_line(out, "shared latency", "%.2f ns", p->shared_latency_ns);
  cli_line(out, "DRAM bandwidth", "%.0f GB/s (random 32-byte sectors %.0f GB/s)", p->dram_bandwidth_gbps,
           p->dram_random_gbps);
  cli_line(out, "L2 bandwidth", "%.0f GB/s", p->l2_bandwidth_gbps);
  cli_line(out, "shared bandwidth", "%.0f GB/s", p->shared_bandwidth_gbps);
  for (int i = 0; i < p->sweep_count; i++) {
    char label[64];
    snprintf(label, sizeof label, "sweep %2.0f warps/SM", p->sweep_warps_per_sm[i]);
    cli_line(out, label, "%8.0f bytes in flight/SM: %6.0f GB/s", p->sweep_bytes_in_flight[i], p->sweep_gbps[i]);
  }
  cli_line(out, "bank conflicts", "2-way %.2fx, 4-way %.2fx, 8-way %.2fx, 16-way %.2fx, 32-way %.2fx",
           p->conflict_cost[1], p->conflict_cost[3], p->conflict_cost[7], p->conflict_cost[15], p->conflict_cost[31]);
  cli_line(out, "FP32 FMA", "%.3g /s (%.1f TFLOP/s)", p->fp32_ops_per_s, 2e-12 * p->fp32_ops_per_s);
  cli_line(out, "FP64 FMA", "%.3g /s (%.1f TFLOP/s)", p->fp64_ops_per_s, 2e-12 * p->fp64_ops_per_s);
  cli_line(out, "integer IMAD", "%.3g /s", p->int_ops_per_s);
  for (int i = 0; i < TS_MODEL_BARRIER_POINTS; i++) {
    char label[64];
    snprintf(label, sizeof label, "barrier %.0f threads", p->barrier_threads[i]);
    cli_line(out, label, "%.1f ns per wave", p->barrier_ns[i]);
  }
  cli_line(out, "launch", "%.2f us device, %.2f us host", p->launch_device_us, p->launch_host_us);
  cli_line(out, "atomicAdd", "%.3g /s distinct, %.3g /s one address", p->atomic_distinct_per_s, p->atomic_same_per_s);
}

/* The members of the table above, as the object "params". */
static void params_json(cli_json *json, const ts_model_params *p) {
  cli_json_object(json, "params");
  cli_json_text(json, "device", p->device);
  cli_json_int(json, "compute_major", p->compute_major);
  cli_json_int(json, "compute_minor", p->compute_minor);
  cli_json_int(json, "sm_count", p->sm_count);
  cli_json_int(json, "max_threads_per_sm", p->max_threads_per_sm);
  cli_json_int(json, "max_blocks_per_sm", p->max_blocks_per_sm);
  cli_json_int(json, "registers_per_sm", p->registers_per_sm);
  cli_json_int(json, "shared_per_sm", p->shared_per_sm);
  cli_json_int(json, "l2_bytes", p->l2_bytes);
  cli_json_real(json, "dram_latency_ns", p->dram_latency_ns);
  cli_json_real(json, "l2_latency_ns", p->l2_latency_ns);
  cli_json_real(json, "shared_latency_ns", p->shared_latency_ns);
  cli_json_real(json, "dram_bandwidth_gbps", p->dram_bandwidth_gbps);
  cli_json_real(json, "dram_random_gbps", p->dram_random_gbps);
  cli_json_real(json, "l2_bandwidth_gbps", p->l2_bandwidth_gbps);
  cli_json_real(json, "shared_bandwidth_gbps", p->shared_bandwidth_gbps);
  cli_json_object(json, "sweep_gbps_by_warps_per_sm");
  for (int i = 0; i < p->sweep_count; i++) {
    char key[32];
    snprintf(key, sizeof key, "%.0f", p->sweep_warps_per_sm[i]);
    cli_json_real(json, key, p->sweep_gbps[i]);
  }
  cli_json_close(json);
  cli_json_object(json, "conflict_cost_by_ways");
  for (int ways = 2; ways <= TS_MODEL_MAX_CONFLICT; ways *= 2) {
    char key[16];
    snprintf(key, sizeof key, "%d", ways);
    cli_json_real(json, key, p->conflict_cost[ways - 1]);
  }
  cli_json_close(json);
  cli_json_real(json, "fp32_ops_per_s", p->fp32_ops_per_s);
  cli_json_real(json, "fp64_ops_per_s", p->fp64_ops_per_s);
  cli_json_real(json, "int_ops_per_s", p->int_ops_per_s);
  cli_json_object(json, "barrier_ns_by_threads");
  for (int i = 0; i < TS_MODEL_BARRIER_POINTS; i++) {
    char key[32];
    snprintf(key, sizeof key, "%.0f", p->barrier_threads[i]);
    cli_json_real(json, key, p->barrier_ns[i]);
  }
  cli_json_close(json);
  cli_json_real(json, "launch_device_us", p->launch_device_us);
  cli_json_real(json, "launch_host_us", p->launch_host_us);
  cli_json_real(json, "atomic_distinct_per_s", p->atomic_distinct_per_s);
  cli_json_real(json, "atomic_same_per_s", p->atomic_same_per_s);
  cli_json_close(json);
}

static ts_status write_params(ts_context *ctx, const char *path, const void *params) {
  return ts_model_params_write_json(ctx, params, path);
}

/* A parameter file, or standard input for "-" (the reader takes a path). */
static ts_status read_params(const char *path, ts_model_params *p) {
  ts_status status = ts_model_params_read_json(NULL, cli_is_stdio(path) ? "/dev/stdin" : path, p);
  if (status == TS_SUCCESS)
    status = ts_model_params_check(NULL, p);
  return status;
}

static int run_calibrate(int argc, char **argv) {
  const char *out = "model-params.json";
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--out", .short_name = 'o', .kind = CLI_TEXT, .target = &out},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"model calibrate", model_help, options, CLI_COUNT(options), NULL, 0, 0};
  int rc = cli_parse(&syntax, argc, argv, NULL, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  rc = cli_check_paths("model calibrate", NULL, 0, &out, 1, output.json);
  if (rc != 0)
    return rc;
  /* With the parameters on stdout, the table goes to stderr. */
  FILE *report = cli_is_stdio(out) ? stderr : stdout;
  ts_context *ctx = NULL;
  cli_progress progress;
  ts_status status = cli_context_create(TS_BACKEND_CUDA, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output);
  ts_model_params p;
  double t0 = cli_now();
  if (status == TS_SUCCESS) {
    if (!output.quiet)
      fprintf(stderr, "calibrating (about 10 s)...\n");
    cli_progress_begin(&progress, "calibrating");
    status = ts_model_calibrate(ctx, &p);
    status = cli_progress_end(&progress, status);
  }
  if (status == TS_SUCCESS)
    status = cli_write_through_temporary(ctx, out, write_params, &p);
  if (status != TS_SUCCESS) {
    rc = cli_library_error(ctx, status);
  } else if (output.json) {
    cli_json json;
    cli_json_begin(&json, stdout);
    cli_json_text(&json, "command", "model calibrate");
    cli_json_text(&json, "written", out);
    cli_json_real(&json, "seconds", cli_now() - t0);
    params_json(&json, &p);
    cli_json_end(&json);
  } else {
    print_params(report, &p);
    cli_line(report, "calibration time", "%.1f s", cli_now() - t0);
    cli_line(report, "written", "%s", cli_path_label(out, true));
  }
  ts_context_destroy(ctx);
  return rc;
}

static int run_show(int argc, char **argv) {
  static const char *const names[] = {"FILE"};
  cli_output_flags output = {0};
  cli_option options[] = {CLI_OUTPUT_OPTIONS(output)};
  const cli_syntax syntax = {"model show", model_help, options, CLI_COUNT(options), names, 1, 1};
  const char *path = NULL;
  int rc = cli_parse(&syntax, argc, argv, &path, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  ts_model_params p;
  ts_status status = read_params(path, &p);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  if (output.json) {
    cli_json json;
    cli_json_begin(&json, stdout);
    cli_json_text(&json, "command", "model show");
    cli_json_text(&json, "file", path);
    params_json(&json, &p);
    cli_json_end(&json);
  } else {
    print_params(stdout, &p);
  }
  return CLI_EXIT_OK;
}

static int run_predict(int argc, char **argv) {
  const char *params_path = NULL, *matrix_path = NULL;
  int precision = 0;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--params", .kind = CLI_TEXT, .target = &params_path},
      {.name = "--spmv", .kind = CLI_TEXT, .target = &matrix_path},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"model predict", model_help, options, CLI_COUNT(options), NULL, 0, 0};
  int rc = cli_parse(&syntax, argc, argv, NULL, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  if (!params_path || !matrix_path)
    return cli_usage_error("model predict", "--params FILE and --spmv MATRIX are both required");
  const char *inputs[] = {params_path, matrix_path};
  rc = cli_check_paths("model predict", inputs, 2, NULL, 0, output.json);
  if (rc != 0)
    return rc;
  ts_model_params p;
  ts_status status = read_params(params_path, &p);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  ts_context *ctx = NULL;
  cli_matrix matrix = {0};
  cli_progress progress;
  status = cli_context_create(TS_BACKEND_CPU, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output);
  if (status == TS_SUCCESS)
    status = cli_matrix_read(ctx, &progress, matrix_path, (ts_dtype)precision, &matrix);
  ts_csr_stats stats;
  ts_model_spmv_estimate e[TS_MODEL_SPMV_SCHEDULES];
  int count = 0;
  if (status == TS_SUCCESS)
    status = ts_csr_stats_compute(ctx, matrix.csr, &stats);
  if (status == TS_SUCCESS)
    status = ts_model_spmv_rank(ctx, &p, &stats, (ts_dtype)precision, e, &count);
  if (status != TS_SUCCESS) {
    rc = cli_library_error(ctx, status);
  } else if (output.json) {
    cli_json json;
    cli_json_begin(&json, stdout);
    cli_json_text(&json, "command", "model predict");
    cli_json_text(&json, "matrix", matrix_path);
    cli_json_text(&json, "params", params_path);
    cli_json_text(&json, "model_device", p.device);
    cli_json_text(&json, "precision", precision == TS_FLOAT32 ? "single" : "double");
    cli_json_int(&json, "rows", stats.rows);
    cli_json_int(&json, "cols", stats.cols);
    cli_json_int(&json, "nnz", stats.nnz);
    cli_json_real(&json, "mean_row", stats.mean_row);
    cli_json_int(&json, "max_row", stats.max_row);
    cli_json_text(&json, "pick", count > 0 ? ts_schedule_name(e[0].schedule) : NULL);
    cli_json_object(&json, "predicted_us");
    for (int i = 0; i < count; i++)
      cli_json_real(&json, ts_schedule_name(e[i].schedule), e[i].seconds * 1e6);
    cli_json_close(&json);
    cli_json_end(&json);
  } else {
    printf("%s: %lld rows, %lld cols, %lld nnz, mean row %.3g, max row %lld (model of %s)\n",
           cli_path_label(matrix_path, false), (long long)stats.rows, (long long)stats.cols, (long long)stats.nnz,
           stats.mean_row, (long long)stats.max_row, p.device);
    printf("rank  schedule        predicted\n");
    for (int i = 0; i < count; i++)
      printf("%4d  %-14s  %9.2f us%s\n", i + 1, ts_schedule_name(e[i].schedule), e[i].seconds * 1e6,
             i == 0 ? "  (model's pick)" : "");
  }
  cli_matrix_release(&matrix);
  ts_context_destroy(ctx);
  return rc;
}

static const char *const subcommands[] = {"calibrate", "show", "predict"};

static int run_model(int argc, char **argv) {
  if (argc < 2)
    return cli_usage_error("model", "a subcommand is required: calibrate, show or predict");
  const char *sub = argv[1];
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
    fputs(model_help, stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(sub, "calibrate") == 0)
    return run_calibrate(argc - 1, argv + 1);
  if (strcmp(sub, "show") == 0)
    return run_show(argc - 1, argv + 1);
  if (strcmp(sub, "predict") == 0)
    return run_predict(argc - 1, argv + 1);
  const char *closest = cli_suggest(sub, subcommands, CLI_COUNT(subcommands));
  if (closest)
    return cli_usage_error("model", "unknown subcommand '%s'; did you mean '%s'?", sub, closest);
  return cli_usage_error("model", "unknown subcommand '%s' (calibrate, show, predict)", sub);
}

const cli_command cli_command_model = {
    .name = "model",
    .summary = "calibrate the performance model on the GPU, show it, rank SpMV schedules",
    .help = model_help,
    .run = run_model,
};
