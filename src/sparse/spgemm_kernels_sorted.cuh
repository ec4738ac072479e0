/* SpGEMM's sorted bins: rows of at most N products (N = 32, 64, 128) take
 * one warp each and no hash table. The warp expands the row's products into
 * shared memory in the order of A's entries (product j: the j-th in that
 * order), sorts them by column (bitonic, keys (column, j) in the numeric
 * phase), and reads each column's run in order: the symbolic phase counts
 * the runs, the numeric phase adds each run's products from the first, in
 * the order of A's entries, and writes the columns sorted. No atomics, no
 * partial sums: each entry's sum is the sequential one (the expand-sort-
 * compress scheme of Dalton, Olson and Bell, "Optimizing Sparse Matrix-Matrix
 * Multiplication for the GPU", ACM TOMS 41(4), 2015, done in one warp a row).
 * Host-emulated in tests/sparse/test_spgemm_kernels_emulated.cpp. */
#ifndef TESSERA_SPGEMM_KERNELS_SORTED_CUH
#define TESSERA_SPGEMM_KERNELS_SORTED_CUH

#include "spgemm_cuda_args.cuh"

/* Warps a block of the sorted bins' kernels. */
#define TSI_SPGEMM_SORTED_WARPS 8

__device__ inline int tsi_spgemm_warp_inclusive_sum(int x, int lane) {
  for (int d = 1; d < 32; d *= 2) {
    const int y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d)
      x += y;
  }
  return x;
}

__device__ inline int tsi_spgemm_warp_sum(int x) {
  for (int d = 16; d > 0; d /= 2)
    x += __shfl_xor_sync(0xffffffffu, x, d);
  return x;
}

/* The smallest power of two holding n keys (at least 2). */
__device__ inline int tsi_spgemm_sort_size(int n) {
  int size = 2;
  while (size < n)
    size *= 2;
  return size;
}

/* One warp's barrier, for tsi_spgemm_sort(). */
struct tsi_spgemm_warp_barrier {
  __device__ void operator()() const { __syncwarp(); }
};

/*
 * The products of `row` in the order of A's entries, by one warp: A's
 * entries 32 at a time, a lane each; the lengths of their rows of B scanned
 * into each entry's first product; then product j (a lane each) finds its
 * entry by binary search and calls put(j, ka, kb) for j < limit. first[32]
 * and b_at[32] are the warp's scratch in shared memory. Returns the row's
 * products (at most `limit` when the row was binned right).
 */
template <class T, class Put>
__device__ int tsi_spgemm_expand(const tsi_spgemm_args<T> &a, int64_t row, int lane, int limit, int *first,
                                 int64_t *b_at, const Put &put) {
  const int64_t begin = a.a_off[row], end = a.a_off[row + 1];
  int p = 0;
  for (int64_t chunk = begin; chunk < end; chunk += 32) {
    const int64_t ka = chunk + lane;
    int len = 0;
    int64_t bb = 0;
    if (ka < end) {
      const int64_t k = a.a_cols[ka];
      bb = a.b_off[k];
      const int64_t n = a.b_off[k + 1] - bb;
      len = n < limit ? (int)n : limit; /* a row of this bin has at most `limit` products */
    }
    const int incl = tsi_spgemm_warp_inclusive_sum(len, lane);
    const int total = __shfl_sync(0xffffffffu, incl, 31);
    first[lane] = p + incl - len;
    b_at[lane] = bb;
    __syncwarp();
    const int stop = p + total < limit ? p + total : limit;
    for (int j = p + lane; j < stop; j += 32) {
      int lo = 0, hi = 31; /* the last entry whose first product is at or before j */
      while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (first[mid] <= j)
          lo = mid;
        else
          hi = mid - 1;
      }
      put(j, chunk + lo, b_at[lo] + (j - first[lo]));
    }
    __syncwarp();
    p = p + total < limit ? p + total : limit;
  }
  return p;
}

/* Symbolic: the distinct columns of `row` (at most `limit` products, no
 * more than the N keys of shared memory hold), by one warp; first[32] and
 * b_at[32] are its scratch. Every lane returns the count. The analysis of
 * the rows (spgemm_cuda.cu) calls it for the rows of the sorted bins as soon
 * as it has counted their products. */
template <class T>
__device__ int tsi_spgemm_count_row(const tsi_spgemm_args<T> &a, int64_t row, int lane, int limit, int32_t *keys,
                                    int *first, int64_t *b_at) {
  const int p =
      tsi_spgemm_expand(a, row, lane, limit, first, b_at, [&](int j, int64_t, int64_t kb) { keys[j] = a.b_cols[kb]; });
  const int size = tsi_spgemm_sort_size(p);
  for (int s = p + lane; s < size; s += 32)
    keys[s] = TSI_SPGEMM_EMPTY;
  __syncwarp();
  tsi_spgemm_sort(keys, size, lane, 32, tsi_spgemm_warp_barrier{});
  int distinct = 0;
  for (int s = lane; s < p; s += 32)
    distinct += s == 0 || keys[s] != keys[s - 1];
  distinct = tsi_spgemm_warp_sum(distinct);
  __syncwarp(); /* the keys are read before the warp's next row writes them */
  return distinct;
}

/* Numeric: keys (column << 32 | j) sorted, each column's run added in the
 * order of j from its first product, the columns written sorted. */
template <class T, int N>
__global__ void __launch_bounds__(TSI_SPGEMM_SORTED_WARPS * 32) tsi_spgemm_fill_sorted(tsi_spgemm_args<T> a) {
  constexpr int W = TSI_SPGEMM_SORTED_WARPS;
  __shared__ unsigned long long keys_of[W][N];
  __shared__ T values_of[W][N];
  __shared__ int first_of[W][32];
  __shared__ int64_t b_at_of[W][32];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  unsigned long long *keys = keys_of[warp];
  T *values = values_of[warp];
  const int64_t warps = (int64_t)gridDim.x * W;
  for (int64_t r = (int64_t)blockIdx.x * W + warp; r < a.count; r += warps) {
    const int64_t row = a.rows[r];
    const int64_t out = a.c_off[row] - a.c_base; /* loaded before the expansion's barriers */
    const int p = tsi_spgemm_expand(a, row, lane, N, first_of[warp], b_at_of[warp], [&](int j, int64_t ka, int64_t kb) {
      keys[j] = (unsigned long long)(unsigned)a.b_cols[kb] << 32 | (unsigned)j;
      values[j] = a.a_vals[ka] * a.b_vals[kb];
    });
    const int size = tsi_spgemm_sort_size(p);
    for (int s = p + lane; s < size; s += 32)
      keys[s] = ~0ull;
    __syncwarp();
    tsi_spgemm_sort(keys, size, lane, 32, tsi_spgemm_warp_barrier{});
    int64_t written = 0;
    for (int base = 0; base < p; base += 32) {
      const int s = base + lane;
      const unsigned col = s < p ? (unsigned)(keys[s] >> 32) : 0u;
      const bool head = s < p && (s == 0 || (unsigned)(keys[s - 1] >> 32) != col);
      const unsigned heads = __ballot_sync(0xffffffffu, head);
      if (head) {
        T sum = values[(unsigned)keys[s]];
        for (int t = s + 1; t < p && (unsigned)(keys[t] >> 32) == col; t++)
          sum += values[(unsigned)keys[t]];
        const int64_t at = out + written + __popc(heads & ((1u << lane) - 1u));
        a.c_cols[at] = (int32_t)col;
        a.c_vals[at] = sum;
      }
      written += __popc(heads);
    }
    __syncwarp();
  }
}

#endif
