/* A hand-made parameter set for the model tests: round figures of the
 * right order for a Hopper GPU, so that expected times are easy to compute
 * by hand from the documented formulas. */
#ifndef TESSERA_TEST_MODEL_COMMON_H
#define TESSERA_TEST_MODEL_COMMON_H

#include "tessera/model.h"

#include <string.h>

static inline void test_model_params(ts_model_params *p) {
  memset(p, 0, sizeof *p);
  strcpy(p->device, "test GPU \"A\"");
  p->compute_major = 9;
  p->sm_count = 100;
  p->warp_size = 32;
  p->max_threads_per_sm = 2048;
  p->max_threads_per_block = 1024;
  p->max_blocks_per_sm = 32;
  p->registers_per_sm = 65536;
  p->registers_per_block = 65536;
  p->max_registers_per_thread = 255;
  p->register_alloc_unit = 256;
  p->register_partitions = 4;
  p->shared_per_sm = 233472;
  p->shared_per_block_optin = 232448;
  p->shared_reserved_per_block = 1024;
  p->shared_alloc_unit = 128;
  p->l2_bytes = 50 << 20;
  p->clock_ghz = 2.0;
  p->dram_latency_ns = 1000;
  p->l2_latency_ns = 200;
  p->shared_latency_ns = 20;
  p->dram_bandwidth_gbps = 4000;
  p->dram_random_gbps = 1000;
  p->l2_bandwidth_gbps = 10000;
  p->shared_bandwidth_gbps = 20000;
  /* Little's law exactly: 100 SMs x f bytes / 1000 ns = f / 10 GB/s, up to 4000. */
  p->sweep_count = 4;
  double f[4] = {1000, 10000, 40000, 80000};
  for (int i = 0; i < 4; i++) {
    p->sweep_bytes_in_flight[i] = f[i];
    p->sweep_gbps[i] = f[i] / 10 < 4000 ? f[i] / 10 : 4000;
    p->sweep_warps_per_sm[i] = f[i] / 512;
  }
  for (int d = 1; d <= TS_MODEL_MAX_CONFLICT; d++)
    p->conflict_cost[d - 1] = d;
  p->fp32_ops_per_s = 1e13;
  p->fp64_ops_per_s = 5e12;
  p->int_ops_per_s = 5e12;
  double t[4] = {64, 256, 512, 1024}, ns[4] = {10, 20, 30, 50};
  for (int i = 0; i < 4; i++) {
    p->barrier_threads[i] = t[i];
    p->barrier_ns[i] = ns[i];
  }
  p->launch_host_us = 3;
  p->launch_device_us = 2;
  p->atomic_distinct_per_s = 1e11;
  p->atomic_same_per_s = 1e9;
}

#endif /* TESSERA_TEST_MODEL_COMMON_H */
