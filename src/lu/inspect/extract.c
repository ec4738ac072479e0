/* ts_lu_extract_csr, ts_lu_extract_csc: the factors of the last
 * factorization on the host, P R A C Q = L U (as klu_extract and SciPy's
 * splu().L, .U, .perm_r, .perm_c), with rows sorted within each row or
 * column: the columns of tsi_lu_columns_get transposed once for CSR (a
 * counting transpose leaves each row's columns in order), twice for CSC. */
#include "lu/inspect/inspect_internal.h"
#include "core/convert_internal.h"

#include <string.h>

/* One triangle of the columns as a CSR matrix of dtype (TS_FLOAT64, or
 * TS_COMPLEX128 for complex values). */
static ts_status triangle_csr(ts_context *ctx, int64_t n, const int64_t *col_ptr, const int32_t *row_idx,
                              const double *values, ts_dtype dtype, ts_csr **out) {
  ts_status st = ts_csr_create(ctx, n, n, col_ptr[n], dtype, out);
  if (st != TS_SUCCESS)
    return st;
  tsi_compressed_transpose(n, n, col_ptr[n], col_ptr, row_idx, values, dtype, (*out)->row_ptr, (*out)->col_idx,
                           (*out)->values);
  return TS_SUCCESS;
}

static ts_status triangle_csc(ts_context *ctx, int64_t n, const int64_t *col_ptr, const int32_t *row_idx,
                              const double *values, ts_dtype dtype, ts_csc **out) {
  ts_csr *rows = NULL;
  ts_status st = triangle_csr(ctx, n, col_ptr, row_idx, values, dtype, &rows);
  if (st == TS_SUCCESS)
    st = ts_csc_from_csr(ctx, rows, out);
  ts_csr_destroy(rows);
  return st;
}

/* The permutations and scalings the caller asked for (any may be NULL). */
static void copy_transforms(const ts_lu *lu, const tsi_lu_columns *columns, int32_t *row_perm, int32_t *col_perm,
                            double *row_scale, double *col_scale) {
  const size_t n = (size_t)lu->n;
  if (row_perm)
    memcpy(row_perm, columns->row_perm, n * sizeof *row_perm);
  if (col_perm)
    memcpy(col_perm, lu->col_perm, n * sizeof *col_perm);
  if (row_scale)
    memcpy(row_scale, lu->row_scale, n * sizeof *row_scale);
  if (col_scale)
    memcpy(col_scale, lu->col_scale, n * sizeof *col_scale);
}

/* One triangle of the columns in the layout asked for: into *csr, or into
 * *csc when csr is NULL. */
static ts_status triangle(ts_context *ctx, int64_t n, const int64_t *col_ptr, const int32_t *row_idx,
                          const double *values, ts_dtype dtype, ts_csr **csr, ts_csc **csc) {
  return csr ? triangle_csr(ctx, n, col_ptr, row_idx, values, dtype, csr)
             : triangle_csc(ctx, n, col_ptr, row_idx, values, dtype, csc);
}

/* Both layouts: the CSR outputs (l_csr, u_csr) or the CSC ones; a NULL
 * output is not built. On failure every output is NULL. */
static ts_status extract(ts_lu *lu, bool by_rows, ts_csr **l_csr, ts_csr **u_csr, ts_csc **l_csc, ts_csc **u_csc,
                         int32_t *row_perm, int32_t *col_perm, double *row_scale, double *col_scale,
                         const char *caller) {
  if (!lu)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: lu is NULL", caller);
  const bool want_l = by_rows ? l_csr != NULL : l_csc != NULL;
  const bool want_u = by_rows ? u_csr != NULL : u_csc != NULL;
  tsi_lu_columns columns;
  ts_status st = tsi_lu_columns_get(lu, want_l, true, &columns, caller);
  if (st != TS_SUCCESS)
    return st;
  const int64_t n = lu->n;
  const ts_dtype dtype = columns.parts == 2 ? TS_COMPLEX128 : TS_FLOAT64;
  if (want_l)
    st = triangle(lu->ctx, n, columns.l_col_ptr, columns.l_row_idx, columns.l_values, dtype, l_csr, l_csc);
  if (st == TS_SUCCESS && want_u)
    st = triangle(lu->ctx, n, columns.u_col_ptr, columns.u_row_idx, columns.u_values, dtype, u_csr, u_csc);
  if (st == TS_SUCCESS)
    copy_transforms(lu, &columns, row_perm, col_perm, row_scale, col_scale);
  tsi_lu_columns_free(&columns);
  if (st != TS_SUCCESS && want_l) {
    if (l_csr) {
      ts_csr_destroy(*l_csr);
      *l_csr = NULL;
    } else {
      ts_csc_destroy(*l_csc);
      *l_csc = NULL;
    }
  }
  return st;
}

ts_status ts_lu_extract_csr(ts_lu *lu, ts_csr **l, ts_csr **u, int32_t *row_perm, int32_t *col_perm, double *row_scale,
                            double *col_scale) {
  if (l)
    *l = NULL;
  if (u)
    *u = NULL;
  return extract(lu, true, l, u, NULL, NULL, row_perm, col_perm, row_scale, col_scale, "ts_lu_extract_csr");
}

ts_status ts_lu_extract_csc(ts_lu *lu, ts_csc **l, ts_csc **u, int32_t *row_perm, int32_t *col_perm, double *row_scale,
                            double *col_scale) {
  if (l)
    *l = NULL;
  if (u)
    *u = NULL;
  return extract(lu, false, NULL, NULL, l, u, row_perm, col_perm, row_scale, col_scale, "ts_lu_extract_csc");
}
