/* The pivot check's indicators for factors on the device: the largest
 * |L(i, j)| and |U(i, j)| as stored and the smallest pivot (one reduction
 * over the factor values, a column a thread; moduli for complex factors),
 * and max |M| that the scatter kept; the host path takes the same maxima
 * inside its column kernel and the smallest pivot with the same key
 * (smallest_pivot_cpu.c). */
#include "lu/numeric/numeric_cuda.cuh"
#include "lu/numeric/pivot_key.h"

#include <cuda_runtime.h>
#include <string.h>

namespace {

/* |v| of a stored factor value: the modulus of a complex one. */
__device__ __forceinline__ double magnitude(double w) { return fabs(w); }
__device__ __forceinline__ double magnitude(tsi_complex128 w) { return tsi_z_abs(w); }

/* Non-negative doubles order as their bit patterns do, so atomicMax on the
 * bits is a maximum of the magnitudes. */
/* A warp a column, its lanes striding along the column's entries: the
 * stores are read coalesced, and a long column (the dense tail's) is
 * shared by 32 lanes instead of left to one thread. Maxima are exact, so
 * the grouping does not change them. */
template <typename T>
__global__ void factor_maxima(int64_t n, const int64_t *col_ptr, const int64_t *diag_pos, const T *values,
                              const unsigned long long *max_m_bits, unsigned long long *maxima) {
  const double max_m_read = __longlong_as_double((long long)*max_m_bits);
  const double max_m = max_m_read > 0.0 ? max_m_read : 1.0;
  const int lane = threadIdx.x & 31;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  double max_l = 0.0, max_u = 0.0;
  unsigned long long smallest = ~0ull;
  for (int64_t k = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; k < n; k += warps) {
    const int64_t diag = diag_pos[k];
    if (lane == 0) {
      const unsigned long long key = tsi_lu_pivot_key(magnitude(widen(values[diag])) / max_m, k);
      smallest = key < smallest ? key : smallest;
    }
    const int64_t end = col_ptr[k + 1];
    for (int64_t p = col_ptr[k] + lane; p < end; p += 32) {
      const double v = magnitude(widen(values[p]));
      if (p <= diag)
        max_u = fmax(max_u, v);
      else
        max_l = fmax(max_l, v);
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    max_l = fmax(max_l, __shfl_down_sync(0xffffffffu, max_l, offset));
    max_u = fmax(max_u, __shfl_down_sync(0xffffffffu, max_u, offset));
    const unsigned long long other = __shfl_down_sync(0xffffffffu, smallest, offset);
    smallest = other < smallest ? other : smallest;
  }
  if (lane == 0) {
    atomicMax(&maxima[0], (unsigned long long)__double_as_longlong(max_l));
    atomicMax(&maxima[1], (unsigned long long)__double_as_longlong(max_u));
    atomicMin(&maxima[2], smallest);
  }
}
} // namespace

ts_status tsi_lu_cuda_pivot_quality(ts_lu *lu) {
  ts_context *ctx = lu->ctx;
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  if (!dev || !lu->factors_on_device)
    return tsi_error(ctx, TS_ERROR_NOT_FACTORED, "LU on the GPU: no factors on the device for the pivot check");
  lu->pivot_now = (tsi_lu_pivot_quality){lu->stats.perturbed_pivots, 0.0, 0.0, 0.0, 0.0, -1};
  if (dev->n == 0)
    return TS_SUCCESS;
  if (!dev->pivot_maxima) {
    ts_status st =
        tsi_lu_device_alloc(ctx, dev, (void **)&dev->pivot_maxima, 3, sizeof(unsigned long long), "the pivot check");
    if (st != TS_SUCCESS)
      return st;
  }
  unsigned long long *maxima = dev->pivot_maxima;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  unsigned long long host[4] = {0, 0, 0, 0};
  cudaError_t err = cudaMemsetAsync(maxima, 0, 2 * sizeof(unsigned long long), stream);
  if (err == cudaSuccess)
    err = cudaMemsetAsync(maxima + 2, 0xff, sizeof(unsigned long long), stream);
  if (err == cudaSuccess) {
    const int64_t warps_per_block = TSI_LU_ELEMENTWISE_THREADS / 32;
    const int64_t blocks = (dev->n + warps_per_block - 1) / warps_per_block;
    const unsigned grid = (unsigned)(blocks < TSI_LU_ELEMENTWISE_BLOCKS ? blocks : TSI_LU_ELEMENTWISE_BLOCKS);
    if (dev->parts == 2 && dev->single)
      factor_maxima<tsi_complex64><<<grid, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
          dev->n, dev->col_ptr, dev->diag_pos, static_cast<const tsi_complex64 *>(dev->values), dev->max_bits, maxima);
    else if (dev->parts == 2)
      factor_maxima<tsi_complex128><<<grid, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
          dev->n, dev->col_ptr, dev->diag_pos, static_cast<const tsi_complex128 *>(dev->values), dev->max_bits, maxima);
    else if (dev->single)
      factor_maxima<float><<<grid, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
          dev->n, dev->col_ptr, dev->diag_pos, static_cast<const float *>(dev->values), dev->max_bits, maxima);
    else
      factor_maxima<double><<<grid, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
          dev->n, dev->col_ptr, dev->diag_pos, static_cast<const double *>(dev->values), dev->max_bits, maxima);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(host, maxima, 3 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(host + 3, dev->max_bits, sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "LU on the GPU: the pivot check");
  double max_l, max_u, max_m;
  memcpy(&max_l, &host[0], sizeof max_l);
  memcpy(&max_u, &host[1], sizeof max_u);
  memcpy(&max_m, &host[3], sizeof max_m);
  lu->pivot_now.max_multiplier = max_l;
  lu->pivot_now.max_m = max_m > 0.0 ? max_m : 1.0;
  lu->pivot_now.growth = max_u / lu->pivot_now.max_m;
  tsi_lu_pivot_key_decode(host[2], &lu->pivot_now.smallest_pivot_ratio, &lu->pivot_now.smallest_pivot_column);
  return TS_SUCCESS;
}
