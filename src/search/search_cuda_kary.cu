/* K-ary search of the plan's static B+-tree (Rao and Ross's CSS-tree; the
 * K-ary search of Henneberg and Schuhknecht, arXiv 2506.01576): a level
 * costs one dependent round trip to a whole 64-byte node (16 or 8 keys)
 * instead of log2(K + 1). Four neighbouring threads share a query: each
 * reads one 16-byte quarter of the node and counts its keys below the
 * query, and two shuffles add the four counts. A warp's node load is then 8
 * whole nodes, one L1 wavefront each, where one thread a query issued four
 * 16-byte loads to 32 different lines (4 wavefronts a node): at 1 Mi keys
 * the wavefronts, not the bytes, set the pace. The top levels, a prefix of
 * the array, sit in shared memory; each resident block copies them once.
 * Each group carries several queries so that their node loads are in flight
 * together. */
#include "search/search_cuda_kernel.cuh"

constexpr int block_threads = TSI_SEARCH_KARY_THREADS;
constexpr int lanes = TSI_SEARCH_KARY_LANES; /* threads a query: 4 x 16 bytes = one node */
constexpr int queries_per_group = TSI_SEARCH_KARY_QUERIES_PER_GROUP;

/* Keys of this thread's quarter of the node below q, summed over the four
 * threads of the query. */
template <typename Bits> __device__ __forceinline__ int kary_quarter_count(uint4 x, Bits q);
template <> __device__ __forceinline__ int kary_quarter_count<uint32_t>(uint4 x, uint32_t q) {
  return (x.x < q) + (x.y < q) + (x.z < q) + (x.w < q);
}
template <> __device__ __forceinline__ int kary_quarter_count<uint64_t>(uint4 x, uint64_t q) {
  uint64_t a = ((uint64_t)x.y << 32) | x.x, b = ((uint64_t)x.w << 32) | x.z;
  return (a < q) + (b < q);
}
__device__ __forceinline__ int kary_group_sum(int c) {
  c += __shfl_xor_sync(0xffffffffu, c, 1);
  return c + __shfl_xor_sync(0xffffffffu, c, 2);
}

template <ts_key_type T, typename Index>
__global__ void __launch_bounds__(block_threads)
    search_kary_kernel(const typename tsi_key<T>::Bits *__restrict__ tree, tsi_tree_args t,
                       const typename tsi_key<T>::Raw *__restrict__ queries, int64_t count, Index *__restrict__ results,
                       bool upper) {
  typedef typename tsi_key<T>::Bits Bits;
  constexpr int groups = block_threads / lanes;
  extern __shared__ uint4 shared_raw[];
  const int64_t top_vectors = t.top_keys * (int64_t)sizeof(Bits) / 16;
  for (int64_t i = threadIdx.x; i < top_vectors; i += blockDim.x)
    shared_raw[i] = __ldg((const uint4 *)tree + i);
  __syncthreads();
  const Bits *top = (const Bits *)shared_raw;
  const int64_t fanout = t.fanout;
  const int quarter = threadIdx.x % lanes, group = threadIdx.x / lanes;
  const int64_t stride = (int64_t)gridDim.x * groups * queries_per_group;
  /* base is the same for the whole block: every lane reaches the shuffles. */
  for (int64_t base = (int64_t)blockIdx.x * groups * queries_per_group; base < count; base += stride) {
    Bits q[queries_per_group];
    bool done[queries_per_group];
    int64_t node[queries_per_group];
#pragma unroll
    for (int k = 0; k < queries_per_group; k++) {
      int64_t i = base + k * groups + group;
      q[k] = tsi_prepare_query<Bits>(tsi_key<T>::order(i < count ? queries[i] : queries[base]), upper, &done[k]);
    }
    int l = t.levels - 1;
    /* The root: a count past its real entries means every key is below q. */
#pragma unroll
    for (int k = 0; k < queries_per_group; k++) {
      int c = kary_group_sum(kary_quarter_count<Bits>(((const uint4 *)top)[quarter], q[k]));
      done[k] = done[k] || c >= t.root_entries;
      node[k] = c;
    }
    for (l--; l >= t.levels - t.top_levels && l >= 0; l--) {
#pragma unroll
      for (int k = 0; k < queries_per_group; k++) {
        int64_t child = done[k] ? 0 : node[k]; /* finished queries walk node 0, harmlessly */
        const uint4 *n = (const uint4 *)(top + t.offset[l] + child * fanout);
        node[k] = child * fanout + kary_group_sum(kary_quarter_count<Bits>(n[quarter], q[k]));
      }
    }
    for (; l >= 0; l--) {
      uint4 x[queries_per_group];
#pragma unroll
      for (int k = 0; k < queries_per_group; k++) { /* the loads first, all in flight */
        int64_t child = done[k] ? 0 : node[k];
        node[k] = child * fanout;
        x[k] = __ldg((const uint4 *)(tree + t.offset[l] + child * fanout) + quarter);
      }
#pragma unroll
      for (int k = 0; k < queries_per_group; k++)
        node[k] += kary_group_sum(kary_quarter_count<Bits>(x[k], q[k]));
    }
#pragma unroll
    for (int k = 0; k < queries_per_group; k++) {
      int64_t i = base + k * groups + group;
      if (i < count && quarter == 0)
        results[i] = (Index)(done[k] ? t.n : node[k]);
    }
  }
}

template <ts_key_type T, typename Index> static cudaError_t launch_typed(const tsi_search_launch *l) {
  typedef typename tsi_key<T>::Bits Bits;
  size_t shared = (size_t)l->tree.top_keys * sizeof(Bits);
  const void *kernel = (const void *)search_kary_kernel<T, Index>;
  if (l->blocks_per_sm)
    return tsi_search_occupancy(kernel, block_threads, shared, l);
  const int64_t per_block = block_threads / lanes * queries_per_group;
  int grid = tsi_search_resident_grid(l, (l->count + per_block - 1) / per_block);
  search_kary_kernel<T, Index><<<grid, block_threads, shared, l->stream>>>((const Bits *)l->layout, l->tree,
                                                                           (const typename tsi_key<T>::Raw *)l->queries,
                                                                           l->count, (Index *)l->results, l->upper);
  return cudaGetLastError();
}

cudaError_t tsi_search_launch_kary(const tsi_search_launch *launch) { TSI_SEARCH_DISPATCH(launch_typed, launch); }
