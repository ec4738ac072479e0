/* The fallback for matrices that static pivoting cannot factor usefully:
 * M = P Dr A Dc Q factored again on the host with threshold partial pivoting,
 * P2 M = L U, left-looking column by column (Gilbert and Peierls, SIAM J.
 * Sci. Stat. Comput. 9, 1988: each column's pattern is the set reached from
 * M(:, k) through the columns of L already computed; the same algorithm as
 * KLU's, Davis and Palamadai Natarajan, ACM TOMS 37, 2010). The row of the
 * matching (M's diagonal) is kept as the pivot while it is at least
 * TSI_LU_PIVOTED_TOLERANCE times the largest candidate. */
#include "lu/numeric/numeric_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Growable arrays of one triangle, by columns. */
typedef struct triangle {
  int64_t *col_ptr; /* n + 1 */
  int32_t *row_idx;
  double *values;
  int64_t used, capacity;
} triangle;

static int reserve(triangle *t, int64_t more) {
  if (t->used + more <= t->capacity)
    return 1;
  int64_t capacity = t->capacity > 0 ? t->capacity : 1024;
  while (capacity < t->used + more)
    capacity *= 2;
  int32_t *rows = realloc(t->row_idx, (size_t)capacity * sizeof *rows);
  if (rows)
    t->row_idx = rows;
  double *values = realloc(t->values, (size_t)capacity * sizeof *values);
  if (values)
    t->values = values;
  if (!rows || !values)
    return 0;
  t->capacity = capacity;
  return 1;
}

/* Columns of M = P Dr A Dc Q from A's CSR and the analysis. */
static ts_status m_by_columns(const ts_lu *lu, int64_t **col_ptr_out, int32_t **row_idx_out, double **values_out) {
  const int64_t n = lu->n, nnz = lu->nnz_a;
  int64_t *col_ptr = calloc((size_t)n + 1, sizeof *col_ptr);
  int32_t *row_idx = tsi_malloc_array(nnz > 0 ? nnz : 1, sizeof *row_idx);
  double *values = tsi_malloc_array(nnz > 0 ? nnz : 1, sizeof *values);
  int32_t *row_of = tsi_malloc_array(n, sizeof *row_of), *col_of = tsi_malloc_array(n, sizeof *col_of);
  int64_t *next = tsi_malloc_array(n + 1, sizeof *next);
  if (!col_ptr || !row_idx || !values || !row_of || !col_of || !next) {
    free(col_ptr);
    free(row_idx);
    free(values);
    free(row_of);
    free(col_of);
    free(next);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "LU partial-pivoting fallback: no memory for the columns of M (%lld entries)", (long long)nnz);
  }
  for (int64_t i = 0; i < n; i++) {
    row_of[lu->row_perm[i]] = (int32_t)i; /* A's row -> M's row */
    col_of[lu->col_perm[i]] = (int32_t)i;
  }
  for (int64_t e = 0; e < nnz; e++)
    col_ptr[col_of[lu->a_col_idx[e]] + 1]++;
  for (int64_t j = 0; j < n; j++)
    col_ptr[j + 1] += col_ptr[j];
  memcpy(next, col_ptr, (size_t)(n + 1) * sizeof *next);
  for (int64_t r = 0; r < n; r++) {
    for (int64_t e = lu->a_row_ptr[r]; e < lu->a_row_ptr[r + 1]; e++) {
      int32_t c = lu->a_col_idx[e];
      int64_t p = next[col_of[c]]++;
      row_idx[p] = row_of[r];
      values[p] = lu->row_scale[r] * lu->a_values[e] * lu->col_scale[c];
    }
  }
  free(row_of);
  free(col_of);
  free(next);
  *col_ptr_out = col_ptr;
  *row_idx_out = row_idx;
  *values_out = values;
  return TS_SUCCESS;
}

/* The rows reached from M(:, k) through the columns of L so far, in
 * topological order in reach[top .. n): depth-first, without recursion. */
static int64_t column_reach(int64_t n, const int64_t *m_ptr, const int32_t *m_row, int64_t k, const int64_t *pinv,
                            const triangle *l, int32_t *reach, int32_t *stack, int64_t *position, int32_t *mark,
                            int32_t stamp) {
  int64_t top = n;
  for (int64_t p = m_ptr[k]; p < m_ptr[k + 1]; p++) {
    int32_t start = m_row[p];
    if (mark[start] == stamp)
      continue;
    int64_t depth = 0;
    stack[0] = start;
    mark[start] = stamp;
    position[0] = pinv[start] >= 0 ? l->col_ptr[pinv[start]] : 0;
    while (depth >= 0) {
      int32_t i = stack[depth];
      int64_t c = pinv[i];
      int64_t end = c >= 0 ? l->col_ptr[c + 1] : 0;
      int descended = 0;
      while (c >= 0 && position[depth] < end) {
        int32_t child = l->row_idx[position[depth]++];
        if (mark[child] == stamp)
          continue;
        mark[child] = stamp;
        stack[++depth] = child;
        position[depth] = pinv[child] >= 0 ? l->col_ptr[pinv[child]] : 0;
        descended = 1;
        break;
      }
      if (!descended) {
        reach[--top] = i; /* finished: after everything it reaches */
        depth--;
      }
    }
  }
  return top;
}

void tsi_lu_pivoted_release(ts_lu *lu) {
  tsi_lu_pivoted *f = lu->pivoted;
  if (!f)
    return;
  free(f->l_col_ptr);
  free(f->l_row_idx);
  free(f->l_values);
  free(f->u_col_ptr);
  free(f->u_row_idx);
  free(f->u_values);
  free(f->u_diagonal);
  free(f->pinv);
  free(f->row_of_position);
  free(f->scratch);
  free(f);
  lu->pivoted = NULL;
}

ts_status tsi_lu_pivoted_factor(ts_lu *lu) {
  tsi_lu_pivoted_release(lu);
  const int64_t n = lu->n;
  int64_t *m_ptr = NULL;
  int32_t *m_row = NULL;
  double *m_val = NULL;
  ts_status st = m_by_columns(lu, &m_ptr, &m_row, &m_val);
  if (st != TS_SUCCESS)
    return st;
  triangle l = {calloc((size_t)n + 1, sizeof(int64_t)), NULL, NULL, 0, 0};
  triangle u = {calloc((size_t)n + 1, sizeof(int64_t)), NULL, NULL, 0, 0};
  tsi_lu_pivoted *f = calloc(1, sizeof *f);
  double *x = calloc((size_t)n, sizeof *x);
  double *diagonal = tsi_malloc_array(n, sizeof *diagonal);
  int64_t *pinv = tsi_malloc_array(n, sizeof *pinv), *position = tsi_malloc_array(n, sizeof *position);
  int64_t *row_of_position = tsi_malloc_array(n, sizeof *row_of_position);
  int32_t *reach = tsi_malloc_array(n, sizeof *reach), *stack = tsi_malloc_array(n, sizeof *stack);
  int32_t *mark = calloc((size_t)n, sizeof *mark);
  double *scratch = tsi_malloc_array(n, sizeof *scratch);
  /* Room for a first estimate of each triangle: M's own entries. */
  if (!l.col_ptr || !u.col_ptr || !f || !x || !diagonal || !pinv || !position || !row_of_position || !reach || !stack ||
      !mark || !scratch || !reserve(&l, m_ptr[n] + 1) || !reserve(&u, m_ptr[n] + 1) || !l.row_idx || !u.row_idx) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                   "LU partial-pivoting fallback: no memory for the pivoted factorization (n = %lld)", (long long)n);
    goto cleanup;
  }
  for (int64_t i = 0; i < n; i++)
    pinv[i] = -1;
  /* Columns without a usable pivot get the static rule's replacement. */
  double m_max = 0.0;
  for (int64_t p = 0; p < m_ptr[n]; p++)
    m_max = fmax(m_max, fabs(m_val[p]));
  const double reference = m_max > 0.0 ? m_max : 1.0;
  const double replacement =
      lu->options.pivot_threshold > 0.0 ? lu->options.pivot_threshold * reference : reference * 1e-8;
  int64_t replaced = 0, first_replaced = -1;
  double last_check = tsi_seconds();

  for (int64_t k = 0; k < n; k++) {
    /* A chance to stop every few columns (a column can reach far). */
    if (k % TSI_LU_CPU_CHECK_COLUMNS == 0 && tsi_seconds() - last_check >= TSI_LU_CANCEL_CHECK_SECONDS) {
      last_check = tsi_seconds();
      if ((st = tsi_progress(lu->ctx, k, n)) != TS_SUCCESS)
        goto cleanup;
    }
    int64_t top = column_reach(n, m_ptr, m_row, k, pinv, &l, reach, stack, position, mark, (int32_t)(k + 1));
    for (int64_t p = m_ptr[k]; p < m_ptr[k + 1]; p++)
      x[m_row[p]] += m_val[p];
    /* x = L^{-1} M(:, k) over the reach, in topological order. */
    for (int64_t t = top; t < n; t++) {
      int32_t i = reach[t];
      int64_t c = pinv[i];
      if (c < 0 || x[i] == 0.0)
        continue;
      const double x_i = x[i];
      for (int64_t p = l.col_ptr[c]; p < l.col_ptr[c + 1]; p++)
        x[l.row_idx[p]] -= l.values[p] * x_i;
    }
    /* The pivot: M's diagonal row while it holds its own, else the largest. */
    int32_t best = -1;
    double largest = 0.0;
    for (int64_t t = top; t < n; t++) {
      int32_t i = reach[t];
      if (pinv[i] < 0 && fabs(x[i]) > largest) {
        largest = fabs(x[i]);
        best = i;
      }
    }
    if (pinv[k] < 0 && mark[k] == (int32_t)(k + 1) && fabs(x[k]) >= TSI_LU_PIVOTED_TOLERANCE * largest && x[k] != 0.0)
      best = (int32_t)k;
    double pivot;
    if (best < 0 || largest == 0.0) {
      if (lu->options.no_perturbation) {
        lu->stats.singular_column = lu->col_perm[k];
        st = tsi_error(lu->ctx, TS_ERROR_NUMERICALLY_SINGULAR,
                       "LU partial-pivoting fallback: column %lld (from 0) has no nonzero pivot under partial "
                       "pivoting: the matrix is numerically singular",
                       (long long)lu->col_perm[k]);
        goto cleanup;
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
      pivot = replacement;
      if (replaced++ == 0)
        first_replaced = k;
    } else {
      pivot = x[best];
    }
    pinv[best] = k;
    row_of_position[k] = best;
    diagonal[k] = pivot;
    if (!reserve(&u, n - top) || !reserve(&l, n - top) || !u.row_idx || !l.row_idx) {
      st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "LU partial-pivoting fallback: no memory for the pivoted factors at column %lld", (long long)k);
      goto cleanup;
    }
    for (int64_t t = top; t < n; t++) {
      int32_t i = reach[t];
      if (i != best && pinv[i] >= 0 && x[i] != 0.0) {
        u.row_idx[u.used] = (int32_t)pinv[i];
        u.values[u.used++] = x[i];
      } else if (pinv[i] < 0 && x[i] != 0.0) {
        l.row_idx[l.used] = i;
        l.values[l.used++] = x[i] / pivot;
      }
      x[i] = 0.0;
    }
    x[best] = 0.0;
    u.col_ptr[k + 1] = u.used;
    l.col_ptr[k + 1] = l.used;
  }
  f->l_col_ptr = l.col_ptr;
  f->l_row_idx = l.row_idx;
  f->l_values = l.values;
  f->u_col_ptr = u.col_ptr;
  f->u_row_idx = u.row_idx;
  f->u_values = u.values;
  f->u_diagonal = diagonal;
  f->pinv = pinv;
  f->row_of_position = row_of_position;
  f->replaced = replaced;
  f->first_replaced = first_replaced;
  f->scratch = scratch;
  lu->pivoted = f;
  scratch = NULL;
  f = NULL;
  l = (triangle){0};
  u = (triangle){0};
  diagonal = NULL;
  pinv = NULL;
  row_of_position = NULL;
cleanup:
  free(m_ptr);
  free(m_row);
  free(m_val);
  free(l.col_ptr);
  free(l.row_idx);
  free(l.values);
  free(u.col_ptr);
  free(u.row_idx);
  free(u.values);
  free(f);
  free(x);
  free(diagonal);
  free(pinv);
  free(position);
  free(row_of_position);
  free(reach);
  free(stack);
  free(mark);
  free(scratch);
  return st;
}

/* y (M's rows) -> M^{-1} y (M's columns), through P2 M = L U. */
static void solve_m(const tsi_lu_pivoted *f, int64_t n, double *y, double *z) {
  for (int64_t c = 0; c < n; c++) { /* L, rows of M */
    const double y_c = y[f->row_of_position[c]];
    z[c] = y_c;
    if (y_c == 0.0)
      continue;
    for (int64_t p = f->l_col_ptr[c]; p < f->l_col_ptr[c + 1]; p++)
      y[f->l_row_idx[p]] -= f->l_values[p] * y_c;
  }
  for (int64_t k = n - 1; k >= 0; k--) { /* U, positions */
    const double z_k = z[k] / f->u_diagonal[k];
    z[k] = z_k;
    if (z_k == 0.0)
      continue;
    for (int64_t p = f->u_col_ptr[k]; p < f->u_col_ptr[k + 1]; p++)
      z[f->u_row_idx[p]] -= f->u_values[p] * z_k;
  }
}

/* y (M's columns) -> M^{-T} y (M's rows): U^T w = y, L^T v = w, x = P2^T v. */
static void solve_m_transpose(const tsi_lu_pivoted *f, int64_t n, double *y, double *z) {
  for (int64_t k = 0; k < n; k++) {
    double sum = y[k];
    for (int64_t p = f->u_col_ptr[k]; p < f->u_col_ptr[k + 1]; p++)
      sum -= f->u_values[p] * y[f->u_row_idx[p]];
    y[k] = sum / f->u_diagonal[k];
  }
  for (int64_t c = n - 1; c >= 0; c--) {
    double sum = y[c];
    for (int64_t p = f->l_col_ptr[c]; p < f->l_col_ptr[c + 1]; p++)
      sum -= f->l_values[p] * y[f->pinv[f->l_row_idx[p]]];
    y[c] = sum;
  }
  for (int64_t i = 0; i < n; i++)
    z[i] = y[f->pinv[i]];
}

void tsi_lu_pivoted_apply(const ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y) {
  const int64_t n = lu->n;
  double *z = lu->pivoted->scratch;
  const int32_t *row_perm = lu->row_perm, *col_perm = lu->col_perm;
  const double *row_scale = lu->row_scale, *col_scale = lu->col_scale;
  if (op == TS_OP_NONE) {
    for (int64_t i = 0; i < n; i++)
      y[i] = row_scale[row_perm[i]] * rhs[row_perm[i]];
    solve_m(lu->pivoted, n, y, z);
    for (int64_t j = 0; j < n; j++)
      x[col_perm[j]] = col_scale[col_perm[j]] * z[j];
  } else {
    for (int64_t j = 0; j < n; j++)
      y[j] = col_scale[col_perm[j]] * rhs[col_perm[j]];
    solve_m_transpose(lu->pivoted, n, y, z);
    for (int64_t i = 0; i < n; i++)
      x[row_perm[i]] = row_scale[row_perm[i]] * z[i];
  }
}
