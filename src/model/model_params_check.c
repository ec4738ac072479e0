/* Whether a parameter set is usable by the predictor. */
#include "core/internal.h"
#include "tessera/model.h"

#include <math.h>

static bool positive(double v) { return isfinite(v) && v > 0; }

ts_status ts_model_params_check(ts_context *ctx, const ts_model_params *p) {
  if (!p)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_params_check: NULL parameters");
  const char *bad = NULL;
  if (p->compute_major < 0 || p->compute_minor < 0)
    bad = "compute_major";
  else if (p->sm_count < 1)
    bad = "sm_count";
  else if (p->warp_size < 1)
    bad = "warp_size";
  else if (p->max_threads_per_sm < p->warp_size)
    bad = "max_threads_per_sm";
  else if (p->max_threads_per_block < 1)
    bad = "max_threads_per_block";
  else if (p->max_blocks_per_sm < 1)
    bad = "max_blocks_per_sm";
  else if (p->registers_per_sm < 1 || p->registers_per_block < 1 || p->max_registers_per_thread < 1)
    bad = "registers_per_sm";
  else if (p->register_alloc_unit < 1)
    bad = "register_alloc_unit";
  else if (p->register_partitions < 0)
    bad = "register_partitions";
  else if (p->shared_per_sm < 0 || p->shared_per_block_optin < 0 || p->shared_reserved_per_block < 0)
    bad = "shared_per_sm";
  else if (p->shared_alloc_unit < 1)
    bad = "shared_alloc_unit";
  else if (p->l2_bytes < 0)
    bad = "l2_bytes";
  else if (!positive(p->clock_ghz))
    bad = "clock_ghz";
  else if (!positive(p->dram_latency_ns))
    bad = "dram_latency_ns";
  else if (!positive(p->l2_latency_ns))
    bad = "l2_latency_ns";
  else if (!positive(p->shared_latency_ns))
    bad = "shared_latency_ns";
  else if (!positive(p->dram_bandwidth_gbps))
    bad = "dram_bandwidth_gbps";
  else if (!positive(p->dram_random_gbps))
    bad = "dram_random_gbps";
  else if (!positive(p->l2_bandwidth_gbps))
    bad = "l2_bandwidth_gbps";
  else if (!positive(p->shared_bandwidth_gbps))
    bad = "shared_bandwidth_gbps";
  else if (p->sweep_count < 1 || p->sweep_count > TS_MODEL_SWEEP_POINTS)
    bad = "sweep_count";
  else if (!positive(p->fp32_ops_per_s))
    bad = "fp32_ops_per_s";
  else if (!positive(p->fp64_ops_per_s))
    bad = "fp64_ops_per_s";
  else if (!positive(p->int_ops_per_s))
    bad = "int_ops_per_s";
  else if (!positive(p->atomic_distinct_per_s))
    bad = "atomic_distinct_per_s";
  else if (!positive(p->atomic_same_per_s))
    bad = "atomic_same_per_s";
  else if (!(p->launch_device_us >= 0) || !(p->launch_host_us >= 0))
    bad = "launch_device_us";
  for (int i = 0; !bad && i < p->sweep_count; i++)
    if (!positive(p->sweep_warps_per_sm[i]) || !positive(p->sweep_bytes_in_flight[i]) || !positive(p->sweep_gbps[i]) ||
        (i > 0 && !(p->sweep_bytes_in_flight[i] > p->sweep_bytes_in_flight[i - 1])))
      bad = "sweep_warps_per_sm / sweep_bytes_in_flight / sweep_gbps (positive, increasing bytes)";
  for (int i = 0; !bad && i < TS_MODEL_MAX_CONFLICT; i++)
    if (!positive(p->conflict_cost[i]))
      bad = "conflict_cost";
  for (int i = 0; !bad && i < TS_MODEL_BARRIER_POINTS; i++)
    if (!positive(p->barrier_threads[i]) || !(p->barrier_ns[i] >= 0) ||
        (i > 0 && !(p->barrier_threads[i] > p->barrier_threads[i - 1])))
      bad = "barrier_threads / barrier_ns";
  if (bad)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_params: field %s is missing or out of range", bad);
  return TS_SUCCESS;
}
