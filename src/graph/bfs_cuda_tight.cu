/* The BFS kernels over the tight edges of shortest-path distances (the
 * predecessor trees of SSSP), group-mapped or work-oriented, for float and
 * double. */
#include "bfs_cuda_kernel.cuh"

const void *tsi_bfs_kernel_tight(ts_dtype dtype, bool balanced) {
  if (dtype == TS_FLOAT32)
    return balanced ? (const void *)tsi_bfs_kernel<lb::work_oriented, tsi_tight_filter<float>>
                    : (const void *)tsi_bfs_kernel<lb::group_mapped<32>, tsi_tight_filter<float>>;
  return balanced ? (const void *)tsi_bfs_kernel<lb::work_oriented, tsi_tight_filter<double>>
                  : (const void *)tsi_bfs_kernel<lb::group_mapped<32>, tsi_tight_filter<double>>;
}
