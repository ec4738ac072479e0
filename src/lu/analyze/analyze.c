/* ts_lu_analyze: matching and scaling, fill-reducing ordering, symbolic
 * factorization and levelization of a square matrix, each phase timed
 * (Xia, Jiang, Agrawal and Ramnath, PPoPP 2023, section 3.1). The symbolic
 * and levelization phases run on the host or the GPU as lu_backend.c
 * decides (the host unless the options ask for the GPU). */
#include "lu/analyze/analyze_internal.h"
#include "lu/levelize/levelize_internal.h"
#include "lu/numeric/numeric_internal.h"
#include "lu/symbolic/symbolic_internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static ts_status check_matrix(ts_context *ctx, const ts_csr *a) {
  const char *op = "ts_lu_analyze";
  if (!a)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: a is NULL", op);
  if (a->rows != a->cols)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the matrix is not square (%lld x %lld)", op,
                     (long long)a->rows, (long long)a->cols);
  if (a->symmetry != TS_GENERAL)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: the matrix has %s storage; expand it to general storage first (ts_coo_expand_symmetric)", op,
                     ts_symmetry_name(a->symmetry));
  if (ts_dtype_size(a->dtype) == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown value type %d", op, (int)a->dtype);
  if (a->nnz > 0 && !a->values)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the matrix has no values (the matching reads them)", op);
  return ts_csr_check(ctx, a);
}

/* Keep A's pattern: refactorization checks a new matrix against it, and
 * a_to_lu is indexed by A's entries in this order. */
static ts_status copy_pattern(ts_lu *lu, const ts_csr *a) {
  lu->a_row_ptr = tsi_malloc_array(a->rows + 1, sizeof(int64_t));
  lu->a_col_idx = tsi_malloc_array(a->nnz, sizeof(int32_t));
  if (!lu->a_row_ptr || !lu->a_col_idx)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "ts_lu_analyze: cannot allocate a copy of the pattern (%lld entries)", (long long)a->nnz);
  memcpy(lu->a_row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
  if (a->nnz > 0)
    memcpy(lu->a_col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
  return TS_SUCCESS;
}

/* The analysis's products that depend on the ordering. */
typedef struct ordered_analysis {
  int32_t *row_perm, *col_perm;
  int64_t *a_to_lu, *lu_col_ptr, *diag_pos;
  int32_t *lu_row_idx;
  int64_t lu_nnz, nnz_l, nnz_u, btf_blocks, symbolic_chunks;
  double flops;
} ordered_analysis;

static void take_ordered(ordered_analysis *to, ts_lu *lu) {
  *to = (ordered_analysis){lu->row_perm,
                           lu->col_perm,
                           lu->a_to_lu,
                           lu->lu_col_ptr,
                           lu->diag_pos,
                           lu->lu_row_idx,
                           lu->lu_nnz,
                           lu->stats.nnz_l,
                           lu->stats.nnz_u,
                           lu->btf_blocks,
                           lu->stats.symbolic_chunks,
                           lu->stats.flops};
  lu->row_perm = lu->col_perm = lu->lu_row_idx = NULL;
  lu->a_to_lu = lu->lu_col_ptr = lu->diag_pos = NULL;
}

static void put_ordered(ts_lu *lu, const ordered_analysis *from) {
  lu->row_perm = from->row_perm;
  lu->col_perm = from->col_perm;
  lu->a_to_lu = from->a_to_lu;
  lu->lu_col_ptr = from->lu_col_ptr;
  lu->diag_pos = from->diag_pos;
  lu->lu_row_idx = from->lu_row_idx;
  lu->lu_nnz = from->lu_nnz;
  lu->stats.nnz_l = from->nnz_l;
  lu->stats.nnz_u = from->nnz_u;
  lu->btf_blocks = from->btf_blocks;
  lu->stats.symbolic_chunks = from->symbolic_chunks;
  lu->stats.flops = from->flops;
}

static void free_ordered(ordered_analysis *o) {
  free(o->row_perm);
  free(o->col_perm);
  free(o->a_to_lu);
  free(o->lu_col_ptr);
  free(o->diag_pos);
  free(o->lu_row_idx);
}

static double factor_work_of(double flops, int64_t lu_nnz) {
  return flops + TSI_LU_FACTOR_WORK_PER_ENTRY * (double)lu_nnz;
}

/* The flops of the updates of U's off-diagonal blocks, L_kk^-1 A_kj: column
 * k's updates by columns j of other blocks (block_of: each column's block). */
static double flops_above_blocks(const ts_lu *lu, const int32_t *block_of) {
  double flops = 0.0;
  for (int64_t k = 0; k < lu->n; k++)
    for (int64_t p = lu->lu_col_ptr[k]; p < lu->diag_pos[k]; p++) {
      const int32_t j = lu->lu_row_idx[p];
      if (block_of[j] != block_of[k])
        flops += 2.0 * (double)(lu->lu_col_ptr[j + 1] - lu->diag_pos[j] - 1);
    }
  return flops;
}

/* M in block triangular form, each block ordered on its own, fills nothing
 * below the blocks but can fill much above them (U's off-diagonal blocks are
 * L's diagonal blocks applied to A's, which KLU does not form): mahindas and
 * bp_1200 fill more so than AMD of the whole matrix, Pd and west0479 less.
 * The symbolic phase of the whole matrix's ordering decides, and the
 * ordering whose factorization costs less stays (the block form on a tie).
 * matching is the row_perm the matching made; the second symbolic phase
 * runs where the first did, so that the statistics describe one backend. */
static ts_status keep_less_fill(ts_lu *lu, const ts_csr *a, const int32_t *matching, int symbolic_on_gpu) {
  ordered_analysis blocked, whole;
  take_ordered(&blocked, lu);
  lu->row_perm = tsi_malloc_array(lu->n, sizeof(int32_t));
  lu->col_perm = tsi_malloc_array(lu->n, sizeof(int32_t));
  ts_status st = TS_SUCCESS;
  if (!lu->row_perm || !lu->col_perm)
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate a second ordering");
  if (st == TS_SUCCESS) {
    memcpy(lu->row_perm, matching, (size_t)lu->n * sizeof(int32_t));
    st = tsi_lu_ordering(lu, a, NULL, 0, NULL);
  }
  if (st == TS_SUCCESS)
    st = symbolic_on_gpu ? tsi_lu_symbolic_cuda(lu, a) : tsi_lu_symbolic_cpu(lu, a);
  take_ordered(&whole, lu);
  const int keep_whole =
      st == TS_SUCCESS && factor_work_of(whole.flops, whole.lu_nnz) < factor_work_of(blocked.flops, blocked.lu_nnz);
  put_ordered(lu, keep_whole ? &whole : &blocked);
  free_ordered(keep_whole ? &blocked : &whole);
  return st;
}

/* The whole matrix's symbolic phase on the ordering found, in place of the
 * diagonal blocks' alone: an analysis on a CUDA context whose work turned
 * out large enough for the GPU, whose factors are the whole matrix's. */
static ts_status whole_again(ts_lu *lu, const ts_csr *a) {
  ordered_analysis blocked;
  take_ordered(&blocked, lu);
  lu->row_perm = blocked.row_perm;
  lu->col_perm = blocked.col_perm;
  blocked.row_perm = blocked.col_perm = NULL;
  free_ordered(&blocked);
  free(lu->block_ptr);
  free(lu->block_begin);
  lu->block_ptr = NULL;
  lu->block_begin = NULL;
  lu->host_analysis = 0;
  return tsi_lu_symbolic_cpu(lu, a);
}

/* The bounds of the diagonal blocks from each column's block (ascending),
 * for the host's factorization of the diagonal blocks alone. */
static ts_status take_block_bounds(ts_lu *lu, const int32_t *block_of) {
  lu->block_ptr = tsi_malloc_array(lu->btf_blocks + 1, sizeof(int64_t));
  if (!lu->block_ptr)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the bounds of %lld blocks",
                     (long long)lu->btf_blocks);
  int64_t b = 0;
  lu->block_ptr[0] = 0;
  for (int64_t k = 1; k < lu->n; k++)
    if (block_of[k] != block_of[k - 1])
      lu->block_ptr[++b] = k;
  if (b + 1 != lu->btf_blocks)
    return tsi_error(lu->ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: the ordering named %lld blocks, its columns %lld",
                     (long long)lu->btf_blocks, (long long)(b + 1));
  lu->block_ptr[lu->btf_blocks] = lu->n;
  return TS_SUCCESS;
}

static bool rows_left_in_place(const ts_lu *lu) {
  for (int64_t k = 0; k < lu->n; k++)
    if (lu->row_perm[k] != k)
      return false;
  return true;
}

/* The matching kept in *matching (the ordering composes into row_perm, and
 * a second ordering starts from the matching) with room for the block of
 * each column of the block form in *block_of, then the ordering;
 * speculated as tsi_lu_ordering takes it. */
static ts_status order_matched(ts_lu *lu, const ts_csr *a, int64_t *speculated, int32_t **matching,
                               int32_t **block_of) {
  if ((lu->options.ordering == TS_LU_ORDER_AMD || lu->options.ordering == TS_LU_ORDER_AUTO) && lu->n > 0) {
    *matching = tsi_malloc_array(lu->n, sizeof(int32_t));
    *block_of = tsi_malloc_array(lu->n, sizeof(int32_t));
    if (!*matching || !*block_of)
      return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate a copy of the matching");
    memcpy(*matching, lu->row_perm, (size_t)lu->n * sizeof(int32_t));
  }
  return tsi_lu_ordering(lu, a, speculated, 1, *block_of);
}

/* The matching handed by the caller (lu->handed_matching) as the analysis's
 * own: the same pattern was matched perfectly before. */
static ts_status take_handed_matching(ts_lu *lu) {
  const int64_t n = lu->n;
  const ts_status st = tsi_lu_permutations_alloc(lu, n);
  if (st != TS_SUCCESS)
    return st;
  for (int64_t j = 0; j < n; j++) {
    lu->row_perm[j] = lu->handed_matching[j];
    lu->col_perm[j] = (int32_t)j;
    lu->row_scale[j] = lu->handed_row_scale[j];
    lu->col_scale[j] = lu->handed_col_scale[j];
  }
  lu->stats.structural_rank = n;
  return TS_SUCCESS;
}

ts_status ts_lu_analyze(ts_lu *lu, const ts_csr *a) {
  if (!lu)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_lu_analyze: lu is NULL");
  ts_status st = check_matrix(lu->ctx, a);
  if (st != TS_SUCCESS)
    return st;

  /* A new analysis replaces the old one and any factorization built on it. */
  tsi_lu_numeric_release(lu);
  tsi_lu_analysis_release(lu);
  lu->state = TSI_LU_CREATED;
  memset(&lu->stats, 0, sizeof lu->stats);
  lu->stats.singular_column = -1;
  lu->stats.n = a->rows;
  lu->stats.nnz_a = a->nnz;
  lu->n = a->rows;
  lu->nnz_a = a->nnz;
  lu->complex_values = TS_DTYPE_IS_COMPLEX(a->dtype);

  /* AUTO may hand this analysis's matching to a partial-pivoting one of
   * the same values (factor.c). */
  lu->analyzed_digest =
      lu->options.pivoting == TS_LU_PIVOTING_AUTO && !lu->complex_values && a->nnz <= TSI_LU_PARTIAL_PIVOT_MAX_NNZ
          ? tsi_lu_values_digest(a)
          : 0;
  st = copy_pattern(lu, a);
  if (st != TS_SUCCESS)
    goto cleanup;

  /* AMD orders B + B^T for the matched B; when the matching turns out to
   * be the identity (the circuits, most meshes), B is A, whose ordering a
   * second thread has computed meanwhile. The identity is possible only
   * when every diagonal entry is stored and nonzero (or without the
   * matching); otherwise that work would be lost, and on a busy machine it
   * would slow the matching, so it is not started. Where the matching
   * moves rows after all, the ordering of B starts on the calling thread at
   * once, beside the speculation's end, instead of after it. The
   * ordering's time is what it added after the matching. */
  double start = tsi_seconds(), matched = start;
  int64_t *speculated = NULL;
  int32_t *matching = NULL, *block_of = NULL;
  bool ordered = false;
  const int diagonal = tsi_lu_diagonal_kind(a);
  const bool partial = tsi_lu_partial_pivoting_chosen(lu, a);
  /* An empty matrix has no pivot to choose: it reports what was asked. */
  const bool partial_asked = lu->options.pivoting == TS_LU_PIVOTING_PARTIAL && a->rows == 0;
  lu->stats.pivoting = partial || partial_asked ? TS_LU_PIVOTING_PARTIAL : TS_LU_PIVOTING_STATIC;
#ifdef _OPENMP
  if (!partial && (lu->options.ordering == TS_LU_ORDER_AMD || lu->options.ordering == TS_LU_ORDER_AUTO) &&
      (diagonal == 2 || lu->options.no_matching) &&
      tsi_lu_host_threads(lu, TSI_LU_WORK_ANALYSIS, (double)a->nnz) >= 2) {
    /* The matching and the ordering on the calling thread (thread 0 of
     * the team), which is where their errors must be recorded: a
     * context-free error is the thread's own. */
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0) {
        st = tsi_lu_matching(lu, a, diagonal);
        matched = tsi_seconds();
        if (st == TS_SUCCESS && !rows_left_in_place(lu)) {
          st = order_matched(lu, a, NULL, &matching, &block_of);
          ordered = true;
        }
      } else {
        speculated = tsi_lu_ordering_speculate(lu, a);
      }
    }
  } else
#endif
  {
    st = partial && lu->handed_matching ? take_handed_matching(lu)
         : partial                      ? tsi_lu_matching_partial(lu, a, diagonal)
                                        : tsi_lu_matching(lu, a, diagonal);
    matched = tsi_seconds();
  }
  lu->stats.time_matching = matched - start;
  if (st == TS_SUCCESS && !ordered)
    st = order_matched(lu, a, speculated, &matching, &block_of);
  free(speculated);
  double end = tsi_seconds();
  lu->stats.time_ordering = end - matched;
  if (st != TS_SUCCESS) {
    free(matching);
    free(block_of);
    goto cleanup;
  }

  /* On the host, the diagonal blocks alone: nothing above them is formed,
   * so there is no fill above the blocks to weigh against the whole
   * matrix's ordering. On a CUDA context under AUTO too where AMD's bound
   * on the blocks' work is below the GPU's (and the symbolic phase's count
   * confirms it). */
  lu->host_analysis = tsi_lu_host_analysis_possible(lu, partial) && lu->blocks_work < TSI_LU_GPU_FACTOR_WORK;
  int blocks_alone = lu->btf_blocks > 1 && block_of && tsi_lu_blocks_alone_allowed(lu);
  lu->host_analysis = lu->host_analysis && blocks_alone;
  if (blocks_alone)
    st = take_block_bounds(lu, block_of);
  if (st != TS_SUCCESS) {
    free(matching);
    free(block_of);
    goto cleanup;
  }

  start = end;
  const int symbolic_on_gpu = tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SYMBOLIC);
  /* With partial pivoting the pattern is the one the pivoting finds (on
   * the host, whatever the symbolic backend). */
  if (partial)
    st = tsi_lu_partial_pivot_symbolic(lu, a, blocks_alone ? block_of : NULL);
  else
    st = symbolic_on_gpu ? tsi_lu_symbolic_cuda(lu, a) : tsi_lu_symbolic_cpu(lu, a);
  if (st == TS_SUCCESS && lu->host_analysis && factor_work_of(lu->stats.flops, lu->lu_nnz) >= TSI_LU_GPU_FACTOR_WORK) {
    st = whole_again(lu, a);
    blocks_alone = 0;
  }
  end = tsi_seconds();
  lu->stats.time_symbolic = end - start;
  /* Little work above the blocks (none on sherman5 and fs_183_6): the block
   * form stands without the comparison. The comparison runs on both
   * backends, so that the analysis is the same on both. */
  if (st == TS_SUCCESS && !partial && !blocks_alone && lu->btf_blocks > 1 && matching && block_of &&
      flops_above_blocks(lu, block_of) > TSI_LU_BTF_ABOVE_SHARE * lu->stats.flops)
    st = keep_less_fill(lu, a, matching, symbolic_on_gpu);
  free(matching);
  free(block_of);
  /* The comparison is part of the ordering's choice. */
  start = end;
  end = tsi_seconds();
  lu->stats.time_ordering += end - start;
  if (st != TS_SUCCESS)
    goto cleanup;

  start = end;
  st = tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_LEVELIZE) ? tsi_lu_levelize_cuda(lu) : tsi_lu_levelize_cpu(lu);
  end = tsi_seconds();
  lu->stats.time_levelize = end - start;
  if (st != TS_SUCCESS)
    goto cleanup;

  lu->factor_work = lu->stats.flops + TSI_LU_FACTOR_WORK_PER_ENTRY * (double)lu->lu_nnz;
  lu->state = TSI_LU_ANALYZED;
cleanup:
  /* A failed analysis leaves no partial result behind; the statistics keep
   * what was learnt (the structural rank of a singular matrix). */
  if (st != TS_SUCCESS)
    tsi_lu_analysis_release(lu);
  return st;
}
