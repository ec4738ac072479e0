/* y = alpha*A*x + beta*y on the GPU: CSR-vector, a power-of-two group of
 * lanes per row sized from the mean row length (Bell and Garland, SC'09).
 * Each row is reduced by a fixed shuffle tree, so results are bitwise
 * repeatable. This is the foundation's kernel; the load-balancing layer's
 * schedules replace it. */
#include "spmv_cuda.h"

#include <cuda_runtime.h>

template <typename Value, typename Offset, int Lanes>
__global__ void spmv_csr_vector(int64_t rows, const Offset *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
                                const Value *__restrict__ values, Value alpha, const Value *__restrict__ x, Value beta,
                                Value *__restrict__ y) {
  int64_t thread = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t row = thread / Lanes;
  int lane = (int)(thread % Lanes);
  /* Threads past the last row stay for the shuffles: a full-mask shuffle
   * must not name threads that have exited. */
  bool active = row < rows;
  Value sum = 0;
  if (active) {
    Offset end = row_ptr[row + 1];
    for (Offset k = row_ptr[row] + lane; k < end; k += Lanes)
      sum += values[k] * __ldg(&x[col_idx[k]]);
  }
  /* Group of Lanes consecutive threads; a row never straddles a warp. */
  for (int offset = Lanes / 2; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffffu, sum, offset, Lanes);
  if (active && lane == 0)
    y[row] = beta == Value(0) ? alpha * sum : alpha * sum + beta * y[row];
}

/* ---- The plan/kernel interface (spmv_cuda.h). Interim: every schedule runs
 * the CSR-vector kernel; the load-balanced kernels replace it. */

static int lanes_from_mean(double mean) {
  int lanes = 1;
  while (lanes < 32 && lanes < mean)
    lanes *= 2;
  return lanes;
}

template <typename Value, typename Offset>
static void launch_vector(const tsi_spmv_device_matrix *a, Value alpha, const Value *x, Value beta, Value *y,
                          cudaStream_t stream) {
  const int block = 256;
  int lanes = lanes_from_mean(a->mean_row);
  int64_t threads = a->rows * lanes;
  unsigned grid = (unsigned)((threads + block - 1) / block);
  const Offset *rp = (const Offset *)a->offsets;
  const Value *v = (const Value *)a->values;
#define TSI_LAUNCH(L)                                                                                                  \
  case L:                                                                                                              \
    spmv_csr_vector<Value, Offset, L><<<grid, block, 0, stream>>>(a->rows, rp, a->indices, v, alpha, x, beta, y);      \
    break
  switch (lanes) {
    TSI_LAUNCH(1);
    TSI_LAUNCH(2);
    TSI_LAUNCH(4);
    TSI_LAUNCH(8);
    TSI_LAUNCH(16);
  default:
    spmv_csr_vector<Value, Offset, 32><<<grid, block, 0, stream>>>(a->rows, rp, a->indices, v, alpha, x, beta, y);
  }
#undef TSI_LAUNCH
}

extern "C" size_t tsi_spmv_cuda_workspace_bytes(const tsi_spmv_device_matrix *a, ts_schedule schedule, int group_size) {
  (void)a;
  (void)schedule;
  (void)group_size;
  return 0;
}

extern "C" ts_status tsi_spmv_cuda_prepare(ts_context *ctx, const tsi_spmv_device_matrix *a, ts_schedule schedule,
                                           int group_size, void *workspace, size_t workspace_bytes) {
  (void)ctx;
  (void)a;
  (void)schedule;
  (void)group_size;
  (void)workspace;
  (void)workspace_bytes;
  return TS_SUCCESS;
}

extern "C" ts_status tsi_spmv_cuda_run(ts_context *ctx, const tsi_spmv_device_matrix *a, ts_schedule schedule,
                                       int group_size, void *workspace, size_t workspace_bytes, double alpha,
                                       const void *x, double beta, void *y) {
  (void)schedule;
  (void)group_size;
  (void)workspace;
  (void)workspace_bytes;
  if (a->rows == 0)
    return TS_SUCCESS;
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  if (a->dtype == TS_FLOAT32) {
    if (a->wide_offsets)
      launch_vector<float, int64_t>(a, (float)alpha, (const float *)x, (float)beta, (float *)y, stream);
    else
      launch_vector<float, int32_t>(a, (float)alpha, (const float *)x, (float)beta, (float *)y, stream);
  } else {
    if (a->wide_offsets)
      launch_vector<double, int64_t>(a, alpha, (const double *)x, beta, (double *)y, stream);
    else
      launch_vector<double, int32_t>(a, alpha, (const double *)x, beta, (double *)y, stream);
  }
  return tsi_cuda_check_launch(ctx, "ts_spmv_execute");
}
