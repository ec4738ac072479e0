/* The LU's fill-reducing orderings side by side on the host: AMD, METIS's
 * nested dissection and AUTO (the default), for each matrix the analysis's
 * flops, nnz(L + U), levels and matching + ordering time (best of --repeat
 * analyses), and which one AUTO took. Corpus matrices (--matrices DIR with
 * MANIFEST.tsv) and generated 2-D/3-D Laplacians and circuits.
 *
 * Usage: lu_orderings [--matrices DIR] [--only LIST] [--repeat N] [--md FILE] [CSV_PATH]
 *        (default bench-out/lu_orderings.csv) */
#include "tessera.h"
#include "tsb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MOST_MATRICES = 256, ORDERINGS = 3 };

static const ts_lu_ordering orderings[ORDERINGS] = {TS_LU_ORDER_AMD, TS_LU_ORDER_NESTED_DISSECTION, TS_LU_ORDER_AUTO};

typedef struct analysis {
  int ok;
  double flops, seconds;
  int64_t lu_nnz, levels;
  ts_lu_ordering used;
} analysis;

static analysis analyze(ts_context *ctx, const ts_csr *a, ts_lu_ordering ordering, int repeat) {
  analysis r = {0};
  r.seconds = INFINITY;
  for (int k = 0; k < repeat; k++) {
    ts_lu_options options = {0};
    options.ordering = ordering;
    ts_lu *lu = NULL;
    if (ts_lu_create(ctx, &options, &lu) != TS_SUCCESS || ts_lu_analyze(lu, a) != TS_SUCCESS) {
      ts_lu_destroy(lu);
      return r;
    }
    ts_lu_stats s;
    ts_lu_get_stats(lu, &s);
    r.ok = 1;
    r.flops = s.flops;
    r.lu_nnz = s.nnz_l + s.nnz_u - s.n;
    r.levels = s.levels;
    r.used = s.ordering;
    r.seconds = fmin(r.seconds, s.time_matching + s.time_ordering);
    ts_lu_destroy(lu);
  }
  return r;
}

static void add_row(tsb_table *table, ts_context *ctx, const char *name, const ts_csr *a, int repeat) {
  analysis r[ORDERINGS];
  for (int o = 0; o < ORDERINGS; o++)
    r[o] = analyze(ctx, a, orderings[o], repeat);
  if (!r[0].ok || !r[1].ok || !r[2].ok) {
    printf("%s: skipped (%s)\n", name, ts_last_error(ctx));
    return;
  }
  tsb_table_cell(table, "%s", name);
  tsb_table_cell(table, "%lld", (long long)a->rows);
  tsb_table_cell(table, "%lld", (long long)a->nnz);
  tsb_table_cell(table, "%.3g / %.3g", r[0].flops, r[1].flops);
  tsb_table_cell(table, "%.2f", r[1].flops / r[0].flops);
  tsb_table_cell(table, "%lld / %lld", (long long)r[0].lu_nnz, (long long)r[1].lu_nnz);
  tsb_table_cell(table, "%lld / %lld", (long long)r[0].levels, (long long)r[1].levels);
  tsb_table_cell(table, "%.2f / %.2f / %.2f", 1e3 * r[0].seconds, 1e3 * r[1].seconds, 1e3 * r[2].seconds);
  tsb_table_cell(table, "%s", r[2].used == TS_LU_ORDER_NESTED_DISSECTION ? "nd" : "amd");
}

int main(int argc, char **argv) {
  const char *matrices = getenv("TESSERA_MATRICES"), *only = NULL, *md = NULL, *csv = "bench-out/lu_orderings.csv";
  int repeat = 3;
  for (int i = 1; i < argc; i++) {
    const int has_value = i + 1 < argc;
    if (strcmp(argv[i], "--matrices") == 0 && has_value)
      matrices = argv[++i];
    else if (strcmp(argv[i], "--only") == 0 && has_value)
      only = argv[++i];
    else if (strcmp(argv[i], "--repeat") == 0 && has_value)
      repeat = atoi(argv[++i]);
    else if (strcmp(argv[i], "--md") == 0 && has_value)
      md = argv[++i];
    else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: lu_orderings [--matrices DIR] [--only LIST] [--repeat N] [--md FILE] [CSV_PATH]\n");
      return 2;
    } else
      csv = argv[i];
  }
  if (repeat < 1)
    repeat = 1;
  ts_context_options copts;
  memset(&copts, 0, sizeof copts);
  copts.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS)
    return 1;
  static const char *const columns[] = {"matrix",          "n",
                                        "nnz(A)",          "flops AMD / ND",
                                        "ND / AMD flops",  "L+U AMD / ND",
                                        "levels AMD / ND", "matching + ordering ms AMD / ND / AUTO",
                                        "AUTO took"};
  tsb_table *table = tsb_table_create(9, columns);
  static char names[MOST_MATRICES][128];
  const int count = matrices ? tsb_corpus_names(matrices, names, MOST_MATRICES) : 0;
  for (int m = 0; m < count; m++) {
    ts_csr *a = NULL;
    if (!tsb_name_selected(only, names[m]) || tsb_read_corpus(ctx, matrices, names[m], &a) != TS_SUCCESS ||
        a->rows != a->cols) {
      ts_csr_destroy(a);
      continue;
    }
    add_row(table, ctx, names[m], a, repeat);
    ts_csr_destroy(a);
  }
  /* Generated: meshes on both sides of AUTO's size, circuits. */
  const int grids2[] = {150, 316, 700}, grids3[] = {30, 46};
  const int64_t circuits[] = {100000, 1000000};
  char name[128];
  for (int g = 0; g < 3; g++) {
    ts_csr *a = NULL;
    snprintf(name, sizeof name, "laplacian2d %dx%d", grids2[g], grids2[g]);
    if (tsb_name_selected(only, name) && ts_gen_laplacian_2d(ctx, grids2[g], grids2[g], TS_FLOAT64, &a) == TS_SUCCESS)
      add_row(table, ctx, name, a, repeat);
    ts_csr_destroy(a);
  }
  for (int g = 0; g < 2; g++) {
    ts_csr *a = NULL;
    snprintf(name, sizeof name, "laplacian3d %d^3", grids3[g]);
    if (tsb_name_selected(only, name) &&
        ts_gen_laplacian_3d(ctx, grids3[g], grids3[g], grids3[g], TS_FLOAT64, &a) == TS_SUCCESS)
      add_row(table, ctx, name, a, repeat);
    ts_csr_destroy(a);
  }
  for (int c = 0; c < 2; c++) {
    ts_csr *a = NULL;
    ts_circuit_params params = ts_circuit_defaults(circuits[c]);
    params.locality = 0.0;
    snprintf(name, sizeof name, "circuit n=%lld locality=0", (long long)circuits[c]);
    if (tsb_name_selected(only, name) && ts_gen_circuit(ctx, &params, 1, TS_FLOAT64, &a) == TS_SUCCESS)
      add_row(table, ctx, name, a, repeat);
    ts_csr_destroy(a);
  }
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "timing",
                   "matching + ordering: best of %d analyses (ts_lu_stats); flops and L+U the "
                   "analysis's symbolic counts",
                   repeat);
  tsb_table_print_markdown(table, &meta, stdout);
  int failed = tsb_table_write_csv(table, &meta, csv) != 0;
  if (md) {
    FILE *file = fopen(md, "w");
    if (file) {
      tsb_table_print_markdown(table, &meta, file);
      fclose(file);
    }
  }
  tsb_table_destroy(table);
  ts_context_destroy(ctx);
  return failed;
}
