/* The SpMV kernel written once on the load-balancing layer, instantiated per
 * schedule, value type and offset width by spmv_cuda_*.cu; and the entry
 * points those files give spmv_cuda.cu. */
#ifndef TESSERA_SPMV_CUDA_KERNEL_CUH
#define TESSERA_SPMV_CUDA_KERNEL_CUH

#include "core/cuda_arch_limits.cuh"
#include "sparse/sparse_tuning.h"
#include "sparse/spmv_cuda.h"
#include "sparse/spmv_cuda_values.cuh"
#include "tessera/lb.cuh"

#include <cuda_runtime.h>
#include <type_traits>

namespace lb = tessera::lb;

/* One call of run: the operand, its workspace and the vectors. At plan
 * creation blocks_per_sm is set instead: the entry points then write the
 * kernel's resident blocks per SM there and launch nothing. */
struct tsi_spmv_call {
  const tsi_spmv_device_matrix *a;
  void *workspace;
  double alpha, beta;
  const void *x;
  void *y;
  cudaStream_t stream;
  int lanes;          /* split-rows: threads a short row (1, 2, 4 or 8) */
  int *blocks_per_sm; /* non-NULL: report the occupancy, do not launch */
};

/* Resident blocks per SM each kernel asks ptxas for (the policy's register
 * cap, sparse_tuning.h). */
template <class S> struct tsi_spmv_min_blocks_of { static constexpr int value = tsi_spmv_arch_policy::min_blocks; };
template <int G> struct tsi_spmv_min_blocks_of<lb::group_mapped<G>> {
  static constexpr int value = tsi_spmv_arch_policy::group_min_blocks;
};
template <class S> constexpr int tsi_spmv_min_blocks = tsi_spmv_min_blocks_of<S>::value;

/* y = alpha*A*x + beta*y: a row is a tile, a nonzero an atom; y is read only
 * when beta != 0. Plain cached loads: with one row per thread, the warp's
 * consecutive loads of a row's entries hit the same cache lines, and
 * evict-first loads (__ldcs) threw them out in between
 * (spmv-schedules-h200.md). T is the stored type; rows are summed in
 * tsi_spmv_sum<T> (spmv_cuda_values.cuh). */
template <class S, class T, class Index>
__global__ void __launch_bounds__(lb::block_threads<S>,
                                  tsi_min_blocks_per_sm(lb::block_threads<S>, tsi_spmv_min_blocks<S>))
    tsi_spmv_kernel(lb::plan<Index> p, lb::csr_work<Index> work, const int32_t *__restrict__ cols,
                    const T *__restrict__ vals, const T *__restrict__ x, tsi_spmv_scalar<T> alpha,
                    tsi_spmv_scalar<T> beta, T *__restrict__ y) {
  using Sum = tsi_spmv_sum<T>;
  __shared__ lb::storage<S, Sum, Index> smem;
  lb::for_each_tile_reduce<S>(
      p, work, smem, tsi_spmv_zero<Sum>(), tsi_spmv_plus{},
      [=](Index k) { return tsi_spmv_product(vals[k], x[cols[k]]); },
      [=](Index row, Sum sum) { y[row] = tsi_spmv_finish(sum, alpha, beta, y + row); });
}

template <class Index> lb::csr_work<Index> tsi_spmv_work(const tsi_spmv_device_matrix *a) {
  return lb::make_csr_work<Index>(Index(a->rows), Index(a->nnz), static_cast<const Index *>(a->offsets));
}

/* The layer's launch plan of the operand, from the resident blocks that the
 * plan found once. */
template <class S, class T, class Index>
lb::plan<Index> tsi_spmv_plan_of(const tsi_spmv_device_matrix *a, void *workspace) {
  return lb::make_plan<S, tsi_spmv_sum<T>, Index>(Index(a->rows), Index(a->nnz), a->resident_blocks, workspace);
}

template <class S, class T, class Index> cudaError_t tsi_spmv_launch(const tsi_spmv_call &c) {
  if (c.blocks_per_sm)
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(c.blocks_per_sm, tsi_spmv_kernel<S, T, Index>,
                                                         lb::block_threads<S>, 0);
  lb::csr_work<Index> work = tsi_spmv_work<Index>(c.a);
  lb::plan<Index> p = tsi_spmv_plan_of<S, T, Index>(c.a, c.workspace);
  if (p.grid == 0)
    return cudaSuccess;
  tsi_spmv_kernel<S, T, Index><<<p.grid, lb::block_threads<S>, 0, c.stream>>>(
      p, work, c.a->indices, static_cast<const T *>(c.a->values), static_cast<const T *>(c.x),
      tsi_spmv_scalar<T>(c.alpha), tsi_spmv_scalar<T>(c.beta), static_cast<T *>(c.y));
  return cudaPeekAtLastError(); /* left for tsi_cuda_check_launch() to collect */
}

/* The value type and offset width of the operand, as template arguments. */
template <class S, template <class, class, class> class Fn, class... Args>
auto tsi_spmv_by_type(const tsi_spmv_device_matrix *a, Args... args) {
  if (a->dtype == TS_FLOAT32)
    return a->wide_offsets ? Fn<S, float, int64_t>::call(a, args...) : Fn<S, float, int32_t>::call(a, args...);
  if (a->dtype == TS_COMPLEX64)
    return a->wide_offsets ? Fn<S, tsi_complex64, int64_t>::call(a, args...)
                           : Fn<S, tsi_complex64, int32_t>::call(a, args...);
  if (a->dtype == TS_COMPLEX128)
    return a->wide_offsets ? Fn<S, tsi_complex128, int64_t>::call(a, args...)
                           : Fn<S, tsi_complex128, int32_t>::call(a, args...);
  return a->wide_offsets ? Fn<S, double, int64_t>::call(a, args...) : Fn<S, double, int32_t>::call(a, args...);
}

template <class S, class T, class Index> struct tsi_spmv_launch_fn {
  static cudaError_t call(const tsi_spmv_device_matrix *, const tsi_spmv_call &c) {
    return tsi_spmv_launch<S, T, Index>(c);
  }
};

/* Entry points, one file each. */
cudaError_t tsi_spmv_run_mapped(ts_schedule schedule, const tsi_spmv_call &c); /* spmv_cuda_mapped.cu */
cudaError_t tsi_spmv_run_group_small(int group_size, const tsi_spmv_call &c);  /* spmv_cuda_group_small.cu: 1-32 */
cudaError_t tsi_spmv_run_group_large(int group_size, const tsi_spmv_call &c);  /* spmv_cuda_group_large.cu: 64-1024 */
size_t tsi_spmv_workspace_chunked(ts_schedule schedule, const tsi_spmv_device_matrix *a); /* spmv_cuda_chunked.cu */
cudaError_t tsi_spmv_prepare_chunked(ts_schedule schedule, const tsi_spmv_device_matrix *a, void *workspace,
                                     cudaStream_t stream);
cudaError_t tsi_spmv_run_chunked(ts_schedule schedule, const tsi_spmv_call &c);
cudaError_t tsi_spmv_run_split(const tsi_spmv_call &c); /* spmv_cuda_split.cu */

#endif
