/* C = alpha*A*B + beta*C with CSR A and dense B, C on the host (OpenMP):
 * the CPU backend of SpMM and the reference of the GPU path. */
#include "spmm_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Columns of C a row accumulates at once (on the stack). */
#define TSI_SPMM_HOST_COLUMNS 256

#define TSI_VALUE float
#define TSI_NAME(x) x##_f32
#include "spmm_host_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_NAME(x) x##_f64
#include "spmm_host_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

ts_status ts_csr_spmm_host(ts_context *ctx, double alpha, const ts_csr *a, int64_t width, const void *b,
                           ts_layout layout_b, int64_t ld_b, double beta, void *c, ts_layout layout_c, int64_t ld_c) {
  static const char op[] = "ts_csr_spmm_host";
  if (!a)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: matrix is NULL", op);
  ts_status st = tsi_require_general(ctx, op, "A", a);
  if (st == TS_SUCCESS)
    st = tsi_require_real(ctx, op, "A", a->dtype);
  if (st != TS_SUCCESS)
    return st;
  tsi_dense_shape bs, cs;
  st = tsi_spmm_check_shapes(ctx, op, a, width, layout_b, ld_b, layout_c, ld_c, &bs, &cs);
  if (st != TS_SUCCESS)
    return st;
  st = ts_csr_check(ctx, a);
  if (st != TS_SUCCESS)
    return st;
  const int64_t size = (int64_t)ts_dtype_size(a->dtype);
  if ((bs.elements > 0 && !b) || (cs.elements > 0 && !c))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: B or C is NULL", op);
  if (tsi_ranges_overlap(b, (size_t)(bs.elements * size), c, (size_t)(cs.elements * size)))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: B and C overlap (C is written while B is read)", op);
  tsi_spmm_host_run(ctx, alpha, a, b, &bs, beta, c, &cs);
  return TS_SUCCESS;
}

void tsi_spmm_host_run(ts_context *ctx, double alpha, const ts_csr *a, const void *b, const tsi_dense_shape *bs,
                       double beta, void *c, const tsi_dense_shape *cs) {
  const int threads = ctx ? ctx->num_threads : 0;
  if (a->dtype == TS_FLOAT32)
    spmm_host_f32(a, (float)alpha, (const float *)b, bs, (float)beta, (float *)c, cs, threads);
  else
    spmm_host_f64(a, alpha, (const double *)b, bs, beta, (double *)c, cs, threads);
}
