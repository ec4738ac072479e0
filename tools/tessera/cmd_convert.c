/* tessera convert: read a Matrix Market file and write it again, optionally
 * expanded to general storage, with another field or value precision. */
#include "cli_common.h"

#include <stdio.h>

static const char *const field_choices[] = {"real", "integer", "pattern", NULL}; /* = ts_mm_field */

static const char convert_help[] = "Usage: tessera convert IN OUT [options]\n"
                                   "\n"
                                   "Read the Matrix Market file IN (plain or gzip) and write OUT as Matrix\n"
                                   "Market coordinate text, gzip-compressed when OUT ends in .gz. Entries keep\n"
                                   "the order of IN (array files become coordinate files, every value an\n"
                                   "entry); the symmetry of the banner is kept unless --expand-symmetric.\n"
                                   "\n"
                                   "Options:\n"
                                   "  --expand-symmetric          write both triangles of a symmetric,\n"
                                   "                              skew-symmetric or hermitian file, as general\n"
                                   "  --field real|integer|pattern  field of OUT (default: the field of IN);\n"
                                   "                              pattern drops the values\n"
                                   "  --precision single|double   value type the entries are read into (default\n"
                                   "                              double); values are written with the shortest\n"
                                   "                              text that reads back exactly in that type\n"
                                   "  --quiet                     no progress messages on stderr, no summary\n"
                                   "                              line on stdout\n"
                                   "  -h, --help                  show this help\n"
                                   "\n"
                                   "Exit status: 0 on success, 1 on an error, 2 for a bad command line.\n";

static const char *const convert_names[] = {"IN", "OUT"};

static int run_convert(int argc, char **argv) {
  bool expand = false, quiet = false;
  int field = -1, precision = TS_FLOAT64;
  cli_option options[] = {
      {.name = "--expand-symmetric", .kind = CLI_FLAG, .target = &expand},
      {.name = "--field", .kind = CLI_CHOICE, .target = &field, .choices = field_choices},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      {.name = "--quiet", .kind = CLI_FLAG, .target = &quiet},
  };
  const char *paths[2] = {NULL, NULL};
  int rc = cli_parse("convert", convert_help, argc, argv, options, (int)(sizeof options / sizeof options[0]),
                     convert_names, paths, 2, 2, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;

  ts_context *ctx = NULL;
  ts_coo *stored = NULL, *general = NULL;
  cli_progress progress;
  ts_mm_info header;
  ts_status status = cli_context_create(TS_BACKEND_CPU, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, quiet);
  if (status != TS_SUCCESS)
    goto cleanup;

  double start = cli_now();
  cli_progress_begin(&progress, "reading");
  status = ts_mm_read(ctx, paths[0], (ts_dtype)precision, &stored, &header);
  cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  const ts_coo *output = stored;
  if (expand && stored->symmetry != TS_GENERAL) {
    status = ts_coo_expand_symmetric(ctx, stored, &general);
    if (status != TS_SUCCESS)
      goto cleanup;
    output = general;
  }

  ts_mm_write_options write_options = {0};
  write_options.field = field >= 0 ? (ts_mm_field)field : header.field;
  write_options.precision = 0;
  cli_progress_begin(&progress, "writing");
  status = ts_mm_write_coo(ctx, paths[1], output, &write_options);
  cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  if (!quiet)
    printf("wrote %s: %lld x %lld, %lld entries, coordinate %s %s, in %.3f s\n", paths[1], (long long)output->rows,
           (long long)output->cols, (long long)output->nnz, cli_mm_field_name(write_options.field),
           ts_symmetry_name(output->symmetry), cli_now() - start);

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
