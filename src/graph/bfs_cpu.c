/* Breadth-first search on the host, level by level (the CPU reference and
 * fallback): the threads share each frontier, and a vertex's key (level <<
 * 32 | parent) is lowered with a compare-and-swap minimum, so the smallest
 * level wins and, within it, the smallest-numbered parent, whatever the
 * threads' order. The next frontier's order does vary; nothing read from it
 * depends on that order. */
#include "graph_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ts_status tsi_bfs_cpu_work_create(ts_context *ctx, const char *op, int64_t n, tsi_bfs_cpu_work *w) {
  memset(w, 0, sizeof *w);
  int64_t count = n > 0 ? n : 1;
  w->keys = tsi_malloc_array(count, sizeof(uint64_t));
  w->queue[0] = tsi_malloc_array(count, sizeof(int32_t));
  w->queue[1] = tsi_malloc_array(count, sizeof(int32_t));
  if (!w->keys || !w->queue[0] || !w->queue[1]) {
    tsi_bfs_cpu_work_release(w);
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for the search state of %lld vertices", op,
                     (long long)n);
  }
  return TS_SUCCESS;
}

void tsi_bfs_cpu_work_release(tsi_bfs_cpu_work *w) {
  free(w->keys);
  free(w->queue[0]);
  free(w->queue[1]);
  memset(w, 0, sizeof *w);
}

/* *p = min(*p, key); returns the value before (the current one when key is
 * not smaller). */
/* NOLINTNEXTLINE(readability-non-const-parameter): *p is written by the compare-and-swap */
static uint64_t atomic_min_u64(uint64_t *p, uint64_t key) {
  uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (key < old && !__atomic_compare_exchange_n(p, &old, key, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}

static bool is_tight(const tsi_tight_edges *t, int32_t u, int64_t e, int32_t v) {
  if (u == v)
    return false;
  if (t->dtype == TS_FLOAT32) {
    const float *d = t->dist, *w = t->weights;
    float sum = d[u] + w[e];
    return isfinite(d[v]) && sum == d[v];
  }
  const double *d = t->dist, *w = t->weights;
  double sum = d[u] + w[e];
  return isfinite(d[v]) && sum == d[v];
}

ts_status tsi_bfs_cpu(ts_context *ctx, const tsi_graph_host *g, int32_t source, const tsi_tight_edges *tight,
                      tsi_bfs_cpu_work *w, int32_t *levels, int32_t *parents, ts_graph_run_stats *stats) {
  (void)ctx;
  const int64_t n = g->n;
  uint64_t *keys = w->keys;
#pragma omp parallel for schedule(static) if (n > TSI_GRAPH_PARALLEL_MIN)
  for (int64_t v = 0; v < n; v++)
    keys[v] = TSI_GRAPH_UNREACHED;
  keys[source] = (uint64_t)(uint32_t)source;
  w->queue[0][0] = source;
  int64_t count = 1, reached = 1;
  int64_t reached_edges = g->offsets[source + 1] - g->offsets[source];
  int32_t level = 0;
  while (count > 0) {
    const int32_t *frontier = w->queue[level & 1];
    int32_t *next = w->queue[(level + 1) & 1];
    int64_t next_count = 0, next_edges = 0;
    const uint64_t level_bits = (uint64_t)(uint32_t)(level + 1) << 32;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : next_edges) if (count > TSI_GRAPH_PARALLEL_MIN / 16)
    for (int64_t i = 0; i < count; i++) {
      const int32_t u = frontier[i];
      const uint64_t key = level_bits | (uint32_t)u;
      for (int64_t e = g->offsets[u]; e < g->offsets[u + 1]; e++) {
        const int32_t v = g->heads[e];
        if (tight && !is_tight(tight, u, e, v))
          continue;
        if (atomic_min_u64(&keys[v], key) == TSI_GRAPH_UNREACHED) {
          next[__atomic_fetch_add(&next_count, 1, __ATOMIC_RELAXED)] = v;
          next_edges += g->offsets[v + 1] - g->offsets[v];
        }
      }
    }
    level++;
    count = next_count;
    reached += next_count;
    reached_edges += next_edges;
  }
#pragma omp parallel for schedule(static) if (n > TSI_GRAPH_PARALLEL_MIN)
  for (int64_t v = 0; v < n; v++) {
    const uint64_t key = keys[v];
    const bool seen = key != TSI_GRAPH_UNREACHED;
    if (levels)
      levels[v] = seen ? (int32_t)(key >> 32) : -1;
    if (parents)
      parents[v] = seen ? (int32_t)(uint32_t)key : -1;
  }
  stats->source = source;
  stats->reached = reached;
  stats->reached_edges = reached_edges;
  stats->depth = level;
  stats->top_down_steps = level;
  return TS_SUCCESS;
}
