/**
 * @file
 * @brief Vector threads: lanes that share every atom and split a vector result.
 *
 * A vector thread is `lanes` consecutive threads of a block (a power of two,
 * 1 to 32) that visit the same tiles and atoms and split a vector-valued
 * result between them, each lane owning a slice (SpMM: an atom is a nonzero
 * a_ik, its value the row k of B scaled by a_ik, and the lanes split the
 * columns). A mapped schedule applied to vector threads maps tiles onto them
 * as it maps tiles onto threads: thread_mapped gives a tile one vector thread,
 * warp_mapped the vector threads of a warp, block_mapped those of a block,
 * group_mapped<G> a group of G threads. The vector threads of one tile take
 * its atoms in turn, and group_sum() joins their sums in a fixed tree, so
 * results repeat bitwise.
 */
#ifndef TESSERA_LB_LANES_CUH
#define TESSERA_LB_LANES_CUH

#include "schedule.cuh"

#include <type_traits>

namespace tessera {
namespace lb {

/**
 * @brief Threads one tile gets from a mapped schedule when a vector thread
 *        has @p lanes lanes.
 * @tparam S thread_mapped (lanes), warp_mapped (32), block_mapped (the
 *         block) or group_mapped<G> (G, at least lanes, at most the block).
 * @param lanes lanes of a vector thread, a power of two from 1 to 32.
 * @param block threads of a block.
 */
template <class S> __host__ __device__ constexpr int tile_threads(int lanes, int block) {
  if constexpr (std::is_same<S, thread_mapped>::value) {
    (void)block;
    return lanes;
  } else if constexpr (std::is_same<S, warp_mapped>::value) {
    (void)block;
    return lanes > 32 ? lanes : 32;
  } else if constexpr (std::is_same<S, block_mapped>::value) {
    (void)lanes;
    return block;
  } else {
    return S::size < lanes ? lanes : S::size > block ? block : S::size;
  }
}

/** @brief Where a thread sits among vector threads and their groups. */
struct lane_position {
  int lane;         /**< Lane in its vector thread: 0 .. lanes - 1. */
  int rank;         /**< Vector thread in its group: 0 .. group / lanes - 1. */
  long long group;  /**< Group in the grid. */
  long long groups; /**< Groups in the grid. */
};

/**
 * @brief This thread's position for vector threads of @p lanes lanes in
 *        groups of @p group threads.
 * @param lanes lanes of a vector thread, a power of two from 1 to 32.
 * @param group threads of a group, a power of two, lanes <= group <= the
 *        block.
 * @param block this block's place among @p blocks blocks that share the
 *        work (a kernel that gives each of several works a range of its
 *        blocks passes the block's place in its range).
 * @param blocks blocks sharing the work.
 */
__device__ inline lane_position position_of(int lanes, int group, long long block, long long blocks) {
  const int t = int(threadIdx.x);
  const int per_block = int(blockDim.x) / group;
  lane_position p;
  p.lane = t & (lanes - 1);
  p.rank = (t & (group - 1)) / lanes;
  p.group = block * per_block + t / group;
  p.groups = blocks * per_block;
  return p;
}

/**
 * @brief This thread's position for vector threads of @p lanes lanes in
 *        groups of @p group threads, the whole grid sharing the work.
 */
__device__ inline lane_position position_of(int lanes, int group) {
  return position_of(lanes, group, (long long)blockIdx.x, (long long)gridDim.x);
}

/**
 * @brief Shuffle mask of this thread's group of @p group threads within its
 *        warp (the whole warp for 32 or more).
 * @param group threads of the group, a power of two.
 */
__device__ inline unsigned group_mask(int group) {
  if (group >= 32)
    return 0xffffffffu;
  const unsigned base = unsigned(threadIdx.x & 31) & ~unsigned(group - 1);
  return ((1u << group) - 1u) << base;
}

/**
 * @brief Shared scratch of group_sum() for groups of a whole block.
 * @tparam Block threads of the block.
 * @tparam T value type.
 * @tparam N values a lane holds.
 */
template <int Block, class T, int N> struct group_sum_storage {
  T value[Block / 32][32][N]; /**< One N-vector per lane of each warp's first vector thread. */
};

/**
 * @brief Sum of each lane's @p N values over the vector threads of its group,
 *        in a fixed tree.
 *
 * Halves are added pairwise within a warp, then (for a group of the whole
 * block) the warps' sums in warp order: the order depends only on @p group
 * and @p lanes. The sum lands in the lanes of vector thread 0 (rank 0);
 * the others hold partial sums. Every thread of the group calls it; for a
 * group of the whole block, every thread of the block (it synchronises the
 * block twice).
 * @tparam Block threads of the block.
 * @tparam T value type.
 * @tparam N values a lane holds.
 * @param acc the lane's values, replaced by the sums (rank 0).
 * @param group threads of the group: a power of two up to 32, or Block.
 * @param lanes lanes of a vector thread.
 * @param scratch shared scratch for group == Block (may be NULL otherwise).
 */
template <int Block, class T, int N>
__device__ void group_sum(T (&acc)[N], int group, int lanes, group_sum_storage<Block, T, N> *scratch) {
  const int width = group < 32 ? group : 32;
  const unsigned mask = group_mask(width);
  for (int offset = width / 2; offset >= lanes; offset /= 2) {
#pragma unroll
    for (int i = 0; i < N; i++)
      acc[i] += __shfl_down_sync(mask, acc[i], offset, width);
  }
  if (group <= 32)
    return;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) & 31;
  if (lane < lanes) {
#pragma unroll
    for (int i = 0; i < N; i++)
      scratch->value[warp][lane][i] = acc[i];
  }
  __syncthreads();
  if (warp == 0 && lane < lanes) {
#pragma unroll
    for (int i = 0; i < N; i++) {
      T sum = scratch->value[0][lane][i];
      for (int w = 1; w < Block / 32; w++)
        sum += scratch->value[w][lane][i];
      acc[i] = sum;
    }
  }
  __syncthreads(); /* the scratch is written again at the next call */
}

} // namespace lb
} // namespace tessera

#endif
