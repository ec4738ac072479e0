/**
 * @file
 * @brief Stride ranges for range-based for loops inside kernels.
 *
 * After Osama, Porumbescu and Owens, "A Programming Model for GPU Load
 * Balancing" (PPoPP 2023), section 5.1: a step range, grid-, block- and
 * warp-stride ranges, and an infinite range for persistent kernels.
 */
#ifndef TESSERA_LB_RANGE_CUH
#define TESSERA_LB_RANGE_CUH

namespace tessera {
namespace lb {

/**
 * @brief The values first, first + step, ... while below last (step > 0).
 * @tparam Index an integer type.
 */
template <class Index> struct step_range {
  /** @brief Position in a step_range. */
  struct iterator {
    Index value; /**< The current value. */
    Index step;  /**< Added by each increment. */
    /** @brief The current value. */
    __host__ __device__ Index operator*() const { return value; }
    /** @brief Advance by one step. */
    __host__ __device__ iterator &operator++() {
      value += step;
      return *this;
    }
    /**
     * @brief "Not yet past the end": a stride may jump over last.
     * @param end the range's end.
     */
    __host__ __device__ bool operator!=(const iterator &end) const { return value < end.value; }
  };
  Index first; /**< The first value. */
  Index last;  /**< One past the values visited (the loop stops at or past it). */
  Index step;  /**< The stride, > 0. */
  /** @brief Iterator at first. */
  __host__ __device__ iterator begin() const { return iterator{first, step}; }
  /** @brief Iterator at last. */
  __host__ __device__ iterator end() const { return iterator{last, step}; }
};

/**
 * @brief first, first + step, ... while below last.
 * @tparam Index an integer type.
 * @param first the first value.
 * @param last the bound: values at or past it are not visited.
 * @param step the stride, > 0.
 */
template <class Index>
__host__ __device__ inline step_range<Index> make_step_range(Index first, Index last, Index step) {
  return step_range<Index>{first, last, step};
}

/**
 * @brief Grid-stride loop: each thread of the grid visits first + its global
 * index, then strides by the number of threads in the grid.
 * @tparam Index an integer type wide enough for last plus the grid's threads.
 * @param first the first value of the whole range.
 * @param last the bound of the range.
 */
template <class Index> __device__ inline step_range<Index> grid_stride_range(Index first, Index last) {
  Index start = first + Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x);
  return step_range<Index>{start, last, Index(gridDim.x) * Index(blockDim.x)};
}

/**
 * @brief Block-stride loop: each thread of the block visits first +
 * threadIdx.x, then strides by the block size.
 * @tparam Index an integer type.
 * @param first the first value of the block's range.
 * @param last the bound of the range.
 */
template <class Index> __device__ inline step_range<Index> block_stride_range(Index first, Index last) {
  return step_range<Index>{first + Index(threadIdx.x), last, Index(blockDim.x)};
}

/**
 * @brief Warp-stride loop: each lane visits first + its lane index, then
 * strides by 32.
 * @tparam Index an integer type.
 * @param first the first value of the warp's range.
 * @param last the bound of the range.
 */
template <class Index> __device__ inline step_range<Index> warp_stride_range(Index first, Index last) {
  return step_range<Index>{first + Index(threadIdx.x % 32), last, Index(32)};
}

/**
 * @brief first, first + step, ... without end: a persistent kernel leaves
 * the loop with break when its work runs out.
 * @tparam Index an integer type.
 */
template <class Index> struct infinite_range {
  /** @brief The end that is never reached. */
  struct sentinel {};
  /** @brief Position in an infinite_range. */
  struct iterator {
    Index value; /**< The current value. */
    Index step;  /**< Added by each increment. */
    /** @brief The current value. */
    __host__ __device__ Index operator*() const { return value; }
    /** @brief Advance by one step. */
    __host__ __device__ iterator &operator++() {
      value += step;
      return *this;
    }
    /** @brief Always true: the range has no end. */
    __host__ __device__ bool operator!=(const sentinel &) const { return true; }
  };
  Index first; /**< The first value. */
  Index step;  /**< The stride. */
  /** @brief Iterator at first. */
  __host__ __device__ iterator begin() const { return iterator{first, step}; }
  /** @brief The sentinel no iterator reaches. */
  __host__ __device__ sentinel end() const { return sentinel{}; }
};

/**
 * @brief first, first + step, ... without end.
 * @tparam Index an integer type.
 * @param first the first value.
 * @param step the stride (1 by default).
 */
template <class Index>
__host__ __device__ inline infinite_range<Index> make_infinite_range(Index first, Index step = 1) {
  return infinite_range<Index>{first, step};
}

} // namespace lb
} // namespace tessera

#endif
