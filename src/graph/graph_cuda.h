/* The interface between the graph plans (host side) and the CUDA
 * traversals: the graph in GPU memory and the BFS and SSSP engines, each a
 * persistent kernel with its state allocated once. Runs allocate nothing and
 * never wait for the GPU. */
#ifndef TESSERA_GRAPH_CUDA_H
#define TESSERA_GRAPH_CUDA_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tsi_graph_host;
struct tsi_graph_tuning;

/* The graph in GPU memory. */
typedef struct tsi_graph_device {
  int32_t n;
  int64_t m;
  ts_dtype dtype;
  int64_t *offsets; /* n + 1 */
  int32_t *heads;   /* m */
  void *weights;    /* m values (SSSP), or NULL */
  /* In-edges for bottom-up steps: the out-edges' arrays for an undirected
   * graph, their own for a directed one, NULL without bottom-up steps. */
  const int64_t *in_offsets;
  const int32_t *in_tails;
  int64_t *own_in_offsets; /* allocated here (directed): freed with the graph */
  int32_t *own_in_tails;
  uint32_t *hub_bits; /* n bits: out-degree above the hub degree */
  int64_t hubs;       /* vertices with that bit */
  int32_t *heavy_in;  /* vertices of in-degree above the heavy degree, increasing */
  int64_t heavy_count;
  int64_t bytes;         /* out-edges, weights, hub bits */
  int64_t in_edge_bytes; /* own in-edges and the heavy list */
} tsi_graph_device;

/* Upload @p g (weights when it has them, in-edges when it has them or is
 * undirected and @p in_edges), with the hub bits and heavy in-degree list of
 * tuning @p t. */
ts_status tsi_graph_cuda_upload(ts_context *ctx, const char *op, const struct tsi_graph_host *g, bool in_edges,
                                const struct tsi_graph_tuning *t, tsi_graph_device *d);
void tsi_graph_cuda_release(tsi_graph_device *d);

/* The compute capability of the context's device (0.0 when unknown). */
void tsi_graph_cuda_capability(ts_context *ctx, int *major, int *minor);

typedef struct tsi_bfs_cuda tsi_bfs_cuda;

/* A BFS engine over @p d (which must outlive it): its state and launch
 * shape. @p tight_type: the value type of the distances it will follow tight
 * edges of (predecessor trees of SSSP), or -1 for plain BFS. */
ts_status tsi_bfs_cuda_create(ts_context *ctx, const char *op, const tsi_graph_device *d, ts_schedule schedule,
                              int group_size, bool bottom_up, int tight_type, const struct tsi_graph_tuning *t,
                              tsi_bfs_cuda **engine);
/* Bytes of its state in GPU memory. */
int64_t tsi_bfs_cuda_bytes(const tsi_bfs_cuda *engine);
/* Queue one search; levels and parents (device pointers) may be NULL.
 * tight_dist: the distances whose tight edges to follow (tight engines). */
ts_status tsi_bfs_cuda_run(ts_context *ctx, const char *op, tsi_bfs_cuda *engine, int32_t source, int32_t *levels,
                           int32_t *parents, const void *tight_dist);
/* Wait and read the last run's counters into stats (depth, reached,
 * reached_edges, steps). */
ts_status tsi_bfs_cuda_stats(ts_context *ctx, const char *op, tsi_bfs_cuda *engine, ts_graph_run_stats *stats);
void tsi_bfs_cuda_destroy(tsi_bfs_cuda *engine);

typedef struct tsi_sssp_cuda tsi_sssp_cuda;

/* heavy_edges: some weight is at least delta, so the engine relaxes the light
 * edges (w < delta) in a phase's near rounds and the heavy ones once, when the
 * phase's distances are final. */
ts_status tsi_sssp_cuda_create(ts_context *ctx, const char *op, const tsi_graph_device *d, ts_schedule schedule,
                               int group_size, double delta, bool heavy_edges, const struct tsi_graph_tuning *t,
                               tsi_sssp_cuda **engine);
int64_t tsi_sssp_cuda_bytes(const tsi_sssp_cuda *engine);
/* Whether the engine runs light and heavy rounds: asked for, and its second
 * copy of the edges found room (else every round walks every edge). */
bool tsi_sssp_cuda_heavy_edges(const tsi_sssp_cuda *engine);
/* The out-edges of @p d reordered, each vertex's lighter than @p delta first
 * (light_end: n ends of them), for an engine with heavy edges. Queued. */
ts_status tsi_sssp_cuda_split_edges(ts_context *ctx, const char *op, const tsi_graph_device *d, double delta,
                                    int64_t *light_end, int32_t *split_heads, void *split_weights);
/* Queue one search; distances (n values of the graph's type) and
 * predecessors (n int32) may be NULL. */
ts_status tsi_sssp_cuda_run(ts_context *ctx, const char *op, tsi_sssp_cuda *engine, int32_t source, void *distances,
                            int32_t *predecessors);
ts_status tsi_sssp_cuda_stats(ts_context *ctx, const char *op, tsi_sssp_cuda *engine, ts_graph_run_stats *stats);
void tsi_sssp_cuda_destroy(tsi_sssp_cuda *engine);

#ifdef __cplusplus
}
#endif

#endif
