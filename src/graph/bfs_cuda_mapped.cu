/* The BFS kernel with the thread-, lane- (4 or 8 threads a vertex), warp- and
 * block-mapped expansions. */
#include "bfs_cuda_kernel.cuh"

const void *tsi_bfs_kernel_mapped(ts_schedule schedule, int group_size) {
  switch (schedule) {
  case TS_SCHEDULE_THREAD_MAPPED:
    return (const void *)tsi_bfs_kernel<lb::thread_mapped, tsi_all_edges>;
  case TS_SCHEDULE_BLOCK_MAPPED:
    return (const void *)tsi_bfs_kernel<lb::block_mapped, tsi_all_edges>;
  default:
    if (group_size == 4)
      return (const void *)tsi_bfs_kernel<lb::lane_mapped<4>, tsi_all_edges>;
    if (group_size == 8)
      return (const void *)tsi_bfs_kernel<lb::lane_mapped<8>, tsi_all_edges>;
    return (const void *)tsi_bfs_kernel<lb::warp_mapped, tsi_all_edges>;
  }
}
