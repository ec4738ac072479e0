/**
 * @file tessera/lb/grid_barrier.cuh
 * @brief A grid-wide barrier for persistent kernels (the infinite_range's loops of
 * PPoPP 2023, section 5.1, with a step per level of a traversal): every
 * block of the grid waits until all have arrived, and the writes made before
 * the barrier by any thread are visible after it to every thread. The blocks
 * must all be resident at once: launch with cudaLaunchCooperativeKernel (or
 * one block). The state is two zeroed words in device memory; it is left as
 * it started, so a later launch reuses it without a reset.
 *
 * One thread per block arrives with a fetch-add on a counter; the last to
 * arrive resets the counter and bumps a generation word that the others
 * watch (sense reversal by generation). This is the shape of cooperative
 * groups' grid sync, kept here so that the layer's kernels need no
 * cooperative-groups grid handle and the cost is one atomic per block. */
#ifndef TESSERA_LB_GRID_BARRIER_CUH
#define TESSERA_LB_GRID_BARRIER_CUH

#include <cuda/atomic>

namespace tessera {
namespace lb {

/** @brief The barrier's state: zero-initialised device memory, shared by all blocks of a launch. */
struct grid_barrier_state {
  unsigned arrived;    /**< Blocks arrived at the current barrier. */
  unsigned generation; /**< Barriers completed (wraps). */
};

/**
 * @brief Wait until every block of the grid has arrived; earlier writes are then visible to all.
 *
 * Every thread of every block of the grid calls it the same number of times.
 * @param state the barrier's state in device memory.
 */
__device__ inline void grid_barrier(grid_barrier_state *state) {
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> arrived(state->arrived);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> generation(state->generation);
    /* Read before arriving: the generation cannot move until this block has arrived. */
    const unsigned seen = generation.load(cuda::std::memory_order_relaxed);
    __threadfence(); /* the block's writes, ordered before by __syncthreads, leave first */
    if (arrived.fetch_add(1u, cuda::std::memory_order_acq_rel) == gridDim.x - 1) {
      arrived.store(0u, cuda::std::memory_order_relaxed);
      generation.store(seen + 1u, cuda::std::memory_order_release);
    } else {
      while (generation.load(cuda::std::memory_order_acquire) == seen) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

} // namespace lb
} // namespace tessera

#endif
