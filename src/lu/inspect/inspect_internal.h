/* What the LU says about its own factors (ts_lu_condest, ts_lu_rcond,
 * ts_lu_rgrowth, ts_lu_extract_csr, ts_lu_extract_csc): the 1-norm
 * condition estimate, the pivot ratio and growth, and the factors in the
 * user's terms. Each works from whichever factors the solves use: the
 * host's, the GPU's (downloaded), or the partial-pivoting fallback's. The
 * singularity policy (numeric/singularity.c) judges a factorization by the
 * condition estimate. */
#ifndef TESSERA_LU_INSPECT_INTERNAL_H
#define TESSERA_LU_INSPECT_INTERNAL_H

#include "lu/solve/solve_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x = op(B) rhs for the operator B whose norm is estimated (rhs and x are n
 * values, distinct); returns a status, with its message set, on failure. */
typedef ts_status (*tsi_lu_operator_fn)(void *data, ts_operation op, const double *rhs, double *x);

/* A lower bound of |B|_1 from at most eleven products with B and B^T
 * (Hager 1984; Higham 1988, the algorithm of LAPACK's xLACN2, and for
 * complex B, vectors of (re, im) pairs, of ZLACN2, products with B^H).
 * Infinity when a product is not finite. n >= 0; 0 for n = 0. */
ts_status tsi_lu_norm_one_estimate(ts_context *ctx, int64_t n, bool complex_values, tsi_lu_operator_fn apply,
                                   void *data, double *estimate);

/* A condition estimate and how well its refined solves went. */
typedef struct tsi_lu_condition {
  double estimate; /* kappa_1 */
  /* The largest normwise backward error the solves were left with: of A or
   * of the scaled system M, whichever is larger (of M alone for M's
   * estimate); above 1e-14, the factors cannot solve with the matrix. */
  double worst;
  double worst_scaled; /* the largest of M's */
} tsi_lu_condition;

/* kappa_1(A) estimated (ts_lu_condest) through solves with the current
 * factors, each refined in double; with of_scaled, kappa_1(M) of the scaled
 * matrix M = P Dr A Dc Q instead (1 for n = 0). */
ts_status tsi_lu_estimate_condition(ts_lu *lu, bool of_scaled, tsi_lu_condition *condition);

/* The factors in the user's terms, on the host, as columns: with
 * M = P Dr A Dc Q, the rows of P M = L U that the solves use (row_perm[k]:
 * A's row that is row k of L and U), L unit lower triangular (diagonal
 * stored when with_unit_diagonal), U upper triangular with its diagonal.
 * Rows within a column are sorted only when the factors were (the static
 * factors are; the fallback's are not), but U's diagonal entry is always
 * the last of its column. Values in double, (re, im) pairs for complex
 * values (parts = 2). The caller frees the arrays with tsi_lu_columns_free. */
typedef struct tsi_lu_columns {
  int64_t n;
  int64_t parts;                  /* numbers a value takes: 1, or 2 for complex values */
  int64_t *l_col_ptr, *u_col_ptr; /* n + 1 each */
  int32_t *l_row_idx, *u_row_idx;
  double *l_values, *u_values;
  int32_t *row_perm; /* n */
} tsi_lu_columns;

/* Fill *columns (zeroed first) from the current factors; want_l = 0 leaves
 * L out (its arrays NULL). The GPU's factors are downloaded first. */
ts_status tsi_lu_columns_get(ts_lu *lu, bool want_l, bool with_unit_diagonal, tsi_lu_columns *columns,
                             const char *caller);
void tsi_lu_columns_free(tsi_lu_columns *columns);

/* U of the whole matrix, with U_kj = L_kk^-1 M_kj above the diagonal
 * blocks, from the factors of the diagonal blocks alone (lu->block_ptr set,
 * host factors): columns with sorted rows, the diagonal last, values as
 * tsi_lu_columns holds them; the caller frees the three arrays. */
ts_status tsi_lu_whole_upper(const ts_lu *lu, int64_t **col_ptr, int32_t **row_idx, double **values,
                             const char *caller);

#ifdef __cplusplus
}
#endif

#endif
