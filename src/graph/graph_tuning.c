/* The graph traversals' tuning constants per compute capability. */
#include "graph_tuning.h"

tsi_graph_tuning tsi_graph_tuning_for(int major, int minor) {
  /* One shape for every architecture until a measurement says otherwise
   * (all of them hold 1,536 to 2,048 threads an SM: two blocks of 512). */
  (void)major;
  (void)minor;
  tsi_graph_tuning t;
  t.blocks_per_sm = 2;
  t.hub_degree = 4096;
  t.heavy_in_degree = 256;
  t.check_first_frontier = 8192;
  /* Warp-aggregated appends cost about one same-address atomic per 8 vertices found
   * (1.32 G/s on the H200); the bitmap costs a rebuild and a grid barrier (~3 us). They
   * break even near 30 k vertices found: a road-like grid's levels stay below, a
   * Kronecker graph's wide levels above. */
  t.queue_edges = (int64_t)1 << 17;
  t.alpha = 15;
  t.beta = 18;
  t.delta_scale = 1.0;
  /* kron21, kron21 at edge factor 48 and R-MAT 22 (mean degrees 30-86, weights
   * in (0, 1]) were fastest at a step of a quarter of the mean weight; the
   * road-like grid (degree 3.6) slows down with any step below its own. */
  t.wide_mean_degree = 8.0;
  t.wide_delta_scale = 0.25;
  return t;
}

tsi_graph_tuning tsi_graph_tuning_for_schedule(tsi_graph_tuning t, ts_schedule schedule) {
  if (schedule == TS_SCHEDULE_WORK_ORIENTED)
    t.hub_degree = INT64_MAX;
  return t;
}
