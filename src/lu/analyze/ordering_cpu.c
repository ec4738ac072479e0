/* Fill-reducing ordering of the matched matrix B (B(k, :) = A(row matched to
 * column k, :), so B's diagonal holds the matched entries), applied
 * symmetrically: M = B(q, q) keeps the matched entries on its diagonal.
 * q is SuiteSparse AMD's ordering of B + B^T (Amestoy, Davis and Duff, SIAM
 * J. Matrix Anal. Appl. 17(4), 1996), of the whole matrix or (where
 * SuiteSparse BTF is present and the analysis asks) within each block of
 * B's block triangular form (btf_ordering_cpu.c), COLAMD's column ordering of B (Davis,
 * Gilbert, Larimore and Ng, ACM TOMS 30(3), 2004), METIS's nested dissection of
 * B + B^T (nested_dissection_cpu.c), or the identity. */
#include "lu/analyze/analyze_internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#ifdef TESSERA_HAVE_AMD
#include <amd.h>
#endif
#ifdef TESSERA_HAVE_COLAMD
#include <colamd.h>
#endif

#if defined(TESSERA_HAVE_AMD) || defined(TESSERA_HAVE_COLAMD)
_Static_assert(sizeof(SuiteSparse_long) == sizeof(int64_t), "SuiteSparse's long integers must be 64-bit");
#endif

#ifdef TESSERA_HAVE_AMD
/* AMD of B + B^T, B(k, :) = A(row_perm[k], :) (A itself when row_perm is
 * NULL); AMD forms the symmetric pattern itself from B's rows (sorted, no
 * duplicates: A passed ts_csr_check). Its 32-bit version when the counts
 * fit: the same ordering (the same algorithm on narrower integers) in less
 * time, its arrays being half as wide (bench/notes/lu-analysis.md). Returns AMD's status (AMD_OUT_OF_MEMORY also when
 * the input cannot be allocated); sets no error, so that it can run beside the matching on another thread. */
/* INT is a type: it cannot take parentheses. NOLINTBEGIN(bugprone-macro-parentheses) */
#define TSI_AMD_OF_ROWS(NAME, INT, ORDER)                                                                              \
  static int64_t NAME(const ts_csr *a, const int32_t *row_perm, double dense, int64_t *q) {                            \
    int64_t n = a->rows;                                                                                               \
    INT *ptr = tsi_malloc_array(n + 1, sizeof(INT));                                                                   \
    INT *idx = tsi_malloc_array(a->nnz, sizeof(INT));                                                                  \
    INT *order = tsi_malloc_array(n, sizeof(INT));                                                                     \
    INT status = AMD_OUT_OF_MEMORY;                                                                                    \
    if (ptr && idx && order) {                                                                                         \
      ptr[0] = 0;                                                                                                      \
      for (int64_t k = 0; k < n; k++) {                                                                                \
        int64_t row = row_perm ? row_perm[k] : k, at = ptr[k];                                                         \
        for (int64_t e = a->row_ptr[row]; e < a->row_ptr[row + 1]; e++)                                                \
          idx[at++] = (INT)a->col_idx[e];                                                                              \
        ptr[k + 1] = (INT)at;                                                                                          \
      }                                                                                                                \
      double control[AMD_CONTROL], info[AMD_INFO];                                                                     \
      amd_defaults(control);                                                                                           \
      control[AMD_DENSE] = dense;                                                                                      \
      status = ORDER((INT)n, ptr, idx, order, control, info);                                                          \
      if (status == AMD_OK || status == AMD_OK_BUT_JUMBLED)                                                            \
        for (int64_t k = 0; k < n; k++)                                                                                \
          q[k] = order[k];                                                                                             \
    }                                                                                                                  \
    free(ptr);                                                                                                         \
    free(idx);                                                                                                         \
    free(order);                                                                                                       \
    return status;                                                                                                     \
  }
TSI_AMD_OF_ROWS(amd_of_rows_32, int32_t, amd_order)
TSI_AMD_OF_ROWS(amd_of_rows_64, SuiteSparse_long, amd_l_order)
#undef TSI_AMD_OF_ROWS
/* NOLINTEND(bugprone-macro-parentheses) */

/* The block form's ordering when asked and possible (*blocks set to the
 * number of blocks), else the whole matrix's (*blocks left at 1). */
static int64_t amd_of_rows(const ts_csr *a, const int32_t *row_perm, double dense, int64_t *q, int block_form,
                           int64_t *blocks, int32_t *block_at, double *blocks_work) {
  *blocks = 1;
  *blocks_work = INFINITY;
#ifdef TESSERA_HAVE_BTF
  if (block_form && a->nnz < INT32_MAX && a->rows < INT32_MAX)
    return tsi_lu_btf_amd_of_rows(a, row_perm, dense, q, blocks, block_at, blocks_work);
#else
  (void)block_form;
  (void)block_at;
#endif
  return a->nnz < INT32_MAX && a->rows < INT32_MAX ? amd_of_rows_32(a, row_perm, dense, q)
                                                   : amd_of_rows_64(a, row_perm, dense, q);
}

static ts_status amd_of_matched(ts_lu *lu, const ts_csr *a, int64_t *q, int block_form, int32_t *block_of) {
  int64_t status =
      amd_of_rows(a, lu->row_perm, lu->options.amd_dense, q, block_form, &lu->btf_blocks, block_of, &lu->blocks_work);
  if (status == AMD_OUT_OF_MEMORY)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: AMD ran out of memory ordering %lld rows",
                     (long long)a->rows);
  if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED)
    return tsi_error(lu->ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: AMD refused the matched pattern (status %ld)",
                     (long)status);
  return TS_SUCCESS;
}
#endif

int64_t *tsi_lu_ordering_speculate(const ts_lu *lu, const ts_csr *a) {
#ifdef TESSERA_HAVE_AMD
  if ((lu->options.ordering != TS_LU_ORDER_AMD && lu->options.ordering != TS_LU_ORDER_AUTO) || a->rows == 0)
    return NULL;
  /* The block count goes after the ordering, in q[n], then the block of
   * each position, then the blocks' work (its bits). */
  const int64_t n = a->rows;
  int64_t *q = tsi_malloc_array(2 * n + 2, sizeof(int64_t));
  int32_t *block_at = tsi_malloc_array(n, sizeof(int32_t));
  double blocks_work = INFINITY;
  if (q && block_at && amd_of_rows(a, NULL, lu->options.amd_dense, q, 1, &q[n], block_at, &blocks_work) == AMD_OK) {
    for (int64_t k = 0; q[n] > 1 && k < n; k++)
      q[n + 1 + k] = block_at[k];
    memcpy(&q[2 * n + 1], &blocks_work, sizeof blocks_work);
  } else {
    free(q);
    q = NULL;
  }
  free(block_at);
  return q;
#else
  (void)lu;
  (void)a;
  return NULL;
#endif
}

#ifdef TESSERA_HAVE_COLAMD
/* COLAMD reads B by columns: A's entry (r, c) is B's (k, c) where row r is
 * matched to column k. */
static ts_status colamd_of_matched(ts_lu *lu, const ts_csr *a, int64_t *q) {
  ts_status st = TS_SUCCESS;
  int64_t n = a->rows;
  size_t recommended = colamd_l_recommended((SuiteSparse_long)a->nnz, (SuiteSparse_long)n, (SuiteSparse_long)n);
  int32_t *matched_col = tsi_malloc_array(n, sizeof(int32_t));
  SuiteSparse_long *ptr = tsi_calloc_array(n + 1, sizeof(SuiteSparse_long));
  SuiteSparse_long *idx = recommended > 0 ? tsi_malloc_array((int64_t)recommended, sizeof(SuiteSparse_long)) : NULL;
  if (recommended == 0) {
    st = tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: COLAMD's workspace for %lld entries is too large",
                   (long long)a->nnz);
    goto cleanup;
  }
  if (!matched_col || !ptr || !idx) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate COLAMD's workspace (%zu words)",
                   recommended);
    goto cleanup;
  }
  for (int64_t k = 0; k < n; k++)
    matched_col[lu->row_perm[k]] = (int32_t)k;
  for (int64_t e = 0; e < a->nnz; e++)
    ptr[a->col_idx[e] + 1]++;
  for (int64_t c = 0; c < n; c++)
    ptr[c + 1] += ptr[c];
  for (int64_t r = 0; r < n; r++)
    for (int64_t e = a->row_ptr[r]; e < a->row_ptr[r + 1]; e++)
      idx[ptr[a->col_idx[e]]++] = matched_col[r];
  for (int64_t c = n; c > 0; c--)
    ptr[c] = ptr[c - 1];
  ptr[0] = 0;
  SuiteSparse_long stats[COLAMD_STATS];
  if (!colamd_l((SuiteSparse_long)n, (SuiteSparse_long)n, (SuiteSparse_long)recommended, idx, ptr, NULL, stats)) {
    st = tsi_error(lu->ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: COLAMD refused the matched pattern (status %ld)",
                   (long)stats[COLAMD_STATUS]);
    goto cleanup;
  }
  for (int64_t k = 0; k < n; k++)
    q[k] = ptr[k];
cleanup:
  free(matched_col);
  free(ptr);
  free(idx);
  return st;
}
#endif

#ifdef TESSERA_HAVE_AMD
static bool matching_is_identity(const ts_lu *lu) {
  for (int64_t k = 0; k < lu->n; k++)
    if (lu->row_perm[k] != k)
      return false;
  return true;
}
#endif

#ifdef TESSERA_HAVE_METIS
/* TS_LU_ORDER_AUTO: nested dissection instead of AMD's q where it promises
 * less work (the rule at TSI_LU_ND_MIN_ROWS in lu_tuning.h). */
static ts_status nested_dissection_if_better(ts_lu *lu, const ts_csr *a, int64_t *q) {
  const int64_t n = a->rows;
  if (lu->btf_blocks != 1 || n < TSI_LU_ND_MIN_ROWS || !(lu->blocks_work >= TSI_LU_ND_TRY_WORK_PER_ROW * (double)n) ||
      !isfinite(lu->blocks_work))
    return TS_SUCCESS;
  int64_t *dissection = tsi_malloc_array(n, sizeof(int64_t));
  if (!dissection)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate a second ordering of %lld rows",
                     (long long)n);
  double work = INFINITY;
  /* A dissection that fails (METIS out of memory, a graph past its 32-bit
   * indices) leaves AMD's ordering, which AUTO has already: not an error. */
  if (tsi_lu_nested_dissection_of_matched(lu, a, dissection, &work) == TS_SUCCESS &&
      work < TSI_LU_ND_GAIN * lu->blocks_work) {
    memcpy(q, dissection, (size_t)n * sizeof(int64_t));
    lu->blocks_work = work;
    lu->stats.ordering = TS_LU_ORDER_NESTED_DISSECTION;
  }
  free(dissection);
  return TS_SUCCESS;
}
#endif

#if !defined(TESSERA_HAVE_AMD) || !defined(TESSERA_HAVE_COLAMD) || !defined(TESSERA_HAVE_METIS)
/* An ordering this build lacks the library of. */
static ts_status missing_library(ts_lu *lu, const char *ordering, const char *library, const char *package,
                                 const char *instead) {
  return tsi_error(lu->ctx, TS_ERROR_UNSUPPORTED,
                   "ts_lu_analyze: the %s ordering needs %s, which this build of tessera lacks (install it, e.g. "
                   "%s, and rebuild, or ask for %s)",
                   ordering, library, package, instead);
}
#endif

ts_status tsi_lu_ordering(ts_lu *lu, const ts_csr *a, int64_t *speculated, int block_form, int32_t *block_of) {
  int64_t n = a->rows;
  ts_status st = TS_SUCCESS;
  int64_t *q = NULL;
  int32_t *matched = NULL;
  const bool amd = lu->options.ordering == TS_LU_ORDER_AMD || lu->options.ordering == TS_LU_ORDER_AUTO;
  lu->btf_blocks = 1;
  lu->blocks_work = INFINITY;
  lu->stats.ordering = lu->options.ordering == TS_LU_ORDER_AUTO ? TS_LU_ORDER_AMD : lu->options.ordering;
  if (lu->options.ordering == TS_LU_ORDER_NATURAL || n == 0)
    return TS_SUCCESS;
#ifndef TESSERA_HAVE_AMD
  if (amd)
    return missing_library(lu, "AMD", "SuiteSparse AMD", "libsuitesparse-dev", "TS_LU_ORDER_NATURAL");
#endif
#ifndef TESSERA_HAVE_COLAMD
  if (lu->options.ordering == TS_LU_ORDER_COLAMD)
    return missing_library(lu, "COLAMD", "SuiteSparse COLAMD", "libsuitesparse-dev", "TS_LU_ORDER_NATURAL");
#endif
#ifndef TESSERA_HAVE_METIS
  if (lu->options.ordering == TS_LU_ORDER_NESTED_DISSECTION)
    return missing_library(lu, "nested dissection", "METIS", "libmetis-dev", "TS_LU_ORDER_AMD");
#endif
  q = tsi_malloc_array(n, sizeof(int64_t));
  matched = tsi_malloc_array(n, sizeof(int32_t));
  if (!q || !matched) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the ordering of %lld rows",
                   (long long)n);
    goto cleanup;
  }
#ifdef TESSERA_HAVE_AMD
  if (amd) {
    if (block_form && speculated && matching_is_identity(lu)) {
      memcpy(q, speculated, (size_t)n * sizeof(int64_t));
      lu->btf_blocks = speculated[n];
      memcpy(&lu->blocks_work, &speculated[2 * n + 1], sizeof lu->blocks_work);
      for (int64_t k = 0; block_of && lu->btf_blocks > 1 && k < n; k++)
        block_of[k] = (int32_t)speculated[n + 1 + k];
    } else {
      st = amd_of_matched(lu, a, q, block_form, block_of);
    }
  }
#endif
#ifdef TESSERA_HAVE_COLAMD
  if (lu->options.ordering == TS_LU_ORDER_COLAMD)
    st = colamd_of_matched(lu, a, q);
#endif
#ifdef TESSERA_HAVE_METIS
  if (lu->options.ordering == TS_LU_ORDER_NESTED_DISSECTION)
    st = tsi_lu_nested_dissection_of_matched(lu, a, q, NULL);
  else if (lu->options.ordering == TS_LU_ORDER_AUTO && st == TS_SUCCESS)
    st = nested_dissection_if_better(lu, a, q);
#endif
  if (st != TS_SUCCESS)
    goto cleanup;
  /* Compose: column j of M is column q[j] of A (matching leaves columns in
   * place), and row j of M is the row matched to that column. */
  for (int64_t k = 0; k < n; k++)
    matched[k] = lu->row_perm[k];
  for (int64_t j = 0; j < n; j++) {
    if (q[j] < 0 || q[j] >= n) {
      st = tsi_error(lu->ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: the ordering is not a permutation (position %lld)",
                     (long long)j);
      goto cleanup;
    }
    lu->col_perm[j] = (int32_t)q[j];
    lu->row_perm[j] = matched[q[j]];
  }
cleanup:
  free(q);
  free(matched);
  return st;
}
