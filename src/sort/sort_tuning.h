/* The sort's tuning constants in one place: tile shapes and merge ways of
 * the CUDA merge sort (sort_cuda.cu) and the cut-offs of the CPU one
 * (sort_cpu.c). The GPU values were set on compute capability 9.0 (the only
 * architecture measured so far); the results file that justified a value
 * is named beside it. Shapes the host and the kernels must agree on are the
 * same for every architecture; what only the compiled kernels see sits in
 * tsi_sort_policy, keyed by the architecture compiled for, after CUB's
 * per-architecture policies. */
#ifndef TESSERA_SORT_TUNING_H
#define TESSERA_SORT_TUNING_H

/* ---- CUDA merge sort ---- */

/* Runs merged per global pass by default (plan->merge_ways): 8-way passes
 * replace three pairwise ones (sort-merge-kway-h200.csv, sort-merge-h200.md). */
#define TSI_SORT_MERGE_WAYS 8
/* Threads of a merge pass's block; its output tile is that many times the
 * items per thread. */
#define TSI_SORT_MERGE_THREADS 256
/* Items per thread: odd, so that thread t's word t * items + j falls in a
 * distinct bank across a warp; the merge tile of 4-byte keys with 8-byte
 * values, and of 8-byte keys and values, stays under the 48 KiB a block
 * gets without opting in. */
#define TSI_SORT_ITEMS_KEY32 15
#define TSI_SORT_ITEMS_KEY64 9
/* Threads of the block sort, whose tile is 4 (keys) or 2 (pairs) merge
 * tiles: its merge levels in shared memory are cheaper than global passes
 * (sort-merge-bigtile-h200.csv). */
#define TSI_SORT_BLOCK_THREADS_KEYS 1024
#define TSI_SORT_BLOCK_THREADS_PAIRS 512
/* Threads of the partition kernels: one per tile boundary (pairwise), one
 * per run of a tile (K-way); not tuned. */
#define TSI_SORT_PARTITION_THREADS 256
#define TSI_SORT_KWAY_PARTITION_THREADS 128

/* ---- CPU merge sort ---- */

/* Keys per insertion-sorted run. */
#define TSI_SORT_CPU_RUN 32
/* Outputs per parallel task of a merge pass. */
#define TSI_SORT_CPU_CHUNK 16384
/* Below this many keys the OpenMP loops run on one thread: threads cost more
 * than they give (also the input generator's). */
#define TSI_SORT_CPU_PARALLEL_MIN 100000

#ifdef __CUDACC__
#include "core/cuda_arch_limits.cuh"

/* What only the compiled block-sort kernel sees, by architecture
 * (TSI_CUDA_ARCH); an architecture measured to want other values gets a
 * specialization. */
template <int Arch> struct tsi_sort_policy {
  /* Resident blocks an SM is asked to hold (the register cap of
   * __launch_bounds__): as many as fit without spilling more than a few
   * words (ptxas -v). Keys alone: 4-byte, 8-byte; pairs: a 4-byte key with a
   * 4-byte value, wider pairs. */
  static constexpr int keys32_min_blocks = 2;
  static constexpr int keys64_min_blocks = 1;
  static constexpr int pairs8_min_blocks = 3;
  static constexpr int pairs_min_blocks = 2;
  /* Keys of a thread whose global loads are in flight together while a tile
   * is loaded: as many as that register cap holds
   * (sort-merge-loads-20261203-h200.csv). */
  static constexpr int keys_load_chunk = 8;
  static constexpr int pairs_load_chunk = 5;
};

/* The policy of the architecture being compiled. */
typedef tsi_sort_policy<TSI_CUDA_ARCH> tsi_sort_arch_policy;
#endif

#endif
