/* The analysis (ts_lu_analyze, analyze.c): the matching and scaling, the
 * fill-reducing ordering, and the release of what an analysis built. The
 * symbolic and levelization phases it runs next have headers of their own
 * (lu/symbolic/, lu/levelize/). */
#ifndef TESSERA_LU_ANALYZE_INTERNAL_H
#define TESSERA_LU_ANALYZE_INTERNAL_H

#include "lu/lu_internal.h"

#include <stdbool.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether every row of A stores its diagonal entry (1), and with a nonzero
 * value (2), else 0: with 1 the identity is a perfect matching of the
 * pattern and the structural rank is n without a search (common for circuit
 * and mesh matrices); with 2 also of the nonzero entries, and only then can
 * the matching be the identity (matching_cpu.c). */
int tsi_lu_diagonal_kind(const ts_csr *a);

/* row_perm (the matching), row_scale and col_scale, and the structural
 * rank of a singular matrix in the statistics; diagonal is
 * tsi_lu_diagonal_kind(a) (matching_cpu.c). */
ts_status tsi_lu_matching(ts_lu *lu, const ts_csr *a, int diagonal);

/* The status of a singular pattern (TS_ERROR_STRUCTURALLY_SINGULAR with the
 * structural rank of the stored pattern), else TS_SUCCESS; of nonzero
 * entries without a perfect matching (the pattern's rank, or that of the
 * nonzero entries); of A's first entry that is not finite, `entry` (the
 * pattern's rank first, as without the matching) (matching_cpu.c). */
ts_status tsi_lu_check_pattern_rank(ts_lu *lu, const ts_csr *a, int diagonal);
ts_status tsi_lu_no_perfect_matching(ts_lu *lu, const ts_csr *a, int diagonal);
ts_status tsi_lu_non_finite_entry(ts_lu *lu, const ts_csr *a, int diagonal, int64_t entry);

/* The matching's arrays, n entries each: lu->row_perm, col_perm, row_scale
 * and col_scale (the analysis's release frees them). */
static inline ts_status tsi_lu_permutations_alloc(ts_lu *lu, int64_t n) {
  lu->row_perm = tsi_malloc_array(n, sizeof(int32_t));
  lu->col_perm = tsi_malloc_array(n, sizeof(int32_t));
  lu->row_scale = tsi_malloc_array(n, sizeof(double));
  lu->col_scale = tsi_malloc_array(n, sizeof(double));
  if (!lu->row_perm || !lu->col_perm || !lu->row_scale || !lu->col_scale)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the permutations of %lld rows",
                     (long long)n);
  return TS_SUCCESS;
}

/* A digest of a's values (their bits, word by word; never 0): equal values
 * have equal digests. */
static inline uint64_t tsi_lu_values_digest(const ts_csr *a) {
  const size_t bytes = (size_t)a->nnz * ts_dtype_size(a->dtype);
  const unsigned char *p = (const unsigned char *)a->values;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)bytes;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  for (; i < bytes; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h ? h : 1;
}

/* Entry k of a real matrix (float64 or float32 values) as a double. */
static inline double tsi_lu_real_entry(const ts_csr *a, int64_t k) {
  return a->dtype == TS_FLOAT64 ? ((const double *)a->values)[k] : (double)((const float *)a->values)[k];
}

/* The matching of partial pivoting's analysis: the weighted matching of
 * tsi_lu_matching and its scaling, which make M the same for A and for A
 * with its rows and columns in other units, so that the pivot tolerance
 * and the singularity policy see A's own numbers; where its scales would
 * leave double's range (TS_ERROR_OVERFLOW there), a maximum transversal of
 * the nonzero entries (no weights; the identity when every diagonal entry
 * is nonzero) with rows and columns scaled toward equilibrium by powers of
 * two (tsi_lu_matching_transversal). The same statuses as tsi_lu_matching
 * on singular or non-finite input. Real values only (transversal_cpu.c). */
ts_status tsi_lu_matching_partial(ts_lu *lu, const ts_csr *a, int diagonal);
ts_status tsi_lu_matching_transversal(ts_lu *lu, const ts_csr *a, int diagonal);

/* Whether the analysis of a takes its pivots from threshold partial
 * pivoting on a's values: TS_LU_PIVOTING_PARTIAL asked for, a real matrix,
 * the matching on (partial_pivots_cpu.c; AUTO's rule is
 * tsi_lu_partial_pivoting_instead, lu_internal.h). */
bool tsi_lu_partial_pivoting_chosen(const ts_lu *lu, const ts_csr *a);

/* The symbolic phase of the partial-pivoting analysis, after the ordering:
 * threshold partial pivoting (Gilbert and Peierls) on M = P Dr A Dc Q with
 * a's values, within each diagonal block (block_of: each column's block,
 * ascending, where the blocks are factored alone; NULL: the whole matrix),
 * preferring M's diagonal. row_perm then lists the chosen pivot rows, and
 * the pattern of L + U is the one the pivoting found, so that the static
 * factorization of these values takes the same pivots
 * (partial_pivots_cpu.c). */
ts_status tsi_lu_partial_pivot_symbolic(ts_lu *lu, const ts_csr *a, const int32_t *block_of);

/* Largest matching of the stored entries of a square CSR pattern (Duff's
 * depth-first augmenting paths); entries with skip[k] != 0 are left out when
 * skip is not NULL. Returns its size in *rank, and the row matched to each
 * column in col_match (-1 where none) when col_match is not NULL. */
ts_status tsi_lu_structural_rank(ts_context *ctx, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                 const unsigned char *skip, int32_t *col_match, int64_t *rank);

/* Composes the ordering into row/col_perm; speculated (or NULL) is the
 * block form's ordering of A itself (tsi_lu_ordering_speculate), used when
 * the matching left the rows in place. With block_form the AMD ordering
 * orders within the blocks of the block triangular form (SuiteSparse BTF),
 * else the whole matrix; lu->btf_blocks gets the number of blocks (1 when
 * the whole matrix was ordered) and, with several, block_of (n entries, or NULL) the
 * block of each column of M (ordering_cpu.c). */
ts_status tsi_lu_ordering(ts_lu *lu, const ts_csr *a, int64_t *speculated, int block_form, int32_t *block_of);
/* METIS's nested dissection of the graph of B + B^T, B(k, :) =
 * A(row_perm[k], :), into q (n entries): the whole matrix, a fixed seed;
 * with work not NULL, the factorization work of its Cholesky pattern as
 * AMD's blocks_work counts it (nested_dissection_cpu.c, with METIS). */
ts_status tsi_lu_nested_dissection_of_matched(ts_lu *lu, const ts_csr *a, int64_t *q, double *work);

/* The AMD ordering of A + A^T within the blocks of A's block triangular
 * form: n entries, the number of blocks, then (with several) n entries with
 * the block of each position (the caller frees); NULL when the options ask
 * for another ordering or it fails; sets no error, so that it can run beside
 * the matching. */
int64_t *tsi_lu_ordering_speculate(const ts_lu *lu, const ts_csr *a);

/* The AMD ordering of B + B^T within each diagonal block of B's block upper
 * triangular form, the blocks in that form's order, B(k, :) = A(row_perm[k], :)
 * (A when row_perm is NULL); counts below 2^31. A form whose largest block
 * holds TSI_LU_BTF_LARGEST_BLOCK_SHARE of the rows counts as one block (the
 * whole matrix ordered). With several blocks, block_at (n entries, or NULL)
 * gets the block of each position of q, 0 the first. Returns AMD's status
 * (AMD_OUT_OF_MEMORY when the workspace cannot be allocated) and the number
 * of blocks in *blocks; sets no error (btf_ordering_cpu.c, with SuiteSparse
 * AMD and BTF). dense is AMD's dense-row control (ts_lu_options::amd_dense).
 * *blocks_work gets AMD's bound on the factorization work of the blocks alone. */
int64_t tsi_lu_btf_amd_of_rows(const ts_csr *a, const int32_t *row_perm, double dense, int64_t *q, int64_t *blocks,
                               int32_t *block_at, double *blocks_work);

/* Free the analysis's arrays and everything built on them (the device
 * cache, the pivoted factors) and reset their fields, the options and
 * switches kept (analysis_release.c). */
void tsi_lu_analysis_release(ts_lu *lu);

#ifdef __cplusplus
}
#endif

#endif
