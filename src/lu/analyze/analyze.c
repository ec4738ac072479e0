/* ts_lu_analyze: matching and scaling, fill-reducing ordering, symbolic
 * factorization and levelization of a square matrix, each phase timed
 * (Xia, Jiang, Agrawal and Ramnath, PPoPP 2023, section 3.1). The symbolic
 * and levelization phases run on the host or the GPU as lu_backend.c
 * decides (the host unless the options ask for the GPU). */
#include "lu/analyze/analyze_internal.h"
#include "lu/levelize/levelize_internal.h"
#include "lu/numeric/numeric_internal.h"
#include "lu/symbolic/symbolic_internal.h"

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

  st = copy_pattern(lu, a);
  if (st != TS_SUCCESS)
    goto cleanup;

  /* AMD orders B + B^T for the matched B; when the matching turns out to
   * be the identity (the circuits, most meshes), B is A, whose ordering a
   * second thread has computed meanwhile. The identity is possible only
   * when every diagonal entry is stored and nonzero (or without the
   * matching); otherwise that work would be lost, and on a busy machine it
   * would slow the matching, so it is not started. The ordering's time is
   * what it added after the matching. */
  double start = tsi_seconds(), matched = start;
  int64_t *speculated = NULL;
  const int diagonal = tsi_lu_diagonal_kind(a);
#ifdef _OPENMP
  if (lu->options.ordering == TS_LU_ORDER_AMD && (diagonal == 2 || lu->options.no_matching) &&
      tsi_lu_host_threads(lu, TSI_LU_WORK_ANALYSIS, (double)a->nnz) >= 2) {
    /* The matching on the calling thread (thread 0 of the team), which is
     * where its errors must be recorded: a context-free error is the
     * thread's own. */
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0) {
        st = tsi_lu_matching(lu, a, diagonal);
        matched = tsi_seconds();
      } else {
        speculated = tsi_lu_ordering_speculate(lu, a);
      }
    }
  } else
#endif
  {
    st = tsi_lu_matching(lu, a, diagonal);
    matched = tsi_seconds();
  }
  lu->stats.time_matching = matched - start;
  if (st == TS_SUCCESS)
    st = tsi_lu_ordering(lu, a, speculated);
  free(speculated);
  double end = tsi_seconds();
  lu->stats.time_ordering = end - matched;
  if (st != TS_SUCCESS)
    goto cleanup;

  start = end;
  st = tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SYMBOLIC) ? tsi_lu_symbolic_cuda(lu, a) : tsi_lu_symbolic_cpu(lu, a);
  end = tsi_seconds();
  lu->stats.time_symbolic = end - start;
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
