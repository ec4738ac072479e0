/* y = alpha*A*x + beta*y, CSR, on the host with OpenMP: one row per
 * iteration, each row summed in storage order (deterministic). Real types
 * sum in their own precision; complex types in complex double (complex64
 * rounded once, at the store), alpha and beta real. */
#include "core/complex_value.h"
#include "core/internal.h"
#include "sparse/sparse_tuning.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* The real types: the operators, in the type's own precision. */
#define TSI_SUM_ZERO 0
#define TSI_SUM_ADD_PRODUCT(sum, a, x) ((sum) + (a) * (x))
#define TSI_SUM_STORE(alpha, sum, beta, y)                                                                             \
  ((TSI_SUM)(beta) == 0 ? (TSI_SUM)(alpha) * (sum) : (TSI_SUM)(alpha) * (sum) + (TSI_SUM)(beta) * (y))

#define TSI_VALUE float
#define TSI_SUM float
#define TSI_NAME(x) x##_f32
#include "sparse/spmv_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_SUM
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_SUM double
#define TSI_NAME(x) x##_f64
#include "sparse/spmv_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_SUM
#undef TSI_NAME
#undef TSI_SUM_ZERO
#undef TSI_SUM_ADD_PRODUCT
#undef TSI_SUM_STORE

/* The complex types: in complex double. */
static inline tsi_complex128 scaled_sum(double alpha, tsi_complex128 sum, double beta, tsi_complex128 y) {
  return beta == 0 ? tsi_z_scale(alpha, sum) : tsi_z_add(tsi_z_scale(alpha, sum), tsi_z_scale(beta, y));
}
#define TSI_SUM tsi_complex128
#define TSI_SUM_ZERO tsi_z(0.0, 0.0)

#define TSI_VALUE tsi_complex64
#define TSI_NAME(x) x##_c64
#define TSI_SUM_ADD_PRODUCT(sum, a, x) tsi_z_plus_product((sum), tsi_z_widen(a), tsi_z_widen(x))
#define TSI_SUM_STORE(alpha, sum, beta, y) tsi_z_narrow(scaled_sum((alpha), (sum), (beta), tsi_z_widen(y)))
#include "sparse/spmv_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME
#undef TSI_SUM_ADD_PRODUCT
#undef TSI_SUM_STORE

#define TSI_VALUE tsi_complex128
#define TSI_NAME(x) x##_c128
#define TSI_SUM_ADD_PRODUCT(sum, a, x) tsi_z_plus_product((sum), (a), (x))
#define TSI_SUM_STORE(alpha, sum, beta, y) scaled_sum((alpha), (sum), (beta), (y))
#include "sparse/spmv_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME
#undef TSI_SUM_ADD_PRODUCT
#undef TSI_SUM_STORE
#undef TSI_SUM
#undef TSI_SUM_ZERO

ts_status tsi_csr_spmv_host_checked(ts_context *ctx, double alpha, const ts_csr *a, const void *x, double beta,
                                    void *y) {
  int threads = ctx ? ctx->num_threads : 0;
  switch (a->dtype) {
  case TS_FLOAT32:
    spmv_csr_host_f32(a, alpha, (const float *)x, beta, (float *)y, threads);
    break;
  case TS_COMPLEX64:
    spmv_csr_host_c64(a, alpha, (const tsi_complex64 *)x, beta, (tsi_complex64 *)y, threads);
    break;
  case TS_COMPLEX128:
    spmv_csr_host_c128(a, alpha, (const tsi_complex128 *)x, beta, (tsi_complex128 *)y, threads);
    break;
  default:
    spmv_csr_host_f64(a, alpha, (const double *)x, beta, (double *)y, threads);
    break;
  }
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
