/* ts_model_calibrate: the device limits from the CUDA runtime, then the
 * microbenchmarks of model_bench_*.cu on the context's stream. */
#include "model/model_bench.cuh"
#include "model/model_tuning.h"

#include <stdio.h>
#include <string.h>

cudaError_t tsi_model_elapsed(const tsi_model_bench &b, float *ms) {
  cudaError_t err = cudaEventSynchronize(b.stop);
  if (err == cudaSuccess)
    err = cudaEventElapsedTime(ms, b.start, b.stop);
  return err;
}

__global__ void tsi_model_flush(const float4 *__restrict__ in, size_t n, float *sink) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  float acc = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    acc += __ldcs(in + i).x;
  if (acc == -1.0f)
    *sink = acc;
}

cudaError_t tsi_model_flush_l2(const tsi_model_bench &b) {
  tsi_model_flush<<<b.sms * 8, 256, 0, b.stream>>>((const float4 *)b.big, b.big_bytes / 16, (float *)b.scratch);
  return cudaGetLastError();
}

static cudaError_t device_limits(int device, ts_model_params *p) {
  struct {
    cudaDeviceAttr attr;
    int *out;
  } ints[] = {
      {cudaDevAttrComputeCapabilityMajor, &p->compute_major},
      {cudaDevAttrComputeCapabilityMinor, &p->compute_minor},
      {cudaDevAttrMultiProcessorCount, &p->sm_count},
      {cudaDevAttrWarpSize, &p->warp_size},
      {cudaDevAttrMaxThreadsPerMultiProcessor, &p->max_threads_per_sm},
      {cudaDevAttrMaxThreadsPerBlock, &p->max_threads_per_block},
      {cudaDevAttrMaxBlocksPerMultiprocessor, &p->max_blocks_per_sm},
      {cudaDevAttrMaxRegistersPerMultiprocessor, &p->registers_per_sm},
      {cudaDevAttrMaxRegistersPerBlock, &p->registers_per_block},
  };
  cudaError_t err = cudaSuccess;
  for (size_t i = 0; i < sizeof ints / sizeof ints[0] && err == cudaSuccess; i++)
    err = cudaDeviceGetAttribute(ints[i].out, ints[i].attr, device);
  int shared_sm = 0, shared_optin = 0, reserved = 0, l2 = 0, clock_khz = 0;
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&shared_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device);
  cudaDeviceProp prop;
  if (err == cudaSuccess)
    err = cudaGetDeviceProperties(&prop, device);
  if (err != cudaSuccess)
    return err;
  size_t name_length = strnlen(prop.name, sizeof p->device - 1);
  memcpy(p->device, prop.name, name_length);
  p->device[name_length] = '\0';
  p->shared_per_sm = shared_sm;
  p->shared_per_block_optin = shared_optin;
  p->shared_reserved_per_block = reserved;
  p->l2_bytes = l2;
  p->clock_ghz = clock_khz * 1e-6;
  p->register_alloc_unit = TSI_MODEL_REGISTER_ALLOC_UNIT;
  p->register_partitions = TSI_MODEL_REGISTER_PARTITIONS;
  p->max_registers_per_thread = TSI_MODEL_MAX_REGISTERS_PER_THREAD;
  p->shared_alloc_unit = TSI_MODEL_SHARED_ALLOC_UNIT;
  return cudaSuccess;
}

extern "C" ts_status ts_model_calibrate(ts_context *ctx, ts_model_params *params) {
  if (!ctx || !params)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_calibrate: NULL argument");
  if (ctx->backend != TS_BACKEND_CUDA)
    return tsi_error(ctx, TS_ERROR_NO_DEVICE, "ts_model_calibrate: the context does not use the CUDA backend");
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  ts_model_params p;
  memset(&p, 0, sizeof p);
  tsi_model_bench b;
  memset(&b, 0, sizeof b);
  b.stream = (cudaStream_t)ctx->stream;
  const char *step = "device properties";
  cudaError_t err = device_limits(ctx->device, &p);
  bool have_start = false, have_stop = false;
  if (err == cudaSuccess) {
    b.sms = p.sm_count;
    b.max_threads_per_sm = p.max_threads_per_sm;
    b.l2_bytes = p.l2_bytes;
    /* A power of two at least 8x L2 (512 MiB on a 60 MiB L2) for the
     * streaming and random reads; a quarter of it for the chase. */
    b.big_bytes = (size_t)1 << 26;
    while (b.big_bytes < (size_t)8 * (size_t)p.l2_bytes)
      b.big_bytes <<= 1;
    b.scratch_bytes = b.big_bytes / 2;
    step = "allocation";
    err = cudaMalloc((void **)&b.big, b.big_bytes);
  }
  if (err == cudaSuccess)
    err = cudaMalloc((void **)&b.scratch, b.scratch_bytes);
  if (err == cudaSuccess)
    err = cudaMemsetAsync(b.big, 0, b.big_bytes, b.stream);
  if (err == cudaSuccess)
    err = cudaMemsetAsync(b.scratch, 0, b.scratch_bytes, b.stream);
  if (err == cudaSuccess)
    err = cudaEventCreate(&b.start);
  have_start = err == cudaSuccess;
  if (err == cudaSuccess)
    err = cudaEventCreate(&b.stop);
  have_stop = err == cudaSuccess;
  if (err == cudaSuccess) {
    step = "launch overhead and barriers";
    err = tsi_model_bench_sync(b, &p);
  }
  if (err == cudaSuccess) {
    step = "bandwidth sweep";
    err = tsi_model_bench_bandwidth(b, &p);
  }
  if (err == cudaSuccess) {
    step = "pointer chase";
    err = tsi_model_bench_latency(b, &p);
  }
  if (err == cudaSuccess) {
    step = "shared memory";
    err = tsi_model_bench_shared(b, &p);
  }
  if (err == cudaSuccess) {
    step = "arithmetic and atomics";
    err = tsi_model_bench_compute(b, &p);
  }
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(b.stream);
  if (err != cudaSuccess)
    st = tsi_cuda_error(ctx, err, "ts_model_calibrate: %s", step);
  if (have_start)
    cudaEventDestroy(b.start);
  if (have_stop)
    cudaEventDestroy(b.stop);
  cudaFree(b.big);
  cudaFree(b.scratch);
  if (st == TS_SUCCESS)
    st = ts_model_params_check(ctx, &p);
  if (st == TS_SUCCESS)
    *params = p;
  return st;
}
