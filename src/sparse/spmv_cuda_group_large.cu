/* SpMV with the group-mapped schedule for groups of 64 to 1024 threads. */
#include "sparse/spmv_cuda_kernel.cuh"

cudaError_t tsi_spmv_run_group_large(int group_size, const tsi_spmv_call &c) {
  switch (group_size) {
  case 64:
    return tsi_spmv_by_type<lb::group_mapped<64>, tsi_spmv_launch_fn>(c.a, c);
  case 128:
    return tsi_spmv_by_type<lb::group_mapped<128>, tsi_spmv_launch_fn>(c.a, c);
  case 256:
    return tsi_spmv_by_type<lb::group_mapped<256>, tsi_spmv_launch_fn>(c.a, c);
  case 512:
    return tsi_spmv_by_type<lb::group_mapped<512>, tsi_spmv_launch_fn>(c.a, c);
  default:
    return tsi_spmv_by_type<lb::group_mapped<1024>, tsi_spmv_launch_fn>(c.a, c);
  }
}
