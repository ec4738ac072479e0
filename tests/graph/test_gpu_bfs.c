/* BFS on the CUDA backend against the independent reference (sequential
 * queue BFS, parents by the smallest-numbered rule), levels and parents
 * exactly, trees checked, with every schedule, direction optimisation on and
 * off, on generated graphs (isolated vertices, self-loops, repeated edges,
 * disconnected parts, a vertex joined to all, a long path), R-MAT graphs
 * (undirected and directed: bottom-up steps, hubs, vertices of many
 * in-edges), a road-like grid (hundreds of levels), the corpus; repeated
 * runs bitwise equal; many sources on one plan; refused arguments.
 *
 * Under compute-sanitizer (TESSERA_UNDER_SANITIZER names the tool) the
 * graphs shrink and fewer schedules run; under racecheck, which checks every
 * shared-memory access of the whole persistent grid, fewer and smaller
 * still (one source, the schedules with shared memory). Exits 77 without a
 * usable GPU. */
#include "graph_check.h"

static ts_context *gpu;
static bool sanitizer, racecheck;

typedef struct variant {
  ts_schedule schedule;
  int group_size, top_down_only;
  bool in_racecheck; /* runs under racecheck (a schedule with shared memory) */
  const char *name;
} variant;

static const variant variants[] = {{TS_SCHEDULE_AUTO, 0, 0, true, "auto"},
                                   {TS_SCHEDULE_THREAD_MAPPED, 0, 0, false, "thread"},
                                   {TS_SCHEDULE_WARP_MAPPED, 4, 0, false, "warp/4"},
                                   {TS_SCHEDULE_WARP_MAPPED, 8, 1, false, "warp/8 top-down"},
                                   {TS_SCHEDULE_WARP_MAPPED, 32, 0, false, "warp"},
                                   {TS_SCHEDULE_BLOCK_MAPPED, 0, 0, false, "block"},
                                   {TS_SCHEDULE_GROUP_MAPPED, 32, 0, true, "group"},
                                   {TS_SCHEDULE_WORK_ORIENTED, 0, 0, true, "work-oriented"},
                                   {TS_SCHEDULE_WORK_ORIENTED, 0, 1, false, "work-oriented top-down"},
                                   {TS_SCHEDULE_AUTO, 0, 1, false, "auto top-down"}};
#define VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* Every variant (or AUTO only) from each source against the reference. */
static void check_graph(const char *what, const ts_csr *a, ts_graph_direction direction, const int32_t *sources,
                        int nsources, bool all_variants) {
  const int64_t n = a->rows;
  ts_csr *g = graph_expanded(a);
  int32_t *levels = calloc((size_t)n, sizeof(int32_t)), *parents = calloc((size_t)n, sizeof(int32_t));
  int32_t *ref_levels = calloc((size_t)n, sizeof(int32_t)), *ref_parents = calloc((size_t)n, sizeof(int32_t));
  int32_t *again = calloc((size_t)n, sizeof(int32_t));
  if (!g || !levels || !parents || !ref_levels || !ref_parents || !again) {
    CHECK_MSG(false, "%s: out of host memory", what);
    goto done;
  }
  for (int i = 0; i < (racecheck ? 1 : nsources); i++) {
    const int32_t source = sources[i];
    reference_bfs(g, source, ref_levels, ref_parents);
    int64_t reached = 0, edges = 0;
    int32_t deepest = 0;
    for (int64_t v = 0; v < n; v++)
      if (ref_levels[v] >= 0) {
        reached++;
        edges += g->row_ptr[v + 1] - g->row_ptr[v];
        deepest = ref_levels[v] > deepest ? ref_levels[v] : deepest;
      }
    for (int k = 0; k < (all_variants ? VARIANTS : 1); k++) {
      if (racecheck && !variants[k].in_racecheck)
        continue;
      ts_graph_options o = {0};
      o.direction = direction;
      o.schedule = variants[k].schedule;
      o.group_size = variants[k].group_size;
      o.top_down_only = variants[k].top_down_only;
      ts_bfs_plan *plan = NULL;
      ts_graph_run_stats stats;
      memset(&stats, 0, sizeof stats);
      CHECK_OK(gpu, ts_bfs_plan_create(gpu, a, &o, &plan));
      bool ran = plan && api_bfs(gpu, plan, n, source, levels, parents, &stats);
      CHECK_MSG(ran, "%s, %s: BFS from %d", what, variants[k].name, source);
      if (ran) {
        CHECK_MSG(count_int_mismatches("level", levels, ref_levels, n) == 0, "%s, %s: levels from %d", what,
                  variants[k].name, source);
        CHECK_MSG(count_int_mismatches("parent", parents, ref_parents, n) == 0, "%s, %s: parents from %d", what,
                  variants[k].name, source);
        CHECK_MSG(check_bfs_tree(g, source, levels, parents) == 0, "%s, %s: tree from %d", what, variants[k].name,
                  source);
        CHECK_MSG(stats.reached == reached && stats.reached_edges == edges && stats.depth == deepest + 1 &&
                      stats.top_down_steps + stats.bottom_up_steps == stats.depth &&
                      (!o.top_down_only || stats.bottom_up_steps == 0),
                  "%s, %s: stats from %d: reached %lld (want %lld), edges %lld (want %lld), depth %d (want %d), "
                  "%d top-down + %d bottom-up",
                  what, variants[k].name, source, (long long)stats.reached, (long long)reached,
                  (long long)stats.reached_edges, (long long)edges, stats.depth, deepest + 1, stats.top_down_steps,
                  stats.bottom_up_steps);
        /* The same plan again: the same bits (parents only this time). */
        ts_graph_run_stats second;
        CHECK(api_bfs(gpu, plan, n, source, NULL, again, &second));
        CHECK_MSG(memcmp(again, parents, (size_t)n * sizeof(int32_t)) == 0, "%s, %s: second run from %d", what,
                  variants[k].name, source);
      }
      ts_bfs_plan_destroy(plan);
    }
  }
done:
  ts_csr_destroy(g);
  free(levels);
  free(parents);
  free(ref_levels);
  free(ref_parents);
  free(again);
}

static void test_generated(void) {
  unsigned long long state = 99;
  const int64_t sizes[] = {1, 2, 37, 1000, 6000};
  const int count = sanitizer ? 4 : 5;
  for (int s = 0; s < SHAPE_COUNT; s++)
    for (int k = racecheck ? 2 : 0; k < (racecheck ? 3 : count); k++)
      for (int undirected = 0; undirected < 2; undirected++) {
        const int64_t n = sizes[k];
        ts_csr *a = generated_graph((graph_shape)s, n, undirected, true, TS_FLOAT32, &state);
        char what[96];
        snprintf(what, sizeof what, "%s, %lld vertices, %s", shape_names[s], (long long)n,
                 undirected ? "undirected" : "directed");
        CHECK_MSG(a != NULL, "%s: generated", what);
        if (!a)
          continue;
        const int32_t sources[2] = {0, (int32_t)(n / 2)};
        check_graph(what, a, undirected ? TS_GRAPH_UNDIRECTED : TS_GRAPH_DIRECTED, sources, 2,
                    !sanitizer || (s + k) % 3 == 0);
        ts_csr_destroy(a);
      }
}

/* R-MAT: skewed degrees, so that levels go bottom-up, hubs share the grid
 * and vertices of many in-edges are scanned by warps. */
static void test_rmat(void) {
  for (int directed = 0; directed < 2; directed++) {
    ts_rmat_params p = ts_rmat_graph500(racecheck ? 9 : sanitizer ? 11 : 16, 16);
    p.symmetric = !directed;
    ts_csr *a = NULL;
    CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 7, TS_FLOAT32, &a));
    if (!a)
      continue;
    char what[64];
    snprintf(what, sizeof what, "R-MAT scale %d, %s", p.scale, directed ? "directed" : "undirected");
    const int32_t sources[3] = {0, 1, (int32_t)(a->rows - 1)};
    check_graph(what, a, directed ? TS_GRAPH_DIRECTED : TS_GRAPH_UNDIRECTED, sources, sanitizer ? 1 : 3, true);
    ts_csr_destroy(a);
  }
}

/* One vertex joined to all: a hub in both directions, undirected; in a
 * directed star towards 0, vertex 0 has every in-edge. */
static void test_stars(void) {
  /* Under the sanitizers still above the hub degree (one hub for the schedules that set hubs apart). */
  const int64_t n = sanitizer ? 6000 : 50000;
  edge_list e = {0};
  for (int64_t v = 1; v < n; v++) {
    edges_add(&e, 0, (int32_t)v, 1.0);
    edges_add(&e, (int32_t)v, 0, 1.0);
  }
  ts_csr *a = graph_from_edges(n, e.count, e.tails, e.heads, NULL, TS_FLOAT32);
  const int32_t sources[2] = {0, 5};
  if (a)
    check_graph("star, undirected", a, TS_GRAPH_UNDIRECTED, sources, 2, true);
  ts_csr_destroy(a);
  edges_free(&e);
  for (int64_t v = 1; v < n; v++) {
    edges_add(&e, (int32_t)v, 0, 1.0);
    if (v + 1 < n)
      edges_add(&e, (int32_t)v, (int32_t)(v + 1), 1.0);
  }
  a = graph_from_edges(n, e.count, e.tails, e.heads, NULL, TS_FLOAT32);
  if (a)
    check_graph("into one vertex, directed", a, TS_GRAPH_DIRECTED, sources, 2, true);
  ts_csr_destroy(a);
  edges_free(&e);
}

/* High diameter: a road-like grid and a long path. */
static void test_long(void) {
  const int64_t side = racecheck ? 12 : sanitizer ? 40 : 300;
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_grid_graph(NULL, side, side, 0.1, 3, TS_FLOAT64, &a));
  const int32_t corner[2] = {0, (int32_t)(side * side / 2 + side / 2)};
  if (a)
    check_graph("road-like grid", a, TS_GRAPH_UNDIRECTED, corner, 2, true);
  ts_csr_destroy(a);
  unsigned long long state = 1;
  a = generated_graph(SHAPE_PATH, racecheck ? 100 : sanitizer ? 500 : 20000, true, true, TS_FLOAT32, &state);
  const int32_t ends[1] = {0};
  if (a)
    check_graph("path", a, TS_GRAPH_UNDIRECTED, ends, 1, !sanitizer);
  ts_csr_destroy(a);
}

/* Many searches on one plan (the persistent state reused from run to run). */
static void test_many_sources(void) {
  ts_rmat_params p = ts_rmat_graph500(sanitizer ? 9 : 13, 8);
  ts_csr *a = NULL, *g = NULL;
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 11, TS_FLOAT32, &a));
  ts_bfs_plan *plan = NULL;
  ts_graph_options o = {0};
  o.direction = TS_GRAPH_UNDIRECTED;
  if (a)
    CHECK_OK(gpu, ts_bfs_plan_create(gpu, a, &o, &plan));
  if (!plan) {
    ts_csr_destroy(a);
    return;
  }
  g = graph_expanded(a);
  const int64_t n = a->rows;
  int32_t *levels = calloc((size_t)n, sizeof(int32_t)), *parents = calloc((size_t)n, sizeof(int32_t));
  int32_t *ref_levels = calloc((size_t)n, sizeof(int32_t)), *ref_parents = calloc((size_t)n, sizeof(int32_t));
  int bad = 0;
  for (int32_t source = 0; source < (racecheck ? 2 : sanitizer ? 4 : 64) && g; source++) {
    ts_graph_run_stats stats;
    reference_bfs(g, source, ref_levels, ref_parents);
    if (!api_bfs(gpu, plan, n, source, levels, parents, &stats) || memcmp(levels, ref_levels, (size_t)n * 4) != 0 ||
        memcmp(parents, ref_parents, (size_t)n * 4) != 0)
      bad++;
  }
  CHECK_MSG(bad == 0, "many sources: %d searches differ from the reference", bad);
  free(levels);
  free(parents);
  free(ref_levels);
  free(ref_parents);
  ts_csr_destroy(g);
  ts_bfs_plan_destroy(plan);
  ts_csr_destroy(a);
}

static bool corpus_graph(const char *name, const char *path, void *user) {
  (void)user;
  ts_csr *a = graph_read(path, TS_FLOAT32);
  CHECK_MSG(a != NULL, "reading %s: %s", path, ts_last_error(NULL));
  const int32_t n = a ? (int32_t)a->rows : 0;
  const int32_t sources[2] = {0, n - 1};
  if (n > 0)
    check_graph(name, a, TS_GRAPH_DIRECTED, sources, 2, false);
  ts_csr_destroy(a);
  return a != NULL;
}

static void test_corpus(void) {
  const int graphs = graph_corpus_each(racecheck ? 1 : sanitizer ? 6 : 0, corpus_graph, NULL);
  if (graphs >= 0)
    printf("corpus: %d square matrices, 2 sources each (auto schedule)\n", graphs);
}

static void test_refusals(void) {
  const int32_t tails[] = {0, 1}, heads[] = {1, 2};
  ts_csr *a = graph_from_edges(3, 2, tails, heads, NULL, TS_FLOAT32);
  ts_bfs_plan *plan = NULL;
  ts_context *cpu = NULL;
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&cpu, &options));
  if (a)
    CHECK_OK(gpu, ts_bfs_plan_create(gpu, a, NULL, &plan));
  ts_buffer *host = NULL, *other = NULL, *fine = NULL;
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_HOST, 12, &host));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, 12, &fine));
  if (cpu)
    CHECK_OK(cpu, ts_buffer_create(cpu, TS_MEMORY_DEVICE, 12, &other));
  if (plan) {
    ts_graph_run_stats stats;
    CHECK_STATUS(gpu, ts_bfs_last_run(plan, &stats), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(gpu, ts_bfs_execute(plan, 0, host, NULL), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(gpu, ts_bfs_execute(plan, 0, other, NULL), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(gpu, ts_bfs_execute(plan, 3, fine, NULL), TS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(gpu, ts_bfs_execute(plan, 1, fine, NULL));
    CHECK_OK(gpu, ts_bfs_last_run(plan, &stats));
    int32_t levels[3];
    CHECK_OK(gpu, ts_buffer_download(gpu, fine, 0, levels, sizeof levels));
    CHECK(levels[0] == -1 && levels[1] == 0 && levels[2] == 1 && stats.reached == 2 && stats.depth == 2);
    ts_graph_plan_info info;
    CHECK(ts_bfs_plan_info(plan, &info) == TS_SUCCESS && info.in_edge_bytes > 0 && info.graph_bytes > 0 &&
          info.workspace_bytes > 0);
  }
  ts_buffer_destroy(host);
  ts_buffer_destroy(fine);
  ts_buffer_destroy(other);
  ts_bfs_plan_destroy(plan);
  ts_context_destroy(cpu);
  ts_csr_destroy(a);
}

int main(void) {
  gpu = gpu_context_or_skip();
  if (!gpu)
    return test_skip("no usable CUDA device");
  const char *tool = getenv("TESSERA_UNDER_SANITIZER");
  sanitizer = tool && *tool;
  racecheck = sanitizer && strcmp(tool, "racecheck") == 0;
  printf("selection: %s\n", racecheck   ? "racecheck (small graphs, one source, the schedules with shared memory)"
                            : sanitizer ? "sanitizer (smaller graphs, fewer schedules)"
                                        : "full");
  fflush(stdout);
  test_refusals();
  test_generated();
  test_rmat();
  test_stars();
  test_long();
  test_many_sources();
  test_corpus();
  ts_context_destroy(gpu);
  return test_finish();
}
