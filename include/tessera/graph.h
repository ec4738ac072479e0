/**
 * @file tessera/graph.h
 * @brief Graph traversal on CSR graphs: breadth-first search (levels and
 *        parents) and single-source shortest paths (distances and
 *        predecessors), planned once and executed from any source.
 *
 * A graph is a square ::ts_csr: row u lists the heads v of u's edges u -> v,
 * and for shortest paths the values are the edge weights. Rows may be
 * unsorted and may repeat a head (parallel edges); self-loops are allowed.
 * Symmetric, skew-symmetric and hermitian storage (one triangle, as Matrix
 * Market files keep it) describes an undirected graph and is expanded to both
 * directions by the plan. Vertex numbers are 32-bit: a graph of more than
 * INT32_MAX vertices is refused with TS_ERROR_OVERFLOW; edge counts and
 * offsets are 64-bit.
 *
 * Results are exact and deterministic: levels are hop counts, distances are
 * Dijkstra's (each path's weight summed from the source in the graph's value
 * type, the smallest over all paths); the parent of a vertex at level l is
 * the smallest-numbered vertex at level l - 1 with an edge to it, and the
 * predecessors of shortest paths follow the same rule on the subgraph of
 * tight edges (u -> v with dist(u) + w = dist(v), u != v), so that they
 * always form a tree rooted at the source, zero-weight cycles included.
 *
 * Plan, then execute: the plan validates the graph, builds what the GPU
 * needs (the in-edges of a directed graph for bottom-up BFS steps, the state
 * of the traversal) and allocates all of it; an execution allocates nothing
 * and, on CUDA, runs as one persistent kernel (levels are separated by
 * grid-wide barriers inside it), so the host never waits between levels.
 *
 * Example (the graph in host memory, outputs in backend memory):
 * @code
 *   ts_bfs_plan *bfs;
 *   ts_graph_options o = {0};
 *   o.direction = TS_GRAPH_UNDIRECTED;
 *   ts_bfs_plan_create(ctx, graph, &o, &bfs);
 *   ts_buffer *levels, *parents;
 *   ts_buffer_create(ctx, TS_MEMORY_DEVICE, graph->rows * sizeof(int32_t), &levels);
 *   ts_buffer_create(ctx, TS_MEMORY_DEVICE, graph->rows * sizeof(int32_t), &parents);
 *   ts_bfs_execute(bfs, 0, levels, parents);   // from vertex 0
 *   ts_graph_run_stats s;
 *   ts_bfs_last_run(bfs, &s);                  // waits; s.depth, s.reached
 * @endcode
 */
#ifndef TESSERA_GRAPH_H
#define TESSERA_GRAPH_H

#include "tessera/core.h"
#include "tessera/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How the stored entries of a general CSR are read as edges. */
typedef enum ts_graph_direction {
  TS_GRAPH_DIRECTED = 0,  /**< Entry (u, v) is the edge u -> v only. */
  TS_GRAPH_UNDIRECTED = 1 /**< Every edge is stored in both directions (checked: the plan refuses a graph where
                               (u, v) appears a different number of times than (v, u)). */
} ts_graph_direction;

/** Options of ts_bfs_plan_create() and ts_sssp_plan_create(); zero-initialise, then set fields. */
typedef struct ts_graph_options {
  /** DIRECTED (default) or UNDIRECTED for TS_GENERAL storage; symmetric storage is always undirected. */
  ts_graph_direction direction;
  /**
   * How a frontier's adjacency lists are spread over GPU threads (the graph
   * analogue of SpMV's schedule: a frontier vertex is a tile, its edges the
   * atoms): AUTO (WARP_MAPPED with 4 or 8 threads a vertex when every
   * out-degree is at most 8, else WORK_ORIENTED; see
   * ts_graph_plan_info::explain), THREAD_MAPPED, WARP_MAPPED, BLOCK_MAPPED,
   * GROUP_MAPPED (with these four, the edges of vertices of very high
   * out-degree are shared by the whole GPU) or WORK_ORIENTED (every step's
   * edges spread evenly over the whole GPU by a prefix sum of the frontier's
   * degrees built on the device: one more grid barrier a step, 16 more bytes
   * of state a vertex); MERGE_PATH and SPLIT_ROWS give TS_ERROR_UNSUPPORTED.
   * Results do not depend on it. The CPU backend records it.
   */
  ts_schedule schedule;
  /** WARP_MAPPED: threads per vertex, 4, 8 or 32 (0 = 32). GROUP_MAPPED: 32 threads share 32 vertices (0 or 32).
   * Other schedules: 0. Other values give TS_ERROR_INVALID_ARGUMENT. */
  int group_size;
  /** BFS: non-zero turns direction optimisation off (only top-down steps; no in-edges are built). */
  int top_down_only;
  /** SSSP: width of the near-far step, in weight units (> 0, finite); 0 = chosen from the mean weight and degree
   * (32 x mean weight / mean out-degree, or a quarter of the mean weight from a mean out-degree of 8). */
  double delta;
} ts_graph_options;

/** What a plan holds, and how it chose. */
typedef struct ts_graph_plan_info {
  int64_t vertices; /**< Vertices. */
  int64_t edges;    /**< Edges traversed (undirected graphs: both directions; symmetric storage expanded). */
  ts_graph_direction direction; /**< Direction the plan runs (UNDIRECTED for symmetric storage). */
  ts_schedule schedule;         /**< Schedule the GPU runs (AUTO resolved). */
  int group_size;               /**< Threads per vertex (WARP_MAPPED) or per group (GROUP_MAPPED), else 0. */
  int64_t max_out_degree;       /**< Largest out-degree. */
  int64_t hub_vertices;         /**< Vertices whose edges the whole GPU shares when they are in a frontier (none with
                                     WORK_ORIENTED, which spreads every vertex's edges). */
  int bottom_up;                /**< BFS: 1 when direction optimisation is on. */
  double delta;                 /**< SSSP: the near-far step used. */
  int64_t graph_bytes;          /**< Out-edges (offsets, heads, weights for SSSP) in backend memory. */
  int64_t in_edge_bytes;        /**< In-edges for bottom-up steps: 8 (n + 1) + 4 m bytes for a directed graph
                                     (undirected graphs use the out-edges; none when top-down only), plus 4 bytes
                                     per vertex of many in-edges (listed for warp-wide scans). */
  int64_t workspace_bytes;      /**< Traversal state (per-vertex keys, queues, bitmaps) in backend memory. */
  char explain[256];            /**< One line: the schedule and why, the direction, the memory. */
} ts_graph_plan_info;

/** What the last execution did (ts_bfs_last_run(), ts_sssp_last_run()). */
typedef struct ts_graph_run_stats {
  int64_t source;          /**< The source vertex. */
  int64_t reached;         /**< Vertices reached, the source included. */
  int64_t reached_edges;   /**< Out-edges of the reached vertices: the edge count of traversed edges per second as
                                Gunrock reports it (each undirected edge counted in both directions). */
  int32_t depth;           /**< BFS: levels (the largest level plus one). SSSP: levels of the predecessor tree
                                (0 when predecessors were not asked for). */
  int32_t top_down_steps;  /**< BFS: levels expanded from the frontier's out-edges. */
  int32_t bottom_up_steps; /**< BFS: levels found by unvisited vertices scanning their in-edges. */
  int32_t rounds;          /**< SSSP: near-set expansions plus far-set compactions. */
  int32_t phases;          /**< SSSP: far-set compactions (advances of the near-far split). */
} ts_graph_run_stats;

/** A prepared breadth-first search over one graph. */
typedef struct ts_bfs_plan ts_bfs_plan;

/**
 * Prepare BFS over @p graph on the context's backend. @p options may be
 * NULL (directed, AUTO, direction optimisation on). The graph is checked
 * (square, offsets monotone from 0 to nnz, heads in range; undirected:
 * every edge mirrored), copied with each adjacency list sorted, and for a
 * directed graph with direction optimisation its in-edges are built (their
 * bytes: ts_graph_plan_info::in_edge_bytes). Values are ignored. Failures:
 * TS_ERROR_INVALID_ARGUMENT (options), TS_ERROR_INVALID_MATRIX (the graph,
 * with the vertex and entry), TS_ERROR_OVERFLOW (more than INT32_MAX
 * vertices), TS_ERROR_OUT_OF_MEMORY.
 */
TS_API ts_status ts_bfs_plan_create(ts_context *ctx, const ts_csr *graph, const ts_graph_options *options,
                                    ts_bfs_plan **plan);

/**
 * Breadth-first search from @p source (0 <= source < vertices). Outputs, in
 * TS_MEMORY_DEVICE buffers of the plan's context holding at least vertices
 * int32 values, either may be NULL: @p levels (hop count from the source, -1
 * when unreached) and @p parents (the smallest-numbered vertex one level up
 * with an edge to the vertex; the source's parent is the source; -1 when
 * unreached); the two must not overlap (TS_ERROR_INVALID_ARGUMENT). Allocates
 * nothing; on CUDA it queues the work on the context's
 * stream and returns (levels alternate between top-down and bottom-up steps
 * on the GPU, without the host). A fault surfaces at the next
 * ts_context_sync() or ts_bfs_last_run().
 */
TS_API ts_status ts_bfs_execute(ts_bfs_plan *plan, int64_t source, ts_buffer *levels, ts_buffer *parents);

/** Waits for the last execution and fills @p stats (TS_ERROR_INVALID_ARGUMENT before any execution). */
TS_API ts_status ts_bfs_last_run(ts_bfs_plan *plan, ts_graph_run_stats *stats);

/** Fill @p info (memory, schedule, direction). */
TS_API ts_status ts_bfs_plan_info(const ts_bfs_plan *plan, ts_graph_plan_info *info);

/** Free a plan (NULL is a no-op). */
TS_API void ts_bfs_plan_destroy(ts_bfs_plan *plan);

/** A prepared single-source shortest-path search over one weighted graph. */
typedef struct ts_sssp_plan ts_sssp_plan;

/**
 * Prepare SSSP over @p graph, whose values are the edge weights (float or
 * double: distances are computed and returned in the same type). Weights
 * must be finite and not negative (TS_ERROR_INVALID_MATRIX names the first
 * edge that is not). Checks and copies the graph as ts_bfs_plan_create()
 * does. On the GPU, near-far label correcting (Davidson, Baxter, Garland and
 * Owens, IPDPS 2014) with atomicMin on distances; where some weight reaches
 * the step, delta-stepping's light and heavy edges (Meyer and Sanders 2003):
 * the plan then keeps a second copy of the edges, each vertex's lighter than
 * the step first (4 bytes and a value an edge, 8 bytes a vertex, counted in
 * ts_graph_plan_info::workspace_bytes), and relaxes the heavy ones once a
 * phase. On the CPU, Dijkstra.
 */
TS_API ts_status ts_sssp_plan_create(ts_context *ctx, const ts_csr *graph, const ts_graph_options *options,
                                     ts_sssp_plan **plan);

/**
 * Shortest paths from @p source. Outputs (TS_MEMORY_DEVICE buffers of the
 * plan's context, either may be NULL): @p distances (vertices values of the
 * graph's value type; +infinity when unreached; a path whose weight passes
 * the type's largest value counts as unreached) and @p predecessors
 * (vertices int32: among the vertices u with a tight edge u -> v, i.e.
 * dist(u) + w(u, v) == dist(v), those the fewest tight edges from the
 * source, the smallest-numbered; the source's is itself; -1 when
 * unreached); the two must not overlap (TS_ERROR_INVALID_ARGUMENT).
 * Allocates nothing; asynchronous as ts_bfs_execute().
 */
TS_API ts_status ts_sssp_execute(ts_sssp_plan *plan, int64_t source, ts_buffer *distances, ts_buffer *predecessors);

/** Waits for the last execution and fills @p stats (TS_ERROR_INVALID_ARGUMENT before any execution). */
TS_API ts_status ts_sssp_last_run(ts_sssp_plan *plan, ts_graph_run_stats *stats);

/** Fill @p info (memory, schedule, the near-far step). */
TS_API ts_status ts_sssp_plan_info(const ts_sssp_plan *plan, ts_graph_plan_info *info);

/** Free a plan (NULL is a no-op). */
TS_API void ts_sssp_plan_destroy(ts_sssp_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_GRAPH_H */
