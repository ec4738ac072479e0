/* SpGEMM on the GPU: what the phases' kernels share. A row of C is a tile
 * and a product a_ik * b_kj an atom; rows are binned by their bound (the
 * products, capped at B's columns) so that each bin gets an accumulator of
 * its size (spgemm_cuda_hash.cu: hash tables in shared memory, a warp's or a
 * block's; spgemm_cuda_dense.cu: a dense bitmap and values in global memory,
 * a warp's). A group of threads walks a row's products in sub-groups: sub-group
 * q takes A's entries q, q + Q, ... in order and its lanes the entries of
 * the row of B each one names; the numeric phase adds each sub-group's
 * products into partial sums of its own, in that order, and joins the
 * partial sums in sub-group order, so every entry's sum is fixed by A and B
 * alone (after the product-count binning of Liu and Vinter, "An Efficient
 * GPU General Sparse Matrix-Matrix Multiplication for Irregular Data",
 * IPDPS 2014, and the hash accumulators of Nagasaka, Nukada and Matsuoka,
 * ICPP 2017; the ordered partial sums are tessera's). */
#ifndef TESSERA_SPGEMM_CUDA_KERNEL_CUH
#define TESSERA_SPGEMM_CUDA_KERNEL_CUH

#include "spgemm_cuda_args.cuh"

#include <cuda_runtime.h>

/* Insert col into a table of `size` (a power of two) slots by linear
 * probing; 1 when it was not there. The table never fills: a bin's tables
 * hold at least twice its rows' bound. */
__device__ inline int tsi_spgemm_insert(int32_t *keys, int size, int32_t col) {
  unsigned slot = ((unsigned)col * 2654435761u) & unsigned(size - 1);
  for (;;) {
    const int32_t key = keys[slot];
    if (key == col)
      return 0;
    if (key == TSI_SPGEMM_EMPTY) {
      const int32_t old = atomicCAS(keys + slot, TSI_SPGEMM_EMPTY, col);
      if (old == TSI_SPGEMM_EMPTY)
        return 1;
      if (old == col)
        return 0;
    }
    slot = (slot + 1) & unsigned(size - 1);
  }
}

/* Position of col among the n sorted keys (it is there). */
__device__ inline int tsi_spgemm_find(const int32_t *keys, int n, int32_t col) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (keys[mid] < col)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/*
 * The products of row `row` for sub-group q of Q, lane `lane` of L:
 * fn(ka, kb) for A's entries ka = begin + q, begin + q + Q, ... in order and,
 * for each, B's entries kb of row a_cols[ka] taken by the lanes in turn;
 * between two of A's entries, step() (the sub-group's barrier when the
 * numeric phase adds in order, nothing otherwise).
 */
template <class T, class Fn, class Step>
__device__ void tsi_spgemm_products(const tsi_spgemm_args<T> &a, int64_t row, int q, int Q, int lane, int L,
                                    const Fn &fn, const Step &step) {
  const int64_t end = a.a_off[row + 1];
  for (int64_t ka = a.a_off[row] + q; ka < end; ka += Q) {
    const int64_t k = a.a_cols[ka];
    const int64_t b_end = a.b_off[k + 1];
    for (int64_t kb = a.b_off[k] + lane; kb < b_end; kb += L)
      fn(ka, kb);
    step();
  }
}

/* The phases' launchers by bin (spgemm_cuda_sorted.cu, numeric only: the
 * analysis counts the sorted bins' rows; spgemm_cuda_hash.cu;
 * spgemm_cuda_dense.cu, whose launchers take the dense and long bins). */
cudaError_t tsi_spgemm_sorted_fill(const tsi_spgemm_device *d, int bin, const int64_t *c_off, int64_t c_base,
                                   int32_t *c_cols, void *c_vals, cudaStream_t stream);
/* The three sorted bins, in one launch where their keys fit 32 bits. */
cudaError_t tsi_spgemm_sorted_fill_all(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base,
                                       int32_t *c_cols, void *c_vals, cudaStream_t stream);
/* The merged bin's numeric phase (spgemm_cuda_merge.cu; the analysis counts
 * its rows). */
cudaError_t tsi_spgemm_merge_fill(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                                  void *c_vals, cudaStream_t stream);
cudaError_t tsi_spgemm_hash_count(const tsi_spgemm_device *d, int bin, cudaStream_t stream);
/* All hash bins of a phase: in one launch (the numeric phase's in two: warps'
 * tables, blocks' tables) where at least two bins hold rows and few in all,
 * else a launch a bin (spgemm_cuda_hash.cu). */
cudaError_t tsi_spgemm_hash_count_all(const tsi_spgemm_device *d, cudaStream_t stream);
cudaError_t tsi_spgemm_hash_fill_all(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                                     void *c_vals, cudaStream_t stream);
cudaError_t tsi_spgemm_hash_fill(const tsi_spgemm_device *d, int bin, const int64_t *c_off, int64_t c_base,
                                 int32_t *c_cols, void *c_vals, cudaStream_t stream);
cudaError_t tsi_spgemm_dense_count(const tsi_spgemm_device *d, cudaStream_t stream);
cudaError_t tsi_spgemm_dense_fill(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                                  void *c_vals, cudaStream_t stream);
/* The dense bin in shared memory (spgemm_cuda_dense_shared.cu): the count
 * of the dense and long bins when d->shared_count, the dense bin's fill when
 * d->shared_fill_warps > 0. */
cudaError_t tsi_spgemm_dense_shared_count(const tsi_spgemm_device *d, cudaStream_t stream);
cudaError_t tsi_spgemm_dense_shared_fill(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base,
                                         int32_t *c_cols, void *c_vals, cudaStream_t stream);
/* The dense bin by expand, sort, compress (spgemm_cuda_rowsort.cu), when
 * the bin rules' dense_sort holds: its count, a thread a product, and its
 * numeric phase. */
cudaError_t tsi_spgemm_rowsort_count(const tsi_spgemm_device *d, cudaStream_t stream);
cudaError_t tsi_spgemm_rowsort_fill(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                                    void *c_vals, cudaStream_t stream);

/* Lets `kernel` take `bytes` of dynamic shared memory (opting in past the
 * default 48 KB). */
template <class Kernel> cudaError_t tsi_spgemm_allow_shared(Kernel kernel, size_t bytes) {
  if (bytes <= 48 * 1024)
    return cudaSuccess;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

/* Blocks for `groups` groups of `per_block` a block: at most 32 a
 * multiprocessor (grid-stride beyond). */
int64_t tsi_spgemm_blocks(int64_t groups, int per_block);

#endif
