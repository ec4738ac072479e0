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
  t.queue_edges = (int64_t)1 << 14;
  t.alpha = 15;
  t.beta = 18;
  t.delta_scale = 1.0;
  return t;
}
