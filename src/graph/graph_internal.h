/* Graph traversal internals: the graph as the plans hold it on the host
 * (checked, adjacency lists sorted, symmetric storage expanded, in-edges
 * where bottom-up steps need them), the CPU implementations, and the plans.
 * The CUDA side is in graph_cuda.h. */
#ifndef TESSERA_GRAPH_INTERNAL_H
#define TESSERA_GRAPH_INTERNAL_H

#include "internal.h"
#include "graph_cuda.h"
#include "graph_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A vertex's traversal key: its level (BFS) or tight-hop count in the high
 * 32 bits, its parent in the low 32; all ones when unreached. The smallest
 * key wins, so an atomic minimum keeps the lowest level and, within it, the
 * smallest-numbered parent. */
#define TSI_GRAPH_UNREACHED UINT64_MAX

/* Host loops shorter than this run on one thread: a parallel region costs
 * more than it saves on small graphs and narrow levels. */
#define TSI_GRAPH_PARALLEL_MIN ((int64_t)1 << 16)

/* The graph as a plan holds it in host memory. */
typedef struct tsi_graph_host {
  int64_t n, m;
  int64_t *offsets; /* n + 1 */
  int32_t *heads;   /* m, increasing within each vertex (repeats kept) */
  void *weights;    /* m values of dtype, or NULL when not asked for */
  ts_dtype dtype;
  bool undirected;     /* every edge also stored reversed: the in-edges are the out-edges */
  int64_t *in_offsets; /* directed graphs with bottom-up steps: n + 1, else NULL */
  int32_t *in_tails;   /* the tails of each vertex's in-edges, increasing */
  int64_t max_out_degree, max_in_degree;
  double mean_weight; /* of the stored weights (0 without weights) */
  double max_weight;  /* the largest stored weight (0 without weights) */
} tsi_graph_host;

/* Check @p a and build @p g: expand symmetric storage, copy and sort the
 * adjacency lists, check an undirected graph's mirrors, check and copy
 * weights (want_weights: finite, >= 0), build in-edges for a directed graph
 * when want_in_edges. @p op names the calling function in messages. */
ts_status tsi_graph_prepare(ts_context *ctx, const char *op, const ts_csr *a, ts_graph_direction direction,
                            bool want_weights, bool want_in_edges, tsi_graph_host *g);
void tsi_graph_host_release(tsi_graph_host *g);

/* Options checked (TS_ERROR_INVALID_ARGUMENT or TS_ERROR_UNSUPPORTED with
 * the field named); @p o is the caller's options or defaults. */
ts_status tsi_graph_options_check(ts_context *ctx, const char *op, const ts_graph_options *o, bool sssp);
/* The schedule AUTO resolves to for this graph, and its group size. */
void tsi_graph_resolve_schedule(const ts_graph_options *o, int64_t max_out_degree, ts_schedule *schedule,
                                int *group_size, char *why, size_t why_size);

/* The tight-edge rule of shortest-path predecessors: u -> v (u != v) with
 * dist(u) + w == dist(v) < infinity, in the distances' type. */
typedef struct tsi_tight_edges {
  const void *dist;
  const void *weights;
  ts_dtype dtype;
} tsi_tight_edges;

/* CPU BFS workspace: one key per vertex and two frontier queues. */
typedef struct tsi_bfs_cpu_work {
  uint64_t *keys;
  int32_t *queue[2];
} tsi_bfs_cpu_work;

ts_status tsi_bfs_cpu_work_create(ts_context *ctx, const char *op, int64_t n, tsi_bfs_cpu_work *w);
void tsi_bfs_cpu_work_release(tsi_bfs_cpu_work *w);

/* Level-synchronous BFS on the host (OpenMP over each frontier) following
 * only the edges @p tight accepts (NULL: every edge); levels and parents may
 * be NULL. Fills stats' reached, reached_edges, depth, top_down_steps. */
ts_status tsi_bfs_cpu(ts_context *ctx, const tsi_graph_host *g, int32_t source, const tsi_tight_edges *tight,
                      tsi_bfs_cpu_work *w, int32_t *levels, int32_t *parents, ts_graph_run_stats *stats);

/* CPU SSSP workspace: an indexed binary heap. */
typedef struct tsi_sssp_cpu_work {
  int32_t *heap;     /* vertices, a binary min-heap by distance */
  int32_t *position; /* index in heap, -1 when out */
  void *dist;        /* n values of the graph's type */
} tsi_sssp_cpu_work;

ts_status tsi_sssp_cpu_work_create(ts_context *ctx, const char *op, int64_t n, ts_dtype dtype, tsi_sssp_cpu_work *w);
void tsi_sssp_cpu_work_release(tsi_sssp_cpu_work *w);

/* Dijkstra's distances from @p source into w->dist (+inf unreached). */
void tsi_sssp_cpu_dijkstra(const tsi_graph_host *g, int32_t source, tsi_sssp_cpu_work *w);

struct ts_bfs_plan {
  ts_context *ctx;
  tsi_graph_host host; /* the CPU backend's graph (released after upload on CUDA) */
  tsi_bfs_cpu_work cpu;
  tsi_graph_device device;
  tsi_bfs_cuda *cuda;
  ts_graph_plan_info info;
  ts_graph_run_stats last;
  bool ran;
};

struct ts_sssp_plan {
  ts_context *ctx;
  tsi_graph_host host;
  tsi_bfs_cpu_work cpu_tree; /* predecessors: BFS over the tight edges */
  tsi_sssp_cpu_work cpu;
  tsi_graph_device device;
  tsi_sssp_cuda *cuda;
  ts_graph_plan_info info;
  ts_graph_run_stats last;
  bool ran;
};

/* A plan's options: the caller's (or the defaults for NULL), checked. */
ts_status tsi_graph_plan_options(ts_context *ctx, const char *op, const ts_graph_options *options, bool sssp,
                                 ts_graph_options *o);
/* The plan information every traversal shares, from the prepared graph. */
void tsi_graph_info_of(const tsi_graph_host *g, ts_graph_plan_info *info);
/* An execution's arguments: 0 <= source < n; each output NULL or a
 * TS_MEMORY_DEVICE buffer of the plan's context holding its bytes. */
ts_status tsi_graph_check_run(ts_context *ctx, const char *op, int64_t source, int64_t n, const ts_buffer *first,
                              const char *first_name, int64_t first_bytes, const ts_buffer *second,
                              const char *second_name, int64_t second_bytes);
/* The arguments of a last-run query: stats not NULL, the plan has run. */
ts_status tsi_graph_check_last_run(ts_context *ctx, const char *op, bool ran, const ts_graph_run_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
