/**
 * @file
 * @brief One kernel body for every schedule.
 *
 * for_each_tile_reduce() combines the values of each tile's atoms and hands
 * each tile's result to the caller exactly once; for_each_atom() visits each
 * atom once with its tile. The schedule is a type argument, so switching
 * schedules changes one identifier.
 *
 * Split schedules (group-mapped, merge-path, work-oriented) stage a chunk of
 * the path in shared memory: the ends of its tiles and the values of its
 * atoms, loaded by consecutive threads (coalesced, several loads in flight
 * per thread); each thread then walks its share of the chunk in shared
 * memory, and a segmented scan over the threads joins the pieces of tiles
 * split between threads (the reduction of Merrill and Garland, SC'16).
 * Pieces of tiles split between blocks are written as records; the last
 * block to finish combines them in block order. No floating-point atomics:
 * results repeat bitwise from run to run.
 */
#ifndef TESSERA_LB_TILE_REDUCE_CUH
#define TESSERA_LB_TILE_REDUCE_CUH

#include "range.cuh"
#include "schedule.cuh"
#include "unit.cuh"

#include <type_traits>

namespace tessera {
namespace lb {
namespace detail {

/* A tile's end while the chunk is walked, its result afterwards. */
template <class Index, class T> union slot {
  Index end;
  T value;
};

/* Shared memory of one unit of a split schedule. */
template <int Size, int V, int Slots, class Index, class T> struct chunk_storage {
  slot<Index, T> slots[Slots];
  T values[Size * V];         /* atom values of the chunk */
  Index start_tile[Size + 1]; /* each thread's share: its start point, chunk-local */
  int start_atom[Size + 1];
  scan_storage<Size, T> scan;
};

struct no_visit {
  template <class Index> __device__ void operator()(Index, Index) const {}
};

/* Load through L2 only (records written by other blocks in this kernel). */
template <class X> __device__ inline X load_l2(const X *p) {
  static_assert(sizeof(X) % 4 == 0 && alignof(X) >= 4, "records are whole 4-byte words");
  union {
    X x;
    unsigned w[sizeof(X) / 4];
  } u;
  const unsigned *src = reinterpret_cast<const unsigned *>(p);
#pragma unroll
  for (int i = 0; i < int(sizeof(X) / 4); i++)
    u.w[i] = __ldcg(src + i);
  return u.x;
}

/*
 * Walk the part of the path from `from` to `to` (at most Size * V atoms and,
 * for the merge partition, at most Size * V items in all). Tile ends of
 * tiles base .. base + staged - 1 are in s.slots; ends of later tiles are read
 * from the work. Results of tiles closed here go to s.slots[tile - base] when
 * that index is below Slots, else straight to done(). carry_in is the value
 * of tile from.tile accumulated before `from`; returns the value of tile
 * to.tile accumulated up to `to`. Every thread of the unit calls it.
 */
template <bool AtomsOnly, int Size, int Block, int V, int Slots, class Work, class T, class Op, class AtomValue,
          class Visit, class Done>
__device__ T walk_chunk(const unit<Size, Block> &u, chunk_storage<Size, V, Slots, typename Work::index_type, T> &s,
                        const Work &w, typename Work::index_type base, typename Work::index_type staged,
                        coordinate<typename Work::index_type> from, coordinate<typename Work::index_type> to,
                        T carry_in, T identity, Op op, const AtomValue &atom_value, const Visit &visit,
                        const Done &done) {
  using Index = typename Work::index_type;
  const Index tiles_here = to.tile - from.tile;
  const int atoms_here = int(to.atom - from.atom);

  /* Stage the atom values: consecutive threads, consecutive atoms; all V
   * loads issued before the first store. */
  T loaded[V];
#pragma unroll
  for (int k = 0; k < V; k++) {
    int i = u.rank + k * Size;
    loaded[k] = i < atoms_here ? atom_value(from.atom + Index(i)) : identity;
  }
#pragma unroll
  for (int k = 0; k < V; k++) {
    int i = u.rank + k * Size;
    if (i < atoms_here)
      s.values[i] = loaded[k];
  }
  const Index offset = from.tile - base;
  auto end_of = [&](Index local) -> Index {
    Index r = offset + local;
    return r < staged ? s.slots[r].end : w.tile_end(from.tile + local);
  };
  u.sync();

  /* This thread's start point. */
  Index my_tile;
  int my_atom;
  if constexpr (!AtomsOnly) {
    /* Merge path: the first d items hold `lo` tile ends, where d = rank * V. */
    int items = int(tiles_here) + atoms_here;
    int d = u.rank * V < items ? u.rank * V : items;
    Index lo = d > atoms_here ? Index(d - atoms_here) : Index(0);
    Index hi = Index(d) < tiles_here ? Index(d) : tiles_here;
    while (lo < hi) {
      Index mid = lo + (hi - lo) / 2;
      if (end_of(mid) <= from.atom + Index(d - 1) - mid)
        lo = mid + 1;
      else
        hi = mid;
    }
    my_tile = lo;
    my_atom = d - int(lo);
  } else {
    /* Even atoms: the first tile ending after this thread's first atom. */
    my_atom = u.rank * V < atoms_here ? u.rank * V : atoms_here;
    my_tile =
        u.rank == 0 ? Index(0) : upper_bound_index<Index>(Index(0), tiles_here, from.atom + Index(my_atom), end_of);
  }
  s.start_tile[u.rank] = my_tile;
  s.start_atom[u.rank] = my_atom;
  if (u.rank == Size - 1) {
    s.start_tile[Size] = tiles_here;
    s.start_atom[Size] = atoms_here;
  }
  u.sync();
  const Index end_tile = s.start_tile[u.rank + 1];
  const int end_atom = s.start_atom[u.rank + 1];

  auto store = [&](Index local, T v) {
    Index r = offset + local;
    if (r < Index(Slots))
      s.slots[r].value = v;
    else
      done(from.tile + local, v);
  };

  /* Walk: close a tile once its atoms are consumed (ties close first, as in
   * the search), else consume the next atom. The first tile this thread
   * closes may have started in an earlier thread: its value waits for the
   * scan below. Ends read here are this thread's own tiles only. */
  T acc = identity, head = identity;
  Index head_tile = 0;
  bool closed = false;
  Index t = my_tile;
  int a = my_atom;
  while (t < end_tile || a < end_atom) {
    if (t < end_tile && end_of(t) <= from.atom + Index(a)) {
      if (!closed) {
        head = acc;
        head_tile = t;
        closed = true;
      } else {
        store(t, acc);
      }
      acc = identity;
      ++t;
    } else {
      visit(from.tile + t, from.atom + Index(a));
      acc = op(acc, s.values[a]);
      ++a;
    }
  }
  segmented_scan_result<T> joined = segmented_scan(u, s.scan, closed, acc, carry_in, op);
  if (closed)
    store(head_tile, op(joined.exclusive, head));
  u.sync();
  return joined.carry_out;
}

/* Stage tile ends base .. base + count - 1 (count <= Size * V), V loads in flight. */
template <int Size, int Block, int V, int Slots, class Work, class T>
__device__ void stage_ends(const unit<Size, Block> &u, chunk_storage<Size, V, Slots, typename Work::index_type, T> &s,
                           const Work &w, typename Work::index_type base, typename Work::index_type count) {
  using Index = typename Work::index_type;
  constexpr int K = (Slots + Size - 1) / Size;
  Index loaded[K];
#pragma unroll
  for (int k = 0; k < K; k++) {
    Index i = Index(u.rank + k * Size);
    loaded[k] = i < count ? w.tile_end(base + i) : Index(0);
  }
#pragma unroll
  for (int k = 0; k < K; k++) {
    Index i = Index(u.rank + k * Size);
    if (i < count)
      s.slots[i].end = loaded[k];
  }
}

/* ---- storage per schedule ---- */

template <class S, class T, class Index> struct storage_for {
  struct type {
    int unused;
  };
};
template <class T, class Index> struct storage_for<block_mapped, T, Index> {
  struct type {
    scan_storage<block_threads<block_mapped>, T> scan;
  };
};
template <int G, class T, class Index> struct storage_for<group_mapped<G>, T, Index> {
  static constexpr int block = block_threads<group_mapped<G>>;
  struct type {
    chunk_storage<G, group_items_per_thread<G, T, Index>, G, Index, T> group[block / G];
  };
};
template <class T, class Index> struct chunked_storage {
  static constexpr int block = default_block;
  static constexpr int V = items_per_thread<T, Index>;
  struct type {
    chunk_storage<block, V, block * V, Index, T> chunk;
    int last; /* this block finished last: it combines the records */
  };
};
template <class T, class Index> struct storage_for<merge_path, T, Index> : chunked_storage<T, Index> {};
template <class T, class Index> struct storage_for<work_oriented, T, Index> : chunked_storage<T, Index> {};

/* ---- the schedules ---- */

template <class Work, class T, class Op, class AtomValue, class Visit, class Done>
__device__ void run_thread_mapped(const Work &w, T identity, Op op, const AtomValue &atom_value, const Visit &visit,
                                  const Done &done) {
  using Index = typename Work::index_type;
  for (Index t : grid_stride_range<Index>(Index(0), w.tiles)) {
    Index a = w.tile_begin(t);
    const Index e = w.tile_end(t);
    T acc = identity;
    if (e - a <= Index(short_tile)) {
      /* A short tile's values loaded at once, predicated, then combined in
       * order (with identity past its end, which changes nothing): one
       * round trip to memory, where a loop of four and a remainder takes
       * two for a tile of 5. */
      const int n = int(e - a);
      T v[short_tile];
#pragma unroll
      for (int k = 0; k < short_tile; k++)
        v[k] = k < n ? atom_value(a + Index(k)) : identity;
#pragma unroll
      for (int k = 0; k < short_tile; k++) {
        if (k < n)
          visit(t, a + Index(k));
        acc = op(acc, v[k]);
      }
    } else {
      /* Four values loaded before they are combined (in order). */
      for (; e - a >= 4; a += 4) {
        T v0 = atom_value(a), v1 = atom_value(a + 1), v2 = atom_value(a + 2), v3 = atom_value(a + 3);
        visit(t, a);
        visit(t, a + 1);
        visit(t, a + 2);
        visit(t, a + 3);
        acc = op(op(op(op(acc, v0), v1), v2), v3);
      }
      for (; a < e; ++a) {
        visit(t, a);
        acc = op(acc, atom_value(a));
      }
    }
    done(t, acc);
  }
}

template <class Work, class T, class Op, class AtomValue, class Visit, class Done>
__device__ void run_warp_mapped(const Work &w, T identity, Op op, const AtomValue &atom_value, const Visit &visit,
                                const Done &done) {
  using Index = typename Work::index_type;
  constexpr int Block = block_threads<warp_mapped>;
  unit<32, Block> u;
  scan_storage<32, T> unused; /* a warp scans in registers */
  const Index warps = Index(gridDim.x) * Index(Block / 32);
  /* The loop bounds are the same for the whole warp: all lanes reach the shuffles. */
  for (Index t = Index(blockIdx.x) * Index(Block / 32) + Index(u.index); t < w.tiles; t += warps) {
    const Index e = w.tile_end(t);
    T acc = identity;
    for (Index a = w.tile_begin(t) + Index(u.rank); a < e; a += 32) {
      visit(t, a);
      acc = op(acc, atom_value(a));
    }
    acc = reduce(u, unused, acc, identity, op);
    if (u.rank == 0)
      done(t, acc);
  }
}

template <class Work, class Storage, class T, class Op, class AtomValue, class Visit, class Done>
__device__ void run_block_mapped(const Work &w, Storage &s, T identity, Op op, const AtomValue &atom_value,
                                 const Visit &visit, const Done &done) {
  using Index = typename Work::index_type;
  constexpr int Block = block_threads<block_mapped>;
  unit<Block, Block> u;
  for (Index t = Index(blockIdx.x); t < w.tiles; t += Index(gridDim.x)) {
    const Index e = w.tile_end(t);
    T acc = identity;
    for (Index a = w.tile_begin(t) + Index(u.rank); a < e; a += Block) {
      visit(t, a);
      acc = op(acc, atom_value(a));
    }
    acc = reduce(u, s.scan, acc, identity, op);
    if (u.rank == 0)
      done(t, acc);
  }
}

template <int G, class Work, class Storage, class T, class Op, class AtomValue, class Visit, class Done>
__device__ void run_group_mapped(const Work &w, Storage &storage, T identity, Op op, const AtomValue &atom_value,
                                 const Visit &visit, const Done &done) {
  using Index = typename Work::index_type;
  constexpr int Block = block_threads<group_mapped<G>>;
  constexpr int capacity = G * group_items_per_thread<G, T, Index>;
  unit<G, Block> u;
  auto &s = storage.group[u.index];
  const long long sets = ((long long)w.tiles + G - 1) / G;
  const long long groups = (long long)gridDim.x * (Block / G);
  for (long long set = (long long)blockIdx.x * (Block / G) + u.index; set < sets; set += groups) {
    const Index first = Index(set * G);
    const Index count = w.tiles - first < Index(G) ? w.tiles - first : Index(G);
    /* The set's tile ends: the prefix sum of its tile sizes. */
    if (Index(u.rank) < count)
      s.slots[u.rank].end = w.tile_end(first + Index(u.rank));
    const Index atom_first = w.tile_begin(first);
    u.sync();
    const Index atom_count = s.slots[count - 1].end - atom_first;
    const long long items = (long long)count + (long long)atom_count;
    coordinate<Index> from{first, atom_first};
    T carry = identity;
    for (long long d = 0; d < items;) {
      /* This chunk ends `capacity` items further along the set's merge path. */
      const long long d_end = d + capacity < items ? d + capacity : items;
      Index lo = from.tile - first;
      if ((long long)lo < d_end - (long long)atom_count)
        lo = Index(d_end - (long long)atom_count);
      Index hi = (long long)count < d_end ? count : Index(d_end);
      while (lo < hi) {
        Index mid = lo + (hi - lo) / 2;
        if ((long long)s.slots[mid].end <= (long long)atom_first + d_end - 1 - (long long)mid)
          lo = mid + 1;
        else
          hi = mid;
      }
      const coordinate<Index> to{first + lo, atom_first + Index(d_end - (long long)lo)};
      carry = walk_chunk<false>(u, s, w, first, count, from, to, carry, identity, op, atom_value, visit, done);
      from = to;
      d = d_end;
    }
    if (Index(u.rank) < count)
      done(first + Index(u.rank), s.slots[u.rank].value);
    u.sync();
  }
}

/* Merge-path and work-oriented: each block walks its consecutive chunks,
 * carrying the open tile's value from chunk to chunk. */
template <class S, class Work, class Storage, class T, class Op, class AtomValue, class Visit, class Done>
__device__ void run_chunked(const plan<typename Work::index_type> &p, const Work &w, Storage &s, T identity, Op op,
                            const AtomValue &atom_value, const Visit &visit, const Done &done) {
  using Index = typename Work::index_type;
  constexpr bool atoms_only = std::is_same<S, work_oriented>::value;
  constexpr int Block = block_threads<S>;
  constexpr int Slots = Block * items_per_thread<T, Index>;
  unit<Block, Block> u;
  const int b = int(blockIdx.x);
  if (b >= p.grid)
    return; /* launched wider than the plan: the extra blocks have nothing */
  const long long c_first = (long long)b * p.per_block;
  const long long c_last = c_first + p.per_block < p.chunks ? c_first + p.per_block : p.chunks;
  const coordinate<Index> start = p.coords[c_first];
  /* The block starts inside a tile begun by an earlier block: that tile's
   * value here is only a part, combined with the others at the end. */
  const bool foreign = start.tile < p.tiles && start.atom > w.tile_begin(start.tile);
  bool head_closed = false;
  T head_value = identity, carry = identity;
  for (long long c = c_first; c < c_last; c++) {
    const coordinate<Index> from = p.coords[c], to = p.coords[c + 1];
    const Index tiles_here = to.tile - from.tile;
    const Index staged = tiles_here < Index(Slots) ? tiles_here : Index(Slots);
    stage_ends(u, s.chunk, w, from.tile, staged);
    carry = walk_chunk<atoms_only>(u, s.chunk, w, from.tile, staged, from, to, carry, identity, op, atom_value, visit,
                                   done);
    const bool skip_first = foreign && !head_closed && from.tile == start.tile && tiles_here > 0;
    if (skip_first) {
      head_closed = true;
      head_value = s.chunk.slots[0].value;
    }
    /* Results leave in tile order: consecutive threads, consecutive tiles. */
    for (Index r = Index(u.rank); r < staged; r += Index(Block))
      if (!(skip_first && r == 0))
        done(from.tile + r, s.chunk.slots[r].value);
    u.sync();
  }
  if (p.grid == 1)
    return;

  /* Two records per block: its part of the tile it started inside (head) and
   * of the tile still open at its end (tail). */
  record<T> *records = static_cast<record<T> *>(p.records);
  if (u.rank == 0) {
    const coordinate<Index> end = p.coords[c_last];
    record<T> head{-1, 0, identity}, tail{-1, 0, identity};
    if (foreign)
      head = record<T>{(long long)start.tile, head_closed ? 1 : 0, head_value};
    if (end.tile < p.tiles && end.atom > w.tile_begin(end.tile))
      tail = record<T>{(long long)end.tile, 0, carry};
    records[2 * b] = head;
    records[2 * b + 1] = tail;
    __threadfence();
    unsigned finished = atomicAdd(p.counter, 1u);
    s.last = finished == unsigned(p.grid - 1);
  }
  u.sync();
  if (!s.last)
    return;
  __threadfence();

  /* The last block: a segmented scan over the records in block order (runs of
   * the same tile are consecutive), each thread taking `per` of them. A run
   * ends at the record of the block that closes the tile. */
  const int count = 2 * p.grid;
  const int per = (count + Block - 1) / Block;
  const int r0 = u.rank * per;
  const int r1 = r0 + per < count ? r0 + per : count;
  const long long before = r0 > 0 && r0 - 1 < count ? load_l2(&records[r0 - 1]).tile : -1;
  bool reset = false;
  T partial = identity;
  long long previous = before;
  for (int i = r0; i < r1; i++) {
    record<T> r = load_l2(&records[i]);
    if (r.tile >= 0) {
      if (r.tile != previous) {
        reset = true;
        partial = r.value;
      } else {
        partial = op(partial, r.value);
      }
    }
    previous = r.tile;
  }
  segmented_scan_result<T> joined = segmented_scan(u, s.chunk.scan, reset, partial, identity, op);
  T running = joined.exclusive;
  previous = before;
  for (int i = r0; i < r1; i++) {
    record<T> r = load_l2(&records[i]);
    if (r.tile >= 0) {
      running = r.tile != previous ? r.value : op(running, r.value);
      if (r.closes)
        done(Index(r.tile), running);
    }
    previous = r.tile;
  }
  if (u.rank == 0)
    atomicExch(p.counter, 0u); /* ready for the next launch */
}

template <class S, class Work, class Storage, class T, class Op, class AtomValue, class Visit, class Done>
__device__ void dispatch(const plan<typename Work::index_type> &p, const Work &w, Storage &s, T identity, Op op,
                         const AtomValue &atom_value, const Visit &visit, const Done &done) {
  if constexpr (std::is_same<S, thread_mapped>::value) {
    (void)p;
    (void)s;
    run_thread_mapped(w, identity, op, atom_value, visit, done);
  } else if constexpr (std::is_same<S, warp_mapped>::value) {
    (void)p;
    (void)s;
    run_warp_mapped(w, identity, op, atom_value, visit, done);
  } else if constexpr (std::is_same<S, block_mapped>::value) {
    (void)p;
    run_block_mapped(w, s, identity, op, atom_value, visit, done);
  } else if constexpr (std::is_same<S, merge_path>::value || std::is_same<S, work_oriented>::value) {
    run_chunked<S>(p, w, s, identity, op, atom_value, visit, done);
  } else {
    (void)p;
    run_group_mapped<S::size>(w, s, identity, op, atom_value, visit, done);
  }
}

} // namespace detail

/**
 * @brief Shared memory a kernel declares for schedule S with values of type
 * T: `__shared__ tessera::lb::storage<S, T, Index> smem;`
 * @tparam S the schedule.
 * @tparam T the value type.
 * @tparam Index the integer type of tile and atom numbers.
 */
template <class S, class T, class Index> using storage = typename detail::storage_for<S, T, Index>::type;

/**
 * @brief For every tile t, done(t, v) with v the tile's atom values combined
 * by op.
 *
 * v = op(...op(op(identity, atom_value(a0)), atom_value(a1))...,
 * atom_value(a_last)) over the tile's atoms, in an order fixed by the
 * schedule and the plan (exact for an associative op). Called by every
 * thread of a kernel launched with p.grid blocks of `block_threads<S>`
 * threads. done() is called exactly once per tile, by some thread of the
 * grid (for tiles split between blocks, by the last block to finish);
 * atom_value() exactly once per atom.
 * @tparam S the schedule.
 * @tparam Work the work description's type.
 * @tparam T the value type: trivially copyable, a multiple of 4 bytes.
 * @tparam Op an associative `T op(T, T)`.
 * @tparam AtomValue a callable `T atom_value(Index atom)`.
 * @tparam Done a callable `void done(Index tile, T value)`.
 * @param p the plan (make_plan<S, T>).
 * @param w the work description.
 * @param smem the schedule's shared memory (storage<S, T, Index>).
 * @param identity the operator's identity, the value of an empty tile.
 * @param op the combining operator.
 * @param atom_value the value of an atom.
 * @param done receives each tile's result.
 */
template <class S, class Work, class T, class Op, class AtomValue, class Done>
__device__ void for_each_tile_reduce(const plan<typename Work::index_type> &p, const Work &w,
                                     storage<S, T, typename Work::index_type> &smem, T identity, Op op,
                                     const AtomValue &atom_value, const Done &done) {
  detail::dispatch<S>(p, w, smem, identity, op, atom_value, detail::no_visit{}, done);
}

/**
 * @brief Shared memory of for_each_atom() (its plan's value type is int).
 * @tparam S the schedule.
 * @tparam Index the integer type of tile and atom numbers.
 */
template <class S, class Index> using atom_storage = storage<S, int, Index>;

/**
 * @brief fn(tile, atom) exactly once for every atom, with the schedule's
 * distribution of atoms over threads.
 * @tparam S the schedule.
 * @tparam Work the work description's type.
 * @tparam Fn a callable `void fn(Index tile, Index atom)`.
 * @param p the plan: make_plan<S, int, Index> (with its workspace for
 * merge-path and work-oriented).
 * @param w the work description.
 * @param smem the schedule's shared memory (atom_storage<S, Index>).
 * @param fn called once per atom.
 */
template <class S, class Work, class Fn>
__device__ void for_each_atom(const plan<typename Work::index_type> &p, const Work &w,
                              atom_storage<S, typename Work::index_type> &smem, const Fn &fn) {
  using Index = typename Work::index_type;
  detail::dispatch<S>(
      p, w, smem, 0, plus{}, [](Index) { return 0; }, fn, [](Index, int) {});
}

} // namespace lb
} // namespace tessera

#endif
