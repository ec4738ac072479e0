/* Built instead of the graph's .cu files without CUDA; a CUDA context cannot
 * exist then, so these only answer that there is no device. */
#include "graph_internal.h"

static ts_status no_cuda(ts_context *ctx, const char *op) {
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "%s: tessera was built without CUDA", op);
}

ts_status tsi_graph_cuda_upload(ts_context *ctx, const char *op, const struct tsi_graph_host *g, bool in_edges,
                                const struct tsi_graph_tuning *t, tsi_graph_device *d) {
  (void)g;
  (void)in_edges;
  (void)t;
  (void)d;
  return no_cuda(ctx, op);
}

void tsi_graph_cuda_release(tsi_graph_device *d) { (void)d; }

void tsi_graph_cuda_capability(ts_context *ctx, int *major, int *minor) {
  (void)ctx;
  *major = 0;
  *minor = 0;
}

ts_status tsi_bfs_cuda_create(ts_context *ctx, const char *op, const tsi_graph_device *d, ts_schedule schedule,
                              int group_size, bool bottom_up, int tight_type, const struct tsi_graph_tuning *t,
                              tsi_bfs_cuda **engine) {
  (void)d;
  (void)schedule;
  (void)group_size;
  (void)bottom_up;
  (void)tight_type;
  (void)t;
  *engine = NULL;
  return no_cuda(ctx, op);
}

int64_t tsi_bfs_cuda_bytes(const tsi_bfs_cuda *engine) {
  (void)engine;
  return 0;
}

/* NOLINTNEXTLINE(readability-non-const-parameter): the outputs of the CUDA version */
ts_status tsi_bfs_cuda_run(ts_context *ctx, const char *op, tsi_bfs_cuda *engine, int32_t source, int32_t *levels,
                           int32_t *parents, const void *tight_dist) { // NOLINT(readability-non-const-parameter)
  (void)engine;
  (void)source;
  (void)levels;
  (void)parents;
  (void)tight_dist;
  return no_cuda(ctx, op);
}

ts_status tsi_bfs_cuda_stats(ts_context *ctx, const char *op, tsi_bfs_cuda *engine, ts_graph_run_stats *stats) {
  (void)engine;
  (void)stats;
  return no_cuda(ctx, op);
}

void tsi_bfs_cuda_destroy(tsi_bfs_cuda *engine) { (void)engine; }

bool tsi_sssp_cuda_heavy_edges(const tsi_sssp_cuda *engine) {
  (void)engine;
  return false;
}

ts_status tsi_sssp_cuda_create(ts_context *ctx, const char *op, const tsi_graph_device *d, ts_schedule schedule,
                               int group_size, double delta, bool heavy_edges, const struct tsi_graph_tuning *t,
                               tsi_sssp_cuda **engine) {
  (void)d;
  (void)schedule;
  (void)group_size;
  (void)delta;
  (void)heavy_edges;
  (void)t;
  *engine = NULL;
  return no_cuda(ctx, op);
}

int64_t tsi_sssp_cuda_bytes(const tsi_sssp_cuda *engine) {
  (void)engine;
  return 0;
}

/* NOLINTNEXTLINE(readability-non-const-parameter): an output on CUDA */
ts_status tsi_sssp_cuda_run(ts_context *ctx, const char *op, tsi_sssp_cuda *engine, int32_t source, void *distances,
                            int32_t *predecessors) { // NOLINT(readability-non-const-parameter)
  (void)engine;
  (void)source;
  (void)distances;
  (void)predecessors;
  return no_cuda(ctx, op);
}

ts_status tsi_sssp_cuda_stats(ts_context *ctx, const char *op, tsi_sssp_cuda *engine, ts_graph_run_stats *stats) {
  (void)engine;
  (void)stats;
  return no_cuda(ctx, op);
}

void tsi_sssp_cuda_destroy(tsi_sssp_cuda *engine) { (void)engine; }
