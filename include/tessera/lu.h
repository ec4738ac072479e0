/**
 * @file tessera/lu.h
 * @brief Sparse LU factorization and solve for unsymmetric systems (circuit
 *        simulation and others): analyze once, factor, refactor with new
 *        values, solve with many right-hand sides, iterative refinement.
 *
 * The pipeline follows Xia, Jiang, Agrawal and Ramnath, "End-to-End LU
 * Factorization of Large Matrices on GPUs" (PPoPP 2023): on the host a
 * maximum-product matching with scaling (Duff and Koster 2001) and a
 * fill-reducing ordering (SuiteSparse AMD on A+A^T, METIS nested dissection, or COLAMD); then a
 * symbolic factorization (fill found per row by traversal through
 * lower-numbered vertices, in chunks sized from a memory budget), a
 * levelization of the column dependencies (Kahn's topological sort), a
 * column-based numeric factorization in the levels' order (on the GPU and
 * on several host threads, without barriers between levels: each column
 * waits only for the columns it gathers; on the GPU the trailing dense block
 * right-looking),
 * and triangular solves with refinement of the residual in double.
 *
 * Typical use, as with KLU:
 * @code
 *   ts_lu *lu; ts_lu_create(ctx, NULL, &lu);
 *   ts_lu_analyze(lu, A);          // once per pattern
 *   ts_lu_factor(lu, A);           // numeric
 *   ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n);
 *   ts_lu_refactor(lu, A_new);     // same pattern, new values
 *   ts_lu_destroy(lu);
 * @endcode
 * All vectors are in host memory. Permutations reported in statistics and
 * singular columns are in the user's numbering.
 *
 * Complex matrices (TS_COMPLEX64 or TS_COMPLEX128 values) go through the
 * same calls: the matching and scaling use the entries' moduli, the factors
 * are complex double (complex float with ts_lu_options::float_factors), the
 * vectors of ts_lu_solve() are arrays of (real, imaginary) pairs of double
 * with leading dimensions counted in complex entries, TS_OP_CONJ_TRANSPOSE
 * solves with A^H (with real values it is A^T), and the extracted factors
 * are TS_COMPLEX128. A refactorization takes values of the kind (real or
 * complex) that was analysed. Batches (tessera/lu_batch.h) are real only.
 *
 * <b>Numbering in messages.</b> Rows, columns and entries named in the
 * messages of the LU functions (ts_last_error()) and in the statistics
 * (ts_lu_stats::singular_column) are indices of the caller's matrix as
 * passed in (the rows and columns of its ts_csr, before the analysis's
 * permutations), counted from 0; each message says "(from 0)" beside them.
 * The command-line tool renumbers them from 1, as Matrix Market files count.
 *
 * <b>Singular matrices.</b> One rule on every path (the host and the GPU,
 * ts_lu_factor() and ts_lu_refactor(), the partial-pivoting fallback, real
 * and complex values, the members of a batch; for complex values |u_kk| and
 * max|M| are moduli):
 * - A matrix without a perfect matching is refused by ts_lu_analyze() with
 *   TS_ERROR_STRUCTURALLY_SINGULAR and its structural rank.
 * - Pivots are static. A pivot u_kk with |u_kk| < pivot_threshold * max|M|
 *   (ts_lu_options::pivot_threshold: 1e-14 with double factors, 1e-7 with
 *   float ones; M the scaled, permuted matrix) is tiny. With
 *   ts_lu_options::no_perturbation (the CLI's --no-perturbation) a tiny
 *   pivot is TS_ERROR_NUMERICALLY_SINGULAR at once, naming its column.
 * - Otherwise tiny pivots are replaced and counted
 *   (ts_lu_stats::perturbed_pivots), and the factors are judged: the
 *   condition number of A is estimated as ts_lu_condest() does, every solve
 *   of the estimator refined in double. The factors stand when each of
 *   those solves reaches a normwise backward error of at most 1e-14 and the
 *   estimate is at most 1/eps = 2^52 (about 4.5e15; eps is double's machine
 *   epsilon). Where only the estimate keeps them from standing (every solve
 *   reached 1e-14), the condition number of the scaled matrix M is
 *   estimated the same way (M^{-1} through the same refined solves; raised
 *   to A's estimate over the spans of the row and column scales where that
 *   is larger, also a lower bound of M's; ts_lu_stats::scaled_condest), and
 *   the factors stand when its solves reach 1e-14 on M and it is at most
 *   1e-3/eps (about 4.5e12: the estimate, a lower bound, can fall far below
 *   the truth on a matrix beyond 1/eps): a diagonal scaling does not make a
 *   matrix singular, and A with its rows and columns in other units has the
 *   same M (the matching's scaling absorbs the units). If not, the matrix is factored again with threshold partial
 *   pivoting on the host (KLU's algorithm): a column with no nonzero pivot
 *   candidate there is singular (KLU's own verdict), and otherwise the same
 *   two tests judge those factors, which the solves then use
 *   (ts_lu_stats::partial_pivoting). A matrix whose values are all zero is
 *   singular.
 * - Factors without a tiny pivot are judged the same way when their
 *   smallest pivot is below sqrt(t) * max|M|, t the larger of
 *   pivot_threshold and its default for the factors' precision (so 1e-7
 *   with double factors, about 3.2e-4 with float ones; a smaller
 *   pivot_threshold moves the perturbation, not this judgement): rounding
 *   leaves the cancelled pivot of a rank-deficient matrix a little above
 *   the threshold as often as below. Float factors are judged too when
 *   their largest multiplier times their growth (ts_lu_stats::max_multiplier
 *   and pivot_growth) exceeds 1/sqrt(eps) of float, 4,096: their cancelled
 *   pivots keep what that growth left of them. These factors stand only if
 *   that product is also at most 1/sqrt(eps), about 6.7e7: beyond it they
 *   are the exact factors of a matrix too far from A for A's estimate
 *   through them to tell (a singular A can then estimate below 1/eps), and
 *   partial pivoting decides, as above. Such factors that stand give
 *   TS_SUCCESS.
 * - A judgement whose factors stood (without the fallback) carries to a
 *   later factorization on the same analysis, without a new estimate, when
 *   its pivots are perturbed (or small) as then (the same count, first
 *   perturbed column and smallest pivot's column) and the values moved so
 *   little that a perturbation bound keeps A nonsingular and its condition
 *   number within 1/eps: |dA|_1 est(|A^{-1}|_1) <= 1/8 with dA the change
 *   since the judged values (bounded by the sum of the entries' changes)
 *   and the judged estimate standing for |A^{-1}|_1 (Hager and Higham's
 *   estimate is a lower bound, usually within a factor of 3: 1/8 keeps the
 *   true product below 1/2 there);
 *   ts_lu_stats::condest then holds that bound. A judgement that stood on
 *   M's estimate carries the same way in M's terms (|dM|_1 and M's
 *   estimate; the bound in ts_lu_stats::scaled_condest). The solves' check
 *   below still applies.
 * - Perturbed factors that stand give TS_WARNING_PERTURBED_PIVOTS (not an
 *   error); factors that do not stand TS_ERROR_NUMERICALLY_SINGULAR with the
 *   column in
 *   ts_lu_stats::singular_column and in the message, and the estimate in
 *   ts_lu_stats::condest when one was made.
 * - ts_lu_solve() with perturbed pivots whose refinement leaves the
 *   backward error above max(1e-14, refine_tolerance) falls back to
 *   partial pivoting; a backward error still above that limit is
 *   TS_ERROR_NUMERICALLY_SINGULAR.
 * Non-finite values are errors, never a success: in A,
 * TS_ERROR_INVALID_MATRIX naming the entry; in b, TS_ERROR_INVALID_ARGUMENT;
 * a pivot or a solution that overflows, TS_ERROR_NUMERICALLY_SINGULAR or
 * TS_ERROR_OVERFLOW.
 */
#ifndef TESSERA_LU_H
#define TESSERA_LU_H

#include "tessera/core.h"
#include "tessera/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Fill-reducing ordering. */
typedef enum ts_lu_ordering {
  /**
   * The default: AMD, or nested dissection where it promises less work. AMD
   * orders first; where the matrix has one block in its block triangular
   * form, at least 20,000 rows and AMD's bound on the factorization's work
   * is at least 10^4 flops a row (meshes, not circuits), METIS's nested
   * dissection is computed too and taken when its bound (the same count, on
   * its Cholesky pattern) is below 0.8 times AMD's. ts_lu_stats::ordering
   * says which ran. AMD alone in a build without METIS.
   */
  TS_LU_ORDER_AUTO = 0,
  TS_LU_ORDER_AMD = 1,     /**< AMD on the pattern of A+A^T (SuiteSparse). */
  TS_LU_ORDER_COLAMD = 2,  /**< COLAMD on A (SuiteSparse). */
  TS_LU_ORDER_NATURAL = 3, /**< No reordering. */
  /** Nested dissection of the pattern of A+A^T (METIS; a fixed seed, so the same ordering every run): less fill
   *  than AMD on meshes and other large graphs with small separators. Orders the whole matrix (no block
   *  triangular form); TS_ERROR_UNSUPPORTED in a build without METIS. */
  TS_LU_ORDER_NESTED_DISSECTION = 4
} ts_lu_ordering;

/** How the analysis chooses the pivots (ts_lu_options::pivoting). */
typedef enum ts_lu_pivoting {
  /**
   * The default: static pivots (TS_LU_PIVOTING_STATIC); where the first factorization of an analysis has to
   * perturb one, a real matrix of at most 10^6 entries factored on the host (no CUDA context, no GPU phase asked
   * for, the matching on) is analyzed again with partial pivoting on the values given to that factorization and
   * factored anew, and those factors face the singularity policy's judgement; where they do not stand, the matrix
   * is analyzed again with static pivots, whose factors are judged instead (ts_lu_stats::pivoting says which
   * pivots the factors have). Later refactorizations keep the pivots. Batches (ts_lu_batch_create()) keep
   * static pivots under AUTO; they take partial pivots when asked for (TS_LU_PIVOTING_PARTIAL).
   */
  TS_LU_PIVOTING_AUTO = 0,
  /** Static pivots from the weighted matching and scaling (MC64's), fixed before any factorization; tiny
      pivots are perturbed (pivot_threshold) and refinement recovers the accuracy. */
  TS_LU_PIVOTING_STATIC = 1,
  /**
   * For real matrices (complex ones, and no_matching, take static pivots): the weighted matching and scaling of
   * static pivoting (so that rows and columns in other units change nothing; where the entries span more decades
   * than its scales can hold, a maximum transversal of the nonzero entries with rows then columns scaled by their
   * largest magnitude, in powers of two), the block triangular form ordered block by block, then, as KLU
   * pivots, threshold partial pivoting (Gilbert and Peierls, tolerance 10^-3 in favour of the
   * diagonal) on the values given to ts_lu_analyze() chooses the pivot rows and finds the pattern of L + U (on the
   * host, whatever symbolic_backend says). Factorizations of these values find no tiny pivot unless the matrix is
   * singular; refactorizations with other values keep these pivots (as klu_refactor does), and the pivot check
   * (TS_WARNING_PIVOTS_DEGRADED, refresh_pivots) says when they stop suiting the values.
   */
  TS_LU_PIVOTING_PARTIAL = 2
} ts_lu_pivoting;

/**
 * Options of ts_lu_create(). A zero-initialised struct (or NULL) means the
 * defaults: double factors, AMD (or nested dissection) ordering, matching and scaling on, pivot
 * perturbation on, and the defaults below for the rest; set only the fields
 * to change.
 */
typedef struct ts_lu_options {
  ts_lu_ordering ordering; /**< Fill-reducing ordering (default TS_LU_ORDER_AUTO: AMD, or nested dissection). */
  int no_matching;         /**< Non-zero: skip the matching and scaling. */
  int no_perturbation;     /**< Non-zero: a tiny pivot stops with TS_ERROR_NUMERICALLY_SINGULAR. */
  /**
   * Tiny-pivot threshold relative to max|M|, the largest entry of the scaled
   * and permuted matrix M (default 1e-14 with double factors, 1e-7 with
   * float factors). A pivot u_kk with |u_kk| < pivot_threshold * max|M| is
   * replaced by sign(u_kk) * sqrt(eps) * max|M| (the sign of 0 taken as +),
   * eps being the machine epsilon of the factors' precision: the value
   * the static pivoting of SuperLU_DIST (GESP) gives tiny pivots in Li and
   * Demmel's description (ACM TOMS 29(2), 2003; the library's code now
   * defaults to eps * |A|). A threshold above sqrt(eps) replaces by the threshold
   * instead. The factors are then those of a nearby matrix, and the
   * refinement of ts_lu_solve() recovers the accuracy. A threshold below
   * the default replaces fewer pivots but does not weaken the singularity
   * judgement of small ones (see "Singular matrices" above).
   */
  double pivot_threshold;
  int float_factors;       /**< Non-zero: factors in single precision (refinement stays in double). */
  int refine_max_steps;    /**< Most iterative-refinement steps per solve (default 30; -1 = none: the residual
                                and the backward errors are still computed, see unchecked_solves). */
  double refine_tolerance; /**< Refine while a normwise backward error is above this (default 1e-14): a solve
                                already within it is not refined. */
  /** Bytes for the symbolic phase's intermediates (default: automatic); small values force many chunks. */
  int64_t symbolic_memory_budget;
  /**
   * Where factor, refactor and solve run: TS_BACKEND_AUTO (0, the default)
   * the host, or on a CUDA context the GPU for factorizations of enough work
   * (the analysis's estimate of flops and entries; a small one stays on the
   * host, where the GPU's fixed costs would outweigh it; an analysis's first
   * factorization, which on the GPU also builds the device's copy, needs more
   * work to go there than the refactorizations after it; host and GPU give
   * the same factors to rounding (bit for bit but where the GPU's dense
   * trailing block groups its updates by panel, or its sparse tail sums rows
   * of L of more than 16,384 entries by segments), and the statistics say
   * where each ran:
   * factor_backend), TS_BACKEND_CPU the host, TS_BACKEND_CUDA the GPU (the
   * context must be on CUDA). On the host, small factorizations, solves and
   * analyses run on one thread and larger ones on the context's threads, as
   * many as find a core free of other work. On the GPU the factors stay on
   * the device and the solves run there, refinement residuals in double on
   * the host (a solve that falls back to partial pivoting, below, runs on
   * the host). Both give deterministic factors, bitwise the same from run to
   * run.
   */
  ts_backend backend;
  /**
   * Where the symbolic factorization runs: TS_BACKEND_AUTO (0, the default)
   * and TS_BACKEND_CPU on the host (the row merge, measured faster on
   * low-fill circuit matrices), TS_BACKEND_CUDA on the GPU (per-row fill
   * paths, out of core in chunks of symbolic_memory_budget; the context must
   * be on CUDA). Both give the same pattern.
   */
  ts_backend symbolic_backend;
  /**
   * Where the levelization runs: TS_BACKEND_AUTO (0, the default) and
   * TS_BACKEND_CPU on the host (one longest-path sweep over L+U in column
   * order), TS_BACKEND_CUDA on the GPU (Kahn's sort in one persistent
   * cooperative kernel; the context must be on CUDA). Both give the same
   * levels.
   */
  ts_backend levelize_backend;
  /**
   * Non-zero: a factorization that reuses an analysis and finds its pivots
   * degraded (the check that returns TS_WARNING_PIVOTS_DEGRADED) analyzes
   * the new values again (matching, scaling and ordering chosen for them:
   * fresh static pivots, as a KLU user calls klu_factor after klu_rcond
   * flags a klu_refactor) and factors anew; it then returns that
   * factorization's status, and the statistics say so (pivots_refreshed).
   * So does a refactorization (one after a factorization of the same
   * analysis that stood) that the singularity rule calls numerically
   * singular: the pivots and the scaling it judged were chosen for other
   * values (rows or columns whose units changed); the new analysis's verdict
   * is returned. Zero (the default): the warning or the error is returned
   * and the caller decides.
   */
  int refresh_pivots;
  /**
   * Non-zero: ts_lu_solve() through factors without perturbed pivots (and
   * not from the partial-pivoting fallback) solves once and forms no
   * residual, as klu_solve and SciPy's splu do: no refinement, and
   * ts_lu_stats::backward_error, scaled_backward_error,
   * componentwise_backward_error and residual_norm are NaN (solution_norm is
   * kept, and an overflow is still an error). The residual and the
   * backward errors cost about as much as the solve itself; a Newton loop
   * that judges convergence by its own residual can skip them. Factors with
   * perturbed pivots are always checked (the singularity policy). Default 0.
   */
  int unchecked_solves;
  /**
   * AMD's dense-row control (SuiteSparse AMD's AMD_DENSE), read with
   * TS_LU_ORDER_AMD: a row of the pattern ordered with more than
   * max(16, amd_dense * sqrt(n)) entries (n: the order of the matrix, or
   * of the diagonal block, that AMD orders) takes no part in the minimum
   * degree search and is ordered last. 0 (the default) means AMD's own
   * default, 10; a negative value treats no row as dense. AMD's time grows
   * with the product of a dense row's length and the order, so a matrix
   * with a few long rows (a circuit's supply nets) is ordered much faster
   * with a lower value, at the price of some fill (the trade measured on
   * generated circuits: bench/notes/lu-analysis.md). Lower it for a matrix
   * analyzed for a few solves; keep the default for a Newton loop of many
   * refactorizations.
   */
  double amd_dense;
  /** How the analysis chooses the pivots (default TS_LU_PIVOTING_AUTO; ts_lu_pivoting). */
  ts_lu_pivoting pivoting;
} ts_lu_options;

/** Statistics of the last analysis, factorization and solve. */
typedef struct ts_lu_stats {
  int64_t n;               /**< Order of the matrix. */
  int64_t nnz_a;           /**< Entries of A. */
  int64_t nnz_l;           /**< Entries of L, unit diagonal included. */
  int64_t nnz_u;           /**< Entries of U, diagonal included; where only the diagonal blocks of
                                the block triangular form are factored (the host, off a CUDA
                                context or under AUTO on one below the GPU's work), A's entries
                                above them included (as KLU's unz + nzoff). */
  double flops;            /**< Floating-point operations of the numeric factorization. */
  int64_t levels;          /**< Levels of the column dependency graph. */
  int64_t max_level_size;  /**< Columns in the widest level. */
  int64_t symbolic_chunks; /**< Chunks the symbolic phase's count ran in (on the GPU: with the reruns of rows whose
                              sweeps outgrew a shortened queue). */
  /**
   * Size of the largest matching found. With the matching on (the default),
   * explicit zeros are left out: they cannot be pivots. So a matrix whose
   * explicit zeros complete a perfect matching (zenios) has a structural rank
   * below n here where KLU's maximum transversal, which counts them, reports n.
   */
  int64_t structural_rank;
  int64_t perturbed_pivots;  /**< Tiny pivots replaced in the last factorization. */
  int64_t singular_column;   /**< Column (user numbering, from 0) named by the singular status, or -1. */
  int64_t peak_device_bytes; /**< Largest GPU memory held at once (0 on the CPU). */
  double time_matching;      /**< Seconds: matching and scaling. */
  double time_ordering;      /**< Seconds: fill-reducing ordering, beyond the matching it may overlap. */
  double time_symbolic;      /**< Seconds: symbolic factorization (with partial pivoting: the pivoting factorization
                                that finds the pattern). */
  double time_levelize;      /**< Seconds: levelization. */
  double time_factor;        /**< Seconds: last numeric factorization or refactorization. */
  double time_solve;         /**< Seconds: last solve, refinement included. */
  /**
   * Normwise backward error |b - Ax|_inf / (|A|_inf |x|_inf + |b|_inf) of the
   * last solve (the largest over the right-hand sides), evaluated so that it
   * cannot overflow. On a system whose rows or columns span many decades it
   * can be tiny for an x that is wrong: see scaled_backward_error and
   * componentwise_backward_error.
   */
  double backward_error;
  int refinement_steps; /**< Refinement steps of the last solve (max over right-hand sides). */
  /**
   * Non-zero when the last solve fell back to factors with threshold partial
   * pivoting (on the host): the statically pivoted factors had perturbed
   * pivots and left the backward error above ten times the refinement
   * tolerance (refinement enabled). The fallback factors are kept, and used
   * by the following solves, until the next factorization.
   */
  int partial_pivoting;
  /**
   * Largest multiplier |L(i,j)| of the last factorization (above 1000 a
   * pivot is below a thousandth of an entry of its column, where threshold
   * partial pivoting with KLU's default tolerance would have taken another
   * row). Part of the pivot check (TS_WARNING_PIVOTS_DEGRADED).
   */
  double max_multiplier;
  /** Growth max|U| / max|M| of the last factorization (M the scaled, permuted matrix); part of the pivot check. */
  double pivot_growth;
  /**
   * Non-zero when the last factorization found the pivots of the analysis
   * degraded and, as ts_lu_options.refresh_pivots asked, analyzed the new
   * values again and factored anew (the analysis statistics are then the
   * new analysis's).
   */
  int pivots_refreshed;
  /** Where the last factorization ran, and its solves: TS_BACKEND_CPU or TS_BACKEND_CUDA (0 before one). */
  ts_backend factor_backend;
  /** Host threads of the last factorization (1: no parallel region; 0 on the GPU). */
  int factor_threads;
  /**
   * 1-norm condition estimate |A|_1 |A^{-1}|_1 of the matrix last factored
   * (Hager and Higham's estimator, as klu_condest), a lower bound of the true
   * value up to rounding; set by ts_lu_condest(), and by the factorization
   * when pivots were perturbed (the singularity rule above), 0 until then.
   * Where an earlier judgement carried to this factorization, the bound
   * the rule above names instead (an upper bound, given the judged
   * estimate).
   */
  double condest;
  /**
   * 1-norm condition estimate |M|_1 |M^{-1}|_1 of the scaled matrix M (the
   * analysis's row and column scaling of A), made by the singularity rule
   * above where A's own estimate or backward errors did not let the factors
   * stand; 0 where none was made.
   */
  double scaled_condest;
  /** min |u_kk| / max |u_kk| over U's diagonal (as klu_rcond); set by ts_lu_rcond(), 0 until then. */
  double rcond;
  /**
   * Reciprocal pivot growth min(1, min_k max|M(:,k)| / max|U(:,k)|) of the
   * scaled, permuted matrix M (as klu_rgrowth); small values mean the
   * factors grew. Set by ts_lu_rgrowth(), 0 until then.
   */
  double rgrowth;
  /**
   * The normwise backward error of the scaled system that was factored,
   * M = P Dr A Dc Q: |Dr r|_inf / (|M|_inf |Dc^{-1} x|_inf + |Dr b|_inf)
   * (the largest over the right-hand sides). Refinement drives this one and
   * backward_error below the tolerance.
   */
  double scaled_backward_error;
  /**
   * The componentwise backward error max_i |b - Ax|_i / (|A| |x| + |b|)_i of
   * the last solve (Oettli and Prager; a row with an exact residual counts
   * 0), invariant under any scaling of rows and columns; refinement goes on
   * while it is above 1e-12 and halves at each step. Sparse right-hand
   * sides can keep it near 1 without x being wrong.
   */
  double componentwise_backward_error;
  double residual_norm; /**< |b - Ax|_inf of the last solve (the largest over the right-hand sides). */
  double solution_norm; /**< |x|_inf of the last solve (the largest over the right-hand sides). */
  /** The pivoting the last analysis used: TS_LU_PIVOTING_STATIC or TS_LU_PIVOTING_PARTIAL (0 before one). */
  ts_lu_pivoting pivoting;
  /** The ordering the last analysis used (TS_LU_ORDER_AUTO resolved to AMD or nested dissection; 0 before one). */
  ts_lu_ordering ordering;
} ts_lu_stats;

/** An LU factorization object: analysis, factors and workspace. */
typedef struct ts_lu ts_lu;

/** Create an LU object on the context's backend. @p options may be NULL. */
TS_API ts_status ts_lu_create(ts_context *ctx, const ts_lu_options *options, ts_lu **lu);

/** Free an LU object (NULL is a no-op). */
TS_API void ts_lu_destroy(ts_lu *lu);

/**
 * Analyze a square general CSR matrix: matching and scaling (from its
 * values), ordering, symbolic factorization, levelization. A matrix with no
 * perfect matching gives TS_ERROR_STRUCTURALLY_SINGULAR with the structural
 * rank in the message and the statistics.
 */
TS_API ts_status ts_lu_analyze(ts_lu *lu, const ts_csr *a);

/**
 * Numeric factorization of @p a, which must have the analyzed pattern.
 * Returns TS_SUCCESS, TS_WARNING_PERTURBED_PIVOTS (tiny pivots replaced, the
 * factors judged sound by the rule of "Singular matrices" above), or an error:
 * TS_ERROR_NUMERICALLY_SINGULAR (with the column, from 0) by that rule,
 * TS_ERROR_INVALID_MATRIX for a value that is not finite.
 * Called again after the first factorization of an analysis, it is
 * ts_lu_refactor() (the pivot check included).
 */
TS_API ts_status ts_lu_factor(ts_lu *lu, const ts_csr *a);

/**
 * Refactor with new values and the same pattern (a Newton loop): only the
 * numeric phase runs, reusing the analysis's permutations and scaling. The
 * same statuses as ts_lu_factor(), by the same rule: new values that are all
 * zero, or singular, or not finite, are an error and leave no factors. A
 * matrix refused before the numeric phase (TS_ERROR_INVALID_ARGUMENT: another
 * size or pattern, symmetric storage, the other kind of values) leaves the
 * factors as they were.
 *
 * The pivots were chosen for the values the analysis saw; a cheap check
 * after each refactorization compares the factors with those of the first
 * factorization after the analysis: more perturbed (tiny) pivots, or a
 * largest multiplier |L(i,j)| above 10^6 and 1000 times the first's, or a
 * growth max|U| / max|M| above 10^6 and 1000 times the first's, means the
 * pivot order no longer suits the values. Then the call returns
 * TS_WARNING_PIVOTS_DEGRADED (the factors are complete and the solves
 * refine as usual; a new ts_lu_analyze() of these values chooses fresh
 * pivots), or, with ts_lu_options.refresh_pivots, analyzes the new values
 * again, factors anew and returns that factorization's status.
 * @param lu an analyzed LU object
 * @param a the matrix with the analyzed pattern and new values
 * @return TS_SUCCESS, TS_WARNING_PERTURBED_PIVOTS, TS_WARNING_PIVOTS_DEGRADED,
 *         or an error as ts_lu_factor() (or ts_lu_analyze() when refreshing)
 */
TS_API ts_status ts_lu_refactor(ts_lu *lu, const ts_csr *a);

/**
 * Solve op(A) X = B for @p nrhs right-hand sides (column-major, leading
 * dimensions @p ldb and @p ldx >= n), with iterative refinement in double
 * against the matrix last factored. B and X may not overlap. For a complex
 * matrix B and X hold (real, imaginary) pairs and the leading dimensions
 * count complex entries.
 */
TS_API ts_status ts_lu_solve(ts_lu *lu, ts_operation op, int64_t nrhs, const double *b, int64_t ldb, double *x,
                             int64_t ldx);

/**
 * ts_lu_solve() with B and X in tessera buffers (ts_buffer_create(),
 * ts_buffer_wrap()), for right-hand sides and solutions that live in device
 * memory, as a GPU application keeps them. Each buffer holds @p nrhs
 * columns of doubles (pairs for a complex matrix), column j at j * ld
 * values; B and X may not overlap. Where the factors are on the GPU, the
 * matrix is real, @p op is TS_OP_NONE, solves are checked (the default) and
 * both buffers are device memory, everything stays on the device: the
 * triangular solves, the residual in double and the refinement, with one
 * synchronisation per residual (to read its norms) and none for the
 * vectors. Any other case goes through host copies of B and X and
 * ts_lu_solve() (the same results, the copies' time added). The statistics
 * are those of ts_lu_solve().
 * @return as ts_lu_solve(), and TS_ERROR_INVALID_ARGUMENT for a NULL
 *         buffer, a buffer too small for its columns, or buffers that overlap
 */
TS_API ts_status ts_lu_solve_buffers(ts_lu *lu, ts_operation op, int64_t nrhs, const ts_buffer *b, int64_t ldb,
                                     ts_buffer *x, int64_t ldx);

/** Copy the statistics out. */
TS_API ts_status ts_lu_get_stats(const ts_lu *lu, ts_lu_stats *stats);

/**
 * Estimate the 1-norm condition number kappa_1(A) = |A|_1 |A^{-1}|_1 of the
 * matrix last factored, as klu_condest does: |A^{-1}|_1 by Hager's method
 * with Higham's refinements (ACM TOMS 14(4), 1988; LAPACK's xLACN2), from at
 * most eleven solves with the factors the solves use (the GPU's, the
 * host's, or the partial-pivoting fallback's). The estimate is a lower bound
 * of the true value (up to the rounding of the solves) and is usually
 * within a factor of 3 of it; infinity when a solve overflows. Also stored
 * in the statistics (condest).
 * @param lu a factored LU object
 * @param condest receives the estimate (1 for n = 0)
 * @return TS_SUCCESS, TS_ERROR_NOT_FACTORED without a valid factorization,
 *         or the error of a solve
 */
TS_API ts_status ts_lu_condest(ts_lu *lu, double *condest);

/**
 * The ratio of the smallest to the largest pivot magnitude,
 * min_k |u_kk| / max_k |u_kk| (as klu_rcond): a cheap, rough indicator of
 * ill-conditioning (0 when a pivot is 0; 1 for n = 0). Also stored in the
 * statistics (rcond). The GPU's factors are copied to the host for it.
 * @param lu a factored LU object
 * @param rcond receives the ratio
 * @return TS_SUCCESS or TS_ERROR_NOT_FACTORED
 */
TS_API ts_status ts_lu_rcond(ts_lu *lu, double *rcond);

/**
 * The reciprocal pivot growth min(1, min_k max_i |M(i,k)| / max_i |U(i,k)|)
 * over the columns of the scaled, permuted matrix M = P Dr A Dc Q that was
 * factored and of its factor U (as klu_rgrowth; columns of U that are all
 * zero are skipped). Near 1 the elimination was stable; a small value means
 * the entries of U grew and the solution may be inaccurate. Also stored in
 * the statistics (rgrowth). The GPU's factors are copied to the host for it.
 * @param lu a factored LU object
 * @param rgrowth receives the reciprocal growth, in (0, 1]
 * @return TS_SUCCESS, TS_ERROR_NOT_FACTORED, or TS_ERROR_OUT_OF_MEMORY
 */
TS_API ts_status ts_lu_rgrowth(ts_lu *lu, double *rgrowth);

/**
 * The factors of the last factorization, on the host, as CSR matrices:
 * P R A C Q = L U, where R = diag(row_scale) and C = diag(col_scale) are the
 * scalings of the analysis, P and Q the row and column permutations, L unit
 * lower triangular (its unit diagonal stored) and U upper triangular (as
 * klu_extract; SciPy's splu().L, .U, .perm_r and .perm_c). In index form:
 * L U (i, j) = row_scale[r] A(r, c) col_scale[c] with r = row_perm[i] and
 * c = col_perm[j]. These are the factors the solves use: after a GPU
 * factorization they are copied from the device; after the solves fell back
 * to partial pivoting (statistics: partial_pivoting), the fallback's.
 * Values are double (single-precision factors widened), column indices
 * sorted within each row. Any output may be NULL (not wanted); the
 * matrices are the caller's to free (ts_csr_destroy).
 * @param lu a factored LU object
 * @param l receives L (n x n), or NULL
 * @param u receives U (n x n), or NULL
 * @param row_perm n entries: row i of P R A C Q is row row_perm[i] of A; or NULL
 * @param col_perm n entries: column j of P R A C Q is column col_perm[j] of A; or NULL
 * @param row_scale n entries, indexed by A's rows; or NULL
 * @param col_scale n entries, indexed by A's columns; or NULL
 * @return TS_SUCCESS, TS_ERROR_NOT_FACTORED, TS_ERROR_OUT_OF_MEMORY, or a
 *         GPU copy's error; on an error *l and *u are NULL
 */
TS_API ts_status ts_lu_extract_csr(ts_lu *lu, ts_csr **l, ts_csr **u, int32_t *row_perm, int32_t *col_perm,
                                   double *row_scale, double *col_scale);

/**
 * As ts_lu_extract_csr(), with L and U as CSC matrices (row indices sorted
 * within each column; free with ts_csc_destroy).
 * @param lu a factored LU object
 * @param l receives L (n x n), or NULL
 * @param u receives U (n x n), or NULL
 * @param row_perm n entries: row i of P R A C Q is row row_perm[i] of A; or NULL
 * @param col_perm n entries: column j of P R A C Q is column col_perm[j] of A; or NULL
 * @param row_scale n entries, indexed by A's rows; or NULL
 * @param col_scale n entries, indexed by A's columns; or NULL
 * @return as ts_lu_extract_csr()
 */
TS_API ts_status ts_lu_extract_csc(ts_lu *lu, ts_csc **l, ts_csc **u, int32_t *row_perm, int32_t *col_perm,
                                   double *row_scale, double *col_scale);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_LU_H */
