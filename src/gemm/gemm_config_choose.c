/* The one place where the GPU GEMM's tile configuration is chosen.
 *
 * Rule: every configuration of the precision is priced as
 *   cost = ceil(tiles / SMs) * block_m * block_n / efficiency
 * where tiles = ceil(m / block_m) * ceil(n / block_n). ceil(tiles / SMs) is
 * the number of output tiles the busiest SM must compute (blocks that share
 * an SM share its FMA units, so resident blocks do not make a tile cheaper),
 * block_m * block_n is the FMAs of one tile per unit of k (k is the same for
 * every configuration, so it drops out), and efficiency is the fraction of
 * the FMA peak the configuration sustains on a large product (its
 * arithmetic intensity: larger register and block tiles need fewer shared
 * and global loads per FMA). The cheapest wins; ties go to the earlier entry.
 * Small products thus take small tiles that fill the SMs, large ones the
 * largest tile. The efficiencies are the fractions of the CUDA-core peak
 * each configuration sustained on 8192^3 on the H200 (bench/gemm_cuda_cores,
 * bench/results/gemm/gemm-h200.md); the SPT performance model is meant to replace
 * them with a prediction per shape. */
#include "gemm_configs.h"

#include <stdio.h>

/* Measured fraction of the FMA peak sustained on 8192^3, by id (H200;
 * fp32 at commit d88cbbe with the BK = 16 tiles in dynamic shared memory:
 * s128x128x8 0.622 (2 blocks per SM) and 0.563 (1), s128x128x16 0.626,
 * s128x256x8 0.648, s128x64x8 0.610, s64x64x8 0.582, s128x256x16 0.642,
 * s256x128x16 0.668, s128x128x16 (2 blocks) 0.620; fp64 at a072b44:
 * d128x128x8 0.642, d128x64x8 0.579, d64x64x8 0.478). */
static double config_efficiency(const tsi_gemm_config *c) {
  static const double efficiency[] = {0.0,   0.622, 0.563, 0.626, 0.648, 0.610, 0.582,
                                      0.642, 0.579, 0.478, 0.642, 0.668, 0.620};
  if (c->id < (int)(sizeof efficiency / sizeof efficiency[0]))
    return efficiency[c->id];
  return 0.5;
}

int tsi_gemm_config_choose(ts_dtype dtype, int64_t m, int64_t n, int64_t k, int multiprocessors, char *reason,
                           size_t reason_size) {
  (void)k;
  int sms = multiprocessors > 0 ? multiprocessors : 1;
  int best = 0;
  double best_cost = 0.0;
  int64_t best_tiles = 0;
  for (int id = 1; id <= tsi_gemm_config_count(); id++) {
    const tsi_gemm_config *c = tsi_gemm_config_get(id);
    if (c->dtype != dtype)
      continue;
    int64_t tiles = tsi_gemm_config_tiles(c, m > 0 ? m : 1, n > 0 ? n : 1);
    int64_t per_sm = (tiles + sms - 1) / sms;
    double cost = (double)per_sm * (double)c->block_m * (double)c->block_n / config_efficiency(c);
    if (best == 0 || cost < best_cost) {
      best = id;
      best_cost = cost;
      best_tiles = tiles;
    }
  }
  if (reason && reason_size > 0) {
    const tsi_gemm_config *c = tsi_gemm_config_get(best);
    if (c)
      snprintf(reason, reason_size,
               "%dx%dx%d tiles: %lld tiles on %d SMs, %lld per SM, efficiency %.2f: lowest of ceil(tiles/SMs) * "
               "tile area / efficiency",
               c->block_m, c->block_n, c->block_k, (long long)best_tiles, sms,
               (long long)((best_tiles + sms - 1) / sms), config_efficiency(c));
    else
      snprintf(reason, reason_size, "no configuration for this precision");
  }
  return best;
}
