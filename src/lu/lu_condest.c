/* ts_lu_condest: kappa_1(A) >= |A|_1 * est(|A^{-1}|_1), the 1-norm
 * condition estimate of the matrix last factored (as klu_condest), |A^{-1}|_1
 * estimated by tsi_lu_norm_one_estimate through solves with the factors. */
#include "lu/lu_estimates.h"
#include "lu/lu_numeric_workspace.h"

#include <math.h>
#include <stdlib.h>

typedef struct inverse_operator {
  ts_lu *lu;
  double *scratch; /* n doubles for the host's solves */
} inverse_operator;

static ts_status apply_inverse(void *data, ts_operation op, const double *rhs, double *x) {
  inverse_operator *inverse = data;
  return tsi_lu_apply_inverse(inverse->lu, op, rhs, x, inverse->scratch);
}

ts_status ts_lu_condest(ts_lu *lu, double *condest) {
  if (!lu || !condest)
    return tsi_error(lu ? lu->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_lu_condest: %s is NULL",
                     lu ? "condest" : "lu");
  *condest = 0.0;
  if (lu->state != TSI_LU_FACTORED)
    return tsi_error(lu->ctx, TS_ERROR_NOT_FACTORED, "ts_lu_condest: no valid factorization (call ts_lu_factor first)");
  const int64_t n = lu->n;
  if (n == 0) {
    *condest = lu->stats.condest = 1.0; /* as LAPACK's xGECON: the empty matrix is perfectly conditioned */
    return TS_SUCCESS;
  }
  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_condest: no memory for the workspace");
  double a_norm = 0.0, inverse_norm = 0.0;
  ts_status st = tsi_lu_norm_one(lu, ws, &a_norm);
  if (st != TS_SUCCESS)
    return st;
  inverse_operator inverse = {lu, tsi_malloc_array(n, sizeof(double))};
  if (!inverse.scratch)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_condest: no memory for a vector of %lld entries",
                     (long long)n);
  st = tsi_lu_norm_one_estimate(lu->ctx, n, apply_inverse, &inverse, &inverse_norm);
  free(inverse.scratch);
  if (st != TS_SUCCESS)
    return st;
  /* A zero matrix has no inverse: its condition number is infinite. */
  double value = a_norm == 0.0 ? INFINITY : a_norm * inverse_norm;
  *condest = lu->stats.condest = value;
  return TS_SUCCESS;
}
