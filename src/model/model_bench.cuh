/* The calibration microbenchmarks of ts_model_calibrate(), one file per
 * family (model_bench_*.cu). Each returns cudaSuccess or the first CUDA
 * error, and fills its members of ts_model_params. */
#ifndef TESSERA_MODEL_BENCH_CUH
#define TESSERA_MODEL_BENCH_CUH

#include "model/model_internal.h"

#include <cuda_runtime.h>

/* What every microbenchmark needs: the stream, device limits, and scratch
 * device memory (the large buffer exceeds L2 several times). */
struct tsi_model_bench {
  cudaStream_t stream;
  cudaEvent_t start, stop;
  int sms;
  int max_threads_per_sm;
  int64_t l2_bytes;
  float *big;        /* big_bytes of device memory */
  size_t big_bytes;  /* >= 8x L2 */
  unsigned *scratch; /* scratch_bytes: chase cycles, counters */
  size_t scratch_bytes;
};

/* Milliseconds between the bench's two events (recorded around a launch). */
cudaError_t tsi_model_elapsed(const tsi_model_bench &b, float *ms);

/* Read the whole large buffer once: evicts earlier data from L2. */
cudaError_t tsi_model_flush_l2(const tsi_model_bench &b);

cudaError_t tsi_model_bench_latency(const tsi_model_bench &b, ts_model_params *p);   /* DRAM, L2 */
cudaError_t tsi_model_bench_bandwidth(const tsi_model_bench &b, ts_model_params *p); /* sweep, random, L2 */
cudaError_t tsi_model_bench_shared(const tsi_model_bench &b, ts_model_params *p);    /* latency, bandwidth, conflicts */
cudaError_t tsi_model_bench_compute(const tsi_model_bench &b, ts_model_params *p);   /* FP32, FP64, integer, atomics */
cudaError_t tsi_model_bench_sync(const tsi_model_bench &b, ts_model_params *p);      /* barriers, launches */

#endif /* TESSERA_MODEL_BENCH_CUH */
