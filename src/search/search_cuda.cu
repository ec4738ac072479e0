/* A plan's search on the GPU: the launch description from the plan, then
 * the algorithm's launcher (search_cuda_*.cu). No allocation, no host
 * synchronisation. */
#include "search_cuda_kernel.cuh"

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
      return tsi_error(ctx, TS_ERROR_CUDA, "ts_search_execute: clearing the results: %s", cudaGetErrorString(err));
    return tsi_cuda_check_launch(ctx, "ts_search_execute");
  }
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
  launch.queries = queries;
  launch.count = count;
  launch.results = results;
  launch.multiprocessors = plan->multiprocessors;
  launch.stream = stream;
  cudaError_t err;
  switch (plan->algorithm) {
  case TS_SEARCH_BINARY:
    err = tsi_search_launch_binary(&launch);
    break;
  case TS_SEARCH_EYTZINGER:
    err = tsi_search_launch_eytzinger(&launch);
    break;
  case TS_SEARCH_MERGE_PATH:
    err = tsi_search_launch_merge_path(&launch);
    break;
  case TS_SEARCH_RADIX:
    err = tsi_search_launch_radix(&launch);
    break;
  default:
    err = tsi_search_launch_kary(&launch);
    break;
  }
  if (err != cudaSuccess)
    return tsi_error(ctx, TS_ERROR_CUDA, "ts_search_execute: %s launch: %s", ts_search_algorithm_name(plan->algorithm),
                     cudaGetErrorString(err));
  return tsi_cuda_check_launch(ctx, "ts_search_execute");
}
