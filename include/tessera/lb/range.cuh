/**
 * @file tessera/lb/range.cuh
 * @brief Stride ranges for range-based for loops inside kernels (PPoPP 2023
 *        load balancing, section 5.1): a step range, grid-, block- and
 *        warp-stride ranges, and an infinite range for persistent kernels.
 */
#ifndef TESSERA_LB_RANGE_CUH
#define TESSERA_LB_RANGE_CUH

namespace tessera {
namespace lb {

/** first, first + step, ... while below last (step > 0). */
template <class Index> struct step_range {
  /** Position in the range. */
  struct iterator {
    /** The current index and the distance to the next one. */
    /**@{*/
    Index value, step;
    /**@}*/
    /** The current index. */
    __host__ __device__ Index operator*() const { return value; }
    /** Advances by step. */
    __host__ __device__ iterator &operator++() {
      value += step;
      return *this;
    }
    /** "Not yet past the end": a stride may jump over last. */
    __host__ __device__ bool operator!=(const iterator &end) const { return value < end.value; }
  };
  /** The first index, the bound (indices visited stay below it) and the distance between consecutive indices. */
  /**@{*/
  Index first, last, step;
  /**@}*/
  /** Iterator at first. */
  __host__ __device__ iterator begin() const { return iterator{first, step}; }
  /** Iterator at last. */
  __host__ __device__ iterator end() const { return iterator{last, step}; }
};

/** The range first, first + step, ... below last (step > 0). */
template <class Index>
__host__ __device__ inline step_range<Index> make_step_range(Index first, Index last, Index step) {
  return step_range<Index>{first, last, step};
}

/** Each thread of the grid visits first + its global index, then strides by
 * the number of threads in the grid. */
template <class Index> __device__ inline step_range<Index> grid_stride_range(Index first, Index last) {
  Index start = first + Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x);
  return step_range<Index>{start, last, Index(gridDim.x) * Index(blockDim.x)};
}

/** Each thread of the block visits first + threadIdx.x, then strides by the block size. */
template <class Index> __device__ inline step_range<Index> block_stride_range(Index first, Index last) {
  return step_range<Index>{first + Index(threadIdx.x), last, Index(blockDim.x)};
}

/** Each lane visits first + its lane index, then strides by 32. */
template <class Index> __device__ inline step_range<Index> warp_stride_range(Index first, Index last) {
  return step_range<Index>{first + Index(threadIdx.x % 32), last, Index(32)};
}

/** first, first + step, ... without end: a persistent kernel leaves it with
 * break when its work runs out. */
template <class Index> struct infinite_range {
  /** The end that is never reached. */
  struct sentinel {};
  /** Position in the range. */
  struct iterator {
    /** The current index and the distance to the next one. */
    /**@{*/
    Index value, step;
    /**@}*/
    /** The current index. */
    __host__ __device__ Index operator*() const { return value; }
    /** Advances by step. */
    __host__ __device__ iterator &operator++() {
      value += step;
      return *this;
    }
    /** Always true: the range has no end. */
    __host__ __device__ bool operator!=(const sentinel &) const { return true; }
  };
  /** The first index and the distance between consecutive indices. */
  /**@{*/
  Index first, step;
  /**@}*/
  /** Iterator at first. */
  __host__ __device__ iterator begin() const { return iterator{first, step}; }
  /** The sentinel. */
  __host__ __device__ sentinel end() const { return sentinel{}; }
};

/** The range first, first + step, ... without end. */
template <class Index>
__host__ __device__ inline infinite_range<Index> make_infinite_range(Index first, Index step = 1) {
  return infinite_range<Index>{first, step};
}

} // namespace lb
} // namespace tessera

#endif
