/* Iterative refinement of one right-hand side in double (lu_refine.c), and
 * the measures of a residual it steers by. */
#ifndef TESSERA_LU_REFINE_H
#define TESSERA_LU_REFINE_H

#include "lu/lu_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the residual r = b - op(A) x says about x (every figure +infinity
 * when x is not finite). */
typedef struct tsi_lu_residual_measures {
  /* |r|_inf / (|op(A)|_inf |x|_inf + |b|_inf), evaluated so that the
   * denominator's product cannot overflow. */
  double normwise;
  /* max_i |r_i| / (|op(A)| |x| + |b|)_i, the componentwise backward error
   * (Oettli and Prager 1964), with the denominator of rows where it is tiny
   * raised to (|op(A)| |x|)_i + |op(A)_i|_1 |x|_inf (Arioli, Demmel and Duff,
   * SIAM J. Matrix Anal. Appl. 10(2), 1989: their omega_2). Invariant under
   * scalings of the rows and columns, so a system scaled over hundreds of
   * decades is judged as its equilibrated form would be. */
  double componentwise;
  double residual_norm; /* |r|_inf */
  double solution_norm; /* |x|_inf */
} tsi_lu_residual_measures;

/* What stays fixed over the refinement of a solve. */
typedef struct tsi_lu_refine_setup {
  double a_norm;           /* |op(A)|_inf: A's row sums' maximum, or its column sums' for A^T */
  const double *line_sums; /* op(A)'s row sums of |A| (n), for the transposed solve; NULL for A x = b */
  int max_steps;           /* refinement steps at most (0: none) */
  double tolerance;        /* stop once the componentwise backward error is at most this */
} tsi_lu_refine_setup;

/* r = b - op(A) x from the values last factored, and its measures; scratch
 * is n doubles (used for the transposed solve). */
void tsi_lu_residual(const ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b,
                     const double *x, double *r, double *scratch, tsi_lu_residual_measures *measures);

/* x = op(A)^{-1} b through the factors (unless solved: x holds it already),
 * then refined while the componentwise backward error is above the
 * tolerance and each step at least halves it; work is 4n doubles. The
 * measures of the x returned, and the steps taken. */
ts_status tsi_lu_refine(ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b, double *x,
                        bool solved, double *work, tsi_lu_residual_measures *measures, int *steps);

#ifdef __cplusplus
}
#endif

#endif
