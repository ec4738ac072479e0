/**
 * @file
 * @brief Cooperative units of threads and their collectives.
 *
 * A unit is a sub-warp tile, a warp, several warps or a block; its
 * collectives are a barrier and a deterministic segmented scan. Units of up
 * to 32 threads are cooperative-groups tiles; larger units that are not the
 * whole block synchronise on a named hardware barrier (one per unit), which
 * the sanitizer's race and sync checkers understand.
 */
#ifndef TESSERA_LB_UNIT_CUH
#define TESSERA_LB_UNIT_CUH

#include <cooperative_groups.h>

namespace tessera {
namespace lb {

/**
 * @brief Sum, the default per-tile reduction.
 *
 * Any associative operator works; the layer fixes the order in which values
 * are combined, so results repeat bitwise from run to run.
 */
struct plus {
  /**
   * @brief a + b.
   * @tparam T the value type.
   * @param a left operand.
   * @param b right operand.
   */
  template <class T> __device__ T operator()(const T &a, const T &b) const { return a + b; }
};

/** @brief Maximum, a per-tile reduction (the first of equal values). */
struct maximum {
  /**
   * @brief The larger of a and b (a when neither is larger).
   * @tparam T the value type.
   * @param a left operand.
   * @param b right operand.
   */
  template <class T> __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};

/**
 * @brief Scratch for a unit's scan: one (flag, value) per warp of the unit.
 * @tparam Size threads of the unit.
 * @tparam T the value type.
 */
template <int Size, class T> struct scan_storage {
  T value[Size > 32 ? Size / 32 : 1];  /**< Each warp's running value. */
  int flag[Size > 32 ? Size / 32 : 1]; /**< Whether a segment starts in each warp. */
};

/**
 * @brief Size threads inside a block of Block threads; unit `index` holds
 * threads index*Size .. index*Size + Size - 1.
 * @tparam Size threads of the unit: a power of two, 1 to 1024.
 * @tparam Block threads of the block, a multiple of Size.
 */
template <int Size, int Block> struct unit {
  static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0, "unit size: a power of two, 1 to 1024");
  static_assert(Block % Size == 0 && Block <= 1024, "the block holds whole units");
  static_assert(Size == Block || Size <= 32 || Block / Size <= 15, "one named barrier per multi-warp unit");
  static constexpr int size = Size;                        /**< Threads of the unit. */
  static constexpr int warp_width = Size < 32 ? Size : 32; /**< Lanes of one warp-level step. */
  int rank;                                                /**< This thread's place in the unit, 0 .. Size - 1. */
  int index;                                               /**< The unit's place in the block. */

  /** @brief The calling thread's unit. */
  __device__ unit() : rank(int(threadIdx.x) % Size), index(int(threadIdx.x) / Size) {}

  /** @brief Barrier over the unit's threads (every one must call it). */
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

/**
 * @brief Result of a segmented scan for one thread.
 * @tparam T the value type.
 */
template <class T> struct segmented_scan_result {
  T exclusive; /**< The running value entering this thread. */
  T carry_out; /**< The running value leaving the unit (the same in every thread). */
};

/**
 * @brief Deterministic segmented scan over the unit's threads in rank order.
 *
 * Thread i brings (reset_i, value_i); the running value is
 * C_i = reset_i ? value_i : op(C_{i-1}, value_i), with C_{-1} = carry_in.
 * Returns C_{i-1} and C_{Size-1}. Every thread of the unit must call it.
 * The combination tree depends only on Size, so results repeat bitwise.
 * @tparam Size threads of the unit.
 * @tparam Block threads of the block.
 * @tparam T the value type.
 * @tparam Op an associative `T op(T, T)`.
 * @param u the calling thread's unit.
 * @param scratch the unit's scratch (shared memory, units of more than a warp).
 * @param reset whether a segment starts at this thread.
 * @param value this thread's value.
 * @param carry_in the running value entering the unit.
 * @param op the combining operator.
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

/**
 * @brief Combination of the unit's values in rank order (a scan without
 * resets); every thread gets the result.
 * @tparam Size threads of the unit.
 * @tparam Block threads of the block.
 * @tparam T the value type.
 * @tparam Op an associative `T op(T, T)`.
 * @param u the calling thread's unit.
 * @param scratch the unit's scratch (shared memory, units of more than a warp).
 * @param value this thread's value.
 * @param identity the operator's identity.
 * @param op the combining operator.
 */
template <int Size, int Block, class T, class Op>
__device__ T reduce(const unit<Size, Block> &u, scan_storage<Size, T> &scratch, T value, T identity, Op op) {
  return segmented_scan(u, scratch, false, value, identity, op).carry_out;
}

} // namespace lb
} // namespace tessera

#endif
