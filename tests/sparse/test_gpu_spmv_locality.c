/* SpMV plans with a locality layout (segmented long rows, hot columns, both,
 * auto) on the CUDA backend against a host reference in double with the
 * |alpha||A||x| + |beta||y| error bound: R-MAT and power-law matrices (long
 * rows over many segments and blocks, hot columns), a matrix of few columns
 * (one segment), a row of every column, empty rows, A^T, alpha/beta pairs
 * with NaN in y when beta = 0, float and double; bitwise repeatability, the
 * resolved layout, and that the caller's x and y are left in their own
 * numbering (x unchanged). Exits 77 without a usable GPU. */
#include "test_common.h"

#include <stdbool.h>
#include <stdint.h>

static ts_context *gpu;
static bool sanitizer;

static double value_at(const void *v, ts_dtype dtype, int64_t k) {
  return dtype == TS_FLOAT32 ? (double)((const float *)v)[k] : ((const double *)v)[k];
}

static void store(void *v, ts_dtype dtype, int64_t k, double x) {
  if (dtype == TS_FLOAT32)
    ((float *)v)[k] = (float)x;
  else
    ((double *)v)[k] = x;
}

/* y = alpha op(A) x + beta y through a plan with the layout; checked against
 * the reference row by row, and run twice for the same bits. */
static void check_layout(const char *what, const ts_csr *a, ts_operation op, ts_spmv_locality locality, double alpha,
                         double beta, ts_spmv_locality *resolved) {
  const ts_dtype dtype = a->dtype;
  const size_t value = ts_dtype_size(dtype);
  const int64_t xs = op == TS_OP_NONE ? a->cols : a->rows, ys = op == TS_OP_NONE ? a->rows : a->cols;
  void *x = malloc((size_t)(xs + 1) * value), *y0 = malloc((size_t)(ys + 1) * value);
  void *y = malloc((size_t)(ys + 1) * value), *y2 = malloc((size_t)(ys + 1) * value),
       *xback = malloc((size_t)(xs + 1) * value);
  double *ref = calloc((size_t)(ys + 1), sizeof(double)), *bound = calloc((size_t)(ys + 1), sizeof(double));
  unsigned long long state = 17;
  ts_spmv_plan *plan = NULL;
  ts_buffer *bx = NULL, *by = NULL;
  if (!x || !y0 || !y || !y2 || !xback || !ref || !bound) {
    CHECK_MSG(false, "%s: out of host memory", what);
    goto done;
  }
  for (int64_t j = 0; j < xs; j++)
    store(x, dtype, j, test_random(&state));
  for (int64_t i = 0; i < ys; i++)
    store(y0, dtype, i, beta == 0.0 ? NAN : test_random(&state));
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      const int64_t out = op == TS_OP_NONE ? i : a->col_idx[k], in = op == TS_OP_NONE ? a->col_idx[k] : i;
      const double term = value_at(a->values, dtype, k) * value_at(x, dtype, in);
      ref[out] += term;
      bound[out] += fabs(term);
    }
  ts_spmv_options o = {0};
  o.op = op;
  o.locality = locality;
  CHECK_OK(gpu, ts_spmv_plan_create_ex(gpu, a, &o, &plan));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, (size_t)(xs + 1) * value, &bx));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, (size_t)(ys + 1) * value, &by));
  if (!plan || !bx || !by)
    goto done;
  *resolved = ts_spmv_plan_locality(plan);
  CHECK_OK(gpu, ts_buffer_upload(gpu, bx, 0, x, (size_t)xs * value));
  for (int run = 0; run < 2; run++) {
    CHECK_OK(gpu, ts_buffer_upload(gpu, by, 0, y0, (size_t)ys * value));
    CHECK_OK(gpu, ts_spmv_execute(plan, alpha, bx, beta, by));
    CHECK_OK(gpu, ts_buffer_download(gpu, by, 0, run ? y2 : y, (size_t)ys * value));
  }
  CHECK_OK(gpu, ts_buffer_download(gpu, bx, 0, xback, (size_t)xs * value));
  CHECK_MSG(memcmp(x, xback, (size_t)xs * value) == 0, "%s: x changed", what);
  CHECK_MSG(memcmp(y, y2, (size_t)ys * value) == 0, "%s: two runs differ", what);
  const double u = dtype == TS_FLOAT32 ? 5.96e-8 : 1.11e-16;
  int64_t bad = 0;
  for (int64_t i = 0; i < ys; i++) {
    const double yi0 = beta == 0.0 ? 0.0 : value_at(y0, dtype, i);
    const double want = alpha * ref[i] + beta * yi0;
    const double n = (double)a->nnz / (double)(ys > 0 ? ys : 1) + 2.0;
    const double tol = u * (16.0 * sqrt(n + 64.0) + 16.0) * (fabs(alpha) * bound[i] + fabs(beta * yi0)) + 1e-300;
    const double got = value_at(y, dtype, i);
    if (!(fabs(got - want) <= tol) && bad++ < 5)
      fprintf(stderr, "  %s: y[%lld] = %.17g, want %.17g (tolerance %.3g)\n", what, (long long)i, got, want, tol);
  }
  CHECK_MSG(bad == 0, "%s: %lld entries of y outside the bound", what, (long long)bad);
done:
  ts_buffer_destroy(bx);
  ts_buffer_destroy(by);
  ts_spmv_plan_destroy(plan);
  free(x);
  free(y0);
  free(y);
  free(y2);
  free(xback);
  free(ref);
  free(bound);
}

static const char *const layout_names[] = {"none", "segmented", "hot columns", "both", "auto"};

static void check_all(const char *name, const ts_csr *a, bool want_segments, bool want_hot) {
  const double pairs[3][2] = {{1.0, 0.0}, {-0.5, 2.0}, {2.0, 1.0}};
  for (int l = 1; l <= 4; l++) {
    char what[160];
    ts_spmv_locality resolved = TS_SPMV_LOCALITY_NONE;
    for (int p = 0; p < (sanitizer ? 1 : 3); p++) {
      snprintf(what, sizeof what, "%s, %s, %s, alpha %g beta %g", name, layout_names[l],
               a->dtype == TS_FLOAT32 ? "float" : "double", pairs[p][0], pairs[p][1]);
      check_layout(what, a, TS_OP_NONE, (ts_spmv_locality)l, pairs[p][0], pairs[p][1], &resolved);
    }
    /* Asked explicitly, a layout is made wherever the matrix has something for it. */
    if (l == TS_SPMV_LOCALITY_SEGMENTED)
      CHECK_MSG((resolved == TS_SPMV_LOCALITY_SEGMENTED) == want_segments, "%s: segmented resolved to %s", name,
                layout_names[resolved]);
    if (l == TS_SPMV_LOCALITY_HOT_COLUMNS)
      CHECK_MSG((resolved == TS_SPMV_LOCALITY_HOT_COLUMNS) == want_hot, "%s: hot columns resolved to %s", name,
                layout_names[resolved]);
  }
  char what[160];
  ts_spmv_locality resolved;
  snprintf(what, sizeof what, "%s, both, A^T", name);
  check_layout(what, a, TS_OP_TRANSPOSE, TS_SPMV_LOCALITY_BOTH, 1.5, 0.5, &resolved);
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  if (ts_context_create(&gpu, &options) != TS_SUCCESS)
    return test_skip("no usable CUDA device");
  const char *tool = getenv("TESSERA_UNDER_SANITIZER");
  sanitizer = tool && *tool;
  for (int d = 0; d < 2; d++) {
    const ts_dtype dtype = d ? TS_FLOAT64 : TS_FLOAT32;
    ts_csr *a = NULL;
    /* R-MAT: hot columns and long rows over many segments. */
    ts_rmat_params p = ts_rmat_graph500(sanitizer ? 14 : 18, 16);
    CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 3, dtype, &a));
    if (a)
      check_all("R-MAT", a, true, true);
    ts_csr_destroy(a);
    a = NULL;
    /* Power-law rows, uniform columns: long rows, no hot column. */
    CHECK_OK(NULL, ts_gen_power_law(NULL, sanitizer ? 1 << 14 : 1 << 17, sanitizer ? 1 << 14 : 1 << 17,
                                    sanitizer ? 300000 : 2500000, 0.9, 5, dtype, &a));
    if (a)
      check_all("power-law rows", a, true, false);
    ts_csr_destroy(a);
    a = NULL;
    /* Few columns: one segment; every row long; one full row. */
    CHECK_OK(NULL, ts_gen_random_uniform(NULL, 3000, 700, 64, 9, dtype, &a));
    if (a) {
      for (int64_t k = a->row_ptr[5]; k < a->row_ptr[6]; k++)
        store(a->values, dtype, k, 0.0); /* explicit zeros stay entries */
      check_all("700 columns", a, true, false);
    }
    ts_csr_destroy(a);
    a = NULL;
    /* Short rows only: nothing to segment, nothing hot. */
    CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 200, 150, dtype, &a));
    if (a)
      check_all("2-D Laplacian", a, false, false);
    ts_csr_destroy(a);
    a = NULL;
    /* Empty rows and an empty matrix. */
    CHECK_OK(NULL, ts_csr_create(NULL, 40, 30, 0, dtype, &a));
    if (a)
      check_all("no entries", a, false, false);
    ts_csr_destroy(a);
  }
  /* An unknown layout is refused. */
  ts_csr *a = NULL;
  ts_spmv_plan *plan = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 4, 4, TS_FLOAT32, &a));
  ts_spmv_options o = {0};
  o.locality = (ts_spmv_locality)9;
  CHECK_STATUS(gpu, ts_spmv_plan_create_ex(gpu, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  ts_csr_destroy(a);
  ts_context_destroy(gpu);
  return test_finish();
}
