/* BFS on the CPU backend against a hand-worked graph and an independent
 * sequential reference (levels by a queue, then each parent as the
 * smallest-numbered tail one level up), on generated graphs (isolated
 * vertices, self-loops, repeated edges, unsorted rows, disconnected parts,
 * one vertex joined to all, a long path), directed and undirected, symmetric
 * storage, the corpus, and refused inputs with their messages. */
#include "graph_check.h"

static ts_context *cpu;

/* Levels and parents of one search through the API. */
static bool run_bfs(const ts_csr *a, const ts_graph_options *o, int32_t source, int32_t *levels, int32_t *parents,
                    ts_graph_run_stats *stats) {
  ts_bfs_plan *plan = NULL;
  ts_buffer *lv = NULL, *pa = NULL;
  const size_t bytes = (size_t)(a->rows > 0 ? a->rows : 1) * sizeof(int32_t);
  bool ok = ts_bfs_plan_create(cpu, a, o, &plan) == TS_SUCCESS &&
            ts_buffer_create(cpu, TS_MEMORY_DEVICE, bytes, &lv) == TS_SUCCESS &&
            ts_buffer_create(cpu, TS_MEMORY_DEVICE, bytes, &pa) == TS_SUCCESS &&
            ts_bfs_execute(plan, source, lv, pa) == TS_SUCCESS && ts_bfs_last_run(plan, stats) == TS_SUCCESS;
  if (ok) {
    memcpy(levels, ts_buffer_data(lv), (size_t)a->rows * sizeof(int32_t));
    memcpy(parents, ts_buffer_data(pa), (size_t)a->rows * sizeof(int32_t));
  } else {
    fprintf(stderr, "  BFS failed: %s\n", ts_last_error(cpu));
  }
  ts_buffer_destroy(lv);
  ts_buffer_destroy(pa);
  ts_bfs_plan_destroy(plan);
  return ok;
}

/* One search checked against the reference on the graph as traversed. */
static void check_against_reference(const char *what, const ts_csr *a, ts_graph_direction direction, int32_t source) {
  ts_graph_options o = {0};
  o.direction = direction;
  const int64_t n = a->rows;
  int32_t *levels = calloc((size_t)n, sizeof(int32_t)), *parents = calloc((size_t)n, sizeof(int32_t));
  int32_t *ref_levels = calloc((size_t)n, sizeof(int32_t)), *ref_parents = calloc((size_t)n, sizeof(int32_t));
  ts_csr *g = graph_expanded(a);
  ts_graph_run_stats stats;
  bool ran = levels && parents && ref_levels && ref_parents && g && run_bfs(a, &o, source, levels, parents, &stats);
  CHECK_MSG(ran, "%s: BFS from %d", what, source);
  if (ran) {
    reference_bfs(g, source, ref_levels, ref_parents);
    CHECK_MSG(count_int_mismatches("level", levels, ref_levels, n) == 0, "%s: levels from %d", what, source);
    CHECK_MSG(count_int_mismatches("parent", parents, ref_parents, n) == 0, "%s: parents from %d", what, source);
    CHECK_MSG(check_bfs_tree(g, source, levels, parents) == 0, "%s: tree from %d", what, source);
    int64_t reached = 0, edges = 0;
    int32_t deepest = 0;
    for (int64_t v = 0; v < n; v++)
      if (ref_levels[v] >= 0) {
        reached++;
        edges += g->row_ptr[v + 1] - g->row_ptr[v];
        deepest = ref_levels[v] > deepest ? ref_levels[v] : deepest;
      }
    CHECK_MSG(stats.reached == reached && stats.reached_edges == edges && stats.depth == deepest + 1 &&
                  stats.source == source,
              "%s: stats reached %lld (want %lld), edges %lld (want %lld), depth %d (want %d)", what,
              (long long)stats.reached, (long long)reached, (long long)stats.reached_edges, (long long)edges,
              stats.depth, deepest + 1);
  }
  ts_csr_destroy(g);
  free(levels);
  free(parents);
  free(ref_levels);
  free(ref_parents);
}

/* A graph worked by hand: 0 -> 1, 0 -> 2, 2 -> 3, 1 -> 3, 3 -> 4, 4 -> 0;
 * 5 has no edge; 3's parents at level 1 are 1 and 2: the smaller wins. */
static void test_hand_graph(void) {
  const int32_t tails[] = {0, 0, 2, 1, 3, 4}, heads[] = {2, 1, 3, 3, 4, 0};
  ts_csr *a = graph_from_edges(6, 6, tails, heads, NULL, TS_FLOAT64);
  int32_t levels[6] = {0}, parents[6] = {0};
  ts_graph_run_stats stats = {0};
  ts_graph_options o = {0};
  CHECK(a && run_bfs(a, &o, 0, levels, parents, &stats));
  const int32_t want_levels[6] = {0, 1, 1, 2, 3, -1}, want_parents[6] = {0, 0, 0, 1, 3, -1};
  CHECK(memcmp(levels, want_levels, sizeof levels) == 0);
  CHECK(memcmp(parents, want_parents, sizeof parents) == 0);
  CHECK(stats.reached == 5 && stats.depth == 4 && stats.reached_edges == 6);
  /* From 4: 4 -> 0 -> {1, 2} -> 3. */
  CHECK(a && run_bfs(a, &o, 4, levels, parents, &stats));
  const int32_t from4_levels[6] = {1, 2, 2, 3, 0, -1}, from4_parents[6] = {4, 0, 0, 1, 4, -1};
  CHECK(memcmp(levels, from4_levels, sizeof levels) == 0);
  CHECK(memcmp(parents, from4_parents, sizeof parents) == 0);
  ts_csr_destroy(a);
}

static void test_generated(void) {
  unsigned long long state = 2026;
  const int64_t sizes[] = {1, 2, 37, 300};
  for (int s = 0; s < SHAPE_COUNT; s++)
    for (int k = 0; k < 4; k++)
      for (int undirected = 0; undirected < 2; undirected++) {
        const int64_t n = sizes[k];
        ts_csr *a = generated_graph((graph_shape)s, n, undirected, true, TS_FLOAT64, &state);
        char what[96];
        snprintf(what, sizeof what, "%s, %lld vertices, %s", shape_names[s], (long long)n,
                 undirected ? "undirected" : "directed");
        CHECK_MSG(a != NULL, "%s: generated", what);
        if (!a)
          continue;
        const int32_t sources[3] = {0, (int32_t)(n / 2), (int32_t)(n - 1)};
        for (int i = 0; i < 3; i++)
          check_against_reference(what, a, undirected ? TS_GRAPH_UNDIRECTED : TS_GRAPH_DIRECTED, sources[i]);
        ts_csr_destroy(a);
      }
}

/* Lower-triangle symmetric storage traverses as its expansion does. */
static void test_symmetric_storage(void) {
  /* Edges 0-1, 1-2, 0-3, 1-3, 2-3 and a loop at 2, lower triangle only; 4 alone. */
  const int32_t tails[] = {1, 2, 2, 3, 3, 3}, heads[] = {0, 1, 2, 0, 1, 2};
  ts_csr *a = graph_from_edges(5, 6, tails, heads, NULL, TS_FLOAT64);
  CHECK(a != NULL);
  if (!a)
    return;
  a->symmetry = TS_SYMMETRIC;
  for (int32_t source = 0; source < 5; source++)
    check_against_reference("symmetric storage", a, TS_GRAPH_DIRECTED, source);
  int32_t levels[5] = {0}, parents[5] = {0};
  ts_graph_run_stats stats = {0};
  ts_graph_options o = {0};
  CHECK(run_bfs(a, &o, 2, levels, parents, &stats));
  const int32_t want_levels[5] = {2, 1, 0, 1, -1}, want_parents[5] = {1, 2, 2, 2, -1};
  CHECK(memcmp(levels, want_levels, sizeof levels) == 0);
  CHECK(memcmp(parents, want_parents, sizeof parents) == 0);
  ts_bfs_plan *plan = NULL;
  ts_graph_plan_info info;
  CHECK_OK(cpu, ts_bfs_plan_create(cpu, a, NULL, &plan));
  CHECK(plan && ts_bfs_plan_info(plan, &info) == TS_SUCCESS && info.direction == TS_GRAPH_UNDIRECTED &&
        info.edges == 11 && info.in_edge_bytes == 0);
  ts_bfs_plan_destroy(plan);
  ts_csr_destroy(a);
}

/* Options: the schedules and top-down only change nothing on the CPU; a
 * directed plan keeps in-edges unless top-down only. */
static void test_options(void) {
  unsigned long long state = 5;
  ts_csr *a = generated_graph(SHAPE_RANDOM, 200, false, true, TS_FLOAT32, &state);
  CHECK(a != NULL);
  if (!a)
    return;
  int32_t base_levels[200] = {0}, base_parents[200] = {0}, levels[200] = {0}, parents[200] = {0};
  ts_graph_run_stats stats = {0};
  ts_graph_options o = {0};
  CHECK(run_bfs(a, &o, 1, base_levels, base_parents, &stats));
  const ts_schedule schedules[] = {TS_SCHEDULE_THREAD_MAPPED, TS_SCHEDULE_WARP_MAPPED, TS_SCHEDULE_BLOCK_MAPPED,
                                   TS_SCHEDULE_GROUP_MAPPED, TS_SCHEDULE_WORK_ORIENTED};
  for (int i = 0; i < 5; i++) {
    o.schedule = schedules[i];
    o.top_down_only = i % 2;
    CHECK(run_bfs(a, &o, 1, levels, parents, &stats));
    CHECK(memcmp(levels, base_levels, sizeof levels) == 0 && memcmp(parents, base_parents, sizeof parents) == 0);
  }
  ts_graph_plan_info info;
  ts_bfs_plan *plan = NULL;
  memset(&o, 0, sizeof o);
  CHECK_OK(cpu, ts_bfs_plan_create(cpu, a, &o, &plan));
  CHECK(plan && ts_bfs_plan_info(plan, &info) == TS_SUCCESS && info.in_edge_bytes == (int64_t)201 * 8 + a->nnz * 4 &&
        info.bottom_up == 1 && info.explain[0] != '\0');
  ts_bfs_plan_destroy(plan);
  o.top_down_only = 1;
  CHECK_OK(cpu, ts_bfs_plan_create(cpu, a, &o, &plan));
  CHECK(plan && ts_bfs_plan_info(plan, &info) == TS_SUCCESS && info.in_edge_bytes == 0 && info.bottom_up == 0);
  ts_bfs_plan_destroy(plan);
  ts_csr_destroy(a);
  /* AUTO: a few threads a vertex when every out-degree is small, else the
   * work-oriented expansion (the edges spread evenly, whatever the degrees). */
  const int32_t tails[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, heads[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 2};
  for (int wide = 0; wide < 2; wide++) {
    a = graph_from_edges(10, wide ? 10 : 8, wide ? tails : tails + 2, wide ? heads : heads + 2, NULL, TS_FLOAT32);
    memset(&o, 0, sizeof o);
    plan = NULL;
    if (a)
      CHECK_OK(cpu, ts_bfs_plan_create(cpu, a, &o, &plan));
    CHECK_MSG(plan && ts_bfs_plan_info(plan, &info) == TS_SUCCESS &&
                  info.schedule == (wide ? TS_SCHEDULE_WORK_ORIENTED : TS_SCHEDULE_WARP_MAPPED) &&
                  info.group_size == (wide ? 0 : 8),
              "AUTO with out-degrees up to %d: %s, group %d", wide ? 9 : 7, ts_schedule_name(info.schedule),
              info.group_size);
    ts_bfs_plan_destroy(plan);
    ts_csr_destroy(a);
  }
}

static bool corpus_graph(const char *name, const char *path, void *user) {
  (void)user;
  ts_csr *a = graph_read(path, TS_FLOAT64);
  CHECK_MSG(a != NULL, "reading %s: %s", path, ts_last_error(NULL));
  const int32_t n = a ? (int32_t)a->rows : 0;
  const int32_t sources[3] = {0, n / 2, n - 1};
  for (int i = 0; i < 3 && n > 0; i++)
    check_against_reference(name, a, TS_GRAPH_DIRECTED, sources[i]);
  ts_csr_destroy(a);
  return a != NULL;
}

static void test_corpus(void) {
  const int graphs = graph_corpus_each(0, corpus_graph, NULL);
  if (graphs >= 0)
    printf("corpus: %d square matrices searched from 3 sources each\n", graphs);
}

static void test_refusals(void) {
  const int32_t tails[] = {0, 1, 2}, heads[] = {1, 2, 0};
  ts_csr *a = graph_from_edges(3, 3, tails, heads, NULL, TS_FLOAT64);
  ts_bfs_plan *plan = NULL;
  ts_graph_options o = {0};
  CHECK(a != NULL);
  if (!a)
    return;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, NULL, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  /* A directed cycle is not undirected: 0 -> 1 has no 1 -> 0. */
  o.direction = TS_GRAPH_UNDIRECTED;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, &o, &plan), TS_ERROR_INVALID_MATRIX);
  CHECK(strstr(ts_last_error(cpu), "0 -> 1") != NULL);
  o.direction = (ts_graph_direction)7;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  memset(&o, 0, sizeof o);
  o.schedule = TS_SCHEDULE_MERGE_PATH;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, &o, &plan), TS_ERROR_UNSUPPORTED);
  o.schedule = TS_SCHEDULE_SPLIT_ROWS;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, &o, &plan), TS_ERROR_UNSUPPORTED);
  o.schedule = TS_SCHEDULE_WORK_ORIENTED;
  o.group_size = 32;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.group_size = 0;
  o.schedule = (ts_schedule)42;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.schedule = TS_SCHEDULE_WARP_MAPPED;
  o.group_size = 16;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.schedule = TS_SCHEDULE_THREAD_MAPPED;
  o.group_size = 4;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(plan == NULL);

  /* Broken arrays, each named in the message. */
  a->col_idx[1] = 3;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, NULL, &plan), TS_ERROR_INVALID_MATRIX);
  CHECK(strstr(ts_last_error(cpu), "vertex 1") != NULL && strstr(ts_last_error(cpu), "head 3") != NULL);
  a->col_idx[1] = -1;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, NULL, &plan), TS_ERROR_INVALID_MATRIX);
  a->col_idx[1] = 2;
  a->row_ptr[1] = 2;
  a->row_ptr[2] = 1;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, NULL, &plan), TS_ERROR_INVALID_MATRIX);
  a->row_ptr[1] = 1;
  a->row_ptr[2] = 2;
  a->row_ptr[3] = 4;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, NULL, &plan), TS_ERROR_INVALID_MATRIX);
  a->row_ptr[3] = 3;
  a->cols = 4;
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, a, NULL, &plan), TS_ERROR_INVALID_MATRIX);
  a->cols = 3;

  /* More vertices than 32-bit numbers hold: refused before any array is read. */
  int64_t offsets[2] = {0, 0};
  ts_csr huge = {(int64_t)INT32_MAX + 1, (int64_t)INT32_MAX + 1, 0, offsets, NULL, NULL, TS_FLOAT64, TS_GENERAL};
  CHECK_STATUS(cpu, ts_bfs_plan_create(cpu, &huge, NULL, &plan), TS_ERROR_OVERFLOW);

  /* Execution arguments. */
  CHECK_OK(cpu, ts_bfs_plan_create(cpu, a, NULL, &plan));
  ts_buffer *small = NULL, *host = NULL, *fine = NULL;
  ts_graph_run_stats stats;
  CHECK_STATUS(cpu, ts_bfs_last_run(plan, &stats), TS_ERROR_INVALID_ARGUMENT);
  CHECK_OK(cpu, ts_buffer_create(cpu, TS_MEMORY_DEVICE, 2 * sizeof(int32_t), &small));
  CHECK_OK(cpu, ts_buffer_create(cpu, TS_MEMORY_HOST, 3 * sizeof(int32_t), &host));
  CHECK_OK(cpu, ts_buffer_create(cpu, TS_MEMORY_DEVICE, 3 * sizeof(int32_t), &fine));
  CHECK_STATUS(cpu, ts_bfs_execute(plan, 3, fine, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(cpu), "source 3") != NULL);
  CHECK_STATUS(cpu, ts_bfs_execute(plan, -1, fine, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(cpu, ts_bfs_execute(plan, 0, small, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(cpu, ts_bfs_execute(plan, 0, NULL, host), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(cpu, ts_bfs_execute(NULL, 0, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  /* One buffer for both outputs: the parents would overwrite the levels. */
  CHECK_STATUS(cpu, ts_bfs_execute(plan, 0, fine, fine), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(cpu), "overlap") != NULL);
  CHECK_OK(cpu, ts_bfs_execute(plan, 0, NULL, fine));
  CHECK_OK(cpu, ts_bfs_last_run(plan, &stats));
  const int32_t *parents = ts_buffer_data(fine);
  CHECK(parents[0] == 0 && parents[1] == 0 && parents[2] == 1 && stats.reached == 3 && stats.depth == 3);
  ts_buffer_destroy(small);
  ts_buffer_destroy(host);
  ts_buffer_destroy(fine);
  ts_bfs_plan_destroy(plan);
  ts_bfs_plan_destroy(NULL);

  /* An empty graph plans; no vertex can be a source. */
  ts_csr *empty = NULL;
  CHECK_OK(cpu, ts_csr_create(NULL, 0, 0, 0, TS_FLOAT64, &empty));
  CHECK_OK(cpu, ts_bfs_plan_create(cpu, empty, NULL, &plan));
  CHECK_STATUS(cpu, ts_bfs_execute(plan, 0, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  ts_bfs_plan_destroy(plan);
  ts_csr_destroy(empty);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  if (ts_context_create(&cpu, &options) != TS_SUCCESS) {
    fprintf(stderr, "cannot create a CPU context: %s\n", ts_last_error(NULL));
    return 1;
  }
  test_hand_graph();
  test_generated();
  test_symmetric_storage();
  test_options();
  test_refusals();
  test_corpus();
  ts_context_destroy(cpu);
  return test_finish();
}
