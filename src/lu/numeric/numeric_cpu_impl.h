/* Numeric LU of M = P Dr A Dc Q on the host, for one factor value type:
 * M is scattered into the symbolic L+U pattern, then the columns are
 * factored in the levels' order: level by level on one thread, as a
 * dataflow on several. Included by numeric_cpu.c with TSI_VALUE (the type
 * the factors are stored in: float, double, or complex of either),
 * TSI_NAME (a suffix for the function names), and the arithmetic of the
 * working type TSI_WORK (double, or complex double), which every step uses;
 * factors of a single-precision type are rounded as each column is stored.
 * The values come from A in one pass that also copies and checks them:
 *   TSI_W_SINGLE, TSI_W_SINGLE_DTYPE   A's single-precision value type
 *   TSI_WIDEN(v), TSI_NARROW(w)     stored value <-> working value
 *   TSI_W_ZERO, TSI_W_IS_ZERO(w)
 *   TSI_W_MINUS_PRODUCT(x, l, u)    x - l * u
 *   TSI_W_MINUS_MULTIPLE(x, rows, l, begin, end, u)
 *                                   x[rows[q]] -= l[q] * u, q in [begin, end)
 *   TSI_W_SCALED(s, w, t)           s * w * t, s and t real (the scaling)
 *   TSI_W_ABS(w), TSI_W_ISFINITE(w), TSI_W_ABS_BELOW(w, t)   |w| < t
 *   TSI_W_PERTURBED(w, r)           w's sign (its direction) times r, + for 0
 *   TSI_W_DIVIDER(p), TSI_W_DIVIDE(w, d)   w / p as w op d, d made once a column
 *   TSI_MAX_ABS(max, w)             max = max(max, |w|)
 *   TSI_FLOPS_UPDATE, TSI_FLOPS_DIVIDE     real operations of one x - l*u, one w / p */

/* The positions of L + U that no entry of A fills set to zero: by their
 * list where it is short, else all of L + U. */
static void TSI_NAME(lu_zero_fill)(const ts_lu *lu, const tsi_lu_numeric_workspace *ws, TSI_VALUE *values) {
  if (ws->fill_listed) {
    /* The list's pointer and length in locals: the stores through values
     * could otherwise alias them and reload both every entry. */
    const int64_t *fill_pos = ws->fill_pos, fill_count = ws->fill_count;
    for (int64_t f = 0; f < fill_count; f++)
      memset(&values[fill_pos[f]], 0, sizeof *values);
  } else
    memset(values, 0, (size_t)lu->lu_nnz * sizeof *values);
}

/* Rows [begin, end) of the pass over A (lu_load_values): their values into
 * lu->a_values (double, or (re, im) pairs of double), checked finite, their
 * row sums of |A| and of |M| (before the permutations) and M's values into
 * the L+U pattern, folded into *part. A's values are read in single or
 * double precision (TSI_W_SINGLE, or TSI_WORK), whichever a holds. */
static void TSI_NAME(lu_load_rows)(ts_lu *lu, const ts_csr *a, TSI_VALUE *values, int64_t begin, int64_t end,
                                   tsi_lu_load_part *part) {
  const int64_t *row_ptr = lu->a_row_ptr;
  const int32_t *col_idx = lu->a_col_idx;
  const int64_t *a_to_lu = lu->a_to_lu;
  const double *row_scale = lu->row_scale;
  const double *col_scale = lu->col_scale;
  const bool single = a->dtype == TSI_W_SINGLE_DTYPE;
  const TSI_W_SINGLE *given_single = (const TSI_W_SINGLE *)a->values;
  const TSI_WORK *given_double = (const TSI_WORK *)a->values;
  TSI_WORK *a_values = (TSI_WORK *)lu->a_values;
  double max_abs = part->max_m, norm = part->norm, m_norm = part->m_norm;
  int64_t first_bad = part->first_bad;
  for (int64_t i = begin; i < end; i++) {
    const double scale_i = row_scale[i];
    double row_sum = 0.0, scaled_sum = 0.0;
    for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
      const TSI_WORK given = single ? TSI_WIDEN(given_single[e]) : given_double[e];
      a_values[e] = given;
      if (!TSI_W_ISFINITE(given) && e < first_bad)
        first_bad = e;
      /* |a| c_j is |a c_j| (the scales are positive): one magnitude per entry. */
      const double magnitude = TSI_W_ABS(given), col = col_scale[col_idx[e]];
      row_sum += magnitude;
      scaled_sum += magnitude * col;
      const TSI_WORK v = TSI_W_SCALED(scale_i, given, col);
      values[a_to_lu[e]] = TSI_NARROW(v);
      TSI_MAX_ABS(max_abs, v);
    }
    norm = row_sum > norm ? row_sum : norm;
    scaled_sum *= scale_i;
    m_norm = scaled_sum > m_norm ? scaled_sum : m_norm;
  }
  part->max_m = max_abs;
  part->norm = norm;
  part->m_norm = m_norm;
  part->first_bad = first_bad;
}

/* One pass over A: its values into lu->a_values (for the refinement's
 * residual), checked finite; |A|_inf, the largest row sum of |A|, and
 * |M|_inf; and M's values into the L+U pattern (fill entries zeroed first,
 * by their list where it is short), with their largest magnitude. Each entry
 * of A has its own position in L+U, so the rows are independent; each
 * row's sum is in a fixed order and the rest are maxima and a minimum, so
 * no bit depends on the threads. One thread runs no parallel region.
 * Returns the first entry that is not finite, or nnz(A). */
static int64_t TSI_NAME(lu_load_values)(ts_lu *lu, const ts_csr *a, const tsi_lu_numeric_workspace *ws,
                                        TSI_VALUE *values, int threads, tsi_lu_load_part *found) {
  const int64_t n = lu->n;
  TSI_NAME(lu_zero_fill)(lu, ws, values);
  tsi_lu_load_part total = {0.0, 0.0, 0.0, lu->nnz_a};
  if (threads <= 1) {
    TSI_NAME(lu_load_rows)(lu, a, values, 0, n, &total);
  } else {
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int s = 0; s < threads; s++) {
      tsi_lu_load_part part = {0.0, 0.0, 0.0, lu->nnz_a};
      TSI_NAME(lu_load_rows)(lu, a, values, n * s / threads, n * (s + 1) / threads, &part);
#pragma omp critical(tsi_lu_load_merge)
      tsi_lu_load_merge(&total, &part);
    }
  }
  *found = total;
  return total.first_bad;
}

/* The pivot as the factors keep it, its verdict in outcome->kind: not
 * finite, or below the rule's tiny value and then perturbed (static
 * pivoting, Li and Demmel, SuperLU_DIST: the sign kept, + for 0) or
 * singular. */
static inline TSI_WORK TSI_NAME(lu_checked_pivot)(TSI_WORK pivot, const tsi_lu_pivot_rule *rule,
                                                  tsi_lu_column_outcome *outcome) {
  outcome->kind = TSI_LU_PIVOT_OK;
  if (!TSI_W_ISFINITE(pivot)) {
    outcome->kind = TSI_LU_PIVOT_NOT_FINITE;
  } else if (TSI_W_ABS_BELOW(pivot, rule->tiny) || TSI_W_IS_ZERO(pivot)) {
    if (rule->perturb) {
      pivot = TSI_W_PERTURBED(pivot, rule->replacement);
      outcome->kind = TSI_LU_PIVOT_PERTURBED;
    } else {
      outcome->kind = TSI_LU_PIVOT_SINGULAR;
    }
  }
  return pivot;
}

/*
 * The updates of x by the m chained columns j..j+m-1 of L (tsi_lu_chain_runs),
 * all of them rows of U(:, k): the same operations as column by column, in
 * the same order for every entry (so the same bits), grouped. Each column's
 * rows inside the group (j+t+1..j+m-1, its first m-1-t entries) are updated
 * first, column after column, which makes each multiplier x(j+t) final in
 * turn; then the rows below the group, which all m columns share in the same
 * order, each loaded once and updated by the group's columns in turn. A zero
 * multiplier skips its column, as the column loop does; the dataflow waits
 * come in the same order too. *held (the dense row, held_row >= 0) is the
 * shared rows' last when it is among them. Returns false when a wait saw a
 * stop before this level (the caller abandons the column).
 */
static TSI_LU_GROUP_CALL bool TSI_NAME(lu_subtract_group)(const ts_lu *lu, const TSI_VALUE *values, int64_t j,
                                                          int64_t m, TSI_WORK *x, int *ready, const int64_t *stop_level,
                                                          int64_t level, int64_t held_row, TSI_WORK *held,
                                                          int64_t *flops) {
  const int64_t *col_ptr = lu->lu_col_ptr;
  const int32_t *row_idx = lu->lu_row_idx;
  const int64_t *diag_pos = lu->diag_pos;
  TSI_WORK multiplier[TSI_LU_CPU_GROUP_MAX];
  const TSI_VALUE *shared_values[TSI_LU_CPU_GROUP_MAX];
  int used = 0;
  for (int64_t t = 0; t < m; t++) {
    const int64_t c = j + t, first = diag_pos[c] + 1, inside = m - 1 - t;
    *flops += TSI_FLOPS_UPDATE * (col_ptr[c + 1] - first);
    const TSI_WORK u = x[c];
    if (TSI_W_IS_ZERO(u))
      continue;
    if (ready && !tsi_lu_wait_ready(ready, c, stop_level, level))
      return false;
    for (int64_t q = first; q < first + inside; q++)
      x[row_idx[q]] = TSI_W_MINUS_PRODUCT(x[row_idx[q]], TSI_WIDEN(values[q]), u);
    multiplier[used] = u;
    shared_values[used++] = values + first + inside;
  }
  const int64_t last = j + m - 1, shared_first = diag_pos[last] + 1;
  const int32_t *rows = row_idx + shared_first;
  int64_t count = col_ptr[last + 1] - shared_first;
  if (held_row >= 0 && count > 0 && rows[count - 1] == held_row) {
    count--;
    for (int s = 0; s < used; s++) {
      const TSI_WORK l = TSI_WIDEN(shared_values[s][count]);
      *held = TSI_W_MINUS_PRODUCT(*held, l, multiplier[s]);
    }
  }
  int64_t q = 0;
#ifdef TSI_GROUP_PAIRS
  /* Double factors: eight rows a step in pairs of doubles (SSE2, any
   * x86-64; element by element the same multiplication and subtraction),
   * four independent chains of subtractions. */
  typedef double two_doubles __attribute__((vector_size(16)));
  for (; q + 8 <= count; q += 8) {
    const int32_t *r = rows + q;
    two_doubles x01 = {x[r[0]], x[r[1]]}, x23 = {x[r[2]], x[r[3]]}, x45 = {x[r[4]], x[r[5]]}, x67 = {x[r[6]], x[r[7]]};
    for (int s = 0; s < used; s++) {
      const double *l = shared_values[s] + q;
      const two_doubles u = {multiplier[s], multiplier[s]};
      two_doubles l01, l23, l45, l67;
      memcpy(&l01, l, sizeof l01);
      memcpy(&l23, l + 2, sizeof l23);
      memcpy(&l45, l + 4, sizeof l45);
      memcpy(&l67, l + 6, sizeof l67);
      x01 = x01 - l01 * u;
      x23 = x23 - l23 * u;
      x45 = x45 - l45 * u;
      x67 = x67 - l67 * u;
    }
    x[r[0]] = x01[0];
    x[r[1]] = x01[1];
    x[r[2]] = x23[0];
    x[r[3]] = x23[1];
    x[r[4]] = x45[0];
    x[r[5]] = x45[1];
    x[r[6]] = x67[0];
    x[r[7]] = x67[1];
  }
#endif
  for (; q + 4 <= count; q += 4) {
    const int32_t r0 = rows[q], r1 = rows[q + 1], r2 = rows[q + 2], r3 = rows[q + 3];
    TSI_WORK x0 = x[r0], x1 = x[r1], x2 = x[r2], x3 = x[r3];
    for (int s = 0; s < used; s++) {
      const TSI_VALUE *l = shared_values[s] + q;
      const TSI_WORK u = multiplier[s];
      x0 = TSI_W_MINUS_PRODUCT(x0, TSI_WIDEN(l[0]), u);
      x1 = TSI_W_MINUS_PRODUCT(x1, TSI_WIDEN(l[1]), u);
      x2 = TSI_W_MINUS_PRODUCT(x2, TSI_WIDEN(l[2]), u);
      x3 = TSI_W_MINUS_PRODUCT(x3, TSI_WIDEN(l[3]), u);
    }
    x[r0] = x0;
    x[r1] = x1;
    x[r2] = x2;
    x[r3] = x3;
  }
  for (int64_t r = q; r < count; r++) {
    TSI_WORK xr = x[rows[r]];
    for (int s = 0; s < used; s++) {
      const TSI_WORK l = TSI_WIDEN(shared_values[s][r]);
      xr = TSI_W_MINUS_PRODUCT(xr, l, multiplier[s]);
    }
    x[rows[r]] = xr;
  }
  return true;
}

/*
 * Column k of L and U, left-looking (Gilbert and Peierls 1988, with the
 * pattern known from the symbolic phase): x = M(:, k); for each row j of
 * U(:, k) in increasing order, x(j) is final and x -= L(:, j) * x(j); then
 * U(:, k) = x(rows <= k) and L(:, k) = x(rows > k) / x(k). Every column j
 * read here lies in an earlier level, so columns of one level run in any
 * order on any thread with the same result. x is zero on entry and exit.
 * With the diagonal blocks factored alone (lu->block_begin), the column is
 * its block's part only: the updates by columns of earlier blocks, which
 * would form L_jj^-1 A_jk above the block, are not made.
 * outcome->max_l and max_u hold the largest |L| and |U| seen so far (the
 * thread's) on entry and fold in the column's on exit: with the running
 * maximum as the start, the complex bound test of TSI_MAX_ABS skips the
 * modulus of most entries (a maximum taken anew per column computes it for
 * nearly every entry of a short column).
 * dense_row is rule->dense_row or -1: the callers pass a constant -1 where
 * no row is held, so that the kernel has no test for it.
 */
static TSI_LU_COLUMN_INLINE void TSI_NAME(lu_factor_column)(const ts_lu *lu, TSI_VALUE *values, int64_t k,
                                                            int64_t level, TSI_WORK *x, const tsi_lu_pivot_rule *rule,
                                                            int64_t dense_row, const uint8_t *chain_run, int *ready,
                                                            const int64_t *stop_level, tsi_lu_column_outcome *outcome) {
  const int64_t *col_ptr = lu->lu_col_ptr;
  const int32_t *row_idx = lu->lu_row_idx;
  const int64_t *diag_pos = lu->diag_pos;
  /* In block form the column starts at its own block: the entries above it
   * are M's off-diagonal blocks, loaded with M and never updated. */
  const int64_t begin = lu->block_begin ? lu->block_begin[k] : col_ptr[k], diag = diag_pos[k], end = col_ptr[k + 1];
  int64_t flops = 0;
  double max_l = outcome->max_l, max_u = outcome->max_u; /* largest |L| and |U| as stored, for the pivot check */

  /* A column alone in its block (most of a block form's 1 x 1 blocks):
   * nothing updates its pivot and nothing is divided by it, so the pivot is
   * M's entry as loaded and x stays untouched: the same values and verdict
   * as the loop below, without its stores to x and loads back. */
  if (begin == diag && end == diag + 1) {
    const TSI_WORK pivot = TSI_NAME(lu_checked_pivot)(TSI_WIDEN(values[diag]), rule, outcome);
    values[diag] = TSI_NARROW(pivot);
    TSI_MAX_ABS(max_u, TSI_WIDEN(values[diag]));
    outcome->pivot_magnitude = TSI_W_ABS(TSI_WIDEN(values[diag]));
    outcome->flops = 0;
    outcome->max_u = max_u;
    return;
  }

  for (int64_t p = begin; p < end; p++)
    x[row_idx[p]] = TSI_WIDEN(values[p]);
  /* The dense row (tsi_lu_dense_row: the last entry of every column of L
   * it is in) held in a register while the columns j < k update it, in the
   * same order as in memory: its updates would otherwise wait for each
   * other through a store and a load. Only rows at or below k are updated. */
  const int64_t held_row = dense_row >= 0 && dense_row >= k ? dense_row : -1;
  TSI_WORK held = held_row >= 0 ? x[held_row] : TSI_W_ZERO;
  for (int64_t p = begin; p < diag; p++) {
    const int64_t j = row_idx[p];
    /* U(j + 1, k) next is the cheap test (the row list is being read
     * anyway), then whether the columns chain. */
    if (chain_run && p + 1 < diag && row_idx[p + 1] == j + 1 && chain_run[j] >= TSI_LU_CPU_GROUP_MIN) {
      const int64_t m = tsi_lu_group_size(col_ptr, diag_pos, row_idx, chain_run, p, diag, j);
      if (m > 1) {
        /* Copies of the held value and the count: the column loop's own stay in registers. */
        TSI_WORK group_held = held;
        int64_t group_flops = 0;
        const bool done = TSI_NAME(lu_subtract_group)(lu, values, j, m, x, ready, stop_level, level, held_row,
                                                      &group_held, &group_flops);
        held = group_held;
        flops += group_flops;
        if (!done) {
          for (int64_t q = begin; q < end; q++)
            x[row_idx[q]] = TSI_W_ZERO;
          outcome->kind = TSI_LU_PIVOT_OK;
          outcome->flops = flops;
          return;
        }
        p += m - 1;
        continue;
      }
    }
    const TSI_WORK u_jk = x[j];
    int64_t l_begin = diag_pos[j] + 1, l_end = col_ptr[j + 1];
    flops += TSI_FLOPS_UPDATE * (l_end - l_begin);
    if (TSI_W_IS_ZERO(u_jk))
      continue; /* an explicit zero or a cancellation: nothing to subtract */
    /* The dataflow schedule: L(:, j) from another thread. A stop before
     * this level abandons the column (x cleared over its pattern). */
    if (ready && !tsi_lu_wait_ready(ready, j, stop_level, level)) {
      for (int64_t q = begin; q < end; q++)
        x[row_idx[q]] = TSI_W_ZERO;
      outcome->kind = TSI_LU_PIVOT_OK;
      outcome->flops = flops;
      return;
    }
    if (held_row >= 0 && l_end > l_begin && row_idx[l_end - 1] == held_row) {
      l_end--;
      held = TSI_W_MINUS_PRODUCT(held, TSI_WIDEN(values[l_end]), u_jk);
    }
    TSI_W_MINUS_MULTIPLE(x, row_idx, values, l_begin, l_end, u_jk);
  }
  if (held_row >= 0)
    x[held_row] = held; /* 0 as on entry where the row is not in the column */

  const TSI_WORK pivot = TSI_NAME(lu_checked_pivot)(x[k], rule, outcome);

  for (int64_t p = begin; p < diag; p++) {
    const int32_t i = row_idx[p];
    const TSI_VALUE u = TSI_NARROW(x[i]);
    values[p] = u;
    TSI_MAX_ABS(max_u, TSI_WIDEN(u));
    x[i] = TSI_W_ZERO;
  }
  values[diag] = TSI_NARROW(pivot);
  TSI_MAX_ABS(max_u, TSI_WIDEN(values[diag]));
  outcome->pivot_magnitude = TSI_W_ABS(TSI_WIDEN(TSI_NARROW(pivot))); /* as stored */
  x[k] = TSI_W_ZERO;
  const TSI_WORK divider = TSI_W_DIVIDER(pivot);
  /* Where columns group (the denser factors), two entries a step with a
   * maximum each: the divisions overlap, and the maxima (exact, so in any
   * order the same) wait on no store. Elsewhere one at a time: most
   * columns of L are short there, and the pairs' set-up cost more. */
  int64_t p = diag + 1;
  if (chain_run) {
    double max_l_odd = max_l;
    for (; p + 2 <= end; p += 2) {
      const int32_t i0 = row_idx[p], i1 = row_idx[p + 1];
      const TSI_VALUE l0 = TSI_NARROW(TSI_W_DIVIDE(x[i0], divider)), l1 = TSI_NARROW(TSI_W_DIVIDE(x[i1], divider));
      values[p] = l0;
      values[p + 1] = l1;
      TSI_MAX_ABS(max_l, TSI_WIDEN(l0));
      TSI_MAX_ABS(max_l_odd, TSI_WIDEN(l1));
      x[i0] = TSI_W_ZERO;
      x[i1] = TSI_W_ZERO;
    }
    max_l = max_l_odd > max_l ? max_l_odd : max_l;
  }
  for (int64_t e = p; e < end; e++) {
    const int32_t i = row_idx[e];
    const TSI_VALUE l = TSI_NARROW(TSI_W_DIVIDE(x[i], divider));
    values[e] = l;
    TSI_MAX_ABS(max_l, TSI_WIDEN(l));
    x[i] = TSI_W_ZERO;
  }
  flops += TSI_FLOPS_DIVIDE * (end - diag - 1);
  outcome->flops = flops;
  outcome->max_l = max_l;
  outcome->max_u = max_u;
}

/* Column k of level `level`, counted in the thread's tally, a bad pivot
 * recorded when it is the first in (level, column) order. Inlined too: a
 * call per column, with the tally in memory, was a visible share of the
 * refactorization of matrices whose columns are short. */
static TSI_LU_COLUMN_INLINE double TSI_NAME(lu_factor_counted)(const ts_lu *lu, TSI_VALUE *values, int64_t level,
                                                               int64_t k, TSI_WORK *x, const tsi_lu_pivot_rule *rule,
                                                               int64_t dense_row, const uint8_t *chain_run, int *ready,
                                                               tsi_lu_tally *tally, int64_t *bad_level,
                                                               int64_t *bad_column, int *bad_kind) {
  tsi_lu_column_outcome outcome = {TSI_LU_PIVOT_OK, 0, tally->max_l, tally->max_u, (double)INFINITY};
  TSI_NAME(lu_factor_column)(lu, values, k, level, x, rule, dense_row, chain_run, ready, bad_level, &outcome);
  tally->flops += outcome.flops;
  tally->max_l = outcome.max_l;
  tally->max_u = outcome.max_u;
  if (outcome.kind == TSI_LU_PIVOT_PERTURBED) {
    tally->perturbed++;
    tsi_lu_factor_watch *watch = rule->watch;
#pragma omp critical(tsi_lu_perturbed_column)
    {
      if (k < watch->first_perturbed)
        watch->first_perturbed = k;
    }
  } else if (outcome.kind != TSI_LU_PIVOT_OK) {
    tsi_lu_record_stop(level, k, outcome.kind, bad_level, bad_column, bad_kind);
  }
  return outcome.pivot_magnitude;
}

#define TSI_FACTOR_COUNTED TSI_NAME(lu_factor_counted) /* a plain name keeps the calls' format stable */

/*
 * All columns on the calling thread, without a parallel region, in pivot
 * order 0..n-1: a topological order of the columns (U(:, k) names only
 * columns j < k) that reads and writes the factors in memory order, where
 * the level order jumps about them (the 10^4-row netlist's refactorization
 * took a tenth longer in level order). The verdict is the level schedule's:
 * once a bad pivot is seen, only columns of levels up to the lowest bad
 * level so far are factored (each needs only lower levels, all factored),
 * so every column of the levels up to the final one is, and the column
 * reported is the first bad one in (level, column) order. A cancellation
 * stops at once. Without the columns' levels, the level order.
 */
static TSI_LU_COLUMN_INLINE void TSI_NAME(lu_factor_serial_with)(const ts_lu *lu, TSI_VALUE *values, TSI_WORK *x,
                                                                 const tsi_lu_pivot_rule *rule, int64_t dense_row,
                                                                 const uint8_t *chain_run,
                                                                 tsi_lu_factor_outcome *result) {
  const int64_t levels = lu->levels;
  const int64_t *level_ptr = lu->level_ptr;
  const int32_t *level_cols = lu->level_cols;
  const int32_t *column_level = rule->column_level;
  tsi_lu_tally tally = {0, 0, 0.0, 0.0};
  int64_t bad_level = INT64_MAX, bad_column = INT64_MAX;
  int bad_kind = TSI_LU_PIVOT_OK;
  /* The clock is read after TSI_LU_CPU_CHECK_WORK of work (flops, and
   * TSI_LU_CPU_CHECK_COLUMN_WORK a column), not after a count of columns:
   * a matrix of many near-empty columns read it far more often than its
   * work called for. */
  int64_t next_check = TSI_LU_CPU_CHECK_WORK;
  /* The least pivot magnitude as stored and the next larger one (the
   * smallest pivot without a pass: smallest_pivot_cpu.c), in locals, which
   * the stores to the factors cannot alias, in pivot order, so that the
   * first column among equals stays. */
  double least = (double)INFINITY, next = (double)INFINITY;
  int64_t least_column = INT64_MAX;
  if (column_level) {
    for (int64_t k = 0; k < lu->n && bad_kind != TSI_LU_PIVOT_CANCELLED; k++) {
      const int64_t level = column_level[k];
      if (level > bad_level)
        continue;
      const double magnitude = TSI_FACTOR_COUNTED(lu, values, level, k, x, rule, dense_row, chain_run, NULL, &tally,
                                                  &bad_level, &bad_column, &bad_kind);
      if (magnitude < next) { /* rarely, after the first columns */
        if (magnitude < least) {
          next = least;
          least = magnitude;
          least_column = k;
        } else if (magnitude > least) {
          next = magnitude;
        }
      }
      const int64_t work = tally.flops + TSI_LU_CPU_CHECK_COLUMN_WORK * (k + 1);
      if (work >= next_check) {
        tsi_lu_factor_check(rule->watch, k, level, k, &bad_level, &bad_column, &bad_kind);
        next_check = work + TSI_LU_CPU_CHECK_WORK;
      }
    }
  } else {
    for (int64_t level = 0; level < levels && bad_level == INT64_MAX; level++)
      for (int64_t c = level_ptr[level]; c < level_ptr[level + 1]; c++) {
        TSI_FACTOR_COUNTED(lu, values, level, level_cols[c], x, rule, dense_row, chain_run, NULL, &tally, &bad_level,
                           &bad_column, &bad_kind);
        const int64_t work = tally.flops + TSI_LU_CPU_CHECK_COLUMN_WORK * (c + 1);
        if (work >= next_check) {
          tsi_lu_factor_check(rule->watch, c, level, level_cols[c], &bad_level, &bad_column, &bad_kind);
          next_check = work + TSI_LU_CPU_CHECK_WORK;
        }
      }
  }
  tsi_lu_outcome_set(result, &tally, bad_kind, bad_column);
  if (column_level) {
    result->least_pivot = least;
    result->next_pivot = next;
    result->least_column = least_column;
  }
}

/* The one-thread schedule, with L's dense row held (rule->dense_row) or,
 * in a copy of its own, none; the chained columns not grouped. */
static void TSI_NAME(lu_factor_serial)(const ts_lu *lu, TSI_VALUE *values, TSI_WORK *x, const tsi_lu_pivot_rule *rule,
                                       tsi_lu_factor_outcome *result) {
  if (rule->dense_row >= 0)
    TSI_NAME(lu_factor_serial_with)(lu, values, x, rule, rule->dense_row, NULL, result);
  else
    TSI_NAME(lu_factor_serial_with)(lu, values, x, rule, -1, NULL, result);
}

/* The same with the chained columns grouped (rule->chain_run), in a function
 * of its own: two more copies of the loop in lu_factor_serial made the
 * copies without groups slower (netlists' refactorizations by 4-9 %). */
static TSI_LU_GROUP_CALL void TSI_NAME(lu_factor_serial_grouped)(const ts_lu *lu, TSI_VALUE *values, TSI_WORK *x,
                                                                 const tsi_lu_pivot_rule *rule,
                                                                 tsi_lu_factor_outcome *result) {
  if (rule->dense_row >= 0)
    TSI_NAME(lu_factor_serial_with)(lu, values, x, rule, rule->dense_row, rule->chain_run, result);
  else
    TSI_NAME(lu_factor_serial_with)(lu, values, x, rule, -1, rule->chain_run, result);
}

/*
 * All columns, level by level (the schedule of Xia et al., PPoPP 2023,
 * section 2.2, computed left-looking): one parallel region, one worksharing
 * loop per level whose implicit barrier separates the levels; runs of
 * levels narrower than serial_width run on one thread, in level order,
 * behind one barrier (a barrier per one-column level costs more than the
 * column). A singular pivot (perturbation off) stops the factorization
 * after its level; the column reported is the first in pivot order within
 * the first such level, whatever the thread count.
 */
static void TSI_NAME(lu_factor_levels)(const ts_lu *lu, TSI_VALUE *values, TSI_WORK *work, int threads,
                                       const tsi_lu_pivot_rule *rule, tsi_lu_factor_outcome *result) {
  const int64_t n = lu->n;
  const int64_t levels = lu->levels;
  const int64_t *level_ptr = lu->level_ptr;
  const int32_t *level_cols = lu->level_cols;
  tsi_lu_tally total = {0, 0, 0.0, 0.0};
  int64_t bad_level = INT64_MAX, bad_column = INT64_MAX;
  int bad_kind = TSI_LU_PIVOT_OK;
  const int64_t serial_width = threads > 1 ? TSI_LU_CPU_SERIAL_COLUMNS_PER_THREAD * (int64_t)threads : 1;

#pragma omp parallel num_threads(threads)
  {
    TSI_WORK *x = work + (int64_t)tsi_thread_id() * n;
    tsi_lu_tally mine = {0, 0, 0.0, 0.0};
    int64_t my_columns = 0;
    for (int64_t level = 0; level < levels;) {
      const int64_t first = level_ptr[level], last = level_ptr[level + 1];
      int64_t next = level + 1;
      if (last - first < serial_width) {
        /* A run of narrow levels on one thread, in level order: one barrier
         * for the run instead of one per level. */
        while (next < levels && level_ptr[next + 1] - level_ptr[next] < serial_width)
          next++;
#pragma omp single
        for (int64_t l = level; l < next; l++) {
          for (int64_t c = level_ptr[l]; c < level_ptr[l + 1]; c++) {
            TSI_FACTOR_COUNTED(lu, values, l, level_cols[c], x, rule, -1, rule->chain_run, NULL, &mine, &bad_level,
                               &bad_column, &bad_kind);
            if (++my_columns % TSI_LU_CPU_CHECK_COLUMNS == 0)
              tsi_lu_factor_check(rule->watch, c, l, level_cols[c], &bad_level, &bad_column, &bad_kind);
          }
          if (bad_level <= l)
            break;
        }
      } else {
        /* Chunks of a fraction of a thread's share: wide levels of small
         * columns need few scheduling steps, narrow ones still balance. */
        int64_t chunk = (last - first) / ((int64_t)threads * TSI_LU_CPU_PIECES_PER_THREAD);
        if (chunk < 1)
          chunk = 1;
#pragma omp for schedule(dynamic, chunk)
        for (int64_t c = first; c < last; c++) {
          TSI_FACTOR_COUNTED(lu, values, level, level_cols[c], x, rule, -1, rule->chain_run, NULL, &mine, &bad_level,
                             &bad_column, &bad_kind);
          if (++my_columns % TSI_LU_CPU_CHECK_COLUMNS == 0)
            tsi_lu_factor_check(rule->watch, first, level, level_cols[c], &bad_level, &bad_column, &bad_kind);
        }
      }
      /* After the barrier every thread reads the same verdict for these
       * levels: later levels can only store larger level numbers. */
      int64_t seen;
#pragma omp atomic read
      seen = bad_level;
      if (seen < next)
        break;
      level = next;
    }
#pragma omp critical(tsi_lu_tally_merge)
    tsi_lu_tally_merge(&total, &mine);
  }

  tsi_lu_outcome_set(result, &total, bad_kind, bad_column);
}

/*
 * All columns as a dataflow (the GPU's left_flow_shared schedule on host
 * threads): each thread takes the next column in level order from a
 * counter and, before each step, waits for the mark of the column j it
 * subtracts (ready[j], set with release after the column is stored), so a
 * column starts on the columns finished long before while the last ones it
 * needs are still running; no barrier between levels. No deadlock: a column
 * waits only on earlier tickets, taken by running threads. The arithmetic
 * is lu_factor_column's, so the factors are the level schedule's bits. A
 * singular pivot (perturbation off) stops the taking of columns of later
 * levels; every column of its level and the earlier ones is done, so the
 * column reported is the level schedule's.
 */
static void TSI_NAME(lu_factor_flow)(const ts_lu *lu, TSI_VALUE *values, TSI_WORK *work, int threads,
                                     const tsi_lu_pivot_rule *rule, int *ready, tsi_lu_factor_outcome *result) {
  const int64_t n = lu->n;
  const int64_t *level_ptr = lu->level_ptr;
  const int32_t *level_cols = lu->level_cols;
  tsi_lu_tally total = {0, 0, 0.0, 0.0};
  int64_t next = 0;
  int64_t bad_level = INT64_MAX, bad_column = INT64_MAX;
  int bad_kind = TSI_LU_PIVOT_OK;

#pragma omp parallel num_threads(threads)
  {
    TSI_WORK *x = work + (int64_t)tsi_thread_id() * n;
    tsi_lu_tally mine = {0, 0, 0.0, 0.0};
    int64_t my_columns = 0, level = 0;
    for (bool stop = false; !stop;) {
      /* Tickets in runs of a fraction of a thread's share of the current
       * level (TSI_LU_CPU_PIECES_PER_THREAD). A run's columns go in order,
       * so a thread waits only on earlier runs. */
      const int64_t at = __atomic_load_n(&next, __ATOMIC_RELAXED);
      while (at < n && level_ptr[level + 1] <= at)
        level++;
      int64_t run =
          at < n ? (level_ptr[level + 1] - level_ptr[level]) / ((int64_t)threads * TSI_LU_CPU_PIECES_PER_THREAD) : 1;
      if (run < 1)
        run = 1;
      const int64_t first = __atomic_fetch_add(&next, run, __ATOMIC_RELAXED);
      for (int64_t c = first; c < first + run && !stop; c++) {
        if (c >= n) {
          stop = true;
          break;
        }
        while (level_ptr[level + 1] <= c) /* tickets only grow: the level only moves on */
          level++;
        int64_t seen;
#pragma omp atomic read
        seen = bad_level;
        if (level > seen) {
          /* Later tickets are on later levels still. The run's tickets left
           * are marked, so that no thread sleeps on them for ever (a
           * waiting column sees the stop and abandons its work). */
          for (int64_t left = c; left < first + run && left < n; left++)
            tsi_lu_mark_ready(ready, level_cols[left]);
          stop = true;
          break;
        }
        const int32_t k = level_cols[c];
        TSI_FACTOR_COUNTED(lu, values, level, k, x, rule, -1, rule->chain_run, ready, &mine, &bad_level, &bad_column,
                           &bad_kind);
        tsi_lu_mark_ready(ready, k);
        if (++my_columns % TSI_LU_CPU_CHECK_COLUMNS == 0)
          tsi_lu_factor_check(rule->watch, c, level, k, &bad_level, &bad_column, &bad_kind);
      }
    }
#pragma omp critical(tsi_lu_tally_merge)
    tsi_lu_tally_merge(&total, &mine);
  }

  tsi_lu_outcome_set(result, &total, bad_kind, bad_column);
}
#undef TSI_FACTOR_COUNTED
