/* Whether a parameter set is usable by the predictor: every field within the
 * range of a real GPU, with a wide margin, so that a corrupt or hand-edited
 * file is refused instead of giving predictions of 10^300 seconds or
 * infinity. */
#include "core/internal.h"
#include "tessera/model.h"

#include <math.h>

/* Generous bounds: an order of magnitude or more beyond any GPU made so far. */
enum {
  MAX_COMPUTE_VERSION = 1000,
  MAX_SM_COUNT = 1 << 16,
  MAX_WARP_SIZE = 1024,
  MAX_THREADS = 1 << 20,
  MAX_BLOCKS_PER_SM = 1 << 16,
  MAX_REGISTERS = 1 << 28,
  MAX_REGISTER_PARTITIONS = 1024,
  MAX_SHARED_ALLOC_UNIT = 1 << 24,
};
#define MAX_SHARED_BYTES ((int64_t)1 << 36)
#define MAX_L2_BYTES ((int64_t)1 << 44)

/* Finite and within [lo, hi]. */
static bool within(double v, double lo, double hi) { return isfinite(v) && v >= lo && v <= hi; }
static bool positive_within(double v, double hi) { return isfinite(v) && v > 0 && v <= hi; }

static const char *first_bad_limit(const ts_model_params *p) {
  if (p->compute_major < 0 || p->compute_major > MAX_COMPUTE_VERSION)
    return "compute_major";
  if (p->compute_minor < 0 || p->compute_minor > MAX_COMPUTE_VERSION)
    return "compute_minor";
  if (p->sm_count < 1 || p->sm_count > MAX_SM_COUNT)
    return "sm_count";
  if (p->warp_size < 1 || p->warp_size > MAX_WARP_SIZE)
    return "warp_size";
  if (p->max_threads_per_sm < p->warp_size || p->max_threads_per_sm > MAX_THREADS)
    return "max_threads_per_sm";
  if (p->max_threads_per_block < 1 || p->max_threads_per_block > p->max_threads_per_sm)
    return "max_threads_per_block";
  if (p->max_blocks_per_sm < 1 || p->max_blocks_per_sm > MAX_BLOCKS_PER_SM)
    return "max_blocks_per_sm";
  if (p->registers_per_sm < 1 || p->registers_per_sm > MAX_REGISTERS)
    return "registers_per_sm";
  if (p->registers_per_block < 1 || p->registers_per_block > p->registers_per_sm)
    return "registers_per_block";
  if (p->max_registers_per_thread < 1 || p->max_registers_per_thread > p->registers_per_block)
    return "max_registers_per_thread";
  if (p->register_alloc_unit < 1 || p->register_alloc_unit > p->registers_per_sm)
    return "register_alloc_unit";
  if (p->register_partitions < 0 || p->register_partitions > MAX_REGISTER_PARTITIONS)
    return "register_partitions";
  if (p->shared_per_sm < 0 || p->shared_per_sm > MAX_SHARED_BYTES)
    return "shared_per_sm";
  if (p->shared_per_block_optin < 0 || p->shared_per_block_optin > p->shared_per_sm)
    return "shared_per_block_optin";
  if (p->shared_reserved_per_block < 0 || p->shared_reserved_per_block > MAX_SHARED_BYTES)
    return "shared_reserved_per_block";
  if (p->shared_alloc_unit < 1 || p->shared_alloc_unit > MAX_SHARED_ALLOC_UNIT)
    return "shared_alloc_unit";
  if (p->l2_bytes < 0 || p->l2_bytes > MAX_L2_BYTES)
    return "l2_bytes";
  return NULL;
}

/* Times from a picosecond to a second; bandwidths from 1 MB/s to 10^9 GB/s;
 * rates from 1 to 10^21 a second. */
static const char *first_bad_measurement(const ts_model_params *p) {
  if (!within(p->clock_ghz, 1e-3, 1e3))
    return "clock_ghz";
  if (!within(p->dram_latency_ns, 1e-3, 1e9))
    return "dram_latency_ns";
  if (!within(p->l2_latency_ns, 1e-3, 1e9))
    return "l2_latency_ns";
  if (!within(p->shared_latency_ns, 1e-3, 1e9))
    return "shared_latency_ns";
  const double bandwidths[] = {p->dram_bandwidth_gbps, p->dram_random_gbps, p->l2_bandwidth_gbps,
                               p->shared_bandwidth_gbps};
  const char *bandwidth_names[] = {"dram_bandwidth_gbps", "dram_random_gbps", "l2_bandwidth_gbps",
                                   "shared_bandwidth_gbps"};
  for (int i = 0; i < 4; i++)
    if (!within(bandwidths[i], 1e-3, 1e9))
      return bandwidth_names[i];
  if (p->sweep_count < 1 || p->sweep_count > TS_MODEL_SWEEP_POINTS)
    return "sweep_count";
  const double rates[] = {p->fp32_ops_per_s, p->fp64_ops_per_s, p->int_ops_per_s, p->atomic_distinct_per_s,
                          p->atomic_same_per_s};
  const char *rate_names[] = {"fp32_ops_per_s", "fp64_ops_per_s", "int_ops_per_s", "atomic_distinct_per_s",
                              "atomic_same_per_s"};
  for (int i = 0; i < 5; i++)
    if (!within(rates[i], 1.0, 1e21))
      return rate_names[i];
  if (!within(p->launch_device_us, 0, 1e6))
    return "launch_device_us";
  if (!within(p->launch_host_us, 0, 1e6))
    return "launch_host_us";
  for (int i = 0; i < p->sweep_count; i++)
    if (!positive_within(p->sweep_warps_per_sm[i], MAX_THREADS) ||
        !positive_within(p->sweep_bytes_in_flight[i], (double)MAX_L2_BYTES) || !within(p->sweep_gbps[i], 1e-3, 1e9) ||
        (i > 0 && !(p->sweep_bytes_in_flight[i] > p->sweep_bytes_in_flight[i - 1])))
      return "sweep_warps_per_sm / sweep_bytes_in_flight / sweep_gbps (positive, increasing bytes)";
  for (int i = 0; i < TS_MODEL_MAX_CONFLICT; i++)
    if (!within(p->conflict_cost[i], 1e-3, 1e6))
      return "conflict_cost";
  for (int i = 0; i < TS_MODEL_BARRIER_POINTS; i++)
    if (!positive_within(p->barrier_threads[i], MAX_THREADS) || !within(p->barrier_ns[i], 0, 1e9) ||
        (i > 0 && !(p->barrier_threads[i] > p->barrier_threads[i - 1])))
      return "barrier_threads / barrier_ns";
  return NULL;
}

ts_status ts_model_params_check(ts_context *ctx, const ts_model_params *p) {
  if (!p)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_params_check: NULL parameters");
  const char *bad = first_bad_limit(p);
  if (!bad)
    bad = first_bad_measurement(p);
  if (bad)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_params: field %s is missing or out of range", bad);
  return TS_SUCCESS;
}
