/* C = alpha op(A) op(B) + beta C on the CPU backend (OpenMP), and the
 * C = beta C special case; the reference the GPU kernels are tested against
 * besides the naive product in double. */
#include "gemm/gemm_internal.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define TSI_VALUE float
#define TSI_NAME(x) x##_f32
#include "gemm/gemm_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_NAME(x) x##_f64
#include "gemm/gemm_cpu_impl.h"
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
