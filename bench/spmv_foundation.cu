/* SpMV baseline: the foundation's CSR kernel (through ts_spmv_plan) against
 * cuSPARSE CSR ALG1 and ALG2 on generated matrices, fp32 and fp64, each result
 * checked against a double-precision host reference; times are medians of
 * CUDA-event timed calls, rates are GB/s of compulsory traffic and a fraction
 * of the copy bandwidth measured in the same run. */
#include "tsb_cuda.h"

#include <cusparse.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CUSPARSE_TRY(call)                                                                                             \
  do {                                                                                                                 \
    cusparseStatus_t st_ = (call);                                                                                     \
    if (st_ != CUSPARSE_STATUS_SUCCESS) {                                                                              \
      fprintf(stderr, "%s:%d: cuSPARSE error: %s: %s\n", __FILE__, __LINE__, #call, cusparseGetErrorString(st_));      \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

struct options {
  const char *csv_path;
  const char *only; /* run only the matrix of this name */
  int quick;        /* small matrices: a check of the script, not a measurement */
  int warmup, repeat;
  int fp32, fp64;
};

/* ---- the reference and its check ------------------------------------------- */

static double value_at(const void *values, ts_dtype dtype, int64_t k) {
  return dtype == TS_FLOAT32 ? (double)((const float *)values)[k] : ((const double *)values)[k];
}

/* y_ref = A x in double, and bound = |A||x| per row for the error test. */
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
 * margin. An unwritten (NaN-poisoned) entry always fails. Returns the count of
 * failing rows; *worst is the largest error over its tolerance. */
static int64_t check_result(const ts_csr *a, const double *ref, const double *bound, const void *y, const char *what,
                            double *worst) {
  double u = a->dtype == TS_FLOAT32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
  int64_t bad = 0;
  *worst = 0;
  for (int64_t i = 0; i < a->rows; i++) {
    double len = (double)(a->row_ptr[i + 1] - a->row_ptr[i]);
    double tol = u * (16.0 * sqrt(len) + 16.0) * bound[i];
    double got = value_at(y, a->dtype, i);
    double err = fabs(got - ref[i]);
    if (!(err <= tol)) {
      if (bad < 5)
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

/* ---- the variants -------------------------------------------------------------- */

struct spmv_job {
  /* tessera */
  ts_spmv_plan *plan;
  ts_buffer *x, *y;
  /* cuSPARSE */
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
    fprintf(stderr, "error: ts_spmv_execute: %s\n", ts_status_string(st));
    return 1;
  }
  return 0;
}

static int run_cusparse(void *user, void *stream) {
  (void)stream;
  spmv_job *job = (spmv_job *)user;
  const void *alpha = job->type == CUDA_R_32F ? (const void *)&job->alpha32 : (const void *)&job->alpha64;
  const void *beta = job->type == CUDA_R_32F ? (const void *)&job->beta32 : (const void *)&job->beta64;
  CUSPARSE_TRY(cusparseSpMV(job->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, job->mat, job->vec_x, beta,
                            job->vec_y, job->type, job->alg, job->workspace));
  TSB_CUDA_TRY(cudaGetLastError());
  return 0;
}

/* One timed, checked variant: poison y, run once, check, time, check again. */
struct variant_result {
  const char *name;
  tsb_stats ms;
  int64_t bad_rows;
  double worst;
  int ran;
};

static int measure_variant(ts_context *ctx, const options *opt, const ts_csr *a, const double *ref, const double *bound,
                           void *y_host, spmv_job *job, tsb_work_fn fn, variant_result *out) {
  size_t y_bytes = (size_t)a->rows * ts_dtype_size(a->dtype);
  void *stream = ts_context_stream(ctx);
  double worst_after = 0;
  TSB_TS_TRY(ctx, ts_buffer_fill_bytes(ctx, job->y, 0xFF)); /* NaN in either type */
  if (fn(job, stream) != 0)
    return 1;
  TSB_TS_TRY(ctx, ts_context_sync(ctx));
  TSB_TS_TRY(ctx, ts_buffer_download(ctx, job->y, 0, y_host, y_bytes));
  out->bad_rows = check_result(a, ref, bound, y_host, out->name, &out->worst);
  if (tsb_time_events(stream, opt->warmup, opt->repeat, fn, job, &out->ms) != 0)
    return 1;
  TSB_TS_TRY(ctx, ts_context_sync(ctx));
  TSB_TS_TRY(ctx, ts_buffer_download(ctx, job->y, 0, y_host, y_bytes));
  out->bad_rows += check_result(a, ref, bound, y_host, out->name, &worst_after);
  if (worst_after > out->worst)
    out->worst = worst_after;
  out->ran = 1;
  return 0;
}

/* cuSPARSE on its own copy of A (int32 offsets and indices), sharing x and y. */
struct cusparse_matrix {
  void *row_ptr, *col_idx, *values;
};

static int upload_for_cusparse(const ts_csr *a, cusparse_matrix *m) {
  size_t v = ts_dtype_size(a->dtype);
  int32_t *offsets = (int32_t *)malloc((size_t)(a->rows + 1) * sizeof(int32_t));
  if (!offsets) {
    fprintf(stderr, "error: out of host memory\n");
    return 1;
  }
  for (int64_t i = 0; i <= a->rows; i++)
    offsets[i] = (int32_t)a->row_ptr[i];
  cudaError_t err = cudaMalloc(&m->row_ptr, (size_t)(a->rows + 1) * sizeof(int32_t));
  if (err == cudaSuccess)
    err = cudaMalloc(&m->col_idx, (size_t)a->nnz * sizeof(int32_t) + 4);
  if (err == cudaSuccess)
    err = cudaMalloc(&m->values, (size_t)a->nnz * v + 8);
  if (err == cudaSuccess)
    err = cudaMemcpy(m->row_ptr, offsets, (size_t)(a->rows + 1) * sizeof(int32_t), cudaMemcpyHostToDevice);
  if (err == cudaSuccess)
    err = cudaMemcpy(m->col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t), cudaMemcpyHostToDevice);
  if (err == cudaSuccess)
    err = cudaMemcpy(m->values, a->values, (size_t)a->nnz * v, cudaMemcpyHostToDevice);
  free(offsets);
  if (err != cudaSuccess) {
    fprintf(stderr, "error: uploading A for cuSPARSE: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}

static int prepare_cusparse(spmv_job *job, const ts_csr *a, const cusparse_matrix *m, cusparseSpMVAlg_t alg) {
  job->type = a->dtype == TS_FLOAT32 ? CUDA_R_32F : CUDA_R_64F;
  job->alg = alg;
  job->alpha32 = 1.0f;
  job->beta32 = 0.0f;
  job->alpha64 = 1.0;
  job->beta64 = 0.0;
  CUSPARSE_TRY(cusparseCreateCsr(&job->mat, a->rows, a->cols, a->nnz, m->row_ptr, m->col_idx, m->values,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, job->type));
  CUSPARSE_TRY(cusparseCreateDnVec(&job->vec_x, a->cols, ts_buffer_data(job->x), job->type));
  CUSPARSE_TRY(cusparseCreateDnVec(&job->vec_y, a->rows, ts_buffer_data(job->y), job->type));
  const void *alpha = job->type == CUDA_R_32F ? (const void *)&job->alpha32 : (const void *)&job->alpha64;
  const void *beta = job->type == CUDA_R_32F ? (const void *)&job->beta32 : (const void *)&job->beta64;
  size_t workspace_bytes = 0;
  CUSPARSE_TRY(cusparseSpMV_bufferSize(job->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, job->mat, job->vec_x, beta,
                                       job->vec_y, job->type, alg, &workspace_bytes));
  TSB_CUDA_TRY(cudaMalloc(&job->workspace, workspace_bytes > 0 ? workspace_bytes : 16));
  /* Done once per matrix, like a tessera plan: analysis stays out of the
   * timing. Optional: where this cuSPARSE refuses it, SpMV runs without. */
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

/* ---- one matrix in one value type ------------------------------------------------ */

/* Compulsory traffic with beta = 0: each value and column index once, int32
 * row offsets once, x once, y written once. */
static double compulsory_bytes(const ts_csr *a) {
  double v = (double)ts_dtype_size(a->dtype);
  return (double)a->nnz * (v + 4) + (double)(a->rows + 1) * 4 + (double)a->rows * v + (double)a->cols * v;
}

static void add_result_rows(tsb_table *t, const char *matrix, const ts_csr *a, const ts_csr_stats *stats,
                            const variant_result *results, int count, double copy_gbps, double *speed_of_first) {
  double alg1_ms = 0;
  for (int r = 0; r < count; r++)
    if (results[r].ran && strcmp(results[r].name, "cusparse_alg1") == 0)
      alg1_ms = results[r].ms.median;
  for (int r = 0; r < count; r++) {
    const variant_result *res = &results[r];
    if (!res->ran)
      continue;
    double gbps = tsb_gbps(compulsory_bytes(a), res->ms.median);
    double speed = alg1_ms > 0 && res->ms.median > 0 ? alg1_ms / res->ms.median : 0;
    if (r == 0 && speed_of_first)
      *speed_of_first = speed;
    tsb_table_cell(t, "%s", matrix);
    tsb_table_cell(t, "%s", a->dtype == TS_FLOAT32 ? "fp32" : "fp64");
    tsb_table_cell(t, "%lld", (long long)a->rows);
    tsb_table_cell(t, "%lld", (long long)a->nnz);
    tsb_table_cell(t, "%lld", (long long)stats->max_row);
    tsb_table_cell(t, "%.2f", stats->mean_row);
    tsb_table_cell(t, "%s", res->name);
    tsb_table_cell(t, "%.4f", res->ms.median);
    tsb_table_cell(t, "%.4f", res->ms.min);
    tsb_table_cell(t, "%.1f", gbps);
    tsb_table_cell(t, "%.1f", 100.0 * tsb_fraction_of(gbps, copy_gbps));
    tsb_table_cell(t, "%.3f", speed);
    tsb_table_cell(t, "%s", res->bad_rows ? "FAILED" : "ok");
    tsb_table_cell(t, "%.3g", res->worst);
  }
}

static int run_matrix(ts_context *ctx, cusparseHandle_t handle, const options *opt, const char *name, const ts_csr *a,
                      double copy_gbps, tsb_table *t, double *tessera_speed, int *check_failed) {
  int failed = 1;
  size_t v = ts_dtype_size(a->dtype);
  ts_csr_stats stats;
  void *x_host = malloc((size_t)a->cols * v + 8), *y_host = malloc((size_t)a->rows * v + 8);
  double *ref = (double *)malloc((size_t)a->rows * sizeof(double) + 8);
  double *bound = (double *)malloc((size_t)a->rows * sizeof(double) + 8);
  spmv_job job;
  cusparse_matrix m = {NULL, NULL, NULL};
  variant_result results[3];
  unsigned long long seed = 0x7e55e7a5ull;
  const cusparseSpMVAlg_t algs[2] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
  memset(&stats, 0, sizeof stats);
  memset(&job, 0, sizeof job);
  memset(results, 0, sizeof results);
  results[0].name = "tessera_csr_vector";
  results[1].name = "cusparse_alg1";
  results[2].name = "cusparse_alg2";
  job.handle = handle;
  if (!x_host || !y_host || !ref || !bound) {
    fprintf(stderr, "error: out of host memory for %s\n", name);
    goto cleanup;
  }
  if (ts_csr_stats_compute(ctx, a, &stats) != TS_SUCCESS) {
    fprintf(stderr, "error: ts_csr_stats_compute: %s\n", ts_last_error(ctx));
    goto cleanup;
  }
  /* x uniform in [-1, 1) (splitmix64): never zeros, which hide wrong indexing. */
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
  printf("  %s %s: %lld rows, %lld nnz, rows of %lld..%lld (mean %.2f)\n", name,
         a->dtype == TS_FLOAT32 ? "fp32" : "fp64", (long long)a->rows, (long long)a->nnz, (long long)stats.min_row,
         (long long)stats.max_row, stats.mean_row);
  fflush(stdout);

  if (ts_spmv_plan_create(ctx, a, &job.plan) != TS_SUCCESS ||
      ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)a->cols * v, &job.x) != TS_SUCCESS ||
      ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)a->rows * v, &job.y) != TS_SUCCESS ||
      ts_buffer_upload(ctx, job.x, 0, x_host, (size_t)a->cols * v) != TS_SUCCESS) {
    fprintf(stderr, "error: preparing %s: %s\n", name, ts_last_error(ctx));
    goto cleanup;
  }
  if (measure_variant(ctx, opt, a, ref, bound, y_host, &job, run_tessera, &results[0]) != 0)
    goto cleanup;

  if (upload_for_cusparse(a, &m) != 0)
    goto cleanup;
  for (int k = 0; k < 2; k++) {
    int bad = prepare_cusparse(&job, a, &m, algs[k]);
    if (!bad)
      bad = measure_variant(ctx, opt, a, ref, bound, y_host, &job, run_cusparse, &results[1 + k]);
    release_cusparse(&job);
    if (bad)
      goto cleanup;
  }
  failed = 0;

cleanup:
  add_result_rows(t, name, a, &stats, results, 3, copy_gbps, tessera_speed);
  for (int r = 0; r < 3; r++) {
    if (results[r].ran) {
      double gbps = tsb_gbps(compulsory_bytes(a), results[r].ms.median);
      printf("    %-20s %9.4f ms %8.1f GB/s %5.1f%% of copy  check %s\n", results[r].name, results[r].ms.median, gbps,
             100.0 * tsb_fraction_of(gbps, copy_gbps), results[r].bad_rows ? "FAILED" : "ok");
      if (results[r].bad_rows)
        *check_failed = 1;
    }
  }
  fflush(stdout);
  release_cusparse(&job);
  if (m.row_ptr)
    (void)cudaFree(m.row_ptr);
  if (m.col_idx)
    (void)cudaFree(m.col_idx);
  if (m.values)
    (void)cudaFree(m.values);
  ts_buffer_destroy(job.x);
  ts_buffer_destroy(job.y);
  ts_spmv_plan_destroy(job.plan);
  free(x_host);
  free(y_host);
  free(ref);
  free(bound);
  return failed;
}

/* fp32 copy of a fp64 matrix (same pattern, values rounded). */
static ts_status to_float32(ts_context *ctx, const ts_csr *a, ts_csr **out) {
  ts_status st = ts_csr_create(ctx, a->rows, a->cols, a->nnz, TS_FLOAT32, out);
  if (st != TS_SUCCESS)
    return st;
  memcpy((*out)->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
  memcpy((*out)->col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
  for (int64_t k = 0; k < a->nnz; k++)
    ((float *)(*out)->values)[k] = (float)((const double *)a->values)[k];
  return TS_SUCCESS;
}

/* ---- the matrices ---------------------------------------------------------------- */

struct matrix_spec {
  const char *name;
  int laplacian;   /* 1: 2-D Laplacian of side n; 0: power law */
  int64_t n;       /* side of the grid, or rows = cols */
  int64_t nnz;     /* power law: target entries */
  double exponent; /* power law: Zipf exponent */
};

static ts_status generate(ts_context *ctx, const matrix_spec *spec, ts_csr **a) {
  if (spec->laplacian)
    return ts_gen_laplacian_2d(ctx, spec->n, spec->n, TS_FLOAT64, a);
  return ts_gen_power_law(ctx, spec->n, spec->n, spec->nnz, spec->exponent, 20261129u, TS_FLOAT64, a);
}

static void usage(const char *argv0) {
  printf("usage: %s [--quick] [--only NAME] [--fp32|--fp64] [--warmup N] [--repeat N] [CSV_PATH]\n"
         "  matrices: laplacian2d_4096 (16.8 M rows, 84 M nnz), powerlaw_z0.9 (2^22 rows, 68.7 M nnz),\n"
         "            powerlaw_z1.2 (2^20 rows, 13.4 M nnz); --quick: 1/16 of the sizes (a check, not a figure)\n"
         "  CSV_PATH defaults to bench-out/spmv_foundation.csv\n",
         argv0);
}

int main(int argc, char **argv) {
  options opt = {"bench-out/spmv_foundation.csv", NULL, 0, 5, 30, 1, 1};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      opt.quick = 1;
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      opt.only = argv[++i];
    } else if (strcmp(argv[i], "--fp32") == 0) {
      opt.fp64 = 0;
    } else if (strcmp(argv[i], "--fp64") == 0) {
      opt.fp32 = 0;
    } else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) {
      opt.warmup = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      opt.repeat = atoi(argv[++i]);
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(argv[0]);
      return 0;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "error: unknown option %s\n", argv[i]);
      usage(argv[0]);
      return 2;
    } else {
      opt.csv_path = argv[i];
    }
  }
  if (opt.repeat < 1 || opt.warmup < 0) {
    fprintf(stderr, "error: --repeat must be >= 1 and --warmup >= 0\n");
    return 2;
  }
  const matrix_spec full[3] = {{"laplacian2d_4096", 1, 4096, 0, 0},
                               {"powerlaw_z0.9", 0, (int64_t)1 << 22, 68700000, 0.9},
                               {"powerlaw_z1.2", 0, (int64_t)1 << 20, 13400000, 1.2}};
  const matrix_spec quick[3] = {{"laplacian2d_1024", 1, 1024, 0, 0},
                                {"powerlaw_z0.9_quick", 0, (int64_t)1 << 18, 68700000 / 16, 0.9},
                                {"powerlaw_z1.2_quick", 0, (int64_t)1 << 16, 13400000 / 16, 1.2}};
  const matrix_spec *specs = opt.quick ? quick : full;

  ts_context_options ctx_options;
  memset(&ctx_options, 0, sizeof ctx_options);
  ctx_options.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &ctx_options) != TS_SUCCESS) {
    fprintf(stderr, "error: %s\n", ts_last_error(NULL));
    return 2;
  }
  int failed = 0, check_failed = 0;
  cusparseHandle_t handle = NULL;
  const char *columns[] = {"matrix",  "dtype",           "rows",   "nnz",  "max_row",     "mean_row",
                           "variant", "median_ms",       "min_ms", "gbps", "pct_of_copy", "speed_vs_alg1",
                           "check",   "max_err_over_tol"};
  tsb_table *t = tsb_table_create(14, columns);
  tsb_metadata meta;
  tsb_copy_bandwidth copy;
  double speeds[2][3] = {{0}};
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "timing", "median of %d CUDA-event timed calls after %d warm-up calls", opt.repeat,
                   opt.warmup);
  tsb_metadata_set(&meta, "traffic", "nnz*(value+4) + (rows+1)*4 + rows*value + cols*value bytes (beta = 0)");
  tsb_metadata_print(&meta, stdout, "# ");
  if (!t)
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
  for (int s = 0; s < 3 && !failed; s++) {
    if (opt.only && strcmp(opt.only, specs[s].name) != 0)
      continue;
    ts_csr *a64 = NULL, *a32 = NULL;
    double t0 = tsb_wall_seconds();
    if (generate(ctx, &specs[s], &a64) != TS_SUCCESS) {
      fprintf(stderr, "error: generating %s: %s\n", specs[s].name, ts_last_error(ctx));
      failed = 1;
      break;
    }
    printf("%s: generated in %.1f s\n", specs[s].name, tsb_wall_seconds() - t0);
    if (opt.fp32 && !failed) {
      if (to_float32(ctx, a64, &a32) != TS_SUCCESS) {
        fprintf(stderr, "error: fp32 copy of %s: %s\n", specs[s].name, ts_last_error(ctx));
        failed = 1;
      } else {
        failed = run_matrix(ctx, handle, &opt, specs[s].name, a32, copy.best_gbps, t, &speeds[0][s], &check_failed);
      }
    }
    if (opt.fp64 && !failed)
      failed = run_matrix(ctx, handle, &opt, specs[s].name, a64, copy.best_gbps, t, &speeds[1][s], &check_failed);
    ts_csr_destroy(a32);
    ts_csr_destroy(a64);
  }
  if (t && tsb_table_rows(t) > 0) {
    tsb_metadata_set(&meta, "geomean_speed_vs_alg1_fp32", "%.3f", tsb_geomean(speeds[0], 3));
    tsb_metadata_set(&meta, "geomean_speed_vs_alg1_fp64", "%.3f", tsb_geomean(speeds[1], 3));
    if (tsb_table_write_csv(t, &meta, opt.csv_path) != 0)
      failed = 1;
    printf("\n## SpMV: foundation kernel vs cuSPARSE%s\n\n", opt.quick ? " (quick sizes: not a measurement)" : "");
    tsb_table_print_markdown(t, &meta, stdout);
    printf("\nwrote %s\n", opt.csv_path);
  }
  if (handle)
    (void)cusparseDestroy(handle);
  tsb_table_destroy(t);
  ts_context_destroy(ctx);
  if (check_failed)
    fprintf(stderr, "spmv_foundation: a result did not match the reference\n");
  if (failed || check_failed) {
    fprintf(stderr, "spmv_foundation: FAILED\n");
    return 1;
  }
  return 0;
}
