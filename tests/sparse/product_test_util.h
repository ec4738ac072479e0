/* Helpers of the SpMM and SpGEMM tests: generated CSR matrices (random,
 * with chosen row lengths; one long row; empty), conversions between value
 * types, values of either type read and written as double, dense operands in
 * either layout, and the naive double-precision SpMM reference with its
 * error bound. Independent of the code under test: the reference walks A's
 * entries with a plain double loop. */
#ifndef TESSERA_TEST_PRODUCT_UTIL_H
#define TESSERA_TEST_PRODUCT_UTIL_H

#include "test_common.h"

#include <float.h>
#include <stdbool.h>
#include <stdint.h>

static inline double pt_get(const void *p, ts_dtype dtype, int64_t i) {
  return dtype == TS_FLOAT32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

static inline void pt_set(void *p, ts_dtype dtype, int64_t i, double v) {
  if (dtype == TS_FLOAT32)
    ((float *)p)[i] = (float)v;
  else
    ((double *)p)[i] = v;
}

/* Entries [0, count) of a dense operand: random from *state, in order, or all
 * NaN (then no random number is drawn). */
static inline void pt_fill_random(void *p, ts_dtype dtype, int64_t count, bool nan, unsigned long long *state) {
  for (int64_t e = 0; e < count; e++)
    pt_set(p, dtype, e, nan ? NAN : test_random(state));
}

static inline ts_context *pt_cpu_context(int threads) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  options.num_threads = threads;
  ts_context *ctx = NULL;
  (void)ts_context_create(&ctx, &options);
  return ctx;
}

/* A CUDA context, or NULL after printing why none is usable. */
static inline ts_context *pt_gpu_context(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &options) != TS_SUCCESS)
    fprintf(stderr, "%s\n", ts_last_error(NULL));
  return ctx;
}

/* What a GPU test runs: everything, compute-sanitizer's smaller selection,
 * or racecheck's (TESSERA_UNDER_SANITIZER names the tool). */
typedef enum { RUN_FULL, RUN_SANITIZER, RUN_RACECHECK } run_mode;

static inline run_mode pt_run_mode(void) {
  const char *tool = getenv("TESSERA_UNDER_SANITIZER");
  return !tool || !*tool ? RUN_FULL : strcmp(tool, "racecheck") == 0 ? RUN_RACECHECK : RUN_SANITIZER;
}

/* Random CSR: row i draws lengths[i % nlengths] columns uniformly with
 * replacement (repeats merge, so a row may come out shorter; a row asking
 * for more than cols takes every column), values in [-1, 1) rounded to the
 * type, summed where columns repeat. Built through COO. */
static inline ts_csr *pt_random_csr(int64_t rows, int64_t cols, const int64_t *lengths, int nlengths, ts_dtype dtype,
                                    unsigned long long *state) {
  int64_t draws = 0;
  for (int64_t i = 0; i < rows; i++)
    draws += lengths[i % nlengths] < cols ? lengths[i % nlengths] : cols;
  ts_coo *coo = NULL;
  ts_csr *a = NULL;
  if (ts_coo_create(NULL, rows, cols, draws, dtype, &coo) != TS_SUCCESS)
    return NULL;
  for (int64_t i = 0; i < rows; i++) {
    const int64_t len = lengths[i % nlengths];
    for (int64_t n = 0; n < len && n < cols; n++) {
      int64_t j = len >= cols ? n : (int64_t)((test_random(state) + 1.0) * 0.5 * (double)cols);
      coo->row_idx[coo->nnz] = (int32_t)i;
      coo->col_idx[coo->nnz] = (int32_t)(j < cols ? j : cols - 1);
      pt_set(coo->values, dtype, coo->nnz, test_random(state));
      coo->nnz++;
    }
  }
  if (ts_csr_from_coo(NULL, coo, TS_DUPLICATES_SUM, &a) != TS_SUCCESS)
    a = NULL;
  ts_coo_destroy(coo);
  return a;
}

/* The same matrix in another value type (values rounded to it). */
static inline ts_csr *pt_convert(const ts_csr *a, ts_dtype dtype) {
  ts_csr *w = NULL;
  if (ts_csr_create(NULL, a->rows, a->cols, a->nnz, dtype, &w) != TS_SUCCESS)
    return NULL;
  memcpy(w->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
  if (a->nnz > 0)
    memcpy(w->col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
  for (int64_t k = 0; k < a->nnz; k++)
    pt_set(w->values, dtype, k, pt_get(a->values, a->dtype, k));
  return w;
}

/* ---- dense operands ---------------------------------------------------------------- */

/* A dense rows x cols operand in a layout (ld = 0: packed). */
typedef struct pt_dense {
  int64_t rows, cols, ld;
  ts_layout layout;
  int64_t elements; /* span from the first entry to one past the last */
} pt_dense;

static inline pt_dense pt_dense_of(int64_t rows, int64_t cols, ts_layout layout, int64_t ld) {
  pt_dense d;
  d.rows = rows;
  d.cols = cols;
  d.layout = layout;
  int64_t minor = layout == TS_LAYOUT_ROW_MAJOR ? cols : rows, major = layout == TS_LAYOUT_ROW_MAJOR ? rows : cols;
  d.ld = ld > 0 ? ld : (minor > 0 ? minor : 1);
  d.elements = major > 0 && minor > 0 ? (major - 1) * d.ld + minor : 0;
  return d;
}

static inline int64_t pt_index(const pt_dense *d, int64_t i, int64_t j) {
  return d->layout == TS_LAYOUT_ROW_MAJOR ? i * d->ld + j : i + j * d->ld;
}

/* ---- the SpMM reference ------------------------------------------------------------ */

/* ref = A * B and bound = |A| |B| entrywise, rows x width, row-major, in
 * double, from A's entries and B's values read in B's own type. */
static inline void pt_spmm_reference(const ts_csr *a, const void *b, const pt_dense *bd, ts_dtype dtype, double *ref,
                                     double *bound) {
  const int64_t width = bd->cols;
  for (int64_t i = 0; i < a->rows; i++) {
    for (int64_t j = 0; j < width; j++) {
      ref[i * width + j] = 0;
      bound[i * width + j] = 0;
    }
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      const double v = pt_get(a->values, a->dtype, k);
      const int64_t col = a->col_idx[k];
      for (int64_t j = 0; j < width; j++) {
        const double p = v * pt_get(b, dtype, pt_index(bd, col, j));
        ref[i * width + j] += p;
        bound[i * width + j] += fabs(p);
      }
    }
  }
}

/*
 * Entries of C (in C's layout) outside alpha*ref + beta*c_in within
 * 2 gamma_(n+2) (|alpha| bound + |beta c_in|) (Higham, Accuracy and
 * Stability, 2nd ed., sec. 3.1; doubled as the reference rounds too), n the
 * row's entries; with beta = 0 the input is ignored. Entries outside the
 * matrix but inside C's span (ld above the packed one) must keep their
 * input (c_in) bitwise. Prints the first few failures under `what`.
 */
static inline int64_t pt_spmm_compare(const char *what, const ts_csr *a, const pt_dense *cd, ts_dtype dtype,
                                      double alpha, double beta, const double *ref, const double *bound,
                                      const void *c_in, const void *c_out) {
  const double u = dtype == TS_FLOAT32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
  const double tiny = dtype == TS_FLOAT32 ? FLT_MIN : DBL_MIN;
  const int64_t width = cd->cols;
  int64_t bad = 0;
  for (int64_t i = 0; i < cd->rows; i++) {
    const double n = (double)(a->row_ptr[i + 1] - a->row_ptr[i]) + 2;
    const double gamma = n * u / (1 - n * u);
    for (int64_t j = 0; j < width; j++) {
      const int64_t at = pt_index(cd, i, j);
      const double in = beta == 0 ? 0.0 : pt_get(c_in, dtype, at);
      const double want = alpha * ref[i * width + j] + beta * in;
      const double tol = 2 * gamma * (fabs(alpha) * bound[i * width + j] + fabs(beta * in)) + 4 * tiny;
      const double got = pt_get(c_out, dtype, at);
      if (!(fabs(got - want) <= tol)) {
        if (bad < 3)
          fprintf(stderr, "%s (%s, alpha %g, beta %g): C(%lld, %lld) = %.17g, want %.17g (tolerance %.3g)\n", what,
                  dtype == TS_FLOAT32 ? "float" : "double", alpha, beta, (long long)i, (long long)j, got, want, tol);
        bad++;
      }
    }
  }
  /* The gaps between C's lines belong to the caller. */
  const size_t vs = ts_dtype_size(dtype);
  const int64_t lines = cd->layout == TS_LAYOUT_ROW_MAJOR ? cd->rows : cd->cols;
  const int64_t minor = cd->layout == TS_LAYOUT_ROW_MAJOR ? cd->cols : cd->rows;
  for (int64_t line = 0; cd->elements > 0 && line + 1 < lines; line++)
    for (int64_t g = minor; g < cd->ld; g++) {
      const int64_t at = line * cd->ld + g;
      if (memcmp((const char *)c_in + at * vs, (const char *)c_out + at * vs, vs) != 0) {
        if (bad < 3)
          fprintf(stderr, "%s: entry %lld between C's lines was overwritten\n", what, (long long)at);
        bad++;
      }
    }
  return bad;
}

/* ---- the SpGEMM reference ---------------------------------------------------------- */

/* C = A * B in double by the textbook row-by-row product over a dense row of
 * B's width: ref_off (rows + 1), ref_cols (sorted), ref_vals and
 * ref_bound (sum of |a_ik b_kj|) are allocated here (free them with free()).
 * A column is in C when some product lands there (even a zero one). */
typedef struct pt_spgemm_ref {
  int64_t *off;
  int32_t *cols;
  double *vals, *bound;
} pt_spgemm_ref;

static inline bool pt_spgemm_reference(const ts_csr *a, const ts_csr *b, pt_spgemm_ref *r) {
  double *row = calloc((size_t)b->cols + 1, sizeof(double)), *abs_row = calloc((size_t)b->cols + 1, sizeof(double));
  unsigned char *hit = calloc((size_t)b->cols + 1, 1);
  int64_t nnz = 0, cap = 1024;
  r->off = calloc((size_t)a->rows + 1, sizeof(int64_t));
  r->cols = malloc((size_t)cap * sizeof(int32_t));
  r->vals = malloc((size_t)cap * sizeof(double));
  r->bound = malloc((size_t)cap * sizeof(double));
  bool ok = row && abs_row && hit && r->off && r->cols && r->vals && r->bound;
  for (int64_t i = 0; ok && i < a->rows; i++) {
    for (int64_t ka = a->row_ptr[i]; ka < a->row_ptr[i + 1]; ka++) {
      const int64_t k = a->col_idx[ka];
      const double x = pt_get(a->values, a->dtype, ka);
      for (int64_t kb = b->row_ptr[k]; kb < b->row_ptr[k + 1]; kb++) {
        const int32_t j = b->col_idx[kb];
        const double p = x * pt_get(b->values, b->dtype, kb);
        row[j] += p;
        abs_row[j] += fabs(p);
        hit[j] = 1;
      }
    }
    for (int64_t j = 0; ok && j < b->cols; j++) {
      if (!hit[j])
        continue;
      if (nnz == cap) {
        cap *= 2;
        int32_t *c = realloc(r->cols, (size_t)cap * sizeof(int32_t));
        double *v = c ? realloc(r->vals, (size_t)cap * sizeof(double)) : NULL;
        double *w = v ? realloc(r->bound, (size_t)cap * sizeof(double)) : NULL;
        if (c)
          r->cols = c;
        if (v)
          r->vals = v;
        if (w)
          r->bound = w;
        ok = c && v && w;
        if (!ok)
          break;
      }
      r->cols[nnz] = (int32_t)j;
      r->vals[nnz] = row[j];
      r->bound[nnz] = abs_row[j];
      nnz++;
      row[j] = abs_row[j] = 0;
      hit[j] = 0;
    }
    r->off[i + 1] = nnz;
  }
  free(row);
  free(abs_row);
  free(hit);
  return ok;
}

static inline void pt_spgemm_reference_free(pt_spgemm_ref *r) {
  free(r->off);
  free(r->cols);
  free(r->vals);
  free(r->bound);
  memset(r, 0, sizeof *r);
}

/* C against the reference: the same row offsets and columns exactly, values
 * within 2 gamma_n |A||B| (n the longest inner dimension a product sums
 * over: A's row length). Returns the failures (printing the first few). */
static inline int64_t pt_spgemm_compare(const char *what, const ts_csr *a, const pt_spgemm_ref *r, const ts_csr *c) {
  const double u = c->dtype == TS_FLOAT32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
  const double tiny = c->dtype == TS_FLOAT32 ? FLT_MIN : DBL_MIN;
  int64_t bad = 0;
  if (c->rows != a->rows || c->nnz != r->off[a->rows]) {
    fprintf(stderr, "%s: C is %lld rows, %lld entries; want %lld rows, %lld entries\n", what, (long long)c->rows,
            (long long)c->nnz, (long long)a->rows, (long long)r->off[a->rows]);
    return 1;
  }
  for (int64_t i = 0; i < a->rows; i++) {
    if (c->row_ptr[i + 1] != r->off[i + 1]) {
      if (bad++ < 3)
        fprintf(stderr, "%s: row %lld ends at %lld, want %lld\n", what, (long long)i, (long long)c->row_ptr[i + 1],
                (long long)r->off[i + 1]);
      continue;
    }
    const double n = (double)(a->row_ptr[i + 1] - a->row_ptr[i]) + 1;
    const double gamma = n * u / (1 - n * u);
    for (int64_t e = r->off[i]; e < r->off[i + 1]; e++) {
      const double got = pt_get(c->values, c->dtype, e);
      const double tol = 2 * gamma * r->bound[e] + 4 * tiny;
      if (c->col_idx[e] != r->cols[e] || !(fabs(got - r->vals[e]) <= tol)) {
        if (bad++ < 3)
          fprintf(stderr, "%s: row %lld entry %lld: column %d value %.17g, want column %d value %.17g (tol %.3g)\n",
                  what, (long long)i, (long long)e, c->col_idx[e], got, r->cols[e], r->vals[e], tol);
      }
    }
  }
  return bad;
}

/* Two CSR matrices with the same bits (pattern and values). */
static inline bool pt_csr_identical(const ts_csr *x, const ts_csr *y) {
  if (!x || !y || x->rows != y->rows || x->cols != y->cols || x->nnz != y->nnz || x->dtype != y->dtype)
    return false;
  return memcmp(x->row_ptr, y->row_ptr, (size_t)(x->rows + 1) * sizeof(int64_t)) == 0 &&
         memcmp(x->col_idx, y->col_idx, (size_t)x->nnz * sizeof(int32_t)) == 0 &&
         memcmp(x->values, y->values, (size_t)x->nnz * ts_dtype_size(x->dtype)) == 0;
}

/* ---- shared cases ------------------------------------------------------------------- */

/* A corpus matrix's manifest line, handed to a test's callback. */
typedef void (*pt_corpus_fn)(void *user, const char *dir, const char *name, long long rows, long long cols);

static inline bool pt_is_small(long long rows, long long cols, long long nnz) {
  return rows + cols <= 4000 && nnz <= 20000;
}

/* fn for each matrix of dir/MANIFEST.tsv (only small ones, at most `most`,
 * when small_only); the count, or -1 without a manifest. */
static inline int pt_corpus_folder(const char *dir, bool small_only, int most, pt_corpus_fn fn, void *user) {
  char path[4096], line[8192], name[256];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  if (!manifest)
    return -1;
  long long rows = 0, cols = 0, nnz = 0;
  int matrices = 0;
  while (fgets(line, sizeof line, manifest)) {
    if (sscanf(line, "%255[^\t]\t%lld\t%lld\t%lld", name, &rows, &cols, &nnz) != 4)
      continue; /* the header */
    if (small_only && (!pt_is_small(rows, cols, nnz) || matrices >= most))
      continue;
    fn(user, dir, name, rows, cols);
    matrices++;
  }
  fclose(manifest);
  return matrices;
}

/* The corpus (test_matrices_dir(): the full one, else the repository's
 * small one), saying how many matrices ran or that none is there. */
static inline void pt_corpus(bool small_only, int most, pt_corpus_fn fn, void *user) {
  const char *dir = test_matrices_dir();
  const int n = dir ? pt_corpus_folder(dir, small_only, most, fn, user) : -1;
  if (n >= 0)
    printf("corpus %s: %d matrices\n", dir, n);
  else
    printf("corpus: none found (TESSERA_MATRICES, TESSERA_TEST_CORPUS); the generated cases stand alone\n");
}

/* Corpus matrix dir/name as a general CSR of `dtype` (NULL after a failure,
 * which is checked). */
static inline ts_csr *pt_read_corpus(const char *dir, const char *name, ts_dtype dtype) {
  ts_csr *read = test_read_general(NULL, dir, name);
  CHECK_MSG(read != NULL, "reading %s/%s: %s", dir, name, ts_last_error(NULL));
  ts_csr *a = read ? pt_convert(read, dtype) : NULL;
  ts_csr_destroy(read);
  if (a)
    a->symmetry = TS_GENERAL;
  return a;
}

/* Past 2^31 in 64 bits: 66,000 rows of A naming the one row of B of 32,768
 * entries make 2,162,688,000 products and entries; C (17 GB) passes a 1 GiB
 * budget, so ts_spgemm_allocate refuses, naming C's bytes. Returns the plan
 * after its symbolic phase (NULL after a failure), for checks of the
 * caller's own. */
static inline ts_spgemm_plan *pt_check_large_counts(ts_context *ctx) {
  const int64_t rows = 66000, width = 32768;
  ts_csr *a = NULL, *b = NULL;
  ts_spgemm_plan *plan = NULL;
  CHECK_OK(NULL, ts_csr_create(NULL, rows, 1, rows, TS_FLOAT32, &a));
  CHECK_OK(NULL, ts_csr_create(NULL, 1, width, width, TS_FLOAT32, &b));
  if (a && b) {
    for (int64_t i = 0; i < rows; i++) {
      a->row_ptr[i + 1] = i + 1;
      a->col_idx[i] = 0;
      ((float *)a->values)[i] = 1.0f;
    }
    b->row_ptr[1] = width;
    for (int64_t j = 0; j < width; j++) {
      b->col_idx[j] = (int32_t)j;
      ((float *)b->values)[j] = 2.0f;
    }
    ts_spgemm_options o = {0};
    o.memory_budget = (int64_t)1 << 30;
    CHECK_OK(ctx, ts_spgemm_plan_create(ctx, a, b, &o, &plan));
  }
  if (plan) {
    CHECK_OK(ctx, ts_spgemm_symbolic(plan));
    CHECK(ts_spgemm_plan_products(plan) == rows * width && ts_spgemm_plan_products(plan) > INT32_MAX);
    CHECK(ts_spgemm_plan_nnz(plan) == rows * width);
    const int64_t c_bytes = (rows + 1) * 8 + rows * width * 8;
    CHECK(ts_spgemm_plan_c_bytes(plan) == c_bytes);
    CHECK_STATUS(ctx, ts_spgemm_allocate(plan), TS_ERROR_OUT_OF_MEMORY);
    char bytes[48];
    snprintf(bytes, sizeof bytes, "%lld bytes", (long long)c_bytes);
    CHECK_MSG(strstr(ts_last_error(ctx), bytes) != NULL, "the refusal names %s: %s", bytes, ts_last_error(ctx));
    CHECK(ts_spgemm_plan_device_bytes(plan) <= ((int64_t)1 << 30));
  }
  ts_csr_destroy(a);
  ts_csr_destroy(b);
  return plan;
}

#endif
