/* The CUDA backend of ts_sort_execute: a stable comparison merge sort of keys
 * mapped to ordered unsigned integers.
 *
 * 1. Block sort (after the base case of Karsin et al., "Analysis-driven
 *    engineering of comparison-based sorting algorithms on GPUs", ICS 2018,
 *    section 4): each block loads a tile of THREADS * ITEMS keys (1,024 threads
 *    for keys alone, 512 with values: four or two merge tiles), each thread
 *    sorts ITEMS keys in registers (keys alone: Batcher's odd-even merge
 *    sort network of min and max; with values: odd-even transposition, where
 *    only out-of-order neighbours swap, so it is stable), then the block
 *    merges runs of ITEMS, 2 ITEMS, ... keys in shared memory, every thread
 *    making ITEMS outputs from its merge-path split. ITEMS is odd, so that
 *    thread t's accesses to word t * ITEMS + j fall in distinct banks across
 *    a warp.
 * 2. Merge passes in global memory, by default K-way (the multiway merge of
 *    Karsin et al., section 5): each pass merges groups of K sorted runs, so
 *    that about log_K(n / tile) passes replace ceil(log2(n / tile)); a pass
 *    with fewer than log2(K) levels of merging left takes a smaller K. A
 *    partition kernel finds, for the first output of every tile, how many
 *    keys each of the K runs gives to the outputs before it (sort_kway_split.h,
 *    one lane per run); the merge kernel lays the K slices of the tile side
 *    by side in shared memory (coalesced, every load of a thread in flight
 *    at once) and merges them there in log2(K) rounds of
 *    pairwise merge path, lower runs first on ties, before one coalesced
 *    store.
 *    The pairwise passes (Odeh et al., "Merge Path", IPDPSW 2012: a
 *    partition kernel per output tile, then the tile's two pieces merged in
 *    shared memory as in 1) stay for comparison (plan->merge_ways == 2).
 * The output of each pass lands in the keys buffer or in the workspace so
 * that the last one writes the keys buffer: no final copy. The key map to
 * ordered integers (and the index values) is applied as the block sort loads
 * the keys, and the map back as the last kernel stores them (unsigned
 * ascending needs neither). */
#include "core/cuda_arch_limits.cuh"
#include "sort/sort_internal.h"
#include "sort/sort_kway_split.h"
#include "sort/sort_tuning.h"

#include <cuda_runtime.h>

#include <utility>

/* Items per thread by key width (sort_tuning.h). */
template <typename K> struct sort_items;
template <> struct sort_items<uint32_t> { static constexpr int value = TSI_SORT_ITEMS_KEY32; };
template <> struct sort_items<uint64_t> { static constexpr int value = TSI_SORT_ITEMS_KEY64; };

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

/* Merge count (at most ITEMS) outputs of two sorted lists that lie side by
 * side in shared memory, a = [ai, a_end) and b = [bi, b_end) with a_end <=
 * bi, into registers, a first on ties. Branch-free, one shared load of the
 * next key an output (after CUB's SerialMerge): reads stay at or below
 * last, the highest index that holds data (CLAMP), or the caller has
 * memory one key past b_end (not CLAMP). */
template <typename K, typename V, bool HAS_V, int ITEMS, bool CLAMP = true>
__device__ __forceinline__ void serial_merge(const K *s_keys, const V *s_values, int ai, int a_end, int bi, int b_end,
                                             int last, int count, K (&keys)[ITEMS], V (&values)[ITEMS]) {
  K ka = s_keys[CLAMP ? min(ai, last) : ai], kb = s_keys[CLAMP ? min(bi, last) : bi];
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    if (j < count) {
      bool take_b = bi < b_end && (ai >= a_end || kb < ka);
      keys[j] = take_b ? kb : ka;
      if constexpr (HAS_V)
        values[j] = s_values[take_b ? bi : ai];
      bi += take_b;
      ai += !take_b;
      K next = s_keys[CLAMP ? min(take_b ? bi : ai, last) : take_b ? bi : ai];
      ka = take_b ? ka : next;
      kb = take_b ? next : kb;
    }
  }
}

/* Odd-even merge sort network (Batcher 1968, in Knuth's iterative form) of
 * n inputs: the index-th comparator, or the number of comparators when
 * index is past them. Evaluated at compile time. */
struct network_comparator {
  int low, high, count;
};
__host__ __device__ constexpr network_comparator batcher_comparator(int n, int index) {
  int c = 0;
  for (int p = 1; p < n; p += p)
    for (int k = p; k >= 1; k /= 2)
      for (int j = k % p; j + k < n; j += 2 * k)
        for (int i = 0; i < k && i + j + k < n; i++)
          if ((i + j) / (p * 2) == (i + j + k) / (p * 2)) {
            if (c == index)
              return {i + j, i + j + k, c};
            c++;
          }
  return {0, 0, c};
}

template <int ITEMS> __host__ __device__ constexpr int network_inputs() {
  int n = 1;
  while (n < ITEMS)
    n *= 2;
  return n;
}

/* A comparator that touches the padding (inputs ITEMS and up, all above
 * every key) never moves anything: left out. */
template <typename K, int ITEMS, int C> __device__ __forceinline__ void network_step(K (&keys)[ITEMS]) {
  constexpr network_comparator c = batcher_comparator(network_inputs<ITEMS>(), C);
  if constexpr (c.high < ITEMS && c.low < c.high) {
    K a = keys[c.low], b = keys[c.high];
    keys[c.low] = a < b ? a : b;
    keys[c.high] = a < b ? b : a;
  }
}

template <typename K, int ITEMS, int... C>
__device__ __forceinline__ void network_apply(K (&keys)[ITEMS], std::integer_sequence<int, C...>) {
  (network_step<K, ITEMS, C>(keys), ...);
}

/* ITEMS keys in registers sorted by the network above, padded to a power of
 * two: min and max, no branches; not stable, so for keys alone. */
template <typename K, int ITEMS> __device__ __forceinline__ void network_sort(K (&keys)[ITEMS]) {
  constexpr int comparators = batcher_comparator(network_inputs<ITEMS>(), 1 << 30).count;
  network_apply<K, ITEMS>(keys, std::make_integer_sequence<int, comparators>{});
}

/* What the first load and the last store do to keys: the map to ordered
 * integers (in) or back (out), and index values made on the first load. */
struct sort_transform {
  ts_sort_key key;
  bool descending;
  bool map_in, map_out, make_index;
};

template <typename K> __device__ __forceinline__ K map_key(K k, const sort_transform &t, bool to_ordered) {
  if constexpr (sizeof(K) == 4)
    return tsi_sort_map32(k, t.key, t.descending, to_ordered);
  else
    return tsi_sort_map64(k, t.key, t.descending, to_ordered);
}

/* Keys past the block sort's tile: the merges read one key past a list
 * that ran out (never taken) without a bound check; 16 bytes keep the
 * values after the keys aligned. */
template <typename K> __host__ __device__ constexpr int block_pad() { return 16 / (int)sizeof(K); }

/* A tile from global into shared memory, key i at s_keys[i], CHUNK keys
 * (and values) of a thread in flight at once: a loop that stores each key
 * to shared memory as it loads it waits on one global round trip per key,
 * since the compiler may not move a global load past a shared store. Keys
 * are mapped to ordered integers; positions past count get the largest
 * key. CHUNK is what the kernel's register cap holds without spilling. */
template <typename K, typename V, bool HAS_V, int THREADS, int ITEMS, int CHUNK>
__device__ __forceinline__ void load_tile(const K *in_keys, const V *in_values, int64_t start, int count,
                                          const sort_transform &t, K *s_keys, V *s_values) {
  int tid = threadIdx.x;
#pragma unroll
  for (int c = 0; c < ITEMS; c += CHUNK) {
    K keys[CHUNK];
    V values[CHUNK];
#pragma unroll
    for (int j = 0; j < CHUNK && c + j < ITEMS; j++) {
      int i = tid + (c + j) * THREADS;
      keys[j] = i < count ? in_keys[start + i] : ~K(0);
      if constexpr (HAS_V)
        values[j] = i >= count ? V(0) : t.make_index ? V(start + i) : in_values[start + i];
    }
#pragma unroll
    for (int j = 0; j < CHUNK && c + j < ITEMS; j++) {
      int i = tid + (c + j) * THREADS;
      s_keys[i] = t.map_in && i < count ? map_key(keys[j], t, true) : keys[j];
      if constexpr (HAS_V)
        s_values[i] = values[j];
    }
  }
}

/* Threads of the block sort: a larger tile than the merge passes' (more
 * levels at the block sort's cost, fewer global ones); the blocks an SM is
 * asked to hold and the loads a thread keeps in flight are the policy's
 * (sort_tuning.h). */
template <typename K, typename V, bool HAS_V> struct block_threads {
  typedef tsi_sort_arch_policy policy;
  static constexpr int value = HAS_V ? TSI_SORT_BLOCK_THREADS_PAIRS : TSI_SORT_BLOCK_THREADS_KEYS;
  static constexpr int per_sm =
      HAS_V ? (sizeof(K) + sizeof(V) == 8 ? policy::pairs8_min_blocks : policy::pairs_min_blocks)
            : (sizeof(K) == 4 ? policy::keys32_min_blocks : policy::keys64_min_blocks);
  static constexpr int load_chunk = HAS_V ? policy::pairs_load_chunk : policy::keys_load_chunk;
};

template <typename K, typename V, bool HAS_V, int THREADS>
__global__ void __launch_bounds__(THREADS, tsi_min_blocks_per_sm(THREADS, block_threads<K, V, HAS_V>::per_sm))
    sort_block_kernel(const K *in_keys, const V *in_values, K *out_keys, V *out_values, int64_t n, sort_transform t) {
  constexpr int ITEMS = sort_items<K>::value, TILE = THREADS * ITEMS;
  extern __shared__ __align__(16) unsigned char sort_shared[];
  K *s_keys = reinterpret_cast<K *>(sort_shared);
  V *s_values = reinterpret_cast<V *>(s_keys + TILE + block_pad<K>());
  int tid = threadIdx.x;
  int64_t start = (int64_t)blockIdx.x * TILE;
  int count = n - start < TILE ? (int)(n - start) : TILE;
  /* Missing keys of the last tile become the largest key: they sort after
   * every real one (after equal ones too, being later) and are not stored. */
  load_tile<K, V, HAS_V, THREADS, ITEMS, block_threads<K, V, HAS_V>::load_chunk>(in_keys, in_values, start, count, t,
                                                                                 s_keys, s_values);
  __syncthreads();
  K keys[ITEMS];
  V values[ITEMS];
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    keys[j] = s_keys[tid * ITEMS + j];
    if constexpr (HAS_V)
      values[j] = s_values[tid * ITEMS + j];
  }
  if constexpr (HAS_V) {
    /* Odd-even transposition: only out-of-order neighbours swap, stable. */
#pragma unroll
    for (int round = 0; round < ITEMS; round++) {
#pragma unroll
      for (int j = round & 1; j + 1 < ITEMS; j += 2) {
        if (keys[j + 1] < keys[j]) {
          K k = keys[j];
          keys[j] = keys[j + 1];
          keys[j + 1] = k;
          V v = values[j];
          values[j] = values[j + 1];
          values[j + 1] = v;
        }
      }
    }
  } else {
    network_sort<K, ITEMS>(keys);
  }
  for (int group = 2; group <= THREADS; group *= 2) {
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
    serial_merge<K, V, HAS_V, ITEMS, false>(s_keys, s_values, first + ai, first + width, first + width + diag - ai,
                                            first + 2 * width, TILE, ITEMS, keys, values);
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    s_keys[tid * ITEMS + j] = keys[j];
    if constexpr (HAS_V)
      s_values[tid * ITEMS + j] = values[j];
  }
  __syncthreads();
  for (int i = tid; i < count; i += THREADS) {
    out_keys[start + i] = t.map_out ? map_key(s_keys[i], t, false) : s_keys[i];
    if constexpr (HAS_V)
      out_values[start + i] = s_values[i];
  }
}

/* ---- pairwise merge passes ------------------------------------------------ */

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
__global__ void __launch_bounds__(TSI_SORT_MERGE_THREADS)
    sort_merge_kernel(const K *in_keys, const V *in_values, K *out_keys, V *out_values, int64_t n, int64_t width,
                      const int64_t *splits, sort_transform t) {
  constexpr int ITEMS = sort_items<K>::value, TILE = TSI_SORT_MERGE_THREADS * ITEMS;
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
  for (int i = tid; i < total; i += TSI_SORT_MERGE_THREADS) {
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
    serial_merge<K, V, HAS_V, ITEMS>(s_keys, s_values, ai, na, na + diag - ai, total, total - 1, count, keys, values);
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
  for (int i = tid; i < total; i += TSI_SORT_MERGE_THREADS) {
    out_keys[d0 + i] = t.map_out ? map_key(s_keys[i], t, false) : s_keys[i];
    if constexpr (HAS_V)
      out_values[d0 + i] = s_values[i];
  }
}

/* ---- K-way merge passes ---------------------------------------------------- */

__device__ __forceinline__ int64_t run_upper(const uint32_t *run, int64_t lo, int64_t hi, uint32_t v, uint32_t a,
                                             uint32_t b) {
  return tsi_sort_kway_split32_upper(run, lo, hi, v, a, b);
}
__device__ __forceinline__ int64_t run_upper(const uint64_t *run, int64_t lo, int64_t hi, uint64_t v, uint64_t a,
                                             uint64_t b) {
  return tsi_sort_kway_split64_upper(run, lo, hi, v, a, b);
}
__device__ __forceinline__ tsi_sort_kway_split32_probe_pair split_probes(uint32_t lo, uint32_t hi, int64_t below,
                                                                         int64_t upto, int64_t rank, int interpolate) {
  return tsi_sort_kway_split32_probes(lo, hi, below, upto, rank, interpolate);
}
__device__ __forceinline__ tsi_sort_kway_split64_probe_pair split_probes(uint64_t lo, uint64_t hi, int64_t below,
                                                                         int64_t upto, int64_t rank, int interpolate) {
  return tsi_sort_kway_split64_probes(lo, hi, below, upto, rank, interpolate);
}

template <int WAYS, typename T> __device__ __forceinline__ T ways_sum(T v, unsigned mask) {
#pragma unroll
  for (int o = 1; o < WAYS; o *= 2)
    v += __shfl_xor_sync(mask, v, o, WAYS);
  return v;
}

/* The sum of v over the lanes of the group below this one (lane: the
 * lane's place in its group of WAYS). */
template <int WAYS, typename T> __device__ __forceinline__ T ways_exclusive_sum(T v, unsigned mask, int lane) {
  T inclusive = v;
#pragma unroll
  for (int o = 1; o < WAYS; o *= 2) {
    T other = __shfl_up_sync(mask, inclusive, o, WAYS);
    if (lane >= o)
      inclusive += other;
  }
  return inclusive - v;
}

/* For every tile b, the position in keys where each of the K runs of its
 * group starts contributing to it: splits[b * K + i]. WAYS consecutive lanes
 * share a tile, lane i of them owns run i; it is the search of
 * sort_kway_split.h with the per-run loops spread over the lanes (the sums
 * by shuffles), so the K binary searches of a step run side by side. */
template <typename K, int WAYS>
__global__ void sort_kway_partition_kernel(const K *keys, int64_t n, int64_t width, int64_t tile, int64_t tiles,
                                           int64_t *splits) {
  int64_t gid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t b = gid / WAYS;
  int run = (int)(gid % WAYS);
  unsigned mask = ((1u << WAYS) - 1u) << (threadIdx.x % 32 / WAYS * WAYS);
  int64_t rank = 0, start = 0, len = 0;
  if (b < tiles) {
    int64_t d = b * tile, group = WAYS * width, base = d / group * group;
    start = base + run * width < n ? base + run * width : n;
    len = n - start < width ? n - start : width;
    rank = d - base;
  }
  const K *r = keys + start;
  K lo = len > 0 ? r[0] : ~K(0), hi = len > 0 ? r[len - 1] : K(0);
#pragma unroll
  for (int o = 1; o < WAYS; o *= 2) {
    K other_lo = __shfl_xor_sync(mask, lo, o, WAYS), other_hi = __shfl_xor_sync(mask, hi, o, WAYS);
    lo = other_lo < lo ? other_lo : lo;
    hi = other_hi > hi ? other_hi : hi;
  }
  int64_t below = 0, upto = len;
  int64_t sum_below = 0, sum_upto = ways_sum<WAYS>(len, mask);
  for (int interpolate = 1; lo < hi && sum_below != rank && sum_upto != rank;) {
    auto probe = split_probes(lo, hi, sum_below, sum_upto, rank, interpolate);
    K p1 = probe.low, p2 = probe.high;
    /* The two searches are independent: their loads overlap. */
    int64_t c1 = run_upper(r, below, upto, p1, lo, hi);
    int64_t c2 = p2 == p1 ? c1 : run_upper(r, below, upto, p2, lo, hi);
    int64_t s1 = ways_sum<WAYS>(c1, mask), s2 = ways_sum<WAYS>(c2, mask);
    bool low = s1 >= rank, mid = !low && s2 >= rank;
    below = low ? below : mid ? c1 : c2;
    upto = low ? c1 : mid ? c2 : upto;
    sum_below = low ? sum_below : mid ? s1 : s2;
    sum_upto = low ? s1 : mid ? s2 : sum_upto;
    K span = K(hi - lo);
    lo = low ? lo : mid ? K(p1 + 1) : K(p2 + 1);
    hi = low ? p1 : mid ? p2 : hi;
    interpolate = K(hi - lo) <= span / 2; /* else bisect next */
  }
  /* Equal keys of lower runs come first: an exclusive prefix over the lanes. */
  int64_t equal = upto - below, before = ways_exclusive_sum<WAYS>(equal, mask, run);
  if (b < tiles)
    splits[b * WAYS + run] = start + below + tsi_sort_split_take(rank - sum_below, before, equal);
}

/* Merge count outputs of a = keys[ai, a_end) and b = keys[bi, b_end)
 * (shared memory, a_end <= bi), a first on ties, into out_keys[out, out +
 * count); branch-free as serial_merge, reads at or below last. */
template <typename K, typename V, bool HAS_V>
__device__ __forceinline__ void merge_into(const K *keys, const V *values, int ai, int a_end, int bi, int b_end,
                                           int last, K *out_keys, V *out_values, int out, int count) {
  K ka = keys[min(ai, last)], kb = keys[min(bi, last)];
  for (int j = 0; j < count; j++) {
    bool take_b = bi < b_end && (ai >= a_end || kb < ka);
    out_keys[out + j] = take_b ? kb : ka;
    if constexpr (HAS_V)
      out_values[out + j] = values[take_b ? bi : ai];
    bi += take_b;
    ai += !take_b;
    K next = keys[min(take_b ? bi : ai, last)];
    ka = take_b ? ka : next;
    kb = take_b ? next : kb;
  }
}

/* One output tile of a K-way pass: the K slices of the tile (from the
 * partition) are loaded one after the other into shared memory; round s
 * (s = 1, 2, 4, ...) merges neighbouring lists of s runs each, from one
 * shared buffer into the other, every thread making the ITEMS outputs from
 * t * ITEMS on (a thread's outputs may span several pairs of lists: each
 * piece has its own merge-path split). */
template <typename K, typename V, bool HAS_V, int WAYS>
__global__ void __launch_bounds__(TSI_SORT_MERGE_THREADS)
    sort_kway_merge_kernel(const K *in_keys, const V *in_values, K *out_keys, V *out_values, int64_t n, int64_t width,
                           const int64_t *splits, sort_transform t) {
  constexpr int ITEMS = sort_items<K>::value, TILE = TSI_SORT_MERGE_THREADS * ITEMS;
  extern __shared__ __align__(16) unsigned char sort_shared[];
  __shared__ int s_offset[WAYS + 1];
  __shared__ int64_t s_shift[WAYS];
  K *s_keys[2] = {reinterpret_cast<K *>(sort_shared), reinterpret_cast<K *>(sort_shared) + TILE};
  V *s_values[2] = {reinterpret_cast<V *>(s_keys[1] + TILE), reinterpret_cast<V *>(s_keys[1] + TILE) + TILE};
  int tid = threadIdx.x;
  int64_t b = blockIdx.x;
  int64_t d0 = b * TILE, d1 = d0 + TILE < n ? d0 + TILE : n;
  int64_t group = WAYS * width, base = d0 / group * group, group_end = base + group < n ? base + group : n;
  /* The slice of run i is [begin, end); the next tile's split ends it
   * unless this tile ends the group. Lane i of the first warp reads run i's
   * bounds; the slices lie one after the other in shared memory, slice i
   * from s_offset[i], and key p of the tile comes from keys[p + s_shift[i]]. */
  if (tid < WAYS) {
    int64_t run_end = base + (int64_t)(tid + 1) * width < n ? base + (int64_t)(tid + 1) * width : n;
    int64_t begin = splits[b * WAYS + tid];
    int64_t end = d1 == group_end ? (run_end > begin ? run_end : begin) : splits[(b + 1) * WAYS + tid];
    int length = (int)(end - begin), offset = ways_exclusive_sum<WAYS>(length, (1u << WAYS) - 1u, tid);
    s_offset[tid] = offset;
    s_shift[tid] = begin - offset;
    if (tid == WAYS - 1)
      s_offset[WAYS] = offset + length;
  }
  __syncthreads();
  int total = s_offset[WAYS], from = 0;
  {
    /* Every load of the thread's ITEMS keys in flight at once; its
     * positions rise with j, so the run only moves forward. */
    K keys[ITEMS];
    V values[ITEMS];
    int run = 0;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
      int p = tid + j * TSI_SORT_MERGE_THREADS;
      if (p < total) {
        while (p >= s_offset[run + 1])
          run++;
        int64_t src = p + s_shift[run];
        keys[j] = in_keys[src];
        if constexpr (HAS_V)
          values[j] = in_values[src];
      }
    }
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
      int p = tid + j * TSI_SORT_MERGE_THREADS;
      if (p < total) {
        s_keys[0][p] = keys[j];
        if constexpr (HAS_V)
          s_values[0][p] = values[j];
      }
    }
  }
  int p0 = tid * ITEMS, p1 = p0 + ITEMS < total ? p0 + ITEMS : total;
#pragma unroll
  for (int span = 1; span < WAYS; span *= 2) {
    __syncthreads();
    const K *sk = s_keys[from];
    const V *sv = s_values[from];
    for (int p = p0; p < p1;) {
      int first = 0; /* first run of the pair of lists that holds output p */
      while (p >= s_offset[first + 2 * span])
        first += 2 * span;
      int a0 = s_offset[first], a1 = s_offset[first + span], b1 = s_offset[first + 2 * span];
      int q = p1 < b1 ? p1 : b1, diag = p - a0;
      int ai = merge_corank(sk + a0, a1 - a0, sk + a1, b1 - a1, diag);
      merge_into<K, V, HAS_V>(sk, sv, a0 + ai, a1, a1 + diag - ai, b1, total - 1, s_keys[from ^ 1], s_values[from ^ 1],
                              p, q - p);
      p = q;
    }
    from ^= 1;
  }
  __syncthreads();
  for (int i = tid; i < total; i += TSI_SORT_MERGE_THREADS) {
    K k = s_keys[from][i];
    out_keys[d0 + i] = t.map_out ? map_key(k, t, false) : k;
    if constexpr (HAS_V)
      out_values[d0 + i] = s_values[from][i];
  }
}

/* ---- driver ------------------------------------------------------------------ */

/* Dynamic shared memory of the block sort: its tile of keys (and the pad
 * past it), then its values. */
template <typename K, typename V, bool HAS_V> static size_t block_sort_shared() {
  constexpr int TILE = block_threads<K, V, HAS_V>::value * sort_items<K>::value;
  return (size_t)(TILE + block_pad<K>()) * sizeof(K) + (HAS_V ? (size_t)TILE * sizeof(V) : 0);
}

/* Dynamic shared memory of a K-way merge: two tile buffers, above the 48 KiB
 * a block gets without opting in. */
template <typename K, typename V, bool HAS_V> static size_t kway_merge_shared() {
  constexpr int TILE = TSI_SORT_MERGE_THREADS * sort_items<K>::value;
  return 2 * (size_t)TILE * (sizeof(K) + (HAS_V ? sizeof(V) : 0));
}

static int64_t tile_of(size_t key_size) {
  return key_size == 4 ? TSI_SORT_MERGE_THREADS * sort_items<uint32_t>::value
                       : TSI_SORT_MERGE_THREADS * sort_items<uint64_t>::value;
}

extern "C" size_t tsi_sort_cuda_scratch_bytes(int64_t max_n, size_t key_size, size_t value_size) {
  (void)value_size;
  int64_t tile = tile_of(key_size);
  /* K splits per tile boundary (the pairwise passes use one). */
  return tsi_sort_align((size_t)((max_n + tile - 1) / tile + 1) * TSI_SORT_MAX_WAYS * sizeof(int64_t));
}

/* Swap the roles of the two key (and value) buffers after a pass. */
template <typename K, typename V> static void swap_buffers(K **a, K **b, V **va, V **vb) {
  K *k = *a;
  *a = *b;
  *b = k;
  V *v = *va;
  *va = *vb;
  *vb = v;
}

/* The merge of every group of WAYS runs of @p width from src to dst: the
 * partition, then the merge (pairwise for WAYS = 2, K-way otherwise). */
template <typename K, typename V, bool HAS_V, int WAYS>
static ts_status merge_pass(ts_context *ctx, int64_t n, int64_t width, const K *src_keys, const V *src_values,
                            K *dst_keys, V *dst_values, int64_t *splits, sort_transform t) {
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  constexpr int ITEMS = sort_items<K>::value, TILE = TSI_SORT_MERGE_THREADS * ITEMS;
  int64_t tiles = (n + TILE - 1) / TILE;
  if constexpr (WAYS == 2) {
    size_t shared = (size_t)TILE * (sizeof(K) + (HAS_V ? sizeof(V) : 0));
    int64_t boundaries = tiles + 1;
    constexpr int threads = TSI_SORT_PARTITION_THREADS;
    sort_partition_kernel<K><<<(unsigned)((boundaries + threads - 1) / threads), threads, 0, stream>>>(
        src_keys, n, width, TILE, boundaries, splits);
    ts_status st = tsi_cuda_check_launch(ctx, "ts_sort_execute (merge partition)");
    if (st != TS_SUCCESS)
      return st;
    sort_merge_kernel<K, V, HAS_V><<<(unsigned)tiles, TSI_SORT_MERGE_THREADS, shared, stream>>>(
        src_keys, src_values, dst_keys, dst_values, n, width, splits, t);
    return tsi_cuda_check_launch(ctx, "ts_sort_execute (merge pass)");
  } else {
    /* Its shared memory was opted in at plan creation (tsi_sort_cuda_prepare). */
    auto merge = sort_kway_merge_kernel<K, V, HAS_V, WAYS>;
    size_t shared = kway_merge_shared<K, V, HAS_V>();
    int64_t lanes = tiles * WAYS;
    constexpr int threads = TSI_SORT_KWAY_PARTITION_THREADS;
    sort_kway_partition_kernel<K, WAYS>
        <<<(unsigned)((lanes + threads - 1) / threads), threads, 0, stream>>>(src_keys, n, width, TILE, tiles, splits);
    ts_status st = tsi_cuda_check_launch(ctx, "ts_sort_execute (K-way partition)");
    if (st != TS_SUCCESS)
      return st;
    merge<<<(unsigned)tiles, TSI_SORT_MERGE_THREADS, shared, stream>>>(src_keys, src_values, dst_keys, dst_values, n,
                                                                       width, splits, t);
    return tsi_cuda_check_launch(ctx, "ts_sort_execute (K-way merge pass)");
  }
}

/* Runs merged by the next pass: the plan's K while at least log2(K) levels
 * of pairwise merging are left, then fewer, so that no pass merges fewer
 * runs than it pays for (a K-way pass costs log2(K) shared-memory rounds). */
static int pass_ways(int plan_ways, int64_t width, int64_t n) {
  int levels = 0;
  for (int64_t w = width; w < n; w *= 2)
    levels++;
  int ways = plan_ways;
  while (ways > 2 && (1 << levels) < ways)
    ways /= 2;
  return ways;
}

template <typename K, typename V, bool HAS_V>
static ts_status sort_run(const ts_sort_plan *plan, int64_t n, K *keys, V *values, void *workspace) {
  ts_context *ctx = plan->ctx;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  constexpr int ITEMS = sort_items<K>::value, THREADS = block_threads<K, V, HAS_V>::value, BLOCK_TILE = THREADS * ITEMS;
  size_t max_n = (size_t)plan->options.max_n;
  char *w = (char *)workspace;
  K *alt_keys = (K *)w;
  V *alt_values = (V *)(w + tsi_sort_align(max_n * sizeof(K)));
  int64_t *splits = (int64_t *)(w + tsi_sort_align(max_n * sizeof(K)) + tsi_sort_align(max_n * plan->value_size));
  size_t shared = block_sort_shared<K, V, HAS_V>();
  int64_t blocks = (n + BLOCK_TILE - 1) / BLOCK_TILE;
  int passes = 0;
  for (int64_t width = BLOCK_TILE; width < n; width *= pass_ways(plan->merge_ways, width, n))
    passes++;

  sort_transform t;
  t.key = plan->options.key;
  t.descending = plan->options.order == TS_SORT_DESCENDING;
  t.map_in = tsi_sort_needs_map(t.key, plan->options.order);
  t.make_index = plan->options.value == TS_SORT_VALUE_INDEX;
  sort_transform block = t;
  block.map_out = t.map_in && passes == 0;
  t.map_out = false;

  K *src_keys = passes % 2 == 0 ? keys : alt_keys, *dst_keys = passes % 2 == 0 ? alt_keys : keys;
  V *src_values = passes % 2 == 0 ? values : alt_values, *dst_values = passes % 2 == 0 ? alt_values : values;
  /* The block sort reads the caller's keys and writes where pass 0 reads
   * (in place is safe: a block reads its whole tile before writing). */
  sort_block_kernel<K, V, HAS_V, THREADS>
      <<<(unsigned)blocks, THREADS, shared, stream>>>(keys, values, src_keys, src_values, n, block);
  ts_status st = tsi_cuda_check_launch(ctx, "ts_sort_execute (block sort)");
  for (int64_t width = BLOCK_TILE; st == TS_SUCCESS && width < n;) {
    int ways = pass_ways(plan->merge_ways, width, n);
    sort_transform pass = t;
    pass.map_out = t.map_in && width * ways >= n; /* the last pass maps the keys back */
    if (ways == 2)
      st = merge_pass<K, V, HAS_V, 2>(ctx, n, width, src_keys, src_values, dst_keys, dst_values, splits, pass);
    else if (ways == 4)
      st = merge_pass<K, V, HAS_V, 4>(ctx, n, width, src_keys, src_values, dst_keys, dst_values, splits, pass);
    else
      st = merge_pass<K, V, HAS_V, 8>(ctx, n, width, src_keys, src_values, dst_keys, dst_values, splits, pass);
    swap_buffers(&src_keys, &dst_keys, &src_values, &dst_values);
    width *= ways;
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
  ts_status st = tsi_cuda_activate(plan->ctx);
  if (st != TS_SUCCESS)
    return st;
  return plan->key_size == 4 ? sort_keys_of<uint32_t>(plan, n, (uint32_t *)keys, values, workspace)
                             : sort_keys_of<uint64_t>(plan, n, (uint64_t *)keys, values, workspace);
}

/* Opt the kernel in to `shared` bytes of dynamic shared memory. */
template <typename Kernel>
static ts_status allow_shared(ts_context *ctx, Kernel kernel, size_t shared, const char *what) {
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
  if (e != cudaSuccess)
    return tsi_cuda_error(ctx, e, "ts_sort_plan_create: shared memory of %zu bytes for the %s", shared, what);
  return TS_SUCCESS;
}

/* At plan creation: the shared-memory opt-ins of the kernels that the
 * plan's executions launch (the block sort, and the K-way merges its passes
 * may take), so that an execution sets nothing on the device. */
template <typename K, typename V, bool HAS_V> static ts_status prepare_kernels(const ts_sort_plan *plan) {
  ts_context *ctx = plan->ctx;
  constexpr int THREADS = block_threads<K, V, HAS_V>::value;
  ts_status st =
      allow_shared(ctx, sort_block_kernel<K, V, HAS_V, THREADS>, block_sort_shared<K, V, HAS_V>(), "block sort");
  if (st == TS_SUCCESS && plan->merge_ways >= 4)
    st = allow_shared(ctx, sort_kway_merge_kernel<K, V, HAS_V, 4>, kway_merge_shared<K, V, HAS_V>(), "merge");
  if (st == TS_SUCCESS && plan->merge_ways >= 8)
    st = allow_shared(ctx, sort_kway_merge_kernel<K, V, HAS_V, 8>, kway_merge_shared<K, V, HAS_V>(), "merge");
  return st;
}

template <typename K> static ts_status prepare_keys_of(const ts_sort_plan *plan) {
  switch (plan->options.value) {
  case TS_SORT_VALUE_NONE:
    return prepare_kernels<K, uint32_t, false>(plan);
  case TS_SORT_VALUE_UINT64:
    return prepare_kernels<K, uint64_t, true>(plan);
  default:
    return prepare_kernels<K, uint32_t, true>(plan);
  }
}

extern "C" ts_status tsi_sort_cuda_prepare(const ts_sort_plan *plan) {
  ts_status st = tsi_cuda_activate(plan->ctx);
  if (st != TS_SUCCESS)
    return st;
  return plan->key_size == 4 ? prepare_keys_of<uint32_t>(plan) : prepare_keys_of<uint64_t>(plan);
}
