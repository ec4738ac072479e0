/* A context on a stream the caller owns: tessera queues its work there, in
 * order with the caller's own kernels, and leaves the stream alive when the
 * context is destroyed. */
#include "test_cuda_common.h"

/* Scale a vector in place: the caller's own work on the shared stream. */
__global__ void scale_in_place(float *v, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= factor;
}

static void test_user_stream(cudaStream_t stream) {
  ts_context_options options = {};
  options.backend = TS_BACKEND_CUDA;
  options.stream = (void *)stream;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  if (!ctx)
    return;
  CHECK(ts_context_stream(ctx) == (void *)stream);

  const int n = 1 << 20;
  float *host = (float *)malloc(n * sizeof(float));
  ts_buffer *v = NULL;
  CHECK(host != NULL);
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, n * sizeof(float), &v));
  if (host && v) {
    for (int i = 0; i < n; i++)
      host[i] = (float)(i % 1000) - 500.0f;
    CHECK_OK(ctx, ts_buffer_upload(ctx, v, 0, host, n * sizeof(float)));
    /* Caller's kernel, then tessera's fill of the first half, then another
     * caller's kernel: stream order makes the result exact. */
    scale_in_place<<<(n + 255) / 256, 256, 0, stream>>>((float *)ts_buffer_data(v), n, 2.0f);
    CUDA_CHECK(cudaGetLastError());
    ts_buffer *half = NULL;
    CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, n / 2 * sizeof(float), &half));
    if (half) {
      CHECK_OK(ctx, ts_buffer_fill_bytes(ctx, half, 0));
      CHECK_OK(ctx, ts_buffer_copy(ctx, v, 0, half, 0, n / 2 * sizeof(float)));
    }
    scale_in_place<<<(n + 255) / 256, 256, 0, stream>>>((float *)ts_buffer_data(v), n, 3.0f);
    CUDA_CHECK(cudaGetLastError());
    float *back = (float *)malloc(n * sizeof(float));
    CHECK(back != NULL);
    if (back) {
      CHECK_OK(ctx, ts_buffer_download(ctx, v, 0, back, n * sizeof(float)));
      int bad = -1;
      for (int i = 0; i < n && bad < 0; i++) {
        float want = i < n / 2 ? 0.0f : host[i] * 6.0f;
        if (back[i] != want)
          bad = i;
      }
      CHECK_MSG(bad < 0, "element %d out of stream order", bad);
      free(back);
    }
    ts_buffer_destroy(half);
  }
  CHECK_OK(ctx, ts_context_sync(ctx));
  ts_buffer_destroy(v);
  ts_context_destroy(ctx);
  free(host);
  /* The caller's stream outlives the context. */
  CUDA_CHECK(cudaStreamQuery(stream));
  scale_in_place<<<1, 32, 0, stream>>>(NULL, 0, 1.0f);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

/* Two contexts on one caller stream see each other's work in order. */
static void test_shared_stream(cudaStream_t stream) {
  ts_context_options options = {};
  options.backend = TS_BACKEND_CUDA;
  options.stream = (void *)stream;
  ts_context *a = NULL, *b = NULL;
  CHECK_OK(NULL, ts_context_create(&a, &options));
  CHECK_OK(NULL, ts_context_create(&b, &options));
  if (!a || !b) {
    ts_context_destroy(a);
    ts_context_destroy(b);
    return;
  }
  ts_buffer *x = NULL;
  CHECK_OK(a, ts_buffer_create(a, TS_MEMORY_DEVICE, 64, &x));
  CHECK_OK(a, ts_buffer_fill_bytes(a, x, 0x3C));
  ts_context_destroy(b); /* must not destroy the shared stream */
  unsigned char back[64] = {0};
  CHECK_OK(a, ts_buffer_download(a, x, 0, back, 64));
  CHECK(back[0] == 0x3C && back[63] == 0x3C);
  ts_buffer_destroy(x);
  ts_context_destroy(a);
  CUDA_CHECK(cudaStreamQuery(stream));
}

/* Write v[i] = value after spinning about `cycles` clocks, so that work
 * queued on another stream without ordering would read the old values. */
__global__ void slow_fill(float *v, int n, float value, long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = value;
}

/* A context on a stream of its own and a caller's stream, ordered only by
 * ts_context_wait_for_stream / ts_stream_wait_for_context: the caller fills
 * v slowly, tessera copies v to w, the caller fills v again slowly and then
 * reads w, with neither host waiting in between. Then the same with CUDA's
 * default stream as the caller's. */
static void test_stream_ordering(cudaStream_t caller) {
  ts_context_options options = {};
  options.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  if (!ctx)
    return;
  CHECK(ts_context_stream(ctx) != (void *)caller);
  const int n = 1 << 16;
  ts_buffer *v = NULL, *w = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, n * sizeof(float), &v));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, n * sizeof(float), &w));
  float *back = (float *)malloc(n * sizeof(float));
  CHECK(back != NULL);
  const cudaStream_t callers[2] = {caller, (cudaStream_t)0};
  for (int round = 0; round < 2 && v && w && back; round++) {
    const cudaStream_t other = callers[round];
    CHECK_OK(ctx, ts_buffer_fill_bytes(ctx, v, 0));
    CHECK_OK(ctx, ts_buffer_fill_bytes(ctx, w, 0));
    CHECK_OK(ctx, ts_context_sync(ctx));
    float *vd = (float *)ts_buffer_data(v);
    slow_fill<<<(n + 255) / 256, 256, 0, other>>>(vd, n, 7.0f + (float)round, 20000000LL);
    CUDA_CHECK(cudaGetLastError());
    CHECK_OK(ctx, ts_context_wait_for_stream(ctx, (void *)other));
    CHECK_OK(ctx, ts_buffer_copy(ctx, w, 0, v, 0, n * sizeof(float)));
    CHECK_OK(ctx, ts_stream_wait_for_context(ctx, (void *)other));
    slow_fill<<<(n + 255) / 256, 256, 0, other>>>(vd, n, -1.0f, 1000LL);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(back, ts_buffer_data(w), n * sizeof(float), cudaMemcpyDeviceToHost, other));
    CUDA_CHECK(cudaStreamSynchronize(other));
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
      if (back[i] != 7.0f + (float)round)
        bad = i;
    CHECK_MSG(bad < 0, "round %d: w[%d] = %g, copied out of order with the caller's stream", round, bad,
              bad < 0 ? 0.0 : (double)back[bad]);
  }
  /* The context's own stream: nothing to order. */
  CHECK_OK(ctx, ts_context_wait_for_stream(ctx, ts_context_stream(ctx)));
  CHECK_OK(ctx, ts_stream_wait_for_context(ctx, ts_context_stream(ctx)));
  CHECK_OK(ctx, ts_context_sync(ctx));
  free(back);
  ts_buffer_destroy(v);
  ts_buffer_destroy(w);
  ts_context_destroy(ctx);
}

int main(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    return test_skip("no usable CUDA device");
  }
  cudaStream_t stream = NULL;
  if (cudaStreamCreate(&stream) != cudaSuccess) {
    fprintf(stderr, "cudaStreamCreate: %s\n", cudaGetErrorString(cudaGetLastError()));
    return test_skip("no usable CUDA device");
  }
  test_user_stream(stream);
  test_shared_stream(stream);
  test_stream_ordering(stream);
  CUDA_CHECK(cudaStreamDestroy(stream));
  return test_finish();
}
