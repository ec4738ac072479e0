/* tessera info: header, sizes and pattern statistics of a Matrix Market file,
 * optionally with the AMD fill estimate. */
#include "cli_common.h"

#include <stdio.h>

static const char info_help[] = "Usage: tessera info FILE [options]\n"
                                "\n"
                                "Read a Matrix Market file (plain or gzip; '-' reads standard input) and print:\n"
                                "the header (format, field, symmetry), rows, cols, the entries as stored\n"
                                "and after symmetric expansion, row-length statistics (min, mean, max,\n"
                                "stddev), empty rows and columns, the longest column, diagonal entries,\n"
                                "bandwidth max|i-j|, and the pattern and value symmetry (fraction of\n"
                                "off-diagonal entries whose mirror is stored / equal). Statistics are those\n"
                                "of the expanded matrix, with duplicate entries summed.\n"
                                "\n"
                                "Options:\n"
                                "  --fill                      add the fill estimate of an LU factorization\n"
                                "                              under the AMD ordering: nnz(L+U), nnz(L), and\n"
                                "                              nnz(L+U)/nnz(A) (needs a build with SuiteSparse\n"
                                "                              AMD, and a square matrix)\n" CLI_HELP_OUTPUT_OPTIONS "\n"
                                "Exit status: 0 on success, 1 on an error (unreadable or malformed file),\n"
                                "2 for a bad command line.\n";

static const char *const file_names[] = {"FILE"};

static int run_info(int argc, char **argv) {
  bool fill_wanted = false;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--fill", .kind = CLI_FLAG, .target = &fill_wanted},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"info", info_help, options, CLI_COUNT(options), file_names, 1, 1};
  const char *path = NULL;
  int rc = cli_parse(&syntax, argc, argv, &path, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;

  /* Everything here is host work: no GPU is initialised. */
  ts_context *ctx = NULL;
  cli_matrix matrix = {0};
  cli_progress progress;
  ts_status status = cli_context_create(TS_BACKEND_CPU, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output);
  if (status != TS_SUCCESS)
    goto cleanup;
  status = cli_matrix_read(ctx, &progress, path, TS_FLOAT64, &matrix);
  if (status != TS_SUCCESS)
    goto cleanup;
  ts_csr_stats stats;
  cli_progress_begin(&progress, "statistics");
  status = ts_csr_stats_compute(ctx, matrix.csr, &stats);
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  cli_fill fill = {0};
  if (fill_wanted) {
    cli_progress_begin(&progress, "fill estimate");
    status = cli_fill_compute(ctx, matrix.csr, &fill);
    status = cli_progress_end(&progress, status);
    if (status != TS_SUCCESS)
      goto cleanup;
  }

  const ts_mm_info *h = &matrix.header;
  int64_t duplicates = matrix.expanded - matrix.csr->nnz;
  if (output.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "info");
    cli_json_text(&out, "file", path);
    cli_json_text(&out, "format", cli_mm_format_name(h->format));
    cli_json_text(&out, "field", cli_mm_field_name(h->field));
    cli_json_text(&out, "symmetry", ts_symmetry_name(h->symmetry));
    cli_json_int(&out, "rows", matrix.csr->rows);
    cli_json_int(&out, "cols", matrix.csr->cols);
    cli_json_int(&out, "nnz_stored", matrix.stored);
    cli_json_int(&out, "nnz_expanded", matrix.expanded);
    cli_json_int(&out, "duplicates_summed", duplicates);
    cli_json_int(&out, "nnz", matrix.csr->nnz);
    cli_json_real(&out, "read_seconds", matrix.read_seconds);
    cli_stats_json(&out, &stats);
    if (fill_wanted)
      cli_fill_json(&out, &fill);
    cli_json_end(&out);
  } else {
    cli_line(stdout, "file", "%s", cli_path_label(path, false));
    cli_line(stdout, "header", "%s %s %s", cli_mm_format_name(h->format), cli_mm_field_name(h->field),
             ts_symmetry_name(h->symmetry));
    cli_line(stdout, "rows", "%lld", (long long)matrix.csr->rows);
    cli_line(stdout, "cols", "%lld", (long long)matrix.csr->cols);
    cli_line(stdout, "nnz stored", "%lld", (long long)matrix.stored);
    if (h->symmetry != TS_GENERAL)
      cli_line(stdout, "nnz expanded", "%lld (both triangles)", (long long)matrix.expanded);
    if (duplicates > 0)
      cli_line(stdout, "duplicates", "%lld (summed)", (long long)duplicates);
    cli_line(stdout, "nnz", "%lld", (long long)matrix.csr->nnz);
    cli_stats_print(stdout, &stats);
    if (fill_wanted)
      cli_fill_print(stdout, &fill);
    cli_line(stdout, "read time", "%.3f s", matrix.read_seconds);
  }

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  cli_matrix_release(&matrix);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_info = {
    .name = "info",
    .summary = "print the header and pattern statistics of a Matrix Market file",
    .help = info_help,
    .run = run_info,
};
