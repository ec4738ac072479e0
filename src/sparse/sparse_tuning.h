/* SpMV's tuning constants in one place: the AUTO rule's thresholds, the
 * split-rows schedule's sizes and the kernels' launch policy. Every value
 * was set on compute capability 9.0 (the only architecture measured so
 * far); the results file that justified it is named beside it. Values the
 * host and the kernel must agree on (block sizes, piece lengths) are the
 * same for every architecture; values only the compiled kernel sees sit in
 * tsi_spmv_policy, keyed by the architecture compiled for, after CUB's
 * per-architecture policies. */
#ifndef TESSERA_SPARSE_TUNING_H
#define TESSERA_SPARSE_TUNING_H

/* ---- AUTO (spmv_auto.c), after Osama, Porumbescu and Owens (PPoPP 2023,
 * section 6.2), who run merge-path except on small matrices ---- */

/* Below this many nonzeros a call costs the launch floor whatever the
 * schedule; the paper's 10^4 was too low (spmv-schedules-tiny-h200.csv). */
#define TSI_AUTO_TINY_NNZ 50000
/* Small matrices with rows longer than a warp but none past
 * TSI_AUTO_LONG_ROW: warp-mapped (one wave of warps) was fastest up to this
 * many nonzeros and rows, slower with more rows
 * (spmv-schedules-fp32-corpus-tiny-h200.md). */
#define TSI_AUTO_SMALL_NNZ 1000000
#define TSI_AUTO_SMALL_ROWS 32768
/* Row lengths with a coefficient of variation above this, and a row past
 * TSI_SPLIT_SHORT, are skewed: split-rows was the fastest schedule, or
 * close, on every skewed generated matrix
 * (spmv-schedules-fp32-skewed-split-h200.csv). */
#define TSI_AUTO_SKEW_CV 1.0
/* The schedule for skewed rows and for a row too long for one warp. */
#define TSI_AUTO_SKEWED TS_SCHEDULE_SPLIT_ROWS
/* A row longer than this is too long for one warp while the rest of the GPU
 * idles (Ginkgo switches at 1024 on NVIDIA); not measured. */
#define TSI_AUTO_LONG_ROW 4096
/* Regular rows at least this long on average go one warp a row: at a mean
 * of 33 one thread a row was still faster, its consecutive loads staying in
 * its L1 lines (banded_1M_w32 in model-validate-h200.md); 33 to 64 not
 * measured. */
#define TSI_AUTO_WARP_MEAN 64.0
/* Regular rows at least this long on average, and at least this many of
 * them, keep one block a row busy; not measured. */
#define TSI_AUTO_BLOCK_MEAN 1024.0
#define TSI_AUTO_BLOCK_MIN_ROWS 1024
/* Short regular rows with many nonzeros (stencils): thread-mapped was the
 * fastest schedule on every matrix of the regular set
 * (spmv-schedules-regular-h200.csv). */
#define TSI_AUTO_SHORT_ROWS TS_SCHEDULE_THREAD_MAPPED
/* Group-mapped's group when nobody chose one: a warp, doubled up to this
 * limit until it covers the mean row; not measured. */
#define TSI_AUTO_GROUP_SIZE 32
#define TSI_AUTO_MAX_GROUP_SIZE 1024
/* Split-rows' threads a short row when nobody chose: one was fastest, or
 * close, on 8 of the 10 skewed matrices
 * (spmv-schedules-fp32-split-lanes-h200.csv). */
#define TSI_AUTO_SPLIT_LANES 1

/* ---- split-rows (spmv_cuda_split.cu, spmv_split_tables.c) ---- */

/* Rows of at most this many entries are short (1 to TSI_SPLIT_MAX_LANES
 * threads each); longer rows are cut into pieces of TSI_SPLIT_PIECE
 * entries, one warp each (spmv-schedules-fp32-skewed-split-h200.csv). */
#define TSI_SPLIT_SHORT 32
#define TSI_SPLIT_PIECE 1024
/* Threads of a split-rows block: 8 warps, the load-balancing layer's block. */
#define TSI_SPLIT_BLOCK_THREADS 256

/* ---- CPU backend (spmv_cpu_impl.h) ---- */

/* Rows an OpenMP thread takes at a time: a dynamic schedule balances skewed
 * rows; not measured. */
#define TSI_SPMV_CPU_ROWS_PER_CHUNK 1024
/* Fewer nonzeros than this run on the calling thread: a product of this size
 * takes tens of microseconds on one core, while waking a team can cost a
 * scheduler slice (milliseconds) when the other cores are busy
 * (bench/notes/python.md). */
#define TSI_SPMV_CPU_PARALLEL_MIN_NNZ 200000

#ifdef __CUDACC__
#include "core/cuda_arch_limits.cuh"

/* What only the compiled kernels see, by architecture (TSI_CUDA_ARCH); an
 * architecture measured to want other values gets a specialization. */
template <int Arch> struct tsi_spmv_policy {
  /* Resident blocks of 256 threads an SM is asked to hold (the register cap
   * of __launch_bounds__, through tsi_min_blocks_per_sm): 8 keeps every
   * schedule but group-mapped within 32 registers without spilling, faster
   * than a free register count (plain-8 against plain-1 in
   * spmv-thread-ab-h200.txt). */
  static constexpr int min_blocks = 8;
  /* Group-mapped keeps its per-group scan in registers: capped at 32 it spills. */
  static constexpr int group_min_blocks = 1;
  /* Split-rows' kernel: as min_blocks. */
  static constexpr int split_min_blocks = 8;
  /* Entries of a short split-rows row one thread loads at once, then adds
   * in order: 8 floats, 7 doubles (8 spill at 32 registers)
   * (spmv-schedules-fp32-skewed-batched-h200.csv). */
  static constexpr int split_batch_f32 = 8;
  static constexpr int split_batch_f64 = 7;
};

/* The policy of the architecture being compiled. */
typedef tsi_spmv_policy<TSI_CUDA_ARCH> tsi_spmv_arch_policy;
#endif

#endif
