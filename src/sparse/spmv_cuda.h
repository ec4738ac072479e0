/* The interface between the SpMV plan (host side, spmv_plan.c) and the CUDA
 * kernels of every schedule (spmv_cuda*.cu). The plan uploads the operand,
 * asks for the workspace size, allocates it once, calls prepare once (the
 * device's attributes and the kernel's occupancy are read there), then run
 * as often as the user executes. run asks the device nothing, allocates
 * nothing and does not synchronise the host. */
#ifndef TESSERA_SPMV_CUDA_H
#define TESSERA_SPMV_CUDA_H

#include "core/internal.h"
#include "sparse/sparse_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operand in GPU memory, as a CSR description: for TS_OP_TRANSPOSE the
 * plan uploads the CSC arrays of A, which are the CSR arrays of A^T. */
typedef struct tsi_spmv_device_matrix {
  int64_t rows, cols, nnz; /* of the operand (A^T for the transpose) */
  ts_dtype dtype;
  bool wide_offsets; /* offsets are int64 (nnz > INT32_MAX), else int32 */
  void *offsets;     /* rows + 1 */
  int32_t *indices;  /* nnz */
  void *values;      /* nnz */
  /* Split-rows only: pieces of the long rows, and long rows of more than one
   * piece (counted by the plan, tsi_spmv_split_count()). */
  int64_t split_pieces, split_multi;
  /* The other schedules: blocks of the schedule's kernel the device holds at
   * once (SMs times the kernel's occupancy), found by prepare; the launch
   * shape follows from it. */
  int resident_blocks;
} tsi_spmv_device_matrix;

/* Split-rows schedule (spmv_cuda_split.cu, Osama et al.'s tile splitting in
 * its simplest form): rows of at most TSI_SPLIT_SHORT entries go to 1 to
 * TSI_SPLIT_MAX_LANES threads each (TSI_AUTO_SPLIT_LANES by default);
 * longer rows are cut into pieces of TSI_SPLIT_PIECE entries, one per warp,
 * and the last piece of a row of several pieces to finish adds their sums
 * in piece order. */
/* Threads a short row split-rows can take: 1, 2, 4 or 8 (a power of two;
 * the kernel is instantiated for each). */
#define TSI_SPLIT_MAX_LANES 8

/* Byte offsets of the split-rows tables in the workspace. */
typedef struct tsi_spmv_split_layout {
  size_t piece_row;   /* int32 per piece: its row */
  size_t piece_begin; /* int64 per piece: its first entry */
  size_t partial;     /* sum per piece (tsi_spmv_sum_bytes), for rows of several pieces */
  size_t arrivals;    /* uint32 per piece, used at the first piece of a row of
                         several pieces: its pieces done so far in this call;
                         zero between calls (none when no row has several) */
  size_t bytes;
} tsi_spmv_split_layout;

/* Bytes of a row's sum of values of dtype (the split-rows schedule's
 * partial sums): complex values sum in complex double. */
static inline size_t tsi_spmv_sum_bytes(ts_dtype dtype) {
  return TS_DTYPE_IS_COMPLEX(dtype) ? 2 * sizeof(double) : ts_dtype_size(dtype);
}

/* Pieces and rows of several pieces of a CSR operand (O(rows)). */
void tsi_spmv_split_count(int64_t rows, const int64_t *offsets, int64_t *pieces, int64_t *multi);
tsi_spmv_split_layout tsi_spmv_split_layout_of(int64_t pieces, int64_t multi, size_t value_size);
/* Fill the split-rows tables of the operand into the workspace (GPU memory)
 * and zero its arrival counters. */
ts_status tsi_spmv_split_upload(ts_context *ctx, int64_t rows, const int64_t *offsets, const tsi_spmv_device_matrix *a,
                                void *workspace);

/* Bytes of workspace the schedule needs for this operand (0 allowed). */
size_t tsi_spmv_cuda_workspace_bytes(const tsi_spmv_device_matrix *a, ts_schedule schedule, int group_size);

/* One-time preparation at plan creation: a->resident_blocks from the
 * device's SM count and the kernel's occupancy, then the schedule's
 * workspace (partition search, ...); may launch kernels on the context's
 * stream. */
ts_status tsi_spmv_cuda_prepare(ts_context *ctx, tsi_spmv_device_matrix *a, ts_schedule schedule, int group_size,
                                void *workspace, size_t workspace_bytes);

/* y = alpha * A * x + beta * y with the schedule; deterministic (bitwise
 * repeatable), no allocation, no host synchronisation. */
ts_status tsi_spmv_cuda_run(ts_context *ctx, const tsi_spmv_device_matrix *a, ts_schedule schedule, int group_size,
                            void *workspace, size_t workspace_bytes, double alpha, const void *x, double beta, void *y);

#ifdef __cplusplus
}
#endif

#endif
