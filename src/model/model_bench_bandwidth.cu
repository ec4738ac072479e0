/* DRAM bandwidth against multiplicity: a read kernel with exactly w warps
 * per SM (blocks capped per SM by a shared-memory reservation, the occupancy
 * "spoiler" of the gpu-stream benchmarks), four independent loads in flight
 * per thread, over a buffer several times L2. Little's law (Volkov 2016)
 * makes bandwidth grow with bytes in flight until DRAM saturates. Also: the
 * bandwidth of random 32-byte sectors, and of a buffer resident in L2 (many
 * passes in one launch, so that launch overhead does not count). */
#include "model/model_bench.cuh"

#include <stdint.h>

/* Four loads of T in flight per thread; grid-stride over n elements. */
template <class T> __global__ void tsi_model_read(const T *__restrict__ in, size_t n, float *sink) {
  extern __shared__ char spoiler[];
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    T a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
    acc += (float)(a + b) + (float)(c + d);
  }
  for (; i < n; i += stride)
    acc += (float)in[i];
  if (acc == -1.0f) { /* never: keeps the loads */
    spoiler[0] = 1;
    *sink = acc + spoiler[threadIdx.x];
  }
}

/* float4 loads: the peak point. */
__global__ void tsi_model_read4(const float4 *__restrict__ in, size_t n, float *sink) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
    acc += (a.x + b.y) + (c.z + d.w);
  }
  for (; i < n; i += stride)
    acc += in[i].x;
  if (acc == -1.0f)
    *sink = acc;
}

/* L2: `passes` grid-stride passes over a buffer that L2 holds, in one launch. */
__global__ void tsi_model_read_passes(const float4 *__restrict__ in, size_t n, int passes, float *sink) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  float acc = 0;
  for (int p = 0; p < passes; p++)
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
      acc += __ldcg(in + i).y;
  if (acc == -1.0f)
    *sink = acc;
}

/* Random sectors: each thread reads one float of four random 32-byte sectors per step. */
__global__ void tsi_model_random(const float *__restrict__ in, size_t sectors, unsigned steps, float *sink) {
  unsigned long long x = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) * 0x9e3779b97f4a7c15ULL + 1;
  float acc = 0;
  for (unsigned s = 0; s < steps; s++) {
    size_t idx[4];
    for (int k = 0; k < 4; k++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      idx[k] = (size_t)(x & (sectors - 1)) * 8; /* sectors: a power of two */
    }
    acc += (__ldcg(in + idx[0]) + __ldcg(in + idx[1])) + (__ldcg(in + idx[2]) + __ldcg(in + idx[3]));
  }
  if (acc == -1.0f)
    *sink = acc;
}

static cudaError_t time_ms(const tsi_model_bench &b, float *ms) { return tsi_model_elapsed(b, ms); }

/* Read `bytes` of the large buffer with w warps per SM; GB/s. */
static cudaError_t sweep_point(const tsi_model_bench &b, int warps, int64_t shared_per_sm, int reserved, double *gbps) {
  int blocks_per_sm = (warps + 31) / 32;
  int threads = warps * 32 / blocks_per_sm;
  /* Shared memory so that no more than blocks_per_sm blocks fit on an SM. */
  size_t spoiler = (size_t)(shared_per_sm / blocks_per_sm) / 128 * 128 - (size_t)reserved;
  cudaError_t err =
      cudaFuncSetAttribute(tsi_model_read<float>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)spoiler);
  size_t n = b.big_bytes / sizeof(float);
  float *sink = (float *)(b.scratch);
  double best = 0;
  for (int rep = 0; rep < 3 && err == cudaSuccess; rep++) {
    err = tsi_model_flush_l2(b);
    if (err == cudaSuccess)
      err = cudaEventRecord(b.start, b.stream);
    if (err == cudaSuccess) {
      tsi_model_read<float><<<b.sms * blocks_per_sm, threads, spoiler, b.stream>>>(b.big, n, sink);
      err = cudaGetLastError();
    }
    if (err == cudaSuccess)
      err = cudaEventRecord(b.stop, b.stream);
    float ms = 0;
    if (err == cudaSuccess)
      err = time_ms(b, &ms);
    if (err == cudaSuccess && ms > 0 && b.big_bytes / (ms * 1e6) > best)
      best = b.big_bytes / (ms * 1e6);
  }
  *gbps = best;
  return err;
}

static cudaError_t timed_launch_gbps(const tsi_model_bench &b, int which, size_t n, double bytes, double *gbps) {
  double best = 0;
  cudaError_t err = cudaSuccess;
  float *sink = (float *)(b.scratch);
  int blocks = b.sms * (b.max_threads_per_sm / 256);
  for (int rep = 0; rep < 3 && err == cudaSuccess; rep++) {
    if (which != 2)
      err = tsi_model_flush_l2(b);
    if (err == cudaSuccess && which == 2) /* warm L2 */
      tsi_model_read4<<<blocks, 256, 0, b.stream>>>((const float4 *)b.big, n, sink);
    if (err == cudaSuccess)
      err = cudaEventRecord(b.start, b.stream);
    if (err == cudaSuccess) {
      if (which == 0)
        tsi_model_read4<<<blocks, 256, 0, b.stream>>>((const float4 *)b.big, n, sink);
      else if (which == 1)
        tsi_model_random<<<blocks, 256, 0, b.stream>>>(b.big, b.big_bytes / 32, 64, sink);
      else
        tsi_model_read_passes<<<blocks, 256, 0, b.stream>>>((const float4 *)b.big, n, 64, sink);
      err = cudaGetLastError();
    }
    if (err == cudaSuccess)
      err = cudaEventRecord(b.stop, b.stream);
    float ms = 0;
    if (err == cudaSuccess)
      err = time_ms(b, &ms);
    if (err == cudaSuccess && ms > 0 && bytes / (ms * 1e6) > best)
      best = bytes / (ms * 1e6);
  }
  *gbps = best;
  return err;
}

cudaError_t tsi_model_bench_bandwidth(const tsi_model_bench &b, ts_model_params *p) {
  static const int warps[] = {1, 2, 4, 8, 16, 32, 64};
  const int count = (int)(sizeof warps / sizeof warps[0]);
  cudaError_t err = cudaSuccess;
  for (int i = 0; i < count && err == cudaSuccess; i++) {
    p->sweep_warps_per_sm[i] = warps[i];
    p->sweep_bytes_in_flight[i] = warps[i] * 32.0 * 4.0 * sizeof(float);
    err = sweep_point(b, warps[i], p->shared_per_sm, (int)p->shared_reserved_per_block, &p->sweep_gbps[i]);
  }
  /* Last point: full occupancy with float4 loads, 16 bytes a load. */
  double peak = 0;
  if (err == cudaSuccess)
    err = timed_launch_gbps(b, 0, b.big_bytes / 16, (double)b.big_bytes, &peak);
  p->sweep_warps_per_sm[count] = p->max_threads_per_sm / 32;
  p->sweep_bytes_in_flight[count] = p->max_threads_per_sm * 4.0 * 16.0;
  p->sweep_gbps[count] = peak;
  p->sweep_count = count + 1;
  double best = 0;
  for (int i = 0; i < p->sweep_count; i++)
    best = p->sweep_gbps[i] > best ? p->sweep_gbps[i] : best;
  p->dram_bandwidth_gbps = best;
  /* Random sectors: threads x 64 steps x 4 sectors of 32 bytes. */
  double threads = (double)b.sms * (b.max_threads_per_sm / 256) * 256;
  if (err == cudaSuccess)
    err = timed_launch_gbps(b, 1, 0, threads * 64 * 4 * 32, &p->dram_random_gbps);
  /* L2: 8 MiB read 64 times in one launch, after a warm pass. */
  size_t l2_set = (size_t)8 << 20;
  if (err == cudaSuccess)
    err = timed_launch_gbps(b, 2, l2_set / 16, 64.0 * l2_set, &p->l2_bandwidth_gbps);
  return err;
}
