/* SpGEMM on the host (ts_csr_spgemm_host and plans on the CPU backend)
 * against the textbook product in double (product_test_util.h): the same
 * pattern exactly and values within Higham's bound, on hand-made, random,
 * rectangular, mesh and power-law matrices, A*A and A*A^T, empty rows and
 * matrices, a single column and one long row, in float and double; the
 * plan's steps give the host call's bits, run again the same bits, and the
 * row-blocked mode the same C; the memory budget's refusals name the bytes;
 * an intermediate product count past 2^31 is counted in 64 bits; refused
 * arguments. */
#include "product_test_util.h"

static int checked;

/* Reference and host product of A*B; returns the host C (NULL on failure). */
static ts_csr *check_host(const char *what, const ts_csr *a, const ts_csr *b) {
  ts_csr *c = NULL;
  pt_spgemm_ref r;
  memset(&r, 0, sizeof r);
  ts_status st = ts_csr_spgemm_host(NULL, a, b, &c);
  CHECK_MSG(st == TS_SUCCESS, "%s: %s", what, ts_last_error(NULL));
  if (st == TS_SUCCESS) {
    CHECK_OK(NULL, ts_csr_check(NULL, c));
    CHECK_MSG(pt_spgemm_reference(a, b, &r), "%s: reference out of memory", what);
    CHECK_MSG(pt_spgemm_compare(what, a, &r, c) == 0, "%s (%s): C differs from the reference", what,
              a->dtype == TS_FLOAT32 ? "float" : "double");
    checked++;
  }
  pt_spgemm_reference_free(&r);
  return c;
}

/* The plan's steps on a CPU context with `threads` threads: the same bits
 * as `want`, twice; the blocked mode too. */
static void check_plan(const char *what, const ts_csr *a, const ts_csr *b, const ts_csr *want, int threads) {
  ts_context *ctx = pt_cpu_context(threads);
  ts_spgemm_plan *plan = NULL;
  ts_csr *c = NULL, *again = NULL, *blocked = NULL;
  CHECK(ctx != NULL);
  if (!ctx)
    return;
  CHECK_OK(ctx, ts_spgemm_plan_create(ctx, a, b, NULL, &plan));
  if (plan) {
    CHECK(ts_spgemm_plan_nnz(plan) == -1 && ts_spgemm_plan_c_bytes(plan) == -1);
    CHECK_OK(ctx, ts_spgemm_symbolic(plan));
    CHECK_OK(ctx, ts_spgemm_symbolic(plan)); /* again: nothing to do */
    CHECK_MSG(ts_spgemm_plan_nnz(plan) == want->nnz, "%s: symbolic nnz %lld, want %lld", what,
              (long long)ts_spgemm_plan_nnz(plan), (long long)want->nnz);
    int64_t products = 0;
    for (int64_t ka = 0; ka < a->nnz; ka++)
      products += b->row_ptr[a->col_idx[ka] + 1] - b->row_ptr[a->col_idx[ka]];
    CHECK(ts_spgemm_plan_products(plan) == products);
    CHECK(ts_spgemm_plan_c_bytes(plan) == (a->rows + 1) * 8 + want->nnz * (4 + (int64_t)ts_dtype_size(a->dtype)));
    CHECK(strlen(ts_spgemm_plan_explain(plan)) > 0);
    CHECK_OK(ctx, ts_spgemm_allocate(plan));
    CHECK_OK(ctx, ts_spgemm_numeric(plan));
    CHECK_OK(ctx, ts_spgemm_download(plan, &c));
    CHECK_OK(ctx, ts_spgemm_numeric(plan));
    CHECK_OK(ctx, ts_spgemm_download(plan, &again));
    CHECK_OK(ctx, ts_spgemm_blocked(plan, &blocked));
    CHECK_MSG(pt_csr_identical(c, want), "%s: the plan's C differs from ts_csr_spgemm_host's", what);
    CHECK_MSG(pt_csr_identical(c, again), "%s: a second numeric phase gave other bits", what);
    CHECK_MSG(pt_csr_identical(c, blocked), "%s: the blocked C differs", what);
    const ts_buffer *rp = NULL, *ci = NULL, *vv = NULL;
    CHECK_OK(ctx, ts_spgemm_c_buffers(plan, &rp, &ci, &vv));
    CHECK(rp && ci && vv && ts_buffer_size(ci) == (size_t)want->nnz * sizeof(int32_t));
  }
  ts_csr_destroy(c);
  ts_csr_destroy(again);
  ts_csr_destroy(blocked);
  ts_spgemm_plan_destroy(plan);
  ts_context_destroy(ctx);
}

/* A*B on the host, then through plans with 1 and 2 threads. */
static void check_product(const char *what, const ts_csr *a, const ts_csr *b) {
  ts_csr *c = check_host(what, a, b);
  if (!c)
    return;
  check_plan(what, a, b, c, 1);
  check_plan(what, a, b, c, 2);
  ts_csr_destroy(c);
}

static void check_square(const char *what, ts_csr *a) {
  CHECK_MSG(a != NULL, "%s: generation failed", what);
  if (!a)
    return;
  char name[160];
  snprintf(name, sizeof name, "%s A*A", what);
  check_product(name, a, a);
  ts_csr *at = NULL;
  CHECK_OK(NULL, ts_csr_transpose(NULL, a, &at));
  snprintf(name, sizeof name, "%s A*A^T", what);
  if (at)
    check_product(name, a, at);
  ts_csr_destroy(at);
  ts_csr_destroy(a);
}

static void test_hand_made(void) {
  /* A = [1 2 0; 0 0 3], B = [4 0; 5 6; 0 7]: A B = [14 12; 0 21]. */
  ts_csr *a = NULL, *b = NULL, *c = NULL;
  CHECK_OK(NULL, ts_csr_create(NULL, 2, 3, 3, TS_FLOAT64, &a));
  CHECK_OK(NULL, ts_csr_create(NULL, 3, 2, 4, TS_FLOAT64, &b));
  if (!a || !b)
    goto cleanup;
  const int64_t ap[] = {0, 2, 3}, bp[] = {0, 1, 3, 4};
  const int32_t ac[] = {0, 1, 2}, bc[] = {0, 0, 1, 1};
  const double av[] = {1, 2, 3}, bv[] = {4, 5, 6, 7};
  memcpy(a->row_ptr, ap, sizeof ap);
  memcpy(a->col_idx, ac, sizeof ac);
  memcpy(a->values, av, sizeof av);
  memcpy(b->row_ptr, bp, sizeof bp);
  memcpy(b->col_idx, bc, sizeof bc);
  memcpy(b->values, bv, sizeof bv);
  CHECK_OK(NULL, ts_csr_spgemm_host(NULL, a, b, &c));
  if (c) {
    const int64_t want_p[] = {0, 2, 3};
    const int32_t want_c[] = {0, 1, 1};
    const double want_v[] = {14, 12, 21};
    CHECK(c->nnz == 3 && memcmp(c->row_ptr, want_p, sizeof want_p) == 0 &&
          memcmp(c->col_idx, want_c, sizeof want_c) == 0);
    for (int e = 0; e < 3 && c->nnz == 3; e++)
      CHECK(((double *)c->values)[e] == want_v[e]);
  }
  check_product("hand-made 2x3 * 3x2", a, b);
cleanup:
  ts_csr_destroy(a);
  ts_csr_destroy(b);
  ts_csr_destroy(c);
}

static void test_generated(ts_dtype dtype) {
  unsigned long long state = 71 + (unsigned long long)dtype;
  const int64_t mixed[] = {0, 2, 5, 1, 13, 0, 40, 3};
  check_square("random 300x300", pt_random_csr(300, 300, mixed, 8, dtype, &state));
  /* Rectangular: 120 x 80 times 80 x 210. */
  ts_csr *a = pt_random_csr(120, 80, mixed, 8, dtype, &state), *b = pt_random_csr(80, 210, mixed + 1, 7, dtype, &state);
  if (a && b)
    check_product("rectangular 120x80 * 80x210", a, b);
  ts_csr_destroy(a);
  ts_csr_destroy(b);
  /* Empty rows everywhere, no entries, 0 x 0, one column, one long row. */
  const int64_t none[] = {0}, one[] = {1}, long_row[] = {3000, 1, 0};
  check_square("no entries 50x50", pt_random_csr(50, 50, none, 1, dtype, &state));
  check_square("0x0", pt_random_csr(0, 0, none, 1, dtype, &state));
  a = pt_random_csr(200, 1, one, 1, dtype, &state);
  b = pt_random_csr(1, 1, one, 1, dtype, &state);
  if (a && b)
    check_product("200x1 * 1x1", a, b);
  ts_csr_destroy(a);
  ts_csr_destroy(b);
  a = pt_random_csr(400, 4000, long_row, 3, dtype, &state);
  ts_csr *at = NULL;
  if (a && ts_csr_transpose(NULL, a, &at) == TS_SUCCESS)
    check_product("long rows 400x4000 A*A^T", a, at);
  ts_csr_destroy(a);
  ts_csr_destroy(at);
  /* Meshes and power-law rows from the generators. */
  ts_csr *m = NULL, *p = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 20, 17, dtype, &m));
  check_square("laplacian 2-D 20x17", m);
  CHECK_OK(NULL, ts_gen_power_law(NULL, 600, 600, 6000, 1.1, 9u, dtype, &p));
  check_square("power-law 600", p);
}

/* The 64-bit counts of pt_check_large_counts() on the CPU; the numeric phase
 * is refused without C. */
static void test_large_counts(void) {
  ts_context *ctx = pt_cpu_context(0);
  CHECK(ctx != NULL);
  if (!ctx)
    return;
  ts_spgemm_plan *plan = pt_check_large_counts(ctx);
  if (plan)
    CHECK_STATUS(ctx, ts_spgemm_numeric(plan), TS_ERROR_INVALID_ARGUMENT);
  ts_spgemm_plan_destroy(plan);
  ts_context_destroy(ctx);
}

static void test_refused(void) {
  unsigned long long state = 5;
  const int64_t lengths[] = {2};
  ts_csr *a = pt_random_csr(4, 3, lengths, 1, TS_FLOAT32, &state),
         *b = pt_random_csr(3, 5, lengths, 1, TS_FLOAT32, &state);
  ts_csr *b64 = b ? pt_convert(b, TS_FLOAT64) : NULL, *c = NULL;
  ts_context *ctx = pt_cpu_context(1);
  ts_spgemm_plan *plan = NULL;
  CHECK(a && b && b64 && ctx);
  if (!a || !b || !b64 || !ctx)
    goto cleanup;
  CHECK_STATUS(ctx, ts_spgemm_plan_create(ctx, a, a, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "A is 4 x 3 and B 4 x 3") != NULL);
  CHECK_STATUS(ctx, ts_spgemm_plan_create(ctx, a, b64, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "float values and B double") != NULL);
  CHECK_STATUS(ctx, ts_spgemm_plan_create(ctx, NULL, b, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_spgemm_plan_create(ctx, a, b, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_spgemm_host(ctx, a, b, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_csr_spgemm_host(ctx, a, a, &c), TS_ERROR_INVALID_ARGUMENT);
  b->symmetry = TS_SYMMETRIC;
  CHECK_STATUS(ctx, ts_spgemm_plan_create(ctx, a, b, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "B holds symmetric storage") != NULL);
  b->symmetry = TS_GENERAL;
  const int32_t kept = b->col_idx[0];
  b->col_idx[0] = 99;
  CHECK_STATUS(ctx, ts_spgemm_plan_create(ctx, a, b, NULL, &plan), TS_ERROR_INVALID_MATRIX);
  b->col_idx[0] = kept;
  ts_spgemm_options o = {0};
  o.memory_budget = -1;
  CHECK_STATUS(ctx, ts_spgemm_plan_create(ctx, a, b, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.memory_budget = 16;
  CHECK_STATUS(ctx, ts_spgemm_plan_create(ctx, a, b, &o, &plan), TS_ERROR_OUT_OF_MEMORY);
  CHECK(strstr(ts_last_error(ctx), "the copies of A and B needs") != NULL);
  CHECK(plan == NULL);
  /* Steps out of order. */
  CHECK_OK(ctx, ts_spgemm_plan_create(ctx, a, b, NULL, &plan));
  if (plan) {
    CHECK_STATUS(ctx, ts_spgemm_allocate(plan), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(ctx), "ts_spgemm_symbolic() first") != NULL);
    CHECK_STATUS(ctx, ts_spgemm_numeric(plan), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(ctx, ts_spgemm_download(plan, &c), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(ctx, ts_spgemm_c_buffers(plan, NULL, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(ctx, ts_spgemm_symbolic(plan));
    CHECK_STATUS(ctx, ts_spgemm_download(plan, &c), TS_ERROR_INVALID_ARGUMENT);
  }
  CHECK_STATUS(NULL, ts_spgemm_symbolic(NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK(ts_spgemm_plan_nnz(NULL) == -1);
cleanup:
  ts_spgemm_plan_destroy(plan);
  ts_context_destroy(ctx);
  ts_csr_destroy(a);
  ts_csr_destroy(b);
  ts_csr_destroy(b64);
}

int main(void) {
  test_hand_made();
  test_generated(TS_FLOAT32);
  test_generated(TS_FLOAT64);
  test_large_counts();
  test_refused();
  printf("%d products checked against the reference\n", checked);
  return test_finish();
}
