/* A plan's search on the GPU: the launch description from the plan, then
 * the algorithm's launcher (search_cuda_*.cu). At plan creation the same
 * launchers report their kernel's occupancy instead of launching; an
 * execution asks the device nothing, allocates nothing and does not
 * synchronise the host. */
#include "search/search_cuda_kernel.cuh"

/* The launch description of a plan; queries, count and results are the
 * caller's. */
static tsi_search_launch launch_of(const ts_search_plan *plan, ts_search_bound bound) {
  tsi_search_launch launch;
  memset(&launch, 0, sizeof launch);
  launch.type = plan->type;
  launch.upper = bound == TS_BOUND_UPPER;
  launch.wide_index = plan->index_size == 8;
  launch.layout = plan->device_layout;
  launch.eytzinger_height = plan->eytzinger_height;
  launch.radix = plan->radix;
  const tsi_search_tree *tree = &plan->tree;
  launch.tree.levels = tree->levels;
  launch.tree.fanout = tree->fanout;
  launch.tree.top_levels = tree->top_levels;
  launch.tree.n = plan->n;
  launch.tree.top_keys = tree->top_keys;
  launch.tree.root_entries = tree->entries[tree->levels - 1];
  for (int l = 0; l < tree->levels; l++)
    launch.tree.offset[l] = tree->offset[l];
  launch.resident_blocks = plan->resident_blocks;
  return launch;
}

static cudaError_t dispatch(ts_search_algorithm algorithm, const tsi_search_launch *launch) {
  switch (algorithm) {
  case TS_SEARCH_BINARY:
    return tsi_search_launch_binary(launch);
  case TS_SEARCH_EYTZINGER:
    return tsi_search_launch_eytzinger(launch);
  case TS_SEARCH_MERGE_PATH:
    return tsi_search_launch_merge_path(launch);
  case TS_SEARCH_RADIX:
    return tsi_search_launch_radix(launch);
  default:
    return tsi_search_launch_kary(launch);
  }
}

extern "C" ts_status tsi_search_cuda_prepare(ts_search_plan *plan) {
  ts_context *ctx = plan->ctx;
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS || plan->n == 0)
    return st;
  int per_sm = 0;
  tsi_search_launch launch = launch_of(plan, TS_BOUND_LOWER);
  launch.blocks_per_sm = &per_sm;
  cudaError_t err = dispatch(plan->algorithm, &launch);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_search_plan_create: occupancy of the %s kernel",
                          ts_search_algorithm_name(plan->algorithm));
  plan->resident_blocks = (per_sm > 0 ? per_sm : 1) * plan->multiprocessors;
  return TS_SUCCESS;
}

extern "C" ts_status tsi_search_cuda_execute(ts_search_plan *plan, ts_search_bound bound, const void *queries,
                                             int64_t count, void *results) {
  ts_context *ctx = plan->ctx;
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  if (plan->n == 0) { /* every bound is 0 */
    cudaError_t err = cudaMemsetAsync(results, 0, (size_t)count * plan->index_size, stream);
    if (err != cudaSuccess)
      return tsi_cuda_error(ctx, err, "ts_search_execute: clearing the results");
    return tsi_cuda_check_launch(ctx, "ts_search_execute");
  }
  tsi_search_launch launch = launch_of(plan, bound);
  launch.queries = queries;
  launch.count = count;
  launch.results = results;
  launch.stream = stream;
  cudaError_t err = dispatch(plan->algorithm, &launch);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_search_execute: %s launch", ts_search_algorithm_name(plan->algorithm));
  return tsi_cuda_check_launch(ctx, "ts_search_execute");
}
