/* The LU object (struct ts_lu) and what every phase of the solver shares.
 *
 * src/lu holds the object (lu_object.c: create, destroy, statistics;
 * lu_options.c: the options checked and their defaults), the one rule of
 * where each phase runs (lu_backend.c) and the tuning constants
 * (lu_tuning.h); each phase has a folder with one internal header:
 *   analyze/   ts_lu_analyze: matching and scaling, ordering, the driver
 *   symbolic/  the pattern of L + U
 *   levelize/  the levels of the column dependency graph
 *   numeric/   ts_lu_factor, ts_lu_refactor, and the GPU's device cache
 *   solve/     ts_lu_solve: triangular solves, iterative refinement
 * Within a phase, *_cpu.c is the host path, *_cuda.cu the GPU path,
 * *_gpu.c host code only the GPU path uses, *_nocuda.c the GPU path's
 * stubs in a build without CUDA; unmarked files serve both paths. */
#ifndef TESSERA_LU_INTERNAL_H
#define TESSERA_LU_INTERNAL_H

#include "core/internal.h"
#include "lu/lu_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

enum tsi_lu_state { TSI_LU_CREATED = 0, TSI_LU_ANALYZED = 1, TSI_LU_FACTORED = 2 };

/* Values of the switches below. */
/* switches.symbolic_device, switches.levelize_device. */
enum tsi_lu_phase_device { TSI_LU_PHASE_AUTO = 0, TSI_LU_PHASE_CPU = 1, TSI_LU_PHASE_GPU = 2 };
/* switches.symbolic_queue_words: every row gets the full queue (the paper). */
#define TSI_LU_FULL_QUEUE ((int64_t)-1)
/* switches.symbolic_memory. The unified-memory variants (the paper's section
 * 4.3 baseline) hold M, the counts, the scratch and the whole of L + U in
 * managed memory, filled and read by the host directly, page by page on
 * demand or prefetched; their chunks are the explicit variant's with the
 * full queue. They refuse to allocate more than half the free device memory
 * (no oversubscription: the budget emulates the memory pressure). */
enum tsi_lu_symbolic_memory {
  TSI_LU_SYMBOLIC_EXPLICIT = 0,
  TSI_LU_SYMBOLIC_MANAGED = 1,
  TSI_LU_SYMBOLIC_MANAGED_PREFETCH = 2
};
/* switches.levelize_variant. */
enum tsi_lu_levelize_variant {
  TSI_LU_LEVELIZE_AUTO = 0,        /* the cooperative kernel where the device allows it */
  TSI_LU_LEVELIZE_COOPERATIVE = 1, /* persistent grid, grid-wide barrier per level */
  TSI_LU_LEVELIZE_SINGLE_BLOCK = 2 /* one block iterates the levels with block barriers */
};
/* switches.gpu_scratch, the scratch of the GPU's left-looking kernels:
 * automatic, one dense n-vector per concurrent column, or the column itself
 * (sparse, rows found by binary search). */
enum { TSI_LU_SCRATCH_AUTO = 0, TSI_LU_SCRATCH_DENSE = 1, TSI_LU_SCRATCH_SPARSE = 2 };
/* switches.gpu_dense_tail, the GPU's right-looking tail: automatic, as one
 * dense block factored by panels and GEMM, or column by column in the
 * sparse pattern. */
enum { TSI_LU_DENSE_TAIL_AUTO = 0, TSI_LU_DENSE_TAIL_ON = 1, TSI_LU_DENSE_TAIL_OFF = 2 };

/* switches.numeric_method: the numeric phase's method (AUTO: the columns on
 * the host; on the GPU the rule of numeric/frontal_rule.c). Complex values
 * take the columns on both. */
enum { TSI_LU_METHOD_AUTO = 0, TSI_LU_METHOD_COLUMNS = 1, TSI_LU_METHOD_FRONTS = 2 };

enum { TSI_LU_FLOW_LOOKUP_AUTO = 0, TSI_LU_FLOW_LOOKUP_MAP = 1, TSI_LU_FLOW_LOOKUP_SEARCH = 2 };

enum { TSI_LU_COLUMN_GROUPS_AUTO = 0, TSI_LU_COLUMN_GROUPS_OFF = 1, TSI_LU_COLUMN_GROUPS_ON = 2 };

/* Test and ablation switches: the tests and benchmarks set them in
 * lu->switches to reach a variant the automatic choices would not take, or
 * to compare two ways of computing the same result. All zero (the automatic
 * choice) after ts_lu_create; a new analysis keeps them. */
struct tsi_lu_switches {
  /* Analysis. Where the symbolic and levelization phases run (enum
   * tsi_lu_phase_device; AUTO follows lu_backend.c's rule). */
  int symbolic_device;
  int levelize_device;
  /* Non-zero: the host's symbolic phase finds the rows of L + U by the
   * per-row fill-path traversal (the GPU's algorithm) instead of the row
   * merge; the tests compare the two. */
  int symbolic_fill_path;
  /* The GPU symbolic phase: its slots (0: the tiers of
   * symbolic_tiers_gpu.c; TSI_LU_FULL_QUEUE: the paper's, an n-bit bitmap
   * and a queue of n words; > 0: the tiers with rings of at most that many
   * words, the tests' way to send many rows down the reruns); with the
   * paper's slots, every row's slot sized like the last rows' (one chunk
   * size instead of the paper's two); the windowed tier's window (bits) and
   * hash set (words), > 0 to narrow them on small matrices; its memory (enum
   * tsi_lu_symbolic_memory: the unified-memory variants run the paper's
   * slots). */
  int symbolic_one_chunk_size;
  int64_t symbolic_queue_words;
  int64_t symbolic_window_bits;
  int64_t symbolic_hash_words;
  int symbolic_memory;
  /* The GPU levelization's device-side loop (enum tsi_lu_levelize_variant). */
  int levelize_variant;

  /* GPU factorization, read when the device cache is built (first GPU
   * factorization of an analysis): the scratch (TSI_LU_SCRATCH_*, 0 =
   * automatic); no_tail (non-zero: every column left-looking, no
   * right-looking tail); dense_tail (TSI_LU_DENSE_TAIL_*, 0 = automatic);
   * tail_columns (> 0: the dense tail's width instead of the estimate's);
   * scratch_slots (> 0: that many dense scratch slots instead of
   * tsi_lu_dense_scratch_slots()'s rule). */
  int gpu_scratch;
  int gpu_no_tail;
  int gpu_dense_tail;
  int64_t gpu_tail_columns;
  int64_t gpu_scratch_slots;
  /* GPU factorization, read at every factorization: global_columns (non-zero:
   * with the dense scratch, no level accumulates its columns in shared
   * memory); tail_search (non-zero: the sparse tail's gather finds U(j, k) by
   * binary search even with a dense scratch to map the column in);
   * level_sync (non-zero: the left-looking levels run one launch per level
   * instead of the dataflow launches); tail_block_row (> 0: rows of L
   * longer than this go to the sparse tail gather's whole block instead of
   * TSI_LU_TAIL_BLOCK_ROW, the tests' way to reach that path on small
   * matrices). Read when the device cache is built: tail_split (> 0: tail
   * columns with this many entries above the tail or more are gathered in
   * pieces, a launch per level, instead of TSI_LU_TAIL_SPLIT_ENTRIES; < 0:
   * none). */
  int gpu_global_columns;
  int gpu_tail_search;
  int64_t gpu_tail_block_row;
  int64_t gpu_tail_split;
  /* GPU sparse tail, read when the device cache is built: tail_segment_row
   * (> 0: entries whose rows of L hold more entries than this are summed by
   * segments instead of TSI_LU_TAIL_SEGMENT_ROW; < 0: none), tail_segment
   * (> 0: positions of a segment instead of TSI_LU_TAIL_SEGMENT). */
  int64_t gpu_tail_segment_row;
  int64_t gpu_tail_segment;
  /* GPU pivot check, read at its first use in an analysis: columns of more
   * entries than this are read by chunks (0: TSI_LU_QUALITY_THREAD_ENTRIES;
   * the tests take 1 and large ones, so that both paths see every column). */
  int64_t gpu_quality_thread;
  int gpu_level_sync;
  /* GPU factorization, read at every factorization: how the dataflow
   * levels find a row's position in the column they compute
   * (TSI_LU_FLOW_LOOKUP_*: AUTO, the scratch slot's map, or a binary search
   * of the column's rows in shared memory). */
  int gpu_flow_lookup;
  /* GPU solves, read at every solve: non-zero, one launch per level instead
   * of the synchronisation-free launch (the reference the tests compare the
   * default with). */
  int gpu_solve_level_sync;
  /* GPU solves, read at every solve: the entries of a row one warp sums
   * before the row is summed by segments (0: TSI_LU_SOLVE_SEGMENT; the
   * tests take small ones, so that small matrices have long rows). */
  int64_t gpu_solve_segment;
  /* GPU solves, read at every solve: non-zero, the column solves even where
   * the fronts made the factors (solve/solve_fronts_cuda.cu otherwise). */
  int gpu_solve_columns;
  /* GPU solves through the fronts, read at every solve: 0 splits the
   * forward products of the levels that TSI_LU_FRONT_SOLVE_SPLIT_* choose
   * and takes the wide levels that TSI_LU_FRONT_SOLVE_WIDE_* choose, 1
   * splits both directions of every level with large fronts, 2 takes every
   * such level wide, 3 splits as 0 does without wide levels, -1 neither
   * (the same bits every way; the tests compare them). */
  int gpu_solve_split;

  /* The numeric phase's method (TSI_LU_METHOD_*), read by both paths at
   * every factorization; complex values always take the columns. */
  int numeric_method;

  /* CPU factorization, read at every factorization: non-zero, several
   * threads go level by level (a barrier between levels) instead of the
   * dataflow schedule. */
  int cpu_level_sync;
  /* CPU factorization, read at every factorization: how the column kernel
   * treats chained columns of L (TSI_LU_COLUMN_GROUPS_*: AUTO, where they
   * make enough of the work, tsi_lu_chain_runs; OFF, column by column; ON,
   * grouped wherever they chain). The same bits every way. */
  int cpu_column_groups;
  /* CPU factorization, read at every factorization: non-zero, the smallest
   * pivot is found by the pass over the pivots even where the column
   * kernel's tally settles it (the same result either way). */
  int cpu_smallest_pivot_pass;
  /* Host threads, read at every phase: > 0, exactly this many for every
   * parallel part (the context's count at most), bypassing the size rule and
   * the free-core check of tsi_lu_host_threads, so that the tests reach the
   * threaded schedules on small matrices. */
  int cpu_threads;

  /* Analysis, read by ts_lu_analyze: non-zero, a matrix in block triangular
   * form is factored whole (U's off-diagonal blocks L_kk^-1 A_kj formed)
   * even where the host would factor only its diagonal blocks; the
   * batches, whose kernels read L + U of the whole matrix, set it. */
  int whole_factors;
};

/* How well the pivots of a factorization suit its values (the pivot check
 * of numeric/pivot_check.c): the perturbed pivots, the largest multiplier
 * |L(i, j)| (above 1/tau the pivot is below tau times an entry of its
 * column, where threshold partial pivoting would have taken another row),
 * and the growth max |U| / max |M|; and for the singularity policy max |M|
 * and the smallest pivot |u_kk| / max |M| (to single precision) with its
 * column of M. */
typedef struct tsi_lu_pivot_quality {
  int64_t perturbed;
  double max_multiplier;
  double growth;
  double max_m;
  double smallest_pivot_ratio;
  int64_t smallest_pivot_column; /* -1 when n is 0 */
  /* The host's column kernel tracks, as it stores each pivot, the least
   * |u_kk| (the first column among equals) and the next larger magnitude,
   * which settle the smallest pivot's key without a pass over the pivots
   * when the two round apart in single precision (smallest_pivot_cpu.c);
   * least_known is 0 where no kernel tracked them (the fronts, the GPU). */
  double least_pivot, next_pivot;
  int64_t least_pivot_column;
  int least_known;
} tsi_lu_pivot_quality;

/* The analyzed matrix is M = P * Dr * A * Dc * Q, where
 *   M(i, j) = row_scale[row_perm[i]] * A(row_perm[i], col_perm[j]) * col_scale[col_perm[j]],
 * row_perm combines the matching (a large diagonal) and the fill-reducing
 * ordering applied symmetrically, and col_perm is the ordering. */
struct ts_lu {
  ts_context *ctx;
  ts_lu_options options; /* defaults resolved */
  enum tsi_lu_state state;
  int64_t n;
  /* Non-zero when the analyzed matrix is complex (TS_COMPLEX64 or
   * TS_COMPLEX128): every value array below (a_values, lu_values,
   * lu_values_f32, their device copies) then holds (re, im) pairs, two
   * numbers an entry, and so do the solves' vectors. */
  int complex_values;

  /* Analysis: permutations and scaling, in A's numbering. */
  int32_t *row_perm; /* n: row i of M is row row_perm[i] of A */
  int32_t *col_perm; /* n: column j of M is column col_perm[j] of A */
  /* Diagonal blocks of the block triangular form M was ordered in (1: the
   * whole matrix ordered at once; analyze.c keeps whichever fills less). */
  int64_t btf_blocks;
  /* The diagonal blocks factored alone (KLU's way: Davis and Palamadai
   * Natarajan, ACM TOMS 37(3), 2010), or NULL when L + U is the whole
   * matrix's. block_ptr holds btf_blocks + 1 bounds: block b is columns
   * [block_ptr[b], block_ptr[b + 1]). In this block form L + U holds the
   * factors of each diagonal block and, above them in U's columns, A's
   * off-diagonal blocks as M holds them (no fill, never updated);
   * block_begin[k] is the position in column k of its first row in k's own
   * block (the entries before it are M's). The solves go block by block,
   * the off-diagonal blocks applied as products (solve_cpu_impl.h). Chosen
   * by the analysis on the host path only (analyze.c,
   * tsi_lu_blocks_alone_allowed). */
  int64_t *block_ptr;
  int64_t *block_begin; /* n */
  double *row_scale;    /* n, indexed by A's rows (all 1 without matching) */
  double *col_scale;    /* n, indexed by A's columns */

  /* A's pattern as analyzed (refactor checks the new matrix against it) and,
   * for each entry k of A in CSR order, its position in the L+U values. */
  int64_t nnz_a;
  int64_t *a_row_ptr; /* n + 1 */
  int32_t *a_col_idx; /* nnz_a */
  int64_t *a_to_lu;   /* nnz_a */

  /* Symbolic: the pattern of L+U of M by columns, rows sorted within each
   * column; diag_pos[j] is the position of M's (j, j); entries above it are
   * U(:, j), entries below are L(:, j) (unit diagonal implied). */
  int64_t lu_nnz;
  int64_t *lu_col_ptr; /* n + 1 */
  int32_t *lu_row_idx; /* lu_nnz */
  int64_t *diag_pos;   /* n */

  /* The fronts of the multifrontal numeric phase (symbolic/fronts.c), or
   * NULL: built by the first factorization that uses them, freed with the
   * analysis. */
  struct tsi_lu_fronts *fronts;

  /* Levels of the column dependency graph: the columns of level l are
   * level_cols[level_ptr[l] .. level_ptr[l + 1]); every column of a level
   * depends only on columns of earlier levels. */
  int64_t levels;
  int64_t *level_ptr;  /* levels + 1 */
  int32_t *level_cols; /* n */

  /* Numeric: values aligned with lu_row_idx, in the factor precision; the
   * numeric code owns these and anything it caches in numeric_aux. */
  double *lu_values;    /* lu_nnz, when float_factors is 0 */
  float *lu_values_f32; /* lu_nnz, when float_factors is set */
  void *numeric_aux;    /* released by tsi_lu_numeric_release */

  /* Values of the matrix last factored, in A's CSR order, for the residual of
   * iterative refinement (double); page-locked (a_values_pinned) when the
   * GPU factors them, so that their upload is one direct copy. */
  double *a_values;
  int a_values_pinned;

  ts_lu_stats stats;
  /* The lowest column of M whose pivot the last factorization perturbed, or
   * -1 (set by both numeric paths; the singularity policy names it). */
  int64_t first_perturbed;

  /* GPU numeric phases (numeric/ and solve/, the *_cuda.cu files): the
   * pattern, levels and factor values cached on the device (struct
   * tsi_lu_device, numeric/numeric_internal.h), uploaded at the first GPU
   * factorization of an analysis and released with it. factors_on_device is
   * set when the last factorization ran on the GPU: the factors are then on
   * the device only (lu_values is stale until tsi_lu_cuda_download_factors)
   * and ts_lu_solve solves there. */
  void *numeric_device;
  int factors_on_device;
  /* The tests' and benchmarks' switches (never set through the API). */
  struct tsi_lu_switches switches;

  /* Partial-pivoting fallback of the solves (numeric/numeric_internal.h), or NULL; freed by
   * every new factorization. */
  struct tsi_lu_pivoted *pivoted;

  /* The host's numeric phase: non-zero once the levels have been checked
   * against the pattern (the first host factorization of an analysis;
   * cleared with the analysis). */
  int schedule_checked;
  /* The factorization's work as the analysis estimated it (flops and a share
   * per entry of L + U, lu_tuning.h): the host's thread count and AUTO's
   * choice of the GPU (lu_backend.c) read it, so that both stay the same for
   * every factorization of an analysis. */
  double factor_work;
  /* AUTO on a CUDA context, an analysis whose work is below
   * TSI_LU_GPU_FACTOR_WORK: its factorizations stay on the host, so its
   * diagonal blocks are factored alone as off a CUDA context (lu_backend.c). */
  int host_analysis;
  /* AMD's bound on the factorization work of the diagonal blocks alone
   * (A's entries above them not counted), from the ordering (INFINITY when
   * not known). */
  double blocks_work;
  /* The pivot check: the last factorization's quality (set by either numeric
   * path), and the first factorization's after the analysis, the reference
   * of fresh pivots (pivot_base_set once it is taken; cleared with the
   * analysis). */
  tsi_lu_pivot_quality pivot_now;
  tsi_lu_pivot_quality pivot_base;
  int pivot_base_set;

  /* A matching handed to the next analysis with partial pivoting (AUTO's
   * re-pivoting hands the static analysis's, on the same pattern): the row
   * of A matched to each column of A and the scales, as tsi_lu_matching
   * makes them; NULL when none. The caller that sets them owns them. */
  const int32_t *handed_matching;
  const double *handed_row_scale, *handed_col_scale;
  /* A digest of the values the analysis saw (AUTO's analyses of real
   * values only; 0 otherwise): its matching is handed on only to values
   * with the same digest (tsi_lu_values_digest). */
  uint64_t analyzed_digest;
};

/* The phases of the solver, for tsi_lu_runs_on_gpu. */
enum tsi_lu_phase { TSI_LU_PHASE_SYMBOLIC, TSI_LU_PHASE_LEVELIZE, TSI_LU_PHASE_NUMERIC, TSI_LU_PHASE_SOLVE };

/* Numbers an entry of lu's values takes: 2 for complex values, else 1. */
static inline int64_t tsi_lu_parts(const ts_lu *lu) { return lu->complex_values ? 2 : 1; }

/* The static pivoting threshold (ts_lu_options::pivot_threshold): the
 * resolved option, or the default of the factors' precision should the
 * options come unresolved. */
static inline double tsi_lu_pivot_threshold(const ts_lu *lu) {
  const double threshold = lu->options.pivot_threshold;
  if (threshold > 0.0)
    return threshold;
  return lu->options.float_factors ? TSI_LU_PIVOT_THRESHOLD_F32 : TSI_LU_PIVOT_THRESHOLD_F64;
}

/* Whether `phase` of lu runs on the GPU now (the rules: lu_backend.c). */
bool tsi_lu_runs_on_gpu(const ts_lu *lu, enum tsi_lu_phase phase);

/* Whether an analysis may factor only the diagonal blocks of a block
 * triangular form (lu->block_ptr; lu_backend.c): a context without CUDA,
 * the row merge and the columns (the GPU's kernels, the fronts and the
 * batches read L + U of the whole matrix). */
bool tsi_lu_blocks_alone_allowed(const ts_lu *lu);

/* Whether an analysis on a CUDA context may stay on the host with its
 * blocks alone (lu->host_analysis): AUTO's numeric phase, the analysis's
 * phases on the host, static pivots (lu_backend.c). */
bool tsi_lu_host_analysis_possible(const ts_lu *lu, bool partial);

/* TS_LU_PIVOTING_AUTO's rule: the first factorization of an analysis with
 * static pivots perturbed a pivot, and a (real, at most
 * TSI_LU_PARTIAL_PIVOT_MAX_NNZ entries, factored on the host) is analyzed
 * again with partial pivoting and factored anew (factor.c;
 * analyze/partial_pivots_cpu.c). */
bool tsi_lu_partial_pivoting_instead(const ts_lu *lu, const ts_csr *a);

/* Host threads of lu's CPU phases: the context's setting, else OpenMP's
 * default; 1 without OpenMP (lu_backend.c). */
int tsi_lu_threads(const ts_lu *lu);

/* Kinds of host work, for tsi_lu_host_threads. */
enum tsi_lu_host_work {
  TSI_LU_WORK_PASS,    /* a pass over `amount` entries */
  TSI_LU_WORK_FACTOR,  /* a factorization of `amount` work (flops + a share per entry of L + U) */
  TSI_LU_WORK_ANALYSIS /* an analysis of a matrix of `amount` entries */
};

/* Host threads for one parallel part of `kind` and size `amount`
 * (lu_backend.c): one below the size where threads pay, else
 * tsi_lu_threads(lu) capped at the cores not busy with other work
 * (switches.cpu_threads overrides both). */
int tsi_lu_host_threads(const ts_lu *lu, enum tsi_lu_host_work kind, double amount);

/* The most of `wanted` threads that find a core free of other runnable work
 * now (at least 1): the machine's cores less the runnable threads beside the
 * caller (host_cores.c; Linux's /proc/loadavg, `wanted` elsewhere). */
int tsi_lu_free_cores(int wanted);

/* Check the caller's options and resolve their defaults (lu_options.c). */
ts_status tsi_lu_options_resolve(ts_context *ctx, const ts_lu_options *given, ts_lu_options *resolved);

#ifdef __cplusplus
}
#endif

#endif
