/* Core API: status strings, version, contexts and backend choice, buffers. */
#include "test_common.h"

static void test_status_strings(void) {
  CHECK(!TS_IS_ERROR(TS_SUCCESS) && !TS_IS_ERROR(TS_WARNING_PERTURBED_PIVOTS) && TS_IS_ERROR(TS_ERROR_CUDA));
  CHECK(strcmp(ts_status_string(TS_WARNING_PERTURBED_PIVOTS), "unknown status") != 0);
  for (int s = TS_SUCCESS; s <= TS_ERROR_CANCELLED; s++) {
    const char *text = ts_status_string((ts_status)s);
    CHECK(text != NULL && strlen(text) > 0 && strcmp(text, "unknown status") != 0);
  }
  CHECK(strcmp(ts_status_string((ts_status)999), "unknown status") == 0);
  CHECK(ts_version() == TESSERA_VERSION);
  CHECK(ts_dtype_size(TS_FLOAT32) == 4 && ts_dtype_size(TS_FLOAT64) == 8);
  CHECK(ts_dtype_size((ts_dtype)7) == 0);
}

static void test_cpu_context(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  CHECK(ctx != NULL);
  CHECK(ts_context_backend(ctx) == TS_BACKEND_CPU);
  CHECK(ts_context_stream(ctx) == NULL);
  CHECK_OK(ctx, ts_context_sync(ctx));
  /* Ordering with another stream has nothing to do on the CPU. */
  CHECK_OK(ctx, ts_context_wait_for_stream(ctx, NULL));
  CHECK_OK(ctx, ts_stream_wait_for_context(ctx, (void *)&options));
  CHECK(ts_context_wait_for_stream(NULL, NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "ts_context_wait_for_stream") != NULL);
  CHECK(ts_stream_wait_for_context(NULL, NULL) == TS_ERROR_INVALID_ARGUMENT);
  ts_device_info info;
  CHECK_OK(ctx, ts_context_device_info(ctx, &info));
  CHECK(info.ordinal == -1 && info.multiprocessors >= 1);

  /* Backend memory is host memory on the CPU: a round trip through copies. */
  double src[5] = {1, 2, 3, 4, 5}, dst[5] = {0};
  ts_buffer *a = NULL, *b = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, sizeof src, &a));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, sizeof src, &b));
  CHECK_OK(ctx, ts_buffer_upload(ctx, a, 0, src, sizeof src));
  CHECK_OK(ctx, ts_buffer_copy(ctx, b, 0, a, 0, sizeof src));
  CHECK_OK(ctx, ts_buffer_download(ctx, b, 0, dst, sizeof dst));
  CHECK(memcmp(src, dst, sizeof src) == 0);
  CHECK(ts_buffer_size(a) == sizeof src && ts_buffer_memory(a) == TS_MEMORY_DEVICE);

  /* Out-of-range copies are refused with a message naming the range. */
  CHECK_STATUS(ctx, ts_buffer_download(ctx, b, 8, dst, sizeof dst), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "outside a buffer of 40 bytes") != NULL);
  CHECK_STATUS(ctx, ts_buffer_upload(ctx, a, 0, NULL, 8), TS_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ctx, ts_buffer_fill_bytes(ctx, a, 0));
  CHECK_OK(ctx, ts_buffer_download(ctx, a, 0, dst, sizeof dst));
  CHECK(dst[0] == 0.0 && dst[4] == 0.0);

  ts_buffer *empty = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_HOST, 0, &empty));
  CHECK(ts_buffer_data(empty) == NULL && ts_buffer_size(empty) == 0);
  ts_buffer_destroy(empty);
  ts_buffer_destroy(a);
  ts_buffer_destroy(b);
  ts_buffer_destroy(NULL);
  ts_context_destroy(ctx);
  ts_context_destroy(NULL);
}

static void test_bad_arguments(void) {
  CHECK_STATUS(NULL, ts_context_create(NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "ctx is NULL") != NULL);
  ts_context_options options = {0};
  options.backend = (ts_backend)42;
  ts_context *ctx = (ts_context *)&options; /* must be reset to NULL */
  CHECK_STATUS(NULL, ts_context_create(&ctx, &options), TS_ERROR_INVALID_ARGUMENT);
  CHECK(ctx == NULL);
  options.backend = TS_BACKEND_CPU;
  options.num_threads = -3;
  CHECK_STATUS(NULL, ts_context_create(&ctx, &options), TS_ERROR_INVALID_ARGUMENT);
}

/* AUTO picks CUDA exactly when forcing CUDA succeeds; forcing CUDA on a
 * machine without a GPU is a clear status, never a crash. */
static void test_backend_choice(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  ts_context *cuda = NULL;
  ts_status forced = ts_context_create(&cuda, &options);
  if (forced == TS_SUCCESS) {
    CHECK(ts_context_backend(cuda) == TS_BACKEND_CUDA);
    ts_context_destroy(cuda);
  } else {
    CHECK(forced == TS_ERROR_NO_DEVICE);
    CHECK(cuda == NULL);
    /* The message names what is missing: the driver, a device, or CUDA in the build. */
    const char *why = ts_last_error(NULL);
    CHECK(strstr(why, "driver") != NULL || strstr(why, "device") != NULL || strstr(why, "CUDA") != NULL);
  }
  ts_context *automatic = NULL;
  CHECK_OK(NULL, ts_context_create(&automatic, NULL));
  CHECK(ts_context_backend(automatic) == (forced == TS_SUCCESS ? TS_BACKEND_CUDA : TS_BACKEND_CPU));
  ts_context_destroy(automatic);

  options.device = 1000; /* no machine has that many GPUs */
  CHECK_STATUS(NULL, ts_context_create(&cuda, &options), TS_ERROR_NO_DEVICE);
}

int main(void) {
  test_status_strings();
  test_cpu_context();
  test_bad_arguments();
  test_backend_choice();
  return test_finish();
}
