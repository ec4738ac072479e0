/* The baseline: one thread per query, a plain binary search of the sorted
 * ordered keys (level 0 of the plan's B+-tree) in global memory, as
 * thrust::lower_bound does it. */
#include "search/search_cuda_kernel.cuh"

template <ts_key_type T, typename Index>
__global__ void __launch_bounds__(TSI_SEARCH_BINARY_THREADS)
    search_binary_kernel(const typename tsi_key<T>::Bits *keys, int64_t n,
                         const typename tsi_key<T>::Raw *__restrict__ queries, int64_t count,
                         Index *__restrict__ results, bool upper) {
  typedef typename tsi_key<T>::Bits Bits;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x) {
    bool all;
    Bits q = tsi_prepare_query<Bits>(tsi_key<T>::order(queries[i]), upper, &all);
    int64_t lo = 0, len = n;
    while (len > 0) {
      int64_t half = len >> 1;
      if (__ldg(keys + lo + half) < q) {
        lo += half + 1;
        len -= half + 1;
      } else {
        len = half;
      }
    }
    results[i] = (Index)(all ? n : lo);
  }
}

template <ts_key_type T, typename Index> static cudaError_t launch_typed(const tsi_search_launch *l) {
  typedef typename tsi_key<T>::Bits Bits;
  if (l->blocks_per_sm) /* a grid of the work's size: the occupancy is not used */
    return cudaSuccess;
  constexpr int threads = TSI_SEARCH_BINARY_THREADS;
  const Bits *keys = (const Bits *)l->layout + l->tree.offset[0];
  int64_t blocks = (l->count + threads - 1) / threads;
  int grid = blocks > TSI_SEARCH_BINARY_MAX_GRID ? TSI_SEARCH_BINARY_MAX_GRID : (int)blocks;
  search_binary_kernel<T, Index><<<grid, threads, 0, l->stream>>>(
      keys, l->tree.n, (const typename tsi_key<T>::Raw *)l->queries, l->count, (Index *)l->results, l->upper);
  return cudaGetLastError();
}

cudaError_t tsi_search_launch_binary(const tsi_search_launch *launch) { TSI_SEARCH_DISPATCH(launch_typed, launch); }
