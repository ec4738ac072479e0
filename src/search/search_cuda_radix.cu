/* Radix-table search (the radix table of Kipf et al., "RadixSpline: a
 * single-pass learned index", aiDM 2020): the query's bits below the keys'
 * common prefix pick a bucket, whose table entry and the next bound the
 * answer; a binary search of the few keys between them finishes. A query
 * costs one table read (bound and count packed in a word below 2^16 keys)
 * and, in about one bucket of five, a probe or two, where a comparison search of
 * n keys takes log2(n) dependent probes, each a likely bank conflict in
 * shared memory. Each block copies the table, and the keys when they fit,
 * to shared memory once; each thread carries several queries, and loads
 * its next step's queries before it searches this step's. */
#include "search/search_cuda_kernel.cuh"

constexpr int block_threads = TSI_SEARCH_RADIX_THREADS;
constexpr int queries_per_thread = TSI_SEARCH_RADIX_QUERIES_PER_THREAD;
constexpr size_t shared_limit = TSI_SEARCH_RADIX_SHARED_LIMIT;

/* Queries and results move as packs of consecutive entries: a 16-byte load
 * carries four 4-byte queries, so a warp's load instruction covers 512
 * bytes, not 128. */
template <typename X, int N> struct alignas(N * sizeof(X) < 16 ? N * sizeof(X) : 16) radix_pack { X v[N]; };

/* The table entry of a prepared query: the answer lies in [*lo, *hi). */
template <typename Bits>
__device__ __forceinline__ void radix_bucket(const uint32_t *table, const tsi_search_radix &r, int64_t n, Bits q,
                                             bool all, uint32_t *lo, uint32_t *hi) {
  if (all || q > (Bits)r.high) { /* every key is below */
    *lo = *hi = (uint32_t)n;
  } else if (q <= (Bits)r.low) { /* no key is below */
    *lo = *hi = 0;
  } else {
    uint32_t b = (uint32_t)((q >> r.shift) - (Bits)r.base);
    uint32_t entry = table[b];
    *lo = r.packed ? entry & 0xffffu : entry;
    *hi = r.packed ? *lo + (entry >> 16) : table[b + 1];
  }
}

template <ts_key_type T, typename Index, int Pack>
__global__ void __launch_bounds__(block_threads)
    search_radix_kernel(const uint32_t *__restrict__ layout, tsi_search_radix r, int64_t n, bool keys_shared,
                        const typename tsi_key<T>::Raw *__restrict__ queries, int64_t count,
                        Index *__restrict__ results, bool upper) {
  typedef typename tsi_key<T>::Bits Bits;
  typedef typename tsi_key<T>::Raw Raw;
  typedef radix_pack<Raw, Pack> QueryPack;
  typedef radix_pack<Index, Pack> ResultPack;
  constexpr int packs_per_thread = queries_per_thread / Pack;
  extern __shared__ uint4 shared_raw[];
  uint32_t *table = (uint32_t *)shared_raw;
  const Bits *global_keys = (const Bits *)(layout + r.table_slots);
  for (int64_t i = threadIdx.x; i < r.table_slots; i += blockDim.x)
    table[i] = __ldg(layout + i);
  Bits *shared_keys = (Bits *)(table + r.table_slots); /* table_slots is whole 16 bytes */
  if (keys_shared)
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
      shared_keys[i] = __ldg(global_keys + i);
  __syncthreads();
  const Bits *keys = keys_shared ? shared_keys : global_keys;
  const QueryPack *query_packs = (const QueryPack *)queries;
  ResultPack *result_packs = (ResultPack *)results;
  const int64_t packs = count / Pack;
  const int64_t stride = (int64_t)gridDim.x * block_threads * packs_per_thread;
  int64_t first = (int64_t)blockIdx.x * block_threads * packs_per_thread + threadIdx.x;
  QueryPack raw[packs_per_thread]; /* this step's queries, loaded during the step before */
#pragma unroll
  for (int k = 0; k < packs_per_thread; k++) {
    int64_t i = first + k * block_threads;
    if (first < packs)
      raw[k] = query_packs[i < packs ? i : first];
  }
  for (; first < packs; first += stride) {
    QueryPack next[packs_per_thread];
    const int64_t following = first + stride;
#pragma unroll
    for (int k = 0; k < packs_per_thread; k++) { /* in flight while this step searches */
      int64_t i = following + k * block_threads;
      next[k] = following < packs ? query_packs[i < packs ? i : following] : raw[k];
    }
    uint32_t lo[queries_per_thread], hi[queries_per_thread];
    Bits q[queries_per_thread];
#pragma unroll
    for (int k = 0; k < queries_per_thread; k++) {
      bool all;
      q[k] = tsi_prepare_query<Bits>(tsi_key<T>::order(raw[k / Pack].v[k % Pack]), upper, &all);
      radix_bucket<Bits>(table, r, n, q[k], all, &lo[k], &hi[k]);
    }
    bool searching = true;
    while (searching) { /* the queries' bisections step together */
      searching = false;
#pragma unroll
      for (int k = 0; k < queries_per_thread; k++) {
        if (lo[k] < hi[k]) {
          uint32_t mid = lo[k] + (hi[k] - lo[k]) / 2;
          if (keys[mid] < q[k])
            lo[k] = mid + 1;
          else
            hi[k] = mid;
          searching = searching || lo[k] < hi[k];
        }
      }
    }
#pragma unroll
    for (int k = 0; k < packs_per_thread; k++) {
      int64_t i = first + k * block_threads;
      if (i < packs) {
        ResultPack out;
#pragma unroll
        for (int e = 0; e < Pack; e++)
          out.v[e] = (Index)lo[k * Pack + e];
        result_packs[i] = out;
      }
      raw[k] = next[k];
    }
  }
  /* The last count % Pack queries, one a thread. */
  const int64_t i = packs * Pack + threadIdx.x;
  if (blockIdx.x == 0 && i < count) {
    bool all;
    Bits qi = tsi_prepare_query<Bits>(tsi_key<T>::order(queries[i]), upper, &all);
    uint32_t lo1, hi1;
    radix_bucket<Bits>(table, r, n, qi, all, &lo1, &hi1);
    while (lo1 < hi1) {
      uint32_t mid = lo1 + (hi1 - lo1) / 2;
      if (keys[mid] < qi)
        lo1 = mid + 1;
      else
        hi1 = mid;
    }
    results[i] = (Index)lo1;
  }
}

template <ts_key_type T, typename Index> static cudaError_t launch_typed(const tsi_search_launch *l) {
  typedef typename tsi_key<T>::Bits Bits;
  typedef typename tsi_key<T>::Raw Raw;
  constexpr int pack = 16 / sizeof(Raw);
  const tsi_search_radix &r = l->radix;
  size_t table_bytes = (size_t)r.table_slots * sizeof(uint32_t);
  size_t keys_bytes = (size_t)l->tree.n * sizeof(Bits);
  bool keys_shared = table_bytes + keys_bytes <= shared_limit;
  size_t shared = table_bytes + (keys_shared ? keys_bytes : 0);
  const void *kernel = (const void *)search_radix_kernel<T, Index, pack>;
  if (l->blocks_per_sm)
    return tsi_search_occupancy(kernel, block_threads, shared, l);
  /* The buffers are whole allocations of ts_buffer_create (256-byte aligned). */
  if ((uintptr_t)l->queries % 16 != 0 || (uintptr_t)l->results % 16 != 0)
    return cudaErrorMisalignedAddress;
  int grid = tsi_search_resident_grid(l, (l->count + block_threads * queries_per_thread - 1) /
                                             (block_threads * queries_per_thread));
  search_radix_kernel<T, Index, pack>
      <<<grid, block_threads, shared, l->stream>>>((const uint32_t *)l->layout, r, l->tree.n, keys_shared,
                                                   (const Raw *)l->queries, l->count, (Index *)l->results, l->upper);
  return cudaGetLastError();
}

cudaError_t tsi_search_launch_radix(const tsi_search_launch *launch) { TSI_SEARCH_DISPATCH(launch_typed, launch); }
