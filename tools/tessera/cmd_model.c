/* tessera model: calibrate the performance model on the GPU (writes the
 * parameter file), show a parameter file, and rank the SpMV schedules of a
 * matrix from its statistics. */
#include "cli_common.h"
#include "tessera/model.h"

#include <stdio.h>
#include <string.h>

static const char model_help[] =
    "Usage: tessera model calibrate [--out FILE] [--quiet]\n"
    "       tessera model show FILE\n"
    "       tessera model predict --params FILE --spmv MATRIX.mtx [--precision single|double]\n"
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
    "  --out FILE          calibrate: where to write the parameters\n"
    "  --params FILE       predict: the parameter file\n"
    "  --spmv FILE         predict: the Matrix Market file\n"
    "  --precision P       predict: single (default) or double\n"
    "  --quiet             no progress messages on stderr\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 on success, 1 on an error (no GPU, unreadable file),\n"
    "2 for a bad command line.\n";

static void print_params(const ts_model_params *p) {
  cli_line(stdout, "device", "%s (compute capability %d.%d, %d SMs)", p->device, p->compute_major, p->compute_minor,
           p->sm_count);
  cli_line(stdout, "limits", "%d threads, %d blocks, %d registers, %lld shared bytes per SM; L2 %.1f MiB",
           p->max_threads_per_sm, p->max_blocks_per_sm, p->registers_per_sm, (long long)p->shared_per_sm,
           (double)p->l2_bytes / (1 << 20));
  cli_line(stdout, "DRAM latency", "%.1f ns", p->dram_latency_ns);
  cli_line(stdout, "L2 latency", "%.1f ns", p->l2_latency_ns);
  cli_line(stdout, "shared latency", "%.2f ns", p->shared_latency_ns);
  cli_line(stdout, "DRAM bandwidth", "%.0f GB/s (random 32-byte sectors %.0f GB/s)", p->dram_bandwidth_gbps,
           p->dram_random_gbps);
  cli_line(stdout, "L2 bandwidth", "%.0f GB/s", p->l2_bandwidth_gbps);
  cli_line(stdout, "shared bandwidth", "%.0f GB/s", p->shared_bandwidth_gbps);
  for (int i = 0; i < p->sweep_count; i++) {
    char label[64];
    snprintf(label, sizeof label, "sweep %2.0f warps/SM", p->sweep_warps_per_sm[i]);
    cli_line(stdout, label, "%8.0f bytes in flight/SM: %6.0f GB/s", p->sweep_bytes_in_flight[i], p->sweep_gbps[i]);
  }
  cli_line(stdout, "bank conflicts", "2-way %.2fx, 4-way %.2fx, 8-way %.2fx, 16-way %.2fx, 32-way %.2fx",
           p->conflict_cost[1], p->conflict_cost[3], p->conflict_cost[7], p->conflict_cost[15], p->conflict_cost[31]);
  cli_line(stdout, "FP32 FMA", "%.3g /s (%.1f TFLOP/s)", p->fp32_ops_per_s, 2e-12 * p->fp32_ops_per_s);
  cli_line(stdout, "FP64 FMA", "%.3g /s (%.1f TFLOP/s)", p->fp64_ops_per_s, 2e-12 * p->fp64_ops_per_s);
  cli_line(stdout, "integer IMAD", "%.3g /s", p->int_ops_per_s);
  for (int i = 0; i < TS_MODEL_BARRIER_POINTS; i++) {
    char label[64];
    snprintf(label, sizeof label, "barrier %.0f threads", p->barrier_threads[i]);
    cli_line(stdout, label, "%.1f ns per wave", p->barrier_ns[i]);
  }
  cli_line(stdout, "launch", "%.2f us device, %.2f us host", p->launch_device_us, p->launch_host_us);
  cli_line(stdout, "atomicAdd", "%.3g /s distinct, %.3g /s one address", p->atomic_distinct_per_s,
           p->atomic_same_per_s);
}

static int run_calibrate(int argc, char **argv) {
  const char *out = "model-params.json";
  bool quiet = false;
  cli_option options[] = {
      {.name = "--out", .alias = "-o", .kind = CLI_TEXT, .target = &out},
      {.name = "--quiet", .kind = CLI_FLAG, .target = &quiet},
  };
  int rc = cli_parse("model calibrate", model_help, argc, argv, options, (int)(sizeof options / sizeof options[0]),
                     NULL, NULL, 0, 0, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  ts_context *ctx = NULL;
  ts_status status = cli_context_create(TS_BACKEND_CUDA, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  if (!quiet)
    fprintf(stderr, "calibrating (about 10 s)...\n");
  ts_model_params p;
  double t0 = cli_now();
  status = ts_model_calibrate(ctx, &p);
  if (status == TS_SUCCESS)
    status = ts_model_params_write_json(ctx, &p, out);
  if (status == TS_SUCCESS) {
    print_params(&p);
    cli_line(stdout, "calibration time", "%.1f s", cli_now() - t0);
    cli_line(stdout, "written", "%s", out);
  } else {
    rc = cli_library_error(ctx, status);
  }
  ts_context_destroy(ctx);
  return rc;
}

static int run_show(int argc, char **argv) {
  static const char *const names[] = {"FILE"};
  const char *path = NULL;
  int rc = cli_parse("model show", model_help, argc, argv, NULL, 0, names, &path, 1, 1, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  ts_model_params p;
  ts_status status = ts_model_params_read_json(NULL, path, &p);
  if (status == TS_SUCCESS)
    status = ts_model_params_check(NULL, &p);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  print_params(&p);
  return CLI_EXIT_OK;
}

static int run_predict(int argc, char **argv) {
  const char *params_path = NULL, *matrix_path = NULL;
  int precision = 0;
  bool quiet = false;
  cli_option options[] = {
      {.name = "--params", .kind = CLI_TEXT, .target = &params_path},
      {.name = "--spmv", .kind = CLI_TEXT, .target = &matrix_path},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      {.name = "--quiet", .kind = CLI_FLAG, .target = &quiet},
  };
  int rc = cli_parse("model predict", model_help, argc, argv, options, (int)(sizeof options / sizeof options[0]), NULL,
                     NULL, 0, 0, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  if (!params_path || !matrix_path)
    return cli_usage_error("model predict", "--params FILE and --spmv MATRIX are both required");
  ts_model_params p;
  ts_status status = ts_model_params_read_json(NULL, params_path, &p);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  ts_context *ctx = NULL;
  cli_matrix matrix = {0};
  cli_progress progress;
  status = cli_context_create(TS_BACKEND_CPU, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, quiet);
  if (status == TS_SUCCESS)
    status = cli_matrix_read(ctx, &progress, matrix_path, (ts_dtype)precision, &matrix);
  ts_csr_stats stats;
  ts_model_spmv_estimate e[TS_MODEL_SPMV_SCHEDULES];
  int count = 0;
  if (status == TS_SUCCESS)
    status = ts_csr_stats_compute(ctx, matrix.csr, &stats);
  if (status == TS_SUCCESS)
    status = ts_model_spmv_rank(ctx, &p, &stats, (ts_dtype)precision, e, &count);
  if (status == TS_SUCCESS) {
    printf("%s: %lld rows, %lld cols, %lld nnz, mean row %.3g, max row %lld (model of %s)\n", matrix_path,
           (long long)stats.rows, (long long)stats.cols, (long long)stats.nnz, stats.mean_row, (long long)stats.max_row,
           p.device);
    printf("rank  schedule        predicted\n");
    for (int i = 0; i < count; i++)
      printf("%4d  %-14s  %9.2f us%s\n", i + 1, ts_schedule_name(e[i].schedule), e[i].seconds * 1e6,
             i == 0 ? "  (model's pick)" : "");
  } else {
    rc = cli_library_error(ctx, status);
  }
  cli_matrix_release(&matrix);
  ts_context_destroy(ctx);
  return rc;
}

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
  return cli_usage_error("model", "unknown subcommand '%s' (calibrate, show, predict)", sub);
}

const cli_command cli_command_model = {
    .name = "model",
    .summary = "calibrate the performance model on the GPU, show it, rank SpMV schedules",
    .help = model_help,
    .run = run_model,
};
