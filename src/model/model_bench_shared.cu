/* Shared memory: latency (one thread chasing a random cycle in shared
 * memory), conflict-free bandwidth (every warp of a full SM loading), and
 * the cost of a d-way bank conflict: lane l reads row l mod d, bank l / d,
 * so d lanes meet in each bank (Mei and Chu, TPDS 2017; the banked model of
 * Sitchinava and Weichert, arXiv 1306.5076). */
#include "model/model_bench.cuh"

#define CHASE_WORDS 4096
#define PATTERN_WORDS 8192 /* 8 planes of 32 x 32 words */

__global__ void tsi_model_shared_chase(unsigned steps, unsigned *sink) {
  __shared__ unsigned next[CHASE_WORDS];
  /* A fixed permutation that is one cycle: odd stride 1237 mod 4096. */
  for (unsigned i = threadIdx.x; i < CHASE_WORDS; i += blockDim.x)
    next[i] = (i + 1237u) % CHASE_WORDS;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned j = 0;
    for (unsigned s = 0; s < steps; s++)
      j = ((volatile unsigned *)next)[j];
    *sink = j;
  }
}

/* Every lane reads the word its conflict pattern gives, in 8 planes. */
__global__ void tsi_model_shared_conflict(int degree, unsigned iterations, unsigned *sink) {
  __shared__ unsigned words[PATTERN_WORDS];
  for (unsigned i = threadIdx.x; i < PATTERN_WORDS; i += blockDim.x)
    words[i] = i;
  __syncthreads();
  unsigned lane = threadIdx.x & 31u;
  unsigned word = (lane % (unsigned)degree) * 32u + lane / (unsigned)degree;
  unsigned acc = 0;
  for (unsigned i = 0; i < iterations; i += 8) {
#pragma unroll
    for (unsigned k = 0; k < 8; k++)
      acc += ((volatile unsigned *)words)[(((i + k) & 7u) << 10) + word]; /* every load issued */
  }
  if (acc == 0xFFFFFFFFu)
    *sink = acc;
}

cudaError_t tsi_model_bench_shared(const tsi_model_bench &b, ts_model_params *p) {
  unsigned *sink = b.scratch;
  float ms = 0;
  const unsigned steps = 200000;
  cudaError_t err = cudaEventRecord(b.start, b.stream);
  if (err == cudaSuccess) {
    tsi_model_shared_chase<<<1, 256, 0, b.stream>>>(steps, sink);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess)
    err = cudaEventRecord(b.stop, b.stream);
  if (err == cudaSuccess)
    err = tsi_model_elapsed(b, &ms);
  p->shared_latency_ns = ms * 1e6 / steps;

  /* Full SMs of 256-thread blocks; times by conflict degree. */
  int blocks = b.sms * (b.max_threads_per_sm / 256);
  const unsigned iterations = 2048;
  double base_ms = 0;
  for (int d = 1; d <= TS_MODEL_MAX_CONFLICT && err == cudaSuccess; d++) {
    float best = 0;
    for (int rep = 0; rep < 2 && err == cudaSuccess; rep++) {
      err = cudaEventRecord(b.start, b.stream);
      if (err == cudaSuccess) {
        tsi_model_shared_conflict<<<blocks, 256, 0, b.stream>>>(d, iterations, sink);
        err = cudaGetLastError();
      }
      if (err == cudaSuccess)
        err = cudaEventRecord(b.stop, b.stream);
      if (err == cudaSuccess)
        err = tsi_model_elapsed(b, &ms);
      if (rep == 0 || ms < best)
        best = ms;
    }
    if (d == 1) {
      base_ms = best;
      double bytes = (double)blocks * 256 * iterations * 4.0;
      p->shared_bandwidth_gbps = best > 0 ? bytes / (best * 1e6) : 0;
    }
    p->conflict_cost[d - 1] = base_ms > 0 ? best / base_ms : 0;
  }
  return err;
}
