/* Triangular solves with the factors of M = P Dr A Dc Q = L U (L unit lower,
 * both stored by columns), for one factor value type: included by
 * solve_cpu.c with TSI_VALUE (float or double) and TSI_NAME. The vectors are
 * double; float factors are widened as they are read. */

/* y = L^{-1} y, column-oriented forward substitution. */
static void TSI_NAME(lu_lower_solve)(const ts_lu *lu, const TSI_VALUE *values, double *y) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  for (int64_t j = 0; j < lu->n; j++) {
    const double y_j = y[j];
    if (y_j == 0.0)
      continue;
    for (int64_t p = diag_pos[j] + 1; p < col_ptr[j + 1]; p++)
      y[row_idx[p]] -= (double)values[p] * y_j;
  }
}

/* y = U^{-1} y, column-oriented back substitution. */
static void TSI_NAME(lu_upper_solve)(const ts_lu *lu, const TSI_VALUE *values, double *y) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  for (int64_t j = lu->n - 1; j >= 0; j--) {
    const double y_j = y[j] / (double)values[diag_pos[j]];
    y[j] = y_j;
    if (y_j == 0.0)
      continue;
    for (int64_t p = col_ptr[j]; p < diag_pos[j]; p++)
      y[row_idx[p]] -= (double)values[p] * y_j;
  }
}

/* y = U^{-T} y: column j of U is row j of U^T, so each step is a dot product. */
static void TSI_NAME(lu_upper_transpose_solve)(const ts_lu *lu, const TSI_VALUE *values, double *y) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  for (int64_t j = 0; j < lu->n; j++) {
    double sum = y[j];
    for (int64_t p = col_ptr[j]; p < diag_pos[j]; p++)
      sum -= (double)values[p] * y[row_idx[p]];
    y[j] = sum / (double)values[diag_pos[j]];
  }
}

/* y = L^{-T} y (unit diagonal). */
static void TSI_NAME(lu_lower_transpose_solve)(const ts_lu *lu, const TSI_VALUE *values, double *y) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  for (int64_t j = lu->n - 1; j >= 0; j--) {
    double sum = y[j];
    for (int64_t p = diag_pos[j] + 1; p < col_ptr[j + 1]; p++)
      sum -= (double)values[p] * y[row_idx[p]];
    y[j] = sum;
  }
}

/*
 * x = op(A)^{-1} rhs through the factors, y being n doubles of scratch.
 * A = Dr^{-1} P^T M Q^T Dc^{-1}, so
 *   A x = b:   y = P Dr b,   y = U^{-1} L^{-1} y,   x = Dc Q y;
 *   A^T x = b: y = Q^T Dc b, y = L^{-T} U^{-T} y,   x = Dr P^T y.
 */
static void TSI_NAME(lu_apply_inverse)(const ts_lu *lu, const TSI_VALUE *values, ts_operation op, const double *rhs,
                                       double *x, double *y) {
  const int64_t n = lu->n;
  const int32_t *row_perm = lu->row_perm, *col_perm = lu->col_perm;
  const double *row_scale = lu->row_scale, *col_scale = lu->col_scale;
  if (op == TS_OP_NONE) {
    for (int64_t i = 0; i < n; i++)
      y[i] = row_scale[row_perm[i]] * rhs[row_perm[i]];
    TSI_NAME(lu_lower_solve)(lu, values, y);
    TSI_NAME(lu_upper_solve)(lu, values, y);
    for (int64_t j = 0; j < n; j++)
      x[col_perm[j]] = col_scale[col_perm[j]] * y[j];
  } else {
    for (int64_t j = 0; j < n; j++)
      y[j] = col_scale[col_perm[j]] * rhs[col_perm[j]];
    TSI_NAME(lu_upper_transpose_solve)(lu, values, y);
    TSI_NAME(lu_lower_transpose_solve)(lu, values, y);
    for (int64_t i = 0; i < n; i++)
      x[row_perm[i]] = row_scale[row_perm[i]] * y[i];
  }
}
