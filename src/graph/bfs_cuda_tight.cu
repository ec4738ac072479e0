/* The BFS kernels over the tight edges of shortest-path distances (the
 * predecessor trees of SSSP), group-mapped, for float and double. */
#include "bfs_cuda_kernel.cuh"

const void *tsi_bfs_kernel_tight(ts_dtype dtype) {
  if (dtype == TS_FLOAT32)
    return (const void *)tsi_bfs_kernel<lb::group_mapped<32>, tsi_tight_filter<float>>;
  return (const void *)tsi_bfs_kernel<lb::group_mapped<32>, tsi_tight_filter<double>>;
}
