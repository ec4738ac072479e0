/* Predicted time of a kernel described as synchronous rounds (formulas in
 * include/tessera/model.h and docs/model.md). Sources: Karsin's SPT model
 * (rounds, latency hidden by multiplicity, synchronisation cost), Hong and
 * Kim, ISCA 2009 (memory warp parallelism bounds throughput), Volkov, PhD
 * thesis 2016 (Little's law: bandwidth = bytes in flight / latency), the
 * roofline model (the slowest resource bounds a round), and the issue limit
 * of an SM (NVIDIA H100 whitepaper, 2022: four schedulers, one warp
 * instruction a cycle each). */
#include "core/internal.h"
#include "tessera/model.h"

#include <math.h>

/* Conflict-free shared-memory request of one warp: 32 banks x 4 bytes. */
#define SHARED_REQUEST_BYTES 128.0

static double max2(double a, double b) { return a > b ? a : b; }
static double max3(double a, double b, double c) { return max2(a, max2(b, c)); }

/* Bandwidth (bytes/s) at f bytes in flight per SM: the measured sweep,
 * interpolated linearly in log(bytes); below its first point Little's law
 * scales the first point down; above its last point the last point. */
static double bandwidth_at(const ts_model_params *p, double in_flight) {
  int n = p->sweep_count;
  const double *f = p->sweep_bytes_in_flight, *g = p->sweep_gbps;
  double gbps;
  if (in_flight <= f[0]) {
    gbps = g[0] * in_flight / f[0];
  } else if (in_flight >= f[n - 1]) {
    gbps = g[n - 1];
  } else {
    int i = 1;
    while (f[i] < in_flight)
      i++;
    double t = (log(in_flight) - log(f[i - 1])) / (log(f[i]) - log(f[i - 1]));
    gbps = g[i - 1] + t * (g[i] - g[i - 1]);
  }
  /* The sweep's best point is the peak; never above it. */
  if (gbps > p->dram_bandwidth_gbps)
    gbps = p->dram_bandwidth_gbps;
  return gbps * 1e9;
}

/* Barrier cost (s) at t threads per block: linear between measured sizes. */
static double barrier_at(const ts_model_params *p, double threads) {
  const double *x = p->barrier_threads, *y = p->barrier_ns;
  int n = TS_MODEL_BARRIER_POINTS;
  double ns;
  if (threads <= x[0])
    ns = y[0];
  else if (threads >= x[n - 1])
    ns = y[n - 1];
  else {
    int i = 1;
    while (x[i] < threads)
      i++;
    ns = y[i - 1] + (threads - x[i - 1]) / (x[i] - x[i - 1]) * (y[i] - y[i - 1]);
  }
  return ns * 1e-9;
}

static bool bad_round(const ts_model_round *r) {
  double v[] = {r->coalesced_bytes,
                r->scattered_bytes,
                r->l2_bytes,
                r->bytes_per_access,
                r->independent_accesses,
                r->dependent_accesses,
                r->critical_chain,
                r->shared_requests,
                r->fp32_ops,
                r->fp64_ops,
                r->int_ops,
                r->atomics,
                r->atomics_same,
                r->barriers};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!(v[i] >= 0) || !isfinite(v[i]))
      return true;
  return r->conflict_degree < 0 || r->conflict_degree > TS_MODEL_MAX_CONFLICT;
}

ts_status ts_model_predict_ex(ts_context *ctx, const ts_model_params *p, const ts_model_kernel *k, double *seconds,
                              ts_model_breakdown *breakdown) {
  if (!p || !k || !seconds || (k->round_count > 0 && !k->rounds))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_predict: NULL argument");
  ts_status st = ts_model_params_check(ctx, p);
  if (st != TS_SUCCESS)
    return st;
  if (k->blocks < 1 || k->round_count < 0 || k->launches < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_predict: %lld blocks, %d rounds, %d launches",
                     (long long)k->blocks, k->round_count, k->launches);
  for (int i = 0; i < k->round_count; i++)
    if (bad_round(&k->rounds[i]))
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                       "ts_model_predict: round %d has a negative or non-finite field or a conflict degree "
                       "outside 1..%d",
                       i, TS_MODEL_MAX_CONFLICT);
  int regs = k->registers_per_thread > 0 ? k->registers_per_thread : 32;
  int per_sm = 0;
  st = ts_model_occupancy(ctx, p, k->threads_per_block, regs, k->shared_bytes_per_block, &per_sm);
  if (st != TS_SUCCESS)
    return st;
  if (per_sm < 1)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_model_predict: a block of %d threads, %d registers per thread and %lld shared bytes cannot "
                     "run on %s",
                     k->threads_per_block, regs, (long long)k->shared_bytes_per_block, p->device);

  double P = p->sm_count, w = p->warp_size;
  double warps_per_block = ceil(k->threads_per_block / w);
  double total_warps = (double)k->blocks * warps_per_block;
  double resident = (double)per_sm * P; /* blocks at once on the device */
  double waves = ceil((double)k->blocks / resident);
  double m = fmin(per_sm * warps_per_block, ceil(total_warps / P));
  double barrier_cost = barrier_at(p, k->threads_per_block);
  /* Blocks that actually share an SM: a grid smaller than b P leaves fewer. */
  double co_resident = fmin((double)per_sm, ceil((double)k->blocks / P));
  /* The SM's own pipes (issue slots, FP units, shared memory) serve only its
   * blocks: the busiest SM runs ceil(B / P) of them, so a grid that does not
   * divide evenly over the SMs (or is smaller than P) takes longer than the
   * whole kernel's work at the device's rate, by this factor. */
  double busiest = ceil((double)k->blocks / P) * P / (double)k->blocks;

  double t_mem = 0, t_sh = 0, t_ops = 0, t_bar = 0;
  double bound_time[3] = {0, 0, 0};
  double throughput_sum = 0, wait_sum = 0, chain_wait_sum = 0;
  for (int i = 0; i < k->round_count; i++) {
    const ts_model_round *r = &k->rounds[i];
    double s = r->bytes_per_access > 0 ? r->bytes_per_access : 4.0;
    double ilp = r->independent_accesses > 0 ? r->independent_accesses : 1.0;
    double latency = (r->l2_resident ? p->l2_latency_ns : p->dram_latency_ns) * 1e-9;
    double idle_latency = latency;

    /* Memory: Little's law through the measured sweep, or the L2 figures. */
    double in_flight = m * w * ilp * s;
    double bw, bw_random;
    if (r->l2_resident) {
      bw = fmin(p->l2_bandwidth_gbps * 1e9, in_flight * P / latency);
      bw_random = bw;
    } else {
      bw = bandwidth_at(p, in_flight);
      bw_random = fmin(bw, p->dram_random_gbps * 1e9);
      /* The latency a warp sees with f bytes in flight a SM: Little's law
       * read backwards on the sweep (loaded latency), never below the idle
       * latency of the pointer chase. */
      latency = fmax(latency, in_flight * P / bw);
    }
    double l2_bw = fmin(p->l2_bandwidth_gbps * 1e9, in_flight * P / (p->l2_latency_ns * 1e-9));
    double transfer = r->coalesced_bytes / bw + r->scattered_bytes / bw_random + r->l2_bytes / l2_bw;
    double chain = waves * r->dependent_accesses * latency;
    double critical = r->critical_chain * (r->critical_in_l2 ? p->l2_latency_ns * 1e-9 : latency);
    double mem = max3(transfer, chain, critical);
    /* As a wait (below): the chains at the idle latency; queueing under
     * load is the transfer term's (Little's law through the sweep). */
    double chain_wait = fmax(waves * r->dependent_accesses * idle_latency,
                             r->critical_chain * (r->critical_in_l2 ? p->l2_latency_ns * 1e-9 : idle_latency));

    /* Shared memory: request throughput with the conflict cost; the
     * latency of q dependent requests per wave is a wait (below). */
    int d = r->conflict_degree > 0 ? r->conflict_degree : 1;
    double sh_throughput = busiest * total_warps * r->shared_requests * p->conflict_cost[d - 1] * SHARED_REQUEST_BYTES /
                           (p->shared_bandwidth_gbps * 1e9);

    /* Operations: each pipe's own throughput, and the issue bound. An SM
     * issues at most one warp instruction per scheduler and cycle, 4 per
     * cycle on compute capability 7.0 and later (NVIDIA, H100 Tensor Core
     * GPU Architecture whitepaper, 2022: four SM sub-partitions, one warp
     * scheduler each); FP32 FMAs run at 128 lanes a cycle, the same 4 warp
     * instructions (CUDA C++ Programming Guide, "Arithmetic Instructions"),
     * so the calibrated FP32 FMA rate / w is the issue rate and every other
     * instruction of the round takes one of those slots. The round's warp
     * instructions: its operations, one global access instruction per s
     * bytes a thread moves, the shared requests and the barriers. */
    double accesses = (r->coalesced_bytes + r->scattered_bytes + r->l2_bytes) / s;
    double warp_instructions = (r->fp32_ops + r->fp64_ops + r->int_ops + r->atomics + r->atomics_same + accesses) / w +
                               total_warps * (r->shared_requests + r->barriers);
    double issue = warp_instructions * w / p->fp32_ops_per_s;
    double ops = fmax(fmax(r->fp32_ops / p->fp32_ops_per_s, r->fp64_ops / p->fp64_ops_per_s),
                      fmax(r->int_ops / p->int_ops_per_s,
                           r->atomics / p->atomic_distinct_per_s + r->atomics_same / p->atomic_same_per_s));
    ops = busiest * fmax(ops, issue);

    double bar = waves * r->barriers * barrier_cost;
    double sh_latency = waves * r->shared_requests * p->shared_latency_ns * 1e-9;
    if (co_resident >= 2) {
      /* Blocks on one SM run their rounds at their own pace: a block that
       * waits (its chains of dependent accesses, shared-memory latency,
       * barriers) leaves the SM and the memory system to the other
       * resident blocks, as in Hong and Kim's model (ISCA 2009, section
       * 4: the waiting periods of warps overlap the memory and compute
       * periods of others; memory time is latency-bound with too few
       * warps in flight, bandwidth-bound with enough). The chains wait the
       * idle latency: queueing under load is the bandwidth limit, which
       * the transfer term already prices (Little's law on the sweep). Throughput bounds still add from round to
       * round (a DRAM-bound round and a conflict-bound round do not
       * overlap: global and shared memory instructions share the SM's
       * load/store path); waits overlap them: the kernel costs the larger
       * of the sum of the rounds' throughput bounds and the sum of their
       * waits. */
      double worst = max3(transfer, sh_throughput, ops);
      int which = worst == transfer ? 0 : worst == sh_throughput ? 1 : 2;
      bound_time[which] += worst;
      throughput_sum += worst;
      wait_sum += chain_wait + sh_latency + bar;
      chain_wait_sum += chain_wait;
    } else {
      /* One block a SM: nothing hides its barrier waits, and its chains
       * wait the loaded latency. */
      double sh = max2(sh_throughput, sh_latency);
      double worst = max3(mem, sh, ops);
      int which = worst == mem ? 0 : worst == sh ? 1 : 2;
      bound_time[which] += worst + bar;
      throughput_sum += worst + bar;
    }
    t_mem += mem;
    t_sh += max2(sh_throughput, sh_latency);
    t_ops += ops;
    t_bar += bar;
  }
  double total = throughput_sum;
  if (wait_sum > throughput_sum) {
    total = wait_sum;
    /* Attributed to memory when the chains are most of the waits. */
    bound_time[2 * chain_wait_sum >= wait_sum ? 0 : 1] += wait_sum - throughput_sum;
  }
  int launches = k->launches > 0 ? k->launches : 1;
  double launch = launches * p->launch_device_us * 1e-6;
  if (!isfinite(total + launch))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_model_predict: the rounds' counts are too large for a finite time (above 10^300 bytes "
                     "or operations)");
  *seconds = total + launch;
  if (breakdown) {
    breakdown->blocks_per_sm = per_sm;
    breakdown->warps_per_sm = m;
    breakdown->waves = waves;
    breakdown->memory_s = t_mem;
    breakdown->shared_s = t_sh;
    breakdown->ops_s = t_ops;
    breakdown->barrier_s = t_bar;
    breakdown->launch_s = launch;
    breakdown->bound = bound_time[0] >= bound_time[1] && bound_time[0] >= bound_time[2] ? 0
                       : bound_time[1] >= bound_time[2]                                 ? 1
                                                                                        : 2;
  }
  return TS_SUCCESS;
}

ts_status ts_model_predict(const ts_model_params *params, const ts_model_kernel *kernel, double *seconds) {
  return ts_model_predict_ex(NULL, params, kernel, seconds, NULL);
}
