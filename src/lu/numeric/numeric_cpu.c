/* Numeric LU factorization on the host: M = P Dr A Dc Q = L U in the
 * symbolic pattern, the columns of a level in parallel (OpenMP), level by
 * level or as a dataflow across levels, static pivoting with perturbation
 * of tiny pivots. Deterministic: every column is
 * computed by one thread in a fixed order, whatever the thread count. */
#include "lu/numeric/numeric_internal.h"

#include <float.h>
#include <math.h>
#include <sched.h>
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
  int kind;      /* TSI_LU_PIVOT_* */
  int64_t flops; /* multiplies, adds and divides of the column */
} tsi_lu_column_outcome;

/* The dataflow schedule's wait (lu_factor_flow): until column j is marked
 * finished (acquire: its values are then visible), spinning, then yielding
 * the core after a while so that a descheduled writer can run. False when
 * the factorization stopped at a level before the waiting column's
 * (`level`): the column j may then never be computed (its ticket's thread
 * left), and the waiting column is not needed. */
static bool tsi_lu_wait_ready(const int *ready, int64_t j, const int64_t *stop_level, int64_t level) {
  for (int spins = 0; !__atomic_load_n(&ready[j], __ATOMIC_ACQUIRE); spins++) {
    if (__atomic_load_n(stop_level, __ATOMIC_RELAXED) < level)
      return false;
    if (spins >= TSI_LU_CPU_SPINS_BEFORE_YIELD)
      sched_yield();
  }
  return true;
}

typedef struct tsi_lu_factor_outcome {
  int64_t flops;
  int64_t perturbed;
  int bad_kind;       /* TSI_LU_PIVOT_SINGULAR or _NOT_FINITE of bad_column, else _OK */
  int64_t bad_column; /* column of M, or -1 */
} tsi_lu_factor_outcome;

static void tsi_lu_outcome_set(tsi_lu_factor_outcome *result, int64_t flops, int64_t perturbed, int bad_kind,
                               int64_t bad_column) {
  result->flops = flops;
  result->perturbed = perturbed;
  result->bad_kind = bad_kind;
  result->bad_column = bad_kind == TSI_LU_PIVOT_OK ? -1 : bad_column;
}

#define TSI_VALUE float
#define TSI_NAME(x) x##_f32
#include "lu/numeric/numeric_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_NAME(x) x##_f64
#include "lu/numeric/numeric_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

/* The analysis's arrays are present and the level schedule is one the
 * numeric loop can trust: every column in exactly one level, and every
 * column j that U(:, k) names in a level before k's. A violation is a bug of
 * the analysis; finding it here costs O(n + nnz(U)). */
static ts_status check_schedule(ts_lu *lu) {
  const int64_t n = lu->n;
  if (n > 0 && (!lu->lu_col_ptr || !lu->lu_row_idx || !lu->diag_pos || !lu->level_ptr || !lu->level_cols ||
                !lu->row_scale || !lu->col_scale || !lu->a_row_ptr || !lu->a_to_lu))
    return tsi_error(lu->ctx, TS_ERROR_INTERNAL, "LU numeric phase: the analysis left its arrays incomplete");
  if (n > 0 && (lu->levels < 1 || lu->level_ptr[0] != 0 || lu->level_ptr[lu->levels] != n))
    return tsi_error(lu->ctx, TS_ERROR_INTERNAL, "LU numeric phase: %lld levels do not cover the %lld columns",
                     (long long)lu->levels, (long long)n);
  ts_status status = TS_SUCCESS;
  int64_t *level_of = tsi_malloc_array(n > 0 ? n : 1, sizeof *level_of);
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
      level_of[k] = level;
    }
  }
  for (int64_t k = 0; k < n; k++) {
    int64_t begin = lu->lu_col_ptr[k], diag = lu->diag_pos[k];
    if (diag < begin || diag >= lu->lu_col_ptr[k + 1] || lu->lu_row_idx[diag] != k) {
      status =
          tsi_error(lu->ctx, TS_ERROR_INTERNAL, "LU numeric phase: column %lld has no diagonal position", (long long)k);
      goto cleanup;
    }
    for (int64_t p = begin; p < diag; p++) {
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
  free(level_of);
  return status;
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
  if (tsi_mul_overflows(lu->n, threads, &count))
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
  int64_t count = lu->lu_nnz > 0 ? lu->lu_nnz : 1;
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

ts_status tsi_lu_numeric_cpu(ts_lu *lu, const ts_csr *a) {
  (void)a; /* the values come from lu->a_values, copied and checked by the caller */
  ts_status status = check_schedule(lu);
  if (status != TS_SUCCESS)
    return status;
  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory for the workspace");
  const int threads = tsi_lu_threads(lu);
  const bool single = lu->options.float_factors != 0;
  status = reserve_factor_work(lu, ws, threads);
  if (status == TS_SUCCESS)
    status = reserve_factor_values(lu, single);
  if (status == TS_SUCCESS)
    status = tsi_lu_compute_norms(lu, ws);
  if (status != TS_SUCCESS)
    return status;

  double max_abs = single ? lu_scatter_f32(lu, lu->lu_values_f32, threads) : lu_scatter_f64(lu, lu->lu_values, threads);
  double threshold = lu->options.pivot_threshold;
  if (!(threshold > 0.0))
    threshold = single ? TSI_LU_PIVOT_THRESHOLD_F32 : TSI_LU_PIVOT_THRESHOLD_F64; /* should options come unresolved */
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
                     "LU factorization: the scaled matrix holds %.3g, beyond single precision's range; factor in "
                     "double, or with the matching's scaling",
                     max_abs);
  tsi_lu_factor_watch watch = {.ctx = lu->ctx, .n = lu->n, .first_perturbed = lu->n, .next_check_ns = 0};
  tsi_lu_pivot_rule rule = {.tiny = threshold * max_abs,
                            .replacement = fmax(root_eps, threshold) * reference,
                            .perturb = !lu->options.no_perturbation,
                            .watch = &watch};
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
  if (ready && single)
    lu_factor_flow_f32(lu, lu->lu_values_f32, ws->factor_work, threads, &rule, ready, &outcome);
  else if (ready)
    lu_factor_flow_f64(lu, lu->lu_values, ws->factor_work, threads, &rule, ready, &outcome);
  else if (single)
    lu_factor_levels_f32(lu, lu->lu_values_f32, ws->factor_work, threads, &rule, &outcome);
  else
    lu_factor_levels_f64(lu, lu->lu_values, ws->factor_work, threads, &rule, &outcome);
  free(ready);

  lu->stats.flops = (double)outcome.flops;
  lu->stats.perturbed_pivots = outcome.perturbed;
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
                       "LU factorization: the pivot of column %lld (from 0) is not finite: the elimination "
                       "overflowed (pivot %lld of %lld)",
                       (long long)user_column, (long long)outcome.bad_column, (long long)lu->n);
    return tsi_error(lu->ctx, TS_ERROR_NUMERICALLY_SINGULAR,
                     "LU factorization: matrix is numerically singular: column %lld (from 0) has a zero or tiny "
                     "pivot (|u| < %.3g = %.3g x max|scaled A|; pivot %lld of %lld; perturbation is off)",
                     (long long)user_column, rule.tiny, threshold, (long long)outcome.bad_column, (long long)lu->n);
  }
  return outcome.perturbed > 0 ? TS_WARNING_PERTURBED_PIVOTS : TS_SUCCESS;
}
