/* Sparse LU solvers side by side, per matrix and phase, in one run: tessera
 * with a CUDA context, tessera on the CPU (all threads), SuiteSparse KLU (one
 * thread), UMFPACK (one thread, reference BLAS) and NVIDIA cuDSS (C API).
 * Phases: analyze, factor, refactor (same pattern, values again), solve;
 * every solver gets host arrays and returns host arrays, so the GPU solvers'
 * times include their transfers. b = A * ones; the backward error
 * |b - Ax|_inf / (|A|_inf |x|_inf + |b|_inf) is computed here in double for
 * every solver. The chain analyze, factor, refactor, solve is timed once, or
 * as the median of up to 9 chains when one takes under 0.25 s; each chain
 * starts from a new analysis, so that factor and solve are the first after
 * it (a+f+s end to end). The loop column is a Newton loop's iteration:
 * refactor + solve five times more after the last chain, median.
 *
 * Usage: lu_solvers [options] [CSV_PATH]     (default bench-out/lu_solvers.csv)
 *   --matrices DIR     corpus folder with MANIFEST.tsv (default: TESSERA_MATRICES)
 *   --set LIST         corpus, circuit, laplacian, mesh, all (default corpus,circuit,laplacian)
 *   --only LIST        keep matrices whose name contains one of these words
 *   --solvers LIST     tessera-gpu, tessera-cpu, klu, umfpack, cudss (default: all built)
 *   --budget S         start no matrix after S seconds (default 540)
 *   --cpu-fill-limit N skip the CPU solvers above this AMD fill estimate (default 4e7)
 *   --gpu-fill-limit N the same for the GPU solvers (default 1e9)
 *   --quick            small generated matrices (checks the program, not a measurement)
 *   --unchecked        tessera's solves without the residual and refinement
 *                      (ts_lu_options.unchecked_solves), as cuDSS's and KLU's
 *                      solves by default; the default is tessera's checked solve
 *   --ordering NAME    tessera's ordering: auto (default), amd, nd (METIS
 *                      nested dissection), colamd, natural
 *   --md FILE          also write the Markdown (it is printed on stdout anyway)
 *   --conditioning FILE  instead: the corpus classification table (KLU rcond and
 *                      condest, tessera double and float-factor backward errors)
 * The summary CSV (ratios) is written beside CSV_PATH as *-summary.csv. */
#include "tessera.h"
#include "tsb.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TESSERA_BENCH_HAVE_KLU
#include <klu.h>

#include "lu_klu_phases.h"
#endif
#ifdef TESSERA_BENCH_HAVE_UMFPACK
#include <umfpack.h>
#endif
#if defined(TESSERA_BENCH_HAVE_CUDSS) && defined(TESSERA_HAVE_CUDA)
#include <cuda_runtime.h>
#include <cudss.h>
#define HAVE_CUDSS 1
#endif

enum { TESSERA_GPU, TESSERA_CPU, KLU, UMFPACK, CUDSS, SOLVERS };
static const char *const solver_names[SOLVERS] = {"tessera-gpu", "tessera-cpu", "klu", "umfpack", "cudss"};

typedef struct phase_times {
  bool ran;                                /* the solver ran to a solution */
  double analyze, factor, refactor, solve; /* milliseconds; NAN: not run */
  double loop;                             /* a Newton loop's refactor + solve after the first, ms */
  int64_t lu_nnz;
  double berr;
  char note[160];
} phase_times;

typedef struct bench_options {
  const char *matrices, *only, *md, *conditioning;
  bool want[SOLVERS];
  bool set_corpus, set_circuit, set_laplacian, set_mesh, quick;
  double budget, cpu_fill_limit, gpu_fill_limit;
} bench_options;

static double run_start;
static ts_context *cpu_ctx, *gpu_ctx;
static bool unchecked_solves;                              /* --unchecked */
static ts_lu_ordering tessera_ordering = TS_LU_ORDER_AUTO; /* --ordering */
static bool gpu_lu_on_host;                                /* the CUDA context's LU ran on the host in the probe */

/* ---- helpers ---------------------------------------------------------------------- */

typedef int (*phase_fn)(void *state);

/* Seconds of one call of fn, or NAN when it fails. */
static double time_once(phase_fn fn, void *state) {
  double start = tsb_wall_seconds();
  if (fn(state) != 0)
    return NAN;
  return tsb_wall_seconds() - start;
}

/* Analyze, factor, refactor, solve in turn, stopping at the first failure;
 * the chain again (up to 9 times, medians in ms) while one takes under
 * 0.25 s. Each chain starts from a new analysis, so that the factorization and
 * the solve timed are the first after it, as in a+f+s: what a solver keeps
 * from its first factorization or solve (tessera's device copy of the
 * pattern and schedules, built once per analysis) is paid in every sample,
 * not only in the first. */
static void time_phases(phase_fn analyze, phase_fn factor, phase_fn refactor, phase_fn solve, void *state,
                        phase_times *t) {
  double samples[4][9];
  int count = 0;
  t->analyze = t->factor = t->refactor = t->solve = t->loop = NAN;
  do {
    double chain[4] = {time_once(analyze, state), NAN, NAN, NAN};
    if (!isnan(chain[0]))
      chain[1] = time_once(factor, state);
    if (!isnan(chain[1]) && refactor)
      chain[2] = time_once(refactor, state);
    if (!isnan(chain[1]) && (!refactor || !isnan(chain[2])))
      chain[3] = time_once(solve, state);
    if (isnan(chain[3])) {
      /* A failure: report the phases that ran in this chain. */
      t->analyze = chain[0] * 1e3;
      t->factor = chain[1] * 1e3;
      t->refactor = chain[2] * 1e3;
      t->solve = NAN;
      t->ran = false;
      return;
    }
    for (int p = 0; p < 4; p++)
      samples[p][count] = chain[p];
    count++;
  } while (count < 9 && samples[0][0] + samples[1][0] + samples[2][0] + samples[3][0] < 0.25);
  t->analyze = tsb_stats_of(samples[0], count).median * 1e3;
  t->factor = tsb_stats_of(samples[1], count).median * 1e3;
  t->refactor = refactor ? tsb_stats_of(samples[2], count).median * 1e3 : NAN;
  t->solve = tsb_stats_of(samples[3], count).median * 1e3;
  t->ran = true;
  /* The Newton loop after its first refactorization: refactor + solve
   * again on the last chain's analysis, what each iteration of a
   * simulator's loop pays (the first refactor + solve above also pays what
   * a solver builds once per analysis). */
  t->loop = NAN;
  enum { LOOP = 5 };
  double loop[LOOP];
  for (int r = 0; refactor && r < LOOP; r++) {
    const double refactor_s = time_once(refactor, state);
    const double solve_s = isnan(refactor_s) ? NAN : time_once(solve, state);
    if (isnan(solve_s))
      return;
    loop[r] = refactor_s + solve_s;
  }
  if (refactor)
    t->loop = tsb_stats_of(loop, LOOP).median * 1e3;
}

static double sum3(const phase_times *t) { return t->analyze + t->factor + t->solve; }

/* ---- tessera ------------------------------------------------------------------------ */

typedef struct tessera_state {
  ts_context *ctx;
  const ts_csr *a;
  ts_lu_options options;
  ts_lu *lu;
  const double *b;
  double *x;
  ts_status last;
} tessera_state;

static int tessera_analyze(void *p) {
  tessera_state *s = p;
  ts_lu_destroy(s->lu);
  s->lu = NULL;
  s->last = ts_lu_create(s->ctx, &s->options, &s->lu);
  if (s->last == TS_SUCCESS)
    s->last = ts_lu_analyze(s->lu, s->a);
  return s->last == TS_SUCCESS ? 0 : 1;
}
static int tessera_factor(void *p) {
  tessera_state *s = p;
  s->last = ts_lu_factor(s->lu, s->a);
  return TS_IS_ERROR(s->last) ? 1 : 0;
}
static int tessera_refactor(void *p) {
  tessera_state *s = p;
  s->last = ts_lu_refactor(s->lu, s->a);
  return TS_IS_ERROR(s->last) ? 1 : 0;
}
static int tessera_solve(void *p) {
  tessera_state *s = p;
  s->last = ts_lu_solve(s->lu, TS_OP_NONE, 1, s->b, s->a->rows, s->x, s->a->rows);
  return s->last == TS_SUCCESS ? 0 : 1;
}

static void run_tessera(ts_context *ctx, const ts_csr *a, const double *b, phase_times *t) {
  tessera_state s = {.ctx = ctx, .a = a, .b = b, .x = malloc((size_t)a->rows * sizeof(double))};
  memset(&s.options, 0, sizeof s.options); /* the defaults: double factors, AMD, matching */
  s.options.unchecked_solves = unchecked_solves;
  s.options.ordering = tessera_ordering;
  time_phases(tessera_analyze, tessera_factor, tessera_refactor, tessera_solve, &s, t);
  if (!t->ran) {
    snprintf(t->note, sizeof t->note, "%s", ts_last_error(ctx));
  } else {
    ts_lu_stats stats;
    ts_lu_get_stats(s.lu, &stats);
    t->lu_nnz = stats.nnz_l + stats.nnz_u - stats.n;
    t->berr = tsb_backward_error(a, s.x, b);
    static const char *const ordering_notes[] = {"", "; ordering amd", "; ordering colamd", "; ordering natural",
                                                 "; ordering nd"};
    snprintf(t->note, sizeof t->note, "%lld levels, %d refinement steps, %lld perturbed%s%s%s", (long long)stats.levels,
             stats.refinement_steps, (long long)stats.perturbed_pivots,
             ctx == gpu_ctx && stats.peak_device_bytes == 0 ? "; ran on the host" : "",
             unchecked_solves ? "; unchecked solves" : "",
             stats.ordering == TS_LU_ORDER_NESTED_DISSECTION && tessera_ordering == TS_LU_ORDER_AUTO
                 ? "; ordering auto: nd"
                 : ordering_notes[tessera_ordering]);
  }
  ts_lu_destroy(s.lu);
  free(s.x);
}

/* ---- KLU (one thread, defaults) ---------------------------------------------------- */

#ifdef TESSERA_BENCH_HAVE_KLU
/* A's transpose pattern in int (KLU's int interface); NULL when too large. */
static int *int_col_ptr(const ts_csc *csc) {
  if (csc->nnz > INT32_MAX)
    return NULL;
  int *col_ptr = malloc((size_t)(csc->cols + 1) * sizeof *col_ptr);
  for (int64_t j = 0; col_ptr && j <= csc->cols; j++)
    col_ptr[j] = (int)csc->col_ptr[j];
  return col_ptr;
}

static void run_klu(const ts_csc *csc, const ts_csr *a, const double *b, phase_times *t) {
  klu_state s = {.n = (int)a->rows, .row_idx = csc->row_idx, .values = (double *)csc->values, .b = b};
  s.col_ptr = int_col_ptr(csc);
  s.x = malloc((size_t)s.n * sizeof(double));
  if (!s.col_ptr || !s.x) {
    snprintf(t->note, sizeof t->note, "too large for KLU's int interface");
  } else {
    klu_defaults(&s.common);
    time_phases(klu_run_analyze, klu_run_factor, klu_run_refactor, klu_run_solve, &s, t);
    if (!t->ran) {
      snprintf(t->note, sizeof t->note, "KLU status %d%s", s.common.status,
               s.common.status == KLU_SINGULAR ? " (singular)" : "");
    } else {
      t->lu_nnz = s.numeric->lnz + s.numeric->unz - s.n + s.numeric->nzoff;
      t->berr = tsb_backward_error(a, s.x, b);
    }
  }
  klu_free_numeric(&s.numeric, &s.common);
  klu_free_symbolic(&s.symbolic, &s.common);
  free(s.col_ptr);
  free(s.x);
}
#endif

/* ---- UMFPACK (one thread, defaults: its solve refines up to 2 steps) ------------ */

#ifdef TESSERA_BENCH_HAVE_UMFPACK
typedef struct umfpack_state {
  SuiteSparse_long n, *col_ptr, *row_idx;
  double *values;
  void *symbolic, *numeric;
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  const double *b;
  double *x;
  SuiteSparse_long status;
} umfpack_state;

static int umfpack_run_symbolic(void *p) {
  umfpack_state *s = p;
  umfpack_dl_free_symbolic(&s->symbolic);
  s->status = umfpack_dl_symbolic(s->n, s->n, s->col_ptr, s->row_idx, s->values, &s->symbolic, s->control, s->info);
  return s->status == UMFPACK_OK ? 0 : 1;
}
static int umfpack_run_numeric(void *p) {
  umfpack_state *s = p;
  umfpack_dl_free_numeric(&s->numeric);
  s->status = umfpack_dl_numeric(s->col_ptr, s->row_idx, s->values, s->symbolic, &s->numeric, s->control, s->info);
  return s->status == UMFPACK_OK ? 0 : 1;
}
static int umfpack_run_solve(void *p) {
  umfpack_state *s = p;
  s->status =
      umfpack_dl_solve(UMFPACK_A, s->col_ptr, s->row_idx, s->values, s->x, s->b, s->numeric, s->control, s->info);
  return s->status == UMFPACK_OK ? 0 : 1;
}

static void run_umfpack(const ts_csc *csc, const ts_csr *a, const double *b, phase_times *t) {
  umfpack_state s = {.n = a->rows, .values = (double *)csc->values, .b = b};
  s.col_ptr = malloc((size_t)(s.n + 1) * sizeof(SuiteSparse_long));
  s.row_idx = malloc((size_t)(csc->nnz > 0 ? csc->nnz : 1) * sizeof(SuiteSparse_long));
  s.x = malloc((size_t)s.n * sizeof(double));
  if (!s.col_ptr || !s.row_idx || !s.x) {
    snprintf(t->note, sizeof t->note, "out of host memory");
  } else {
    for (int64_t j = 0; j <= s.n; j++)
      s.col_ptr[j] = csc->col_ptr[j];
    for (int64_t e = 0; e < csc->nnz; e++)
      s.row_idx[e] = csc->row_idx[e];
    umfpack_dl_defaults(s.control);
    /* UMFPACK has no separate refactorization: numeric again is its refactor. */
    time_phases(umfpack_run_symbolic, umfpack_run_numeric, umfpack_run_numeric, umfpack_run_solve, &s, t);
    if (!t->ran) {
      snprintf(t->note, sizeof t->note, "UMFPACK status %ld%s", (long)s.status,
               s.status == UMFPACK_WARNING_singular_matrix ? " (singular)" : "");
    } else {
      t->lu_nnz = (int64_t)(s.info[UMFPACK_LNZ] + s.info[UMFPACK_UNZ] - (double)s.n);
      t->berr = tsb_backward_error(a, s.x, b);
      snprintf(t->note, sizeof t->note, "refactor = numeric again; solve refines (%.0f steps)",
               s.info[UMFPACK_IR_TAKEN]);
    }
  }
  umfpack_dl_free_numeric(&s.numeric);
  umfpack_dl_free_symbolic(&s.symbolic);
  free(s.col_ptr);
  free(s.row_idx);
  free(s.x);
}
#endif

/* ---- cuDSS (defaults: its reordering, matching and pivoting; no refinement) ----- */

#ifdef HAVE_CUDSS
static cudssHandle_t cudss_handle;

/* cuDSS 0.8 added the offsets' type to cudssMatrixCreateCsr and named the types CUDSS_R_*. */
#if CUDSS_VERSION >= 800
#define CUDSS_INDEX_TYPE CUDSS_R_32I
#define CUDSS_VALUE_TYPE CUDSS_R_64F
#else
#define CUDSS_INDEX_TYPE CUDA_R_32I
#define CUDSS_VALUE_TYPE CUDA_R_64F
#endif

typedef struct cudss_state {
  int64_t n, nnz;
  int32_t *row_ptr; /* host, int32 */
  const ts_csr *a;
  const double *b;
  double *x;
  int32_t *d_row_ptr, *d_col_idx;
  double *d_values, *d_b, *d_x;
  cudssConfig_t config;
  cudssData_t data;
  cudssMatrix_t matrix, rhs, solution;
  char error[128];
} cudss_state;

#define CUDA_TRY(call)                                                                                                 \
  do {                                                                                                                 \
    cudaError_t cuda_error_ = (call);                                                                                  \
    if (cuda_error_ != cudaSuccess) {                                                                                  \
      snprintf(s->error, sizeof s->error, "%s: %s", #call, cudaGetErrorString(cuda_error_));                           \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)
#define CUDSS_TRY(call)                                                                                                \
  do {                                                                                                                 \
    cudssStatus_t cudss_status_ = (call);                                                                              \
    if (cudss_status_ != CUDSS_STATUS_SUCCESS) {                                                                       \
      snprintf(s->error, sizeof s->error, "cuDSS status %d in %.60s", (int)cudss_status_, #call);                      \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

/* After a factorization: a positive CUDSS_DATA_INFO is a zero pivot. */
static int cudss_check_info(cudss_state *s) {
  int info = 0;
  size_t written = 0;
  CUDSS_TRY(cudssDataGet(cudss_handle, s->data, CUDSS_DATA_INFO, &info, sizeof info, &written));
  if (info != 0) {
    snprintf(s->error, sizeof s->error, "cuDSS info %d (singular or zero pivot)", info);
    return 1;
  }
  return 0;
}

/* Analysis: upload A, (re)create the solver's data, reorder and symbolic. */
static int cudss_run_analyze(void *p) {
  cudss_state *s = p;
  const ts_csr *a = s->a;
  CUDA_TRY(cudaMemcpy(s->d_row_ptr, s->row_ptr, (size_t)(s->n + 1) * sizeof(int32_t), cudaMemcpyHostToDevice));
  CUDA_TRY(cudaMemcpy(s->d_col_idx, a->col_idx, (size_t)s->nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
  CUDA_TRY(cudaMemcpy(s->d_values, a->values, (size_t)s->nnz * sizeof(double), cudaMemcpyHostToDevice));
  if (s->data) {
    cudssDataDestroy(cudss_handle, s->data);
    s->data = NULL;
  }
  CUDSS_TRY(cudssDataCreate(cudss_handle, &s->data));
  CUDSS_TRY(cudssExecute(cudss_handle, CUDSS_PHASE_ANALYSIS, s->config, s->data, s->matrix, s->solution, s->rhs));
  CUDA_TRY(cudaDeviceSynchronize());
  return 0;
}
static int cudss_run_factor(void *p) {
  cudss_state *s = p;
  CUDA_TRY(cudaMemcpy(s->d_values, s->a->values, (size_t)s->nnz * sizeof(double), cudaMemcpyHostToDevice));
  CUDSS_TRY(cudssExecute(cudss_handle, CUDSS_PHASE_FACTORIZATION, s->config, s->data, s->matrix, s->solution, s->rhs));
  CUDA_TRY(cudaDeviceSynchronize());
  return cudss_check_info(s);
}
static int cudss_run_refactor(void *p) {
  cudss_state *s = p;
  CUDA_TRY(cudaMemcpy(s->d_values, s->a->values, (size_t)s->nnz * sizeof(double), cudaMemcpyHostToDevice));
  CUDSS_TRY(
      cudssExecute(cudss_handle, CUDSS_PHASE_REFACTORIZATION, s->config, s->data, s->matrix, s->solution, s->rhs));
  CUDA_TRY(cudaDeviceSynchronize());
  return cudss_check_info(s);
}
static int cudss_run_solve(void *p) {
  cudss_state *s = p;
  CUDA_TRY(cudaMemcpy(s->d_b, s->b, (size_t)s->n * sizeof(double), cudaMemcpyHostToDevice));
  CUDSS_TRY(cudssExecute(cudss_handle, CUDSS_PHASE_SOLVE, s->config, s->data, s->matrix, s->solution, s->rhs));
  CUDA_TRY(cudaMemcpy(s->x, s->d_x, (size_t)s->n * sizeof(double), cudaMemcpyDeviceToHost));
  return 0;
}

/* Device buffers and the matrix wrappers (not timed: the analysis uploads). */
static int cudss_setup(cudss_state *s) {
  CUDA_TRY(cudaMalloc((void **)&s->d_row_ptr, (size_t)(s->n + 1) * sizeof(int32_t)));
  CUDA_TRY(cudaMalloc((void **)&s->d_col_idx, (size_t)(s->nnz > 0 ? s->nnz : 1) * sizeof(int32_t)));
  CUDA_TRY(cudaMalloc((void **)&s->d_values, (size_t)(s->nnz > 0 ? s->nnz : 1) * sizeof(double)));
  CUDA_TRY(cudaMalloc((void **)&s->d_b, (size_t)s->n * sizeof(double)));
  CUDA_TRY(cudaMalloc((void **)&s->d_x, (size_t)s->n * sizeof(double)));
  CUDSS_TRY(cudssConfigCreate(&s->config));
#if CUDSS_VERSION >= 800
  CUDSS_TRY(cudssMatrixCreateCsr(&s->matrix, s->n, s->n, s->nnz, s->d_row_ptr, NULL, s->d_col_idx, s->d_values,
                                 CUDSS_INDEX_TYPE, CUDSS_INDEX_TYPE, CUDSS_VALUE_TYPE, CUDSS_MTYPE_GENERAL,
                                 CUDSS_MVIEW_FULL, CUDSS_BASE_ZERO));
#else
  CUDSS_TRY(cudssMatrixCreateCsr(&s->matrix, s->n, s->n, s->nnz, s->d_row_ptr, NULL, s->d_col_idx, s->d_values,
                                 CUDSS_INDEX_TYPE, CUDSS_VALUE_TYPE, CUDSS_MTYPE_GENERAL, CUDSS_MVIEW_FULL,
                                 CUDSS_BASE_ZERO));
#endif
  CUDSS_TRY(cudssMatrixCreateDn(&s->rhs, s->n, 1, s->n, s->d_b, CUDSS_VALUE_TYPE, CUDSS_LAYOUT_COL_MAJOR));
  CUDSS_TRY(cudssMatrixCreateDn(&s->solution, s->n, 1, s->n, s->d_x, CUDSS_VALUE_TYPE, CUDSS_LAYOUT_COL_MAJOR));
  return 0;
}

static void cudss_teardown(cudss_state *s) {
  if (s->data)
    cudssDataDestroy(cudss_handle, s->data);
  if (s->matrix)
    cudssMatrixDestroy(s->matrix);
  if (s->rhs)
    cudssMatrixDestroy(s->rhs);
  if (s->solution)
    cudssMatrixDestroy(s->solution);
  if (s->config)
    cudssConfigDestroy(s->config);
  cudaFree(s->d_row_ptr);
  cudaFree(s->d_col_idx);
  cudaFree(s->d_values);
  cudaFree(s->d_b);
  cudaFree(s->d_x);
}

static void run_cudss(const ts_csr *a, const double *b, phase_times *t) {
  if (a->nnz > INT32_MAX) {
    snprintf(t->note, sizeof t->note, "more than 2^31 entries");
    return;
  }
  cudss_state s = {.n = a->rows, .nnz = a->nnz, .a = a, .b = b};
  s.row_ptr = malloc((size_t)(s.n + 1) * sizeof *s.row_ptr);
  s.x = malloc((size_t)s.n * sizeof(double));
  if (!s.row_ptr || !s.x) {
    snprintf(t->note, sizeof t->note, "out of host memory");
  } else {
    for (int64_t i = 0; i <= s.n; i++)
      s.row_ptr[i] = (int32_t)a->row_ptr[i];
    if (cudss_setup(&s) == 0)
      time_phases(cudss_run_analyze, cudss_run_factor, cudss_run_refactor, cudss_run_solve, &s, t);
    if (!t->ran) {
      snprintf(t->note, sizeof t->note, "%s", s.error);
    } else {
      int64_t lu_nnz = 0;
      size_t written = 0;
      if (cudssDataGet(cudss_handle, s.data, CUDSS_DATA_LU_NNZ, &lu_nnz, sizeof lu_nnz, &written) ==
          CUDSS_STATUS_SUCCESS)
        t->lu_nnz = lu_nnz;
      t->berr = tsb_backward_error(a, s.x, b);
      snprintf(t->note, sizeof t->note, "defaults (no refinement)");
    }
  }
  cudss_teardown(&s);
  cudaGetLastError(); /* a failure above is reported in the note */
  free(s.row_ptr);
  free(s.x);
}
#endif

/* ---- one matrix: every solver, one row each, and the summary row ------------------ */

static const char *const long_columns[] = {"matrix",      "n",
                                           "nnz(A)",      "solver",
                                           "analyze ms",  "factor ms",
                                           "refactor ms", "solve ms",
                                           "a+f+s ms",    "loop refactor+solve ms",
                                           "nnz(L+U)",    "backward error",
                                           "note"};
static const char *const summary_columns[] = {"matrix",
                                              "n",
                                              "tessera-gpu a+f+s ms",
                                              "tessera-cpu a+f+s ms",
                                              "klu a+f+s ms",
                                              "umfpack a+f+s ms",
                                              "cudss a+f+s ms",
                                              "tessera-gpu refactor+solve ms",
                                              "cudss refactor+solve ms",
                                              "cudss / tessera-gpu (refactor+solve)",
                                              "tessera-gpu loop refactor+solve ms",
                                              "cudss loop refactor+solve ms",
                                              "cudss / tessera-gpu (loop)",
                                              "klu / tessera-gpu (a+f+s)",
                                              "klu / tessera-cpu (a+f+s)",
                                              "backward errors (tessera-gpu, tessera-cpu, klu, umfpack, cudss)"};

typedef struct ratio_log {
  double cudss_vs_gpu[256], cudss_vs_gpu_loop[256], klu_vs_gpu[256], klu_vs_cpu[256];
  int count_cudss, count_cudss_loop, count_klu_gpu, count_klu_cpu;
} ratio_log;

static void cell_ms(tsb_table *table, double ms) {
  if (isnan(ms))
    tsb_table_cell(table, "n/a");
  else
    tsb_table_cell(table, "%.3f", ms);
}

static void cell_ratio(tsb_table *table, double numerator, double denominator, double *log, int *count) {
  if (isnan(numerator) || isnan(denominator) || denominator <= 0.0) {
    tsb_table_cell(table, "n/a");
    return;
  }
  double ratio = numerator / denominator;
  tsb_table_cell(table, "%.2f", ratio);
  if (*count < 256)
    log[(*count)++] = ratio;
}

static void bench_matrix(const bench_options *o, tsb_table *rows, tsb_table *summary, ratio_log *ratios,
                         const char *name, ts_csr *a) {
  if (!a) {
    fprintf(stderr, "%s: %s\n", name, ts_last_error(cpu_ctx));
    return;
  }
  int64_t fill = -1;
  if (ts_csr_fill_estimate(cpu_ctx, a, &fill, NULL) != TS_SUCCESS)
    fill = -1;
  int64_t n = a->rows;
  double *b = calloc((size_t)n, sizeof *b);
  const double *v = (const double *)a->values;
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
      b[i] += v[e];
  fprintf(stderr, "[%6.1f s] %s (n %lld, nnz %lld, AMD fill estimate %lld)\n", tsb_wall_seconds() - run_start, name,
          (long long)n, (long long)a->nnz, (long long)fill);
  ts_csc *csc = NULL;
  if (o->want[KLU] || o->want[UMFPACK])
    ts_csc_from_csr(cpu_ctx, a, &csc);

  phase_times t[SOLVERS];
  for (int k = 0; k < SOLVERS; k++) {
    t[k] = (phase_times){false, NAN, NAN, NAN, NAN, NAN, 0, NAN, ""};
    if (!o->want[k]) {
      snprintf(t[k].note, sizeof t[k].note, "not selected");
      continue;
    }
    bool on_gpu = k == CUDSS || (k == TESSERA_GPU && !gpu_lu_on_host);
    double limit = on_gpu ? o->gpu_fill_limit : o->cpu_fill_limit;
    if (fill > limit) {
      snprintf(t[k].note, sizeof t[k].note, "skipped: AMD fill estimate %lld > %.3g", (long long)fill, limit);
      continue;
    }
    double start = tsb_wall_seconds();
    switch (k) {
    case TESSERA_GPU:
      if (gpu_ctx)
        run_tessera(gpu_ctx, a, b, &t[k]);
      else
        snprintf(t[k].note, sizeof t[k].note, "no CUDA device");
      break;
    case TESSERA_CPU:
      run_tessera(cpu_ctx, a, b, &t[k]);
      break;
    case KLU:
#ifdef TESSERA_BENCH_HAVE_KLU
      if (csc)
        run_klu(csc, a, b, &t[k]);
#endif
      break;
    case UMFPACK:
#ifdef TESSERA_BENCH_HAVE_UMFPACK
      if (csc)
        run_umfpack(csc, a, b, &t[k]);
#endif
      break;
    case CUDSS:
#ifdef HAVE_CUDSS
      if (cudss_handle)
        run_cudss(a, b, &t[k]);
      else
        snprintf(t[k].note, sizeof t[k].note, "no CUDA device");
#endif
      break;
    }
    /* Each solver's figures as they come, so that a run cut short still tells. */
    fprintf(stderr,
            "    %-12s %8.2f s  analyze %.3f factor %.3f refactor %.3f solve %.3f ms, nnz(L+U) %lld, berr %.1e  %s\n",
            solver_names[k], tsb_wall_seconds() - start, t[k].analyze, t[k].factor, t[k].refactor, t[k].solve,
            (long long)t[k].lu_nnz, t[k].berr, t[k].note);
  }

  for (int k = 0; k < SOLVERS; k++) {
    if (!o->want[k])
      continue;
    tsb_table_cell(rows, "%s", name);
    tsb_table_cell(rows, "%lld", (long long)n);
    tsb_table_cell(rows, "%lld", (long long)a->nnz);
    tsb_table_cell(rows, "%s", solver_names[k]);
    cell_ms(rows, t[k].analyze);
    cell_ms(rows, t[k].factor);
    cell_ms(rows, t[k].refactor);
    cell_ms(rows, t[k].solve);
    cell_ms(rows, t[k].ran ? sum3(&t[k]) : NAN);
    cell_ms(rows, t[k].ran ? t[k].loop : NAN);
    if (t[k].ran)
      tsb_table_cell(rows, "%lld", (long long)t[k].lu_nnz);
    else
      tsb_table_cell(rows, "n/a");
    if (t[k].ran)
      tsb_table_cell(rows, "%.1e", t[k].berr);
    else
      tsb_table_cell(rows, "n/a");
    tsb_table_cell(rows, "%s", t[k].note);
  }

  tsb_table_cell(summary, "%s", name);
  tsb_table_cell(summary, "%lld", (long long)n);
  for (int k = 0; k < SOLVERS; k++)
    cell_ms(summary, t[k].ran ? sum3(&t[k]) : NAN);
  double gpu_rs = t[TESSERA_GPU].ran ? t[TESSERA_GPU].refactor + t[TESSERA_GPU].solve : NAN;
  double cudss_rs = t[CUDSS].ran ? t[CUDSS].refactor + t[CUDSS].solve : NAN;
  cell_ms(summary, gpu_rs);
  cell_ms(summary, cudss_rs);
  cell_ratio(summary, cudss_rs, gpu_rs, ratios->cudss_vs_gpu, &ratios->count_cudss);
  const double gpu_loop = t[TESSERA_GPU].ran ? t[TESSERA_GPU].loop : NAN;
  const double cudss_loop = t[CUDSS].ran ? t[CUDSS].loop : NAN;
  cell_ms(summary, gpu_loop);
  cell_ms(summary, cudss_loop);
  cell_ratio(summary, cudss_loop, gpu_loop, ratios->cudss_vs_gpu_loop, &ratios->count_cudss_loop);
  cell_ratio(summary, t[KLU].ran ? sum3(&t[KLU]) : NAN, t[TESSERA_GPU].ran ? sum3(&t[TESSERA_GPU]) : NAN,
             ratios->klu_vs_gpu, &ratios->count_klu_gpu);
  cell_ratio(summary, t[KLU].ran ? sum3(&t[KLU]) : NAN, t[TESSERA_CPU].ran ? sum3(&t[TESSERA_CPU]) : NAN,
             ratios->klu_vs_cpu, &ratios->count_klu_cpu);
  char errors[160] = "";
  for (int k = 0; k < SOLVERS; k++) {
    size_t used = strlen(errors);
    if (t[k].ran)
      snprintf(errors + used, sizeof errors - used, "%s%.1e", k ? ", " : "", t[k].berr);
    else
      snprintf(errors + used, sizeof errors - used, "%sn/a", k ? ", " : "");
  }
  tsb_table_cell(summary, "%s", errors);
  ts_csc_destroy(csc);
  free(b);
}

/* ---- inputs ----------------------------------------------------------------------- */

static ts_csr *read_corpus(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
  ts_csr *csr = NULL;
  (void)ts_mm_read_csr(cpu_ctx, path, TS_FLOAT64, &csr, NULL);
  return csr;
}

/* Whether @p name passes --only (a comma-separated list of words). */
static bool selected(const bench_options *o, const char *name) {
  if (!o->only || !*o->only)
    return true;
  char words[1024];
  snprintf(words, sizeof words, "%s", o->only);
  for (char *word = strtok(words, ","); word; word = strtok(NULL, ","))
    if (strstr(name, word))
      return true;
  return false;
}

static bool out_of_time(const bench_options *o, const char *name) {
  if (tsb_wall_seconds() - run_start <= o->budget)
    return false;
  fprintf(stderr, "%s: not run (time budget of %.0f s spent)\n", name, o->budget);
  return true;
}

typedef struct corpus_entry {
  char name[256], symmetry[64], field[64], kind[256];
  long long rows, cols, nnz;
} corpus_entry;

/* Next MANIFEST.tsv entry (the header line is skipped); 0 at the end. */
static int next_corpus_entry(FILE *manifest, corpus_entry *e) {
  char line[8192];
  while (fgets(line, sizeof line, manifest)) {
    char *fields[8] = {0};
    int count = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; p && count < 8; count++) {
      fields[count] = p;
      p = strchr(p, '\t');
      if (p)
        *p++ = '\0';
    }
    if (count < 7 || sscanf(fields[1], "%lld", &e->rows) != 1 || sscanf(fields[2], "%lld", &e->cols) != 1 ||
        sscanf(fields[3], "%lld", &e->nnz) != 1)
      continue; /* the header */
    snprintf(e->name, sizeof e->name, "%.*s", (int)sizeof e->name - 1, fields[0]);
    snprintf(e->symmetry, sizeof e->symmetry, "%.*s", (int)sizeof e->symmetry - 1, fields[4]);
    snprintf(e->field, sizeof e->field, "%.*s", (int)sizeof e->field - 1, fields[5]);
    snprintf(e->kind, sizeof e->kind, "%.*s", (int)sizeof e->kind - 1, fields[6]);
    return 1;
  }
  return 0;
}

static FILE *open_manifest(const bench_options *o) {
  if (!o->matrices)
    return NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", o->matrices);
  return fopen(path, "r");
}

static void run_benchmark(const bench_options *o, tsb_table *rows, tsb_table *summary, ratio_log *ratios) {
  if (o->set_corpus) {
    FILE *manifest = open_manifest(o);
    if (!manifest)
      fprintf(stderr, "lu_solvers: no corpus (--matrices DIR or TESSERA_MATRICES); generated matrices only\n");
    corpus_entry e;
    /* The square unsymmetric matrices with values. */
    while (manifest && next_corpus_entry(manifest, &e)) {
      if (e.rows != e.cols || e.rows < 100 || strcmp(e.symmetry, "general") != 0 || strcmp(e.field, "pattern") == 0)
        continue;
      if (!selected(o, e.name) || out_of_time(o, e.name))
        continue;
      ts_csr *a = read_corpus(o->matrices, e.name);
      bench_matrix(o, rows, summary, ratios, e.name, a);
      ts_csr_destroy(a);
    }
    if (manifest)
      fclose(manifest);
  }
  char name[128];
  if (o->set_circuit) {
    /* Circuit-like: locality 0 is a netlist (little fill), 1 is grid-like. */
    const int64_t sizes[] = {100000, 1000000};
    for (int s = 0; s < 2; s++) {
      int64_t n = o->quick ? sizes[s] / 100 : sizes[s];
      for (int locality = 0; locality <= 1; locality++) {
        snprintf(name, sizeof name, "circuit n=%lld locality=%d", (long long)n, locality);
        if (!selected(o, name) || out_of_time(o, name))
          continue;
        ts_circuit_params params = ts_circuit_defaults(n);
        params.locality = locality;
        ts_csr *a = NULL;
        ts_gen_circuit(cpu_ctx, &params, 1, TS_FLOAT64, &a);
        bench_matrix(o, rows, summary, ratios, name, a);
        ts_csr_destroy(a);
      }
    }
  }
  if (o->set_laplacian) {
    const int64_t sides_2d[] = {316, 1000}, sides_3d[] = {46, 100};
    for (int s = 0; s < 2; s++) {
      int64_t side = o->quick ? sides_2d[s] / 10 : sides_2d[s];
      snprintf(name, sizeof name, "laplacian2d %lldx%lld", (long long)side, (long long)side);
      if (selected(o, name) && !out_of_time(o, name)) {
        ts_csr *a = NULL;
        ts_gen_laplacian_2d(cpu_ctx, side, side, TS_FLOAT64, &a);
        bench_matrix(o, rows, summary, ratios, name, a);
        ts_csr_destroy(a);
      }
    }
    for (int s = 0; s < 2; s++) {
      int64_t side = o->quick ? sides_3d[s] / 4 : sides_3d[s];
      snprintf(name, sizeof name, "laplacian3d %lld^3", (long long)side);
      if (selected(o, name) && !out_of_time(o, name)) {
        ts_csr *a = NULL;
        ts_gen_laplacian_3d(cpu_ctx, side, side, side, TS_FLOAT64, &a);
        bench_matrix(o, rows, summary, ratios, name, a);
        ts_csr_destroy(a);
      }
    }
  }
  if (o->set_mesh) {
    /* A large planar mesh: the 5-point Laplacian of a 2048 x 2048 grid (4.2 M rows). */
    int64_t side = o->quick ? 200 : 2048;
    snprintf(name, sizeof name, "planar mesh %lldx%lld", (long long)side, (long long)side);
    if (selected(o, name) && !out_of_time(o, name)) {
      ts_csr *a = NULL;
      ts_gen_laplacian_2d(cpu_ctx, side, side, TS_FLOAT64, &a);
      bench_matrix(o, rows, summary, ratios, name, a);
      ts_csr_destroy(a);
    }
  }
}

/* ---- the conditioning table -------------------------------------------------------- */

#ifdef TESSERA_BENCH_HAVE_KLU
typedef struct tessera_accuracy {
  char status[64];
  double berr;
  int steps;
  int64_t perturbed;
} tessera_accuracy;

static void tessera_accuracy_of(const ts_csr *a, const double *b, int float_factors, tessera_accuracy *r) {
  ts_lu_options options;
  memset(&options, 0, sizeof options);
  options.float_factors = float_factors;
  ts_lu *lu = NULL;
  double *x = malloc((size_t)a->rows * sizeof *x);
  r->berr = NAN;
  r->steps = 0;
  r->perturbed = 0;
  ts_status status = ts_lu_create(cpu_ctx, &options, &lu);
  if (status == TS_SUCCESS)
    status = ts_lu_analyze(lu, a);
  if (status == TS_SUCCESS)
    status = ts_lu_factor(lu, a);
  ts_lu_stats stats;
  memset(&stats, 0, sizeof stats);
  if (!TS_IS_ERROR(status) && x) {
    ts_status solved = ts_lu_solve(lu, TS_OP_NONE, 1, b, a->rows, x, a->rows);
    if (solved == TS_SUCCESS)
      r->berr = tsb_backward_error(a, x, b);
    else
      status = solved;
  }
  if (lu)
    ts_lu_get_stats(lu, &stats);
  r->steps = stats.refinement_steps;
  r->perturbed = stats.perturbed_pivots;
  if (status == TS_ERROR_STRUCTURALLY_SINGULAR)
    snprintf(r->status, sizeof r->status, "structurally singular (rank %lld)", (long long)stats.structural_rank);
  else if (TS_IS_ERROR(status))
    snprintf(r->status, sizeof r->status, "%s", ts_status_string(status));
  else
    snprintf(r->status, sizeof r->status, "%s", status == TS_SUCCESS ? "ok" : "ok, perturbed");
  ts_lu_destroy(lu);
  free(x);
}

static const char *goal_cell(double berr, double goal, bool applies) {
  if (!applies)
    return "-";
  return berr <= goal ? "met" : "MISSED";
}

static int write_conditioning(const bench_options *o, const tsb_metadata *meta) {
  FILE *manifest = open_manifest(o);
  if (!manifest) {
    fprintf(stderr, "lu_solvers: --conditioning needs the corpus (--matrices DIR or TESSERA_MATRICES)\n");
    return 1;
  }
  if (tsb_make_parent_dirs(o->conditioning) != 0)
    return 1;
  FILE *out = fopen(o->conditioning, "w");
  if (!out) {
    fprintf(stderr, "lu_solvers: cannot write %s\n", o->conditioning);
    fclose(manifest);
    return 1;
  }
  fprintf(out, "# LU corpus conditioning: KLU's estimates and tessera's backward errors\n\n");
  for (int k = 0; k < meta->count; k++)
    fprintf(out, "- %s: %s\n", meta->key[k], meta->value[k]);
  fprintf(out, "\nEvery square corpus matrix (symmetric storage expanded), b = A * ones. KLU 1 thread, defaults: "
               "`klu_analyze`, `klu_factor`, then `klu_rcond` (min |u_ii| / max |u_ii|, cheap) and `klu_condest` "
               "(Hager-Higham 1-norm estimate of cond(A)). tessera on the CPU with its defaults (matching and "
               "scaling, AMD, static pivoting with perturbation, refinement in double up to 30 steps): double "
               "factors, then float factors. Backward error |b - Ax|_inf / (|A|_inf |x|_inf + |b|_inf) computed "
               "in double. Goals (issue 4): double <= 1e-14 where KLU factors without a singular status; float "
               "factors <= 1e-12 where, besides, condest < 1e7.\n\n");
  fprintf(out, "| matrix | kind | n | nnz | KLU | structural rank | rcond | condest | class | tessera double: "
               "status | berr | steps | perturbed | goal 1e-14 | tessera float: status | berr | steps | goal "
               "1e-12 |\n");
  fprintf(out, "|---|---|---:|---:|---|---:|---:|---:|---|---|---:|---:|---:|---|---|---:|---:|---|\n");
  int counts[4] = {0}; /* double goal applies / met, float goal applies / met */
  corpus_entry e;
  while (next_corpus_entry(manifest, &e)) {
    if (e.rows != e.cols || !selected(o, e.name))
      continue;
    ts_csr *a = read_corpus(o->matrices, e.name);
    if (!a) {
      fprintf(out, "| %s | %s | %lld | %lld | unreadable: %s |\n", e.name, e.kind, e.rows, e.nnz,
              ts_last_error(cpu_ctx));
      continue;
    }
    int64_t fill = -1;
    if (ts_csr_fill_estimate(cpu_ctx, a, &fill, NULL) == TS_SUCCESS && fill > o->cpu_fill_limit) {
      fprintf(out, "| %s | %s | %lld | %lld | skipped: AMD fill estimate %lld |\n", e.name, e.kind, e.rows,
              (long long)a->nnz, (long long)fill);
      ts_csr_destroy(a);
      continue;
    }
    fprintf(stderr, "[%6.1f s] %s\n", tsb_wall_seconds() - run_start, e.name);
    int64_t n = a->rows;
    double *b = calloc((size_t)(n > 0 ? n : 1), sizeof *b);
    const double *v = (const double *)a->values;
    for (int64_t i = 0; i < n; i++)
      for (int64_t p = a->row_ptr[i]; p < a->row_ptr[i + 1]; p++)
        b[i] += v[p];

    /* KLU: status, structural rank, rcond, condest. */
    ts_csc *csc = NULL;
    ts_csc_from_csr(cpu_ctx, a, &csc);
    int *col_ptr = csc ? int_col_ptr(csc) : NULL;
    char klu_status[48] = "not run";
    double rcond = NAN, condest = NAN;
    long structural_rank = -1;
    bool klu_factors = false;
    if (col_ptr) {
      klu_common common;
      klu_defaults(&common);
      klu_symbolic *symbolic = klu_analyze((int)n, col_ptr, csc->row_idx, &common);
      klu_numeric *numeric =
          symbolic ? klu_factor(col_ptr, csc->row_idx, (double *)csc->values, symbolic, &common) : NULL;
      structural_rank = symbolic ? common.structural_rank : -1;
      if (numeric && common.status == KLU_OK) {
        klu_rcond(symbolic, numeric, &common);
        klu_condest(col_ptr, (double *)csc->values, symbolic, numeric, &common);
        rcond = common.rcond;
        condest = common.condest;
        klu_factors = true;
        snprintf(klu_status, sizeof klu_status, "factors");
      } else {
        snprintf(klu_status, sizeof klu_status, "%s",
                 common.status == KLU_SINGULAR ? "singular" : (common.status == KLU_OK ? "no factors" : "error"));
      }
      klu_free_numeric(&numeric, &common);
      klu_free_symbolic(&symbolic, &common);
    }
    free(col_ptr);
    ts_csc_destroy(csc);

    tessera_accuracy dbl, flt;
    tessera_accuracy_of(a, b, 0, &dbl);
    tessera_accuracy_of(a, b, 1, &flt);
    bool float_goal = klu_factors && condest < 1e7;
    const char *class = !klu_factors ? (structural_rank >= 0 && structural_rank < n ? "structurally singular"
                                                                                    : "numerically singular (KLU)")
                                     : (float_goal ? "double and float goals" : "double goal (condest >= 1e7)");
    counts[0] += klu_factors;
    counts[1] += klu_factors && dbl.berr <= 1e-14;
    counts[2] += float_goal;
    counts[3] += float_goal && flt.berr <= 1e-12;
    fprintf(
        out,
        "| %s | %s | %lld | %lld | %s | %ld | %.2e | %.2e | %s | %s | %.2e | %d | %lld | %s | %s | %.2e | %d | %s |\n",
        e.name, e.kind, (long long)n, (long long)a->nnz, klu_status, structural_rank, rcond, condest, class, dbl.status,
        dbl.berr, dbl.steps, (long long)dbl.perturbed, goal_cell(dbl.berr, 1e-14, klu_factors), flt.status, flt.berr,
        flt.steps, goal_cell(flt.berr, 1e-12, float_goal));
    fflush(out);
    free(b);
    ts_csr_destroy(a);
  }
  fprintf(out,
          "\nDouble goal met on %d of the %d matrices KLU factors; float-factor goal met on %d of the %d with "
          "condest < 1e7.\n",
          counts[1], counts[0], counts[3], counts[2]);
  fclose(out);
  fclose(manifest);
  fprintf(stderr, "lu_solvers: wrote %s (double goal %d/%d, float goal %d/%d)\n", o->conditioning, counts[1], counts[0],
          counts[3], counts[2]);
  return 0;
}
#else
static int write_conditioning(const bench_options *o, const tsb_metadata *meta) {
  (void)o, (void)meta;
  fprintf(stderr, "lu_solvers: --conditioning needs KLU (built without it)\n");
  return 1;
}
#endif

/* ---- main ------------------------------------------------------------------------------ */

static bool solver_built(int k) {
  switch (k) {
  case KLU:
#ifdef TESSERA_BENCH_HAVE_KLU
    return true;
#else
    return false;
#endif
  case UMFPACK:
#ifdef TESSERA_BENCH_HAVE_UMFPACK
    return true;
#else
    return false;
#endif
  case CUDSS:
#ifdef HAVE_CUDSS
    return true;
#else
    return false;
#endif
  default:
    return true;
  }
}

static int parse_options(int argc, char **argv, bench_options *o, const char **csv) {
  const char *sets = "corpus,circuit,laplacian", *solvers = NULL;
  o->matrices = getenv("TESSERA_MATRICES");
  o->budget = 540.0;
  o->cpu_fill_limit = 4e7;
  o->gpu_fill_limit = 1e9;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(arg, "--quick") == 0)
      o->quick = true;
    else if (strcmp(arg, "--unchecked") == 0)
      unchecked_solves = true;
    else if (strcmp(arg, "--matrices") == 0 && has_value)
      o->matrices = argv[++i];
    else if (strcmp(arg, "--set") == 0 && has_value)
      sets = argv[++i];
    else if (strcmp(arg, "--only") == 0 && has_value)
      o->only = argv[++i];
    else if (strcmp(arg, "--solvers") == 0 && has_value)
      solvers = argv[++i];
    else if (strcmp(arg, "--budget") == 0 && has_value)
      o->budget = atof(argv[++i]);
    else if (strcmp(arg, "--cpu-fill-limit") == 0 && has_value)
      o->cpu_fill_limit = atof(argv[++i]);
    else if (strcmp(arg, "--gpu-fill-limit") == 0 && has_value)
      o->gpu_fill_limit = atof(argv[++i]);
    else if (strcmp(arg, "--ordering") == 0 && has_value) {
      const char *name = argv[++i];
      static const char *const names[] = {"auto", "amd", "colamd", "natural", "nd"};
      int k = 0;
      while (k < 5 && strcmp(name, names[k]) != 0)
        k++;
      if (k == 5) {
        fprintf(stderr, "lu_solvers: unknown ordering %s (auto, amd, colamd, natural, nd)\n", name);
        return 2;
      }
      tessera_ordering = (ts_lu_ordering)k;
    } else if (strcmp(arg, "--md") == 0 && has_value)
      o->md = argv[++i];
    else if (strcmp(arg, "--conditioning") == 0 && has_value)
      o->conditioning = argv[++i];
    else if (arg[0] == '-') {
      fprintf(stderr, "lu_solvers: unknown option %s (see the comment at the top of bench/lu_solvers.c)\n", arg);
      return 2;
    } else
      *csv = arg;
  }
  bool all = strstr(sets, "all") != NULL;
  o->set_corpus = all || strstr(sets, "corpus");
  o->set_circuit = all || strstr(sets, "circuit");
  o->set_laplacian = all || strstr(sets, "laplacian");
  o->set_mesh = all || strstr(sets, "mesh");
  for (int k = 0; k < SOLVERS; k++) {
    o->want[k] = solver_built(k) && (!solvers || strstr(solvers, solver_names[k]) != NULL);
    if (solvers && strstr(solvers, solver_names[k]) && !solver_built(k))
      fprintf(stderr, "lu_solvers: %s was not found at build time; its columns read n/a\n", solver_names[k]);
  }
  return 0;
}

static void set_geomean(tsb_metadata *meta, const char *key, const double *ratios, int count) {
  if (count == 0)
    tsb_metadata_set(meta, key, "n/a");
  else
    tsb_metadata_set(meta, key, "%.2f over %d matrices", tsb_geomean(ratios, count), count);
}

/* Whether an LU under the CUDA context can touch the device (a small probe,
 * the GPU asked for: AUTO keeps small matrices on the host; each matrix's
 * note says where AUTO ran it). */
static bool probe_gpu_lu_on_host(void) {
  ts_csr *a = NULL;
  ts_lu *lu = NULL;
  ts_lu_stats stats;
  ts_lu_options options;
  memset(&stats, 0, sizeof stats);
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CUDA;
  if (ts_gen_laplacian_2d(cpu_ctx, 30, 30, TS_FLOAT64, &a) == TS_SUCCESS &&
      ts_lu_create(gpu_ctx, &options, &lu) == TS_SUCCESS && ts_lu_analyze(lu, a) == TS_SUCCESS &&
      !TS_IS_ERROR(ts_lu_factor(lu, a)))
    ts_lu_get_stats(lu, &stats);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
  return stats.peak_device_bytes == 0;
}

int main(int argc, char **argv) {
  bench_options o;
  memset(&o, 0, sizeof o);
  const char *csv = "bench-out/lu_solvers.csv";
  int rc = parse_options(argc, argv, &o, &csv);
  if (rc != 0)
    return rc;
  run_start = tsb_wall_seconds();
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  if (ts_context_create(&cpu_ctx, &copts) != TS_SUCCESS) {
    fprintf(stderr, "lu_solvers: %s\n", ts_last_error(NULL));
    return 1;
  }
  tsb_metadata meta;
  if (o.conditioning) {
    tsb_metadata_collect(&meta, cpu_ctx, argc, argv);
    rc = write_conditioning(&o, &meta);
    ts_context_destroy(cpu_ctx);
    return rc;
  }
  copts.backend = TS_BACKEND_CUDA;
  if ((o.want[TESSERA_GPU] || o.want[CUDSS]) && ts_context_create(&gpu_ctx, &copts) != TS_SUCCESS) {
    fprintf(stderr, "lu_solvers: no CUDA context (%s): the GPU columns read n/a\n", ts_last_error(NULL));
    gpu_ctx = NULL;
  }
  if (gpu_ctx && o.want[TESSERA_GPU])
    gpu_lu_on_host = probe_gpu_lu_on_host();
  tsb_metadata_collect(&meta, gpu_ctx ? gpu_ctx : cpu_ctx, argc, argv);
  char solvers[256] = "";
  for (int k = 0; k < SOLVERS; k++)
    if (o.want[k])
      snprintf(solvers + strlen(solvers), sizeof solvers - strlen(solvers), "%s%s", solvers[0] ? ", " : "",
               solver_names[k]);
  tsb_metadata_set(&meta, "solvers", "%s", solvers);
  tsb_metadata_set(&meta, "tessera with a CUDA context",
                   !gpu_ctx ? "no CUDA device"
                   : gpu_lu_on_host
                       ? "the LU ran on the host (no device memory used): the CPU path under a CUDA context"
                       : "the GPU path");
#ifdef HAVE_CUDSS
  if (gpu_ctx && o.want[CUDSS]) {
    int major = 0, minor = 0, patch = 0;
    cudssGetProperty(MAJOR_VERSION, &major);
    cudssGetProperty(MINOR_VERSION, &minor);
    cudssGetProperty(PATCH_LEVEL, &patch);
    if (cudssCreate(&cudss_handle) != CUDSS_STATUS_SUCCESS) {
      fprintf(stderr, "lu_solvers: cudssCreate failed: the cuDSS columns read n/a\n");
      cudss_handle = NULL;
    }
    tsb_metadata_set(&meta, "cudss", "%d.%d.%d (headers %d), defaults", major, minor, patch, CUDSS_VERSION);
    if (cudss_handle) {
      /* Warm-up: the first execution loads the library's kernels. */
      ts_csr *warm = NULL;
      ts_gen_laplacian_2d(cpu_ctx, 20, 20, TS_FLOAT64, &warm);
      if (warm) {
        double *ones = malloc((size_t)warm->rows * sizeof *ones);
        for (int64_t i = 0; ones && i < warm->rows; i++)
          ones[i] = 1.0;
        phase_times ignored = {false, NAN, NAN, NAN, NAN, NAN, 0, NAN, ""};
        if (ones)
          run_cudss(warm, ones, &ignored);
        free(ones);
      }
      ts_csr_destroy(warm);
    }
  }
#endif
  tsb_metadata_set(
      &meta, "timing",
      "host wall clock per phase, host arrays in and out (GPU times include transfers); the chain "
      "analyze, factor, refactor, solve from a new analysis each time, median of up to 9 chains when "
      "one takes under 0.25 s; the loop: refactor + solve five times more on the last chain's analysis, median");
  tsb_metadata_set(&meta, "fill limits", "CPU solvers %.3g, GPU solvers %.3g (AMD fill estimate of A+A^T)",
                   o.cpu_fill_limit, o.gpu_fill_limit);

  tsb_table *rows = tsb_table_create(13, long_columns);
  tsb_table *summary = tsb_table_create(16, summary_columns);
  ratio_log ratios;
  memset(&ratios, 0, sizeof ratios);
  run_benchmark(&o, rows, summary, &ratios);
  set_geomean(&meta, "geomean cudss / tessera-gpu (refactor+solve)", ratios.cudss_vs_gpu, ratios.count_cudss);
  set_geomean(&meta, "geomean cudss / tessera-gpu (loop refactor+solve)", ratios.cudss_vs_gpu_loop,
              ratios.count_cudss_loop);
  set_geomean(&meta, "geomean klu / tessera-gpu (a+f+s)", ratios.klu_vs_gpu, ratios.count_klu_gpu);
  set_geomean(&meta, "geomean klu / tessera-cpu (a+f+s)", ratios.klu_vs_cpu, ratios.count_klu_cpu);
  tsb_metadata_set(&meta, "total seconds", "%.1f", tsb_wall_seconds() - run_start);

  char summary_csv[4096];
  const char *dot = strrchr(csv, '.');
  int stem = dot && !strchr(dot, '/') ? (int)(dot - csv) : (int)strlen(csv);
  snprintf(summary_csv, sizeof summary_csv, "%.*s-summary.csv", stem, csv);
  rc = tsb_table_write_csv(rows, &meta, csv) | tsb_table_write_csv(summary, &meta, summary_csv);
  FILE *md = o.md && tsb_make_parent_dirs(o.md) == 0 ? fopen(o.md, "w") : NULL;
  for (int copy = 0; copy < (md ? 2 : 1); copy++) {
    FILE *f = copy ? md : stdout;
    fprintf(f, "# Sparse LU solvers side by side\n\n");
    tsb_table_print_markdown(summary, &meta, f);
    fprintf(f, "\nRatios above 1: tessera is faster. a+f+s = analyze + factor + solve.\n\n## Phases\n\n");
    tsb_table_print_markdown(rows, NULL, f);
  }
  if (md)
    fclose(md);
  tsb_table_destroy(rows);
  tsb_table_destroy(summary);
#ifdef HAVE_CUDSS
  if (cudss_handle)
    cudssDestroy(cudss_handle);
#endif
  ts_context_destroy(gpu_ctx);
  ts_context_destroy(cpu_ctx);
  return rc ? 1 : 0;
}
