/**
 * @file tessera/model.h
 * @brief A performance model of GPU kernels in synchronous rounds, its
 *        calibration by microbenchmarks, and its uses (SpMV schedule ranking).
 *
 * The model follows the principles of Karsin's Synchronous Parallel
 * Throughput (SPT) model (PhD dissertation, University of Hawai'i, 2018): a
 * kernel is a sequence of rounds separated by barriers; a round costs what
 * its slowest resource needs, and memory latency is hidden by multiplicity,
 * the warps in flight per SM. The formulas below are tessera's own
 * reconstruction from those principles, together with Hong and Kim's
 * MWP-CWP model (ISCA 2009: memory requests in flight bound throughput),
 * Little's law as Volkov uses it (PhD thesis, UC Berkeley 2016: latency
 * hiding needs bytes in flight = bandwidth x latency) and the roofline model
 * (Williams, Waterman and Patterson, CACM 2009). docs/model.md derives them.
 *
 * Notation: P = SMs, m = resident warps per SM (multiplicity), w = 32.
 * For a kernel of B blocks of t threads, with b blocks resident per SM
 * (ts_model_occupancy()):
 *
 *     waves      = ceil(B / (b * P))
 *     m          = min(b * ceil(t / w), ceil(B * ceil(t / w) / P))
 *     in flight  = m * w * k * s   bytes per SM (k independent accesses per
 *                  thread, s bytes moved per access)
 *     BW(f)      = the measured bandwidth at f bytes in flight per SM
 *                  (multiplicity sweep; below its first point Little's law,
 *                  f * P / latency; above its last, the last point)
 *
 * Round r costs
 *
 *     L      = max(L_DRAM, f * P / BW(f))   (loaded latency; L_L2 in L2)
 *     T_mem  = max( coalesced / BW(f) + scattered / min(BW(f), BW_random)
 *                   + l2_bytes / BW_L2,
 *                   waves * D * L,  C * L )
 *     T_sh_tp = W * q * c(d) * 128 / BW_shared
 *     T_bar  = waves * barriers * S(t)
 *     T_ops  = max( fp32 / F32, fp64 / F64, int / INT, atomics / A + same / A1,
 *                   I w / F32 )
 *              I = (fp32 + fp64 + int + atomics + same + bytes / s) / w
 *                  + W (q + barriers)    warp instructions issued; an SM
 *                                         issues 4 a cycle, the FP32 FMA rate
 *     T_tr   = the transfer part of T_mem (its first argument)
 *     T_tp   = max(T_tr, T_sh_tp, T_ops)    throughput bound of the round
 *     T_wait = max(waves D L0, C L0') + waves (q L_shared + barriers S(t))
 *              L0 = the idle latency (DRAM, or L2 for an L2 round);
 *              L0' = the L2 latency when critical_in_l2 is set, else L0
 *     with b' = min(b, ceil(B / P)) >= 2 blocks sharing an SM (the waits
 *     of one block overlap the work of the others; Hong and Kim):
 *       T = max(sum_r T_tp, sum_r T_wait)
 *     with one block a SM (nothing hides the waits):
 *       T = sum_r (max(T_mem, T_sh, T_ops) + T_bar),  T_sh = max(T_sh_tp, waves q L_shared)
 *
 * with L the latency a dependent access waits (the DRAM latency, or more
 * under load as the sweep's Little's law says; L2 latency for an L2-resident
 * round, and for C when critical_in_l2 is set), D the
 * dependent accesses per thread (chain length), C the longest chain of any
 * one thread (critical path), W the warps of the kernel, q the shared-memory
 * requests per warp, c(d) the measured cost of a d-way bank conflict
 * relative to none, S(t) the measured barrier cost at t threads per block.
 * The kernel costs T + launches * launch overhead.
 */
#ifndef TESSERA_MODEL_H
#define TESSERA_MODEL_H

#include "tessera/core.h"
#include "tessera/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Points of the multiplicity sweep (warps per SM 1, 2, 4, 8, 16, 32, 48, 64). */
#define TS_MODEL_SWEEP_POINTS 8
/** Largest shared-memory bank-conflict degree measured (one per bank). */
#define TS_MODEL_MAX_CONFLICT 32
/** Block sizes at which the barrier cost is measured (64, 256, 512, 1024). */
#define TS_MODEL_BARRIER_POINTS 4

/**
 * Parameters of one GPU: its limits (from the device properties) and what
 * the microbenchmarks measured. Times in nanoseconds or microseconds as
 * named, rates per second, bandwidths in GB/s (10^9 bytes per second).
 */
typedef struct ts_model_params {
  char device[128];                  /**< Device name ("NVIDIA H200"). */
  int compute_major;                 /**< Compute capability, major. */
  int compute_minor;                 /**< Compute capability, minor. */
  int sm_count;                      /**< P: streaming multiprocessors. */
  int warp_size;                     /**< Threads per warp (32). */
  int max_threads_per_sm;            /**< Resident threads per SM. */
  int max_threads_per_block;         /**< Largest block. */
  int max_blocks_per_sm;             /**< Resident blocks per SM. */
  int registers_per_sm;              /**< 32-bit registers per SM. */
  int registers_per_block;           /**< Registers one block may hold. */
  int max_registers_per_thread;      /**< Registers one thread may hold. */
  int register_alloc_unit;           /**< Registers are given to a warp in multiples of this. */
  int register_partitions;           /**< Register file slices (warp schedulers) per SM. */
  int64_t shared_per_sm;             /**< Shared memory per SM, bytes. */
  int64_t shared_per_block_optin;    /**< Largest shared memory per block (opt-in), bytes. */
  int64_t shared_reserved_per_block; /**< Shared bytes the system reserves per block. */
  int shared_alloc_unit;             /**< Shared memory is given in multiples of this many bytes. */
  int64_t l2_bytes;                  /**< L2 cache size, bytes. */
  double clock_ghz;                  /**< SM clock the latencies were converted with, GHz. */
  double dram_latency_ns;            /**< Dependent load from DRAM (pointer chase over a buffer > L2), ns. */
  double l2_latency_ns;              /**< Dependent load that hits L2 (chase within L2), ns. */
  double shared_latency_ns;          /**< Dependent shared-memory load, ns. */
  double dram_bandwidth_gbps;        /**< Best coalesced read bandwidth of the sweep, GB/s. */
  double dram_random_gbps;           /**< Read bandwidth of random 32-byte sectors over a buffer > L2, GB/s. */
  double l2_bandwidth_gbps;          /**< Coalesced read bandwidth of a buffer resident in L2, GB/s. */
  double shared_bandwidth_gbps;      /**< Conflict-free shared-memory load bandwidth, whole device, GB/s. */
  int sweep_count;                   /**< Points filled in the sweep arrays. */
  double sweep_warps_per_sm[TS_MODEL_SWEEP_POINTS];    /**< Warps per SM of each sweep point. */
  double sweep_bytes_in_flight[TS_MODEL_SWEEP_POINTS]; /**< Bytes of loads in flight per SM at each point. */
  double sweep_gbps[TS_MODEL_SWEEP_POINTS];            /**< Read bandwidth measured at each point, GB/s. */
  double conflict_cost[TS_MODEL_MAX_CONFLICT]; /**< Time of a d-way conflicted warp access over a conflict-free one, d =
                                                  index + 1. */
  double fp32_ops_per_s;                       /**< FP32 FMA thread instructions per second, whole device. */
  double fp64_ops_per_s;                       /**< FP64 FMA thread instructions per second, whole device. */
  double int_ops_per_s;                        /**< 32-bit integer multiply-add thread instructions per second. */
  double barrier_threads[TS_MODEL_BARRIER_POINTS]; /**< Block sizes of the barrier measurements. */
  double barrier_ns[TS_MODEL_BARRIER_POINTS];      /**< Time of one __syncthreads per wave of full occupancy, ns. */
  double launch_host_us;                           /**< Host wall time per launch of an empty kernel in a burst, us. */
  double launch_device_us;                         /**< Device time of one empty kernel between events, us. */
  double atomic_distinct_per_s;                    /**< Global atomicAdd on distinct addresses, per second. */
  double atomic_same_per_s;                        /**< Global atomicAdd on one address, per second. */
} ts_model_params;

/**
 * Run the microbenchmarks on the context's GPU (about 10 s) and fill
 * @p params. The context must use the CUDA backend (TS_ERROR_NO_DEVICE
 * otherwise, and TS_ERROR_UNSUPPORTED in a build without CUDA). Uses about
 * 1 GiB of device memory while it runs.
 */
TS_API ts_status ts_model_calibrate(ts_context *ctx, ts_model_params *params);

/**
 * Write @p params as a flat JSON object to @p path (numbers with 17
 * significant digits, arrays of numbers, the device name as a string).
 * @p ctx may be NULL. TS_ERROR_IO when the file cannot be written.
 */
TS_API ts_status ts_model_params_write_json(ts_context *ctx, const ts_model_params *params, const char *path);

/**
 * Read a file written by ts_model_params_write_json(). Unknown keys are
 * ignored; a missing key, a value of the wrong kind, an array of the wrong
 * length or malformed JSON gives TS_ERROR_PARSE with the line in the
 * message; TS_ERROR_IO when the file cannot be opened. @p ctx may be NULL.
 * On failure *params is left unspecified.
 */
TS_API ts_status ts_model_params_read_json(ts_context *ctx, const char *path, ts_model_params *params);

/**
 * Check that @p params is usable by the predictor: every field finite and
 * within the range of a real GPU with a wide margin (1 to 65,536 SMs, warps
 * of 1 to 1,024 threads, per-block limits no larger than the SM's,
 * latencies from 1 ps to 1 s, bandwidths from 1 MB/s to 10^9 GB/s, rates
 * from 1 to 10^21 a second; a sweep of at least one point with increasing
 * bytes in flight). TS_ERROR_INVALID_ARGUMENT names the first bad field.
 * @p ctx may be NULL.
 */
TS_API ts_status ts_model_params_check(ts_context *ctx, const ts_model_params *params);

/**
 * Resident blocks per SM for a launch shape, computed as the CUDA occupancy
 * calculator does: the least of the block limit, the thread limit (blocks
 * rounded up to whole warps), the register limit (registers per warp rounded
 * up to the allocation unit, warps per register partition) and the shared
 * memory limit (bytes plus the per-block reservation, rounded up to the
 * allocation unit). 0 when a block cannot run at all (too many threads,
 * registers or shared bytes). @p ctx may be NULL.
 */
TS_API ts_status ts_model_occupancy(ts_context *ctx, const ts_model_params *params, int threads_per_block,
                                    int registers_per_thread, int64_t shared_bytes_per_block, int *blocks_per_sm);

/** One synchronous round of a kernel: what all its threads do between two barriers. Zero-initialise. */
typedef struct ts_model_round {
  double coalesced_bytes;  /**< Bytes read + written from DRAM in full sectors, whole kernel. */
  double scattered_bytes;  /**< Bytes moved as isolated 32-byte sectors (count sectors x 32), whole kernel. */
  double l2_bytes;         /**< Bytes served by L2 (repeated reads of data already in L2), whole kernel. */
  double bytes_per_access; /**< s: bytes one thread's access moves (4 for a coalesced float; 32 for a scattered sector);
                              0 = 4. */
  double independent_accesses; /**< k: global accesses in flight per thread at each step (ILP); 0 = 1. */
  double dependent_accesses;   /**< D: dependent global accesses per thread (latency chain length). */
  double critical_chain;       /**< C: dependent global accesses of the longest thread (0: none beyond D). */
  double critical_in_l2;  /**< Non-zero when the longest thread's accesses hit L2 (a walk along lines others loaded): C
                             costs L2 latency. */
  int l2_resident;        /**< Non-zero when the round's data stays in L2: L2 latency and bandwidth. */
  double shared_requests; /**< q: warp-wide shared-memory requests per warp. */
  int conflict_degree;    /**< d: bank-conflict degree of those requests, 1 to 32; 0 = 1. */
  double fp32_ops;        /**< FP32 FMA/add/mul thread instructions, whole kernel. */
  double fp64_ops;        /**< FP64 thread instructions, whole kernel. */
  double int_ops;         /**< Integer and other thread instructions that are neither floating point nor memory
                             (address arithmetic, compares, moves, branches), whole kernel. */
  double atomics;         /**< Global atomics on distinct addresses, whole kernel. */
  double atomics_same;    /**< Global atomics on one address, whole kernel. */
  double barriers;        /**< __syncthreads per block in this round. */
} ts_model_round;

/** A kernel: its launch shape and rounds. Zero-initialise, then set fields. */
typedef struct ts_model_kernel {
  int64_t blocks;                 /**< Blocks in the grid (> 0). */
  int threads_per_block;          /**< Threads per block (1 to the device limit). */
  int registers_per_thread;       /**< Registers per thread (0 = 32). */
  int64_t shared_bytes_per_block; /**< Static + dynamic shared memory per block. */
  int launches;                   /**< Kernel launches the work takes (0 = 1). */
  int round_count;                /**< Entries of rounds. */
  const ts_model_round *rounds;   /**< The rounds, in order. */
} ts_model_kernel;

/** The terms of a prediction, for explanation (seconds). */
typedef struct ts_model_breakdown {
  int blocks_per_sm;   /**< Resident blocks per SM. */
  double warps_per_sm; /**< m: warps per SM in flight. */
  double waves;        /**< Waves of resident blocks. */
  double memory_s;     /**< Sum over rounds of T_mem. */
  double shared_s;     /**< Sum over rounds of T_sh. */
  double ops_s;        /**< Sum over rounds of T_ops (pipes and instruction issue). */
  double barrier_s;    /**< Sum over rounds of the barrier term. */
  double launch_s;     /**< Launch overhead. */
  int bound;           /**< Which term bounds most of the time: 0 memory, 1 shared, 2 operations. */
} ts_model_breakdown;

/**
 * Predicted time of @p kernel on the device of @p params, in seconds
 * (formulas in the file comment). TS_ERROR_INVALID_ARGUMENT for bad params
 * (ts_model_params_check()), a launch that cannot run (0 blocks per SM), bad
 * round fields (negative, not finite, conflict degree above 32) or counts so
 * large that the time would not be finite.
 */
TS_API ts_status ts_model_predict(const ts_model_params *params, const ts_model_kernel *kernel, double *seconds);

/** As ts_model_predict(), also filling @p breakdown (may be NULL). @p ctx may be NULL. */
TS_API ts_status ts_model_predict_ex(ts_context *ctx, const ts_model_params *params, const ts_model_kernel *kernel,
                                     double *seconds, ts_model_breakdown *breakdown);

/** Predicted time of one SpMV schedule on a matrix. */
typedef struct ts_model_spmv_estimate {
  ts_schedule schedule; /**< The schedule. */
  double seconds;       /**< Predicted time of one ts_spmv_execute(), beta = 0. */
} ts_model_spmv_estimate;

/** Schedules ts_model_spmv_rank() ranks (thread-, warp-, block-mapped, merge-path, work-oriented). */
#define TS_MODEL_SPMV_SCHEDULES 5

/**
 * Rank tessera's SpMV schedules for a matrix from its statistics alone:
 * each schedule is described as rounds (docs/model.md, "SpMV") and
 * predicted; @p estimates (room for TS_MODEL_SPMV_SCHEDULES) is filled
 * fastest first and *count set to the entries written. @p dtype is the value
 * type. @p ctx may be NULL.
 */
TS_API ts_status ts_model_spmv_rank(ts_context *ctx, const ts_model_params *params, const ts_csr_stats *stats,
                                    ts_dtype dtype, ts_model_spmv_estimate *estimates, int *count);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_MODEL_H */
