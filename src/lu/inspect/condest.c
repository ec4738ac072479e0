/* ts_lu_condest: kappa_1(A) >= |A|_1 * est(|A^{-1}|_1), the 1-norm
 * condition estimate of the matrix last factored (as klu_condest), |A^{-1}|_1
 * estimated by tsi_lu_norm_one_estimate through solves with the factors,
 * each refined in double (tsi_lu_refine): so the estimate is of A even where
 * the factors are of a nearby matrix (float factors, perturbed pivots), and
 * the worst backward error the solves reached tells whether the factors can
 * solve with A at all (the singularity policy, numeric/singularity.c). The
 * policy also estimates kappa_1(M) of the scaled matrix M = Dr A Dc the
 * same way, M^{-1} = Dc^{-1} A^{-1} Dr^{-1} applied through A's refined
 * solves. */
#include "lu/inspect/inspect_internal.h"

#include <math.h>
#include <stdlib.h>

typedef struct refined_inverse {
  ts_lu *lu;
  tsi_lu_refine_setup setup[2]; /* A x = b, A^T x = b */
  double *work;                 /* 4n values, then n for a scaled right-hand side */
  bool of_scaled;               /* the operator is M^{-1}, not A^{-1} */
  double worst;                 /* the largest backward error reached, of A or of M */
  double worst_scaled;          /* the largest of M's */
} refined_inverse;

/* x = op(A)^{-1} rhs refined; for M = Dr A Dc (permutations leave the
 * 1-norm alone) x = Dc^{-1} A^{-1} Dr^{-1} rhs, or Dr^{-1} A^{-T} Dc^{-1} rhs
 * for the transpose, the refinement's scaled measure being M's own
 * backward error. */
static ts_status apply_refined(void *data, ts_operation op, const double *rhs, double *x) {
  refined_inverse *inverse = data;
  ts_lu *lu = inverse->lu;
  const int64_t n = lu->n, parts = tsi_lu_parts(lu);
  const double *in_scale = op == TS_OP_NONE ? lu->row_scale : lu->col_scale;
  const double *out_scale = op == TS_OP_NONE ? lu->col_scale : lu->row_scale;
  double *b = (double *)rhs;
  if (inverse->of_scaled) {
    b = inverse->work + 4 * n * parts;
    for (int64_t i = 0; i < n; i++)
      for (int64_t p = 0; p < parts; p++)
        b[i * parts + p] = rhs[i * parts + p] / in_scale[i];
  }
  tsi_lu_residual_measures measures;
  int steps = 0;
  ts_status st =
      tsi_lu_refine(lu, &inverse->setup[op == TS_OP_NONE ? 0 : 1], op, b, x, false, inverse->work, &measures, &steps);
  if (inverse->of_scaled)
    for (int64_t i = 0; i < n; i++)
      for (int64_t p = 0; p < parts; p++)
        x[i * parts + p] /= out_scale[i];
  const double scaled = isnan(measures.scaled) ? INFINITY : measures.scaled;
  const double error = inverse->of_scaled ? scaled : fmax(measures.normwise, scaled);
  if (!(error <= inverse->worst))
    inverse->worst = isnan(error) ? INFINITY : error;
  if (!(scaled <= inverse->worst_scaled))
    inverse->worst_scaled = scaled;
  return st;
}

/* |A|_1 |A^{-1}|_1 where |A|_1 itself overflows (entries near double's
 * largest): the column sums taken with every magnitude times 2^-e, e the
 * exponent of the largest, and the product formed as (sum 2^-e)
 * (|A^{-1}|_1 2^e), which overflows only where the product does. */
static double product_past_overflow(const ts_lu *lu, double inverse_norm) {
  const int64_t n = lu->n;
  double largest = 0.0;
  for (int64_t e = 0; e < lu->nnz_a; e++) {
    const double magnitude = tsi_lu_value_abs(lu, e);
    largest = magnitude > largest ? magnitude : largest;
  }
  int exponent = 0;
  (void)frexp(largest, &exponent);
  double *col_sum = tsi_calloc_array(n > 0 ? n : 1, sizeof *col_sum);
  if (!col_sum)
    return INFINITY;
  for (int64_t e = 0; e < lu->nnz_a; e++)
    col_sum[lu->a_col_idx[e]] += ldexp(tsi_lu_value_abs(lu, e), -exponent);
  double norm = 0.0;
  for (int64_t j = 0; j < n; j++)
    norm = col_sum[j] > norm ? col_sum[j] : norm;
  free(col_sum);
  return norm * ldexp(inverse_norm, exponent);
}

ts_status tsi_lu_estimate_condition(ts_lu *lu, bool of_scaled, tsi_lu_condition *condition) {
  const int64_t n = lu->n;
  /* As LAPACK's xGECON: the empty matrix is perfectly conditioned. */
  *condition = (tsi_lu_condition){.estimate = 1.0};
  if (n == 0)
    return TS_SUCCESS;
  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "condition estimate: no memory for the workspace");
  refined_inverse inverse = {.lu = lu, .of_scaled = of_scaled};
  for (int k = 0; k < 2; k++) {
    ts_status st =
        tsi_lu_norms(lu, ws, k == 0 ? TS_OP_NONE : TS_OP_TRANSPOSE, &inverse.setup[k].a_norm, &inverse.setup[k].m_norm);
    if (st != TS_SUCCESS)
      return st;
    inverse.setup[k].max_steps = TSI_LU_REFINE_MAX_STEPS;
    inverse.setup[k].tolerance = TSI_LU_REFINE_TOLERANCE;
    inverse.setup[k].check = true;
  }
  /* |op(B)|_inf of the transpose is B's 1-norm. */
  const double norm_one = of_scaled ? inverse.setup[1].m_norm : inverse.setup[1].a_norm;
  inverse.work = tsi_malloc_array(5 * n * tsi_lu_parts(lu), sizeof(double));
  if (!inverse.work)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "condition estimate: no memory for 5 vectors of %lld entries",
                     (long long)n);
  double inverse_norm = 0.0;
  ts_status st = tsi_lu_norm_one_estimate(lu->ctx, n, lu->complex_values != 0, apply_refined, &inverse, &inverse_norm);
  free(inverse.work);
  if (st != TS_SUCCESS)
    return st;
  /* A zero matrix has no inverse: its condition number is infinite. */
  condition->estimate = norm_one == 0.0 ? INFINITY : norm_one * inverse_norm;
  if (!of_scaled && isinf(norm_one) && isfinite(inverse_norm) && inverse_norm > 0.0)
    condition->estimate = product_past_overflow(lu, inverse_norm);
  condition->worst = inverse.worst;
  condition->worst_scaled = inverse.worst_scaled;
  return TS_SUCCESS;
}

ts_status ts_lu_condest(ts_lu *lu, double *condest) {
  if (!lu || !condest)
    return tsi_error(lu ? lu->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_lu_condest: %s is NULL",
                     lu ? "condest" : "lu");
  *condest = 0.0;
  if (lu->state != TSI_LU_FACTORED)
    return tsi_error(lu->ctx, TS_ERROR_NOT_FACTORED, "ts_lu_condest: no valid factorization (call ts_lu_factor first)");
  tsi_lu_condition condition;
  ts_status st = tsi_lu_estimate_condition(lu, false, &condition);
  if (st == TS_SUCCESS)
    *condest = lu->stats.condest = condition.estimate;
  return st;
}
