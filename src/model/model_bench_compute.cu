/* Arithmetic and atomic throughput: full SMs, eight independent FMA chains
 * per thread (enough to cover the pipeline latency), and global atomicAdd on
 * one counter per thread or on a single counter. */
#include "model/model_bench.cuh"

#define CHAINS 8

template <class T> __global__ void tsi_model_fma(unsigned iterations, T a, T b, T *sink) {
  T x[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; c++)
    x[c] = (T)(threadIdx.x + c);
  for (unsigned i = 0; i < iterations; i++) {
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
      x[c] = x[c] * a + b;
  }
  T sum = 0;
#pragma unroll
  for (int c = 0; c < CHAINS; c++)
    sum += x[c];
  if (sum == (T)-12345)
    *sink = sum;
}

__global__ void tsi_model_atomic(unsigned *counters, unsigned repeat, int same) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned *target = same ? counters : counters + i;
  /* The increment depends on the lane so that the compiler cannot fold a
   * warp's atomics on one address into one. */
  for (unsigned r = 0; r < repeat; r++)
    atomicAdd(target, (threadIdx.x & 3u) + r);
}

template <class Fn> static cudaError_t best_of(const tsi_model_bench &b, Fn launch, float *best) {
  cudaError_t err = cudaSuccess;
  for (int rep = 0; rep < 3 && err == cudaSuccess; rep++) {
    float ms = 0;
    err = cudaEventRecord(b.start, b.stream);
    if (err == cudaSuccess) {
      launch();
      err = cudaGetLastError();
    }
    if (err == cudaSuccess)
      err = cudaEventRecord(b.stop, b.stream);
    if (err == cudaSuccess)
      err = tsi_model_elapsed(b, &ms);
    if (rep == 0 || ms < *best)
      *best = ms;
  }
  return err;
}

cudaError_t tsi_model_bench_compute(const tsi_model_bench &b, ts_model_params *p) {
  int blocks = b.sms * (b.max_threads_per_sm / 256);
  double threads = (double)blocks * 256;
  const unsigned iterations = 4096;
  float ms = 0;
  cudaError_t err = best_of(
      b, [&] { tsi_model_fma<float><<<blocks, 256, 0, b.stream>>>(iterations, 0.999f, 0.5f, (float *)b.scratch); },
      &ms);
  p->fp32_ops_per_s = threads * CHAINS * iterations / (ms * 1e-3);
  if (err == cudaSuccess)
    err = best_of(
        b,
        [&] { tsi_model_fma<double><<<blocks, 256, 0, b.stream>>>(iterations / 4, 0.999, 0.5, (double *)b.scratch); },
        &ms);
  p->fp64_ops_per_s = threads * CHAINS * (iterations / 4) / (ms * 1e-3);
  if (err == cudaSuccess)
    err = best_of(
        b, [&] { tsi_model_fma<unsigned><<<blocks, 256, 0, b.stream>>>(iterations, 3u, 7u, b.scratch); }, &ms);
  p->int_ops_per_s = threads * CHAINS * iterations / (ms * 1e-3);

  /* Atomics: distinct counters (one per thread, coalesced), then one counter. */
  const unsigned repeat = 64;
  if (err == cudaSuccess)
    err = best_of(
        b, [&] { tsi_model_atomic<<<blocks, 256, 0, b.stream>>>(b.scratch, repeat, 0); }, &ms);
  p->atomic_distinct_per_s = threads * repeat / (ms * 1e-3);
  if (err == cudaSuccess)
    err = best_of(
        b, [&] { tsi_model_atomic<<<blocks, 256, 0, b.stream>>>(b.scratch, 1, 1); }, &ms);
  p->atomic_same_per_s = threads / (ms * 1e-3);
  return err;
}
