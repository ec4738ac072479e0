/* The BFS kernel with the group-mapped expansion (32 threads share 32
 * vertices' edges). */
#include "bfs_cuda_kernel.cuh"

const void *tsi_bfs_kernel_group(void) { return (const void *)tsi_bfs_kernel<lb::group_mapped<32>, tsi_all_edges>; }
