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
#include "search_cuda_kernel.cuh"

#define MERGE_PATH_THREADS 256
#define MERGE_PATH_ITEMS 8
#define MERGE_PATH_TILE (MERGE_PATH_THREADS * MERGE_PATH_ITEMS)
#define MERGE_PATH_WINDOW 4096 /* keys of the shared-memory window */

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
__global__ void __launch_bounds__(MERGE_PATH_THREADS)
    search_merge_path_kernel(const typename tsi_key<T>::Bits *__restrict__ tree, tsi_tree_args t,
                             const typename tsi_key<T>::Raw *__restrict__ queries, int64_t count,
                             Index *__restrict__ results, bool upper) {
  typedef typename tsi_key<T>::Bits Bits;
  extern __shared__ uint4 shared_raw[];
  Bits *window = (Bits *)shared_raw;
  __shared__ Bits warp_min[MERGE_PATH_THREADS / 32], warp_max[MERGE_PATH_THREADS / 32];
  __shared__ int64_t bounds[2];
  const Bits *keys = tree + t.offset[0];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t tiles = (count + MERGE_PATH_TILE - 1) / MERGE_PATH_TILE;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t first = tile * MERGE_PATH_TILE;
    Bits q[MERGE_PATH_ITEMS];
    bool all[MERGE_PATH_ITEMS];
    Bits least = (Bits) ~(Bits)0, greatest = 0;
#pragma unroll
    for (int k = 0; k < MERGE_PATH_ITEMS; k++) {
      int64_t i = first + k * MERGE_PATH_THREADS + threadIdx.x;
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
      for (int w = 1; w < MERGE_PATH_THREADS / 32; w++) {
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
    const bool in_shared = width <= MERGE_PATH_WINDOW;
    if (in_shared)
      for (int64_t j = threadIdx.x; j < width; j += MERGE_PATH_THREADS)
        window[j] = __ldg(keys + lo + j);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < MERGE_PATH_ITEMS; k++) {
      int64_t i = first + k * MERGE_PATH_THREADS + threadIdx.x;
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
  size_t shared = MERGE_PATH_WINDOW * sizeof(Bits);
  int64_t tiles = (l->count + MERGE_PATH_TILE - 1) / MERGE_PATH_TILE;
  int grid = tiles > INT32_MAX ? INT32_MAX : (int)tiles;
  search_merge_path_kernel<T, Index><<<grid, MERGE_PATH_THREADS, shared, l->stream>>>(
      (const Bits *)l->layout, l->tree, (const typename tsi_key<T>::Raw *)l->queries, l->count, (Index *)l->results,
      l->upper);
  return cudaGetLastError();
}

cudaError_t tsi_search_launch_merge_path(const tsi_search_launch *launch) { TSI_SEARCH_DISPATCH(launch_typed, launch); }
