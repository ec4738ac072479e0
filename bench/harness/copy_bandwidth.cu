/* The device's copy bandwidth, measured in the same run as the benchmark it
 * anchors: bytes read plus bytes written by a large device-to-device copy,
 * through cudaMemcpyAsync and through a 16-byte vectorised copy kernel. */
#include "tsb_cuda.h"

#include <stdint.h>
#include <stdlib.h>

/* Word i of the source: a hash of i, so that a misplaced or missing block
 * shows, and the data are not zeros. */
__host__ __device__ static inline uint32_t pattern_word(uint64_t i) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(z >> 32) ^ (uint32_t)z;
}

__global__ void fill_pattern(uint32_t *words, uint64_t n) {
  uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    words[i] = pattern_word(i);
}

/* Grid-stride copy with four independent 16-byte loads in flight per thread
 * before their stores: enough bytes in flight per SM to cover HBM latency. */
__global__ void copy_vectorised(const uint4 *__restrict__ src, uint4 *__restrict__ dst, uint64_t n) {
  uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride)
    dst[i] = src[i];
}

struct copy_job {
  void *src, *dst;
  size_t bytes;
  int use_kernel;
  unsigned grid;
};

static int run_copy(void *user, void *stream) {
  copy_job *job = (copy_job *)user;
  cudaStream_t s = (cudaStream_t)stream;
  if (job->use_kernel) {
    copy_vectorised<<<job->grid, 256, 0, s>>>((const uint4 *)job->src, (uint4 *)job->dst, job->bytes / 16);
    TSB_LAUNCH_TRY("copy_vectorised");
  } else {
    TSB_CUDA_TRY(cudaMemcpyAsync(job->dst, job->src, job->bytes, cudaMemcpyDeviceToDevice, s));
  }
  return 0;
}

/* Compare three 1 MiB windows of dst (start, middle, end) with the pattern. */
static int check_copy(const void *dst, size_t bytes, const char *method) {
  const size_t window = (size_t)1 << 20;
  size_t starts[3] = {0, (bytes / 2) & ~(size_t)15, bytes > window ? bytes - window : 0};
  uint32_t *host = (uint32_t *)malloc(window);
  if (!host) {
    fprintf(stderr, "error: out of host memory checking the copy\n");
    return 1;
  }
  int bad = 0;
  for (int w = 0; w < 3 && !bad; w++) {
    size_t n = bytes - starts[w] < window ? bytes - starts[w] : window;
    cudaError_t err = cudaMemcpy(host, (const char *)dst + starts[w], n, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
      fprintf(stderr, "error: reading back the copy: %s\n", cudaGetErrorString(err));
      bad = 1;
      break;
    }
    for (size_t k = 0; k < n / 4; k++) {
      uint64_t word = starts[w] / 4 + k;
      if (host[k] != pattern_word(word)) {
        fprintf(stderr, "error: %s copy wrong at word %llu: %08x, expected %08x\n", method, (unsigned long long)word,
                host[k], pattern_word(word));
        bad = 1;
        break;
      }
    }
  }
  free(host);
  return bad;
}

static int measure(cudaStream_t stream, void *src, void *dst, size_t bytes, int samples, tsb_copy_bandwidth *out) {
  int device = 0, sms = 0, blocks_per_sm = 0;
  TSB_CUDA_TRY(cudaGetDevice(&device));
  TSB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TSB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, copy_vectorised, 256, 0));
  if (blocks_per_sm < 1)
    blocks_per_sm = 1;

  fill_pattern<<<(unsigned)sms * 8, 256, 0, stream>>>((uint32_t *)src, bytes / 4);
  TSB_LAUNCH_TRY("fill_pattern");
  TSB_CUDA_TRY(cudaStreamSynchronize(stream));

  copy_job job = {src, dst, bytes, 1, (unsigned)(sms * blocks_per_sm)};
  tsb_stats kernel, memcpy_stats;
  TSB_CUDA_TRY(cudaMemsetAsync(dst, 0, bytes, stream));
  if (tsb_time_events(stream, 2, samples, run_copy, &job, &kernel) != 0)
    return 1;
  if (check_copy(dst, bytes, "kernel") != 0)
    return 1;
  job.use_kernel = 0;
  TSB_CUDA_TRY(cudaMemsetAsync(dst, 0, bytes, stream));
  if (tsb_time_events(stream, 2, samples, run_copy, &job, &memcpy_stats) != 0)
    return 1;
  if (check_copy(dst, bytes, "cudaMemcpyAsync") != 0)
    return 1;

  out->bytes = bytes;
  out->samples = samples;
  out->kernel_gbps = tsb_gbps(2.0 * (double)bytes, kernel.median);
  out->memcpy_gbps = tsb_gbps(2.0 * (double)bytes, memcpy_stats.median);
  out->best_gbps = out->kernel_gbps > out->memcpy_gbps ? out->kernel_gbps : out->memcpy_gbps;
  return 0;
}

extern "C" int tsb_measure_copy_bandwidth(void *stream, size_t bytes, int samples, tsb_copy_bandwidth *out) {
  if (!out || samples <= 0) {
    fprintf(stderr, "error: tsb_measure_copy_bandwidth: bad arguments\n");
    return 1;
  }
  if (bytes == 0) {
    size_t free_bytes = 0, total_bytes = 0;
    TSB_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    bytes = (size_t)4 << 30;
    if (free_bytes / 4 < bytes)
      bytes = free_bytes / 4;
  }
  bytes &= ~(size_t)4095; /* whole 16-byte vectors, page-aligned ends */
  if (bytes < ((size_t)1 << 20)) {
    fprintf(stderr, "error: tsb_measure_copy_bandwidth: %zu bytes is too small to measure\n", bytes);
    return 1;
  }
  void *src = NULL, *dst = NULL;
  int failed = 0;
  cudaError_t err = cudaMalloc(&src, bytes);
  if (err == cudaSuccess)
    err = cudaMalloc(&dst, bytes);
  if (err != cudaSuccess) {
    fprintf(stderr, "error: cudaMalloc of 2 x %zu bytes for the copy bandwidth: %s\n", bytes, cudaGetErrorString(err));
    failed = 1;
  }
  if (!failed)
    failed = measure((cudaStream_t)stream, src, dst, bytes, samples, out);
  (void)cudaStreamSynchronize((cudaStream_t)stream);
  if (src)
    (void)cudaFree(src);
  if (dst)
    (void)cudaFree(dst);
  return failed;
}
