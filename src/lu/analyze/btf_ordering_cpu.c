/* q = the block upper triangular form of B, each diagonal block ordered by
 * AMD on B_kk + B_kk^T: B(q, q) is block upper triangular, and a static-pivot
 * LU of it fills nothing below the diagonal blocks (L is block diagonal).
 * The blocks are B's strongly connected components (Tarjan, SIAM J. Comput.
 * 1(2), 1972, through SuiteSparse BTF's btf_strongcomp; Duff and Reid, ACM
 * TOMS 4(2), 1978); KLU orders the same way (Davis and Palamadai Natarajan,
 * ACM TOMS 37(3), 2010), though it factors only the diagonal blocks. The
 * matched B has its matched entries on the diagonal, and a symmetric
 * permutation keeps them there. */
#include "lu/analyze/analyze_internal.h"

#if defined(TESSERA_HAVE_AMD) && defined(TESSERA_HAVE_BTF)

#include <amd.h>
#include <btf.h>
#include <stdlib.h>

/* AMD of a block given by rows (ptr, idx) of n local indices, with AMD's
 * dense-row control `dense`. A block of one or two rows needs no ordering.
 * Adds to *work AMD's count of the block's factorization work (its flops
 * and TSI_LU_FACTOR_WORK_PER_ENTRY an entry of L + U, from the Cholesky
 * factor of B_kk + B_kk^T: a bound on the block's static-pivot LU; A's
 * entries above the blocks, which U keeps, are not counted). */
static int32_t order_block(int32_t n, const int32_t *ptr, const int32_t *idx, double dense, int32_t *order,
                           double *work) {
  if (n <= 2) {
    for (int32_t k = 0; k < n; k++)
      order[k] = k;
    *work += (double)n * (n + TSI_LU_FACTOR_WORK_PER_ENTRY * n);
    return AMD_OK;
  }
  double control[AMD_CONTROL], info[AMD_INFO];
  amd_defaults(control);
  control[AMD_DENSE] = dense;
  int32_t status = amd_order(n, ptr, idx, order, control, info);
  *work += info[AMD_NDIV] + 2.0 * info[AMD_NMULTSUBS_LU] + TSI_LU_FACTOR_WORK_PER_ENTRY * (2.0 * info[AMD_LNZ] + n);
  return status == AMD_OK_BUT_JUMBLED ? AMD_OK : status;
}

/* The blocks of B (bounds from btf_strongcomp, in perm's order) with their
 * members ascending (so that B's sorted rows stay sorted in a block's local
 * numbering), last block first; each block of three rows or more ordered by
 * AMD of its own pattern (entries in other blocks left out). */
static int32_t order_blocks(int32_t n, const int32_t *ptr, const int32_t *idx, const int32_t *perm,
                            const int32_t *bounds, int32_t count, double dense, int64_t *q, int32_t *block_at,
                            double *work) {
  int32_t status = AMD_OUT_OF_MEMORY;
  int32_t *block_of = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *local = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *members = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *next = tsi_malloc_array(count, sizeof(int32_t));
  int32_t *block_ptr = tsi_malloc_array((int64_t)n + 1, sizeof(int32_t));
  int32_t *order = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *block_idx = tsi_malloc_array(ptr[n], sizeof(int32_t));
  if (!block_of || !local || !members || !next || !block_ptr || !order || (ptr[n] > 0 && !block_idx))
    goto cleanup;
  for (int32_t b = 0; b < count; b++) {
    next[b] = bounds[b];
    for (int32_t k = bounds[b]; k < bounds[b + 1]; k++)
      block_of[perm[k]] = b;
  }
  for (int32_t v = 0; v < n; v++) {
    int32_t b = block_of[v];
    local[v] = next[b] - bounds[b];
    members[next[b]++] = v;
  }
  int64_t at = 0;
  for (int32_t b = count - 1; b >= 0; b--) {
    int32_t first = bounds[b], size = bounds[b + 1] - first;
    int32_t used = 0;
    block_ptr[0] = 0;
    for (int32_t k = 0; size > 2 && k < size; k++) {
      int32_t v = members[first + k];
      for (int32_t e = ptr[v]; e < ptr[v + 1]; e++)
        if (block_of[idx[e]] == b)
          block_idx[used++] = local[idx[e]];
      block_ptr[k + 1] = used;
    }
    status = order_block(size, block_ptr, block_idx, dense, order, work);
    if (status != AMD_OK)
      goto cleanup;
    for (int32_t k = 0; k < size; k++) {
      if (block_at)
        block_at[at] = count - 1 - b;
      q[at++] = members[first + order[k]];
    }
  }
  status = AMD_OK;
cleanup:
  free(block_of);
  free(local);
  free(members);
  free(next);
  free(block_ptr);
  free(order);
  free(block_idx);
  return status;
}

int64_t tsi_lu_btf_amd_of_rows(const ts_csr *a, const int32_t *row_perm, double dense, int64_t *q, int64_t *blocks,
                               int32_t *block_at, double *blocks_work) {
  const int32_t n = (int32_t)a->rows;
  int32_t status = AMD_OUT_OF_MEMORY;
  *blocks = 0;
  *blocks_work = 0.0;
  int32_t *ptr = tsi_malloc_array((int64_t)n + 1, sizeof(int32_t));
  int32_t *idx = tsi_malloc_array(a->nnz, sizeof(int32_t));
  int32_t *perm = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *bounds = tsi_malloc_array((int64_t)n + 1, sizeof(int32_t));
  int32_t *work = tsi_malloc_array(4 * (int64_t)n, sizeof(int32_t));
  if (!ptr || (a->nnz > 0 && !idx) || !perm || !bounds || !work)
    goto cleanup;
  ptr[0] = 0;
  for (int32_t k = 0; k < n; k++) {
    int64_t row = row_perm ? row_perm[k] : k, at = ptr[k];
    for (int64_t e = a->row_ptr[row]; e < a->row_ptr[row + 1]; e++)
      idx[at++] = a->col_idx[e];
    ptr[k + 1] = (int32_t)at;
  }
  /* B's rows are the columns of B^T, which btf_strongcomp reads: it puts
   * B^T in block upper, so B in block lower triangular form; the blocks
   * taken last to first put B in block upper form. */
  int32_t count = (int32_t)btf_strongcomp(n, ptr, idx, NULL, perm, bounds, work);
  int32_t largest = 0;
  for (int32_t b = 0; b < count; b++)
    largest = bounds[b + 1] - bounds[b] > largest ? bounds[b + 1] - bounds[b] : largest;
  if ((double)largest >= TSI_LU_BTF_LARGEST_BLOCK_SHARE * (double)n)
    count = 1; /* one block in all but name: the whole matrix's ordering */
  *blocks = count;
  if (count > 1) {
    status = order_blocks(n, ptr, idx, perm, bounds, count, dense, q, block_at, blocks_work);
  } else {
    int32_t *order = work;
    status = order_block(n, ptr, idx, dense, order, blocks_work);
    if (status == AMD_OK)
      for (int32_t k = 0; k < n; k++)
        q[k] = order[k];
  }
cleanup:
  free(ptr);
  free(idx);
  free(perm);
  free(bounds);
  free(work);
  return status;
}

#endif
