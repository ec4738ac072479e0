/* Sparse LU on the CPU: tessera (all threads) against SuiteSparse KLU (one
 * thread, default settings) on the corpus's unsymmetric matrices and on
 * generated circuit-like and Laplacian matrices: analyze, factor, refactor
 * and solve times, nnz(L+U), and the backward error of b = A * ones; and
 * tessera's refactorization level by level (cpu_level_sync), the ablation of
 * its default dataflow schedule with several threads.
 *
 * Usage: lu_cpu [--quick] [CSV_PATH]   (corpus from TESSERA_MATRICES)
 * Each phase is timed once, or as the median of up to 9 runs when one run
 * takes under 50 ms. --quick drops the 10^5-row generated matrices. */
#include "tessera.h"
#include "tsb.h"

#include "lu/lu_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TESSERA_BENCH_HAVE_KLU
#include <klu.h>

#include "lu_klu_phases.h"
#endif

/* Matrices whose AMD fill estimate passes this are left out. */
#define FILL_LIMIT 40000000

typedef struct phase_times {
  double analyze, factor, refactor, solve; /* milliseconds */
  double refactor_levels;                  /* tessera: refactor level by level (the dataflow's ablation) */
  int64_t lu_nnz;
  double berr;
  char note[96];
} phase_times;

/* Median of up to 9 runs of a phase when a run is short. */
typedef int (*phase_fn)(void *state);
static double time_phase(phase_fn fn, void *state) {
  double samples[9];
  int count = 0;
  double start = tsb_wall_seconds();
  if (fn(state) != 0)
    return NAN;
  samples[count++] = tsb_wall_seconds() - start;
  while (count < 9 && samples[0] < 0.05) {
    start = tsb_wall_seconds();
    if (fn(state) != 0)
      return NAN;
    samples[count++] = tsb_wall_seconds() - start;
  }
  return tsb_stats_of(samples, count).median * 1e3;
}

/* ---- tessera ------------------------------------------------------------------ */

typedef struct tessera_state {
  ts_context *ctx;
  const ts_csr *a;
  ts_lu *lu;
  const double *b;
  double *x;
} tessera_state;

static int tessera_analyze(void *p) {
  tessera_state *s = p;
  ts_lu_destroy(s->lu);
  s->lu = NULL;
  ts_lu_options options;
  memset(&options, 0, sizeof options); /* the defaults: double factors, AMD */
  if (ts_lu_create(s->ctx, &options, &s->lu) != TS_SUCCESS || ts_lu_analyze(s->lu, s->a) != TS_SUCCESS)
    return 1;
  return 0;
}
static int tessera_factor(void *p) {
  tessera_state *s = p;
  return TS_IS_ERROR(ts_lu_factor(s->lu, s->a)) ? 1 : 0;
}
static int tessera_refactor(void *p) {
  tessera_state *s = p;
  return TS_IS_ERROR(ts_lu_refactor(s->lu, s->a)) ? 1 : 0;
}
static int tessera_solve(void *p) {
  tessera_state *s = p;
  return ts_lu_solve(s->lu, TS_OP_NONE, 1, s->b, s->a->rows, s->x, s->a->rows) == TS_SUCCESS ? 0 : 1;
}

static void run_tessera(ts_context *ctx, const ts_csr *a, const double *b, phase_times *t) {
  tessera_state s = {.ctx = ctx, .a = a, .b = b, .x = malloc((size_t)a->rows * sizeof(double))};
  t->analyze = time_phase(tessera_analyze, &s);
  if (!isnan(t->analyze))
    t->factor = time_phase(tessera_factor, &s);
  if (!isnan(t->factor))
    t->refactor = time_phase(tessera_refactor, &s);
  if (!isnan(t->refactor)) {
    /* The same refactorization one level at a time, then back (the switch
     * is read at every factorization). */
    s.lu->switches.cpu_level_sync = 1;
    t->refactor_levels = time_phase(tessera_refactor, &s);
    s.lu->switches.cpu_level_sync = 0;
    t->solve = time_phase(tessera_solve, &s);
  }
  if (isnan(t->solve)) {
    snprintf(t->note, sizeof t->note, "%s", ts_last_error(ctx));
  } else {
    ts_lu_stats stats;
    ts_lu_get_stats(s.lu, &stats);
    t->lu_nnz = stats.nnz_l + stats.nnz_u - stats.n;
    t->berr = tsb_backward_error(a, s.x, b);
    snprintf(t->note, sizeof t->note, "%lld levels, %d refinement steps, %lld perturbed", (long long)stats.levels,
             stats.refinement_steps, (long long)stats.perturbed_pivots);
  }
  ts_lu_destroy(s.lu);
  free(s.x);
}

/* ---- KLU ---------------------------------------------------------------------- */

#ifdef TESSERA_BENCH_HAVE_KLU
static void run_klu(ts_context *ctx, const ts_csr *a, const double *b, phase_times *t) {
  ts_csc *csc = NULL;
  if (ts_csc_from_csr(ctx, a, &csc) != TS_SUCCESS) {
    snprintf(t->note, sizeof t->note, "no CSC copy");
    return;
  }
  klu_state s = {.n = (int)a->rows, .row_idx = csc->row_idx, .values = (double *)csc->values, .b = b};
  s.col_ptr = malloc((size_t)(s.n + 1) * sizeof(int));
  s.x = malloc((size_t)s.n * sizeof(double));
  for (int j = 0; j <= s.n; j++)
    s.col_ptr[j] = (int)csc->col_ptr[j];
  klu_defaults(&s.common);
  t->analyze = time_phase(klu_run_analyze, &s);
  if (!isnan(t->analyze))
    t->factor = time_phase(klu_run_factor, &s);
  if (!isnan(t->factor))
    t->refactor = time_phase(klu_run_refactor, &s);
  if (!isnan(t->refactor))
    t->solve = time_phase(klu_run_solve, &s);
  if (isnan(t->solve)) {
    snprintf(t->note, sizeof t->note, "KLU status %d", s.common.status);
  } else {
    t->lu_nnz = s.numeric->lnz + s.numeric->unz - s.n + s.numeric->nzoff;
    t->berr = tsb_backward_error(a, s.x, b);
  }
  klu_free_numeric(&s.numeric, &s.common);
  klu_free_symbolic(&s.symbolic, &s.common);
  free(s.col_ptr);
  free(s.x);
  ts_csc_destroy(csc);
}
#else
static void run_klu(ts_context *ctx, const ts_csr *a, const double *b, phase_times *t) {
  (void)ctx, (void)a, (void)b;
  snprintf(t->note, sizeof t->note, "built without KLU");
}
#endif

/* ---- matrices ------------------------------------------------------------------- */

static ts_csr *read_corpus(ts_context *ctx, const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
  ts_coo *coo = NULL;
  ts_csr *csr = NULL;
  if (ts_mm_read(ctx, path, TS_FLOAT64, &coo, NULL) == TS_SUCCESS)
    ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr);
  ts_coo_destroy(coo);
  return csr;
}

static void bench_matrix(ts_context *ctx, tsb_table *table, const char *name, ts_csr *a) {
  if (!a) {
    fprintf(stderr, "%s: %s\n", name, ts_last_error(ctx));
    return;
  }
  int64_t fill = 0;
  if (ts_csr_fill_estimate(ctx, a, &fill, NULL) == TS_SUCCESS && fill > FILL_LIMIT) {
    fprintf(stderr, "%s: left out (AMD fill estimate %lld)\n", name, (long long)fill);
    return;
  }
  int64_t n = a->rows;
  double *b = calloc((size_t)n, sizeof *b);
  const double *v = (const double *)a->values;
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
      b[i] += v[e];
  phase_times ts = {NAN, NAN, NAN, NAN, NAN, 0, NAN, ""}, klu = {NAN, NAN, NAN, NAN, NAN, 0, NAN, ""};
  fprintf(stderr, "%s (n %lld, nnz %lld)...\n", name, (long long)n, (long long)a->nnz);
  run_klu(ctx, a, b, &klu);
  run_tessera(ctx, a, b, &ts);
  tsb_table_cell(table, "%s", name);
  tsb_table_cell(table, "%lld", (long long)n);
  tsb_table_cell(table, "%lld", (long long)a->nnz);
  tsb_table_cell(table, "%.2f / %.2f", ts.analyze, klu.analyze);
  tsb_table_cell(table, "%.2f / %.2f", ts.factor, klu.factor);
  tsb_table_cell(table, "%.2f / %.2f", ts.refactor, klu.refactor);
  tsb_table_cell(table, "%.2f", ts.refactor_levels);
  tsb_table_cell(table, "%.3f / %.3f", ts.solve, klu.solve);
  tsb_table_cell(table, "%lld / %lld", (long long)ts.lu_nnz, (long long)klu.lu_nnz);
  tsb_table_cell(table, "%.1e / %.1e", ts.berr, klu.berr);
  tsb_table_cell(table, "%s%s%s", ts.note, klu.note[0] ? "; KLU: " : "", klu.note);
  free(b);
}

int main(int argc, char **argv) {
  bool quick = false;
  const char *csv = "bench-out/lu_cpu.csv";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = true;
    else {
      int rc = tsb_option_or_path(argv[0], argv[i], "[--quick] [CSV_PATH]");
      if (rc >= 0)
        return rc;
      csv = argv[i];
    }
  }
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS) {
    fprintf(stderr, "lu_cpu: %s\n", ts_last_error(NULL));
    return 1;
  }
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "comparison", "tessera (all threads) / KLU (1 thread, default settings, no refinement)");
  static const char *const columns[] = {"matrix",
                                        "n",
                                        "nnz(A)",
                                        "analyze ms",
                                        "factor ms",
                                        "refactor ms",
                                        "tessera refactor level by level ms",
                                        "solve ms",
                                        "nnz(L+U)",
                                        "backward error",
                                        "tessera notes"};
  tsb_table *table = tsb_table_create(11, columns);

  /* The corpus's square unsymmetric matrices with values. */
  const char *dir = getenv("TESSERA_MATRICES");
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir ? dir : ".");
  FILE *manifest = dir ? fopen(path, "r") : NULL;
  if (!manifest)
    fprintf(stderr, "lu_cpu: no corpus (set TESSERA_MATRICES); generated matrices only\n");
  char line[8192];
  while (manifest && fgets(line, sizeof line, manifest)) {
    char name[256], symmetry[64], field[64];
    long long rows, cols, nnz;
    if (sscanf(line, "%255s %lld %lld %lld %63s %63s", name, &rows, &cols, &nnz, symmetry, field) != 6)
      continue;
    if (rows != cols || rows < 100 || strcmp(symmetry, "general") != 0 || strcmp(field, "pattern") == 0)
      continue;
    ts_csr *a = read_corpus(ctx, dir, name);
    bench_matrix(ctx, table, name, a);
    ts_csr_destroy(a);
  }
  if (manifest)
    fclose(manifest);

  /* Generated: circuit-like at two sizes and both localities, and a 2-D Laplacian. */
  const int64_t sizes[] = {10000, 100000};
  for (int s = 0; s < 2; s++) {
    if (quick && sizes[s] > 10000)
      continue;
    for (int locality = 0; locality <= 1; locality++) {
      ts_circuit_params params = ts_circuit_defaults(sizes[s]);
      params.locality = locality;
      ts_csr *a = NULL;
      ts_gen_circuit(ctx, &params, 1, TS_FLOAT64, &a);
      char name[64];
      snprintf(name, sizeof name, "circuit n=%lld locality=%d", (long long)sizes[s], locality);
      bench_matrix(ctx, table, name, a);
      ts_csr_destroy(a);
    }
  }
  ts_csr *lap = NULL;
  int64_t side = quick ? 100 : 316;
  ts_gen_laplacian_2d(ctx, side, side, TS_FLOAT64, &lap);
  char name[64];
  snprintf(name, sizeof name, "laplacian2d %lldx%lld", (long long)side, (long long)side);
  bench_matrix(ctx, table, name, lap);
  ts_csr_destroy(lap);

  tsb_table_write_csv(table, &meta, csv);
  tsb_table_print_markdown(table, &meta, stdout);
  tsb_table_destroy(table);
  ts_context_destroy(ctx);
  return 0;
}
