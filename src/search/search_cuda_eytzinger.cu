/* Eytzinger search: the keys in breadth-first order of a perfect binary
 * tree (Khuong and Morin, JEA 2017, section 4), so that the first t levels
 * are the first 2^t - 1 keys of the array: each resident block copies that
 * prefix to shared memory once, then searches many queries. In a perfect
 * tree of height h the path's left/right bits, read as a number, are the
 * query's rank: rank = final index - (2^h - 1). No explicit prefetch: each
 * thread carries several queries at once, whose loads are independent. */
#include "search/search_cuda_kernel.cuh"

constexpr int block_threads = TSI_SEARCH_EYTZINGER_THREADS;
constexpr int queries_per_thread = TSI_SEARCH_EYTZINGER_QUERIES_PER_THREAD;

template <ts_key_type T, typename Index>
__global__ void __launch_bounds__(block_threads)
    search_eytzinger_kernel(const typename tsi_key<T>::Bits *__restrict__ tree, int height, int top_height, int64_t n,
                            const typename tsi_key<T>::Raw *__restrict__ queries, int64_t count,
                            Index *__restrict__ results, bool upper) {
  typedef typename tsi_key<T>::Bits Bits;
  extern __shared__ uint4 shared_raw[];
  Bits *top = (Bits *)shared_raw;
  int top_size = (1 << top_height) - 1;
  for (int i = threadIdx.x; i < top_size; i += blockDim.x)
    top[i] = tree[i];
  __syncthreads();
  const int64_t leaves = ((int64_t)1 << height) - 1;
  const int64_t stride = (int64_t)gridDim.x * block_threads * queries_per_thread;
  for (int64_t base = (int64_t)blockIdx.x * block_threads * queries_per_thread + threadIdx.x; base < count;
       base += stride) {
    Bits q[queries_per_thread];
    bool all[queries_per_thread];
    int64_t node[queries_per_thread];
#pragma unroll
    for (int k = 0; k < queries_per_thread; k++) {
      int64_t i = base + k * block_threads;
      q[k] = tsi_prepare_query<Bits>(tsi_key<T>::order(i < count ? queries[i] : queries[base]), upper, &all[k]);
      node[k] = 0;
    }
    for (int d = 0; d < top_height; d++) {
#pragma unroll
      for (int k = 0; k < queries_per_thread; k++)
        node[k] = 2 * node[k] + 1 + (top[node[k]] < q[k]);
    }
    for (int d = top_height; d < height; d++) {
#pragma unroll
      for (int k = 0; k < queries_per_thread; k++)
        node[k] = 2 * node[k] + 1 + (__ldg(tree + node[k]) < q[k]);
    }
#pragma unroll
    for (int k = 0; k < queries_per_thread; k++) {
      int64_t i = base + k * block_threads;
      if (i < count)
        results[i] = (Index)(all[k] ? n : node[k] - leaves);
    }
  }
}

template <ts_key_type T, typename Index> static cudaError_t launch_typed(const tsi_search_launch *l) {
  typedef typename tsi_key<T>::Bits Bits;
  int table_height = 0;
  while (((int64_t)2 << table_height) - 1 <= (int64_t)(TSI_SEARCH_TOP_BYTES / sizeof(Bits)))
    table_height++;
  int top_height = l->eytzinger_height < table_height ? l->eytzinger_height : table_height;
  size_t shared = (((size_t)1 << top_height) - 1) * sizeof(Bits);
  const void *kernel = (const void *)search_eytzinger_kernel<T, Index>;
  if (l->blocks_per_sm)
    return tsi_search_occupancy(kernel, block_threads, shared, l);
  int grid = tsi_search_resident_grid(l, (l->count + block_threads * queries_per_thread - 1) /
                                             (block_threads * queries_per_thread));
  search_eytzinger_kernel<T, Index><<<grid, block_threads, shared, l->stream>>>(
      (const Bits *)l->layout, l->eytzinger_height, top_height, l->tree.n, (const typename tsi_key<T>::Raw *)l->queries,
      l->count, (Index *)l->results, l->upper);
  return cudaGetLastError();
}

cudaError_t tsi_search_launch_eytzinger(const tsi_search_launch *launch) { TSI_SEARCH_DISPATCH(launch_typed, launch); }
