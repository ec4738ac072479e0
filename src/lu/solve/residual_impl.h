/* r = b - op(A) x from the values last factored and its measures
 * (tsi_lu_residual), for one kind of values: included by refine.c with
 * TSI_NAME and an arithmetic set (lu/lu_arith_real.h, lu/lu_arith_complex.h);
 * vectors of the working type, magnitudes and norms in double (moduli for
 * complex values). op may be A^H for complex values (the values conjugated). */

/* Row i's r_i = b_i - (A x)_i, in A's order, and the sum of its terms'
 * magnitudes with |b_i| (the componentwise measure's denominator). */
static inline TSI_WORK TSI_NAME(residual_row)(const int64_t *row_ptr, const int32_t *col_idx, const TSI_WORK *a,
                                              const TSI_WORK *b, const TSI_WORK *x, int64_t i, double *magnitude) {
  TSI_WORK sum = b[i];
  double row_magnitude = TSI_W_ABS(b[i]);
  for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
    const TSI_WORK term = TSI_W_MUL(a[e], x[col_idx[e]]);
    sum = TSI_W_SUB(sum, term);
    row_magnitude += TSI_W_ABS(term);
  }
  *magnitude = row_magnitude;
  return sum;
}

/* Rows [begin, end) of r = b - A x, and their share of the measures folded
 * into *part. Each r_i is one row's sum in A's order (the GPU batch's
 * residual sums in the same order) and the measures are maxima, so slicing
 * the rows changes no bit. */
static void TSI_NAME(residual_rows)(const ts_lu *lu, const TSI_WORK *b, const TSI_WORK *x, TSI_WORK *r,
                                    double *magnitude, const double *residual_scale, const double *solution_scale,
                                    bool norms_known, int64_t begin, int64_t end, tsi_lu_residual_part *part) {
  const int64_t n = lu->n;
  const int64_t *row_ptr = lu->a_row_ptr;
  const int32_t *col_idx = lu->a_col_idx;
  const TSI_WORK *a = (const TSI_WORK *)lu->a_values;
  double x_norm = part->x_norm, b_norm = part->b_norm, x_scaled = part->x_scaled, b_scaled = part->b_scaled;
  double r_norm = part->r_norm, r_scaled = part->r_scaled, componentwise = part->componentwise;
  int finite = part->finite;
  if (norms_known) {
    /* The norms of x and b came with the solve: r's measures alone, taken
     * as each row's sum is done (no second pass over r and the
     * magnitudes). */
    for (int64_t i = begin; i < end; i++) {
      double row_magnitude;
      const TSI_WORK sum = TSI_NAME(residual_row)(row_ptr, col_idx, a, b, x, i, &row_magnitude);
      r[i] = sum;
      const double r_i = TSI_W_ABS(sum);
      r_norm = tsi_lu_larger(r_norm, r_i);
      r_scaled = tsi_lu_larger(r_scaled, r_i * residual_scale[i]);
      componentwise = larger_share(componentwise, r_i, row_magnitude, n);
    }
    *part = (tsi_lu_residual_part){x_norm, b_norm, x_scaled, b_scaled, r_norm, r_scaled, componentwise, finite};
    return;
  }
  /* The sums first, row by row, then the measures in a loop of their own:
   * short rows (a netlist's five entries) left the measures' compares and
   * branches between every two sums. */
  for (int64_t i = begin; i < end; i++)
    r[i] = TSI_NAME(residual_row)(row_ptr, col_idx, a, b, x, i, &magnitude[i]);
  for (int64_t i = begin; i < end; i++) {
    finite = finite && TSI_W_ISFINITE(x[i]);
    const double x_abs = TSI_W_ABS(x[i]), b_abs = TSI_W_ABS(b[i]); /* the scales are positive */
    x_norm = tsi_lu_larger(x_norm, x_abs);
    b_norm = tsi_lu_larger(b_norm, b_abs);
    x_scaled = tsi_lu_larger_ratio(x_scaled, x_abs, solution_scale[i]);
    b_scaled = tsi_lu_larger(b_scaled, b_abs * residual_scale[i]);
    const double r_i = TSI_W_ABS(r[i]);
    r_norm = tsi_lu_larger(r_norm, r_i);
    r_scaled = tsi_lu_larger(r_scaled, r_i * residual_scale[i]);
    componentwise = larger_share(componentwise, r_i, magnitude[i], n);
  }
  *part = (tsi_lu_residual_part){x_norm, b_norm, x_scaled, b_scaled, r_norm, r_scaled, componentwise, finite};
}

static void TSI_NAME(residual)(const ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const TSI_WORK *b,
                               const TSI_WORK *x, const tsi_lu_solve_norms *norms, TSI_WORK *r, double *magnitude,
                               tsi_lu_residual_measures *measures) {
  const int64_t n = lu->n;
  const int64_t *row_ptr = lu->a_row_ptr;
  const int32_t *col_idx = lu->a_col_idx;
  const TSI_WORK *a = (const TSI_WORK *)lu->a_values;
  const bool conjugate = op == TS_OP_CONJ_TRANSPOSE;
  (void)conjugate;
  /* A x = b scales r and b by Dr and x by Dc^{-1}; A^T x = b the reverse. */
  const double *residual_scale = op == TS_OP_NONE ? lu->row_scale : lu->col_scale;
  const double *solution_scale = op == TS_OP_NONE ? lu->col_scale : lu->row_scale;
  const int threads = residual_threads(lu);
  double x_norm = 0.0, b_norm = 0.0, r_norm = 0.0, x_scaled = 0.0, b_scaled = 0.0, r_scaled = 0.0;
  double componentwise = 0.0;
  int finite = 1;
  if (op == TS_OP_NONE) {
    /* Row i's residual with the norms of x_i and b_i (unless the solve
     * took those), in row slices, one per thread (no parallel region on
     * one thread). */
    const bool known = norms && norms->known;
    tsi_lu_residual_part total = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1};
    if (known) {
      total.x_norm = norms->x_norm;
      total.b_norm = norms->b_norm;
      total.x_scaled = norms->x_scaled;
      total.b_scaled = norms->b_scaled;
      total.finite = norms->finite;
    }
    if (threads <= 1) {
      TSI_NAME(residual_rows)(lu, b, x, r, magnitude, residual_scale, solution_scale, known, 0, n, &total);
    } else {
#pragma omp parallel for num_threads(threads) schedule(static, 1)
      for (int s = 0; s < threads; s++) {
        tsi_lu_residual_part part = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1};
        TSI_NAME(residual_rows)
        (lu, b, x, r, magnitude, residual_scale, solution_scale, known, n * s / threads, n * (s + 1) / threads, &part);
#pragma omp critical(tsi_lu_residual_merge)
        tsi_lu_residual_merge(&total, &part);
      }
    }
    x_norm = total.x_norm;
    b_norm = total.b_norm;
    x_scaled = total.x_scaled;
    b_scaled = total.b_scaled;
    r_norm = total.r_norm;
    r_scaled = total.r_scaled;
    componentwise = total.componentwise;
    finite = total.finite;
    if (!finite) {
      measures->normwise = measures->scaled = measures->componentwise = INFINITY;
      measures->residual_norm = measures->solution_norm = INFINITY;
      return;
    }
  } else {
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : x_norm, b_norm, x_scaled, b_scaled)   \
    reduction(&& : finite) if (threads > 1)
    for (int64_t i = 0; i < n; i++) {
      finite = finite && TSI_W_ISFINITE(x[i]);
      const double x_i = TSI_W_ABS(x[i]), b_i = TSI_W_ABS(b[i]); /* the scales are positive */
      x_norm = tsi_lu_larger(x_norm, x_i);
      b_norm = tsi_lu_larger(b_norm, b_i);
      x_scaled = tsi_lu_larger(x_scaled, x_i / solution_scale[i]);
      b_scaled = tsi_lu_larger(b_scaled, b_i * residual_scale[i]);
    }
    if (!finite) {
      measures->normwise = measures->scaled = measures->componentwise = INFINITY;
      measures->residual_norm = measures->solution_norm = INFINITY;
      return;
    }
    /* magnitude gathers (|A^T| |x| + |b|)_j. */
    memcpy(r, b, (size_t)n * sizeof *r);
    for (int64_t j = 0; j < n; j++)
      magnitude[j] = TSI_W_ABS(b[j]);
    for (int64_t i = 0; i < n; i++) {
      const TSI_WORK x_i = x[i];
      for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
        const TSI_WORK term = TSI_W_MUL(TSI_W_CONJ_IF(a[e], conjugate), x_i);
        r[col_idx[e]] = TSI_W_SUB(r[col_idx[e]], term);
        magnitude[col_idx[e]] += TSI_W_ABS(term);
      }
    }
    for (int64_t j = 0; j < n; j++) {
      const double r_j = TSI_W_ABS(r[j]);
      r_norm = tsi_lu_larger(r_norm, r_j);
      r_scaled = tsi_lu_larger(r_scaled, r_j * residual_scale[j]);
      componentwise = tsi_lu_larger(componentwise, componentwise_share(r_j, magnitude[j], n));
    }
  }
  const bool r_finite = isfinite(r_norm);
  measures->normwise = r_finite ? backward_error(r_norm, setup->a_norm, x_norm, b_norm) : INFINITY;
  measures->scaled = r_finite ? backward_error(r_scaled, setup->m_norm, x_scaled, b_scaled) : INFINITY;
  measures->componentwise = r_finite && isfinite(componentwise) ? componentwise : INFINITY;
  measures->residual_norm = r_finite ? r_norm : INFINITY;
  measures->solution_norm = x_norm;
}
