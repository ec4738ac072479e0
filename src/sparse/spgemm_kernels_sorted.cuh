/* SpGEMM's sorted bins: rows of at most N = 32 R products (R = 1, 2, 4) take
 * one warp each and no hash table. Product j of a row (the j-th in the order
 * of A's entries, then of B's) lives in register j / 32 of lane j % 32: the
 * lanes load 32 of A's entries at a time, scan their rows of B's lengths
 * into each entry's first product, and each product finds its entry among
 * the few nonempty ones by shuffles. The warp sorts its N keys in registers
 * (a bitonic network over shuffles and register swaps; keys (column) in the
 * symbolic phase, (column, j) in the numeric phase) and reads each column's
 * run in order: the symbolic phase counts the runs, the numeric phase adds
 * each run's products from the first, in the order of A's entries, and
 * writes the columns sorted. No atomics, no partial sums: each entry's sum
 * is the sequential one (the expand-sort-compress scheme of Dalton, Olson
 * and Bell, "Optimizing Sparse Matrix-Matrix Multiplication for the GPU",
 * ACM TOMS 41(4), 2015, done in one warp a row; the register bitonic network
 * after Batcher, 1968).
 * Host-emulated in tests/sparse/test_spgemm_kernels_emulated.cpp. */
#ifndef TESSERA_SPGEMM_KERNELS_SORTED_CUH
#define TESSERA_SPGEMM_KERNELS_SORTED_CUH

#include "spgemm_cuda_args.cuh"

/* Warps a block of the sorted bins' kernels. */
#define TSI_SPGEMM_SORTED_WARPS 8
/* Products of the sorted bins' rows at most. */
#define TSI_SPGEMM_SORTED_MOST (TSI_SPGEMM_SORTED_FIRST << (TSI_SPGEMM_SORTED_BINS - 1))

static_assert(TSI_SPGEMM_SORTED_FIRST == 32 && TSI_SPGEMM_SORTED_BINS == 3,
              "sorted bins of 32, 64 and 128 products: 1, 2 and 4 keys a lane");

__device__ inline unsigned long long tsi_spgemm_warp_sum64(unsigned long long x) {
  for (int d = 16; d > 0; d /= 2)
    x += __shfl_xor_sync(0xffffffffu, x, d);
  return x;
}

/* log2(N) for the numeric keys (column << log2(N) | j). */
template <int N> __host__ __device__ constexpr int tsi_spgemm_log2() {
  return N <= 1 ? 0 : 1 + tsi_spgemm_log2<N / 2>();
}

/*
 * One chunk of a row's expansion: lane l holds A's entry l of the chunk (its
 * first product `first`, counted from the row's first, its `len` products,
 * its row of B from `bb`, its value x); products p .. stop - 1 of the row
 * come from this chunk. Each product j in that range (register j / 32 of
 * lane j % 32) finds the last nonempty entry whose first product is at or
 * before it, one shuffle per nonempty entry, and calls put(r, j, kb, xe)
 * with its entry of B and (WithValue) its entry's value of A.
 */
template <int R, bool WithValue, class T, class Put>
__device__ void tsi_spgemm_expand_chunk(int lane, int p, int stop, int first, int len, int64_t bb, T x,
                                        const Put &put) {
  int owner[R];
#pragma unroll
  for (int r = 0; r < R; r++)
    owner[r] = 0;
  for (unsigned m = __ballot_sync(0xffffffffu, len > 0); m; m &= m - 1u) {
    const int e = __ffs((int)m) - 1;
    const int f = __shfl_sync(0xffffffffu, first, e);
#pragma unroll
    for (int r = 0; r < R; r++)
      if (r * 32 + lane >= f)
        owner[r] = e;
  }
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int j = r * 32 + lane;
    const int f = __shfl_sync(0xffffffffu, first, owner[r]);
    const int64_t b = __shfl_sync(0xffffffffu, bb, owner[r]);
    const T xe = WithValue ? __shfl_sync(0xffffffffu, x, owner[r]) : T(0);
    if (j >= p && j < stop)
      put(r, j, b + (j - f), xe);
  }
}

/*
 * The products of `row` (at most N = 32 R; more are dropped) in the
 * registers of the warp: A's entries 32 at a time, a lane each, their rows
 * of B's lengths scanned into each entry's first product, then
 * tsi_spgemm_expand_chunk(). Returns the row's products (at most N).
 */
template <int R, bool WithValue, class T, class Put>
__device__ int tsi_spgemm_expand(const tsi_spgemm_args<T> &a, int64_t row, int lane, const Put &put) {
  constexpr int N = 32 * R;
  const int64_t begin = a.a_off[row], end = a.a_off[row + 1];
  int p = 0;
  for (int64_t chunk = begin; chunk < end && p < N; chunk += 32) {
    const int64_t ka = chunk + lane;
    int64_t bb;
    const int64_t n = tsi_spgemm_b_row(a, ka, end, &bb);
    const int len = n < N ? (int)n : N; /* a row of this bin has at most N products */
    T x = T(0);
    if constexpr (WithValue)
      x = ka < end ? a.a_vals[ka] : T(0);
    const int incl = tsi_spgemm_warp_inclusive_sum(len, lane);
    const int total = __shfl_sync(0xffffffffu, incl, 31);
    const int stop = p + total < N ? p + total : N;
    tsi_spgemm_expand_chunk<R, WithValue>(lane, p, stop, p + incl - len, len, bb, x, put);
    p = stop;
  }
  return p;
}

/* Ascending bitonic sort of the warp's 32 R keys, key i in register i / 32
 * of lane i % 32: strides of 32 and more swap registers within a lane,
 * shorter ones exchange with lane ^ stride. */
template <int R, class K> __device__ void tsi_spgemm_sort_registers(K (&key)[R], int lane) {
  constexpr int N = 32 * R;
#pragma unroll
  for (int run = 2; run <= N; run *= 2) {
#pragma unroll
    for (int stride = run / 2; stride > 0; stride /= 2) {
      if (stride >= 32) {
#pragma unroll
        for (int r = 0; r < R; r++) {
          const int rp = r ^ (stride / 32);
          if (rp > r) {
            const bool up = ((r * 32 + lane) & run) == 0;
            const K x = key[r], y = key[rp];
            if ((x > y) == up) {
              key[r] = y;
              key[rp] = x;
            }
          }
        }
      } else {
#pragma unroll
        for (int r = 0; r < R; r++) {
          const K x = key[r];
          const K y = __shfl_xor_sync(0xffffffffu, x, stride);
          const bool up = ((r * 32 + lane) & run) == 0;
          const bool lower = (lane & stride) == 0;
          key[r] = (lower == up) ? (x < y ? x : y) : (x < y ? y : x);
        }
      }
    }
  }
}

/* Heads of the column runs among the sorted keys 0 .. p - 1 (a bit a lane,
 * a mask a register); key i's column is key >> shift. */
template <int R, class K>
__device__ void tsi_spgemm_run_heads(const K (&key)[R], int p, int shift, int lane, unsigned (&heads)[R]) {
#pragma unroll
  for (int r = 0; r < R; r++) {
    const K up = __shfl_up_sync(0xffffffffu, key[r], 1);
    const K last = __shfl_sync(0xffffffffu, key[r > 0 ? r - 1 : 0], 31);
    const int i = r * 32 + lane;
    const K before = lane > 0 ? up : last;
    heads[r] = __ballot_sync(0xffffffffu, i < p && (i == 0 || (before >> shift) != (key[r] >> shift)));
  }
}

/* Symbolic: the distinct columns among the first p keys (the others are
 * 0xffffffff). Every lane returns the count. One key a lane needs no sort:
 * a key counts when no lower lane holds it (__match_any_sync()). */
template <int R> __device__ int tsi_spgemm_count_keys(unsigned (&key)[R], int p, int lane) {
  if constexpr (R == 1) {
    const unsigned same = __match_any_sync(0xffffffffu, key[0]);
    return __popc(__ballot_sync(0xffffffffu, lane < p && (same & ((1u << lane) - 1u)) == 0u));
  }
  tsi_spgemm_sort_registers<R>(key, lane);
  unsigned heads[R];
  tsi_spgemm_run_heads<R>(key, p, 0, lane, heads);
  int distinct = 0;
#pragma unroll
  for (int r = 0; r < R; r++)
    distinct += __popc(heads[r]);
  return distinct;
}

/* key[r] = k with r known at run time, the keys staying in registers. */
template <int R, class K> __device__ inline void tsi_spgemm_set_key(K (&key)[R], int r, K k) {
#pragma unroll
  for (int q = 0; q < R; q++)
    if (q == r)
      key[q] = k;
}

/* Symbolic: the distinct columns of a row whose only chunk of A's entries
 * the lanes hold (first, len, bb as tsi_spgemm_expand_chunk() takes them)
 * and whose `total` products are at most 32 R. */
template <int R, class T>
__device__ int tsi_spgemm_count_chunk(const tsi_spgemm_args<T> &a, int lane, int total, int first, int len,
                                      int64_t bb) {
  unsigned key[R];
#pragma unroll
  for (int r = 0; r < R; r++)
    key[r] = 0xffffffffu;
  tsi_spgemm_expand_chunk<R, false>(lane, 0, total, first, len, bb, T(0), [&](int r, int, int64_t kb, T) {
    tsi_spgemm_set_key<R>(key, r, (unsigned)a.b_cols[kb]);
  });
  return tsi_spgemm_count_keys<R>(key, total, lane);
}

/* Symbolic: the distinct columns of `row` (at most 32 R products), by one
 * warp; every lane returns the count. */
template <int R, class T> __device__ int tsi_spgemm_count_row(const tsi_spgemm_args<T> &a, int64_t row, int lane) {
  unsigned key[R];
#pragma unroll
  for (int r = 0; r < R; r++)
    key[r] = 0xffffffffu;
  const int p = tsi_spgemm_expand<R, false>(
      a, row, lane, [&](int r, int, int64_t kb, T) { tsi_spgemm_set_key<R>(key, r, (unsigned)a.b_cols[kb]); });
  return tsi_spgemm_count_keys<R>(key, p, lane);
}

/*
 * The analysis of a row for the sorted bins, by one warp: its products
 * (exact, 64 bits) into *products and, when they are at most
 * TSI_SPGEMM_SORTED_MOST, its distinct columns (else -1), the same in every
 * lane. A row of at most 32 entries of A is loaded once: the lengths of its
 * rows of B, capped past the bins' most, give both the decision and the
 * expansion.
 */
template <class T>
__device__ int64_t tsi_spgemm_sorted_count(const tsi_spgemm_args<T> &a, int64_t row, int lane,
                                           unsigned long long *products) {
  constexpr int most = TSI_SPGEMM_SORTED_MOST;
  const int64_t begin = a.a_off[row], end = a.a_off[row + 1];
  if (end - begin > 32) {
    unsigned long long n = 0;
#pragma unroll 4 /* a hub row's entries: four loads of B's offsets in flight */
    for (int64_t ka = begin + lane; ka < end; ka += 32) {
      const int32_t k = a.a_cols[ka];
      n += (unsigned long long)(a.b_off[k + 1] - a.b_off[k]);
    }
    n = tsi_spgemm_warp_sum64(n);
    *products = n;
    if (n > (unsigned long long)most)
      return -1;
    if (n == 0)
      return 0;
    return n <= 32   ? tsi_spgemm_count_row<1>(a, row, lane)
           : n <= 64 ? tsi_spgemm_count_row<2>(a, row, lane)
                     : tsi_spgemm_count_row<4>(a, row, lane);
  }
  int64_t bb;
  const int64_t n = tsi_spgemm_b_row(a, begin + lane, end, &bb);
  const int len = n <= most ? (int)n : most + 1;
  const int incl = tsi_spgemm_warp_inclusive_sum(len, lane);
  const int total = __shfl_sync(0xffffffffu, incl, 31);
  if (total > most) {
    *products = tsi_spgemm_warp_sum64((unsigned long long)n);
    return -1;
  }
  *products = (unsigned long long)total;
  if (total == 0)
    return 0;
  const int first = incl - len;
  return total <= 32   ? tsi_spgemm_count_chunk<1>(a, lane, total, first, len, bb)
         : total <= 64 ? tsi_spgemm_count_chunk<2>(a, lane, total, first, len, bb)
                       : tsi_spgemm_count_chunk<4>(a, lane, total, first, len, bb);
}

/*
 * Numeric: keys (column << log2(N) | j) of K bits (32 when B's width times
 * N fits below 2^32 - 1, else 64) sorted in registers, each product's value
 * in shared memory at j, then moved to its key's place; each column's run
 * added in the order of j from its first product; the columns written
 * sorted. Block `block` of `blocks` (its warps take rows block W + w,
 * + blocks W, ...).
 */
template <class T, int N, class K>
__device__ void tsi_spgemm_fill_sorted_rows(const tsi_spgemm_args<T> &a, int64_t block, int64_t blocks) {
  constexpr int W = TSI_SPGEMM_SORTED_WARPS, R = N / 32, shift = tsi_spgemm_log2<N>();
  __shared__ T values_of[W][N];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  T *values = values_of[warp];
  const int64_t warps = blocks * W;
  for (int64_t r = block * W + warp; r < a.count; r += warps) {
    const int64_t row = a.rows[r];
    const int64_t out = a.c_off[row] - a.c_base;
    K key[R];
#pragma unroll
    for (int q = 0; q < R; q++)
      key[q] = ~K(0);
    const int p = tsi_spgemm_expand<R, true>(a, row, lane, [&](int rr, int j, int64_t kb, T x) {
      tsi_spgemm_set_key<R>(key, rr, (K)((K)(unsigned)a.b_cols[kb] << shift | (K)j));
      values[j] = x * a.b_vals[kb];
    });
    tsi_spgemm_sort_registers<R>(key, lane);
    unsigned heads[R];
    tsi_spgemm_run_heads<R>(key, p, shift, lane, heads);
    __syncwarp(); /* the values are written */
    T v[R];
#pragma unroll
    for (int q = 0; q < R; q++)
      v[q] = q * 32 + lane < p ? values[(int)(key[q] & (K)(N - 1))] : T(0);
    __syncwarp(); /* and read before they move to their keys' places */
#pragma unroll
    for (int q = 0; q < R; q++)
      if (q * 32 + lane < p)
        values[q * 32 + lane] = v[q];
    __syncwarp();
    int before = 0;
#pragma unroll
    for (int q = 0; q < R; q++) {
      const int i = q * 32 + lane;
      if ((heads[q] >> lane) & 1u) {
        /* The run ends at the next head, or at p. */
        int next = p;
        const unsigned above = heads[q] & ~((2u << lane) - 1u);
        if (above) {
          next = q * 32 + __ffs((int)above) - 1;
        } else {
#pragma unroll
          for (int s = R - 1; s > q; s--)
            if (heads[s])
              next = s * 32 + __ffs((int)heads[s]) - 1;
        }
        T sum = v[q];
        for (int t = i + 1; t < next; t++)
          sum += values[t];
        const int64_t at = out + before + __popc(heads[q] & ((1u << lane) - 1u));
        a.c_cols[at] = (int32_t)(key[q] >> shift);
        a.c_vals[at] = sum;
      }
      before += __popc(heads[q]);
    }
    __syncwarp(); /* the values are read before the warp's next row writes them */
  }
}

template <class T, int N, class K>
__global__ void __launch_bounds__(TSI_SPGEMM_SORTED_WARPS * 32) tsi_spgemm_fill_sorted(tsi_spgemm_args<T> a) {
  tsi_spgemm_fill_sorted_rows<T, N, K>(a, blockIdx.x, gridDim.x);
}

/* The three sorted bins in one launch (32-bit keys): blocks
 * 0 .. blocks_1 - 1 take bin 1's rows (a1), the next blocks_2 bin 2's, the
 * rest bin 3's; each bin's rows as tsi_spgemm_fill_sorted() takes them. */
template <class T>
__global__ void __launch_bounds__(TSI_SPGEMM_SORTED_WARPS * 32)
    tsi_spgemm_fill_sorted_bins(tsi_spgemm_args<T> a1, tsi_spgemm_args<T> a2, tsi_spgemm_args<T> a3, unsigned blocks_1,
                                unsigned blocks_2) {
  const unsigned b = blockIdx.x;
  if (b < blocks_1)
    tsi_spgemm_fill_sorted_rows<T, TSI_SPGEMM_SORTED_FIRST, uint32_t>(a1, b, blocks_1);
  else if (b < blocks_1 + blocks_2)
    tsi_spgemm_fill_sorted_rows<T, 2 * TSI_SPGEMM_SORTED_FIRST, uint32_t>(a2, b - blocks_1, blocks_2);
  else
    tsi_spgemm_fill_sorted_rows<T, 4 * TSI_SPGEMM_SORTED_FIRST, uint32_t>(a3, b - blocks_1 - blocks_2,
                                                                          gridDim.x - blocks_1 - blocks_2);
}

#endif
