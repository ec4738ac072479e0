/* The matrices of the SpMM and SpGEMM benchmarks: the corpus, 2-D and 3-D
 * meshes (5- and 7-point Laplacians), R-MAT graphs of scale 16 to 20 (edge
 * factor 16, Graph500 probabilities, directed) and power-law rows (Zipf
 * exponents 0.9 and 1.2). --quick shrinks the generated ones. */
#ifndef TESSERA_BENCH_PRODUCT_SETS_H
#define TESSERA_BENCH_PRODUCT_SETS_H

#include "tsb.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PS_CORPUS, PS_MESH, PS_RMAT, PS_POWERLAW, PS_COUNT };
static const char *const ps_set_names[PS_COUNT] = {"corpus", "mesh", "rmat", "powerlaw"};

enum { PS_LAPLACIAN_2D, PS_LAPLACIAN_3D, PS_RMAT_GEN, PS_POWER_LAW };

typedef struct ps_spec {
  int set;
  const char *name;
  int kind;
  int64_t n;       /* side, scale (R-MAT) or rows */
  int64_t nnz;     /* power law: target entries */
  double exponent; /* power law */
  int64_t divisor; /* --quick: sides and rows divided by it, R-MAT scale lowered by 4 */
} ps_spec;

/* Sized so that B and C of 512 fp64 columns fit the H200 beside cuSPARSE's
 * buffers (the largest: 4.2 M rows, 17 GB each). */
static const ps_spec ps_specs[] = {
    {PS_MESH, "laplacian2d_1024", PS_LAPLACIAN_2D, 1024, 0, 0, 8},
    {PS_MESH, "laplacian2d_2048", PS_LAPLACIAN_2D, 2048, 0, 0, 16},
    {PS_MESH, "laplacian3d_64", PS_LAPLACIAN_3D, 64, 0, 0, 4},
    {PS_MESH, "laplacian3d_128", PS_LAPLACIAN_3D, 128, 0, 0, 8},
    {PS_RMAT, "rmat_16", PS_RMAT_GEN, 16, 0, 0, 0},
    {PS_RMAT, "rmat_18", PS_RMAT_GEN, 18, 0, 0, 0},
    {PS_RMAT, "rmat_20", PS_RMAT_GEN, 20, 0, 0, 0},
    {PS_POWERLAW, "powerlaw_z0.9_2^18", PS_POWER_LAW, 1 << 18, 4300000, 0.9, 16},
    {PS_POWERLAW, "powerlaw_z1.2_2^16", PS_POWER_LAW, 1 << 16, 840000, 1.2, 16},
};
#define PS_SPEC_COUNT ((int)(sizeof ps_specs / sizeof ps_specs[0]))

static inline ts_status ps_generate(ts_context *ctx, const ps_spec *s, bool quick, ts_csr **a) {
  const int64_t d = quick && s->divisor > 0 ? s->divisor : 1;
  switch (s->kind) {
  case PS_LAPLACIAN_2D:
    return ts_gen_laplacian_2d(ctx, s->n / d, s->n / d, TS_FLOAT64, a);
  case PS_LAPLACIAN_3D:
    return ts_gen_laplacian_3d(ctx, s->n / d, s->n / d, s->n / d, TS_FLOAT64, a);
  case PS_RMAT_GEN: {
    ts_rmat_params p = ts_rmat_graph500((int)(quick ? s->n - 4 : s->n), 16);
    p.symmetric = 0;
    return ts_gen_rmat(ctx, &p, 20261129u, TS_FLOAT64, a);
  }
  default:
    return ts_gen_power_law(ctx, s->n / d, s->n / d, s->nnz / d, s->exponent, 20261129u, TS_FLOAT64, a);
  }
}

/* The options both benchmarks take. */
typedef struct ps_options {
  const char *csv_path, *md_path, *matrices_dir, *only;
  bool sets[PS_COUNT];
  bool any_set, quick, fp32, fp64;
  char md_beside_csv[4096];
} ps_options;

/* argv[*i] when it is one of the shared options (--set NAME, --precision
 * single|double|both, --quick, --matrices DIR, --only TEXT, --md PATH) or
 * the CSV's path: 1, its value taken and *i advanced; 0 when it is not one;
 * 2 after printing why its value is bad. */
static inline int ps_parse_option(int argc, char **argv, int *i, ps_options *o) {
  const char *arg = argv[*i];
  const char *value = *i + 1 < argc ? argv[*i + 1] : NULL;
  if (arg[0] != '-') { /* the CSV's path */
    o->csv_path = arg;
    return 1;
  }
  if (strcmp(arg, "--quick") == 0) {
    o->quick = true;
    return 1;
  }
  if (!value)
    return 0;
  if (strcmp(arg, "--set") == 0) {
    bool known = false;
    for (int s = 0; s < PS_COUNT; s++)
      if (strcmp(value, ps_set_names[s]) == 0 || strcmp(value, "all") == 0)
        known = o->sets[s] = true;
    if (!known) {
      fprintf(stderr, "error: unknown set '%s' (corpus, mesh, rmat, powerlaw, all)\n", value);
      return 2;
    }
    o->any_set = true;
  } else if (strcmp(arg, "--precision") == 0) {
    o->fp32 = strcmp(value, "single") == 0 || strcmp(value, "both") == 0;
    o->fp64 = strcmp(value, "double") == 0 || strcmp(value, "both") == 0;
    if (!o->fp32 && !o->fp64) {
      fprintf(stderr, "error: --precision single, double or both\n");
      return 2;
    }
  } else if (strcmp(arg, "--matrices") == 0) {
    o->matrices_dir = value;
  } else if (strcmp(arg, "--only") == 0) {
    o->only = value;
  } else if (strcmp(arg, "--md") == 0) {
    o->md_path = value;
  } else {
    return 0;
  }
  (*i)++;
  return 1;
}

/* A benchmark's own options: argv[*i] taken (1, *i advanced past its
 * value), not its own (0), or a bad value (2, after printing why). */
typedef int (*ps_own_option_fn)(void *user, int argc, char **argv, int *i);

static inline void ps_finish_options(ps_options *o);

/* Parse the command line: the shared options, the benchmark's own, then
 * --help (-1 after printing the usage) or an unknown option (2); 0 when all
 * were taken, the options finished as ps_finish_options() does. */
static inline int ps_parse(int argc, char **argv, ps_options *o, const char *usage, ps_own_option_fn own, void *user) {
  for (int i = 1; i < argc; i++) {
    int taken = ps_parse_option(argc, argv, &i, o);
    if (taken == 0)
      taken = own(user, argc, argv, &i);
    if (taken == 2)
      return 2;
    if (taken == 0)
      return tsb_option_or_path(argv[0], argv[i], usage) == 0 ? -1 : 2;
  }
  ps_finish_options(o);
  return 0;
}

/* After parsing: every set when none was named, the Markdown beside the CSV
 * (.md for its extension) unless --md named it, the corpus from
 * $TESSERA_MATRICES unless --matrices named it. */
static inline void ps_finish_options(ps_options *o) {
  for (int s = 0; s < PS_COUNT && !o->any_set; s++)
    o->sets[s] = true;
  if (!o->md_path) {
    snprintf(o->md_beside_csv, sizeof o->md_beside_csv, "%s", o->csv_path);
    char *dot = strrchr(o->md_beside_csv, '.'), *slash = strrchr(o->md_beside_csv, '/');
    if (dot && (!slash || dot > slash))
      *dot = '\0';
    strncat(o->md_beside_csv, ".md", sizeof o->md_beside_csv - strlen(o->md_beside_csv) - 1);
    o->md_path = o->md_beside_csv;
  }
  if (!o->matrices_dir)
    o->matrices_dir = getenv("TESSERA_MATRICES");
}

/* A CUDA context: 0; 77 after printing SKIPPED where no GPU is usable; 2
 * after printing another failure. */
static inline int ps_open_gpu(ts_context **ctx) {
  ts_context_options co;
  memset(&co, 0, sizeof co);
  co.backend = TS_BACKEND_CUDA;
  const ts_status created = ts_context_create(ctx, &co);
  if (created == TS_SUCCESS)
    return 0;
  fprintf(created == TS_ERROR_NO_DEVICE ? stdout : stderr, "%s%s\n",
          created == TS_ERROR_NO_DEVICE ? "SKIPPED: " : "error: ", ts_last_error(NULL));
  return created == TS_ERROR_NO_DEVICE ? 77 : 2;
}

/* Called with each matrix (general, double) of the chosen sets, its name
 * (with "_quick" for a shrunk generated one) and its set. */
typedef int (*ps_matrix_fn)(void *user, ts_context *ctx, const char *name, int set, const ts_csr *a);

/* The corpus (named by its manifest), then the generated matrices, of the
 * chosen sets and names; stops at fn's first non-zero return (returned). */
static inline int ps_for_each_matrix(ts_context *ctx, const ps_options *o, ps_matrix_fn fn, void *user) {
  static char corpus[1024][128];
  const int count = o->sets[PS_CORPUS] ? tsb_corpus_names(o->matrices_dir, corpus, 1024) : 0;
  if (o->sets[PS_CORPUS] && count == 0)
    printf("corpus set: no MANIFEST.tsv (pass --matrices DIR or set TESSERA_MATRICES); skipped\n");
  for (int s = 0; s < count + PS_SPEC_COUNT; s++) {
    const ps_spec *spec = s < count ? NULL : &ps_specs[s - count];
    const char *name = spec ? spec->name : corpus[s];
    if ((spec && !o->sets[spec->set]) || (o->only && !strstr(name, o->only)))
      continue;
    ts_csr *a = NULL;
    const ts_status st = spec ? ps_generate(ctx, spec, o->quick, &a) : tsb_read_corpus(ctx, o->matrices_dir, name, &a);
    if (st != TS_SUCCESS) {
      fprintf(stderr, "error: %s: %s\n", name, ts_last_error(ctx));
      return 1;
    }
    char full[160];
    snprintf(full, sizeof full, "%.127s%s", name, spec && o->quick ? "_quick" : "");
    const int stop = fn(user, ctx, full, spec ? spec->set : PS_CORPUS, a);
    ts_csr_destroy(a);
    if (stop)
      return stop;
  }
  return 0;
}

#endif
