/* The SSSP engine: the near-far kernel's state in one allocation
 * (distances, stamps, queues, bitmaps, counters), its launch shape found
 * once, and per search one launch, plus one of the tight-edge BFS engine
 * when predecessors are asked for. */
#include "graph_internal.h"
#include "sssp_cuda_kernel.cuh"

#include <stdlib.h>
#include <string.h>

struct tsi_sssp_cuda {
  /* The state, laid out once; a run fills the source and output. */
  tsi_sssp_args<float> args_float;
  tsi_sssp_args<double> args_double;
  ts_dtype dtype;
  tsi_persistent_launch launch;
  tsi_bfs_cuda *tree; /* BFS over the tight edges: the predecessors */
  bool tree_ran;      /* the last run asked for predecessors */
  void *memory;
  int64_t bytes;
  tsi_sssp_control *control;
  void *dist;
  bool heavy_edges; /* light and heavy rounds, on the second copy of the edges */
};

static size_t take(size_t *offset, int64_t count, size_t size) {
  size_t at = *offset;
  *offset += ((size_t)(count > 0 ? count : 1) * size + 255) / 256 * 256;
  return at;
}

/* The engine's parts in one allocation: at[k] their offsets; returns the
 * bytes. With heavy edges, the edges' second copy, light ones first. */
enum { TSI_SSSP_PARTS = 17 };
static size_t lay_out_parts(const tsi_graph_device *d, bool balanced, bool heavy_edges, size_t *at) {
  const int64_t n = d->n, words = (n + 31) / 32;
  size_t offset = 0;
  at[0] = take(&offset, n, ts_dtype_size(d->dtype));
  at[1] = take(&offset, n, 4);
  at[2] = take(&offset, n, 4);
  at[3] = take(&offset, n, 4);
  at[4] = take(&offset, d->hubs, 4);
  at[5] = take(&offset, d->hubs, 4);
  for (int k = 6; k < 10; k++)
    at[k] = take(&offset, words, 4);
  at[10] = take(&offset, 1, sizeof(tsi_sssp_control));
  /* The work-oriented expansion's prefix sums: 16 bytes a near-set entry. */
  at[11] = take(&offset, balanced ? n : 0, 8);
  at[12] = take(&offset, balanced ? n : 0, 8);
  at[13] = take(&offset, balanced ? tessera::lb::gather_max_chunks : 0, 8);
  /* Light edges first (sssp_cuda_edge_classes.cu). */
  at[14] = take(&offset, heavy_edges ? n : 0, 8);
  at[15] = take(&offset, heavy_edges ? d->m : 0, 4);
  at[16] = take(&offset, heavy_edges ? d->m : 0, ts_dtype_size(d->dtype));
  return offset;
}

template <class T>
static void lay_out(tsi_sssp_args<T> *a, const tsi_graph_device *d, const tsi_graph_tuning *t, double delta,
                    bool heavy_edges, char *base, const size_t *at, int64_t words) {
  a->n = d->n;
  a->m = d->m;
  a->words = words;
  a->offsets = d->offsets;
  /* With heavy edges, the copy with each vertex's light edges first. */
  a->heads = heavy_edges ? reinterpret_cast<const int32_t *>(base + at[15]) : d->heads;
  a->weights = heavy_edges ? reinterpret_cast<const T *>(base + at[16]) : static_cast<const T *>(d->weights);
  a->light_end = heavy_edges ? reinterpret_cast<const int64_t *>(base + at[14]) : nullptr;
  a->hub_bits = d->hub_bits;
  a->has_hubs = d->hubs > 0;
  a->dist = reinterpret_cast<tsi_bits_of<T> *>(base + at[0]);
  a->stamp = reinterpret_cast<unsigned *>(base + at[1]);
  a->queue[0] = reinterpret_cast<int32_t *>(base + at[2]);
  a->queue[1] = reinterpret_cast<int32_t *>(base + at[3]);
  a->hub_queue[0] = reinterpret_cast<int32_t *>(base + at[4]);
  a->hub_queue[1] = reinterpret_cast<int32_t *>(base + at[5]);
  for (int k = 0; k < 3; k++)
    a->near_bits[k] = reinterpret_cast<uint32_t *>(base + at[6 + k]);
  a->far_bits = reinterpret_cast<uint32_t *>(base + at[9]);
  a->control = reinterpret_cast<tsi_sssp_control *>(base + at[10]);
  a->expand.scan = reinterpret_cast<long long *>(base + at[11]);
  a->expand.begin = reinterpret_cast<long long *>(base + at[12]);
  a->expand.chunk_total = reinterpret_cast<long long *>(base + at[13]);
  a->delta = (T)delta;
  a->heavy_edges = heavy_edges;
  a->check_first = t->check_first_frontier;
  a->queue_edges = t->queue_edges;
}

ts_status tsi_sssp_cuda_create(ts_context *ctx, const char *op, const tsi_graph_device *d, ts_schedule schedule,
                               int group_size, double delta, bool heavy_edges, const tsi_graph_tuning *t,
                               tsi_sssp_cuda **engine) {
  *engine = NULL;
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  tsi_sssp_cuda *e = (tsi_sssp_cuda *)calloc(1, sizeof *e);
  if (!e)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  e->dtype = d->dtype;
  const void *kernel = d->dtype == TS_FLOAT32 ? tsi_sssp_kernel_float(schedule, group_size)
                                              : tsi_sssp_kernel_double(schedule, group_size);
  cudaError_t err = tsi_persistent_launch_of(ctx, kernel, t->blocks_per_sm, &e->launch);
  if (err != cudaSuccess) {
    free(e);
    return tsi_cuda_error(ctx, err, "%s: the SSSP kernel's occupancy", op);
  }
  const int64_t n = d->n, words = (n + 31) / 32;
  const bool balanced = schedule == TS_SCHEDULE_WORK_ORIENTED;
  size_t at[TSI_SSSP_PARTS];
  size_t offset = lay_out_parts(d, balanced, heavy_edges, at);
  st = tsi_cuda_malloc(ctx, &e->memory, offset);
  if (st == TS_ERROR_OUT_OF_MEMORY && heavy_edges) {
    /* No room for the second copy of the edges: every round walks them all. */
    heavy_edges = false;
    offset = lay_out_parts(d, balanced, heavy_edges, at);
    st = tsi_cuda_malloc(ctx, &e->memory, offset);
  }
  if (st == TS_SUCCESS && heavy_edges)
    st = tsi_sssp_cuda_split_edges(ctx, op, d, delta, reinterpret_cast<int64_t *>((char *)e->memory + at[14]),
                                   reinterpret_cast<int32_t *>((char *)e->memory + at[15]), (char *)e->memory + at[16]);
  if (st == TS_SUCCESS)
    st = tsi_cuda_memset(ctx, (char *)e->memory + at[10], 0, sizeof(tsi_sssp_control));
  if (st == TS_SUCCESS)
    st = tsi_bfs_cuda_create(ctx, op, d, balanced ? TS_SCHEDULE_WORK_ORIENTED : TS_SCHEDULE_GROUP_MAPPED, 32, false,
                             (int)d->dtype, t, &e->tree);
  if (st != TS_SUCCESS) {
    tsi_sssp_cuda_destroy(e);
    return st;
  }
  e->bytes = (int64_t)offset;
  e->heavy_edges = heavy_edges;
  char *base = (char *)e->memory;
  e->control = reinterpret_cast<tsi_sssp_control *>(base + at[10]);
  e->dist = base + at[0];
  if (d->dtype == TS_FLOAT32)
    lay_out(&e->args_float, d, t, delta, heavy_edges, base, at, words);
  else
    lay_out(&e->args_double, d, t, delta, heavy_edges, base, at, words);
  *engine = e;
  return TS_SUCCESS;
}

bool tsi_sssp_cuda_heavy_edges(const tsi_sssp_cuda *engine) { return engine && engine->heavy_edges; }

int64_t tsi_sssp_cuda_bytes(const tsi_sssp_cuda *engine) {
  return engine ? engine->bytes + tsi_bfs_cuda_bytes(engine->tree) : 0;
}

ts_status tsi_sssp_cuda_run(ts_context *ctx, const char *op, tsi_sssp_cuda *engine, int32_t source, void *distances,
                            int32_t *predecessors) {
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaError_t err;
  if (engine->dtype == TS_FLOAT32) {
    tsi_sssp_args<float> a = engine->args_float;
    a.source = source;
    a.distances = static_cast<float *>(distances);
    void *args[] = {&a};
    err = tsi_persistent_start(ctx, &engine->launch, args);
  } else {
    tsi_sssp_args<double> a = engine->args_double;
    a.source = source;
    a.distances = static_cast<double *>(distances);
    void *args[] = {&a};
    err = tsi_persistent_start(ctx, &engine->launch, args);
  }
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: launch of the SSSP kernel (%d blocks)", op, engine->launch.grid);
  st = tsi_cuda_check_launch(ctx, op);
  engine->tree_ran = predecessors != NULL;
  if (st == TS_SUCCESS && predecessors)
    st = tsi_bfs_cuda_run(ctx, op, engine->tree, source, NULL, predecessors, engine->dist);
  return st;
}

ts_status tsi_sssp_cuda_stats(ts_context *ctx, const char *op, tsi_sssp_cuda *engine, ts_graph_run_stats *stats) {
  tsi_sssp_control c;
  ts_status st = tsi_cuda_sync(ctx);
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(ctx, &c, engine->control, sizeof c);
  if (st != TS_SUCCESS)
    return st;
  memset(stats, 0, sizeof *stats);
  stats->source = c.source;
  stats->reached = (int64_t)c.reached;
  stats->reached_edges = (int64_t)c.reached_edges;
  stats->rounds = c.rounds;
  stats->phases = c.phases;
  if (engine->tree_ran) {
    ts_graph_run_stats tree;
    st = tsi_bfs_cuda_stats(ctx, op, engine->tree, &tree);
    stats->depth = tree.depth;
  }
  return st;
}

void tsi_sssp_cuda_destroy(tsi_sssp_cuda *engine) {
  if (!engine)
    return;
  tsi_bfs_cuda_destroy(engine->tree);
  tsi_cuda_free(engine->memory);
  free(engine);
}
