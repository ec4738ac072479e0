/* Numeric LU factorization on the host: M = P Dr A Dc Q = L U in the
 * symbolic pattern, the columns of a level in parallel (OpenMP), level by
 * level or as a dataflow across levels, static pivoting with perturbation
 * of tiny pivots. Deterministic: every column is
 * computed by one thread in a fixed order, whatever the thread count. */
#include "core/complex_value.h"
#include "lu/numeric/numeric_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
static int tsi_thread_id(void) { return omp_get_thread_num(); }
#else
static int tsi_thread_id(void) { return 0; }
#endif

/* What the threads of one factorization share beyond the factors: the
 * lowest column of M whose pivot was perturbed (n if none; the singularity
 * policy names it), and the time of the next cancellation check. */
typedef struct tsi_lu_factor_watch {
  ts_context *ctx;
  int64_t n;
  int64_t first_perturbed;
  int64_t next_check_ns; /* read without the lock: atomically */
} tsi_lu_factor_watch;

/* How a tiny pivot is treated: |u_kk| < tiny (or u_kk = 0) is replaced by
 * sign(u_kk) * replacement when perturb is set, else it stops the
 * factorization; watch is the shared state above. */
typedef struct tsi_lu_pivot_rule {
  double tiny;
  double replacement;
  bool perturb;
  tsi_lu_factor_watch *watch;
  const int32_t *column_level; /* each column's level (the serial schedule's verdict), or NULL */
  int64_t dense_row;           /* the row of L the one-thread schedule holds apart (tsi_lu_dense_row), or -1 */
  const uint8_t *chain_run;    /* chained columns of L from each column on (tsi_lu_chain_runs) */
} tsi_lu_pivot_rule;

/* A column's outcome; CANCELLED is no pivot's but stops the factorization
 * the same way, after the level it was seen in. */
enum {
  TSI_LU_PIVOT_OK = 0,
  TSI_LU_PIVOT_PERTURBED = 1,
  TSI_LU_PIVOT_SINGULAR = 2,
  TSI_LU_PIVOT_NOT_FINITE = 3,
  TSI_LU_PIVOT_CANCELLED = 4
};

/* Record a stopping outcome (a bad pivot, a cancellation) at column k of
 * level `level` when it is the first in (level, column) order. */
static void tsi_lu_record_stop(int64_t level, int64_t k, int kind, int64_t *bad_level, int64_t *bad_column,
                               int *bad_kind) {
#pragma omp critical(tsi_lu_bad_pivot)
  {
    if (level < *bad_level || (level == *bad_level && k < *bad_column)) {
      *bad_column = k;
      *bad_kind = kind;
#pragma omp atomic write
      *bad_level = level;
    }
  }
}

/* A cancellation check, called every TSI_LU_CPU_CHECK_COLUMNS columns a
 * thread factors: at most every TSI_LU_CANCEL_CHECK_SECONDS, one thread at
 * a time reports `done` columns of n to the context's callback; a cancel
 * stops the factorization after the current level. */
static void tsi_lu_factor_check(tsi_lu_factor_watch *watch, int64_t done, int64_t level, int64_t k, int64_t *bad_level,
                                int64_t *bad_column, int *bad_kind) {
  const int64_t now = (int64_t)(tsi_seconds() * 1e9);
  if (now < __atomic_load_n(&watch->next_check_ns, __ATOMIC_RELAXED))
    return;
  bool cancelled = false;
#pragma omp critical(tsi_lu_factor_check)
  {
    if (now >= watch->next_check_ns) {
      __atomic_store_n(&watch->next_check_ns, now + (int64_t)(TSI_LU_CANCEL_CHECK_SECONDS * 1e9), __ATOMIC_RELAXED);
      cancelled = tsi_progress(watch->ctx, done, watch->n) != TS_SUCCESS;
    }
  }
  if (cancelled)
    tsi_lu_record_stop(level, k, TSI_LU_PIVOT_CANCELLED, bad_level, bad_column, bad_kind);
}

typedef struct tsi_lu_column_outcome {
  int kind;               /* TSI_LU_PIVOT_* */
  int64_t flops;          /* multiplies, adds and divides of the column */
  double max_l;           /* largest |L(i, k)| as stored, with the thread's earlier columns */
  double max_u;           /* largest |U(i, k)| as stored, the pivot included, likewise */
  double pivot_magnitude; /* |u_kk| as stored */
} tsi_lu_column_outcome;

/* What a thread's columns add up to: flops, perturbed pivots, and the
 * largest entries of L and U (the pivot check's indicators). */
typedef struct tsi_lu_tally {
  int64_t flops;
  int64_t perturbed;
  double max_l;
  double max_u;
} tsi_lu_tally;

static void tsi_lu_tally_merge(tsi_lu_tally *total, const tsi_lu_tally *part) {
  total->flops += part->flops;
  total->perturbed += part->perturbed;
  total->max_l = part->max_l > total->max_l ? part->max_l : total->max_l;
  total->max_u = part->max_u > total->max_u ? part->max_u : total->max_u;
}

/* The dataflow schedule's column marks (lu_factor_flow; values in
 * numeric_internal.h): wait until column j is marked ready (acquire: its
 * values are then visible), a short spin, then asleep on the mark, which
 * frees the core for a writer the scheduler had set aside (a spin or a
 * yield kept the core, and the writer waited for its time slice). False
 * when the factorization stopped at a level before the waiting column's
 * (`level`): the column j may then hold no values (a thread that stops
 * marks the tickets it leaves, so no sleeper waits for ever), and the
 * waiting column is not needed. */
static bool tsi_lu_wait_ready(int *ready, int64_t j, const int64_t *stop_level, int64_t level) {
  for (int spins = 0; __atomic_load_n(&ready[j], __ATOMIC_ACQUIRE) != TSI_LU_MARK_READY; spins++) {
    if (__atomic_load_n(stop_level, __ATOMIC_RELAXED) < level)
      return false;
    if (spins >= TSI_LU_CPU_SPINS_BEFORE_SLEEP) {
      tsi_lu_mark_sleep(&ready[j]);
      break;
    }
  }
  return __atomic_load_n(stop_level, __ATOMIC_RELAXED) >= level;
}

/* Mark column k ready (release: after its values) and wake its sleepers. */
static void tsi_lu_mark_ready(int *ready, int64_t k) {
  if (__atomic_exchange_n(&ready[k], TSI_LU_MARK_READY, __ATOMIC_RELEASE) == TSI_LU_MARK_SLEEPER)
    tsi_lu_mark_wake(&ready[k]);
}

/* What a slice of rows of the pass over A found (lu_load_rows). */
typedef struct tsi_lu_load_part {
  double max_m;      /* largest |M(i, j)| */
  double norm;       /* largest row sum of |A| */
  double m_norm;     /* largest row sum of |M| */
  int64_t first_bad; /* first entry not finite, or nnz(A) */
} tsi_lu_load_part;

static void tsi_lu_load_merge(tsi_lu_load_part *total, const tsi_lu_load_part *part) {
  total->max_m = part->max_m > total->max_m ? part->max_m : total->max_m;
  total->norm = part->norm > total->norm ? part->norm : total->norm;
  total->m_norm = part->m_norm > total->m_norm ? part->m_norm : total->m_norm;
  total->first_bad = part->first_bad < total->first_bad ? part->first_bad : total->first_bad;
}

/* A factorization's tally and verdict; from the one-thread schedule in
 * pivot order also the least pivot magnitude as stored (the first column
 * among equals) and the next distinct one above it (tsi_lu_pivot_quality,
 * for the smallest pivot; least_column INT64_MAX where not tracked). */
typedef struct tsi_lu_factor_outcome {
  tsi_lu_tally tally;
  int bad_kind;       /* TSI_LU_PIVOT_SINGULAR or _NOT_FINITE of bad_column, else _OK */
  int64_t bad_column; /* column of M, or -1 */
  double least_pivot, next_pivot;
  int64_t least_column;
} tsi_lu_factor_outcome;

static void tsi_lu_outcome_set(tsi_lu_factor_outcome *result, const tsi_lu_tally *tally, int bad_kind,
                               int64_t bad_column) {
  result->tally = *tally;
  result->bad_kind = bad_kind;
  result->bad_column = bad_kind == TSI_LU_PIVOT_OK ? -1 : bad_column;
  result->least_pivot = result->next_pivot = (double)INFINITY;
  result->least_column = INT64_MAX;
}

/* The column kernel inlined into its callers (the counted wrapper, then
 * the schedules), so that a column's outcome stays in registers instead of
 * a struct written by the callee and read back by the caller. */
#if defined(__GNUC__)
#define TSI_LU_COLUMN_INLINE inline __attribute__((always_inline))
#else
#define TSI_LU_COLUMN_INLINE inline
#endif
/* Kept out of line: the one-thread schedule with the chained columns grouped
 * (lu_factor_serial_grouped), so that the copies without groups stay as they
 * were, and a group's update (lu_subtract_group), so that the column loop's
 * registers do not spill for it. */
#if defined(__GNUC__)
#define TSI_LU_GROUP_CALL __attribute__((noinline))
#else
#define TSI_LU_GROUP_CALL
#endif

/* The types of factors: real (float, double), then complex. */
#include "lu/lu_arith_real.h"
#define TSI_VALUE float
#define TSI_NAME(x) x##_f32
#include "lu/numeric/numeric_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_NAME(x) x##_f64
#if defined(__GNUC__) || defined(__clang__)
#define TSI_GROUP_PAIRS /* lu_subtract_group's vector loop (GCC's vector types) */
#endif
#include "lu/numeric/numeric_cpu_impl.h"
#undef TSI_GROUP_PAIRS
#undef TSI_VALUE
#undef TSI_NAME
#include "lu/lu_arith_undef.h"

#include "lu/lu_arith_complex.h"
#define TSI_VALUE tsi_complex64
#define TSI_NAME(x) x##_c64
#include "lu/numeric/numeric_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE tsi_complex128
#define TSI_NAME(x) x##_c128
#include "lu/numeric/numeric_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME
#include "lu/lu_arith_undef.h"

/* The analysis's arrays are present and the level schedule is one the
 * numeric loop can trust: every column in exactly one level, and every
 * column j that U(:, k) names in a level before k's. A violation is a bug of
 * the analysis; finding it here costs O(n + nnz(U)). Each column's level
 * stays in ws->column_level for the serial schedule. */
static ts_status check_schedule(ts_lu *lu, tsi_lu_numeric_workspace *ws) {
  const int64_t n = lu->n;
  if (n > 0 && (!lu->lu_col_ptr || !lu->lu_row_idx || !lu->diag_pos || !lu->level_ptr || !lu->level_cols ||
                !lu->row_scale || !lu->col_scale || !lu->a_row_ptr || !lu->a_to_lu))
    return tsi_error(lu->ctx, TS_ERROR_INTERNAL, "LU numeric phase: the analysis left its arrays incomplete");
  if (n > 0 && (lu->levels < 1 || lu->level_ptr[0] != 0 || lu->level_ptr[lu->levels] != n))
    return tsi_error(lu->ctx, TS_ERROR_INTERNAL, "LU numeric phase: %lld levels do not cover the %lld columns",
                     (long long)lu->levels, (long long)n);
  ts_status status = TS_SUCCESS;
  free(ws->column_level);
  ws->column_level = NULL;
  int32_t *level_of = tsi_malloc_array(n > 0 ? n : 1, sizeof *level_of);
  if (!level_of)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory for the schedule check (n = %lld)",
                     (long long)n);
  for (int64_t k = 0; k < n; k++)
    level_of[k] = -1;
  for (int64_t level = 0; level < lu->levels; level++) {
    for (int64_t c = lu->level_ptr[level]; c < lu->level_ptr[level + 1]; c++) {
      int32_t k = lu->level_cols[c];
      if (k < 0 || k >= n || level_of[k] >= 0) {
        status = tsi_error(lu->ctx, TS_ERROR_INTERNAL,
                           "LU numeric phase: level %lld lists column %d, out of range or already scheduled",
                           (long long)level, (int)k);
        goto cleanup;
      }
      level_of[k] = (int32_t)level;
    }
  }
  for (int64_t k = 0; k < n; k++) {
    int64_t begin = lu->lu_col_ptr[k], diag = lu->diag_pos[k];
    if (diag < begin || diag >= lu->lu_col_ptr[k + 1] || lu->lu_row_idx[diag] != k) {
      status =
          tsi_error(lu->ctx, TS_ERROR_INTERNAL, "LU numeric phase: column %lld has no diagonal position", (long long)k);
      goto cleanup;
    }
    /* In block form the entries above the column's block are M's, read by
     * no update (lu_factor_column): no dependency. */
    for (int64_t p = lu->block_begin ? lu->block_begin[k] : begin; p < diag; p++) {
      int32_t j = lu->lu_row_idx[p];
      if (j < 0 || j >= k || level_of[j] >= level_of[k]) {
        status = tsi_error(lu->ctx, TS_ERROR_INTERNAL,
                           "LU numeric phase: column %lld (level %lld) needs column %d, not in an earlier level",
                           (long long)k, (long long)level_of[k], (int)j);
        goto cleanup;
      }
    }
  }
cleanup:
  if (status == TS_SUCCESS)
    ws->column_level = level_of;
  else
    free(level_of);
  return status;
}

/* The positions of L + U that no entry of A fills (the fill), listed when
 * they are few: a factorization then zeroes them instead of all of L + U
 * before A's values go in (circuit matrices fill little). */
static ts_status list_fill(ts_lu *lu, tsi_lu_numeric_workspace *ws) {
  free(ws->fill_pos);
  ws->fill_pos = NULL;
  ws->fill_count = 0;
  ws->fill_listed = 0;
  ws->fill_known = 1;
  const int64_t limit = lu->lu_nnz / TSI_LU_FILL_LIST_FRACTION;
  if (lu->lu_nnz - lu->nnz_a > limit)
    return TS_SUCCESS; /* a memset is as fast */
  unsigned char *from_a = tsi_calloc_array(lu->lu_nnz > 0 ? lu->lu_nnz : 1, 1);
  if (!from_a)
    goto no_memory;
  for (int64_t e = 0; e < lu->nnz_a; e++)
    from_a[lu->a_to_lu[e]] = 1;
  int64_t fill = 0; /* counted, not assumed: the list must hold every one */
  for (int64_t p = 0; p < lu->lu_nnz; p++)
    fill += !from_a[p];
  if (fill > limit) {
    free(from_a);
    return TS_SUCCESS;
  }
  ws->fill_pos = tsi_malloc_array(fill > 0 ? fill : 1, sizeof(int64_t));
  if (!ws->fill_pos) {
    free(from_a);
    goto no_memory;
  }
  for (int64_t p = 0; p < lu->lu_nnz; p++)
    if (!from_a[p])
      ws->fill_pos[ws->fill_count++] = p;
  free(from_a);
  ws->fill_listed = 1;
  return TS_SUCCESS;
no_memory:
  ws->fill_known = 0;
  return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                   "LU numeric phase: no memory to list the fill of L + U (%lld entries)", (long long)lu->lu_nnz);
}

/* Dense work vectors, one per thread, kept for refactorizations. */
static ts_status reserve_factor_work(ts_lu *lu, tsi_lu_numeric_workspace *ws, int threads) {
  if (ws->factor_work && ws->n == lu->n && ws->factor_threads >= threads)
    return TS_SUCCESS;
  free(ws->factor_work);
  ws->factor_work = NULL;
  ws->factor_threads = 0;
  free(ws->solve_work); /* sized for the old n */
  ws->solve_work = NULL;
  ws->solve_threads = 0;
  int64_t count;
  if (tsi_mul_overflows(lu->n * tsi_lu_parts(lu), threads, &count))
    return tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "LU numeric phase: %d work vectors of %lld entries overflow", threads,
                     (long long)lu->n);
  ws->factor_work = tsi_calloc_array(count > 0 ? count : 1, sizeof(double));
  if (!ws->factor_work)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory for %d work vectors of %lld entries",
                     threads, (long long)lu->n);
  ws->n = lu->n;
  ws->factor_threads = threads;
  return TS_SUCCESS;
}

/* The factor storage of the chosen precision; the other one is freed. */
static ts_status reserve_factor_values(ts_lu *lu, bool single) {
  int64_t count = (lu->lu_nnz > 0 ? lu->lu_nnz : 1) * tsi_lu_parts(lu);
  if (single) {
    free(lu->lu_values);
    lu->lu_values = NULL;
    if (!lu->lu_values_f32)
      lu->lu_values_f32 = tsi_malloc_array(count, sizeof(float));
    if (!lu->lu_values_f32)
      goto out_of_memory;
  } else {
    free(lu->lu_values_f32);
    lu->lu_values_f32 = NULL;
    if (!lu->lu_values)
      lu->lu_values = tsi_malloc_array(count, sizeof(double));
    if (!lu->lu_values)
      goto out_of_memory;
  }
  return TS_SUCCESS;
out_of_memory:
  return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory for %lld factor entries",
                   (long long)lu->lu_nnz);
}

/* M's values into the factors, loaded from A in one pass that also copies
 * them into lu->a_values, checks them finite and computes the norms of A
 * and M. Sets *max_abs to max |M|. */
static ts_status load_values(ts_lu *lu, const ts_csr *a, tsi_lu_numeric_workspace *ws, int threads, double *max_abs,
                             const char *caller) {
  float *single = lu->lu_values_f32;
  double *values = lu->lu_values;
  tsi_lu_load_part found;
  int64_t first_bad;
  if (lu->complex_values)
    first_bad = single ? lu_load_values_c64(lu, a, ws, (tsi_complex64 *)single, threads, &found)
                       : lu_load_values_c128(lu, a, ws, (tsi_complex128 *)values, threads, &found);
  else
    first_bad = single ? lu_load_values_f32(lu, a, ws, single, threads, &found)
                       : lu_load_values_f64(lu, a, ws, values, threads, &found);
  if (first_bad < lu->nnz_a)
    return tsi_lu_bad_value_error(lu, first_bad, caller);
  *max_abs = found.max_m;
  ws->a_norm_inf = found.norm;
  ws->m_norm_inf = found.m_norm;
  ws->a_norm_one = ws->m_norm_one = -1.0; /* computed when a transposed solve asks for it */
  return TS_SUCCESS;
}

/* The columns factored in lu's value type: on the calling thread when
 * threads is 1, as a dataflow when ready is given, else level by level. */
static void factor_typed(ts_lu *lu, void *work, int threads, const tsi_lu_pivot_rule *rule, int *ready,
                         tsi_lu_factor_outcome *outcome) {
  float *single = lu->lu_values_f32;
  double *values = lu->lu_values;
  if (lu->complex_values && single) {
    tsi_complex64 *factors = (tsi_complex64 *)single;
    if (threads == 1)
      rule->chain_run ? lu_factor_serial_grouped_c64(lu, factors, work, rule, outcome)
                      : lu_factor_serial_c64(lu, factors, work, rule, outcome);
    else if (ready)
      lu_factor_flow_c64(lu, factors, work, threads, rule, ready, outcome);
    else
      lu_factor_levels_c64(lu, factors, work, threads, rule, outcome);
  } else if (lu->complex_values) {
    tsi_complex128 *factors = (tsi_complex128 *)values;
    if (threads == 1)
      rule->chain_run ? lu_factor_serial_grouped_c128(lu, factors, work, rule, outcome)
                      : lu_factor_serial_c128(lu, factors, work, rule, outcome);
    else if (ready)
      lu_factor_flow_c128(lu, factors, work, threads, rule, ready, outcome);
    else
      lu_factor_levels_c128(lu, factors, work, threads, rule, outcome);
  } else if (threads == 1 && single)
    rule->chain_run ? lu_factor_serial_grouped_f32(lu, single, work, rule, outcome)
                    : lu_factor_serial_f32(lu, single, work, rule, outcome);
  else if (threads == 1)
    rule->chain_run ? lu_factor_serial_grouped_f64(lu, values, work, rule, outcome)
                    : lu_factor_serial_f64(lu, values, work, rule, outcome);
  else if (ready && single)
    lu_factor_flow_f32(lu, single, work, threads, rule, ready, outcome);
  else if (ready)
    lu_factor_flow_f64(lu, values, work, threads, rule, ready, outcome);
  else if (single)
    lu_factor_levels_f32(lu, single, work, threads, rule, outcome);
  else
    lu_factor_levels_f64(lu, values, work, threads, rule, outcome);
}

/* Threads of the factorization: its work as the analysis estimated it
 * (flops, and a share per entry of L + U for the loads and stores) against
 * the rule of lu_backend.c, and one thread where the levels are too thin to
 * share (TSI_LU_FACTOR_PARALLEL_WORK_PER_LEVEL; the tests' thread switch
 * overrides it). */
static int factor_threads(const ts_lu *lu) {
  if (lu->switches.cpu_threads <= 0 && lu->levels > 0 &&
      lu->factor_work < TSI_LU_FACTOR_PARALLEL_WORK_PER_LEVEL * (double)lu->levels)
    return 1;
  return tsi_lu_host_threads(lu, TSI_LU_WORK_FACTOR, lu->factor_work);
}

ts_status tsi_lu_numeric_cpu(ts_lu *lu, const ts_csr *a, const char *caller) {
  ts_status status = TS_SUCCESS;
  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory for the workspace");
  if (!lu->schedule_checked) {
    status = check_schedule(lu, ws); /* once per analysis: the levels do not change */
    if (status != TS_SUCCESS)
      return status;
    lu->schedule_checked = 1;
  }
  if (!ws->fill_known && (status = list_fill(lu, ws)) != TS_SUCCESS)
    return status;
  if (!tsi_lu_dense_row(lu, ws))
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory to count the rows of L");
  bool no_chains = false;
  const uint8_t *chain_run = tsi_lu_chain_runs(lu, ws, &no_chains);
  if (no_chains)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory for the chains of L's columns");
  const int threads = factor_threads(lu);
  lu->stats.factor_threads = threads;
  const int load_threads = tsi_lu_host_threads(lu, TSI_LU_WORK_PASS, (double)lu->lu_nnz);
  const bool single = lu->options.float_factors != 0;
  status = tsi_lu_reserve_a_values(lu, caller);
  if (status == TS_SUCCESS)
    status = reserve_factor_work(lu, ws, threads);
  if (status == TS_SUCCESS)
    status = reserve_factor_values(lu, single);
  if (status != TS_SUCCESS)
    return status;

  double max_abs = 0.0;
  status = load_values(lu, a, ws, load_threads, &max_abs, caller);
  if (status != TS_SUCCESS)
    return status;
  const double threshold = tsi_lu_pivot_threshold(lu);
  /* Static pivoting (Li and Demmel, "SuperLU_DIST: a scalable distributed-
   * memory sparse direct solver for unsymmetric linear systems", ACM TOMS
   * 29(2), 2003, GESP): a tiny pivot becomes sqrt(eps) * max|M| with its
   * sign (the paper's value; SuperLU_DIST's code has since moved to eps).
   * Far larger than the detection threshold, it keeps the growth in L and
   * U small, so the factored matrix stays close enough to M for the
   * refinement to converge (a replacement of 1e-14 max|M| left backward
   * errors of 1e-6 to 1e-3 on pattern and skew-symmetric matrices). Both
   * are relative to the scaled matrix's largest entry; an all-zero matrix
   * (max 0) still gets a non-zero replacement. */
  const double root_eps = sqrt(single ? (double)FLT_EPSILON : DBL_EPSILON);
  const double reference = max_abs > 0.0 ? max_abs : 1.0;
  if (single && max_abs > FLT_MAX)
    return tsi_error(lu->ctx, TS_ERROR_OVERFLOW,
                     "%s: the scaled matrix holds %.3g, beyond single precision's range; factor in "
                     "double, or with the matching's scaling",
                     caller, max_abs);
  tsi_lu_factor_watch watch = {.ctx = lu->ctx, .n = lu->n, .first_perturbed = lu->n, .next_check_ns = 0};
  tsi_lu_pivot_rule rule = {.tiny = threshold * max_abs,
                            .replacement = fmax(root_eps, threshold) * reference,
                            .perturb = !lu->options.no_perturbation,
                            .watch = &watch,
                            .column_level = ws->column_level,
                            .dense_row = ws->dense_row,
                            .chain_run = chain_run};
  status = tsi_progress(lu->ctx, 0, lu->n);
  if (status != TS_SUCCESS)
    return status;
  tsi_lu_factor_outcome outcome;
  /* Several threads and levels wide enough to share: the dataflow
   * schedule. Chains of narrow levels stay with the level schedule, which
   * runs them on one thread (both measured: lu-cpu.md in bench/results). */
  int *ready = NULL;
  if (threads > 1 && !lu->switches.cpu_level_sync &&
      lu->n >= TSI_LU_CPU_FLOW_COLUMNS_PER_THREAD_LEVEL * (int64_t)threads * lu->levels) {
    ready = (int *)tsi_calloc_array(lu->n > 0 ? lu->n : 1, sizeof(int));
    if (!ready)
      return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory for %lld column marks",
                       (long long)lu->n);
  }
  factor_typed(lu, ws->factor_work, threads, &rule, ready, &outcome);
  free(ready);

  lu->stats.flops = (double)outcome.tally.flops;
  lu->stats.perturbed_pivots = outcome.tally.perturbed;
  lu->pivot_now =
      (tsi_lu_pivot_quality){.perturbed = outcome.tally.perturbed,
                             .max_multiplier = outcome.tally.max_l,
                             .growth = outcome.tally.max_u / reference,
                             .max_m = reference,
                             .least_pivot = outcome.least_pivot,
                             .next_pivot = outcome.next_pivot,
                             .least_pivot_column = outcome.least_column,
                             .least_known = outcome.least_column != INT64_MAX && !lu->switches.cpu_smallest_pivot_pass};
  lu->stats.singular_column = -1;
  lu->first_perturbed = watch.first_perturbed < lu->n ? watch.first_perturbed : -1;
  /* A stopped factorization left partial columns behind; the work vectors
   * were cleared column by column, so they stay usable. */
  if (outcome.bad_kind == TSI_LU_PIVOT_CANCELLED)
    return TS_ERROR_CANCELLED; /* tsi_progress set the message */
  if (outcome.bad_kind != TSI_LU_PIVOT_OK) {
    int64_t user_column = lu->col_perm[outcome.bad_column];
    lu->stats.singular_column = user_column;
    if (outcome.bad_kind == TSI_LU_PIVOT_NOT_FINITE)
      return tsi_error(lu->ctx, TS_ERROR_NUMERICALLY_SINGULAR,
                       "%s: the pivot of column %lld (from 0) is not finite: the elimination "
                       "overflowed (pivot %lld of %lld)",
                       caller, (long long)user_column, (long long)outcome.bad_column, (long long)lu->n);
    return tsi_lu_tiny_pivot_error(lu->ctx, caller, user_column, outcome.bad_column, lu->n, rule.tiny, threshold);
  }
  return outcome.tally.perturbed > 0 ? TS_WARNING_PERTURBED_PIVOTS : TS_SUCCESS;
}
