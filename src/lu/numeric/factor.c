/* ts_lu_factor, ts_lu_refactor: numeric factorization P Dr A Dc Q = L U of a
 * matrix with the analyzed pattern, using the analysis's permutations and
 * scaling, on the GPU or the host (lu_backend.c decides). */
#include "core/complex_value.h"
#include "lu/analyze/analyze_internal.h"
#include "lu/numeric/numeric_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int check_threads(const ts_lu *lu) { return tsi_lu_host_threads(lu, TSI_LU_WORK_PASS, (double)lu->nnz_a); }

/* Whether two arrays hold the same bytes, compared in one piece a thread. */
static bool same_bytes(const void *x, const void *y, size_t bytes, int threads) {
  if (threads <= 1 || bytes < (size_t)threads)
    return memcmp(x, y, bytes) == 0;
  const size_t piece = (bytes + (size_t)threads - 1) / (size_t)threads;
  int differs = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(| : differs)
  for (int t = 0; t < threads; t++) {
    const size_t begin = (size_t)t * piece;
    if (begin < bytes)
      differs |=
          memcmp((const char *)x + begin, (const char *)y + begin, bytes - begin < piece ? bytes - begin : piece) != 0;
  }
  return differs == 0;
}

/* a has the pattern the analysis saw: same order, same row offsets and
 * column indices. The message names the first row that differs. */
static ts_status check_pattern(ts_lu *lu, const ts_csr *a, const char *caller) {
  const int64_t n = lu->n;
  if (a->rows != n || a->cols != n)
    return tsi_error(lu->ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: the matrix is %lld x %lld, the analyzed one %lld x %lld (refactor needs the same pattern)",
                     caller, (long long)a->rows, (long long)a->cols, (long long)n, (long long)n);
  if (a->symmetry != TS_GENERAL)
    return tsi_error(lu->ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: the matrix holds %s storage; expand it to general storage (ts_coo_expand_symmetric)", caller,
                     ts_symmetry_name(a->symmetry));
  if (n > 0 && (!a->row_ptr || (a->nnz > 0 && (!a->col_idx || !a->values))))
    return tsi_error(lu->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the matrix has NULL arrays", caller);
  if (ts_dtype_size(a->dtype) == 0)
    return tsi_error(lu->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown value type %d", caller, (int)a->dtype);
  if (TS_DTYPE_IS_COMPLEX(a->dtype) != (lu->complex_values != 0))
    return tsi_error(lu->ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: the matrix holds %s values and the analysis was of %s ones; a matrix of the other kind needs "
                     "its own ts_lu_analyze",
                     caller, TS_DTYPE_IS_COMPLEX(a->dtype) ? "complex" : "real",
                     lu->complex_values ? "complex" : "real");
  /* The same pattern: two comparisons of whole arrays (a Newton loop's
   * matrices all pass here), over the threads of a pass over A. */
  const int threads = check_threads(lu);
  if (n > 0 && a->nnz == lu->nnz_a &&
      same_bytes(a->row_ptr, lu->a_row_ptr, (size_t)(n + 1) * sizeof(int64_t), threads) &&
      (lu->nnz_a == 0 || same_bytes(a->col_idx, lu->a_col_idx, (size_t)lu->nnz_a * sizeof(int32_t), threads)))
    return TS_SUCCESS;
  /* The first row that differs, over the threads (a min-reduction: the
   * same row whatever their number). */
  int64_t first_bad = n;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first_bad) if (threads > 1)
  for (int64_t i = 0; i < n; i++) {
    int64_t begin = lu->a_row_ptr[i], end = lu->a_row_ptr[i + 1];
    bool same = a->row_ptr[i] == begin && a->row_ptr[i + 1] == end;
    if (same && end > begin)
      same = memcmp(a->col_idx + begin, lu->a_col_idx + begin, (size_t)(end - begin) * sizeof(int32_t)) == 0;
    if (!same && i < first_bad)
      first_bad = i;
  }
  if (first_bad < n) {
    int64_t i = first_bad, begin = lu->a_row_ptr[i], end = lu->a_row_ptr[i + 1];
    return tsi_error(
        lu->ctx, TS_ERROR_INVALID_ARGUMENT,
        "%s: row %lld (from 0) differs from the analyzed pattern (%lld entries, analyzed %lld); a new pattern "
        "needs ts_lu_analyze",
        caller, (long long)i, (long long)(a->row_ptr[i + 1] - a->row_ptr[i]), (long long)(end - begin));
  }
  if (a->nnz != lu->nnz_a)
    return tsi_error(lu->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the matrix has %lld entries, the analyzed one %lld",
                     caller, (long long)a->nnz, (long long)lu->nnz_a);
  return TS_SUCCESS;
}

/* A's values, page-locked for a factorization on the GPU (its upload is
 * then one direct copy): from the first such factorization, since under
 * AUTO an analysis's first factorization may run on the host and a
 * page-locked allocation costs more than a small host factorization. */
ts_status tsi_lu_reserve_a_values(ts_lu *lu, const char *caller) {
  const int64_t nnz = lu->nnz_a, parts = tsi_lu_parts(lu);
  const int64_t count = (nnz > 0 ? nnz : 1) * parts;
  const bool pinned_wanted =
      tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_NUMERIC) && count <= INT64_MAX / (int64_t)sizeof(double);
  if (lu->a_values && !lu->a_values_pinned && pinned_wanted) {
    double *pinned = tsi_cuda_malloc_host(lu->ctx, (size_t)count * sizeof(double));
    if (pinned) {
      free(lu->a_values);
      lu->a_values = pinned;
      lu->a_values_pinned = 1;
    }
  }
  if (!lu->a_values) {
    if (pinned_wanted) {
      lu->a_values = tsi_cuda_malloc_host(lu->ctx, (size_t)count * sizeof(double));
      lu->a_values_pinned = lu->a_values != NULL;
    }
    if (!lu->a_values)
      lu->a_values = tsi_malloc_array(count, sizeof(double));
    if (!lu->a_values)
      return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no memory for %lld values", caller, (long long)nnz);
  }
  return TS_SUCCESS;
}

ts_status tsi_lu_bad_value_error(ts_lu *lu, int64_t e, const char *caller) {
  /* Find the row for the message: a binary search over the offsets. */
  int64_t low = 0, high = lu->n - 1;
  while (low < high) {
    int64_t mid = low + (high - low + 1) / 2;
    if (lu->a_row_ptr[mid] <= e)
      low = mid;
    else
      high = mid - 1;
  }
  /* A complex entry shows its real part when that is not finite, else its
   * imaginary part. */
  const int64_t parts = tsi_lu_parts(lu);
  const bool real_finite = isfinite(lu->a_values[e * parts]);
  const double shown = real_finite ? lu->a_values[e * parts + parts - 1] : lu->a_values[e * parts];
  return tsi_error(lu->ctx, TS_ERROR_INVALID_MATRIX, "%s: entry %lld (row %lld, column %d, all from 0) is %g%s", caller,
                   (long long)e, (long long)low, (int)lu->a_col_idx[e], shown,
                   parts == 2 && real_finite ? " (imaginary part)" : "");
}

/* Copy a's values into lu->a_values (double, or (re, im) pairs of double
 * for complex values), refusing NaN and infinity: the GPU path's and the
 * host's multifrontal path's copy (the host's column path copies the values
 * in its own pass over A). */
static ts_status copy_values(ts_lu *lu, const ts_csr *a, const char *caller) {
  const int64_t nnz = lu->nnz_a, parts = tsi_lu_parts(lu);
  ts_status status = tsi_lu_reserve_a_values(lu, caller);
  if (status != TS_SUCCESS)
    return status;
  /* Copied and checked over the threads; the first bad entry found after. */
  const ts_dtype dtype = a->dtype;
  const int threads = check_threads(lu);
  int64_t first_bad = nnz;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first_bad) if (threads > 1)
  for (int64_t e = 0; e < nnz; e++) {
    const tsi_complex128 v = tsi_value_get(dtype, a->values, e);
    lu->a_values[e * parts] = v.re;
    if (parts == 2)
      lu->a_values[e * parts + 1] = v.im;
    if (!tsi_z_isfinite(v) && e < first_bad)
      first_bad = e;
  }
  return first_bad < nnz ? tsi_lu_bad_value_error(lu, first_bad, caller) : TS_SUCCESS;
}

/* The GPU path's copy of real values, with the norms the refinement needs
 * (tsi_lu_compute_norms's sums, in its order: the same bits) taken in the
 * same pass over A, row by row. */
static ts_status copy_real_values_with_norms(ts_lu *lu, const ts_csr *a, const char *caller) {
  const int64_t n = lu->n, nnz = lu->nnz_a;
  ts_status status = tsi_lu_reserve_a_values(lu, caller);
  if (status != TS_SUCCESS)
    return status;
  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no memory for the numeric workspace", caller);
  const ts_dtype dtype = a->dtype;
  const int threads = check_threads(lu);
  const int64_t *row_ptr = lu->a_row_ptr;
  const int32_t *col_idx = lu->a_col_idx;
  const double *row_scale = lu->row_scale, *col_scale = lu->col_scale;
  double *values = lu->a_values;
  int64_t first_bad = nnz;
  double norm_inf = 0.0, scaled_inf = 0.0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min                                           \
                                                                         : first_bad)                                  \
    reduction(max                                                                                                      \
              : norm_inf, scaled_inf) if (threads > 1)
  for (int64_t i = 0; i < n; i++) {
    double row_sum = 0.0, scaled_sum = 0.0;
    for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
      const double v = dtype == TS_FLOAT64 ? ((const double *)a->values)[e] : tsi_value_get(dtype, a->values, e).re;
      values[e] = v;
      if (!isfinite(v) && e < first_bad)
        first_bad = e;
      const double magnitude = fabs(v);
      row_sum += magnitude;
      scaled_sum += magnitude * col_scale[col_idx[e]];
    }
    scaled_sum *= row_scale[i];
    norm_inf = row_sum > norm_inf ? row_sum : norm_inf;
    scaled_inf = scaled_sum > scaled_inf ? scaled_sum : scaled_inf;
  }
  if (first_bad < nnz)
    return tsi_lu_bad_value_error(lu, first_bad, caller);
  ws->a_norm_inf = norm_inf;
  ws->m_norm_inf = scaled_inf;
  ws->a_norm_one = ws->m_norm_one = -1.0;
  return TS_SUCCESS;
}

/* The numeric phase shared by factor and refactor: both reuse the analysis
 * (permutations, scaling, pattern, levels) and give bitwise the same factors
 * for the same values. */
static ts_status lu_numeric(ts_lu *lu, const ts_csr *a, const char *caller, bool *repivot, bool repivoted) {
  if (!lu)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: lu is NULL", caller);
  if (!a)
    return tsi_error(lu->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: matrix is NULL", caller);
  if (lu->state < TSI_LU_ANALYZED)
    return tsi_error(lu->ctx, TS_ERROR_NOT_ANALYZED, "%s: call ts_lu_analyze first", caller);
  ts_status status = check_pattern(lu, a, caller);
  if (status != TS_SUCCESS)
    return status;
  /* From here the old factors are gone, whatever happens. */
  lu->state = TSI_LU_ANALYZED;
  tsi_lu_pivoted_release(lu);
  lu->stats.partial_pivoting = 0;
  lu->stats.pivots_refreshed = 0;
  lu->stats.perturbed_pivots = 0;
  lu->stats.singular_column = -1;
  lu->stats.condest = lu->stats.scaled_condest = lu->stats.rcond = lu->stats.rgrowth = 0.0;
  lu->first_perturbed = -1;
  double start = tsi_seconds();
  if (tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_NUMERIC)) {
    status = lu->complex_values ? copy_values(lu, a, caller) : copy_real_values_with_norms(lu, a, caller);
    if (status != TS_SUCCESS)
      return status;
    start = tsi_seconds();
    lu->stats.factor_backend = TS_BACKEND_CUDA;
    lu->stats.factor_threads = 0;
    status = tsi_lu_numeric_cuda(lu, caller);
    if (!TS_IS_ERROR(status)) {
      ts_status quality = tsi_lu_cuda_pivot_quality(lu);
      status = quality == TS_SUCCESS ? status : quality;
    }
  } else {
    lu->factors_on_device = 0;
    lu->stats.factor_backend = TS_BACKEND_CPU;
    /* The fronts compute in real arithmetic: complex values take the
     * columns; real ones the fronts where the fill is dense
     * (frontal_rule.c). The column path copies the values in its pass over
     * A; the fronts' are copied first. */
    const bool fronts = !lu->complex_values && tsi_lu_frontal_chosen_host(lu);
    if (fronts)
      status = copy_values(lu, a, caller);
    if (status == TS_SUCCESS)
      status = fronts ? tsi_lu_frontal_cpu(lu, caller) : tsi_lu_numeric_cpu(lu, a, caller);
    if (!TS_IS_ERROR(status))
      tsi_lu_smallest_pivot_host(lu);
  }
  /* Perturbed static pivots under AUTO: partial pivoting instead (the
   * caller analyzes again), before the singularity policy's estimate. */
  if (status == TS_WARNING_PERTURBED_PIVOTS && repivot && tsi_lu_partial_pivoting_instead(lu, a)) {
    *repivot = true;
    return status;
  }
  /* Perturbed pivots, or a small one: the singularity policy judges the
   * factors; so it does those of a matrix whose static pivots had to be
   * perturbed, whatever its partial pivots look like. */
  if (status == TS_WARNING_PERTURBED_PIVOTS)
    status = tsi_lu_judge_factorization(lu, caller);
  else if (status == TS_SUCCESS && repivoted)
    status = tsi_lu_judge_repivoted(lu, caller);
  else if (status == TS_SUCCESS)
    status = tsi_lu_judge_small_pivot(lu, caller);
  lu->stats.partial_pivoting = lu->pivoted != NULL;
  lu->stats.time_factor = tsi_seconds() - start;
  if (TS_IS_ERROR(status))
    return status;
  lu->state = TSI_LU_FACTORED;
  return tsi_lu_pivot_check(lu, status, caller);
}

/* A new analysis of a with the current analysis's matching and scaling,
 * which partial pivoting's analysis takes as its own instead of matching
 * anew (M's diagonal: row_perm[k] of A was matched to col_perm[k]), where
 * a holds the values that analysis saw (its scaling suits no others);
 * otherwise, or without memory for the copies, it matches anew. */
static ts_status analyze_with_own_matching(ts_lu *lu, const ts_csr *a) {
  const int64_t n = lu->n;
  if (lu->analyzed_digest == 0 || tsi_lu_values_digest(a) != lu->analyzed_digest)
    return ts_lu_analyze(lu, a);
  int32_t *matching = tsi_malloc_array(n > 0 ? n : 1, sizeof(int32_t));
  double *row_scale = tsi_malloc_array(n > 0 ? n : 1, sizeof(double));
  double *col_scale = tsi_malloc_array(n > 0 ? n : 1, sizeof(double));
  if (matching && row_scale && col_scale) {
    for (int64_t k = 0; k < n; k++)
      matching[lu->col_perm[k]] = lu->row_perm[k];
    memcpy(row_scale, lu->row_scale, (size_t)n * sizeof(double));
    memcpy(col_scale, lu->col_scale, (size_t)n * sizeof(double));
    lu->handed_matching = matching;
    lu->handed_row_scale = row_scale;
    lu->handed_col_scale = col_scale;
  }
  const ts_status status = ts_lu_analyze(lu, a);
  lu->handed_matching = NULL;
  lu->handed_row_scale = lu->handed_col_scale = NULL;
  free(matching);
  free(row_scale);
  free(col_scale);
  return status;
}

/* A factorization reusing the analysis; under AUTO, the first one of an
 * analysis that perturbs a static pivot analyzes the values again with
 * partial pivoting (the option stays AUTO for the caller) and factors anew. */
static ts_status lu_numeric_repivoting(ts_lu *lu, const ts_csr *a, const char *caller) {
  bool repivot = false;
  ts_status status = lu_numeric(lu, a, caller, &repivot, false);
  if (!repivot)
    return status;
  lu->options.pivoting = TS_LU_PIVOTING_PARTIAL;
  status = analyze_with_own_matching(lu, a);
  if (status == TS_SUCCESS)
    status = lu_numeric(lu, a, caller, NULL, true);
  /* Partial pivots whose factors do not stand: the static pivots are judged
   * after all. Their matching's scaling makes M the same for A and for A
   * with its rows and columns in other units, where partial pivoting's
   * equilibration may leave M ill conditioned. */
  if (status == TS_ERROR_NUMERICALLY_SINGULAR) {
    lu->options.pivoting = TS_LU_PIVOTING_STATIC;
    status = ts_lu_analyze(lu, a);
    if (status == TS_SUCCESS)
      status = lu_numeric(lu, a, caller, NULL, false);
  }
  lu->options.pivoting = TS_LU_PIVOTING_AUTO;
  return status;
}

/* With the pivot check; with options.refresh_pivots, degraded pivots are
 * replaced by a new analysis of the new values and a factorization anew
 * (its status returned), which AUTO's rule above serves as it serves any;
 * so are the pivots of a refactorization (an earlier factorization of this
 * analysis stood) that the singularity policy refuses: the pivots and the
 * scaling it judged were chosen for other values (rows and columns whose
 * units changed), and the new analysis's verdict stands. */
static ts_status lu_numeric_checked(ts_lu *lu, const ts_csr *a, const char *caller) {
  if (!lu)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: lu is NULL", caller);
  const bool refactoring = lu->pivot_base_set != 0;
  ts_status status = lu_numeric_repivoting(lu, a, caller);
  const bool refused = status == TS_ERROR_NUMERICALLY_SINGULAR && refactoring;
  if ((status != TS_WARNING_PIVOTS_DEGRADED && !refused) || !lu->options.refresh_pivots)
    return status;
  status = ts_lu_analyze(lu, a);
  if (status == TS_SUCCESS)
    status = lu_numeric_repivoting(lu, a, caller);
  lu->stats.pivots_refreshed = 1;
  return status;
}

ts_status ts_lu_factor(ts_lu *lu, const ts_csr *a) { return lu_numeric_checked(lu, a, "ts_lu_factor"); }

ts_status ts_lu_refactor(ts_lu *lu, const ts_csr *a) { return lu_numeric_checked(lu, a, "ts_lu_refactor"); }
