/* Where each phase of the LU solver runs, and with how many host threads:
 * the one place both are decided.
 *
 *   phase      runs on the GPU when
 *   symbolic   switches.symbolic_device says so; else (AUTO) when
 *              options.symbolic_backend is CUDA on a CUDA context
 *   levelize   switches.levelize_device says so; else (AUTO) when
 *              options.levelize_backend is CUDA on a CUDA context
 *   numeric    options.backend is CUDA (on a context without CUDA the GPU
 *              path refuses it), never when it is CPU; AUTO: when the
 *              context is on CUDA and the analysis estimates at least
 *              TSI_LU_GPU_FACTOR_WORK of work (flops and a share per entry
 *              of L + U) for a refactorization (a factorization of the
 *              analysis stood before), at least TSI_LU_GPU_FIRST_FACTOR_WORK
 *              for the analysis's first factorization, which on the GPU also
 *              pays the device arrays and the fronts' plan
 *   solve      the factors are on the device (the last factorization ran
 *              there) and the partial-pivoting fallback, a host
 *              factorization, is not in use
 *
 * The diagonal blocks of a block triangular form are factored alone
 * (tsi_lu_blocks_alone_allowed) off a CUDA context (where no phase can go
 * to the GPU), and on one under AUTO for an analysis whose work stays below
 * TSI_LU_GPU_FACTOR_WORK (lu->host_analysis: its factorizations then never
 * go to the GPU), with the host's row merge and without the fronts forced;
 * otherwise on a CUDA context the host's factors and the GPU's stay the
 * whole matrix's, bit for bit the same.
 *
 * ts_lu_create refuses a CUDA symbolic or levelize backend on a context
 * without CUDA; a build without CUDA never makes a CUDA context, so there
 * every phase runs on the host unless options.backend or a switch asks for
 * the GPU, which the *_nocuda.c stubs refuse.
 *
 * Host threads (tsi_lu_host_threads): one thread for every part below the
 * size where threads pay, else the context's threads capped at the cores
 * free of other work. A pass over A or L + U pays from a smaller size when
 * many cores are free (a machine such as a GPU host, where the pass runs
 * between GPU calls): the time a thread of a small team waits for the
 * scheduler is the risk the larger size guards against on a busy machine
 * of few cores.
 *
 * Why the analysis phases default to the host even on a CUDA context: the
 * host's row merge was faster than the GPU's fill-path traversal on circuit
 * matrices and the host's longest-path sweep faster than the GPU's Kahn
 * sort with its uploads (bench/results: lu-analysis-h200.md,
 * lu-analysis-cpu.md). The numeric phases go to the GPU there only for
 * factorizations of enough work: for a small one the GPU path's fixed
 * costs (launches, synchronisations, transfers) exceed the whole host
 * factorization (bench/notes/lu-newton.md records the rule's measurements
 * and misses). */
#include "lu/lu_internal.h"

#include "core/convert_internal.h"

static bool analysis_on_gpu(const ts_lu *lu, int forced, ts_backend backend) {
  if (forced != TSI_LU_PHASE_AUTO)
    return forced == TSI_LU_PHASE_GPU;
  return backend == TS_BACKEND_CUDA && lu->ctx && lu->ctx->backend == TS_BACKEND_CUDA;
}

static bool numeric_on_gpu(const ts_lu *lu) {
  if (lu->options.backend == TS_BACKEND_CUDA)
    return true; /* refused by the GPU path on a context without CUDA */
  if (!lu->ctx || lu->options.backend == TS_BACKEND_CPU || lu->ctx->backend != TS_BACKEND_CUDA || lu->host_analysis)
    return false;
  /* AUTO on a CUDA context: the GPU for factorizations that pay for its
   * fixed costs (a launch or more a level, a synchronisation, the transfers
   * of the values and of the solves' vectors), and for the first one of an
   * analysis, its setup too (the device arrays, the fronts' plan). The
   * switch after the first changes no bits: on a CUDA context the host's
   * factors are the GPU's. */
  if (lu->factor_work >= TSI_LU_GPU_FIRST_FACTOR_WORK)
    return true;
  return lu->factor_work >= TSI_LU_GPU_FACTOR_WORK && lu->pivot_base_set;
}

bool tsi_lu_runs_on_gpu(const ts_lu *lu, enum tsi_lu_phase phase) {
  switch (phase) {
  case TSI_LU_PHASE_SYMBOLIC:
    return analysis_on_gpu(lu, lu->switches.symbolic_device, lu->options.symbolic_backend);
  case TSI_LU_PHASE_LEVELIZE:
    return analysis_on_gpu(lu, lu->switches.levelize_device, lu->options.levelize_backend);
  case TSI_LU_PHASE_NUMERIC:
    return numeric_on_gpu(lu);
  case TSI_LU_PHASE_SOLVE:
    return lu->factors_on_device && !lu->pivoted;
  }
  return false;
}

bool tsi_lu_blocks_alone_allowed(const ts_lu *lu) {
  if (lu->switches.whole_factors || lu->switches.symbolic_fill_path ||
      lu->switches.numeric_method == TSI_LU_METHOD_FRONTS)
    return false;
  /* No CUDA context: the numeric phase can never take the GPU. On a CUDA
   * context even the host's factors stay the whole matrix's, the GPU's
   * bits (the host is the GPU path's reference there). */
  const bool host_only =
      (lu->options.backend != TS_BACKEND_CUDA && (!lu->ctx || lu->ctx->backend != TS_BACKEND_CUDA)) ||
      lu->host_analysis;
  return host_only && !tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SYMBOLIC) && !tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_LEVELIZE);
}

bool tsi_lu_host_analysis_possible(const ts_lu *lu, bool partial) {
  return lu->ctx && lu->ctx->backend == TS_BACKEND_CUDA && lu->options.backend == TS_BACKEND_AUTO && !partial &&
         !tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SYMBOLIC) && !tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_LEVELIZE);
}

int tsi_lu_threads(const ts_lu *lu) {
#ifdef _OPENMP
  return tsi_thread_count(lu->ctx);
#else
  (void)lu;
  return 1;
#endif
}

/* Host threads of a parallel part: one below the size from which threads
 * pay (lu_tuning.h); above it, the context's threads, but only as many as
 * find a free core, since a thread the scheduler sets aside stalls the
 * others at their next wait for a time slice (several ms). Thread counts
 * never change a result: every parallel part gives the same bits on any
 * number of threads. */
int tsi_lu_host_threads(const ts_lu *lu, enum tsi_lu_host_work kind, double amount) {
  const int threads = tsi_lu_threads(lu);
  if (lu->switches.cpu_threads > 0)
    return lu->switches.cpu_threads < threads ? lu->switches.cpu_threads : threads;
  if (threads <= 1)
    return 1;
  double from = TSI_LU_PASS_PARALLEL_ENTRIES;
  if (kind == TSI_LU_WORK_FACTOR)
    from = TSI_LU_FACTOR_PARALLEL_WORK;
  else if (kind == TSI_LU_WORK_ANALYSIS)
    from = TSI_LU_ANALYSIS_PARALLEL_ENTRIES;
  if (kind == TSI_LU_WORK_PASS && amount >= TSI_LU_PASS_PARALLEL_ENTRIES_MANY_CORES && !(amount >= from)) {
    const int free_cores = tsi_lu_free_cores(threads);
    return free_cores >= TSI_LU_PASS_MANY_FREE_CORES ? free_cores : 1;
  }
  if (!(amount >= from))
    return 1;
  return tsi_lu_free_cores(threads);
}
