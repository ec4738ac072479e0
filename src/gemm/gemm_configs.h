/* The GPU GEMM's tile configurations as data: one list (TSI_GEMM_CONFIG_LIST
 * of gemm_tuning.h) instantiates the CUDA kernels (gemm_cuda.cu) and fills
 * the table that the configuration choice and the performance model read
 * (gemm_configs.c).
 *
 * Kernel shape of every configuration (gemm_cuda_kernel.cuh): a block of
 * warps_m x warps_n warps computes a block_m x block_n tile of C; each warp a
 * (block_m / warps_m) x (block_n / warps_n) warp tile; each thread a
 * thread_m x thread_n register tile. One k-step ("round") of depth block_k:
 * every thread loads its share of the next A and B tiles from global memory
 * into registers, multiplies the current tiles from shared memory (vector
 * loads of 16 bytes, A stored k-major so no bank conflicts), stores the
 * prefetched registers into the other shared-memory stage, and the block
 * meets at one barrier. */
#ifndef TESSERA_GEMM_CONFIGS_H
#define TESSERA_GEMM_CONFIGS_H

#include "core/internal.h"
#include "gemm/gemm_tuning.h"
#include "tessera/gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsi_gemm_config {
  int id;
  ts_dtype dtype;
  int block_m, block_n, block_k;
  int warps_m, warps_n;
  int thread_m, thread_n;
  int registers;     /* estimate per thread */
  int blocks_per_sm; /* estimate */
  double efficiency; /* measured fraction of the FMA peak on a large product */
} tsi_gemm_config;

/* What one block does in one k-step: the model's round. Counts per thread
 * are instructions; bytes are for the whole block. */
typedef struct tsi_gemm_round {
  int threads;
  int shared_bytes;               /* both stages */
  int64_t global_bytes;           /* A and B tiles read */
  int global_loads_per_thread;    /* scalar loads (coalesced: a warp reads 32 neighbours) */
  int shared_stores_per_thread;   /* scalar stores, conflict-free */
  int shared_loads_per_thread;    /* 16-byte vector loads of fragments */
  int shared_wavefronts_per_load; /* wavefronts of one warp-wide fragment load (1: no conflict) */
  int64_t shared_read_bytes;      /* bytes the block's threads request (before broadcast) */
  int64_t shared_write_bytes;     /* bytes the block stores */
  int fmas_per_thread;            /* thread_m * thread_n * block_k */
  int64_t fmas;                   /* for the block */
  int barriers;                   /* 1: double-buffered shared memory */
  int epilogue_stores_per_thread; /* per output tile, once */
} tsi_gemm_round;

/* The table (ids 1 to tsi_gemm_config_count()); NULL for an unknown id. */
int tsi_gemm_config_count(void);
const tsi_gemm_config *tsi_gemm_config_get(int id);
void tsi_gemm_config_round(const tsi_gemm_config *config, tsi_gemm_round *round);

/* Output tiles of an m x n product for a configuration. */
int64_t tsi_gemm_config_tiles(const tsi_gemm_config *config, int64_t m, int64_t n);

/* The configuration ts_gemm_ex() runs (gemm_config_choose.c): an id of dtype.
 * reason (may be NULL) gets one line that states the rule's figures. */
int tsi_gemm_config_choose(ts_dtype dtype, int64_t m, int64_t n, int64_t k, int multiprocessors, char *reason,
                           size_t reason_size);

#ifdef __cplusplus
}
#endif

#endif
