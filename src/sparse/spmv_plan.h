/* SpMV plan internals shared by spmv_plan.c and spmv_cuda.cu. */
#ifndef TESSERA_SPMV_PLAN_H
#define TESSERA_SPMV_PLAN_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ts_spmv_plan {
  ts_context *ctx;
  ts_csr *host; /* CPU backend: the plan's own copy of A */
  int64_t rows, cols, nnz;
  ts_dtype dtype;
  bool wide_offsets; /* CUDA: int64 row offsets (nnz > INT32_MAX) */
  void *d_row_ptr;   /* CUDA: int32 or int64 offsets */
  int32_t *d_col_idx;
  void *d_values;
  int lanes_per_row; /* CUDA: threads cooperating on one row */
};

ts_status tsi_spmv_cuda_upload(ts_spmv_plan *plan, const ts_csr *a);
void tsi_spmv_cuda_release(ts_spmv_plan *plan);
ts_status tsi_spmv_cuda_execute(ts_spmv_plan *plan, double alpha, const void *x, double beta, void *y);

#ifdef __cplusplus
}
#endif

#endif
