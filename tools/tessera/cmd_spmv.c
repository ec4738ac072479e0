/* tessera spmv: y = A*x for a matrix read from a Matrix Market file, timed on
 * the chosen backend and checked against the host reference in double. */
#include "cli_common.h"

#include <stdio.h>

static const char spmv_help[] = "Usage: tessera spmv FILE [options]\n"
                                "\n"
                                "Read a Matrix Market file (plain or gzip), expand symmetric storage to\n"
                                "both triangles (duplicate entries are summed, pattern entries read as 1),\n"
                                "run SpMV y = A*x through the plan API on the chosen backend, time it, and\n"
                                "check y against the host reference computed in double.\n"
                                "\n"
                                "Options:\n"
                                "  --backend auto|cpu|cuda     where to run (default auto: the GPU when one is\n"
                                "                              usable, else the CPU)\n"
                                "  --precision single|double   value type (default double)\n"
                                "  --repeat N                  calls per timed burst (default: as many as take\n"
                                "                              about 0.1 s)\n"
                                "  --json                      print one JSON object on stdout, nothing else\n"
                                "  --quiet                     no progress messages on stderr\n"
                                "  -h, --help                  show this help\n"
                                "\n"
                                "Timing and check as in `tessera demo --help`.\n"
                                "Exit status: 0 when the check passes, 1 when it fails or on an error,\n"
                                "2 for a bad command line.\n";

static const char *const file_names[] = {"FILE"};

static int run_spmv(int argc, char **argv) {
  int backend = TS_BACKEND_AUTO, precision = TS_FLOAT64;
  int64_t repeat = 0;
  bool json = false, quiet = false;
  cli_option options[] = {
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      {.name = "--repeat", .kind = CLI_INT, .target = &repeat, .imin = 1, .imax = 1000000},
      {.name = "--json", .kind = CLI_FLAG, .target = &json},
      {.name = "--quiet", .kind = CLI_FLAG, .target = &quiet},
  };
  const char *path = NULL;
  int rc = cli_parse("spmv", spmv_help, argc, argv, options, (int)(sizeof options / sizeof options[0]), file_names,
                     &path, 1, 1, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;

  ts_context *ctx = NULL;
  cli_matrix matrix = {0};
  cli_progress progress;
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, quiet);
  if (status != TS_SUCCESS)
    goto cleanup;
  status = cli_matrix_read(ctx, &progress, path, (ts_dtype)precision, &matrix);
  if (status != TS_SUCCESS)
    goto cleanup;

  cli_spmv_result result;
  status = cli_spmv_measure(ctx, &progress, matrix.csr, repeat, &result);
  if (status != TS_SUCCESS)
    goto cleanup;
  if (json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "spmv");
    cli_json_text(&out, "file", path);
    cli_json_text(&out, "symmetry", ts_symmetry_name(matrix.header.symmetry));
    cli_json_int(&out, "nnz_stored", matrix.stored);
    cli_json_real(&out, "read_seconds", matrix.read_seconds);
    cli_spmv_json(&out, path, &result);
    cli_json_end(&out);
  } else {
    cli_spmv_print(stdout, path, &result);
  }
  rc = result.pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  cli_matrix_release(&matrix);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_spmv = {
    .name = "spmv",
    .summary = "time and check SpMV on a Matrix Market file",
    .help = spmv_help,
    .run = run_spmv,
};
