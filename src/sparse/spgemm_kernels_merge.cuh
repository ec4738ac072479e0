/* SpGEMM's merged bin: rows of at most TSI_SPGEMM_MERGE_ENTRIES entries of A
 * and few products take one thread each, which merges the row's rows of B
 * (each sorted, distinct columns) as sorted lists: at every step the least
 * head column is C's next column, and the lists that hold it, taken in the
 * order of A's entries, add their products from the first. No sort, no
 * table, no exchange between lanes: a 2-D stencil's row of 25 products is
 * 13 steps of one thread where a warp's sort costs hundreds of
 * instructions. Each entry's sum is the sequential one (the order of A's
 * entries), as in the other bins. Row merging after Gremse, Hoefter,
 * Schwen, Kiessling and Naumann, "GPU-Accelerated Sparse Matrix-Matrix
 * Multiplication by Iterative Row Merging", SIAM J. Sci. Comput. 37(1),
 * 2015, done here in one pass over a short row.
 * Host-emulated in tests/sparse/test_spgemm_kernels_emulated.cpp. */
#ifndef TESSERA_SPGEMM_KERNELS_MERGE_CUH
#define TESSERA_SPGEMM_KERNELS_MERGE_CUH

#include "spgemm_cuda_args.cuh"

/* Threads a block of the merged bin's numeric kernel. */
#define TSI_SPGEMM_MERGE_BLOCK 256

/* x * y rounded on its own: never fused with the addition that follows, so
 * that every sum is the other bins' and the host's. */
template <class T> __device__ inline T tsi_spgemm_product(T x, T y) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4)
    return __fmul_rn(x, y);
  else
    return __dmul_rn(x, y);
#else
  return x * y;
#endif
}

/* A merge in progress: each list's head column (TSI_SPGEMM_EMPTY once it
 * is used up), entries left, next entry of B and A's value. */
template <class T> struct tsi_spgemm_merge_state {
  int head[TSI_SPGEMM_MERGE_ENTRIES], left[TSI_SPGEMM_MERGE_ENTRIES];
  int64_t at[TSI_SPGEMM_MERGE_ENTRIES];
  T x[TSI_SPGEMM_MERGE_ENTRIES];
};

/* The lists of the rows of B that A's entries begin .. end - 1 name (at
 * most TSI_SPGEMM_MERGE_ENTRIES of them; none for begin == end). */
template <bool WithValues, class T>
__device__ inline void tsi_spgemm_merge_start(const tsi_spgemm_args<T> &a, int64_t begin, int64_t end,
                                              tsi_spgemm_merge_state<T> &m) {
#pragma unroll
  for (int e = 0; e < TSI_SPGEMM_MERGE_ENTRIES; e++) {
    m.head[e] = TSI_SPGEMM_EMPTY;
    m.left[e] = 0;
    m.at[e] = 0;
    m.x[e] = T(0);
    if (begin + e < end) {
      const int32_t k = a.a_cols[begin + e];
      m.at[e] = a.b_off[k];
      m.left[e] = (int)(a.b_off[k + 1] - m.at[e]);
      if (WithValues)
        m.x[e] = a.a_vals[begin + e];
      if (m.left[e] > 0)
        m.head[e] = a.b_cols[m.at[e]];
    }
  }
}

/* The merge's next entry of C: its column and (WithValues) its sum, the
 * lists that hold the column taken in the order of A's entries; false when
 * every list is used up. */
template <bool WithValues, class T>
__device__ inline bool tsi_spgemm_merge_next(const tsi_spgemm_args<T> &a, tsi_spgemm_merge_state<T> &m, int *column,
                                             T *sum) {
  int least = m.head[0];
#pragma unroll
  for (int e = 1; e < TSI_SPGEMM_MERGE_ENTRIES; e++)
    least = m.head[e] < least ? m.head[e] : least;
  if (least == TSI_SPGEMM_EMPTY)
    return false;
  T total = T(0);
  bool first = true;
#pragma unroll
  for (int e = 0; e < TSI_SPGEMM_MERGE_ENTRIES; e++) {
    if (m.head[e] == least) {
      if (WithValues) {
        const T v = tsi_spgemm_product(m.x[e], a.b_vals[m.at[e]]);
        total = first ? v : total + v;
        first = false;
      }
      m.at[e]++;
      m.head[e] = --m.left[e] > 0 ? a.b_cols[m.at[e]] : TSI_SPGEMM_EMPTY;
    }
  }
  *column = least;
  *sum = total;
  return true;
}

/*
 * Merges the rows of B that A's entries begin .. end - 1 name (at most
 * TSI_SPGEMM_MERGE_ENTRIES of them) and calls emit(i, column, sum) for C's
 * i-th entry of the row, in column order (sum is T(0) without values).
 * Returns the row's entries.
 */
template <bool WithValues, class T, class Emit>
__device__ int tsi_spgemm_merge_row(const tsi_spgemm_args<T> &a, int64_t begin, int64_t end, const Emit &emit) {
  tsi_spgemm_merge_state<T> m;
  tsi_spgemm_merge_start<WithValues>(a, begin, end, m);
  int count = 0, column = 0;
  T sum = T(0);
  while (tsi_spgemm_merge_next<WithValues>(a, m, &column, &sum))
    emit(count++, column, sum);
  return count;
}

/*
 * The analysis of `row` for the merged bin, by one thread: when it has at
 * most TSI_SPGEMM_MERGE_ENTRIES entries of A, its products (exact) into
 * *products and, when they are 1 .. `most`, its distinct columns; 0 for a
 * row without products; -1 when the row is not the bin's (too many entries:
 * *products is then left 0 and not counted here; too many products).
 */
template <class T>
__device__ int64_t tsi_spgemm_merge_count(const tsi_spgemm_args<T> &a, int64_t row, int most,
                                          unsigned long long *products) {
  *products = 0;
  const int64_t begin = a.a_off[row], end = a.a_off[row + 1];
  if (end - begin > TSI_SPGEMM_MERGE_ENTRIES)
    return -1;
  /* The lists' lengths are the products: A's entries and B's offsets are
   * loaded once, for the decision and the merge. */
  tsi_spgemm_merge_state<T> m;
  tsi_spgemm_merge_start<false>(a, begin, end, m);
  unsigned long long n = 0;
#pragma unroll
  for (int e = 0; e < TSI_SPGEMM_MERGE_ENTRIES; e++)
    n += (unsigned long long)m.left[e];
  *products = n;
  if (n == 0)
    return 0;
  if (n > (unsigned long long)most)
    return -1;
  int count = 0, column = 0;
  T sum = T(0);
  while (tsi_spgemm_merge_next<false>(a, m, &column, &sum))
    count++;
  return count;
}

/* Numeric: a thread a row of the bin, C's columns and sums written in
 * column order. */
template <class T>
__global__ void __launch_bounds__(TSI_SPGEMM_MERGE_BLOCK) tsi_spgemm_fill_merge(tsi_spgemm_args<T> a) {
  const int64_t threads = (int64_t)gridDim.x * blockDim.x;
  for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < a.count; r += threads) {
    const int64_t row = a.rows[r];
    const int64_t out = a.c_off[row] - a.c_base;
    tsi_spgemm_merge_row<true>(a, a.a_off[row], a.a_off[row + 1], [&](int i, int column, T sum) {
      a.c_cols[out + i] = column;
      a.c_vals[out + i] = sum;
    });
  }
}

/* Numeric, C's entries staged in shared memory: a warp's 32 rows (a lane
 * each) merge TSI_SPGEMM_MERGE_STAGE(T) steps at a time into the warp's
 * stage (entry i of lane l at i * 33 + l: no two lanes on a bank), then the
 * warp writes each lane's entries out together, consecutive lanes on
 * consecutive entries: a store instruction covers one run of C instead of
 * 32 rows' scattered entries. */
#define TSI_SPGEMM_MERGE_STAGE(T) (sizeof(T) == 4 ? 16 : 8)
template <class T>
__global__ void __launch_bounds__(TSI_SPGEMM_MERGE_BLOCK) tsi_spgemm_fill_merge_staged(tsi_spgemm_args<T> a) {
  constexpr int W = TSI_SPGEMM_MERGE_BLOCK / 32, K = TSI_SPGEMM_MERGE_STAGE(T);
  __shared__ int32_t cols_of[W][K * 33];
  __shared__ T values_of[W][K * 33];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  int32_t *cols = cols_of[warp];
  T *values = values_of[warp];
  const int64_t threads = (int64_t)gridDim.x * blockDim.x;
  /* Every lane of a warp runs the same rounds (the shuffles). */
  for (int64_t first = (int64_t)blockIdx.x * blockDim.x + warp * 32; first < a.count; first += threads) {
    const int64_t r = first + lane;
    tsi_spgemm_merge_state<T> m;
    int64_t out = 0;
    if (r < a.count) {
      const int64_t row = a.rows[r];
      out = a.c_off[row] - a.c_base;
      tsi_spgemm_merge_start<true>(a, a.a_off[row], a.a_off[row + 1], m);
    } else {
      tsi_spgemm_merge_start<true>(a, 0, 0, m);
    }
    bool more = true;
    while (__any_sync(0xffffffffu, more)) {
      int n = 0;
      for (int i = 0; i < K && more; i++) {
        int column = 0;
        T sum = T(0);
        more = tsi_spgemm_merge_next<true>(a, m, &column, &sum);
        if (more) {
          cols[i * 33 + lane] = column;
          values[i * 33 + lane] = sum;
          n++;
        }
      }
      __syncwarp();
      for (unsigned held = __ballot_sync(0xffffffffu, n > 0); held; held &= held - 1u) {
        const int l = __ffs((int)held) - 1;
        const int count = __shfl_sync(0xffffffffu, n, l);
        const int64_t at = __shfl_sync(0xffffffffu, out, l);
        if (lane < count) {
          a.c_cols[at + lane] = cols[lane * 33 + l];
          a.c_vals[at + lane] = values[lane * 33 + l];
        }
      }
      out += n;
      __syncwarp();
    }
  }
}

#endif
