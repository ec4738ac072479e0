/* ts_lu_condest: kappa_1(A) >= |A|_1 * est(|A^{-1}|_1), the 1-norm
 * condition estimate of the matrix last factored (as klu_condest), |A^{-1}|_1
 * estimated by tsi_lu_norm_one_estimate through solves with the factors,
 * each refined in double (tsi_lu_refine): so the estimate is of A even where
 * the factors are of a nearby matrix (float factors, perturbed pivots), and
 * the worst backward error the solves reached tells whether the factors can
 * solve with A at all (the singularity policy, lu_singularity.c). */
#include "lu/inspect/inspect_internal.h"

#include <math.h>
#include <stdlib.h>

typedef struct refined_inverse {
  ts_lu *lu;
  tsi_lu_refine_setup setup[2]; /* A x = b, A^T x = b */
  double *work;                 /* 4n values */
  double worst;                 /* the largest normwise backward error reached */
} refined_inverse;

static ts_status apply_refined(void *data, ts_operation op, const double *rhs, double *x) {
  refined_inverse *inverse = data;
  tsi_lu_residual_measures measures;
  int steps = 0;
  ts_status st = tsi_lu_refine(inverse->lu, &inverse->setup[op == TS_OP_NONE ? 0 : 1], op, rhs, x, false, inverse->work,
                               &measures, &steps);
  double error = fmax(measures.normwise, measures.scaled);
  if (!(error <= inverse->worst))
    inverse->worst = isnan(error) ? INFINITY : error;
  return st;
}

ts_status tsi_lu_estimate_condition(ts_lu *lu, double *condest, double *worst_backward_error) {
  const int64_t n = lu->n;
  *condest = 1.0; /* as LAPACK's xGECON: the empty matrix is perfectly conditioned */
  *worst_backward_error = 0.0;
  if (n == 0)
    return TS_SUCCESS;
  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "condition estimate: no memory for the workspace");
  refined_inverse inverse = {.lu = lu, .worst = 0.0};
  for (int k = 0; k < 2; k++) {
    ts_status st =
        tsi_lu_norms(lu, ws, k == 0 ? TS_OP_NONE : TS_OP_TRANSPOSE, &inverse.setup[k].a_norm, &inverse.setup[k].m_norm);
    if (st != TS_SUCCESS)
      return st;
    inverse.setup[k].max_steps = TSI_LU_REFINE_MAX_STEPS;
    inverse.setup[k].tolerance = TSI_LU_REFINE_TOLERANCE;
    inverse.setup[k].check = true;
  }
  const double a_norm_one = inverse.setup[1].a_norm;
  inverse.work = tsi_malloc_array(4 * n * tsi_lu_parts(lu), sizeof(double));
  if (!inverse.work)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "condition estimate: no memory for 4 vectors of %lld entries",
                     (long long)n);
  double inverse_norm = 0.0;
  ts_status st = tsi_lu_norm_one_estimate(lu->ctx, n, lu->complex_values != 0, apply_refined, &inverse, &inverse_norm);
  free(inverse.work);
  if (st != TS_SUCCESS)
    return st;
  /* A zero matrix has no inverse: its condition number is infinite. */
  *condest = a_norm_one == 0.0 ? INFINITY : a_norm_one * inverse_norm;
  *worst_backward_error = inverse.worst;
  return TS_SUCCESS;
}

ts_status ts_lu_condest(ts_lu *lu, double *condest) {
  if (!lu || !condest)
    return tsi_error(lu ? lu->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_lu_condest: %s is NULL",
                     lu ? "condest" : "lu");
  *condest = 0.0;
  if (lu->state != TSI_LU_FACTORED)
    return tsi_error(lu->ctx, TS_ERROR_NOT_FACTORED, "ts_lu_condest: no valid factorization (call ts_lu_factor first)");
  double worst = 0.0;
  ts_status st = tsi_lu_estimate_condition(lu, condest, &worst);
  if (st == TS_SUCCESS)
    lu->stats.condest = *condest;
  return st;
}
