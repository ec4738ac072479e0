/* The numeric phase (ts_lu_factor, ts_lu_refactor): its entry points on
 * either backend, what it keeps on the host between calls (the workspace,
 * the norms of the matrix factored), the partial-pivoting fallback of the
 * solves, and the GPU's device cache with the host code that builds it. */
#ifndef TESSERA_LU_NUMERIC_INTERNAL_H
#define TESSERA_LU_NUMERIC_INTERNAL_H

#include "lu/lu_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- entry points ---------------------------------------------------------------- */

/* The factorization on the host of a (its pattern checked by the caller):
 * real values copied into lu->a_values and checked finite on the way;
 * complex values read from lu->a_values, which the caller has filled
 * (numeric_cpu.c); caller names the API function in messages. */
ts_status tsi_lu_numeric_cpu(ts_lu *lu, const ts_csr *a, const char *caller);
/* lu->a_values allocated (nnz_a entries of lu's value kind) if it is not (factor.c). */
ts_status tsi_lu_reserve_a_values(ts_lu *lu, const char *caller);
/* The error for entry e of A (in CSR order), not finite: its row and
 * column named (factor.c). */
ts_status tsi_lu_bad_value_error(ts_lu *lu, int64_t e, const char *caller);
/* The factorization on the GPU (numeric_cuda.cu; TS_ERROR_UNSUPPORTED in a
 * build without CUDA): the factors stay on the device, factors_on_device set. */
ts_status tsi_lu_numeric_cuda(ts_lu *lu, const char *caller);
/* Copy the factors on the device into lu_values (or lu_values_f32). */
ts_status tsi_lu_cuda_download_factors(ts_lu *lu);
/* Free the host's factor values, workspace and copy of A's values
 * (numeric_workspace.c). */
void tsi_lu_numeric_release(ts_lu *lu);
/* Free the device cache (device_cache_cuda.cu); factors_on_device cleared. */
void tsi_lu_cuda_release(ts_lu *lu);

/* ---- the multifrontal numeric phase (frontal_*.c) ----------------------------------- */

/* The factorization on the host through lu->fronts (built on first use),
 * its arithmetic fixed entry for entry (frontal_cpu.c) so that GPU kernels
 * can reproduce its bits. */
ts_status tsi_lu_frontal_cpu(ts_lu *lu, const char *caller);
/* The fronts of lu's analysis, built on first use (frontal_rule.c). */
ts_status tsi_lu_fronts_get(ts_lu *lu, struct tsi_lu_fronts **fronts);
/* Whether a GPU factorization takes the fronts (the method switch, else
 * the model of frontal_rule.c over the fronts' and the columns' figures,
 * with free_bytes of device memory free); *reason says why. The GPU
 * factorization asks it at every factorization of real values
 * (frontal_cuda.cu). */
bool tsi_lu_frontal_chosen(ts_lu *lu, int64_t free_bytes, const char **reason);
/* Whether a host factorization of real values takes the fronts: the method
 * switch, else the measured rule of frontal_rule.c (dense fill). */
bool tsi_lu_frontal_chosen_host(ts_lu *lu);
/* The model's seconds of each method (frontal_rule.c). */
double tsi_lu_frontal_model_seconds(const struct tsi_lu_fronts *fronts);
double tsi_lu_column_model_seconds(const ts_lu *lu);
/* The pivot outcome of a factorization from each column's pivot kind
 * (PIVOT_OK, _PERTURBED, _SINGULAR, _NOT_FINITE: 0 to 3): the perturbed
 * pivots counted and the lowest such column kept, and the first bad pivot
 * in schedule order (level_of each column, then column) reported as the
 * other paths report it; tiny is |u|'s bound, negative when unknown
 * (pivot_outcome.c). TS_SUCCESS, TS_WARNING_PERTURBED_PIVOTS or
 * TS_ERROR_NUMERICALLY_SINGULAR. */
ts_status tsi_lu_pivot_outcome(ts_lu *lu, const signed char *kind, const int32_t *level_of, double tiny,
                               double threshold, const char *caller);
/* The numerically singular status for the bad pivot of user column
 * `user_column` (schedule position `position` of n), its message naming
 * the bound the pivot fell under: tiny = threshold x max|scaled A|
 * (negative when unknown); a bound of zero says why (every scaled value
 * zero, or a threshold of zero) rather than "|u| < 0" (pivot_outcome.c). */
ts_status tsi_lu_tiny_pivot_error(ts_context *ctx, const char *caller, int64_t user_column, int64_t position, int64_t n,
                                  double tiny, double threshold);

/* ---- the pivot check (pivot_check.c, pivot_quality_cuda.cu) ------------------------ */

/* After a numeric phase that returned `status` (not an error): the first
 * factorization of an analysis takes lu->pivot_now as the reference of
 * fresh pivots; a later one is compared with it (the rule: pivot_check.c)
 * and TS_WARNING_PIVOTS_DEGRADED returned, with a message, when the pivots
 * no longer suit the values; else `status`. Sets the statistics. */
ts_status tsi_lu_pivot_check(ts_lu *lu, ts_status status, const char *caller);
/* lu->pivot_now from the factors on the device (TS_ERROR_UNSUPPORTED in a
 * build without CUDA). */
ts_status tsi_lu_cuda_pivot_quality(ts_lu *lu);

/* ---- the host's dataflow marks (column_marks_cpu.c) ----------------------------- */

/* A column's mark in the host's dataflow schedule: running (0, the value
 * the marks are cleared to), ready once its values are stored, or running
 * with a thread asleep on it. */
enum { TSI_LU_MARK_RUNNING = 0, TSI_LU_MARK_READY = 1, TSI_LU_MARK_SLEEPER = 2 };

/* Sleep until *mark is TSI_LU_MARK_READY, having set it to
 * TSI_LU_MARK_SLEEPER while it is running (a futex on Linux, else yields);
 * acquire on return. */
void tsi_lu_mark_sleep(int *mark);
/* Wake every thread asleep on *mark (the writer calls it after setting the
 * mark ready, when the mark it replaced was TSI_LU_MARK_SLEEPER). */
void tsi_lu_mark_wake(int *mark);

/* ---- the singularity policy (singularity.c; tessera/lu.h, "Singular matrices") ---- */

/* After a factorization that perturbed pivots (status
 * TS_WARNING_PERTURBED_PIVOTS): TS_WARNING_PERTURBED_PIVOTS when the
 * factors stand (the static ones, or the partial-pivoting fallback's, then
 * in lu->pivoted), TS_ERROR_NUMERICALLY_SINGULAR naming a column, or
 * another error. stats.condest is set. */
ts_status tsi_lu_judge_factorization(ts_lu *lu, const char *caller);
/* After a factorization without perturbed pivots: TS_SUCCESS, or when the
 * smallest pivot is below sqrt(pivot_threshold) * max|M| (the threshold no
 * lower than its default), or float factors grew beyond 1/sqrt(eps) of
 * float, and the factors do not stand (the judgement above, which here also
 * asks them to be stable), TS_ERROR_NUMERICALLY_SINGULAR naming its column.
 * stats.condest is set when the factors were judged. */
ts_status tsi_lu_judge_small_pivot(ts_lu *lu, const char *caller);
/* The same judgement of the partially pivoted factors of a matrix whose
 * static pivots had to be perturbed (TS_LU_PIVOTING_AUTO's second
 * analysis), naming the column of the smallest pivot: such a matrix is
 * suspect whatever its new pivots look like (singularity.c). */
ts_status tsi_lu_judge_repivoted(ts_lu *lu, const char *caller);
/* lu->pivot_now's smallest pivot and its column from the host's factors
 * (smallest_pivot_cpu.c). */
void tsi_lu_smallest_pivot_host(ts_lu *lu);
/* Put the partial-pivoting fallback's factors in place; a column without a
 * nonzero pivot is TS_ERROR_NUMERICALLY_SINGULAR (the fallback released). */
ts_status tsi_lu_fall_back(ts_lu *lu, const char *caller);
/* The singular status of a solve whose refinement stays at backward_error,
 * above limit, with perturbed pivots. */
ts_status tsi_lu_singular_by_refinement(ts_lu *lu, double backward_error, double limit, const char *caller);

/* Between two launches of the GPU factorization: when the host has run
 * TSI_LU_CANCEL_CHECK_SECONDS since *last_check, wait for the device and
 * report `done` of `total` columns to the progress callback
 * (TS_ERROR_CANCELLED when it asks to stop; cancel_gpu.c). */
ts_status tsi_lu_gpu_check_cancel(ts_context *ctx, double *last_check, int64_t done, int64_t total);

/* ---- host state (numeric_workspace.c) ------------------------------------------- */

/* What the numeric phases keep between calls in lu->numeric_aux: dense work
 * vectors (one per thread) and norms of the matrix last factored. */
/* The last judgement whose static factors stood (judgement_carry.c): A's
 * values then (NULL: none), |A|_1, the estimate of |A^{-1}|_1 (the condition
 * estimate over |A|_1), and the pivots it judged; with scaled, the norms
 * are the scaled matrix M's (the factors stood on M's estimate). */
typedef struct tsi_lu_judgement_record {
  double *values;
  bool scaled;
  double norm_one;
  double inverse_norm;
  int64_t perturbed;
  int64_t first_perturbed;
  int64_t smallest_pivot_column;
} tsi_lu_judgement_record;

typedef struct tsi_lu_numeric_workspace {
  int64_t n;           /* order the vectors were sized for */
  int factor_threads;  /* dense column vectors in factor_work */
  double *factor_work; /* factor_threads * n, all zero between columns */
  int solve_threads;   /* vector sets in solve_work */
  double *solve_work;  /* solve_threads * 4n: permuted vector, residual, correction, magnitudes */
  double a_norm_inf;   /* max row sum of |A| (values last factored, unscaled) */
  double a_norm_one;   /* max column sum of |A|; negative until a transposed solve asks for it */
  /* The host's factorization: the positions of L + U no entry of A fills,
   * when they are few enough to zero one by one (fill_listed), else none. */
  int fill_known; /* the list was made (or found not worth it) for this analysis */
  int fill_listed;
  int64_t fill_count;
  int64_t *fill_pos;
  double m_norm_inf;     /* the same of the scaled matrix M = P Dr A Dc Q */
  double m_norm_one;     /* (computed with a_norm_one) */
  int32_t *column_level; /* each column's level, from the host's schedule check (numeric_cpu.c) */
  double *fronts;        /* the host's multifrontal path: the fronts' values (frontal_cpu.c) */
  int64_t front_values;  /* doubles in fronts */
  /* The row of L that is the only entry of the most columns of L, and the
   * last entry of every column of L it is in, when it is alone in at least
   * TSI_LU_DENSE_ROW_MIN_COLUMNS, else -1 (an arrowhead's dense row): the
   * host's column loops keep its running value in a register
   * (tsi_lu_dense_row). */
  int dense_row_known;
  int64_t dense_row;
  /* chain_run[j]: how many columns from j on form a chain of L's pattern
   * (tsi_lu_chain_runs), capped at TSI_LU_CPU_GROUP_MAX, and the share of
   * the updates' work the column kernel's groups would take; NULL until
   * found (once per analysis). */
  uint8_t *chain_run;
  double chain_share;
  double chain_work; /* the groups' work itself (entries of L subtracted) */
  tsi_lu_judgement_record judged;
  int64_t condition_estimates; /* the judgements' estimates made since the analysis (the tests read it) */
} tsi_lu_numeric_workspace;

/* How many columns the column kernel subtracts together from position p of
 * U(:, k) (diag: k's diagonal position), j = row_idx[p]: the columns j, j+1,
 * ... that chain (run) and follow each other in U(:, k), as long as the
 * group's last column keeps TSI_LU_CPU_GROUP_MIN_ROWS rows below the group
 * (chained columns lose a row each); 1, no group, when fewer than
 * TSI_LU_CPU_GROUP_MIN columns qualify. */
static inline int64_t tsi_lu_group_size(const int64_t *col_ptr, const int64_t *diag_pos, const int32_t *row_idx,
                                        const uint8_t *run, int64_t p, int64_t diag, int64_t j) {
  int64_t limit = col_ptr[j + 1] - diag_pos[j] - TSI_LU_CPU_GROUP_MIN_ROWS; /* |L(:, j)| - MIN_ROWS + 1 */
  limit = run[j] < limit ? run[j] : limit;
  int64_t m = 1;
  while (m < limit && p + m < diag && row_idx[p + m] == j + m)
    m++;
  return m >= TSI_LU_CPU_GROUP_MIN ? m : 1;
}

/* ws->chain_run and chain_share for lu's pattern, found once per analysis:
 * column j and j + 1 chain when L(:, j) is row j + 1 followed by
 * L(:, j + 1)'s rows in the same order (a supernode's columns: Demmel,
 * Eisenstat, Gilbert, Li and Liu, SIAM J. Matrix Anal. Appl. 20(3), 1999,
 * section 3); chain_run[j] counts the chained columns from j on. Returns
 * the runs the column kernel groups by (switches.cpu_column_groups; under
 * AUTO where the groups take at least TSI_LU_CPU_GROUP_MIN_SHARE of the
 * updates' work and at least TSI_LU_CPU_GROUP_MIN_WORK of it; not looked
 * for under TSI_LU_CPU_GROUP_MIN_FLOPS_PER_ENTRY), or NULL:
 * none, or out of memory (*failed set; no error). */
const uint8_t *tsi_lu_chain_runs(const ts_lu *lu, tsi_lu_numeric_workspace *ws, bool *failed);

/* |A(e)|, entry e (CSR order) of the values last factored: the modulus of
 * a complex value (numeric_workspace.c). */
double tsi_lu_value_abs(const ts_lu *lu, int64_t e);

/* The workspace of lu, created (zeroed) on first use; NULL when out of memory. */
tsi_lu_numeric_workspace *tsi_lu_numeric_workspace_get(ts_lu *lu);

/* ws->dense_row for lu's pattern, found once per analysis (a count per row
 * of the columns it is alone in; n integers, for a moment); false when out
 * of memory (sets no error). */
bool tsi_lu_dense_row(const ts_lu *lu, tsi_lu_numeric_workspace *ws);
/* The dense row found for lu's analysis, or -1 (none, or not looked for). */
int64_t tsi_lu_dense_row_known(const ts_lu *lu);

/* |A|_inf and |M|_inf of the values being factored (lu->a_values), for the
 * refinement's backward errors, into ws, the 1-norms marked unknown: the
 * GPU's and the fronts' numeric paths (the host's column path computes them
 * in its pass over A). */
ts_status tsi_lu_compute_norms(ts_lu *lu, tsi_lu_numeric_workspace *ws);
/* |op(A)|_inf and |op(M)|_inf for a solve with op: the 1-norms for a
 * transposed one, computed on first use after each factorization (a
 * scatter over the columns, which most factorizations need not pay for). */
ts_status tsi_lu_norms(ts_lu *lu, tsi_lu_numeric_workspace *ws, ts_operation op, double *a_norm, double *m_norm);

/* Whether the last judgement whose factors stood carries to the values now
 * in lu->a_values (judgement_carry.c: a perturbation bound, the pivots
 * perturbed as then); *condition_bound is then the bound on the condition
 * number of A, or of the scaled matrix M where *of_scaled. */
bool tsi_lu_judgement_carries(const ts_lu *lu, const tsi_lu_numeric_workspace *ws, double *condition_bound,
                              bool *of_scaled);
/* Record a judgement whose factors stood with condition estimate condest,
 * of A or of the scaled matrix M (of_scaled); cleared instead when the
 * fallback's factors stood. */
void tsi_lu_judgement_record_set(ts_lu *lu, tsi_lu_numeric_workspace *ws, double condest, bool of_scaled);
void tsi_lu_judgement_record_clear(tsi_lu_numeric_workspace *ws);

/* ---- partial-pivoting fallback of the solves (pivoted_cpu.c) --------------------- */

/* Factors of P2 M = L U with threshold partial pivoting on the host, which
 * the singularity policy (singularity.c) puts in place of statically
 * pivoted factors that refinement cannot make solve with A. */
/* L by columns with M's row numbers (unit diagonal implied); U by columns
 * with pivot positions, its diagonal apart; pinv[i] is the position of M's
 * row i, row_of_position its inverse. Values are doubles, or (re, im) pairs
 * for complex values (lu->complex_values). */
typedef struct tsi_lu_pivoted {
  int64_t *l_col_ptr; /* n + 1 */
  int32_t *l_row_idx;
  double *l_values;
  int64_t *u_col_ptr; /* n + 1 */
  int32_t *u_row_idx;
  double *u_values;
  double *u_diagonal;       /* n */
  int64_t *pinv;            /* n */
  int64_t *row_of_position; /* n */
  int64_t replaced;         /* columns without a nonzero pivot, given the static rule's value */
  int64_t first_replaced;   /* the first of them (a column of M), or -1 */
  double *scratch;          /* n: one solve at a time */
} tsi_lu_pivoted;

/* Factor M again with threshold partial pivoting from lu->a_values (replaces
 * any earlier pivoted factors). */
ts_status tsi_lu_pivoted_factor(ts_lu *lu);
/* x = op(A)^{-1} rhs through the pivoted factors (op A^H too, for complex
 * values); y is n values of scratch. */
void tsi_lu_pivoted_apply(const ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y);
void tsi_lu_pivoted_release(ts_lu *lu);

/* ---- the GPU's device cache ---------------------------------------------------- */

/* What the GPU numeric phases keep on the device between calls
 * (lu->numeric_device): the pattern of L+U, the schedule, the factor values
 * and the solve's row-oriented copies of the pattern. Created at the first
 * GPU factorization of an analysis; refactorization uploads only new values. */

/* One triangular solve's schedule: its rows (or columns) in a topological
 * order, and for the level-scheduled kernels the levels of that order. */
typedef struct tsi_lu_solve_schedule {
  int ready; /* 0, or built and on the device (how: solve/solve_cuda.cu) */
  int64_t levels;
  int64_t *level_ptr; /* host, levels + 1 */
  int32_t *items;     /* device, n */
  /* The synchronisation-free launch's tickets (solve/solve_cuda.cu): the
   * items, each long row's replaced by a ticket for each of its segments
   * and one that finishes the row; for the segment size `segment`. */
  int64_t segment;
  int64_t tickets, segments, long_rows;
  int32_t *ticket;        /* device, tickets */
  int32_t *segment_of;    /* device, 2 per segment: row, segment number */
  int32_t *long_row;      /* device, 3 per long row: row, first segment, segments */
  int32_t *segment_ready; /* device, segments: the epoch that summed it */
} tsi_lu_solve_schedule;

/* The maxima the device refinement's residual gathers (solve/refine_cuda.cu). */
enum { TSI_LU_REFINE_NORMS = 9 };

typedef struct tsi_lu_device {
  int64_t n, lu_nnz, nnz_a;
  /* Numbers a value takes (tsi_lu_parts): 2 for complex values, whose
   * arrays below (a_values, values, acc, scratch slots, the solves'
   * vectors) hold (re, im) pairs; the complex factorization keeps no dense
   * tail. */
  int parts;
  int64_t bytes; /* device bytes held now */
  int64_t peak;  /* most device bytes held at once */

  /* Pattern (device). */
  int64_t *col_ptr;
  int32_t *row_idx;
  int64_t *diag_pos;
  int64_t *a_to_lu;
  int32_t *a_row; /* row of each entry of A */
  int32_t *a_col;
  int64_t *a_row_ptr; /* A's row offsets, n + 1 (the refinement's residual) */
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
  /* The sparse tail's gather order (tsi_lu_tail_order's arrays, device;
   * tail_launch_ptr on the host). */
  int64_t tail_order_entries, tail_runs;
  int64_t *tail_order_ptr, *tail_order, *tail_run_ptr, *tail_run_end;
  int64_t tail_split_columns, tail_launches, tail_pieces;
  int32_t *tail_split_index, *tail_split_cols, *tail_piece_column;
  int64_t *tail_piece_first, *tail_piece_last;
  int64_t *tail_launch_ptr_host;
  /* Its long entries summed by segments (tsi_lu_tail_segments's arrays,
   * device): rows of L longer than tail_segment_row (INT64_MAX: none), cut
   * into segments of tail_segment_length; tail_partials the segments' sums. */
  int64_t tail_segment_row, tail_segment_length, tail_long_entries, tail_segments;
  int64_t *tail_long_entry, *tail_long_first;
  int32_t *tail_long_column, *tail_segment_entry;
  double *tail_partials;
  int multiprocessors; /* of the GPU, for the tail's GEMM configuration */
  /* Shared memory a block of the shared-accumulator levels may take: a
   * column of 512 threads, or a block of smaller groups (TSI_LU_SHARED_*
   * within the device's limits). */
  int64_t shared_column_bytes, shared_block_bytes;

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
  /* The dataflow levels (numeric_left_cuda.cu): each column's mark holds the
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
  int32_t *solve_ready_mark; /* device, n */
  double *solve_partials;    /* device: the long rows' segment sums, solve_partial_values */
  int64_t solve_partial_values;
  unsigned long long *solve_next_row; /* device, 2 */
  int solve_resident_blocks[2][4];    /* resident blocks of each kernel (float factors?, mode) */

  /* The pivot check's maxima (device, 3; pivot_quality_cuda.cu) and the
   * chunks of its long columns (device: column and first entry of each),
   * built at its first use. */
  unsigned long long *pivot_maxima;
  int quality_ready;
  int64_t quality_thread_entries, quality_chunks;
  int32_t *quality_chunk_column;
  int64_t *quality_chunk_first;
  /* The refinement on the device (solve/refine_cuda.cu), allocated at its
   * first use: b, two solutions and the residual (4 n), and the residual's
   * maxima. */
  double *refine_work;
  unsigned long long *refine_norms;
  /* Rows of A longer than TSI_LU_REFINE_LONG_ROW (device) and their
   * number, once listed. */
  int refine_long_listed;
  int32_t *refine_long_rows;
  int64_t refine_long_count;

  /* The multifrontal method (frontal_cuda.cu): the fronts on the device,
   * made at the first factorization that takes them; whether the last
   * factorization took them, and why (tsi_lu_frontal_chosen's reason). */
  struct tsi_lu_front_device *fronts;
  int used_fronts;
  const char *method_reason;
} tsi_lu_device;

/* Build the device cache for lu's analysis (device_cache_cuda.cu); *out is
 * set, and lu->numeric_device too, even on failure (then release it). */
ts_status tsi_lu_device_build(ts_lu *lu, tsi_lu_device **out);
/* Factor values of the wanted precision (acc aliases them in double). */
ts_status tsi_lu_device_reserve_values(ts_lu *lu, tsi_lu_device *dev, int single);
/* Device allocation of count entries of size bytes counted in dev->bytes
 * and dev->peak, and its release (NULL ignored) with the same count and size
 * (device_memory_gpu.c). */
ts_status tsi_lu_device_alloc(ts_context *ctx, tsi_lu_device *dev, void **ptr, int64_t count, size_t size,
                              const char *what);
void tsi_lu_device_free(tsi_lu_device *dev, void *ptr, int64_t count, size_t size);

/* ---- host code that builds the device cache ---------------------------------------- */

/* Dense scratch slots (n-vectors, one per concurrent column) for a
 * factorization of order n whose widest left-looking level has
 * widest_level columns, with free_bytes of device memory free and the
 * scratch mode asked for (TSI_LU_SCRATCH_*); 0 means the sparse scratch.
 * Forced dense gets at least 8 slots (scratch_slots_gpu.c). */
int64_t tsi_lu_dense_scratch_slots(int64_t n, int64_t widest_level, int64_t free_bytes, int mode);

/* The order of the sparse tail's gather (tail_gather_order_gpu.c): for tail
 * column c (column tail_start + c), its entries above tail_start as
 * positions order[order_ptr[c] .. order_ptr[c + 1]), by level of their row
 * and then by row; the levels are runs, run r ending at order[run_end[r]],
 * those of column c being run_ptr[c] .. run_ptr[c + 1].
 *
 * Split columns (those with at least split_entries entries above
 * tail_start) are gathered by many blocks, a launch per level: each run is
 * cut into pieces of at most piece_entries entries, piece q being order
 * indices [piece_first[q], piece_last[q]) of tail column piece_column[q];
 * launch s takes pieces launch_ptr[s] .. launch_ptr[s + 1], the pieces of
 * one level, launches by increasing level. split_index[c] numbers the split
 * columns (-1 for the others), split_cols[b] is split column b's c. Host
 * arrays. */
typedef struct tsi_lu_tail_order {
  int64_t columns, runs;
  int64_t *order_ptr; /* columns + 1 */
  int64_t *order;     /* order_ptr[columns] */
  int64_t *run_ptr;   /* columns + 1 */
  int64_t *run_end;   /* runs */
  int64_t split_columns, launches, pieces;
  int32_t *split_index;  /* columns, NULL when no column is split */
  int32_t *split_cols;   /* split_columns */
  int64_t *launch_ptr;   /* launches + 1 */
  int32_t *piece_column; /* pieces */
  int64_t *piece_first, *piece_last;
} tsi_lu_tail_order;

/* From the levels of the columns (level_of, n entries; those of columns
 * below tail_start are read); split_entries <= 0 splits no column.
 * TS_ERROR_OUT_OF_MEMORY leaves *out empty. */
ts_status tsi_lu_tail_gather_order(const ts_lu *lu, int64_t tail_start, const int32_t *level_of, int64_t split_entries,
                                   int64_t piece_entries, tsi_lu_tail_order *out);
void tsi_lu_tail_order_free(tsi_lu_tail_order *order);

/* The sparse tail's entries summed by segments (tail_segments_gpu.c): the
 * entries of the tail columns from tail_start down whose rows of L hold
 * more than segment_row entries, at positions entry[q] of tail column
 * entry_column[q], row cut into segments of segment_length positions,
 * entry_first[q] .. entry_first[q + 1] - 1 (segment_entry[s] = q); ordered
 * by column, entries from the bottom up. lrow_tail[t] is the offset of
 * row tail_start + t of L (n - tail_start + 1 offsets). Host arrays. */
typedef struct tsi_lu_tail_segments {
  int64_t entries, segments;
  int64_t *entry;
  int32_t *entry_column;
  int64_t *entry_first;   /* entries + 1 */
  int32_t *segment_entry; /* segments */
} tsi_lu_tail_segments;

ts_status tsi_lu_tail_segments_find(const ts_lu *lu, int64_t tail_start, const int64_t *lrow_tail, int64_t segment_row,
                                    int64_t segment_length, tsi_lu_tail_segments *out);
void tsi_lu_tail_segments_free(tsi_lu_tail_segments *segments);

/* The strict upper (upper) or lower part of L+U by rows: offsets (n + 1),
 * columns increasing within a row, positions in the values; host arrays
 * the caller frees (factor_rows_gpu.c, threads over column ranges). */
ts_status tsi_lu_build_rows(ts_lu *lu, bool upper, int64_t **ptr_out, int32_t **col_out, int64_t **pos_out);

/* The same rows built on the device from dev->col_ptr and dev->row_idx
 * (factor_rows_cuda.cu): dev->urow_*, dev->lrow_* and the host copy
 * dev->urow_ptr_host. Only where tsi_lu_cuda_rows_fit (32-bit sort keys
 * and positions). */
bool tsi_lu_cuda_rows_fit(const ts_lu *lu);
ts_status tsi_lu_cuda_build_rows(ts_lu *lu, tsi_lu_device *dev);

/* For each column k, the entries its left-looking gather updates: the sum
 * of |L(:, j)| (strict) over U(j, k) != 0, j < k (gather_lengths_gpu.c); n
 * entries the caller frees, NULL when out of memory. */
int64_t *tsi_lu_gather_lengths(const ts_lu *lu);

#ifdef __cplusplus
}
#endif

#endif
