/* U of the whole matrix from the factors of its diagonal blocks: with M
 * block upper triangular and M_kk = L_kk U_kk, M = L U for L = diag(L_kk)
 * and U's off-diagonal blocks U_kj = L_kk^-1 M_kj, which the block form
 * (lu->block_ptr) never forms; the inspection of the factors does, column
 * by column. Column j's entries above its block are M's; each earlier block
 * k they reach is solved by forward substitution with L_kk over the rows
 * from the first reached one, in increasing order, so the pattern is the
 * reach of M(:, j) through L's columns (Gilbert and Peierls, SIAM J. Sci.
 * Stat. Comput. 9(5), 1988) and the rows come out sorted. */
#include "core/complex_value.h"
#include "lu/inspect/inspect_internal.h"

#include <stdlib.h>
#include <string.h>

/* Growable columns of `parts` doubles a value. */
typedef struct upper_columns {
  int64_t *col_ptr;
  int32_t *row_idx;
  double *values;
  int64_t used, capacity, parts;
} upper_columns;

static bool reserve(upper_columns *u, int64_t more) {
  if (u->row_idx && u->values && u->used + more <= u->capacity)
    return true;
  int64_t capacity = u->capacity > 0 ? u->capacity : 1024;
  while (capacity < u->used + more)
    capacity *= 2;
  int32_t *rows = realloc(u->row_idx, (size_t)capacity * sizeof *rows);
  if (rows)
    u->row_idx = rows;
  double *values = realloc(u->values, (size_t)(capacity * u->parts) * sizeof *values);
  if (values)
    u->values = values;
  if (!rows || !values)
    return false;
  u->capacity = capacity;
  return true;
}

/* Number `part` of the factors' value p, in double. */
static inline double factor_value(const ts_lu *lu, int64_t p, int64_t part) {
  const int64_t at = p * tsi_lu_parts(lu) + part;
  return lu->options.float_factors ? (double)lu->lu_values_f32[at] : lu->lu_values[at];
}

static void append(upper_columns *u, int32_t row, const double *value) {
  u->row_idx[u->used] = row;
  memcpy(u->values + u->used * u->parts, value, (size_t)u->parts * sizeof(double));
  u->used++;
}

/* w(r) -= L(r, j) w(j) for the entries of L(:, j), marking their rows. */
static void subtract_column(const ts_lu *lu, int64_t j, double *w, int64_t *mark, int64_t stamp) {
  const int64_t parts = tsi_lu_parts(lu);
  for (int64_t p = lu->diag_pos[j] + 1; p < lu->lu_col_ptr[j + 1]; p++) {
    const int32_t r = lu->lu_row_idx[p];
    if (mark[r] != stamp) {
      mark[r] = stamp;
      for (int64_t part = 0; part < parts; part++)
        w[r * parts + part] = 0.0;
    }
    if (parts == 1) {
      w[r] -= factor_value(lu, p, 0) * w[j];
    } else {
      const tsi_complex128 l = tsi_z(factor_value(lu, p, 0), factor_value(lu, p, 1));
      const int64_t at = 2 * (int64_t)r;
      const tsi_complex128 product = tsi_z_mul(l, tsi_z(w[2 * j], w[2 * j + 1]));
      w[at] -= product.re;
      w[at + 1] -= product.im;
    }
  }
}

ts_status tsi_lu_whole_upper(const ts_lu *lu, int64_t **col_ptr, int32_t **row_idx, double **values,
                             const char *caller) {
  const int64_t n = lu->n, parts = tsi_lu_parts(lu);
  upper_columns u = {.parts = parts};
  u.col_ptr = tsi_malloc_array(n + 1, sizeof(int64_t));
  int64_t *block_end = tsi_malloc_array(n > 0 ? n : 1, sizeof(int64_t)); /* the end of each column's block */
  int64_t *mark = tsi_malloc_array(n > 0 ? n : 1, sizeof(int64_t));
  double *w = tsi_malloc_array((n > 0 ? n : 1) * parts, sizeof(double));
  bool ok = u.col_ptr && block_end && mark && w;
  for (int64_t b = 0; ok && b < lu->btf_blocks; b++)
    for (int64_t k = lu->block_ptr[b]; k < lu->block_ptr[b + 1]; k++)
      block_end[k] = lu->block_ptr[b + 1];
  for (int64_t k = 0; ok && k < n; k++)
    mark[k] = -1;
  for (int64_t j = 0; ok && j < n; j++) {
    u.col_ptr[j] = u.used;
    const int64_t begin = lu->lu_col_ptr[j], own = lu->block_begin[j], diag = lu->diag_pos[j];
    for (int64_t p = begin; p < own; p++) {
      const int32_t i = lu->lu_row_idx[p];
      mark[i] = j;
      for (int64_t part = 0; part < parts; part++)
        w[i * parts + part] = factor_value(lu, p, part);
    }
    /* The earlier blocks M(:, j) reaches, in increasing order: within one,
     * from its first reached row to its end. */
    for (int64_t p = begin; ok && p < own;) {
      const int64_t first = lu->lu_row_idx[p], end = block_end[first];
      for (int64_t r = first; r < end; r++) {
        if (mark[r] != j)
          continue;
        if (!(ok = reserve(&u, 1)))
          break;
        append(&u, (int32_t)r, w + r * parts);
        subtract_column(lu, r, w, mark, j);
      }
      while (p < own && lu->lu_row_idx[p] < end)
        p++;
    }
    if (ok && (ok = reserve(&u, diag + 1 - own)))
      for (int64_t p = own; p <= diag; p++) {
        double value[2] = {0.0, 0.0};
        for (int64_t part = 0; part < parts; part++)
          value[part] = factor_value(lu, p, part);
        append(&u, lu->lu_row_idx[p], value);
      }
  }
  free(block_end);
  free(mark);
  free(w);
  if (!ok) {
    free(u.col_ptr);
    free(u.row_idx);
    free(u.values);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no memory for U of the whole matrix (%lld entries so far)",
                     caller, (long long)u.used);
  }
  u.col_ptr[n] = u.used; /* at least the n diagonal entries: the arrays exist */
  *col_ptr = u.col_ptr;
  *row_idx = u.row_idx;
  *values = u.values;
  return TS_SUCCESS;
}
