/* ts_lu_rgrowth and ts_lu_rcond: two cheap measures of the factors' quality,
 * as KLU defines them (Davis and Palamadai Natarajan, "Algorithm 907: KLU",
 * ACM TOMS 37(3), 2010; klu_rgrowth, klu_rcond):
 *   rgrowth = min(1, min_k max_i |M(i, k)| / max_i |U(i, k)|),
 * the reciprocal pivot growth over the columns of the scaled, permuted
 * matrix M that was factored (small: the factors grew, and the solution
 * may be inaccurate), and
 *   rcond = min_k |u_kk| / max_k |u_kk|,
 * a rough reciprocal condition figure (0 when a pivot is 0). */
#include "core/complex_value.h"
#include "lu/inspect/inspect_internal.h"

#include <math.h>
#include <stdlib.h>

/* |value k| of an array of `parts` numbers a value (the modulus for 2). */
static inline double magnitude(const double *values, int64_t parts, int64_t k) {
  return parts == 2 ? tsi_z_abs(tsi_z(values[2 * k], values[2 * k + 1])) : fabs(values[k]);
}

/* Checks shared by both; *value cleared. */
static ts_status start(ts_lu *lu, double *value, const char *caller) {
  if (!lu || !value)
    return tsi_error(lu ? lu->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", caller, lu ? "value" : "lu");
  *value = 0.0;
  if (lu->state != TSI_LU_FACTORED)
    return tsi_error(lu->ctx, TS_ERROR_NOT_FACTORED, "%s: no valid factorization (call ts_lu_factor first)", caller);
  return TS_SUCCESS;
}

ts_status ts_lu_rgrowth(ts_lu *lu, double *rgrowth) {
  ts_status st = start(lu, rgrowth, "ts_lu_rgrowth");
  if (st != TS_SUCCESS)
    return st;
  const int64_t n = lu->n;
  /* max |M(:, k)| by A's column col_perm[k]: M's entries are A's scaled. */
  double *column_max = tsi_calloc_array(n > 0 ? n : 1, sizeof *column_max);
  if (!column_max)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_rgrowth: no memory for %lld column maxima", (long long)n);
  for (int64_t r = 0; r < n; r++)
    for (int64_t e = lu->a_row_ptr[r]; e < lu->a_row_ptr[r + 1]; e++) {
      const int32_t c = lu->a_col_idx[e];
      column_max[c] = fmax(column_max[c], lu->row_scale[r] * tsi_lu_value_abs(lu, e) * lu->col_scale[c]);
    }
  tsi_lu_columns columns;
  st = tsi_lu_columns_get(lu, false, false, &columns, "ts_lu_rgrowth");
  if (st == TS_SUCCESS) {
    double growth = 1.0;
    for (int64_t k = 0; k < n; k++) {
      double u_max = 0.0;
      for (int64_t p = columns.u_col_ptr[k]; p < columns.u_col_ptr[k + 1]; p++)
        u_max = fmax(u_max, magnitude(columns.u_values, columns.parts, p));
      if (u_max > 0.0)
        growth = fmin(growth, column_max[lu->col_perm[k]] / u_max);
    }
    *rgrowth = lu->stats.rgrowth = growth;
    tsi_lu_columns_free(&columns);
  }
  free(column_max);
  return st;
}

ts_status ts_lu_rcond(ts_lu *lu, double *rcond) {
  ts_status st = start(lu, rcond, "ts_lu_rcond");
  if (st != TS_SUCCESS)
    return st;
  tsi_lu_columns columns;
  st = tsi_lu_columns_get(lu, false, false, &columns, "ts_lu_rcond");
  if (st != TS_SUCCESS)
    return st;
  double smallest = INFINITY, largest = 0.0;
  for (int64_t k = 0; k < lu->n; k++) {
    const double pivot =
        magnitude(columns.u_values, columns.parts, columns.u_col_ptr[k + 1] - 1); /* the diagonal: last */
    smallest = fmin(smallest, pivot);
    largest = fmax(largest, pivot);
  }
  tsi_lu_columns_free(&columns);
  *rcond = lu->stats.rcond = lu->n == 0 ? 1.0 : (largest > 0.0 ? smallest / largest : 0.0);
  return TS_SUCCESS;
}
