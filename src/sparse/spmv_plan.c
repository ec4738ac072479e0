/* Plan then execute for y = alpha*A*x + beta*y on the context's backend. */
#include "spmv_plan.h"

#include <stdlib.h>

ts_status ts_spmv_plan_create(ts_context *ctx, const ts_csr *a, ts_spmv_plan **plan) {
  if (!ctx || !a || !plan)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_plan_create: NULL argument");
  *plan = NULL;
  if (a->symmetry != TS_GENERAL)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmv_plan_create: matrix holds %s storage; expand it with ts_coo_expand_symmetric first",
                     ts_symmetry_name(a->symmetry));
  ts_status st = ts_csr_check(ctx, a);
  if (st != TS_SUCCESS)
    return st;
  ts_spmv_plan *p = calloc(1, sizeof *p);
  if (!p)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_spmv_plan_create: out of host memory");
  p->ctx = ctx;
  p->rows = a->rows;
  p->cols = a->cols;
  p->nnz = a->nnz;
  p->dtype = a->dtype;
  if (ctx->backend == TS_BACKEND_CUDA)
    st = tsi_spmv_cuda_upload(p, a);
  else
    st = ts_csr_copy(ctx, a, &p->host);
  if (st != TS_SUCCESS) {
    ts_spmv_plan_destroy(p);
    return st;
  }
  *plan = p;
  return TS_SUCCESS;
}

void ts_spmv_plan_destroy(ts_spmv_plan *plan) {
  if (!plan)
    return;
  if (plan->ctx->backend == TS_BACKEND_CUDA)
    tsi_spmv_cuda_release(plan);
  ts_csr_destroy(plan->host);
  free(plan);
}

int64_t ts_spmv_plan_bytes(const ts_spmv_plan *plan) {
  if (!plan)
    return 0;
  int64_t v = (int64_t)ts_dtype_size(plan->dtype);
  int64_t offset = (plan->ctx->backend == TS_BACKEND_CUDA && !plan->wide_offsets) ? 4 : 8;
  /* values + column indices, row offsets, x read once, y read and written. */
  return plan->nnz * (v + 4) + (plan->rows + 1) * offset + plan->cols * v + 2 * plan->rows * v;
}

ts_status ts_spmv_execute(ts_spmv_plan *plan, double alpha, const ts_buffer *x, double beta, ts_buffer *y) {
  if (!plan || !x || !y)
    return tsi_error(plan ? plan->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_execute: NULL argument");
  ts_context *ctx = plan->ctx;
  size_t v = ts_dtype_size(plan->dtype);
  if (tsi_buffer_context(x) != ctx || tsi_buffer_context(y) != ctx)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_execute: x and y must belong to the plan's context");
  if (ts_buffer_memory(x) != TS_MEMORY_DEVICE || ts_buffer_memory(y) != TS_MEMORY_DEVICE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_execute: x and y must be TS_MEMORY_DEVICE buffers");
  if (ts_buffer_size(x) < (size_t)plan->cols * v || ts_buffer_size(y) < (size_t)plan->rows * v)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmv_execute: x holds %zu bytes and y %zu; the matrix needs %lld and %lld", ts_buffer_size(x),
                     ts_buffer_size(y), (long long)(plan->cols * (int64_t)v), (long long)(plan->rows * (int64_t)v));
  if (ctx->backend == TS_BACKEND_CUDA)
    return tsi_spmv_cuda_execute(plan, alpha, ts_buffer_data(x), beta, ts_buffer_data(y));
  return ts_csr_spmv_host(ctx, alpha, plan->host, ts_buffer_data(x), beta, ts_buffer_data(y));
}
