/* Sorted search (Baxter, ModernGPU "vectorized sorted search"): the merge
 * path of the sorted queries with the sorted keys, cut at tiles of queries.
 * A block takes a tile; the keys its path crosses are those between the
 * lower bounds of the tile's least and greatest query, found by two
 * descents of the B+-tree; the block loads that window once (coalesced) and
 * searches it in shared memory. For sorted queries the window holds about
 * tile * N / Q keys, so the whole search reads each query and key about
 * once. Queries out of order stay correct: the window comes from the tile's
 * true minimum and maximum, and a window too large for shared memory is
 * searched in global memory instead. */
#include "search/search_cuda_kernel.cuh"

constexpr int block_threads = TSI_SEARCH_MERGE_PATH_THREADS;
constexpr int items = TSI_SEARCH_MERGE_PATH_ITEMS;
constexpr int tile_queries = block_threads * items;
constexpr int window_keys = TSI_SEARCH_MERGE_PATH_WINDOW; /* keys of the shared-memory window */

template <typename Bits> __device__ __forceinline__ int64_t count_below(const Bits *keys, int64_t len, Bits q) {
  int64_t lo = 0;
  while (len > 0) {
    int64_t half = len >> 1;
    if (keys[lo + half] < q) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  return lo;
}

template <ts_key_type T, typename Index>
__global__ void __launch_bounds__(block_threads)
    search_merge_path_kernel(const typename tsi_key<T>::Bits *__restrict__ tree, tsi_tree_args t,
                             const typename tsi_key<T>::Raw *__restrict__ queries, int64_t count,
                             Index *__restrict__ results, bool upper) {
  typedef typename tsi_key<T>::Bits Bits;
  extern __shared__ uint4 shared_raw[];
  Bits *window = (Bits *)shared_raw;
  __shared__ Bits warp_min[block_threads / 32], warp_max[block_threads / 32];
  __shared__ int64_t bounds[2];
  const Bits *keys = tree + t.offset[0];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t tiles = (count + tile_queries - 1) / tile_queries;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t first = tile * tile_queries;
    Bits q[items];
    bool all[items];
    Bits least = (Bits) ~(Bits)0, greatest = 0;
#pragma unroll
    for (int k = 0; k < items; k++) {
      int64_t i = first + k * block_threads + threadIdx.x;
      q[k] = tsi_prepare_query<Bits>(tsi_key<T>::order(i < count ? queries[i] : queries[first]), upper, &all[k]);
      if (!all[k]) {
        least = q[k] < least ? q[k] : least;
        greatest = q[k] > greatest ? q[k] : greatest;
      }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      Bits a = __shfl_xor_sync(0xffffffffu, least, offset), b = __shfl_xor_sync(0xffffffffu, greatest, offset);
      least = a < least ? a : least;
      greatest = b > greatest ? b : greatest;
    }
    if (lane == 0) {
      warp_min[warp] = least;
      warp_max[warp] = greatest;
    }
    __syncthreads();
    /* Two warps find the window's ends at once. */
    if (lane == 0 && warp < 2) {
      least = warp_min[0];
      greatest = warp_max[0];
      for (int w = 1; w < block_threads / 32; w++) {
        least = warp_min[w] < least ? warp_min[w] : least;
        greatest = warp_max[w] > greatest ? warp_max[w] : greatest;
      }
      if (least > greatest) /* every query of the tile is answered without keys */
        bounds[warp] = 0;
      else
        bounds[warp] = tsi_tree_lower_bound<Bits>(tree, t, warp == 0 ? least : greatest);
    }
    __syncthreads();
    const int64_t lo = bounds[0], width = bounds[1] - bounds[0];
    const bool in_shared = width <= window_keys;
    if (in_shared)
      for (int64_t j = threadIdx.x; j < width; j += block_threads)
        window[j] = __ldg(keys + lo + j);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < items; k++) {
      int64_t i = first + k * block_threads + threadIdx.x;
      if (i < count) {
        int64_t r = in_shared ? count_below<Bits>(window, width, q[k]) : count_below<Bits>(keys + lo, width, q[k]);
        results[i] = (Index)(all[k] ? t.n : lo + r);
      }
    }
    __syncthreads(); /* the window and bounds are reused by the next tile */
  }
}

template <ts_key_type T, typename Index> static cudaError_t launch_typed(const tsi_search_launch *l) {
  typedef typename tsi_key<T>::Bits Bits;
  if (l->blocks_per_sm) /* a block a tile: the occupancy is not used */
    return cudaSuccess;
  size_t shared = window_keys * sizeof(Bits);
  int64_t tiles = (l->count + tile_queries - 1) / tile_queries;
  int grid = tiles > INT32_MAX ? INT32_MAX : (int)tiles;
  search_merge_path_kernel<T, Index><<<grid, block_threads, shared, l->stream>>>(
      (const Bits *)l->layout, l->tree, (const typename tsi_key<T>::Raw *)l->queries, l->count, (Index *)l->results,
      l->upper);
  return cudaGetLastError();
}

cudaError_t tsi_search_launch_merge_path(const tsi_search_launch *launch) { TSI_SEARCH_DISPATCH(launch_typed, launch); }
