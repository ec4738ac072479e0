/* What the GPU numeric phases keep on the device between calls
 * (lu->numeric_device): the pattern of L+U, the schedule, the factor values
 * and the solve's row-oriented copies of the pattern. Created at the first
 * GPU factorization of an analysis; refactorization uploads only new values. */
#ifndef TESSERA_LU_NUMERIC_CUDA_H
#define TESSERA_LU_NUMERIC_CUDA_H

#include "lu/lu_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scratch of the left-looking kernels (lu->switches.gpu_scratch): automatic, one
 * dense n-vector per concurrent column, or the column itself (sparse, rows
 * found by binary search). */
enum { TSI_LU_SCRATCH_AUTO = 0, TSI_LU_SCRATCH_DENSE = 1, TSI_LU_SCRATCH_SPARSE = 2 };

/* Dense scratch slots (n-vectors, one per concurrent column) for a
 * factorization of order n whose widest left-looking level has
 * widest_level columns, with free_bytes of device memory free and the
 * scratch mode asked for (TSI_LU_SCRATCH_*); 0 means the sparse scratch.
 * Forced dense gets at least 8 slots (lu_scratch_slots.c). */
int64_t tsi_lu_dense_scratch_slots(int64_t n, int64_t widest_level, int64_t free_bytes, int mode);

/* The right-looking tail (lu->switches.gpu_dense_tail): automatic, as one dense block
 * factored by panels and GEMM, or column by column in the sparse pattern. */
enum { TSI_LU_DENSE_TAIL_AUTO = 0, TSI_LU_DENSE_TAIL_ON = 1, TSI_LU_DENSE_TAIL_OFF = 2 };

/* One triangular solve's schedule: its rows (or columns) in a topological
 * order, and for the level-scheduled kernels the levels of that order. */
typedef struct tsi_lu_solve_schedule {
  int ready; /* 0, or built and on the device (how: lu_solve_cuda.cu) */
  int64_t levels;
  int64_t *level_ptr; /* host, levels + 1 */
  int32_t *items;     /* device, n */
} tsi_lu_solve_schedule;

/* The four triangular solves (L, U; U^T, L^T). */
enum { TSI_LU_SOLVE_LOWER = 0, TSI_LU_SOLVE_UPPER = 1, TSI_LU_SOLVE_UPPER_T = 2, TSI_LU_SOLVE_LOWER_T = 3 };

/* Fill pair[t]'s levels (host level_ptr, levels) and its rows in level
 * order into items[t] (n entries) for solve modes[t], t = 0, 1, on two
 * threads (lu_solve_schedule.c); false when out of memory. Sets no error. */
bool tsi_lu_solve_levels(const ts_lu *lu, const int modes[2], tsi_lu_solve_schedule *pair[2], int32_t *items[2]);

typedef struct tsi_lu_device {
  int64_t n, lu_nnz, nnz_a;
  int64_t bytes; /* device bytes held now */
  int64_t peak;  /* most device bytes held at once */

  /* Pattern (device). */
  int64_t *col_ptr;
  int32_t *row_idx;
  int64_t *diag_pos;
  int64_t *a_to_lu;
  int32_t *a_row; /* row of each entry of A */
  int32_t *a_col;
  double *row_scale, *col_scale;
  int32_t *row_perm, *col_perm;
  double *a_values; /* nnz_a, the values being factored */

  /* Rows of U (strict upper part; columns increasing) and of L (strict
   * lower part), each entry's position in the values: the right-looking
   * tail pushes along rows of U, the solves gather along rows. */
  int64_t *urow_ptr_host; /* n + 1 */
  int64_t *urow_ptr, *lrow_ptr;
  int32_t *urow_col, *lrow_col;
  int64_t *urow_pos, *lrow_pos;

  /* Schedule: columns below tail_start run left-looking level by level
   * (left_cols, left_ptr_host); the others right-looking one at a time. */
  int64_t tail_start;
  int64_t left_levels;
  int64_t *left_ptr_host;  /* left_levels + 1 */
  int *left_group_host;    /* threads per column of each level: 32, 128 or 512 */
  int32_t *left_len_host;  /* entries of each level's longest column (L and U) */
  int32_t *left_cols;      /* device */
  int32_t *left_cols_host; /* the same, for the singular-column report */
  int32_t *level_of_host;  /* n: level of each column in the analysis */
  double flops;
  /* The tail as a dense (n - tail_start)^2 block, column-major (device), or
   * NULL: the tail runs column by column in the sparse pattern. After a
   * factorization it holds the tail's factors (rounded to the factors'
   * precision), which the solves use. */
  double *tail_dense;
  /* The sparse tail's gather order (tsi_lu_tail_order's arrays, device). */
  int64_t tail_order_entries, tail_runs;
  int64_t *tail_order_ptr, *tail_order, *tail_run_ptr, *tail_run_end;
  int multiprocessors; /* of the GPU, for the tail's GEMM configuration */

  /* Values. */
  int single;      /* precision the value arrays were made for */
  void *values;    /* lu_nnz factors (float or double) */
  double *acc;     /* lu_nnz working values in double (== values with double factors) */
  double *scratch; /* scratch_slots * n, zero between columns (dense scratch) */
  int64_t scratch_slots;
  int scratch_mode;  /* TSI_LU_SCRATCH_DENSE or _SPARSE as chosen */
  signed char *kind; /* n: pivot outcome per column */
  signed char *kind_host;
  double *rule; /* device: tiny, replacement, perturb */
  /* The dataflow levels (lu_numeric_cuda.cu): each column's mark holds the
   * number of the last factorization that finished it (factor_epoch counts
   * them on the host); a ticket counter per launch (left_levels of them at
   * most). Allocated at the first factorization that uses them. */
  int32_t factor_epoch;
  int32_t *factor_ready;         /* device, n */
  unsigned long long *flow_next; /* device */
  unsigned long long *max_bits;  /* device: bits of max |M| */

  /* Solves: the synchronisation-free kernels' marks and counters ready
   * (the schedules below are built per operation, on first use). */
  int solve_ready;
  tsi_lu_solve_schedule lower, upper, upper_t, lower_t;
  double *solve_y; /* n * solve_cols */
  double *solve_rhs;
  int64_t solve_cols;
  /* Synchronisation-free solves: each row's ready mark holds the number of
   * the last triangular solve that finished it (solve_epoch counts them on
   * the host), and two row counters serve the two solves of one call. */
  int32_t solve_epoch;
  int32_t *solve_ready_mark;          /* device, n */
  unsigned long long *solve_next_row; /* device, 2 */
  int solve_resident_blocks[2][4];    /* resident blocks of each kernel (float factors?, mode) */
} tsi_lu_device;

/* The order of the sparse tail's gather (lu_tail_gather_order.c): for tail
 * column c (column tail_start + c), its entries above tail_start as
 * positions order[order_ptr[c] .. order_ptr[c + 1]), by level of their row
 * and then by row; the levels are runs, run r ending at order[run_end[r]],
 * those of column c being run_ptr[c] .. run_ptr[c + 1]. Host arrays. */
typedef struct tsi_lu_tail_order {
  int64_t columns, runs;
  int64_t *order_ptr; /* columns + 1 */
  int64_t *order;     /* order_ptr[columns] */
  int64_t *run_ptr;   /* columns + 1 */
  int64_t *run_end;   /* runs */
} tsi_lu_tail_order;

/* From the levels of the columns (level_of, n entries; those of columns
 * below tail_start are read). TS_ERROR_OUT_OF_MEMORY leaves *out empty. */
ts_status tsi_lu_tail_gather_order(const ts_lu *lu, int64_t tail_start, const int32_t *level_of,
                                   tsi_lu_tail_order *out);
void tsi_lu_tail_order_free(tsi_lu_tail_order *order);

/* The strict upper (upper) or lower part of L+U by rows: offsets (n + 1),
 * columns increasing within a row, positions in the values; host arrays
 * the caller frees (lu_factor_rows.c, threads over column ranges). */
ts_status tsi_lu_build_rows(ts_lu *lu, bool upper, int64_t **ptr_out, int32_t **col_out, int64_t **pos_out);

/* The same rows built on the device from dev->col_ptr and dev->row_idx
 * (lu_factor_rows_cuda.cu): dev->urow_*, dev->lrow_* and the host copy
 * dev->urow_ptr_host. Only where tsi_lu_cuda_rows_fit (32-bit sort keys
 * and positions). */
bool tsi_lu_cuda_rows_fit(const ts_lu *lu);
ts_status tsi_lu_cuda_build_rows(ts_lu *lu, tsi_lu_device *dev);

/* For each column k, the entries its left-looking gather updates: the sum
 * of |L(:, j)| (strict) over U(j, k) != 0, j < k (lu_gather_lengths.c); n
 * entries the caller frees, NULL when out of memory. */
int64_t *tsi_lu_gather_lengths(const ts_lu *lu);

/* The dense tail's rows of triangular solve `mode` (TSI_LU_SOLVE_*) on y
 * (nrhs columns of n, device), on the stream (a cudaStream_t), from
 * dev->tail_dense (lu_solve_dense_tail_cuda.cu): for L and U^T after the
 * other rows, whose terms the tail's rows have already subtracted; for U
 * and L^T before them. */
void tsi_lu_dense_tail_solve(const tsi_lu_device *dev, int mode, int64_t nrhs, double *y, void *stream);

/* Device allocation counted in dev->bytes and dev->peak. */
ts_status tsi_lu_device_alloc(ts_context *ctx, tsi_lu_device *dev, void **ptr, int64_t count, size_t size,
                              const char *what);

#ifdef __cplusplus
}
#endif

#endif
