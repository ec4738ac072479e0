/* ts_buffer_wrap on the CUDA backend: device memory another owner allocated
 * is used in place (here the memory of a tessera buffer stands for another
 * library's array), and pointers of the wrong kind are refused before any
 * kernel or copy could fault on them. */
#include "test_common.h"

#include <stdint.h>

static void test_device_memory_in_place(ts_context *ctx) {
  enum { count = 1000 };
  ts_buffer *owner = NULL, *view = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, count * sizeof(uint32_t), &owner));
  if (!owner)
    return;
  uint32_t host[count], back[count];
  for (int i = 0; i < count; i++)
    host[i] = (uint32_t)(i * 2654435761u);
  CHECK_OK(ctx, ts_buffer_upload(ctx, owner, 0, host, sizeof host));
  CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, ts_buffer_data(owner), sizeof host, &view));
  CHECK_OK(ctx, ts_buffer_download(ctx, view, 0, back, sizeof back));
  CHECK(memcmp(host, back, sizeof host) == 0);
  /* A fill through the view is seen through the owner. */
  CHECK_OK(ctx, ts_buffer_fill_bytes(ctx, view, 0x11));
  CHECK_OK(ctx, ts_buffer_download(ctx, owner, 0, back, sizeof back));
  CHECK(back[0] == 0x11111111u && back[count - 1] == 0x11111111u);
  /* Destroying the view leaves the memory valid for its owner. */
  ts_buffer_destroy(view);
  CHECK_OK(ctx, ts_buffer_upload(ctx, owner, 0, host, sizeof host));
  CHECK_OK(ctx, ts_buffer_download(ctx, owner, 0, back, sizeof back));
  CHECK(memcmp(host, back, sizeof host) == 0);
  ts_buffer_destroy(owner);
}

static void test_wrong_kind(ts_context *ctx) {
  double host[4] = {0};
  ts_buffer *b = NULL, *owner = NULL;
  /* Host memory given as device memory: a kernel would fault on it. */
  CHECK_STATUS(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, host, sizeof host, &b), TS_ERROR_INVALID_ARGUMENT);
  CHECK(b == NULL);
  CHECK(strstr(ts_last_error(ctx), "given as device memory") != NULL);
  /* Device memory given as host memory: a memcpy would fault on it. */
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 64, &owner));
  if (owner) {
    CHECK_STATUS(ctx, ts_buffer_wrap(ctx, TS_MEMORY_HOST, ts_buffer_data(owner), 64, &b), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(ctx), "device memory, given as host memory") != NULL);
  }
  /* Host memory as host memory is fine. */
  CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_HOST, host, sizeof host, &b));
  ts_buffer_destroy(b);
  ts_buffer_destroy(owner);
  /* The context stays usable after the refusals. */
  CHECK_OK(ctx, ts_context_sync(ctx));
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &options) != TS_SUCCESS) {
    fprintf(stderr, "%s\n", ts_last_error(NULL));
    return test_skip("no usable CUDA device");
  }
  test_device_memory_in_place(ctx);
  test_wrong_kind(ctx);
  ts_context_destroy(ctx);
  return test_finish();
}
