/* Numeric LU of M = P Dr A Dc Q on the host, for one factor value type:
 * M is scattered into the symbolic L+U pattern, then the columns are
 * factored in the levels' order: level by level on one thread, as a
 * dataflow on several. Included by numeric_cpu.c with TSI_VALUE
 * (float or double: the precision the factors are stored in) and TSI_NAME
 * (a suffix for the function names). Arithmetic is in double throughout;
 * float factors are rounded as each column is stored. */

/* M's values into the L+U pattern (fill entries zero); returns max |M(i,j)|. */
static double TSI_NAME(lu_scatter)(ts_lu *lu, TSI_VALUE *values, int threads) {
  const int64_t n = lu->n;
  const int64_t *row_ptr = lu->a_row_ptr;
  const int32_t *col_idx = lu->a_col_idx;
  const int64_t *a_to_lu = lu->a_to_lu;
  const double *a_values = lu->a_values;
  const double *row_scale = lu->row_scale;
  const double *col_scale = lu->col_scale;
  memset(values, 0, (size_t)lu->lu_nnz * sizeof *values);
  double max_abs = 0.0;
  /* Each entry of A has its own position in L+U: the rows are independent. */
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : max_abs)
  for (int64_t i = 0; i < n; i++) {
    const double scale_i = row_scale[i];
    for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
      double v = scale_i * a_values[e] * col_scale[col_idx[e]];
      values[a_to_lu[e]] = (TSI_VALUE)v;
      if (fabs(v) > max_abs)
        max_abs = fabs(v);
    }
  }
  return max_abs;
}

/*
 * Column k of L and U, left-looking (Gilbert and Peierls 1988, with the
 * pattern known from the symbolic phase): x = M(:, k); for each row j of
 * U(:, k) in increasing order, x(j) is final and x -= L(:, j) * x(j); then
 * U(:, k) = x(rows <= k) and L(:, k) = x(rows > k) / x(k). Every column j
 * read here lies in an earlier level, so columns of one level run in any
 * order on any thread with the same result. x is zero on entry and exit.
 */
static void TSI_NAME(lu_factor_column)(const ts_lu *lu, TSI_VALUE *values, int64_t k, int64_t level, double *x,
                                       const tsi_lu_pivot_rule *rule, const int *ready, const int64_t *stop_level,
                                       tsi_lu_column_outcome *outcome) {
  const int64_t *col_ptr = lu->lu_col_ptr;
  const int32_t *row_idx = lu->lu_row_idx;
  const int64_t *diag_pos = lu->diag_pos;
  const int64_t begin = col_ptr[k], diag = diag_pos[k], end = col_ptr[k + 1];
  int64_t flops = 0;

  for (int64_t p = begin; p < end; p++)
    x[row_idx[p]] = (double)values[p];
  for (int64_t p = begin; p < diag; p++) {
    const int64_t j = row_idx[p];
    const double u_jk = x[j];
    const int64_t l_begin = diag_pos[j] + 1, l_end = col_ptr[j + 1];
    flops += 2 * (l_end - l_begin);
    if (u_jk == 0.0)
      continue; /* an explicit zero or a cancellation: nothing to subtract */
    /* The dataflow schedule: L(:, j) from another thread. A stop before
     * this level abandons the column (x cleared over its pattern). */
    if (ready && !tsi_lu_wait_ready(ready, j, stop_level, level)) {
      for (int64_t q = begin; q < end; q++)
        x[row_idx[q]] = 0.0;
      outcome->kind = TSI_LU_PIVOT_OK;
      outcome->flops = flops;
      return;
    }
    for (int64_t q = l_begin; q < l_end; q++)
      x[row_idx[q]] -= (double)values[q] * u_jk;
  }

  double pivot = x[k];
  outcome->kind = TSI_LU_PIVOT_OK;
  if (!isfinite(pivot)) {
    outcome->kind = TSI_LU_PIVOT_NOT_FINITE;
  } else if (fabs(pivot) < rule->tiny || pivot == 0.0) {
    if (rule->perturb) {
      /* Static pivoting (Li and Demmel, SuperLU_DIST): keep the sign, + for 0. */
      pivot = pivot < 0.0 ? -rule->replacement : rule->replacement;
      outcome->kind = TSI_LU_PIVOT_PERTURBED;
    } else {
      outcome->kind = TSI_LU_PIVOT_SINGULAR;
    }
  }

  for (int64_t p = begin; p < diag; p++) {
    const int32_t i = row_idx[p];
    values[p] = (TSI_VALUE)x[i];
    x[i] = 0.0;
  }
  values[diag] = (TSI_VALUE)pivot;
  x[k] = 0.0;
  for (int64_t p = diag + 1; p < end; p++) {
    const int32_t i = row_idx[p];
    values[p] = (TSI_VALUE)(x[i] / pivot);
    x[i] = 0.0;
  }
  flops += end - diag - 1;
  outcome->flops = flops;
}

/* Column k of level `level`, its flops and perturbed pivot counted, a bad
 * pivot recorded when it is the first in (level, column) order. */
static void TSI_NAME(lu_factor_counted)(const ts_lu *lu, TSI_VALUE *values, int64_t level, int64_t k, double *x,
                                        const tsi_lu_pivot_rule *rule, const int *ready, int64_t *flops,
                                        int64_t *perturbed, int64_t *bad_level, int64_t *bad_column, int *bad_kind) {
  tsi_lu_column_outcome outcome;
  TSI_NAME(lu_factor_column)(lu, values, k, level, x, rule, ready, bad_level, &outcome);
  *flops += outcome.flops;
  if (outcome.kind == TSI_LU_PIVOT_PERTURBED) {
    (*perturbed)++;
    tsi_lu_factor_watch *watch = rule->watch;
#pragma omp critical(tsi_lu_perturbed_column)
    {
      if (k < watch->first_perturbed)
        watch->first_perturbed = k;
    }
  } else if (outcome.kind != TSI_LU_PIVOT_OK) {
    tsi_lu_record_stop(level, k, outcome.kind, bad_level, bad_column, bad_kind);
  }
}

#define TSI_FACTOR_COUNTED TSI_NAME(lu_factor_counted) /* a plain name keeps the calls' format stable */

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
static void TSI_NAME(lu_factor_levels)(const ts_lu *lu, TSI_VALUE *values, double *work, int threads,
                                       const tsi_lu_pivot_rule *rule, tsi_lu_factor_outcome *result) {
  const int64_t n = lu->n;
  const int64_t levels = lu->levels;
  const int64_t *level_ptr = lu->level_ptr;
  const int32_t *level_cols = lu->level_cols;
  int64_t flops = 0, perturbed = 0;
  int64_t bad_level = INT64_MAX, bad_column = INT64_MAX;
  int bad_kind = TSI_LU_PIVOT_OK;
  const int64_t serial_width = threads > 1 ? TSI_LU_CPU_SERIAL_COLUMNS_PER_THREAD * (int64_t)threads : 1;

#pragma omp parallel num_threads(threads)
  {
    double *x = work + (int64_t)tsi_thread_id() * n;
    int64_t my_flops = 0, my_perturbed = 0, my_columns = 0;
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
            TSI_FACTOR_COUNTED(lu, values, l, level_cols[c], x, rule, NULL, &my_flops, &my_perturbed, &bad_level,
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
          TSI_FACTOR_COUNTED(lu, values, level, level_cols[c], x, rule, NULL, &my_flops, &my_perturbed, &bad_level,
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
#pragma omp atomic
    flops += my_flops;
#pragma omp atomic
    perturbed += my_perturbed;
  }

  tsi_lu_outcome_set(result, flops, perturbed, bad_kind, bad_column);
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
static void TSI_NAME(lu_factor_flow)(const ts_lu *lu, TSI_VALUE *values, double *work, int threads,
                                     const tsi_lu_pivot_rule *rule, int *ready, tsi_lu_factor_outcome *result) {
  const int64_t n = lu->n;
  const int64_t *level_ptr = lu->level_ptr;
  const int32_t *level_cols = lu->level_cols;
  int64_t flops = 0, perturbed = 0, next = 0;
  int64_t bad_level = INT64_MAX, bad_column = INT64_MAX;
  int bad_kind = TSI_LU_PIVOT_OK;

#pragma omp parallel num_threads(threads)
  {
    double *x = work + (int64_t)tsi_thread_id() * n;
    int64_t my_flops = 0, my_perturbed = 0, my_columns = 0, level = 0;
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
          stop = true; /* later tickets are on later levels still */
          break;
        }
        const int32_t k = level_cols[c];
        TSI_FACTOR_COUNTED(lu, values, level, k, x, rule, ready, &my_flops, &my_perturbed, &bad_level, &bad_column,
                           &bad_kind);
        __atomic_store_n(&ready[k], 1, __ATOMIC_RELEASE);
        if (++my_columns % TSI_LU_CPU_CHECK_COLUMNS == 0)
          tsi_lu_factor_check(rule->watch, c, level, k, &bad_level, &bad_column, &bad_kind);
      }
    }
#pragma omp atomic
    flops += my_flops;
#pragma omp atomic
    perturbed += my_perturbed;
  }

  tsi_lu_outcome_set(result, flops, perturbed, bad_kind, bad_column);
}
#undef TSI_FACTOR_COUNTED
