/**
 * @file tessera/lb/unit.cuh
 * @brief Cooperative units of threads (a sub-warp tile, a warp, several
 *        warps, a block) and their collectives: barrier and a deterministic
 *        segmented scan.
 *
 * Units of up to 32 threads are cooperative-groups tiles; larger units that
 * are not the whole block synchronise on a named hardware barrier (one per
 * unit), which the sanitizer's race and sync checkers understand.
 */
#ifndef TESSERA_LB_UNIT_CUH
#define TESSERA_LB_UNIT_CUH

#include <cooperative_groups.h>

namespace tessera {
namespace lb {

/** Sum, the default per-tile reduction. Any associative operator works; the
 * layer fixes the order in which values are combined, so results repeat
 * bitwise from run to run. */
struct plus {
  /** a + b. */
  template <class T> __device__ T operator()(const T &a, const T &b) const { return a + b; }
};

/** Maximum, another associative per-tile reduction. */
struct maximum {
  /** b when a < b, otherwise a. */
  template <class T> __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};

/** Scratch for a unit's scan: one (flag, value) per warp of the unit. */
template <int Size, class T> struct scan_storage {
  T value[Size > 32 ? Size / 32 : 1];  /**< Each warp's running value. */
  int flag[Size > 32 ? Size / 32 : 1]; /**< Each warp's reset flag. */
};

/** Size threads (a power of two, 1 to 1024) inside a block of Block threads;
 * unit `index` holds threads index*Size .. index*Size + Size - 1. */
template <int Size, int Block> struct unit {
  static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0, "unit size: a power of two, 1 to 1024");
  static_assert(Block % Size == 0 && Block <= 1024, "the block holds whole units");
  static_assert(Size == Block || Size <= 32 || Block / Size <= 15, "one named barrier per multi-warp unit");
  static constexpr int size = Size;                        /**< Threads of the unit. */
  static constexpr int warp_width = Size < 32 ? Size : 32; /**< Lanes of one warp-level step. */
  int rank;                                                /**< This thread's rank in the unit, 0 .. Size - 1. */
  int index;                                               /**< The unit within the block. */

  /** The calling thread's unit and rank. */
  __device__ unit() : rank(int(threadIdx.x) % Size), index(int(threadIdx.x) / Size) {}

  /** Barrier over the unit's threads. */
  __device__ void sync() const {
    if constexpr (Size == Block) {
      __syncthreads();
    } else if constexpr (Size == 1) {
      /* one thread: nothing to wait for */
    } else if constexpr (Size <= 32) {
      cooperative_groups::tiled_partition<Size>(cooperative_groups::this_thread_block()).sync();
    } else {
      /* Barrier 0 is __syncthreads(); units take 1 .. Block / Size. */
      asm volatile("bar.sync %0, %1;" ::"r"(index + 1), "r"(Size) : "memory");
    }
  }
};

/** Result of a segmented scan for one thread. */
template <class T> struct segmented_scan_result {
  T exclusive; /**< The running value entering this thread. */
  T carry_out; /**< The running value leaving the unit (same in every thread). */
};

/**
 * Deterministic segmented scan over the unit's threads in rank order. Thread
 * i brings (reset_i, value_i); the running value is
 *   C_i = reset_i ? value_i : op(C_{i-1}, value_i),  C_{-1} = carry_in.
 * Returns C_{i-1} and C_{Size-1}. Every thread of the unit must call it.
 * The combination tree depends only on Size, so results repeat bitwise.
 */
template <int Size, int Block, class T, class Op>
__device__ segmented_scan_result<T> segmented_scan(const unit<Size, Block> &u, scan_storage<Size, T> &scratch,
                                                   bool reset, T value, T carry_in, Op op) {
  constexpr int W = unit<Size, Block>::warp_width;
  if constexpr (W == 1) {
    /* A unit of one thread. */
    (void)u;
    (void)scratch;
    T inclusive = reset ? value : op(carry_in, value);
    return segmented_scan_result<T>{carry_in, inclusive};
  } else {
    namespace cg = cooperative_groups;
    auto lanes = cg::tiled_partition<W>(cg::this_thread_block());
    int lane = int(lanes.thread_rank());
    /* Warp-level inclusive scan of (flag, value) pairs: Hillis and Steele. */
    int flag = reset ? 1 : 0;
    T v = value;
#pragma unroll
    for (int d = 1; d < W; d *= 2) {
      T other = lanes.shfl_up(v, d);
      int other_flag = lanes.shfl_up(flag, d);
      if (lane >= d) {
        if (!flag)
          v = op(other, v);
        flag |= other_flag;
      }
    }
    T before = carry_in; /* running value entering this thread's warp */
    T total = carry_in;
    if constexpr (Size > 32) {
      int warp = u.rank / 32;
      if (lane == 31) {
        scratch.flag[warp] = flag;
        scratch.value[warp] = v;
      }
      u.sync();
      for (int w = 0; w < Size / 32; w++) {
        T wv = scratch.value[w];
        T next = scratch.flag[w] ? wv : op(total, wv);
        if (w < warp)
          before = next;
        total = next;
      }
      u.sync(); /* the scratch may be written again at the next call */
    } else {
      (void)scratch;
    }
    T inclusive = flag ? v : op(before, v);
    T exclusive = lanes.shfl_up(inclusive, 1);
    if (lane == 0)
      exclusive = before;
    if constexpr (Size <= 32)
      total = lanes.shfl(inclusive, W - 1);
    return segmented_scan_result<T>{exclusive, total};
  }
}

/** Combination of the unit's values in rank order (a scan without resets);
 * every thread gets the result. */
template <int Size, int Block, class T, class Op>
__device__ T reduce(const unit<Size, Block> &u, scan_storage<Size, T> &scratch, T value, T identity, Op op) {
  return segmented_scan(u, scratch, false, value, identity, op).carry_out;
}

} // namespace lb
} // namespace tessera

#endif
