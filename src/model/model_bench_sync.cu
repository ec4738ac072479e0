/* Synchronisation: the cost of __syncthreads at full occupancy for several
 * block sizes (Letendre, "Understanding and Modeling the Synchronization
 * Cost in the GPU Architecture", RIT 2013), and kernel launch overhead,
 * as device time between events and as host wall time in a burst. */
#include "model/model_bench.cuh"

#include <algorithm>

__global__ void tsi_model_barriers(unsigned count, unsigned *sink) {
  __shared__ unsigned word;
  if (threadIdx.x == 0)
    word = 0;
  for (unsigned i = 0; i < count; i++) {
    __syncthreads();
    if (threadIdx.x == (i & (blockDim.x - 1)))
      word += i;
  }
  __syncthreads();
  if (word == 0xFFFFFFFFu)
    *sink = word;
}

__global__ void tsi_model_empty(void) {}

cudaError_t tsi_model_bench_sync(const tsi_model_bench &b, ts_model_params *p) {
  static const int sizes[TS_MODEL_BARRIER_POINTS] = {64, 256, 512, 1024};
  const unsigned count = 4096;
  cudaError_t err = cudaSuccess;
  float ms = 0;
  for (int i = 0; i < TS_MODEL_BARRIER_POINTS && err == cudaSuccess; i++) {
    int per_sm = std::min(32, b.max_threads_per_sm / sizes[i]);
    p->barrier_threads[i] = sizes[i];
    err = cudaEventRecord(b.start, b.stream);
    if (err == cudaSuccess) {
      tsi_model_barriers<<<b.sms * per_sm, sizes[i], 0, b.stream>>>(count, b.scratch);
      err = cudaGetLastError();
    }
    if (err == cudaSuccess)
      err = cudaEventRecord(b.stop, b.stream);
    if (err == cudaSuccess)
      err = tsi_model_elapsed(b, &ms);
    p->barrier_ns[i] = ms * 1e6 / count;
  }

  /* Device time of one empty kernel between events: median of 101. */
  float samples[101];
  for (int i = 0; i < 101 && err == cudaSuccess; i++) {
    err = cudaEventRecord(b.start, b.stream);
    if (err == cudaSuccess) {
      tsi_model_empty<<<1, 32, 0, b.stream>>>();
      err = cudaGetLastError();
    }
    if (err == cudaSuccess)
      err = cudaEventRecord(b.stop, b.stream);
    if (err == cudaSuccess)
      err = tsi_model_elapsed(b, &samples[i]);
  }
  if (err == cudaSuccess) {
    std::sort(samples, samples + 101);
    p->launch_device_us = samples[50] * 1e3;
  }
  /* Host: a burst of 1000 launches and one synchronisation. */
  if (err == cudaSuccess) {
    double t0 = tsi_seconds();
    for (int i = 0; i < 1000; i++)
      tsi_model_empty<<<1, 32, 0, b.stream>>>();
    err = cudaGetLastError();
    if (err == cudaSuccess)
      err = cudaStreamSynchronize(b.stream);
    p->launch_host_us = (tsi_seconds() - t0) * 1e6 / 1000;
  }
  return err;
}
