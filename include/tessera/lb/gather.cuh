/**
 * @file tessera/lb/gather.cuh
 * @brief Gathered work: tiles that are not consecutive runs of one array of atoms
 * but independent ranges [begin, end) of it, listed in any order and counted
 * at run time, such as the adjacency lists of a frontier's vertices in a
 * graph traversal (Osama, Porumbescu and Owens, PPoPP 2023, section 5.3:
 * neighbourhood expansion as tiles and atoms). The tile count is an argument
 * of the call, not of a plan, so a persistent kernel can expand a frontier
 * whose size it learned on the device.
 *
 *   auto ranges = [=] __device__ (int t) { return lb::atom_range{offsets[q[t]], offsets[q[t] + 1]}; };
 *   __shared__ lb::gather_storage<S, 512> smem;
 *   lb::for_each_gathered_atom<S, 512>(count, ranges, smem, [&](int t, long long e) { ... });
 *
 * Every thread of a grid of 512-thread blocks calls it; fn(tile, atom) runs
 * once per atom. Schedules: thread_mapped, warp_mapped, block_mapped,
 * group_mapped<G> (G up to 32: a group of G threads shares the atoms of G
 * consecutive tiles, found by a scan of their sizes in registers),
 * lane_mapped<L> (L threads per tile, 1 to 32), and grid_mapped (the atoms of
 * all the tiles spread evenly over the whole grid: for a handful of very
 * long tiles; each block scans the tile sizes itself, so keep the list short).
 *
 * For lists of any length and any mix of sizes inside a persistent kernel,
 * for_each_balanced_atom<Block>(count, ranges, workspace, barrier, smem, fn)
 * is the work-oriented schedule of gathered work: the prefix sum of the tile
 * sizes is built on the device (one pass over the tiles and one grid
 * barrier), then every warp of the grid takes an equal share of the atoms
 * and finds their tiles by search, so no thread waits on a long tile while
 * others idle.
 *
 * A list that one block holds on its own (the vertices a persistent kernel's
 * block found in the step before, kept in its shared memory) is expanded by
 * that block alone with for_each_block_gathered_atom<S, Block>(count, ranges,
 * smem, fn): the same schedules over the block's threads, nothing read from
 * or waited on in other blocks. */
#ifndef TESSERA_LB_GATHER_CUH
#define TESSERA_LB_GATHER_CUH

#include "grid_barrier.cuh"
#include "schedule.cuh"
#include "unit.cuh"

#include <climits>
#include <cooperative_groups.h>
#include <type_traits>

namespace tessera {
namespace lb {

/**
 * @brief Schedule: L threads per tile (a power of two, 1 to 32), each taking
 *        every L-th atom: thread_mapped is lane_mapped<1>, warp_mapped lane_mapped<32>.
 * @tparam L threads per tile.
 */
template <int L> struct lane_mapped {
  static_assert(L >= 1 && L <= 32 && (L & (L - 1)) == 0, "lanes per tile: a power of two, 1 to 32");
  static constexpr int lanes = L; /**< Threads per tile. */
};

/** @brief Schedule: the whole grid shares the atoms of all the tiles, evenly (gathered work only). */
struct grid_mapped {};

/** @brief Atoms begin .. end - 1 of a gathered tile. */
struct atom_range {
  long long begin; /**< First atom of the tile. */
  long long end;   /**< One past the tile's last atom. */
};

namespace detail {
template <class S> struct gather_lanes { static constexpr int value = 0; };
template <> struct gather_lanes<thread_mapped> { static constexpr int value = 1; };
template <> struct gather_lanes<warp_mapped> { static constexpr int value = 32; };
template <int L> struct gather_lanes<lane_mapped<L>> { static constexpr int value = L; };

/* Tiles of one grid-mapped batch: one per thread of the block. */
template <int Block> struct grid_batch {
  long long first_atom[Block + 1]; /* exclusive prefix of the batch's tile sizes; [Block]: their total */
  long long begin[Block];
  scan_storage<Block, long long> scan;
};

/* The work-oriented expansion's block scratch: the scan, and the prefix of
 * the chunk sizes (chunk c's first atom; [chunks]: the total). */
template <int Block> struct balanced_storage {
  scan_storage<Block, long long> scan;
  long long first[1025];
};

template <class S, int Block> struct gather_storage_for {
  struct type {
    int unused;
  };
};
template <int Block> struct gather_storage_for<grid_mapped, Block> { using type = grid_batch<Block>; };
template <int Block> struct gather_storage_for<work_oriented, Block> { using type = balanced_storage<Block>; };

/* The threads that share a gathered list: the whole grid (a list in global
 * memory), or one block (a list of the block's own). */
struct gather_span {
  long long thread, threads; /* this thread's place among them, and their number */
  long long block, blocks;   /* this block's place among the span's blocks, and their number */
};
template <int Block> __device__ inline gather_span grid_span() {
  return gather_span{(long long)blockIdx.x * Block + threadIdx.x, (long long)gridDim.x * Block, (long long)blockIdx.x,
                     (long long)gridDim.x};
}
template <int Block> __device__ inline gather_span block_span() {
  return gather_span{(long long)threadIdx.x, (long long)Block, 0LL, 1LL};
}

template <class Index, class Ranges, class Fn>
__device__ void gather_lanes_per_tile(const gather_span &span, int lanes, Index tiles, const Ranges &ranges,
                                      const Fn &fn) {
  const long long groups = span.threads / lanes;
  const int lane = int(threadIdx.x) % lanes;
  for (long long t = span.thread / lanes; t < (long long)tiles; t += groups) {
    const atom_range r = ranges(Index(t));
    for (long long a = r.begin + lane; a < r.end; a += lanes)
      fn(Index(t), a);
  }
}

template <int G, class Index, class Ranges, class Fn>
__device__ void gather_group(const gather_span &span, Index tiles, const Ranges &ranges, const Fn &fn) {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "gathered group-mapped: groups of 1 to 32 threads");
  namespace cg = cooperative_groups;
  auto group = cg::tiled_partition<G>(cg::this_thread_block());
  const int rank = int(group.thread_rank());
  const long long groups = span.threads / G;
  /* The loop bounds are the same for the whole group: all its threads reach the shuffles. */
  for (long long set = span.thread / G; set * G < (long long)tiles; set += groups) {
    const long long t = set * G + rank;
    atom_range r{0, 0};
    if (t < (long long)tiles)
      r = ranges(Index(t));
    /* Inclusive scan of the sizes over the group (Hillis and Steele). */
    long long inclusive = r.end - r.begin;
#pragma unroll
    for (int d = 1; d < G; d *= 2) {
      long long other = group.shfl_up(inclusive, d);
      if (rank >= d)
        inclusive += other;
    }
    const long long exclusive = inclusive - (r.end - r.begin);
    const long long total = group.shfl(inclusive, G - 1);
    for (long long base = 0; base < total; base += G) {
      const long long k = base + rank;
      /* The tile of atom k: the first rank whose inclusive prefix passes k. */
      int lo = 0;
#pragma unroll
      for (int step = G / 2; step >= 1; step /= 2) {
        long long probe = group.shfl(inclusive, lo + step - 1);
        if (probe <= k)
          lo += step;
      }
      const long long tile_begin = group.shfl(r.begin, lo);
      const long long tile_first = group.shfl(exclusive, lo);
      if (k < total)
        fn(Index(set * G + lo), tile_begin + (k - tile_first));
    }
  }
}

template <class S, int Block, class Index, class Ranges, class Fn>
__device__ void gather_block(const gather_span &span, Index tiles, const Ranges &ranges, const Fn &fn) {
  (void)sizeof(S);
  for (long long t = span.block; t < (long long)tiles; t += span.blocks) {
    const atom_range r = ranges(Index(t));
    for (long long a = r.begin + threadIdx.x; a < r.end; a += Block)
      fn(Index(t), a);
  }
}

template <int Block, class Index, class Ranges, class Fn>
__device__ void gather_grid(const gather_span &span, Index tiles, const Ranges &ranges, grid_batch<Block> &s,
                            const Fn &fn) {
  unit<Block, Block> u;
  const long long thread = span.thread, threads = span.threads;
  for (long long first = 0; first < (long long)tiles; first += Block) {
    const long long t = first + threadIdx.x;
    atom_range r{0, 0};
    if (t < (long long)tiles)
      r = ranges(Index(t));
    const long long size = r.end - r.begin;
    segmented_scan_result<long long> scanned = segmented_scan(u, s.scan, false, size, 0LL, plus{});
    s.first_atom[threadIdx.x] = scanned.exclusive;
    s.begin[threadIdx.x] = r.begin;
    if (threadIdx.x == 0)
      s.first_atom[Block] = scanned.carry_out;
    u.sync();
    const long long total = s.first_atom[Block];
    const int count = (long long)tiles - first < Block ? int((long long)tiles - first) : Block;
    for (long long k = thread; k < total; k += threads) {
      /* Last tile whose first atom is at or before k (empty tiles skipped). */
      int lo = 0, hi = count;
      while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (s.first_atom[mid] <= k)
          lo = mid;
        else
          hi = mid;
      }
      fn(Index(first + lo), s.begin[lo] + (k - s.first_atom[lo]));
    }
    u.sync(); /* the batch's tables are rewritten next */
  }
}

/* The gathered schedules over a span of threads. */
template <class S, int Block, class Index, class Ranges, class Fn>
__device__ void gather_spread(const gather_span &span, Index tiles, const Ranges &ranges,
                              typename gather_storage_for<S, Block>::type &smem, const Fn &fn) {
  if constexpr (std::is_same<S, grid_mapped>::value) {
    gather_grid<Block>(span, tiles, ranges, smem, fn);
  } else if constexpr (std::is_same<S, block_mapped>::value) {
    (void)smem;
    gather_block<S, Block>(span, tiles, ranges, fn);
  } else if constexpr (gather_lanes<S>::value > 0) {
    (void)smem;
    gather_lanes_per_tile(span, gather_lanes<S>::value, tiles, ranges, fn);
  } else {
    (void)smem;
    static_assert(S::size <= 32, "gathered group-mapped: groups of at most 32 threads");
    gather_group<S::size>(span, tiles, ranges, fn);
  }
}
} // namespace detail

/**
 * @brief Shared memory of for_each_gathered_atom<S, Block>: declare it __shared__.
 * @tparam S the schedule.
 * @tparam Block threads per block of the kernel.
 */
template <class S, int Block> using gather_storage = typename detail::gather_storage_for<S, Block>::type;

/**
 * @brief fn(tile, atom) once for every atom of every tile t < tiles.
 *
 * fn(tile, atom) once for every atom of every tile t < tiles, where
 * ranges(t) gives tile t's atoms as an atom_range. Called by every thread of
 * a grid of Block-thread blocks (Block: the kernel's block size, a multiple
 * of 32, at most 1024); block_mapped and grid_mapped synchronise the block,
 * so no thread may skip the call. fn runs concurrently for different atoms:
 * it must not depend on the order of atoms.
 * @tparam S the schedule (thread_mapped, warp_mapped, block_mapped, group_mapped<G>, lane_mapped<L>, grid_mapped).
 * @tparam Block threads per block of the kernel.
 * @param tiles number of tiles.
 * @param ranges callable: ranges(t) gives tile t's atoms as an atom_range.
 * @param smem the schedule's shared memory (gather_storage<S, Block>).
 * @param fn callable fn(tile, atom), run once per atom.
 */
template <class S, int Block, class Index, class Ranges, class Fn>
__device__ void for_each_gathered_atom(Index tiles, const Ranges &ranges, gather_storage<S, Block> &smem,
                                       const Fn &fn) {
  static_assert(Block % 32 == 0 && Block <= 1024, "blocks of whole warps, at most 1024 threads");
  detail::gather_spread<S, Block>(detail::grid_span<Block>(), tiles, ranges, smem, fn);
}

/**
 * @brief The schedule for_each_block_gathered_atom() takes for S: S itself,
 * except work_oriented, whose one-block form is grid_mapped's (the list's
 * sizes scanned, the atoms spread evenly over the block's threads).
 */
template <class S>
using block_gather_schedule = typename std::conditional<std::is_same<S, work_oriented>::value, grid_mapped, S>::type;

/** @brief Shared memory of for_each_block_gathered_atom<S, Block>: declare it __shared__. */
template <class S, int Block> using block_gather_storage = gather_storage<block_gather_schedule<S>, Block>;

/**
 * @brief fn(tile, atom) once for every atom of every tile t < tiles of a
 * list that one block holds on its own, by that block's threads alone.
 *
 * As for_each_gathered_atom(), with the block in place of the grid: the tiles
 * are this block's (a persistent kernel's block expanding the vertices it
 * found itself, kept in its shared memory), and no other block takes part or
 * waits. grid_mapped and work_oriented spread the atoms of all the tiles
 * evenly over the block's threads (a scan of the sizes, then a search per
 * atom); the other schedules map tiles to the block's threads as they map them
 * to the grid's. Called by every thread of the block with the same tile count;
 * grid_mapped, work_oriented and block_mapped synchronise the block.
 * @tparam S the schedule (as for_each_gathered_atom, and work_oriented).
 * @tparam Block threads per block of the kernel.
 * @param tiles number of tiles.
 * @param ranges callable: ranges(t) gives tile t's atoms as an atom_range.
 * @param smem shared memory (block_gather_storage<S, Block>).
 * @param fn callable fn(tile, atom), run once per atom.
 */
template <class S, int Block, class Index, class Ranges, class Fn>
__device__ void for_each_block_gathered_atom(Index tiles, const Ranges &ranges, block_gather_storage<S, Block> &smem,
                                             const Fn &fn) {
  static_assert(Block % 32 == 0 && Block <= 1024, "blocks of whole warps, at most 1024 threads");
  detail::gather_spread<block_gather_schedule<S>, Block>(detail::block_span<Block>(), tiles, ranges, smem, fn);
}

/** @brief Most chunks the work-oriented expansion cuts a tile list into (their prefix sits in shared memory). */
constexpr int gather_max_chunks = 1024;

/**
 * @brief Device memory of for_each_balanced_atom(), allocated by the caller
 * for lists of up to `capacity` tiles: 16 bytes a tile and 8 a chunk.
 */
struct gather_workspace {
  long long *scan;        /**< capacity values: atoms of a tile's chunk up to and including the tile. */
  long long *begin;       /**< capacity values: each tile's first atom. */
  long long *chunk_total; /**< gather_max_chunks values: atoms of each chunk. */
};

/**
 * @brief Tiles per chunk of the work-oriented expansion of @p tiles tiles:
 * a multiple of Block, so that at most gather_max_chunks chunks cover them.
 * @tparam Block threads per block of the kernel.
 * @param tiles number of tiles.
 */
template <int Block> __host__ __device__ inline long long balanced_chunk_tiles(long long tiles) {
  const long long per_chunk = (long long)Block * gather_max_chunks;
  return (long long)Block * ((tiles + per_chunk - 1) / per_chunk > 0 ? (tiles + per_chunk - 1) / per_chunk : 1);
}

/**
 * @brief fn(tile, atom) once for every atom of every tile t < tiles, the atoms
 * spread evenly over the warps of the grid (the work-oriented schedule of
 * gathered work).
 *
 * First every block takes chunks of consecutive tiles, computes their sizes
 * with ranges(t) and writes each chunk's running sums to the workspace; a
 * grid barrier; then every block scans the chunk totals (at most
 * gather_max_chunks) into shared memory, and warp w of W takes atoms
 * [total * w / W, total * (w + 1) / W): it finds the tile of its first atom
 * by a 32-way search of the chunk's running sums, then walks 32 tiles at a
 * time, its lanes finding each atom's tile by a binary search over the 32
 * tiles' sums held in registers (as group_mapped does), so that no warp's
 * share depends on the sizes of the tiles it lands on. Called by every thread
 * of a grid of Block-thread blocks, all resident (a persistent kernel: the
 * grid barrier waits for every block); the tile count must be the same in
 * every thread. ranges(t) is called once per tile, in the first pass only.
 * fn runs concurrently for different atoms and must not depend on their
 * order.
 * @tparam Block threads per block of the kernel (a multiple of 32, at most 1024).
 * @param tiles number of tiles (at most the workspace's capacity).
 * @param ranges callable: ranges(t) gives tile t's atoms as an atom_range.
 * @param ws the workspace (gather_workspace).
 * @param barrier the kernel's grid barrier (this block's view).
 * @param smem the schedule's shared memory (gather_storage<work_oriented, Block>).
 * @param fn callable fn(tile, atom), run once per atom.
 */
template <int Block, class Index, class Ranges, class Fn>
__device__ void for_each_balanced_atom(Index tiles, const Ranges &ranges, const gather_workspace &ws,
                                       grid_barrier_view &barrier, gather_storage<work_oriented, Block> &smem,
                                       const Fn &fn) {
  static_assert(Block % 32 == 0 && Block <= 1024, "blocks of whole warps, at most 1024 threads");
  unit<Block, Block> u;
  const long long count = (long long)tiles;
  const long long chunk = balanced_chunk_tiles<Block>(count);
  const long long chunks = (count + chunk - 1) / chunk;

  /* Pass 1: each chunk's running sums of the tile sizes, and its total. */
  for (long long c = blockIdx.x; c < chunks; c += gridDim.x) {
    const long long first = c * chunk, last = first + chunk < count ? first + chunk : count;
    long long carry = 0;
    for (long long base = first; base < last; base += Block) {
      const long long t = base + threadIdx.x;
      long long size = 0;
      if (t < last) {
        const atom_range r = ranges(Index(t));
        ws.begin[t] = r.begin;
        size = r.end - r.begin;
      }
      const segmented_scan_result<long long> at = segmented_scan(u, smem.scan, false, size, carry, plus{});
      if (t < last)
        ws.scan[t] = at.exclusive + size;
      carry = at.carry_out;
    }
    if (threadIdx.x == 0)
      ws.chunk_total[c] = carry;
  }
  grid_barrier(barrier);

  /* The chunks' first atoms, in every block. */
  long long carry = 0;
  for (long long base = 0; base < chunks; base += Block) {
    const long long c = base + threadIdx.x;
    const long long size = c < chunks ? ws.chunk_total[c] : 0;
    const segmented_scan_result<long long> at = segmented_scan(u, smem.scan, false, size, carry, plus{});
    if (c < chunks)
      smem.first[c] = at.exclusive;
    carry = at.carry_out;
  }
  if (threadIdx.x == 0)
    smem.first[chunks] = carry;
  u.sync();
  const long long total = smem.first[chunks];

  /* This warp's share of the atoms. */
  const int lane = int(threadIdx.x & 31);
  const long long warps = (long long)gridDim.x * (Block / 32);
  const long long warp = (long long)blockIdx.x * (Block / 32) + (threadIdx.x >> 5);
  const long long share = total / warps, extra = total % warps;
  long long k = warp * share + (warp < extra ? warp : extra);
  const long long end = k + share + (warp < extra ? 1 : 0);
  if (k >= end)
    return;

  /* The chunk holding atom k: the last with first[c] <= k (it is not empty, as k < total). */
  long long c_lo = 0, c_hi = chunks; /* first[c_lo] <= k < first[c_hi] */
  while (c_hi - c_lo > 1) {
    const long long mid = (c_lo + c_hi) / 2;
    if (smem.first[mid] <= k)
      c_lo = mid;
    else
      c_hi = mid;
  }
  /* Its tile: the first t of the chunk whose running sum passes k - first[c]. */
  const long long local = k - smem.first[c_lo];
  long long lo = c_lo * chunk, hi = lo + chunk < count ? lo + chunk : count; /* the tile is in [lo, hi) */
  while (hi - lo > 32) {
    const long long step = (hi - lo + 31) / 32;
    long long probe = lo + (long long)(lane + 1) * step - 1;
    probe = probe < hi - 1 ? probe : hi - 1;
    const unsigned passed = __ballot_sync(0xffffffffu, ws.scan[probe] > local);
    const int j = __ffs(passed) - 1; /* lane 31 probes hi - 1, whose sum passes: j >= 0 */
    const long long next_lo = lo + (long long)j * step;
    const long long next_hi = lo + (long long)(j + 1) * step < hi ? lo + (long long)(j + 1) * step : hi;
    lo = next_lo;
    hi = next_hi;
  }
  {
    const long long probe = lo + lane;
    const unsigned passed = __ballot_sync(0xffffffffu, probe < hi && ws.scan[probe] > local);
    lo += __ffs(passed) - 1;
  }

  /* Walk: 32 tiles at a time from tile lo, until the share is done. */
  for (long long t0 = lo; k < end; t0 += 32) {
    const long long t = t0 + lane;
    long long before = LLONG_MAX, through = LLONG_MAX, begin = 0; /* atoms before and through tile t */
    if (t < count) {
      const long long c = t / chunk;
      through = smem.first[c] + ws.scan[t];
      before = smem.first[c] + (t > c * chunk ? ws.scan[t - 1] : 0);
      begin = ws.begin[t];
    }
    const long long window = __shfl_sync(0xffffffffu, through, 31);
    const long long stop = window < end ? window : end;
    for (; k < stop; k += 32) {
      const long long atom = k + lane;
      /* The first lane whose tile runs past the atom. */
      int at = 0;
#pragma unroll
      for (int step = 16; step >= 1; step /= 2) {
        const long long probe = __shfl_sync(0xffffffffu, through, at + step - 1);
        if (probe <= atom)
          at += step;
      }
      const long long tile_before = __shfl_sync(0xffffffffu, before, at);
      const long long tile_begin = __shfl_sync(0xffffffffu, begin, at);
      if (atom < stop)
        fn(Index(t0 + at), tile_begin + (atom - tile_before));
    }
    k = stop;
  }
}

} // namespace lb
} // namespace tessera

#endif
