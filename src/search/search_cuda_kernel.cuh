/* Device pieces shared by the search kernels: the ordered bits of each key
 * type (the same map as search_internal.h), the query preparation that turns
 * an upper bound into a lower bound, and the count of keys below a query in
 * one 64-byte B+-tree node. */
#ifndef TESSERA_SEARCH_CUDA_KERNEL_CUH
#define TESSERA_SEARCH_CUDA_KERNEL_CUH

#include "search/search_internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

/* Key type -> stored type (Raw) and ordered-bits type (Bits). */
template <ts_key_type T> struct tsi_key;
template <> struct tsi_key<TS_KEY_UINT32> {
  typedef uint32_t Raw;
  typedef uint32_t Bits;
  __device__ static Bits order(Raw v) { return v; }
};
template <> struct tsi_key<TS_KEY_INT32> {
  typedef int32_t Raw;
  typedef uint32_t Bits;
  __device__ static Bits order(Raw v) { return (uint32_t)v ^ 0x80000000u; }
};
template <> struct tsi_key<TS_KEY_FLOAT32> {
  typedef float Raw;
  typedef uint32_t Bits;
  __device__ static Bits order(Raw v) {
    uint32_t bits = __float_as_uint(v);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
      return 0xffffffffu; /* NaNs last, all equal */
    if (bits == 0x80000000u)
      bits = 0; /* -0.0 == +0.0 */
    return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
  }
};
template <> struct tsi_key<TS_KEY_UINT64> {
  typedef uint64_t Raw;
  typedef uint64_t Bits;
  __device__ static Bits order(Raw v) { return v; }
};
template <> struct tsi_key<TS_KEY_FLOAT64> {
  typedef double Raw;
  typedef uint64_t Bits;
  __device__ static Bits order(Raw v) {
    uint64_t bits = (uint64_t)__double_as_longlong(v);
    if ((bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
      return ~0ull;
    if (bits == 0x8000000000000000ull)
      bits = 0;
    return (bits & 0x8000000000000000ull) ? ~bits : bits | 0x8000000000000000ull;
  }
};

/* Every kernel counts keys < q. The upper bound of q is the lower bound of
 * q + 1, except for the largest value, whose upper bound is n (*all). */
template <typename Bits> __device__ __forceinline__ Bits tsi_prepare_query(Bits q, bool upper, bool *all) {
  *all = upper && q == (Bits) ~(Bits)0;
  return q + (Bits)(upper && !*all);
}

/* Keys < q among the 64 bytes at @p node (16 4-byte or 8 8-byte keys),
 * read as four 16-byte loads. */
template <typename Bits> __device__ __forceinline__ int tsi_node_count(const uint4 *node, Bits q);
template <> __device__ __forceinline__ int tsi_node_count<uint32_t>(const uint4 *node, uint32_t q) {
  int c = 0;
#pragma unroll
  for (int v = 0; v < 4; v++) {
    uint4 x = node[v];
    c += (x.x < q) + (x.y < q) + (x.z < q) + (x.w < q);
  }
  return c;
}
template <> __device__ __forceinline__ int tsi_node_count<uint64_t>(const uint4 *node, uint64_t q) {
  int c = 0;
#pragma unroll
  for (int v = 0; v < 4; v++) {
    uint4 x = node[v];
    uint64_t a = ((uint64_t)x.y << 32) | x.x, b = ((uint64_t)x.w << 32) | x.z;
    c += (a < q) + (b < q);
  }
  return c;
}

/* The same through the read-only data cache, the four loads issued first. */
template <typename Bits> __device__ __forceinline__ int tsi_node_count_global(const uint4 *node, Bits q);
template <> __device__ __forceinline__ int tsi_node_count_global<uint32_t>(const uint4 *node, uint32_t q) {
  uint4 x[4];
#pragma unroll
  for (int v = 0; v < 4; v++)
    x[v] = __ldg(node + v);
  int c = 0;
#pragma unroll
  for (int v = 0; v < 4; v++)
    c += (x[v].x < q) + (x[v].y < q) + (x[v].z < q) + (x[v].w < q);
  return c;
}
template <> __device__ __forceinline__ int tsi_node_count_global<uint64_t>(const uint4 *node, uint64_t q) {
  uint4 x[4];
#pragma unroll
  for (int v = 0; v < 4; v++)
    x[v] = __ldg(node + v);
  int c = 0;
#pragma unroll
  for (int v = 0; v < 4; v++) {
    uint64_t a = ((uint64_t)x[v].y << 32) | x[v].x, b = ((uint64_t)x[v].w << 32) | x[v].z;
    c += (a < q) + (b < q);
  }
  return c;
}

/* The B+-tree as the kernels see it (offsets in keys, top level first). */
struct tsi_tree_args {
  int levels, fanout, top_levels;
  int64_t n, top_keys;
  int64_t root_entries;
  int64_t offset[TSI_SEARCH_MAX_LEVELS];
};

/* Lower bound of a prepared query by descending the whole tree in global
 * memory (used once per tile by the merge-path kernel). */
template <typename Bits> __device__ int64_t tsi_tree_lower_bound(const Bits *tree, const tsi_tree_args &t, Bits q) {
  int l = t.levels - 1;
  int64_t node = tsi_node_count_global<Bits>((const uint4 *)(tree + t.offset[l]), q);
  if (node >= t.root_entries)
    return t.n;
  for (l--; l >= 0; l--)
    node = node * t.fanout + tsi_node_count_global<Bits>((const uint4 *)(tree + t.offset[l] + node * t.fanout), q);
  return node;
}

/* One launch of a plan's search, as every algorithm's launcher takes it. */
struct tsi_search_launch {
  ts_key_type type;
  bool upper;
  bool wide_index; /* int64 results, else int32 */
  const void *layout;
  int eytzinger_height;
  tsi_tree_args tree;
  tsi_search_radix radix;
  const void *queries;
  int64_t count;
  void *results;
  int resident_blocks; /* of the kernel on the device, found at plan creation */
  cudaStream_t stream;
  /* Set at plan creation only: the launcher writes its kernel's resident
   * blocks per SM here (tsi_search_occupancy) and launches nothing. */
  int *blocks_per_sm;
};

/* At plan creation: the resident blocks per SM of @p kernel launched with
 * @p threads threads and @p shared bytes of dynamic shared memory. */
static inline cudaError_t tsi_search_occupancy(const void *kernel, int threads, size_t shared,
                                               const tsi_search_launch *launch) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(launch->blocks_per_sm, kernel, threads, shared);
}

/* Blocks to launch for a grid-stride kernel: as many as stay resident (so
 * each block loads its shared-memory table once), no more than the work
 * needs. */
static inline int tsi_search_resident_grid(const tsi_search_launch *launch, int64_t work_blocks) {
  int64_t grid = launch->resident_blocks;
  if (work_blocks < grid)
    grid = work_blocks;
  return grid < 1 ? 1 : (int)grid;
}

cudaError_t tsi_search_launch_binary(const tsi_search_launch *launch);
cudaError_t tsi_search_launch_eytzinger(const tsi_search_launch *launch);
cudaError_t tsi_search_launch_kary(const tsi_search_launch *launch);
cudaError_t tsi_search_launch_merge_path(const tsi_search_launch *launch);
cudaError_t tsi_search_launch_radix(const tsi_search_launch *launch);

/* Instantiate a launcher template for every key type and index width. */
#define TSI_SEARCH_DISPATCH(launcher, launch)                                                                          \
  switch ((launch)->type) {                                                                                            \
  case TS_KEY_UINT32:                                                                                                  \
    return (launch)->wide_index ? launcher<TS_KEY_UINT32, int64_t>(launch) : launcher<TS_KEY_UINT32, int32_t>(launch); \
  case TS_KEY_INT32:                                                                                                   \
    return (launch)->wide_index ? launcher<TS_KEY_INT32, int64_t>(launch) : launcher<TS_KEY_INT32, int32_t>(launch);   \
  case TS_KEY_FLOAT32:                                                                                                 \
    return (launch)->wide_index ? launcher<TS_KEY_FLOAT32, int64_t>(launch)                                            \
                                : launcher<TS_KEY_FLOAT32, int32_t>(launch);                                           \
  case TS_KEY_UINT64:                                                                                                  \
    return (launch)->wide_index ? launcher<TS_KEY_UINT64, int64_t>(launch) : launcher<TS_KEY_UINT64, int32_t>(launch); \
  case TS_KEY_FLOAT64:                                                                                                 \
    return (launch)->wide_index ? launcher<TS_KEY_FLOAT64, int64_t>(launch)                                            \
                                : launcher<TS_KEY_FLOAT64, int32_t>(launch);                                           \
  }                                                                                                                    \
  return cudaErrorInvalidValue

#endif
