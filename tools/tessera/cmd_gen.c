/* tessera gen: generate a test matrix (Laplacians, banded, random, power
 * law, R-MAT, circuit-like), print its statistics or write it to a file. */
#include "cli_common.h"
#include "cli_suggest.h"

#include <stdio.h>
#include <string.h>

static const char gen_help[] =
    "Usage: tessera gen KIND [options] [-o FILE]\n"
    "\n"
    "Generate a matrix. Without -o, print its statistics (as `tessera info`);\n"
    "with -o, write it as Matrix Market (gzip when FILE ends in .gz; '-' writes\n"
    "standard output, and the report then goes to stderr) and print one\n"
    "summary line (and the statistics with --stats). The same arguments give\n"
    "the same matrix on every machine and thread count.\n"
    "\n"
    "Kinds and their options (defaults in brackets):\n"
    "  laplacian2d  --nx [1000] --ny [nx]: 5-point stencil on an nx*ny grid\n"
    "  laplacian3d  --nx [100] --ny [nx] --nz [nx]: 7-point stencil\n"
    "  banded       --n [10000] --lower [2] --upper [lower]: every entry of the\n"
    "               band stored, random values, diagonally dominant\n"
    "  random       --rows [10000] --cols [rows] --per-row [16]: distinct\n"
    "               uniformly random columns in each row\n"
    "  powerlaw     --rows [10000] --cols [rows] --nnz [16*rows] --exponent [1]:\n"
    "               row lengths about C/r^exponent for the row of rank r\n"
    "  rmat         --scale [16] --edge-factor [16] --a [0.57] --b [0.19]\n"
    "               --c [0.19] [--directed] [--no-scramble]: R-MAT graph with\n"
    "               2^scale vertices (Graph500 parameters by default: undirected,\n"
    "               vertex numbers scrambled)\n"
    "  circuit      --n [10000] --locality [0] --degree [4] --dense-nets [3; 0 under 100 rows]\n"
    "               --dense-fraction [0.05] --asymmetry [0.05] --mesh-radius [3]:\n"
    "               circuit-like, nearly symmetric pattern, diagonally dominant;\n"
    "               --degree is the mean off-diagonal entries per row; locality\n"
    "               0 = hierarchical netlist (little fill), 1 = laid out on a\n"
    "               grid (fills like a mesh), wired up to mesh-radius steps away;\n"
    "               dense nets are rows and columns touching dense-fraction of\n"
    "               the rows (like supply nets); asymmetry is the fraction of\n"
    "               off-diagonal entries without a mirror\n"
    "\n"
    "Options of every kind:\n"
    "  --seed S                    random seed [1] (the Laplacians ignore it)\n"
    "  --precision single|double   value type [double]\n"
    "  -o, --output FILE           write the matrix to FILE (through a temporary\n"
    "                              file beside it, renamed when complete)\n"
    "  --stats                     with -o, also print the statistics\n"
    "  --fill                      add the AMD fill estimate nnz(L+U) (square\n"
    "                              matrices; needs SuiteSparse AMD)\n" CLI_HELP_OUTPUT_OPTIONS "\n"
    "Numbers may be written 4096, 1e6 or 2^20.\n"
    "Exit status: 0 on success, 1 on an error, 2 for a bad command line,\n"
    "130 when cancelled.\n";

typedef struct gen_settings {
  int64_t nx, ny, nz, n, lower, upper, rows, cols, per_row, nnz, scale, edge_factor, dense_nets, mesh_radius, seed;
  double exponent, a, b, c, locality, degree, dense_fraction, asymmetry;
  bool directed, no_scramble, stats, fill;
  cli_output_flags output_flags;
  int precision;
  const char *output;
} gen_settings;

/* The options each kind accepts besides the common ones. */
typedef struct gen_kind {
  const char *name;
  const char *options; /* space-separated option names */
} gen_kind;

static const gen_kind gen_kinds[] = {
    {"laplacian2d", "--nx --ny"},
    {"laplacian3d", "--nx --ny --nz"},
    {"banded", "--n --lower --upper"},
    {"random", "--rows --cols --per-row"},
    {"powerlaw", "--rows --cols --nnz --exponent"},
    {"rmat", "--scale --edge-factor --a --b --c --directed --no-scramble"},
    {"circuit", "--n --locality --degree --dense-nets --dense-fraction --asymmetry --mesh-radius"},
};
#define GEN_KIND_COUNT ((int)(sizeof gen_kinds / sizeof gen_kinds[0]))
#define GEN_COMMON_OPTIONS "--seed --precision --output --stats --fill --json --quiet --progress"

static bool word_in_list(const char *word, const char *list) {
  size_t length = strlen(word);
  for (const char *p = strstr(list, word); p; p = strstr(p + 1, word)) {
    bool starts = p == list || p[-1] == ' ';
    bool ends = p[length] == '\0' || p[length] == ' ';
    if (starts && ends)
      return true;
  }
  return false;
}

static ts_status generate(ts_context *ctx, const char *kind, const gen_settings *s, char *description,
                          size_t description_size, ts_csr **csr) {
  ts_dtype dtype = (ts_dtype)s->precision;
  uint64_t seed = (uint64_t)s->seed;
  if (strcmp(kind, "laplacian2d") == 0) {
    snprintf(description, description_size, "laplacian2d nx=%lld ny=%lld", (long long)s->nx, (long long)s->ny);
    return ts_gen_laplacian_2d(ctx, s->nx, s->ny, dtype, csr);
  }
  if (strcmp(kind, "laplacian3d") == 0) {
    snprintf(description, description_size, "laplacian3d nx=%lld ny=%lld nz=%lld", (long long)s->nx, (long long)s->ny,
             (long long)s->nz);
    return ts_gen_laplacian_3d(ctx, s->nx, s->ny, s->nz, dtype, csr);
  }
  if (strcmp(kind, "banded") == 0) {
    snprintf(description, description_size, "banded n=%lld lower=%lld upper=%lld seed=%llu", (long long)s->n,
             (long long)s->lower, (long long)s->upper, (unsigned long long)seed);
    return ts_gen_banded(ctx, s->n, s->lower, s->upper, seed, dtype, csr);
  }
  if (strcmp(kind, "random") == 0) {
    snprintf(description, description_size, "random rows=%lld cols=%lld per-row=%lld seed=%llu", (long long)s->rows,
             (long long)s->cols, (long long)s->per_row, (unsigned long long)seed);
    return ts_gen_random_uniform(ctx, s->rows, s->cols, s->per_row, seed, dtype, csr);
  }
  if (strcmp(kind, "powerlaw") == 0) {
    snprintf(description, description_size, "powerlaw rows=%lld cols=%lld nnz=%lld exponent=%g seed=%llu",
             (long long)s->rows, (long long)s->cols, (long long)s->nnz, s->exponent, (unsigned long long)seed);
    return ts_gen_power_law(ctx, s->rows, s->cols, s->nnz, s->exponent, seed, dtype, csr);
  }
  if (strcmp(kind, "rmat") == 0) {
    ts_rmat_params params = ts_rmat_graph500((int)s->scale, (int)s->edge_factor);
    params.a = s->a;
    params.b = s->b;
    params.c = s->c;
    params.symmetric = !s->directed;
    params.scramble = !s->no_scramble;
    snprintf(description, description_size, "rmat scale=%d edge-factor=%d a=%g b=%g c=%g %s%s seed=%llu", params.scale,
             params.edge_factor, params.a, params.b, params.c, params.symmetric ? "undirected" : "directed",
             params.scramble ? "" : " unscrambled", (unsigned long long)seed);
    return ts_gen_rmat(ctx, &params, seed, dtype, csr);
  }
  ts_circuit_params params = ts_circuit_defaults(s->n);
  params.locality = s->locality;
  params.avg_degree = s->degree;
  params.dense_nets = (int)s->dense_nets;
  params.dense_fraction = s->dense_fraction;
  params.asymmetry = s->asymmetry;
  params.mesh_radius = (int)s->mesh_radius;
  snprintf(description, description_size,
           "circuit n=%lld locality=%g degree=%g dense-nets=%d dense-fraction=%g asymmetry=%g mesh-radius=%d "
           "seed=%llu",
           (long long)params.n, params.locality, params.avg_degree, params.dense_nets, params.dense_fraction,
           params.asymmetry, params.mesh_radius, (unsigned long long)seed);
  return ts_gen_circuit(ctx, &params, seed, dtype, csr);
}

static int run_gen(int argc, char **argv) {
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    fputs(gen_help, stdout);
    return CLI_EXIT_OK;
  }
  if (argc < 2 || argv[1][0] == '-')
    return cli_usage_error("gen", "missing KIND (laplacian2d, laplacian3d, banded, random, powerlaw, rmat or circuit)");
  const char *kind = argv[1];
  const gen_kind *chosen = NULL;
  for (int k = 0; k < GEN_KIND_COUNT; k++)
    if (strcmp(gen_kinds[k].name, kind) == 0)
      chosen = &gen_kinds[k];
  if (!chosen) {
    const char *names[GEN_KIND_COUNT];
    for (int k = 0; k < GEN_KIND_COUNT; k++)
      names[k] = gen_kinds[k].name;
    const char *closest = cli_suggest(kind, names, GEN_KIND_COUNT);
    if (closest)
      return cli_usage_error("gen", "unknown KIND '%s'; did you mean '%s'?", kind, closest);
    return cli_usage_error("gen",
                           "unknown KIND '%s' (laplacian2d, laplacian3d, banded, random, powerlaw, rmat or "
                           "circuit)",
                           kind);
  }

  ts_rmat_params graph500 = ts_rmat_graph500(16, 16);
  gen_settings s = {.nx = 0, .seed = 1, .precision = TS_FLOAT64, .a = graph500.a, .b = graph500.b, .c = graph500.c};
  const int64_t max_dim = TS_MAX_DIMENSION;
  cli_option options[] = {
      {.name = "--nx", .kind = CLI_INT, .target = &s.nx, .imin = 1, .imax = max_dim},
      {.name = "--ny", .kind = CLI_INT, .target = &s.ny, .imin = 1, .imax = max_dim},
      {.name = "--nz", .kind = CLI_INT, .target = &s.nz, .imin = 1, .imax = max_dim},
      {.name = "--n", .kind = CLI_INT, .target = &s.n, .imin = 1, .imax = max_dim},
      {.name = "--lower", .kind = CLI_INT, .target = &s.lower, .imin = 0, .imax = max_dim},
      {.name = "--upper", .kind = CLI_INT, .target = &s.upper, .imin = 0, .imax = max_dim},
      {.name = "--rows", .kind = CLI_INT, .target = &s.rows, .imin = 1, .imax = max_dim},
      {.name = "--cols", .kind = CLI_INT, .target = &s.cols, .imin = 1, .imax = max_dim},
      {.name = "--per-row", .kind = CLI_INT, .target = &s.per_row, .imin = 0, .imax = max_dim},
      {.name = "--nnz", .kind = CLI_INT, .target = &s.nnz, .imin = 1, .imax = INT64_MAX},
      {.name = "--exponent", .kind = CLI_REAL, .target = &s.exponent, .rmin = 0.0, .rmax = 10.0},
      {.name = "--scale", .kind = CLI_INT, .target = &s.scale, .imin = 1, .imax = 30},
      {.name = "--edge-factor", .kind = CLI_INT, .target = &s.edge_factor, .imin = 1, .imax = 1 << 20},
      {.name = "--a", .kind = CLI_REAL, .target = &s.a, .rmin = 0.0, .rmax = 1.0},
      {.name = "--b", .kind = CLI_REAL, .target = &s.b, .rmin = 0.0, .rmax = 1.0},
      {.name = "--c", .kind = CLI_REAL, .target = &s.c, .rmin = 0.0, .rmax = 1.0},
      {.name = "--directed", .kind = CLI_FLAG, .target = &s.directed},
      {.name = "--no-scramble", .kind = CLI_FLAG, .target = &s.no_scramble},
      {.name = "--locality", .kind = CLI_REAL, .target = &s.locality, .rmin = 0.0, .rmax = 1.0},
      {.name = "--degree", .kind = CLI_REAL, .target = &s.degree, .rmin = 0.0, .rmax = 1000.0},
      {.name = "--dense-nets", .kind = CLI_INT, .target = &s.dense_nets, .imin = 0, .imax = 1000000},
      {.name = "--dense-fraction", .kind = CLI_REAL, .target = &s.dense_fraction, .rmin = 0.0, .rmax = 1.0},
      {.name = "--asymmetry", .kind = CLI_REAL, .target = &s.asymmetry, .rmin = 0.0, .rmax = 1.0},
      {.name = "--mesh-radius", .kind = CLI_INT, .target = &s.mesh_radius, .imin = 1, .imax = 16},
      {.name = "--seed", .kind = CLI_INT, .target = &s.seed, .imin = 0, .imax = INT64_MAX},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &s.precision, .choices = cli_precision_choices},
      {.name = "--output", .short_name = 'o', .kind = CLI_TEXT, .target = &s.output},
      {.name = "--stats", .kind = CLI_FLAG, .target = &s.stats},
      {.name = "--fill", .kind = CLI_FLAG, .target = &s.fill},
      CLI_OUTPUT_OPTIONS(s.output_flags),
  };
  const int count = CLI_COUNT(options);
  char command[64];
  snprintf(command, sizeof command, "gen %s", kind);
  const cli_syntax syntax = {command, gen_help, options, count, NULL, 0, 0};
  int rc = cli_parse(&syntax, argc - 1, argv + 1, NULL, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  /* Name the mistake when an option belongs to another kind. */
  for (int k = 0; k < count; k++)
    if (options[k].seen && !word_in_list(options[k].name, chosen->options) &&
        !word_in_list(options[k].name, GEN_COMMON_OPTIONS))
      return cli_usage_error(command, "option %s does not apply to %s (its options: %s)", options[k].name, kind,
                             chosen->options);
  rc = cli_check_paths(command, NULL, 0, &s.output, 1, s.output_flags.json);
  if (rc != 0)
    return rc;

  /* Defaults, some depending on other options. */
  if (s.nx == 0)
    s.nx = strcmp(kind, "laplacian3d") == 0 ? 100 : 1000;
  if (!cli_option_seen(options, count, "--ny"))
    s.ny = s.nx;
  if (!cli_option_seen(options, count, "--nz"))
    s.nz = s.nx;
  if (!cli_option_seen(options, count, "--n"))
    s.n = 10000;
  if (!cli_option_seen(options, count, "--lower"))
    s.lower = 2;
  if (!cli_option_seen(options, count, "--upper"))
    s.upper = s.lower;
  if (!cli_option_seen(options, count, "--rows"))
    s.rows = 10000;
  if (!cli_option_seen(options, count, "--cols"))
    s.cols = s.rows;
  if (!cli_option_seen(options, count, "--per-row"))
    s.per_row = 16;
  if (!cli_option_seen(options, count, "--nnz"))
    s.nnz = 16 * s.rows;
  if (!cli_option_seen(options, count, "--exponent"))
    s.exponent = 1.0;
  if (!cli_option_seen(options, count, "--scale"))
    s.scale = 16;
  if (!cli_option_seen(options, count, "--edge-factor"))
    s.edge_factor = 16;
  if (s.a + s.b + s.c > 1.0)
    return cli_usage_error(command, "--a + --b + --c is %g; it must be at most 1 (d = 1 - a - b - c)", s.a + s.b + s.c);
  ts_circuit_params circuit = ts_circuit_defaults(s.n);
  if (!cli_option_seen(options, count, "--locality"))
    s.locality = circuit.locality;
  if (!cli_option_seen(options, count, "--degree"))
    s.degree = circuit.avg_degree;
  if (!cli_option_seen(options, count, "--dense-nets"))
    s.dense_nets = circuit.dense_nets;
  if (!cli_option_seen(options, count, "--dense-fraction"))
    s.dense_fraction = circuit.dense_fraction;
  if (!cli_option_seen(options, count, "--asymmetry"))
    s.asymmetry = circuit.asymmetry;
  if (!cli_option_seen(options, count, "--mesh-radius"))
    s.mesh_radius = circuit.mesh_radius;

  ts_context *ctx = NULL;
  ts_csr *a = NULL;
  cli_progress progress;
  ts_status status = cli_context_create(TS_BACKEND_CPU, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &s.output_flags);
  if (status != TS_SUCCESS)
    goto cleanup;

  char description[256];
  double start = cli_now();
  cli_progress_begin(&progress, "generating");
  status = generate(ctx, kind, &s, description, sizeof description, &a);
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  double generate_seconds = cli_now() - start;

  double write_seconds = 0.0;
  if (s.output) {
    start = cli_now();
    cli_progress_begin(&progress, "writing");
    status = cli_mm_write_csr(ctx, s.output, a, NULL);
    status = cli_progress_end(&progress, status);
    if (status != TS_SUCCESS)
      goto cleanup;
    write_seconds = cli_now() - start;
  }
  bool show_stats = !s.output || s.stats;
  ts_csr_stats stats;
  if (show_stats) {
    cli_progress_begin(&progress, "statistics");
    status = ts_csr_stats_compute(ctx, a, &stats);
    status = cli_progress_end(&progress, status);
    if (status != TS_SUCCESS)
      goto cleanup;
  }
  cli_fill fill = {0};
  if (s.fill) {
    cli_progress_begin(&progress, "fill estimate");
    status = cli_fill_compute(ctx, a, &fill);
    status = cli_progress_end(&progress, status);
    if (status != TS_SUCCESS)
      goto cleanup;
  }

  const char *precision = s.precision == TS_FLOAT32 ? "single" : "double";
  if (s.output_flags.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "gen");
    cli_json_text(&out, "kind", kind);
    cli_json_text(&out, "matrix", description);
    cli_json_int(&out, "seed", s.seed);
    cli_json_text(&out, "precision", precision);
    cli_json_int(&out, "rows", a->rows);
    cli_json_int(&out, "cols", a->cols);
    cli_json_int(&out, "nnz", a->nnz);
    cli_json_real(&out, "generate_seconds", generate_seconds);
    cli_json_text(&out, "output", s.output);
    if (s.output)
      cli_json_real(&out, "write_seconds", write_seconds);
    if (show_stats)
      cli_stats_json(&out, &stats);
    if (s.fill)
      cli_fill_json(&out, &fill);
    cli_json_end(&out);
  } else {
    /* With the matrix on stdout, the report goes to stderr. */
    FILE *report = cli_is_stdio(s.output) ? stderr : stdout;
    if (s.output)
      fprintf(report, "wrote %s: %lld x %lld, %lld entries (%s), in %.3f s\n", cli_path_label(s.output, true),
              (long long)a->rows, (long long)a->cols, (long long)a->nnz, description, generate_seconds + write_seconds);
    if (show_stats) {
      cli_line(report, "matrix", "%s", description);
      cli_line(report, "precision", "%s", precision);
      cli_line(report, "rows", "%lld", (long long)a->rows);
      cli_line(report, "cols", "%lld", (long long)a->cols);
      cli_line(report, "nnz", "%lld", (long long)a->nnz);
      cli_stats_print(report, &stats);
      cli_line(report, "generate time", "%.3f s", generate_seconds);
    }
    if (s.fill)
      cli_fill_print(report, &fill);
  }

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_gen = {
    .name = "gen",
    .summary = "generate a test matrix; print its statistics or write it",
    .help = gen_help,
    .run = run_gen,
};
