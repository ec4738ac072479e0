/* The value-dependent steps of the partial-pivoting fallback
 * (pivoted_cpu.c) for one kind of values: included with TSI_NAME and an
 * arithmetic set (lu/lu_arith_real.h or lu/lu_arith_complex.h, TSI_VALUE
 * being the working type here). Pivots are chosen by magnitude (the modulus
 * of complex values); the transposed solve conjugates the factors for A^H. */

/* The columns of P2 M = L U, left-looking, into l and u (values of the
 * working type) with U's diagonal apart; a column without a nonzero
 * candidate gets `replacement` (counted in *replaced, the first in
 * *first_replaced) or, with perturbation off, stops with the singular
 * status. x is n zero values of scratch. */
static ts_status TSI_NAME(pivoted_columns)(ts_lu *lu, const int64_t *m_ptr, const int32_t *m_row, const TSI_WORK *m_val,
                                           triangle *l, triangle *u, TSI_WORK *x, TSI_WORK *diagonal, int64_t *pinv,
                                           int64_t *row_of_position, int32_t *reach, int32_t *stack, int64_t *position,
                                           int32_t *mark, double replacement, int64_t *replaced,
                                           int64_t *first_replaced) {
  const int64_t n = lu->n;
  double last_check = tsi_seconds();
  ts_status st = TS_SUCCESS;
  for (int64_t k = 0; k < n; k++) {
    /* A chance to stop every few columns (a column can reach far). */
    if (k % TSI_LU_CPU_CHECK_COLUMNS == 0 && tsi_seconds() - last_check >= TSI_LU_CANCEL_CHECK_SECONDS) {
      last_check = tsi_seconds();
      if ((st = tsi_progress(lu->ctx, k, n)) != TS_SUCCESS)
        return st;
    }
    int64_t top = column_reach(n, m_ptr, m_row, k, pinv, l, reach, stack, position, mark, (int32_t)(k + 1));
    for (int64_t p = m_ptr[k]; p < m_ptr[k + 1]; p++)
      x[m_row[p]] = TSI_W_ADD(x[m_row[p]], m_val[p]);
    /* x = L^{-1} M(:, k) over the reach, in topological order. */
    const TSI_WORK *l_values = (const TSI_WORK *)l->values;
    for (int64_t t = top; t < n; t++) {
      int32_t i = reach[t];
      int64_t c = pinv[i];
      if (c < 0 || TSI_W_IS_ZERO(x[i]))
        continue;
      const TSI_WORK x_i = x[i];
      for (int64_t p = l->col_ptr[c]; p < l->col_ptr[c + 1]; p++)
        x[l->row_idx[p]] = TSI_W_MINUS_PRODUCT(x[l->row_idx[p]], l_values[p], x_i);
    }
    /* The pivot: M's diagonal row while it holds its own, else the largest. */
    int32_t best = -1;
    double largest = 0.0;
    for (int64_t t = top; t < n; t++) {
      int32_t i = reach[t];
      if (pinv[i] < 0 && TSI_W_ABS(x[i]) > largest) {
        largest = TSI_W_ABS(x[i]);
        best = i;
      }
    }
    if (pinv[k] < 0 && mark[k] == (int32_t)(k + 1) && TSI_W_ABS(x[k]) >= TSI_LU_PIVOTED_TOLERANCE * largest &&
        !TSI_W_IS_ZERO(x[k]))
      best = (int32_t)k;
    TSI_WORK pivot;
    if (best < 0 || largest == 0.0) {
      if (lu->options.no_perturbation) {
        lu->stats.singular_column = lu->col_perm[k];
        return tsi_error(lu->ctx, TS_ERROR_NUMERICALLY_SINGULAR,
                         "LU partial-pivoting fallback: column %lld (from 0) has no nonzero pivot under partial "
                         "pivoting: the matrix is numerically singular",
                         (long long)lu->col_perm[k]);
      }
      /* No candidate row left in the reach: take the first unpivoted row. */
      if (best < 0)
        for (int64_t t = top; t < n && best < 0; t++)
          if (pinv[reach[t]] < 0)
            best = reach[t];
      if (best < 0)
        for (int64_t i = 0; i < n && best < 0; i++)
          if (pinv[i] < 0)
            best = (int32_t)i;
      pivot = TSI_W_PERTURBED(TSI_W_ZERO, replacement);
      if ((*replaced)++ == 0)
        *first_replaced = k;
    } else {
      pivot = x[best];
    }
    pinv[best] = k;
    row_of_position[k] = best;
    diagonal[k] = pivot;
    if (!reserve(u, n - top) || !reserve(l, n - top) || !u->row_idx || !l->row_idx)
      return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                       "LU partial-pivoting fallback: no memory for the pivoted factors at column %lld", (long long)k);
    TSI_WORK *u_out = (TSI_WORK *)u->values, *l_out = (TSI_WORK *)l->values;
    for (int64_t t = top; t < n; t++) {
      int32_t i = reach[t];
      if (i != best && pinv[i] >= 0 && !TSI_W_IS_ZERO(x[i])) {
        u->row_idx[u->used] = (int32_t)pinv[i];
        u_out[u->used++] = x[i];
      } else if (pinv[i] < 0 && !TSI_W_IS_ZERO(x[i])) {
        l->row_idx[l->used] = i;
        l_out[l->used++] = TSI_W_DIV(x[i], pivot);
      }
      x[i] = TSI_W_ZERO;
    }
    x[best] = TSI_W_ZERO;
    u->col_ptr[k + 1] = u->used;
    l->col_ptr[k + 1] = l->used;
  }
  return TS_SUCCESS;
}

/* y (M's rows) -> M^{-1} y (M's columns), through P2 M = L U. */
static void TSI_NAME(solve_m)(const tsi_lu_pivoted *f, int64_t n, TSI_WORK *y, TSI_WORK *z) {
  const TSI_WORK *l_values = (const TSI_WORK *)f->l_values, *u_values = (const TSI_WORK *)f->u_values;
  const TSI_WORK *u_diagonal = (const TSI_WORK *)f->u_diagonal;
  for (int64_t c = 0; c < n; c++) { /* L, rows of M */
    const TSI_WORK y_c = y[f->row_of_position[c]];
    z[c] = y_c;
    if (TSI_W_IS_ZERO(y_c))
      continue;
    for (int64_t p = f->l_col_ptr[c]; p < f->l_col_ptr[c + 1]; p++)
      y[f->l_row_idx[p]] = TSI_W_MINUS_PRODUCT(y[f->l_row_idx[p]], l_values[p], y_c);
  }
  for (int64_t k = n - 1; k >= 0; k--) { /* U, positions */
    const TSI_WORK z_k = TSI_W_DIV(z[k], u_diagonal[k]);
    z[k] = z_k;
    if (TSI_W_IS_ZERO(z_k))
      continue;
    for (int64_t p = f->u_col_ptr[k]; p < f->u_col_ptr[k + 1]; p++)
      z[f->u_row_idx[p]] = TSI_W_MINUS_PRODUCT(z[f->u_row_idx[p]], u_values[p], z_k);
  }
}

/* y (M's columns) -> M^{-T} y (M^{-H} y with conjugate; M's rows): U^T w = y,
 * L^T v = w, x = P2^T v. */
static void TSI_NAME(solve_m_transpose)(const tsi_lu_pivoted *f, int64_t n, bool conjugate, TSI_WORK *y, TSI_WORK *z) {
  const TSI_WORK *l_values = (const TSI_WORK *)f->l_values, *u_values = (const TSI_WORK *)f->u_values;
  const TSI_WORK *u_diagonal = (const TSI_WORK *)f->u_diagonal;
  (void)conjugate;
  for (int64_t k = 0; k < n; k++) {
    TSI_WORK sum = y[k];
    for (int64_t p = f->u_col_ptr[k]; p < f->u_col_ptr[k + 1]; p++)
      sum = TSI_W_MINUS_PRODUCT(sum, TSI_W_CONJ_IF(u_values[p], conjugate), y[f->u_row_idx[p]]);
    y[k] = TSI_W_DIV(sum, TSI_W_CONJ_IF(u_diagonal[k], conjugate));
  }
  for (int64_t c = n - 1; c >= 0; c--) {
    TSI_WORK sum = y[c];
    for (int64_t p = f->l_col_ptr[c]; p < f->l_col_ptr[c + 1]; p++)
      sum = TSI_W_MINUS_PRODUCT(sum, TSI_W_CONJ_IF(l_values[p], conjugate), y[f->pinv[f->l_row_idx[p]]]);
    y[c] = sum;
  }
  for (int64_t i = 0; i < n; i++)
    z[i] = y[f->pinv[i]];
}

static void TSI_NAME(pivoted_apply)(const ts_lu *lu, ts_operation op, const TSI_WORK *rhs, TSI_WORK *x, TSI_WORK *y) {
  const int64_t n = lu->n;
  TSI_WORK *z = (TSI_WORK *)lu->pivoted->scratch;
  const int32_t *row_perm = lu->row_perm, *col_perm = lu->col_perm;
  const double *row_scale = lu->row_scale, *col_scale = lu->col_scale;
  if (op == TS_OP_NONE) {
    for (int64_t i = 0; i < n; i++)
      y[i] = TSI_W_SCALE(row_scale[row_perm[i]], rhs[row_perm[i]]);
    TSI_NAME(solve_m)(lu->pivoted, n, y, z);
    for (int64_t j = 0; j < n; j++)
      x[col_perm[j]] = TSI_W_SCALE(col_scale[col_perm[j]], z[j]);
  } else {
    for (int64_t j = 0; j < n; j++)
      y[j] = TSI_W_SCALE(col_scale[col_perm[j]], rhs[col_perm[j]]);
    TSI_NAME(solve_m_transpose)(lu->pivoted, n, op == TS_OP_CONJ_TRANSPOSE, y, z);
    for (int64_t i = 0; i < n; i++)
      x[row_perm[i]] = TSI_W_SCALE(row_scale[row_perm[i]], z[i]);
  }
}
