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

/* ---- fronts of the multifrontal numeric phase (fronts.c) ------------------------- */

/* Relaxed amalgamation: a child front merges into its parent when the merged
 * front has at most max_pivots[0] pivots, or at most max_pivots[1] and a
 * fraction of explicit zeros below max_zeros[0], or at most max_pivots[2]
 * and below max_zeros[1], or any size below max_zeros[2] (the zeros counted
 * in the factors' part of the front: its pivot columns of L and rows of U). */
typedef struct tsi_lu_front_rule {
  int64_t max_pivots[3];
  double max_zeros[3];
} tsi_lu_front_rule;

/* The multifrontal view of the factorization of M (Duff and Reid, "The
 * multifrontal solution of indefinite sparse symmetric linear equations",
 * ACM TOMS 9(3), 1983; for unsymmetric matrices on the symmetrized pattern,
 * as Amestoy and Duff's MUMPS): the elimination tree of the pattern of
 * L + U + (L + U)^T, its Cholesky column counts, and the supernodes of that
 * pattern with relaxed amalgamation (Ashcraft and Grimes, "The influence of
 * relaxed supernode partitions on the multifrontal method", ACM TOMS 15(4),
 * 1989). Front s is a dense f x f matrix (column-major) on its index list:
 * its p pivots, then the r = f - p rows (= columns) its Schur complement,
 * the contribution block, passes to the parent front; every list is
 * ascending (the pivots of a front are descendants of its last pivot, the
 * other rows its ancestors), so the elimination order within a front is a
 * topological order of the tree and the factors are those of M in its own
 * order, entry for entry, up to rounding. */
typedef struct tsi_lu_fronts {
  int64_t n, count;
  /* Levels of the front tree by height (leaves at level 0): the fronts of
   * level l are level_fronts[level_ptr[l] .. level_ptr[l + 1]), ascending;
   * every child is on an earlier level than its parent. Fronts are
   * numbered in this order (level_fronts[k] == k). */
  int64_t levels;
  int64_t *level_ptr; /* levels + 1 */
  int32_t *parent;    /* count: parent front, or -1 */
  int64_t *child_ptr; /* count + 1 */
  int32_t *children;  /* each front's children, ascending */
  int32_t *pivots;    /* count: p of each front */
  int32_t *size;      /* count: f of each front */
  int64_t *index_ptr; /* count + 1 */
  int32_t *index;     /* index_ptr[count]: each front's index list (rows of M) */
  /* For each entry of an index list that is not a pivot, its position in
   * the parent's index list (the contribution block's extend-add map); -1
   * at the pivots and at a root. */
  int32_t *relative;
  int64_t *offset;      /* count + 1: front s at values + offset[s], f * f doubles */
  int32_t *front_of;    /* n: the front eliminating each column of M */
  int64_t *lu_to_front; /* lu_nnz: position of each entry of L + U in the fronts' values */
  /* Figures: entries of the pattern's Cholesky factor (one triangle, the
   * diagonal included) and of the fronts' factor parts (p f - p (p - 1) / 2
   * each), the flops of the partial factorizations, and the largest front. */
  int64_t chol_entries, factor_entries;
  double flops;
  int32_t max_size, max_pivots;
  int64_t max_children;
} tsi_lu_fronts;

/* The default rule (lu_tuning.h's TSI_LU_FRONT_* constants). */
tsi_lu_front_rule tsi_lu_front_rule_default(void);

/* The fronts of lu's analysis (its L + U pattern) under rule; *out NULL on
 * failure. The caller frees them with tsi_lu_fronts_free. */
ts_status tsi_lu_fronts_build(const ts_lu *lu, const tsi_lu_front_rule *rule, tsi_lu_fronts **out);
void tsi_lu_fronts_free(tsi_lu_fronts *fronts);

#ifdef __cplusplus
}
#endif

#endif
