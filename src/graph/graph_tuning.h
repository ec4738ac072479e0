/* Tuning constants of the graph traversals (BFS, SSSP), in one place, keyed
 * by compute capability where a measurement says it matters. What each
 * value was measured against is in bench/notes/graph.md. */
#ifndef TESSERA_GRAPH_TUNING_H
#define TESSERA_GRAPH_TUNING_H

#include <stdint.h>

#include "tessera/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of the persistent traversal kernels (a compile-time
 * constant: the kernels' shared memory and scans are sized by it). */
#define TSI_GRAPH_BLOCK 512

typedef struct tsi_graph_tuning {
  /* Resident blocks per SM the persistent kernels launch (at most what the
   * occupancy allows): more threads hide more latency on wide levels, more
   * blocks make each grid barrier (one atomic per block) slower. */
  int blocks_per_sm;
  /* Out-degree above which a frontier vertex's edges are spread over the
   * whole grid instead of the schedule's group. */
  int64_t hub_degree;
  /* In-degree above which a bottom-up step scans a vertex's in-edges with a
   * warp (32 at a time) instead of one thread. */
  int64_t heavy_in_degree;
  /* Frontier size from which a visit reads the vertex's state before its
   * atomic (most visits of a wide level find the vertex already reached;
   * on narrow levels the read only adds a round trip to the level). */
  int64_t check_first_frontier;
  /* Frontier edges up to which a top-down step appends the vertices it
   * finds to a queue (an atomic on a shared tail per warp that finds one);
   * past it the step only sets their bits, and the next top-down step
   * rebuilds the queue from the bitmap (an atomic per block of words). */
  int64_t queue_edges;
  /* Direction optimisation (Beamer, Asanovic and Patterson, SC'12): go
   * bottom-up when the frontier's edges pass the unexplored edges / alpha,
   * back top-down when the frontier holds fewer than vertices / beta and
   * shrinks. */
  int alpha, beta;
  /* SSSP near-far step: delta = scale * mean weight * 32 / mean out-degree
   * (Davidson et al., IPDPS 2014: a step that gives each vertex of the near
   * set about a warp of useful relaxations). */
  double delta_scale;
  /* From this mean out-degree on, delta = wide_delta_scale * mean weight: on
   * such graphs the relaxations cost more than the rounds, and a small step
   * makes most edges heavy, relaxed once a phase (light and heavy edges,
   * sssp_cuda_kernel.cuh); below it the rounds' fixed cost rules (road-like
   * graphs, thousands of rounds) and the wide step stays. */
  double wide_mean_degree, wide_delta_scale;
} tsi_graph_tuning;

/* The constants for a GPU of compute capability major.minor (0.0: the CPU). */
tsi_graph_tuning tsi_graph_tuning_for(int major, int minor);

/* The constants a plan of @p schedule runs with: the work-oriented expansion
 * balances long adjacency lists itself, so it has no hub vertices. */
tsi_graph_tuning tsi_graph_tuning_for_schedule(tsi_graph_tuning t, ts_schedule schedule);

#ifdef __cplusplus
}
#endif

#endif
