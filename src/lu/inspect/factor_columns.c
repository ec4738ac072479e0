/* The factors the solves use, by columns in the user's terms (L, U and the
 * row order of P M = L U), from the static factors (the host's, or the
 * GPU's downloaded) or from the partial-pivoting fallback's; complex values
 * as (re, im) pairs. */
#include "lu/inspect/inspect_internal.h"

#include <stdlib.h>
#include <string.h>

void tsi_lu_columns_free(tsi_lu_columns *columns) {
  free(columns->l_col_ptr);
  free(columns->l_row_idx);
  free(columns->l_values);
  free(columns->u_col_ptr);
  free(columns->u_row_idx);
  free(columns->u_values);
  free(columns->row_perm);
  memset(columns, 0, sizeof *columns);
}

/* Arrays for one triangle of `count` entries of `parts` numbers. */
static bool allocate_triangle(int64_t n, int64_t count, int64_t parts, int64_t **col_ptr, int32_t **row_idx,
                              double **values) {
  *col_ptr = tsi_malloc_array(n + 1, sizeof **col_ptr);
  *row_idx = tsi_malloc_array(count > 0 ? count : 1, sizeof **row_idx);
  *values = tsi_malloc_array((count > 0 ? count : 1) * parts, sizeof **values);
  return *col_ptr && *row_idx && *values;
}

/* Number `part` of the static factors' value p, in double. */
static inline double static_value(const ts_lu *lu, int64_t p, int64_t part) {
  const int64_t at = p * tsi_lu_parts(lu) + part;
  return lu->options.float_factors ? (double)lu->lu_values_f32[at] : lu->lu_values[at];
}

/* Value `to` of out (parts numbers) from value p of the static factors,
 * or from value `from` of an array of doubles. */
static inline void put_static(const ts_lu *lu, double *out, int64_t to, int64_t p) {
  for (int64_t part = 0; part < tsi_lu_parts(lu); part++)
    out[to * tsi_lu_parts(lu) + part] = static_value(lu, p, part);
}
static inline void put_copy(int64_t parts, double *out, int64_t to, const double *in, int64_t from) {
  for (int64_t part = 0; part < parts; part++)
    out[to * parts + part] = in[from * parts + part];
}
/* One (1, or 1 + 0i). */
static inline void put_one(int64_t parts, double *out, int64_t to) {
  out[to * parts] = 1.0;
  if (parts == 2)
    out[to * parts + 1] = 0.0;
}

static void static_columns(const ts_lu *lu, bool want_l, bool unit, tsi_lu_columns *c) {
  const int64_t n = lu->n;
  int64_t l_used = 0, u_used = 0;
  for (int64_t k = 0; k < n; k++) {
    const int64_t begin = lu->lu_col_ptr[k], diag = lu->diag_pos[k], end = lu->lu_col_ptr[k + 1];
    if (!lu->block_ptr) { /* in block form, U of the whole matrix is already there (tsi_lu_whole_upper) */
      c->u_col_ptr[k] = u_used;
      for (int64_t p = begin; p <= diag; p++) {
        c->u_row_idx[u_used] = lu->lu_row_idx[p];
        put_static(lu, c->u_values, u_used++, p);
      }
    }
    if (!want_l)
      continue;
    c->l_col_ptr[k] = l_used;
    if (unit) {
      c->l_row_idx[l_used] = (int32_t)k;
      put_one(c->parts, c->l_values, l_used++);
    }
    for (int64_t p = diag + 1; p < end; p++) {
      c->l_row_idx[l_used] = lu->lu_row_idx[p];
      put_static(lu, c->l_values, l_used++, p);
    }
  }
  if (!lu->block_ptr)
    c->u_col_ptr[n] = u_used;
  if (want_l)
    c->l_col_ptr[n] = l_used;
  memcpy(c->row_perm, lu->row_perm, (size_t)n * sizeof *c->row_perm);
}

/* The fallback's L holds M's row numbers (pinv gives their positions) and
 * its U positions, the diagonal apart; both in the order the reach left. */
static void pivoted_columns(const ts_lu *lu, bool want_l, bool unit, tsi_lu_columns *c) {
  const tsi_lu_pivoted *f = lu->pivoted;
  const int64_t n = lu->n;
  int64_t l_used = 0, u_used = 0;
  for (int64_t k = 0; k < n; k++) {
    c->u_col_ptr[k] = u_used;
    for (int64_t p = f->u_col_ptr[k]; p < f->u_col_ptr[k + 1]; p++) {
      c->u_row_idx[u_used] = f->u_row_idx[p];
      put_copy(c->parts, c->u_values, u_used++, f->u_values, p);
    }
    c->u_row_idx[u_used] = (int32_t)k;
    put_copy(c->parts, c->u_values, u_used++, f->u_diagonal, k);
    if (!want_l)
      continue;
    c->l_col_ptr[k] = l_used;
    if (unit) {
      c->l_row_idx[l_used] = (int32_t)k;
      put_one(c->parts, c->l_values, l_used++);
    }
    for (int64_t p = f->l_col_ptr[k]; p < f->l_col_ptr[k + 1]; p++) {
      c->l_row_idx[l_used] = (int32_t)f->pinv[f->l_row_idx[p]];
      put_copy(c->parts, c->l_values, l_used++, f->l_values, p);
    }
  }
  c->u_col_ptr[n] = u_used;
  if (want_l)
    c->l_col_ptr[n] = l_used;
  for (int64_t k = 0; k < n; k++)
    c->row_perm[k] = lu->row_perm[f->row_of_position[k]];
}

ts_status tsi_lu_columns_get(ts_lu *lu, bool want_l, bool with_unit_diagonal, tsi_lu_columns *columns,
                             const char *caller) {
  memset(columns, 0, sizeof *columns);
  if (lu->state != TSI_LU_FACTORED)
    return tsi_error(lu->ctx, TS_ERROR_NOT_FACTORED, "%s: no valid factorization (call ts_lu_factor first)", caller);
  const int64_t n = lu->n;
  int64_t l_count, u_count;
  if (lu->pivoted) {
    l_count = lu->pivoted->l_col_ptr[n];
    u_count = lu->pivoted->u_col_ptr[n] + n;
  } else {
    if (lu->factors_on_device) {
      ts_status st = tsi_lu_cuda_download_factors(lu);
      if (st != TS_SUCCESS)
        return st;
    }
    u_count = 0;
    for (int64_t k = 0; k < n; k++)
      u_count += lu->diag_pos[k] - lu->lu_col_ptr[k] + 1;
    l_count = lu->lu_nnz - u_count;
  }
  /* The diagonal blocks factored alone: U of the whole matrix formed here. */
  const bool whole_upper = !lu->pivoted && lu->block_ptr;
  if (whole_upper) {
    ts_status st = tsi_lu_whole_upper(lu, &columns->u_col_ptr, &columns->u_row_idx, &columns->u_values, caller);
    if (st != TS_SUCCESS)
      return st;
  }
  if (with_unit_diagonal)
    l_count += n;
  columns->n = n;
  columns->parts = tsi_lu_parts(lu);
  bool allocated = (whole_upper || allocate_triangle(n, u_count, columns->parts, &columns->u_col_ptr,
                                                     &columns->u_row_idx, &columns->u_values)) &&
                   (columns->row_perm = tsi_malloc_array(n > 0 ? n : 1, sizeof *columns->row_perm)) != NULL;
  if (allocated && want_l)
    allocated =
        allocate_triangle(n, l_count, columns->parts, &columns->l_col_ptr, &columns->l_row_idx, &columns->l_values);
  if (!allocated) {
    tsi_lu_columns_free(columns);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no memory for the factors (%lld entries in L, %lld in U)",
                     caller, (long long)(want_l ? l_count : 0), (long long)u_count);
  }
  if (lu->pivoted)
    pivoted_columns(lu, want_l, with_unit_diagonal, columns);
  else
    static_columns(lu, want_l, with_unit_diagonal, columns);
  return TS_SUCCESS;
}
