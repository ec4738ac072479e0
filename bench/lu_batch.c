/* Batches of sparse LU systems: tessera's batch (ts_lu_batch_*) on the GPU
 * beside NVIDIA cuDSS's uniform batch (CUDSS_CONFIG_UBATCH_SIZE) and
 * non-uniform batch (cudssMatrixCreateBatchCsr) in the same process, and
 * beside SuiteSparse KLU in a loop over the members on one CPU core (and
 * tessera's host batch on all cores) as references.
 *
 * Sets: 1,000 members of one pattern at about 1,000 and 10,000 rows (a
 * generated circuit and a 2-D Laplacian each), and a mixed set of 8
 * patterns (circuits of 500 to 4,000 rows, Laplacians of 256 to 2,304 rows)
 * with 125 members each; every member's values are its pattern's times
 * (1 + 0.1 r), r uniform in [-1, 1), and b random. Values, right-hand sides
 * and solutions stay in device memory for the GPU solvers (tessera's buffer
 * calls, cuDSS's device pointers); the phases are timed by the host's wall
 * clock around each call and a device synchronisation: analysis (once),
 * the first factorization, then the median of repeated refactorizations and
 * solves. tessera's solve refines in double (to a backward error of 1e-15
 * or until refinement stops gaining); cuDSS runs with its defaults (no
 * refinement). The backward error |b - A x| / (|A| |x| + |b|) is computed
 * here for every member of every solver; the worst is reported. KLU's and
 * the host batch's times on the 10,000-row sets come from the first
 * --klu-members members, scaled to the whole batch (said in the notes).
 *
 * Without a GPU only the host's columns run (tessera's host batch, KLU).
 *
 * Usage: lu_batch [options] [CSV_PATH]  (default bench-out/lu_batch.csv)
 *   --sets LIST       circuit-1k, laplacian-1k, circuit-10k, laplacian-10k, mixed (default all)
 *   --members N       members of the uniform sets (default 1000)
 *   --widths LIST     members per warp of tessera's factorization to try besides its rule (default 32,8,2)
 *   --repeat N        refactorizations and solves timed (median; default 5)
 *   --klu-members N   members KLU and the host batch run on the large sets (default 100)
 *   --budget S        start no further run after S seconds (default 200; the tables are written)
 *   --full-waits      tessera's GPU tickets wait on all their dependencies (no pruning; an A/B switch)
 *   --no-tail         tessera's GPU factorization and L solve run their last columns and rows in the dataflow too,
 *                     and the U solve its first rows: no tails or head a block a member (an A/B switch)
 *   --no-factor-tail  the same for the factorization alone
 *   --no-head         the U solve's first rows in its dataflow too, no head a block a member (an A/B switch)
 *   --factor-tail-threads N  threads of a factorization tail's block (up to 256; an A/B switch)
 *   --no-cudss        leave cuDSS out (tessera's runs alone, where cuDSS is built in)
 *   --tail-rows N     the L solve's tail forced to its last N rows, and the factorization's to its last N columns
 *                     (unless --no-factor-tail), instead of the plan's models (a sweep to fit them)
 *   --quick           small sets (checks the program, not a measurement)
 *   --md FILE         also write the Markdown */
#include "tessera.h"
#include "tsb.h"

#include "lu/batch/batch_internal.h" /* the member width switch of the sweep */

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TESSERA_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#ifdef TESSERA_BENCH_HAVE_KLU
#include <klu.h>
#endif
#if defined(TESSERA_BENCH_HAVE_CUDSS) && defined(TESSERA_HAVE_CUDA)
#include <cudss.h>
#define HAVE_CUDSS 1
#endif

typedef struct bench_set {
  char name[32];
  int64_t patterns;
  ts_csr *mats[8];
  int64_t counts[8];
  int64_t members, values, rows;
  double *values_host, *b_host;
} bench_set;

/* One solver's result on a set: phase times in ms (NAN: not run). */
typedef struct solver_result {
  bool ran;
  double analyze, factor, refactor, solve, berr;
  int steps;
  int64_t failed, host_members;
  char note[160];
} solver_result;

typedef struct bench_options {
  const char *sets, *md;
  int64_t members, klu_members;
  int widths[8], width_count, repeat;
  double budget;
  bool quick;
  bool full_waits;
  bool no_tail, no_factor_tail, no_head;
  int factor_tail_threads;
  int tail_rows; /* > 0: the tails forced to this many rows and columns */
  bool no_cudss;
} bench_options;

static ts_context *gpu_ctx;

/* ---- sets ------------------------------------------------------------------------------ */

static double rand_unit(unsigned long long *state) {
  unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static ts_csr *make_circuit(int64_t n, uint64_t seed) {
  ts_circuit_params params = ts_circuit_defaults(n);
  ts_csr *a = NULL;
  return ts_gen_circuit(gpu_ctx, &params, seed, TS_FLOAT64, &a) == TS_SUCCESS ? a : NULL;
}

static ts_csr *make_laplacian(int64_t side) {
  ts_csr *a = NULL;
  return ts_gen_laplacian_2d(gpu_ctx, side, side, TS_FLOAT64, &a) == TS_SUCCESS ? a : NULL;
}

/* The set's matrices, member values and right-hand sides. */
static bool set_build(bench_set *s, const char *name, const bench_options *o) {
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  const int64_t uniform = o->quick ? 50 : o->members;
  const double scale = o->quick ? 0.1 : 1.0;
  if (strcmp(name, "circuit-1k") == 0 || strcmp(name, "circuit-10k") == 0) {
    s->patterns = 1;
    s->mats[0] = make_circuit((int64_t)((name[8] == '1' && name[9] == 'k' ? 1000 : 10000) * scale), 1);
    s->counts[0] = uniform;
  } else if (strcmp(name, "laplacian-1k") == 0 || strcmp(name, "laplacian-10k") == 0) {
    s->patterns = 1;
    s->mats[0] = make_laplacian((int64_t)((strstr(name, "10k") ? 100 : 32) * (o->quick ? 0.3 : 1.0)));
    s->counts[0] = uniform;
  } else if (strcmp(name, "mixed") == 0) {
    s->patterns = 8;
    const int64_t circuits[4] = {500, 1000, 2000, 4000}, sides[4] = {16, 24, 32, 48};
    for (int p = 0; p < 4; p++) {
      s->mats[p] = make_circuit((int64_t)(circuits[p] * scale) + 20, 11 + (uint64_t)p);
      s->mats[4 + p] = make_laplacian(o->quick ? 6 + p : sides[p]);
    }
    for (int p = 0; p < 8; p++)
      s->counts[p] = o->quick ? 6 : 125;
  } else {
    fprintf(stderr, "lu_batch: unknown set %s\n", name);
    return false;
  }
  for (int64_t p = 0; p < s->patterns; p++) {
    if (!s->mats[p]) {
      fprintf(stderr, "lu_batch: %s: %s\n", name, ts_last_error(gpu_ctx));
      return false;
    }
    s->members += s->counts[p];
    s->values += s->counts[p] * s->mats[p]->nnz;
    s->rows += s->counts[p] * s->mats[p]->rows;
  }
  s->values_host = malloc((size_t)s->values * sizeof(double));
  s->b_host = malloc((size_t)s->rows * sizeof(double));
  if (!s->values_host || !s->b_host)
    return false;
  unsigned long long state = 12345;
  int64_t at = 0;
  for (int64_t p = 0; p < s->patterns; p++)
    for (int64_t m = 0; m < s->counts[p]; m++)
      for (int64_t e = 0; e < s->mats[p]->nnz; e++)
        s->values_host[at++] = ((const double *)s->mats[p]->values)[e] * (1.0 + 0.1 * rand_unit(&state));
  for (int64_t i = 0; i < s->rows; i++)
    s->b_host[i] = rand_unit(&state);
  return true;
}

static void set_free(bench_set *s) {
  for (int64_t p = 0; p < s->patterns; p++)
    ts_csr_destroy(s->mats[p]);
  free(s->values_host);
  free(s->b_host);
}

/* The worst backward error over the members of the set for solutions x
 * (host, member after member); members whose x is not finite count as
 * infinite. */
static double worst_berr(const bench_set *s, const double *x, int64_t first_members) {
  double worst = 0.0;
  int64_t vo = 0, xo = 0, member = 0;
  for (int64_t p = 0; p < s->patterns; p++) {
    ts_csr a = *s->mats[p];
    for (int64_t m = 0; m < s->counts[p]; m++, member++) {
      if (member < first_members) {
        a.values = s->values_host + vo;
        double e = tsb_backward_error(&a, x + xo, s->b_host + xo);
        worst = isfinite(e) ? fmax(worst, e) : INFINITY;
      }
      vo += a.nnz;
      xo += a.rows;
    }
  }
  return worst;
}

static double median_of(double *samples, int n) { return tsb_stats_of(samples, n).median; }

static double sync_seconds(void) {
#ifdef TESSERA_HAVE_CUDA
  cudaDeviceSynchronize();
#endif
  return tsb_wall_seconds();
}

/* ---- tessera ---------------------------------------------------------------------------- */

/* tessera's batch on the GPU (device buffers) with `width` members per
 * warp (0: its rule), or on the host (all threads, host arrays; the first
 * `limit` members on large sets). */
static void run_tessera(const bench_set *s, const bench_options *o, bool gpu, int width, int64_t limit,
                        solver_result *r) {
  memset(r, 0, sizeof *r);
  r->analyze = r->factor = r->refactor = r->solve = r->berr = NAN;
  ts_lu_options options;
  memset(&options, 0, sizeof options);
  options.backend = gpu ? TS_BACKEND_CUDA : TS_BACKEND_CPU;
  /* The host batch on the first `limit` members: a smaller batch of the same patterns. */
  bench_set sub = *s;
  if (!gpu && s->patterns == 1 && limit < s->members)
    sub.counts[0] = sub.members = limit;
  const int64_t members = sub.patterns == 1 ? sub.counts[0] : s->members;
  int64_t rows = 0, values = 0;
  for (int64_t p = 0; p < sub.patterns; p++) {
    rows += sub.counts[p] * sub.mats[p]->rows;
    values += sub.counts[p] * sub.mats[p]->nnz;
  }
  ts_lu_batch *batch = NULL;
  double t0 = tsb_wall_seconds();
  if (ts_lu_batch_create(gpu_ctx, &options, sub.patterns, (const ts_csr *const *)sub.mats, sub.counts, &batch) !=
      TS_SUCCESS) {
    snprintf(r->note, sizeof r->note, "create: %.140s", ts_last_error(gpu_ctx));
    return;
  }
  r->analyze = (tsb_wall_seconds() - t0) * 1e3;
  batch->switches.width = width;
  batch->switches.full_waits = o->full_waits;
  batch->switches.tail_rows = o->no_tail ? -1 : o->tail_rows;
  batch->switches.factor_tail = o->no_factor_tail ? -1 : 0;
  batch->switches.upper_head = o->no_head ? -1 : 0;
  batch->switches.factor_tail_threads = o->factor_tail_threads;
  ts_buffer *vb = NULL, *bb = NULL, *xb = NULL;
  double *x = malloc((size_t)(rows > 0 ? rows : 1) * sizeof(double));
  const ts_memory memory = gpu ? TS_MEMORY_DEVICE : TS_MEMORY_HOST;
  if (!x || ts_buffer_create(gpu_ctx, memory, (size_t)values * sizeof(double), &vb) != TS_SUCCESS ||
      ts_buffer_create(gpu_ctx, memory, (size_t)rows * sizeof(double), &bb) != TS_SUCCESS ||
      ts_buffer_create(gpu_ctx, memory, (size_t)rows * sizeof(double), &xb) != TS_SUCCESS ||
      ts_buffer_upload(gpu_ctx, vb, 0, s->values_host, (size_t)values * sizeof(double)) != TS_SUCCESS ||
      ts_buffer_upload(gpu_ctx, bb, 0, s->b_host, (size_t)rows * sizeof(double)) != TS_SUCCESS) {
    snprintf(r->note, sizeof r->note, "buffers: %.140s", ts_last_error(gpu_ctx));
    goto done;
  }
  t0 = sync_seconds();
  ts_status st = ts_lu_batch_factor_buffer(batch, vb);
  r->factor = (sync_seconds() - t0) * 1e3;
  if (TS_IS_ERROR(st)) {
    snprintf(r->note, sizeof r->note, "factor: %.140s", ts_last_error(gpu_ctx));
    goto done;
  }
  double refactor[32], solve[32];
  const int repeat = o->repeat < 32 ? o->repeat : 32;
  for (int k = 0; k < repeat && !TS_IS_ERROR(st); k++) {
    t0 = sync_seconds();
    st = ts_lu_batch_factor_buffer(batch, vb);
    refactor[k] = (sync_seconds() - t0) * 1e3;
    if (!TS_IS_ERROR(st)) {
      t0 = sync_seconds();
      st = ts_lu_batch_solve_buffer(batch, bb, xb);
      solve[k] = (sync_seconds() - t0) * 1e3;
    }
  }
  if (TS_IS_ERROR(st) || ts_buffer_download(gpu_ctx, xb, 0, x, (size_t)rows * sizeof(double)) != TS_SUCCESS) {
    snprintf(r->note, sizeof r->note, "%.150s", ts_last_error(gpu_ctx));
    goto done;
  }
  ts_lu_batch_stats stats;
  ts_lu_batch_get_stats(batch, &stats);
  r->ran = true;
  r->refactor = median_of(refactor, repeat);
  r->solve = median_of(solve, repeat);
  r->berr = worst_berr(s, x, members);
  r->steps = stats.refinement_steps;
  r->failed = stats.failed_members;
  r->host_members = stats.host_members;
  if (members < s->members) {
    const double f = (double)s->members / (double)members;
    r->factor *= f;
    r->refactor *= f;
    r->solve *= f;
    snprintf(r->note, sizeof r->note, "first %lld members, times x %.0f", (long long)members, f);
  }
done:
  free(x);
  ts_buffer_destroy(vb);
  ts_buffer_destroy(bb);
  ts_buffer_destroy(xb);
  ts_lu_batch_destroy(batch);
}

/* ---- KLU: a loop over the members on one core ------------------------------------------ */

#ifdef TESSERA_BENCH_HAVE_KLU
/* CSC arrays of a (KLU takes columns): col_ptr, row_idx, and for each CSR
 * entry its CSC position. */
typedef struct klu_pattern {
  int n;
  int *col_ptr, *row_idx;
  int64_t *where;
  double *values;
  klu_common common;
  klu_symbolic *symbolic;
  klu_numeric *numeric;
} klu_pattern;

static bool klu_pattern_init(klu_pattern *k, const ts_csr *a) {
  memset(k, 0, sizeof *k);
  k->n = (int)a->rows;
  k->col_ptr = calloc((size_t)a->rows + 1, sizeof(int));
  k->row_idx = malloc((size_t)(a->nnz > 0 ? a->nnz : 1) * sizeof(int));
  k->where = malloc((size_t)(a->nnz > 0 ? a->nnz : 1) * sizeof(int64_t));
  k->values = malloc((size_t)(a->nnz > 0 ? a->nnz : 1) * sizeof(double));
  if (!k->col_ptr || !k->row_idx || !k->where || !k->values)
    return false;
  for (int64_t e = 0; e < a->nnz; e++)
    k->col_ptr[a->col_idx[e] + 1]++;
  for (int64_t j = 0; j < a->rows; j++)
    k->col_ptr[j + 1] += k->col_ptr[j];
  int *next = malloc((size_t)a->rows * sizeof(int));
  if (!next)
    return false;
  memcpy(next, k->col_ptr, (size_t)a->rows * sizeof(int));
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      const int at = next[a->col_idx[e]]++;
      k->row_idx[at] = (int)i;
      k->where[e] = at;
    }
  free(next);
  klu_defaults(&k->common);
  return true;
}

static void klu_pattern_free(klu_pattern *k) {
  if (k->numeric)
    klu_free_numeric(&k->numeric, &k->common);
  if (k->symbolic)
    klu_free_symbolic(&k->symbolic, &k->common);
  free(k->col_ptr);
  free(k->row_idx);
  free(k->where);
  free(k->values);
}

/* KLU over the first `limit` members: analysis and a first factorization per
 * pattern (timed as analyze and factor), then klu_refactor and klu_solve
 * for every member (timed, scaled to the whole set when limited). */
static void run_klu(const bench_set *s, int64_t limit, solver_result *r) {
  memset(r, 0, sizeof *r);
  r->analyze = r->factor = r->refactor = r->solve = r->berr = NAN;
  double *x = malloc((size_t)s->rows * sizeof(double));
  for (int64_t i = 0; x && i < s->rows; i++)
    x[i] = NAN;
  double analyze = 0.0, factor = 0.0, refactor = 0.0, solve = 0.0;
  int64_t vo = 0, xo = 0, member = 0, done = 0;
  int klu_status = 0;
  bool ok = x != NULL;
  for (int64_t p = 0; p < s->patterns && ok; p++) {
    const ts_csr *a = s->mats[p];
    klu_pattern k;
    ok = klu_pattern_init(&k, a);
    for (int64_t m = 0; m < s->counts[p] && ok; m++, member++, vo += a->nnz, xo += a->rows) {
      const bool run = s->patterns > 1 || member < limit;
      if (!run)
        continue;
      for (int64_t e = 0; e < a->nnz; e++)
        k.values[k.where[e]] = s->values_host[vo + e];
      double t0 = tsb_wall_seconds();
      if (!k.symbolic) {
        k.symbolic = klu_analyze(k.n, k.col_ptr, k.row_idx, &k.common);
        analyze += tsb_wall_seconds() - t0;
        t0 = tsb_wall_seconds();
        k.numeric = k.symbolic ? klu_factor(k.col_ptr, k.row_idx, k.values, k.symbolic, &k.common) : NULL;
        factor += tsb_wall_seconds() - t0;
        ok = k.numeric != NULL;
        t0 = tsb_wall_seconds();
      }
      ok = ok && klu_refactor(k.col_ptr, k.row_idx, k.values, k.symbolic, k.numeric, &k.common);
      refactor += tsb_wall_seconds() - t0;
      memcpy(x + xo, s->b_host + xo, (size_t)a->rows * sizeof(double));
      t0 = tsb_wall_seconds();
      ok = ok && klu_solve(k.symbolic, k.numeric, k.n, 1, x + xo, &k.common);
      solve += tsb_wall_seconds() - t0;
      done++;
    }
    klu_status = k.common.status;
    klu_pattern_free(&k);
  }
  if (ok) {
    const double f = (double)s->members / (double)done;
    r->ran = true;
    r->analyze = analyze * 1e3;
    r->factor = factor * 1e3;
    r->refactor = refactor * 1e3 * f;
    r->solve = solve * 1e3 * f;
    r->berr = worst_berr(s, x, done);
    if (done < s->members)
      snprintf(r->note, sizeof r->note, "first %lld members, times x %.0f", (long long)done, f);
  } else {
    snprintf(r->note, sizeof r->note, "KLU failed (status %d)", klu_status);
  }
  free(x);
}
#endif

/* ---- cuDSS ---------------------------------------------------------------------------- */

#ifdef HAVE_CUDSS
#if CUDSS_VERSION >= 800
#define CUDSS_INDEX_TYPE CUDSS_R_32I
#define CUDSS_VALUE_TYPE CUDSS_R_64F
#else
#define CUDSS_INDEX_TYPE CUDA_R_32I
#define CUDSS_VALUE_TYPE CUDA_R_64F
#endif
static cudssHandle_t cudss_handle;

#define CUDA_OR(call, what)                                                                                            \
  if ((call) != cudaSuccess) {                                                                                         \
    snprintf(r->note, sizeof r->note, "%s: %s", what, cudaGetErrorString(cudaGetLastError()));                         \
    goto done;                                                                                                         \
  }
#define CUDSS_OR(call, what)                                                                                           \
  do {                                                                                                                 \
    cudssStatus_t status_ = (call);                                                                                    \
    if (status_ != CUDSS_STATUS_SUCCESS) {                                                                             \
      snprintf(r->note, sizeof r->note, "%s: cuDSS status %d", what, (int)status_);                                    \
      goto done;                                                                                                       \
    }                                                                                                                  \
  } while (0)

/* cuDSS on the set: the uniform batch (one pattern; CUDSS_CONFIG_UBATCH_SIZE,
 * the values and vectors member after member) or the non-uniform batch
 * (every member described with its pattern's arrays). */
static void run_cudss(const bench_set *s, const bench_options *o, bool uniform, solver_result *r) {
  memset(r, 0, sizeof *r);
  r->analyze = r->factor = r->refactor = r->solve = r->berr = NAN;
  const int64_t members = s->members;
  int32_t *row_ptr_d[8] = {NULL}, *col_d[8] = {NULL};
  double *values_d = NULL, *b_d = NULL, *x_d = NULL, *x = NULL;
  void **ptrs_d = NULL, **ptrs_h = NULL;
  int *nrows = NULL, *nnzs = NULL, *nrhs = NULL;
  cudssConfig_t config = NULL;
  cudssData_t data = NULL;
  cudssMatrix_t A = NULL, B = NULL, X = NULL;
  if (uniform && s->patterns != 1) {
    snprintf(r->note, sizeof r->note, "one pattern needed");
    return;
  }
  for (int64_t p = 0; p < s->patterns; p++) {
    const ts_csr *a = s->mats[p];
    int32_t *rp = malloc((size_t)(a->rows + 1) * sizeof(int32_t));
    if (!rp)
      goto done;
    for (int64_t i = 0; i <= a->rows; i++)
      rp[i] = (int32_t)a->row_ptr[i];
    bool ok =
        cudaMalloc((void **)&row_ptr_d[p], (size_t)(a->rows + 1) * sizeof(int32_t)) == cudaSuccess &&
        cudaMalloc((void **)&col_d[p], (size_t)a->nnz * sizeof(int32_t)) == cudaSuccess &&
        cudaMemcpy(row_ptr_d[p], rp, (size_t)(a->rows + 1) * sizeof(int32_t), cudaMemcpyHostToDevice) == cudaSuccess &&
        cudaMemcpy(col_d[p], a->col_idx, (size_t)a->nnz * sizeof(int32_t), cudaMemcpyHostToDevice) == cudaSuccess;
    free(rp);
    if (!ok) {
      snprintf(r->note, sizeof r->note, "pattern upload failed");
      goto done;
    }
  }
  CUDA_OR(cudaMalloc((void **)&values_d, (size_t)s->values * sizeof(double)), "cudaMalloc");
  CUDA_OR(cudaMalloc((void **)&b_d, (size_t)s->rows * sizeof(double)), "cudaMalloc");
  CUDA_OR(cudaMalloc((void **)&x_d, (size_t)s->rows * sizeof(double)), "cudaMalloc");
  CUDA_OR(cudaMemcpy(values_d, s->values_host, (size_t)s->values * sizeof(double), cudaMemcpyHostToDevice), "upload");
  CUDA_OR(cudaMemcpy(b_d, s->b_host, (size_t)s->rows * sizeof(double), cudaMemcpyHostToDevice), "upload");
  CUDSS_OR(cudssConfigCreate(&config), "config");
  CUDSS_OR(cudssDataCreate(cudss_handle, &data), "data");
  if (uniform) {
    const ts_csr *a = s->mats[0];
    int batch = (int)members;
    CUDSS_OR(cudssConfigSet(config, CUDSS_CONFIG_UBATCH_SIZE, &batch, sizeof batch), "ubatch size");
#if CUDSS_VERSION >= 800
    CUDSS_OR(cudssMatrixCreateCsr(&A, a->rows, a->rows, a->nnz, row_ptr_d[0], NULL, col_d[0], values_d,
                                  CUDSS_INDEX_TYPE, CUDSS_INDEX_TYPE, CUDSS_VALUE_TYPE, CUDSS_MTYPE_GENERAL,
                                  CUDSS_MVIEW_FULL, CUDSS_BASE_ZERO),
             "matrix");
#else
    CUDSS_OR(cudssMatrixCreateCsr(&A, a->rows, a->rows, a->nnz, row_ptr_d[0], NULL, col_d[0], values_d,
                                  CUDSS_INDEX_TYPE, CUDSS_VALUE_TYPE, CUDSS_MTYPE_GENERAL, CUDSS_MVIEW_FULL,
                                  CUDSS_BASE_ZERO),
             "matrix");
#endif
    CUDSS_OR(cudssMatrixCreateDn(&B, a->rows, 1, a->rows, b_d, CUDSS_VALUE_TYPE, CUDSS_LAYOUT_COL_MAJOR), "rhs");
    CUDSS_OR(cudssMatrixCreateDn(&X, a->rows, 1, a->rows, x_d, CUDSS_VALUE_TYPE, CUDSS_LAYOUT_COL_MAJOR), "solution");
  } else {
    /* Per member: its pattern's arrays, its values and vectors (device
     * pointer arrays); sizes in host arrays. */
    ptrs_h = malloc((size_t)(5 * members) * sizeof(void *));
    nrows = malloc((size_t)members * sizeof(int));
    nnzs = malloc((size_t)members * sizeof(int));
    nrhs = malloc((size_t)members * sizeof(int));
    if (!ptrs_h || !nrows || !nnzs || !nrhs)
      goto done;
    int64_t vo = 0, xo = 0, m = 0;
    for (int64_t p = 0; p < s->patterns; p++)
      for (int64_t i = 0; i < s->counts[p]; i++, m++) {
        nrows[m] = (int)s->mats[p]->rows;
        nnzs[m] = (int)s->mats[p]->nnz;
        nrhs[m] = 1;
        ptrs_h[m] = row_ptr_d[p];
        ptrs_h[members + m] = col_d[p];
        ptrs_h[2 * members + m] = values_d + vo;
        ptrs_h[3 * members + m] = b_d + xo;
        ptrs_h[4 * members + m] = x_d + xo;
        vo += s->mats[p]->nnz;
        xo += s->mats[p]->rows;
      }
    CUDA_OR(cudaMalloc((void **)&ptrs_d, (size_t)(5 * members) * sizeof(void *)), "cudaMalloc");
    CUDA_OR(cudaMemcpy(ptrs_d, ptrs_h, (size_t)(5 * members) * sizeof(void *), cudaMemcpyHostToDevice), "upload");
#if CUDSS_VERSION >= 800
    CUDSS_OR(cudssMatrixCreateBatchCsr(&A, members, nrows, nrows, nnzs, ptrs_d, NULL, ptrs_d + members,
                                       ptrs_d + 2 * members, CUDSS_INDEX_TYPE, CUDSS_INDEX_TYPE, CUDSS_VALUE_TYPE,
                                       CUDSS_MTYPE_GENERAL, CUDSS_MVIEW_FULL, CUDSS_BASE_ZERO),
             "batch matrix");
#else
    CUDSS_OR(cudssMatrixCreateBatchCsr(&A, members, nrows, nrows, nnzs, ptrs_d, NULL, ptrs_d + members,
                                       ptrs_d + 2 * members, CUDSS_INDEX_TYPE, CUDSS_VALUE_TYPE, CUDSS_MTYPE_GENERAL,
                                       CUDSS_MVIEW_FULL, CUDSS_BASE_ZERO),
             "batch matrix");
#endif
    CUDSS_OR(cudssMatrixCreateBatchDn(&B, members, nrows, nrhs, nrows, ptrs_d + 3 * members, CUDSS_INDEX_TYPE,
                                      CUDSS_VALUE_TYPE, CUDSS_LAYOUT_COL_MAJOR),
             "batch rhs");
    CUDSS_OR(cudssMatrixCreateBatchDn(&X, members, nrows, nrhs, nrows, ptrs_d + 4 * members, CUDSS_INDEX_TYPE,
                                      CUDSS_VALUE_TYPE, CUDSS_LAYOUT_COL_MAJOR),
             "batch solution");
  }
  double t0 = sync_seconds();
  CUDSS_OR(cudssExecute(cudss_handle, CUDSS_PHASE_ANALYSIS, config, data, A, X, B), "analysis");
  r->analyze = (sync_seconds() - t0) * 1e3;
  t0 = sync_seconds();
  CUDSS_OR(cudssExecute(cudss_handle, CUDSS_PHASE_FACTORIZATION, config, data, A, X, B), "factorization");
  r->factor = (sync_seconds() - t0) * 1e3;
  double refactor[32], solve[32];
  const int repeat = o->repeat < 32 ? o->repeat : 32;
  for (int k = 0; k < repeat; k++) {
    t0 = sync_seconds();
    CUDSS_OR(cudssExecute(cudss_handle, CUDSS_PHASE_REFACTORIZATION, config, data, A, X, B), "refactorization");
    refactor[k] = (sync_seconds() - t0) * 1e3;
    t0 = sync_seconds();
    CUDSS_OR(cudssExecute(cudss_handle, CUDSS_PHASE_SOLVE, config, data, A, X, B), "solve");
    solve[k] = (sync_seconds() - t0) * 1e3;
  }
  x = malloc((size_t)s->rows * sizeof(double));
  if (!x)
    goto done;
  CUDA_OR(cudaMemcpy(x, x_d, (size_t)s->rows * sizeof(double), cudaMemcpyDeviceToHost), "download");
  r->ran = true;
  r->refactor = median_of(refactor, repeat);
  r->solve = median_of(solve, repeat);
  r->berr = worst_berr(s, x, s->members);
  snprintf(r->note, sizeof r->note, "defaults (no refinement)");
done:
  if (A)
    cudssMatrixDestroy(A);
  if (B)
    cudssMatrixDestroy(B);
  if (X)
    cudssMatrixDestroy(X);
  if (data)
    cudssDataDestroy(cudss_handle, data);
  if (config)
    cudssConfigDestroy(config);
  for (int64_t p = 0; p < s->patterns; p++) {
    cudaFree(row_ptr_d[p]);
    cudaFree(col_d[p]);
  }
  cudaFree(values_d);
  cudaFree(b_d);
  cudaFree(x_d);
  cudaFree(ptrs_d);
  cudaGetLastError();
  free(ptrs_h);
  free(nrows);
  free(nnzs);
  free(nrhs);
  free(x);
}
#endif

/* ---- the run ----------------------------------------------------------------------------- */

static void cell_ms(tsb_table *t, double ms) {
  if (isnan(ms))
    tsb_table_cell(t, "n/a");
  else
    tsb_table_cell(t, "%.3f", ms);
}

/* theirs / ours to two decimals, n/a where either did not run. */
static void cell_ratio(tsb_table *t, double theirs, double ours) {
  if (isnan(ours) || isnan(theirs))
    tsb_table_cell(t, "n/a");
  else
    tsb_table_cell(t, "%.2f", theirs / ours);
}

/* One row of the phase table. */
static void phase_row(tsb_table *t, const bench_set *s, const char *solver, const solver_result *r) {
  tsb_table_cell(t, "%s", s->name);
  tsb_table_cell(t, "%lld", (long long)s->mats[0]->rows);
  tsb_table_cell(t, "%lld", (long long)s->members);
  tsb_table_cell(t, "%s", solver);
  cell_ms(t, r->analyze);
  cell_ms(t, r->factor);
  cell_ms(t, r->refactor);
  cell_ms(t, r->solve);
  cell_ms(t, r->ran ? r->refactor + r->solve : NAN);
  if (r->ran)
    tsb_table_cell(t, "%.1e", r->berr);
  else
    tsb_table_cell(t, "n/a");
  tsb_table_cell(t, "%d", r->steps);
  tsb_table_cell(t, "%lld", (long long)r->host_members);
  tsb_table_cell(t, "%s", r->note);
  /* The row on stderr too, so that a run stopped from outside keeps it. */
  if (r->ran)
    fprintf(stderr, "lu_batch: %s, %s: analyze %.3f, factor %.3f, refactor %.3f, solve %.3f ms, berr %.1e\n", s->name,
            solver, r->analyze, r->factor, r->refactor, r->solve, r->berr);
}

/* The tables so far into the CSV and Markdown files (after every set, so
 * that a run stopped from outside keeps the sets it finished), and on
 * stdout when to_stdout. */
static int write_tables(tsb_table *phases, tsb_table *summary, tsb_metadata *meta, const char *csv, const char *md_path,
                        bool to_stdout) {
  int rc = tsb_table_write_csv(phases, meta, csv);
  FILE *md = md_path ? fopen(md_path, "w") : NULL;
  for (int copy = 0; copy < 2; copy++) {
    FILE *f = copy ? md : (to_stdout ? stdout : NULL);
    if (!f)
      continue;
    fprintf(f, "# LU batches: tessera beside cuDSS and KLU\n\n## Phases\n\n");
    tsb_table_print_markdown(phases, meta, f);
    fprintf(f, "\nr+s = refactor + solve of the whole batch, ms. cuDSS / tessera and non-uniform / tessera above 1: "
               "tessera (its rule of member widths) is faster than cuDSS's uniform batch (one pattern) or its "
               "non-uniform batch (the same members through the API for mixed patterns).\n\n## Summary\n\n");
    tsb_table_print_markdown(summary, NULL, f);
  }
  if (md)
    fclose(md);
  return rc;
}

/* A result that did not run. */
static void skipped(solver_result *r) {
  memset(r, 0, sizeof *r);
  r->analyze = r->factor = r->refactor = r->solve = r->berr = NAN;
}

/* Whether the run is still within its budget (the rest is skipped, so that
 * the tables are written in time). */
static bool in_budget(const bench_options *o, double start) {
  const bool within = tsb_wall_seconds() - start < o->budget;
  if (!within)
    fprintf(stderr, "lu_batch: past the budget of %.0f s: skipping\n", o->budget);
  return within;
}

static bool parse_options(int argc, char **argv, bench_options *o, const char **csv) {
  static const char usage[] =
      "usage: lu_batch [--sets LIST] [--members N] [--widths LIST] [--repeat N] [--klu-members N] [--budget S] "
      "[--full-waits] [--no-tail] [--no-factor-tail] [--no-head] [--factor-tail-threads N] [--tail-rows N] "
      "[--no-cudss] "
      "[--quick] [--md FILE] "
      "[CSV_PATH]";
  memset(o, 0, sizeof *o);
  o->sets = "circuit-1k,laplacian-1k,circuit-10k,laplacian-10k,mixed";
  o->members = 1000;
  o->klu_members = 100;
  o->budget = 200.0;
  o->repeat = 5;
  o->widths[0] = 32;
  o->widths[1] = 8;
  o->widths[2] = 2;
  o->width_count = 3;
  *csv = "bench-out/lu_batch.csv";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const bool has_value = i + 1 < argc;
    if (strcmp(a, "--sets") == 0 && has_value)
      o->sets = argv[++i];
    else if (strcmp(a, "--members") == 0 && has_value)
      o->members = atoll(argv[++i]);
    else if (strcmp(a, "--repeat") == 0 && has_value)
      o->repeat = atoi(argv[++i]);
    else if (strcmp(a, "--budget") == 0 && has_value)
      o->budget = atof(argv[++i]);
    else if (strcmp(a, "--klu-members") == 0 && has_value)
      o->klu_members = atoll(argv[++i]);
    else if (strcmp(a, "--md") == 0 && has_value)
      o->md = argv[++i];
    else if (strcmp(a, "--quick") == 0)
      o->quick = true;
    else if (strcmp(a, "--full-waits") == 0)
      o->full_waits = true;
    else if (strcmp(a, "--no-tail") == 0)
      o->no_tail = true;
    else if (strcmp(a, "--no-factor-tail") == 0)
      o->no_factor_tail = true;
    else if (strcmp(a, "--no-head") == 0)
      o->no_head = true;
    else if (strcmp(a, "--factor-tail-threads") == 0 && has_value)
      o->factor_tail_threads = atoi(argv[++i]);
    else if (strcmp(a, "--tail-rows") == 0 && has_value)
      o->tail_rows = atoi(argv[++i]);
    else if (strcmp(a, "--no-cudss") == 0)
      o->no_cudss = true;
    else if (strcmp(a, "--widths") == 0 && has_value) {
      o->width_count = 0;
      for (char *p = argv[++i]; *p && o->width_count < 8;) {
        int w = (int)strtol(p, &p, 10);
        if (w >= 1 && w <= 32 && (w & (w - 1)) == 0)
          o->widths[o->width_count++] = w;
        while (*p == ',')
          p++;
        if (*p && (*p < '0' || *p > '9'))
          break;
      }
    } else {
      int rc = tsb_option_or_path("lu_batch", a, usage);
      if (rc >= 0)
        exit(rc);
      *csv = a;
    }
  }
  if (o->members < 1 || o->repeat < 1 || o->klu_members < 1 || o->tail_rows < 0 || o->factor_tail_threads < 0) {
    fprintf(stderr, "%s\n", usage);
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  bench_options o;
  const char *csv;
  if (!parse_options(argc, argv, &o, &csv))
    return 2;
  ts_context_options copts;
  memset(&copts, 0, sizeof copts);
  copts.backend = TS_BACKEND_CUDA;
  const bool have_gpu = ts_context_create(&gpu_ctx, &copts) == TS_SUCCESS;
  if (!have_gpu) {
    fprintf(stderr, "lu_batch: no CUDA context (%s): the host's columns only\n", ts_last_error(NULL));
    copts.backend = TS_BACKEND_CPU;
    if (ts_context_create(&gpu_ctx, &copts) != TS_SUCCESS)
      return 1;
  }
  const double start = tsb_wall_seconds();
  tsb_metadata meta;
  tsb_metadata_collect(&meta, gpu_ctx, argc, argv);
#ifdef HAVE_CUDSS
  {
    int major = 0, minor = 0, patch = 0;
    cudssGetProperty(MAJOR_VERSION, &major);
    cudssGetProperty(MINOR_VERSION, &minor);
    cudssGetProperty(PATCH_LEVEL, &patch);
    if (!have_gpu || o.no_cudss || cudssCreate(&cudss_handle) != CUDSS_STATUS_SUCCESS)
      cudss_handle = NULL;
    if (cudss_handle)
      cudssSetStream(cudss_handle, (cudaStream_t)ts_context_stream(gpu_ctx));
    tsb_metadata_set(&meta, "cudss", "%d.%d.%d, defaults (no refinement, no matching)%s", major, minor, patch,
                     o.no_cudss     ? "; not run (--no-cudss)"
                     : cudss_handle ? ""
                                    : "; cudssCreate failed");
  }
#else
  tsb_metadata_set(&meta, "cudss", "not built (its columns read n/a)");
#endif
#ifndef TESSERA_BENCH_HAVE_KLU
  tsb_metadata_set(&meta, "klu", "not built (its columns read n/a)");
#endif
  if (o.full_waits)
    tsb_metadata_set(&meta, "waits", "full (--full-waits: the plan prunes no dependency)");
  if (o.no_head)
    tsb_metadata_set(&meta, "head", "none (--no-head: the U solve's first rows run in the dataflow too)");
  if (o.factor_tail_threads > 0)
    tsb_metadata_set(&meta, "factor tail threads", "%d (--factor-tail-threads)", o.factor_tail_threads);
  if (o.no_tail || o.no_factor_tail)
    tsb_metadata_set(&meta, "tail", "%s",
                     o.no_tail ? "none (--no-tail: the tails and the U solve's head run in the dataflow too)"
                               : "none for the factorization (--no-factor-tail)");
  else if (o.tail_rows > 0)
    tsb_metadata_set(&meta, "tail", "the last %d rows of the L solve and columns of the factorization (--tail-rows)",
                     o.tail_rows);
  tsb_metadata_set(&meta, "timing",
                   "host wall clock around each call with a device synchronisation; refactor and solve: median of "
                   "%d; GPU solvers: values, b and x in device memory; KLU: one core",
                   o.repeat);
  static const char *const phase_columns[] = {
      "set",      "n (first pattern)", "members",  "solver",       "analyze ms",   "factor ms", "refactor ms",
      "solve ms", "refactor+solve ms", "max berr", "refine steps", "host members", "note"};
  static const char *const short_columns[] = {"set",
                                              "members",
                                              "tessera r+s ms",
                                              "cuDSS ubatch r+s ms",
                                              "cuDSS / tessera",
                                              "cuDSS non-uniform r+s ms",
                                              "non-uniform / tessera",
                                              "tessera host r+s ms",
                                              "KLU loop r+s ms",
                                              "tessera max berr",
                                              "cuDSS max berr"};
  tsb_table *phases = tsb_table_create(13, phase_columns);
  tsb_table *summary = tsb_table_create(11, short_columns);

  char list[256];
  snprintf(list, sizeof list, "%s", o.sets);
  for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
    bench_set s;
    if (!set_build(&s, name, &o)) {
      set_free(&s);
      continue;
    }
    fprintf(stderr, "lu_batch: %s (%lld members, %lld values) at %.0f s\n", name, (long long)s.members,
            (long long)s.values, tsb_wall_seconds() - start);
    /* The anchors first, the sweeps after, each skipped past the budget. */
    solver_result best, host, uniform, nonuniform, klu, r;
    skipped(&best);
    skipped(&host);
    skipped(&uniform);
    skipped(&nonuniform);
    skipped(&klu);
    if (have_gpu && in_budget(&o, start)) {
      run_tessera(&s, &o, true, 0, s.members, &best);
      phase_row(phases, &s, "tessera-gpu (rule)", &best);
    }
#ifdef HAVE_CUDSS
    if (cudss_handle && s.patterns == 1 && in_budget(&o, start)) {
      run_cudss(&s, &o, true, &uniform);
      phase_row(phases, &s, "cudss uniform batch", &uniform);
    }
#endif
    const int64_t host_limit = s.mats[0]->rows >= 5000 ? o.klu_members : s.members;
#ifdef TESSERA_BENCH_HAVE_KLU
    if (in_budget(&o, start)) {
      run_klu(&s, host_limit, &klu);
      phase_row(phases, &s, "klu loop (1 core)", &klu);
    }
#endif
#ifdef HAVE_CUDSS
    if (cudss_handle && in_budget(&o, start)) {
      run_cudss(&s, &o, false, &nonuniform);
      phase_row(phases, &s, "cudss non-uniform batch", &nonuniform);
    }
#endif
    char label[64];
    for (int w = 0; have_gpu && w < o.width_count && in_budget(&o, start); w++) {
      run_tessera(&s, &o, true, o.widths[w], s.members, &r);
      snprintf(label, sizeof label, "tessera-gpu (width %d)", o.widths[w]);
      phase_row(phases, &s, label, &r);
    }
    if (in_budget(&o, start)) {
      run_tessera(&s, &o, false, 0, host_limit, &host);
      phase_row(phases, &s, "tessera-cpu (all cores)", &host);
    }
    const double ours = best.ran ? best.refactor + best.solve : NAN;
    const double theirs = uniform.ran ? uniform.refactor + uniform.solve : NAN;
    const double theirs_nonuniform = nonuniform.ran ? nonuniform.refactor + nonuniform.solve : NAN;
    tsb_table_cell(summary, "%s", s.name);
    tsb_table_cell(summary, "%lld", (long long)s.members);
    cell_ms(summary, ours);
    cell_ms(summary, theirs);
    cell_ratio(summary, theirs, ours);
    cell_ms(summary, theirs_nonuniform);
    cell_ratio(summary, theirs_nonuniform, ours);
    cell_ms(summary, host.ran ? host.refactor + host.solve : NAN);
    cell_ms(summary, klu.ran ? klu.refactor + klu.solve : NAN);
    if (best.ran)
      tsb_table_cell(summary, "%.1e", best.berr);
    else
      tsb_table_cell(summary, "n/a");
    if (uniform.ran || nonuniform.ran)
      tsb_table_cell(summary, "%.1e", uniform.ran ? uniform.berr : nonuniform.berr);
    else
      tsb_table_cell(summary, "n/a");
    set_free(&s);
    tsb_metadata_set(&meta, "total seconds", "%.1f (so far)", tsb_wall_seconds() - start);
    write_tables(phases, summary, &meta, csv, o.md, false);
  }
  tsb_metadata_set(&meta, "total seconds", "%.1f", tsb_wall_seconds() - start);
  const int rc = write_tables(phases, summary, &meta, csv, o.md, true);
  tsb_table_destroy(phases);
  tsb_table_destroy(summary);
#ifdef HAVE_CUDSS
  if (cudss_handle)
    cudssDestroy(cudss_handle);
#endif
  ts_context_destroy(gpu_ctx);
  return rc;
}
