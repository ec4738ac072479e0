/* The SpMV locality layouts on the GPU (spmv_locality.h): the extended x of
 * the hot columns, the run sums of the segmented long rows with each
 * segment's part of x staged in shared memory, and their addition into y.
 * Every sum has an order fixed by the plan: results repeat bitwise. */
#include "cuda_arch_limits.cuh"
#include "spmv_locality.h"
#include "tessera/lb.cuh"

#include <cuda_runtime.h>

namespace lb = tessera::lb;

namespace {

constexpr int segment_block = 512;

/* x_ext[cols + k] = x[hot[k]] (x_ext[0 .. cols) is copied before). */
template <class T>
__global__ void hot_gather(int64_t cols, int64_t hot, const int32_t *hot_cols, const T *x, T *x_ext) {
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < hot; k += (int64_t)gridDim.x * blockDim.x)
    x_ext[cols + k] = x[__ldg(hot_cols + k)];
}

/*
 * One block per item (consecutive runs of one segment): the segment's part
 * of x into shared memory, then an even share of the item's entries per
 * thread; a run closed by a thread is written by it, and the part of a run
 * begun in earlier threads reaches the thread that closes it through a
 * segmented scan over the block (Merrill and Garland's carry-out, as the
 * layer's chunked schedules do it).
 */
template <class T>
__global__ void __launch_bounds__(segment_block, tsi_min_blocks_per_sm(segment_block, 2))
    segment_runs(const int64_t *__restrict__ item_run, const int32_t *__restrict__ item_segment,
                 const int64_t *__restrict__ run_ptr, const uint16_t *__restrict__ cols, const T *__restrict__ vals,
                 const T *__restrict__ x, int64_t x_len, int width, T *__restrict__ partials) {
  extern __shared__ __align__(16) unsigned char staged[];
  __shared__ lb::scan_storage<segment_block, T> scan;
  T *xs = reinterpret_cast<T *>(staged);
  const int64_t item = blockIdx.x;
  const int64_t r0 = item_run[item], r1 = item_run[item + 1];
  const int64_t base = (int64_t)item_segment[item] * width;
  const int64_t span = x_len - base < width ? x_len - base : width;
  for (int64_t i = threadIdx.x; i < span; i += segment_block)
    xs[i] = __ldg(x + base + i);
  __syncthreads();

  const int64_t e0 = run_ptr[r0], e1 = run_ptr[r1];
  const int64_t per = (e1 - e0 + segment_block - 1) / segment_block;
  const int64_t a = e0 + per * threadIdx.x < e1 ? e0 + per * threadIdx.x : e1;
  const int64_t b = a + per < e1 ? a + per : e1;
  /* The run holding entry a: the last whose first entry is at or before a. */
  int64_t run = lb::upper_bound_index<int64_t>(r0 + 1, r1, a, [run_ptr](int64_t r) { return __ldg(run_ptr + r); }) - 1;
  int64_t end = a < e1 ? __ldg(run_ptr + run + 1) : e1;
  T acc = T(0), head = T(0);
  int64_t head_run = 0;
  bool closed = false;
#pragma unroll 4
  for (int64_t k = a; k < b; k++) {
    acc += __ldg(vals + k) * xs[__ldg(cols + k)];
    if (k + 1 == end) {
      /* Run `run` ends here: its first closing is this thread's head (begun
       * maybe in an earlier thread), the others are whole. */
      if (!closed) {
        head = acc;
        head_run = run;
        closed = true;
      } else {
        partials[run] = acc;
      }
      acc = T(0);
      run++;
      end = run < r1 ? __ldg(run_ptr + run + 1) : e1;
    }
  }
  lb::unit<segment_block, segment_block> unit;
  lb::segmented_scan_result<T> joined = lb::segmented_scan(unit, scan, closed, acc, T(0), lb::plus{});
  if (closed)
    partials[head_run] = joined.exclusive + head;
}

/* y[row] += alpha * (its runs' sums in segment order): a warp a long row,
 * lanes striding its runs, then a fixed butterfly. */
template <class T>
__global__ void add_runs(int64_t long_rows, const int32_t *__restrict__ long_row,
                         const int64_t *__restrict__ row_run_ptr, const int32_t *__restrict__ row_runs,
                         const T *__restrict__ partials, T alpha, T *y) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < long_rows; i += warps) {
    T sum = T(0);
    for (int64_t k = __ldg(row_run_ptr + i) + lane; k < __ldg(row_run_ptr + i + 1); k += 32)
      sum += partials[__ldg(row_runs + k)];
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0) {
      const int32_t row = __ldg(long_row + i);
      y[row] = y[row] + alpha * sum;
    }
  }
}

template <class T> cudaError_t run_segments(const tsi_spmv_locality *l, T alpha, const T *x, T *y, cudaStream_t s) {
  const size_t shared = (size_t)l->segment_width * sizeof(T);
  segment_runs<T><<<(unsigned)l->items, segment_block, shared, s>>>(
      l->item_run, l->item_segment, l->run_ptr, l->seg_cols, static_cast<const T *>(l->seg_vals), x, l->cols,
      l->segment_width, static_cast<T *>(l->partials));
  cudaError_t err = cudaPeekAtLastError();
  if (err != cudaSuccess)
    return err;
  const int threads = 256;
  int64_t blocks = (l->long_rows * 32 + threads - 1) / threads;
  if (blocks > 65535)
    blocks = 65535;
  add_runs<T><<<(unsigned)blocks, threads, 0, s>>>(l->long_rows, l->long_row, l->row_run_ptr, l->row_runs,
                                                   static_cast<const T *>(l->partials), alpha, y);
  return cudaPeekAtLastError();
}

} // namespace

extern "C" ts_status tsi_spmv_segments_prepare(ts_context *ctx, const tsi_spmv_locality *l) {
  /* Shared memory above 48 KB a block is an opt-in, per kernel and device. */
  cudaError_t err = l->dtype == TS_FLOAT32
                        ? cudaFuncSetAttribute(segment_runs<float>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)((size_t)l->segment_width * sizeof(float)))
                        : cudaFuncSetAttribute(segment_runs<double>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)((size_t)l->segment_width * sizeof(double)));
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_spmv_plan_create_ex: %zu bytes of shared memory a block for x's segments",
                          (size_t)l->segment_width * ts_dtype_size(l->dtype));
  return TS_SUCCESS;
}

extern "C" ts_status tsi_spmv_hot_fill(ts_context *ctx, const tsi_spmv_locality *l, const void *x) {
  cudaStream_t s = (cudaStream_t)ctx->stream;
  const size_t value = ts_dtype_size(l->dtype);
  void *x_ext = ts_buffer_data(l->x_ext);
  cudaError_t err = cudaMemcpyAsync(x_ext, x, (size_t)l->cols * value, cudaMemcpyDeviceToDevice, s);
  if (err == cudaSuccess) {
    const unsigned blocks = (unsigned)((l->hot + 255) / 256);
    if (l->dtype == TS_FLOAT32)
      hot_gather<float><<<blocks, 256, 0, s>>>(l->cols, l->hot, l->hot_cols, static_cast<const float *>(x),
                                               static_cast<float *>(x_ext));
    else
      hot_gather<double><<<blocks, 256, 0, s>>>(l->cols, l->hot, l->hot_cols, static_cast<const double *>(x),
                                                static_cast<double *>(x_ext));
    err = cudaPeekAtLastError();
  }
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_spmv_execute: the hot columns' copy of x");
  return tsi_cuda_check_launch(ctx, "ts_spmv_execute (hot columns)");
}

extern "C" ts_status tsi_spmv_segments_run(ts_context *ctx, const tsi_spmv_locality *l, double alpha, const void *x,
                                           void *y) {
  if (l->items == 0)
    return TS_SUCCESS;
  cudaStream_t s = (cudaStream_t)ctx->stream;
  cudaError_t err =
      l->dtype == TS_FLOAT32
          ? run_segments<float>(l, (float)alpha, static_cast<const float *>(x), static_cast<float *>(y), s)
          : run_segments<double>(l, alpha, static_cast<const double *>(x), static_cast<double *>(y), s);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_spmv_execute: the segmented long rows");
  return tsi_cuda_check_launch(ctx, "ts_spmv_execute (segmented long rows)");
}
