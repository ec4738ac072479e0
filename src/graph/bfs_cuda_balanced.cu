/* The BFS kernel with the work-oriented expansion (a frontier's edges spread
 * evenly over the grid's warps). */
#include "bfs_cuda_kernel.cuh"

const void *tsi_bfs_kernel_balanced(void) { return (const void *)tsi_bfs_kernel<lb::work_oriented, tsi_all_edges>; }
