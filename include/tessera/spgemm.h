/**
 * @file tessera/spgemm.h
 * @brief SpGEMM: C = A * B with A, B and C sparse (CSR), in float or double,
 *        by Gustavson's row-by-row method in two phases.
 *
 * Steps, as in cuSPARSE's and cuDSS's phased APIs:
 *  1. ts_spgemm_plan_create(): validation, A and B copied into backend
 *     memory.
 *  2. ts_spgemm_symbolic(): the products of each row of C (an upper bound of
 *     its entries, counted in 64 bits), rows binned by that work, the exact
 *     count of each row's entries, and their scan into C's row offsets. It
 *     allocates the phases' workspace once and waits for the GPU (the count
 *     of C's entries is read back).
 *  3. ts_spgemm_allocate(): C's arrays in backend memory, or
 *     TS_ERROR_OUT_OF_MEMORY with the bytes C needs in the message
 *     (ts_spgemm_plan_c_bytes() gives them too).
 *  4. ts_spgemm_numeric(): C's column indices (sorted within each row) and
 *     values. Allocates nothing and does not wait for the GPU; running it
 *     again gives the same bits.
 * When C does not fit, ts_spgemm_blocked() computes C in blocks of rows
 * under the plan's memory budget and assembles it in host memory.
 *
 * C's pattern is the structural one: every (i, j) that some a_ik * b_kj
 * reaches is an entry, also where the products cancel to zero (as in
 * cuSPARSE; SciPy's A @ B drops such entries).
 *
 * On the GPU a row of C is a tile and a product a_ik * b_kj an atom. Rows
 * are binned by products: when A has at least 32,768 rows, a row of at most
 * 8 entries of A and 64 products takes one thread, which merges its rows of
 * B as sorted lists; other rows of at most 128 products are sorted by one
 * warp in registers, longer ones share a warp's hash table in shared
 * memory or take a block's; the longest take a dense accumulator of B's
 * width in shared memory where it fits and no row dominates (a bitmap, and
 * a value a column: a warp a row), else go through expand, sort, compress in chunks of
 * products under a byte budget (a stable radix sort by row and column, each
 * column's products then added in order). Every entry of C
 * sums its products in an order fixed by A and B alone (the order of k
 * along A's row, or partial sums over fixed shares of it added in a fixed
 * order): results repeat bitwise from run to run. For comparisons, in the
 * environment at plan creation: TESSERA_SPGEMM_MERGE=0 sends the rows of
 * few entries to the warps' bins (TESSERA_SPGEMM_MERGE_PRODUCTS sets the
 * merged rows' products at most, TESSERA_SPGEMM_MERGE_LEAST_ROWS the rows
 * of A from which the bin is used), TESSERA_SPGEMM_SORTED_BINS=0 the rows
 * of few products to the hash tables, TESSERA_SPGEMM_SHARED_DENSE=0 the
 * longest rows away from shared memory, TESSERA_SPGEMM_DENSE_SORT=0 the
 * longest rows to dense accumulators in global memory (one warp each; with
 * TESSERA_SPGEMM_LONG_ROWS=0 also those of 512 entries of A or more, else a
 * block each), and TESSERA_SPGEMM_SORT_CHUNK_MB sets the chunk's keys and
 * values in MB (default: 3 bytes for each product of the multiplication,
 * 64 MB to 1 GB).
 *
 * Sizes: dimensions and column indices are 32-bit, offsets and counts
 * (products, entries) 64-bit; a count that would pass INT64_MAX is refused
 * with TS_ERROR_OVERFLOW.
 */
#ifndef TESSERA_SPGEMM_H
#define TESSERA_SPGEMM_H

#include "tessera/core.h"
#include "tessera/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of ts_spgemm_plan_create(); zero-initialise, then set fields. */
typedef struct ts_spgemm_options {
  /**
   * Bytes of backend memory the plan may hold at once: the copies of A and B,
   * the phases' workspace and C (0 = no limit but the device's). On the CPU
   * backend it bounds the same allocations in host memory.
   */
  int64_t memory_budget;
} ts_spgemm_options;

/** A prepared SpGEMM C = A * B. */
typedef struct ts_spgemm_plan ts_spgemm_plan;

/**
 * Prepare C = A * B on the context's backend. @p options may be NULL. A is
 * m x k and B k x n, both TS_GENERAL, of the same value type, passing
 * ts_csr_check() (sorted, distinct columns in each row). Refused with
 * TS_ERROR_INVALID_ARGUMENT: NULL, A->cols != B->rows, different value
 * types, symmetric storage, a negative budget; with TS_ERROR_INVALID_MATRIX:
 * an operand that fails ts_csr_check(). Copies A and B into backend memory
 * (TS_ERROR_OUT_OF_MEMORY naming the bytes when they pass the budget).
 */
TS_API ts_status ts_spgemm_plan_create(ts_context *ctx, const ts_csr *a, const ts_csr *b,
                                       const ts_spgemm_options *options, ts_spgemm_plan **plan);

/**
 * The symbolic phase: products and exact entries of every row of C, C's
 * row offsets (int64, in the plan's workspace until ts_spgemm_allocate()).
 * Allocates the workspace of both phases (within the budget: the longest
 * rows run fewer at a time when it is tight) and waits for the GPU.
 * Running it again does nothing.
 */
TS_API ts_status ts_spgemm_symbolic(ts_spgemm_plan *plan);

/** Entries of C, or -1 before ts_spgemm_symbolic(). */
TS_API int64_t ts_spgemm_plan_nnz(const ts_spgemm_plan *plan);

/** Products a_ik * b_kj in all (Gustavson's intermediate count), or -1 before ts_spgemm_symbolic(). */
TS_API int64_t ts_spgemm_plan_products(const ts_spgemm_plan *plan);

/** Bytes C takes in backend memory (row offsets, column indices, values), or -1 before ts_spgemm_symbolic(). */
TS_API int64_t ts_spgemm_plan_c_bytes(const ts_spgemm_plan *plan);

/** Bytes of backend memory the plan holds now (A, B, workspace and C when allocated); 0 for NULL. */
TS_API int64_t ts_spgemm_plan_device_bytes(const ts_spgemm_plan *plan);

/**
 * One line: the rows of each bin (by products), the longest row's products,
 * the workspace and how many of the longest rows run at a time. Owned by the
 * plan ("" before ts_spgemm_symbolic()).
 */
TS_API const char *ts_spgemm_plan_explain(const ts_spgemm_plan *plan);

/**
 * Allocate C in backend memory (after ts_spgemm_symbolic(); C's row offsets
 * move there). When C passes the budget or the device's free memory:
 * TS_ERROR_OUT_OF_MEMORY, the message naming the bytes C needs and the
 * bytes available; the plan stays usable (ts_spgemm_blocked()). Calling it
 * again does nothing; TS_ERROR_INVALID_ARGUMENT before the symbolic phase.
 */
TS_API ts_status ts_spgemm_allocate(ts_spgemm_plan *plan);

/**
 * The numeric phase: C's sorted column indices and values. Needs
 * ts_spgemm_allocate(); allocates nothing, does not wait for the GPU (faults
 * surface at the next ts_context_sync()). Run again, the same bits.
 */
TS_API ts_status ts_spgemm_numeric(ts_spgemm_plan *plan);

/**
 * C's arrays in backend memory (after ts_spgemm_allocate()): row offsets
 * (rows + 1 int64_t), column indices (nnz int32_t), values (nnz of A's
 * type). Owned by the plan; any pointer argument may be NULL.
 */
TS_API ts_status ts_spgemm_c_buffers(const ts_spgemm_plan *plan, const ts_buffer **row_ptr, const ts_buffer **col_idx,
                                     const ts_buffer **values);

/** C as a new host CSR (after ts_spgemm_numeric(); waits for the GPU). */
TS_API ts_status ts_spgemm_download(ts_spgemm_plan *plan, ts_csr **c);

/**
 * Row-blocked mode: C computed in blocks of consecutive rows whose entries
 * and workspace fit the plan's memory budget beside A and B, each block
 * copied into a new host CSR *c as it completes. Runs the symbolic phase
 * first when needed; needs no ts_spgemm_allocate(). TS_ERROR_OUT_OF_MEMORY
 * naming the bytes when not even one row fits.
 */
TS_API ts_status ts_spgemm_blocked(ts_spgemm_plan *plan, ts_csr **c);

/** Free a plan and C's arrays (NULL is a no-op). */
TS_API void ts_spgemm_plan_destroy(ts_spgemm_plan *plan);

/**
 * C = A * B on the host in one call (CPU backend, OpenMP): Gustavson with a
 * dense accumulator per thread, each entry summing its products in the order
 * of k along A's row; C's columns sorted. The reference of the GPU path.
 * @p ctx may be NULL. The same refusals as ts_spgemm_plan_create().
 */
TS_API ts_status ts_csr_spgemm_host(ts_context *ctx, const ts_csr *a, const ts_csr *b, ts_csr **c);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_SPGEMM_H */
