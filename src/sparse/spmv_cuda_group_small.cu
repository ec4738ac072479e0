/* SpMV with the group-mapped schedule for groups of 1 to 32 threads. */
#include "sparse/spmv_cuda_kernel.cuh"

cudaError_t tsi_spmv_run_group_small(int group_size, const tsi_spmv_call &c) {
  switch (group_size) {
  case 1:
    return tsi_spmv_by_type<lb::group_mapped<1>, tsi_spmv_launch_fn>(c.a, c);
  case 2:
    return tsi_spmv_by_type<lb::group_mapped<2>, tsi_spmv_launch_fn>(c.a, c);
  case 4:
    return tsi_spmv_by_type<lb::group_mapped<4>, tsi_spmv_launch_fn>(c.a, c);
  case 8:
    return tsi_spmv_by_type<lb::group_mapped<8>, tsi_spmv_launch_fn>(c.a, c);
  case 16:
    return tsi_spmv_by_type<lb::group_mapped<16>, tsi_spmv_launch_fn>(c.a, c);
  default:
    return tsi_spmv_by_type<lb::group_mapped<32>, tsi_spmv_launch_fn>(c.a, c);
  }
}
