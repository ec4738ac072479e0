/* SpMV locality layouts (ts_spmv_locality): a plan that keeps the caller's
 * numbering but stores the operand rearranged so that x's gathers hit fast
 * memory.
 *
 * Segmented long rows: the columns are cut into segments whose part of x
 * fits a block's shared memory; the entries of the long rows (rows of at
 * least TSI_SEGMENT_RUN_TARGET entries per segment, on average) are stored
 * segment by segment, and within a segment row by row, as "runs" (a row's
 * entries inside one segment). A block takes consecutive runs of one
 * segment, stages that part of x in shared memory and sums each run
 * (an even share of entries per thread, joined by a segmented scan); a
 * second kernel adds each long row's run sums in segment order. The other
 * rows go through an ordinary plan of the same operand with the long rows
 * emptied. The column within a segment is stored in 16 bits.
 *
 * Hot columns: the columns holding the most entries (up to
 * TSI_HOT_BYTES of x) are renumbered cols, cols + 1, ... in the stored
 * operand; each call copies x into an extended vector and appends those
 * columns' values, so that the most-read part of x is one compact block
 * that stays in the SMs' L1 caches. */
#ifndef TESSERA_SPMV_LOCALITY_H
#define TESSERA_SPMV_LOCALITY_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shared memory a segment's part of x takes (2 blocks of 512 threads an SM
 * on 228 KB SMs). */
#define TSI_SEGMENT_BYTES ((size_t)96 * 1024)
/* A row is long when it has at least this many entries per segment on
 * average (each run's sum costs a partial written and read back, and a run
 * id: ~16 bytes against 6-12 per entry). */
#define TSI_SEGMENT_RUN_TARGET 8
/* Entries one block sums (x's segment is staged once per block). */
#define TSI_SEGMENT_ITEM_ENTRIES ((int64_t)96 * 1024)
/* Hot columns: at most this many bytes of x, columns of at least
 * TSI_HOT_MIN_FACTOR times the mean column length; AUTO takes them when they
 * hold at least TSI_HOT_AUTO_SHARE of the entries. */
#define TSI_HOT_BYTES ((size_t)64 * 1024)
#define TSI_HOT_MIN_FACTOR 8.0
#define TSI_HOT_AUTO_SHARE 0.3

typedef struct tsi_spmv_locality {
  ts_spmv_locality kind; /* resolved: what the layout does */
  ts_spmv_plan *inner;   /* the operand's other rows (or all of it), possibly with hot columns */
  ts_dtype dtype;
  int64_t rows, cols; /* of the operand */
  /* Hot columns. */
  int64_t hot;       /* columns renumbered cols .. cols + hot - 1 */
  int32_t *hot_cols; /* device: the original column of each */
  ts_buffer *x_ext;  /* device: x, then the hot columns' values */
  double hot_share;  /* of the entries (of the rows not segmented) */
  /* Segmented long rows. */
  int64_t long_rows, long_nnz, runs, items;
  int segment_width;     /* columns a segment (at most 65536) */
  int32_t *long_row;     /* device: long_rows rows */
  int64_t *row_run_ptr;  /* device: long_rows + 1 */
  int32_t *row_runs;     /* device: each long row's runs by segment */
  int64_t *run_ptr;      /* device: runs + 1 offsets into the entries */
  uint16_t *seg_cols;    /* device: column minus the segment's first */
  void *seg_vals;        /* device: values */
  int64_t *item_run;     /* device: items + 1: each block's first run */
  int32_t *item_segment; /* device: items */
  void *partials;        /* device: a sum per run */
  double long_share;
} tsi_spmv_locality;

/* The segmented layout's tables on the host (built once, uploaded): the
 * long rows, their runs in segment-major order (within a segment by row),
 * the runs' entries in that order with 16-bit columns within the segment,
 * each long row's runs by segment, and the blocks' items (consecutive runs
 * of one segment). */
typedef struct tsi_spmv_segment_tables {
  int64_t long_rows, long_nnz, runs, items;
  int32_t *long_row;     /* long_rows */
  int64_t *row_run_ptr;  /* long_rows + 1 */
  int32_t *row_runs;     /* runs */
  int64_t *run_ptr;      /* runs + 1 */
  uint16_t *seg_cols;    /* long_nnz */
  void *seg_vals;        /* long_nnz */
  int64_t *item_run;     /* items + 1 */
  int32_t *item_segment; /* items */
} tsi_spmv_segment_tables;

/* Tables of the rows of @p a with at least @p min_len entries, segments of
 * @p width columns (at most 65536). */
ts_status tsi_spmv_segment_tables_build(ts_context *ctx, const char *op, const ts_csr *a, int width, int64_t min_len,
                                        tsi_spmv_segment_tables *t);
void tsi_spmv_segment_tables_free(tsi_spmv_segment_tables *t);
/* @p a with the rows of at least @p min_len entries emptied. */
ts_status tsi_spmv_short_rows(ts_context *ctx, const ts_csr *a, int64_t min_len, ts_csr **out);
/* The hot columns of @p a: at most @p most, each of at least
 * TSI_HOT_MIN_FACTOR times the mean column length, longest first (ties by
 * column); @p share: their part of a's entries. */
ts_status tsi_spmv_hot_choose(ts_context *ctx, const char *op, const ts_csr *a, int64_t most, int32_t **hot,
                              int64_t *count, double *share);
/* @p a with column hot[k] renumbered cols + k (those entries last in their
 * row, by k): a rows x (cols + count) matrix. */
ts_status tsi_spmv_hot_renumber(ts_context *ctx, const char *op, const ts_csr *a, const int32_t *hot, int64_t count,
                                ts_csr **out);

/* Build the layout of @p operand (general CSR, checked) on the CUDA
 * context: @p inner_options are the options of the inner plan (schedule,
 * group size; op NONE). Writes a one-line summary to explain. */
ts_status tsi_spmv_locality_create(ts_context *ctx, const ts_csr *operand, ts_spmv_locality kind,
                                   const ts_spmv_options *inner_options, char *explain, size_t explain_size,
                                   tsi_spmv_locality **out);
/* y = alpha * op(A) * x + beta * y through the layout; no allocation. */
ts_status tsi_spmv_locality_run(ts_context *ctx, tsi_spmv_locality *l, double alpha, const ts_buffer *x, double beta,
                                ts_buffer *y);
void tsi_spmv_locality_destroy(tsi_spmv_locality *l);

/* CUDA side (spmv_locality_cuda.cu): the segment kernel's shared-memory
 * opt-in (at plan creation); x_ext = [x, x[hot_cols]]; the run sums and
 * their addition into y. */
ts_status tsi_spmv_segments_prepare(ts_context *ctx, const tsi_spmv_locality *l);
ts_status tsi_spmv_hot_fill(ts_context *ctx, const tsi_spmv_locality *l, const void *x);
ts_status tsi_spmv_segments_run(ts_context *ctx, const tsi_spmv_locality *l, double alpha, const void *x, void *y);

#ifdef __cplusplus
}
#endif

#endif
