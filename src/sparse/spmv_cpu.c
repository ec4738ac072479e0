/* y = alpha*A*x + beta*y, CSR, on the host with OpenMP: one row per
 * iteration, each row summed in storage order (deterministic). */
#include "core/internal.h"
#include "sparse/sparse_tuning.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define TSI_VALUE float
#define TSI_NAME(x) x##_f32
#include "sparse/spmv_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_NAME(x) x##_f64
#include "sparse/spmv_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

ts_status ts_csr_spmv_host(ts_context *ctx, double alpha, const ts_csr *a, const void *x, double beta, void *y) {
  if (!a)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_spmv_host: matrix is NULL");
  if ((a->rows > 0 && !y) || (a->nnz > 0 && !x))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_spmv_host: x or y is NULL");
  if (a->symmetry != TS_GENERAL)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_csr_spmv_host: matrix holds %s storage; expand it with ts_coo_expand_symmetric first",
                     ts_symmetry_name(a->symmetry));
  int threads = ctx ? ctx->num_threads : 0;
  switch (a->dtype) {
  case TS_FLOAT32:
    spmv_csr_host_f32(a, (float)alpha, (const float *)x, (float)beta, (float *)y, threads);
    return TS_SUCCESS;
  case TS_FLOAT64:
    spmv_csr_host_f64(a, alpha, (const double *)x, beta, (double *)y, threads);
    return TS_SUCCESS;
  }
  return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_spmv_host: unknown value type %d", (int)a->dtype);
}
