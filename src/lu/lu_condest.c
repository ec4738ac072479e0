/* ts_lu_condest: kappa_1(A) >= |A|_1 * est(|A^{-1}|_1), the 1-norm
 * condition estimate of the matrix last factored (as klu_condest), |A^{-1}|_1
 * estimated by tsi_lu_norm_one_estimate through solves with the factors,
 * each refined in double (tsi_lu_refine): so the estimate is of A even where
 * the factors are of a nearby matrix (float factors, perturbed pivots), and
 * the worst backward error the solves reached tells whether the factors can
 * solve with A at all (the singularity policy, lu_singularity.c). */
#include "lu/lu_estimates.h"
#include "lu/lu_numeric_workspace.h"
#include "lu/lu_refine.h"

#include <math.h>
#include <stdlib.h>

/* Refinement steps of each of the estimator's solves at most. */
#define ESTIMATE_REFINE_STEPS 30

typedef struct refined_inverse {
  ts_lu *lu;
  tsi_lu_refine_setup setup[2]; /* A x = b, A^T x = b */
  double *work;                 /* 4n doubles */
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

/* |M|_inf and |M|_1 of the scaled matrix M = P Dr A Dc Q. */
static ts_status scaled_norms(ts_lu *lu, double *norm_inf, double *norm_one) {
  const int64_t n = lu->n;
  double *column_sums = tsi_calloc_array(n > 0 ? n : 1, sizeof *column_sums);
  if (!column_sums)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "condition estimate: no memory for %lld column sums",
                     (long long)n);
  *norm_inf = *norm_one = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double row_sum = 0.0;
    for (int64_t e = lu->a_row_ptr[i]; e < lu->a_row_ptr[i + 1]; e++) {
      const int32_t j = lu->a_col_idx[e];
      const double magnitude = fabs(lu->row_scale[i] * lu->a_values[e] * lu->col_scale[j]);
      row_sum += magnitude;
      column_sums[j] += magnitude;
    }
    *norm_inf = fmax(*norm_inf, row_sum);
  }
  for (int64_t j = 0; j < n; j++)
    *norm_one = fmax(*norm_one, column_sums[j]);
  free(column_sums);
  return TS_SUCCESS;
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
  double a_norm_one = 0.0, m_norm_inf = 0.0, m_norm_one = 0.0;
  ts_status st = tsi_lu_norm_one(lu, ws, &a_norm_one);
  if (st == TS_SUCCESS)
    st = scaled_norms(lu, &m_norm_inf, &m_norm_one);
  if (st != TS_SUCCESS)
    return st;
  inverse.setup[0] = (tsi_lu_refine_setup){ws->a_norm_inf, m_norm_inf, ESTIMATE_REFINE_STEPS, 1e-15};
  inverse.setup[1] = (tsi_lu_refine_setup){a_norm_one, m_norm_one, ESTIMATE_REFINE_STEPS, 1e-15};
  inverse.work = tsi_malloc_array(4 * n, sizeof(double));
  if (!inverse.work)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "condition estimate: no memory for 4 vectors of %lld entries",
                     (long long)n);
  double inverse_norm = 0.0;
  st = tsi_lu_norm_one_estimate(lu->ctx, n, apply_refined, &inverse, &inverse_norm);
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
