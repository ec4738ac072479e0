/* tessera info: header, sizes and pattern statistics of a Matrix Market file,
 * optionally with the AMD fill estimate. */
#include "cli_common.h"

#include <stdio.h>

static const char info_help[] = "Usage: tessera info FILE [options]\n"
                                "\n"
                                "Read a Matrix Market file (plain or gzip; '-' reads standard input) and\n"
                                "print: the header (format, field, symmetry), rows, cols, the entries as\n"
                                "stored and after symmetric expansion, row-length statistics (min, mean,\n"
                                "max, stddev), empty rows and columns, the longest column, diagonal\n"
                                "entries, bandwidth max|i-j|, and the pattern and value symmetry (fraction\n"
                                "of off-diagonal entries whose mirror is stored / equal). Statistics are\n"
                                "those of the expanded matrix, with duplicate entries summed.\n"
                                "\n"
                                "Options:\n"
                                "  --fill                      add the fill estimate of an LU factorization\n"
                                "                              under the AMD ordering: nnz(L+U), nnz(L), and\n"
                                "                              nnz(L+U)/nnz(A) (needs a build with SuiteSparse\n"
                                "                              AMD, and a square matrix)\n" CLI_HELP_OUTPUT_OPTIONS "\n"
                                "Exit status: 0 on success, 1 on an error (unreadable or malformed file),\n"
                                "2 for a bad command line, 130 when cancelled.\n";

static const char *const file_names[] = {"FILE"};

/* The matrix with the counts of its storage: entries as stored, after the
 * symmetric expansion, and after duplicates are summed (the library's
 * ts_mm_read_csr() gives only the last). */
typedef struct info_matrix {
  ts_csr *csr;       /* general storage, duplicates summed */
  ts_mm_info header; /* what the file declared */
  int64_t stored;    /* entries as stored */
  int64_t expanded;  /* entries after the symmetric expansion, before duplicates are summed */
  double read_seconds;
} info_matrix;

static ts_status read_with_counts(ts_context *ctx, cli_progress *progress, const char *path, info_matrix *matrix) {
  ts_coo *stored = NULL, *general = NULL;
  double start = cli_now();
  cli_progress_begin(progress, "reading");
  ts_status status = cli_mm_read(ctx, path, TS_FLOAT64, &stored, &matrix->header);
  status = cli_progress_end(progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  matrix->stored = stored->nnz;
  const ts_coo *source = stored;
  if (stored->symmetry != TS_GENERAL) {
    cli_progress_begin(progress, "expanding symmetric storage");
    status = ts_coo_expand_symmetric(ctx, stored, &general);
    status = cli_progress_end(progress, status);
    if (status != TS_SUCCESS)
      goto cleanup;
    source = general;
  }
  matrix->expanded = source->nnz;
  /* Matrix Market forbids duplicate entries but some files have them; they are summed, as most readers do. */
  cli_progress_begin(progress, "converting to CSR");
  status = ts_csr_from_coo(ctx, source, TS_DUPLICATES_SUM, &matrix->csr);
  status = cli_progress_end(progress, status);
  matrix->read_seconds = cli_now() - start;
cleanup:
  ts_coo_destroy(general);
  ts_coo_destroy(stored);
  return status;
}

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
  info_matrix matrix = {0};
  cli_progress progress;
  ts_status status = cli_context_create(TS_BACKEND_CPU, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output);
  if (status != TS_SUCCESS)
    goto cleanup;
  status = read_with_counts(ctx, &progress, path, &matrix);
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
  ts_csr_destroy(matrix.csr);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_info = {
    .name = "info",
    .summary = "print the header and pattern statistics of a Matrix Market file",
    .help = info_help,
    .run = run_info,
};
