/* The fallback for matrices that static pivoting cannot factor usefully:
 * M = P Dr A Dc Q factored again on the host with threshold partial pivoting,
 * P2 M = L U, left-looking column by column (Gilbert and Peierls, SIAM J.
 * Sci. Stat. Comput. 9, 1988: each column's pattern is the set reached from
 * M(:, k) through the columns of L already computed; the same algorithm as
 * KLU's, Davis and Palamadai Natarajan, ACM TOMS 37, 2010). The row of the
 * matching (M's diagonal) is kept as the pivot while it is at least
 * TSI_LU_PIVOTED_TOLERANCE times the largest candidate. Real and complex
 * values (pivoted_cpu_impl.h holds the steps that depend on them). */
#include "core/complex_value.h"
#include "lu/numeric/numeric_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Growable arrays of one triangle, by columns; an entry's value is `parts`
 * doubles (2 for complex values). */
typedef struct triangle {
  int64_t *col_ptr; /* n + 1 */
  int32_t *row_idx;
  double *values;
  int64_t used, capacity, parts;
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
  double *values = realloc(t->values, (size_t)(capacity * t->parts) * sizeof *values);
  if (values)
    t->values = values;
  if (!rows || !values)
    return 0;
  t->capacity = capacity;
  return 1;
}

/* Columns of M = P Dr A Dc Q from A's CSR and the analysis (values of
 * lu's kind: doubles or (re, im) pairs). */
static ts_status m_by_columns(const ts_lu *lu, int64_t **col_ptr_out, int32_t **row_idx_out, double **values_out) {
  const int64_t n = lu->n, nnz = lu->nnz_a, parts = tsi_lu_parts(lu);
  int64_t *col_ptr = calloc((size_t)n + 1, sizeof *col_ptr);
  int32_t *row_idx = tsi_malloc_array(nnz > 0 ? nnz : 1, sizeof *row_idx);
  double *values = tsi_malloc_array((nnz > 0 ? nnz : 1) * parts, sizeof *values);
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
      for (int64_t part = 0; part < parts; part++)
        values[p * parts + part] = lu->row_scale[r] * lu->a_values[e * parts + part] * lu->col_scale[c];
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

/* The value-dependent steps for real and for complex values. */
#include "lu/lu_arith_real.h"
#define TSI_VALUE double
#define TSI_NAME(x) x##_real
#include "lu/numeric/pivoted_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME
#include "lu/lu_arith_undef.h"

#include "lu/lu_arith_complex.h"
#define TSI_VALUE tsi_complex128
#define TSI_NAME(x) x##_complex
#include "lu/numeric/pivoted_cpu_impl.h"
#undef TSI_VALUE
#undef TSI_NAME
#include "lu/lu_arith_undef.h"

ts_status tsi_lu_pivoted_factor(ts_lu *lu) {
  tsi_lu_pivoted_release(lu);
  const int64_t n = lu->n, parts = tsi_lu_parts(lu);
  int64_t *m_ptr = NULL;
  int32_t *m_row = NULL;
  double *m_val = NULL;
  ts_status st = m_by_columns(lu, &m_ptr, &m_row, &m_val);
  if (st != TS_SUCCESS)
    return st;
  triangle l = {calloc((size_t)n + 1, sizeof(int64_t)), NULL, NULL, 0, 0, parts};
  triangle u = {calloc((size_t)n + 1, sizeof(int64_t)), NULL, NULL, 0, 0, parts};
  tsi_lu_pivoted *f = calloc(1, sizeof *f);
  double *x = calloc((size_t)(n * parts), sizeof *x);
  double *diagonal = tsi_malloc_array(n * parts, sizeof *diagonal);
  int64_t *pinv = tsi_malloc_array(n, sizeof *pinv), *position = tsi_malloc_array(n, sizeof *position);
  int64_t *row_of_position = tsi_malloc_array(n, sizeof *row_of_position);
  int32_t *reach = tsi_malloc_array(n, sizeof *reach), *stack = tsi_malloc_array(n, sizeof *stack);
  int32_t *mark = calloc((size_t)n, sizeof *mark);
  double *scratch = tsi_malloc_array(n * parts, sizeof *scratch);
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
    m_max = fmax(m_max, parts == 2 ? tsi_z_abs(tsi_z(m_val[2 * p], m_val[2 * p + 1])) : fabs(m_val[p]));
  const double reference = m_max > 0.0 ? m_max : 1.0;
  const double replacement =
      lu->options.pivot_threshold > 0.0 ? lu->options.pivot_threshold * reference : reference * 1e-8;
  int64_t replaced = 0, first_replaced = -1;
  if (lu->complex_values)
    st = pivoted_columns_complex(lu, m_ptr, m_row, (const tsi_complex128 *)m_val, &l, &u, (tsi_complex128 *)x,
                                 (tsi_complex128 *)diagonal, pinv, row_of_position, reach, stack, position, mark,
                                 replacement, &replaced, &first_replaced);
  else
    st = pivoted_columns_real(lu, m_ptr, m_row, m_val, &l, &u, x, diagonal, pinv, row_of_position, reach, stack,
                              position, mark, replacement, &replaced, &first_replaced);
  if (st != TS_SUCCESS)
    goto cleanup;
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

void tsi_lu_pivoted_apply(const ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y) {
  if (lu->complex_values)
    pivoted_apply_complex(lu, op, (const tsi_complex128 *)rhs, (tsi_complex128 *)x, (tsi_complex128 *)y);
  else
    pivoted_apply_real(lu, op, rhs, x, y);
}
