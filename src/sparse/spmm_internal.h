/* SpMM internals: the dense operands' shapes and their checks, the vector
 * thread chosen for a width and layout, the plan's fields, and the
 * interface between the plan (spmm_plan.c) and the CUDA kernels
 * (spmm_cuda*.cu). */
#ifndef TESSERA_SPMM_INTERNAL_H
#define TESSERA_SPMM_INTERNAL_H

#include "internal.h"
#include "spmm_tuning.h"
#include "spmv_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TS_SUCCESS for TS_GENERAL storage, else the refusal of `op` naming the
 * operand `name` and its symmetry. */
ts_status tsi_require_general(ts_context *ctx, const char *op, const char *name, const ts_csr *a);

/* A dense operand: rows x cols in a layout with leading dimension ld;
 * elements counts the span from the first entry to one past the last. */
typedef struct tsi_dense_shape {
  int64_t rows, cols, ld;
  ts_layout layout;
  int64_t elements;
} tsi_dense_shape;

/* Check the shapes of C = alpha*A*B + beta*C for `op` (a function name for
 * the messages): width, layouts, leading dimensions (0 = packed) and the
 * 64-bit sizes of B and C; fills *b and *c. */
ts_status tsi_spmm_check_shapes(ts_context *ctx, const char *op, const ts_csr *a, int64_t width, ts_layout layout_b,
                                int64_t ld_b, ts_layout layout_c, int64_t ld_c, tsi_dense_shape *b, tsi_dense_shape *c);

/* C = alpha*A*B + beta*C on the host for checked operands (the CPU backend
 * of a plan and ts_csr_spmm_host()). */
void tsi_spmm_host_run(ts_context *ctx, double alpha, const ts_csr *a, const void *b, const tsi_dense_shape *bs,
                       double beta, void *c, const tsi_dense_shape *cs);

/* The vector thread of a GPU SpMM: `lanes` lanes, each holding `columns`
 * vectors of `vector` consecutive columns; a slice of C's columns is what
 * one vector thread computes for one row. */
typedef struct tsi_spmm_lanes {
  int vector;     /* 4 or 2 (16-byte loads of a row-major B), else 1 */
  int lanes;      /* 1 to 32, a power of two */
  int columns;    /* vectors a lane holds: 1 (row-major B) or TSI_SPMM_COLMAJOR_COLUMNS */
  int64_t slice;  /* columns of a slice: lanes * vector * columns */
  int64_t slices; /* slices covering the width */
  bool c_vector;  /* C row-major with ld_c a multiple of vector: stored `vector` at a time */
} tsi_spmm_lanes;

tsi_spmm_lanes tsi_spmm_lanes_for(ts_dtype dtype, int64_t width, const tsi_dense_shape *b, const tsi_dense_shape *c);

/* The vector thread of one band of `width` columns when bands start
 * `align` columns apart (the gcd of the pass width and the whole width):
 * its vector also divides `align`, so that every band starts and ends on a
 * vector. tsi_spmm_lanes_for() is the band of the whole width. */
tsi_spmm_lanes tsi_spmm_lanes_for_band(ts_dtype dtype, int64_t width, int64_t align, const tsi_dense_shape *b,
                                       const tsi_dense_shape *c);

/* The AUTO schedule from the row-length shape, the width's slices and the
 * vector thread; writes its reason. Never returns AUTO. */
ts_schedule tsi_spmm_auto_choose(const tsi_spmv_shape *shape, const tsi_spmm_lanes *lanes, int multiprocessors,
                                 char *reason, size_t reason_size);

/* Threads a row gets from a mapped schedule (thread-, warp-, block-,
 * group-mapped), given the requested group size (0 = chosen). */
int tsi_spmm_row_threads(ts_schedule schedule, int lanes, int group_size);

/* Split-rows: nonzeros of a piece for the vector thread (see
 * TSI_SPMM_SPLIT_PIECE_NARROW), the pieces past which a long row is huge
 * (joined by a block, TSI_SPMM_JOIN_WARP_ROUNDS) and up to which it is near
 * (joined in the split kernel by its last piece, TSI_SPMM_JOIN_NEAR_PIECES);
 * the pieces of the rows longer than `piece`, counted by
 * tsi_spmm_split_count() and laid out by tsi_spmm_split_fill(): the huge
 * rows first, then the far ones (more than `near` pieces), then the near
 * ones, each kind in row order, the pieces of a row consecutive, each
 * piece's long row in piece_long. */
typedef struct {
  int64_t pieces;      /* of all long rows */
  int64_t long_rows;   /* rows of more than a piece */
  int64_t huge_rows;   /* of more than `huge` pieces, listed first */
  int64_t joined_rows; /* huge and far: the join launch's, listed before the near ones */
} tsi_spmm_split_counts;
int64_t tsi_spmm_split_piece(const tsi_spmm_lanes *lanes);
int64_t tsi_spmm_split_huge(const tsi_spmm_lanes *lanes);
int64_t tsi_spmm_split_near(int64_t huge);
tsi_spmm_split_counts tsi_spmm_split_count(int64_t rows, const int64_t *offsets, int64_t piece, int64_t huge,
                                           int64_t near);
void tsi_spmm_split_fill(int64_t rows, const int64_t *offsets, int64_t piece, int64_t huge, int64_t near,
                         int32_t *piece_row, int64_t *piece_begin, int32_t *piece_long, int32_t *long_row,
                         int64_t *long_first);

/* Thread-mapped's stacked warp order (spmm_tuning.h, spmm_stack.c). A's
 * most frequent column offset |j - i| over TSI_SPMM_STACK_NEAR in a sample
 * of TSI_SPMM_STACK_SAMPLE entries (all of them when fewer), the smallest
 * of those tied with it (TSI_SPMM_STACK_TIE): offset (0 when no sampled
 * entry is that far), its sampled entries and the entries sampled. */
typedef struct tsi_spmm_far_offset {
  int64_t offset, count, sampled;
} tsi_spmm_far_offset;

tsi_spmm_far_offset tsi_spmm_far_offset_of(int64_t rows, const int64_t *row_ptr, const int32_t *col_idx);

/* Whether the sample shows a stencil: an offset over TSI_SPMM_STACK_NEAR
 * holding at least TSI_SPMM_STACK_SHARE of the sampled entries. */
bool tsi_spmm_stencil(const tsi_spmm_far_offset *far);

/* Whether the schedule and vector thread take the walk that may be stacked:
 * thread-mapped, a row-major B, vector threads of a warp, at least
 * TSI_SPMM_STACK_MIN_SLICES slices (the two-slice walk). */
bool tsi_spmm_stack_walk(ts_schedule schedule, const tsi_spmm_lanes *lanes, ts_layout layout_b);

/* Rows apart that the warps of a block walk their groups for a matrix of
 * `rows` rows and the offset found (TSI_SPMM_STACK_SHARE of the sample, a
 * whole band of 8 warps), else 0 (consecutive groups). */
int64_t tsi_spmm_stack_rows(int64_t rows, const tsi_spmm_far_offset *far);

/* The plan's passes over bands of columns for pass_columns = 0
 * (spmm_tuning.h, spmm_passes.c): the columns of a band, the whole width
 * for one pass. `info` is the GPU's (NULL on the CPU backend: one pass);
 * `far` is A's sampled offset (tsi_spmm_far_offset_of()). Writes why. */
int64_t tsi_spmm_pass_rule(const ts_device_info *info, ts_schedule schedule, ts_dtype dtype, const tsi_dense_shape *b,
                           const tsi_spmm_far_offset *far, char *why, size_t why_size);

/* The operand and the plan's choices, as the CUDA kernels need them: with
 * passes, one band's (width, b.cols and c.cols are the band's; the run
 * offsets B and C to the band's first column). */
typedef struct tsi_spmm_device {
  int64_t rows, cols, nnz, width;
  ts_dtype dtype;
  int64_t *offsets; /* rows + 1, GPU memory */
  int32_t *indices; /* nnz */
  void *values;     /* nnz */
  tsi_dense_shape b, c;
  tsi_spmm_lanes lanes;
  int row_threads; /* mapped schedules: threads a row (lanes .. 32, or TSI_SPMM_BLOCK) */
  int64_t stack;   /* thread-mapped's warp walk: a block's warps this many rows apart, 0: consecutive groups */
  /* Merge-path and work-oriented: parts of the path, each with a head and
   * a tail record (width values each). */
  int64_t parts;
  size_t coords_at, head_at, tail_at;
  /* Split-rows: nonzeros of a piece, pieces of long rows (one record each)
   * and the long rows. */
  int64_t piece, huge, near, pieces, long_rows, huge_rows, joined_rows;
  size_t piece_row_at, piece_begin_at, piece_long_at, long_row_at, long_first_at, records_at;
  size_t counters_at; /* near rows x width: a counter per (near row, slice), zero between calls */
} tsi_spmm_device;

/* Bytes of one partition coordinate (a tile and an atom, int64 each). */
#define TSI_SPMM_COORDINATE_BYTES 16

/* Lay out the schedule's workspace (byte offsets into it) and return its
 * size; 0 when the schedule needs none. */
size_t tsi_spmm_workspace_layout(tsi_spmm_device *d, ts_schedule schedule);

/* One-time preparation into the workspace (the partition search of
 * merge-path and work-oriented); may launch kernels on the context's stream. */
ts_status tsi_spmm_cuda_prepare(ts_context *ctx, const tsi_spmm_device *d, ts_schedule schedule, void *workspace);

/* C = alpha*A*B + beta*C: deterministic, no allocation, no host wait. */
ts_status tsi_spmm_cuda_run(ts_context *ctx, const tsi_spmm_device *d, ts_schedule schedule, void *workspace,
                            double alpha, const void *b, double beta, void *c);

/* Room for ts_spmm_plan_explain()'s line. */
#define TSI_SPMM_EXPLAIN_SIZE 1024

struct ts_spmm_plan {
  ts_context *ctx;
  int64_t rows, cols, nnz, width;
  ts_dtype dtype;
  ts_schedule schedule; /* resolved, never AUTO */
  tsi_spmv_shape shape; /* of A's rows */
  tsi_dense_shape b, c;
  ts_csr *host; /* CPU backend: A */
  /* Passes over bands of columns: `passes` bands of pass_columns columns
   * (the last band narrower; one pass: the width), run one after another. */
  int64_t pass_columns, passes;
  tsi_spmm_device device; /* CUDA backend: a whole band */
  tsi_spmm_device last;   /* CUDA backend: the last band where it is narrower */
  void *workspace;        /* CUDA backend, serving each pass in turn */
  size_t workspace_bytes;
  char explain[TSI_SPMM_EXPLAIN_SIZE];
};

#ifdef __cplusplus
}
#endif

#endif
