/* What the numeric phase keeps on the host between calls, for both
 * backends: the workspace (lu->numeric_aux), the norms of the matrix last
 * factored for the refinement's backward error, and their release with the
 * host's factor values. */
#include "core/complex_value.h"
#include "lu/numeric/numeric_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double tsi_lu_value_abs(const ts_lu *lu, int64_t e) {
  if (!lu->complex_values)
    return fabs(lu->a_values[e]);
  return tsi_z_abs(tsi_z(lu->a_values[2 * e], lu->a_values[2 * e + 1]));
}

tsi_lu_numeric_workspace *tsi_lu_numeric_workspace_get(ts_lu *lu) {
  if (!lu->numeric_aux)
    lu->numeric_aux = calloc(1, sizeof(tsi_lu_numeric_workspace));
  return (tsi_lu_numeric_workspace *)lu->numeric_aux;
}

bool tsi_lu_dense_row(const ts_lu *lu, tsi_lu_numeric_workspace *ws) {
  if (ws->dense_row_known)
    return true;
  const int64_t n = lu->n;
  /* alone[i]: the columns of L whose only entry row i is; -1 once row i is
   * seen above another entry of a column (its value could then not be held
   * apart while that column's other rows are updated in memory). */
  int64_t *alone = tsi_calloc_array(n > 0 ? n : 1, sizeof(int64_t));
  if (!alone)
    return false;
  for (int64_t j = 0; j < n; j++) {
    const int64_t end = lu->lu_col_ptr[j + 1];
    for (int64_t p = lu->diag_pos[j] + 1; p < end - 1; p++)
      alone[lu->lu_row_idx[p]] = -1;
  }
  for (int64_t j = 0; j < n; j++) {
    const int64_t end = lu->lu_col_ptr[j + 1];
    if (end - 2 == lu->diag_pos[j] && alone[lu->lu_row_idx[end - 1]] >= 0)
      alone[lu->lu_row_idx[end - 1]]++;
  }
  int64_t best = -1, most = 0;
  for (int64_t i = 0; i < n; i++)
    if (alone[i] > most) {
      most = alone[i];
      best = i;
    }
  free(alone);
  ws->dense_row = most >= TSI_LU_DENSE_ROW_MIN_COLUMNS ? best : -1;
  ws->dense_row_known = 1;
  return true;
}

/* The share of the updates' work (entries of L subtracted) that the
 * column kernel's groups take, by the kernel's own test (numeric_cpu_impl.h,
 * lu_factor_column), and that work itself in *grouped_work. */
static double grouped_share(const ts_lu *lu, const uint8_t *run, double *grouped_work) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  double grouped = 0.0, total = 0.0;
  for (int64_t k = 0; k < lu->n; k++) {
    const int64_t diag = diag_pos[k];
    for (int64_t p = lu->block_begin ? lu->block_begin[k] : col_ptr[k]; p < diag;) {
      const int64_t j = row_idx[p], below = col_ptr[j + 1] - diag_pos[j] - 1;
      const int64_t m = tsi_lu_group_size(col_ptr, diag_pos, row_idx, run, p, diag, j);
      /* The chained columns' lengths fall by one a column. */
      const double work = (double)m * (double)below - (double)m * (double)(m - 1) / 2.0;
      total += work;
      grouped += m > 1 ? work : 0.0;
      p += m;
    }
  }
  *grouped_work = grouped;
  return total > 0.0 ? grouped / total : 0.0;
}

/* ws->chain_run and ws->chain_share (tsi_lu_chain_runs); false when out of
 * memory. */
static bool find_chain_runs(const ts_lu *lu, tsi_lu_numeric_workspace *ws) {
  const int64_t n = lu->n;
  uint8_t *run = tsi_malloc_array(n > 0 ? n : 1, sizeof(uint8_t));
  if (!run)
    return false;
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  for (int64_t j = n - 1; j >= 0; j--) {
    run[j] = 1;
    if (j + 1 == n)
      continue;
    const int64_t first = diag_pos[j] + 1, end = col_ptr[j + 1];
    const int64_t next_first = diag_pos[j + 1] + 1, next_end = col_ptr[j + 2];
    if (end - first == next_end - next_first + 1 && row_idx[first] == j + 1 &&
        memcmp(&row_idx[first + 1], &row_idx[next_first], (size_t)(next_end - next_first) * sizeof(int32_t)) == 0)
      run[j] = (uint8_t)(run[j + 1] < TSI_LU_CPU_GROUP_MAX ? run[j + 1] + 1 : TSI_LU_CPU_GROUP_MAX);
  }
  ws->chain_share = grouped_share(lu, run, &ws->chain_work);
  ws->chain_run = run;
  return true;
}

const uint8_t *tsi_lu_chain_runs(const ts_lu *lu, tsi_lu_numeric_workspace *ws, bool *failed) {
  *failed = false;
  const int groups = lu->switches.cpu_column_groups;
  if (groups == TSI_LU_COLUMN_GROUPS_OFF)
    return NULL;
  /* Light updates (netlists, arrowheads) cannot repay even the search. */
  if (groups == TSI_LU_COLUMN_GROUPS_AUTO &&
      lu->stats.flops < TSI_LU_CPU_GROUP_MIN_FLOPS_PER_ENTRY * (double)lu->lu_nnz)
    return NULL;
  if (!ws->chain_run && !find_chain_runs(lu, ws)) {
    *failed = true;
    return NULL;
  }
  const bool pays = ws->chain_share >= TSI_LU_CPU_GROUP_MIN_SHARE && ws->chain_work >= TSI_LU_CPU_GROUP_MIN_WORK;
  return groups == TSI_LU_COLUMN_GROUPS_ON || pays ? ws->chain_run : NULL;
}

int64_t tsi_lu_dense_row_known(const ts_lu *lu) {
  const tsi_lu_numeric_workspace *ws = (const tsi_lu_numeric_workspace *)lu->numeric_aux;
  return ws && ws->dense_row_known ? ws->dense_row : -1;
}

void tsi_lu_numeric_release(ts_lu *lu) {
  if (!lu)
    return;
  tsi_lu_numeric_workspace *ws = (tsi_lu_numeric_workspace *)lu->numeric_aux;
  if (ws) {
    free(ws->factor_work);
    free(ws->solve_work);
    free(ws->fronts);
    free(ws->fill_pos);
    free(ws->column_level);
    free(ws->chain_run);
    tsi_lu_judgement_record_clear(ws);
    free(ws);
  }
  lu->numeric_aux = NULL;
  free(lu->lu_values);
  lu->lu_values = NULL;
  free(lu->lu_values_f32);
  lu->lu_values_f32 = NULL;
  if (lu->a_values_pinned)
    tsi_cuda_free_host(lu->a_values);
  else
    free(lu->a_values);
  lu->a_values = NULL;
  lu->a_values_pinned = 0;
}

ts_status tsi_lu_compute_norms(ts_lu *lu, tsi_lu_numeric_workspace *ws) {
  const int64_t n = lu->n;
  const int threads = tsi_lu_host_threads(lu, TSI_LU_WORK_PASS, (double)lu->nnz_a);
  double norm_inf = 0.0, scaled_inf = 0.0;
  /* Each row's sum in a fixed order, and a maximum: no bit depends on the
   * threads. */
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : norm_inf, scaled_inf) if (threads > 1)
  for (int64_t i = 0; i < n; i++) {
    double row_sum = 0.0, scaled_sum = 0.0;
    for (int64_t e = lu->a_row_ptr[i]; e < lu->a_row_ptr[i + 1]; e++) {
      const double magnitude = tsi_lu_value_abs(lu, e); /* the scales are positive */
      row_sum += magnitude;
      scaled_sum += magnitude * lu->col_scale[lu->a_col_idx[e]];
    }
    scaled_sum *= lu->row_scale[i];
    norm_inf = row_sum > norm_inf ? row_sum : norm_inf;
    scaled_inf = scaled_sum > scaled_inf ? scaled_sum : scaled_inf;
  }
  ws->a_norm_inf = norm_inf;
  ws->m_norm_inf = scaled_inf;
  ws->a_norm_one = ws->m_norm_one = -1.0;
  return TS_SUCCESS;
}

ts_status tsi_lu_norms(ts_lu *lu, tsi_lu_numeric_workspace *ws, ts_operation op, double *a_norm, double *m_norm) {
  const int64_t n = lu->n;
  if (op != TS_OP_NONE && ws->a_norm_one < 0.0) {
    double *col_sum = tsi_calloc_array(2 * (n > 0 ? n : 1), sizeof *col_sum);
    if (!col_sum)
      return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_solve: no memory for column sums (n = %lld)",
                       (long long)n);
    double *scaled_sum = col_sum + n;
    for (int64_t i = 0; i < n; i++)
      for (int64_t e = lu->a_row_ptr[i]; e < lu->a_row_ptr[i + 1]; e++) {
        const int32_t j = lu->a_col_idx[e];
        const double magnitude = tsi_lu_value_abs(lu, e); /* the scales are positive */
        col_sum[j] += magnitude;
        scaled_sum[j] += lu->row_scale[i] * magnitude;
      }
    double norm_one = 0.0, scaled_one = 0.0;
    for (int64_t j = 0; j < n; j++) {
      norm_one = col_sum[j] > norm_one ? col_sum[j] : norm_one;
      const double scaled = scaled_sum[j] * lu->col_scale[j];
      scaled_one = scaled > scaled_one ? scaled : scaled_one;
    }
    free(col_sum);
    ws->a_norm_one = norm_one;
    ws->m_norm_one = scaled_one;
  }
  *a_norm = op == TS_OP_NONE ? ws->a_norm_inf : ws->a_norm_one;
  *m_norm = op == TS_OP_NONE ? ws->m_norm_inf : ws->m_norm_one;
  return TS_SUCCESS;
}
