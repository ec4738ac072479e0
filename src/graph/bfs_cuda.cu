/* The BFS engine: the persistent kernel's state in one allocation (keys,
 * queues, bitmaps, counters), its launch shape found once, and one launch
 * per search. */
#include "bfs_cuda_kernel.cuh"
#include "graph_internal.h"

#include <stdlib.h>
#include <string.h>

struct tsi_bfs_cuda {
  tsi_bfs_args args; /* the state's pointers; a run fills source and outputs */
  tsi_persistent_launch launch;
  void *memory;
  int64_t bytes;
  bool tight;
};

static const void *schedule_kernel(ts_schedule schedule, int group_size) {
  if (schedule == TS_SCHEDULE_WORK_ORIENTED)
    return tsi_bfs_kernel_balanced();
  return schedule == TS_SCHEDULE_GROUP_MAPPED ? tsi_bfs_kernel_group() : tsi_bfs_kernel_mapped(schedule, group_size);
}

/* Carve `count` items of `size` bytes, 256-byte aligned, from a running offset. */
static size_t take(size_t *offset, int64_t count, size_t size) {
  size_t at = *offset;
  *offset += ((size_t)(count > 0 ? count : 1) * size + 255) / 256 * 256;
  return at;
}

ts_status tsi_bfs_cuda_create(ts_context *ctx, const char *op, const tsi_graph_device *d, ts_schedule schedule,
                              int group_size, bool bottom_up, int tight_type, const tsi_graph_tuning *t,
                              tsi_bfs_cuda **engine) {
  *engine = NULL;
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  tsi_bfs_cuda *e = (tsi_bfs_cuda *)calloc(1, sizeof *e);
  if (!e)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  e->tight = tight_type >= 0;
  const bool balanced = schedule == TS_SCHEDULE_WORK_ORIENTED;
  const void *kernel =
      e->tight ? tsi_bfs_kernel_tight((ts_dtype)tight_type, balanced) : schedule_kernel(schedule, group_size);
  cudaError_t err = tsi_persistent_launch_of(ctx, kernel, t->blocks_per_sm, &e->launch);
  if (err != cudaSuccess) {
    free(e);
    return tsi_cuda_error(ctx, err, "%s: the BFS kernel's occupancy", op);
  }
  const int64_t n = d->n, words = (n + 31) / 32;
  size_t offset = 0;
  const size_t keys = take(&offset, n, 8), queue0 = take(&offset, n, 4), queue1 = take(&offset, n, 4);
  /* The queue entries' adjacency ranges (bfs_cuda_kernel.cuh): 16 bytes an entry. */
  const size_t ranges0 = take(&offset, n, sizeof(lb::atom_range)), ranges1 = take(&offset, n, sizeof(lb::atom_range));
  const size_t hubs0 = take(&offset, d->hubs, 4), hubs1 = take(&offset, d->hubs, 4);
  const size_t bits0 = take(&offset, words, 4), bits1 = take(&offset, words, 4), bits2 = take(&offset, words, 4);
  const size_t visited = take(&offset, words, 4), control = take(&offset, 1, sizeof(tsi_bfs_control));
  /* The work-oriented expansion's prefix sums: 16 bytes a queue entry. */
  const int64_t expand_tiles = balanced ? n : 0;
  const size_t scan = take(&offset, expand_tiles, 8), begin = take(&offset, expand_tiles, 8);
  const size_t chunk_total = take(&offset, balanced ? tessera::lb::gather_max_chunks : 0, 8);
  st = tsi_cuda_malloc(ctx, &e->memory, offset);
  if (st == TS_SUCCESS) /* the barrier starts at zero, and stays there between launches */
    st = tsi_cuda_memset(ctx, (char *)e->memory + control, 0, sizeof(tsi_bfs_control));
  if (st != TS_SUCCESS) {
    tsi_bfs_cuda_destroy(e);
    return st;
  }
  e->bytes = (int64_t)offset;
  char *base = (char *)e->memory;
  tsi_bfs_args *a = &e->args;
  a->n = d->n;
  a->m = d->m;
  a->words = words;
  a->offsets = d->offsets;
  a->heads = d->heads;
  a->in_offsets = bottom_up ? d->in_offsets : NULL;
  a->in_tails = bottom_up ? d->in_tails : NULL;
  a->hub_bits = d->hub_bits;
  a->has_hubs = d->hubs > 0;
  a->heavy_in = d->heavy_in;
  a->heavy_count = bottom_up ? d->heavy_count : 0;
  a->heavy_in_degree = t->heavy_in_degree;
  a->keys = (unsigned long long *)(base + keys);
  a->queue[0] = (int32_t *)(base + queue0);
  a->queue[1] = (int32_t *)(base + queue1);
  a->queue_range[0] = (lb::atom_range *)(base + ranges0);
  a->queue_range[1] = (lb::atom_range *)(base + ranges1);
  a->hub_queue[0] = (int32_t *)(base + hubs0);
  a->hub_queue[1] = (int32_t *)(base + hubs1);
  a->bits[0] = (uint32_t *)(base + bits0);
  a->bits[1] = (uint32_t *)(base + bits1);
  a->bits[2] = (uint32_t *)(base + bits2);
  a->visited = (uint32_t *)(base + visited);
  a->expand.scan = (long long *)(base + scan);
  a->expand.begin = (long long *)(base + begin);
  a->expand.chunk_total = (long long *)(base + chunk_total);
  a->control = (tsi_bfs_control *)(base + control);
  a->bottom_up = bottom_up && d->in_offsets != NULL;
  a->alpha = t->alpha;
  a->beta = t->beta;
  a->check_first = t->check_first_frontier;
  a->queue_edges = t->queue_edges;
  a->weights = d->weights;
  *engine = e;
  return TS_SUCCESS;
}

int64_t tsi_bfs_cuda_bytes(const tsi_bfs_cuda *engine) { return engine ? engine->bytes : 0; }

ts_status tsi_bfs_cuda_run(ts_context *ctx, const char *op, tsi_bfs_cuda *engine, int32_t source, int32_t *levels,
                           int32_t *parents, const void *tight_dist) {
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  tsi_bfs_args a = engine->args;
  a.source = source;
  a.levels = levels;
  a.parents = parents;
  a.tight_dist = tight_dist;
  void *args[] = {&a};
  cudaError_t err = tsi_persistent_start(ctx, &engine->launch, args);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: launch of the BFS kernel (%d blocks)", op, engine->launch.grid);
  return tsi_cuda_check_launch(ctx, op);
}

ts_status tsi_bfs_cuda_stats(ts_context *ctx, const char *op, tsi_bfs_cuda *engine, ts_graph_run_stats *stats) {
  tsi_bfs_control c;
  ts_status st = tsi_cuda_sync(ctx);
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(ctx, &c, engine->args.control, sizeof c);
  if (st != TS_SUCCESS)
    return st;
  (void)op;
  memset(stats, 0, sizeof *stats);
  stats->source = c.source;
  stats->reached = (int64_t)c.reached;
  stats->reached_edges = (int64_t)c.reached_edges;
  stats->depth = c.depth;
  stats->top_down_steps = c.top_down_steps;
  stats->bottom_up_steps = c.bottom_up_steps;
  return TS_SUCCESS;
}

void tsi_bfs_cuda_destroy(tsi_bfs_cuda *engine) {
  if (!engine)
    return;
  tsi_cuda_free(engine->memory);
  free(engine);
}
