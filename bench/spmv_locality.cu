/* SpMV's locality layouts (ts_spmv_options.locality) on graphs and
 * power-law rows, against cuSPARSE CSR ALG1 in the same process on the same
 * data: R-MAT scales 20-23 (Graph500 parameters, edge factor 16) and the
 * power-law set of spmv_schedules (Zipf 0.9 and 1.2 row lengths, uniform
 * columns), float and double. Per matrix: tessera's AUTO schedule with no
 * layout, with each layout, and with the AUTO layout; each result checked
 * against a host reference in double and for bitwise repeatability; the
 * median time of CUDA-event timed calls; the plan's time and its cost in
 * SpMV calls (plan time over one call). The copy bandwidth is measured in the
 * same run. Output: a CSV and a Markdown summary. */
#include "tsb_cuda.h"

#include <cusparse.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CUSPARSE_CHECK(call)                                                                                           \
  do {                                                                                                                 \
    cusparseStatus_t st_ = (call);                                                                                     \
    if (st_ != CUSPARSE_STATUS_SUCCESS) {                                                                              \
      fprintf(stderr, "%s:%d: cuSPARSE error: %s: %s\n", __FILE__, __LINE__, #call, cusparseGetErrorString(st_));      \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

#define SEED 20261129u
#define WARMUP 3
#define REPEAT 20

typedef struct matrix_spec {
  const char *name;
  bool rmat;
  int64_t rows, nnz; /* power law; R-MAT: rows = scale */
  double exponent;
} matrix_spec;

static const matrix_spec specs[] = {
    {"rmat_20", true, 20, 16, 0},
    {"rmat_21", true, 21, 16, 0},
    {"rmat_22", true, 22, 16, 0},
    {"rmat_23", true, 23, 16, 0},
    {"powerlaw_z0.9_2^18", false, 1 << 18, 4300000, 0.9},
    {"powerlaw_z1.2_2^16", false, 1 << 16, 840000, 1.2},
    {"powerlaw_z0.9", false, 1 << 22, 68700000, 0.9},
    {"powerlaw_z1.2", false, 1 << 20, 13400000, 1.2},
};
#define SPECS ((int)(sizeof specs / sizeof specs[0]))

enum { V_NONE, V_SEGMENTED, V_HOT, V_BOTH, V_AUTO, V_ALG1, V_COUNT };
static const char *const variant_names[V_COUNT] = {"none", "segmented", "hot", "both", "auto", "cusparse_alg1"};
static const char *const layout_names[] = {"none", "segmented", "hot", "both", "auto"};

typedef struct result {
  char matrix[48];
  ts_dtype dtype;
  int64_t rows, nnz;
  bool ran[V_COUNT], ok[V_COUNT], repeatable[V_COUNT];
  double ms[V_COUNT], plan_ms[V_COUNT];
  int resolved[V_COUNT];
  char explain[V_COUNT][400];
} result;

typedef struct job {
  ts_spmv_plan *plan;
  ts_buffer *x, *y;
  cusparseHandle_t handle;
  cusparseSpMatDescr_t mat;
  cusparseDnVecDescr_t vx, vy;
  cudaDataType type;
  void *workspace;
} job;

static int run_tessera(void *user, void *stream) {
  (void)stream;
  job *j = (job *)user;
  return ts_spmv_execute(j->plan, 1.0, j->x, 0.0, j->y) == TS_SUCCESS ? 0 : 1;
}

static int run_alg1(void *user, void *stream) {
  (void)stream;
  job *j = (job *)user;
  const float one32 = 1.0f, zero32 = 0.0f;
  const double one64 = 1.0, zero64 = 0.0;
  const bool f = j->type == CUDA_R_32F;
  CUSPARSE_CHECK(cusparseSpMV(j->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, f ? (const void *)&one32 : &one64, j->mat,
                              j->vx, f ? (const void *)&zero32 : &zero64, j->vy, j->type, CUSPARSE_SPMV_CSR_ALG1,
                              j->workspace));
  return 0;
}

/* Compulsory bytes: values and indices once, offsets, x once, y written. */
static double bytes_of(const ts_csr *a) {
  const double v = (double)ts_dtype_size(a->dtype);
  return (double)a->nnz * (v + 4) + (double)(a->rows + 1) * 4 + (double)a->cols * v + (double)a->rows * v;
}

/* Rows outside |y - y_ref| <= u (16 sqrt(len) + 16) sum |a x|. */
static int64_t check(const ts_csr *a, const double *ref, const double *bound, const void *y) {
  const double u = a->dtype == TS_FLOAT32 ? 5.96e-8 : 1.11e-16;
  int64_t bad = 0;
  for (int64_t i = 0; i < a->rows; i++) {
    const double len = (double)(a->row_ptr[i + 1] - a->row_ptr[i]);
    const double got = a->dtype == TS_FLOAT32 ? (double)((const float *)y)[i] : ((const double *)y)[i];
    if (!(fabs(got - ref[i]) <= u * (16.0 * sqrt(len) + 16.0) * bound[i] + 1e-300))
      bad++;
  }
  return bad;
}

/* Check (twice, for the same bits) and time one variant. */
static int measure(ts_context *ctx, const ts_csr *a, const double *ref, const double *bound, job *j, tsb_work_fn fn,
                   void *y1, void *y2, double *ms, bool *ok, bool *repeatable) {
  const size_t bytes = (size_t)a->rows * ts_dtype_size(a->dtype);
  for (int run = 0; run < 2; run++) {
    TSB_TS_TRY(ctx, ts_buffer_fill_bytes(ctx, j->y, 0xFF));
    if (fn(j, ts_context_stream(ctx)) != 0)
      return 1;
    TSB_TS_TRY(ctx, ts_buffer_download(ctx, j->y, 0, run ? y2 : y1, bytes));
  }
  *ok = check(a, ref, bound, y1) == 0;
  *repeatable = memcmp(y1, y2, bytes) == 0;
  tsb_stats stats;
  if (tsb_time_events(ts_context_stream(ctx), WARMUP, REPEAT, fn, j, &stats) != 0)
    return 1;
  *ms = stats.median;
  return 0;
}

static int run_matrix(ts_context *ctx, cusparseHandle_t handle, const ts_csr *a, const char *name, result *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->matrix, sizeof r->matrix, "%s", name);
  r->dtype = a->dtype;
  r->rows = a->rows;
  r->nnz = a->nnz;
  const size_t v = ts_dtype_size(a->dtype);
  double *xd = (double *)malloc((size_t)a->cols * sizeof(double));
  double *ref = (double *)calloc((size_t)a->rows, sizeof(double)),
         *bound = (double *)calloc((size_t)a->rows, sizeof(double));
  void *xh = malloc((size_t)a->cols * v), *y1 = malloc((size_t)a->rows * v), *y2 = malloc((size_t)a->rows * v);
  if (!xd || !ref || !bound || !xh || !y1 || !y2)
    return 1;
  unsigned long long state = SEED;
  for (int64_t j = 0; j < a->cols; j++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double x = (double)(state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    if (a->dtype == TS_FLOAT32) {
      ((float *)xh)[j] = (float)x;
      xd[j] = (double)(float)x;
    } else {
      ((double *)xh)[j] = x;
      xd[j] = x;
    }
  }
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      const double av = a->dtype == TS_FLOAT32 ? (double)((const float *)a->values)[k] : ((const double *)a->values)[k];
      ref[i] += av * xd[a->col_idx[k]];
      bound[i] += fabs(av * xd[a->col_idx[k]]);
    }
  job j;
  memset(&j, 0, sizeof j);
  TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)a->cols * v, &j.x));
  TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)a->rows * v, &j.y));
  TSB_TS_TRY(ctx, ts_buffer_upload(ctx, j.x, 0, xh, (size_t)a->cols * v));
  int failed = 0;
  for (int k = V_NONE; k <= V_AUTO && !failed; k++) {
    ts_spmv_options o;
    memset(&o, 0, sizeof o);
    o.locality = (ts_spmv_locality)k;
    const double t0 = tsb_wall_seconds();
    TSB_TS_TRY(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &j.plan));
    TSB_TS_TRY(ctx, ts_context_sync(ctx));
    r->plan_ms[k] = 1e3 * (tsb_wall_seconds() - t0);
    r->resolved[k] = (int)ts_spmv_plan_locality(j.plan);
    snprintf(r->explain[k], sizeof r->explain[k], "%s", ts_spmv_plan_explain(j.plan));
    failed = measure(ctx, a, ref, bound, &j, run_tessera, y1, y2, &r->ms[k], &r->ok[k], &r->repeatable[k]);
    r->ran[k] = !failed;
    ts_spmv_plan_destroy(j.plan);
    j.plan = NULL;
  }
  /* cuSPARSE ALG1 on its own int32 copy of A. */
  void *rp = NULL, *ci = NULL, *vals = NULL;
  int32_t *offsets = (int32_t *)malloc((size_t)(a->rows + 1) * sizeof(int32_t));
  for (int64_t i = 0; offsets && i <= a->rows; i++)
    offsets[i] = (int32_t)a->row_ptr[i];
  TSB_CUDA_TRY(cudaMalloc(&rp, (size_t)(a->rows + 1) * 4));
  TSB_CUDA_TRY(cudaMalloc(&ci, (size_t)a->nnz * 4 + 4));
  TSB_CUDA_TRY(cudaMalloc(&vals, (size_t)a->nnz * v + 8));
  TSB_CUDA_TRY(cudaMemcpy(rp, offsets, (size_t)(a->rows + 1) * 4, cudaMemcpyHostToDevice));
  TSB_CUDA_TRY(cudaMemcpy(ci, a->col_idx, (size_t)a->nnz * 4, cudaMemcpyHostToDevice));
  TSB_CUDA_TRY(cudaMemcpy(vals, a->values, (size_t)a->nnz * v, cudaMemcpyHostToDevice));
  j.handle = handle;
  j.type = a->dtype == TS_FLOAT32 ? CUDA_R_32F : CUDA_R_64F;
  CUSPARSE_CHECK(cusparseCreateCsr(&j.mat, a->rows, a->cols, a->nnz, rp, ci, vals, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, j.type));
  CUSPARSE_CHECK(cusparseCreateDnVec(&j.vx, a->cols, ts_buffer_data(j.x), j.type));
  CUSPARSE_CHECK(cusparseCreateDnVec(&j.vy, a->rows, ts_buffer_data(j.y), j.type));
  const float one32 = 1.0f, zero32 = 0.0f;
  const double one64 = 1.0, zero64 = 0.0;
  const bool f = j.type == CUDA_R_32F;
  size_t wbytes = 0;
  CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, f ? (const void *)&one32 : &one64,
                                         j.mat, j.vx, f ? (const void *)&zero32 : &zero64, j.vy, j.type,
                                         CUSPARSE_SPMV_CSR_ALG1, &wbytes));
  TSB_CUDA_TRY(cudaMalloc(&j.workspace, wbytes > 0 ? wbytes : 16));
  (void)cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, f ? (const void *)&one32 : &one64, j.mat,
                                j.vx, f ? (const void *)&zero32 : &zero64, j.vy, j.type, CUSPARSE_SPMV_CSR_ALG1,
                                j.workspace);
  if (!failed)
    failed = measure(ctx, a, ref, bound, &j, run_alg1, y1, y2, &r->ms[V_ALG1], &r->ok[V_ALG1], &r->repeatable[V_ALG1]);
  r->ran[V_ALG1] = !failed;
  cusparseDestroySpMat(j.mat);
  cusparseDestroyDnVec(j.vx);
  cusparseDestroyDnVec(j.vy);
  cudaFree(j.workspace);
  cudaFree(rp);
  cudaFree(ci);
  cudaFree(vals);
  free(offsets);
  ts_buffer_destroy(j.x);
  ts_buffer_destroy(j.y);
  free(xd);
  free(ref);
  free(bound);
  free(xh);
  free(y1);
  free(y2);
  return failed;
}

static FILE *md_file;
#define md(...) tsb_tee(md_file, __VA_ARGS__)

/* The CSV of the results so far (rewritten after each matrix, so that a run
 * cut short keeps what it measured). */
static int write_csv(const result *results, int count, const tsb_metadata *meta, const char *csv_path) {
  static const char *const columns[] = {"matrix",     "dtype",  "rows",           "nnz",     "variant",       "layout",
                                        "ms",         "gbps",   "alg1_over_this", "plan_ms", "plan_in_calls", "checked",
                                        "repeatable", "explain"};
  tsb_table *table = tsb_table_create(14, columns);
  for (int i = 0; i < count && table; i++) {
    const result *r = &results[i];
    for (int k = 0; k < V_COUNT; k++) {
      if (!r->ran[k])
        continue;
      ts_csr shape;
      memset(&shape, 0, sizeof shape);
      shape.rows = shape.cols = r->rows;
      shape.nnz = r->nnz;
      shape.dtype = r->dtype;
      tsb_table_cell(table, "%s", r->matrix);
      tsb_table_cell(table, "%s", r->dtype == TS_FLOAT32 ? "fp32" : "fp64");
      tsb_table_cell(table, "%lld", (long long)r->rows);
      tsb_table_cell(table, "%lld", (long long)r->nnz);
      tsb_table_cell(table, "%s", variant_names[k]);
      tsb_table_cell(table, "%s", k < V_ALG1 ? layout_names[r->resolved[k]] : "-");
      tsb_table_cell(table, "%.5g", r->ms[k]);
      tsb_table_cell(table, "%.1f", tsb_gbps(bytes_of(&shape), r->ms[k]));
      tsb_table_cell(table, "%.3f", r->ms[V_ALG1] / r->ms[k]);
      tsb_table_cell(table, "%.1f", k < V_ALG1 ? r->plan_ms[k] : 0.0);
      tsb_table_cell(table, "%.0f", k < V_ALG1 ? r->plan_ms[k] / r->ms[k] : 0.0);
      tsb_table_cell(table, "%s", r->ok[k] ? "yes" : "FAILED");
      tsb_table_cell(table, "%s", r->repeatable[k] ? "yes" : "NO");
      tsb_table_cell(table, "%s", k < V_ALG1 ? r->explain[k] : "");
    }
  }
  const int failed = !table || tsb_table_write_csv(table, meta, csv_path) != 0;
  tsb_table_destroy(table);
  return failed;
}

int main(int argc, char **argv) {
  const char *csv_path = "bench-out/spmv_locality.csv", *only = NULL;
  bool quick = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      int code = tsb_option_or_path(argv[0], argv[i], "[--quick] [--only NAME[,NAME*...]] [CSV_PATH]");
      if (code >= 0)
        return code;
      csv_path = argv[i];
    }
  }
  ts_context_options co;
  memset(&co, 0, sizeof co);
  co.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  ts_status created = ts_context_create(&ctx, &co);
  if (created == TS_ERROR_NO_DEVICE) {
    printf("SKIPPED: %s\n", ts_last_error(NULL));
    return 77;
  }
  if (created != TS_SUCCESS)
    return fprintf(stderr, "error: %s\n", ts_last_error(NULL)), 2;
  cusparseHandle_t handle = NULL;
  CUSPARSE_CHECK(cusparseCreate(&handle));
  CUSPARSE_CHECK(cusparseSetStream(handle, (cudaStream_t)ts_context_stream(ctx)));
  tsb_copy_bandwidth copy;
  if (tsb_measure_copy_bandwidth(ts_context_stream(ctx), 0, 10, &copy) != 0)
    return 1;
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "copy_gbps", "%.0f", copy.best_gbps);
  tsb_metadata_set(&meta, "timing", "median of %d CUDA-event timed calls after %d warm-up calls, alpha 1, beta 0",
                   REPEAT, WARMUP);

  result *results = (result *)calloc(2 * SPECS, sizeof(result));
  int count = 0, failed = 0;
  for (int s = 0; s < SPECS; s++) {
    if (!tsb_name_selected(only, specs[s].name))
      continue;
    for (int d = 0; d < 2; d++) {
      const ts_dtype dtype = d ? TS_FLOAT64 : TS_FLOAT32;
      ts_csr *a = NULL;
      ts_status st;
      if (specs[s].rmat) {
        ts_rmat_params p = ts_rmat_graph500((int)specs[s].rows - (quick ? 6 : 0), (int)specs[s].nnz);
        st = ts_gen_rmat(NULL, &p, SEED, dtype, &a);
      } else {
        const int64_t div = quick ? 16 : 1;
        st = ts_gen_power_law(NULL, specs[s].rows / div, specs[s].rows / div, specs[s].nnz / div, specs[s].exponent,
                              SEED, dtype, &a);
      }
      if (st != TS_SUCCESS) {
        fprintf(stderr, "error: generating %s: %s\n", specs[s].name, ts_last_error(NULL));
        failed = 1;
        continue;
      }
      if (run_matrix(ctx, handle, a, specs[s].name, &results[count]) != 0) {
        failed = 1;
      } else {
        const result *r = &results[count];
        printf("%s %s: none %.4g ms, segmented %.4g, hot %.4g, both %.4g, auto %.4g, ALG1 %.4g\n", r->matrix,
               d ? "fp64" : "fp32", r->ms[V_NONE], r->ms[V_SEGMENTED], r->ms[V_HOT], r->ms[V_BOTH], r->ms[V_AUTO],
               r->ms[V_ALG1]);
        for (int k = 0; k < V_COUNT; k++)
          if (r->ran[k] && (!r->ok[k] || !r->repeatable[k]))
            failed = 1;
        count++;
      }
      fflush(stdout);
      ts_csr_destroy(a);
      failed |= write_csv(results, count, &meta, csv_path);
    }
  }

  failed |= write_csv(results, count, &meta, csv_path);

  char md_path[4096];
  tsb_markdown_path(csv_path, md_path, sizeof md_path);
  if (tsb_make_parent_dirs(md_path) == 0)
    md_file = fopen(md_path, "w");
  md("# SpMV locality layouts against cuSPARSE ALG1\n\n");
  for (int i = 0; i < meta.count; i++)
    md("- %s: %s\n", meta.key[i], meta.value[i]);
  md("\nSpeed over ALG1 (ALG1's time over this one; above 1 is faster); the plan's cost in calls of the layout "
     "chosen by AUTO.\n\n| matrix | dtype | nnz | none | segmented | hot | both | auto (layout) | ALG1 ms | auto plan, "
     "calls |\n|---|---|---|---|---|---|---|---|---|---|\n");
  double logs[2][2] = {{0, 0}, {0, 0}};
  int counts[2][2] = {{0, 0}, {0, 0}};
  for (int i = 0; i < count; i++) {
    const result *r = &results[i];
    const double alg1 = r->ms[V_ALG1];
    md("| %s | %s | %lld | %.2f | %.2f | %.2f | %.2f | %.2f (%s) | %.4g | %.0f |\n", r->matrix,
       r->dtype == TS_FLOAT32 ? "fp32" : "fp64", (long long)r->nnz, alg1 / r->ms[V_NONE], alg1 / r->ms[V_SEGMENTED],
       alg1 / r->ms[V_HOT], alg1 / r->ms[V_BOTH], alg1 / r->ms[V_AUTO], layout_names[r->resolved[V_AUTO]], alg1,
       r->plan_ms[V_AUTO] / r->ms[V_AUTO]);
    const int set = strncmp(r->matrix, "rmat", 4) == 0 ? 0 : 1, d = r->dtype == TS_FLOAT64;
    logs[set][d] += log(alg1 / r->ms[V_AUTO]);
    counts[set][d]++;
  }
  md("\nGeomean of AUTO over ALG1: R-MAT fp32 %.3f, fp64 %.3f; power-law fp32 %.3f, fp64 %.3f (goal: at least 1.0 "
     "on each).\n",
     counts[0][0] ? exp(logs[0][0] / counts[0][0]) : 0.0, counts[0][1] ? exp(logs[0][1] / counts[0][1]) : 0.0,
     counts[1][0] ? exp(logs[1][0] / counts[1][0]) : 0.0, counts[1][1] ? exp(logs[1][1] / counts[1][1]) : 0.0);
  if (md_file)
    fclose(md_file);
  free(results);
  cusparseDestroy(handle);
  ts_context_destroy(ctx);
  return failed;
}
