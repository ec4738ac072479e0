/* The pivot check's indicators for factors on the device: the largest
 * |L(i, j)| and |U(i, j)| as stored and the smallest pivot (one reduction
 * over the factor values, a short column a thread and long ones by chunks
 * of a block; moduli for complex factors),
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
 * bits is a maximum of the magnitudes; maxima are exact, so no grouping of
 * the entries changes them. */
__device__ __forceinline__ void publish(double max_l, double max_u, unsigned long long smallest,
                                        unsigned long long *maxima) {
  for (int offset = 16; offset > 0; offset /= 2) {
    max_l = fmax(max_l, __shfl_down_sync(0xffffffffu, max_l, offset));
    max_u = fmax(max_u, __shfl_down_sync(0xffffffffu, max_u, offset));
    const unsigned long long other = __shfl_down_sync(0xffffffffu, smallest, offset);
    smallest = other < smallest ? other : smallest;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&maxima[0], (unsigned long long)__double_as_longlong(max_l));
    atomicMax(&maxima[1], (unsigned long long)__double_as_longlong(max_u));
    atomicMin(&maxima[2], smallest);
  }
}

/* A thread a column: its pivot's key, and the maxima of its entries when
 * it has at most thread_entries of them, loaded TSI_LU_QUALITY_BATCH at a
 * time (a netlist's columns hold a few entries: a warp a column left most
 * lanes idle); longer columns are cut into chunks (chunk_maxima). Padding
 * counts as 0, which no maximum of magnitudes notices. */
template <typename T>
__global__ void column_maxima(int64_t n, const int64_t *col_ptr, const int64_t *diag_pos, const T *values,
                              const unsigned long long *max_m_bits, int64_t thread_entries,
                              unsigned long long *maxima) {
  constexpr int batch = TSI_LU_QUALITY_BATCH;
  const double max_m_read = __longlong_as_double((long long)*max_m_bits);
  const double max_m = max_m_read > 0.0 ? max_m_read : 1.0;
  double max_l = 0.0, max_u = 0.0;
  unsigned long long smallest = ~0ull;
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
    const int64_t diag = diag_pos[k], begin = col_ptr[k], end = col_ptr[k + 1];
    const unsigned long long key = tsi_lu_pivot_key(magnitude(widen(values[diag])) / max_m, k);
    smallest = key < smallest ? key : smallest;
    if (end - begin > thread_entries)
      continue;
    for (int64_t base = begin; base < end; base += batch) {
      double v[batch];
#pragma unroll
      for (int b = 0; b < batch; b++)
        v[b] = base + b < end ? magnitude(widen(values[base + b])) : 0.0;
#pragma unroll
      for (int b = 0; b < batch; b++) {
        if (base + b <= diag)
          max_u = fmax(max_u, v[b]);
        else
          max_l = fmax(max_l, v[b]);
      }
    }
  }
  publish(max_l, max_u, smallest, maxima);
}

/* A block a chunk of a long column: entries [chunk_first, +
 * TSI_LU_QUALITY_CHUNK) of column chunk_column, so that a rail's or a
 * dense front's column of 10^5 entries is read by many blocks at once
 * instead of one warp's chain of loads. */
template <typename T>
__global__ void __launch_bounds__(TSI_LU_QUALITY_CHUNK_THREADS)
    chunk_maxima(const int32_t *chunk_column, const int64_t *chunk_first, const int64_t *col_ptr,
                 const int64_t *diag_pos, const T *values, unsigned long long *maxima) {
  constexpr int per_thread = TSI_LU_QUALITY_CHUNK / TSI_LU_QUALITY_CHUNK_THREADS;
  const int32_t k = chunk_column[blockIdx.x];
  const int64_t first = chunk_first[blockIdx.x], diag = diag_pos[k], end = col_ptr[k + 1];
  double v[per_thread];
#pragma unroll
  for (int b = 0; b < per_thread; b++) {
    const int64_t p = first + threadIdx.x + (int64_t)b * TSI_LU_QUALITY_CHUNK_THREADS;
    v[b] = p < end && p < first + TSI_LU_QUALITY_CHUNK ? magnitude(widen(values[p])) : 0.0;
  }
  double max_l = 0.0, max_u = 0.0;
#pragma unroll
  for (int b = 0; b < per_thread; b++) {
    if (first + threadIdx.x + (int64_t)b * TSI_LU_QUALITY_CHUNK_THREADS <= diag)
      max_u = fmax(max_u, v[b]);
    else
      max_l = fmax(max_l, v[b]);
  }
  publish(max_l, max_u, ~0ull, maxima);
}

template <typename T>
void launch_maxima(const tsi_lu_device *dev, const void *values, unsigned long long *maxima, cudaStream_t stream) {
  const int64_t blocks = (dev->n + TSI_LU_ELEMENTWISE_THREADS - 1) / TSI_LU_ELEMENTWISE_THREADS;
  const unsigned grid = (unsigned)(blocks < TSI_LU_ELEMENTWISE_BLOCKS ? blocks : TSI_LU_ELEMENTWISE_BLOCKS);
  column_maxima<T><<<grid, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(dev->n, dev->col_ptr, dev->diag_pos,
                                                                    static_cast<const T *>(values), dev->max_bits,
                                                                    dev->quality_thread_entries, maxima);
  for (int64_t first = 0; first < dev->quality_chunks; first += TSI_LU_QUALITY_MOST_BLOCKS) {
    const int64_t left = dev->quality_chunks - first;
    chunk_maxima<T><<<(unsigned)(left < TSI_LU_QUALITY_MOST_BLOCKS ? left : TSI_LU_QUALITY_MOST_BLOCKS),
                      TSI_LU_QUALITY_CHUNK_THREADS, 0, stream>>>(dev->quality_chunk_column + first,
                                                                 dev->quality_chunk_first + first, dev->col_ptr,
                                                                 dev->diag_pos, static_cast<const T *>(values), maxima);
  }
}

/* The chunks of the columns longer than a thread takes (host pattern),
 * on the device; built at the first check of an analysis. */
ts_status build_chunks(ts_lu *lu, tsi_lu_device *dev) {
  const int64_t n = lu->n, *col_ptr = lu->lu_col_ptr;
  const int64_t thread_entries =
      lu->switches.gpu_quality_thread > 0 ? lu->switches.gpu_quality_thread : TSI_LU_QUALITY_THREAD_ENTRIES;
  int64_t chunks = 0;
  for (int64_t k = 0; k < n; k++)
    if (col_ptr[k + 1] - col_ptr[k] > thread_entries)
      chunks += (col_ptr[k + 1] - col_ptr[k] + TSI_LU_QUALITY_CHUNK - 1) / TSI_LU_QUALITY_CHUNK;
  dev->quality_thread_entries = thread_entries;
  dev->quality_ready = 1;
  if (chunks == 0)
    return TS_SUCCESS;
  int32_t *column = (int32_t *)tsi_malloc_array(chunks, sizeof(int32_t));
  int64_t *first = (int64_t *)tsi_malloc_array(chunks, sizeof(int64_t));
  ts_status st = TS_SUCCESS;
  if (!column || !first) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for the pivot check's %lld chunks",
                   (long long)chunks);
  } else {
    int64_t c = 0;
    for (int64_t k = 0; k < n; k++)
      if (col_ptr[k + 1] - col_ptr[k] > thread_entries)
        for (int64_t p = col_ptr[k]; p < col_ptr[k + 1]; p += TSI_LU_QUALITY_CHUNK) {
          column[c] = (int32_t)k;
          first[c++] = p;
        }
    st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->quality_chunk_column, chunks, sizeof(int32_t),
                             "the pivot check's chunks");
    if (st == TS_SUCCESS)
      st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->quality_chunk_first, chunks, sizeof(int64_t),
                               "the pivot check's chunks");
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_device(lu->ctx, dev->quality_chunk_column, column, (size_t)chunks * sizeof(int32_t));
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_device(lu->ctx, dev->quality_chunk_first, first, (size_t)chunks * sizeof(int64_t));
    if (st == TS_SUCCESS)
      dev->quality_chunks = chunks;
  }
  free(column);
  free(first);
  if (st != TS_SUCCESS)
    dev->quality_ready = 0;
  return st;
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
  if (!dev->quality_ready) {
    ts_status st = build_chunks(lu, dev);
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
    if (dev->parts == 2 && dev->single)
      launch_maxima<tsi_complex64>(dev, dev->values, maxima, stream);
    else if (dev->parts == 2)
      launch_maxima<tsi_complex128>(dev, dev->values, maxima, stream);
    else if (dev->single)
      launch_maxima<float>(dev, dev->values, maxima, stream);
    else
      launch_maxima<double>(dev, dev->values, maxima, stream);
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
