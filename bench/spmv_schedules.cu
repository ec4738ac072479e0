/* SpMV schedules against cuSPARSE: every tessera schedule (thread-, warp-,
 * block-, group-mapped, merge-path, work-oriented) and AUTO through
 * ts_spmv_plan_create_ex, and cuSPARSE CSR ALG1 and ALG2, in one process on
 * the same device data and stream. Each result is checked against a host
 * reference in double before it is timed and checked for bitwise
 * repeatability; times are medians of CUDA-event timed calls after a
 * warm-up; rates are GB/s of compulsory traffic and a fraction of the copy
 * bandwidth measured in the same run. Output: one CSV (every matrix and
 * variant) and a Markdown summary (per matrix, geomeans by nnz bin, AUTO's
 * pick against the best schedule, the deterministic path against the
 * fastest, and for the tiny set the per-call launch floor). */
#include "tsb_cusparse.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A variant's timed calls are cut to last about this long (slow schedules on
 * skewed rows can take tens of ms per call). */
#define MAX_SECONDS_PER_VARIANT 1.0
/* AUTO counts as a good pick within this factor of the best schedule. */
#define AUTO_WITHIN 1.05
/* Launch floor: calls per burst and bursts (tiny set). */
#define FLOOR_CALLS 2000
#define FLOOR_BURSTS 5
/* Calls shorter than this are timed again as bursts of back-to-back calls. */
#define SHORT_CALL_MS 0.05
#define SHORT_CALL_BURST 200
#define SHORT_CALL_BURSTS 9

enum { SET_CORPUS, SET_REGULAR, SET_POWERLAW, SET_RMAT, SET_CIRCUIT, SET_TINY, SET_COUNT };
static const char *const set_names[SET_COUNT] = {"corpus", "regular", "powerlaw", "rmat", "circuit", "tiny"};

struct options {
  const char *csv_path;
  const char *md_path; /* default: csv_path with .md */
  const char *matrices_dir;
  const char *only; /* run only matrices whose name contains this */
  bool sets[SET_COUNT];
  bool quick;
  bool fp32, fp64;
  int warmup, repeat;
  int group_size; /* for the group-mapped variant; 0 = chosen by the plan */
};

/* ---- variants ----------------------------------------------------------------- */

enum { V_THREAD, V_WARP, V_BLOCK, V_GROUP, V_MERGE, V_WORK, V_SPLIT, V_AUTO, V_ALG1, V_ALG2, V_COUNT };
static const char *const variant_names[V_COUNT] = {"thread", "warp",  "block", "group",         "merge-path",
                                                   "work",   "split", "auto",  "cusparse_alg1", "cusparse_alg2"};
static const ts_schedule variant_schedules[V_ALG1] = {
    TS_SCHEDULE_THREAD_MAPPED, TS_SCHEDULE_WARP_MAPPED,   TS_SCHEDULE_BLOCK_MAPPED, TS_SCHEDULE_GROUP_MAPPED,
    TS_SCHEDULE_MERGE_PATH,    TS_SCHEDULE_WORK_ORIENTED, TS_SCHEDULE_SPLIT_ROWS,   TS_SCHEDULE_AUTO};
static bool is_tessera(int v) { return v < V_ALG1; }

/* What one variant measured on one matrix. */
struct variant_result {
  bool ran;
  bool failed;      /* check failed or a call failed */
  bool repeatable;  /* two runs gave the same bits */
  tsb_stats ms;     /* per call */
  double worst;     /* largest error over its tolerance */
  int64_t bad_rows; /* rows outside the tolerance */
  double plan_ms;   /* plan creation (upload, workspace, prepare) */
  ts_schedule ran_as;
  int group_size;
  tsb_burst floor; /* tiny set: launch floor */
  bool floor_ran;
  bool burst_timed; /* ms.median is the device time per call of bursts */
  char explain[400];
};

/* One matrix in one value type, with its results. */
struct case_result {
  char name[96];
  int set;
  ts_dtype dtype;
  int64_t rows, cols, nnz, max_row;
  double mean_row, cv_row;
  double bytes; /* compulsory traffic */
  variant_result v[V_COUNT];
  tsb_stats gather; /* the stream-and-gather floor (no rows), when it ran */
  bool gather_ran;
};

/* ---- the reference and its check ----------------------------------------------- */

static double value_at(const void *values, ts_dtype dtype, int64_t k) {
  return dtype == TS_FLOAT32 ? (double)((const float *)values)[k] : ((const double *)values)[k];
}

/* y_ref = A x in double, and bound = |A||x| per row. */
static void reference_spmv(const ts_csr *a, const void *x, double *ref, double *bound) {
  for (int64_t i = 0; i < a->rows; i++) {
    double sum = 0, abs_sum = 0;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      double term = value_at(a->values, a->dtype, k) * value_at(x, a->dtype, a->col_idx[k]);
      sum += term;
      abs_sum += fabs(term);
    }
    ref[i] = sum;
    bound[i] = abs_sum;
  }
}

/* |y - y_ref| <= u (16 sqrt(n) + 16) |A||x| per row: the probabilistic bound of
 * Higham and Mary (SIAM J. Sci. Comput. 2019) for a sum of n terms with a wide
 * margin; a wrong or unwritten (NaN-poisoned) entry fails. */
static int64_t check_result(const ts_csr *a, const double *ref, const double *bound, const void *y, const char *what,
                            double *worst) {
  double u = a->dtype == TS_FLOAT32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
  int64_t bad = 0;
  for (int64_t i = 0; i < a->rows; i++) {
    double len = (double)(a->row_ptr[i + 1] - a->row_ptr[i]);
    double tol = u * (16.0 * sqrt(len) + 16.0) * bound[i];
    double got = value_at(y, a->dtype, i);
    double err = fabs(got - ref[i]);
    if (!(err <= tol)) {
      if (bad < 3)
        fprintf(stderr, "error: %s: row %lld (%lld entries): got %.17g, expected %.17g (tolerance %.3g)\n", what,
                (long long)i, (long long)len, got, ref[i], tol);
      bad++;
    } else if (tol > 0 && err / tol > *worst) {
      *worst = err / tol;
    }
  }
  if (bad)
    fprintf(stderr, "error: %s: %lld of %lld rows wrong\n", what, (long long)bad, (long long)a->rows);
  return bad;
}

/* ---- running a variant ---------------------------------------------------------------- */

struct spmv_job {
  ts_context *ctx;
  ts_spmv_plan *plan;
  ts_buffer *x, *y;
  cusparseHandle_t handle;
  cusparseSpMatDescr_t mat;
  cusparseDnVecDescr_t vec_x, vec_y;
  cusparseSpMVAlg_t alg;
  cudaDataType type;
  void *workspace;
  float alpha32, beta32;
  double alpha64, beta64;
};

static int run_tessera(void *user, void *stream) {
  (void)stream;
  spmv_job *job = (spmv_job *)user;
  ts_status st = ts_spmv_execute(job->plan, 1.0, job->x, 0.0, job->y);
  if (st != TS_SUCCESS) {
    fprintf(stderr, "error: ts_spmv_execute: %s: %s\n", ts_status_string(st), ts_last_error(job->ctx));
    return 1;
  }
  return 0;
}

static int run_cusparse(void *user, void *stream) {
  (void)stream;
  spmv_job *job = (spmv_job *)user;
  const void *alpha = job->type == CUDA_R_32F ? (const void *)&job->alpha32 : (const void *)&job->alpha64;
  const void *beta = job->type == CUDA_R_32F ? (const void *)&job->beta32 : (const void *)&job->beta64;
  TSB_CUSPARSE_TRY(cusparseSpMV(job->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, job->mat, job->vec_x, beta,
                                job->vec_y, job->type, job->alg, job->workspace));
  TSB_CUDA_TRY(cudaGetLastError());
  return 0;
}

/* Poison y, run once, download. */
static int run_once(ts_context *ctx, spmv_job *job, tsb_work_fn fn, void *y_host, size_t y_bytes, double *seconds) {
  TSB_TS_TRY(ctx, ts_buffer_fill_bytes(ctx, job->y, 0xFF)); /* NaN in either type */
  double t0 = tsb_wall_seconds();
  if (fn(job, ts_context_stream(ctx)) != 0)
    return 1;
  TSB_TS_TRY(ctx, ts_context_sync(ctx));
  *seconds = tsb_wall_seconds() - t0;
  TSB_TS_TRY(ctx, ts_buffer_download(ctx, job->y, 0, y_host, y_bytes));
  return 0;
}

/* Check, check repeatability, time, check again; the launch floor when asked. */
static int measure_variant(ts_context *ctx, const options *opt, const ts_csr *a, const double *ref, const double *bound,
                           void *y_host, void *y_first, spmv_job *job, tsb_work_fn fn, const char *what, bool floor,
                           variant_result *out) {
  size_t y_bytes = (size_t)a->rows * ts_dtype_size(a->dtype);
  double seconds = 0;
  out->ran = true;
  out->failed = true;
  if (run_once(ctx, job, fn, y_first, y_bytes, &seconds) != 0)
    return 1;
  out->bad_rows = check_result(a, ref, bound, y_first, what, &out->worst);
  if (run_once(ctx, job, fn, y_host, y_bytes, &seconds) != 0)
    return 1;
  out->repeatable = y_bytes == 0 || memcmp(y_first, y_host, y_bytes) == 0;
  /* Keep the variant to about MAX_SECONDS_PER_VARIANT. */
  int repeat = opt->repeat, warmup = opt->warmup;
  if (seconds * (repeat + warmup) > MAX_SECONDS_PER_VARIANT) {
    repeat = (int)(MAX_SECONDS_PER_VARIANT / (seconds > 0 ? seconds : 1e-9));
    repeat = repeat < 5 ? 5 : repeat;
    warmup = 1;
  }
  void *stream = ts_context_stream(ctx);
  if (tsb_time_events(stream, warmup, repeat, fn, job, &out->ms) != 0)
    return 1;
  /* Calls of a few microseconds: one event pair per call is as long as the
   * call, so the per-call device time of bursts is the steadier figure. */
  if (out->ms.median < SHORT_CALL_MS) {
    tsb_burst burst;
    if (tsb_time_burst(stream, warmup, SHORT_CALL_BURST, SHORT_CALL_BURSTS, fn, job, &burst) != 0)
      return 1;
    out->ms.median = burst.device_us_per_call / 1e3;
    out->burst_timed = true;
  }
  TSB_TS_TRY(ctx, ts_context_sync(ctx));
  TSB_TS_TRY(ctx, ts_buffer_download(ctx, job->y, 0, y_host, y_bytes));
  double worst_after = 0;
  out->bad_rows += check_result(a, ref, bound, y_host, what, &worst_after);
  if (worst_after > out->worst)
    out->worst = worst_after;
  if (floor) {
    if (tsb_time_burst(stream, 20, FLOOR_CALLS, FLOOR_BURSTS, fn, job, &out->floor) != 0)
      return 1;
    out->floor_ran = true;
  }
  out->failed = out->bad_rows != 0;
  return 0;
}

/* cuSPARSE's own copy of A (int32 offsets and indices), sharing x and y. */
struct cusparse_matrix {
  void *row_ptr, *col_idx, *values;
};

/* ---- the stream-and-gather floor ---------------------------------------------------- */

/* What any row schedule must at least do: stream every (column, value) pair
 * once, coalesced, and gather x at the column; no row offsets, no per-row
 * sums (one partial per thread, written so the loads are not dropped). Its
 * time bounds SpMV on matrices whose columns are scattered, where the x
 * gathers, not DRAM, set the pace. */
template <class T>
__global__ void __launch_bounds__(256)
    gather_floor_kernel(long long nnz, const int32_t *__restrict__ cols, const T *__restrict__ vals,
                        const T *__restrict__ x, T *__restrict__ partial) {
  T sum = 0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += stride)
    sum += vals[k] * x[cols[k]];
  partial[(long long)blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

struct gather_job {
  long long nnz;
  const int32_t *cols;
  const void *vals, *x;
  void *partial;
  bool fp32;
  int blocks;
};

enum { GATHER_BLOCKS_PER_SM = 8 };

static int run_gather_floor(void *user, void *stream) {
  gather_job *g = (gather_job *)user;
  cudaStream_t s = (cudaStream_t)stream;
  if (g->fp32)
    gather_floor_kernel<float>
        <<<g->blocks, 256, 0, s>>>(g->nnz, g->cols, (const float *)g->vals, (const float *)g->x, (float *)g->partial);
  else
    gather_floor_kernel<double><<<g->blocks, 256, 0, s>>>(g->nnz, g->cols, (const double *)g->vals,
                                                          (const double *)g->x, (double *)g->partial);
  TSB_CUDA_TRY(cudaGetLastError());
  return 0;
}

static int measure_gather_floor(ts_context *ctx, const options *opt, const ts_csr *a, const cusparse_matrix *m,
                                const ts_buffer *x, case_result *c) {
  if (a->nnz == 0)
    return 0;
  int device = 0, sms = 0;
  TSB_CUDA_TRY(cudaGetDevice(&device));
  TSB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  gather_job g = {a->nnz,
                  (const int32_t *)m->col_idx,
                  m->values,
                  ts_buffer_data((ts_buffer *)x),
                  NULL,
                  a->dtype == TS_FLOAT32,
                  sms * GATHER_BLOCKS_PER_SM};
  TSB_CUDA_TRY(cudaMalloc(&g.partial, (size_t)g.blocks * 256 * sizeof(double)));
  int bad = tsb_time_events(ts_context_stream(ctx), opt->warmup, opt->repeat, run_gather_floor, &g, &c->gather);
  (void)cudaFree(g.partial);
  c->gather_ran = bad == 0;
  return bad;
}

static int prepare_cusparse(spmv_job *job, const ts_csr *a, const cusparse_matrix *m, cusparseSpMVAlg_t alg) {
  job->type = a->dtype == TS_FLOAT32 ? CUDA_R_32F : CUDA_R_64F;
  job->alg = alg;
  job->alpha32 = 1.0f;
  job->beta32 = 0.0f;
  job->alpha64 = 1.0;
  job->beta64 = 0.0;
  TSB_CUSPARSE_TRY(cusparseCreateCsr(&job->mat, a->rows, a->cols, a->nnz, m->row_ptr, m->col_idx, m->values,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, job->type));
  TSB_CUSPARSE_TRY(cusparseCreateDnVec(&job->vec_x, a->cols, ts_buffer_data(job->x), job->type));
  TSB_CUSPARSE_TRY(cusparseCreateDnVec(&job->vec_y, a->rows, ts_buffer_data(job->y), job->type));
  const void *alpha = job->type == CUDA_R_32F ? (const void *)&job->alpha32 : (const void *)&job->alpha64;
  const void *beta = job->type == CUDA_R_32F ? (const void *)&job->beta32 : (const void *)&job->beta64;
  size_t workspace_bytes = 0;
  TSB_CUSPARSE_TRY(cusparseSpMV_bufferSize(job->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, job->mat, job->vec_x,
                                           beta, job->vec_y, job->type, alg, &workspace_bytes));
  TSB_CUDA_TRY(cudaMalloc(&job->workspace, workspace_bytes > 0 ? workspace_bytes : 16));
  /* Once per matrix, like a tessera plan; optional where refused. */
  cusparseStatus_t pre = cusparseSpMV_preprocess(job->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, job->mat,
                                                 job->vec_x, beta, job->vec_y, job->type, alg, job->workspace);
  if (pre != CUSPARSE_STATUS_SUCCESS)
    printf("    (cusparseSpMV_preprocess for algorithm %d: %s; timing without it)\n", (int)alg,
           cusparseGetErrorString(pre));
  TSB_CUDA_TRY(cudaGetLastError());
  return 0;
}

static void release_cusparse(spmv_job *job) {
  if (job->mat)
    (void)cusparseDestroySpMat(job->mat);
  if (job->vec_x)
    (void)cusparseDestroyDnVec(job->vec_x);
  if (job->vec_y)
    (void)cusparseDestroyDnVec(job->vec_y);
  if (job->workspace)
    (void)cudaFree(job->workspace);
  job->mat = NULL;
  job->vec_x = job->vec_y = NULL;
  job->workspace = NULL;
}

/* ---- one matrix in one value type ------------------------------------------------------ */

/* Compulsory traffic with beta = 0 and int32 offsets: values and column
 * indices once, row offsets once, x once, y written once. The same figure for
 * every variant, so that GB/s compare like with like. */
static double compulsory_bytes(const ts_csr *a) {
  double v = (double)ts_dtype_size(a->dtype);
  return (double)a->nnz * (v + 4) + (double)(a->rows + 1) * 4 + (double)a->rows * v + (double)a->cols * v;
}

static void describe(const ts_csr *a, case_result *c) {
  c->dtype = a->dtype;
  c->rows = a->rows;
  c->cols = a->cols;
  c->nnz = a->nnz;
  c->mean_row = a->rows > 0 ? (double)a->nnz / (double)a->rows : 0;
  double squares = 0;
  for (int64_t i = 0; i < a->rows; i++) {
    int64_t n = a->row_ptr[i + 1] - a->row_ptr[i];
    if (n > c->max_row)
      c->max_row = n;
    squares += ((double)n - c->mean_row) * ((double)n - c->mean_row);
  }
  c->cv_row = c->mean_row > 0 ? sqrt(squares / (double)a->rows) / c->mean_row : 0;
  c->bytes = compulsory_bytes(a);
}

static int run_case(ts_context *ctx, cusparseHandle_t handle, const options *opt, const ts_csr *a, bool floor,
                    case_result *c, int *check_failed) {
  int failed = 1;
  size_t v = ts_dtype_size(a->dtype);
  void *x_host = malloc((size_t)a->cols * v + 8), *y_host = malloc((size_t)a->rows * v + 8);
  void *y_first = malloc((size_t)a->rows * v + 8);
  double *ref = (double *)malloc((size_t)a->rows * sizeof(double) + 8);
  double *bound = (double *)malloc((size_t)a->rows * sizeof(double) + 8);
  spmv_job job;
  cusparse_matrix m = {NULL, NULL, NULL};
  unsigned long long seed = 0x7e55e7a5ull;
  char what[160];
  memset(&job, 0, sizeof job);
  job.ctx = ctx;
  job.handle = handle;
  describe(a, c);
  if (!x_host || !y_host || !y_first || !ref || !bound) {
    fprintf(stderr, "error: out of host memory for %s\n", c->name);
    goto cleanup;
  }
  /* x uniform in [-1, 1) (splitmix64): no zeros to hide wrong indexing. */
  for (int64_t j = 0; j < a->cols; j++) {
    unsigned long long z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    double r = (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    if (a->dtype == TS_FLOAT32)
      ((float *)x_host)[j] = (float)r;
    else
      ((double *)x_host)[j] = r;
  }
  reference_spmv(a, x_host, ref, bound);
  printf("  %s %s: %lld x %lld, %lld nnz, max row %lld, mean %.2f, cv %.2f\n", c->name,
         a->dtype == TS_FLOAT32 ? "fp32" : "fp64", (long long)a->rows, (long long)a->cols, (long long)a->nnz,
         (long long)c->max_row, c->mean_row, c->cv_row);
  fflush(stdout);
  if (ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)a->cols * v, &job.x) != TS_SUCCESS ||
      ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)a->rows * v, &job.y) != TS_SUCCESS ||
      (a->cols > 0 && ts_buffer_upload(ctx, job.x, 0, x_host, (size_t)a->cols * v) != TS_SUCCESS)) {
    fprintf(stderr, "error: vectors for %s: %s\n", c->name, ts_last_error(ctx));
    goto cleanup;
  }

  /* cuSPARSE first, then its copy of A is freed before tessera's plans. */
  if (tsb_upload_csr32(a, &m.row_ptr, &m.col_idx, &m.values) != 0)
    goto cleanup;
  for (int k = V_ALG1; k <= V_ALG2; k++) {
    int bad = prepare_cusparse(&job, a, &m, k == V_ALG1 ? CUSPARSE_SPMV_CSR_ALG1 : CUSPARSE_SPMV_CSR_ALG2);
    snprintf(what, sizeof what, "%s %s", c->name, variant_names[k]);
    if (!bad)
      bad = measure_variant(ctx, opt, a, ref, bound, y_host, y_first, &job, run_cusparse, what, floor, &c->v[k]);
    release_cusparse(&job);
    if (bad)
      goto cleanup;
  }
  if (measure_gather_floor(ctx, opt, a, &m, job.x, c) != 0)
    goto cleanup;
  tsb_free_csr32(m.row_ptr, m.col_idx, m.values);
  m.row_ptr = m.col_idx = m.values = NULL;

  for (int k = 0; k < V_ALG1; k++) {
    ts_spmv_options o;
    memset(&o, 0, sizeof o);
    o.schedule = variant_schedules[k];
    o.group_size = k == V_GROUP ? opt->group_size : 0;
    if (k == V_SPLIT && opt->group_size <= 8)
      o.group_size = opt->group_size; /* threads a short row */
    double t0 = tsb_wall_seconds();
    ts_status st = ts_spmv_plan_create_ex(ctx, a, &o, &job.plan);
    if (st != TS_SUCCESS) {
      fprintf(stderr, "error: %s %s: ts_spmv_plan_create_ex: %s: %s\n", c->name, variant_names[k], ts_status_string(st),
              ts_last_error(ctx));
      goto cleanup;
    }
    c->v[k].plan_ms = 1e3 * (tsb_wall_seconds() - t0);
    c->v[k].ran_as = ts_spmv_plan_schedule(job.plan);
    c->v[k].group_size = ts_spmv_plan_group_size(job.plan);
    snprintf(c->v[k].explain, sizeof c->v[k].explain, "%s", ts_spmv_plan_explain(job.plan));
    snprintf(what, sizeof what, "%s %s", c->name, variant_names[k]);
    int bad = measure_variant(ctx, opt, a, ref, bound, y_host, y_first, &job, run_tessera, what, floor, &c->v[k]);
    ts_spmv_plan_destroy(job.plan);
    job.plan = NULL;
    if (bad)
      goto cleanup;
  }
  failed = 0;

cleanup:
  for (int k = 0; k < V_COUNT; k++) {
    if (!c->v[k].ran)
      continue;
    double gbps = tsb_gbps(c->bytes, c->v[k].ms.median);
    printf("    %-14s %10.4f ms %8.1f GB/s  check %s%s\n", variant_names[k], c->v[k].ms.median, gbps,
           c->v[k].failed ? "FAILED" : "ok", c->v[k].repeatable ? "" : ", not repeatable");
    if (c->v[k].failed)
      *check_failed = 1;
  }
  if (c->gather_ran)
    printf("    %-14s %10.4f ms %8.1f GB/s  (stream and gather only)\n", "gather floor", c->gather.median,
           tsb_gbps(c->bytes, c->gather.median));
  if (c->v[V_AUTO].ran)
    printf("    %s\n", c->v[V_AUTO].explain);
  fflush(stdout);
  release_cusparse(&job);
  tsb_free_csr32(m.row_ptr, m.col_idx, m.values);
  m.row_ptr = m.col_idx = m.values = NULL;
  ts_buffer_destroy(job.x);
  ts_buffer_destroy(job.y);
  ts_spmv_plan_destroy(job.plan);
  free(x_host);
  free(y_host);
  free(y_first);
  free(ref);
  free(bound);
  return failed;
}

/* ---- the matrices ------------------------------------------------------------------------- */

enum { GEN_LAPLACIAN_2D, GEN_LAPLACIAN_3D, GEN_POWER_LAW, GEN_RMAT, GEN_CIRCUIT, GEN_RANDOM };

struct matrix_spec {
  int set;
  const char *name;
  int kind;
  int64_t n;       /* side, rows, scale (R-MAT) or circuit rows */
  int64_t nnz;     /* power law: target entries; random: entries per row */
  double param;    /* power law: exponent; circuit: locality */
  int64_t cols;    /* random: columns */
  int64_t divisor; /* --quick divides sizes by this (R-MAT: scale - 4) */
};

/* Sizes: the largest regular ones hold a few 10^8 nonzeros, which fit the
 * H200 with cuSPARSE's copy in fp64; generation is on the host. */
static const matrix_spec specs[] = {
    {SET_REGULAR, "laplacian2d_1024", GEN_LAPLACIAN_2D, 1024, 0, 0, 0, 4},
    {SET_REGULAR, "laplacian2d_2048", GEN_LAPLACIAN_2D, 2048, 0, 0, 0, 4},
    {SET_REGULAR, "laplacian2d_4096", GEN_LAPLACIAN_2D, 4096, 0, 0, 0, 4},
    {SET_REGULAR, "laplacian2d_8192", GEN_LAPLACIAN_2D, 8192, 0, 0, 0, 8},
    {SET_REGULAR, "laplacian3d_64", GEN_LAPLACIAN_3D, 64, 0, 0, 0, 2},
    {SET_REGULAR, "laplacian3d_128", GEN_LAPLACIAN_3D, 128, 0, 0, 0, 2},
    {SET_REGULAR, "laplacian3d_256", GEN_LAPLACIAN_3D, 256, 0, 0, 0, 4},
    {SET_REGULAR, "laplacian3d_320", GEN_LAPLACIAN_3D, 320, 0, 0, 0, 4},
    {SET_POWERLAW, "powerlaw_z0.9_2^18", GEN_POWER_LAW, 1 << 18, 4300000, 0.9, 0, 16},
    {SET_POWERLAW, "powerlaw_z1.2_2^16", GEN_POWER_LAW, 1 << 16, 840000, 1.2, 0, 16},
    {SET_POWERLAW, "powerlaw_z0.9", GEN_POWER_LAW, 1 << 22, 68700000, 0.9, 0, 16},
    {SET_POWERLAW, "powerlaw_z1.2", GEN_POWER_LAW, 1 << 20, 13400000, 1.2, 0, 16},
    {SET_RMAT, "rmat_20", GEN_RMAT, 20, 16, 0, 0, 0},
    {SET_RMAT, "rmat_21", GEN_RMAT, 21, 16, 0, 0, 0},
    {SET_RMAT, "rmat_22", GEN_RMAT, 22, 16, 0, 0, 0},
    {SET_RMAT, "rmat_23", GEN_RMAT, 23, 16, 0, 0, 0},
    {SET_CIRCUIT, "circuit_1M", GEN_CIRCUIT, 1000000, 0, 0.0, 0, 10},
    {SET_CIRCUIT, "circuit_1M_mesh", GEN_CIRCUIT, 1000000, 0, 1.0, 0, 10},
    {SET_TINY, "tiny_1x1", GEN_RANDOM, 1, 1, 0, 1, 1},
    {SET_TINY, "tiny_laplacian2d_4", GEN_LAPLACIAN_2D, 4, 0, 0, 0, 1},
    {SET_TINY, "tiny_laplacian2d_10", GEN_LAPLACIAN_2D, 10, 0, 0, 0, 1},
    {SET_TINY, "tiny_random_100x100x4", GEN_RANDOM, 100, 4, 0, 100, 1},
    {SET_TINY, "tiny_laplacian2d_32", GEN_LAPLACIAN_2D, 32, 0, 0, 0, 1},
    {SET_TINY, "tiny_random_1000x1000x8", GEN_RANDOM, 1000, 8, 0, 1000, 1},
    {SET_TINY, "tiny_random_30x3000x100", GEN_RANDOM, 30, 100, 0, 3000, 1},
    {SET_TINY, "tiny_laplacian2d_100", GEN_LAPLACIAN_2D, 100, 0, 0, 0, 1},
};
#define SPEC_COUNT ((int)(sizeof specs / sizeof specs[0]))

static ts_status generate(ts_context *ctx, const matrix_spec *s, bool quick, ts_csr **a) {
  int64_t d = quick && s->divisor > 0 ? s->divisor : 1;
  switch (s->kind) {
  case GEN_LAPLACIAN_2D:
    return ts_gen_laplacian_2d(ctx, s->n / d, s->n / d, TS_FLOAT64, a);
  case GEN_LAPLACIAN_3D:
    return ts_gen_laplacian_3d(ctx, s->n / d, s->n / d, s->n / d, TS_FLOAT64, a);
  case GEN_POWER_LAW:
    return ts_gen_power_law(ctx, s->n / d, s->n / d, s->nnz / d, s->param, 20261129u, TS_FLOAT64, a);
  case GEN_RMAT: {
    /* Graph500 probabilities, directed (no mirror edges): nnz up to 16 * 2^scale. */
    ts_rmat_params p = ts_rmat_graph500((int)(quick ? s->n - 6 : s->n), (int)s->nnz);
    p.symmetric = 0;
    return ts_gen_rmat(ctx, &p, 20261129u, TS_FLOAT64, a);
  }
  case GEN_CIRCUIT: {
    ts_circuit_params p = ts_circuit_defaults(s->n / d);
    p.locality = s->param;
    return ts_gen_circuit(ctx, &p, 20261129u, TS_FLOAT64, a);
  }
  case GEN_RANDOM:
    return ts_gen_random_uniform(ctx, s->n, s->cols, s->nnz, 20261129u, TS_FLOAT64, a);
  }
  return TS_ERROR_INVALID_ARGUMENT;
}

/* ---- results: CSV rows and the Markdown summary ---------------------------------------------- */

static const char *dtype_name(ts_dtype dtype) { return dtype == TS_FLOAT32 ? "fp32" : "fp64"; }

static double speed_vs_alg1(const case_result *c, int k) {
  const variant_result *alg1 = &c->v[V_ALG1], *r = &c->v[k];
  return alg1->ran && r->ran && r->ms.median > 0 ? alg1->ms.median / r->ms.median : 0;
}

/* Fastest schedule (AUTO excluded) that passed its check, or -1. */
static int best_schedule(const case_result *c) {
  int best = -1;
  for (int k = 0; k < V_AUTO; k++)
    if (c->v[k].ran && !c->v[k].failed && (best < 0 || c->v[k].ms.median < c->v[best].ms.median))
      best = k;
  return best;
}

/* Fastest variant overall, and the fastest deterministic one (tessera's
 * schedules, cuSPARSE ALG2), both among those that passed and repeated. */
static void fastest(const case_result *c, int *overall, int *deterministic) {
  *overall = *deterministic = -1;
  for (int k = 0; k < V_COUNT; k++) {
    const variant_result *r = &c->v[k];
    if (!r->ran || r->failed)
      continue;
    if (*overall < 0 || r->ms.median < c->v[*overall].ms.median)
      *overall = k;
    bool deterministic_by_contract = is_tessera(k) || k == V_ALG2;
    if (deterministic_by_contract && r->repeatable &&
        (*deterministic < 0 || r->ms.median < c->v[*deterministic].ms.median))
      *deterministic = k;
  }
}

static void add_rows(tsb_table *t, const case_result *c, double copy_gbps) {
  for (int k = 0; k < V_COUNT; k++) {
    const variant_result *r = &c->v[k];
    if (!r->ran)
      continue;
    double gbps = tsb_gbps(c->bytes, r->ms.median);
    tsb_table_cell(t, "%s", set_names[c->set]);
    tsb_table_cell(t, "%s", c->name);
    tsb_table_cell(t, "%s", dtype_name(c->dtype));
    tsb_table_cell(t, "%lld", (long long)c->rows);
    tsb_table_cell(t, "%lld", (long long)c->cols);
    tsb_table_cell(t, "%lld", (long long)c->nnz);
    tsb_table_cell(t, "%lld", (long long)c->max_row);
    tsb_table_cell(t, "%.2f", c->mean_row);
    tsb_table_cell(t, "%.3f", c->cv_row);
    tsb_table_cell(t, "%s", variant_names[k]);
    if (is_tessera(k) && r->group_size > 0)
      tsb_table_cell(t, "%s/%d", ts_schedule_name(r->ran_as), r->group_size);
    else
      tsb_table_cell(t, "%s", is_tessera(k) ? ts_schedule_name(r->ran_as) : variant_names[k]);
    tsb_table_cell(t, "%.4f", r->ms.median);
    tsb_table_cell(t, "%.4f", r->ms.min);
    tsb_table_cell(t, "%.1f", gbps);
    tsb_table_cell(t, "%.1f", 100.0 * tsb_fraction_of(gbps, copy_gbps));
    tsb_table_cell(t, "%.4g", speed_vs_alg1(c, k));
    tsb_table_cell(t, "%s", r->failed ? "FAILED" : "ok");
    tsb_table_cell(t, "%s", r->repeatable ? "yes" : "no");
    tsb_table_cell(t, "%.3g", r->worst);
    tsb_table_cell(t, "%.2f", r->plan_ms);
    if (r->floor_ran) {
      tsb_table_cell(t, "%.2f", r->floor.device_us_per_call);
      tsb_table_cell(t, "%.2f", r->floor.host_us_per_call);
    } else {
      tsb_table_cell(t, "%s", "");
      tsb_table_cell(t, "%s", "");
    }
  }
}

/* Markdown to stdout and to the .md file. */
static FILE *md_file;
static void md(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vprintf(format, args);
  va_end(args);
  if (md_file) {
    va_start(args, format);
    vfprintf(md_file, format, args);
    va_end(args);
  }
}

static void md_per_matrix(const case_result *cases, int count, double copy_gbps) {
  md("\n## Per matrix (GB/s of compulsory traffic; %% of the copy bandwidth; x = speed against cuSPARSE ALG1)\n\n");
  md("| matrix | dtype | rows | nnz | max row | ALG1 | ALG2 |");
  for (int k = 0; k < V_ALG1; k++)
    md(" %s |", variant_names[k]);
  md(" AUTO ran | best schedule | AUTO / best |\n|");
  for (int k = 0; k < 7 + V_ALG1 + 3; k++)
    md("---|");
  md("\n");
  for (int i = 0; i < count; i++) {
    const case_result *c = &cases[i];
    md("| %s | %s | %lld | %lld | %lld |", c->name, dtype_name(c->dtype), (long long)c->rows, (long long)c->nnz,
       (long long)c->max_row);
    for (int k = V_ALG1; k <= V_ALG2; k++) {
      const variant_result *r = &c->v[k];
      double gbps = tsb_gbps(c->bytes, r->ms.median);
      if (r->ran)
        md(" %.4f ms, %.0f GB/s, %.0f%% |", r->ms.median, gbps, 100 * tsb_fraction_of(gbps, copy_gbps));
      else
        md(" - |");
    }
    for (int k = 0; k < V_ALG1; k++) {
      const variant_result *r = &c->v[k];
      double gbps = tsb_gbps(c->bytes, r->ms.median);
      if (r->ran)
        md(" %.4f ms, %.0f%%, %.2fx%s |", r->ms.median, 100 * tsb_fraction_of(gbps, copy_gbps), speed_vs_alg1(c, k),
           r->failed ? " FAILED" : "");
      else
        md(" - |");
    }
    int best = best_schedule(c);
    const variant_result *a = &c->v[V_AUTO];
    md(" %s | %s | %.3f |\n", a->ran ? ts_schedule_name(a->ran_as) : "-", best >= 0 ? variant_names[best] : "-",
       best >= 0 && a->ran && c->v[best].ms.median > 0 ? a->ms.median / c->v[best].ms.median : 0.0);
  }
}

/* The stream-and-gather floor beside the best tessera schedule and ALG1. */
static void md_gather_floor(const case_result *cases, int count, double copy_gbps) {
  md("\n## Stream-and-gather floor (every (column, value) pair streamed once, x gathered; no rows)\n\n");
  md("| matrix | dtype | floor | floor %% of copy | best tessera | best / floor | ALG1 / floor |\n");
  md("|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < count; i++) {
    const case_result *c = &cases[i];
    int best = best_schedule(c);
    if (!c->gather_ran || best < 0 || c->gather.median <= 0)
      continue;
    md("| %s | %s | %.4f ms | %.0f%% | %s %.4f ms | %.2f | %.2f |\n", c->name, dtype_name(c->dtype), c->gather.median,
       100 * tsb_fraction_of(tsb_gbps(c->bytes, c->gather.median), copy_gbps), variant_names[best],
       c->v[best].ms.median, c->v[best].ms.median / c->gather.median, c->v[V_ALG1].ms.median / c->gather.median);
  }
}

static void md_bins(const case_result *cases, int count) {
  static const double edges[5] = {0, 1e4, 1e6, 1e7, INFINITY};
  static const char *const labels[4] = {"nnz < 1e4", "1e4 <= nnz < 1e6", "1e6 <= nnz < 1e7", "nnz >= 1e7"};
  md("\n## Geometric mean speed against cuSPARSE ALG1, by nnz bin (above 1: faster than ALG1)\n\n");
  md("| bin | dtype | matrices |");
  for (int k = 0; k < V_COUNT; k++)
    if (k != V_ALG1)
      md(" %s |", variant_names[k]);
  md("\n|");
  for (int k = 0; k < V_COUNT + 2; k++)
    md("---|");
  md("\n");
  double *speeds = (double *)malloc((size_t)(count + 1) * sizeof(double));
  if (!speeds)
    return;
  for (int d = 0; d < 2; d++) {
    ts_dtype dtype = d == 0 ? TS_FLOAT32 : TS_FLOAT64;
    for (int b = 0; b < 5; b++) { /* four bins, then all */
      double lo = b < 4 ? edges[b] : 0, hi = b < 4 ? edges[b + 1] : INFINITY;
      int matrices = 0;
      for (int i = 0; i < count; i++)
        if (cases[i].dtype == dtype && (double)cases[i].nnz >= lo && (double)cases[i].nnz < hi)
          matrices++;
      if (matrices == 0)
        continue;
      md("| %s | %s | %d |", b < 4 ? labels[b] : "all", dtype_name(dtype), matrices);
      for (int k = 0; k < V_COUNT; k++) {
        if (k == V_ALG1)
          continue;
        int n = 0;
        for (int i = 0; i < count; i++)
          if (cases[i].dtype == dtype && (double)cases[i].nnz >= lo && (double)cases[i].nnz < hi)
            speeds[n++] = speed_vs_alg1(&cases[i], k);
        md(" %.3f |", tsb_geomean(speeds, n));
      }
      md("\n");
    }
  }
  free(speeds);
}

/* The variant column that ran AUTO's choice (same schedule and group
 * size), or -1. */
static int auto_choice_column(const case_result *c) {
  const variant_result *a = &c->v[V_AUTO];
  for (int k = 0; k < V_AUTO; k++)
    if (c->v[k].ran && variant_schedules[k] == a->ran_as && c->v[k].group_size == a->group_size)
      return k;
  return -1;
}

static void md_auto_and_determinism(const case_result *cases, int count) {
  int judged = 0, within = 0, same = 0, deterministic_count = 0, choices = 0, choice_within = 0;
  double *ratios = (double *)malloc((size_t)(count + 1) * sizeof(double));
  double *det = (double *)malloc((size_t)(count + 1) * sizeof(double));
  double *choice_ratios = (double *)malloc((size_t)(count + 1) * sizeof(double));
  if (!ratios || !det || !choice_ratios) {
    free(ratios);
    free(det);
    free(choice_ratios);
    return;
  }
  for (int i = 0; i < count; i++) {
    const case_result *c = &cases[i];
    int best = best_schedule(c);
    if (best >= 0 && c->v[V_AUTO].ran && !c->v[V_AUTO].failed && c->v[best].ms.median > 0) {
      double ratio = c->v[V_AUTO].ms.median / c->v[best].ms.median;
      ratios[judged++] = ratio;
      within += ratio <= AUTO_WITHIN;
      same += variant_schedules[best] == c->v[V_AUTO].ran_as;
      int chosen = auto_choice_column(c);
      if (chosen >= 0 && !c->v[chosen].failed) {
        double choice = c->v[chosen].ms.median / c->v[best].ms.median;
        choice_ratios[choices++] = choice;
        choice_within += choice <= AUTO_WITHIN;
      }
    }
    int overall, deterministic;
    fastest(c, &overall, &deterministic);
    if (overall >= 0 && deterministic >= 0 && c->v[deterministic].ms.median > 0)
      det[deterministic_count++] = c->v[overall].ms.median / c->v[deterministic].ms.median;
  }
  md("\n## AUTO against the best schedule\n\n");
  if (judged > 0)
    md("- AUTO within %.0f%% of the best schedule on %d of %d cases (%.0f%%); the same schedule on %d; geomean time "
       "AUTO / best %.3f\n",
       100 * (AUTO_WITHIN - 1), within, judged, 100.0 * within / judged, same, tsb_geomean(ratios, judged));
  if (choices > 0)
    md("- AUTO's choice, timed in its schedule's own column (AUTO's call is the same kernel timed a second time, "
       "which on launch-bound matrices differs by up to a microsecond from run to run): within %.0f%% of the best on "
       "%d of %d cases (%.0f%%); geomean %.3f\n",
       100 * (AUTO_WITHIN - 1), choice_within, choices, 100.0 * choice_within / choices,
       tsb_geomean(choice_ratios, choices));
  md("\n## The deterministic path against the fastest\n\n");
  md("Deterministic: tessera's schedules and cuSPARSE ALG2, when two runs gave the same bits; fastest: any variant "
     "(ALG1 included).\n\n");
  md("| matrix | dtype | fastest | ms | fastest deterministic | ms | fastest / deterministic "
     "|\n|---|---|---|---|---|---|"
     "---|\n");
  for (int i = 0; i < count; i++) {
    const case_result *c = &cases[i];
    int overall, deterministic;
    fastest(c, &overall, &deterministic);
    if (overall < 0)
      continue;
    md("| %s | %s | %s | %.4f | %s | %.4f | %.3f |\n", c->name, dtype_name(c->dtype), variant_names[overall],
       c->v[overall].ms.median, deterministic >= 0 ? variant_names[deterministic] : "-",
       deterministic >= 0 ? c->v[deterministic].ms.median : 0.0,
       deterministic >= 0 && c->v[deterministic].ms.median > 0 ? c->v[overall].ms.median / c->v[deterministic].ms.median
                                                               : 0.0);
  }
  if (deterministic_count > 0)
    md("\nGeomean fastest / deterministic: %.3f over %d cases (1 = the deterministic path is the fastest).\n",
       tsb_geomean(det, deterministic_count), deterministic_count);
  free(ratios);
  free(det);
  free(choice_ratios);
}

static void md_floor(const case_result *cases, int count) {
  bool any = false;
  for (int i = 0; i < count && !any; i++)
    any = cases[i].v[V_AUTO].floor_ran;
  if (!any)
    return;
  md("\n## Launch floor on tiny matrices (us per call in a burst of %d calls ending in one sync; device / host wall)"
     "\n\n| matrix | dtype | nnz |",
     FLOOR_CALLS);
  for (int k = 0; k < V_COUNT; k++)
    md(" %s |", variant_names[k]);
  md("\n|");
  for (int k = 0; k < V_COUNT + 3; k++)
    md("---|");
  md("\n");
  for (int i = 0; i < count; i++) {
    const case_result *c = &cases[i];
    if (!c->v[V_AUTO].floor_ran)
      continue;
    md("| %s | %s | %lld |", c->name, dtype_name(c->dtype), (long long)c->nnz);
    for (int k = 0; k < V_COUNT; k++)
      if (c->v[k].floor_ran)
        md(" %.2f / %.2f |", c->v[k].floor.device_us_per_call, c->v[k].floor.host_us_per_call);
      else
        md(" - |");
    md("\n");
  }
}

/* ---- main ---------------------------------------------------------------------------------------- */

static void usage(const char *argv0) {
  printf("usage: %s [--set corpus|regular|powerlaw|rmat|circuit|tiny|all]... [--quick]\n"
         "          [--precision single|double|both] [--matrices DIR] [--only TEXT] [--group-size N]\n"
         "          [--warmup N] [--repeat N] [--md PATH] [CSV_PATH]\n"
         "  --set may be repeated (default corpus); corpus reads DIR, else $TESSERA_MATRICES\n"
         "  --quick shrinks the generated sets (a check of the program, not a measurement)\n"
         "  --group-size N sets group-mapped's group size, and with N <= 8 split-rows' threads a short row\n"
         "  CSV_PATH defaults to bench-out/spmv_schedules.csv; the Markdown goes to the same path with .md\n"
         "  exit status: 0 when every check passed, 1 on a failed check or error, 2 for a bad command line,\n"
         "  77 when no GPU is usable\n",
         argv0);
}

static bool parse_int(const char *text, int lo, int hi, int *value) {
  char *end = NULL;
  long v = strtol(text, &end, 10);
  if (!end || *end || v < lo || v > hi)
    return false;
  *value = (int)v;
  return true;
}

int main(int argc, char **argv) {
  options opt;
  memset(&opt, 0, sizeof opt);
  opt.csv_path = "bench-out/spmv_schedules.csv";
  opt.fp32 = true;
  opt.warmup = 5;
  opt.repeat = 30;
  bool any_set = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(arg, "--set") == 0 && has_value) {
      const char *name = argv[++i];
      bool known = false;
      for (int s = 0; s < SET_COUNT; s++)
        if (strcmp(name, set_names[s]) == 0 || strcmp(name, "all") == 0) {
          opt.sets[s] = true;
          known = true;
        }
      if (!known) {
        fprintf(stderr, "error: unknown set '%s'\n", name);
        return 2;
      }
      any_set = true;
    } else if (strcmp(arg, "--quick") == 0) {
      opt.quick = true;
    } else if (strcmp(arg, "--precision") == 0 && has_value) {
      const char *p = argv[++i];
      opt.fp32 = strcmp(p, "single") == 0 || strcmp(p, "both") == 0;
      opt.fp64 = strcmp(p, "double") == 0 || strcmp(p, "both") == 0;
      if (!opt.fp32 && !opt.fp64) {
        fprintf(stderr, "error: --precision single, double or both\n");
        return 2;
      }
    } else if (strcmp(arg, "--matrices") == 0 && has_value) {
      opt.matrices_dir = argv[++i];
    } else if (strcmp(arg, "--only") == 0 && has_value) {
      opt.only = argv[++i];
    } else if (strcmp(arg, "--md") == 0 && has_value) {
      opt.md_path = argv[++i];
    } else if (strcmp(arg, "--group-size") == 0 && has_value) {
      if (!parse_int(argv[++i], 1, 1024, &opt.group_size) || (opt.group_size & (opt.group_size - 1))) {
        fprintf(stderr, "error: --group-size takes a power of two from 1 to 1024\n");
        return 2;
      }
    } else if (strcmp(arg, "--warmup") == 0 && has_value) {
      if (!parse_int(argv[++i], 0, 1000, &opt.warmup)) {
        fprintf(stderr, "error: --warmup takes 0 to 1000\n");
        return 2;
      }
    } else if (strcmp(arg, "--repeat") == 0 && has_value) {
      if (!parse_int(argv[++i], 1, 100000, &opt.repeat)) {
        fprintf(stderr, "error: --repeat takes 1 to 100000\n");
        return 2;
      }
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      usage(argv[0]);
      return 0;
    } else if (arg[0] == '-') {
      fprintf(stderr, "error: unknown option %s (or a missing value)\n", arg);
      usage(argv[0]);
      return 2;
    } else {
      opt.csv_path = arg;
    }
  }
  if (!any_set)
    opt.sets[SET_CORPUS] = true;
  char md_default[4096];
  if (!opt.md_path) {
    snprintf(md_default, sizeof md_default, "%s", opt.csv_path);
    char *dot = strrchr(md_default, '.');
    char *slash = strrchr(md_default, '/');
    if (dot && (!slash || dot > slash))
      *dot = '\0';
    strncat(md_default, ".md", sizeof md_default - strlen(md_default) - 1);
    opt.md_path = md_default;
  }
  if (!opt.matrices_dir)
    opt.matrices_dir = getenv("TESSERA_MATRICES");

  ts_context_options ctx_options;
  memset(&ctx_options, 0, sizeof ctx_options);
  ctx_options.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  ts_status created = ts_context_create(&ctx, &ctx_options);
  if (created == TS_ERROR_NO_DEVICE) {
    printf("SKIPPED: %s\n", ts_last_error(NULL));
    return 77; /* as the tests do: nothing to measure without a GPU */
  }
  if (created != TS_SUCCESS) {
    fprintf(stderr, "error: %s\n", ts_last_error(NULL));
    return 2;
  }

  /* Corpus names, when that set is asked for. */
  static char corpus_names[1024][128];
  int corpus_count = opt.sets[SET_CORPUS] ? tsb_corpus_names(opt.matrices_dir, corpus_names, 1024) : 0;
  if (opt.sets[SET_CORPUS] && corpus_count == 0)
    printf("corpus set: no MANIFEST.tsv (pass --matrices DIR or set TESSERA_MATRICES); skipped\n");
  int max_cases = 2 * (corpus_count + SPEC_COUNT) + 2;
  case_result *cases = (case_result *)calloc((size_t)max_cases, sizeof(case_result));

  int failed = 0, check_failed = 0, count = 0;
  cusparseHandle_t handle = NULL;
  const char *columns[] = {"set",
                           "matrix",
                           "dtype",
                           "rows",
                           "cols",
                           "nnz",
                           "max_row",
                           "mean_row",
                           "cv_row",
                           "variant",
                           "ran_as",
                           "median_ms",
                           "min_ms",
                           "gbps",
                           "pct_of_copy",
                           "speed_vs_alg1",
                           "check",
                           "repeatable",
                           "max_err_over_tol",
                           "plan_ms",
                           "floor_device_us",
                           "floor_host_us"};
  tsb_table *t = tsb_table_create((int)(sizeof columns / sizeof columns[0]), columns);
  tsb_metadata meta;
  tsb_copy_bandwidth copy;
  memset(&copy, 0, sizeof copy);
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "timing",
                   "median of up to %d CUDA-event timed calls after %d warm-up calls (fewer where a variant would pass "
                   "%.1f s); calls under %.0f us: median over %d bursts of %d back-to-back calls of the device time "
                   "per call",
                   opt.repeat, opt.warmup, MAX_SECONDS_PER_VARIANT, SHORT_CALL_MS * 1e3, SHORT_CALL_BURSTS,
                   SHORT_CALL_BURST);
  tsb_metadata_set(&meta, "traffic", "nnz*(value+4) + (rows+1)*4 + rows*value + cols*value bytes (beta = 0)");
  if (!t || !cases)
    failed = 1;
  if (!failed && cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS) {
    fprintf(stderr, "error: cusparseCreate failed\n");
    failed = 1;
  }
  if (!failed && cusparseSetStream(handle, (cudaStream_t)ts_context_stream(ctx)) != CUSPARSE_STATUS_SUCCESS) {
    fprintf(stderr, "error: cusparseSetStream failed\n");
    failed = 1;
  }
  if (!failed) {
    failed = tsb_measure_copy_bandwidth(ts_context_stream(ctx), 0, 10, &copy);
    if (!failed) {
      printf("copy bandwidth: %.0f GB/s (memcpy %.0f, kernel %.0f, %.2f GiB buffers)\n", copy.best_gbps,
             copy.memcpy_gbps, copy.kernel_gbps, (double)copy.bytes / (1u << 30));
      tsb_metadata_set(&meta, "copy_gbps", "%.0f", copy.best_gbps);
    }
  }
  tsb_metadata_print(&meta, stdout, "# ");

  /* The corpus, then the generated sets in the order of specs. */
  int total = corpus_count + SPEC_COUNT;
  for (int s = 0; s < total && !failed; s++) {
    bool corpus = s < corpus_count;
    const matrix_spec *spec = corpus ? NULL : &specs[s - corpus_count];
    if (spec && !opt.sets[spec->set])
      continue;
    const char *name = corpus ? corpus_names[s] : spec->name;
    if (opt.only && !strstr(name, opt.only))
      continue;
    ts_csr *a64 = NULL, *a32 = NULL;
    double t0 = tsb_wall_seconds();
    ts_status st = corpus ? tsb_read_corpus(ctx, opt.matrices_dir, name, &a64) : generate(ctx, spec, opt.quick, &a64);
    if (st != TS_SUCCESS) {
      fprintf(stderr, "error: %s %s: %s\n", corpus ? "reading" : "generating", name, ts_last_error(ctx));
      failed = 1;
      break;
    }
    printf("%s: %s in %.1f s\n", name, corpus ? "read" : "generated", tsb_wall_seconds() - t0);
    bool floor = spec && spec->set == SET_TINY;
    for (int d = 0; d < 2 && !failed; d++) {
      if ((d == 0 && !opt.fp32) || (d == 1 && !opt.fp64))
        continue;
      const ts_csr *a = a64;
      if (d == 0) {
        if (tsb_csr_convert(ctx, a64, TS_FLOAT32, &a32) != TS_SUCCESS) {
          fprintf(stderr, "error: fp32 copy of %s: %s\n", name, ts_last_error(ctx));
          failed = 1;
          break;
        }
        a = a32;
      }
      case_result *c = &cases[count++];
      snprintf(c->name, sizeof c->name, "%s%s", name, opt.quick && spec && spec->set != SET_TINY ? "_quick" : "");
      c->set = corpus ? SET_CORPUS : spec->set;
      failed = run_case(ctx, handle, &opt, a, floor, c, &check_failed);
      add_rows(t, c, copy.best_gbps);
    }
    ts_csr_destroy(a32);
    ts_csr_destroy(a64);
  }

  if (t && tsb_table_rows(t) > 0) {
    if (tsb_table_write_csv(t, &meta, opt.csv_path) != 0)
      failed = 1;
    if (tsb_make_parent_dirs(opt.md_path) == 0)
      md_file = fopen(opt.md_path, "w");
    md("# SpMV schedules against cuSPARSE%s\n\n", opt.quick ? " (quick sizes: not a measurement)" : "");
    if (md_file)
      tsb_metadata_print(&meta, md_file, "- ");
    md_per_matrix(cases, count, copy.best_gbps);
    md_gather_floor(cases, count, copy.best_gbps);
    md_bins(cases, count);
    md_auto_and_determinism(cases, count);
    md_floor(cases, count);
    md("\nEvery row: %s (CSV).\n", opt.csv_path);
    if (md_file)
      fclose(md_file);
    printf("wrote %s and %s\n", opt.csv_path, opt.md_path);
  }
  if (handle)
    (void)cusparseDestroy(handle);
  tsb_table_destroy(t);
  free(cases);
  ts_context_destroy(ctx);
  if (check_failed)
    fprintf(stderr, "spmv_schedules: a result did not match the reference\n");
  if (failed || check_failed) {
    fprintf(stderr, "spmv_schedules: FAILED\n");
    return 1;
  }
  return 0;
}
