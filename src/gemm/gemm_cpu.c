/* C = alpha op(A) op(B) + beta C on the CPU backend (OpenMP), and the
 * C = beta C special case; the reference the GPU kernels are tested against
 * besides the naive product in double. */
#include "gemm_internal.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Tile of C per task and depth of one packed slice: the two panels and the
 * accumulator (64*256 + 256*64 + 64*64 values, 144 KiB in double) stay in a
 * core's L2. */
#define TSI_GEMM_CPU_MB ((int64_t)64)
#define TSI_GEMM_CPU_NB ((int64_t)64)
#define TSI_GEMM_CPU_KB ((int64_t)256)

#define TSI_VALUE float
#define TSI_NAME(x) x##_f32
#include "gemm_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_NAME(x) x##_f64
#include "gemm_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

ts_status tsi_gemm_cpu(ts_context *ctx, const tsi_gemm_args *args) {
  return args->dtype == TS_FLOAT32 ? gemm_host_f32(ctx, args) : gemm_host_f64(ctx, args);
}

void tsi_gemm_cpu_scale(const tsi_gemm_args *args) {
  if (args->dtype == TS_FLOAT32)
    gemm_scale_host_f32(args);
  else
    gemm_scale_host_f64(args);
}
