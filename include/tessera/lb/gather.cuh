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
 * long tiles; each block scans the tile sizes itself, so keep the list short). */
#ifndef TESSERA_LB_GATHER_CUH
#define TESSERA_LB_GATHER_CUH

#include "schedule.cuh"
#include "unit.cuh"

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

template <class S, int Block> struct gather_storage_for {
  struct type {
    int unused;
  };
};
template <int Block> struct gather_storage_for<grid_mapped, Block> { using type = grid_batch<Block>; };

template <class Index, class Ranges, class Fn>
__device__ void gather_lanes_per_tile(int lanes, Index tiles, const Ranges &ranges, const Fn &fn) {
  const long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long groups = (long long)gridDim.x * blockDim.x / lanes;
  const int lane = int(threadIdx.x) % lanes;
  for (long long t = thread / lanes; t < (long long)tiles; t += groups) {
    const atom_range r = ranges(Index(t));
    for (long long a = r.begin + lane; a < r.end; a += lanes)
      fn(Index(t), a);
  }
}

template <int G, class Index, class Ranges, class Fn>
__device__ void gather_group(Index tiles, const Ranges &ranges, const Fn &fn) {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "gathered group-mapped: groups of 1 to 32 threads");
  namespace cg = cooperative_groups;
  auto group = cg::tiled_partition<G>(cg::this_thread_block());
  const int rank = int(group.thread_rank());
  const long long groups = (long long)gridDim.x * blockDim.x / G;
  /* The loop bounds are the same for the whole group: all its threads reach the shuffles. */
  for (long long set = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G; set * G < (long long)tiles;
       set += groups) {
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
__device__ void gather_block(Index tiles, const Ranges &ranges, const Fn &fn) {
  (void)sizeof(S);
  for (long long t = blockIdx.x; t < (long long)tiles; t += gridDim.x) {
    const atom_range r = ranges(Index(t));
    for (long long a = r.begin + threadIdx.x; a < r.end; a += Block)
      fn(Index(t), a);
  }
}

template <int Block, class Index, class Ranges, class Fn>
__device__ void gather_grid(Index tiles, const Ranges &ranges, grid_batch<Block> &s, const Fn &fn) {
  unit<Block, Block> u;
  const long long thread = (long long)blockIdx.x * Block + threadIdx.x;
  const long long threads = (long long)gridDim.x * Block;
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
  if constexpr (std::is_same<S, grid_mapped>::value) {
    detail::gather_grid<Block>(tiles, ranges, smem, fn);
  } else if constexpr (std::is_same<S, block_mapped>::value) {
    (void)smem;
    detail::gather_block<S, Block>(tiles, ranges, fn);
  } else if constexpr (detail::gather_lanes<S>::value > 0) {
    (void)smem;
    detail::gather_lanes_per_tile(detail::gather_lanes<S>::value, tiles, ranges, fn);
  } else {
    (void)smem;
    static_assert(S::size <= 32, "gathered group-mapped: groups of at most 32 threads");
    detail::gather_group<S::size>(tiles, ranges, fn);
  }
}

} // namespace lb
} // namespace tessera

#endif
