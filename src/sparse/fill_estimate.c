/* nnz(L + U) of a square matrix under a symmetric-pattern assumption: the
 * Cholesky factor L of P (A + A^T) P^T, P from AMD (Amestoy, Davis and Duff,
 * SIAM J. Matrix Anal. Appl. 17(4), 1996), counted through the elimination
 * tree (Liu, SIAM J. Matrix Anal. Appl. 11(1), 1990) and row subtrees: row i
 * of L is the union of the tree paths from each k < i with A(i,k) != 0 up
 * to i. Time O(nnz(L)), memory O(nnz(A) + n). */
#include "core/internal.h"

#include <stdlib.h>

#ifdef TESSERA_HAVE_AMD
#include <amd.h>
#endif

/* Pattern of A + A^T without its diagonal, rows sorted, in 64-bit offsets
 * and indices (the form AMD's long-integer interface reads). */
static ts_status symmetric_pattern(ts_context *ctx, const char *op, const ts_csr *a, int64_t **out_ptr,
                                   int64_t **out_idx) {
  ts_status st = TS_SUCCESS;
  int64_t n = a->rows;
  int64_t *tptr = tsi_calloc_array(n + 1, sizeof(int64_t));
  int32_t *tidx = tsi_malloc_array(a->nnz, sizeof(int32_t));
  int64_t *ptr = tsi_calloc_array(n + 1, sizeof(int64_t));
  int64_t *idx = NULL;
  if (!tptr || !tidx || !ptr)
    goto out_of_memory;

  /* A^T's pattern by counting sort: its rows come out sorted. */
  for (int64_t k = 0; k < a->nnz; k++)
    tptr[a->col_idx[k] + 1]++;
  for (int64_t j = 0; j < n; j++)
    tptr[j + 1] += tptr[j];
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      tidx[tptr[a->col_idx[k]]++] = (int32_t)i;
  for (int64_t j = n; j > 0; j--)
    tptr[j] = tptr[j - 1];
  tptr[0] = 0;

  st = tsi_progress(ctx, 0, a->nnz);
  if (st != TS_SUCCESS)
    goto cleanup;
  /* Two passes of the same merge of row i of A and of A^T: count, then
   * fill; rows in blocks of about TSI_CANCEL_BLOCK entries, a cancellation
   * check between. */
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t start = 0, end; start < n; start = end) {
      end = tsi_block_end_by_work(a->row_ptr, start, n);
#pragma omp parallel for schedule(dynamic, 256)
      for (int64_t i = start; i < end; i++) {
        int64_t p = a->row_ptr[i], p_end = a->row_ptr[i + 1], q = tptr[i], q_end = tptr[i + 1];
        int64_t count = 0, at = pass ? ptr[i] : 0;
        while (p < p_end || q < q_end) {
          int64_t j;
          if (q >= q_end || (p < p_end && a->col_idx[p] < tidx[q])) {
            j = a->col_idx[p++];
          } else if (p >= p_end || tidx[q] < a->col_idx[p]) {
            j = tidx[q++];
          } else {
            j = tidx[q++];
            p++;
          }
          if (j == i)
            continue;
          if (pass)
            idx[at++] = j;
          else
            count++;
        }
        if (!pass)
          ptr[i + 1] = count;
      }
      if ((st = tsi_check_cancel(ctx)) != TS_SUCCESS)
        goto cleanup;
    }
    if (pass == 0) {
      for (int64_t i = 0; i < n; i++)
        ptr[i + 1] += ptr[i];
      idx = tsi_malloc_array(ptr[n] > 0 ? ptr[n] : 1, sizeof(int64_t));
      if (!idx)
        goto out_of_memory;
    }
  }
  *out_ptr = ptr;
  *out_idx = idx;
  ptr = NULL;
  idx = NULL;
  goto cleanup;
out_of_memory:
  st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the pattern of A + A^T (%lld entries of A)", op,
                 (long long)a->nnz);
cleanup:
  free(tptr);
  free(tidx);
  free(ptr);
  free(idx);
  return st;
}

/* nnz(L) with its diagonal for the symmetric pattern (ptr, idx) eliminated
 * in the order perm (perm[k] = original index of the k-th pivot; NULL =
 * natural order). */
static ts_status count_factor(ts_context *ctx, const char *op, int64_t n, const int64_t *ptr, const int64_t *idx,
                              const int64_t *perm, int64_t *l_nnz) {
  ts_status st = TS_SUCCESS;
  int64_t *pinv = tsi_malloc_array(n, sizeof(int64_t));
  int64_t *parent = tsi_malloc_array(n, sizeof(int64_t));
  int64_t *ancestor = tsi_malloc_array(n, sizeof(int64_t));
  if (!pinv || !parent || !ancestor) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the elimination tree of %lld nodes", op,
                   (long long)n);
    goto cleanup;
  }
  for (int64_t k = 0; k < n; k++)
    pinv[k] = -1;
  for (int64_t k = 0; k < n; k++) {
    int64_t old = perm ? perm[k] : k;
    if (old < 0 || old >= n || pinv[old] != -1) {
      st = tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the ordering is not a permutation (position %lld)", op,
                     (long long)k);
      goto cleanup;
    }
    pinv[old] = k;
  }

  /* Elimination tree, with path compression through `ancestor` (Liu). A
   * cancellation check about every TSI_CANCEL_BLOCK entries visited. */
  int64_t visited = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t old = perm ? perm[k] : k;
    parent[k] = -1;
    ancestor[k] = -1;
    visited += ptr[old + 1] - ptr[old] + 1;
    if (visited >= TSI_CANCEL_BLOCK) {
      visited = 0;
      if ((st = tsi_check_cancel(ctx)) != TS_SUCCESS)
        goto cleanup;
    }
    for (int64_t p = ptr[old]; p < ptr[old + 1]; p++) {
      int64_t r = pinv[idx[p]];
      if (r >= k)
        continue;
      while (ancestor[r] != -1 && ancestor[r] != k) {
        int64_t next = ancestor[r];
        ancestor[r] = k;
        r = next;
      }
      if (ancestor[r] == -1) {
        ancestor[r] = k;
        parent[r] = k;
      }
    }
  }

  /* Row subtrees: `ancestor` now serves as the mark of the last row that
   * visited a node. */
  int64_t below_diagonal = 0;
  for (int64_t k = 0; k < n; k++)
    ancestor[k] = -1;
  for (int64_t i = 0; i < n; i++) {
    int64_t old = perm ? perm[i] : i;
    ancestor[i] = i;
    for (int64_t p = ptr[old]; p < ptr[old + 1]; p++) {
      int64_t j = pinv[idx[p]];
      if (j >= i)
        continue;
      while (ancestor[j] != i) {
        ancestor[j] = i;
        below_diagonal++;
        visited++;
        j = parent[j];
      }
    }
    if (++visited >= TSI_CANCEL_BLOCK) {
      visited = 0;
      if ((st = tsi_check_cancel(ctx)) != TS_SUCCESS)
        goto cleanup;
    }
  }
  *l_nnz = below_diagonal + n;
cleanup:
  free(pinv);
  free(parent);
  free(ancestor);
  return st;
}

static ts_status check_square(ts_context *ctx, const char *op, const ts_csr *a) {
  if (!a)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: a is NULL", op);
  if (a->rows != a->cols)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the matrix is not square (%lld x %lld)", op,
                     (long long)a->rows, (long long)a->cols);
  return ts_csr_check(ctx, a);
}

/* nnz(L) and nnz(L + U) under a given ordering (NULL = natural); internal,
 * used by the tests to compare with a naive elimination. */
ts_status tsi_csr_fill_count_ordered(ts_context *ctx, const ts_csr *a, const int64_t *perm, int64_t *lu_nnz,
                                     int64_t *l_nnz) {
  const char *op = "ts_csr_fill_estimate";
  int64_t *ptr = NULL, *idx = NULL, l = 0;
  ts_status st = check_square(ctx, op, a);
  if (st == TS_SUCCESS)
    st = symmetric_pattern(ctx, op, a, &ptr, &idx);
  if (st == TS_SUCCESS)
    st = count_factor(ctx, op, a->rows, ptr, idx, perm, &l);
  if (st == TS_SUCCESS) {
    if (lu_nnz)
      *lu_nnz = 2 * l - a->rows;
    if (l_nnz)
      *l_nnz = l;
  }
  free(ptr);
  free(idx);
  return st;
}

#ifdef TESSERA_HAVE_AMD
static ts_status amd_ordering(ts_context *ctx, const char *op, int64_t n, const int64_t *ptr, const int64_t *idx,
                              int64_t *perm) {
  _Static_assert(sizeof(SuiteSparse_long) == sizeof(int64_t), "AMD's long integers must be 64-bit");
  double info[AMD_INFO];
  SuiteSparse_long status = amd_l_order((SuiteSparse_long)n, (const SuiteSparse_long *)ptr,
                                        (const SuiteSparse_long *)idx, (SuiteSparse_long *)perm, NULL, info);
  if (status == AMD_OUT_OF_MEMORY)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: AMD ran out of memory ordering %lld rows", op, (long long)n);
  if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED)
    return tsi_error(ctx, TS_ERROR_INTERNAL, "%s: AMD refused the pattern of A + A^T (status %ld)", op, (long)status);
  return TS_SUCCESS;
}
#endif

/* AMD ordering of A + A^T (perm[k] = original index of pivot k); internal. */
ts_status tsi_csr_fill_amd_order(ts_context *ctx, const ts_csr *a, int64_t *perm) {
  const char *op = "ts_csr_fill_estimate";
#ifdef TESSERA_HAVE_AMD
  int64_t *ptr = NULL, *idx = NULL;
  ts_status st = check_square(ctx, op, a);
  if (st == TS_SUCCESS)
    st = symmetric_pattern(ctx, op, a, &ptr, &idx);
  if (st == TS_SUCCESS && a->rows > 0)
    st = amd_ordering(ctx, op, a->rows, ptr, idx, perm);
  free(ptr);
  free(idx);
  return st;
#else
  (void)a;
  (void)perm;
  return tsi_error(ctx, TS_ERROR_UNSUPPORTED, "%s: tessera was built without SuiteSparse AMD", op);
#endif
}

ts_status ts_csr_fill_estimate(ts_context *ctx, const ts_csr *a, int64_t *lu_nnz, int64_t *l_nnz) {
  const char *op = "ts_csr_fill_estimate";
  if (!lu_nnz)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: lu_nnz is NULL", op);
#ifdef TESSERA_HAVE_AMD
  int64_t *ptr = NULL, *idx = NULL, *perm = NULL, l = 0;
  ts_status st = check_square(ctx, op, a);
  if (st == TS_SUCCESS)
    st = symmetric_pattern(ctx, op, a, &ptr, &idx);
  if (st == TS_SUCCESS) {
    perm = tsi_malloc_array(a->rows > 0 ? a->rows : 1, sizeof(int64_t));
    if (!perm)
      st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the ordering", op);
  }
  if (st == TS_SUCCESS && a->rows > 0)
    st = amd_ordering(ctx, op, a->rows, ptr, idx, perm);
  if (st == TS_SUCCESS)
    st = count_factor(ctx, op, a->rows, ptr, idx, perm, &l);
  if (st == TS_SUCCESS) {
    *lu_nnz = 2 * l - a->rows;
    if (l_nnz)
      *l_nnz = l;
  }
  free(ptr);
  free(idx);
  free(perm);
  return st;
#else
  (void)a;
  (void)l_nnz;
  return tsi_error(ctx, TS_ERROR_UNSUPPORTED,
                   "%s: tessera was built without SuiteSparse AMD (install it, e.g. libsuitesparse-dev, and rebuild)",
                   op);
#endif
}
