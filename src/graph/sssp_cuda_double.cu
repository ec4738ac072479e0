/* The SSSP kernel for double weights, every schedule. */
#include "sssp_cuda_kernel.cuh"

template <class S> struct tsi_sssp_double_kernel {
  static const void *call() { return (const void *)tsi_sssp_kernel<S, double>; }
};

const void *tsi_sssp_kernel_double(ts_schedule schedule, int group_size) {
  return tsi_graph_by_schedule<tsi_sssp_double_kernel>(schedule, group_size);
}
