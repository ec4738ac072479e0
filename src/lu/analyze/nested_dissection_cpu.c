/* Nested dissection of the matched matrix B (B(k, :) = A(row_perm[k], :)):
 * METIS's node nested dissection (Karypis and Kumar, SIAM J. Sci. Comput.
 * 20(1), 1998) of the graph of B + B^T, its diagonal left out. On meshes a
 * dissection's separators give less fill than a minimum degree ordering
 * (George, SIAM J. Numer. Anal. 10(2), 1973: O(n log n) on 2-D grids) and
 * balanced elimination trees, which the fronts factor level by level. The
 * seed is fixed, so that the ordering, and the factors, are the same run to
 * run. */
#include "lu/analyze/analyze_internal.h"

#include <stdlib.h>
#include <string.h>

#ifdef TESSERA_HAVE_METIS
#include <metis.h>

_Static_assert(sizeof(idx_t) == sizeof(int32_t), "tessera calls METIS with 32-bit indices");

/* The graph of B + B^T without self-loops and without repeated neighbours
 * (METIS takes the lists unsorted): a count pass, a fill pass, then each
 * vertex's list compacted with a stamp per neighbour. */
static ts_status symmetric_graph(ts_lu *lu, const ts_csr *a, idx_t **xadj_out, idx_t **adjncy_out) {
  const int64_t n = a->rows;
  int64_t *count = tsi_calloc_array(n + 1, sizeof(int64_t));
  int32_t *position = tsi_malloc_array(n, sizeof(int32_t)); /* B's row of each of A's rows */
  idx_t *xadj = tsi_malloc_array(n + 1, sizeof(idx_t));
  idx_t *adjncy = NULL, *stamp = NULL;
  ts_status st = TS_SUCCESS;
  if (!count || !position || !xadj) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the graph of %lld rows",
                   (long long)n);
    goto cleanup;
  }
  for (int64_t k = 0; k < n; k++)
    position[lu->row_perm[k]] = (int32_t)k;
  for (int64_t r = 0; r < n; r++)
    for (int64_t e = a->row_ptr[r]; e < a->row_ptr[r + 1]; e++) {
      const int64_t k = position[r], c = a->col_idx[e];
      if (k != c) {
        count[k + 1]++;
        count[c + 1]++;
      }
    }
  for (int64_t k = 0; k < n; k++)
    count[k + 1] += count[k];
  if (count[n] > INT32_MAX) {
    st = tsi_error(lu->ctx, TS_ERROR_OVERFLOW,
                   "ts_lu_analyze: the graph of B + B^T has %lld arcs, beyond METIS's 32-bit indices (ask for AMD)",
                   (long long)count[n]);
    goto cleanup;
  }
  adjncy = tsi_malloc_array(count[n] > 0 ? count[n] : 1, sizeof(idx_t));
  stamp = tsi_malloc_array(n, sizeof(idx_t));
  if (!adjncy || !stamp) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the graph's %lld arcs",
                   (long long)count[n]);
    goto cleanup;
  }
  for (int64_t r = 0; r < n; r++)
    for (int64_t e = a->row_ptr[r]; e < a->row_ptr[r + 1]; e++) {
      const int64_t k = position[r], c = a->col_idx[e];
      if (k != c) {
        adjncy[count[k]++] = (idx_t)c;
        adjncy[count[c]++] = (idx_t)k;
      }
    }
  /* count[k] is now where list k ends; compact each list in place. */
  for (int64_t k = 0; k < n; k++)
    stamp[k] = -1;
  int64_t at = 0, begin = 0;
  for (int64_t k = 0; k < n; k++) {
    const int64_t end = count[k];
    xadj[k] = (idx_t)at;
    for (int64_t e = begin; e < end; e++) {
      const idx_t j = adjncy[e];
      if (stamp[j] != (idx_t)k) {
        stamp[j] = (idx_t)k;
        adjncy[at++] = j;
      }
    }
    begin = end;
  }
  xadj[n] = (idx_t)at;
  *xadj_out = xadj;
  *adjncy_out = adjncy;
  xadj = adjncy = NULL;
cleanup:
  free(count);
  free(position);
  free(xadj);
  free(adjncy);
  free(stamp);
  return st;
}

/* The factorization work of the graph's Cholesky factor in the order perm
 * (iperm its inverse), as AMD counts it for its own order
 * (btf_ordering_cpu.c): divisions, twice the multiply-subtract pairs of an
 * LU with that pattern, and TSI_LU_FACTOR_WORK_PER_ENTRY an entry of L + U.
 * Column counts from the elimination tree and each row's subtree (Liu, SIAM
 * J. Matrix Anal. Appl. 11(1), 1990): O(nnz(L)) steps. */
static ts_status cholesky_work(ts_lu *lu, int64_t n, const idx_t *xadj, const idx_t *adjncy, const idx_t *perm,
                               const idx_t *iperm, double *work) {
  int32_t *parent = tsi_malloc_array(n, sizeof(int32_t)), *ancestor = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *mark = tsi_malloc_array(n, sizeof(int32_t));
  int64_t *count = tsi_calloc_array(n, sizeof(int64_t));
  ts_status st = TS_SUCCESS;
  if (!parent || !ancestor || !mark || !count) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the dissection's counts");
    goto cleanup;
  }
  /* The elimination tree, with path compression through ancestor. */
  for (int64_t k = 0; k < n; k++) {
    parent[k] = ancestor[k] = -1;
    const idx_t v = perm[k];
    for (idx_t e = xadj[v]; e < xadj[v + 1]; e++) {
      int32_t j = (int32_t)iperm[adjncy[e]];
      while (j >= 0 && j < k) {
        const int32_t next = ancestor[j];
        ancestor[j] = (int32_t)k;
        if (next < 0)
          parent[j] = (int32_t)k;
        j = next;
      }
    }
  }
  /* Row k of L is the union of the tree paths from its entries up to k. */
  for (int64_t k = 0; k < n; k++) {
    mark[k] = (int32_t)k;
    const idx_t v = perm[k];
    for (idx_t e = xadj[v]; e < xadj[v + 1]; e++)
      for (int32_t j = (int32_t)iperm[adjncy[e]]; j < k && mark[j] != k; j = parent[j]) {
        mark[j] = (int32_t)k;
        count[j]++;
      }
  }
  double total = 0.0;
  for (int64_t k = 0; k < n; k++) {
    const double c = (double)count[k];
    total += c + 2.0 * c * c + TSI_LU_FACTOR_WORK_PER_ENTRY * (2.0 * c + 1.0);
  }
  *work = total;
cleanup:
  free(parent);
  free(ancestor);
  free(mark);
  free(count);
  return st;
}

ts_status tsi_lu_nested_dissection_of_matched(ts_lu *lu, const ts_csr *a, int64_t *q, double *work) {
  const int64_t n = a->rows;
  if (n > INT32_MAX - 1)
    return tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: %lld rows are beyond METIS's 32-bit indices",
                     (long long)n);
  idx_t *xadj = NULL, *adjncy = NULL;
  ts_status st = symmetric_graph(lu, a, &xadj, &adjncy);
  if (st != TS_SUCCESS)
    return st;
  idx_t *perm = tsi_malloc_array(n, sizeof(idx_t)), *iperm = tsi_malloc_array(n, sizeof(idx_t));
  if (!perm || !iperm) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the dissection of %lld rows",
                   (long long)n);
    goto cleanup;
  }
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1;
  idx_t vertices = (idx_t)n;
  const int status = METIS_NodeND(&vertices, xadj, adjncy, NULL, options, perm, iperm);
  if (status == METIS_ERROR_MEMORY) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: METIS ran out of memory dissecting %lld rows",
                   (long long)n);
    goto cleanup;
  }
  if (status != METIS_OK) {
    st = tsi_error(lu->ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: METIS refused the matched pattern (status %d)", status);
    goto cleanup;
  }
  /* METIS's perm[k] is the vertex eliminated k-th: the ordering's q. */
  for (int64_t k = 0; k < n; k++)
    q[k] = perm[k];
  if (work)
    st = cholesky_work(lu, n, xadj, adjncy, perm, iperm, work);
cleanup:
  free(xadj);
  free(adjncy);
  free(perm);
  free(iperm);
  return st;
}
#endif
