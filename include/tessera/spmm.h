/**
 * @file tessera/spmm.h
 * @brief SpMM: C = alpha * A * B + beta * C with A sparse (CSR) and B, C
 *        dense, row-major or column-major, in float or double.
 *
 * Plan then execute, as for SpMV: ts_spmm_plan_create() validates A and the
 * dense shapes, chooses the schedule (AUTO from A's row lengths and the
 * width), copies A into backend memory and allocates and prepares all
 * workspace; ts_spmm_execute() then allocates nothing and, on CUDA, does not
 * wait for the GPU. Results repeat bitwise from run to run on both backends
 * (each entry of C sums its terms in an order fixed by the plan). The CPU
 * backend gives the same bits in either layout of B and C; on the GPU a
 * column-major B is walked by other kernels than a row-major one, so the two
 * layouts agree to rounding, not bitwise.
 *
 * Sizes: A's dimensions and the width are at most INT32_MAX; element counts
 * and byte sizes of B and C are 64-bit. Anything larger is refused with
 * TS_ERROR_OVERFLOW.
 */
#ifndef TESSERA_SPMM_H
#define TESSERA_SPMM_H

#include "tessera/core.h"
#include "tessera/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How a dense matrix is laid out in memory. */
typedef enum ts_layout {
  TS_LAYOUT_ROW_MAJOR = 0, /**< Entry (i, j) at i * ld + j; ld >= columns. */
  TS_LAYOUT_COL_MAJOR = 1  /**< Entry (i, j) at i + j * ld; ld >= rows. */
} ts_layout;

/** Name of a layout ("row-major", "col-major"). */
TS_API const char *ts_layout_name(ts_layout layout);

/**
 * Options of ts_spmm_plan_create(); zero-initialise, then set fields (all
 * zeros: AUTO, row-major B and C, packed).
 *
 * On the GPU a row of A is a tile and a nonzero an atom, as for SpMV; the
 * threads that share one atom split the columns of C between them (a vector
 * thread: 1 to 32 lanes, each with up to 4 consecutive columns of a row-major
 * B). The schedules map vector threads onto rows: thread-mapped one per row
 * and column slice (a vector thread of a whole warp takes a group of
 * consecutive rows, one after another); warp-, group- and block-mapped
 * several per row (the row's nonzeros strided over them, their sums added in
 * a fixed tree); merge-path and work-oriented an even share of rows +
 * nonzeros (or of nonzeros) per vector thread, rows cut between shares added
 * in share order by a second launch; split-rows one vector thread per short
 * row (in groups, as thread-mapped, for a vector thread of a whole warp) and
 * one per piece of a long row: where no long row has more than 20 pieces,
 * the vector thread that stores a row's last piece adds the row's pieces in
 * piece order within the same launch; otherwise a second launch joins every
 * long row's pieces in a fixed tree. Either way the sums' order is fixed by
 * the plan, so results are bitwise repeatable.
 */
typedef struct ts_spmm_options {
  ts_schedule schedule; /**< Schedule on the GPU (default AUTO; the CPU backend has one). */
  ts_layout layout_b;   /**< Layout of B (default row-major). */
  ts_layout layout_c;   /**< Layout of C (default row-major). */
  int64_t ld_b;         /**< Leading dimension of B; 0 = packed (columns of B for row-major, rows for column-major). */
  int64_t ld_c;         /**< Leading dimension of C; 0 = packed. */
  int group_size;       /**< Group-mapped: threads per row (a power of two, 1 to 1024; 0 = chosen). */
  /**
   * Passes over bands of columns: 0 = the plan's choice; a positive value
   * runs the product band after band of that many columns of B and C (the
   * last band narrower; at least the width: one pass); negative is refused
   * with TS_ERROR_INVALID_ARGUMENT. Each pass reads A again but gathers
   * only its band of B, which pays where B is far larger than the GPU's L2
   * and A's columns are scattered. The plan's choice on CUDA: bands of 512
   * bytes a row of B (128 float / 64 double columns) where B is row-major,
   * at least two bands wide and at least 8 times the L2
   * (ts_device_info.l2_cache_bytes), A's columns show no stencil and the
   * schedule walks rows (thread-mapped, split-rows); otherwise one pass.
   * The passes run one after another on the context's stream over the
   * same workspace. C agrees with one pass to rounding, bitwise for
   * thread-mapped (each entry sums its terms in the same order); on the CPU
   * backend the plan's choice is one pass and requested passes give the
   * same bits as one. ts_spmm_plan_explain() says the passes and why.
   */
  int64_t pass_columns;
} ts_spmm_options;

/** A prepared SpMM for one sparse A and one width. */
typedef struct ts_spmm_plan ts_spmm_plan;

/**
 * Prepare C = alpha * A * B + beta * C for B of A->cols x @p width and C of
 * A->rows x @p width, on the context's backend. @p options may be NULL.
 * A must pass ts_csr_check() and be TS_GENERAL (expand symmetric storage
 * first). Refused with TS_ERROR_INVALID_ARGUMENT: a NULL argument, a negative
 * width, an unknown schedule or layout, a leading dimension below the packed
 * one, a group size that is not 0 or a power of two up to 1024. Refused with
 * TS_ERROR_OVERFLOW: a width above INT32_MAX, or B or C whose element count
 * or byte size passes 64 bits. On CUDA the plan copies A to the GPU and
 * allocates its workspace (merge-path, work-oriented and split-rows keep
 * partial sums of rows cut between vector threads there); AUTO's choice and
 * its reason are in ts_spmm_plan_explain().
 */
TS_API ts_status ts_spmm_plan_create(ts_context *ctx, const ts_csr *a, int64_t width, const ts_spmm_options *options,
                                     ts_spmm_plan **plan);

/** Schedule the plan runs (never AUTO). */
TS_API ts_schedule ts_spmm_plan_schedule(const ts_spmm_plan *plan);

/** One line: the schedule, the vector thread (lanes, columns a lane) and why. Owned by the plan. */
TS_API const char *ts_spmm_plan_explain(const ts_spmm_plan *plan);

/** Bytes of backend memory the plan holds besides A (its workspace); 0 for NULL. */
TS_API int64_t ts_spmm_plan_workspace_bytes(const ts_spmm_plan *plan);

/**
 * Bytes an SpMM must move at least: A's values, column indices and row
 * offsets once, B once, C written once and read when beta is not 0 (counted
 * read here, as it is unknown before execution). 0 for a NULL plan.
 */
TS_API int64_t ts_spmm_plan_bytes(const ts_spmm_plan *plan);

/** Free a plan (NULL is a no-op). */
TS_API void ts_spmm_plan_destroy(ts_spmm_plan *plan);

/**
 * Run the plan: @p b and @p c are TS_MEMORY_DEVICE buffers of the plan's
 * context holding B and C in the layouts and leading dimensions of the plan,
 * of A's value type. They must not overlap (C is written while B is read).
 * beta = 0 ignores C's input (NaN in C does not propagate). Refused with
 * TS_ERROR_INVALID_ARGUMENT: NULL, a buffer of another context or in host
 * memory, a buffer smaller than its matrix, B and C the same buffer or
 * buffers whose matrices' bytes overlap.
 * Allocates nothing and does not wait for the GPU; faults surface at the next
 * ts_context_sync().
 */
TS_API ts_status ts_spmm_execute(ts_spmm_plan *plan, double alpha, const ts_buffer *b, double beta, ts_buffer *c);

/**
 * C = alpha * A * B + beta * C on the host (CPU backend, OpenMP), with A of
 * any value type and B, C of A's value type in host memory, in the layouts and
 * leading dimensions given (0 = packed). The reference of the GPU path: each
 * entry sums its row's terms in storage order. @p ctx may be NULL. The same
 * refusals as ts_spmm_plan_create() and ts_spmm_execute() (B and C must not
 * overlap).
 */
TS_API ts_status ts_csr_spmm_host(ts_context *ctx, double alpha, const ts_csr *a, int64_t width, const void *b,
                                  ts_layout layout_b, int64_t ld_b, double beta, void *c, ts_layout layout_c,
                                  int64_t ld_c);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_SPMM_H */
