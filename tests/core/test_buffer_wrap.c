/* ts_buffer_wrap on the CPU backend: the buffer works on the caller's memory
 * in place (upload, download, copy, fill, SpMV), its destruction leaves the
 * memory to its owner, and bad arguments are refused. */
#include "test_common.h"

#include <stdint.h>

static void test_in_place(ts_context *ctx) {
  unsigned char mine[64];
  for (int i = 0; i < 64; i++)
    mine[i] = (unsigned char)(3 * i + 1);
  ts_buffer *wrapped = NULL;
  CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, mine, sizeof mine, &wrapped));
  CHECK(ts_buffer_data(wrapped) == mine);
  CHECK(ts_buffer_size(wrapped) == sizeof mine);
  CHECK(ts_buffer_memory(wrapped) == TS_MEMORY_DEVICE);

  /* A download reads the caller's bytes; an upload writes them. */
  unsigned char back[64] = {0};
  CHECK_OK(ctx, ts_buffer_download(ctx, wrapped, 0, back, sizeof back));
  CHECK(memcmp(back, mine, sizeof mine) == 0);
  const unsigned char patch[4] = {200, 201, 202, 203};
  CHECK_OK(ctx, ts_buffer_upload(ctx, wrapped, 10, patch, sizeof patch));
  CHECK(mine[9] == 28 && mine[10] == 200 && mine[13] == 203 && mine[14] == 43);

  /* A copy from an owned buffer lands in the caller's memory. */
  ts_buffer *owned = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 8, &owned));
  CHECK_OK(ctx, ts_buffer_fill_bytes(ctx, owned, 0x5a));
  CHECK_OK(ctx, ts_buffer_copy(ctx, wrapped, 32, owned, 0, 8));
  CHECK(mine[31] == 94 && mine[32] == 0x5a && mine[39] == 0x5a && mine[40] == 121);
  /* Ranges past the caller's size are refused like any buffer's. */
  CHECK_STATUS(ctx, ts_buffer_upload(ctx, wrapped, 60, patch, sizeof patch + 1), TS_ERROR_INVALID_ARGUMENT);

  /* Destroying the buffer leaves the memory (ASan would see a free of the stack). */
  ts_buffer_destroy(wrapped);
  CHECK(mine[0] == 1 && mine[63] == (unsigned char)(3 * 63 + 1));
  ts_buffer_destroy(owned);
}

/* y = A x with x and y the caller's arrays: A = [[2, 1], [0, 3]]. */
static void test_spmv_in_place(ts_context *ctx) {
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_csr_create(ctx, 2, 2, 3, TS_FLOAT64, &a));
  if (!a)
    return;
  const int64_t row_ptr[3] = {0, 2, 3};
  const int32_t col_idx[3] = {0, 1, 1};
  const double values[3] = {2.0, 1.0, 3.0};
  memcpy(a->row_ptr, row_ptr, sizeof row_ptr);
  memcpy(a->col_idx, col_idx, sizeof col_idx);
  memcpy(a->values, values, sizeof values);
  ts_spmv_plan *plan = NULL;
  CHECK_OK(ctx, ts_spmv_plan_create(ctx, a, &plan));
  double x[2] = {1.0, -2.0}, y[2] = {99.0, 99.0};
  ts_buffer *xb = NULL, *yb = NULL;
  CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, x, sizeof x, &xb));
  CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, y, sizeof y, &yb));
  CHECK_OK(ctx, ts_spmv_execute(plan, 1.0, xb, 0.0, yb));
  CHECK_OK(ctx, ts_context_sync(ctx));
  CHECK(y[0] == 0.0 && y[1] == -6.0);
  ts_buffer_destroy(xb);
  ts_buffer_destroy(yb);
  ts_spmv_plan_destroy(plan);
  ts_csr_destroy(a);
}

static void test_refused(ts_context *ctx) {
  double x[2] = {0};
  ts_buffer *b = (ts_buffer *)&b; /* set to NULL by a refusal */
  CHECK_STATUS(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, NULL, 16, &b), TS_ERROR_INVALID_ARGUMENT);
  CHECK(b == NULL);
  CHECK(strstr(ts_last_error(ctx), "NULL") != NULL);
  CHECK_STATUS(ctx, ts_buffer_wrap(ctx, (ts_memory)5, x, sizeof x, &b), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "memory kind 5") != NULL);
  CHECK_STATUS(NULL, ts_buffer_wrap(NULL, TS_MEMORY_HOST, x, sizeof x, &b), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_buffer_wrap(ctx, TS_MEMORY_HOST, x, sizeof x, NULL), TS_ERROR_INVALID_ARGUMENT);
  /* Zero bytes: NULL data is fine, and the buffer has no data. */
  CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_HOST, NULL, 0, &b));
  CHECK(b != NULL && ts_buffer_data(b) == NULL && ts_buffer_size(b) == 0);
  ts_buffer_destroy(b);
  CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_HOST, x, 0, &b));
  CHECK(b != NULL && ts_buffer_data(b) == NULL);
  ts_buffer_destroy(b);
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  if (!ctx)
    return test_finish();
  test_in_place(ctx);
  test_spmv_in_place(ctx);
  test_refused(ctx);
  ts_context_destroy(ctx);
  return test_finish();
}
