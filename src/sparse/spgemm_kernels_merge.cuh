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
__device__ inline float tsi_spgemm_product(float x, float y) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(x, y);
#else
  return x * y;
#endif
}
__device__ inline double tsi_spgemm_product(double x, double y) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(x, y);
#else
  return x * y;
#endif
}

/*
 * Merges the rows of B that A's entries begin .. end - 1 name (at most
 * TSI_SPGEMM_MERGE_ENTRIES of them) and calls emit(i, column, sum) for C's
 * i-th entry of the row, in column order (sum is T(0) without values).
 * Returns the row's entries.
 */
template <bool WithValues, class T, class Emit>
__device__ int tsi_spgemm_merge_row(const tsi_spgemm_args<T> &a, int64_t begin, int64_t end, const Emit &emit) {
  constexpr int E = TSI_SPGEMM_MERGE_ENTRIES;
  int head[E], left[E];
  int64_t at[E];
  T x[E];
#pragma unroll
  for (int e = 0; e < E; e++) {
    head[e] = TSI_SPGEMM_EMPTY;
    left[e] = 0;
    at[e] = 0;
    x[e] = T(0);
    if (begin + e < end) {
      const int32_t k = a.a_cols[begin + e];
      at[e] = a.b_off[k];
      left[e] = (int)(a.b_off[k + 1] - at[e]);
      if (WithValues)
        x[e] = a.a_vals[begin + e];
      if (left[e] > 0)
        head[e] = a.b_cols[at[e]];
    }
  }
  int count = 0;
  for (;;) {
    int least = head[0];
#pragma unroll
    for (int e = 1; e < E; e++)
      least = head[e] < least ? head[e] : least;
    if (least == TSI_SPGEMM_EMPTY)
      return count;
    T sum = T(0);
    bool first = true;
#pragma unroll
    for (int e = 0; e < E; e++) {
      if (head[e] == least) {
        if (WithValues) {
          const T v = tsi_spgemm_product(x[e], a.b_vals[at[e]]);
          sum = first ? v : sum + v;
          first = false;
        }
        at[e]++;
        head[e] = --left[e] > 0 ? a.b_cols[at[e]] : TSI_SPGEMM_EMPTY;
      }
    }
    emit(count, least, sum);
    count++;
  }
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
  unsigned long long n = 0;
  for (int64_t ka = begin; ka < end; ka++) {
    const int32_t k = a.a_cols[ka];
    n += (unsigned long long)(a.b_off[k + 1] - a.b_off[k]);
  }
  *products = n;
  if (n == 0)
    return 0;
  if (n > (unsigned long long)most)
    return -1;
  return tsi_spgemm_merge_row<false>(a, begin, end, [](int, int, T) {});
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

#endif
