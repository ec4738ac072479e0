/* Single-source shortest paths as one persistent kernel: near-far label
 * correcting (Davidson, Baxter, Garland and Owens, "Work-Efficient Parallel
 * GPU Methods for Single-Source Shortest Paths", IPDPS 2014), rounds
 * separated by grid barriers. A near round relaxes the out-edges of the near
 * set (vertices whose distance fell below the split) with the layer's
 * gathered schedules: dist(v) = min(dist(v), dist(u) + w) by atomicMin on the
 * distance's bits (non-negative floats order as their bit patterns), and a
 * lowered v joins the next near set if below the split, else the far set (a
 * bitmap). When the near set runs dry, a far round moves the split to the
 * smallest far distance plus delta and moves the far vertices below it into
 * the near set. The distances reached are each vertex's smallest path weight
 * summed in the value type, the same as Dijkstra's (sssp_cpu.c), whatever
 * the order of the relaxations.
 *
 * Near sets are queues (deduplicated by a per-vertex stamp of the round) on
 * narrow rounds and bitmaps on wide ones, rebuilt into queues at the start
 * of the next round (as in bfs_cuda_kernel.cuh). With the work-oriented
 * schedule a near round spreads the near set's edges evenly over the grid's
 * warps (lb::for_each_balanced_atom).
 *
 * Light and heavy edges (Meyer and Sanders, "Delta-stepping: a parallelizable
 * shortest path algorithm", J. Algorithms 2003): where some weight reaches
 * delta, a phase's near rounds relax only the edges lighter than delta. A
 * heavy edge from a vertex of the phase's window [lo, split), split = lo +
 * delta, lands at or above the split, so it cannot lower a distance of the
 * window; once the near set runs dry every distance in the window is final,
 * and one round relaxes the heavy edges of the window's vertices (found by a
 * pass over the distances) exactly once. Should rounding bring a heavy
 * edge's target below the split, the phase's light rounds resume. Each vertex's
 * edges are stored light first for this (sssp_cuda_edge_classes.cu). */
#ifndef TESSERA_SSSP_CUDA_KERNEL_CUH
#define TESSERA_SSSP_CUDA_KERNEL_CUH

#include "bfs_cuda_kernel.cuh"

#include <type_traits>

/* The near set of one round: filled while the round before runs. */
struct tsi_sssp_round {
  unsigned vertices, hubs;  /* queue tails */
  unsigned long long found; /* vertices of the set */
  unsigned long long edges; /* their out-edges */
};

#define TSI_SSSP_NO_FAR 0xffffffffffffffffull

struct tsi_sssp_control {
  tsi_sssp_round round[3];       /* round r's near set in slot r % 3 */
  unsigned long long far_min[3]; /* phase p's smallest far distance (bits), slot p % 3 */
  lb::grid_barrier_state barrier;
  int rounds, phases, source;
  unsigned long long reached, reached_edges;
};

/* Distances as unsigned bits of the same width: atomicMin orders them as
 * the (non-negative) values. */
template <class T> using tsi_bits_of = typename std::conditional<sizeof(T) == 4, unsigned, unsigned long long>::type;

template <class T> struct tsi_sssp_args {
  using U = tsi_bits_of<T>;
  int32_t n;
  int64_t m, words;
  const int64_t *offsets;
  const int32_t *heads; /* with heavy edges, each vertex's light edges first */
  const T *weights;
  const int64_t *light_end; /* with heavy edges: the end of each vertex's light edges, else NULL */
  const uint32_t *hub_bits;
  int has_hubs; /* some vertex has the hub bit (else the bit is never read) */
  U *dist;
  unsigned *stamp;                  /* round + 1 of the near queue a vertex last joined */
  int32_t *queue[2], *hub_queue[2]; /* round r's near queues: [r & 1] */
  uint32_t *near_bits[3];           /* round r's near bitmap: [r % 3] */
  uint32_t *far_bits;
  lb::gather_workspace expand; /* the work-oriented expansion's prefix sums */
  tsi_sssp_control *control;
  T delta;
  bool heavy_edges; /* some weight is at least delta: light rounds, then a heavy round a phase */
  int64_t check_first, queue_edges;
  int32_t source;
  T *distances; /* output, or NULL */
};

template <class T> __device__ inline tsi_bits_of<T> tsi_bits(T x) {
  if constexpr (sizeof(T) == 4)
    return __float_as_uint(x);
  else
    return (unsigned long long)__double_as_longlong(x);
}
template <class T> __device__ inline T tsi_value(tsi_bits_of<T> b) {
  if constexpr (sizeof(T) == 4)
    return __uint_as_float(b);
  else
    return __longlong_as_double((long long)b);
}

/* Which of a near set's out-edges a round relaxes. */
enum tsi_sssp_edges { TSI_SSSP_ALL_EDGES, TSI_SSSP_LIGHT_EDGES, TSI_SSSP_HEAVY_EDGES };

template <class T> struct tsi_sssp_step {
  int round;
  bool check_first, queue_mode;
  tsi_sssp_edges edges_relaxed;
  T split;
  tsi_sssp_round *next;
  uint32_t *next_bits;
  unsigned long long found, edges, far_min; /* this thread's */
};

template <class T> __device__ void tsi_sssp_init(const tsi_sssp_args<T> &a, int64_t thread, int64_t threads) {
  for (int64_t v = thread; v < a.n; v += threads) {
    a.dist[v] = tsi_bits<T>(v == a.source ? T(0) : T(INFINITY));
    a.stamp[v] = v == a.source ? 1u : 0u;
  }
  for (int64_t w = thread; w < a.words; w += threads) {
    a.far_bits[w] = 0u;
    a.near_bits[0][w] = 0u;
    a.near_bits[1][w] = 0u;
    a.near_bits[2][w] = 0u;
  }
  if (thread == 0) {
    const bool hub = a.has_hubs && tsi_bit(a.hub_bits, a.source);
    (hub ? a.hub_queue[0] : a.queue[0])[0] = a.source;
    tsi_sssp_control *c = a.control;
    c->round[0] =
        tsi_sssp_round{hub ? 0u : 1u, hub ? 1u : 0u, 1ull, (unsigned long long)tsi_degree(a.offsets, a.source)};
    c->round[1] = tsi_sssp_round{0u, 0u, 0ull, 0ull};
    c->round[2] = tsi_sssp_round{0u, 0u, 0ull, 0ull};
    for (int p = 0; p < 3; p++)
      c->far_min[p] = TSI_SSSP_NO_FAR;
    c->reached = 0ull;
    c->reached_edges = 0ull;
  }
}

/* v's distance fell to nd: into the next near set (once) or the far set. */
template <class T>
__device__ inline void tsi_sssp_lowered(const tsi_sssp_args<T> &a, tsi_sssp_step<T> &s, int32_t v, T nd) {
  if (!(nd < s.split)) {
    const unsigned long long b = (unsigned long long)tsi_bits<T>(nd);
    s.far_min = b < s.far_min ? b : s.far_min;
    atomicOr(a.far_bits + (v >> 5), 1u << (v & 31));
    return;
  }
  if (s.queue_mode) {
    const unsigned tag = (unsigned)s.round + 2u;
    if (atomicExch(a.stamp + v, tag) == tag)
      return;
    if (a.has_hubs && tsi_bit(a.hub_bits, v))
      tsi_append(a.hub_queue[(s.round + 1) & 1], &s.next->hubs, v);
    else
      tsi_append(a.queue[(s.round + 1) & 1], &s.next->vertices, v);
  } else {
    const uint32_t bit = 1u << (v & 31);
    if (atomicOr(s.next_bits + (v >> 5), bit) & bit)
      return;
  }
  s.found++;
  s.edges += (unsigned long long)tsi_degree(a.offsets, v);
}

template <class T>
__device__ inline void tsi_sssp_relax(const tsi_sssp_args<T> &a, tsi_sssp_step<T> &s, int32_t u, int64_t e) {
  using U = tsi_bits_of<T>;
  const int32_t v = __ldg(a.heads + e);
  const T nd = tsi_add_rn(tsi_value<T>(tsi_relaxed_load(a.dist + u)), __ldg(a.weights + e));
  if (!(nd < T(INFINITY)))
    return;
  const U b = tsi_bits<T>(nd);
  if (s.check_first && b >= tsi_relaxed_load(a.dist + v))
    return;
  if (b < atomicMin(a.dist + v, b))
    tsi_sssp_lowered(a, s, v, nd);
}

template <class S, class T, class ExpandStorage, class HubStorage>
__device__ void tsi_sssp_near(const tsi_sssp_args<T> &a, tsi_sssp_step<T> &s, unsigned vertices, unsigned hubs,
                              lb::grid_barrier_view &barrier, ExpandStorage &expand_smem, HubStorage &hub_smem) {
  const int32_t *queue = a.queue[s.round & 1], *hub_queue = a.hub_queue[s.round & 1];
  const int64_t *offsets = a.offsets;
  /* The class of edges relaxed: [begin, end) of u's edges, light ones first. */
  const int64_t *begins = s.edges_relaxed == TSI_SSSP_HEAVY_EDGES ? a.light_end : offsets;
  const int64_t *ends = s.edges_relaxed == TSI_SSSP_LIGHT_EDGES ? a.light_end : offsets + 1;
  auto relax_from = [&](const int32_t *q) {
    return [&, q](unsigned t, long long e) { tsi_sssp_relax(a, s, q[t], e); };
  };
  auto ranges_of = [&](const int32_t *q) {
    return [begins, ends, q](unsigned t) {
      const int32_t u = q[t];
      return lb::atom_range{__ldg(begins + u), __ldg(ends + u)};
    };
  };
  if constexpr (std::is_same<S, lb::work_oriented>::value)
    lb::for_each_balanced_atom<TSI_GRAPH_BLOCK>(vertices, ranges_of(queue), a.expand, barrier, expand_smem,
                                                relax_from(queue));
  else
    lb::for_each_gathered_atom<S, TSI_GRAPH_BLOCK>(vertices, ranges_of(queue), expand_smem, relax_from(queue));
  if (hubs > 0)
    lb::for_each_gathered_atom<lb::grid_mapped, TSI_GRAPH_BLOCK>(hubs, ranges_of(hub_queue), hub_smem,
                                                                 relax_from(hub_queue));
}

/* A far round: every far vertex below the new split moves to the next near
 * set; those below the old split were settled since (stale) and leave; the
 * rest stay, and their smallest distance is the next phase's. A thread owns
 * a bitmap word: no other thread writes the far bits in this round. */
template <class T>
__device__ void tsi_sssp_far(const tsi_sssp_args<T> &a, tsi_sssp_step<T> &s, T old_split, int64_t thread,
                             int64_t threads) {
  for (int64_t w = thread; w < a.words; w += threads) {
    const uint32_t word = a.far_bits[w];
    if (!word)
      continue;
    uint32_t keep = word, moved = 0u;
    for (uint32_t rest = word; rest; rest &= rest - 1) {
      const int bit = __ffs(rest) - 1;
      const int32_t v = (int32_t)(w * 32 + bit);
      const T d = tsi_value<T>(a.dist[v]);
      if (d < s.split) {
        keep &= ~(1u << bit);
        if (!(d < old_split)) {
          moved |= 1u << bit;
          s.found++;
          s.edges += (unsigned long long)tsi_degree(a.offsets, v);
        }
      } else {
        const unsigned long long b = (unsigned long long)tsi_bits<T>(d);
        s.far_min = b < s.far_min ? b : s.far_min;
      }
    }
    a.far_bits[w] = keep;
    if (moved)
      atomicOr(s.next_bits + w, moved);
  }
}

/* The heavy round's near set: every vertex of the window [lo, split), one
 * bitmap word a warp, each thread one vertex. */
template <class T>
__device__ void tsi_sssp_window(const tsi_sssp_args<T> &a, tsi_sssp_step<T> &s, T lo, int64_t thread, int64_t threads) {
  for (int64_t base = thread - (thread & 31); base < a.words * 32; base += threads) {
    const int64_t v = base + (thread & 31);
    bool in = false;
    if (v < a.n) {
      const T d = tsi_value<T>(a.dist[v]);
      in = !(d < lo) && d < s.split;
      if (in) {
        s.found++;
        s.edges += (unsigned long long)tsi_degree(a.offsets, (int32_t)v);
      }
    }
    const uint32_t word = __ballot_sync(0xffffffffu, in);
    if ((thread & 31) == 0 && word)
      s.next_bits[base >> 5] = word;
  }
}

/* The split after a far phase whose smallest distance is `far`: far + delta,
 * at least the next value above far (delta may vanish next to it). */
template <class T> __device__ inline T tsi_sssp_next_split(T far, T delta) {
  const T split = tsi_add_rn(far, delta);
  if constexpr (sizeof(T) == 4)
    return split > far ? split : nextafterf(far, INFINITY);
  else
    return split > far ? split : nextafter(far, (double)INFINITY);
}

template <class S, class T>
__global__ void __launch_bounds__(TSI_GRAPH_BLOCK, TSI_GRAPH_MIN_BLOCKS) tsi_sssp_kernel(tsi_sssp_args<T> a) {
  __shared__ lb::gather_storage<S, TSI_GRAPH_BLOCK> expand_smem;
  __shared__ lb::gather_storage<lb::grid_mapped, TSI_GRAPH_BLOCK> hub_smem;
  __shared__ tsi_block_scratch reduce_smem;
  __shared__ tsi_compact_scratch compact_smem;
  const int64_t thread = (int64_t)blockIdx.x * TSI_GRAPH_BLOCK + threadIdx.x;
  const int64_t threads = (int64_t)gridDim.x * TSI_GRAPH_BLOCK;
  tsi_sssp_control *c = a.control;

  lb::grid_barrier_view barrier = lb::grid_barrier_join(&c->barrier);
  tsi_sssp_init(a, thread, threads);
  lb::grid_barrier(barrier);

  T split = a.delta > T(0) ? a.delta : T(0), lo = T(0);
  bool queue_ready = true;
  int round = 0, phase = 0;
  /* Of the phase: light rounds, the heavy round, or its heavy edges done. */
  enum { LIGHT_ROUNDS, HEAVY_ROUND, HEAVY_DONE } stage = LIGHT_ROUNDS;
  for (;; round++) {
    tsi_sssp_round *now = &c->round[round % 3];
    const unsigned long long found = now->found, edges = now->edges;
    const unsigned long long far = c->far_min[phase % 3];
    const bool heavy_due = a.heavy_edges && stage == LIGHT_ROUNDS;
    if (found == 0 && far == TSI_SSSP_NO_FAR && !heavy_due)
      break;
    if (thread == 0)
      c->round[(round + 2) % 3] = tsi_sssp_round{0u, 0u, 0ull, 0ull};
    uint32_t *stale = a.near_bits[(round + 2) % 3];
    for (int64_t w = thread; w < a.words; w += threads)
      stale[w] = 0u;

    tsi_sssp_step<T> s{round,
                       found >= (unsigned long long)a.check_first,
                       false,
                       TSI_SSSP_ALL_EDGES,
                       split,
                       &c->round[(round + 1) % 3],
                       a.near_bits[(round + 1) % 3],
                       0ull,
                       0ull,
                       TSI_SSSP_NO_FAR};
    bool next_ready;
    int far_slot; /* the phase whose smallest far distance this round's far vertices lower */
    if (found > 0) {
      if (!queue_ready) {
        tsi_compact_bits(a.near_bits[round % 3], a.words, a.has_hubs ? a.hub_bits : nullptr, a.queue[round & 1],
                         &now->vertices, a.hub_queue[round & 1], &now->hubs, compact_smem);
        lb::grid_barrier(barrier);
      }
      if (a.heavy_edges) {
        if (stage == HEAVY_DONE) /* a heavy edge landed below the split: light rounds again */
          stage = LIGHT_ROUNDS;
        s.edges_relaxed = stage == HEAVY_ROUND ? TSI_SSSP_HEAVY_EDGES : TSI_SSSP_LIGHT_EDGES;
      }
      s.queue_mode = edges <= (unsigned long long)a.queue_edges;
      tsi_sssp_near<S>(a, s, now->vertices, now->hubs, barrier, expand_smem, hub_smem);
      if (stage == HEAVY_ROUND)
        stage = HEAVY_DONE;
      next_ready = s.queue_mode;
      far_slot = phase % 3;
    } else if (heavy_due) {
      tsi_sssp_window(a, s, lo, thread, threads);
      stage = HEAVY_ROUND;
      next_ready = false;
      far_slot = phase % 3;
    } else {
      /* Slot of phase + 2, last read at phase - 1's far round. */
      if (thread == 0)
        c->far_min[(phase + 2) % 3] = TSI_SSSP_NO_FAR;
      const T old_split = split;
      lo = tsi_value<T>((tsi_bits_of<T>)far);
      split = tsi_sssp_next_split(lo, a.delta);
      s.split = split;
      tsi_sssp_far(a, s, old_split, thread, threads);
      stage = LIGHT_ROUNDS;
      phase++;
      next_ready = false;
      far_slot = phase % 3;
    }
    const unsigned long long block_found = tsi_block_combine(s.found, tsi_sum_op{}, reduce_smem);
    const unsigned long long block_edges = tsi_block_combine(s.edges, tsi_sum_op{}, reduce_smem);
    const unsigned long long block_far = tsi_block_combine(s.far_min, tsi_min_op{}, reduce_smem);
    if (threadIdx.x == 0) {
      if (block_found > 0) {
        atomicAdd(&s.next->found, block_found);
        atomicAdd(&s.next->edges, block_edges);
      }
      if (block_far != TSI_SSSP_NO_FAR)
        atomicMin(&c->far_min[far_slot], block_far);
    }
    queue_ready = next_ready;
    lb::grid_barrier(barrier);
  }

  /* Distances out; reached vertices and their edges counted. */
  unsigned long long reached = 0, reached_edges = 0;
  for (int64_t v = thread; v < a.n; v += threads) {
    const T d = tsi_value<T>(a.dist[v]);
    if (d < T(INFINITY)) {
      reached++;
      reached_edges += (unsigned long long)tsi_degree(a.offsets, (int32_t)v);
    }
    if (a.distances)
      a.distances[v] = d;
  }
  reached = tsi_block_combine(reached, tsi_sum_op{}, reduce_smem);
  reached_edges = tsi_block_combine(reached_edges, tsi_sum_op{}, reduce_smem);
  if (threadIdx.x == 0) {
    atomicAdd(&c->reached, reached);
    atomicAdd(&c->reached_edges, reached_edges);
  }
  if (thread == 0) {
    c->rounds = round;
    c->phases = phase;
    c->source = a.source;
  }
}

/* Instantiations (sssp_cuda_float.cu, sssp_cuda_double.cu). */
const void *tsi_sssp_kernel_float(ts_schedule schedule, int group_size);
const void *tsi_sssp_kernel_double(ts_schedule schedule, int group_size);

#endif
