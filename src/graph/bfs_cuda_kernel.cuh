/* Breadth-first search as one persistent kernel: every level of the search
 * runs inside it, separated by grid barriers, with direction optimisation
 * (Beamer, Asanovic and Patterson, "Direction-Optimizing Breadth-First
 * Search", SC'12). A top-down step expands the frontier's out-edges with the
 * layer's gathered schedules (lb::for_each_gathered_atom: the frontier's
 * vertices are the tiles, their edges the atoms; vertices of very high degree
 * go to a second queue that the whole grid shares); a bottom-up step lets
 * every unvisited vertex scan its in-edges (sorted) for the first one in the
 * frontier's bitmap, which is the smallest-numbered parent.
 *
 * A vertex's key is (level << 32 | parent), lowered with atomicMin in
 * top-down steps: the lowest level wins, and within it the smallest parent,
 * so levels and parents are the same whatever the timing and whichever
 * direction each level ran in. Small levels append the vertices they find to
 * a queue (gathered in shared memory and appended with one atomic per block
 * at the step's end, so the expansion waits on no queue tail); large levels
 * only set the vertices' bits, and the next top-down step rebuilds the queue
 * from the bitmap (one atomic per block of words instead of one per warp).
 * A top-down step clears its frontier's bits as it reads the queue (the bits
 * and the queue hold the same vertices, and nothing reads the bits once the
 * queue is built), so only a bottom-up step leaves its bitmap to be cleared
 * whole at the next level. The kernel is instantiated per schedule
 * (spmv-style: the schedule is a type) and per edge filter (every edge, or
 * the tight edges of shortest paths).
 * With the work-oriented schedule a top-down step spreads the frontier's
 * edges evenly over all the grid's warps (lb::for_each_balanced_atom: a
 * prefix sum of the degrees and one more grid barrier), so a level's time
 * follows its edge count, not its longest adjacency list. */
#ifndef TESSERA_BFS_CUDA_KERNEL_CUH
#define TESSERA_BFS_CUDA_KERNEL_CUH

#include "graph_cuda_device.cuh"

#include <math.h>
#include <type_traits>

#define TSI_BFS_UNREACHED 0xffffffffffffffffull

/* One level's counters: filled while the level before runs. */
struct tsi_bfs_level {
  unsigned vertices;        /* queue tail (appends, or the rebuild) */
  unsigned hubs;            /* hub queue tail */
  unsigned long long found; /* vertices of the level */
  unsigned long long edges; /* their out-edges */
};

struct tsi_bfs_control {
  tsi_bfs_level level[3]; /* level l's counters in slot l % 3 */
  lb::grid_barrier_state barrier;
  /* What the last run did (written at its end). */
  int depth, top_down_steps, bottom_up_steps, source;
  unsigned long long reached, reached_edges;
};

struct tsi_bfs_args {
  int32_t n;
  int64_t m;
  int64_t words; /* bitmap words: (n + 31) / 32 */
  const int64_t *offsets;
  const int32_t *heads;
  const int64_t *in_offsets; /* NULL without bottom-up steps */
  const int32_t *in_tails;
  const uint32_t *hub_bits;
  int has_hubs; /* some vertex has the hub bit (else the bit is never read) */
  const int32_t *heavy_in;
  int64_t heavy_count, heavy_in_degree;
  unsigned long long *keys;
  int32_t *queue[2], *hub_queue[2]; /* level l's queues: [l & 1] */
  /* Each queue entry's adjacency range, written with the entry where the
   * queue is built by appends (queue-mode steps), so the next step reads it
   * beside the entry instead of after it (not for rebuilt queues or hubs). */
  lb::atom_range *queue_range[2];
  uint32_t *bits[3]; /* level l's frontier bitmap: [l % 3] */
  uint32_t *visited;
  lb::gather_workspace expand; /* the work-oriented expansion's prefix sums */
  tsi_bfs_control *control;
  int bottom_up; /* direction optimisation allowed */
  int alpha, beta;
  int64_t check_first, queue_edges;
  /* This run. */
  int32_t source;
  int32_t *levels, *parents;
  const void *tight_dist; /* tight-edge filter: the distances */
  const void *weights;    /* and the weights */
};

/* Every edge. */
struct tsi_all_edges {
  __device__ explicit tsi_all_edges(const tsi_bfs_args &) {}
  __device__ bool operator()(int32_t, int64_t, int32_t) const { return true; }
};

__device__ inline float tsi_add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double tsi_add_rn(double a, double b) { return __dadd_rn(a, b); }

/* u -> v with dist(u) + w == dist(v) < infinity, u != v: the edges of
 * shortest paths (their BFS gives the predecessor tree). */
template <class T> struct tsi_tight_filter {
  const T *dist, *weight;
  __device__ explicit tsi_tight_filter(const tsi_bfs_args &a)
      : dist(static_cast<const T *>(a.tight_dist)), weight(static_cast<const T *>(a.weights)) {}
  __device__ bool operator()(int32_t u, int64_t e, int32_t v) const {
    if (u == v)
      return false;
    const T dv = __ldg(dist + v);
    return dv < T(INFINITY) && tsi_add_rn(__ldg(dist + u), __ldg(weight + e)) == dv;
  }
};

__device__ inline int64_t tsi_degree(const int64_t *offsets, int32_t v) {
  return __ldg(offsets + v + 1) - __ldg(offsets + v);
}

/* Keys unreached but the source's; the source alone in level 0's bitmap,
 * queue and counters. */
__device__ inline void tsi_bfs_init(const tsi_bfs_args &a, int64_t thread, int64_t threads) {
  for (int64_t v = thread; v < a.n; v += threads)
    a.keys[v] = v == a.source ? (unsigned long long)(uint32_t)a.source : TSI_BFS_UNREACHED;
  const int64_t source_word = a.source >> 5;
  for (int64_t w = thread; w < a.words; w += threads) {
    const uint32_t bit = w == source_word ? 1u << (a.source & 31) : 0u;
    a.visited[w] = bit;
    a.bits[0][w] = bit;
    a.bits[1][w] = 0u;
    a.bits[2][w] = 0u;
  }
  if (thread == 0) {
    const bool hub = a.has_hubs && tsi_bit(a.hub_bits, a.source);
    (hub ? a.hub_queue[0] : a.queue[0])[0] = a.source;
    a.queue_range[0][0] = lb::atom_range{__ldg(a.offsets + a.source), __ldg(a.offsets + a.source + 1)};
    tsi_bfs_control *c = a.control;
    c->level[0] =
        tsi_bfs_level{hub ? 0u : 1u, hub ? 1u : 0u, 1ull, (unsigned long long)tsi_degree(a.offsets, a.source)};
    c->level[1] = tsi_bfs_level{0u, 0u, 0ull, 0ull};
    c->level[2] = tsi_bfs_level{0u, 0u, 0ull, 0ull};
  }
}

/* Vertices a block may gather in a queue-mode step before it appends to
 * the queue directly. */
#define TSI_BFS_STAGED (2 * TSI_GRAPH_BLOCK)

/* A block's shared memory for a step's end: the vertices it found in a
 * queue-mode step, appended to the next queue with one atomic when the
 * step ends (the queue offsets of a block-level prefix, as in Merrill,
 * Garland and Grimshaw, "Scalable GPU Graph Traversal", PPoPP'12), and the
 * warps' sums of the level's counts. */
struct tsi_bfs_block_end_scratch {
  int32_t vertex[TSI_BFS_STAGED];
  unsigned count; /* appends asked for; those past TSI_BFS_STAGED went to the queue directly */
  unsigned base;  /* the gathered vertices' place in the queue */
  unsigned long long found[TSI_GRAPH_WARPS], edges[TSI_GRAPH_WARPS];
};

/* What a top-down step needs to record a vertex it reached first. */
struct tsi_bfs_step {
  int level;
  bool check_first, queue_mode;
  bool ranges_ready; /* this level's queue carries its entries' ranges */
  uint32_t *next_bits;
  tsi_bfs_level *next;
  tsi_bfs_block_end_scratch *end;  /* shared */
  unsigned long long found, edges; /* this thread's */
};

/* Gather v in the block's shared memory (warp-aggregated, one shared atomic
 * for the threads calling together); false where the space is full. */
__device__ inline bool tsi_bfs_gather(tsi_bfs_block_end_scratch &e, int32_t v) {
  cg::coalesced_group group = cg::coalesced_threads();
  unsigned at = 0;
  if (group.thread_rank() == 0)
    at = atomicAdd(&e.count, group.size());
  at = group.shfl(at, 0) + group.thread_rank();
  if (at >= TSI_BFS_STAGED)
    return false;
  e.vertex[at] = v;
  return true;
}

/* Lower v's key to `key`; the thread that finds v unreached records it. */
__device__ inline void tsi_bfs_visit(const tsi_bfs_args &a, tsi_bfs_step &s, int32_t v, unsigned long long key) {
  if (s.check_first && tsi_relaxed_load(a.keys + v) <= key)
    return;
  if (atomicMin(a.keys + v, key) != TSI_BFS_UNREACHED)
    return;
  tsi_set_bit(a.visited, v);
  tsi_set_bit(s.next_bits, v);
  s.found++;
  const bool hub = s.queue_mode && a.has_hubs && tsi_bit(a.hub_bits, v);
  /* A gathered vertex's degree is read at the step's end, off this chain. */
  if (s.queue_mode && !hub && tsi_bfs_gather(*s.end, v))
    return;
  const int64_t first = __ldg(a.offsets + v), last = __ldg(a.offsets + v + 1);
  s.edges += (unsigned long long)(last - first);
  if (s.queue_mode) {
    const int slot = (s.level + 1) & 1;
    if (hub) {
      tsi_append(a.hub_queue[slot], &s.next->hubs, v);
    } else {
      const unsigned at = tsi_append(a.queue[slot], &s.next->vertices, v);
      a.queue_range[slot][at] = lb::atom_range{first, last};
    }
  }
}

/* A step's end in every block: the vertices it gathered appended to the next
 * queue with one atomic, their degrees added to the level's edges, and the
 * block's counts summed in one pass (two block barriers, where a sum per
 * count took four) and added to the next level's. Every thread calls it. */
__device__ inline void tsi_bfs_block_end(const tsi_bfs_args &a, const tsi_bfs_step &s, tsi_bfs_block_end_scratch &e) {
  constexpr int per_thread = TSI_BFS_STAGED / TSI_GRAPH_BLOCK;
  const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
  __syncthreads(); /* every gathered vertex is in */
  const unsigned gathered = min(e.count, (unsigned)TSI_BFS_STAGED);
  int32_t v[per_thread];
  int64_t first[per_thread], last[per_thread];
  /* The degrees' loads go out before the queue's atomic: both round trips at once. */
#pragma unroll
  for (int j = 0; j < per_thread; j++) {
    const unsigned i = threadIdx.x + j * TSI_GRAPH_BLOCK;
    v[j] = i < gathered ? e.vertex[i] : 0;
    first[j] = i < gathered ? __ldg(a.offsets + v[j]) : 0;
    last[j] = i < gathered ? __ldg(a.offsets + v[j] + 1) : 0;
  }
  if (threadIdx.x == 0 && gathered > 0)
    e.base = atomicAdd(&s.next->vertices, gathered);
  unsigned long long found = s.found, edges = s.edges;
#pragma unroll
  for (int j = 0; j < per_thread; j++)
    edges += (unsigned long long)(last[j] - first[j]);
#pragma unroll
  for (int d = 16; d >= 1; d /= 2) {
    found += __shfl_down_sync(0xffffffffu, found, d);
    edges += __shfl_down_sync(0xffffffffu, edges, d);
  }
  if (lane == 0) {
    e.found[warp] = found;
    e.edges[warp] = edges;
  }
  __syncthreads(); /* the queue's base and the warps' sums */
  int32_t *queue = a.queue[(s.level + 1) & 1];
  lb::atom_range *range = a.queue_range[(s.level + 1) & 1];
#pragma unroll
  for (int j = 0; j < per_thread; j++) {
    const unsigned i = threadIdx.x + j * TSI_GRAPH_BLOCK;
    if (i < gathered) {
      queue[e.base + i] = v[j];
      range[e.base + i] = lb::atom_range{first[j], last[j]};
    }
  }
  if (warp == 0) {
    found = lane < TSI_GRAPH_WARPS ? e.found[lane] : 0ull;
    edges = lane < TSI_GRAPH_WARPS ? e.edges[lane] : 0ull;
#pragma unroll
    for (int d = 16; d >= 1; d /= 2) {
      found += __shfl_down_sync(0xffffffffu, found, d);
      edges += __shfl_down_sync(0xffffffffu, edges, d);
    }
    if (lane == 0) {
      if (found > 0) {
        atomicAdd(&s.next->found, found);
        atomicAdd(&s.next->edges, edges);
      }
      e.count = 0; /* read by every thread before the barrier above */
    }
  }
}

template <class S, class Filter, class ExpandStorage, class HubStorage>
__device__ void tsi_bfs_top_down(const tsi_bfs_args &a, tsi_bfs_step &s, const Filter &filter, unsigned vertices,
                                 unsigned hubs, lb::grid_barrier_view &barrier, ExpandStorage &expand_smem,
                                 HubStorage &hub_smem) {
  const int32_t *queue = a.queue[s.level & 1], *hub_queue = a.hub_queue[s.level & 1];
  uint32_t *frontier = a.bits[s.level % 3];
  const unsigned long long level_key = (unsigned long long)(uint32_t)(s.level + 1) << 32;
  const int64_t *offsets = a.offsets;
  const int32_t *heads = a.heads;
  auto visit_from = [&](const int32_t *q) {
    return [&, q](unsigned t, long long e) {
      const int32_t u = q[t], v = __ldg(heads + e);
      if (filter(u, e, v))
        tsi_bfs_visit(a, s, v, level_key | (uint32_t)u);
    };
  };
  const lb::atom_range *carried = s.ranges_ready ? a.queue_range[s.level & 1] : nullptr;
  auto ranges_of = [&](const int32_t *q, const lb::atom_range *q_ranges) {
    return [offsets, q, q_ranges, frontier](unsigned t) {
      const int32_t u = q[t];
      /* The frontier's bits are dead once its queue exists: clear them here,
       * where u is at hand, instead of the whole bitmap two levels on. Every
       * bit of the word is the frontier's, so the plain store is enough. */
      frontier[u >> 5] = 0u;
      if (q_ranges) /* loaded beside the entry, not after it */
        return q_ranges[t];
      return lb::atom_range{__ldg(offsets + u), __ldg(offsets + u + 1)};
    };
  };
  if constexpr (std::is_same<S, lb::work_oriented>::value)
    lb::for_each_balanced_atom<TSI_GRAPH_BLOCK>(vertices, ranges_of(queue, carried), a.expand, barrier, expand_smem,
                                                visit_from(queue));
  else
    lb::for_each_gathered_atom<S, TSI_GRAPH_BLOCK>(vertices, ranges_of(queue, carried), expand_smem, visit_from(queue));
  if (hubs > 0)
    lb::for_each_gathered_atom<lb::grid_mapped, TSI_GRAPH_BLOCK>(hubs, ranges_of(hub_queue, nullptr), hub_smem,
                                                                 visit_from(hub_queue));
}

/* Every unvisited vertex looks for a parent in the frontier's bitmap: a
 * warp takes 32 vertices (one bitmap word), each thread scanning its
 * vertex's in-edges until the first in the frontier; vertices of many
 * in-edges are scanned 32 at a time by a whole warp afterwards. */
__device__ inline void tsi_bfs_bottom_up(const tsi_bfs_args &a, tsi_bfs_step &s, int64_t thread, int64_t threads) {
  const uint32_t *frontier = a.bits[s.level % 3];
  const unsigned long long level_key = (unsigned long long)(uint32_t)(s.level + 1) << 32;
  const int lane = int(threadIdx.x & 31);
  const int64_t warps = threads >> 5;
  /* The visited word of the warp's next word is read one word ahead, so that
   * its round trip overlaps the scans of this one. Only this warp and the
   * pass over the vertices of many in-edges (which this loop skips) set
   * bits of these words during the step, so the earlier reading is as good. */
  int64_t w = thread >> 5;
  uint32_t seen_ahead = w < a.words ? tsi_relaxed_load(a.visited + w) : 0u;
  for (; w < a.words; w += warps) {
    /* One reading for the whole warp: the loop below must stay uniform. */
    const uint32_t seen = __shfl_sync(0xffffffffu, seen_ahead, 0);
    if (w + warps < a.words)
      seen_ahead = tsi_relaxed_load(a.visited + w + warps);
    if (seen == 0xffffffffu)
      continue;
    const int64_t v = w * 32 + lane;
    bool hit = false;
    int32_t parent = 0;
    if (v < a.n && !((seen >> lane) & 1u)) {
      const int64_t begin = __ldg(a.in_offsets + v), end = __ldg(a.in_offsets + v + 1);
      if (end - begin <= a.heavy_in_degree)
        for (int64_t k = begin; k < end; k++) {
          const int32_t u = __ldg(a.in_tails + k);
          if (tsi_bit(frontier, u)) {
            hit = true;
            parent = u;
            break;
          }
        }
    }
    const unsigned found = __ballot_sync(0xffffffffu, hit);
    if (hit) {
      a.keys[v] = level_key | (uint32_t)parent;
      s.found++;
      s.edges += (unsigned long long)tsi_degree(a.offsets, (int32_t)v);
    }
    if (lane == 0 && found) {
      atomicOr(a.visited + w, found);
      atomicOr(s.next_bits + w, found);
    }
  }
  for (int64_t i = thread >> 5; i < a.heavy_count; i += warps) {
    const int32_t v = __ldg(a.heavy_in + i);
    if ((__shfl_sync(0xffffffffu, tsi_relaxed_load(a.visited + (v >> 5)), 0) >> (v & 31)) & 1u)
      continue;
    const int64_t begin = __ldg(a.in_offsets + v), end = __ldg(a.in_offsets + v + 1);
    for (int64_t base = begin; base < end; base += 32) {
      const int64_t k = base + lane;
      const int32_t u = k < end ? __ldg(a.in_tails + k) : 0;
      const unsigned hits = __ballot_sync(0xffffffffu, k < end && tsi_bit(frontier, u));
      if (hits) {
        const int32_t parent = __shfl_sync(0xffffffffu, u, __ffs(hits) - 1);
        if (lane == 0) {
          a.keys[v] = level_key | (uint32_t)parent;
          tsi_set_bit(a.visited, v);
          tsi_set_bit(s.next_bits, v);
          s.found++;
          s.edges += (unsigned long long)tsi_degree(a.offsets, v);
        }
        break;
      }
    }
  }
}

template <class S, class Filter>
__global__ void __launch_bounds__(TSI_GRAPH_BLOCK, TSI_GRAPH_MIN_BLOCKS) tsi_bfs_kernel(tsi_bfs_args a) {
  __shared__ lb::gather_storage<S, TSI_GRAPH_BLOCK> expand_smem;
  __shared__ lb::gather_storage<lb::grid_mapped, TSI_GRAPH_BLOCK> hub_smem;
  __shared__ tsi_bfs_block_end_scratch end_smem;
  __shared__ tsi_compact_scratch compact_smem;
  const Filter filter(a);
  const int64_t thread = (int64_t)blockIdx.x * TSI_GRAPH_BLOCK + threadIdx.x;
  const int64_t threads = (int64_t)gridDim.x * TSI_GRAPH_BLOCK;
  tsi_bfs_control *c = a.control;

  lb::grid_barrier_view barrier = lb::grid_barrier_join(&c->barrier);
  tsi_bfs_init(a, thread, threads);
  if (threadIdx.x == 0)
    end_smem.count = 0;
  lb::grid_barrier(barrier);

  bool bottom_up = false, last_bottom_up = false, queue_ready = true;
  unsigned long long explored = 0, reached = 0, reached_edges = 0, previous_found = 0;
  int level = 0, top_down_steps = 0, bottom_up_steps = 0;
  for (;; level++) {
    tsi_bfs_level *now = &c->level[level % 3];
    const unsigned long long found = now->found, edges = now->edges;
    if (found == 0)
      break;
    reached += found;
    reached_edges += edges;
    if (a.bottom_up) {
      /* Beamer's switch: the frontier's edges against the unexplored ones,
       * and against a bottom-up step's pass over every vertex (near the end
       * of a search hardly any edge is unexplored, and a short frontier
       * would otherwise send the last levels bottom up). */
      const unsigned long long done = explored + edges;
      const unsigned long long unexplored = (unsigned long long)a.m > done ? (unsigned long long)a.m - done : 0ull;
      if (!bottom_up)
        bottom_up = edges * (unsigned long long)a.alpha > unexplored &&
                    edges * (unsigned long long)a.beta >= (unsigned long long)a.n;
      else if (found * (unsigned long long)a.beta < (unsigned long long)a.n && found < previous_found)
        bottom_up = false;
    }
    previous_found = found;
    explored += edges;
    /* Slot and bitmap of level + 2, last read by level - 1. A top-down step
     * cleared its bitmap itself (tsi_bfs_top_down); a bottom-up one read all
     * of it, so it is cleared here. */
    if (thread == 0)
      c->level[(level + 2) % 3] = tsi_bfs_level{0u, 0u, 0ull, 0ull};
    if (last_bottom_up) {
      uint32_t *stale = a.bits[(level + 2) % 3];
      for (int64_t w = thread; w < a.words; w += threads)
        stale[w] = 0u;
    }

    tsi_bfs_step s{level,
                   found >= (unsigned long long)a.check_first,
                   false,
                   queue_ready,
                   a.bits[(level + 1) % 3],
                   &c->level[(level + 1) % 3],
                   &end_smem,
                   0ull,
                   0ull};
    if (bottom_up) {
      bottom_up_steps++;
      tsi_bfs_bottom_up(a, s, thread, threads);
    } else {
      top_down_steps++;
      if (!queue_ready) {
        tsi_compact_bits(a.bits[level % 3], a.words, a.has_hubs ? a.hub_bits : nullptr, a.queue[level & 1],
                         &now->vertices, a.hub_queue[level & 1], &now->hubs, compact_smem);
        lb::grid_barrier(barrier);
      }
      s.queue_mode = edges <= (unsigned long long)a.queue_edges;
      tsi_bfs_top_down<S>(a, s, filter, now->vertices, now->hubs, barrier, expand_smem, hub_smem);
    }
    tsi_bfs_block_end(a, s, end_smem);
    queue_ready = !bottom_up && s.queue_mode;
    last_bottom_up = bottom_up;
    lb::grid_barrier(barrier);
  }

  if (thread == 0) {
    c->depth = level;
    c->top_down_steps = top_down_steps;
    c->bottom_up_steps = bottom_up_steps;
    c->source = a.source;
    c->reached = reached;
    c->reached_edges = reached_edges;
  }
  for (int64_t v = thread; v < a.n; v += threads) {
    const unsigned long long key = a.keys[v];
    const bool seen = key != TSI_BFS_UNREACHED;
    if (a.levels)
      a.levels[v] = seen ? (int32_t)(key >> 32) : -1;
    if (a.parents)
      a.parents[v] = seen ? (int32_t)(uint32_t)key : -1;
  }
}

/* The instantiations, one file each so that they compile side by side:
 * every edge with the thread-, lane-, warp- or block-mapped schedule
 * (bfs_cuda_mapped.cu), group-mapped (bfs_cuda_group.cu) or work-oriented
 * (bfs_cuda_balanced.cu); the tight edges of float or double distances,
 * group-mapped or work-oriented (bfs_cuda_tight.cu). */
const void *tsi_bfs_kernel_mapped(ts_schedule schedule, int group_size);
const void *tsi_bfs_kernel_group(void);
const void *tsi_bfs_kernel_balanced(void);
const void *tsi_bfs_kernel_tight(ts_dtype dtype, bool balanced);

#endif
