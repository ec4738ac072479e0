/* Device pieces shared by the BFS and SSSP persistent kernels: racy reads,
 * bitmaps, warp-aggregated queue appends, block-level sums of per-thread
 * counters (one atomic per block, not per thread), the rebuild of a
 * frontier queue from its bitmap, the schedules as types, and the launch of
 * a persistent grid. */
#ifndef TESSERA_GRAPH_CUDA_DEVICE_CUH
#define TESSERA_GRAPH_CUDA_DEVICE_CUH

#include "cuda_arch_limits.cuh"
#include "graph_cuda.h"
#include "graph_tuning.h"
#include "tessera/lb.cuh"

#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_runtime.h>

namespace lb = tessera::lb;
namespace cg = cooperative_groups;

#define TSI_GRAPH_WARPS (TSI_GRAPH_BLOCK / 32)
/* Blocks an SM must hold of every persistent kernel (the tuning asks for up
 * to this many): at most 64 registers a thread at 2,048 threads an SM. */
#define TSI_GRAPH_MIN_BLOCKS tsi_min_blocks_per_sm(TSI_GRAPH_BLOCK, 2)

/* A value other threads may be changing with atomics: read it once, from L2. */
template <class T> __device__ inline T tsi_relaxed_load(const T *p) {
  return cuda::atomic_ref<T, cuda::thread_scope_device>(*const_cast<T *>(p)).load(cuda::std::memory_order_relaxed);
}

__device__ inline bool tsi_bit(const uint32_t *bits, int32_t v) { return (bits[v >> 5] >> (v & 31)) & 1u; }

__device__ inline void tsi_set_bit(uint32_t *bits, int32_t v) { atomicOr(&bits[v >> 5], 1u << (v & 31)); }

/* Append v to a queue whose tail is *tail: the threads appending together
 * take one atomic between them (warp-aggregated). Returns v's place. */
__device__ inline unsigned tsi_append(int32_t *queue, unsigned *tail, int32_t v) {
  cg::coalesced_group group = cg::coalesced_threads();
  unsigned base = 0;
  if (group.thread_rank() == 0)
    base = atomicAdd(tail, group.size());
  base = group.shfl(base, 0);
  queue[base + group.thread_rank()] = v;
  return base + group.thread_rank();
}

/* Scratch of a block-wide combination of one 64-bit value per thread. */
struct tsi_block_scratch {
  unsigned long long warp[TSI_GRAPH_WARPS];
};

/* The block's combination of every thread's value with op (sum, min...),
 * valid in thread 0. Every thread of the block calls it. */
template <class Op>
__device__ unsigned long long tsi_block_combine(unsigned long long value, Op op, tsi_block_scratch &s) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int d = 16; d >= 1; d /= 2)
    value = op(value, __shfl_down_sync(0xffffffffu, value, d));
  if (lane == 0)
    s.warp[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < TSI_GRAPH_WARPS ? s.warp[lane] : Op::identity;
#pragma unroll
    for (int d = 16; d >= 1; d /= 2)
      value = op(value, __shfl_down_sync(0xffffffffu, value, d));
  }
  __syncthreads(); /* the scratch is reused by the next call */
  return value;
}

struct tsi_sum_op {
  static constexpr unsigned long long identity = 0;
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const { return a + b; }
};
struct tsi_min_op {
  static constexpr unsigned long long identity = ~0ull;
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const { return a < b ? a : b; }
};

/* Shared memory of the queue rebuild: the scan of each thread's word count
 * and the block's base in the queue. */
struct tsi_compact_scratch {
  lb::scan_storage<TSI_GRAPH_BLOCK, unsigned> scan;
  unsigned base;
};

/*
 * The vertices whose bits are set, appended to queue (or, for those with a
 * hub bit, to hub_queue; hub_bits NULL: none): blocks take TSI_GRAPH_BLOCK words at a time, scan
 * their counts, and reserve their place with one atomic. Every thread of the
 * grid calls it. The order of the queue follows the blocks' timing; nothing
 * that reads it depends on that order.
 */
__device__ inline void tsi_compact_bits(const uint32_t *bits, int64_t words, const uint32_t *hub_bits, int32_t *queue,
                                        unsigned *tail, int32_t *hub_queue, unsigned *hub_tail,
                                        tsi_compact_scratch &s) {
  lb::unit<TSI_GRAPH_BLOCK, TSI_GRAPH_BLOCK> u;
  for (int64_t first = (int64_t)blockIdx.x * TSI_GRAPH_BLOCK; first < words;
       first += (int64_t)gridDim.x * TSI_GRAPH_BLOCK) {
    const int64_t w = first + threadIdx.x;
    const uint32_t word = w < words ? bits[w] : 0u;
    const uint32_t hubs = hub_bits && w < words ? word & __ldg(hub_bits + w) : 0u;
    uint32_t normal = word & ~hubs;
    lb::segmented_scan_result<unsigned> at =
        lb::segmented_scan(u, s.scan, false, (unsigned)__popc(normal), 0u, lb::plus{});
    if (threadIdx.x == 0)
      s.base = at.carry_out > 0 ? atomicAdd(tail, at.carry_out) : 0u;
    __syncthreads();
    unsigned position = s.base + at.exclusive;
    while (normal) {
      const int bit = __ffs(normal) - 1;
      normal &= normal - 1;
      queue[position++] = (int32_t)(w * 32 + bit);
    }
    for (uint32_t h = hubs; h; h &= h - 1)
      hub_queue[atomicAdd(hub_tail, 1u)] = (int32_t)(w * 32 + __ffs(h) - 1);
    __syncthreads(); /* s.base is rewritten next */
  }
}

/* The schedule types behind ts_schedule and a group size. */
template <template <class> class Fn, class... Args>
auto tsi_graph_by_schedule(ts_schedule schedule, int group_size, Args... args) {
  switch (schedule) {
  case TS_SCHEDULE_THREAD_MAPPED:
    return Fn<lb::thread_mapped>::call(args...);
  case TS_SCHEDULE_WARP_MAPPED:
    if (group_size == 4)
      return Fn<lb::lane_mapped<4>>::call(args...);
    if (group_size == 8)
      return Fn<lb::lane_mapped<8>>::call(args...);
    return Fn<lb::warp_mapped>::call(args...);
  case TS_SCHEDULE_BLOCK_MAPPED:
    return Fn<lb::block_mapped>::call(args...);
  case TS_SCHEDULE_WORK_ORIENTED:
    return Fn<lb::work_oriented>::call(args...);
  default:
    return Fn<lb::group_mapped<32>>::call(args...);
  }
}

/* A persistent kernel's launch: all its blocks resident at once. */
typedef struct tsi_persistent_launch {
  const void *kernel;
  int grid;
  bool cooperative; /* the device launches cooperative grids; else one block */
} tsi_persistent_launch;

/* The grid of `kernel` (TSI_GRAPH_BLOCK threads): blocks_per_sm blocks on
 * every SM, fewer if the occupancy allows fewer; one block where the device
 * has no cooperative launch. */
cudaError_t tsi_persistent_launch_of(ts_context *ctx, const void *kernel, int blocks_per_sm,
                                     tsi_persistent_launch *launch);
/* Launch it on the context's stream with the kernel's arguments. */
cudaError_t tsi_persistent_start(ts_context *ctx, const tsi_persistent_launch *launch, void **args);

#endif
