/* The SSSP kernel for float weights, every schedule. */
#include "sssp_cuda_kernel.cuh"

template <class S> struct tsi_sssp_float_kernel {
  static const void *call() { return (const void *)tsi_sssp_kernel<S, float>; }
};

const void *tsi_sssp_kernel_float(ts_schedule schedule, int group_size) {
  return tsi_graph_by_schedule<tsi_sssp_float_kernel>(schedule, group_size);
}
