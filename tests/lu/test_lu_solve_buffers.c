/* ts_lu_solve_buffers on the host: the same bits as ts_lu_solve for B and X
 * in buffers of either memory kind (backend memory is host memory on the
 * CPU backend), made by ts_buffer_create and by ts_buffer_wrap, with
 * leading dimensions above n and the gaps between X's columns kept; real and
 * complex values, A x = b and A^T x = b; and the refusals: a NULL buffer, a
 * buffer too small for its columns, B and X overlapping, no factorization,
 * a right-hand side that is not finite. */
#include "test_lu_numeric_common.h"

#include <string.h>

static ts_context *ctx;

static ts_lu *factored(const ts_csr *a) {
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a)));
  return lu;
}

/* Solve through buffers of `memory` and through ts_lu_solve: the same x,
 * and X's gaps untouched. parts: 2 for complex values. */
static void check_same(ts_lu *lu, int64_t n, int parts, ts_operation op, ts_memory memory, int wrapped) {
  const int64_t nrhs = 3, ld = n + 4, count = ld * nrhs * parts;
  double *b = malloc((size_t)count * sizeof *b), *x = malloc((size_t)count * sizeof *x);
  double *x_buffer_host = malloc((size_t)count * sizeof *x);
  unsigned long long state = 17;
  for (int64_t i = 0; i < count; i++) {
    b[i] = test_random(&state);
    x[i] = -7.0; /* the gaps' marker */
  }
  CHECK_OK(ctx, ts_lu_solve(lu, op, nrhs, b, ld, x, ld));
  ts_buffer *bb = NULL, *xb = NULL;
  double *wrapped_b = NULL, *wrapped_x = NULL;
  const size_t bytes = (size_t)count * sizeof(double);
  if (wrapped) {
    wrapped_b = malloc(bytes);
    wrapped_x = malloc(bytes);
    memcpy(wrapped_b, b, bytes);
    CHECK_OK(ctx, ts_buffer_wrap(ctx, memory, wrapped_b, bytes, &bb));
    CHECK_OK(ctx, ts_buffer_wrap(ctx, memory, wrapped_x, bytes, &xb));
  } else {
    CHECK_OK(ctx, ts_buffer_create(ctx, memory, bytes, &bb));
    CHECK_OK(ctx, ts_buffer_create(ctx, memory, bytes, &xb));
    CHECK_OK(ctx, ts_buffer_upload(ctx, bb, 0, b, bytes));
  }
  for (int64_t i = 0; i < count; i++)
    x_buffer_host[i] = -7.0;
  CHECK_OK(ctx, ts_buffer_upload(ctx, xb, 0, x_buffer_host, bytes));
  CHECK_OK(ctx, ts_lu_solve_buffers(lu, op, nrhs, bb, ld, xb, ld));
  CHECK_OK(ctx, ts_buffer_download(ctx, xb, 0, x_buffer_host, bytes));
  CHECK_MSG(memcmp(x, x_buffer_host, bytes) == 0,
            "n %lld parts %d op %d memory %d wrapped %d: x differs from ts_lu_solve's", (long long)n, parts, (int)op,
            (int)memory, wrapped);
  ts_buffer_destroy(bb);
  ts_buffer_destroy(xb);
  free(wrapped_b);
  free(wrapped_x);
  free(b);
  free(x);
  free(x_buffer_host);
}

static void test_real(void) {
  const int64_t n = 300;
  ts_csr *a = lu_test_random(ctx, n, 4, 0, 5);
  CHECK(a != NULL);
  if (!a)
    return;
  ts_lu *lu = factored(a);
  for (int op = 0; op < 2; op++)
    for (int memory = 0; memory < 2; memory++)
      for (int wrapped = 0; wrapped < 2; wrapped++)
        check_same(lu, n, 1, op ? TS_OP_TRANSPOSE : TS_OP_NONE, (ts_memory)memory, wrapped);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* A complex matrix on a random real one's pattern: its values plus i times
 * other random values. */
static ts_csr *complex_random(int64_t n) {
  ts_csr *real = lu_test_random(ctx, n, 4, 0, 9), *a = NULL;
  if (!real)
    return NULL;
  if (ts_csr_create(ctx, n, n, real->nnz, TS_COMPLEX128, &a) == TS_SUCCESS) {
    memcpy(a->row_ptr, real->row_ptr, (size_t)(n + 1) * sizeof(int64_t));
    memcpy(a->col_idx, real->col_idx, (size_t)real->nnz * sizeof(int32_t));
    const double *v = real->values;
    double *w = a->values;
    unsigned long long state = 13;
    for (int64_t e = 0; e < real->nnz; e++) {
      w[2 * e] = v[e];
      w[2 * e + 1] = test_random(&state);
    }
    a->nnz = real->nnz;
  }
  ts_csr_destroy(real);
  return a;
}

static void test_complex(void) {
  ts_csr *a = complex_random(200);
  CHECK(a != NULL);
  if (!a)
    return;
  ts_lu *lu = factored(a);
  check_same(lu, 200, 2, TS_OP_NONE, TS_MEMORY_DEVICE, 0);
  check_same(lu, 200, 2, TS_OP_CONJ_TRANSPOSE, TS_MEMORY_HOST, 1);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

static void test_refusals(void) {
  const int64_t n = 50;
  ts_csr *a = lu_test_random(ctx, n, 3, 1, 7);
  CHECK(a != NULL);
  if (!a)
    return;
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  ts_buffer *b = NULL, *x = NULL, *small = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)n * sizeof(double), &b));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)n * sizeof(double), &x));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)(n - 1) * sizeof(double), &small));
  /* No factorization yet. */
  CHECK(ts_lu_solve_buffers(lu, TS_OP_NONE, 1, b, n, x, n) == TS_ERROR_NOT_FACTORED);
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a)));
  CHECK(ts_lu_solve_buffers(NULL, TS_OP_NONE, 1, b, n, x, n) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(ts_lu_solve_buffers(lu, TS_OP_NONE, 1, NULL, n, x, n) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "b is NULL") != NULL);
  CHECK(ts_lu_solve_buffers(lu, TS_OP_NONE, 1, b, n, NULL, n) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(ts_lu_solve_buffers(lu, TS_OP_NONE, 1, b, n, small, n) == TS_ERROR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(ts_last_error(ctx), "x holds") != NULL, "%s", ts_last_error(ctx));
  /* Two columns do not fit one column's buffer. */
  CHECK(ts_lu_solve_buffers(lu, TS_OP_NONE, 2, b, n, x, n) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(ts_lu_solve_buffers(lu, TS_OP_NONE, 1, b, n, b, n) == TS_ERROR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(ts_last_error(ctx), "overlap") != NULL, "%s", ts_last_error(ctx));
  CHECK(ts_lu_solve_buffers(lu, TS_OP_NONE, 1, b, n - 1, x, n) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(ts_lu_solve_buffers(lu, TS_OP_NONE, -1, b, n, x, n) == TS_ERROR_INVALID_ARGUMENT);
  /* A right-hand side that is not finite. */
  double *values = malloc((size_t)n * sizeof *values);
  for (int64_t i = 0; i < n; i++)
    values[i] = i == 7 ? NAN : 1.0;
  CHECK_OK(ctx, ts_buffer_upload(ctx, b, 0, values, (size_t)n * sizeof(double)));
  CHECK(ts_lu_solve_buffers(lu, TS_OP_NONE, 1, b, n, x, n) == TS_ERROR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(ts_last_error(ctx), "row 7") != NULL, "%s", ts_last_error(ctx));
  /* Nothing to solve: success. */
  CHECK_OK(ctx, ts_lu_solve_buffers(lu, TS_OP_NONE, 0, b, n, x, n));
  free(values);
  ts_buffer_destroy(b);
  ts_buffer_destroy(x);
  ts_buffer_destroy(small);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_real();
  test_complex();
  test_refusals();
  ts_context_destroy(ctx);
  return test_finish();
}
