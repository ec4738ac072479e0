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

ts_status tsi_csr_spmv_host_checked(ts_context *ctx, double alpha, const ts_csr *a, const void *x, double beta,
                                    void *y) {
  int threads = ctx ? ctx->num_threads : 0;
  if (a->dtype == TS_FLOAT32)
    spmv_csr_host_f32(a, (float)alpha, (const float *)x, (float)beta, (float *)y, threads);
  else
    spmv_csr_host_f64(a, alpha, (const double *)x, beta, (double *)y, threads);
  return TS_SUCCESS;
}

ts_status ts_csr_spmv_host(ts_context *ctx, double alpha, const ts_csr *a, const void *x, double beta, void *y) {
  const char *op = "ts_csr_spmv_host";
  if (!a)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: matrix is NULL", op);
  if (a->symmetry != TS_GENERAL && (unsigned)a->symmetry <= (unsigned)TS_HERMITIAN)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: matrix holds %s storage; expand it with ts_coo_expand_symmetric first", op,
                     ts_symmetry_name(a->symmetry));
  /* Offsets, indices and values are read unguarded below: check them all,
   * as every other consumer of a CSR does. */
  ts_status st = tsi_csr_check(ctx, op, a);
  if (st != TS_SUCCESS)
    return st;
  if ((a->rows > 0 && !y) || (a->nnz > 0 && !x))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: x or y is NULL", op);
  size_t v = ts_dtype_size(a->dtype);
  if (tsi_ranges_overlap(x, (size_t)a->cols * v, y, (size_t)a->rows * v))
    return tsi_error(
        ctx, TS_ERROR_INVALID_ARGUMENT,
        "%s: x and y overlap; y = alpha*A*x + beta*y needs separate vectors (y is written while x is read)", op);
  return tsi_csr_spmv_host_checked(ctx, alpha, a, x, beta, y);
}
