/* The interface between the GEMM entry point (gemm.c: checks, special
 * cases, dispatch) and its backends (gemm_cpu.c, gemm_cuda.cu). */
#ifndef TESSERA_GEMM_INTERNAL_H
#define TESSERA_GEMM_INTERNAL_H

#include "gemm/gemm_configs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One checked product: m, n, k > 0 (each at most INT32_MAX), column-major
 * operands as stored (a is m x k, or k x m when trans_a), C not overlapping
 * A or B. alpha and beta in double; the backends round them to dtype. */
typedef struct tsi_gemm_args {
  ts_dtype dtype;
  int64_t m, n, k;
  double alpha, beta;
  const void *a;
  int64_t lda;
  bool trans_a;
  const void *b;
  int64_t ldb;
  bool trans_b;
  void *c;
  int64_t ldc;
} tsi_gemm_args;

/* C = alpha op(A) op(B) + beta C on the host (OpenMP), blocked. */
ts_status tsi_gemm_cpu(ts_context *ctx, const tsi_gemm_args *args);

/* C = beta C on the host (beta = 0 writes zeros without reading C). */
void tsi_gemm_cpu_scale(const tsi_gemm_args *args);

/* The same on the context's stream with configuration config_id. */
ts_status tsi_gemm_cuda(ts_context *ctx, const tsi_gemm_args *args, int config_id);
ts_status tsi_gemm_cuda_scale(ts_context *ctx, const tsi_gemm_args *args);

/* SMs of the context's GPU (a cheap attribute query). */
ts_status tsi_gemm_cuda_multiprocessors(ts_context *ctx, int *multiprocessors);

#ifdef __cplusplus
}
#endif

#endif
