/* The row order of threshold partial pivoting, chosen in the analysis from
 * the values it is given: the left-looking factorization of Gilbert and
 * Peierls (SIAM J. Sci. Stat. Comput. 9(5), 1988) runs on M = P Dr A Dc Q,
 * each column's pattern being the rows reached from M(:, k) through the
 * columns of L already computed, and keeps M's diagonal (the transversal's
 * row) as the pivot while it is at least TSI_LU_PARTIAL_PIVOT_TOLERANCE
 * times the largest candidate, as KLU does (Davis and Palamadai Natarajan,
 * ACM TOMS 37(3), 2010). Only L is kept: the pivots are all that this pass
 * returns. Pivots stay within a diagonal block of the block triangular
 * form (L is block diagonal there), so each column reads only its own
 * block's rows. The static-pivot factorization of these values then takes
 * the same pivots; later values are refactored with them, as klu_refactor
 * does. */
#include "lu/analyze/analyze_internal.h"
#include "lu/symbolic/symbolic_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool tsi_lu_partial_pivoting_chosen(const ts_lu *lu, const ts_csr *a) {
  return lu->options.pivoting == TS_LU_PIVOTING_PARTIAL && !TS_DTYPE_IS_COMPLEX(a->dtype) && !lu->options.no_matching &&
         a->rows > 0;
}

bool tsi_lu_partial_pivoting_instead(const ts_lu *lu, const ts_csr *a) {
  /* Only the first factorization of an AUTO analysis with static pivots:
   * later ones are the Newton loop's refactorizations, which the pivot
   * check serves. Small factorizations that stay on the host, where the
   * pivoting's left-looking columns run; off a CUDA context, where AUTO
   * keeps static pivots (lu.h). */
  return lu->options.pivoting == TS_LU_PIVOTING_AUTO && lu->stats.pivoting == TS_LU_PIVOTING_STATIC &&
         !lu->pivot_base_set && !TS_DTYPE_IS_COMPLEX(a->dtype) && !lu->options.no_matching && a->rows > 0 &&
         a->nnz <= TSI_LU_PARTIAL_PIVOT_MAX_NNZ && tsi_lu_blocks_alone_allowed(lu) && !lu->host_analysis;
}

/* L by columns, growing. */
typedef struct lower {
  int64_t *col_ptr;
  int32_t *row_idx;
  double *values;
  int64_t used, capacity;
} lower;

static bool reserve(lower *l, int64_t more) {
  if (l->used + more <= l->capacity)
    return true;
  int64_t capacity = l->capacity > 0 ? l->capacity : 1024;
  while (capacity < l->used + more)
    capacity *= 2;
  int32_t *rows = realloc(l->row_idx, (size_t)capacity * sizeof *rows);
  if (rows)
    l->row_idx = rows;
  double *values = realloc(l->values, (size_t)capacity * sizeof *values);
  if (values)
    l->values = values;
  if (!rows || !values)
    return false;
  l->capacity = capacity;
  return true;
}

/* The columns of M, rows below each column's block start only (entries
 * above a block are U's and never pivots). */
typedef struct m_columns {
  int64_t *col_ptr;
  int32_t *row_idx;
  double *values;
} m_columns;

static bool m_by_columns(const ts_lu *lu, const ts_csr *a, const int32_t *block_start, m_columns *m) {
  const int64_t n = lu->n;
  int32_t *row_of = tsi_malloc_array(n, sizeof *row_of), *col_of = tsi_malloc_array(n, sizeof *col_of);
  m->col_ptr = tsi_calloc_array(n + 1, sizeof *m->col_ptr);
  m->row_idx = tsi_malloc_array(a->nnz > 0 ? a->nnz : 1, sizeof *m->row_idx);
  m->values = tsi_malloc_array(a->nnz > 0 ? a->nnz : 1, sizeof *m->values);
  bool ok = row_of && col_of && m->col_ptr && m->row_idx && m->values;
  for (int64_t i = 0; ok && i < n; i++) {
    row_of[lu->row_perm[i]] = (int32_t)i;
    col_of[lu->col_perm[i]] = (int32_t)i;
  }
  for (int64_t r = 0; ok && r < n; r++)
    for (int64_t e = a->row_ptr[r]; e < a->row_ptr[r + 1]; e++) {
      const int32_t j = col_of[a->col_idx[e]];
      if (row_of[r] >= block_start[j])
        m->col_ptr[j + 1]++;
    }
  for (int64_t j = 0; ok && j < n; j++)
    m->col_ptr[j + 1] += m->col_ptr[j];
  int64_t *next = ok ? tsi_malloc_array(n, sizeof *next) : NULL;
  ok = ok && next;
  if (ok)
    memcpy(next, m->col_ptr, (size_t)n * sizeof *next);
  for (int64_t r = 0; ok && r < n; r++)
    for (int64_t e = a->row_ptr[r]; e < a->row_ptr[r + 1]; e++) {
      const int32_t c = a->col_idx[e], j = col_of[c];
      if (row_of[r] < block_start[j])
        continue;
      const int64_t p = next[j]++;
      m->row_idx[p] = row_of[r];
      m->values[p] = lu->row_scale[r] * tsi_lu_real_entry(a, e) * lu->col_scale[c];
    }
  free(row_of);
  free(col_of);
  free(next);
  return ok;
}

/* The rows reached from M(:, k) through L's columns so far, in topological
 * order in reach[top .. n) (depth first, without recursion); a pruned
 * column is searched only through its first pruned_length entries. */
static int64_t column_reach(int64_t n, const m_columns *m, int64_t k, const int32_t *pinv, const lower *l,
                            const int64_t *pruned_length, int32_t *reach, int32_t *stack, int64_t *position,
                            int64_t *mark) {
  int64_t top = n;
  for (int64_t p = m->col_ptr[k]; p < m->col_ptr[k + 1]; p++) {
    const int32_t start = m->row_idx[p];
    if (mark[start] == k)
      continue;
    int64_t depth = 0;
    stack[0] = start;
    mark[start] = k;
    position[0] = pinv[start] >= 0 ? l->col_ptr[pinv[start]] : 0;
    while (depth >= 0) {
      const int32_t i = stack[depth];
      const int32_t c = pinv[i];
      const int64_t end = c < 0 ? 0 : pruned_length[c] >= 0 ? l->col_ptr[c] + pruned_length[c] : l->col_ptr[c + 1];
      bool descended = false;
      while (c >= 0 && position[depth] < end) {
        const int32_t child = l->row_idx[position[depth]++];
        if (mark[child] == k)
          continue;
        mark[child] = k;
        stack[++depth] = child;
        position[depth] = pinv[child] >= 0 ? l->col_ptr[pinv[child]] : 0;
        descended = true;
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

/* Symmetric pruning (Eisenstat and Liu, SIAM J. Matrix Anal. Appl. 13(1),
 * 1992, as KLU prunes): once column k, updated by column j (U(j, k) != 0),
 * takes as its pivot a row of L(:, j), the rows of L(:, j) that are not
 * pivots yet are all in L(:, k), which a later search reaches through that
 * pivot row, so the searches need only L(:, j)'s pivot rows; the others are
 * moved behind them (values with them; the updates still use the whole
 * column). The pattern found is the same. */
static void prune(lower *l, int64_t *pruned_length, const int32_t *pinv, int32_t pivot, const int32_t *u_rows,
                  int64_t u_begin, int64_t u_end) {
  for (int64_t q = u_begin; q < u_end; q++) {
    const int32_t j = pinv[u_rows[q]];
    if (pruned_length[j] >= 0)
      continue;
    int64_t head = l->col_ptr[j], tail = l->col_ptr[j + 1];
    bool holds_pivot = false;
    for (int64_t p = head; p < tail && !holds_pivot; p++)
      holds_pivot = l->row_idx[p] == pivot;
    if (!holds_pivot)
      continue;
    while (head < tail) {
      if (pinv[l->row_idx[head]] < 0) {
        tail--;
        const int32_t row = l->row_idx[head];
        const double value = l->values[head];
        l->row_idx[head] = l->row_idx[tail];
        l->values[head] = l->values[tail];
        l->row_idx[tail] = row;
        l->values[tail] = value;
      } else {
        head++;
      }
    }
    pruned_length[j] = tail - l->col_ptr[j];
  }
}

/* The pivot row of column k among the reached rows not yet pivots: M's
 * diagonal row when large enough, else the largest (the first in the
 * reach's order among equals); -1 when every candidate is zero. */
static int32_t choose_pivot(int64_t k, const int32_t *reach, int64_t top, int64_t n, const int32_t *pinv,
                            const double *x) {
  double largest = 0.0;
  int32_t best = -1;
  for (int64_t t = top; t < n; t++) {
    const int32_t i = reach[t];
    if (pinv[i] < 0 && fabs(x[i]) > largest) {
      largest = fabs(x[i]);
      best = i;
    }
  }
  if (best >= 0 && pinv[k] < 0 && fabs(x[k]) >= TSI_LU_PARTIAL_PIVOT_TOLERANCE * largest)
    return (int32_t)k;
  return best;
}

/* A column without a nonzero candidate (a singular M, or one singular in
 * this order): M's diagonal row if free, else the first free row of the
 * block; the factorization then reports or perturbs the zero pivot. */
static int32_t any_free_row(int64_t k, int64_t block_start, int64_t block_end, const int32_t *pinv) {
  if (pinv[k] < 0)
    return (int32_t)k;
  for (int64_t i = block_start; i < block_end; i++)
    if (pinv[i] < 0)
      return (int32_t)i;
  return -1;
}

/* The columns' patterns as partial pivoting found them, in M's old row
 * numbering: U's rows (pivots of earlier columns) and L's (rows still
 * free), each column's pivot in pivot_row. */
typedef struct found_pattern {
  lower l;
  int64_t *u_ptr;
  int32_t *u_rows;
  int64_t u_used, u_capacity;
} found_pattern;

static bool reserve_upper(found_pattern *f, int64_t more) {
  if (f->u_used + more <= f->u_capacity)
    return true;
  int64_t capacity = f->u_capacity > 0 ? f->u_capacity : 1024;
  while (capacity < f->u_used + more)
    capacity *= 2;
  int32_t *rows = realloc(f->u_rows, (size_t)capacity * sizeof *rows);
  if (!rows)
    return false;
  f->u_rows = rows;
  f->u_capacity = capacity;
  return true;
}

/* Row k of the new M is row pivot_row[k] of the old (scratch: n entries). */
static void take_pivot_rows(ts_lu *lu, const int32_t *pivot_row, int32_t *scratch) {
  for (int64_t k = 0; k < lu->n; k++)
    scratch[k] = lu->row_perm[pivot_row[k]];
  memcpy(lu->row_perm, scratch, (size_t)lu->n * sizeof(int32_t));
}

/* The rows of L + U in the new numbering (row k of the new M is row
 * pivot_row[k] of the old, whose new number is pinv): each column's U rows,
 * its diagonal, its L rows, and M's entries above its block (block form),
 * transposed by a counting sort; then the shared symbolic steps. */
static ts_status pattern_to_symbolic(ts_lu *lu, const ts_csr *a, const found_pattern *f, const int32_t *pinv,
                                     const int32_t *block_start, const int32_t *old_row_of_a_row,
                                     const int32_t *col_of) {
  const int64_t n = lu->n;
  int64_t *row_ptr = tsi_calloc_array(n + 1, sizeof(int64_t)), *col_count = tsi_calloc_array(n, sizeof(int64_t));
  int32_t *row_idx = NULL;
  if (!row_ptr || !col_count)
    goto no_memory;
  for (int64_t k = 0; k < n; k++) {
    for (int64_t p = f->u_ptr[k]; p < f->u_ptr[k + 1]; p++)
      row_ptr[pinv[f->u_rows[p]] + 1]++;
    for (int64_t p = f->l.col_ptr[k]; p < f->l.col_ptr[k + 1]; p++)
      row_ptr[pinv[f->l.row_idx[p]] + 1]++;
    row_ptr[k + 1]++;
    col_count[k] = f->u_ptr[k + 1] - f->u_ptr[k] + f->l.col_ptr[k + 1] - f->l.col_ptr[k] + 1;
  }
  for (int64_t r = 0; r < n; r++)
    for (int64_t e = a->row_ptr[r]; e < a->row_ptr[r + 1]; e++) {
      const int32_t j = col_of[a->col_idx[e]], old = old_row_of_a_row[r];
      if (old < block_start[j]) {
        row_ptr[pinv[old] + 1]++;
        col_count[j]++;
      }
    }
  for (int64_t i = 0; i < n; i++)
    row_ptr[i + 1] += row_ptr[i];
  row_idx = tsi_malloc_array(row_ptr[n] > 0 ? row_ptr[n] : 1, sizeof(int32_t));
  int64_t *next = row_idx ? tsi_malloc_array(n, sizeof(int64_t)) : NULL;
  if (!next)
    goto no_memory;
  memcpy(next, row_ptr, (size_t)n * sizeof(int64_t));
  for (int64_t k = 0; k < n; k++) {
    for (int64_t p = f->u_ptr[k]; p < f->u_ptr[k + 1]; p++)
      row_idx[next[pinv[f->u_rows[p]]]++] = (int32_t)k;
    for (int64_t p = f->l.col_ptr[k]; p < f->l.col_ptr[k + 1]; p++)
      row_idx[next[pinv[f->l.row_idx[p]]]++] = (int32_t)k;
    row_idx[next[k]++] = (int32_t)k;
  }
  for (int64_t r = 0; r < n; r++)
    for (int64_t e = a->row_ptr[r]; e < a->row_ptr[r + 1]; e++) {
      const int32_t j = col_of[a->col_idx[e]], old = old_row_of_a_row[r];
      if (old < block_start[j])
        row_idx[next[pinv[old]]++] = j;
    }
  free(next);
  return tsi_lu_symbolic_given_rows(lu, a, row_ptr, row_idx, col_count);
no_memory:
  free(row_ptr);
  free(col_count);
  free(row_idx);
  return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the rows of L + U");
}

ts_status tsi_lu_partial_pivot_symbolic(ts_lu *lu, const ts_csr *a, const int32_t *block_of) {
  const int64_t n = lu->n;
  ts_status st = TS_SUCCESS;
  m_columns m = {0};
  found_pattern f = {.l = {tsi_calloc_array(n + 1, sizeof(int64_t)), NULL, NULL, 0, 0},
                     .u_ptr = tsi_calloc_array(n + 1, sizeof(int64_t))};
  int32_t *block_start = tsi_malloc_array(n, sizeof(int32_t)), *block_end = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *pinv = tsi_malloc_array(n, sizeof(int32_t)), *pivot_row = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *reach = tsi_malloc_array(n, sizeof(int32_t)), *stack = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *old_row_of_a_row = tsi_malloc_array(n, sizeof(int32_t)), *col_of = tsi_malloc_array(n, sizeof(int32_t));
  int64_t *position = tsi_malloc_array(n, sizeof(int64_t)), *mark = tsi_malloc_array(n, sizeof(int64_t));
  int64_t *pruned_length = tsi_malloc_array(n, sizeof(int64_t));
  double *x = tsi_malloc_array(n, sizeof(double));
  if (!f.l.col_ptr || !f.u_ptr || !block_start || !block_end || !pinv || !pivot_row || !reach || !stack ||
      !old_row_of_a_row || !col_of || !position || !mark || !pruned_length || !x) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate partial pivoting's workspace");
    goto cleanup;
  }
  for (int64_t k = 0; k < n; k++) {
    if (!block_of)
      block_start[k] = 0;
    else
      block_start[k] = k > 0 && block_of[k] == block_of[k - 1] ? block_start[k - 1] : (int32_t)k;
    pinv[k] = -1;
    mark[k] = -1;
    pruned_length[k] = -1;
    old_row_of_a_row[lu->row_perm[k]] = (int32_t)k;
    col_of[lu->col_perm[k]] = (int32_t)k;
  }
  for (int64_t k = n - 1; k >= 0; k--)
    block_end[k] = k + 1 < n && block_start[k + 1] == block_start[k] ? block_end[k + 1] : (int32_t)(k + 1);
  if (!m_by_columns(lu, a, block_start, &m) || !reserve(&f.l, m.col_ptr[n]) || !reserve_upper(&f, m.col_ptr[n])) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate partial pivoting's columns");
    goto cleanup;
  }
  for (int64_t k = 0; k < n; k++) {
    const int64_t top = column_reach(n, &m, k, pinv, &f.l, pruned_length, reach, stack, position, mark);
    for (int64_t t = top; t < n; t++)
      x[reach[t]] = 0.0;
    for (int64_t p = m.col_ptr[k]; p < m.col_ptr[k + 1]; p++)
      x[m.row_idx[p]] = m.values[p];
    for (int64_t t = top; t < n; t++) {
      const int32_t j = reach[t], c = pinv[j];
      if (c < 0)
        continue;
      const double xj = x[j];
      for (int64_t p = f.l.col_ptr[c]; p < f.l.col_ptr[c + 1]; p++)
        x[f.l.row_idx[p]] -= f.l.values[p] * xj;
    }
    int32_t pivot = choose_pivot(k, reach, top, n, pinv, x);
    const double pivot_value = pivot >= 0 ? x[pivot] : 0.0;
    if (pivot < 0)
      pivot = any_free_row(k, block_start[k], block_end[k], pinv);
    if (pivot < 0) {
      st = tsi_error(lu->ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: partial pivoting found no free row for column %lld",
                     (long long)k);
      goto cleanup;
    }
    if (!reserve(&f.l, n - top) || !reserve_upper(&f, n - top)) {
      st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "ts_lu_analyze: cannot grow partial pivoting's L + U (%lld entries)",
                     (long long)(f.l.used + f.u_used));
      goto cleanup;
    }
    /* The reached pivots are U's rows, the free rows but the pivot L's;
     * with a zero pivot L's pattern is kept for the later columns. */
    for (int64_t t = top; t < n; t++) {
      const int32_t i = reach[t];
      if (pinv[i] >= 0) {
        f.u_rows[f.u_used++] = i;
      } else if (i != pivot) {
        f.l.row_idx[f.l.used] = i;
        f.l.values[f.l.used++] = pivot_value != 0.0 ? x[i] / pivot_value : 0.0;
      }
    }
    f.l.col_ptr[k + 1] = f.l.used;
    f.u_ptr[k + 1] = f.u_used;
    pinv[pivot] = (int32_t)k;
    pivot_row[k] = pivot;
    prune(&f.l, pruned_length, pinv, pivot, f.u_rows, f.u_ptr[k], f.u_ptr[k + 1]);
  }
  take_pivot_rows(lu, pivot_row, reach);
  st = pattern_to_symbolic(lu, a, &f, pinv, block_start, old_row_of_a_row, col_of);
cleanup:
  free(m.col_ptr);
  free(m.row_idx);
  free(m.values);
  free(f.l.col_ptr);
  free(f.l.row_idx);
  free(f.l.values);
  free(f.u_ptr);
  free(f.u_rows);
  free(block_start);
  free(block_end);
  free(pinv);
  free(pivot_row);
  free(reach);
  free(stack);
  free(old_row_of_a_row);
  free(col_of);
  free(position);
  free(mark);
  free(pruned_length);
  free(x);
  return st;
}
