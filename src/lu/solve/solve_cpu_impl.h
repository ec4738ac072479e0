/* Triangular solves with the factors of M = P Dr A Dc Q = L U (L unit lower,
 * both stored by columns), for one factor value type: included by
 * solve_cpu.c with TSI_VALUE (float, double, or complex of either),
 * TSI_NAME, and an arithmetic set (lu/lu_arith_real.h or
 * lu/lu_arith_complex.h). The vectors are of the working type (double, or
 * complex double); factors in single precision are widened as they are
 * read. The transposed solves conjugate the factors when asked (A^H). */

/* Columns [first, dense_row) of the lower solve below, the dense row of L
 * (dense_row, tsi_lu_dense_row: the last entry of every column it is in)
 * held in a register until its own column: the same subtractions in the
 * same order, without each waiting for the last through memory. Apart from
 * lu_lower_solve so that it stays small enough to inline into the solves'
 * loop over blocks. */
static void TSI_NAME(lu_lower_solve_held)(const ts_lu *lu, const TSI_VALUE *values, int64_t first, int64_t dense_row,
                                          TSI_WORK *y) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  TSI_WORK held = y[dense_row];
  for (int64_t j = first; j < dense_row; j++) {
    const TSI_WORK y_j = y[j];
    if (TSI_W_IS_ZERO(y_j))
      continue;
    int64_t end = col_ptr[j + 1];
    if (end - 1 > diag_pos[j] && row_idx[end - 1] == dense_row) {
      end--;
      held = TSI_W_MINUS_PRODUCT(held, TSI_WIDEN(values[end]), y_j);
    }
    for (int64_t p = diag_pos[j] + 1; p < end; p++)
      y[row_idx[p]] = TSI_W_MINUS_PRODUCT(y[row_idx[p]], TSI_WIDEN(values[p]), y_j);
  }
  y[dense_row] = held;
}

/* y = L^{-1} y over columns [first, last) of L (a diagonal block, or all of
 * them), column-oriented forward substitution; L's dense row (or -1) held
 * apart where it lies in the range. */
static TSI_LU_SOLVE_INLINE void TSI_NAME(lu_lower_solve)(const ts_lu *lu, const TSI_VALUE *values, int64_t first,
                                                         int64_t last, int64_t dense_row, TSI_WORK *y) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  if (dense_row >= first && dense_row < last) {
    TSI_NAME(lu_lower_solve_held)(lu, values, first, dense_row, y);
    first = dense_row;
  }
  for (int64_t j = first; j < last; j++) {
    const TSI_WORK y_j = y[j];
    if (TSI_W_IS_ZERO(y_j))
      continue;
    for (int64_t p = diag_pos[j] + 1; p < col_ptr[j + 1]; p++)
      y[row_idx[p]] = TSI_W_MINUS_PRODUCT(y[row_idx[p]], TSI_WIDEN(values[p]), y_j);
  }
}

/* y = U^{-1} y over columns [first, last) of U, column-oriented back
 * substitution; each column's entries above the range (in block form, M's
 * off-diagonal blocks) update the rows of earlier columns. */
static TSI_LU_SOLVE_INLINE void TSI_NAME(lu_upper_solve)(const ts_lu *lu, const TSI_VALUE *values, int64_t first,
                                                         int64_t last, TSI_WORK *y) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  for (int64_t j = last - 1; j >= first; j--) {
    const TSI_WORK y_j = TSI_W_DIV(y[j], TSI_WIDEN(values[diag_pos[j]]));
    y[j] = y_j;
    if (TSI_W_IS_ZERO(y_j))
      continue;
    for (int64_t p = col_ptr[j]; p < diag_pos[j]; p++)
      y[row_idx[p]] = TSI_W_MINUS_PRODUCT(y[row_idx[p]], TSI_WIDEN(values[p]), y_j);
  }
}

/* y = U^{-T} y (U^{-H} y with conjugate) over columns [first, last): column
 * j of U is row j of U^T, so each step is a dot product, which reads the
 * final values of the rows above the range (in block form, through M's
 * off-diagonal blocks). */
static void TSI_NAME(lu_upper_transpose_solve)(const ts_lu *lu, const TSI_VALUE *values, bool conjugate, int64_t first,
                                               int64_t last, TSI_WORK *y) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  (void)conjugate;
  for (int64_t j = first; j < last; j++) {
    TSI_WORK sum = y[j];
    for (int64_t p = col_ptr[j]; p < diag_pos[j]; p++)
      sum = TSI_W_MINUS_PRODUCT(sum, TSI_W_CONJ_IF(TSI_WIDEN(values[p]), conjugate), y[row_idx[p]]);
    y[j] = TSI_W_DIV(sum, TSI_W_CONJ_IF(TSI_WIDEN(values[diag_pos[j]]), conjugate));
  }
}

/* y = L^{-T} y (L^{-H} y with conjugate; unit diagonal) over columns
 * [first, last). */
static void TSI_NAME(lu_lower_transpose_solve)(const ts_lu *lu, const TSI_VALUE *values, bool conjugate, int64_t first,
                                               int64_t last, TSI_WORK *y) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  (void)conjugate;
  for (int64_t j = last - 1; j >= first; j--) {
    TSI_WORK sum = y[j];
    for (int64_t p = diag_pos[j] + 1; p < col_ptr[j + 1]; p++)
      sum = TSI_W_MINUS_PRODUCT(sum, TSI_W_CONJ_IF(TSI_WIDEN(values[p]), conjugate), y[row_idx[p]]);
    y[j] = sum;
  }
}

/*
 * x = op(A)^{-1} rhs through the factors, y being n values of scratch.
 * A = Dr^{-1} P^T M Q^T Dc^{-1}, so (the scales being real)
 *   A x = b:   y = P Dr b,   y = U^{-1} L^{-1} y,   x = Dc Q y;
 *   A^T x = b: y = Q^T Dc b, y = L^{-T} U^{-T} y,   x = Dr P^T y;
 *   A^H x = b: as A^T with the factors conjugated.
 * With the diagonal blocks factored alone (lu->block_ptr), M x = y is solved
 * by block back substitution, x_k = U_kk^-1 L_kk^-1 (y_k - sum_j>k M_kj x_j),
 * the last block first, the products with M's off-diagonal blocks made by
 * the upper solve's columns; M^T x = y by block forward substitution, the
 * first block first (KLU's solves: Davis and Palamadai Natarajan, ACM TOMS
 * 37(3), 2010).
 */
static void TSI_NAME(lu_apply_inverse)(const ts_lu *lu, const TSI_VALUE *values, ts_operation op, const TSI_WORK *rhs,
                                       TSI_WORK *x, TSI_WORK *y, tsi_lu_solve_norms *norms) {
  const int64_t n = lu->n;
  const int32_t *row_perm = lu->row_perm, *col_perm = lu->col_perm;
  const double *row_scale = lu->row_scale, *col_scale = lu->col_scale;
  if (op == TS_OP_NONE) {
    const int64_t dense_row = tsi_lu_dense_row_known(lu);
    if (norms) {
      /* |b| and |Dr b| as the residual would take them (its measures). */
      double b_norm = 0.0, b_scaled = 0.0;
      for (int64_t i = 0; i < n; i++) {
        const double scale = row_scale[row_perm[i]];
        const TSI_WORK b_i = rhs[row_perm[i]];
        const double b_abs = TSI_W_ABS(b_i);
        b_norm = tsi_lu_larger(b_norm, b_abs);
        b_scaled = tsi_lu_larger(b_scaled, b_abs * scale);
        y[i] = TSI_W_SCALE(scale, b_i);
      }
      norms->b_norm = b_norm;
      norms->b_scaled = b_scaled;
    } else {
      for (int64_t i = 0; i < n; i++)
        y[i] = TSI_W_SCALE(row_scale[row_perm[i]], rhs[row_perm[i]]);
    }
    if (lu->block_ptr) {
      const int64_t *block_ptr = lu->block_ptr;
      for (int64_t b = lu->btf_blocks - 1; b >= 0; b--) {
        const int64_t first = block_ptr[b], last = block_ptr[b + 1];
        if (last - first == 1) {
          /* A 1 x 1 block (a block triangular form can hold thousands):
           * L holds nothing in it, so the upper solve's one column alone. */
          TSI_NAME(lu_upper_solve)(lu, values, first, last, y);
          continue;
        }
        TSI_NAME(lu_lower_solve)(lu, values, first, last, dense_row, y);
        TSI_NAME(lu_upper_solve)(lu, values, first, last, y);
      }
    } else {
      TSI_NAME(lu_lower_solve)(lu, values, 0, n, dense_row, y);
      TSI_NAME(lu_upper_solve)(lu, values, 0, n, y);
    }
    if (norms) {
      /* |x| and |Dc^{-1} x| of x as stored, and whether it is finite. */
      double x_norm = 0.0, x_scaled = 0.0;
      bool finite = true;
      for (int64_t j = 0; j < n; j++) {
        const double scale = col_scale[col_perm[j]];
        const TSI_WORK x_j = TSI_W_SCALE(scale, y[j]);
        x[col_perm[j]] = x_j;
        finite &= TSI_W_ISFINITE(x_j);
        const double x_abs = TSI_W_ABS(x_j);
        x_norm = tsi_lu_larger(x_norm, x_abs);
        x_scaled = tsi_lu_larger_ratio(x_scaled, x_abs, scale);
      }
      *norms = (tsi_lu_solve_norms){true, finite, x_norm, x_scaled, norms->b_norm, norms->b_scaled};
    } else {
      for (int64_t j = 0; j < n; j++)
        x[col_perm[j]] = TSI_W_SCALE(col_scale[col_perm[j]], y[j]);
    }
  } else {
    const bool conjugate = op == TS_OP_CONJ_TRANSPOSE;
    for (int64_t j = 0; j < n; j++)
      y[j] = TSI_W_SCALE(col_scale[col_perm[j]], rhs[col_perm[j]]);
    if (lu->block_ptr) {
      for (int64_t b = 0; b < lu->btf_blocks; b++) {
        TSI_NAME(lu_upper_transpose_solve)(lu, values, conjugate, lu->block_ptr[b], lu->block_ptr[b + 1], y);
        TSI_NAME(lu_lower_transpose_solve)(lu, values, conjugate, lu->block_ptr[b], lu->block_ptr[b + 1], y);
      }
    } else {
      TSI_NAME(lu_upper_transpose_solve)(lu, values, conjugate, 0, n, y);
      TSI_NAME(lu_lower_transpose_solve)(lu, values, conjugate, 0, n, y);
    }
    for (int64_t i = 0; i < n; i++)
      x[row_perm[i]] = TSI_W_SCALE(row_scale[row_perm[i]], y[i]);
  }
}
