/* K-ary search of the plan's static B+-tree (Rao and Ross's CSS-tree; the
 * K-ary search of Henneberg and Schuhknecht, arXiv 2506.01576): one thread
 * per query reads a whole 64-byte node (16 or 8 keys, four 16-byte loads,
 * two sectors) per level, so that a level costs one dependent round trip
 * instead of log2(K + 1). The top levels, a prefix of the array, sit in
 * shared memory; each resident block copies them once. Each thread carries
 * several queries so that their node loads are in flight together. */
#include "search_cuda_kernel.cuh"

#define KARY_THREADS 256
#define KARY_QUERIES_PER_THREAD 4

template <ts_key_type T, typename Index>
__global__ void __launch_bounds__(KARY_THREADS)
    search_kary_kernel(const typename tsi_key<T>::Bits *__restrict__ tree, tsi_tree_args t,
                       const typename tsi_key<T>::Raw *__restrict__ queries, int64_t count, Index *__restrict__ results,
                       bool upper) {
  typedef typename tsi_key<T>::Bits Bits;
  extern __shared__ uint4 shared_raw[];
  const int64_t top_vectors = t.top_keys * (int64_t)sizeof(Bits) / 16;
  for (int64_t i = threadIdx.x; i < top_vectors; i += blockDim.x)
    shared_raw[i] = __ldg((const uint4 *)tree + i);
  __syncthreads();
  const Bits *top = (const Bits *)shared_raw;
  const int64_t fanout = t.fanout;
  const int64_t stride = (int64_t)gridDim.x * KARY_THREADS * KARY_QUERIES_PER_THREAD;
  for (int64_t base = (int64_t)blockIdx.x * KARY_THREADS * KARY_QUERIES_PER_THREAD + threadIdx.x; base < count;
       base += stride) {
    Bits q[KARY_QUERIES_PER_THREAD];
    bool done[KARY_QUERIES_PER_THREAD];
    int64_t node[KARY_QUERIES_PER_THREAD];
#pragma unroll
    for (int k = 0; k < KARY_QUERIES_PER_THREAD; k++) {
      int64_t i = base + k * KARY_THREADS;
      q[k] = tsi_prepare_query<Bits>(tsi_key<T>::order(i < count ? queries[i] : queries[base]), upper, &done[k]);
      node[k] = 0;
    }
    int l = t.levels - 1;
    /* The root: a count past its real entries means every key is below q. */
#pragma unroll
    for (int k = 0; k < KARY_QUERIES_PER_THREAD; k++) {
      int c = tsi_node_count<Bits>((const uint4 *)top, q[k]); /* the root is always in the table */
      done[k] = done[k] || c >= t.root_entries;
      node[k] = c;
    }
    for (l--; l >= t.levels - t.top_levels && l >= 0; l--) {
#pragma unroll
      for (int k = 0; k < KARY_QUERIES_PER_THREAD; k++) {
        int64_t child = done[k] ? 0 : node[k]; /* finished queries walk node 0, harmlessly */
        node[k] = child * fanout + tsi_node_count<Bits>((const uint4 *)(top + t.offset[l] + child * fanout), q[k]);
      }
    }
    for (; l >= 0; l--) {
#pragma unroll
      for (int k = 0; k < KARY_QUERIES_PER_THREAD; k++) {
        int64_t child = done[k] ? 0 : node[k];
        node[k] =
            child * fanout + tsi_node_count_global<Bits>((const uint4 *)(tree + t.offset[l] + child * fanout), q[k]);
      }
    }
#pragma unroll
    for (int k = 0; k < KARY_QUERIES_PER_THREAD; k++) {
      int64_t i = base + k * KARY_THREADS;
      if (i < count)
        results[i] = (Index)(done[k] ? t.n : node[k]);
    }
  }
}

template <ts_key_type T, typename Index> static cudaError_t launch_typed(const tsi_search_launch *l) {
  typedef typename tsi_key<T>::Bits Bits;
  size_t shared = (size_t)l->tree.top_keys * sizeof(Bits);
  const void *kernel = (const void *)search_kary_kernel<T, Index>;
  int grid = tsi_search_resident_grid(kernel, KARY_THREADS, shared, l->multiprocessors,
                                      (l->count + KARY_THREADS * KARY_QUERIES_PER_THREAD - 1) /
                                          (KARY_THREADS * KARY_QUERIES_PER_THREAD));
  search_kary_kernel<T, Index><<<grid, KARY_THREADS, shared, l->stream>>>((const Bits *)l->layout, l->tree,
                                                                          (const typename tsi_key<T>::Raw *)l->queries,
                                                                          l->count, (Index *)l->results, l->upper);
  return cudaGetLastError();
}

cudaError_t tsi_search_launch_kary(const tsi_search_launch *launch) { TSI_SEARCH_DISPATCH(launch_typed, launch); }
