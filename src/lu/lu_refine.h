/* Iterative refinement of one right-hand side in double (lu_refine.c), and
 * the measures of a residual it steers by. */
#ifndef TESSERA_LU_REFINE_H
#define TESSERA_LU_REFINE_H

#include "lu/lu_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the residual r = b - op(A) x says about x (every figure +infinity
 * when x or r is not finite). */
typedef struct tsi_lu_residual_measures {
  /* |r|_inf / (|op(A)|_inf |x|_inf + |b|_inf): the normwise backward error,
   * evaluated so that the denominator's product cannot overflow. */
  double normwise;
  /* The same for the scaled system the factors are of: with M = P Dr A Dc Q,
   * |Dr r|_inf / (|M|_inf |Dc^{-1} x|_inf + |Dr b|_inf) for A x = b (Dc and
   * Dr swapped for A^T x = b). On a matrix whose rows and columns span
   * hundreds of decades, |A|_inf |x|_inf dwarfs every residual and the
   * first figure is tiny even for a wrong x; the matching's scaling
   * equilibrates the system, and this one is not. */
  double scaled;
  /* max_i |r_i| / (|op(A)| |x| + |b|)_i, the componentwise backward error
   * (Oettli and Prager 1964; a row whose residual is exactly 0 counts 0, one
   * whose denominator is near underflow is guarded as in LAPACK's xGERFS):
   * invariant under any scaling of the rows and columns. Sparse right-hand
   * sides can hold it near 1 (rows whose few terms cancel), so it only
   * polishes: see tsi_lu_refine. */
  double componentwise;
  double residual_norm; /* |r|_inf */
  double solution_norm; /* |x|_inf */
} tsi_lu_residual_measures;

/* A componentwise backward error above this after the normwise refinement
 * means some entries of x are wrong beyond rounding (a badly scaled system,
 * whose small entries the normwise errors do not see): the refinement goes
 * on for them. Far above the few ulps of the usual solves, which then take
 * no extra step. */
#define TSI_LU_POLISH_THRESHOLD 1e-12

/* What stays fixed over the refinement of a solve. */
typedef struct tsi_lu_refine_setup {
  double a_norm;    /* |op(A)|_inf: A's row sums' maximum, or its column sums' for A^T */
  double m_norm;    /* |op(M)|_inf, the same of the scaled matrix */
  int max_steps;    /* refinement steps at most (0: none) */
  double tolerance; /* stop once both backward errors are at most this */
} tsi_lu_refine_setup;

/* r = b - op(A) x from the values last factored, and its measures;
 * magnitude is n doubles of scratch. */
void tsi_lu_residual(const ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b,
                     const double *x, double *r, double *magnitude, tsi_lu_residual_measures *measures);

/* x = op(A)^{-1} b through the factors (unless solved: x holds it already),
 * then refined while the larger normwise backward error is above the
 * tolerance and each step at least halves it; then, while the componentwise
 * one is above TSI_LU_POLISH_THRESHOLD, while each step halves that one
 * (the normwise ones staying within the tolerance). Work is 4n doubles. The
 * measures of the x returned, and the steps taken. */
ts_status tsi_lu_refine(ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b, double *x,
                        bool solved, double *work, tsi_lu_residual_measures *measures, int *steps);

#ifdef __cplusplus
}
#endif

#endif
