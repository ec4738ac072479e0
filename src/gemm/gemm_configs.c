/* The GPU GEMM's configuration table, each configuration's k-step round
 * (what the performance model prices), and the public description. */
#include "gemm/gemm_configs.h"

#include <stdio.h>
#include <string.h>

#define TSI_GEMM_CONFIG_ENTRY(id, dtype, type, bm, bn, bk, wm, wn, tm, tn, regs, bps, efficiency)                      \
  {id, dtype, bm, bn, bk, wm, wn, tm, tn, regs, bps, efficiency},
static const tsi_gemm_config gemm_configs[] = {TSI_GEMM_CONFIG_LIST(TSI_GEMM_CONFIG_ENTRY)};
#undef TSI_GEMM_CONFIG_ENTRY

int tsi_gemm_config_count(void) { return (int)(sizeof gemm_configs / sizeof gemm_configs[0]); }

const tsi_gemm_config *tsi_gemm_config_get(int id) {
  if (id < 1 || id > tsi_gemm_config_count())
    return NULL;
  return &gemm_configs[id - 1];
}

int64_t tsi_gemm_config_tiles(const tsi_gemm_config *config, int64_t m, int64_t n) {
  return ((m + config->block_m - 1) / config->block_m) * ((n + config->block_n - 1) / config->block_n);
}

void tsi_gemm_config_round(const tsi_gemm_config *c, tsi_gemm_round *r) {
  int value = (int)ts_dtype_size(c->dtype);
  int vector = 16 / value; /* values per 16-byte fragment load */
  int lanes_m = c->block_m / c->warps_m / c->thread_m;
  int lanes_n = 32 / lanes_m;
  memset(r, 0, sizeof *r);
  r->threads = 32 * c->warps_m * c->warps_n;
  r->shared_bytes = 2 * c->block_k * (c->block_m + c->block_n + 2 * TSI_GEMM_SHARED_PAD) * value;
  r->global_bytes = (int64_t)(c->block_m + c->block_n) * c->block_k * value;
  r->global_loads_per_thread = (c->block_m + c->block_n) * c->block_k / r->threads;
  r->shared_stores_per_thread = r->global_loads_per_thread;
  r->shared_loads_per_thread = c->block_k * (c->thread_m + c->thread_n) / vector;
  /* A warp-wide fragment load touches lanes_m (or lanes_n) distinct 16-byte
   * words, contiguous; one wavefront serves 128 bytes. */
  int widest = lanes_m > lanes_n ? lanes_m : lanes_n;
  r->shared_wavefronts_per_load = (widest * 16 + 127) / 128;
  r->shared_read_bytes = (int64_t)r->threads * r->shared_loads_per_thread * 16;
  r->shared_write_bytes = r->global_bytes;
  r->fmas_per_thread = c->block_k * c->thread_m * c->thread_n;
  r->fmas = (int64_t)r->threads * r->fmas_per_thread;
  r->barriers = 1;
  r->epilogue_stores_per_thread = c->thread_m * c->thread_n;
}

int ts_gemm_config_count(void) { return tsi_gemm_config_count(); }

ts_status ts_gemm_config_describe(int id, ts_gemm_config_info *info) {
  const tsi_gemm_config *c = tsi_gemm_config_get(id);
  if (!info)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_gemm_config_describe: NULL info");
  if (!c)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_gemm_config_describe: no configuration %d (ids 1 to %d)", id,
                     tsi_gemm_config_count());
  tsi_gemm_round r;
  tsi_gemm_config_round(c, &r);
  memset(info, 0, sizeof *info);
  info->id = c->id;
  info->dtype = c->dtype;
  snprintf(info->name, sizeof info->name, "%c%dx%dx%d-%d", c->dtype == TS_FLOAT32 ? 's' : 'd', c->block_m, c->block_n,
           c->block_k, c->blocks_per_sm);
  info->block_m = c->block_m;
  info->block_n = c->block_n;
  info->block_k = c->block_k;
  info->thread_m = c->thread_m;
  info->thread_n = c->thread_n;
  info->threads = r.threads;
  info->shared_bytes = r.shared_bytes;
  info->registers = c->registers;
  info->blocks_per_sm = c->blocks_per_sm;
  info->global_bytes = r.global_bytes;
  info->shared_reads = r.shared_read_bytes;
  info->shared_writes = r.shared_write_bytes;
  info->fmas = r.fmas;
  info->barriers = r.barriers;
  return TS_SUCCESS;
}
