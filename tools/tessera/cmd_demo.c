/* tessera demo: y = A*x for a generated 2-D 5-point Laplacian, timed on the
 * chosen backend and checked against the host reference in double. */
#include "cli_spmv.h"

#include <stdio.h>

/* Default grid sides: 4096^2 = 16.8 M rows (84 M nonzeros) fills a GPU's
 * bandwidth; 1024^2 keeps a CPU run to a few seconds on two cores. */
#define DEMO_GPU_SIDE 4096
#define DEMO_CPU_SIDE 1024
/* The largest side whose N*N rows fit 32-bit indices. */
#define DEMO_MAX_SIDE 46340

static const char demo_help[] = "Usage: tessera demo [options]\n"
                                "\n"
                                "Generate a 2-D 5-point Laplacian (4 on the diagonal, -1 to the grid\n"
                                "neighbours), run SpMV y = A*x through the plan API on the chosen backend,\n"
                                "time it, and check y against the host reference computed in double.\n"
                                "The plan's schedule is AUTO: the schedule it chose and why are printed.\n"
                                "\n"
                                "Options:\n"
                                "  --backend auto|cpu|cuda     where to run (default auto: the GPU when one is\n"
                                "                              usable, else the CPU, saying why)\n"
                                "  --precision single|double   value type (default double)\n"
                                "  --size N                    grid side: N*N rows, about 5*N*N nonzeros\n"
                                "                              (default 4096 on cuda, 1024 on cpu; at most 46340)\n"
                                "  --repeat R                  calls per timed burst (default: as many as take\n"
                                "                              about 0.1 s)\n" CLI_HELP_OUTPUT_OPTIONS "\n"
                                "Timing: one warm-up call, then 5 bursts of R calls, each burst ending in a\n"
                                "single ts_context_sync; the time per call is the median over the bursts.\n"
                                "Bandwidth is ts_spmv_plan_bytes (matrix, x, y) divided by that time.\n"
                                "The check passes when max_i |y_i - yref_i| / (|A||x|)_i is within the\n"
                                "rounding bound of the longest row.\n"
                                "\n"
                                "Numbers may be written 4096, 1e3 or 2^12.\n"
                                "Exit status: 0 when the check passes, 1 when it fails or on an error,\n"
                                "2 for a bad command line, 130 when cancelled.\n";

static int run_demo(int argc, char **argv) {
  int backend = TS_BACKEND_AUTO, precision = TS_FLOAT64;
  int64_t side = 0, repeat = 0;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      {.name = "--size", .kind = CLI_INT, .target = &side, .imin = 1, .imax = DEMO_MAX_SIDE},
      {.name = "--repeat", .kind = CLI_INT, .target = &repeat, .imin = 1, .imax = 1000000},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"demo", demo_help, options, CLI_COUNT(options), NULL, 0, 0};
  int rc = cli_parse(&syntax, argc, argv, NULL, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;

  ts_context *ctx = NULL;
  ts_csr *a = NULL;
  cli_progress progress;
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output);
  if (status != TS_SUCCESS)
    goto cleanup;
  if (side == 0)
    side = ts_context_backend(ctx) == TS_BACKEND_CUDA ? DEMO_GPU_SIDE : DEMO_CPU_SIDE;

  double start = cli_now();
  cli_progress_begin(&progress, "generating");
  status = ts_gen_laplacian_2d(ctx, side, side, (ts_dtype)precision, &a);
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  double generate_seconds = cli_now() - start;

  cli_spmv_run run;
  cli_spmv_request request = {TS_SCHEDULE_AUTO, 0, TS_OP_NONE, repeat};
  status = cli_spmv_measure_run(ctx, &progress, a, &request, &run);
  if (status != TS_SUCCESS)
    goto cleanup;

  char name[64];
  snprintf(name, sizeof name, "laplacian2d %lldx%lld", (long long)side, (long long)side);
  if (output.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "demo");
    cli_json_int(&out, "grid_side", side);
    cli_json_real(&out, "generate_seconds", generate_seconds);
    cli_spmv_run_json(&out, name, &run);
    cli_json_end(&out);
  } else {
    cli_spmv_run_print(stdout, name, &run);
  }
  rc = run.result.pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_demo = {
    .name = "demo",
    .summary = "time and check SpMV on a generated 2-D Laplacian",
    .help = demo_help,
    .run = run_demo,
};
