/* ts_lu_analyze: matching and scaling, fill-reducing ordering, symbolic
 * factorization and levelization of a square matrix, each phase timed
 * (Xia, Jiang, Agrawal and Ramnath, PPoPP 2023, section 3.1); the symbolic
 * phase runs on the GPU when the options ask for it, the levelization
 * whenever the context is on CUDA. */
#include "lu_analysis.h"
#include "lu_analysis_time.h"
#include "lu_symbolic.h"

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
  if (a->dtype != TS_FLOAT32 && a->dtype != TS_FLOAT64)
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

/* Does a phase run on the GPU: forced by the tests and benchmarks (device),
 * else when the options ask for it (backend) on a CUDA context. */
static int phase_on_gpu(const ts_lu *lu, int device, ts_backend backend) {
  if (device != TSI_LU_PHASE_AUTO)
    return device == TSI_LU_PHASE_GPU;
  return backend == TS_BACKEND_CUDA && lu->ctx && lu->ctx->backend == TS_BACKEND_CUDA;
}
/* Both phases default to the host. Symbolic: on the H200 the host's row
 * merge was faster on circuit matrices (10^5 rows: 251 against 303 ms; 10^6
 * rows: 418 against 3,502 ms), the GPU only on the 2-D Laplacian (1.3x),
 * bench/results/lu/lu-analysis-h200.md; the row merge has since become 1.9-2.5x
 * faster (bench/results/lu/lu-analysis-cpu.md). Levels: the GPU's cooperative Kahn sort took
 * 1.9 ms (10^5 netlist), 18.6 ms (10^6) and 120-133 ms (Laplacian 500^2,
 * 4,012 levels) on the H200 before its uploads; the host's longest-path
 * sweep takes 1.4, 13.9 and 4.4 ms (Laplacian 316^2) on a 2-core machine
 * (bench/results/lu/lu-analysis-cpu.md), 10.7 ms on the 3,299-level circuit grid. */

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

  st = copy_pattern(lu, a);
  if (st != TS_SUCCESS)
    goto cleanup;

  /* AMD orders B + B^T for the matched B; when the matching turns out to
   * be the identity (the circuits, most meshes), B is A, whose ordering a
   * second thread has computed meanwhile (10^6-row netlist: the matching's
   * 142 ms taken off the ordering's 408). The ordering's time is what it
   * added after the matching. */
  double start = tsi_lu_seconds(), matched = start;
  int64_t *speculated = NULL;
#ifdef _OPENMP
  if (tsi_lu_symbolic_threads(lu) >= 2 && lu->options.ordering == TS_LU_ORDER_AMD) {
    /* The matching on the calling thread (thread 0 of the team), which is
     * where its errors must be recorded: a context-free error is the
     * thread's own. */
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0) {
        st = tsi_lu_matching(lu, a);
        matched = tsi_lu_seconds();
      } else {
        speculated = tsi_lu_ordering_speculate(lu, a);
      }
    }
  } else
#endif
  {
    st = tsi_lu_matching(lu, a);
    matched = tsi_lu_seconds();
  }
  lu->stats.time_matching = matched - start;
  if (st == TS_SUCCESS)
    st = tsi_lu_ordering(lu, a, speculated);
  free(speculated);
  double end = tsi_lu_seconds();
  lu->stats.time_ordering = end - matched;
  if (st != TS_SUCCESS)
    goto cleanup;

  start = end;
  st = phase_on_gpu(lu, lu->symbolic_device, lu->options.symbolic_backend) ? tsi_lu_symbolic_cuda(lu, a)
                                                                           : tsi_lu_symbolic_cpu(lu, a);
  end = tsi_lu_seconds();
  lu->stats.time_symbolic = end - start;
  if (st != TS_SUCCESS)
    goto cleanup;

  start = end;
  st = phase_on_gpu(lu, lu->levelize_device, lu->options.levelize_backend) ? tsi_lu_levelize_cuda(lu)
                                                                           : tsi_lu_levelize_cpu(lu);
  end = tsi_lu_seconds();
  lu->stats.time_levelize = end - start;
  if (st != TS_SUCCESS)
    goto cleanup;

  lu->state = TSI_LU_ANALYZED;
cleanup:
  /* A failed analysis leaves no partial result behind; the statistics keep
   * what was learnt (the structural rank of a singular matrix). */
  if (st != TS_SUCCESS)
    tsi_lu_analysis_release(lu);
  return st;
}
