/* The host's partial-pivoting fallback (lu_pivoted_cpu.c): factors of
 * P2 M = L U used by ts_lu_solve when the statically pivoted factors leave
 * the backward error above the refinement tolerance. */
#ifndef TESSERA_LU_PIVOTED_H
#define TESSERA_LU_PIVOTED_H

#include "lu/lu_internal.h"

/* L by columns with M's row numbers (unit diagonal implied); U by columns
 * with pivot positions, its diagonal apart; pinv[i] is the position of M's
 * row i, row_of_position its inverse. */
typedef struct tsi_lu_pivoted {
  int64_t *l_col_ptr; /* n + 1 */
  int32_t *l_row_idx;
  double *l_values;
  int64_t *u_col_ptr; /* n + 1 */
  int32_t *u_row_idx;
  double *u_values;
  double *u_diagonal;       /* n */
  int64_t *pinv;            /* n */
  int64_t *row_of_position; /* n */
  int64_t replaced;         /* columns without a nonzero pivot, given the static rule's value */
  double *scratch;          /* n: one solve at a time */
} tsi_lu_pivoted;

/* Factor M again with threshold partial pivoting from lu->a_values (replaces
 * any earlier pivoted factors). */
ts_status tsi_lu_pivoted_factor(ts_lu *lu);
/* x = op(A)^{-1} rhs through the pivoted factors; y is n doubles of scratch. */
void tsi_lu_pivoted_apply(const ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y);
void tsi_lu_pivoted_release(ts_lu *lu);

#endif
