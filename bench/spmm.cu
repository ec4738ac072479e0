/* SpMM (C = A B, A in CSR, B and C dense) against cuSPARSE: tessera's AUTO
 * plan (and, with --schedules, every schedule) beside cuSPARSE SpMM CSR
 * ALG1, ALG2 and ALG3 in one process on the same device data and stream, at
 * widths 8 to 512 (fp32; fp64 too), on the corpus, meshes, R-MAT and
 * power-law matrices (bench/product_sets.h). Every variant is checked on a
 * sample of rows against a host reference in double and for bitwise
 * repeatability (a hash of all of C over two runs) before it is timed; times
 * are medians of CUDA-event timed calls after a warm-up; rates are GB/s of
 * compulsory traffic (A once, B once, C written) and a fraction of the copy
 * bandwidth measured in the same run. Output: a CSV of every run, a Markdown
 * summary (speed over the best cuSPARSE algorithm per matrix and width,
 * geomeans, the issue's goal) and, last on stdout, one short table. */
#include "product_sets.h"
#include "tsb_cusparse.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <vector>

/* A variant's timed calls stop after about this long. */
#define MAX_SECONDS_PER_VARIANT 0.5
/* Rows of C checked: the first and last, some spread over the matrix, and
 * the longest (their references are the costly ones). */
#define CHECK_EDGE_ROWS 64
#define CHECK_SPREAD_ROWS 256
#define CHECK_LONGEST_ROWS 4
/* Goal of the issue: fp32 geomean over the best cuSPARSE algorithm at 32 to
 * 256 columns, and the floor for matrices of 10^5 nonzeros or more. */
#define GOAL_GEOMEAN 1.6
#define GOAL_FLOOR 0.9
#define GOAL_FLOOR_NNZ 100000

#define MAX_WIDTHS 16

struct options {
  ps_options common; /* sets, precision, quick, corpus, paths */
  bool schedules;
  ts_layout layout;
  int64_t widths[MAX_WIDTHS];
  int nwidths;
  int warmup, repeat;
  int64_t column_slices; /* the "sliced" variant: AUTO planned for this many columns, run on views of B and C */
  int64_t pass_columns;  /* ts_spmm_options.pass_columns of every tessera plan (0: the plan's choice) */
};

/* ---- variants ------------------------------------------------------------------------------ */

enum { V_AUTO, V_THREAD, V_WARP, V_BLOCK, V_MERGE, V_WORK, V_SPLIT, V_SLICED, V_ALG1, V_ALG2, V_ALG3, V_COUNT };
static const char *const variant_names[V_COUNT] = {"tessera",       "thread",        "warp",         "block",
                                                   "merge-path",    "work",          "split",        "sliced",
                                                   "cusparse_alg1", "cusparse_alg2", "cusparse_alg3"};
static const ts_schedule variant_schedules[V_ALG1] = {
    TS_SCHEDULE_AUTO,       TS_SCHEDULE_THREAD_MAPPED, TS_SCHEDULE_WARP_MAPPED, TS_SCHEDULE_BLOCK_MAPPED,
    TS_SCHEDULE_MERGE_PATH, TS_SCHEDULE_WORK_ORIENTED, TS_SCHEDULE_SPLIT_ROWS,  TS_SCHEDULE_AUTO};
static const cusparseSpMMAlg_t cusparse_algs[3] = {CUSPARSE_SPMM_CSR_ALG1, CUSPARSE_SPMM_CSR_ALG2,
                                                   CUSPARSE_SPMM_CSR_ALG3};
static bool is_tessera(int v) { return v < V_ALG1; }

struct variant_result {
  bool ran;
  bool unsupported; /* cuSPARSE refused the layout or type */
  bool failed;
  bool repeatable;
  tsb_stats ms;
  double plan_ms;
  double worst; /* largest error over its tolerance in the sample */
  ts_schedule ran_as;
};

struct case_result {
  char name[96];
  int set;
  ts_dtype dtype;
  int64_t rows, cols, nnz, max_row, width;
  double bytes, flops;
  variant_result v[V_COUNT];
};

/* ---- B's values: a hash of the storage index, the same on host and device ---------------- */

__host__ __device__ inline double b_value(uint64_t e) {
  uint64_t z = e * 0x9e3779b97f4a7c15ull + 0x7e55e7a5ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

template <class T> __global__ void fill_b(T *b, long long elements) {
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < elements;
       e += (long long)gridDim.x * blockDim.x)
    b[e] = T(b_value((uint64_t)e));
}

/* An order-free hash of C's bits (XOR of a mix of each word and its index). */
template <class W> __global__ void hash_words(const W *c, long long words, unsigned long long *out) {
  unsigned long long h = 0;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < words;
       e += (long long)gridDim.x * blockDim.x) {
    unsigned long long z = (unsigned long long)c[e] * 0x9e3779b97f4a7c15ull + (unsigned long long)e;
    h ^= z ^ (z >> 29);
  }
  atomicXor(out, h);
}

/* ---- one matrix, one width, one value type ----------------------------------------------- */

struct dense {
  int64_t rows, cols, ld;
  ts_layout layout;
  int64_t elements;
};

static dense dense_of(int64_t rows, int64_t cols, ts_layout layout) {
  dense d;
  d.rows = rows;
  d.cols = cols;
  d.layout = layout;
  d.ld = layout == TS_LAYOUT_ROW_MAJOR ? (cols > 0 ? cols : 1) : (rows > 0 ? rows : 1);
  d.elements = rows * cols;
  return d;
}

static int64_t index_of(const dense &d, int64_t i, int64_t j) {
  return d.layout == TS_LAYOUT_ROW_MAJOR ? i * d.ld + j : i + j * d.ld;
}

/* What a run needs: the operands in GPU memory, the rows checked and their
 * reference, and the variant being run. */
struct job {
  ts_context *ctx;
  cudaStream_t stream;
  const ts_csr *a;
  dense bd, cd;
  ts_buffer *b, *c;
  /* cuSPARSE */
  cusparseHandle_t handle;
  cusparseSpMatDescr_t mat;
  cusparseDnMatDescr_t mat_b, mat_c;
  cusparseSpMMAlg_t alg;
  cudaDataType type;
  void *buffer;
  /* tessera */
  ts_spmm_plan *plan;
  /* the sliced variant: views of B and C, one per slice of columns */
  std::vector<ts_buffer *> slice_b, slice_c;
  /* the check */
  int64_t *sample;
  int samples;
  double *ref, *bound;
  void *got;
  unsigned long long *hash;
};

static int run_tessera(void *user, void *stream) {
  (void)stream;
  job *j = (job *)user;
  if (!j->slice_b.empty()) {
    for (size_t s = 0; s < j->slice_b.size(); s++)
      TSB_TS_TRY(j->ctx, ts_spmm_execute(j->plan, 1.0, j->slice_b[s], 0.0, j->slice_c[s]));
    return 0;
  }
  TSB_TS_TRY(j->ctx, ts_spmm_execute(j->plan, 1.0, j->b, 0.0, j->c));
  return 0;
}

static int run_cusparse(void *user, void *stream) {
  (void)stream;
  job *j = (job *)user;
  const float one32 = 1.0f, zero32 = 0.0f;
  const double one64 = 1.0, zero64 = 0.0;
  const void *alpha = j->type == CUDA_R_32F ? (const void *)&one32 : (const void *)&one64;
  const void *beta = j->type == CUDA_R_32F ? (const void *)&zero32 : (const void *)&zero64;
  TSB_CUSPARSE_TRY(cusparseSpMM(j->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha,
                                j->mat, j->mat_b, beta, j->mat_c, j->type, j->alg, j->buffer));
  TSB_CUDA_TRY(cudaGetLastError());
  return 0;
}

/* Rows to check: the first and last CHECK_EDGE_ROWS, CHECK_SPREAD_ROWS
 * spread evenly, the CHECK_LONGEST_ROWS longest. */
static int pick_sample(const ts_csr *a, int64_t *sample) {
  int n = 0;
  for (int64_t i = 0; i < a->rows && i < CHECK_EDGE_ROWS; i++)
    sample[n++] = i;
  for (int64_t i = a->rows - CHECK_EDGE_ROWS; i < a->rows; i++)
    if (i >= CHECK_EDGE_ROWS)
      sample[n++] = i;
  for (int s = 0; s < CHECK_SPREAD_ROWS && a->rows > 0; s++)
    sample[n++] = (int64_t)((double)a->rows * (s + 0.5) / CHECK_SPREAD_ROWS);
  for (int l = 0; l < CHECK_LONGEST_ROWS && a->rows > 0; l++) {
    int64_t best = 0, best_len = -1;
    for (int64_t i = 0; i < a->rows; i++) {
      int64_t len = a->row_ptr[i + 1] - a->row_ptr[i];
      bool taken = false;
      for (int t = n - l; t < n; t++)
        taken |= sample[t] == i;
      if (len > best_len && !taken) {
        best = i;
        best_len = len;
      }
    }
    sample[n++] = best;
  }
  return n;
}

static void reference_rows(job *j) {
  const int64_t width = j->cd.cols;
  for (int s = 0; s < j->samples; s++) {
    const int64_t i = j->sample[s];
    for (int64_t c = 0; c < width; c++) {
      double sum = 0, abs_sum = 0;
      for (int64_t k = j->a->row_ptr[i]; k < j->a->row_ptr[i + 1]; k++) {
        double v =
            j->a->dtype == TS_FLOAT32 ? (double)((const float *)j->a->values)[k] : ((const double *)j->a->values)[k];
        double bv = b_value((uint64_t)index_of(j->bd, j->a->col_idx[k], c));
        if (j->a->dtype == TS_FLOAT32)
          bv = (double)(float)bv;
        sum += v * bv;
        abs_sum += fabs(v * bv);
      }
      j->ref[(int64_t)s * width + c] = sum;
      j->bound[(int64_t)s * width + c] = abs_sum;
    }
  }
}

/* Download the sampled rows of C and compare (the probabilistic bound of
 * Higham and Mary with a wide margin: u (16 sqrt(n) + 16) |A||B|). */
static int check_sample(job *j, const char *what, variant_result *r) {
  const size_t vs = ts_dtype_size(j->a->dtype);
  const int64_t width = j->cd.cols;
  const double u = j->a->dtype == TS_FLOAT32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
  const char *c = (const char *)ts_buffer_data(j->c);
  int64_t bad = 0;
  for (int s = 0; s < j->samples; s++) {
    const int64_t i = j->sample[s];
    char *dst = (char *)j->got + (size_t)s * width * vs;
    if (width == 0)
      continue;
    if (j->cd.layout == TS_LAYOUT_ROW_MAJOR)
      TSB_CUDA_TRY(
          cudaMemcpyAsync(dst, c + (size_t)(i * j->cd.ld) * vs, (size_t)width * vs, cudaMemcpyDeviceToHost, j->stream));
    else
      TSB_CUDA_TRY(cudaMemcpy2DAsync(dst, vs, c + (size_t)i * vs, (size_t)j->cd.ld * vs, vs, (size_t)width,
                                     cudaMemcpyDeviceToHost, j->stream));
  }
  TSB_CUDA_TRY(cudaStreamSynchronize(j->stream));
  for (int s = 0; s < j->samples; s++) {
    const int64_t i = j->sample[s];
    const double n = (double)(j->a->row_ptr[i + 1] - j->a->row_ptr[i]);
    for (int64_t c2 = 0; c2 < width; c2++) {
      const int64_t at = (int64_t)s * width + c2;
      const double got = j->a->dtype == TS_FLOAT32 ? (double)((const float *)j->got)[at] : ((const double *)j->got)[at];
      const double tol = u * (16.0 * sqrt(n) + 16.0) * j->bound[at];
      const double err = fabs(got - j->ref[at]);
      if (!(err <= tol)) {
        if (bad < 3)
          fprintf(stderr, "error: %s: C(%lld, %lld) = %.17g, want %.17g (tolerance %.3g)\n", what, (long long)i,
                  (long long)c2, got, j->ref[at], tol);
        bad++;
      } else if (tol > 0 && err / tol > r->worst) {
        r->worst = err / tol;
      }
    }
  }
  r->failed = r->failed || bad > 0;
  return 0;
}

static int hash_c(job *j, unsigned long long *out) {
  const size_t bytes = (size_t)j->cd.elements * ts_dtype_size(j->a->dtype);
  TSB_CUDA_TRY(cudaMemsetAsync(j->hash, 0, sizeof *j->hash, j->stream));
  hash_words<unsigned int>
      <<<1024, 256, 0, j->stream>>>((const unsigned int *)ts_buffer_data(j->c), (long long)(bytes / 4), j->hash);
  TSB_LAUNCH_TRY("hash_words");
  TSB_CUDA_TRY(cudaMemcpyAsync(out, j->hash, sizeof *out, cudaMemcpyDeviceToHost, j->stream));
  TSB_CUDA_TRY(cudaStreamSynchronize(j->stream));
  return 0;
}

/* Poison C, run, check the sample; run again and compare hashes; time. */
static int measure(job *j, const options *opt, tsb_work_fn fn, const char *what, variant_result *r) {
  const size_t c_bytes = (size_t)j->cd.elements * ts_dtype_size(j->a->dtype);
  unsigned long long first = 0, second = 0;
  r->ran = true;
  TSB_CUDA_TRY(cudaMemsetAsync(ts_buffer_data(j->c), 0xFF, c_bytes, j->stream));
  const double t0 = tsb_wall_seconds();
  if (fn(j, j->stream) != 0)
    return 1;
  TSB_CUDA_TRY(cudaStreamSynchronize(j->stream));
  const double seconds = tsb_wall_seconds() - t0;
  if (check_sample(j, what, r) != 0 || hash_c(j, &first) != 0)
    return 1;
  TSB_CUDA_TRY(cudaMemsetAsync(ts_buffer_data(j->c), 0xFF, c_bytes, j->stream));
  if (fn(j, j->stream) != 0 || hash_c(j, &second) != 0)
    return 1;
  r->repeatable = first == second;
  int repeat = opt->repeat, warmup = opt->warmup;
  if (seconds * (repeat + warmup) > MAX_SECONDS_PER_VARIANT) {
    repeat = (int)(MAX_SECONDS_PER_VARIANT / (seconds > 0 ? seconds : 1e-9));
    repeat = repeat < 3 ? 3 : repeat;
    warmup = 1;
  }
  if (tsb_time_events(j->stream, warmup, repeat, fn, j, &r->ms) != 0)
    return 1;
  return check_sample(j, what, r);
}

static int measure_cusparse(job *j, const options *opt, int k, const char *what, variant_result *r) {
  const float one32 = 1.0f, zero32 = 0.0f;
  const double one64 = 1.0, zero64 = 0.0;
  const void *alpha = j->type == CUDA_R_32F ? (const void *)&one32 : (const void *)&one64;
  const void *beta = j->type == CUDA_R_32F ? (const void *)&zero32 : (const void *)&zero64;
  size_t bytes = 0;
  j->alg = cusparse_algs[k - V_ALG1];
  cusparseStatus_t st =
      cusparseSpMM_bufferSize(j->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha,
                              j->mat, j->mat_b, beta, j->mat_c, j->type, j->alg, &bytes);
  if (st != CUSPARSE_STATUS_SUCCESS) {
    r->unsupported = true;
    printf("    %s: %s (not run)\n", variant_names[k], cusparseGetErrorString(st));
    return 0;
  }
  TSB_CUDA_TRY(cudaMalloc(&j->buffer, bytes > 0 ? bytes : 16));
  st = cusparseSpMM_preprocess(j->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha,
                               j->mat, j->mat_b, beta, j->mat_c, j->type, j->alg, j->buffer);
  (void)cudaGetLastError();
  int bad = measure(j, opt, run_cusparse, what, r);
  (void)st;
  (void)cudaFree(j->buffer);
  j->buffer = NULL;
  return bad;
}

/* cuSPARSE's copy of A: int32 offsets and indices (tsb_upload_csr32). */
struct device_csr {
  void *row_ptr, *col_idx, *values;
};

/* cuSPARSE's descriptors of A, B and C (freed by run_width's cleanup). */
static int describe_for_cusparse(job *j, const options *opt, const device_csr *m) {
  const ts_csr *a = j->a;
  const cusparseOrder_t order = opt->layout == TS_LAYOUT_ROW_MAJOR ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
  j->type = a->dtype == TS_FLOAT32 ? CUDA_R_32F : CUDA_R_64F;
  TSB_CUSPARSE_TRY(cusparseCreateCsr(&j->mat, a->rows, a->cols, a->nnz, m->row_ptr, m->col_idx, m->values,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, j->type));
  TSB_CUSPARSE_TRY(cusparseCreateDnMat(&j->mat_b, a->cols, j->bd.cols, j->bd.ld, ts_buffer_data(j->b), j->type, order));
  TSB_CUSPARSE_TRY(cusparseCreateDnMat(&j->mat_c, a->rows, j->cd.cols, j->cd.ld, ts_buffer_data(j->c), j->type, order));
  return 0;
}

static void free_slices(job *j) {
  for (size_t s = 0; s < j->slice_b.size(); s++) {
    ts_buffer_destroy(j->slice_b[s]);
    ts_buffer_destroy(j->slice_c[s]);
  }
  j->slice_b.clear();
  j->slice_c.clear();
}

/* Views of B and C for column slices of @p slice columns (the sliced
 * variant: column blocking measured through the public API, A read once a
 * slice). */
static int make_slices(job *j, int64_t slice) {
  const size_t vs = ts_dtype_size(j->a->dtype);
  for (int64_t first = 0; first < j->bd.cols; first += slice) {
    const size_t ob = (size_t)index_of(j->bd, 0, first) * vs, oc = (size_t)index_of(j->cd, 0, first) * vs;
    ts_buffer *b = NULL, *c = NULL;
    if (ts_buffer_wrap(j->ctx, TS_MEMORY_DEVICE, (char *)ts_buffer_data(j->b) + ob, ts_buffer_size(j->b) - ob, &b) !=
            TS_SUCCESS ||
        ts_buffer_wrap(j->ctx, TS_MEMORY_DEVICE, (char *)ts_buffer_data(j->c) + oc, ts_buffer_size(j->c) - oc, &c) !=
            TS_SUCCESS) {
      fprintf(stderr, "error: slice views: %s\n", ts_last_error(j->ctx));
      ts_buffer_destroy(b);
      free_slices(j);
      return 1;
    }
    j->slice_b.push_back(b);
    j->slice_c.push_back(c);
  }
  return 0;
}

static int run_width(job *j, const options *opt, const device_csr *m, case_result *c) {
  const ts_csr *a = j->a;
  const size_t vs = ts_dtype_size(a->dtype);
  const int64_t width = c->width;
  char what[192];
  int failed = 1;
  j->bd = dense_of(a->cols, width, opt->layout);
  j->cd = dense_of(a->rows, width, opt->layout);
  j->ref = (double *)malloc((size_t)j->samples * width * sizeof(double) + 8);
  j->bound = (double *)malloc((size_t)j->samples * width * sizeof(double) + 8);
  j->got = malloc((size_t)j->samples * width * vs + 8);
  if (!j->ref || !j->bound || !j->got)
    goto cleanup;
  if (ts_buffer_create(j->ctx, TS_MEMORY_DEVICE, (size_t)j->bd.elements * vs, &j->b) != TS_SUCCESS ||
      ts_buffer_create(j->ctx, TS_MEMORY_DEVICE, (size_t)j->cd.elements * vs, &j->c) != TS_SUCCESS) {
    fprintf(stderr, "error: B and C of %lld columns: %s\n", (long long)width, ts_last_error(j->ctx));
    goto cleanup;
  }
  if (j->bd.elements > 0) {
    if (a->dtype == TS_FLOAT32)
      fill_b<float><<<2048, 256, 0, j->stream>>>((float *)ts_buffer_data(j->b), (long long)j->bd.elements);
    else
      fill_b<double><<<2048, 256, 0, j->stream>>>((double *)ts_buffer_data(j->b), (long long)j->bd.elements);
    if (cudaGetLastError() != cudaSuccess) {
      fprintf(stderr, "error: filling B\n");
      goto cleanup;
    }
  }
  reference_rows(j);
  if (describe_for_cusparse(j, opt, m) != 0)
    goto cleanup;
  {
    for (int k = V_ALG1; k < V_COUNT; k++) {
      snprintf(what, sizeof what, "%s %s width %lld %s", c->name, a->dtype == TS_FLOAT32 ? "fp32" : "fp64",
               (long long)width, variant_names[k]);
      if (measure_cusparse(j, opt, k, what, &c->v[k]) != 0)
        goto cleanup;
    }
  }
  for (int k = 0; k < V_ALG1; k++) {
    const int64_t slice = opt->column_slices;
    const bool sliced = k == V_SLICED;
    if (sliced ? !(slice > 0 && width > slice && width % slice == 0) : (k != V_AUTO && !opt->schedules))
      continue;
    ts_spmm_options o;
    memset(&o, 0, sizeof o);
    o.schedule = variant_schedules[k];
    o.layout_b = opt->layout;
    o.layout_c = opt->layout;
    o.pass_columns = opt->pass_columns;
    if (sliced && make_slices(j, slice) != 0)
      goto cleanup;
    if (sliced) {
      o.ld_b = j->bd.ld;
      o.ld_c = j->cd.ld;
    }
    const double t0 = tsb_wall_seconds();
    if (ts_spmm_plan_create(j->ctx, a, sliced ? slice : width, &o, &j->plan) != TS_SUCCESS) {
      fprintf(stderr, "error: ts_spmm_plan_create: %s\n", ts_last_error(j->ctx));
      goto cleanup;
    }
    c->v[k].plan_ms = 1e3 * (tsb_wall_seconds() - t0);
    c->v[k].ran_as = ts_spmm_plan_schedule(j->plan);
    if (k == V_AUTO)
      printf("    %s\n", ts_spmm_plan_explain(j->plan));
    snprintf(what, sizeof what, "%s %s width %lld %s", c->name, a->dtype == TS_FLOAT32 ? "fp32" : "fp64",
             (long long)width, variant_names[k]);
    if (sliced)
      printf("    sliced (%lld columns a slice): %s\n", (long long)slice, ts_spmm_plan_explain(j->plan));
    int bad = measure(j, opt, run_tessera, what, &c->v[k]);
    ts_spmm_plan_destroy(j->plan);
    j->plan = NULL;
    free_slices(j);
    if (bad)
      goto cleanup;
  }
  failed = 0;
cleanup:
  free_slices(j);
  if (j->mat)
    (void)cusparseDestroySpMat(j->mat);
  if (j->mat_b)
    (void)cusparseDestroyDnMat(j->mat_b);
  if (j->mat_c)
    (void)cusparseDestroyDnMat(j->mat_c);
  j->mat = NULL;
  j->mat_b = j->mat_c = NULL;
  ts_buffer_destroy(j->b);
  ts_buffer_destroy(j->c);
  j->b = j->c = NULL;
  free(j->ref);
  free(j->bound);
  free(j->got);
  j->ref = j->bound = NULL;
  j->got = NULL;
  return failed;
}

/* ---- the summary ------------------------------------------------------------------------------- */

static const char *dtype_name(ts_dtype dtype) { return dtype == TS_FLOAT32 ? "fp32" : "fp64"; }

/* The fastest cuSPARSE algorithm that ran and passed, or -1. */
static int best_cusparse(const case_result *c) {
  int best = -1;
  for (int k = V_ALG1; k < V_COUNT; k++)
    if (c->v[k].ran && !c->v[k].failed && (best < 0 || c->v[k].ms.median < c->v[best].ms.median))
      best = k;
  return best;
}

/* tessera's speed over the best cuSPARSE algorithm (0 when either is missing). */
static double speed(const case_result *c, int k) {
  int best = best_cusparse(c);
  const variant_result *r = &c->v[k];
  if (best < 0 || !r->ran || r->failed || r->ms.median <= 0)
    return 0;
  return c->v[best].ms.median / r->ms.median;
}

static FILE *md_file;
static void md(const char *format, ...) {
  va_list args;
  if (md_file) {
    va_start(args, format);
    vfprintf(md_file, format, args);
    va_end(args);
  }
}

static void add_rows(tsb_table *t, const case_result *c, double copy_gbps) {
  for (int k = 0; k < V_COUNT; k++) {
    const variant_result *r = &c->v[k];
    if (!r->ran)
      continue;
    const double gbps = tsb_gbps(c->bytes, r->ms.median);
    tsb_table_cell(t, "%s", ps_set_names[c->set]);
    tsb_table_cell(t, "%s", c->name);
    tsb_table_cell(t, "%s", dtype_name(c->dtype));
    tsb_table_cell(t, "%lld", (long long)c->rows);
    tsb_table_cell(t, "%lld", (long long)c->cols);
    tsb_table_cell(t, "%lld", (long long)c->nnz);
    tsb_table_cell(t, "%lld", (long long)c->max_row);
    tsb_table_cell(t, "%lld", (long long)c->width);
    tsb_table_cell(t, "%s", variant_names[k]);
    tsb_table_cell(t, "%s", is_tessera(k) ? ts_schedule_name(r->ran_as) : variant_names[k]);
    tsb_table_cell(t, "%.4f", r->ms.median);
    tsb_table_cell(t, "%.1f", gbps);
    tsb_table_cell(t, "%.1f", 100.0 * tsb_fraction_of(gbps, copy_gbps));
    tsb_table_cell(t, "%.1f", c->flops / (r->ms.median * 1e6));
    tsb_table_cell(t, "%.4g", is_tessera(k) ? speed(c, k) : 0.0);
    tsb_table_cell(t, "%s", r->failed ? "FAILED" : "ok");
    tsb_table_cell(t, "%s", r->repeatable ? "yes" : "no");
    tsb_table_cell(t, "%.3g", r->worst);
    tsb_table_cell(t, "%.2f", r->plan_ms);
  }
}

/* Geomean of tessera (AUTO) over the best cuSPARSE algorithm for one value
 * type and width range, the worst speed among matrices of >= GOAL_FLOOR_NNZ
 * nonzeros, and how many of those are below GOAL_FLOOR. */
struct summary {
  int cases, large;
  double geomean, worst_large;
  int below_floor;
};

static summary summarize(const case_result *cases, int count, ts_dtype dtype, int64_t lo, int64_t hi) {
  summary s;
  memset(&s, 0, sizeof s);
  s.worst_large = INFINITY;
  double *speeds = (double *)malloc((size_t)(count + 1) * sizeof(double));
  if (!speeds)
    return s;
  for (int i = 0; i < count; i++) {
    const case_result *c = &cases[i];
    const double x = speed(c, V_AUTO);
    if (c->dtype != dtype || c->width < lo || c->width > hi || x <= 0)
      continue;
    speeds[s.cases++] = x;
    if (c->nnz >= GOAL_FLOOR_NNZ) {
      s.large++;
      s.worst_large = x < s.worst_large ? x : s.worst_large;
      s.below_floor += x < GOAL_FLOOR;
    }
  }
  s.geomean = tsb_geomean(speeds, s.cases);
  free(speeds);
  return s;
}

static void md_summary(const case_result *cases, int count, const options *opt) {
  md("\n## tessera (AUTO) over the best cuSPARSE algorithm, geometric means by width\n\n");
  md("| dtype | width | cases | geomean | worst (nnz >= %d) | below %.1fx (nnz >= %d) |\n|---|---|---|---|---|---|\n",
     GOAL_FLOOR_NNZ, GOAL_FLOOR, GOAL_FLOOR_NNZ);
  for (int d = 0; d < 2; d++)
    for (int w = 0; w < opt->nwidths; w++) {
      summary s = summarize(cases, count, d ? TS_FLOAT64 : TS_FLOAT32, opt->widths[w], opt->widths[w]);
      if (s.cases > 0)
        md("| %s | %lld | %d | %.3f | %.3f | %d of %d |\n", d ? "fp64" : "fp32", (long long)opt->widths[w], s.cases,
           s.geomean, s.large > 0 ? s.worst_large : 0.0, s.below_floor, s.large);
    }
  summary goal = summarize(cases, count, TS_FLOAT32, 32, 256);
  md("\nGoal (fp32, 32 to 256 columns): geomean %.3f over %d cases (goal >= %.1f); %d of %d cases of >= %d nonzeros "
     "below %.1fx (goal: none).\n",
     goal.geomean, goal.cases, GOAL_GEOMEAN, goal.below_floor, goal.large, GOAL_FLOOR_NNZ, GOAL_FLOOR);
}

static void md_per_matrix(const case_result *cases, int count, const options *opt) {
  for (int d = 0; d < 2; d++) {
    bool any = false;
    for (int i = 0; i < count; i++)
      any |= cases[i].dtype == (d ? TS_FLOAT64 : TS_FLOAT32);
    if (!any)
      continue;
    md("\n## Per matrix, %s: tessera ms / best cuSPARSE ms (algorithm) = speed\n\n| matrix | nnz |",
       d ? "fp64" : "fp32");
    for (int w = 0; w < opt->nwidths; w++)
      md(" %lld |", (long long)opt->widths[w]);
    md("\n|---|---|");
    for (int w = 0; w < opt->nwidths; w++)
      md("---|");
    md("\n");
    for (int i = 0; i < count;) {
      const case_result *c = &cases[i];
      if (c->dtype != (d ? TS_FLOAT64 : TS_FLOAT32)) {
        i++;
        continue;
      }
      md("| %s | %lld |", c->name, (long long)c->nnz);
      int w = 0;
      for (; i < count && strcmp(cases[i].name, c->name) == 0 && cases[i].dtype == c->dtype; i++, w++) {
        const case_result *e = &cases[i];
        int best = best_cusparse(e);
        if (best >= 0 && e->v[V_AUTO].ran)
          md(" %.4f / %.4f (%s) = %.2fx%s |", e->v[V_AUTO].ms.median, e->v[best].ms.median,
             variant_names[best] + strlen("cusparse_"), speed(e, V_AUTO), e->v[V_AUTO].failed ? " FAILED" : "");
        else
          md(" - |");
      }
      md("\n");
    }
  }
}

/* The short table printed last. */
static void print_final(const case_result *cases, int count, const options *opt, double copy_gbps) {
  printf("\nSpMM, tessera AUTO over the best of cuSPARSE CSR ALG1/ALG2/ALG3 per matrix (%s B and C; copy %.0f GB/s)\n",
         ts_layout_name(opt->layout), copy_gbps);
  printf("| width | fp32 cases | fp32 geomean | fp32 worst (nnz >= 1e5) | fp32 below 0.9x | fp64 geomean |\n");
  printf("|---|---|---|---|---|---|\n");
  for (int w = 0; w < opt->nwidths; w++) {
    summary s = summarize(cases, count, TS_FLOAT32, opt->widths[w], opt->widths[w]);
    summary s64 = summarize(cases, count, TS_FLOAT64, opt->widths[w], opt->widths[w]);
    printf("| %lld | %d | %.3f | %.3f | %d of %d | %.3f |\n", (long long)opt->widths[w], s.cases, s.geomean,
           s.large > 0 ? s.worst_large : 0.0, s.below_floor, s.large, s64.geomean);
  }
  summary goal = summarize(cases, count, TS_FLOAT32, 32, 256);
  printf("goal (fp32, 32-256 columns): geomean %.3f (>= %.1f wanted), %d of %d large cases below %.1fx\n", goal.geomean,
         GOAL_GEOMEAN, goal.below_floor, goal.large, GOAL_FLOOR);
}

/* ---- main ----------------------------------------------------------------------------------------- */

static const char usage_text[] =
    "[--set corpus|mesh|rmat|powerlaw|all]... [--widths 8,16,...] [--precision single|double|both]\n"
    "          [--layout row|col] [--schedules] [--quick] [--matrices DIR] [--only TEXT]\n"
    "          [--warmup N] [--repeat N] [--column-slices S] [--pass-columns P] [--md PATH] [CSV_PATH]\n"
    "  --set may be repeated (default all); the corpus is read from DIR, else $TESSERA_MATRICES\n"
    "  --widths: columns of B and C (default 8,16,32,64,128,256,512); --precision: default single\n"
    "  --schedules also times every tessera schedule beside AUTO\n"
    "  --column-slices S also times AUTO planned for S columns and run once per slice of S columns\n"
    "    (views of B and C; widths that S divides, above S)\n"
    "  --pass-columns P plans every tessera variant with passes over bands of P columns of B and C\n"
    "    (ts_spmm_options.pass_columns; default 0: the plan's choice; P at least the width: one pass)\n"
    "  --quick shrinks the generated matrices (a check of the program, not a measurement)\n"
    "  CSV_PATH defaults to bench-out/spmm.csv; the Markdown goes beside it with .md\n"
    "  exit status: 0 when every check passed, 1 on a failed check or error, 2 for a bad command line,\n"
    "  77 when no GPU is usable";

static bool parse_widths(const char *text, options *opt) {
  opt->nwidths = 0;
  while (*text && opt->nwidths < MAX_WIDTHS) {
    char *end = NULL;
    long long w = strtoll(text, &end, 10);
    if (end == text || w < 1 || w > (1 << 24))
      return false;
    opt->widths[opt->nwidths++] = w;
    text = *end == ',' ? end + 1 : end;
    if (*end && *end != ',')
      return false;
  }
  return opt->nwidths > 0 && !*text;
}

/* spmm's own options (ps_own_option_fn). */
static int own_option(void *user, int argc, char **argv, int *i) {
  options *opt = (options *)user;
  const char *arg = argv[*i];
  if (strcmp(arg, "--schedules") == 0) {
    opt->schedules = true;
    return 1;
  }
  if (*i + 1 >= argc)
    return 0;
  const char *value = argv[*i + 1];
  if (strcmp(arg, "--widths") == 0) {
    if (!parse_widths(value, opt)) {
      fprintf(stderr, "error: --widths takes up to %d comma-separated widths from 1 to 2^24\n", MAX_WIDTHS);
      return 2;
    }
  } else if (strcmp(arg, "--column-slices") == 0) {
    opt->column_slices = atoll(value);
    if (opt->column_slices < 1 || opt->column_slices > (1 << 24)) {
      fprintf(stderr, "error: --column-slices takes a width from 1 to 2^24\n");
      return 2;
    }
  } else if (strcmp(arg, "--pass-columns") == 0) {
    char *end = NULL;
    opt->pass_columns = strtoll(value, &end, 10);
    if (end == value || *end || opt->pass_columns < 0 || opt->pass_columns > INT32_MAX) {
      fprintf(stderr, "error: --pass-columns takes a count of columns from 0 (the plan's choice) to 2^31 - 1\n");
      return 2;
    }
  } else if (strcmp(arg, "--layout") == 0) {
    if (strcmp(value, "row") != 0 && strcmp(value, "col") != 0) {
      fprintf(stderr, "error: --layout row or col\n");
      return 2;
    }
    opt->layout = strcmp(value, "row") == 0 ? TS_LAYOUT_ROW_MAJOR : TS_LAYOUT_COL_MAJOR;
  } else if (strcmp(arg, "--warmup") == 0 || strcmp(arg, "--repeat") == 0) {
    const int v = atoi(value);
    if (v < (arg[2] == 'w' ? 0 : 1) || v > 10000) {
      fprintf(stderr, "error: %s takes a count up to 10000\n", arg);
      return 2;
    }
    *(arg[2] == 'w' ? &opt->warmup : &opt->repeat) = v;
  } else {
    return 0;
  }
  (*i)++;
  return 1;
}

/* What the run carries from matrix to matrix. */
struct run_state {
  const options *opt;
  job *j;
  std::vector<case_result> cases;
  tsb_table *table;
  double copy_gbps;
  bool check_failed;
};

/* Every width of one matrix, in each value type asked for. */
static int run_matrix(void *user, ts_context *ctx, const char *name, int set, const ts_csr *a64) {
  run_state *r = (run_state *)user;
  const options *opt = r->opt;
  job *j = r->j;
  for (int d = 0; d < 2; d++) {
    if ((d == 0 && !opt->common.fp32) || (d == 1 && !opt->common.fp64))
      continue;
    ts_csr *a = NULL;
    if (tsb_csr_convert(ctx, a64, d ? TS_FLOAT64 : TS_FLOAT32, &a) != TS_SUCCESS)
      return 1;
    device_csr m = {NULL, NULL, NULL};
    j->a = a;
    j->samples = pick_sample(a, j->sample);
    int64_t max_row = 0;
    for (int64_t i = 0; i < a->rows; i++)
      max_row = a->row_ptr[i + 1] - a->row_ptr[i] > max_row ? a->row_ptr[i + 1] - a->row_ptr[i] : max_row;
    printf("  %s %s: %lld x %lld, %lld nnz, max row %lld\n", name, dtype_name(a->dtype), (long long)a->rows,
           (long long)a->cols, (long long)a->nnz, (long long)max_row);
    int failed = tsb_upload_csr32(a, &m.row_ptr, &m.col_idx, &m.values);
    for (int w = 0; w < opt->nwidths && !failed; w++) {
      case_result c;
      memset(&c, 0, sizeof c);
      snprintf(c.name, sizeof c.name, "%.95s", name);
      c.set = set;
      c.dtype = a->dtype;
      c.rows = a->rows;
      c.cols = a->cols;
      c.nnz = a->nnz;
      c.max_row = max_row;
      c.width = opt->widths[w];
      const double v = (double)ts_dtype_size(a->dtype);
      c.bytes = (double)a->nnz * (v + 4) + (double)(a->rows + 1) * 8 + (double)(a->cols + a->rows) * c.width * v;
      c.flops = 2.0 * (double)a->nnz * (double)c.width;
      failed = run_width(j, opt, &m, &c);
      for (int k = 0; k < V_COUNT; k++)
        if (c.v[k].ran) {
          printf("    width %4lld %-14s %10.4f ms %8.1f GB/s%s%s\n", (long long)c.width, variant_names[k],
                 c.v[k].ms.median, tsb_gbps(c.bytes, c.v[k].ms.median), c.v[k].failed ? "  FAILED" : "",
                 c.v[k].repeatable ? "" : "  not repeatable");
          r->check_failed |= c.v[k].failed || (is_tessera(k) && !c.v[k].repeatable);
        }
      add_rows(r->table, &c, r->copy_gbps);
      r->cases.push_back(c);
      fflush(stdout);
    }
    tsb_free_csr32(m.row_ptr, m.col_idx, m.values);
    ts_csr_destroy(a);
    if (failed)
      return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  options opt;
  memset(&opt, 0, sizeof opt);
  opt.common.csv_path = "bench-out/spmm.csv";
  opt.common.fp32 = true; /* --precision both adds fp64 */
  opt.layout = TS_LAYOUT_ROW_MAJOR;
  opt.warmup = 3;
  opt.repeat = 20;
  const int64_t default_widths[] = {8, 16, 32, 64, 128, 256, 512};
  opt.nwidths = 7;
  memcpy(opt.widths, default_widths, sizeof default_widths);
  const int parsed = ps_parse(argc, argv, &opt.common, usage_text, own_option, &opt);
  if (parsed != 0)
    return parsed < 0 ? 0 : parsed;
  ts_context *ctx = NULL;
  const int opened = ps_open_gpu(&ctx);
  if (opened != 0)
    return opened;
  const char *columns[] = {"set",         "matrix",     "dtype",
                           "rows",        "cols",       "nnz",
                           "max_row",     "width",      "variant",
                           "ran_as",      "median_ms",  "gbps",
                           "pct_of_copy", "gflops",     "speed_vs_best_cusparse",
                           "check",       "repeatable", "max_err_over_tol",
                           "plan_ms"};
  run_state r;
  r.opt = &opt;
  r.table = tsb_table_create((int)(sizeof columns / sizeof columns[0]), columns);
  r.copy_gbps = 0;
  r.check_failed = false;
  tsb_metadata meta;
  tsb_copy_bandwidth copy;
  memset(&copy, 0, sizeof copy);
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "timing",
                   "median of up to %d CUDA-event timed calls after %d warm-up calls (fewer past %.1f s a variant)",
                   opt.repeat, opt.warmup, MAX_SECONDS_PER_VARIANT);
  tsb_metadata_set(&meta, "traffic", "nnz*(value+4) + (rows+1)*8 + cols*width*value + rows*width*value (beta = 0)");
  tsb_metadata_set(&meta, "layout", "%s B and C, packed", ts_layout_name(opt.layout));
  if (opt.pass_columns > 0)
    tsb_metadata_set(&meta, "pass_columns", "%lld columns a pass (requested)", (long long)opt.pass_columns);
  else
    tsb_metadata_set(&meta, "pass_columns", "the plan's choice");
  job j{}; /* value-initialised: null pointers, empty slice lists */
  j.ctx = ctx;
  j.stream = (cudaStream_t)ts_context_stream(ctx);
  r.j = &j;
  int failed = !r.table;
  j.sample = (int64_t *)malloc((2 * CHECK_EDGE_ROWS + CHECK_SPREAD_ROWS + CHECK_LONGEST_ROWS) * sizeof(int64_t));
  failed |= !j.sample || cudaMalloc(&j.hash, sizeof *j.hash) != cudaSuccess;
  if (!failed && (cusparseCreate(&j.handle) != CUSPARSE_STATUS_SUCCESS ||
                  cusparseSetStream(j.handle, j.stream) != CUSPARSE_STATUS_SUCCESS)) {
    fprintf(stderr, "error: cuSPARSE handle\n");
    failed = 1;
  }
  if (!failed && tsb_measure_copy_bandwidth(j.stream, 0, 10, &copy) == 0) {
    printf("copy bandwidth: %.0f GB/s\n", copy.best_gbps);
    tsb_metadata_set(&meta, "copy_gbps", "%.0f", copy.best_gbps);
    r.copy_gbps = copy.best_gbps;
  }
  tsb_metadata_print(&meta, stdout, "# ");
  if (!failed)
    failed = ps_for_each_matrix(ctx, &opt.common, run_matrix, &r);

  const int count = (int)r.cases.size();
  const case_result *cases = r.cases.data();
  if (r.table && tsb_table_rows(r.table) > 0) {
    if (tsb_table_write_csv(r.table, &meta, opt.common.csv_path) != 0)
      failed = 1;
    if (tsb_make_parent_dirs(opt.common.md_path) == 0)
      md_file = fopen(opt.common.md_path, "w");
    md("# SpMM against cuSPARSE%s\n\n", opt.common.quick ? " (quick sizes: not a measurement)" : "");
    if (md_file)
      tsb_metadata_print(&meta, md_file, "- ");
    md_summary(cases, count, &opt);
    md_per_matrix(cases, count, &opt);
    md("\nEvery run: %s (CSV).\n", opt.common.csv_path);
    if (md_file)
      fclose(md_file);
    printf("wrote %s and %s\n", opt.common.csv_path, opt.common.md_path);
    print_final(cases, count, &opt, copy.best_gbps);
  }
  if (j.handle)
    (void)cusparseDestroy(j.handle);
  (void)cudaFree(j.hash);
  free(j.sample);
  tsb_table_destroy(r.table);
  ts_context_destroy(ctx);
  if (failed || r.check_failed) {
    fprintf(stderr, "spmm: %s\n", r.check_failed ? "a result did not match the reference or did not repeat" : "FAILED");
    return 1;
  }
  return 0;
}
