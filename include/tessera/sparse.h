/**
 * @file tessera/sparse.h
 * @brief Sparse containers (COO, CSR, CSC) in host memory, conversions,
 *        validation, and SpMV.
 *
 * Dimensions are at most INT32_MAX (indices are 32-bit); nonzero counts and
 * offsets are 64-bit. A size beyond either limit is refused with
 * TS_ERROR_OVERFLOW, never wrapped.
 *
 * Containers are plain structs that tessera allocates (ts_*_create) and
 * frees (ts_*_destroy); their arrays may be filled by the caller.
 */
#ifndef TESSERA_SPARSE_H
#define TESSERA_SPARSE_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest row or column count (indices are int32_t). */
#define TS_MAX_DIMENSION INT32_MAX

/** How the stored entries relate to the whole matrix. */
typedef enum ts_symmetry {
  TS_GENERAL = 0,        /**< Every entry is stored. */
  TS_SYMMETRIC = 1,      /**< Lower triangle stored; A(j,i) = A(i,j). */
  TS_SKEW_SYMMETRIC = 2, /**< Strict lower triangle stored; A(j,i) = -A(i,j). */
  TS_HERMITIAN = 3       /**< Lower triangle stored; A(j,i) = conj(A(i,j)) (as symmetric for real values). */
} ts_symmetry;

/** Name of a symmetry ("general", "symmetric", ...). */
TS_API const char *ts_symmetry_name(ts_symmetry symmetry);

/**
 * Coordinate (triplet) matrix: entry k is (row_idx[k], col_idx[k], values[k]).
 * Every container holds values of any ::ts_dtype, complex ones as (re, im)
 * pairs; the conversions and checks below take them all.
 */
typedef struct ts_coo {
  int64_t rows;         /**< Number of rows. */
  int64_t cols;         /**< Number of columns. */
  int64_t nnz;          /**< Stored entries (explicit zeros count). */
  int64_t capacity;     /**< Allocated entries (>= nnz). */
  int32_t *row_idx;     /**< Zero-based row of each entry. */
  int32_t *col_idx;     /**< Zero-based column of each entry. */
  void *values;         /**< nnz values of type dtype. */
  ts_dtype dtype;       /**< Value type. */
  ts_symmetry symmetry; /**< What the stored entries represent. */
} ts_coo;

/** Compressed sparse row matrix. */
typedef struct ts_csr {
  int64_t rows;         /**< Number of rows. */
  int64_t cols;         /**< Number of columns. */
  int64_t nnz;          /**< Stored entries = row_ptr[rows]. */
  int64_t *row_ptr;     /**< rows + 1 offsets, row_ptr[0] = 0. */
  int32_t *col_idx;     /**< Column of each entry, sorted within a row. */
  void *values;         /**< nnz values of type dtype. */
  ts_dtype dtype;       /**< Value type. */
  ts_symmetry symmetry; /**< What the stored entries represent. */
} ts_csr;

/** Compressed sparse column matrix. */
typedef struct ts_csc {
  int64_t rows;         /**< Number of rows. */
  int64_t cols;         /**< Number of columns. */
  int64_t nnz;          /**< Stored entries = col_ptr[cols]. */
  int64_t *col_ptr;     /**< cols + 1 offsets, col_ptr[0] = 0. */
  int32_t *row_idx;     /**< Row of each entry, sorted within a column. */
  void *values;         /**< nnz values of type dtype. */
  ts_dtype dtype;       /**< Value type. */
  ts_symmetry symmetry; /**< What the stored entries represent. */
} ts_csc;

/** Allocate a COO matrix with room for @p capacity entries; nnz starts at 0. */
TS_API ts_status ts_coo_create(ts_context *ctx, int64_t rows, int64_t cols, int64_t capacity, ts_dtype dtype,
                               ts_coo **coo);
/** Free a COO matrix (NULL is a no-op). */
TS_API void ts_coo_destroy(ts_coo *coo);

/** Allocate a CSR matrix of @p nnz entries; row_ptr is zeroed. */
TS_API ts_status ts_csr_create(ts_context *ctx, int64_t rows, int64_t cols, int64_t nnz, ts_dtype dtype, ts_csr **csr);
/** Free a CSR matrix (NULL is a no-op). */
TS_API void ts_csr_destroy(ts_csr *csr);

/** Allocate a CSC matrix of @p nnz entries; col_ptr is zeroed. */
TS_API ts_status ts_csc_create(ts_context *ctx, int64_t rows, int64_t cols, int64_t nnz, ts_dtype dtype, ts_csc **csc);
/** Free a CSC matrix (NULL is a no-op). */
TS_API void ts_csc_destroy(ts_csc *csc);

/** Deep copy of a CSR matrix. */
TS_API ts_status ts_csr_copy(ts_context *ctx, const ts_csr *src, ts_csr **dst);

/** Options for conversions from COO. */
typedef enum ts_duplicates {
  TS_DUPLICATES_SUM = 0,  /**< Entries at the same (i,j) are added (default); a sum that is not finite
                               (past the range of the value type) is refused: TS_ERROR_INVALID_MATRIX. */
  TS_DUPLICATES_ERROR = 1 /**< Duplicates are refused: TS_ERROR_INVALID_MATRIX. */
} ts_duplicates;

/**
 * CSR from COO: entries sorted by (row, column), duplicates handled as
 * @p duplicates says, explicit zeros kept. Indices are checked for range.
 * The result keeps the COO's symmetry tag and value type.
 */
TS_API ts_status ts_csr_from_coo(ts_context *ctx, const ts_coo *coo, ts_duplicates duplicates, ts_csr **csr);

/** COO from CSR, in row-major order. */
TS_API ts_status ts_coo_from_csr(ts_context *ctx, const ts_csr *csr, ts_coo **coo);

/** CSC from CSR (same matrix, column-major storage). */
TS_API ts_status ts_csc_from_csr(ts_context *ctx, const ts_csr *csr, ts_csc **csc);

/** CSR from CSC (same matrix, row-major storage). */
TS_API ts_status ts_csr_from_csc(ts_context *ctx, const ts_csc *csc, ts_csr **csr);

/**
 * B = A^T as a new CSR matrix (rows and columns swapped; not conjugated).
 * For symmetric storage A^T = A, so B is a copy keeping the stored triangle
 * and the tag (transposing the stored triangle would move it to the upper
 * side, against the tag's convention); for skew-symmetric storage B = -A, a
 * copy with negated values; for hermitian storage B = conj(A), a copy with
 * conjugated values (a plain copy for real values). The input must pass
 * ts_csr_check().
 */
TS_API ts_status ts_csr_transpose(ts_context *ctx, const ts_csr *a, ts_csr **at);

/**
 * Expand a symmetric, skew-symmetric or hermitian COO into a general one
 * holding both triangles (mirror entries are added; the diagonal once).
 * A general input is copied. Each off-diagonal (i, j, v) is followed by its
 * mirror (j, i, v), or (j, i, -v) for skew-symmetric, or (j, i, conj(v)) for
 * hermitian (complex values); an entry stored in the
 * upper triangle is mirrored just the same (an entry stored in both triangles
 * then appears twice: ts_csr_from_coo() sums such duplicates). A stored
 * diagonal entry is kept once, also for skew-symmetric. The result is tagged
 * TS_GENERAL; a count that would pass INT64_MAX gives TS_ERROR_OVERFLOW.
 */
TS_API ts_status ts_coo_expand_symmetric(ts_context *ctx, const ts_coo *coo, ts_coo **general);

/**
 * Check a CSR matrix: offsets start at 0, are monotone and end at nnz;
 * column indices are in range, strictly increasing within each row (so no
 * duplicates). On failure returns TS_ERROR_INVALID_MATRIX and the message
 * names the offending row and entry.
 */
TS_API ts_status ts_csr_check(ts_context *ctx, const ts_csr *csr);

/** The same checks for CSC, by column. */
TS_API ts_status ts_csc_check(ts_context *ctx, const ts_csc *csc);

/** Check a COO matrix: indices in range, nnz <= capacity. */
TS_API ts_status ts_coo_check(ts_context *ctx, const ts_coo *coo);

/**
 * Row-length and pattern statistics of a CSR matrix's stored entries (for
 * symmetric storage, of the stored triangle: expand it first for the whole
 * matrix). stddev_row is the population standard deviation. The symmetry
 * fractions are 0 for a non-square matrix and 1 when no off-diagonal entry
 * is stored; values are compared with == (NaN never matches; complex values
 * part by part).
 */
typedef struct ts_csr_stats {
  int64_t rows;            /**< Rows. */
  int64_t cols;            /**< Columns. */
  int64_t nnz;             /**< Stored entries. */
  int64_t min_row;         /**< Shortest row. */
  int64_t max_row;         /**< Longest row. */
  double mean_row;         /**< Mean row length. */
  double stddev_row;       /**< Standard deviation of row lengths. */
  int64_t empty_rows;      /**< Rows with no entry. */
  int64_t max_col;         /**< Longest column (entries in one column). */
  int64_t empty_cols;      /**< Columns with no entry. */
  int64_t diagonal;        /**< Stored diagonal entries. */
  int64_t bandwidth;       /**< max |i - j| over stored entries. */
  double pattern_symmetry; /**< Fraction of off-diagonal entries whose mirror is stored (1 = symmetric pattern). */
  double value_symmetry;   /**< Fraction of off-diagonal entries with A(j,i) == A(i,j). */
} ts_csr_stats;

/**
 * Compute ::ts_csr_stats; the matrix must pass ts_csr_check(). Reports
 * progress through the context's callback and stops with
 * TS_ERROR_CANCELLED when it asks to (ts_context_set_progress()).
 */
TS_API ts_status ts_csr_stats_compute(ts_context *ctx, const ts_csr *csr, ts_csr_stats *stats);

/**
 * Fill estimate of a square matrix: the entries of the LU factors when the
 * pattern is taken as symmetric, i.e. of the Cholesky factor L of the
 * pattern of A + A^T ordered by AMD (SuiteSparse). *lu_nnz = nnz(L + U) =
 * 2 nnz(L) - n (the diagonal counted once); *l_nnz = nnz(L) with its
 * diagonal (@p l_nnz may be NULL). Pivoting for stability may add fill on
 * unsymmetric matrices; this is the figure before it. Returns
 * TS_ERROR_UNSUPPORTED when tessera was built without SuiteSparse AMD.
 * Reports progress and honours a cancel (TS_ERROR_CANCELLED) between
 * blocks of work, except inside the AMD ordering, one call of SuiteSparse
 * that runs to its end (seconds for millions of rows).
 */
TS_API ts_status ts_csr_fill_estimate(ts_context *ctx, const ts_csr *a, int64_t *lu_nnz, int64_t *l_nnz);

/**
 * y = alpha * A * x + beta * y on the host (CPU backend, OpenMP), with A, x
 * and y of A's value type and in host memory. A must be TS_GENERAL (expand
 * symmetric storage first). @p ctx may be NULL. beta = 0 ignores y's input
 * (NaN in y does not propagate). Deterministic: each row is summed in order.
 * Complex values: x and y hold (re, im) pairs, alpha and beta are real, and
 * each row is summed in complex double (complex64 rounded once, at the end).
 */
TS_API ts_status ts_csr_spmv_host(ts_context *ctx, double alpha, const ts_csr *a, const void *x, double beta, void *y);

/**
 * How GPU work is mapped to threads (Osama, Porumbescu and Owens, "A
 * Programming Model for GPU Load Balancing", PPoPP 2023). For SpMV a row is
 * a tile and a nonzero an atom.
 */
typedef enum ts_schedule {
  TS_SCHEDULE_AUTO = 0,          /**< Chosen per matrix from its statistics; ts_spmv_plan_explain() says why. */
  TS_SCHEDULE_THREAD_MAPPED = 1, /**< One thread per tile. */
  TS_SCHEDULE_WARP_MAPPED = 2,   /**< One warp per tile. */
  TS_SCHEDULE_BLOCK_MAPPED = 3,  /**< One thread block per tile. */
  TS_SCHEDULE_GROUP_MAPPED = 4,  /**< A group of threads (power of two, 1 to 1024) shares a set of tiles. */
  TS_SCHEDULE_MERGE_PATH = 5,    /**< Even share of tiles + atoms per thread (Merrill and Garland). */
  TS_SCHEDULE_WORK_ORIENTED = 6, /**< Even share of atoms per thread, tiles found by search. */
  /**
   * Tiles of at most 32 atoms one per thread; longer tiles cut into pieces of
   * 1024 atoms, one warp per piece, the pieces of a tile added in order (for
   * a few very long rows among many short ones, such as circuit matrices).
   */
  TS_SCHEDULE_SPLIT_ROWS = 7
} ts_schedule;

/** Number of schedules including AUTO (for loops over all of them). */
#define TS_SCHEDULE_COUNT 8

/** Name of a schedule ("merge-path", "thread-mapped", ...). */
TS_API const char *ts_schedule_name(ts_schedule schedule);

/** Which product a plan computes (or which system a solve solves). */
typedef enum ts_operation {
  TS_OP_NONE = 0,          /**< y = alpha * A * x + beta * y. */
  TS_OP_TRANSPOSE = 1,     /**< y = alpha * A^T * x + beta * y (x has rows entries, y cols). */
  TS_OP_CONJ_TRANSPOSE = 2 /**< y = alpha * A^H * x + beta * y, A^H the conjugate transpose (A^T for real values). */
} ts_operation;

/**
 * Locality layouts of a SpMV plan on the GPU: the plan stores the operand
 * rearranged so that the gathers of x hit fast memory, and the caller's
 * numbering of rows and columns stays as it is (x and y are the caller's).
 * For graphs and power-law rows, whose x gathers are scattered.
 */
typedef enum ts_spmv_locality {
  TS_SPMV_LOCALITY_NONE = 0,        /**< The operand as given (default). */
  TS_SPMV_LOCALITY_SEGMENTED = 1,   /**< Long rows' entries grouped by column segment, each segment's part of x
                                         staged in shared memory, the pieces of a row added in segment order; the
                                         other rows as usual. */
  TS_SPMV_LOCALITY_HOT_COLUMNS = 2, /**< The most-used columns' x values copied next to each other at every call
                                         (a compact block that stays in the SMs' caches). */
  TS_SPMV_LOCALITY_BOTH = 3,        /**< Segmented long rows, hot columns for the other rows. */
  TS_SPMV_LOCALITY_AUTO = 4         /**< Hot columns where they hold enough of the entries, else none; never the
                                         segmented rows, which lost to the plain layout on every input measured. */
} ts_spmv_locality;

/** Options of ts_spmv_plan_create_ex(); zero-initialise, then set fields. */
typedef struct ts_spmv_options {
  ts_schedule schedule; /**< Schedule on the GPU (default AUTO; the CPU backend has one). */
  ts_operation op;      /**< A, A^T or A^H (default A). */
  int group_size;       /**< Threads per group for TS_SCHEDULE_GROUP_MAPPED (a power of two, 1 to 1024), or per short
                             row for TS_SCHEDULE_SPLIT_ROWS (1, 2, 4 or 8); 0 = chosen. */
  ts_spmv_locality locality; /**< Locality layout on the GPU (default NONE; the CPU backend records it). Results stay
                                  deterministic; a layout adds a row's entries in another fixed order. */
} ts_spmv_options;

/** A prepared SpMV: the matrix in backend memory, ready to run many times. */
typedef struct ts_spmv_plan ts_spmv_plan;

/**
 * Prepare y = alpha*A*x + beta*y on the context's backend: copies A into
 * backend memory (GPU memory on CUDA) and sizes any workspace.
 */
TS_API ts_status ts_spmv_plan_create(ts_context *ctx, const ts_csr *a, ts_spmv_plan **plan);

/**
 * As ts_spmv_plan_create() with options (schedule, transpose, group size);
 * @p options may be NULL (AUTO, y = alpha*A*x + beta*y). An unknown schedule
 * or operation, or a group size that is not 0 or a power of two from 1 to
 * 1024, gives TS_ERROR_INVALID_ARGUMENT (a group size is checked with any
 * schedule, used only by group-mapped); A must pass ts_csr_check() and be
 * TS_GENERAL. For TS_OP_TRANSPOSE the plan stores A^T as CSR (A's CSC
 * arrays, built on the host once); for TS_OP_CONJ_TRANSPOSE the same with
 * conjugated values (A^T for real values). Complex matrices run every
 * schedule (x and y of (re, im) pairs, alpha and beta real, rows summed in
 * complex double); the locality layouts take real values only (a complex
 * matrix with one gives TS_ERROR_UNSUPPORTED; AUTO resolves to NONE). AUTO reads the row lengths of the
 * operand (A, or A^T); ts_spmv_plan_explain() gives its reason. On CUDA the
 * offsets are int32 unless nnz > INT32_MAX (the environment variable
 * TESSERA_SPMV_FORCE_WIDE_OFFSETS=1, read here, forces int64 offsets on any
 * matrix: a testing aid). The CPU backend has one implementation: the
 * schedule is recorded, not used. The plan holds the schedule's choice, any
 * partition search results and all workspace, so that ts_spmv_execute()
 * allocates nothing. A locality layout other than NONE (an unknown one gives
 * TS_ERROR_INVALID_ARGUMENT) makes a CUDA plan store the operand rearranged
 * (ts_spmv_locality; its cost is one pass over the entries on the host and
 * their upload), with the schedule applying to the rows it leaves in place.
 */
TS_API ts_status ts_spmv_plan_create_ex(ts_context *ctx, const ts_csr *a, const ts_spmv_options *options,
                                        ts_spmv_plan **plan);

/** Locality layout the plan runs (never AUTO: what AUTO resolved to; NONE on the CPU backend). */
TS_API ts_spmv_locality ts_spmv_plan_locality(const ts_spmv_plan *plan);

/** Schedule the plan runs (never AUTO: what AUTO resolved to). */
TS_API ts_schedule ts_spmv_plan_schedule(const ts_spmv_plan *plan);

/** Group size the plan runs with: threads per group (group-mapped) or per short row (split-rows); 0 otherwise. */
TS_API int ts_spmv_plan_group_size(const ts_spmv_plan *plan);

/**
 * One line saying which schedule the plan runs and why (the statistics and
 * thresholds behind an AUTO choice, or "requested"). Owned by the plan.
 */
TS_API const char *ts_spmv_plan_explain(const ts_spmv_plan *plan);

/** Free a plan (NULL is a no-op). */
TS_API void ts_spmv_plan_destroy(ts_spmv_plan *plan);

/**
 * Run the plan: x (cols values) and y (rows values) are buffers in
 * TS_MEMORY_DEVICE of the plan's context; for TS_OP_TRANSPOSE and
 * TS_OP_CONJ_TRANSPOSE x has rows values and y cols. Allocates nothing and does not wait for the GPU;
 * faults surface at the next ts_context_sync().
 */
TS_API ts_status ts_spmv_execute(ts_spmv_plan *plan, double alpha, const ts_buffer *x, double beta, ts_buffer *y);

/**
 * Bytes a plan's SpMV must move at least: the operand's values, column
 * indices and row offsets once (an offset is 4 bytes on CUDA with int32
 * offsets, else 8), x once, y read and written (whether beta is 0 is known
 * only at execution, so y's read is always counted). 0 for a NULL plan.
 */
TS_API int64_t ts_spmv_plan_bytes(const ts_spmv_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_SPARSE_H */
