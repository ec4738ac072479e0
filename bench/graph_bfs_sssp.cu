/* BFS and SSSP on the GPU through tessera's C API: Kronecker (Graph500)
 * graphs of scale 21-24 and edge factor 16 (and 48, the size of the
 * kron_g500-logn21 graph behind Gunrock's published figures), R-MAT graphs
 * (unscrambled), a road-like grid of millions of vertices, and the corpus.
 * Per graph: the median time over several sources (each the median of a few
 * CUDA-event timed executions after a warm-up), traversed edges per second
 * counted as Gunrock counts them (the out-edges of every reached vertex, so
 * each undirected edge twice), levels, the time per level, top-down and
 * bottom-up steps, SSSP rounds and phases; one source of each graph checked
 * against the CPU backend. The copy bandwidth is measured in the same run;
 * Gunrock 1.0's published V100 figures are printed beside (Gunrock built
 * for this GPU runs as its own program: --write-mtx writes the generated
 * graphs for it, and bench/graph_report.py puts its JSON results beside
 * these). Output: a CSV (every graph, algorithm and variant) and a Markdown
 * summary. */
#include "tsb_cuda.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SET_KRON, SET_RMAT, SET_ROAD, SET_CORPUS, SET_COUNT };
static const char *const set_names[SET_COUNT] = {"kron", "rmat", "road", "corpus"};

typedef enum { GEN_KRON, GEN_RMAT, GEN_GRID, GEN_FILE } generator;

typedef struct graph_spec {
  int set;
  const char *name;
  generator gen;
  int scale, edge_factor; /* Kronecker / R-MAT */
  int64_t side;           /* grid: side x side */
  bool in_default;        /* run without --set all */
} graph_spec;

static const graph_spec specs[] = {
    {SET_KRON, "kron21", GEN_KRON, 21, 16, 0, true},      {SET_KRON, "kron21_ef48", GEN_KRON, 21, 48, 0, true},
    {SET_KRON, "kron22", GEN_KRON, 22, 16, 0, true},      {SET_KRON, "kron23", GEN_KRON, 23, 16, 0, true},
    {SET_KRON, "kron24", GEN_KRON, 24, 16, 0, true},      {SET_RMAT, "rmat22", GEN_RMAT, 22, 16, 0, true},
    {SET_RMAT, "rmat24", GEN_RMAT, 24, 16, 0, true},      {SET_ROAD, "road_2048", GEN_GRID, 0, 0, 2048, true},
    {SET_ROAD, "road_4096", GEN_GRID, 0, 0, 4096, false},
};
#define SPEC_COUNT ((int)(sizeof specs / sizeof specs[0]))

/* Graphs of at most this many edges are written for Gunrock with
 * --write-mtx (text Matrix Market: larger ones take minutes to write and
 * read). */
#define MTX_MAX_EDGES ((int64_t)80 << 20)
/* Share of a grid's edges dropped: degrees 2-4, as on a road map. */
#define ROAD_DROP 0.1
#define SEED 20261204u

/* Gunrock 1.0 on a V100 (gunrock/io results, as in the anchors note):
 * direction-optimised BFS and SSSP. */
typedef struct published {
  const char *ours, *theirs;
  double bfs_ms, bfs_gteps, sssp_ms;
} published;
static const published anchors[] = {
    {"kron21_ef48", "kron_g500-logn21 (2.1 M vertices, 182 M edges)", 1.06, 172.0, 25.7},
    {"kron21", "kron_g500-logn21 (2.1 M vertices, 182 M edges)", 1.06, 172.0, 25.7},
    {"rmat24", "rmat_n24_e16", 5.1, 51.0, 0.0},
    {"road_2048", "road_usa (23.9 M vertices, 57.7 M edges)", 566.0, 0.10, 522.0},
};

typedef struct options {
  bool sets[SET_COUNT];
  bool all, quick, sssp, schedules;
  int sources, sssp_sources, repeat;
  const char *csv_path, *md_path, *matrices_dir, *mtx_dir, *only;
  const char *variants; /* --variants: the schedule variants to run (a list of name parts), or NULL */
  const char *mtx_only; /* --mtx-only: the generated graphs --write-mtx writes, or NULL (all) */
  int64_t check_limit;  /* edges up to which a source is checked against the CPU */
  double delta;         /* --delta: SSSP's near-far step (0: the plan's choice) */
} options;

/* One measured configuration. */
typedef struct result {
  char graph[96], algorithm[8], variant[32];
  int64_t vertices, edges;
  int sources;
  double plan_s, ms_median, ms_min, ms_max, gteps_median, us_per_level;
  int depth, top_down, bottom_up, rounds, phases;
  int64_t reached, reached_edges;
  const char *checked; /* "yes", "no (...)", "FAILED" */
} result;

/* ---- timed work ------------------------------------------------------------------- */

typedef struct job {
  ts_bfs_plan *bfs;
  ts_sssp_plan *sssp;
  int64_t source;
  ts_buffer *a, *b; /* levels and parents, or distances and predecessors */
} job;

static int run_job(void *user, void *stream) {
  (void)stream;
  job *j = (job *)user;
  ts_status st =
      j->bfs ? ts_bfs_execute(j->bfs, j->source, j->a, j->b) : ts_sssp_execute(j->sssp, j->source, j->a, j->b);
  if (st != TS_SUCCESS)
    fprintf(stderr, "error: execution failed: %s\n", ts_status_string(st));
  return st == TS_SUCCESS ? 0 : 1;
}

/* Sources: a fixed pseudo-random choice among the vertices with edges. */
static int pick_sources(const ts_csr *g, int count, int64_t *out) {
  uint64_t state = SEED;
  int picked = 0;
  for (int tries = 0; picked < count && tries < 1000 * count; tries++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int64_t v = (int64_t)((state >> 17) % (uint64_t)(g->rows > 0 ? g->rows : 1));
    if (g->row_ptr[v + 1] > g->row_ptr[v])
      out[picked++] = v;
  }
  return picked;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median_of(double *values, int n) {
  qsort(values, (size_t)n, sizeof(double), compare_double);
  return n == 0 ? 0.0 : n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* ---- checks against the CPU backend ------------------------------------------------- */

static const char *check_bfs(ts_context *gpu, ts_context *cpu, const ts_csr *g, const ts_graph_options *o,
                             int64_t source, ts_buffer *levels, ts_buffer *parents) {
  const int64_t n = g->rows;
  int32_t *want_l = (int32_t *)malloc((size_t)n * 4), *want_p = (int32_t *)malloc((size_t)n * 4);
  int32_t *got_l = (int32_t *)malloc((size_t)n * 4), *got_p = (int32_t *)malloc((size_t)n * 4);
  ts_bfs_plan *plan = NULL;
  ts_buffer *l = NULL, *p = NULL;
  const char *verdict = "FAILED";
  if (want_l && want_p && got_l && got_p && ts_bfs_plan_create(cpu, g, o, &plan) == TS_SUCCESS &&
      ts_buffer_create(cpu, TS_MEMORY_DEVICE, (size_t)n * 4, &l) == TS_SUCCESS &&
      ts_buffer_create(cpu, TS_MEMORY_DEVICE, (size_t)n * 4, &p) == TS_SUCCESS &&
      ts_bfs_execute(plan, source, l, p) == TS_SUCCESS &&
      ts_buffer_download(gpu, levels, 0, got_l, (size_t)n * 4) == TS_SUCCESS &&
      ts_buffer_download(gpu, parents, 0, got_p, (size_t)n * 4) == TS_SUCCESS) {
    bool same =
        memcmp(got_l, ts_buffer_data(l), (size_t)n * 4) == 0 && memcmp(got_p, ts_buffer_data(p), (size_t)n * 4) == 0;
    verdict = same ? "yes" : "FAILED";
  }
  ts_buffer_destroy(l);
  ts_buffer_destroy(p);
  ts_bfs_plan_destroy(plan);
  free(want_l);
  free(want_p);
  free(got_l);
  free(got_p);
  return verdict;
}

static const char *check_sssp(ts_context *gpu, ts_context *cpu, const ts_csr *g, const ts_graph_options *o,
                              int64_t source, ts_buffer *dist, ts_buffer *pred) {
  const int64_t n = g->rows;
  const size_t value = ts_dtype_size(g->dtype);
  void *got_d = malloc((size_t)n * value);
  int32_t *got_p = (int32_t *)malloc((size_t)n * 4);
  ts_sssp_plan *plan = NULL;
  ts_buffer *d = NULL, *p = NULL;
  const char *verdict = "FAILED";
  if (got_d && got_p && ts_sssp_plan_create(cpu, g, o, &plan) == TS_SUCCESS &&
      ts_buffer_create(cpu, TS_MEMORY_DEVICE, (size_t)n * value, &d) == TS_SUCCESS &&
      ts_buffer_create(cpu, TS_MEMORY_DEVICE, (size_t)n * 4, &p) == TS_SUCCESS &&
      ts_sssp_execute(plan, source, d, p) == TS_SUCCESS &&
      ts_buffer_download(gpu, dist, 0, got_d, (size_t)n * value) == TS_SUCCESS &&
      ts_buffer_download(gpu, pred, 0, got_p, (size_t)n * 4) == TS_SUCCESS) {
    bool same = memcmp(got_d, ts_buffer_data(d), (size_t)n * value) == 0 &&
                memcmp(got_p, ts_buffer_data(p), (size_t)n * 4) == 0;
    verdict = same ? "yes" : "FAILED";
  }
  ts_buffer_destroy(d);
  ts_buffer_destroy(p);
  ts_sssp_plan_destroy(plan);
  free(got_d);
  free(got_p);
  return verdict;
}

/* ---- one graph ------------------------------------------------------------------------ */

typedef struct schedule_variant {
  ts_schedule schedule;
  int group_size;
  const char *name;
} schedule_variant;

static const schedule_variant schedule_variants[] = {
    {TS_SCHEDULE_AUTO, 0, "auto"},          {TS_SCHEDULE_THREAD_MAPPED, 0, "thread"},
    {TS_SCHEDULE_WARP_MAPPED, 4, "warp/4"}, {TS_SCHEDULE_WARP_MAPPED, 32, "warp"},
    {TS_SCHEDULE_BLOCK_MAPPED, 0, "block"}, {TS_SCHEDULE_GROUP_MAPPED, 32, "group"},
    {TS_SCHEDULE_WORK_ORIENTED, 0, "work"}};

static int measure(ts_context *gpu, ts_context *cpu, const options *opt, const char *name, const ts_csr *g, bool sssp,
                   const schedule_variant *variant, result *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->graph, sizeof r->graph, "%s", name);
  snprintf(r->algorithm, sizeof r->algorithm, "%s", sssp ? "sssp" : "bfs");
  snprintf(r->variant, sizeof r->variant, "%s", variant->name);
  ts_graph_options o;
  memset(&o, 0, sizeof o);
  o.direction = TS_GRAPH_UNDIRECTED;
  o.schedule = variant->schedule;
  o.group_size = variant->group_size;
  o.delta = sssp ? opt->delta : 0.0;
  job j;
  memset(&j, 0, sizeof j);
  const double start = tsb_wall_seconds();
  ts_graph_plan_info info;
  if (sssp) {
    TSB_TS_TRY(gpu, ts_sssp_plan_create(gpu, g, &o, &j.sssp));
    TSB_TS_TRY(gpu, ts_sssp_plan_info(j.sssp, &info));
  } else {
    TSB_TS_TRY(gpu, ts_bfs_plan_create(gpu, g, &o, &j.bfs));
    TSB_TS_TRY(gpu, ts_bfs_plan_info(j.bfs, &info));
  }
  TSB_TS_TRY(gpu, ts_context_sync(gpu));
  r->plan_s = tsb_wall_seconds() - start;
  fprintf(stderr, "plan %s %s %s: %s\n", name, r->algorithm, variant->name, info.explain);
  r->vertices = info.vertices;
  r->edges = info.edges;
  const int64_t n = g->rows;
  const size_t first = sssp ? ts_dtype_size(g->dtype) : 4;
  TSB_TS_TRY(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, (size_t)(n > 0 ? n : 1) * first, &j.a));
  TSB_TS_TRY(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, (size_t)(n > 0 ? n : 1) * 4, &j.b));
  const int wanted = sssp ? opt->sssp_sources : opt->sources;
  int64_t *sources = (int64_t *)malloc((size_t)wanted * sizeof(int64_t));
  double *ms = (double *)malloc((size_t)wanted * sizeof(double)),
         *gteps = (double *)malloc((size_t)wanted * sizeof(double));
  double *per_level = (double *)malloc((size_t)wanted * sizeof(double));
  int failed = !sources || !ms || !gteps || !per_level;
  const int count = failed ? 0 : pick_sources(g, wanted, sources);
  r->sources = count;
  r->checked = "no";
  for (int i = 0; i < count && !failed; i++) {
    j.source = sources[i];
    tsb_stats stats;
    if (tsb_time_events(ts_context_stream(gpu), 1, opt->repeat, run_job, &j, &stats) != 0) {
      failed = 1;
      break;
    }
    ts_graph_run_stats run;
    if ((sssp ? ts_sssp_last_run(j.sssp, &run) : ts_bfs_last_run(j.bfs, &run)) != TS_SUCCESS) {
      fprintf(stderr, "error: %s: %s\n", name, ts_last_error(gpu));
      failed = 1;
      break;
    }
    ms[i] = stats.median;
    gteps[i] = stats.median > 0 ? (double)run.reached_edges / (stats.median * 1e6) : 0.0;
    const int steps = sssp ? run.rounds : run.depth;
    per_level[i] = steps > 0 ? 1000.0 * stats.median / steps : 0.0;
    if (i == 0) {
      r->depth = run.depth;
      r->top_down = run.top_down_steps;
      r->bottom_up = run.bottom_up_steps;
      r->rounds = run.rounds;
      r->phases = run.phases;
      r->reached = run.reached;
      r->reached_edges = run.reached_edges;
      r->ms_min = r->ms_max = stats.median;
      if (info.edges > opt->check_limit || (sssp && info.edges > opt->check_limit / 4))
        r->checked = "no (too large for the CPU check)";
      else
        r->checked =
            sssp ? check_sssp(gpu, cpu, g, &o, j.source, j.a, j.b) : check_bfs(gpu, cpu, g, &o, j.source, j.a, j.b);
    }
    r->ms_min = stats.median < r->ms_min ? stats.median : r->ms_min;
    r->ms_max = stats.median > r->ms_max ? stats.median : r->ms_max;
  }
  if (!failed && count > 0) {
    r->ms_median = median_of(ms, count);
    r->gteps_median = median_of(gteps, count);
    r->us_per_level = median_of(per_level, count);
  }
  ts_buffer_destroy(j.a);
  ts_buffer_destroy(j.b);
  ts_bfs_plan_destroy(j.bfs);
  ts_sssp_plan_destroy(j.sssp);
  free(sources);
  free(ms);
  free(gteps);
  free(per_level);
  if (count == 0 && !failed)
    r->checked = "no source with edges";
  return failed;
}

/* ---- graphs ----------------------------------------------------------------------------- */

static ts_status make_graph(const graph_spec *s, bool quick, ts_csr **g) {
  if (s->gen == GEN_GRID) {
    int64_t side = quick ? s->side / 16 : s->side;
    return ts_gen_grid_graph(NULL, side, side, ROAD_DROP, SEED, TS_FLOAT32, g);
  }
  ts_rmat_params p = ts_rmat_graph500(quick ? s->scale - 6 : s->scale, s->edge_factor);
  p.scramble = s->gen == GEN_KRON; /* R-MAT as Chakrabarti et al. drew it: vertex numbers unscrambled */
  return ts_gen_rmat(NULL, &p, SEED, TS_FLOAT32, g);
}

/* The lower triangle as symmetric Matrix Market text (weights kept): what
 * Gunrock reads to build the same undirected graph. */
static int write_lower_mtx(const ts_csr *g, const char *dir, const char *name, int sources) {
  ts_csr *lower = NULL;
  int64_t count = 0;
  for (int64_t u = 0; u < g->rows; u++)
    for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++)
      count += g->col_idx[k] <= u;
  TSB_TS_TRY(NULL, ts_csr_create(NULL, g->rows, g->cols, count, g->dtype, &lower));
  int64_t at = 0;
  for (int64_t u = 0; u < g->rows; u++) {
    for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++)
      if (g->col_idx[k] <= u) {
        lower->col_idx[at] = g->col_idx[k];
        ((float *)lower->values)[at++] = ((const float *)g->values)[k];
      }
    lower->row_ptr[u + 1] = at;
  }
  lower->symmetry = TS_SYMMETRIC;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
  ts_status st = ts_mm_write_csr(NULL, path, lower, NULL);
  ts_csr_destroy(lower);
  if (st != TS_SUCCESS) {
    fprintf(stderr, "error: writing %s: %s\n", path, ts_last_error(NULL));
    return 1;
  }
  printf("wrote %s\n", path);
  /* The BFS sources, for the peer to start from the same vertices. */
  int64_t *picked = (int64_t *)malloc((size_t)sources * sizeof(int64_t));
  snprintf(path, sizeof path, "%s/%s.sources", dir, name);
  FILE *f = picked ? fopen(path, "w") : NULL;
  const int chosen = f ? pick_sources(g, sources, picked) : 0;
  for (int i = 0; i < chosen; i++)
    fprintf(f, "%s%lld", i ? "," : "", (long long)picked[i]);
  if (f)
    fprintf(f, "\n");
  free(picked);
  if (!f || fclose(f) != 0) {
    fprintf(stderr, "error: writing %s\n", path);
    return 1;
  }
  return 0;
}

/* ---- output ------------------------------------------------------------------------------- */

static const published *anchor_of(const char *graph) {
  for (size_t i = 0; i < sizeof anchors / sizeof anchors[0]; i++)
    if (strcmp(anchors[i].ours, graph) == 0)
      return &anchors[i];
  return NULL;
}

static FILE *md_file;
#define md(...) tsb_tee(md_file, __VA_ARGS__)

static void summary(const result *results, int count, const tsb_metadata *meta, double copy_gbps) {
  md("# BFS and SSSP on the GPU\n\n");
  for (int i = 0; i < meta->count; i++)
    md("- %s: %s\n", meta->key[i], meta->value[i]);
  md("\nEdges per second are counted as Gunrock counts them: the out-edges of every reached vertex (each "
     "undirected edge twice), over the median time of one search (plan excluded; the execution includes "
     "clearing the state and writing levels and parents, or distances and predecessors). Copy bandwidth in "
     "this run: %.0f GB/s.\n",
     copy_gbps);
  for (int a = 0; a < 2; a++) {
    const char *algorithm = a ? "sssp" : "bfs";
    md("\n## %s\n\n", a ? "SSSP (near-far; predecessors included)" : "BFS (direction-optimising; levels and parents)");
    md("| graph | schedule | vertices | edges | sources | ms (median) | GTEPS | %s | us per %s | %s | plan s | "
       "Gunrock 1.0, V100 (published) | x V100 | checked |\n",
       a ? "rounds / phases" : "levels", a ? "round" : "level", a ? "reached" : "top-down / bottom-up");
    md("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < count; i++) {
      const result *r = &results[i];
      if (strcmp(r->algorithm, algorithm) != 0)
        continue;
      const published *p = anchor_of(r->graph);
      char anchor[160] = "-", ratio[32] = "-";
      if (p && (a ? p->sssp_ms : p->bfs_ms) > 0) {
        if (a)
          snprintf(anchor, sizeof anchor, "%s: %.3g ms", p->theirs, p->sssp_ms);
        else
          snprintf(anchor, sizeof anchor, "%s: %.3g ms, %.3g GTEPS", p->theirs, p->bfs_ms, p->bfs_gteps);
        if (a)
          snprintf(ratio, sizeof ratio, "%.1fx faster", p->sssp_ms / r->ms_median);
        else if (strcmp(r->graph, "road_2048") == 0)
          snprintf(ratio, sizeof ratio, "different graph");
        else
          snprintf(ratio, sizeof ratio, "%.1fx GTEPS", r->gteps_median / p->bfs_gteps);
      }
      char steps[48], third[48];
      if (a) {
        snprintf(steps, sizeof steps, "%d / %d", r->rounds, r->phases);
        snprintf(third, sizeof third, "%lld", (long long)r->reached);
      } else {
        snprintf(steps, sizeof steps, "%d", r->depth);
        snprintf(third, sizeof third, "%d / %d", r->top_down, r->bottom_up);
      }
      md("| %s | %s | %lld | %lld | %d | %.4g | %.4g | %s | %.3g | %s | %.2f | %s | %s | %s |\n", r->graph, r->variant,
         (long long)r->vertices, (long long)r->edges, r->sources, r->ms_median, r->gteps_median, steps, r->us_per_level,
         third, r->plan_s, anchor, ratio, r->checked);
    }
  }
  md("\nGoals (issue): BFS at least 10x Gunrock 1.0's V100 GTEPS on Kronecker scale 21 and R-MAT scale 24 (or 4x "
     "Gunrock on this GPU), under 5 us per level on the road-like grid; SSSP at least 10x faster than 25.7 ms on "
     "kron21 (or 4x Gunrock on this GPU). The published kron_g500-logn21 has 182 M edges: kron21_ef48 is the "
     "graph of about that size.\n");
}

/* The CSV of the results so far, and unless @p quiet the Markdown summary
 * (also printed). The CSV is rewritten after each graph, so that a run cut
 * short keeps what it measured (bench/graph_report.py summarises it). */
static int write_results(const result *results, int count, const tsb_metadata *meta, const options *opt,
                         double copy_gbps, bool quiet) {
  static const char *const columns[] = {"graph",   "algorithm",   "schedule",      "vertices",  "edges",
                                        "sources", "ms_median",   "ms_min",        "ms_max",    "gteps_median",
                                        "depth",   "us_per_step", "top_down",      "bottom_up", "rounds",
                                        "phases",  "reached",     "reached_edges", "plan_s",    "checked"};
  tsb_table *table = tsb_table_create(20, columns);
  for (int i = 0; i < count && table; i++) {
    const result *r = &results[i];
    tsb_table_cell(table, "%s", r->graph);
    tsb_table_cell(table, "%s", r->algorithm);
    tsb_table_cell(table, "%s", r->variant);
    tsb_table_cell(table, "%lld", (long long)r->vertices);
    tsb_table_cell(table, "%lld", (long long)r->edges);
    tsb_table_cell(table, "%d", r->sources);
    tsb_table_cell(table, "%.5g", r->ms_median);
    tsb_table_cell(table, "%.5g", r->ms_min);
    tsb_table_cell(table, "%.5g", r->ms_max);
    tsb_table_cell(table, "%.5g", r->gteps_median);
    tsb_table_cell(table, "%d", r->depth);
    tsb_table_cell(table, "%.4g", r->us_per_level);
    tsb_table_cell(table, "%d", r->top_down);
    tsb_table_cell(table, "%d", r->bottom_up);
    tsb_table_cell(table, "%d", r->rounds);
    tsb_table_cell(table, "%d", r->phases);
    tsb_table_cell(table, "%lld", (long long)r->reached);
    tsb_table_cell(table, "%lld", (long long)r->reached_edges);
    tsb_table_cell(table, "%.3f", r->plan_s);
    tsb_table_cell(table, "%s", r->checked);
  }
  int failed = !table || tsb_table_write_csv(table, meta, opt->csv_path) != 0;
  tsb_table_destroy(table);
  if (quiet)
    return failed;
  md_file = tsb_make_parent_dirs(opt->md_path) == 0 ? fopen(opt->md_path, "w") : NULL;
  summary(results, count, meta, copy_gbps);
  if (md_file)
    fclose(md_file);
  md_file = NULL;
  return failed;
}

static bool parse_count(const char *text, int lo, int hi, int *out) {
  char *end = NULL;
  long v = strtol(text, &end, 10);
  if (!end || *end || v < lo || v > hi)
    return false;
  *out = (int)v;
  return true;
}

int main(int argc, char **argv) {
  options opt;
  memset(&opt, 0, sizeof opt);
  opt.csv_path = "bench-out/graph_bfs_sssp.csv";
  opt.sources = 16;
  opt.sssp_sources = 4;
  opt.repeat = 3;
  opt.sssp = true;
  opt.check_limit = (int64_t)300 << 20;
  bool any_set = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (strcmp(arg, "--set") == 0 && has_value) {
      const char *name = argv[++i];
      bool known = strcmp(name, "all") == 0;
      if (known)
        opt.all = true;
      for (int s = 0; s < SET_COUNT; s++)
        if (known || strcmp(name, set_names[s]) == 0) {
          opt.sets[s] = true;
          known = true;
        }
      if (!known) {
        fprintf(stderr, "error: unknown set '%s'\n", name);
        return 2;
      }
      any_set = true;
    } else if (strcmp(arg, "--sources") == 0 && has_value) {
      if (!parse_count(argv[++i], 1, 4096, &opt.sources))
        return fprintf(stderr, "error: --sources takes 1 to 4096\n"), 2;
    } else if (strcmp(arg, "--sssp-sources") == 0 && has_value) {
      if (!parse_count(argv[++i], 1, 4096, &opt.sssp_sources))
        return fprintf(stderr, "error: --sssp-sources takes 1 to 4096\n"), 2;
    } else if (strcmp(arg, "--repeat") == 0 && has_value) {
      if (!parse_count(argv[++i], 1, 1000, &opt.repeat))
        return fprintf(stderr, "error: --repeat takes 1 to 1000\n"), 2;
    } else if (strcmp(arg, "--check-limit") == 0 && has_value) {
      opt.check_limit = strtoll(argv[++i], NULL, 10);
    } else if (strcmp(arg, "--delta") == 0 && has_value) {
      char *end = NULL;
      opt.delta = strtod(argv[++i], &end);
      if (!end || *end || !(opt.delta >= 0.0) || !isfinite(opt.delta))
        return fprintf(stderr, "error: --delta takes a finite step >= 0 (0: the plan's choice)\n"), 2;
    } else if (strcmp(arg, "--no-sssp") == 0) {
      opt.sssp = false;
    } else if (strcmp(arg, "--schedules") == 0) {
      opt.schedules = true;
    } else if (strcmp(arg, "--quick") == 0) {
      opt.quick = true;
    } else if (strcmp(arg, "--only") == 0 && has_value) {
      opt.only = argv[++i];
    } else if (strcmp(arg, "--variants") == 0 && has_value) {
      opt.variants = argv[++i];
    } else if (strcmp(arg, "--mtx-only") == 0 && has_value) {
      opt.mtx_only = argv[++i];
    } else if (strcmp(arg, "--matrices") == 0 && has_value) {
      opt.matrices_dir = argv[++i];
    } else if (strcmp(arg, "--write-mtx") == 0 && has_value) {
      opt.mtx_dir = argv[++i];
    } else if (strcmp(arg, "--md") == 0 && has_value) {
      opt.md_path = argv[++i];
    } else {
      int code = tsb_option_or_path(
          argv[0], arg,
          "[--set kron|rmat|road|corpus|all]... [--sources N] [--sssp-sources N] [--repeat N] "
          "[--no-sssp] [--delta STEP] [--schedules] [--variants NAME[,NAME...]] [--only NAME[,NAME*...]] [--quick] "
          "[--matrices DIR] [--write-mtx DIR] [--mtx-only NAME[,NAME...]] [--check-limit EDGES] "
          "[--md PATH] [CSV_PATH]");
      if (code >= 0)
        return code;
      opt.csv_path = arg;
    }
  }
  if (!any_set)
    for (int s = 0; s < SET_COUNT; s++)
      opt.sets[s] = true;
  char md_default[4096];
  if (!opt.md_path) {
    tsb_markdown_path(opt.csv_path, md_default, sizeof md_default);
    opt.md_path = md_default;
  }
  if (!opt.matrices_dir)
    opt.matrices_dir = getenv("TESSERA_MATRICES");

  ts_context_options co;
  memset(&co, 0, sizeof co);
  co.backend = TS_BACKEND_CUDA;
  ts_context *gpu = NULL, *cpu = NULL;
  ts_status created = ts_context_create(&gpu, &co);
  if (created == TS_ERROR_NO_DEVICE) {
    printf("SKIPPED: %s\n", ts_last_error(NULL));
    return 77;
  }
  if (created != TS_SUCCESS) {
    fprintf(stderr, "error: %s\n", ts_last_error(NULL));
    return 2;
  }
  co.backend = TS_BACKEND_CPU;
  TSB_TS_TRY(NULL, ts_context_create(&cpu, &co));

  tsb_copy_bandwidth copy;
  if (tsb_measure_copy_bandwidth(ts_context_stream(gpu), 0, 10, &copy) != 0)
    return 1;
  tsb_metadata meta;
  tsb_metadata_collect(&meta, gpu, argc, argv);
  tsb_metadata_set(&meta, "copy_gbps", "%.0f", copy.best_gbps);
  tsb_metadata_set(&meta, "timing",
                   "median over sources of the median of %d CUDA-event timed executions after one warm-up", opt.repeat);

  int capacity = 4 * (SPEC_COUNT + 128) * 8, count = 0, failed = 0;
  result *results = (result *)calloc((size_t)capacity, sizeof(result));
  if (!results)
    return 1;
  const int variants =
      opt.schedules || opt.variants ? (int)(sizeof schedule_variants / sizeof schedule_variants[0]) : 1;

  /* Generated graphs. */
  for (int s = 0; s < SPEC_COUNT; s++) {
    const graph_spec *spec = &specs[s];
    if (!opt.sets[spec->set] || (!spec->in_default && !opt.all) || !tsb_name_selected(opt.only, spec->name))
      continue;
    ts_csr *g = NULL;
    double start = tsb_wall_seconds();
    if (make_graph(spec, opt.quick, &g) != TS_SUCCESS) {
      fprintf(stderr, "error: generating %s: %s\n", spec->name, ts_last_error(NULL));
      failed = 1;
      continue;
    }
    printf("%s: %lld vertices, %lld edges, generated in %.1f s\n", spec->name, (long long)g->rows, (long long)g->nnz,
           tsb_wall_seconds() - start);
    fflush(stdout);
    if (opt.mtx_dir && g->nnz <= MTX_MAX_EDGES && tsb_name_selected(opt.mtx_only, spec->name))
      failed |= write_lower_mtx(g, opt.mtx_dir, spec->name, opt.sources);
    for (int a = 0; a < (opt.sssp ? 2 : 1); a++)
      for (int v = 0; v < variants && count < capacity; v++) {
        if (opt.variants && !tsb_name_selected(opt.variants, schedule_variants[v].name))
          continue;
        if (measure(gpu, cpu, &opt, spec->name, g, a == 1, &schedule_variants[v], &results[count]) != 0) {
          failed = 1;
          continue;
        }
        if (strcmp(results[count].checked, "FAILED") == 0)
          failed = 1;
        printf("  %s %s: %.4g ms, %.4g GTEPS, checked %s\n", a ? "sssp" : "bfs", schedule_variants[v].name,
               results[count].ms_median, results[count].gteps_median, results[count].checked);
        fflush(stdout);
        count++;
      }
    ts_csr_destroy(g);
    failed |= write_results(results, count, &meta, &opt, copy.best_gbps, true);
  }

  /* The corpus: every square matrix, as an undirected graph when stored
   * symmetric, else directed; weights |value|. */
  if (opt.sets[SET_CORPUS] && opt.matrices_dir) {
    char path[4096], line[8192], name[128];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", opt.matrices_dir);
    FILE *manifest = fopen(path, "r");
    while (manifest && fgets(line, sizeof line, manifest)) {
      long long rows = 0, cols = 0;
      if (sscanf(line, "%127[^\t]\t%lld\t%lld", name, &rows, &cols) != 3 || rows != cols || rows < 2 ||
          !tsb_name_selected(opt.only, name))
        continue;
      snprintf(path, sizeof path, "%s/%s.mtx", opt.matrices_dir, name);
      ts_coo *coo = NULL, *general = NULL;
      ts_csr *g = NULL;
      if (ts_mm_read(NULL, path, TS_FLOAT32, &coo, NULL) == TS_SUCCESS && coo->symmetry != TS_SKEW_SYMMETRIC &&
          ts_coo_expand_symmetric(NULL, coo, &general) == TS_SUCCESS) {
        for (int64_t k = 0; k < general->nnz; k++)
          ((float *)general->values)[k] = fabsf(((float *)general->values)[k]);
        if (ts_csr_from_coo(NULL, general, TS_DUPLICATES_SUM, &g) != TS_SUCCESS)
          g = NULL;
      }
      ts_coo_destroy(coo);
      ts_coo_destroy(general);
      if (!g)
        continue;
      /* Directed unless every edge has its mirror. */
      bool mirrored = true;
      for (int64_t u = 0; u < g->rows && mirrored; u++)
        for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1] && mirrored; k++) {
          int32_t v = g->col_idx[k];
          bool found = false;
          for (int64_t q = g->row_ptr[v]; q < g->row_ptr[v + 1] && !found; q++)
            found = g->col_idx[q] == u;
          mirrored = found;
        }
      if (!mirrored) {
        ts_csr_destroy(g);
        continue; /* the benchmark's plans are undirected; directed files are covered by the tests */
      }
      for (int a = 0; a < (opt.sssp ? 2 : 1) && count < capacity; a++) {
        if (measure(gpu, cpu, &opt, name, g, a == 1, &schedule_variants[0], &results[count]) != 0) {
          failed = 1;
          continue;
        }
        if (strcmp(results[count].checked, "FAILED") == 0)
          failed = 1;
        count++;
      }
      ts_csr_destroy(g);
    }
    if (manifest)
      fclose(manifest);
  } else if (opt.sets[SET_CORPUS]) {
    printf("corpus set: no MANIFEST.tsv (pass --matrices DIR or set TESSERA_MATRICES); skipped\n");
  }

  failed |= write_results(results, count, &meta, &opt, copy.best_gbps, false);
  free(results);
  ts_context_destroy(cpu);
  ts_context_destroy(gpu);
  return failed;
}
