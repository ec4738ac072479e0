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
 * watch (sense reversal by generation); a block that joined at the start
 * (grid_barrier_join) knows the generation to wait for without reading it. This is the shape of cooperative
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
 * @brief A block's place in a barrier's sequence: the state and, in thread 0,
 * the generation the block waits to see pass. Joining once at the start of a
 * kernel saves each barrier the read of the generation (one round trip to
 * L2): every block reads it before arriving at the first barrier, so all see
 * the same value, and each barrier passed adds one.
 */
struct grid_barrier_view {
  grid_barrier_state *state; /**< The barrier's state in device memory. */
  unsigned generation;       /**< Thread 0: the generation of the next barrier (other threads: unused). */
};

namespace detail {
/* Thread 0's part of a barrier: arrive, wait for generation `seen` to pass. */
__device__ inline void grid_barrier_arrive_and_wait(grid_barrier_state *state, unsigned seen) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> arrived(state->arrived);
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> generation(state->generation);
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
} // namespace detail

/**
 * @brief Join the barrier at the start of a kernel, before any block can have passed it.
 *
 * Every thread of every block calls it once, before its first grid_barrier(view).
 * @param state the barrier's state in device memory.
 * @return the block's view, passed to grid_barrier().
 */
__device__ inline grid_barrier_view grid_barrier_join(grid_barrier_state *state) {
  grid_barrier_view view{state, 0u};
  if (threadIdx.x == 0)
    view.generation =
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(state->generation).load(cuda::std::memory_order_relaxed);
  return view;
}

/**
 * @brief Wait until every block of the grid has arrived; earlier writes are then visible to all.
 *
 * Every thread of every block of the grid calls it the same number of times.
 * @param view the block's view, from grid_barrier_join() at the kernel's start.
 */
__device__ inline void grid_barrier(grid_barrier_view &view) {
  __syncthreads();
  if (threadIdx.x == 0) {
    detail::grid_barrier_arrive_and_wait(view.state, view.generation);
    view.generation++;
  }
  __syncthreads();
}

/**
 * @brief Wait until every block of the grid has arrived; earlier writes are then visible to all.
 *
 * The same barrier without a view: it reads the generation each time (one
 * more round trip). Every thread of every block of the grid calls it the
 * same number of times.
 * @param state the barrier's state in device memory.
 */
__device__ inline void grid_barrier(grid_barrier_state *state) {
  __syncthreads();
  if (threadIdx.x == 0) {
    /* Read before arriving: the generation cannot move until this block has arrived. */
    const unsigned seen =
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(state->generation).load(cuda::std::memory_order_relaxed);
    detail::grid_barrier_arrive_and_wait(state, seen);
  }
  __syncthreads();
}

} // namespace lb
} // namespace tessera

#endif
