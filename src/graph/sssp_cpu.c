/* Dijkstra's shortest-path distances on the host (Dijkstra, Numer. Math. 1,
 * 1959) with an indexed binary heap: the CPU reference and fallback. Each
 * tentative distance is dist(u) + w in the graph's value type, so the result
 * is the smallest over all paths of the path's weight summed from the
 * source in that type: rounding is monotone and never lowers a sum below
 * its first term, which is all Dijkstra's argument needs. The GPU's
 * label-correcting search reaches the same values. */
#include "graph_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ts_status tsi_sssp_cpu_work_create(ts_context *ctx, const char *op, int64_t n, ts_dtype dtype, tsi_sssp_cpu_work *w) {
  memset(w, 0, sizeof *w);
  int64_t count = n > 0 ? n : 1;
  w->heap = tsi_malloc_array(count, sizeof(int32_t));
  w->position = tsi_malloc_array(count, sizeof(int32_t));
  w->dist = tsi_malloc_array(count, ts_dtype_size(dtype));
  if (!w->heap || !w->position || !w->dist) {
    tsi_sssp_cpu_work_release(w);
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for the heap of %lld vertices", op, (long long)n);
  }
  return TS_SUCCESS;
}

void tsi_sssp_cpu_work_release(tsi_sssp_cpu_work *w) {
  free(w->heap);
  free(w->position);
  free(w->dist);
  memset(w, 0, sizeof *w);
}

/* The heap and the relaxation, once per value type (T is a type: it cannot
 * take parentheses). NOLINTBEGIN(bugprone-macro-parentheses) */
#define TSI_SSSP_DEFINE(NAME, T)                                                                                       \
  static void NAME##_sift_up(int32_t *heap, int32_t *position, const T *dist, int64_t i) {                             \
    const int32_t v = heap[i];                                                                                         \
    while (i > 0) {                                                                                                    \
      const int64_t parent = (i - 1) / 2;                                                                              \
      if (!(dist[v] < dist[heap[parent]]))                                                                             \
        break;                                                                                                         \
      heap[i] = heap[parent];                                                                                          \
      position[heap[i]] = (int32_t)i;                                                                                  \
      i = parent;                                                                                                      \
    }                                                                                                                  \
    heap[i] = v;                                                                                                       \
    position[v] = (int32_t)i;                                                                                          \
  }                                                                                                                    \
  static void NAME##_sift_down(int32_t *heap, int32_t *position, const T *dist, int64_t size, int64_t i) {             \
    const int32_t v = heap[i];                                                                                         \
    for (;;) {                                                                                                         \
      int64_t child = 2 * i + 1;                                                                                       \
      if (child >= size)                                                                                               \
        break;                                                                                                         \
      if (child + 1 < size && dist[heap[child + 1]] < dist[heap[child]])                                               \
        child++;                                                                                                       \
      if (!(dist[heap[child]] < dist[v]))                                                                              \
        break;                                                                                                         \
      heap[i] = heap[child];                                                                                           \
      position[heap[i]] = (int32_t)i;                                                                                  \
      i = child;                                                                                                       \
    }                                                                                                                  \
    heap[i] = v;                                                                                                       \
    position[v] = (int32_t)i;                                                                                          \
  }                                                                                                                    \
  static void NAME(const tsi_graph_host *g, int32_t source, tsi_sssp_cpu_work *w) {                                    \
    T *dist = w->dist;                                                                                                 \
    const T *weight = g->weights;                                                                                      \
    int32_t *heap = w->heap, *position = w->position;                                                                  \
    for (int64_t v = 0; v < g->n; v++) {                                                                               \
      dist[v] = (T)INFINITY;                                                                                           \
      position[v] = -1;                                                                                                \
    }                                                                                                                  \
    dist[source] = 0;                                                                                                  \
    heap[0] = source;                                                                                                  \
    position[source] = 0;                                                                                              \
    int64_t size = 1;                                                                                                  \
    while (size > 0) {                                                                                                 \
      const int32_t u = heap[0];                                                                                       \
      position[u] = -1;                                                                                                \
      size--;                                                                                                          \
      if (size > 0) {                                                                                                  \
        heap[0] = heap[size];                                                                                          \
        NAME##_sift_down(heap, position, dist, size, 0);                                                               \
      }                                                                                                                \
      const T du = dist[u];                                                                                            \
      for (int64_t e = g->offsets[u]; e < g->offsets[u + 1]; e++) {                                                    \
        const int32_t v = g->heads[e];                                                                                 \
        const T candidate = du + weight[e];                                                                            \
        if (!(candidate < dist[v]))                                                                                    \
          continue;                                                                                                    \
        dist[v] = candidate;                                                                                           \
        if (position[v] < 0) {                                                                                         \
          heap[size] = v;                                                                                              \
          position[v] = (int32_t)size;                                                                                 \
          size++;                                                                                                      \
        }                                                                                                              \
        NAME##_sift_up(heap, position, dist, position[v]);                                                             \
      }                                                                                                                \
    }                                                                                                                  \
  }

TSI_SSSP_DEFINE(dijkstra_float, float)
TSI_SSSP_DEFINE(dijkstra_double, double)
/* NOLINTEND(bugprone-macro-parentheses) */

void tsi_sssp_cpu_dijkstra(const tsi_graph_host *g, int32_t source, tsi_sssp_cpu_work *w) {
  if (g->dtype == TS_FLOAT32)
    dijkstra_float(g, source, w);
  else
    dijkstra_double(g, source, w);
}
