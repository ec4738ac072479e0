/* SpMM on the host (ts_csr_spmm_host and plans on the CPU backend) against
 * a naive double-precision reference with Higham's bound: hand-made and
 * random matrices in float and double, every pair of layouts, leading
 * dimensions above the packed ones (the gaps must stay untouched), widths
 * from 0 to past the host's column block, alpha/beta pairs and NaN in C with
 * beta = 0; bitwise repeatability across runs and thread counts; refused
 * arguments with their statuses and messages. */
#include "product_test_util.h"

static const double alphas[] = {1.0, 1.0, -0.5, 2.0, 0.0};
static const double betas[] = {0.0, 1.0, -0.5, 0.0, 2.0};

/* Run one host SpMM and compare; returns the failing entries. */
static int64_t check_host(const char *what, ts_context *ctx, const ts_csr *a, int64_t width, ts_layout lb, int64_t ld_b,
                          ts_layout lc, int64_t ld_c, double alpha, double beta, int nan_c, unsigned long long *state) {
  const ts_dtype dtype = a->dtype;
  const size_t vs = ts_dtype_size(dtype);
  pt_dense bd = pt_dense_of(a->cols, width, lb, ld_b), cd = pt_dense_of(a->rows, width, lc, ld_c);
  void *b = malloc((size_t)bd.elements * vs + 8), *c_in = malloc((size_t)cd.elements * vs + 8);
  void *c = malloc((size_t)cd.elements * vs + 8);
  double *ref = malloc((size_t)(a->rows * width) * sizeof(double) + 8);
  double *bound = malloc((size_t)(a->rows * width) * sizeof(double) + 8);
  int64_t bad = 0;
  if (!b || !c_in || !c || !ref || !bound) {
    CHECK_MSG(0, "%s: out of host memory", what);
    bad = 1;
    goto cleanup;
  }
  pt_fill_random(b, dtype, bd.elements, false, state);
  pt_fill_random(c_in, dtype, cd.elements, nan_c, state);
  memcpy(c, c_in, (size_t)cd.elements * vs);
  pt_spmm_reference(a, b, &bd, dtype, ref, bound);
  ts_status st = ts_csr_spmm_host(ctx, alpha, a, width, b, lb, ld_b, beta, c, lc, ld_c);
  CHECK_MSG(st == TS_SUCCESS, "%s: %s", what, ts_last_error(ctx));
  if (st == TS_SUCCESS)
    bad = pt_spmm_compare(what, a, &cd, dtype, alpha, nan_c ? 0.0 : beta, ref, bound, c_in, c);
  CHECK_MSG(bad == 0, "%s (width %lld, B %s ld %lld, C %s ld %lld, alpha %g, beta %g%s): %lld entries wrong", what,
            (long long)width, ts_layout_name(lb), (long long)bd.ld, ts_layout_name(lc), (long long)cd.ld, alpha, beta,
            nan_c ? ", NaN C" : "", (long long)bad);
cleanup:
  free(b);
  free(c_in);
  free(c);
  free(ref);
  free(bound);
  return bad;
}

/* A generated matrix of rows all `length` long, B in layout lb, C row-major. */
static void check_generated(const char *what, ts_context *ctx, int64_t rows, int64_t cols, const int64_t *length,
                            int64_t width, ts_layout lb, double beta, ts_dtype dtype, unsigned long long *state) {
  ts_csr *a = pt_random_csr(rows, cols, length, 1, dtype, state);
  CHECK_MSG(a != NULL, "%s: generation failed", what);
  if (a)
    check_host(what, ctx, a, width, lb, 0, TS_LAYOUT_ROW_MAJOR, 0, 1.0, beta, 0, state);
  ts_csr_destroy(a);
}

static void expect_values(const char *what, const double *got, const double *want, int n) {
  for (int i = 0; i < n; i++)
    CHECK_MSG(got[i] == want[i], "%s: C[%d] = %g, want %g", what, i, got[i], want[i]);
}

static void test_hand_made(ts_context *ctx) {
  /* A = [1 0 2; 0 0 0; 3 4 5], B = [1 2; 3 4; 5 6] row-major: A B by hand. */
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_csr_create(NULL, 3, 3, 5, TS_FLOAT64, &a));
  if (!a)
    return;
  const int64_t rp[] = {0, 2, 2, 5};
  const int32_t ci[] = {0, 2, 0, 1, 2};
  const double v[] = {1, 2, 3, 4, 5};
  memcpy(a->row_ptr, rp, sizeof rp);
  memcpy(a->col_idx, ci, sizeof ci);
  memcpy(a->values, v, sizeof v);
  const double b[] = {1, 2, 3, 4, 5, 6};
  double c[6] = {1, 1, 1, 1, 1, 1};
  const double want[] = {1 + 10 + 1, 2 + 12 + 1, 1, 1, 3 + 12 + 25 + 1, 6 + 16 + 30 + 1};
  CHECK_OK(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, b, TS_LAYOUT_ROW_MAJOR, 0, 1.0, c, TS_LAYOUT_ROW_MAJOR, 0));
  expect_values("hand-made row-major", c, want, 6);
  /* The same with B and C column-major. */
  const double bt[] = {1, 3, 5, 2, 4, 6};
  double ct[6] = {1, 1, 1, 1, 1, 1};
  const double want_t[] = {12, 1, 41, 15, 1, 53};
  CHECK_OK(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, bt, TS_LAYOUT_COL_MAJOR, 0, 1.0, ct, TS_LAYOUT_COL_MAJOR, 0));
  expect_values("hand-made column-major", ct, want_t, 6);
  ts_csr_destroy(a);
}

static void test_random_matrices(ts_context *ctx, ts_dtype dtype) {
  unsigned long long state = 7 + (unsigned long long)dtype;
  const int64_t lengths[] = {3, 0, 7, 1, 40, 2};
  ts_csr *a = pt_random_csr(97, 61, lengths, 6, dtype, &state);
  CHECK(a != NULL);
  if (!a)
    return;
  const int64_t widths[] = {0, 1, 3, 8, 17, 64, 300};
  for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
    for (int lb = 0; lb < 2; lb++)
      for (int lc = 0; lc < 2; lc++)
        for (size_t s = 0; s < sizeof alphas / sizeof alphas[0]; s++)
          check_host("random 97x61", ctx, a, widths[w], (ts_layout)lb, 0, (ts_layout)lc, 0, alphas[s], betas[s], 0,
                     &state);
  /* Leading dimensions above the packed ones, NaN in C with beta = 0. */
  check_host("random 97x61 padded", ctx, a, 5, TS_LAYOUT_ROW_MAJOR, 9, TS_LAYOUT_ROW_MAJOR, 7, 1.5, 0.5, 0, &state);
  check_host("random 97x61 padded", ctx, a, 5, TS_LAYOUT_COL_MAJOR, 70, TS_LAYOUT_COL_MAJOR, 100, 1.5, 0.5, 0, &state);
  check_host("random 97x61 padded", ctx, a, 4, TS_LAYOUT_ROW_MAJOR, 6, TS_LAYOUT_COL_MAJOR, 99, -1.0, 1.0, 0, &state);
  check_host("random 97x61 NaN", ctx, a, 6, TS_LAYOUT_ROW_MAJOR, 0, TS_LAYOUT_ROW_MAJOR, 0, 1.0, 0.0, 1, &state);
  check_host("random 97x61 NaN", ctx, a, 6, TS_LAYOUT_COL_MAJOR, 0, TS_LAYOUT_COL_MAJOR, 0, 2.0, 0.0, 1, &state);
  ts_csr_destroy(a);
  /* Edge shapes: no entries, one column, one long row, 0 x 0. */
  const int64_t none[] = {0}, one[] = {1}, long_row[] = {5000};
  check_generated("no entries 5x4", ctx, 5, 4, none, 3, TS_LAYOUT_ROW_MAJOR, 0.5, dtype, &state);
  check_generated("300x1", ctx, 300, 1, one, 9, TS_LAYOUT_COL_MAJOR, 0.0, dtype, &state);
  check_generated("one long row", ctx, 1, 6000, long_row, 33, TS_LAYOUT_ROW_MAJOR, 0.0, dtype, &state);
  check_generated("0x0", ctx, 0, 0, none, 4, TS_LAYOUT_ROW_MAJOR, 0.0, dtype, &state);
}

/* Plans on the CPU backend: every schedule is accepted (the CPU has one
 * implementation) and gives the reference's answer; two runs and two
 * thread counts give the same bits. */
static void test_plans(ts_dtype dtype) {
  unsigned long long state = 31;
  const int64_t lengths[] = {2, 9, 0, 300, 1};
  ts_csr *a = pt_random_csr(200, 150, lengths, 5, dtype, &state);
  CHECK(a != NULL);
  if (!a)
    return;
  const int64_t width = 12;
  const size_t vs = ts_dtype_size(dtype);
  pt_dense bd = pt_dense_of(a->cols, width, TS_LAYOUT_ROW_MAJOR, 0),
           cd = pt_dense_of(a->rows, width, TS_LAYOUT_ROW_MAJOR, 0);
  void *b = malloc((size_t)bd.elements * vs), *c_in = malloc((size_t)cd.elements * vs);
  void *first = malloc((size_t)cd.elements * vs), *again = malloc((size_t)cd.elements * vs);
  double *ref = malloc((size_t)cd.elements * sizeof(double)), *bound = malloc((size_t)cd.elements * sizeof(double));
  if (!b || !c_in || !first || !again || !ref || !bound) {
    CHECK(0);
    goto cleanup;
  }
  pt_fill_random(b, dtype, bd.elements, false, &state);
  pt_fill_random(c_in, dtype, cd.elements, false, &state);
  pt_spmm_reference(a, b, &bd, dtype, ref, bound);
  for (int threads = 1; threads <= 2; threads++) {
    ts_context *ctx = pt_cpu_context(threads);
    CHECK(ctx != NULL);
    if (!ctx)
      continue;
    for (int s = 0; s < TS_SCHEDULE_COUNT; s++) {
      ts_spmm_options o = {0};
      o.schedule = (ts_schedule)s;
      ts_spmm_plan *plan = NULL;
      ts_buffer *bb = NULL, *bc = NULL;
      CHECK_OK(ctx, ts_spmm_plan_create(ctx, a, width, &o, &plan));
      CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)bd.elements * vs, &bb));
      CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)cd.elements * vs, &bc));
      if (plan && bb && bc) {
        CHECK(ts_spmm_plan_schedule(plan) != TS_SCHEDULE_AUTO);
        CHECK(s == 0 || ts_spmm_plan_schedule(plan) == (ts_schedule)s);
        CHECK(strlen(ts_spmm_plan_explain(plan)) > 0);
        CHECK(ts_spmm_plan_bytes(plan) > 0);
        CHECK_OK(ctx, ts_buffer_upload(ctx, bb, 0, b, (size_t)bd.elements * vs));
        for (int run = 0; run < 2; run++) {
          CHECK_OK(ctx, ts_buffer_upload(ctx, bc, 0, c_in, (size_t)cd.elements * vs));
          CHECK_OK(ctx, ts_spmm_execute(plan, -1.5, bb, 0.5, bc));
          void *out = threads == 1 && s == 0 && run == 0 ? first : again;
          CHECK_OK(ctx, ts_buffer_download(ctx, bc, 0, out, (size_t)cd.elements * vs));
          if (out == again)
            CHECK_MSG(memcmp(first, again, (size_t)cd.elements * vs) == 0,
                      "schedule %s, %d threads, run %d: bits differ from the first run",
                      ts_schedule_name((ts_schedule)s), threads, run);
          CHECK(pt_spmm_compare("cpu plan", a, &cd, dtype, -1.5, 0.5, ref, bound, c_in, out) == 0);
        }
      }
      ts_buffer_destroy(bb);
      ts_buffer_destroy(bc);
      ts_spmm_plan_destroy(plan);
    }
    ts_context_destroy(ctx);
  }
cleanup:
  free(b);
  free(c_in);
  free(first);
  free(again);
  free(ref);
  free(bound);
  ts_csr_destroy(a);
}

static void test_refused(void) {
  ts_context *ctx = pt_cpu_context(1);
  CHECK(ctx != NULL);
  if (!ctx)
    return;
  unsigned long long state = 3;
  const int64_t lengths[] = {2};
  ts_csr *a = pt_random_csr(4, 3, lengths, 1, TS_FLOAT32, &state);
  CHECK(a != NULL);
  if (!a) {
    ts_context_destroy(ctx);
    return;
  }
  float b[64] = {0}, c[64] = {0};
  ts_spmm_plan *plan = NULL;
  const ts_layout R = TS_LAYOUT_ROW_MAJOR;
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, NULL, 2, b, R, 0, 0.0, c, R, 0), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, -1, b, R, 0, 0.0, c, R, 0), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "width -1 is negative") != NULL);
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, (int64_t)INT32_MAX + 1, b, R, 0, 0.0, c, R, 0), TS_ERROR_OVERFLOW);
  CHECK(strstr(ts_last_error(ctx), "32-bit") != NULL);
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, b, (ts_layout)5, 0, 0.0, c, R, 0), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "unknown layout 5 for B") != NULL);
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, 4, b, R, 3, 0.0, c, R, 0), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "leading dimension 3 of B") != NULL);
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, b, R, 0, 0.0, c, TS_LAYOUT_COL_MAJOR, 2),
               TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, b, R, -4, 0.0, c, R, 0), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, b, R, INT64_MAX / 2, 0.0, c, R, 0), TS_ERROR_OVERFLOW);
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, NULL, R, 0, 0.0, c, R, 0), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, b, R, 0, 0.0, NULL, R, 0), TS_ERROR_INVALID_ARGUMENT);
  /* B and C overlapping in memory. */
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, b, R, 0, 0.0, b + 3, R, 0), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "overlap") != NULL);
  /* A bad matrix, a bad value type, symmetric storage. */
  const int32_t kept = a->col_idx[1];
  a->col_idx[1] = 7;
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, b, R, 0, 0.0, c, R, 0), TS_ERROR_INVALID_MATRIX);
  CHECK_STATUS(ctx, ts_spmm_plan_create(ctx, a, 2, NULL, &plan), TS_ERROR_INVALID_MATRIX);
  CHECK(plan == NULL);
  a->col_idx[1] = kept;
  CHECK_OK(ctx, ts_csr_check(ctx, a));
  a->dtype = (ts_dtype)9;
  CHECK_STATUS(ctx, ts_csr_spmm_host(ctx, 1.0, a, 2, b, R, 0, 0.0, c, R, 0), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_spmm_plan_create(ctx, a, 2, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  a->dtype = TS_FLOAT32;
  a->symmetry = TS_SYMMETRIC;
  CHECK_STATUS(ctx, ts_spmm_plan_create(ctx, a, 2, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "symmetric") != NULL);
  a->symmetry = TS_GENERAL;
  /* Plan options. */
  ts_spmm_options o = {0};
  o.schedule = (ts_schedule)TS_SCHEDULE_COUNT;
  CHECK_STATUS(ctx, ts_spmm_plan_create(ctx, a, 2, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.schedule = TS_SCHEDULE_GROUP_MAPPED;
  o.group_size = 12;
  CHECK_STATUS(ctx, ts_spmm_plan_create(ctx, a, 2, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "group size 12") != NULL);
  CHECK_STATUS(ctx, ts_spmm_plan_create(NULL, a, 2, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_spmm_plan_create(ctx, a, 2, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  /* Execution: buffers too small, in host memory, shared, NULL, of another context. */
  ts_context *other = pt_cpu_context(1);
  ts_buffer *bb = NULL, *bc = NULL, *small = NULL, *host = NULL, *foreign = NULL;
  CHECK_OK(ctx, ts_spmm_plan_create(ctx, a, 2, NULL, &plan));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 6 * sizeof(float), &bb));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 8 * sizeof(float), &bc));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 5 * sizeof(float), &small));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_HOST, 8 * sizeof(float), &host));
  if (other)
    CHECK_OK(other, ts_buffer_create(other, TS_MEMORY_DEVICE, 8 * sizeof(float), &foreign));
  if (plan && bb && bc && small && host && foreign) {
    CHECK_STATUS(ctx, ts_spmm_execute(plan, 1.0, small, 0.0, bc), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(ctx), "B holds 20 bytes") != NULL);
    CHECK_STATUS(ctx, ts_spmm_execute(plan, 1.0, bb, 0.0, small), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(ctx, ts_spmm_execute(plan, 1.0, bb, 0.0, host), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(ctx), "TS_MEMORY_DEVICE") != NULL);
    CHECK_STATUS(ctx, ts_spmm_execute(plan, 1.0, bc, 0.0, bc), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(ctx), "same buffer") != NULL);
    CHECK_STATUS(ctx, ts_spmm_execute(plan, 1.0, NULL, 0.0, bc), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(ctx, ts_spmm_execute(NULL, 1.0, bb, 0.0, bc), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(ctx, ts_spmm_execute(plan, 1.0, foreign, 0.0, bc), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(ctx), "context") != NULL);
    CHECK_OK(ctx, ts_spmm_execute(plan, 1.0, bb, 0.0, bc)); /* still usable */
    /* Two wraps of one array: B's 6 floats and C's 8 may not share a byte. */
    float shared[14] = {0};
    ts_buffer *wrapped_b = NULL, *wrapped_c = NULL, *apart_c = NULL;
    CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, shared, 6 * sizeof(float), &wrapped_b));
    CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, shared + 5, 8 * sizeof(float), &wrapped_c));
    CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, shared + 6, 8 * sizeof(float), &apart_c));
    CHECK_STATUS(ctx, ts_spmm_execute(plan, 1.0, wrapped_b, 0.0, wrapped_c), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(ctx), "overlap") != NULL);
    CHECK_OK(ctx, ts_spmm_execute(plan, 1.0, wrapped_b, 0.0, apart_c));
    ts_buffer_destroy(wrapped_b);
    ts_buffer_destroy(wrapped_c);
    ts_buffer_destroy(apart_c);
  }
  ts_buffer_destroy(bb);
  ts_buffer_destroy(bc);
  ts_buffer_destroy(small);
  ts_buffer_destroy(host);
  ts_buffer_destroy(foreign);
  ts_spmm_plan_destroy(plan);
  ts_context_destroy(other);
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
}

int main(void) {
  ts_context *ctx = pt_cpu_context(0);
  CHECK(ctx != NULL);
  if (!ctx)
    return test_finish();
  test_hand_made(ctx);
  test_random_matrices(ctx, TS_FLOAT32);
  test_random_matrices(ctx, TS_FLOAT64);
  test_plans(TS_FLOAT32);
  test_plans(TS_FLOAT64);
  test_refused();
  ts_context_destroy(ctx);
  return test_finish();
}
