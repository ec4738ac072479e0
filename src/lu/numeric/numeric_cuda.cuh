/* The GPU factorization's kernels' shared pieces (the *_cuda.cu files of the numeric phase): their
 * arguments, the pivot rule and the rounding of an update on the device,
 * and the host functions of each step. */
#ifndef TESSERA_LU_NUMERIC_CUDA_CUH
#define TESSERA_LU_NUMERIC_CUDA_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "lu/numeric/numeric_internal.h"

enum { PIVOT_OK = 0, PIVOT_PERTURBED = 1, PIVOT_SINGULAR = 2, PIVOT_NOT_FINITE = 3 };

struct factor_args {
  int64_t n;
  const int64_t *col_ptr;
  const int32_t *row_idx;
  const int64_t *diag_pos;
  const int32_t *cols; /* the left schedule's columns */
  const int64_t *urow_ptr;
  const int32_t *urow_col;
  const int64_t *urow_pos;
  const int64_t *lrow_ptr; /* rows of L (strict lower part) */
  const int32_t *lrow_col;
  const int64_t *lrow_pos;
  double *acc;
  double *scratch;
  signed char *kind;
  const double *rule;
  /* Column k is finished in this factorization when ready[k] == epoch (the
   * dataflow levels wait on it); NULL: no marks kept (level by level). */
  int32_t *ready;
  int32_t epoch;
};

/* Mark column k finished: the group's stores of its values are ordered
 * before the mark (every lane passed the group's barrier; the fence then
 * orders them for the device), so a reader that sees the mark and then
 * loads through L2 sees the values. Called by lane 0 after the barrier. */
__device__ __forceinline__ void mark_ready(const factor_args &a, int32_t k) {
  if (a.ready) {
    __threadfence();
    *(volatile int32_t *)(a.ready + k) = a.epoch;
  }
}

/* ---- device helpers ------------------------------------------------------------ */

template <int GROUP> __device__ __forceinline__ void group_sync() {
  if (GROUP == 32)
    __syncwarp();
  else
    __syncthreads();
}

/* Position of row i in row_idx[lo, hi) (sorted), or -1. */
__device__ __forceinline__ int64_t find_row(const int32_t *row_idx, int64_t lo, int64_t end, int32_t i) {
  int64_t hi = end;
  while (lo < hi) {
    int64_t mid = lo + ((hi - lo) >> 1);
    if (row_idx[mid] < i)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < end && row_idx[lo] == i) ? lo : -1;
}

/* The pivot rule of the host code (numeric_cpu.c): a tiny pivot becomes
 * sign * replacement when perturbation is on. */
__device__ __forceinline__ int classify_pivot(double *pivot, const double *rule) {
  double p = *pivot;
  if (!isfinite(p))
    return PIVOT_NOT_FINITE;
  if (fabs(p) < rule[0] || p == 0.0) {
    if (rule[2] != 0.0) {
      *pivot = p < 0.0 ? -rule[1] : rule[1];
      return PIVOT_PERTURBED;
    }
    return PIVOT_SINGULAR;
  }
  return PIVOT_OK;
}

/* x - l * u with both operations rounded (as the host computes it). */
__device__ __forceinline__ double minus_product(double x, double l, double u) { return __dsub_rn(x, __dmul_rn(l, u)); }

/* ---- the factorization's steps (host functions launching the kernels) ------------ */

/* M scattered into the factor values, max |M| taken and the pivot rule
 * (threshold, root_eps: the perturbation's sqrt(eps)) made on the device
 * (numeric_scatter_cuda.cu). */
void tsi_lu_scatter_cuda(const ts_lu *lu, tsi_lu_device *dev, double threshold, double root_eps, cudaStream_t stream);

/* The shared-memory caps of the left-looking levels on this device, and the
 * kernels allowed to take them (numeric_left_cuda.cu; once, when the device
 * cache is built). */
ts_status tsi_lu_left_prepare(ts_context *ctx, tsi_lu_device *dev);

/* The left-looking levels (numeric_left_cuda.cu); with the dataflow
 * launches, sets args->ready and args->epoch, which the tail's kernels then
 * keep. */
ts_status tsi_lu_left_looking_cuda(ts_lu *lu, tsi_lu_device *dev, factor_args *args, cudaStream_t stream);

/* The tail's columns (dev->tail_start ..) as one dense block on
 * dev->tail_dense (numeric_dense_tail_cuda.cu), or column by column in the
 * sparse pattern (numeric_sparse_tail_cuda.cu), after the left-looking
 * levels, on the stream; values of dev->single's precision. */
ts_status tsi_lu_dense_tail(ts_context *ctx, tsi_lu_device *dev, const factor_args &args, void *values,
                            cudaStream_t stream);
ts_status tsi_lu_sparse_tail_cuda(const ts_lu *lu, const tsi_lu_device *dev, const factor_args &args,
                                  cudaStream_t stream);

#endif
