/* GEMM's tuning constants in one place: the GPU kernel's tile
 * configurations with their measured efficiencies, the shared-memory
 * padding, and the CPU backend's blocking. The GPU values were set on
 * compute capability 9.0 (the only architecture measured so far) and serve
 * every architecture; the configuration is chosen on the host, so a kernel
 * shape cannot differ by architecture, but the __launch_bounds__ minimum
 * goes through the SM's thread limit (tsi_min_blocks_per_sm). */
#ifndef TESSERA_GEMM_TUNING_H
#define TESSERA_GEMM_TUNING_H

/* X(id, dtype, type, block_m, block_n, block_k, warps_m, warps_n, thread_m,
 *   thread_n, registers, blocks_per_sm, efficiency): one configuration a
 * line (kernel shape: gemm_configs.h). blocks_per_sm is the kernel's
 * __launch_bounds__ minimum (the compiler keeps registers within
 * 65536 / (threads * blocks_per_sm)); registers is the count ptxas reported
 * for sm_90, a bound for the model rather than a promise; efficiency is the
 * fraction of the CUDA-core FMA peak the configuration sustained on 8192^3,
 * which the configuration choice weighs (gemm-cuda-cores-bk16-h200.csv for
 * fp32, gemm-cuda-cores-h200.csv for fp64). */
#define TSI_GEMM_CONFIG_LIST(X)                                                                                        \
  X(1, TS_FLOAT32, float, 128, 128, 8, 2, 4, 8, 8, 128, 2, 0.622)                                                      \
  X(2, TS_FLOAT32, float, 128, 128, 8, 2, 4, 8, 8, 165, 1, 0.563)                                                      \
  X(3, TS_FLOAT32, float, 128, 128, 16, 2, 4, 8, 8, 167, 1, 0.626)                                                     \
  X(4, TS_FLOAT32, float, 128, 256, 8, 2, 4, 8, 16, 246, 1, 0.648)                                                     \
  X(5, TS_FLOAT32, float, 128, 64, 8, 2, 2, 8, 8, 167, 3, 0.610)                                                       \
  X(6, TS_FLOAT32, float, 64, 64, 8, 1, 2, 8, 8, 167, 6, 0.582)                                                        \
  X(7, TS_FLOAT64, double, 128, 128, 8, 2, 4, 8, 8, 250, 1, 0.642)                                                     \
  X(8, TS_FLOAT64, double, 128, 64, 8, 2, 4, 8, 4, 128, 2, 0.579)                                                      \
  X(9, TS_FLOAT64, double, 64, 64, 8, 2, 4, 4, 4, 122, 2, 0.478)                                                       \
  X(10, TS_FLOAT32, float, 128, 256, 16, 2, 4, 8, 16, 255, 1, 0.642)                                                   \
  X(11, TS_FLOAT32, float, 256, 128, 16, 4, 2, 16, 8, 247, 1, 0.668)                                                   \
  X(12, TS_FLOAT32, float, 128, 128, 16, 2, 4, 8, 8, 128, 2, 0.620)

/* Elements of padding after each k-row of a shared-memory tile: keeps the
 * transposed stores (operands contiguous along k) free of bank conflicts
 * and the 16-byte fragment loads aligned. */
#define TSI_GEMM_SHARED_PAD 4

/* Rows of output tiles swept column by column (a group), so that blocks
 * running together share A and B panels in L2; not tuned. */
#define TSI_GEMM_TILE_GROUP 8

/* Threads of a block of the C = beta C kernel, and the most blocks it
 * launches (grid-stride beyond); not tuned. */
#define TSI_GEMM_SCALE_THREADS 256
#define TSI_GEMM_SCALE_MAX_BLOCKS 65536

/* CPU backend: the tile of C a task owns and the depth of one packed slice;
 * the two panels and the accumulator (64*256 + 256*64 + 64*64 values,
 * 144 KiB in double) stay in a core's L2. */
#define TSI_GEMM_CPU_MB ((int64_t)64)
#define TSI_GEMM_CPU_NB ((int64_t)64)
#define TSI_GEMM_CPU_KB ((int64_t)256)

#endif
