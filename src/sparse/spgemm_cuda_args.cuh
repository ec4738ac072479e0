/* SpGEMM on the GPU: the arguments every phase's kernel takes (the
 * operands, the bin's rows, the output) and the bitonic sort the bins share,
 * apart from the CUDA runtime so that the kernel headers also build for the
 * host emulation of the tests. */
#ifndef TESSERA_SPGEMM_CUDA_ARGS_CUH
#define TESSERA_SPGEMM_CUDA_ARGS_CUH

#include "spgemm_internal.h"

/* An empty hash slot: above every column (columns are below INT32_MAX). */
#define TSI_SPGEMM_EMPTY 0x7fffffff

/* The operands and the output of a phase, passed by value. */
template <class T> struct tsi_spgemm_args {
  const int64_t *a_off;
  const int32_t *a_cols;
  const T *a_vals;
  const int64_t *b_off;
  const int32_t *b_cols;
  const T *b_vals;
  int64_t b_width;
  const int32_t *rows;  /* the bin's rows */
  int64_t count;        /* how many */
  int64_t *row_nnz;     /* symbolic: entries of each row of C */
  const int64_t *c_off; /* numeric: C's row offsets */
  int64_t c_base;       /* numeric: c_off of the first row the output holds */
  int32_t *c_cols;
  T *c_vals;
};

template <class T>
tsi_spgemm_args<T> tsi_spgemm_make_args(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base,
                                        int32_t *c_cols, void *c_vals) {
  tsi_spgemm_args<T> a;
  a.a_off = d->a.offsets;
  a.a_cols = d->a.indices;
  a.a_vals = static_cast<const T *>(d->a.values);
  a.b_off = d->b.offsets;
  a.b_cols = d->b.indices;
  a.b_vals = static_cast<const T *>(d->b.values);
  a.b_width = d->b.cols;
  a.rows = NULL;
  a.count = 0;
  a.row_nnz = d->row_nnz;
  a.c_off = c_off;
  a.c_base = c_base;
  a.c_cols = c_cols;
  a.c_vals = static_cast<T *>(c_vals);
  return a;
}

/* The row of B that A's entry ka names: its length, its first entry in
 * *first (0 and 0 for ka at or past end). */
template <class T>
__device__ inline int64_t tsi_spgemm_b_row(const tsi_spgemm_args<T> &a, int64_t ka, int64_t end, int64_t *first) {
  *first = 0;
  if (ka >= end)
    return 0;
  const int32_t k = a.a_cols[ka];
  *first = a.b_off[k];
  return a.b_off[k + 1] - *first;
}

/* A warp's chunk of 32 of A's entries from `chunk` (row ending at `end`)
 * flattened into their products: lane l loads entry chunk + l and its row
 * of B, and first[l] (the entry's first product in the chunk) and b_at[l]
 * (its first entry of B) are written for the warp; returns the chunk's
 * products. The caller's warp barrier comes before first and b_at are read. */
template <class T>
__device__ inline int64_t tsi_spgemm_chunk_products(const tsi_spgemm_args<T> &a, int64_t chunk, int64_t end, int lane,
                                                    int64_t *first, int64_t *b_at) {
  int64_t bb;
  const int64_t len = tsi_spgemm_b_row(a, chunk + lane, end, &bb);
  int64_t incl = len;
  for (int d = 1; d < 32; d *= 2) {
    const int64_t y = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d)
      incl += y;
  }
  first[lane] = incl - len;
  b_at[lane] = bb;
  return __shfl_sync(0xffffffffu, incl, 31);
}

/* The entry of a chunk's product j (below its products): the last entry
 * whose first product is at or before j, a nonempty one. */
__device__ inline int tsi_spgemm_chunk_entry(const int64_t *first, int64_t j) {
  int e = 0, e_hi = 31;
  while (e < e_hi) {
    const int mid = (e + e_hi + 1) / 2;
    if (first[mid] <= j)
      e = mid;
    else
      e_hi = mid - 1;
  }
  return e;
}

/* Inclusive sum of x over the warp's lanes. */
__device__ inline int tsi_spgemm_warp_inclusive_sum(int x, int lane) {
  for (int d = 1; d < 32; d *= 2) {
    const int y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d)
      x += y;
  }
  return x;
}

/* Exclusive sum of x over the block's B threads (a multiple of 32) and the
 * total; scratch holds B / 32 + 1 values. */
template <class V, int B> __device__ V tsi_spgemm_block_exclusive(V x, V *scratch, V *total) {
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  V incl = x;
  for (int d = 1; d < 32; d *= 2) {
    const V y = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d)
      incl += y;
  }
  if (lane == 31)
    scratch[warp] = incl;
  __syncthreads();
  if (threadIdx.x == 0) {
    V run = 0;
    for (int w = 0; w < B / 32; w++) {
      const V n = scratch[w];
      scratch[w] = run;
      run += n;
    }
    scratch[B / 32] = run;
  }
  __syncthreads();
  const V before = scratch[warp] + incl - x;
  *total = scratch[B / 32];
  __syncthreads();
  return before;
}

/* Bitonic sort of `size` keys (a power of two) ascending by `threads`
 * threads of rank 0 .. threads - 1; sync() is the group's barrier. */
template <class K, class Sync> __device__ void tsi_spgemm_sort(K *keys, int size, int rank, int threads, Sync sync) {
  for (int run = 2; run <= size; run *= 2) {
    for (int stride = run / 2; stride > 0; stride /= 2) {
      for (int t = rank; t < size / 2; t += threads) {
        const int lo = 2 * t - (t & (stride - 1));
        const int hi = lo + stride;
        const bool up = (lo & run) == 0;
        const K x = keys[lo], y = keys[hi];
        if ((x > y) == up) {
          keys[lo] = y;
          keys[hi] = x;
        }
      }
      sync();
    }
  }
}

#endif
