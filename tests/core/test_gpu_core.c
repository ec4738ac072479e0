/* CUDA backend of the core: context creation, device information, buffers
 * round-tripping patterns of awkward sizes, device-to-device copies, fills,
 * refused ranges and foreign buffers, allocation failure. Under
 * compute-sanitizer (TESSERA_UNDER_SANITIZER names the tool) the largest
 * buffer is 4 MiB instead of 128 MiB and the refused huge allocation is
 * left out (the sanitizer would report it as an API error). */
#include "test_common.h"

#include <stdbool.h>
#include <stdint.h>

/* Byte i of pattern `seed`: never constant, so shifted or missing bytes show. */
static unsigned char pattern_byte(size_t i, unsigned seed) {
  uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ull + seed;
  return (unsigned char)(z >> 56 ^ z >> 17 ^ z);
}

static void fill_pattern(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = pattern_byte(i, seed);
}

/* Index of the first byte differing from the pattern, or n. */
static size_t first_mismatch(const unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != pattern_byte(i, seed))
      return i;
  return n;
}

static void test_device_info(ts_context *ctx) {
  CHECK(ts_context_backend(ctx) == TS_BACKEND_CUDA);
  CHECK(ts_context_stream(ctx) != NULL);
  ts_device_info info;
  CHECK_OK(ctx, ts_context_device_info(ctx, &info));
  CHECK(strlen(info.name) > 0);
  CHECK(info.ordinal == 0);
  CHECK(info.compute_major >= 5 && info.compute_major < 100);
  CHECK(info.compute_minor >= 0 && info.compute_minor < 10);
  CHECK(info.multiprocessors > 0);
  CHECK(info.global_memory >= ((int64_t)1 << 30));
  CHECK(info.l2_cache_bytes > 0);
  CHECK(info.shared_per_block >= (int64_t)48 * 1024);
  CHECK(info.driver_version >= 1000 && info.runtime_version >= 1000);
  printf("device: %s, compute %d.%d, %d SMs, %.1f GiB, driver %d, runtime %d\n", info.name, info.compute_major,
         info.compute_minor, info.multiprocessors, (double)info.global_memory / (1 << 30), info.driver_version,
         info.runtime_version);
  CHECK_OK(ctx, ts_context_sync(ctx));
}

/* Upload a pattern, copy it device-to-device, download both, check every byte;
 * then the same through offsets, and a fill. */
static void round_trip(ts_context *ctx, size_t bytes, unsigned seed) {
  unsigned char *host = malloc(bytes ? bytes : 1), *back = malloc(bytes ? bytes : 1);
  ts_buffer *a = NULL, *b = NULL;
  CHECK(host && back);
  if (!host || !back)
    goto cleanup;
  fill_pattern(host, bytes, seed);
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &a));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &b));
  if (!a || !b)
    goto cleanup;
  CHECK(ts_buffer_size(a) == bytes && ts_buffer_memory(a) == TS_MEMORY_DEVICE);
  CHECK((bytes == 0) == (ts_buffer_data(a) == NULL));
  CHECK_OK(ctx, ts_buffer_upload(ctx, a, 0, host, bytes));
  CHECK_OK(ctx, ts_buffer_copy(ctx, b, 0, a, 0, bytes));
  memset(back, 0, bytes);
  CHECK_OK(ctx, ts_buffer_download(ctx, a, 0, back, bytes));
  size_t bad = first_mismatch(back, bytes, seed);
  CHECK_MSG(bad == bytes, "%zu-byte upload/download differs at byte %zu", bytes, bad);
  memset(back, 0, bytes);
  CHECK_OK(ctx, ts_buffer_download(ctx, b, 0, back, bytes));
  bad = first_mismatch(back, bytes, seed);
  CHECK_MSG(bad == bytes, "%zu-byte device copy differs at byte %zu", bytes, bad);
  if (bytes >= 3) {
    /* Unaligned pieces: b[1..n-1) = a[2..n), read back from offset 1. */
    CHECK_OK(ctx, ts_buffer_copy(ctx, b, 1, a, 2, bytes - 2));
    memset(back, 0, bytes);
    CHECK_OK(ctx, ts_buffer_download(ctx, b, 1, back, bytes - 2));
    size_t shifted_bad = bytes - 2;
    for (size_t i = 0; i < bytes - 2 && shifted_bad == bytes - 2; i++)
      if (back[i] != pattern_byte(i + 2, seed))
        shifted_bad = i;
    CHECK_MSG(shifted_bad == bytes - 2, "%zu-byte shifted copy differs at byte %zu", bytes, shifted_bad);
    /* The first and last bytes of b are outside the shifted copy. */
    unsigned char edge[2] = {0, 0};
    CHECK_OK(ctx, ts_buffer_download(ctx, b, 0, &edge[0], 1));
    CHECK_OK(ctx, ts_buffer_download(ctx, b, bytes - 1, &edge[1], 1));
    CHECK(edge[0] == pattern_byte(0, seed) && edge[1] == pattern_byte(bytes - 1, seed));
    /* One byte uploaded at an odd offset in the middle. */
    unsigned char piece = (unsigned char)(pattern_byte(bytes / 2, seed) ^ 0xFF);
    CHECK_OK(ctx, ts_buffer_upload(ctx, a, bytes / 2, &piece, 1));
    CHECK_OK(ctx, ts_buffer_download(ctx, a, bytes / 2 - 1, back, 3));
    CHECK(back[0] == pattern_byte(bytes / 2 - 1, seed) && back[1] == piece &&
          back[2] == pattern_byte(bytes / 2 + 1, seed));
  }
  CHECK_OK(ctx, ts_buffer_fill_bytes(ctx, a, 0x5C));
  memset(back, 0, bytes);
  CHECK_OK(ctx, ts_buffer_download(ctx, a, 0, back, bytes));
  size_t not_filled = bytes;
  for (size_t i = 0; i < bytes; i++)
    if (back[i] != 0x5C) {
      not_filled = i;
      break;
    }
  CHECK_MSG(not_filled == bytes, "%zu-byte fill missed byte %zu", bytes, not_filled);
  CHECK_OK(ctx, ts_context_sync(ctx));
cleanup:
  ts_buffer_destroy(a);
  ts_buffer_destroy(b);
  free(host);
  free(back);
}

static void test_ranges(ts_context *ctx) {
  ts_buffer *a = NULL, *h = NULL;
  unsigned char data[64] = {0};
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 40, &a));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_HOST, 40, &h));
  if (!a || !h)
    goto cleanup;
  CHECK_STATUS(ctx, ts_buffer_upload(ctx, a, 0, data, 41), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "outside a buffer of 40 bytes") != NULL);
  CHECK_STATUS(ctx, ts_buffer_upload(ctx, a, 41, data, 0), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_buffer_download(ctx, a, 8, data, 33), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_buffer_download(ctx, a, SIZE_MAX, data, 2), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_buffer_copy(ctx, a, 1, a, 0, 40), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_buffer_upload(ctx, a, 0, NULL, 8), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_buffer_download(ctx, a, 0, NULL, 8), TS_ERROR_INVALID_ARGUMENT);
  ts_buffer *refused = NULL;
  CHECK_STATUS(ctx, ts_buffer_create(ctx, (ts_memory)7, 8, &refused), TS_ERROR_INVALID_ARGUMENT);
  CHECK(refused == NULL);
  /* The refused calls above left the buffer usable. */
  for (int i = 0; i < 40; i++)
    data[i] = (unsigned char)(3 * i + 1);
  CHECK_OK(ctx, ts_buffer_upload(ctx, a, 0, data, 40));
  /* Host and device buffers mix in copies. */
  CHECK_OK(ctx, ts_buffer_copy(ctx, h, 0, a, 0, 40));
  CHECK(memcmp(ts_buffer_data(h), data, 40) == 0);
  ((unsigned char *)ts_buffer_data(h))[5] = 0xEE;
  CHECK_OK(ctx, ts_buffer_copy(ctx, a, 0, h, 0, 40));
  unsigned char back[40] = {0};
  CHECK_OK(ctx, ts_buffer_download(ctx, a, 0, back, 40));
  CHECK(back[5] == 0xEE && back[6] == data[6]);
  CHECK_OK(ctx, ts_context_sync(ctx));
cleanup:
  ts_buffer_destroy(a);
  ts_buffer_destroy(h);
}

/* A buffer of one context is refused by another; a failed huge allocation
 * reports out of memory and leaves the context working. */
static void test_two_contexts_and_oom(ts_context *ctx) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  ts_context *other = NULL;
  ts_buffer *a = NULL, *b = NULL, *huge = NULL;
  CHECK_OK(NULL, ts_context_create(&other, &options));
  if (!other)
    return;
  CHECK(ts_context_stream(other) != ts_context_stream(ctx));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 16, &a));
  CHECK_OK(other, ts_buffer_create(other, TS_MEMORY_DEVICE, 16, &b));
  CHECK_STATUS(ctx, ts_buffer_copy(ctx, a, 0, b, 0, 16), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "another context") != NULL);
  unsigned char data[16] = {1, 2, 3};
  CHECK_STATUS(other, ts_buffer_upload(other, a, 0, data, 16), TS_ERROR_INVALID_ARGUMENT);

  /* Under compute-sanitizer the refused cudaMalloc would count as an API error. */
  const char *sanitizer = getenv("TESSERA_UNDER_SANITIZER");
  ts_device_info info;
  CHECK_OK(ctx, ts_context_device_info(ctx, &info));
  if (sanitizer && *sanitizer)
    goto done;
  size_t too_much = (size_t)info.global_memory * 4;
  CHECK_STATUS(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, too_much, &huge), TS_ERROR_OUT_OF_MEMORY);
  CHECK(huge == NULL);
  CHECK(strstr(ts_last_error(ctx), "cudaMalloc") != NULL);
  CHECK_OK(ctx, ts_buffer_upload(ctx, a, 0, data, 16));
  unsigned char back[16] = {0};
  CHECK_OK(ctx, ts_buffer_download(ctx, a, 0, back, 16));
  CHECK(memcmp(back, data, 16) == 0);
done:
  CHECK_OK(ctx, ts_context_sync(ctx));
  ts_buffer_destroy(a);
  ts_buffer_destroy(b);
  ts_context_destroy(other);
}

static void test_bad_device(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  options.device = 4096;
  ts_context *ctx = NULL;
  CHECK_STATUS(NULL, ts_context_create(&ctx, &options), TS_ERROR_NO_DEVICE);
  CHECK(ctx == NULL);
  CHECK(strstr(ts_last_error(NULL), "4096") != NULL);
  options.device = -1;
  CHECK_STATUS(NULL, ts_context_create(&ctx, &options), TS_ERROR_NO_DEVICE);
  /* AUTO picks the GPU where one is usable. */
  options.backend = TS_BACKEND_AUTO;
  options.device = 0;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  CHECK(ctx && ts_context_backend(ctx) == TS_BACKEND_CUDA);
  ts_context_destroy(ctx);
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &options) != TS_SUCCESS) {
    fprintf(stderr, "%s\n", ts_last_error(NULL));
    return test_skip("no usable CUDA device");
  }
  const char *sanitizer = getenv("TESSERA_UNDER_SANITIZER");
  const bool under_sanitizer = sanitizer && *sanitizer;
  printf("selection: %s\n", under_sanitizer ? "sanitizer (largest buffer 4 MiB + 3, no refused huge allocation)"
                                            : "full (largest buffer 128 MiB + 3)");
  test_device_info(ctx);
  const size_t sizes[] = {0, 1, 2, 3, 4095, ((size_t)1 << (under_sanitizer ? 22 : 27)) + 3};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    round_trip(ctx, sizes[i], 17u + (unsigned)i);
  test_ranges(ctx);
  test_two_contexts_and_oom(ctx);
  test_bad_device();
  ts_context_destroy(ctx);
  return test_finish();
}
