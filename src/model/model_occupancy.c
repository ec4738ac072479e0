/* Resident blocks per SM for a launch shape, as the CUDA occupancy
 * calculator computes it (NVIDIA, CUDA C++ Programming Guide, "Occupancy";
 * the limits are the device properties held in ts_model_params). */
#include "core/internal.h"
#include "tessera/model.h"

static int64_t round_up(int64_t value, int64_t unit) { return unit > 0 ? (value + unit - 1) / unit * unit : value; }

static int64_t least(int64_t a, int64_t b) { return a < b ? a : b; }

ts_status ts_model_occupancy(ts_context *ctx, const ts_model_params *params, int threads_per_block,
                             int registers_per_thread, int64_t shared_bytes_per_block, int *blocks_per_sm) {
  if (!params || !blocks_per_sm)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_occupancy: NULL argument");
  if (threads_per_block < 1 || registers_per_thread < 0 || shared_bytes_per_block < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_model_occupancy: %d threads, %d registers, %lld shared bytes per block", threads_per_block,
                     registers_per_thread, (long long)shared_bytes_per_block);
  ts_status st = ts_model_params_check(ctx, params);
  if (st != TS_SUCCESS)
    return st;
  *blocks_per_sm = 0;
  int warp = params->warp_size;
  if (threads_per_block > params->max_threads_per_block || registers_per_thread > params->max_registers_per_thread ||
      shared_bytes_per_block > params->shared_per_block_optin)
    return TS_SUCCESS;
  int64_t warps_per_block = (threads_per_block + warp - 1) / warp;

  int64_t limit = params->max_blocks_per_sm;
  limit = least(limit, params->max_threads_per_sm / (warps_per_block * warp));

  /* Registers: a warp gets registers_per_thread * 32 rounded up to the
   * allocation unit, and a warp lives within one register partition. */
  if (registers_per_thread > 0) {
    int64_t per_warp = round_up((int64_t)registers_per_thread * warp, params->register_alloc_unit);
    if (per_warp * warps_per_block > params->registers_per_block)
      return TS_SUCCESS;
    int partitions = params->register_partitions > 0 ? params->register_partitions : 1;
    int64_t warps_per_partition = (params->registers_per_sm / partitions) / per_warp;
    limit = least(limit, warps_per_partition * partitions / warps_per_block);
  }

  /* Shared memory: bytes plus the per-block reservation, in allocation units. */
  int64_t shared = round_up(shared_bytes_per_block + params->shared_reserved_per_block, params->shared_alloc_unit);
  if (shared > 0)
    limit = least(limit, params->shared_per_sm / shared);
  *blocks_per_sm = limit > 0 ? (int)limit : 0;
  return TS_SUCCESS;
}
