/* tessera spmv: y = A*x or A^T*x for a matrix read from a Matrix Market
 * file, with one schedule, AUTO, or each schedule in turn, timed on the
 * chosen backend and checked against the host reference in double. */
#include "cli_spmv.h"

#include <stdio.h>

static const char spmv_help[] = "Usage: tessera spmv FILE [options]\n"
                                "\n"
                                "Read a Matrix Market file (plain or gzip; '-' reads standard input),\n"
                                "expand symmetric storage to both triangles (duplicate entries are summed,\n"
                                "pattern entries read as 1),\n"
                                "run SpMV y = A*x through the plan API on the chosen backend, time it, and\n"
                                "check y against the host reference computed in double.\n"
                                "\n"
                                "Options:\n"
                                "  --backend auto|cpu|cuda     where to run (default auto: the GPU when one is\n"
                                "                              usable, else the CPU, saying why)\n"
                                "  --precision single|double   value type (default double)\n"
                                "  --schedule S                how the GPU maps work to threads: auto, thread,\n"
                                "                              warp, block, group, merge-path, work, split,\n"
                                "                              or all\n"
                                "                              (each in turn, auto last; default auto)\n"
                                "  --group-size N              threads per group for --schedule group: a power\n"
                                "                              of two, 1 to 1024; threads per short row for\n"
                                "                              --schedule split: 1, 2, 4 or 8 (default: chosen)\n"
                                "  --transpose                 y = A^T*x instead of A*x\n"
                                "  --repeat N                  calls per timed burst (default: as many as take\n"
                                "                              about 0.1 s)\n" CLI_HELP_OUTPUT_OPTIONS "\n"
                                "The schedule and the reason for it (the statistics and thresholds behind\n"
                                "an auto choice) are always printed. The CPU backend has one implementation:\n"
                                "the schedule is recorded, not used, and --schedule all runs it once and\n"
                                "says so. Timing and check as in `tessera demo --help`.\n"
                                "Exit status: 0 when the check passes, 1 when it fails or on an error,\n"
                                "2 for a bad command line, 130 when cancelled.\n";

static const char *const file_names[] = {"FILE"};

static int run_spmv(int argc, char **argv) {
  int backend = TS_BACKEND_AUTO, precision = TS_FLOAT64, schedule = TS_SCHEDULE_AUTO;
  int64_t repeat = 0, group_size = 0;
  bool transpose = false;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      {.name = "--schedule", .kind = CLI_CHOICE, .target = &schedule, .choices = cli_schedule_choices},
      {.name = "--group-size", .kind = CLI_INT, .target = &group_size, .imin = 1, .imax = 1024},
      {.name = "--transpose", .kind = CLI_FLAG, .target = &transpose},
      {.name = "--repeat", .kind = CLI_INT, .target = &repeat, .imin = 1, .imax = 1000000},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"spmv", spmv_help, options, CLI_COUNT(options), file_names, 1, 1};
  const char *path = NULL;
  int rc = cli_parse(&syntax, argc, argv, &path, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  if (group_size & (group_size - 1))
    return cli_usage_error("spmv", "--group-size %lld is not a power of two", (long long)group_size);
  if (group_size > 8 && schedule == TS_SCHEDULE_SPLIT_ROWS)
    return cli_usage_error("spmv", "--group-size %lld: split takes 1, 2, 4 or 8 threads a short row",
                           (long long)group_size);
  if (group_size > 0 && schedule != TS_SCHEDULE_GROUP_MAPPED && schedule != TS_SCHEDULE_SPLIT_ROWS &&
      schedule != TS_SCHEDULE_AUTO && schedule != CLI_SCHEDULE_ALL)
    return cli_usage_error("spmv", "--group-size applies to --schedule group or split (or auto, all), not %s",
                           cli_schedule_choices[schedule]);

  ts_context *ctx = NULL;
  cli_matrix matrix = {0};
  cli_spmv_run runs[TS_SCHEDULE_COUNT];
  int run_count = 0;
  cli_progress progress;
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output);
  if (status != TS_SUCCESS)
    goto cleanup;
  status = cli_matrix_read(ctx, &progress, path, (ts_dtype)precision, &matrix);
  if (status != TS_SUCCESS)
    goto cleanup;

  /* One schedule, or each in turn with AUTO last; the CPU backend, which has
   * one implementation, runs it once for all. */
  bool all = schedule == CLI_SCHEDULE_ALL;
  bool one_implementation = all && ts_context_backend(ctx) != TS_BACKEND_CUDA;
  int first = all ? (one_implementation ? TS_SCHEDULE_COUNT : 1) : schedule;
  int last = all ? TS_SCHEDULE_COUNT : schedule;
  for (int s = first; s <= last; s++) {
    cli_spmv_request request = {(ts_schedule)(s % TS_SCHEDULE_COUNT), (int)group_size,
                                transpose ? TS_OP_TRANSPOSE : TS_OP_NONE, repeat};
    status = cli_spmv_measure_run(ctx, &progress, matrix.csr, &request, &runs[run_count]);
    if (status != TS_SUCCESS)
      goto cleanup;
    runs[run_count].all_requested = one_implementation;
    run_count++;
  }
  bool pass = true;
  for (int i = 0; i < run_count; i++)
    pass = pass && runs[i].result.pass;
  bool table = all && !one_implementation;
  if (output.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "spmv");
    cli_json_text(&out, "file", path);
    cli_json_text(&out, "symmetry", ts_symmetry_name(matrix.header.symmetry));
    cli_json_int(&out, "nnz_stored", matrix.stored);
    cli_json_real(&out, "read_seconds", matrix.read_seconds);
    if (table)
      cli_spmv_runs_json(&out, path, runs, run_count);
    else
      cli_spmv_run_json(&out, path, &runs[0]);
    cli_json_end(&out);
  } else if (table) {
    cli_spmv_runs_print(stdout, cli_path_label(path, false), runs, run_count);
  } else {
    cli_spmv_run_print(stdout, cli_path_label(path, false), &runs[0]);
  }
  rc = pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  cli_matrix_release(&matrix);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_spmv = {
    .name = "spmv",
    .summary = "time and check SpMV (any schedule, A or A^T) on a Matrix Market file",
    .help = spmv_help,
    .run = run_spmv,
};
