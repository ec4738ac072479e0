/* What the numeric phase keeps on the host between calls, for both
 * backends: the workspace (lu->numeric_aux), the norms of the matrix last
 * factored for the refinement's backward error, and their release with the
 * host's factor values. */
#include "core/complex_value.h"
#include "lu/numeric/numeric_internal.h"

#include <math.h>
#include <stdlib.h>

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

void tsi_lu_numeric_release(ts_lu *lu) {
  if (!lu)
    return;
  tsi_lu_numeric_workspace *ws = (tsi_lu_numeric_workspace *)lu->numeric_aux;
  if (ws) {
    free(ws->factor_work);
    free(ws->solve_work);
    free(ws);
  }
  lu->numeric_aux = NULL;
  free(lu->lu_values);
  lu->lu_values = NULL;
  free(lu->lu_values_f32);
  lu->lu_values_f32 = NULL;
  free(lu->a_values);
  lu->a_values = NULL;
}

ts_status tsi_lu_compute_norms(ts_lu *lu, tsi_lu_numeric_workspace *ws) {
  const int64_t n = lu->n;
  const int threads = n < TSI_LU_NORM_PARALLEL_ROWS ? 1 : tsi_lu_threads(lu);
  double norm_inf = 0.0;
  /* Each row's sum in a fixed order, and a maximum: no bit depends on the
   * threads. */
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : norm_inf)
  for (int64_t i = 0; i < n; i++) {
    double row_sum = 0.0;
    for (int64_t e = lu->a_row_ptr[i]; e < lu->a_row_ptr[i + 1]; e++)
      row_sum += tsi_lu_value_abs(lu, e);
    norm_inf = row_sum > norm_inf ? row_sum : norm_inf;
  }
  ws->a_norm_inf = norm_inf;
  ws->a_norm_one = -1.0;
  return TS_SUCCESS;
}

ts_status tsi_lu_norm_one(ts_lu *lu, tsi_lu_numeric_workspace *ws, double *norm) {
  const int64_t n = lu->n;
  if (ws->a_norm_one < 0.0) {
    double *col_sum = tsi_calloc_array(n > 0 ? n : 1, sizeof *col_sum);
    if (!col_sum)
      return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_solve: no memory for column sums (n = %lld)",
                       (long long)n);
    for (int64_t e = 0; e < lu->nnz_a; e++)
      col_sum[lu->a_col_idx[e]] += tsi_lu_value_abs(lu, e);
    double norm_one = 0.0;
    for (int64_t j = 0; j < n; j++)
      norm_one = col_sum[j] > norm_one ? col_sum[j] : norm_one;
    free(col_sum);
    ws->a_norm_one = norm_one;
  }
  *norm = ws->a_norm_one;
  return TS_SUCCESS;
}
