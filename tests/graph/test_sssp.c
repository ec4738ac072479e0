/* SSSP on the CPU backend (Dijkstra) against a hand-worked graph and an
 * independent label-correcting reference in the graph's type, bitwise; the
 * predecessors against a reference BFS over the tight edges and checked as
 * a tree (zero-weight cycles, repeated edges of different weights, equal
 * paths); float rounding; the corpus (weights |value|); refused weights and
 * arguments. */
#include "graph_check.h"

static ts_context *cpu;

static bool run_sssp(const ts_csr *a, const ts_graph_options *o, int32_t source, void *dist, int32_t *pred,
                     ts_graph_run_stats *stats) {
  ts_sssp_plan *plan = NULL;
  ts_buffer *d = NULL, *p = NULL;
  const int64_t n = a->rows > 0 ? a->rows : 1;
  const size_t value = ts_dtype_size(a->dtype);
  bool ok = ts_sssp_plan_create(cpu, a, o, &plan) == TS_SUCCESS &&
            ts_buffer_create(cpu, TS_MEMORY_DEVICE, (size_t)n * value, &d) == TS_SUCCESS &&
            ts_buffer_create(cpu, TS_MEMORY_DEVICE, (size_t)n * sizeof(int32_t), &p) == TS_SUCCESS &&
            ts_sssp_execute(plan, source, d, p) == TS_SUCCESS && ts_sssp_last_run(plan, stats) == TS_SUCCESS;
  if (ok) {
    memcpy(dist, ts_buffer_data(d), (size_t)a->rows * value);
    memcpy(pred, ts_buffer_data(p), (size_t)a->rows * sizeof(int32_t));
  } else {
    fprintf(stderr, "  SSSP failed: %s\n", ts_last_error(cpu));
  }
  ts_buffer_destroy(d);
  ts_buffer_destroy(p);
  ts_sssp_plan_destroy(plan);
  return ok;
}

static void check_against_reference(const char *what, const ts_csr *a, ts_graph_direction direction, int32_t source) {
  ts_graph_options o = {0};
  o.direction = direction;
  const int64_t n = a->rows;
  const size_t value = ts_dtype_size(a->dtype);
  void *dist = calloc((size_t)n, value), *ref = calloc((size_t)n, value);
  int32_t *pred = calloc((size_t)n, sizeof(int32_t)), *ref_pred = calloc((size_t)n, sizeof(int32_t));
  ts_csr *g = graph_expanded(a);
  ts_graph_run_stats stats;
  bool ran = dist && ref && pred && ref_pred && g && run_sssp(a, &o, source, dist, pred, &stats);
  CHECK_MSG(ran, "%s: SSSP from %d", what, source);
  if (ran) {
    reference_sssp(g, source, ref);
    reference_predecessors(g, source, ref, ref_pred);
    CHECK_MSG(count_distance_mismatches(dist, ref, a->dtype, n) == 0, "%s: distances from %d", what, source);
    CHECK_MSG(count_int_mismatches("predecessor", pred, ref_pred, n) == 0, "%s: predecessors from %d", what, source);
    CHECK_MSG(check_sssp_tree(g, source, dist, pred) == 0, "%s: tree from %d", what, source);
    int64_t reached = 0, edges = 0;
    for (int64_t v = 0; v < n; v++)
      if (isfinite(dist_at(ref, a->dtype, v))) {
        reached++;
        edges += g->row_ptr[v + 1] - g->row_ptr[v];
      }
    CHECK_MSG(stats.reached == reached && stats.reached_edges == edges && stats.source == source,
              "%s: stats reached %lld (want %lld), edges %lld (want %lld)", what, (long long)stats.reached,
              (long long)reached, (long long)stats.reached_edges, (long long)edges);
  }
  ts_csr_destroy(g);
  free(dist);
  free(ref);
  free(pred);
  free(ref_pred);
}

/* Worked by hand: 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (2), 1 -> 3 (1), 2 -> 3 (5),
 * 3 -> 4 (0), 4 -> 3 (0), 0 -> 5 (7), 1 -> 5 (4); 6 unreachable.
 * dist: 0, 3, 1, 4, 4, 7; 5 has two tight paths (0 -> 5 and 0 -> 2 -> 1 -> 5):
 * the one of fewer tight hops wins (0); 3 and 4 form a zero-weight cycle. */
static void test_hand_graph(void) {
  const int32_t tails[] = {0, 0, 2, 1, 2, 3, 4, 0, 1}, heads[] = {1, 2, 1, 3, 3, 4, 3, 5, 5};
  const double weights[] = {4, 1, 2, 1, 5, 0, 0, 7, 4};
  for (int d = 0; d < 2; d++) {
    ts_dtype dtype = d ? TS_FLOAT64 : TS_FLOAT32;
    ts_csr *a = graph_from_edges(7, 9, tails, heads, weights, dtype);
    double dist[7] = {0};
    int32_t pred[7] = {0};
    ts_graph_run_stats stats = {0};
    CHECK(a && run_sssp(a, NULL, 0, dist, pred, &stats));
    const double want[7] = {0, 3, 1, 4, 4, 7, INFINITY};
    const int32_t want_pred[7] = {0, 2, 0, 1, 3, 0, -1};
    for (int v = 0; v < 7; v++) {
      CHECK_MSG(dist_at(dist, dtype, v) == want[v], "vertex %d: %g, want %g", v, dist_at(dist, dtype, v), want[v]);
      CHECK_MSG(pred[v] == want_pred[v], "vertex %d: predecessor %d, want %d", v, pred[v], want_pred[v]);
    }
    CHECK(stats.reached == 6 && stats.reached_edges == 9 && stats.depth == 5);
    ts_csr_destroy(a);
  }
}

/* Float sums round: 0.1f summed ten times is not 1.0f. A direct edge of
 * weight 1.0f competes with the ten-step path; the distances follow float
 * arithmetic, as the reference does. */
static void test_rounding(void) {
  edge_list e = {0};
  for (int32_t v = 0; v < 10; v++)
    edges_add(&e, v, v + 1, 0.1);
  edges_add(&e, 0, 10, 1.0);
  edges_add(&e, 10, 11, 1e-9); /* vanishes next to 1.0 in float: a tight edge of no weight */
  edges_add(&e, 11, 10, 0.0);
  for (int d = 0; d < 2; d++) {
    ts_dtype dtype = d ? TS_FLOAT64 : TS_FLOAT32;
    ts_csr *a = graph_from_edges(12, e.count, e.tails, e.heads, e.weights, dtype);
    CHECK(a != NULL);
    if (a)
      check_against_reference(d ? "rounding (double)" : "rounding (float)", a, TS_GRAPH_DIRECTED, 0);
    ts_csr_destroy(a);
  }
  edges_free(&e);
}

static void test_generated(void) {
  unsigned long long state = 4242;
  const int64_t sizes[] = {1, 2, 41, 250};
  for (int s = 0; s < SHAPE_COUNT; s++)
    for (int k = 0; k < 4; k++)
      for (int variant = 0; variant < 4; variant++) {
        const bool undirected = variant & 1, integer = variant & 2;
        const ts_dtype dtype = (s + k) % 2 ? TS_FLOAT32 : TS_FLOAT64;
        const int64_t n = sizes[k];
        ts_csr *a = generated_graph((graph_shape)s, n, undirected, integer, dtype, &state);
        char what[128];
        snprintf(what, sizeof what, "%s, %lld vertices, %s, %s weights, %s", shape_names[s], (long long)n,
                 undirected ? "undirected" : "directed", integer ? "integer" : "fractional",
                 dtype == TS_FLOAT32 ? "float" : "double");
        CHECK_MSG(a != NULL, "%s: generated", what);
        if (!a)
          continue;
        const int32_t sources[2] = {0, (int32_t)(n - 1)};
        for (int i = 0; i < 2; i++)
          check_against_reference(what, a, undirected ? TS_GRAPH_UNDIRECTED : TS_GRAPH_DIRECTED, sources[i]);
        ts_csr_destroy(a);
      }
}

/* Skew-symmetric files: their mirrors weigh -|value|, refused unless every
 * off-diagonal value is zero. Others: against the reference. */
static bool corpus_graph(const char *name, const char *path, void *user) {
  int *refused = user;
  ts_csr *a = graph_read(path, TS_FLOAT64);
  CHECK_MSG(a != NULL, "reading %s: %s", path, ts_last_error(NULL));
  if (!a)
    return false;
  const bool skew = a->symmetry == TS_SKEW_SYMMETRIC;
  bool nonzero = false;
  for (int64_t k = 0; skew && k < a->nnz; k++)
    nonzero |= ((double *)a->values)[k] != 0.0 && a->col_idx[k] != k;
  ts_sssp_plan *plan = NULL;
  if (nonzero) {
    CHECK_STATUS(cpu, ts_sssp_plan_create(cpu, a, NULL, &plan), TS_ERROR_INVALID_MATRIX);
    (*refused)++;
  }
  const int32_t n = (int32_t)a->rows;
  const int32_t sources[2] = {0, n - 1};
  for (int i = 0; !skew && i < 2 && n > 0; i++)
    check_against_reference(name, a, TS_GRAPH_DIRECTED, sources[i]);
  ts_sssp_plan_destroy(plan);
  ts_csr_destroy(a);
  return !skew;
}

static void test_corpus(void) {
  int refused = 0;
  const int graphs = graph_corpus_each(0, corpus_graph, &refused);
  if (graphs >= 0)
    printf("corpus: %d square matrices searched from 2 sources each (%d skew-symmetric refused)\n", graphs, refused);
}

/* The documented step when the caller leaves it 0: 32 x mean weight / mean
 * out-degree, or a quarter of the mean weight from a mean out-degree of 8. */
static void test_chosen_step(void) {
  const int32_t ring_tails[] = {0, 1, 2}, ring_heads[] = {1, 2, 0};
  const double ring_weights[] = {1.0, 2.0, 3.0};
  enum { DENSE = 10, DENSE_EDGES = DENSE * (DENSE - 1) };
  int32_t tails[DENSE_EDGES], heads[DENSE_EDGES];
  double weights[DENSE_EDGES];
  int64_t m = 0;
  for (int32_t u = 0; u < DENSE; u++)
    for (int32_t v = 0; v < DENSE; v++)
      if (u != v) {
        tails[m] = u;
        heads[m] = v;
        weights[m] = (m % 2) ? 1.0 : 3.0;
        m++;
      }
  struct {
    const char *what;
    ts_csr *graph;
    double want;
  } cases[] = {{"ring (mean degree 1, mean weight 2)",
                graph_from_edges(3, 3, ring_tails, ring_heads, ring_weights, TS_FLOAT64), 64.0},
               {"complete digraph (mean degree 9, mean weight 2)",
                graph_from_edges(DENSE, DENSE_EDGES, tails, heads, weights, TS_FLOAT32), 0.5}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    ts_sssp_plan *plan = NULL;
    ts_graph_plan_info info;
    memset(&info, 0, sizeof info);
    CHECK_OK(cpu, ts_sssp_plan_create(cpu, cases[k].graph, NULL, &plan));
    CHECK_MSG(plan && ts_sssp_plan_info(plan, &info) == TS_SUCCESS && info.delta == cases[k].want,
              "%s: step %g, want %g", cases[k].what, info.delta, cases[k].want);
    ts_sssp_plan_destroy(plan);
    ts_csr_destroy(cases[k].graph);
  }
}

static void test_refusals(void) {
  const int32_t tails[] = {0, 1, 2}, heads[] = {1, 2, 0};
  const double bad[] = {1.0, -2.0, NAN, INFINITY};
  ts_sssp_plan *plan = NULL;
  for (int i = 1; i < 4; i++) {
    double weights[3] = {1.0, bad[i], 1.0};
    ts_csr *a = graph_from_edges(3, 3, tails, heads, weights, TS_FLOAT64);
    CHECK_STATUS(cpu, ts_sssp_plan_create(cpu, a, NULL, &plan), TS_ERROR_INVALID_MATRIX);
    CHECK(strstr(ts_last_error(cpu), "edge 1 -> 2") != NULL);
    ts_csr_destroy(a);
  }
  double weights[3] = {1.0, 2.0, 3.0};
  ts_csr *a = graph_from_edges(3, 3, tails, heads, weights, TS_FLOAT32);
  ts_graph_options o = {0};
  o.delta = -1.0;
  CHECK_STATUS(cpu, ts_sssp_plan_create(cpu, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.delta = NAN;
  CHECK_STATUS(cpu, ts_sssp_plan_create(cpu, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.delta = 0.5;
  CHECK_OK(cpu, ts_sssp_plan_create(cpu, a, &o, &plan));
  ts_graph_plan_info info;
  CHECK(plan && ts_sssp_plan_info(plan, &info) == TS_SUCCESS && info.delta == 0.5 && info.edges == 3);
  ts_buffer *wrong = NULL, *fine = NULL;
  ts_graph_run_stats stats;
  CHECK_STATUS(cpu, ts_sssp_last_run(plan, &stats), TS_ERROR_INVALID_ARGUMENT);
  /* float distances: 3 values of 4 bytes; 8 bytes is too little. */
  CHECK_OK(cpu, ts_buffer_create(cpu, TS_MEMORY_DEVICE, 8, &wrong));
  CHECK_OK(cpu, ts_buffer_create(cpu, TS_MEMORY_DEVICE, 12, &fine));
  CHECK_STATUS(cpu, ts_sssp_execute(plan, 0, wrong, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(cpu, ts_sssp_execute(plan, 3, fine, NULL), TS_ERROR_INVALID_ARGUMENT);
  /* One buffer for distances and predecessors: each would overwrite the other. */
  CHECK_STATUS(cpu, ts_sssp_execute(plan, 1, fine, fine), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(cpu), "overlap") != NULL);
  CHECK_OK(cpu, ts_sssp_execute(plan, 1, fine, NULL));
  CHECK_OK(cpu, ts_sssp_last_run(plan, &stats));
  const float *d = ts_buffer_data(fine);
  CHECK(d[1] == 0.0f && d[2] == 2.0f && d[0] == 5.0f && stats.reached == 3 && stats.depth == 0);
  ts_buffer_destroy(wrong);
  ts_buffer_destroy(fine);
  ts_sssp_plan_destroy(plan);
  ts_sssp_plan_destroy(NULL);
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
  test_rounding();
  test_generated();
  test_refusals();
  test_chosen_step();
  test_corpus();
  ts_context_destroy(cpu);
  return test_finish();
}
