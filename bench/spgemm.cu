/* SpGEMM (C = A*B, Gustavson) against cuSPARSE: tessera's plan (symbolic,
 * allocate, numeric) beside cusparseSpGEMM with the default algorithm and the
 * low-memory ALG2 and ALG3, in one process on the same device operands, for
 * A*A (and with --aat A*A^T) of the corpus, meshes, R-MAT and power-law
 * matrices (bench/product_sets.h). Each variant is timed end to end by the
 * host clock (every phase, the allocations of workspace and C, up to C in
 * device memory; the operands' upload is outside, as cuSPARSE's) as the
 * median of repeated runs, with its peak device memory (operands, workspace
 * and C as allocated); its C is checked on a sample of rows against a host
 * product in double; failures of cuSPARSE (insufficient resources, out of
 * memory) are recorded with their reason. The copy bandwidth is measured in
 * the same run. Output: a CSV, a Markdown summary (speed over the default
 * algorithm, peak memory against ALG3, the inputs cuSPARSE failed) and, last
 * on stdout, one short table. */
#include "product_sets.h"
#include "tsb_cuda.h"

#include <algorithm>
#include <cusparse.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <utility>
#include <vector>

/* Timed runs of a variant stop after about this long (at least one). */
#define MAX_SECONDS_PER_VARIANT 4.0
/* Sampled rows whose products pass this are left out of the host check. */
#define CHECK_MAX_ROW_PRODUCTS 4000000
#define CHECK_EDGE_ROWS 32
#define CHECK_SPREAD_ROWS 128
#define CHECK_LONGEST_ROWS 4
#define GOAL_SPEED 2.0

enum { V_TESSERA, V_DEFAULT, V_ALG2, V_ALG3, V_COUNT };
static const char *const variant_names[V_COUNT] = {"tessera", "cusparse_default", "cusparse_alg2", "cusparse_alg3"};
static const cusparseSpGEMMAlg_t variant_algs[V_COUNT] = {CUSPARSE_SPGEMM_DEFAULT, CUSPARSE_SPGEMM_DEFAULT,
                                                          CUSPARSE_SPGEMM_ALG2, CUSPARSE_SPGEMM_ALG3};

struct options {
  ps_options common; /* sets, precision, quick, corpus, paths */
  bool aat;
  int repeat;
  int64_t max_products;
};

struct variant_result {
  bool ran, ok, checked_ok;
  char status[160];                                /* "ok" or why it failed */
  double ms, ms_symbolic, ms_allocate, ms_numeric; /* medians */
  int64_t peak_bytes, nnz;
};

struct case_result {
  char name[112];
  int set;
  ts_dtype dtype;
  int64_t rows, cols, nnz_a, nnz_b, products;
  variant_result v[V_COUNT];
};

/* ---- the sample check --------------------------------------------------------------- */

/* Row i of A*B in double: sorted (column, value, |value| bound). */
static void reference_row(const ts_csr *a, const ts_csr *b, int64_t i, std::vector<int32_t> &cols,
                          std::vector<double> &vals, std::vector<double> &bound) {
  std::vector<std::pair<int32_t, std::pair<double, double>>> terms;
  for (int64_t ka = a->row_ptr[i]; ka < a->row_ptr[i + 1]; ka++) {
    const int64_t k = a->col_idx[ka];
    const double x = a->dtype == TS_FLOAT32 ? ((const float *)a->values)[ka] : ((const double *)a->values)[ka];
    for (int64_t kb = b->row_ptr[k]; kb < b->row_ptr[k + 1]; kb++) {
      const double y = b->dtype == TS_FLOAT32 ? ((const float *)b->values)[kb] : ((const double *)b->values)[kb];
      terms.push_back({b->col_idx[kb], {x * y, fabs(x * y)}});
    }
  }
  std::stable_sort(terms.begin(), terms.end(), [](const auto &p, const auto &q) { return p.first < q.first; });
  cols.clear();
  vals.clear();
  bound.clear();
  for (size_t t = 0; t < terms.size(); t++) {
    if (cols.empty() || cols.back() != terms[t].first) {
      cols.push_back(terms[t].first);
      vals.push_back(0);
      bound.push_back(0);
    }
    vals.back() += terms[t].second.first;
    bound.back() += terms[t].second.second;
  }
}

static int64_t row_products(const ts_csr *a, const ts_csr *b, int64_t i) {
  int64_t p = 0;
  for (int64_t ka = a->row_ptr[i]; ka < a->row_ptr[i + 1]; ka++)
    p += b->row_ptr[a->col_idx[ka] + 1] - b->row_ptr[a->col_idx[ka]];
  return p;
}

/* The sampled rows: first and last, spread, the longest by products. */
static std::vector<int64_t> pick_sample(const ts_csr *a, const ts_csr *b) {
  std::vector<int64_t> s;
  for (int64_t i = 0; i < a->rows && i < CHECK_EDGE_ROWS; i++)
    s.push_back(i);
  for (int64_t i = std::max<int64_t>(CHECK_EDGE_ROWS, a->rows - CHECK_EDGE_ROWS); i < a->rows; i++)
    s.push_back(i);
  for (int k = 0; k < CHECK_SPREAD_ROWS && a->rows > 0; k++)
    s.push_back((int64_t)((double)a->rows * (k + 0.5) / CHECK_SPREAD_ROWS));
  std::vector<std::pair<int64_t, int64_t>> longest;
  for (int64_t i = 0; i < a->rows; i++) {
    const int64_t p = row_products(a, b, i);
    if (p <= CHECK_MAX_ROW_PRODUCTS)
      longest.push_back({p, i});
  }
  const size_t keep = std::min<size_t>(CHECK_LONGEST_ROWS, longest.size());
  std::partial_sort(longest.begin(), longest.begin() + keep, longest.end(),
                    [](const auto &x, const auto &y) { return x.first > y.first; });
  for (size_t k = 0; k < keep; k++)
    s.push_back(longest[k].second);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  std::vector<int64_t> kept;
  for (int64_t i : s)
    if (row_products(a, b, i) <= CHECK_MAX_ROW_PRODUCTS)
      kept.push_back(i);
  return kept;
}

/* Compare C's sampled rows (offsets `off` of either width, on the device)
 * with the reference. Returns the bad rows; -1 when a copy failed. */
template <class Offset>
static int64_t check_rows(const ts_csr *a, const ts_csr *b, const std::vector<int64_t> &sample, const Offset *d_off,
                          const int32_t *d_cols, const void *d_vals, const char *what) {
  const size_t vs = ts_dtype_size(a->dtype);
  const double u = a->dtype == TS_FLOAT32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
  /* Products and sums below the smallest normal number may be flushed to
   * zero (or lose digits as subnormals): an absolute allowance of the
   * smallest normal a product and an addition. */
  const double tiny = a->dtype == TS_FLOAT32 ? (double)FLT_MIN : DBL_MIN;
  std::vector<int32_t> cols, got_cols;
  std::vector<double> vals, bound;
  std::vector<unsigned char> got_vals;
  int64_t bad = 0;
  for (int64_t i : sample) {
    Offset range[2];
    if (cudaMemcpy(range, d_off + i, sizeof range, cudaMemcpyDeviceToHost) != cudaSuccess)
      return -1;
    const int64_t n = (int64_t)(range[1] - range[0]);
    reference_row(a, b, i, cols, vals, bound);
    got_cols.resize((size_t)n + 1);
    got_vals.resize(((size_t)n + 1) * vs);
    if (n > 0 &&
        (cudaMemcpy(got_cols.data(), d_cols + range[0], (size_t)n * 4, cudaMemcpyDeviceToHost) != cudaSuccess ||
         cudaMemcpy(got_vals.data(), (const char *)d_vals + (size_t)range[0] * vs, (size_t)n * vs,
                    cudaMemcpyDeviceToHost) != cudaSuccess))
      return -1;
    bool row_ok = n == (int64_t)cols.size();
    const double terms = (double)(a->row_ptr[i + 1] - a->row_ptr[i]);
    for (int64_t e = 0; row_ok && e < n; e++) {
      const double v =
          a->dtype == TS_FLOAT32 ? (double)((const float *)got_vals.data())[e] : ((const double *)got_vals.data())[e];
      row_ok = got_cols[e] == cols[e] &&
               fabs(v - vals[e]) <= u * (16.0 * sqrt(terms) + 16.0) * bound[e] + 2.0 * (terms + 1.0) * tiny;
    }
    if (!row_ok && bad++ < 3)
      fprintf(stderr, "error: %s: row %lld: %lld entries, want %lld, or a column or value differs\n", what,
              (long long)i, (long long)n, (long long)cols.size());
  }
  return bad;
}

/* ---- tessera --------------------------------------------------------------------------- */

struct tessera_run {
  ts_spgemm_plan *plan;
  double symbolic, allocate, numeric;
};

/* One end-to-end run on a fresh plan (its creation, the upload, not timed);
 * the plan is kept for the check. */
static int run_tessera(ts_context *ctx, const ts_csr *a, const ts_csr *b, tessera_run *r, char *status, size_t size) {
  ts_status st = ts_spgemm_plan_create(ctx, a, b, NULL, &r->plan);
  if (st == TS_SUCCESS)
    st = ts_context_sync(ctx);
  double t0 = tsb_wall_seconds();
  if (st == TS_SUCCESS)
    st = ts_spgemm_symbolic(r->plan);
  double t1 = tsb_wall_seconds();
  if (st == TS_SUCCESS)
    st = ts_spgemm_allocate(r->plan);
  double t2 = tsb_wall_seconds();
  if (st == TS_SUCCESS)
    st = ts_spgemm_numeric(r->plan);
  if (st == TS_SUCCESS)
    st = ts_context_sync(ctx);
  double t3 = tsb_wall_seconds();
  if (st != TS_SUCCESS) {
    snprintf(status, size, "%s: %s", ts_status_string(st), ts_last_error(ctx));
    return 1;
  }
  r->symbolic = 1e3 * (t1 - t0);
  r->allocate = 1e3 * (t2 - t1);
  r->numeric = 1e3 * (t3 - t2);
  return 0;
}

/* ---- cuSPARSE --------------------------------------------------------------------------- */

struct device_csr {
  int64_t rows, cols, nnz;
  int32_t *off, *idx;
  void *vals;
};

static int upload(const ts_csr *a, device_csr *d) {
  d->rows = a->rows;
  d->cols = a->cols;
  d->nnz = a->nnz;
  void *off = NULL, *idx = NULL;
  const int failed = tsb_upload_csr32(a, &off, &idx, &d->vals);
  d->off = (int32_t *)off;
  d->idx = (int32_t *)idx;
  return failed;
}

static void release(device_csr *d) {
  tsb_free_csr32(d->off, d->idx, d->vals);
  memset(d, 0, sizeof *d);
}

static int64_t device_bytes(const device_csr *d, size_t vs) { return (d->rows + 1) * 4 + d->nnz * (4 + (int64_t)vs); }

/* One cuSPARSE run and what it left: C (kept for the check) and its phases. */
struct cusparse_run {
  cusparseSpGEMMDescr_t descr;
  cusparseSpMatDescr_t mat_a, mat_b, mat_c;
  void *buffer1, *buffer2, *buffer3;
  int32_t *c_off, *c_idx;
  void *c_vals;
  int64_t c_nnz, peak;
  double work, compute, copy;
};

static void cusparse_free(cusparse_run *r) {
  if (r->descr)
    (void)cusparseSpGEMM_destroyDescr(r->descr);
  if (r->mat_a)
    (void)cusparseDestroySpMat(r->mat_a);
  if (r->mat_b)
    (void)cusparseDestroySpMat(r->mat_b);
  if (r->mat_c)
    (void)cusparseDestroySpMat(r->mat_c);
  (void)cudaFree(r->buffer1);
  (void)cudaFree(r->buffer2);
  (void)cudaFree(r->buffer3);
  (void)cudaFree(r->c_off);
  (void)cudaFree(r->c_idx);
  (void)cudaFree(r->c_vals);
  (void)cudaGetLastError();
  memset(r, 0, sizeof *r);
}

/* Record why a step failed and stop the run. */
#define CUSPARSE_STEP(call)                                                                                            \
  do {                                                                                                                 \
    cusparseStatus_t st_ = (call);                                                                                     \
    if (st_ != CUSPARSE_STATUS_SUCCESS) {                                                                              \
      snprintf(status, size, "%s: %s", #call, cusparseGetErrorString(st_));                                            \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)
#define CUDA_STEP(call)                                                                                                \
  do {                                                                                                                 \
    cudaError_t err_ = (call);                                                                                         \
    if (err_ != cudaSuccess) {                                                                                         \
      (void)cudaGetLastError();                                                                                        \
      snprintf(status, size, "%s: %s", #call, cudaGetErrorString(err_));                                               \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

static int run_cusparse(cusparseHandle_t handle, cudaStream_t stream, const device_csr *a, const device_csr *b,
                        ts_dtype dtype, cusparseSpGEMMAlg_t alg, cusparse_run *r, char *status, size_t size) {
  const cudaDataType type = dtype == TS_FLOAT32 ? CUDA_R_32F : CUDA_R_64F;
  const size_t vs = ts_dtype_size(dtype);
  const float one32 = 1, zero32 = 0;
  const double one64 = 1, zero64 = 0;
  const void *alpha = dtype == TS_FLOAT32 ? (const void *)&one32 : (const void *)&one64;
  const void *beta = dtype == TS_FLOAT32 ? (const void *)&zero32 : (const void *)&zero64;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t size1 = 0, size2 = 0, size3 = 0;
  CUDA_STEP(cudaStreamSynchronize(stream));
  const double t0 = tsb_wall_seconds();
  CUDA_STEP(cudaMalloc(&r->c_off, (size_t)(a->rows + 1) * 4));
  CUSPARSE_STEP(cusparseCreateCsr(&r->mat_a, a->rows, a->cols, a->nnz, a->off, a->idx, a->vals, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  CUSPARSE_STEP(cusparseCreateCsr(&r->mat_b, b->rows, b->cols, b->nnz, b->off, b->idx, b->vals, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  CUSPARSE_STEP(cusparseCreateCsr(&r->mat_c, a->rows, b->cols, 0, r->c_off, NULL, NULL, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  CUSPARSE_STEP(cusparseSpGEMM_createDescr(&r->descr));
  CUSPARSE_STEP(cusparseSpGEMM_workEstimation(handle, op, op, alpha, r->mat_a, r->mat_b, beta, r->mat_c, type, alg,
                                              r->descr, &size1, NULL));
  CUDA_STEP(cudaMalloc(&r->buffer1, size1 > 0 ? size1 : 1));
  CUSPARSE_STEP(cusparseSpGEMM_workEstimation(handle, op, op, alpha, r->mat_a, r->mat_b, beta, r->mat_c, type, alg,
                                              r->descr, &size1, r->buffer1));
  if (alg == CUSPARSE_SPGEMM_ALG2 || alg == CUSPARSE_SPGEMM_ALG3) {
    const float chunk_fraction = 0.2f; /* NVIDIA's low-memory example's figure */
    CUSPARSE_STEP(cusparseSpGEMM_estimateMemory(handle, op, op, alpha, r->mat_a, r->mat_b, beta, r->mat_c, type, alg,
                                                r->descr, chunk_fraction, &size3, NULL, NULL));
    CUDA_STEP(cudaMalloc(&r->buffer3, size3 > 0 ? size3 : 1));
    CUSPARSE_STEP(cusparseSpGEMM_estimateMemory(handle, op, op, alpha, r->mat_a, r->mat_b, beta, r->mat_c, type, alg,
                                                r->descr, chunk_fraction, &size3, r->buffer3, &size2));
    CUDA_STEP(cudaFree(r->buffer3));
    r->buffer3 = NULL;
  } else {
    CUSPARSE_STEP(cusparseSpGEMM_compute(handle, op, op, alpha, r->mat_a, r->mat_b, beta, r->mat_c, type, alg, r->descr,
                                         &size2, NULL));
  }
  CUDA_STEP(cudaStreamSynchronize(stream));
  const double t1 = tsb_wall_seconds();
  CUDA_STEP(cudaMalloc(&r->buffer2, size2 > 0 ? size2 : 1));
  CUSPARSE_STEP(cusparseSpGEMM_compute(handle, op, op, alpha, r->mat_a, r->mat_b, beta, r->mat_c, type, alg, r->descr,
                                       &size2, r->buffer2));
  int64_t rows = 0, cols = 0;
  CUSPARSE_STEP(cusparseSpMatGetSize(r->mat_c, &rows, &cols, &r->c_nnz));
  CUDA_STEP(cudaMalloc(&r->c_idx, (size_t)r->c_nnz * 4 + 4));
  CUDA_STEP(cudaMalloc(&r->c_vals, (size_t)r->c_nnz * vs + 8));
  CUSPARSE_STEP(cusparseCsrSetPointers(r->mat_c, r->c_off, r->c_idx, r->c_vals));
  CUDA_STEP(cudaStreamSynchronize(stream));
  const double t2 = tsb_wall_seconds();
  CUSPARSE_STEP(cusparseSpGEMM_copy(handle, op, op, alpha, r->mat_a, r->mat_b, beta, r->mat_c, type, alg, r->descr));
  CUDA_STEP(cudaStreamSynchronize(stream));
  const double t3 = tsb_wall_seconds();
  r->work = 1e3 * (t1 - t0);
  r->compute = 1e3 * (t2 - t1);
  r->copy = 1e3 * (t3 - t2);
  const int64_t c_bytes = (a->rows + 1) * 4 + r->c_nnz * (4 + (int64_t)vs);
  r->peak = device_bytes(a, vs) + device_bytes(b, vs) + (int64_t)size1 +
            std::max<int64_t>((int64_t)size3, (int64_t)size2 + c_bytes);
  return 0;
}

/* ---- one product --------------------------------------------------------------------------- */

static double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/* Whether another timed run fits the variant's time. */
static bool more_runs(const std::vector<double> &ms, int runs, int repeat) {
  double spent = 0;
  for (double t : ms)
    spent += t;
  return runs < repeat && (runs == 0 || spent / 1e3 + spent / 1e3 / runs <= MAX_SECONDS_PER_VARIANT);
}

static void measure_tessera(ts_context *ctx, const options *opt, const ts_csr *a, const ts_csr *b,
                            const std::vector<int64_t> &sample, case_result *c) {
  variant_result *v = &c->v[V_TESSERA];
  std::vector<double> total, sym, alloc, num;
  char what[200];
  v->ran = true;
  snprintf(v->status, sizeof v->status, "ok");
  for (int run = 0; run == 0 || more_runs(total, (int)total.size(), opt->repeat); run++) {
    tessera_run r;
    memset(&r, 0, sizeof r);
    const bool failed = run_tessera(ctx, a, b, &r, v->status, sizeof v->status) != 0;
    if (!failed && run == 0) {
      const ts_buffer *off = NULL, *cols = NULL, *vals = NULL;
      (void)ts_spgemm_c_buffers(r.plan, &off, &cols, &vals);
      v->nnz = ts_spgemm_plan_nnz(r.plan);
      v->peak_bytes = ts_spgemm_plan_device_bytes(r.plan);
      c->products = ts_spgemm_plan_products(r.plan);
      snprintf(what, sizeof what, "%s tessera", c->name);
      v->checked_ok = check_rows(a, b, sample, (const int64_t *)ts_buffer_data(off),
                                 (const int32_t *)ts_buffer_data(cols), ts_buffer_data(vals), what) == 0;
      printf("    %s\n", ts_spgemm_plan_explain(r.plan));
    } else if (!failed) { /* run 0 warmed up */
      total.push_back(r.symbolic + r.allocate + r.numeric);
      sym.push_back(r.symbolic);
      alloc.push_back(r.allocate);
      num.push_back(r.numeric);
    }
    ts_spgemm_plan_destroy(r.plan);
    if (failed)
      break;
  }
  v->ok = !total.empty();
  v->ms = median(total);
  v->ms_symbolic = median(sym);
  v->ms_allocate = median(alloc);
  v->ms_numeric = median(num);
}

static void measure_cusparse(cusparseHandle_t handle, cudaStream_t stream, const options *opt, const ts_csr *a,
                             const ts_csr *b, const device_csr *da, const device_csr *db,
                             const std::vector<int64_t> &sample, int k, case_result *c) {
  variant_result *v = &c->v[k];
  std::vector<double> total, work, compute, copy;
  char what[200];
  v->ran = true;
  snprintf(v->status, sizeof v->status, "ok");
  for (int run = 0; run == 0 || more_runs(total, (int)total.size(), opt->repeat); run++) {
    cusparse_run r;
    memset(&r, 0, sizeof r);
    const bool failed =
        run_cusparse(handle, stream, da, db, a->dtype, variant_algs[k], &r, v->status, sizeof v->status) != 0;
    if (!failed && run == 0) {
      v->nnz = r.c_nnz;
      v->peak_bytes = r.peak;
      snprintf(what, sizeof what, "%s %s", c->name, variant_names[k]);
      v->checked_ok = check_rows(a, b, sample, r.c_off, r.c_idx, r.c_vals, what) == 0;
    } else if (!failed) {
      total.push_back(r.work + r.compute + r.copy);
      work.push_back(r.work);
      compute.push_back(r.compute);
      copy.push_back(r.copy);
    }
    cusparse_free(&r);
    if (failed)
      break;
  }
  v->ok = !total.empty();
  v->ms = median(total);
  v->ms_symbolic = median(work);
  v->ms_allocate = median(compute);
  v->ms_numeric = median(copy);
}

static int run_case(ts_context *ctx, cusparseHandle_t handle, const options *opt, const ts_csr *a, const ts_csr *b,
                    case_result *c) {
  cudaStream_t stream = (cudaStream_t)ts_context_stream(ctx);
  const std::vector<int64_t> sample = pick_sample(a, b);
  device_csr da, db;
  memset(&da, 0, sizeof da);
  memset(&db, 0, sizeof db);
  c->dtype = a->dtype;
  c->rows = a->rows;
  c->cols = b->cols;
  c->nnz_a = a->nnz;
  c->nnz_b = b->nnz;
  for (int64_t ka = 0; ka < a->nnz; ka++)
    c->products += b->row_ptr[a->col_idx[ka] + 1] - b->row_ptr[a->col_idx[ka]];
  printf("  %s %s: %lld x %lld times %lld x %lld, %lld and %lld nnz, %lld products\n", c->name,
         a->dtype == TS_FLOAT32 ? "fp32" : "fp64", (long long)a->rows, (long long)a->cols, (long long)b->rows,
         (long long)b->cols, (long long)a->nnz, (long long)b->nnz, (long long)c->products);
  if (opt->max_products > 0 && c->products > opt->max_products) {
    printf("    skipped: more than %lld products (--max-products)\n", (long long)opt->max_products);
    return 0;
  }
  measure_tessera(ctx, opt, a, b, sample, c);
  if (upload(a, &da) != 0 || upload(b, &db) != 0) {
    release(&da);
    release(&db);
    return 1;
  }
  for (int k = V_DEFAULT; k < V_COUNT; k++)
    measure_cusparse(handle, stream, opt, a, b, &da, &db, sample, k, c);
  release(&da);
  release(&db);
  for (int k = 0; k < V_COUNT; k++) {
    const variant_result *v = &c->v[k];
    if (v->ok)
      printf("    %-17s %10.3f ms (%.3f + %.3f + %.3f)  peak %.1f MB  nnz %lld  check %s\n", variant_names[k], v->ms,
             v->ms_symbolic, v->ms_allocate, v->ms_numeric, v->peak_bytes / 1e6, (long long)v->nnz,
             v->checked_ok ? "ok" : "FAILED");
    else if (v->ran)
      printf("    %-17s failed: %s\n", variant_names[k], v->status);
  }
  fflush(stdout);
  return 0;
}

/* ---- the summary ------------------------------------------------------------------------------- */

static FILE *md_file;
static void md(const char *format, ...) {
  va_list args;
  if (md_file) {
    va_start(args, format);
    vfprintf(md_file, format, args);
    va_end(args);
  }
}

static double speed_over(const case_result *c, int k) {
  const variant_result *t = &c->v[V_TESSERA], *r = &c->v[k];
  return t->ok && r->ok && t->ms > 0 ? r->ms / t->ms : 0;
}

static void add_rows(tsb_table *t, const case_result *c) {
  for (int k = 0; k < V_COUNT; k++) {
    const variant_result *v = &c->v[k];
    if (!v->ran)
      continue;
    tsb_table_cell(t, "%s", ps_set_names[c->set]);
    tsb_table_cell(t, "%s", c->name);
    tsb_table_cell(t, "%s", c->dtype == TS_FLOAT32 ? "fp32" : "fp64");
    tsb_table_cell(t, "%lld", (long long)c->rows);
    tsb_table_cell(t, "%lld", (long long)c->cols);
    tsb_table_cell(t, "%lld", (long long)c->nnz_a);
    tsb_table_cell(t, "%lld", (long long)c->nnz_b);
    tsb_table_cell(t, "%lld", (long long)c->products);
    tsb_table_cell(t, "%lld", (long long)v->nnz);
    tsb_table_cell(t, "%s", variant_names[k]);
    tsb_table_cell(t, "%s", v->ok ? "ok" : v->status);
    tsb_table_cell(t, "%.3f", v->ms);
    tsb_table_cell(t, "%.3f", v->ms_symbolic);
    tsb_table_cell(t, "%.3f", v->ms_allocate);
    tsb_table_cell(t, "%.3f", v->ms_numeric);
    tsb_table_cell(t, "%lld", (long long)v->peak_bytes);
    tsb_table_cell(t, "%.4g", k == V_TESSERA ? speed_over(c, V_DEFAULT) : 0.0);
    tsb_table_cell(t, "%s", v->ok ? (v->checked_ok ? "ok" : "FAILED") : "-");
  }
}

struct summary {
  int cases, vs_default, vs_alg3, memory_ok, memory_cases, cusparse_failed, tessera_rescued;
  double geomean_default, geomean_alg2, geomean_alg3, worst_memory_ratio;
};

static summary summarize(const case_result *cases, int count, ts_dtype dtype) {
  summary s;
  memset(&s, 0, sizeof s);
  std::vector<double> d, a2, a3;
  for (int i = 0; i < count; i++) {
    const case_result *c = &cases[i];
    if (c->dtype != dtype || !c->v[V_TESSERA].ran)
      continue;
    s.cases++;
    if (speed_over(c, V_DEFAULT) > 0)
      d.push_back(speed_over(c, V_DEFAULT));
    if (speed_over(c, V_ALG2) > 0)
      a2.push_back(speed_over(c, V_ALG2));
    if (speed_over(c, V_ALG3) > 0)
      a3.push_back(speed_over(c, V_ALG3));
    if (c->v[V_TESSERA].ok && c->v[V_ALG3].ok) {
      const double ratio = (double)c->v[V_TESSERA].peak_bytes / (double)c->v[V_ALG3].peak_bytes;
      s.memory_cases++;
      s.memory_ok += ratio <= 1.0;
      s.worst_memory_ratio = std::max(s.worst_memory_ratio, ratio);
    }
    bool any_failed = false;
    for (int k = V_DEFAULT; k < V_COUNT; k++)
      any_failed |= c->v[k].ran && !c->v[k].ok;
    s.cusparse_failed += any_failed;
    s.tessera_rescued += any_failed && c->v[V_TESSERA].ok;
  }
  s.vs_default = (int)d.size();
  s.vs_alg3 = (int)a3.size();
  s.geomean_default = tsb_geomean(d.data(), (int)d.size());
  s.geomean_alg2 = tsb_geomean(a2.data(), (int)a2.size());
  s.geomean_alg3 = tsb_geomean(a3.data(), (int)a3.size());
  return s;
}

static void md_report(const case_result *cases, int count) {
  md("\n## Per product (end to end ms: symbolic + allocation + numeric; peak device MB)\n\n");
  md("| matrix | dtype | products | nnz C | tessera | default | ALG2 | ALG3 | speed over default | peak tessera / ALG3 "
     "|\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < count; i++) {
    const case_result *c = &cases[i];
    if (!c->v[V_TESSERA].ran)
      continue;
    md("| %s | %s | %lld | %lld |", c->name, c->dtype == TS_FLOAT32 ? "fp32" : "fp64", (long long)c->products,
       (long long)c->v[V_TESSERA].nnz);
    for (int k = 0; k < V_COUNT; k++) {
      const variant_result *v = &c->v[k];
      if (v->ok)
        md(" %.3f ms, %.1f MB%s |", v->ms, v->peak_bytes / 1e6, v->checked_ok ? "" : " FAILED CHECK");
      else
        md(" failed: %s |", v->status);
    }
    md(" %.2fx | %.2f |\n", speed_over(c, V_DEFAULT),
       c->v[V_TESSERA].ok && c->v[V_ALG3].ok ? (double)c->v[V_TESSERA].peak_bytes / c->v[V_ALG3].peak_bytes : 0.0);
  }
  for (int d = 0; d < 2; d++) {
    summary s = summarize(cases, count, d ? TS_FLOAT64 : TS_FLOAT32);
    if (s.cases == 0)
      continue;
    md("\n## %s\n\n- speed over cuSPARSE default: geomean %.3f over %d products (goal >= %.1f); over ALG2 %.3f, "
       "over ALG3 %.3f\n- peak memory at most ALG3's on %d of %d products (worst ratio %.2f; goal: all)\n"
       "- cuSPARSE failed on %d products (at least one algorithm); tessera succeeded on %d of them\n",
       d ? "fp64" : "fp32", s.geomean_default, s.vs_default, GOAL_SPEED, s.geomean_alg2, s.geomean_alg3, s.memory_ok,
       s.memory_cases, s.worst_memory_ratio, s.cusparse_failed, s.tessera_rescued);
  }
  md("\n## Inputs where cuSPARSE failed\n\n");
  for (int i = 0; i < count; i++)
    for (int k = V_DEFAULT; k < V_COUNT; k++)
      if (cases[i].v[k].ran && !cases[i].v[k].ok)
        md("- %s %s, %s: %s; tessera: %s\n", cases[i].name, cases[i].dtype == TS_FLOAT32 ? "fp32" : "fp64",
           variant_names[k], cases[i].v[k].status, cases[i].v[V_TESSERA].ok ? "ok" : cases[i].v[V_TESSERA].status);
}

static void print_final(const case_result *cases, int count, double copy_gbps) {
  printf("\nSpGEMM end to end, tessera against cuSPARSE (copy %.0f GB/s); speed = cuSPARSE ms / tessera ms\n",
         copy_gbps);
  printf("| dtype | products | geomean over default | over ALG2 | over ALG3 | peak <= ALG3 | cuSPARSE failed | tessera "
         "ok there |\n|---|---|---|---|---|---|---|---|\n");
  for (int d = 0; d < 2; d++) {
    summary s = summarize(cases, count, d ? TS_FLOAT64 : TS_FLOAT32);
    if (s.cases > 0)
      printf("| %s | %d | %.3f (%d) | %.3f | %.3f (%d) | %d of %d (worst %.2f) | %d | %d |\n", d ? "fp64" : "fp32",
             s.cases, s.geomean_default, s.vs_default, s.geomean_alg2, s.geomean_alg3, s.vs_alg3, s.memory_ok,
             s.memory_cases, s.worst_memory_ratio, s.cusparse_failed, s.tessera_rescued);
  }
}

/* ---- main ----------------------------------------------------------------------------------------- */

static const char usage_text[] =
    "[--set corpus|mesh|rmat|powerlaw|all]... [--precision single|double|both] [--aat] [--quick]\n"
    "          [--matrices DIR] [--only TEXT] [--repeat N] [--max-products N] [--md PATH] [CSV_PATH]\n"
    "  --set may be repeated (default all); the corpus is read from DIR, else $TESSERA_MATRICES\n"
    "  --aat also runs A*A^T; --quick shrinks the generated matrices (a check, not a measurement)\n"
    "  --max-products skips products past N (default 0: none skipped)\n"
    "  CSV_PATH defaults to bench-out/spgemm.csv; the Markdown goes beside it with .md\n"
    "  exit status: 0 when tessera's checks passed, 1 otherwise, 2 for a bad command line, 77 without a GPU";

/* spgemm's own options (ps_own_option_fn). */
static int own_option(void *user, int argc, char **argv, int *i) {
  options *opt = (options *)user;
  const char *arg = argv[*i];
  if (strcmp(arg, "--aat") == 0) {
    opt->aat = true;
    return 1;
  }
  if (*i + 1 >= argc)
    return 0;
  const char *value = argv[*i + 1];
  if (strcmp(arg, "--repeat") == 0) {
    opt->repeat = atoi(value);
    if (opt->repeat < 1 || opt->repeat > 1000) {
      fprintf(stderr, "error: --repeat takes 1 to 1000\n");
      return 2;
    }
  } else if (strcmp(arg, "--max-products") == 0) {
    opt->max_products = strtoll(value, NULL, 10);
  } else {
    return 0;
  }
  (*i)++;
  return 1;
}

/* What the run carries from matrix to matrix. */
struct run_state {
  const options *opt;
  cusparseHandle_t handle;
  std::vector<case_result> cases;
  tsb_table *table;
};

/* A*A (and A*A^T) of one square matrix, in each value type asked for. */
static int run_matrix(void *user, ts_context *ctx, const char *name, int set, const ts_csr *a64) {
  run_state *r = (run_state *)user;
  const options *opt = r->opt;
  if (a64->rows != a64->cols) {
    printf("  %s: %lld x %lld, not square; A*A skipped\n", name, (long long)a64->rows, (long long)a64->cols);
    return 0;
  }
  for (int d = 0; d < 2; d++) {
    if ((d == 0 && !opt->common.fp32) || (d == 1 && !opt->common.fp64))
      continue;
    ts_csr *a = NULL, *at = NULL;
    if (tsb_csr_convert(ctx, a64, d ? TS_FLOAT64 : TS_FLOAT32, &a) != TS_SUCCESS ||
        (opt->aat && ts_csr_transpose(ctx, a, &at) != TS_SUCCESS)) {
      ts_csr_destroy(a);
      return 1;
    }
    int failed = 0;
    for (int product = 0; product < (opt->aat ? 2 : 1) && !failed; product++) {
      case_result c;
      memset(&c, 0, sizeof c);
      snprintf(c.name, sizeof c.name, "%.96s %s", name, product ? "A*A^T" : "A*A");
      c.set = set;
      failed = run_case(ctx, r->handle, opt, a, product ? at : a, &c);
      r->cases.push_back(c);
      add_rows(r->table, &c);
    }
    ts_csr_destroy(a);
    ts_csr_destroy(at);
    if (failed)
      return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  options opt;
  memset(&opt, 0, sizeof opt);
  opt.common.csv_path = "bench-out/spgemm.csv";
  opt.common.fp32 = true;
  opt.repeat = 5;
  const int parsed = ps_parse(argc, argv, &opt.common, usage_text, own_option, &opt);
  if (parsed != 0)
    return parsed < 0 ? 0 : parsed;
  ts_context *ctx = NULL;
  const int opened = ps_open_gpu(&ctx);
  if (opened != 0)
    return opened;
  const char *columns[] = {
      "set",     "matrix", "dtype", "rows",      "cols",      "nnz_a",     "nnz_b",      "products",         "nnz_c",
      "variant", "status", "ms",    "ms_phase1", "ms_phase2", "ms_phase3", "peak_bytes", "speed_vs_default", "check"};
  run_state r;
  r.opt = &opt;
  r.handle = NULL;
  r.table = tsb_table_create((int)(sizeof columns / sizeof columns[0]), columns);
  tsb_metadata meta;
  tsb_copy_bandwidth copy;
  memset(&copy, 0, sizeof copy);
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "timing",
                   "host clock, median of up to %d end-to-end runs after one warm-up (fewer past %.0f s a variant); "
                   "phases: tessera symbolic / allocate / numeric, cuSPARSE work estimation (and memory estimate) / "
                   "compute with C's allocation / copy",
                   opt.repeat, MAX_SECONDS_PER_VARIANT);
  tsb_metadata_set(&meta, "peak",
                   "operands + workspace + C as allocated (cuSPARSE: int32 offsets; its buffer3 is freed "
                   "before buffer2)");
  int failed = !r.table;
  if (!failed && (cusparseCreate(&r.handle) != CUSPARSE_STATUS_SUCCESS ||
                  cusparseSetStream(r.handle, (cudaStream_t)ts_context_stream(ctx)) != CUSPARSE_STATUS_SUCCESS)) {
    fprintf(stderr, "error: cuSPARSE handle\n");
    failed = 1;
  }
  if (!failed && tsb_measure_copy_bandwidth(ts_context_stream(ctx), 0, 10, &copy) == 0) {
    printf("copy bandwidth: %.0f GB/s\n", copy.best_gbps);
    tsb_metadata_set(&meta, "copy_gbps", "%.0f", copy.best_gbps);
  }
  tsb_metadata_print(&meta, stdout, "# ");
  if (!failed)
    failed = ps_for_each_matrix(ctx, &opt.common, run_matrix, &r);
  bool check_failed = false;
  for (const case_result &c : r.cases)
    check_failed |= c.v[V_TESSERA].ran && (!c.v[V_TESSERA].ok || !c.v[V_TESSERA].checked_ok);
  if (r.table && tsb_table_rows(r.table) > 0) {
    if (tsb_table_write_csv(r.table, &meta, opt.common.csv_path) != 0)
      failed = 1;
    if (tsb_make_parent_dirs(opt.common.md_path) == 0)
      md_file = fopen(opt.common.md_path, "w");
    md("# SpGEMM against cuSPARSE%s\n\n", opt.common.quick ? " (quick sizes: not a measurement)" : "");
    if (md_file)
      tsb_metadata_print(&meta, md_file, "- ");
    md_report(r.cases.data(), (int)r.cases.size());
    md("\nEvery run: %s (CSV).\n", opt.common.csv_path);
    if (md_file)
      fclose(md_file);
    printf("wrote %s and %s\n", opt.common.csv_path, opt.common.md_path);
    print_final(r.cases.data(), (int)r.cases.size(), copy.best_gbps);
  }
  if (r.handle)
    (void)cusparseDestroy(r.handle);
  tsb_table_destroy(r.table);
  ts_context_destroy(ctx);
  if (failed || check_failed) {
    fprintf(stderr, "spgemm: %s\n",
            check_failed ? "a tessera product failed or did not match the reference" : "FAILED");
    return 1;
  }
  return 0;
}
