/* Helpers of the graph tests: graphs built from edge lists (unsorted,
 * repeated, self-loops allowed), independent references (a sequential
 * queue BFS with the parent rule applied afterwards; label-correcting
 * shortest paths in the graph's type), and checks that parents and
 * predecessors form a valid tree. Nothing here calls the library's
 * traversals. */
#ifndef TESSERA_TEST_GRAPH_CHECK_H
#define TESSERA_TEST_GRAPH_CHECK_H

#include "test_common.h"

#include <stdbool.h>
#include <stdint.h>

/* CSR of n vertices from count edges (tails[k] -> heads[k], weights[k] or
 * 1), in the order given (rows keep the listed order: not sorted). */
static inline ts_csr *graph_from_edges(int64_t n, int64_t count, const int32_t *tails, const int32_t *heads,
                                       const double *weights, ts_dtype dtype) {
  ts_csr *g = NULL;
  if (ts_csr_create(NULL, n, n, count, dtype, &g) != TS_SUCCESS)
    return NULL;
  memset(g->row_ptr, 0, (size_t)(n + 1) * sizeof(int64_t));
  for (int64_t k = 0; k < count; k++)
    g->row_ptr[tails[k] + 1]++;
  for (int64_t v = 0; v < n; v++)
    g->row_ptr[v + 1] += g->row_ptr[v];
  int64_t *fill = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  if (!fill) {
    ts_csr_destroy(g);
    return NULL;
  }
  memcpy(fill, g->row_ptr, (size_t)n * sizeof(int64_t));
  for (int64_t k = 0; k < count; k++) {
    int64_t at = fill[tails[k]]++;
    g->col_idx[at] = heads[k];
    double w = weights ? weights[k] : 1.0;
    if (dtype == TS_FLOAT32)
      ((float *)g->values)[at] = (float)w;
    else
      ((double *)g->values)[at] = w;
  }
  free(fill);
  return g;
}

static inline double graph_weight(const ts_csr *g, int64_t k) {
  return g->dtype == TS_FLOAT32 ? (double)((const float *)g->values)[k] : ((const double *)g->values)[k];
}

/* The graph as traversed: symmetric storage with its mirrors added (weights
 * as stored, negated for skew). A general graph is copied. */
static inline ts_csr *graph_expanded(const ts_csr *a) {
  if (a->symmetry == TS_GENERAL) {
    ts_csr *copy = NULL;
    return ts_csr_copy(NULL, a, &copy) == TS_SUCCESS ? copy : NULL;
  }
  int64_t count = 0;
  for (int64_t u = 0; u < a->rows; u++)
    for (int64_t k = a->row_ptr[u]; k < a->row_ptr[u + 1]; k++)
      count += a->col_idx[k] != u ? 2 : 1;
  int32_t *t = calloc((size_t)(count > 0 ? count : 1), sizeof(int32_t));
  int32_t *h = calloc((size_t)(count > 0 ? count : 1), sizeof(int32_t));
  double *w = calloc((size_t)(count > 0 ? count : 1), sizeof(double));
  ts_csr *g = NULL;
  if (t && h && w) {
    int64_t e = 0;
    for (int64_t u = 0; u < a->rows; u++)
      for (int64_t k = a->row_ptr[u]; k < a->row_ptr[u + 1]; k++) {
        int32_t v = a->col_idx[k];
        t[e] = (int32_t)u;
        h[e] = v;
        w[e++] = graph_weight(a, k);
        if (v != u) {
          t[e] = v;
          h[e] = (int32_t)u;
          w[e++] = a->symmetry == TS_SKEW_SYMMETRIC ? -graph_weight(a, k) : graph_weight(a, k);
        }
      }
    g = graph_from_edges(a->rows, count, t, h, w, a->dtype);
  }
  free(t);
  free(h);
  free(w);
  return g;
}

/* Reference BFS: levels by a sequential queue, then each vertex's parent as
 * the smallest-numbered tail of an edge from the level above. */
static inline void reference_bfs(const ts_csr *g, int32_t source, int32_t *levels, int32_t *parents) {
  const int64_t n = g->rows;
  int32_t *queue = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
  for (int64_t v = 0; v < n; v++) {
    levels[v] = -1;
    parents[v] = -1;
  }
  if (!queue)
    return;
  int64_t head = 0, tail = 0;
  levels[source] = 0;
  queue[tail++] = source;
  while (head < tail) {
    int32_t u = queue[head++];
    for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++) {
      int32_t v = g->col_idx[k];
      if (levels[v] < 0) {
        levels[v] = levels[u] + 1;
        queue[tail++] = v;
      }
    }
  }
  for (int64_t u = 0; u < n; u++)
    for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++) {
      int32_t v = g->col_idx[k];
      if (levels[u] >= 0 && levels[v] == levels[u] + 1 && (parents[v] < 0 || u < parents[v]))
        parents[v] = (int32_t)u;
    }
  parents[source] = source;
  free(queue);
}

/* Is there an edge u -> v (any of its copies)? */
static inline bool graph_has_edge(const ts_csr *g, int32_t u, int32_t v) {
  for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++)
    if (g->col_idx[k] == v)
      return true;
  return false;
}

/* Parents form a BFS tree consistent with the levels: the source is its own
 * parent at level 0; a reached vertex's parent is reached, one level up, and
 * joined to it by an edge; an unreached vertex has level and parent -1.
 * Returns the number of violations (printing the first few). */
static inline int64_t check_bfs_tree(const ts_csr *g, int32_t source, const int32_t *levels, const int32_t *parents) {
  int64_t bad = 0;
  for (int64_t v = 0; v < g->rows; v++) {
    bool ok;
    if (v == source)
      ok = levels[v] == 0 && parents[v] == source;
    else if (levels[v] < 0)
      ok = levels[v] == -1 && parents[v] == -1;
    else
      ok = parents[v] >= 0 && parents[v] < g->rows && parents[v] != v && levels[parents[v]] == levels[v] - 1 &&
           graph_has_edge(g, parents[v], (int32_t)v);
    if (!ok && bad++ < 5)
      fprintf(stderr, "  BFS tree: vertex %lld has level %d, parent %d\n", (long long)v, levels[v], parents[v]);
  }
  return bad;
}

/* Reference shortest paths in the graph's type (label correcting with a
 * FIFO queue, Bellman-Ford-Moore): each distance is the smallest over the
 * paths of the path's weights summed from the source in that type. */
static inline void reference_sssp(const ts_csr *g, int32_t source, void *dist) {
  const int64_t n = g->rows;
  int32_t *queue = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
  char *queued = calloc((size_t)(n > 0 ? n : 1), 1);
  const bool f = g->dtype == TS_FLOAT32;
  for (int64_t v = 0; v < n; v++) {
    if (f)
      ((float *)dist)[v] = INFINITY;
    else
      ((double *)dist)[v] = INFINITY;
  }
  if (!queue || !queued) {
    free(queue);
    free(queued);
    return;
  }
  if (f)
    ((float *)dist)[source] = 0.0f;
  else
    ((double *)dist)[source] = 0.0;
  int64_t head = 0, size = 1;
  queue[0] = source;
  queued[source] = 1;
  while (size > 0) {
    int32_t u = queue[head];
    head = (head + 1) % n;
    size--;
    queued[u] = 0;
    for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++) {
      int32_t v = g->col_idx[k];
      bool lower;
      if (f) {
        float c = ((float *)dist)[u] + ((const float *)g->values)[k];
        lower = c < ((float *)dist)[v];
        if (lower)
          ((float *)dist)[v] = c;
      } else {
        double c = ((double *)dist)[u] + ((const double *)g->values)[k];
        lower = c < ((double *)dist)[v];
        if (lower)
          ((double *)dist)[v] = c;
      }
      if (lower && !queued[v]) {
        queue[(head + size) % n] = v;
        size++;
        queued[v] = 1;
      }
    }
  }
  free(queue);
  free(queued);
}

static inline double dist_at(const void *dist, ts_dtype dtype, int64_t v) {
  return dtype == TS_FLOAT32 ? (double)((const float *)dist)[v] : ((const double *)dist)[v];
}

/* Is u -> v tight: dist(u) + w == dist(v) < inf in the type, u != v? */
static inline bool tight_edge(const ts_csr *g, const void *dist, int32_t u, int64_t k) {
  int32_t v = g->col_idx[k];
  if (u == v)
    return false;
  if (g->dtype == TS_FLOAT32) {
    const float *d = dist;
    float c = d[u] + ((const float *)g->values)[k];
    return isfinite(d[v]) && c == d[v];
  }
  const double *d = dist;
  double c = d[u] + ((const double *)g->values)[k];
  return isfinite(d[v]) && c == d[v];
}

/* Reference predecessors: BFS over the tight edges, parent = the
 * smallest-numbered tight tail one tight hop closer. */
static inline void reference_predecessors(const ts_csr *g, int32_t source, const void *dist, int32_t *pred) {
  const int64_t n = g->rows;
  int32_t *hops = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
  int32_t *queue = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
  for (int64_t v = 0; v < n; v++)
    pred[v] = -1;
  if (!hops || !queue) {
    free(hops);
    free(queue);
    return;
  }
  for (int64_t v = 0; v < n; v++)
    hops[v] = -1;
  int64_t head = 0, tail = 0;
  hops[source] = 0;
  queue[tail++] = source;
  while (head < tail) {
    int32_t u = queue[head++];
    for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++) {
      int32_t v = g->col_idx[k];
      if (hops[v] < 0 && tight_edge(g, dist, u, k)) {
        hops[v] = hops[u] + 1;
        queue[tail++] = v;
      }
    }
  }
  for (int64_t u = 0; u < n; u++)
    for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++) {
      int32_t v = g->col_idx[k];
      if (hops[u] >= 0 && hops[v] == hops[u] + 1 && tight_edge(g, dist, (int32_t)u, k) && (pred[v] < 0 || u < pred[v]))
        pred[v] = (int32_t)u;
    }
  pred[source] = source;
  free(hops);
  free(queue);
}

/* Predecessors form a tree of tight edges rooted at the source, covering
 * exactly the vertices of finite distance: every chain of predecessors ends
 * at the source within n steps. Returns the violations. */
static inline int64_t check_sssp_tree(const ts_csr *g, int32_t source, const void *dist, const int32_t *pred) {
  int64_t bad = 0;
  const int64_t n = g->rows;
  for (int64_t v = 0; v < n; v++) {
    bool ok;
    const double d = dist_at(dist, g->dtype, v);
    if (v == source) {
      ok = pred[v] == source && d == 0.0;
    } else if (!isfinite(d)) {
      ok = pred[v] == -1;
    } else {
      const int32_t p = pred[v];
      ok = p >= 0 && p < n && p != v;
      bool tight = false;
      for (int64_t k = ok ? g->row_ptr[p] : 0; ok && k < g->row_ptr[p + 1] && !tight; k++)
        tight = g->col_idx[k] == v && tight_edge(g, dist, p, k);
      ok = ok && tight;
      int32_t at = (int32_t)v;
      int64_t steps = 0;
      while (ok && at != source && steps <= n) {
        at = pred[at];
        ok = at >= 0 && at < n;
        steps++;
      }
      ok = ok && at == source;
    }
    if (!ok && bad++ < 5)
      fprintf(stderr, "  SSSP tree: vertex %lld has distance %.17g, predecessor %d\n", (long long)v, d, pred[v]);
  }
  return bad;
}

/* Bitwise-equal distances (the types' +inf included). */
static inline int64_t count_distance_mismatches(const void *a, const void *b, ts_dtype dtype, int64_t n) {
  int64_t bad = 0;
  for (int64_t v = 0; v < n; v++) {
    bool same = dtype == TS_FLOAT32 ? ((const float *)a)[v] == ((const float *)b)[v]
                                    : ((const double *)a)[v] == ((const double *)b)[v];
    if (!same && bad++ < 5)
      fprintf(stderr, "  distance of %lld: %.17g against %.17g\n", (long long)v, dist_at(a, dtype, v),
              dist_at(b, dtype, v));
  }
  return bad;
}

static inline int64_t count_int_mismatches(const char *what, const int32_t *a, const int32_t *b, int64_t n) {
  int64_t bad = 0;
  for (int64_t v = 0; v < n; v++)
    if (a[v] != b[v] && bad++ < 5)
      fprintf(stderr, "  %s of %lld: %d against %d\n", what, (long long)v, a[v], b[v]);
  return bad;
}

/* ---- generated graphs ---------------------------------------------------- */

/* Edge list under construction. */
typedef struct edge_list {
  int64_t count, capacity;
  int32_t *tails, *heads;
  double *weights;
} edge_list;

static inline void edges_add(edge_list *e, int32_t u, int32_t v, double w) {
  if (e->count == e->capacity) {
    int64_t c = e->capacity ? 2 * e->capacity : 64;
    e->tails = realloc(e->tails, (size_t)c * sizeof(int32_t));
    e->heads = realloc(e->heads, (size_t)c * sizeof(int32_t));
    e->weights = realloc(e->weights, (size_t)c * sizeof(double));
    e->capacity = c;
  }
  e->tails[e->count] = u;
  e->heads[e->count] = v;
  e->weights[e->count++] = w;
}

static inline void edges_free(edge_list *e) {
  free(e->tails);
  free(e->heads);
  free(e->weights);
  memset(e, 0, sizeof *e);
}

/* The shapes of the tests: each a graph of n vertices from `state`. */
typedef enum graph_shape {
  SHAPE_RANDOM,        /* random edges, some vertices isolated */
  SHAPE_LOOPS_REPEATS, /* random edges with self-loops and repeated edges */
  SHAPE_DISCONNECTED,  /* two random halves with no edge between them */
  SHAPE_STAR,          /* one vertex joined to every other, plus a few random edges */
  SHAPE_PATH,          /* a long path 0 - 1 - ... - n-1 */
  SHAPE_ZERO_WEIGHTS,  /* random edges, a third of them weighing 0 (zero-weight cycles) */
  SHAPE_COUNT
} graph_shape;

static const char *const shape_names[SHAPE_COUNT] = {"random", "loops+repeats", "disconnected",
                                                     "star",   "path",          "zero-weights"};

/* Random weight: small integers (ties) or fractions (rounding). */
static inline double random_weight(unsigned long long *state, bool integer) {
  double r = 0.5 * (test_random(state) + 1.0);
  return integer ? (double)(1 + (int)(r * 4.0)) : r;
}

/* A graph of the shape; undirected ones get every edge both ways with one
 * weight. */
static inline ts_csr *generated_graph(graph_shape shape, int64_t n, bool undirected, bool integer_weights,
                                      ts_dtype dtype, unsigned long long *state) {
  edge_list e = {0};
  int64_t m = 3 * n;
  for (int64_t k = 0; k < m && shape != SHAPE_PATH; k++) {
    int64_t u = (int64_t)(0.5 * (test_random(state) + 1.0) * (double)n) % n;
    int64_t v = (int64_t)(0.5 * (test_random(state) + 1.0) * (double)n) % n;
    if (shape == SHAPE_RANDOM && (u % 7 == 3 || v % 7 == 3))
      continue; /* vertices 3, 10, 17, ... stay isolated */
    if (shape == SHAPE_DISCONNECTED && (u < n / 2) != (v < n / 2))
      v = (u < n / 2) ? v % (n / 2 > 0 ? n / 2 : 1) : n / 2 + v % (n - n / 2);
    double w = random_weight(state, integer_weights);
    if (shape == SHAPE_ZERO_WEIGHTS && k % 3 == 0)
      w = 0.0;
    edges_add(&e, (int32_t)u, (int32_t)v, w);
    if (undirected && u != v)
      edges_add(&e, (int32_t)v, (int32_t)u, w);
    if (shape == SHAPE_LOOPS_REPEATS && k % 5 == 0) {
      edges_add(&e, (int32_t)u, (int32_t)u, w);       /* self-loop */
      edges_add(&e, (int32_t)u, (int32_t)v, w + 1.0); /* a heavier copy */
      if (undirected && u != v)
        edges_add(&e, (int32_t)v, (int32_t)u, w + 1.0);
    }
  }
  if (shape == SHAPE_STAR)
    for (int64_t v = 1; v < n; v++) {
      double w = random_weight(state, integer_weights);
      edges_add(&e, 0, (int32_t)v, w);
      if (undirected)
        edges_add(&e, (int32_t)v, 0, w);
    }
  if (shape == SHAPE_PATH)
    for (int64_t v = 0; v + 1 < n; v++) {
      double w = random_weight(state, integer_weights);
      edges_add(&e, (int32_t)v, (int32_t)(v + 1), w);
      if (undirected)
        edges_add(&e, (int32_t)(v + 1), (int32_t)v, w);
    }
  ts_csr *g = graph_from_edges(n, e.count, e.tails, e.heads, e.weights, dtype);
  edges_free(&e);
  return g;
}

#endif

/* ---- the corpus ------------------------------------------------------------ */

/* Next square matrix of the manifest: its name and path (.mtx or .mtx.gz).
 * False at the end. */
static inline bool graph_corpus_next(FILE *manifest, const char *dir, char *name, size_t name_size, char *path,
                                     size_t path_size) {
  char line[8192], field[256];
  long long rows = 0, cols = 0, nnz = 0;
  while (fgets(line, sizeof line, manifest)) {
    if (sscanf(line, "%255[^\t]\t%lld\t%lld\t%lld", field, &rows, &cols, &nnz) != 4 || rows != cols)
      continue; /* the header, or not a graph */
    snprintf(name, name_size, "%s", field);
    snprintf(path, path_size, "%s/%s.mtx", dir, field);
    FILE *probe = fopen(path, "r");
    if (!probe)
      snprintf(path, path_size, "%s/%s.mtx.gz", dir, field);
    else
      fclose(probe);
    return true;
  }
  return false;
}

/* fn(name, path, user) for every square matrix of the corpus (the first
 * `limit` of them; 0: all); its result says whether it counted the matrix.
 * Returns how many counted, or -1 after printing why when the corpus is
 * absent (TESSERA_MATRICES unset or without MANIFEST.tsv). */
typedef bool (*graph_corpus_fn)(const char *name, const char *path, void *user);
static inline int graph_corpus_each(int limit, graph_corpus_fn fn, void *user) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("corpus: absent (TESSERA_MATRICES unset or without MANIFEST.tsv); skipped\n");
    return -1;
  }
  char path[4096], name[256];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  int counted = 0;
  while (manifest && (limit == 0 || counted < limit) &&
         graph_corpus_next(manifest, dir, name, sizeof name, path, sizeof path))
    counted += fn(name, path, user);
  if (manifest)
    fclose(manifest);
  return counted;
}

/* A corpus file as a CSR graph keeping its symmetry tag (one triangle for
 * symmetric files), repeated entries summed; weights |value|. NULL on
 * failure (message in ts_last_error(NULL)). */
static inline ts_csr *graph_read(const char *path, ts_dtype dtype) {
  ts_coo *coo = NULL;
  ts_csr *g = NULL;
  if (ts_mm_read(NULL, path, dtype, &coo, NULL) == TS_SUCCESS &&
      ts_csr_from_coo(NULL, coo, TS_DUPLICATES_SUM, &g) == TS_SUCCESS) {
    for (int64_t k = 0; k < g->nnz; k++) {
      if (dtype == TS_FLOAT32)
        ((float *)g->values)[k] = fabsf(((float *)g->values)[k]);
      else
        ((double *)g->values)[k] = fabs(((double *)g->values)[k]);
    }
  }
  ts_coo_destroy(coo);
  return g;
}

/* ---- runs through the API on any backend ------------------------------------ */

/* BFS from source on ctx: levels and parents into host arrays (either may be
 * NULL), the run's stats. Prints the failure. */
static inline bool api_bfs(ts_context *ctx, ts_bfs_plan *plan, int64_t n, int32_t source, int32_t *levels,
                           int32_t *parents, ts_graph_run_stats *stats) {
  ts_buffer *lv = NULL, *pa = NULL;
  const size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(int32_t);
  bool ok = (!levels || ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &lv) == TS_SUCCESS) &&
            (!parents || ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &pa) == TS_SUCCESS) &&
            ts_bfs_execute(plan, source, lv, pa) == TS_SUCCESS && ts_bfs_last_run(plan, stats) == TS_SUCCESS &&
            (!levels || ts_buffer_download(ctx, lv, 0, levels, (size_t)n * sizeof(int32_t)) == TS_SUCCESS) &&
            (!parents || ts_buffer_download(ctx, pa, 0, parents, (size_t)n * sizeof(int32_t)) == TS_SUCCESS);
  if (!ok)
    fprintf(stderr, "  BFS from %d failed: %s\n", source, ts_last_error(ctx));
  ts_buffer_destroy(lv);
  ts_buffer_destroy(pa);
  return ok;
}

/* SSSP from source on ctx: distances (n values of the graph's type) and
 * predecessors into host arrays (either may be NULL). */
static inline bool api_sssp(ts_context *ctx, ts_sssp_plan *plan, int64_t n, ts_dtype dtype, int32_t source, void *dist,
                            int32_t *pred, ts_graph_run_stats *stats) {
  ts_buffer *d = NULL, *p = NULL;
  const size_t value = ts_dtype_size(dtype), count = (size_t)(n > 0 ? n : 1);
  bool ok = (!dist || ts_buffer_create(ctx, TS_MEMORY_DEVICE, count * value, &d) == TS_SUCCESS) &&
            (!pred || ts_buffer_create(ctx, TS_MEMORY_DEVICE, count * sizeof(int32_t), &p) == TS_SUCCESS) &&
            ts_sssp_execute(plan, source, d, p) == TS_SUCCESS && ts_sssp_last_run(plan, stats) == TS_SUCCESS &&
            (!dist || ts_buffer_download(ctx, d, 0, dist, (size_t)n * value) == TS_SUCCESS) &&
            (!pred || ts_buffer_download(ctx, p, 0, pred, (size_t)n * sizeof(int32_t)) == TS_SUCCESS);
  if (!ok)
    fprintf(stderr, "  SSSP from %d failed: %s\n", source, ts_last_error(ctx));
  ts_buffer_destroy(d);
  ts_buffer_destroy(p);
  return ok;
}

/* A GPU context, or NULL with the reason printed (the test then exits 77). */
static inline ts_context *gpu_context_or_skip(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  ts_context *gpu = NULL;
  if (ts_context_create(&gpu, &options) != TS_SUCCESS)
    return NULL;
  return gpu;
}
