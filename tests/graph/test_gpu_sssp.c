/* SSSP on the CUDA backend (near-far) against the independent
 * label-correcting reference in the graph's type, distances bitwise, and
 * the predecessors against the reference BFS over tight edges, trees
 * checked; float and double; every schedule and several near-far steps
 * (the result does not depend on them); generated graphs (integer weights
 * with many equal paths, zero-weight cycles, self-loops, repeated edges of
 * different weights, disconnected parts, a vertex joined to all, a long
 * path), R-MAT, the road-like grid, the corpus (weights |value|); repeated
 * runs bitwise equal; many sources on one plan; a plan on a nearly full GPU
 * without the second copy of the edges (full run only).
 *
 * Under compute-sanitizer (TESSERA_UNDER_SANITIZER names the tool) the
 * graphs shrink; under racecheck, which checks every shared-memory access of
 * the whole persistent grid, fewer and smaller still (one source, the
 * schedules with shared memory). Exits 77 without a usable GPU. */
#include "graph_check.h"

static ts_context *gpu;
static bool sanitizer, racecheck;

typedef struct variant {
  ts_schedule schedule;
  int group_size;
  double delta;
  bool in_racecheck; /* runs under racecheck (a schedule with shared memory) */
  const char *name;
} variant;

static const variant variants[] = {{TS_SCHEDULE_AUTO, 0, 0.0, true, "auto"},
                                   {TS_SCHEDULE_THREAD_MAPPED, 0, 0.0, false, "thread"},
                                   {TS_SCHEDULE_WARP_MAPPED, 4, 0.0, false, "warp/4"},
                                   {TS_SCHEDULE_WARP_MAPPED, 32, 1e-7, false, "warp, tiny step"},
                                   {TS_SCHEDULE_BLOCK_MAPPED, 0, 0.0, false, "block"},
                                   {TS_SCHEDULE_GROUP_MAPPED, 32, 1e9, true, "group, one phase"},
                                   {TS_SCHEDULE_WARP_MAPPED, 8, 0.25, false, "warp/8"},
                                   {TS_SCHEDULE_WORK_ORIENTED, 0, 0.0, true, "work-oriented"},
                                   {TS_SCHEDULE_WORK_ORIENTED, 0, 1e-7, false, "work-oriented, tiny step"}};
#define VARIANTS ((int)(sizeof variants / sizeof variants[0]))

static void check_graph(const char *what, const ts_csr *a, ts_graph_direction direction, const int32_t *sources,
                        int nsources, bool all_variants) {
  const int64_t n = a->rows;
  const size_t value = ts_dtype_size(a->dtype);
  ts_csr *g = graph_expanded(a);
  void *dist = calloc((size_t)n, value), *ref = calloc((size_t)n, value), *again = calloc((size_t)n, value);
  int32_t *pred = calloc((size_t)n, sizeof(int32_t)), *ref_pred = calloc((size_t)n, sizeof(int32_t));
  if (!g || !dist || !ref || !again || !pred || !ref_pred) {
    CHECK_MSG(false, "%s: out of host memory", what);
    goto done;
  }
  for (int i = 0; i < (racecheck ? 1 : nsources); i++) {
    const int32_t source = sources[i];
    reference_sssp(g, source, ref);
    reference_predecessors(g, source, ref, ref_pred);
    int64_t reached = 0, edges = 0;
    for (int64_t v = 0; v < n; v++)
      if (isfinite(dist_at(ref, a->dtype, v))) {
        reached++;
        edges += g->row_ptr[v + 1] - g->row_ptr[v];
      }
    for (int k = 0; k < (all_variants ? VARIANTS : 1); k++) {
      if (racecheck && !variants[k].in_racecheck)
        continue;
      ts_graph_options o = {0};
      o.direction = direction;
      o.schedule = variants[k].schedule;
      o.group_size = variants[k].group_size;
      o.delta = variants[k].delta;
      ts_sssp_plan *plan = NULL;
      ts_graph_run_stats stats;
      memset(&stats, 0, sizeof stats);
      CHECK_OK(gpu, ts_sssp_plan_create(gpu, a, &o, &plan));
      bool ran = plan && api_sssp(gpu, plan, n, a->dtype, source, dist, pred, &stats);
      CHECK_MSG(ran, "%s, %s: SSSP from %d", what, variants[k].name, source);
      if (ran) {
        CHECK_MSG(count_distance_mismatches(dist, ref, a->dtype, n) == 0, "%s, %s: distances from %d", what,
                  variants[k].name, source);
        CHECK_MSG(count_int_mismatches("predecessor", pred, ref_pred, n) == 0, "%s, %s: predecessors from %d", what,
                  variants[k].name, source);
        CHECK_MSG(check_sssp_tree(g, source, dist, pred) == 0, "%s, %s: tree from %d", what, variants[k].name, source);
        CHECK_MSG(stats.reached == reached && stats.reached_edges == edges && stats.source == source,
                  "%s, %s: stats from %d: reached %lld (want %lld), edges %lld (want %lld)", what, variants[k].name,
                  source, (long long)stats.reached, (long long)reached, (long long)stats.reached_edges,
                  (long long)edges);
        ts_graph_run_stats second;
        CHECK(api_sssp(gpu, plan, n, a->dtype, source, again, NULL, &second));
        CHECK_MSG(memcmp(again, dist, (size_t)n * value) == 0, "%s, %s: second run from %d", what, variants[k].name,
                  source);
      }
      ts_sssp_plan_destroy(plan);
    }
  }
done:
  ts_csr_destroy(g);
  free(dist);
  free(ref);
  free(again);
  free(pred);
  free(ref_pred);
}

static void test_generated(void) {
  unsigned long long state = 314;
  const int64_t sizes[] = {1, 2, 41, 1000, 5000};
  const int count = sanitizer ? 4 : 5;
  for (int s = 0; s < SHAPE_COUNT; s++)
    for (int k = racecheck ? 2 : 0; k < (racecheck ? 3 : count); k++)
      for (int kind = 0; kind < 4; kind++) {
        const bool undirected = kind & 1, integer = kind & 2;
        const ts_dtype dtype = (s + k + kind) % 2 ? TS_FLOAT32 : TS_FLOAT64;
        const int64_t n = sizes[k];
        ts_csr *a = generated_graph((graph_shape)s, n, undirected, integer, dtype, &state);
        char what[128];
        snprintf(what, sizeof what, "%s, %lld vertices, %s, %s weights, %s", shape_names[s], (long long)n,
                 undirected ? "undirected" : "directed", integer ? "integer" : "fractional",
                 dtype == TS_FLOAT32 ? "float" : "double");
        CHECK_MSG(a != NULL, "%s: generated", what);
        if (!a)
          continue;
        const int32_t sources[2] = {0, (int32_t)(n / 2)};
        check_graph(what, a, undirected ? TS_GRAPH_UNDIRECTED : TS_GRAPH_DIRECTED, sources, 2,
                    !sanitizer && (kind == 0 || k >= 3));
        ts_csr_destroy(a);
      }
}

static void test_rmat_and_grid(void) {
  for (int d = 0; d < 2; d++) {
    const ts_dtype dtype = d ? TS_FLOAT64 : TS_FLOAT32;
    ts_rmat_params p = ts_rmat_graph500(racecheck ? 8 : sanitizer ? 10 : 15, 16);
    ts_csr *a = NULL;
    CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 5, dtype, &a));
    const int32_t sources[2] = {0, 3};
    if (a)
      check_graph(d ? "R-MAT (double)" : "R-MAT (float)", a, TS_GRAPH_UNDIRECTED, sources, sanitizer ? 1 : 2,
                  !sanitizer || d == 0);
    ts_csr_destroy(a);
    const int64_t side = racecheck ? 12 : sanitizer ? 30 : 200;
    CHECK_OK(NULL, ts_gen_grid_graph(NULL, side, side, 0.15, 9, dtype, &a));
    const int32_t corner[1] = {0};
    if (a)
      check_graph(d ? "road-like grid (double)" : "road-like grid (float)", a, TS_GRAPH_UNDIRECTED, corner, 1,
                  !sanitizer || d == 1);
    ts_csr_destroy(a);
  }
}

static void test_many_sources(void) {
  ts_rmat_params p = ts_rmat_graph500(racecheck ? 7 : sanitizer ? 8 : 12, 8);
  ts_csr *a = NULL, *g = NULL;
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 13, TS_FLOAT32, &a));
  ts_sssp_plan *plan = NULL;
  ts_graph_options o = {0};
  o.direction = TS_GRAPH_UNDIRECTED;
  if (a)
    CHECK_OK(gpu, ts_sssp_plan_create(gpu, a, &o, &plan));
  if (!plan) {
    ts_csr_destroy(a);
    return;
  }
  g = graph_expanded(a);
  const int64_t n = a->rows;
  float *dist = calloc((size_t)n, sizeof(float)), *ref = calloc((size_t)n, sizeof(float));
  int32_t *pred = calloc((size_t)n, sizeof(int32_t)), *ref_pred = calloc((size_t)n, sizeof(int32_t));
  int bad = 0;
  for (int32_t source = 0; source < (racecheck ? 2 : sanitizer ? 3 : 32) && g; source++) {
    ts_graph_run_stats stats;
    reference_sssp(g, source, ref);
    reference_predecessors(g, source, ref, ref_pred);
    if (!api_sssp(gpu, plan, n, TS_FLOAT32, source, dist, pred, &stats) || memcmp(dist, ref, (size_t)n * 4) != 0 ||
        memcmp(pred, ref_pred, (size_t)n * 4) != 0)
      bad++;
  }
  CHECK_MSG(bad == 0, "many sources: %d searches differ from the reference", bad);
  free(dist);
  free(ref);
  free(pred);
  free(ref_pred);
  ts_csr_destroy(g);
  ts_sssp_plan_destroy(plan);
  ts_csr_destroy(a);
}

/* Plans an SSSP of a on a nearly full GPU: buffers of CHUNK bytes fill it,
 * then are freed one by one, a plan tried after each, until a plan keeps
 * the second copy of the edges (light ones first). Until then, the first
 * plan that fits must run without the copy, say so, and still give exact
 * distances (checked once, after a few more buffers are freed for the
 * run's outputs). The copy (8 bytes an edge here) is many buffers, so
 * some size lands between the two layouts. */
static void check_without_room(const ts_csr *a, const void *ref) {
  enum { CHUNK = 4 << 20, MAX_CHUNKS = 1 << 16, FOR_RUN = 4 };
  const int64_t n = a->rows;
  ts_buffer **ballast = calloc(MAX_CHUNKS, sizeof(ts_buffer *));
  float *dist = calloc((size_t)n, sizeof(float));
  if (!ballast || !dist) {
    CHECK_MSG(false, "a full GPU: out of host memory");
    free(ballast);
    free(dist);
    return;
  }
  int count = 0;
  while (count < MAX_CHUNKS && ts_buffer_create(gpu, TS_MEMORY_DEVICE, CHUNK, &ballast[count]) == TS_SUCCESS)
    count++;
  int without = 0, with = 0;
  ts_graph_options o = {0};
  o.direction = TS_GRAPH_UNDIRECTED;
  while (count > 0 && with == 0) {
    ts_buffer_destroy(ballast[--count]);
    ts_sssp_plan *plan = NULL;
    if (ts_sssp_plan_create(gpu, a, &o, &plan) != TS_SUCCESS)
      continue;
    ts_graph_plan_info info;
    CHECK_OK(gpu, ts_sssp_plan_info(plan, &info));
    const bool no_copy = strstr(info.explain, "no room for a second copy") != NULL;
    const bool copy = strstr(info.explain, "light and heavy edges") != NULL;
    CHECK_MSG(no_copy != copy, "a full GPU, %d buffers of 4 MB left: the plan says %s", count, info.explain);
    if (no_copy && without++ == 0) {
      for (int k = 0; k < FOR_RUN && count > 0; k++)
        ts_buffer_destroy(ballast[--count]);
      ts_graph_run_stats stats;
      const bool ran = api_sssp(gpu, plan, n, a->dtype, 0, dist, NULL, &stats);
      CHECK_MSG(ran, "a full GPU: SSSP without the second copy");
      CHECK_MSG(ran && count_distance_mismatches(dist, ref, a->dtype, n) == 0,
                "a full GPU: distances without the second copy");
    }
    with += copy;
    ts_sssp_plan_destroy(plan);
  }
  while (count > 0)
    ts_buffer_destroy(ballast[--count]);
  CHECK_MSG(without > 0 && with > 0, "a full GPU: %d plans without the second copy, %d with it (want both)", without,
            with);
  printf("a full GPU: %d plans without the second copy before one with it\n", without);
  free(ballast);
  free(dist);
}

/* An R-MAT graph of mean degree 32 (light and heavy edges) planned with the
 * GPU to itself (the copy kept, the kernels loaded), then on a nearly full
 * GPU. Full run only: filling the device under a sanitizer is slow. */
static void test_without_room(void) {
  ts_rmat_params p = ts_rmat_graph500(18, 16);
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 21, TS_FLOAT32, &a));
  ts_csr *g = a ? graph_expanded(a) : NULL;
  float *ref = a ? calloc((size_t)a->rows, sizeof(float)) : NULL;
  if (g && ref) {
    reference_sssp(g, 0, ref);
    const int32_t source[1] = {0};
    check_graph("R-MAT 18 (float), the GPU to itself", a, TS_GRAPH_UNDIRECTED, source, 1, false);
    check_without_room(a, ref);
  } else {
    CHECK_MSG(false, "R-MAT 18 for a full GPU: generated");
  }
  ts_csr_destroy(g);
  ts_csr_destroy(a);
  free(ref);
}

/* Float and double in turn; skew-symmetric files (negative mirrors) left out. */
static bool corpus_graph(const char *name, const char *path, void *user) {
  int *count = user;
  ts_csr *a = graph_read(path, (*count % 2) ? TS_FLOAT32 : TS_FLOAT64);
  CHECK_MSG(a != NULL, "reading %s: %s", path, ts_last_error(NULL));
  const bool used = a && a->symmetry != TS_SKEW_SYMMETRIC && a->rows > 0;
  if (used) {
    const int32_t sources[2] = {0, (int32_t)(a->rows - 1)};
    check_graph(name, a, TS_GRAPH_DIRECTED, sources, 2, false);
    (*count)++;
  }
  ts_csr_destroy(a);
  return used;
}

static void test_corpus(void) {
  int count = 0;
  const int graphs = graph_corpus_each(racecheck ? 1 : sanitizer ? 6 : 0, corpus_graph, &count);
  if (graphs >= 0)
    printf("corpus: %d square matrices, 2 sources each (auto schedule)\n", graphs);
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
  test_generated();
  test_rmat_and_grid();
  test_many_sources();
  if (!sanitizer)
    test_without_room();
  test_corpus();
  ts_context_destroy(gpu);
  return test_finish();
}
