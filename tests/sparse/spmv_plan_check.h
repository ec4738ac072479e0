/* Checks of an SpMV plan on any backend: y = alpha*op(A)*x + beta*y through
 * ts_spmv_plan_create_ex + ts_spmv_execute against a reference summed in
 * double over A's entries (so A^T's reference is built from A, not from a
 * transpose), y poisoned with NaN when beta = 0, and bitwise repeatability.
 *
 * Tolerance per output entry i (n_i terms in its sum): |y_i - ref_i| <=
 * 2 (n_i + 3) u (|alpha| (|op(A)||x|)_i + |beta| |y0_i|), u the unit
 * roundoff of the value type: the dot-product bound gamma_n of Higham
 * (Accuracy and Stability of Numerical Algorithms, 2nd ed., section 3.1),
 * which holds for any summation order, plus the roundings of alpha, beta and
 * the final add, with a factor 2 of margin. A row whose bound is 0 must be
 * exact; a NaN always fails. Used by test_spmv_plan (CPU) and
 * test_gpu_spmv_schedules (CUDA). */
#ifndef TESSERA_TEST_SPMV_PLAN_CHECK_H
#define TESSERA_TEST_SPMV_PLAN_CHECK_H

#include "test_common.h"

#include <float.h>
#include <stdbool.h>
#include <stdint.h>

static double spmv_check_value(const void *values, ts_dtype dtype, int64_t k) {
  return dtype == TS_FLOAT32 ? (double)((const float *)values)[k] : ((const double *)values)[k];
}

static void spmv_check_store(void *values, ts_dtype dtype, int64_t k, double v) {
  if (dtype == TS_FLOAT32)
    ((float *)values)[k] = (float)v;
  else
    ((double *)values)[k] = v;
}

/* What one plan run found. */
typedef struct spmv_check_result {
  int64_t bad;          /* entries outside the tolerance */
  int64_t not_repeated; /* runs whose y differed bitwise from the first */
  ts_schedule schedule; /* what the plan ran */
  int group_size;       /* its group size */
  int setup_failed;     /* a call failed before any check */
} spmv_check_result;

/*
 * Plan op(A) with @p options on @p ctx, then for each of the @p beta_count
 * betas run once and check (beta = 0: y poisoned with NaN; else y random);
 * with @p repeats > 1 also run the first beta that many times and compare
 * bitwise. x is random in [-1, 1), alpha = 1.5. Failures are counted as
 * CHECKs and printed with @p name.
 */
static spmv_check_result spmv_check_plan_betas(ts_context *ctx, const char *name, const ts_csr *a,
                                               const ts_spmv_options *options, const double *betas, int beta_count,
                                               int repeats, unsigned long long *seed) {
  spmv_check_result result;
  memset(&result, 0, sizeof result);
  const ts_dtype dtype = a->dtype;
  const bool transpose = options && options->op == TS_OP_TRANSPOSE;
  const int64_t out_n = transpose ? a->cols : a->rows, in_n = transpose ? a->rows : a->cols;
  const size_t vs = ts_dtype_size(dtype);
  const double alpha = 1.5;
  const double u = dtype == TS_FLOAT32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
  const char *op_name = transpose ? "A^T" : "A";

  void *x = malloc((size_t)in_n * vs + 8), *y = malloc((size_t)out_n * vs + 8);
  void *y0 = malloc((size_t)out_n * vs + 8), *first = malloc((size_t)out_n * vs + 8);
  double *ref = calloc((size_t)out_n + 1, sizeof(double)), *bound = calloc((size_t)out_n + 1, sizeof(double));
  int64_t *terms = calloc((size_t)out_n + 1, sizeof(int64_t));
  ts_spmv_plan *plan = NULL;
  ts_buffer *xb = NULL, *yb = NULL;
  ts_status st = TS_SUCCESS;
  if (!x || !y || !y0 || !first || !ref || !bound || !terms) {
    CHECK_MSG(0, "%s: out of host memory", name);
    result.setup_failed = 1;
    goto cleanup;
  }
  for (int64_t j = 0; j < in_n; j++)
    spmv_check_store(x, dtype, j, test_random(seed));
  for (int64_t i = 0; i < out_n; i++)
    spmv_check_store(y0, dtype, i, test_random(seed));
  /* The reference over A's entries: (i, j, v) adds v x_j to y_i, or v x_i to y_j for A^T. */
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      int64_t j = a->col_idx[k];
      int64_t out = transpose ? j : i, in = transpose ? i : j;
      double p = spmv_check_value(a->values, dtype, k) * spmv_check_value(x, dtype, in);
      ref[out] += p;
      bound[out] += fabs(p);
      terms[out]++;
    }

  st = ts_spmv_plan_create_ex(ctx, a, options, &plan);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)in_n * vs, &xb);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)out_n * vs, &yb);
  if (st == TS_SUCCESS && in_n > 0)
    st = ts_buffer_upload(ctx, xb, 0, x, (size_t)in_n * vs);
  CHECK_MSG(st == TS_SUCCESS, "%s %s: setup: %s: %s", name, op_name, ts_status_string(st), ts_last_error(ctx));
  if (st != TS_SUCCESS) {
    result.setup_failed = 1;
    goto cleanup;
  }
  result.schedule = ts_spmv_plan_schedule(plan);
  result.group_size = ts_spmv_plan_group_size(plan);
  CHECK_MSG(result.schedule != TS_SCHEDULE_AUTO, "%s: the plan reports AUTO", name);

  for (int b = 0; b < beta_count; b++) {
    double beta = betas[b];
    if (out_n > 0) {
      if (beta == 0.0)
        st = ts_buffer_fill_bytes(ctx, yb, 0xFF); /* NaN in either type: must not leak into y */
      else
        st = ts_buffer_upload(ctx, yb, 0, y0, (size_t)out_n * vs);
    }
    if (st == TS_SUCCESS)
      st = ts_spmv_execute(plan, alpha, xb, beta, yb);
    if (st == TS_SUCCESS)
      st = ts_context_sync(ctx);
    if (st == TS_SUCCESS && out_n > 0)
      st = ts_buffer_download(ctx, yb, 0, y, (size_t)out_n * vs);
    CHECK_MSG(st == TS_SUCCESS, "%s %s %s beta %g: %s: %s", name, op_name, ts_schedule_name(result.schedule), beta,
              ts_status_string(st), ts_last_error(ctx));
    if (st != TS_SUCCESS) {
      result.bad++;
      goto cleanup;
    }
    int64_t bad = 0;
    for (int64_t i = 0; i < out_n; i++) {
      double start = spmv_check_value(y0, dtype, i);
      double want = alpha * ref[i] + beta * start;
      double scale = fabs(alpha) * bound[i] + fabs(beta) * fabs(start);
      double tol = 2.0 * (double)(terms[i] + 3) * u * scale;
      double got = spmv_check_value(y, dtype, i);
      if (!(fabs(got - want) <= tol)) {
        if (bad < 3)
          fprintf(stderr, "%s %s %s group %d %s beta %g: y[%lld] = %.17g, want %.17g (tolerance %.3g, %lld terms)\n",
                  name, op_name, ts_schedule_name(result.schedule), result.group_size,
                  dtype == TS_FLOAT32 ? "fp32" : "fp64", beta, (long long)i, got, want, tol, (long long)terms[i]);
        bad++;
      }
    }
    CHECK_MSG(bad == 0, "%s %s %s: %lld of %lld entries wrong (beta %g)", name, op_name,
              ts_schedule_name(result.schedule), (long long)bad, (long long)out_n, beta);
    result.bad += bad;
    if (b == 0 && out_n > 0)
      memcpy(first, y, (size_t)out_n * vs);
  }

  /* Bitwise repeatability: the same inputs give the same bits. */
  for (int r = 1; r < repeats && beta_count > 0 && out_n > 0; r++) {
    if (betas[0] == 0.0)
      st = ts_buffer_fill_bytes(ctx, yb, 0xFF);
    else
      st = ts_buffer_upload(ctx, yb, 0, y0, (size_t)out_n * vs);
    if (st == TS_SUCCESS)
      st = ts_spmv_execute(plan, alpha, xb, betas[0], yb);
    if (st == TS_SUCCESS)
      st = ts_buffer_download(ctx, yb, 0, y, (size_t)out_n * vs);
    CHECK_MSG(st == TS_SUCCESS, "%s %s repeat %d: %s", name, op_name, r, ts_last_error(ctx));
    if (st != TS_SUCCESS)
      break;
    if (memcmp(first, y, (size_t)out_n * vs) != 0)
      result.not_repeated++;
  }
  if (repeats > 1)
    CHECK_MSG(result.not_repeated == 0, "%s %s %s group %d: %lld of %d runs differ bitwise from the first", name,
              op_name, ts_schedule_name(result.schedule), result.group_size, (long long)result.not_repeated,
              repeats - 1);

cleanup:
  ts_buffer_destroy(xb);
  ts_buffer_destroy(yb);
  ts_spmv_plan_destroy(plan);
  free(x);
  free(y);
  free(y0);
  free(first);
  free(ref);
  free(bound);
  free(terms);
  return result;
}

/* spmv_check_plan_betas() with beta = 0 (y poisoned with NaN) and beta = -0.75. */
static inline spmv_check_result spmv_check_plan(ts_context *ctx, const char *name, const ts_csr *a,
                                                const ts_spmv_options *options, int repeats, unsigned long long *seed) {
  static const double betas[2] = {0.0, -0.75};
  return spmv_check_plan_betas(ctx, name, a, options, betas, 2, repeats, seed);
}

/* A general CSR from a Matrix Market file of the corpus: read, expand
 * symmetric storage, convert (duplicates summed). NULL on failure (checked). */
static ts_csr *spmv_check_read_corpus(const char *dir, const char *name, ts_dtype dtype) {
  char path[4096];
  int length = snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
  CHECK_MSG(length > 0 && (size_t)length < sizeof path, "%s: path too long", name);
  if (length <= 0 || (size_t)length >= sizeof path)
    return NULL;
  ts_csr *a = NULL;
  ts_status st = ts_mm_read_csr(NULL, path, dtype, &a, NULL);
  CHECK_MSG(st == TS_SUCCESS, "%s: %s", name, ts_last_error(NULL));
  return a;
}

/* Names of the corpus matrices in MANIFEST.tsv order; returns the count
 * (at most @p capacity), 0 when the corpus is absent. */
static inline int spmv_check_corpus_names(const char *dir, char names[][128], int capacity) {
  char path[4096], line[8192];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  int count = 0;
  while (manifest && count < capacity && fgets(line, sizeof line, manifest)) {
    char name[128];
    if (sscanf(line, "%127[^\t]", name) != 1 || strcmp(name, "name") == 0)
      continue;
    memcpy(names[count++], name, sizeof name);
  }
  if (manifest)
    fclose(manifest);
  return count;
}

/* One corpus matrix as MANIFEST.tsv describes it (nnz as stored: half of a
 * symmetric matrix). */
typedef struct spmv_check_corpus_entry {
  char name[128];
  long long rows, cols, nnz;
} spmv_check_corpus_entry;

/* The corpus in MANIFEST.tsv order with sizes; returns the count (at most
 * @p capacity), 0 when the corpus is absent. */
static inline int spmv_check_corpus_list(const char *dir, spmv_check_corpus_entry *entries, int capacity) {
  char path[4096], line[8192];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  int count = 0;
  while (manifest && count < capacity && fgets(line, sizeof line, manifest)) {
    spmv_check_corpus_entry e;
    if (sscanf(line, "%127[^\t]\t%lld\t%lld\t%lld", e.name, &e.rows, &e.cols, &e.nnz) != 4)
      continue; /* the header, or a line without sizes */
    entries[count++] = e;
  }
  if (manifest)
    fclose(manifest);
  return count;
}

#endif
