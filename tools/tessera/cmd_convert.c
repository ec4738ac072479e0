/* tessera convert: read a Matrix Market file and write it again, optionally
 * expanded to general storage, with another field or value precision. */
#include "cli_common.h"

#include <stdio.h>

static const char *const field_choices[] = {"real", "integer", "pattern", NULL}; /* = ts_mm_field */

static const char convert_help[] = "Usage: tessera convert IN OUT [options]\n"
                                   "\n"
                                   "Read the Matrix Market file IN (plain or gzip) and write OUT as Matrix\n"
                                   "Market coordinate text, gzip-compressed when OUT ends in .gz. '-' as IN\n"
                                   "reads standard input, as OUT writes standard output (plain text; the\n"
                                   "summary line then goes to stderr). OUT is written to a temporary file\n"
                                   "beside it that replaces it only when complete; an OUT that is IN (the\n"
                                   "same file, through links too) is refused. Entries keep the order of IN\n"
                                   "(array files become coordinate files, every value an entry); the\n"
                                   "symmetry of the banner is kept unless --expand-symmetric.\n"
                                   "\n"
                                   "Options:\n"
                                   "  --expand-symmetric          write both triangles of a symmetric,\n"
                                   "                              skew-symmetric or hermitian file, as general\n"
                                   "  --field real|integer|pattern\n"
                                   "                              field of OUT (default: the field of IN);\n"
                                   "                              pattern drops the values\n"
                                   "  --precision single|double   value type the entries are read into (default\n"
                                   "                              double); values are written with the shortest\n"
                                   "                              text that reads back exactly in that type\n"
                                   "  --json                      print one JSON object on stdout instead of the\n"
                                   "                              summary line (not with OUT '-')\n"
                                   "  --progress                  show progress on stderr even when it is not a\n"
                                   "                              terminal (a line a second)\n"
                                   "  --quiet                     no progress on stderr, no summary line\n"
                                   "  -h, --help                  show this help\n"
                                   "\n"
                                   "Exit status: 0 on success, 1 on an error, 2 for a bad command line,\n"
                                   "130 when cancelled.\n";

static const char *const convert_names[] = {"IN", "OUT"};

static int run_convert(int argc, char **argv) {
  bool expand = false;
  int field = -1, precision = TS_FLOAT64;
  cli_output_flags output_flags = {0};
  cli_option options[] = {
      {.name = "--expand-symmetric", .kind = CLI_FLAG, .target = &expand},
      {.name = "--field", .kind = CLI_CHOICE, .target = &field, .choices = field_choices},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      CLI_OUTPUT_OPTIONS(output_flags),
  };
  const cli_syntax syntax = {"convert", convert_help, options, CLI_COUNT(options), convert_names, 2, 2};
  const char *paths[2] = {NULL, NULL};
  int rc = cli_parse(&syntax, argc, argv, paths, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  rc = cli_check_paths("convert", &paths[0], 1, &paths[1], 1, output_flags.json);
  if (rc != 0)
    return rc;
  /* With the matrix on stdout, the summary goes to stderr. */
  FILE *report = cli_is_stdio(paths[1]) ? stderr : stdout;

  ts_context *ctx = NULL;
  ts_coo *stored = NULL, *general = NULL;
  cli_progress progress;
  ts_mm_info header;
  ts_status status = cli_context_create(TS_BACKEND_CPU, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output_flags);
  if (status != TS_SUCCESS)
    goto cleanup;

  double start = cli_now();
  cli_progress_begin(&progress, "reading");
  status = cli_mm_read(ctx, paths[0], (ts_dtype)precision, &stored, &header);
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  const ts_coo *matrix = stored;
  if (expand && stored->symmetry != TS_GENERAL) {
    cli_progress_begin(&progress, "expanding symmetric storage");
    status = ts_coo_expand_symmetric(ctx, stored, &general);
    status = cli_progress_end(&progress, status);
    if (status != TS_SUCCESS)
      goto cleanup;
    matrix = general;
  }

  ts_mm_write_options write_options = {0};
  write_options.field = field >= 0 ? (ts_mm_field)field : header.field;
  write_options.precision = 0;
  cli_progress_begin(&progress, "writing");
  status = cli_mm_write_coo(ctx, paths[1], matrix, &write_options);
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  double seconds = cli_now() - start;
  if (output_flags.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "convert");
    cli_json_text(&out, "input", paths[0]);
    cli_json_text(&out, "output", paths[1]);
    cli_json_text(&out, "input_symmetry", ts_symmetry_name(header.symmetry));
    cli_json_text(&out, "input_field", cli_mm_field_name(header.field));
    cli_json_int(&out, "rows", matrix->rows);
    cli_json_int(&out, "cols", matrix->cols);
    cli_json_int(&out, "entries", matrix->nnz);
    cli_json_text(&out, "format", "coordinate");
    cli_json_text(&out, "field", cli_mm_field_name(write_options.field));
    cli_json_text(&out, "symmetry", ts_symmetry_name(matrix->symmetry));
    cli_json_text(&out, "precision", precision == TS_FLOAT32 ? "single" : "double");
    cli_json_real(&out, "seconds", seconds);
    cli_json_end(&out);
  } else if (!output_flags.quiet) {
    fprintf(report, "wrote %s: %lld x %lld, %lld entries, coordinate %s %s, in %.3f s\n",
            cli_path_label(paths[1], true), (long long)matrix->rows, (long long)matrix->cols, (long long)matrix->nnz,
            cli_mm_field_name(write_options.field), ts_symmetry_name(matrix->symmetry), seconds);
  }

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  ts_coo_destroy(general);
  ts_coo_destroy(stored);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_convert = {
    .name = "convert",
    .summary = "rewrite a Matrix Market file (expand symmetry, change field, gzip)",
    .help = convert_help,
    .run = run_convert,
};
