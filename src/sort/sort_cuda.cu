/* The CUDA backend of ts_sort_execute: a stable comparison merge sort of keys
 * mapped to ordered unsigned integers.
 *
 * 1. Block sort (after the base case of Karsin et al., "Analysis-driven
 *    engineering of comparison-based sorting algorithms on GPUs", ICS 2018,
 *    section 4): each block loads a tile of THREADS * ITEMS keys, each thread
 *    sorts ITEMS keys in registers (odd-even transposition: only out-of-order
 *    neighbours swap, so it is stable), then the block merges runs of ITEMS,
 *    2 ITEMS, ... keys in shared memory, every thread making ITEMS outputs
 *    from its merge-path split. ITEMS is odd, so that thread t's accesses to
 *    word t * ITEMS + j fall in distinct banks across a warp.
 * 2. Merge passes in global memory: each pass merges pairs of sorted runs;
 *    a partition kernel finds, for every output tile, its merge-path split
 *    (Odeh et al., "Merge Path", IPDPSW 2012), and the merge kernel loads
 *    the tile's two pieces into shared memory and merges them as in 1.
 * The output of each pass lands in the keys buffer or in the workspace so
 * that the last one writes the keys buffer: no final copy. Keys are mapped
 * in place before the sort and back after it when the type or the order
 * needs it (unsigned ascending does not). */
#include "sort_internal.h"

#include <cuda_runtime.h>

#define SORT_THREADS 256

/* Items per thread: odd (conflict-free strided access); the tile of 4-byte
 * keys with 8-byte values and that of 8-byte keys and values stay under the
 * 48 KiB of shared memory a block gets without opt-in. */
template <typename K> struct sort_items;
template <> struct sort_items<uint32_t> { static constexpr int value = 15; };
template <> struct sort_items<uint64_t> { static constexpr int value = 9; };

/* Keys taken from a = [0, la) among the first d of the stable merge of a, b. */
template <typename K, typename I> __device__ __forceinline__ I merge_corank(const K *a, I la, const K *b, I lb, I d) {
  I lo = d > lb ? d - lb : 0, hi = d < la ? d : la;
  while (lo < hi) {
    I mid = lo + (hi - lo) / 2;
    if (a[mid] <= b[d - 1 - mid])
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Merge ITEMS (at most count) outputs of a[ai, la) and b[bi, lb) (shared
 * memory, keys and values side by side) into registers, A first on ties. */
template <typename K, typename V, bool HAS_V, int ITEMS>
__device__ __forceinline__ void serial_merge(const K *a_keys, const V *a_values, int ai, int la, const K *b_keys,
                                             const V *b_values, int bi, int lb, int count, K (&keys)[ITEMS],
                                             V (&values)[ITEMS]) {
  K ka = ai < la ? a_keys[ai] : K(0), kb = bi < lb ? b_keys[bi] : K(0);
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    if (j < count) {
      bool take_a = bi >= lb || (ai < la && !(kb < ka));
      if (take_a) {
        keys[j] = ka;
        if constexpr (HAS_V)
          values[j] = a_values[ai];
        ai++;
        if (ai < la)
          ka = a_keys[ai];
      } else {
        keys[j] = kb;
        if constexpr (HAS_V)
          values[j] = b_values[bi];
        bi++;
        if (bi < lb)
          kb = b_keys[bi];
      }
    }
  }
}

template <typename K, typename V, bool HAS_V>
__global__ void __launch_bounds__(SORT_THREADS)
    sort_block_kernel(const K *in_keys, const V *in_values, K *out_keys, V *out_values, int64_t n) {
  constexpr int ITEMS = sort_items<K>::value, TILE = SORT_THREADS * ITEMS;
  extern __shared__ __align__(16) unsigned char sort_shared[];
  K *s_keys = reinterpret_cast<K *>(sort_shared);
  V *s_values = reinterpret_cast<V *>(s_keys + TILE);
  int tid = threadIdx.x;
  int64_t start = (int64_t)blockIdx.x * TILE;
  int count = n - start < TILE ? (int)(n - start) : TILE;
  /* Missing keys of the last tile become the largest key: they sort after
   * every real one (after equal ones too, being later) and are not stored. */
  for (int i = tid; i < TILE; i += SORT_THREADS) {
    s_keys[i] = i < count ? in_keys[start + i] : ~K(0);
    if constexpr (HAS_V)
      s_values[i] = i < count ? in_values[start + i] : V(0);
  }
  __syncthreads();
  K keys[ITEMS];
  V values[ITEMS];
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    keys[j] = s_keys[tid * ITEMS + j];
    if constexpr (HAS_V)
      values[j] = s_values[tid * ITEMS + j];
  }
#pragma unroll
  for (int round = 0; round < ITEMS; round++) {
#pragma unroll
    for (int j = round & 1; j + 1 < ITEMS; j += 2) {
      if (keys[j + 1] < keys[j]) {
        K k = keys[j];
        keys[j] = keys[j + 1];
        keys[j + 1] = k;
        if constexpr (HAS_V) {
          V v = values[j];
          values[j] = values[j + 1];
          values[j + 1] = v;
        }
      }
    }
  }
  for (int group = 2; group <= SORT_THREADS; group *= 2) {
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
      s_keys[tid * ITEMS + j] = keys[j];
      if constexpr (HAS_V)
        s_values[tid * ITEMS + j] = values[j];
    }
    __syncthreads();
    int lane = tid & (group - 1), first = (tid - lane) * ITEMS, width = group / 2 * ITEMS;
    int diag = lane * ITEMS;
    int ai = merge_corank(s_keys + first, width, s_keys + first + width, width, diag);
    serial_merge<K, V, HAS_V, ITEMS>(s_keys + first, s_values + first, ai, width, s_keys + first + width,
                                     s_values + first + width, diag - ai, width, ITEMS, keys, values);
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    s_keys[tid * ITEMS + j] = keys[j];
    if constexpr (HAS_V)
      s_values[tid * ITEMS + j] = values[j];
  }
  __syncthreads();
  for (int i = tid; i < count; i += SORT_THREADS) {
    out_keys[start + i] = s_keys[i];
    if constexpr (HAS_V)
      out_values[start + i] = s_values[i];
  }
}

/* Split of output tile boundary b of a pass with runs of @p width: the
 * position in keys where the boundary's A piece starts. */
template <typename K>
__global__ void sort_partition_kernel(const K *keys, int64_t n, int64_t width, int64_t tile, int64_t boundaries,
                                      int64_t *splits) {
  int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= boundaries)
    return;
  int64_t diag = b * tile < n ? b * tile : n;
  int64_t base = diag / (2 * width) * (2 * width);
  int64_t la = n - base < width ? n - base : width;
  int64_t lb = n - base - la < width ? n - base - la : width;
  splits[b] = base + merge_corank(keys + base, la, keys + base + la, lb, diag - base);
}

template <typename K, typename V, bool HAS_V>
__global__ void __launch_bounds__(SORT_THREADS)
    sort_merge_kernel(const K *in_keys, const V *in_values, K *out_keys, V *out_values, int64_t n, int64_t width,
                      const int64_t *splits) {
  constexpr int ITEMS = sort_items<K>::value, TILE = SORT_THREADS * ITEMS;
  extern __shared__ __align__(16) unsigned char sort_shared[];
  K *s_keys = reinterpret_cast<K *>(sort_shared);
  V *s_values = reinterpret_cast<V *>(s_keys + TILE);
  int tid = threadIdx.x;
  int64_t d0 = (int64_t)blockIdx.x * TILE, d1 = d0 + TILE < n ? d0 + TILE : n;
  int64_t base = d0 / (2 * width) * (2 * width);
  int64_t a_end = base + width < n ? base + width : n;
  int64_t b_end = a_end + width < n ? a_end + width : n;
  int64_t a0 = splits[blockIdx.x], a1 = d1 == b_end ? a_end : splits[blockIdx.x + 1];
  int64_t b0 = a_end + (d0 - base) - (a0 - base), b1 = a_end + (d1 - base) - (a1 - base);
  int na = (int)(a1 - a0), nb = (int)(b1 - b0), total = na + nb;
  for (int i = tid; i < total; i += SORT_THREADS) {
    int64_t from = i < na ? a0 + i : b0 + (i - na);
    s_keys[i] = in_keys[from];
    if constexpr (HAS_V)
      s_values[i] = in_values[from];
  }
  __syncthreads();
  K keys[ITEMS];
  V values[ITEMS];
  int diag = tid * ITEMS, count = total - diag < ITEMS ? total - diag : ITEMS;
  if (count > 0) {
    int ai = merge_corank(s_keys, na, s_keys + na, nb, diag);
    serial_merge<K, V, HAS_V, ITEMS>(s_keys, s_values, ai, na, s_keys + na, s_values + na, diag - ai, nb, count, keys,
                                     values);
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    if (j < count) {
      s_keys[diag + j] = keys[j];
      if constexpr (HAS_V)
        s_values[diag + j] = values[j];
    }
  }
  __syncthreads();
  for (int i = tid; i < total; i += SORT_THREADS) {
    out_keys[d0 + i] = s_keys[i];
    if constexpr (HAS_V)
      out_values[d0 + i] = s_values[i];
  }
}

template <typename K>
__global__ void sort_map_kernel(K *keys, int64_t n, ts_sort_key key, bool descending, bool to_ordered) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    if constexpr (sizeof(K) == 4)
      keys[i] = tsi_sort_map32(keys[i], key, descending, to_ordered);
    else
      keys[i] = tsi_sort_map64(keys[i], key, descending, to_ordered);
  }
}

__global__ void sort_index_kernel(int32_t *index, int64_t n) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    index[i] = (int32_t)i;
}

static int64_t tile_of(size_t key_size) {
  return key_size == 4 ? SORT_THREADS * sort_items<uint32_t>::value : SORT_THREADS * sort_items<uint64_t>::value;
}

extern "C" size_t tsi_sort_cuda_scratch_bytes(int64_t max_n, size_t key_size, size_t value_size) {
  (void)value_size;
  int64_t tile = tile_of(key_size);
  return tsi_sort_align((size_t)((max_n + tile - 1) / tile + 1) * sizeof(int64_t));
}

/* Grid for element-wise kernels: enough blocks to fill the GPU, no more. */
static unsigned elementwise_blocks(int64_t n) {
  int64_t blocks = (n + 255) / 256;
  return (unsigned)(blocks < 4096 ? blocks : 4096);
}

template <typename K, typename V, bool HAS_V>
static ts_status sort_run(const ts_sort_plan *plan, int64_t n, K *keys, V *values, void *workspace) {
  ts_context *ctx = plan->ctx;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  constexpr int ITEMS = sort_items<K>::value, TILE = SORT_THREADS * ITEMS;
  size_t max_n = (size_t)plan->options.max_n;
  char *w = (char *)workspace;
  K *alt_keys = (K *)w;
  V *alt_values = (V *)(w + tsi_sort_align(max_n * sizeof(K)));
  int64_t *splits = (int64_t *)(w + tsi_sort_align(max_n * sizeof(K)) + tsi_sort_align(max_n * plan->value_size));
  size_t shared = (size_t)TILE * (sizeof(K) + (HAS_V ? sizeof(V) : 0));
  int64_t tiles = (n + TILE - 1) / TILE;
  int passes = 0;
  for (int64_t width = TILE; width < n; width *= 2)
    passes++;

  K *src_keys = passes % 2 == 0 ? keys : alt_keys, *dst_keys = passes % 2 == 0 ? alt_keys : keys;
  V *src_values = passes % 2 == 0 ? values : alt_values, *dst_values = passes % 2 == 0 ? alt_values : values;
  /* The block sort reads the caller's keys and writes where pass 0 reads
   * (in place is safe: a block reads its whole tile before writing). */
  sort_block_kernel<K, V, HAS_V>
      <<<(unsigned)tiles, SORT_THREADS, shared, stream>>>(keys, values, src_keys, src_values, n);
  ts_status st = tsi_cuda_check_launch(ctx, "ts_sort_execute (block sort)");
  for (int64_t width = TILE; st == TS_SUCCESS && width < n; width *= 2) {
    int64_t boundaries = tiles + 1;
    sort_partition_kernel<K>
        <<<(unsigned)((boundaries + 255) / 256), 256, 0, stream>>>(src_keys, n, width, TILE, boundaries, splits);
    st = tsi_cuda_check_launch(ctx, "ts_sort_execute (merge partition)");
    if (st != TS_SUCCESS)
      break;
    sort_merge_kernel<K, V, HAS_V><<<(unsigned)tiles, SORT_THREADS, shared, stream>>>(src_keys, src_values, dst_keys,
                                                                                      dst_values, n, width, splits);
    st = tsi_cuda_check_launch(ctx, "ts_sort_execute (merge pass)");
    K *tk = src_keys;
    src_keys = dst_keys;
    dst_keys = tk;
    V *tv = src_values;
    src_values = dst_values;
    dst_values = tv;
  }
  return st;
}

template <typename K>
static ts_status sort_keys_of(const ts_sort_plan *plan, int64_t n, K *keys, void *values, void *workspace) {
  switch (plan->options.value) {
  case TS_SORT_VALUE_NONE:
    return sort_run<K, uint32_t, false>(plan, n, keys, NULL, workspace);
  case TS_SORT_VALUE_UINT64:
    return sort_run<K, uint64_t, true>(plan, n, keys, (uint64_t *)values, workspace);
  default:
    return sort_run<K, uint32_t, true>(plan, n, keys, (uint32_t *)values, workspace);
  }
}

extern "C" ts_status tsi_sort_cuda(const ts_sort_plan *plan, int64_t n, void *keys, void *values, void *workspace) {
  ts_context *ctx = plan->ctx;
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  ts_sort_key key = plan->options.key;
  bool descending = plan->options.order == TS_SORT_DESCENDING, map = tsi_sort_needs_map(key, plan->options.order);
  unsigned blocks = elementwise_blocks(n);
  if (plan->options.value == TS_SORT_VALUE_INDEX) {
    sort_index_kernel<<<blocks, 256, 0, stream>>>((int32_t *)values, n);
    st = tsi_cuda_check_launch(ctx, "ts_sort_execute (index)");
  }
  if (st == TS_SUCCESS && map) {
    if (plan->key_size == 4)
      sort_map_kernel<uint32_t><<<blocks, 256, 0, stream>>>((uint32_t *)keys, n, key, descending, true);
    else
      sort_map_kernel<uint64_t><<<blocks, 256, 0, stream>>>((uint64_t *)keys, n, key, descending, true);
    st = tsi_cuda_check_launch(ctx, "ts_sort_execute (key map)");
  }
  if (st == TS_SUCCESS)
    st = plan->key_size == 4 ? sort_keys_of<uint32_t>(plan, n, (uint32_t *)keys, values, workspace)
                             : sort_keys_of<uint64_t>(plan, n, (uint64_t *)keys, values, workspace);
  if (st == TS_SUCCESS && map) {
    if (plan->key_size == 4)
      sort_map_kernel<uint32_t><<<blocks, 256, 0, stream>>>((uint32_t *)keys, n, key, descending, false);
    else
      sort_map_kernel<uint64_t><<<blocks, 256, 0, stream>>>((uint64_t *)keys, n, key, descending, false);
    st = tsi_cuda_check_launch(ctx, "ts_sort_execute (key unmap)");
  }
  return st;
}
