/* The GPU GEMM: one launch of the tiled kernel in the configuration asked
 * for (every entry of TSI_GEMM_CONFIG_LIST is instantiated here), and the
 * C = beta C special case. Asynchronous on the context's stream. */
#include "gemm/gemm_cuda_kernel.cuh"
#include "gemm/gemm_internal.h"

#include <cuda_runtime.h>

static const char *const launch_name = "ts_gemm";

template <typename T, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int TM, int TN, int MIN_BLOCKS>
static ts_status launch_gemm(ts_context *ctx, const tsi_gemm_args *g) {
  int64_t tiles_m = (g->m + BM - 1) / BM, tiles_n = (g->n + BN - 1) / BN;
  if (tiles_m * tiles_n > INT32_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_gemm: %lld x %lld output tiles pass the grid limit",
                     (long long)tiles_m, (long long)tiles_n);
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  constexpr int shared_bytes = tsi_gemm_shared_bytes<T, BM, BN, BK>();
  auto kernel = tsi_gemm_kernel<T, BM, BN, BK, WARPS_M, WARPS_N, TM, TN, MIN_BLOCKS>;
  if (shared_bytes > 48 * 1024) { /* above the default limit: opt in (per device, idempotent) */
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
    if (err != cudaSuccess)
      return tsi_cuda_error(ctx, err, "ts_gemm: %d bytes of shared memory per block", shared_bytes);
  }
  /* A is read along k when transposed; B when not (column-major op(B) is k x n). */
  kernel<<<(unsigned)(tiles_m * tiles_n), 32 * WARPS_M * WARPS_N, shared_bytes, stream>>>(
      (int)g->m, (int)g->n, (int)g->k, (T)g->alpha, (T)g->beta, (const T *)g->a, g->lda, g->trans_a, (const T *)g->b,
      g->ldb, !g->trans_b, (T *)g->c, g->ldc, (int)tiles_m, (int)tiles_n);
  return tsi_cuda_check_launch(ctx, launch_name);
}

ts_status tsi_gemm_cuda(ts_context *ctx, const tsi_gemm_args *args, int config_id) {
  const tsi_gemm_config *config = tsi_gemm_config_get(config_id);
  if (!config || config->dtype != args->dtype)
    return tsi_error(ctx, TS_ERROR_INTERNAL, "ts_gemm: configuration %d does not run this precision", config_id);
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  switch (config_id) {
#define TSI_GEMM_CONFIG_CASE(id, dtype, type, bm, bn, bk, wm, wn, tm, tn, regs, bps, efficiency)                       \
  case id:                                                                                                             \
    return launch_gemm<type, bm, bn, bk, wm, wn, tm, tn, bps>(ctx, args);
    TSI_GEMM_CONFIG_LIST(TSI_GEMM_CONFIG_CASE)
#undef TSI_GEMM_CONFIG_CASE
  default:
    return tsi_error(ctx, TS_ERROR_INTERNAL, "ts_gemm: configuration %d has no kernel", config_id);
  }
}

/* C = beta C over an m x n column-major matrix; beta = 0 writes zeros
 * without reading C. */
template <typename T> __global__ void gemm_scale_kernel(int64_t m, int64_t n, T beta, T *c, int64_t ldc) {
  int64_t total = m * n;
  for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < total; x += (int64_t)gridDim.x * blockDim.x) {
    T *out = c + (x / m) * ldc + x % m;
    *out = beta == T(0) ? T(0) : beta * *out;
  }
}

ts_status tsi_gemm_cuda_scale(ts_context *ctx, const tsi_gemm_args *g) {
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  constexpr int threads = TSI_GEMM_SCALE_THREADS;
  int64_t blocks = (g->m * g->n + threads - 1) / threads; /* m, n < 2^31: no overflow */
  if (blocks > TSI_GEMM_SCALE_MAX_BLOCKS)
    blocks = TSI_GEMM_SCALE_MAX_BLOCKS;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  if (g->dtype == TS_FLOAT32)
    gemm_scale_kernel<float>
        <<<(unsigned)blocks, threads, 0, stream>>>(g->m, g->n, (float)g->beta, (float *)g->c, g->ldc);
  else
    gemm_scale_kernel<double><<<(unsigned)blocks, threads, 0, stream>>>(g->m, g->n, g->beta, (double *)g->c, g->ldc);
  return tsi_cuda_check_launch(ctx, "ts_gemm (C = beta C)");
}

ts_status tsi_gemm_cuda_multiprocessors(ts_context *ctx, int *multiprocessors) {
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaError_t err = cudaDeviceGetAttribute(multiprocessors, cudaDevAttrMultiProcessorCount, ctx->device);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_gemm: cudaDeviceGetAttribute(SM count)");
  return TS_SUCCESS;
}
