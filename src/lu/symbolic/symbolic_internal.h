/* The symbolic phase: the pattern of L + U of M = P Dr A Dc Q without
 * pivoting, on the host (symbolic_cpu.c picks the row merge with symmetric
 * pruning, the default, or the per-row fill-path traversal, the GPU's
 * algorithm and the tests' reference) or on the GPU (symbolic_cuda.cu, the
 * fill-path traversal out of core); both then share the steps of
 * symbolic.c. */
#ifndef TESSERA_LU_SYMBOLIC_INTERNAL_H
#define TESSERA_LU_SYMBOLIC_INTERNAL_H

#include "lu/lu_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The pattern of L + U by columns (lu_col_ptr, lu_row_idx, diag_pos), the
 * entry map a_to_lu, nnz(L), nnz(U) and the flops, found on the host or
 * (TS_ERROR_UNSUPPORTED without CUDA or without a CUDA context) the GPU. */
ts_status tsi_lu_symbolic_cpu(ts_lu *lu, const ts_csr *a);
ts_status tsi_lu_symbolic_cuda(ts_lu *lu, const ts_csr *a);

/* M's pattern by rows (row i is row row_perm[i] of A, columns renumbered by
 * the inverse of col_perm) and the rows of L + U found from it: row_ptr has
 * n + 1 offsets, each row's columns in any order, its diagonal included;
 * col_count, when the way of finding the rows fills it (n entries), the
 * entries of each column, else NULL. */
typedef struct tsi_lu_rows {
  int64_t n;
  int64_t *m_ptr;
  int32_t *m_idx;
  int64_t *row_ptr;
  int32_t *row_idx;
  int64_t *col_count;
} tsi_lu_rows;

/* The budget in bytes (symbolic_chunks.c): the option, or the default for
 * slots of `largest_slot_words` 32-bit words and `threads` threads. */
int64_t tsi_lu_symbolic_budget(const ts_lu *lu, int64_t largest_slot_words, int threads);

/* Rows per chunk for slots of `words` 32-bit words under `budget` bytes: at
 * least one, so a tiny budget still makes progress, and at most `rows`. */
int64_t tsi_lu_symbolic_chunk_rows(int64_t budget, int64_t words, int64_t rows);

/* Rows of L + U by the per-row fill-path traversal (Rose and Tarjan), into
 * rows->row_ptr and rows->row_idx. */
ts_status tsi_lu_symbolic_fill_path_rows(ts_lu *lu, tsi_lu_rows *rows);

/* Rows of L + U on the GPU, out of core (symbolic_cuda.cu). */
ts_status tsi_lu_symbolic_cuda_rows(ts_lu *lu, tsi_lu_rows *rows);

/* A way of finding the rows of L + U from M's rows (one of the above). */
typedef ts_status (*tsi_lu_rows_fn)(ts_lu *lu, tsi_lu_rows *rows);

/* The symbolic phase with `find_rows`: M's pattern, its rows of L + U, then
 * the columns, the entry map and the counts (symbolic.c). */
ts_status tsi_lu_symbolic_with(ts_lu *lu, const ts_csr *a, tsi_lu_rows_fn find_rows);

/* Rows of L + U by the row merge with symmetric pruning (Eisenstat and Liu). */
ts_status tsi_lu_symbolic_row_merge_rows(ts_lu *lu, tsi_lu_rows *rows);

/* Ask for transparent huge pages on a large array written or read at
 * random (advice only; huge_pages.c). */
void tsi_lu_advise_huge_pages(void *memory, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
