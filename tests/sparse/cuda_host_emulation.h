/* Runs CUDA kernels written in headers on the host, for tests on machines
 * without a GPU: one host thread per GPU thread, one block at a time,
 * __syncthreads() and __syncwarp() as barriers, warp shuffles and ballots
 * through a per-warp exchange, atomics as host atomics. The model is CUDA's
 * independent thread scheduling: lanes run in any interleaving between
 * barriers, so a kernel that leans on implicit lockstep fails here.
 * Limits: full-warp masks only (every live lane of the warp takes part), a
 * lane that returns leaves the barriers (as on the GPU), __shared__ becomes
 * static storage (one block runs at a time), no dynamic shared memory.
 * C++20 (std::barrier). Include before any kernel header. */
#ifndef TESSERA_TEST_CUDA_HOST_EMULATION_H
#define TESSERA_TEST_CUDA_HOST_EMULATION_H

#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __restrict__ __restrict
#define TSI_HOST_EMULATION 1

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

namespace emu {
struct warp_state {
  std::unique_ptr<std::barrier<>> barrier;
  uint64_t slot[32];
};
inline thread_local dim3 thread_index, block_index;
inline dim3 block_size, grid_size;
inline thread_local int lane;
inline thread_local warp_state *warp;
inline thread_local std::barrier<> *block_barrier;

/* Every live lane publishes `bits`, then reads lane `from`'s. */
inline uint64_t exchange(uint64_t bits, int from) {
  warp->slot[lane] = bits;
  warp->barrier->arrive_and_wait();
  const uint64_t got = warp->slot[from & 31];
  warp->barrier->arrive_and_wait();
  return got;
}
template <class T> uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8, "at most 8 bytes a shuffle");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T> T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

/* kernel(args...) on grid x block threads, block after block. */
template <class Kernel, class... Args> void launch(unsigned grid, unsigned block, Kernel kernel, Args... args) {
  grid_size.x = grid;
  block_size.x = block;
  for (unsigned b = 0; b < grid; b++) {
    std::barrier<> whole((std::ptrdiff_t)block);
    const unsigned warps = (block + 31) / 32;
    std::vector<warp_state> ws(warps);
    for (unsigned w = 0; w < warps; w++) {
      const unsigned lanes = std::min(32u, block - 32 * w);
      ws[w].barrier = std::make_unique<std::barrier<>>((std::ptrdiff_t)lanes);
    }
    std::vector<std::thread> threads;
    threads.reserve(block);
    for (unsigned t = 0; t < block; t++) {
      threads.emplace_back([&, t] {
        thread_index.x = t;
        block_index.x = b;
        lane = (int)(t % 32);
        warp = &ws[t / 32];
        block_barrier = &whole;
        kernel(args...);
        warp->barrier->arrive_and_drop();
        block_barrier->arrive_and_drop();
      });
    }
    for (std::thread &t : threads)
      t.join();
  }
}
} // namespace emu

#define threadIdx emu::thread_index
#define blockIdx emu::block_index
#define blockDim emu::block_size
#define gridDim emu::grid_size

inline void __syncthreads() { emu::block_barrier->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu::warp->barrier->arrive_and_wait(); }

template <class T> T __shfl_sync(unsigned, T v, int src, int width = 32) {
  const int base = emu::lane & ~(width - 1);
  return emu::from_bits<T>(emu::exchange(emu::to_bits(v), base + (src & (width - 1))));
}
template <class T> T __shfl_xor_sync(unsigned, T v, int m, int width = 32) {
  const int other = emu::lane ^ m;
  const bool same = (other & ~(width - 1)) == (emu::lane & ~(width - 1));
  return emu::from_bits<T>(emu::exchange(emu::to_bits(v), same ? other : emu::lane));
}
template <class T> T __shfl_up_sync(unsigned, T v, unsigned d, int width = 32) {
  const int in = emu::lane & (width - 1);
  return emu::from_bits<T>(emu::exchange(emu::to_bits(v), in >= (int)d ? emu::lane - (int)d : emu::lane));
}
template <class T> T __shfl_down_sync(unsigned, T v, unsigned d, int width = 32) {
  const int in = emu::lane & (width - 1);
  return emu::from_bits<T>(emu::exchange(emu::to_bits(v), in + (int)d < width ? emu::lane + (int)d : emu::lane));
}
inline unsigned __ballot_sync(unsigned, int pred) {
  emu::warp->slot[emu::lane] = pred ? 1 : 0;
  emu::warp->barrier->arrive_and_wait();
  unsigned bits = 0;
  for (int l = 0; l < 32; l++)
    bits |= (emu::warp->slot[l] == 1 ? 1u : 0u) << l;
  emu::warp->barrier->arrive_and_wait();
  return bits;
}
inline unsigned __match_any_sync(unsigned, unsigned v) {
  emu::warp->slot[emu::lane] = v;
  emu::warp->barrier->arrive_and_wait();
  unsigned same = 0;
  for (int l = 0; l < 32; l++)
    same |= (emu::warp->slot[l] == v ? 1u : 0u) << l;
  emu::warp->barrier->arrive_and_wait();
  return same;
}
inline int __any_sync(unsigned m, int pred) { return __ballot_sync(m, pred) != 0; }
inline int __all_sync(unsigned m, int pred) {
  /* Lanes that left are counted as agreeing. */
  emu::warp->slot[emu::lane] = pred ? 1 : 2;
  emu::warp->barrier->arrive_and_wait();
  bool all = true;
  for (int l = 0; l < 32; l++)
    all = all && emu::warp->slot[l] != 2;
  emu::warp->barrier->arrive_and_wait();
  (void)m;
  return all;
}

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
template <class T> T __ldg(const T *p) { return *p; }
template <class T> T __ldcg(const T *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

template <class T> T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicCAS(T *p, T expected, T desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
template <class T> T atomicMin(T *p, T v) {
  T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (v < old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
template <class T> T atomicMax(T *p, T v) {
  T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (v > old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}

using std::max;
using std::min;

#endif
