/* Vector threads: `lanes` consecutive threads of a block (a power of two, 1
 * to 32) that visit the same tiles and atoms and split a vector-valued
 * result between them, each lane owning a slice (SpMM: an atom is a nonzero
 * a_ik, its value the row k of B scaled by a_ik, and the lanes split the
 * columns). A mapped schedule applied to vector threads maps tiles onto them
 * as it maps tiles onto threads: thread_mapped gives a tile one vector thread,
 * warp_mapped the vector threads of a warp, block_mapped those of a block,
 * group_mapped<G> a group of G threads. The vector threads of one tile take
 * its atoms in turn and their sums are joined by group_sum() in a fixed tree,
 * so results repeat bitwise. */
#ifndef TESSERA_LB_LANES_CUH
#define TESSERA_LB_LANES_CUH

#include "schedule.cuh"

#include <type_traits>

namespace tessera {
namespace lb {

/* Threads that one tile gets from mapped schedule S (thread_mapped,
 * warp_mapped, block_mapped or group_mapped<G>) in blocks of `block` threads
 * when a vector thread has `lanes` lanes: lanes, 32, block, or G (at least
 * lanes, at most block). */
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

/* Where this thread sits: its lane in its vector thread, its vector thread in
 * its group of `group` threads (group a power of two, lanes <= group <= the
 * block), and its group in the grid. */
struct lane_position {
  int lane;         /* 0 .. lanes - 1 */
  int rank;         /* vector thread in the group: 0 .. group / lanes - 1 */
  long long group;  /* group in the grid */
  long long groups; /* groups in the grid */
};

__device__ inline lane_position position_of(int lanes, int group) {
  const int t = int(threadIdx.x);
  const int per_block = int(blockDim.x) / group;
  lane_position p;
  p.lane = t & (lanes - 1);
  p.rank = (t & (group - 1)) / lanes;
  p.group = (long long)blockIdx.x * per_block + t / group;
  p.groups = (long long)gridDim.x * per_block;
  return p;
}

/* Shuffle mask of this thread's group of `group` <= 32 threads. */
__device__ inline unsigned group_mask(int group) {
  if (group >= 32)
    return 0xffffffffu;
  const unsigned base = unsigned(threadIdx.x & 31) & ~unsigned(group - 1);
  return ((1u << group) - 1u) << base;
}

/* Scratch of group_sum() for groups beyond a warp: one N-vector per lane of
 * every warp's first vector thread. */
template <int Block, class T, int N> struct group_sum_storage { T value[Block / 32][32][N]; };

/*
 * acc (N values per lane) summed over the vector threads of each group of
 * `group` threads, in a fixed tree that depends only on group and lanes:
 * halves added pairwise within a warp, then (group == Block only) the warps'
 * sums in warp order. The sum lands in the lanes of vector thread 0 (rank 0);
 * others hold partial sums. Every thread of the group calls it; for group ==
 * Block every thread of the block (it synchronises the block twice), with
 * `scratch` in shared memory (it may be NULL for groups of a warp or less).
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
