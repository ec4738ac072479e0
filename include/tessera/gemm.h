/**
 * @file tessera/gemm.h
 * @brief Dense matrix product C = alpha * op(A) * op(B) + beta * C (GEMM).
 *
 * Matrices are stored column-major as in the BLAS: entry (i, j) of an
 * r x c matrix with leading dimension ld (ld >= max(1, r)) is element
 * i + j * ld of its buffer, counted from the buffer's first byte. op(A) is
 * m x k and op(B) is k x n; C is m x n. On the GPU the product runs on CUDA
 * cores (FFMA/DFMA; no tensor cores, no TF32) as tiled kernels with shared
 * memory and register blocking; on the CPU backend as a blocked OpenMP loop
 * nest. Both are deterministic: the same call gives the same bits each time.
 *
 * Example (2 x 2, column-major): A = {1, 3, 2, 4} is [[1, 2], [3, 4]],
 * B = {1, 0, 0, 1} the identity, C = alpha A B + beta C with alpha 2 and
 * beta 0 gives C = {2, 6, 4, 8}.
 */
#ifndef TESSERA_GEMM_H
#define TESSERA_GEMM_H

#include "tessera/core.h"
#include "tessera/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of ts_gemm_ex(); zero-initialise, then set fields. */
typedef struct ts_gemm_options {
  ts_operation op_a; /**< op(A) = A (TS_OP_NONE, A is m x k) or A^T (TS_OP_TRANSPOSE, A is k x m). */
  ts_operation op_b; /**< op(B) = B (TS_OP_NONE, B is k x n) or B^T (TS_OP_TRANSPOSE, B is n x k). */
  /** GPU tile configuration: 0 = chosen by tessera from m, n, k and the GPU;
   * otherwise an id from 1 to ts_gemm_config_count() whose precision matches
   * the call. The CPU backend has one implementation and ignores a valid id. */
  int config;
} ts_gemm_options;

/**
 * C = alpha * op(A) * op(B) + beta * C in precision @p dtype on the context's
 * backend, asynchronously on the context's stream (kernel faults surface at
 * the next synchronising call). @p a, @p b and @p c are buffers of @p ctx
 * (TS_MEMORY_DEVICE; host buffers are accepted on the CPU backend only).
 * Leading dimensions are those of the stored matrices: lda >= max(1, rows of
 * the stored A), and so on. BLAS rules: k = 0 or alpha = 0 gives C = beta * C
 * without reading A or B; beta = 0 overwrites C without reading it (NaN in C
 * does not propagate); m = 0 or n = 0 does nothing. C must not overlap A or B.
 * Errors: TS_ERROR_INVALID_ARGUMENT (NULL, negative size, bad leading
 * dimension, a buffer too small or of another context, bad option),
 * TS_ERROR_OVERFLOW (a size or byte count that does not fit), TS_ERROR_CUDA.
 */
TS_API ts_status ts_gemm_ex(ts_context *ctx, ts_dtype dtype, int64_t m, int64_t n, int64_t k, double alpha,
                            const ts_buffer *a, int64_t lda, const ts_buffer *b, int64_t ldb, double beta, ts_buffer *c,
                            int64_t ldc, const ts_gemm_options *options);

/** ts_gemm_ex() without transposes and with the configuration chosen by tessera. */
TS_API ts_status ts_gemm(ts_context *ctx, ts_dtype dtype, int64_t m, int64_t n, int64_t k, double alpha,
                         const ts_buffer *a, int64_t lda, const ts_buffer *b, int64_t ldb, double beta, ts_buffer *c,
                         int64_t ldc);

/** Description of one GPU tile configuration of the GEMM kernel. */
typedef struct ts_gemm_config_info {
  int id;                /**< 1 to ts_gemm_config_count(); the value of ts_gemm_options.config. */
  ts_dtype dtype;        /**< Precision the configuration runs. */
  char name[32];         /**< "s128x128x8-2": precision letter, block tile, blocks_per_sm. */
  int block_m;           /**< Rows of C per thread block. */
  int block_n;           /**< Columns of C per thread block. */
  int block_k;           /**< Depth of one k-step (the shared-memory tile). */
  int thread_m;          /**< Rows of C per thread (register tile). */
  int thread_n;          /**< Columns of C per thread (register tile). */
  int threads;           /**< Threads per block. */
  int shared_bytes;      /**< Shared memory per block (two stages). */
  int registers;         /**< Registers per thread (as compiled for sm_90; an estimate elsewhere). */
  int blocks_per_sm;     /**< Resident blocks per SM the kernel's register cap guarantees. */
  int64_t global_bytes;  /**< Bytes one block reads from global memory per k-step. */
  int64_t shared_reads;  /**< Shared-memory bytes one block reads per k-step. */
  int64_t shared_writes; /**< Shared-memory bytes one block writes per k-step. */
  int64_t fmas;          /**< Fused multiply-adds one block issues per k-step. */
  int barriers;          /**< Block barriers per k-step. */
} ts_gemm_config_info;

/** Number of GPU tile configurations (of both precisions); ids run from 1 to this. */
TS_API int ts_gemm_config_count(void);

/** Describe configuration @p id (1 to ts_gemm_config_count()); TS_ERROR_INVALID_ARGUMENT otherwise. */
TS_API ts_status ts_gemm_config_describe(int id, ts_gemm_config_info *info);

/**
 * The configuration ts_gemm_ex() chooses on @p ctx for an m x n x k product
 * in @p dtype: an id in *id (0 on the CPU backend, which has one blocked
 * implementation), with the rule and its figures as one line in @p reason
 * (NULL allowed; at most @p reason_size bytes with the terminating zero).
 */
TS_API ts_status ts_gemm_config_choose(ts_context *ctx, ts_dtype dtype, int64_t m, int64_t n, int64_t k, int *id,
                                       char *reason, size_t reason_size);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_GEMM_H */
