/* SpMV with the thread-, warp- and block-mapped schedules (one thread, warp
 * or block per row), instantiated from the kernel on the load-balancing layer. */
#include "sparse/spmv_cuda_kernel.cuh"

cudaError_t tsi_spmv_run_mapped(ts_schedule schedule, const tsi_spmv_call &c) {
  switch (schedule) {
  case TS_SCHEDULE_THREAD_MAPPED:
    return tsi_spmv_by_type<lb::thread_mapped, tsi_spmv_launch_fn>(c.a, c);
  case TS_SCHEDULE_WARP_MAPPED:
    return tsi_spmv_by_type<lb::warp_mapped, tsi_spmv_launch_fn>(c.a, c);
  default:
    return tsi_spmv_by_type<lb::block_mapped, tsi_spmv_launch_fn>(c.a, c);
  }
}
