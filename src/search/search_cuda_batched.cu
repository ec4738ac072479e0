/* Many small searches in shared memory, one block per array (grid-stride
 * over the arrays): the block copies its array's keys to shared memory and
 * its threads search the array's queries there.
 *
 * Naive: binary search of the sorted copy. Its first probes fall on
 * positions n/2, n/4 +- n/2, ...: multiples of a large power of two, hence
 * the same bank, so a warp's 32 searches serialise on the top levels.
 *
 * Conflict-limited (after Karsin, Casanova and Sitchinava, "Efficient
 * batched predecessor search in shared memory on GPUs"; the layout is our
 * choice): the keys go to Eytzinger (breadth-first) order of a perfect tree,
 * padded with the largest value. Depth d occupies the 2^d consecutive words
 * from 2^d - 1, so depths 0 to 5 of a warp's searches touch at most 32
 * consecutive words (no conflict, or a broadcast); only deeper, random
 * probes can conflict. Same work as binary search; the rank is the path.
 * Each thread descends for several queries at once, so that its chains of
 * dependent shared-memory probes overlap: with one query a thread the SM
 * waited on them (search-batched-h200.md). */
#include "search/search_cuda_kernel.cuh"

constexpr int block_threads = TSI_SEARCH_BATCHED_THREADS;
/* Queries a thread of the conflict-limited search has in flight. */
constexpr int conflict_limited_queries = TSI_SEARCH_CONFLICT_LIMITED_QUERIES;

template <ts_key_type T, bool ConflictLimited>
__global__ void __launch_bounds__(block_threads)
    search_batched_kernel(const typename tsi_key<T>::Raw *__restrict__ keys, int64_t arrays, int n, int height,
                          const typename tsi_key<T>::Raw *__restrict__ queries, int64_t m,
                          int32_t *__restrict__ results, bool upper) {
  typedef typename tsi_key<T>::Bits Bits;
  extern __shared__ uint4 shared_raw[];
  Bits *s = (Bits *)shared_raw;
  const int slots = (1 << height) - 1;
  for (int64_t a = blockIdx.x; a < arrays; a += gridDim.x) {
    const typename tsi_key<T>::Raw *k = keys + a * n;
    if (ConflictLimited) {
      for (int i = threadIdx.x; i < slots; i += block_threads) {
        unsigned j = (unsigned)i + 1;
        int tz = __ffs(j) - 1;
        int index = (1 << (height - 1 - tz)) - 1 + (int)(j >> (tz + 1));
        s[index] = i < n ? tsi_key<T>::order(k[i]) : (Bits) ~(Bits)0;
      }
    } else {
      for (int i = threadIdx.x; i < n; i += block_threads)
        s[i] = tsi_key<T>::order(k[i]);
    }
    __syncthreads();
    if (ConflictLimited) {
      constexpr int Q = conflict_limited_queries;
      for (int64_t j0 = threadIdx.x; j0 < m; j0 += (int64_t)block_threads * Q) {
        Bits q[Q];
        bool all[Q];
        int node[Q];
#pragma unroll
        for (int u = 0; u < Q; u++) {
          const int64_t j = j0 + (int64_t)u * block_threads;
          all[u] = true;
          q[u] = j < m ? tsi_prepare_query<Bits>(tsi_key<T>::order(queries[a * m + j]), upper, &all[u]) : (Bits)0;
          node[u] = 0;
        }
        for (int d = 0; d < height; d++)
#pragma unroll
          for (int u = 0; u < Q; u++)
            node[u] = 2 * node[u] + 1 + (s[node[u]] < q[u]);
#pragma unroll
        for (int u = 0; u < Q; u++) {
          const int64_t j = j0 + (int64_t)u * block_threads;
          if (j < m)
            results[a * m + j] = all[u] ? n : node[u] - slots;
        }
      }
    } else {
      for (int64_t j = threadIdx.x; j < m; j += block_threads) {
        bool all;
        Bits q = tsi_prepare_query<Bits>(tsi_key<T>::order(queries[a * m + j]), upper, &all);
        int lo = 0, len = n;
        while (len > 0) {
          int half = len >> 1;
          if (s[lo + half] < q) {
            lo += half + 1;
            len -= half + 1;
          } else {
            len = half;
          }
        }
        results[a * m + j] = all ? n : lo;
      }
    }
    __syncthreads(); /* the next array overwrites the keys */
  }
}

template <ts_key_type T>
static cudaError_t launch_typed(bool conflict_limited, bool upper, const void *keys, int64_t arrays, int n,
                                const void *queries, int64_t m, int32_t *results, cudaStream_t stream) {
  typedef typename tsi_key<T>::Bits Bits;
  typedef typename tsi_key<T>::Raw Raw;
  int height = tsi_search_eytzinger_height(n);
  size_t shared = ((size_t)1 << height) * sizeof(Bits); /* room for the padded tree either way */
  int grid = arrays > TSI_SEARCH_BATCHED_MAX_GRID ? TSI_SEARCH_BATCHED_MAX_GRID : (int)arrays;
  if (conflict_limited)
    search_batched_kernel<T, true><<<grid, block_threads, shared, stream>>>((const Raw *)keys, arrays, n, height,
                                                                            (const Raw *)queries, m, results, upper);
  else
    search_batched_kernel<T, false><<<grid, block_threads, shared, stream>>>((const Raw *)keys, arrays, n, height,
                                                                             (const Raw *)queries, m, results, upper);
  return cudaGetLastError();
}

extern "C" ts_status tsi_search_cuda_batched(ts_context *ctx, ts_key_type type, ts_search_bound bound,
                                             ts_search_batched_algorithm algorithm, const void *keys, int64_t arrays,
                                             int64_t n, const void *queries, int64_t m, void *results) {
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  if (arrays == 0)
    return TS_SUCCESS;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  bool cl = algorithm == TS_SEARCH_BATCHED_CONFLICT_LIMITED, upper = bound == TS_BOUND_UPPER;
  cudaError_t err = cudaErrorInvalidValue;
  switch (type) {
  case TS_KEY_UINT32:
    err = launch_typed<TS_KEY_UINT32>(cl, upper, keys, arrays, (int)n, queries, m, (int32_t *)results, stream);
    break;
  case TS_KEY_INT32:
    err = launch_typed<TS_KEY_INT32>(cl, upper, keys, arrays, (int)n, queries, m, (int32_t *)results, stream);
    break;
  case TS_KEY_FLOAT32:
    err = launch_typed<TS_KEY_FLOAT32>(cl, upper, keys, arrays, (int)n, queries, m, (int32_t *)results, stream);
    break;
  case TS_KEY_UINT64:
    err = launch_typed<TS_KEY_UINT64>(cl, upper, keys, arrays, (int)n, queries, m, (int32_t *)results, stream);
    break;
  case TS_KEY_FLOAT64:
    err = launch_typed<TS_KEY_FLOAT64>(cl, upper, keys, arrays, (int)n, queries, m, (int32_t *)results, stream);
    break;
  }
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_search_batched: %s launch", ts_search_batched_algorithm_name(algorithm));
  return tsi_cuda_check_launch(ctx, "ts_search_batched");
}
