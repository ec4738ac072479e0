/* SpMV plan internals: the plan's fields, the operand's row-length shape and
 * the AUTO heuristic (spmv_auto.c) that reads it. */
#ifndef TESSERA_SPMV_PLAN_H
#define TESSERA_SPMV_PLAN_H

#include "core/internal.h"
#include "sparse/spmv_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room for ts_spmv_plan_explain()'s line. */
#define TSI_SPMV_EXPLAIN_SIZE 384

/* Row-length shape of the operand (A, or A^T for the transpose): what the
 * schedules' costs depend on. */
typedef struct tsi_spmv_shape {
  int64_t rows, cols, nnz;
  int64_t max_row, empty_rows;
  double mean_row;
  double cv_row; /* coefficient of variation: population stddev / mean (0 when mean is 0) */
} tsi_spmv_shape;

/* y = alpha*A*x + beta*y on the host for a matrix already checked and
 * vectors known not to overlap (the plan's own copy, its buffers). */
ts_status tsi_csr_spmv_host_checked(ts_context *ctx, double alpha, const ts_csr *a, const void *x, double beta,
                                    void *y);

/* Shape of a CSR operand from its offsets (O(rows)). */
void tsi_spmv_shape_of(int64_t rows, int64_t cols, const int64_t *offsets, tsi_spmv_shape *shape);

/* The AUTO heuristic: the schedule (never AUTO) and its group size (a power
 * of two for TS_SCHEDULE_GROUP_MAPPED, else 0) for @p shape; writes the
 * statistics and thresholds that decided into @p reason. @p group_size_hint
 * (0 = none) is the caller's group size, kept when the choice is group-mapped. */
ts_schedule tsi_spmv_auto_choose(const tsi_spmv_shape *shape, int group_size_hint, int *group_size, char *reason,
                                 size_t reason_size);

/* Group size used for TS_SCHEDULE_GROUP_MAPPED when the caller leaves it 0. */
int tsi_spmv_default_group_size(const tsi_spmv_shape *shape);
/* Threads a short row (1, 2, 4 or 8) for split-rows when nobody chose. */
int tsi_spmv_split_default_lanes(const tsi_spmv_shape *shape);

struct ts_spmv_plan {
  ts_context *ctx;
  ts_operation op;
  int64_t rows, cols, nnz; /* of A as given (the operand is A^T for the transpose) */
  ts_dtype dtype;
  ts_schedule schedule;               /* resolved, never AUTO */
  int group_size;                     /* threads a group (group-mapped) or a short row (split-rows), else 0 */
  tsi_spmv_shape shape;               /* of the operand */
  ts_csr *host;                       /* CPU backend: the operand (A, or the CSR of A^T) */
  tsi_spmv_device_matrix device;      /* CUDA backend: the operand in GPU memory */
  void *workspace;                    /* CUDA backend: the schedule's workspace */
  struct tsi_spmv_locality *locality; /* CUDA backend: a locality layout (spmv_locality.h) running instead, or NULL */
  size_t workspace_bytes;
  char explain[TSI_SPMV_EXPLAIN_SIZE];
};

#ifdef __cplusplus
}
#endif

#endif
