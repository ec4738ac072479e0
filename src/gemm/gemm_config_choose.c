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
 * largest tile. The efficiencies are measured ones (gemm_tuning.h); the SPT
 * performance model is meant to replace them with a prediction per shape. */
#include "gemm/gemm_configs.h"

#include <stdio.h>

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
    double cost = (double)per_sm * (double)c->block_m * (double)c->block_n / c->efficiency;
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
               (long long)((best_tiles + sms - 1) / sms), c->efficiency);
    else
      snprintf(reason, reason_size, "no configuration for this precision");
  }
  return best;
}
