/* The performance model on a GPU: the occupancy calculation against
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor for kernels of known
 * register counts and several block and shared-memory sizes, and a full
 * calibration whose figures must lie in physically plausible ranges (and be
 * consistent with each other: L2 faster than DRAM, conflicts not cheaper
 * than none, random sectors not faster than streaming). */
#include "tessera/model.h"
#include "test_common.h"

#include <cuda_runtime.h>

/* Kernels that need few and many registers. */
__global__ void light_kernel(float *out) {
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = (float)threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x];
}

__global__ void heavy_kernel(float *out, float a) {
  extern __shared__ float dyn[];
  float v[40];
#pragma unroll
  for (int i = 0; i < 40; i++)
    v[i] = out[i * blockDim.x + threadIdx.x] * a;
#pragma unroll
  for (int k = 0; k < 8; k++)
#pragma unroll
    for (int i = 0; i < 40; i++)
      v[i] = v[i] * v[(i + k + 1) % 40] + a;
  float s = 0;
#pragma unroll
  for (int i = 0; i < 40; i++)
    s += v[i];
  dyn[threadIdx.x] = s;
  __syncthreads();
  out[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}

static void check_occupancy(const ts_model_params *p, const void *kernel, const char *name) {
  cudaFuncAttributes attr;
  if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
    CHECK_MSG(false, "cudaFuncGetAttributes(%s)", name);
    return;
  }
  static const int threads[] = {32, 64, 96, 128, 256, 512, 1024};
  static const int shared[] = {0, 1000, 4096, 20000, 40000, 48000};
  for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++)
    for (size_t j = 0; j < sizeof shared / sizeof shared[0]; j++) {
      int want = -1, got = -2;
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&want, kernel, threads[i], (size_t)shared[j]) != cudaSuccess)
        continue;
      int64_t total_shared = (int64_t)attr.sharedSizeBytes + shared[j];
      CHECK_OK(NULL, ts_model_occupancy(NULL, p, threads[i], attr.numRegs, total_shared, &got));
      CHECK_MSG(got == want, "%s (%d registers): %d threads, %d shared bytes: model %d, CUDA %d", name, attr.numRegs,
                threads[i], shared[j], got, want);
    }
}

int main(void) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    return test_skip("no CUDA device");
  ts_context_options o = {};
  o.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &o) != TS_SUCCESS)
    return test_skip("no usable CUDA context");

  ts_model_params p;
  const char *sanitizer = getenv("TESSERA_UNDER_SANITIZER");
  if (sanitizer && *sanitizer) {
    /* A full calibration streams gigabytes: too slow under the sanitizer.
     * Check the occupancy alone, with the device limits filled here. */
    memset(&p, 0, sizeof p);
    cudaDeviceGetAttribute(&p.sm_count, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&p.warp_size, cudaDevAttrWarpSize, 0);
    cudaDeviceGetAttribute(&p.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0);
    cudaDeviceGetAttribute(&p.max_threads_per_block, cudaDevAttrMaxThreadsPerBlock, 0);
    cudaDeviceGetAttribute(&p.max_blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, 0);
    cudaDeviceGetAttribute(&p.registers_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor, 0);
    cudaDeviceGetAttribute(&p.registers_per_block, cudaDevAttrMaxRegistersPerBlock, 0);
    int v = 0;
    cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
    p.shared_per_sm = v;
    cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
    p.shared_per_block_optin = v;
    cudaDeviceGetAttribute(&v, cudaDevAttrReservedSharedMemoryPerBlock, 0);
    p.shared_reserved_per_block = v;
    p.max_registers_per_thread = 255;
    p.register_alloc_unit = 256;
    p.register_partitions = 4;
    p.shared_alloc_unit = 128;
    /* Measured figures the check asks for; unused by the occupancy. */
    p.dram_latency_ns = p.l2_latency_ns = p.shared_latency_ns = 1;
    p.dram_bandwidth_gbps = p.dram_random_gbps = p.l2_bandwidth_gbps = p.shared_bandwidth_gbps = 1;
    p.sweep_count = 1;
    p.sweep_bytes_in_flight[0] = p.sweep_gbps[0] = 1;
    for (int d = 0; d < TS_MODEL_MAX_CONFLICT; d++)
      p.conflict_cost[d] = 1;
    p.fp32_ops_per_s = p.fp64_ops_per_s = p.int_ops_per_s = p.atomic_distinct_per_s = p.atomic_same_per_s = 1;
    for (int i = 0; i < TS_MODEL_BARRIER_POINTS; i++)
      p.barrier_threads[i] = 64 << i;
    check_occupancy(&p, (const void *)light_kernel, "light_kernel");
    check_occupancy(&p, (const void *)heavy_kernel, "heavy_kernel");
    ts_context_destroy(ctx);
    return test_finish();
  }
  CHECK_OK(ctx, ts_model_calibrate(ctx, &p));
  printf("%s: %d SMs, DRAM %.0f ns, L2 %.0f ns, shared %.1f ns, DRAM %.0f GB/s (random %.0f), L2 %.0f GB/s, "
         "shared %.0f GB/s, FP32 %.3g/s, launch %.2f us\n",
         p.device, p.sm_count, p.dram_latency_ns, p.l2_latency_ns, p.shared_latency_ns, p.dram_bandwidth_gbps,
         p.dram_random_gbps, p.l2_bandwidth_gbps, p.shared_bandwidth_gbps, p.fp32_ops_per_s, p.launch_device_us);
  CHECK_OK(NULL, ts_model_params_check(NULL, &p));
  /* Plausible on any GPU of the last decade. */
  CHECK(p.dram_latency_ns > 150 && p.dram_latency_ns < 3000);
  CHECK(p.l2_latency_ns > 30 && p.l2_latency_ns < p.dram_latency_ns);
  CHECK(p.shared_latency_ns > 1 && p.shared_latency_ns < p.l2_latency_ns);
  CHECK(p.dram_bandwidth_gbps > 50 && p.dram_bandwidth_gbps < 20000);
  CHECK(p.dram_random_gbps > 5 && p.dram_random_gbps <= p.dram_bandwidth_gbps * 1.05);
  CHECK(p.l2_bandwidth_gbps > p.dram_bandwidth_gbps * 0.8);
  CHECK(p.shared_bandwidth_gbps > p.dram_bandwidth_gbps);
  /* More warps in flight never lose much bandwidth; few warps are latency bound. */
  CHECK(p.sweep_gbps[p.sweep_count - 1] > 2 * p.sweep_gbps[0]);
  CHECK(p.conflict_cost[0] == 1.0);
  CHECK(p.conflict_cost[31] > 8 && p.conflict_cost[31] < 64);
  for (int d = 2; d <= TS_MODEL_MAX_CONFLICT; d++)
    CHECK_MSG(p.conflict_cost[d - 1] >= 0.9 * p.conflict_cost[d - 2], "degree %d: %g after %g", d,
              p.conflict_cost[d - 1], p.conflict_cost[d - 2]);
  CHECK(p.fp32_ops_per_s > 1e11 && p.fp32_ops_per_s < 1e15);
  CHECK(p.fp64_ops_per_s > 1e9 && p.fp64_ops_per_s <= p.fp32_ops_per_s * 1.1);
  CHECK(p.int_ops_per_s > 1e10);
  CHECK(p.launch_device_us > 0.5 && p.launch_device_us < 100);
  CHECK(p.launch_host_us > 0.5 && p.launch_host_us < 200);
  CHECK(p.barrier_ns[0] > 0 && p.barrier_ns[3] < 10000);
  CHECK(p.atomic_distinct_per_s > p.atomic_same_per_s);

  check_occupancy(&p, (const void *)light_kernel, "light_kernel");
  check_occupancy(&p, (const void *)heavy_kernel, "heavy_kernel");
  ts_context_destroy(ctx);
  return test_finish();
}
