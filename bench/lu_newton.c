/* The Newton loop on small and mid-sized matrices: tessera against
 * SuiteSparse KLU (one thread, defaults) in the same process, per matrix:
 * refactor + solve as a Newton loop calls them (median, slowest call and the
 * calls that stalled, of many repeated pairs), and analyze + factor + solve
 * from a new analysis each time (median of repeated chains). The two
 * solvers' calls alternate, so that both meet the same load. Optionally with
 * busy processes beside it, so that the machine has fewer free cores than
 * tessera has threads: the timings must stay steady then.
 *
 * Usage: lu_newton [options] [CSV_PATH]      (default bench-out/lu_newton.csv)
 *   --matrices DIR   corpus folder with MANIFEST.tsv (default: TESSERA_MATRICES)
 *   --set LIST       corpus, circuit (default both)
 *   --only LIST      keep matrices whose name contains one of these words
 *   --max-n N        generated circuits up to N rows (default 100000; 10^3 .. N,
 *                    netlists and grid circuits, the grid ones up to 10^4)
 *   --threads N      tessera's context threads (default: OpenMP's)
 *   --load K         K busy processes beside the run (default 0)
 *   --seconds S      time spent per solver, matrix and measure (default 0.25)
 *   --cuda           tessera on a CUDA context (ts_lu's AUTO backend chooses), and
 *                    both paths forced beside it: AUTO's choice and its misses,
 *                    for refactor + solve and for analyze + factor + solve
 *   --unchecked      tessera's solves without the residual check
 *                    (ts_lu_options.unchecked_solves), as klu_solve
 *   --amd-dense X    tessera's AMD dense-row control (ts_lu_options.amd_dense;
 *                    default 0: AMD's own, as KLU's)
 *   --pivoting P     tessera's pivoting: auto (default), static or partial
 *                    (ts_lu_options.pivoting)
 *   --phases         a column with the medians of a+f+s's parts: tessera's
 *                    matching / ordering / symbolic / levels (ts_lu_stats) /
 *                    factor / solve, KLU's analyze / factor / solve
 *   --md FILE        also write the Markdown (it is printed on stdout anyway)
 *
 * "even": both under 50 us and within 10 %, counted as a tie (the issue's
 * rule). A stall is a call slower than twice the median plus 0.2 ms. */
#include "tessera.h"
#include "tsb.h"

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef TESSERA_BENCH_HAVE_KLU
#include <klu.h>

#include "lu_klu_phases.h"
#endif

#define MAX_SAMPLES 4000
#define MAX_LOAD 64

typedef struct bench_options {
  const char *matrices, *only, *md;
  bool corpus, circuit, cuda, unchecked, phases;
  double amd_dense; /* ts_lu_options.amd_dense */
  ts_lu_pivoting pivoting;
  int64_t max_n;
  int threads, load;
  double seconds;
} bench_options;

/* One solver's figures on one matrix (milliseconds). */
typedef struct newton_times {
  bool ran;
  bool on_gpu;                               /* tessera: the last factorization ran on the GPU */
  int threads;                               /* tessera: its host threads */
  double rs_median, rs_max, refactor, solve; /* the loop's pairs */
  int pairs, stalls;
  double afs_median; /* analyze + factor + solve chains */
  /* The chains' parts (medians): the analysis's (tessera's four from its
   * statistics; KLU's analyze whole in [0]), the factorization, the solve. */
  double afs_part[6];
  double berr;
  char note[160];
} newton_times;

typedef int (*phase_fn)(void *state);
/* The last analysis's parts in seconds (matching, ordering, symbolic,
 * levels); NULL for a solver that does not tell them. */
typedef void (*parts_fn)(void *state, double parts[4]);

/* A solver's phases and state. */
typedef struct solver {
  phase_fn analyze, factor, refactor, solve;
  void *state;
  newton_times *t;
  double pair[MAX_SAMPLES], first[MAX_SAMPLES], second[MAX_SAMPLES];
  int count;
  parts_fn parts;
  double part[6][MAX_SAMPLES]; /* a+f+s chains: the analysis's parts, factor, solve (ms) */
} solver;

static double seconds_of(phase_fn fn, void *state) {
  double start = tsb_wall_seconds();
  if (fn(state) != 0)
    return NAN;
  return tsb_wall_seconds() - start;
}

/* Both solvers' chains analyze, factor, solve from a new analysis, taken in
 * turn so that both meet the same load (at least 3 each), then both Newton
 * loops (refactor + solve, after one untimed pair; at least 5 each), in turn
 * too. A solver that fails is left out of the rest. */
static void time_both(solver *s[2], double seconds) {
  for (int k = 0; k < 2; k++)
    s[k]->count = 0;
  double start = tsb_wall_seconds();
  for (int round = 0; round < MAX_SAMPLES && (round < 3 || tsb_wall_seconds() - start < seconds); round++) {
    for (int k = 0; k < 2; k++) {
      if (!s[k]->t->ran)
        continue;
      double a = seconds_of(s[k]->analyze, s[k]->state);
      double f = isnan(a) ? NAN : seconds_of(s[k]->factor, s[k]->state);
      double v = isnan(f) ? NAN : seconds_of(s[k]->solve, s[k]->state);
      if (isnan(v)) {
        s[k]->t->ran = false;
        continue;
      }
      double parts[4] = {a, 0.0, 0.0, 0.0};
      if (s[k]->parts)
        s[k]->parts(s[k]->state, parts);
      for (int q = 0; q < 4; q++)
        s[k]->part[q][s[k]->count] = parts[q] * 1e3;
      s[k]->part[4][s[k]->count] = f * 1e3;
      s[k]->part[5][s[k]->count] = v * 1e3;
      s[k]->pair[s[k]->count++] = (a + f + v) * 1e3;
    }
  }
  for (int k = 0; k < 2; k++) {
    if (s[k]->t->ran) {
      s[k]->t->afs_median = tsb_stats_of(s[k]->pair, s[k]->count).median;
      for (int q = 0; q < 6; q++)
        s[k]->t->afs_part[q] = tsb_stats_of(s[k]->part[q], s[k]->count).median;
    }
    if (s[k]->t->ran && (s[k]->refactor(s[k]->state) != 0 || s[k]->solve(s[k]->state) != 0))
      s[k]->t->ran = false;
    s[k]->count = 0;
  }
  start = tsb_wall_seconds();
  for (int round = 0; round < MAX_SAMPLES && (round < 5 || tsb_wall_seconds() - start < seconds); round++) {
    for (int k = 0; k < 2; k++) {
      if (!s[k]->t->ran)
        continue;
      double r = seconds_of(s[k]->refactor, s[k]->state);
      double v = isnan(r) ? NAN : seconds_of(s[k]->solve, s[k]->state);
      if (isnan(v)) {
        s[k]->t->ran = false;
        continue;
      }
      s[k]->first[s[k]->count] = r * 1e3;
      s[k]->second[s[k]->count] = v * 1e3;
      s[k]->pair[s[k]->count++] = (r + v) * 1e3;
    }
  }
  for (int k = 0; k < 2; k++) {
    newton_times *t = s[k]->t;
    if (!t->ran)
      continue;
    tsb_stats st = tsb_stats_of(s[k]->pair, s[k]->count);
    t->rs_median = st.median;
    t->rs_max = st.max;
    t->refactor = tsb_stats_of(s[k]->first, s[k]->count).median;
    t->solve = tsb_stats_of(s[k]->second, s[k]->count).median;
    t->pairs = s[k]->count;
    t->stalls = 0;
    for (int p = 0; p < s[k]->count; p++)
      t->stalls += s[k]->pair[p] > 2.0 * st.median + 0.2;
  }
}

/* ---- tessera ------------------------------------------------------------------------ */

typedef struct tessera_state {
  ts_context *ctx;
  ts_backend backend; /* ts_lu_options.backend */
  bool unchecked;     /* ts_lu_options.unchecked_solves */
  double amd_dense;   /* ts_lu_options.amd_dense */
  ts_lu_pivoting pivoting;
  const ts_csr *a;
  ts_lu *lu;
  const double *b;
  double *x;
  ts_status last;
} tessera_state;

static int tessera_analyze(void *p) {
  tessera_state *s = p;
  ts_lu_destroy(s->lu);
  s->lu = NULL;
  ts_lu_options options;
  memset(&options, 0, sizeof options);
  options.backend = s->backend;
  options.unchecked_solves = s->unchecked;
  options.amd_dense = s->amd_dense;
  options.pivoting = s->pivoting;
  s->last = ts_lu_create(s->ctx, &options, &s->lu);
  if (s->last == TS_SUCCESS)
    s->last = ts_lu_analyze(s->lu, s->a);
  return s->last == TS_SUCCESS ? 0 : 1;
}
static void tessera_parts(void *p, double parts[4]) {
  tessera_state *s = p;
  ts_lu_stats stats;
  if (ts_lu_get_stats(s->lu, &stats) != TS_SUCCESS)
    return;
  parts[0] = stats.time_matching;
  parts[1] = stats.time_ordering;
  parts[2] = stats.time_symbolic;
  parts[3] = stats.time_levelize;
}
static int tessera_factor(void *p) {
  tessera_state *s = p;
  s->last = ts_lu_factor(s->lu, s->a);
  return TS_IS_ERROR(s->last) ? 1 : 0;
}
static int tessera_refactor(void *p) {
  tessera_state *s = p;
  s->last = ts_lu_refactor(s->lu, s->a);
  return TS_IS_ERROR(s->last) ? 1 : 0;
}
static int tessera_solve(void *p) {
  tessera_state *s = p;
  s->last = ts_lu_solve(s->lu, TS_OP_NONE, 1, s->b, s->a->rows, s->x, s->a->rows);
  return TS_IS_ERROR(s->last) ? 1 : 0;
}

/* tessera's phases on state, timed into t. */
static solver tessera_solver_of(tessera_state *state, newton_times *t) {
  return (solver){.analyze = tessera_analyze,
                  .factor = tessera_factor,
                  .refactor = tessera_refactor,
                  .solve = tessera_solve,
                  .state = state,
                  .t = t,
                  .parts = tessera_parts};
}

static void tessera_report(tessera_state *s, newton_times *t) {
  if (!t->ran) {
    snprintf(t->note, sizeof t->note, "%s", ts_last_error(s->ctx));
  } else {
    ts_lu_stats stats;
    ts_lu_get_stats(s->lu, &stats);
    t->berr = tsb_backward_error(s->a, s->x, s->b);
    t->on_gpu = stats.factor_backend == TS_BACKEND_CUDA;
    t->threads = stats.factor_threads;
    snprintf(t->note, sizeof t->note, "%lld levels, %d refinement steps, flops %.3g, L+U %lld, factor on %s",
             (long long)stats.levels, stats.refinement_steps, stats.flops,
             (long long)(stats.nnz_l + stats.nnz_u - stats.n),
             t->on_gpu                  ? "the GPU"
             : stats.factor_threads > 1 ? "host threads"
                                        : "one thread");
  }
}

/* ---- KLU ------------------------------------------------------------------------------ */

#ifdef TESSERA_BENCH_HAVE_KLU
/* KLU's state for a, or NULL (the reason in t->note). */
static klu_state *klu_setup(ts_context *ctx, const ts_csr *a, const double *b, newton_times *t) {
  ts_csc *csc = NULL;
  if (ts_csc_from_csr(ctx, a, &csc) != TS_SUCCESS || csc->nnz > INT32_MAX) {
    snprintf(t->note, sizeof t->note, "no CSC copy for KLU");
    ts_csc_destroy(csc);
    return NULL;
  }
  klu_state *s = calloc(1, sizeof *s);
  s->n = (int)a->rows;
  s->row_idx = malloc((size_t)(csc->nnz > 0 ? csc->nnz : 1) * sizeof(int));
  s->values = malloc((size_t)(csc->nnz > 0 ? csc->nnz : 1) * sizeof(double));
  s->col_ptr = malloc((size_t)(s->n + 1) * sizeof(int));
  s->x = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(double));
  s->b = b;
  for (int j = 0; j <= s->n; j++)
    s->col_ptr[j] = (int)csc->col_ptr[j];
  for (int64_t e = 0; e < csc->nnz; e++) {
    s->row_idx[e] = csc->row_idx[e];
    s->values[e] = ((const double *)csc->values)[e];
  }
  ts_csc_destroy(csc);
  klu_defaults(&s->common);
  return s;
}

static void klu_teardown(klu_state *s, const ts_csr *a, const double *b, newton_times *t) {
  if (!s)
    return;
  if (t->ran) {
    t->berr = tsb_backward_error(a, s->x, b);
    /* KLU's factors: L + U of the diagonal blocks (diagonal once) and the
     * off-diagonal blocks it keeps unfactored. */
    klu_flops(s->symbolic, s->numeric, &s->common);
    snprintf(t->note, sizeof t->note, "flops %.3g, L+U+off %lld, %d blocks", s->common.flops,
             (long long)(s->numeric->lnz + s->numeric->unz - s->n + s->numeric->nzoff), s->symbolic->nblocks);
  } else
    snprintf(t->note, sizeof t->note, "KLU status %d", s->common.status);
  klu_free_numeric(&s->numeric, &s->common);
  klu_free_symbolic(&s->symbolic, &s->common);
  free(s->col_ptr);
  free(s->row_idx);
  free(s->values);
  free(s->x);
  free(s);
}
#endif

/* ---- the comparison ------------------------------------------------------------------- */

typedef struct tally {
  int rs_compared, rs_met, afs_compared, afs_met, stalls, klu_stalls, auto_checked, auto_misses, auto_afs_checked,
      auto_afs_misses;
  double worst_rs;
  char worst_rs_name[128];
} tally;

/* KLU's time over tessera's, and whether tessera meets 1.0x: ahead, or both
 * under 50 us and within 10 %. */
static bool meets(double klu_ms, double tessera_ms) {
  if (tessera_ms <= klu_ms)
    return true;
  return klu_ms < 0.05 && tessera_ms < 0.05 && tessera_ms <= 1.1 * klu_ms;
}

static void bench_matrix(ts_context *ctx, const bench_options *o, tsb_table *table, tally *tl, const char *name,
                         const ts_csr *a) {
  if (!a) {
    fprintf(stderr, "%s: %s\n", name, ts_last_error(ctx));
    return;
  }
  int64_t n = a->rows;
  double *b = calloc((size_t)(n > 0 ? n : 1), sizeof *b);
  const double *v = (const double *)a->values;
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
      b[i] += v[e];
  newton_times ts = {0}, klu = {0};
  static solver tessera_solver, klu_solver;
  tessera_state tstate = {.ctx = ctx,
                          .backend = TS_BACKEND_AUTO,
                          .unchecked = o->unchecked,
                          .amd_dense = o->amd_dense,
                          .pivoting = o->pivoting,
                          .a = a,
                          .b = b,
                          .x = malloc((size_t)(n > 0 ? n : 1) * sizeof(double))};
  tessera_solver = tessera_solver_of(&tstate, &ts);
  ts.ran = true;
#ifdef TESSERA_BENCH_HAVE_KLU
  klu_state *kstate = klu_setup(ctx, a, b, &klu);
  klu_solver = (solver){.analyze = klu_run_analyze,
                        .factor = klu_run_factor,
                        .refactor = klu_run_refactor,
                        .solve = klu_run_solve,
                        .state = kstate,
                        .t = &klu};
  klu.ran = kstate != NULL;
#else
  klu_solver = (solver){.t = &klu};
  snprintf(klu.note, sizeof klu.note, "built without KLU");
#endif
  solver *both[2] = {&klu_solver, &tessera_solver};
  time_both(both, o->seconds);
  tessera_report(&tstate, &ts);
  ts_lu_destroy(tstate.lu);
  /* On a CUDA context: AUTO's choice against both paths forced, in turn. */
  newton_times forced[2] = {{0}, {0}};
  if (o->cuda) {
    static solver host_solver, gpu_solver;
    tessera_state host = tstate, device = tstate;
    host.lu = device.lu = NULL;
    host.backend = TS_BACKEND_CPU;
    device.backend = TS_BACKEND_CUDA;
    host_solver = tessera_solver_of(&host, &forced[0]);
    gpu_solver = tessera_solver_of(&device, &forced[1]);
    forced[0].ran = forced[1].ran = true;
    solver *paths[2] = {&host_solver, &gpu_solver};
    time_both(paths, o->seconds);
    tessera_report(&host, &forced[0]);
    tessera_report(&device, &forced[1]);
    ts_lu_destroy(host.lu);
    ts_lu_destroy(device.lu);
  }
  free(tstate.x);
#ifdef TESSERA_BENCH_HAVE_KLU
  klu_teardown(kstate, a, b, &klu);
#endif
  double ratio_rs = klu.ran && ts.ran ? klu.rs_median / ts.rs_median : NAN;
  double ratio_afs = klu.ran && ts.ran ? klu.afs_median / ts.afs_median : NAN;
  const char *verdict_rs = "-", *verdict_afs = "-";
  if (klu.ran && ts.ran) {
    bool rs = meets(klu.rs_median, ts.rs_median), afs = meets(klu.afs_median, ts.afs_median);
    verdict_rs = rs ? "met" : "MISSED";
    verdict_afs = afs ? "met" : "missed";
    tl->rs_compared++, tl->rs_met += rs;
    tl->afs_compared++, tl->afs_met += afs;
    if (tl->rs_compared == 1 || ratio_rs < tl->worst_rs) {
      tl->worst_rs = ratio_rs;
      snprintf(tl->worst_rs_name, sizeof tl->worst_rs_name, "%s", name);
    }
  }
  tl->stalls += ts.ran ? ts.stalls : 0;
  tl->klu_stalls += klu.ran ? klu.stalls : 0;
  fprintf(stderr, "%-28s r+s %.4f / %.4f ms (%s; max %.3f / %.3f, stalls %d / %d of %d)  a+f+s %.3f / %.3f ms (%s)\n",
          name, ts.rs_median, klu.rs_median, verdict_rs, ts.rs_max, klu.rs_max, ts.stalls, klu.stalls, ts.pairs,
          ts.afs_median, klu.afs_median, verdict_afs);
  tsb_table_cell(table, "%s", name);
  tsb_table_cell(table, "%lld", (long long)n);
  tsb_table_cell(table, "%lld", (long long)a->nnz);
  tsb_table_cell(table, "%.4f / %.4f", ts.refactor, klu.refactor);
  tsb_table_cell(table, "%.4f / %.4f", ts.solve, klu.solve);
  tsb_table_cell(table, "%.4f / %.4f", ts.rs_median, klu.rs_median);
  tsb_table_cell(table, "%.2f", ratio_rs);
  tsb_table_cell(table, "%s", verdict_rs);
  tsb_table_cell(table, "%.3f / %.3f", ts.rs_max, klu.rs_max);
  tsb_table_cell(table, "%d / %d of %d", ts.stalls, klu.stalls, ts.pairs);
  tsb_table_cell(table, "%.3f / %.3f", ts.afs_median, klu.afs_median);
  tsb_table_cell(table, "%.2f", ratio_afs);
  tsb_table_cell(table, "%s", verdict_afs);
  tsb_table_cell(table, "%.1e / %.1e", ts.berr, klu.berr);
  if (o->cuda) {
    /* AUTO's miss: the path it did not take was faster by more than 10 %. */
    const newton_times *other = ts.on_gpu ? &forced[0] : &forced[1];
    bool miss = ts.ran && other->ran && other->rs_median * 1.1 < ts.rs_median;
    tl->auto_checked += ts.ran && other->ran;
    tl->auto_misses += miss;
    tsb_table_cell(table, "%s", ts.on_gpu ? "GPU" : ts.threads > 1 ? "host, threads" : "host, one thread");
    tsb_table_cell(table, "%.4f / %.4f", forced[0].rs_median, forced[1].rs_median);
    tsb_table_cell(table, "%s", !(ts.ran && other->ran) ? "-" : miss ? "MISS" : "ok");
    /* The same for a+f+s, whose first factorization AUTO may place apart
     * from the refactorizations: a miss when either forced path was faster
     * by more than 10 %. */
    const bool afs_checked = ts.ran && forced[0].ran && forced[1].ran;
    const double best_afs = forced[0].afs_median < forced[1].afs_median ? forced[0].afs_median : forced[1].afs_median;
    const bool afs_miss = afs_checked && best_afs * 1.1 < ts.afs_median;
    tl->auto_afs_checked += afs_checked;
    tl->auto_afs_misses += afs_miss;
    tsb_table_cell(table, "%.3f / %.3f", forced[0].afs_median, forced[1].afs_median);
    tsb_table_cell(table, "%s", !afs_checked ? "-" : afs_miss ? "MISS" : "ok");
  }
  if (o->phases)
    tsb_table_cell(table, "%.3f / %.3f / %.3f / %.3f / %.3f / %.3f; %.3f / %.3f / %.3f", ts.afs_part[0], ts.afs_part[1],
                   ts.afs_part[2], ts.afs_part[3], ts.afs_part[4], ts.afs_part[5], klu.afs_part[0], klu.afs_part[4],
                   klu.afs_part[5]);
  tsb_table_cell(table, "%s%s%s", ts.note, klu.note[0] ? "; KLU: " : "", klu.note);
  free(b);
}

/* ---- load ----------------------------------------------------------------------------- */

static pid_t load_pids[MAX_LOAD];

static void start_load(int count) {
  for (int k = 0; k < count && k < MAX_LOAD; k++) {
    pid_t pid = fork();
    if (pid == 0) {
      volatile unsigned long spin = 0;
      for (;;)
        spin++;
    }
    load_pids[k] = pid;
  }
}

static void stop_load(int count) {
  for (int k = 0; k < count && k < MAX_LOAD; k++) {
    if (load_pids[k] > 0) {
      kill(load_pids[k], SIGKILL);
      waitpid(load_pids[k], NULL, 0);
    }
  }
}

/* ---- main ------------------------------------------------------------------------------ */

static bool selected(const bench_options *o, const char *name) {
  if (!o->only || !*o->only)
    return true;
  char words[1024];
  snprintf(words, sizeof words, "%s", o->only);
  for (char *word = strtok(words, ","); word; word = strtok(NULL, ","))
    if (strstr(name, word))
      return true;
  return false;
}

static void run_corpus(ts_context *ctx, const bench_options *o, tsb_table *table, tally *tl) {
  char path[4096], line[8192];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", o->matrices ? o->matrices : ".");
  FILE *manifest = o->matrices ? fopen(path, "r") : NULL;
  if (!manifest) {
    fprintf(stderr, "lu_newton: no corpus (--matrices DIR or TESSERA_MATRICES)\n");
    return;
  }
  while (fgets(line, sizeof line, manifest)) {
    char name[256], symmetry[64], field[64];
    long long rows, cols, nnz;
    if (sscanf(line, "%255s %lld %lld %lld %63s %63s", name, &rows, &cols, &nnz, symmetry, field) != 6)
      continue;
    if (rows != cols || rows < 100 || strcmp(symmetry, "general") != 0 || strcmp(field, "pattern") == 0 ||
        !selected(o, name))
      continue;
    ts_csr *a = NULL;
    (void)tsb_read_corpus(ctx, o->matrices, name, &a);
    bench_matrix(ctx, o, table, tl, name, a);
    ts_csr_destroy(a);
  }
  fclose(manifest);
}

static void run_circuits(ts_context *ctx, const bench_options *o, tsb_table *table, tally *tl) {
  for (int locality = 0; locality <= 1; locality++) {
    for (int64_t n = 1000; n <= o->max_n; n *= 10) {
      for (int third = 0; third < 2; third++) {
        int64_t rows = third ? 3 * n : n;
        if (rows > o->max_n || (locality == 1 && rows > 10000))
          continue;
        char name[128];
        snprintf(name, sizeof name, "circuit n=%lld locality=%d", (long long)rows, locality);
        if (!selected(o, name))
          continue;
        ts_circuit_params params = ts_circuit_defaults(rows);
        params.locality = locality;
        ts_csr *a = NULL;
        ts_gen_circuit(ctx, &params, 1, TS_FLOAT64, &a);
        bench_matrix(ctx, o, table, tl, name, a);
        ts_csr_destroy(a);
      }
    }
  }
}

static int parse_options(int argc, char **argv, bench_options *o, const char **csv) {
  const char *sets = "corpus,circuit";
  o->matrices = getenv("TESSERA_MATRICES");
  o->max_n = 100000;
  o->seconds = 0.25;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    bool value = i + 1 < argc;
    if (strcmp(arg, "--matrices") == 0 && value)
      o->matrices = argv[++i];
    else if (strcmp(arg, "--set") == 0 && value)
      sets = argv[++i];
    else if (strcmp(arg, "--only") == 0 && value)
      o->only = argv[++i];
    else if (strcmp(arg, "--max-n") == 0 && value)
      o->max_n = atoll(argv[++i]);
    else if (strcmp(arg, "--threads") == 0 && value)
      o->threads = atoi(argv[++i]);
    else if (strcmp(arg, "--load") == 0 && value)
      o->load = atoi(argv[++i]);
    else if (strcmp(arg, "--seconds") == 0 && value)
      o->seconds = atof(argv[++i]);
    else if (strcmp(arg, "--md") == 0 && value)
      o->md = argv[++i];
    else if (strcmp(arg, "--cuda") == 0)
      o->cuda = true;
    else if (strcmp(arg, "--unchecked") == 0)
      o->unchecked = true;
    else if (strcmp(arg, "--phases") == 0)
      o->phases = true;
    else if (strcmp(arg, "--amd-dense") == 0 && value)
      o->amd_dense = atof(argv[++i]);
    else if (strcmp(arg, "--pivoting") == 0 && value) {
      const char *p = argv[++i];
      if (strcmp(p, "auto") == 0)
        o->pivoting = TS_LU_PIVOTING_AUTO;
      else if (strcmp(p, "static") == 0)
        o->pivoting = TS_LU_PIVOTING_STATIC;
      else if (strcmp(p, "partial") == 0)
        o->pivoting = TS_LU_PIVOTING_PARTIAL;
      else {
        fprintf(stderr, "lu_newton: --pivoting takes auto, static or partial, not '%s'\n", p);
        return 2;
      }
    } else {
      int rc = tsb_option_or_path(
          argv[0], arg,
          "[--matrices DIR] [--set corpus,circuit] [--only LIST] [--max-n N] [--threads N] "
          "[--load K] [--seconds S] [--cuda] [--unchecked] [--phases] [--amd-dense X] [--pivoting P] [--md FILE] "
          "[CSV_PATH]");
      if (rc >= 0)
        return rc;
      *csv = arg;
    }
  }
  o->corpus = strstr(sets, "corpus") != NULL;
  o->circuit = strstr(sets, "circuit") != NULL;
  if (o->load < 0 || o->load > MAX_LOAD) {
    fprintf(stderr, "lu_newton: --load takes 0 to %d processes\n", MAX_LOAD);
    return 2;
  }
  return -1;
}

int main(int argc, char **argv) {
  bench_options o;
  memset(&o, 0, sizeof o);
  const char *csv = "bench-out/lu_newton.csv";
  int rc = parse_options(argc, argv, &o, &csv);
  if (rc >= 0)
    return rc;
  ts_context_options copts = {0};
  copts.backend = o.cuda ? TS_BACKEND_CUDA : TS_BACKEND_CPU;
  copts.num_threads = o.threads;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS) {
    fprintf(stderr, "lu_newton: %s\n", ts_last_error(NULL));
    return 1;
  }
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "comparison",
                   "tessera (context threads %d, 0 = OpenMP's default; %s context%s; amd_dense %g, 0 = AMD's "
                   "default; pivoting %s) / KLU (1 thread, defaults)",
                   o.threads, o.cuda ? "CUDA" : "CPU",
                   o.unchecked ? "; unchecked solves: no residual, as klu_solve" : "; solves checked (the default)",
                   o.amd_dense,
                   o.pivoting == TS_LU_PIVOTING_PARTIAL  ? "partial"
                   : o.pivoting == TS_LU_PIVOTING_STATIC ? "static"
                                                         : "auto");
  tsb_metadata_set(&meta, "load", "%d busy processes beside the run", o.load);
  tsb_metadata_set(&meta, "timing",
                   "refactor + solve: median of repeated pairs (%.2f s a solver and matrix, at least 5); a+f+s: "
                   "median of chains from a new analysis (at least 3); stall: a pair over 2x the median + 0.2 ms",
                   o.seconds);
  static const char *const columns[] = {"matrix",
                                        "n",
                                        "nnz(A)",
                                        "refactor ms (tessera / KLU)",
                                        "solve ms",
                                        "refactor+solve ms",
                                        "KLU / tessera (r+s)",
                                        "r+s goal",
                                        "slowest r+s ms",
                                        "stalls (tessera / KLU) of pairs",
                                        "a+f+s ms",
                                        "KLU / tessera (a+f+s)",
                                        "a+f+s goal",
                                        "backward error",
                                        "AUTO ran on",
                                        "r+s ms, host / GPU forced",
                                        "AUTO",
                                        "a+f+s ms, host / GPU forced",
                                        "AUTO (a+f+s)",
                                        "notes"};
  /* The columns before AUTO's five, those on a CUDA context, the parts with
   * --phases, then the notes. */
  const char *chosen[21];
  int count = 14;
  memcpy(chosen, columns, 14 * sizeof *columns);
  for (int c = 14; o.cuda && c < 19; c++)
    chosen[count++] = columns[c];
  if (o.phases)
    chosen[count++] = "a+f+s parts ms: tessera matching / ordering / symbolic / levels / factor / solve; KLU analyze / "
                      "factor / solve";
  chosen[count++] = columns[19];
  tsb_table *table = tsb_table_create(count, chosen);
  tally tl;
  memset(&tl, 0, sizeof tl);
  start_load(o.load);
  double start = tsb_wall_seconds();
  if (o.corpus)
    run_corpus(ctx, &o, table, &tl);
  if (o.circuit)
    run_circuits(ctx, &o, table, &tl);
  stop_load(o.load);
  tsb_metadata_set(&meta, "r+s >= 1.0x KLU (every matrix)", "met on %d of %d; worst %.2f (%s)", tl.rs_met,
                   tl.rs_compared, tl.worst_rs, tl.worst_rs_name);
  tsb_metadata_set(&meta, "a+f+s >= 1.0x KLU (90 % of them)", "met on %d of %d", tl.afs_met, tl.afs_compared);
  tsb_metadata_set(&meta, "stalls (tessera / KLU)", "%d / %d", tl.stalls, tl.klu_stalls);
  if (o.cuda)
    tsb_metadata_set(&meta, "AUTO's misses (the other path > 10 % faster)", "%d of %d", tl.auto_misses,
                     tl.auto_checked);
  if (o.cuda)
    tsb_metadata_set(&meta, "AUTO's a+f+s misses (a forced path > 10 % faster)", "%d of %d", tl.auto_afs_misses,
                     tl.auto_afs_checked);
  tsb_metadata_set(&meta, "total seconds", "%.1f", tsb_wall_seconds() - start);
  rc = tsb_table_write_csv(table, &meta, csv);
  FILE *md = o.md && tsb_make_parent_dirs(o.md) == 0 ? fopen(o.md, "w") : NULL;
  tsb_table_print_markdown(table, &meta, stdout);
  if (md) {
    tsb_table_print_markdown(table, &meta, md);
    fclose(md);
  }
  tsb_table_destroy(table);
  ts_context_destroy(ctx);
  return rc ? 1 : 0;
}
