/**
 * @file tessera/lu_batch.h
 * @brief Batches of sparse LU systems: many matrices with one pattern
 *        (parameter sweeps, Monte Carlo) or with several patterns, each
 *        pattern analysed once, every member factored and solved in one
 *        call.
 *
 * A batch is made from a list of patterns, each given as a CSR matrix with
 * values, and the number of members that share it: one pattern and a count
 * is a uniform batch, several patterns a non-uniform one. Each pattern is
 * analysed once, as ts_lu_analyze() does (matching and scaling from the
 * values given, ordering, symbolic factorization, levels); its members
 * reuse that analysis the way ts_lu_refactor() does. Member m of the batch
 * therefore gets the factors and the solution that an LU object analysed
 * with its pattern's matrix would give after ts_lu_refactor() with member
 * m's values and ts_lu_solve(): the same pivot rule (static pivoting with
 * perturbation of tiny pivots, or a stop), the same refinement in double,
 * the same verdict on a singular member. On the host the results are
 * bitwise those of the single-system calls.
 *
 * Layout: the members are numbered pattern by pattern (the members of
 * pattern 0 first). The values of all members are one array of double,
 * member after member, each member's entries in its pattern's CSR order;
 * the right-hand sides and the solutions are arrays of double, member
 * after member, n entries each. ts_lu_batch_get_member() gives each
 * member's offsets; ts_lu_batch_get_stats() the totals.
 *
 * A member that fails (numerically singular, values not finite) does not
 * fail the others: they are factored and solved all the same, the call
 * returns the failed member's status with a message that names it, and
 * ts_lu_batch_get_member() tells each member's outcome.
 *
 * On a CUDA context (or with ts_lu_options::backend TS_BACKEND_CUDA) the
 * factorization and the solves run on the GPU, every member of a pattern in
 * lockstep: a warp serves several members at once, their values
 * interleaved. A member whose factorization there replaced a pivot, met a
 * singular or non-finite pivot or non-finite values is handed to the host's
 * single-system path, which decides it as ts_lu_refactor() would. Values,
 * right-hand sides and solutions may be host arrays or ::ts_buffer objects
 * (ts_lu_batch_factor_buffer(), ts_lu_batch_solve_buffer()), in device
 * memory on the GPU. Device memory: the plan, the values of A, six
 * vectors per member, the factors (L + U entries per member) and, for host
 * arrays, their copies; a pattern whose factorization gives each member
 * several lanes (long column updates: meshes rather than circuits) holds
 * its factors twice, once as the factorization lays them out and once as
 * the solves read them (ts_lu_batch_stats::peak_device_bytes reports the
 * total).
 *
 * @code
 *   // 1000 members sharing the pattern of A; values: 1000 * A->nnz doubles
 *   int64_t count = 1000;
 *   ts_lu_batch *batch;
 *   ts_lu_batch_create(ctx, NULL, 1, (const ts_csr *const[]){A}, &count, &batch);
 *   ts_lu_batch_factor(batch, values);  // again with new values: a refactorization
 *   ts_lu_batch_solve(batch, b, x);     // b, x: 1000 * n doubles
 *   ts_lu_batch_destroy(batch);
 * @endcode
 */
#ifndef TESSERA_LU_BATCH_H
#define TESSERA_LU_BATCH_H

#include "tessera/core.h"
#include "tessera/lu.h"
#include "tessera/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A batch of LU systems: the analysis of each pattern and the factors of every member. */
typedef struct ts_lu_batch ts_lu_batch;

/** One member of a batch: where its data lie and the outcome of the last calls. */
typedef struct ts_lu_batch_member {
  int64_t pattern;       /**< Index of its pattern in the list given to ts_lu_batch_create(). */
  int64_t n;             /**< Order of its matrix. */
  int64_t nnz;           /**< Entries of its matrix. */
  int64_t value_offset;  /**< Index of its first value in the batch's value array. */
  int64_t vector_offset; /**< Index of its first entry in the batch's right-hand side and solution arrays. */
  /**
   * Outcome of the last ts_lu_batch_factor() for this member (TS_SUCCESS,
   * TS_WARNING_PERTURBED_PIVOTS, TS_WARNING_PIVOTS_DEGRADED from the pivot
   * check of a member the host factored (ts_lu_refactor(); the batch never
   * analyses again, whatever ts_lu_options::refresh_pivots says), or an
   * error such as TS_ERROR_NUMERICALLY_SINGULAR or TS_ERROR_INVALID_MATRIX),
   * replaced by
   * the error of a later ts_lu_batch_solve() should its solve fail;
   * TS_ERROR_NOT_FACTORED before any factorization.
   */
  ts_status status;
  int64_t singular_column;  /**< Column (user numbering) of a zero or tiny pivot, or -1. */
  int64_t perturbed_pivots; /**< Tiny pivots replaced in the last factorization. */
  double backward_error;    /**< Normwise backward error of the last solve. */
  int refinement_steps;     /**< Refinement steps of the last solve. */
  int partial_pivoting;     /**< Non-zero when the last solve used the partial-pivoting fallback (see ts_lu_stats). */
  int on_host; /**< Non-zero when a GPU batch handed this member to the host path in the last factorization. */
} ts_lu_batch_member;

/** Statistics of a batch. */
typedef struct ts_lu_batch_stats {
  int64_t members;           /**< Systems in the batch. */
  int64_t patterns;          /**< Patterns analysed. */
  int64_t values;            /**< Length of the value array: the members' entries summed. */
  int64_t rows;              /**< Length of the right-hand side and solution arrays: the members' orders summed. */
  int64_t nnz_lu;            /**< Entries of L + U (unit diagonal included), summed over the members. */
  double flops;              /**< Floating-point operations of one factorization of every member. */
  int64_t failed_members;    /**< Members whose last factorization or solve failed. */
  int64_t perturbed_members; /**< Members with replaced pivots in the last factorization. */
  int64_t host_members;      /**< Members a GPU batch handed to the host path in the last factorization. */
  int64_t peak_device_bytes; /**< Largest GPU memory the batch held at once (0 on the host). */
  int on_gpu;                /**< Non-zero when the factorizations and solves run on the GPU. */
  double time_analyze;       /**< Seconds: the analysis of every pattern (ts_lu_batch_create()). */
  double time_factor;        /**< Seconds: the last ts_lu_batch_factor(). */
  double time_solve;         /**< Seconds: the last ts_lu_batch_solve(), refinement included. */
  double backward_error;     /**< Largest normwise backward error of the last solve over the members solved (NaN
                                  when the solves are unchecked: ts_lu_options.unchecked_solves). */
  int refinement_steps;      /**< Most refinement steps of the last solve over the members. */
} ts_lu_batch_stats;

/**
 * Create a batch and analyse its patterns.
 * @param ctx      The context; a CUDA context runs the batch on the GPU (unless
 *                 @p options says TS_BACKEND_CPU).
 * @param options  As for ts_lu_create() (may be NULL): ordering, matching, pivot
 *                 rule, float factors, refinement, backend.
 * @param patterns Number of patterns, at least 1.
 * @param matrices @p patterns square general CSR matrices with values
 *                 (float or double); their values steer the matching and
 *                 scaling of every member with their pattern.
 * @param counts   Members of each pattern, each at least 1.
 * @param batch    Receives the batch (NULL on failure).
 * @return TS_SUCCESS; TS_ERROR_INVALID_ARGUMENT for NULL or bad arguments;
 *         TS_ERROR_OVERFLOW when the batch's arrays would pass 2^62 entries
 *         or the GPU's 32-bit schedules; the analysis's errors (the message
 *         names the pattern), e.g. TS_ERROR_STRUCTURALLY_SINGULAR.
 */
TS_API ts_status ts_lu_batch_create(ts_context *ctx, const ts_lu_options *options, int64_t patterns,
                                    const ts_csr *const *matrices, const int64_t *counts, ts_lu_batch **batch);

/** Free a batch (NULL is a no-op). */
TS_API void ts_lu_batch_destroy(ts_lu_batch *batch);

/**
 * Numeric factorization of every member from new values (a first
 * factorization or a refactorization: the analysis is kept).
 * @param batch  The batch.
 * @param values The values of every member, member after member in the
 *               batch's layout (ts_lu_batch_stats::values doubles, host memory).
 * @return TS_SUCCESS; TS_WARNING_PERTURBED_PIVOTS when pivots of some member
 *         were replaced (ts_lu_batch_get_member() says which), else
 *         TS_WARNING_PIVOTS_DEGRADED when the pivot check found some member's
 *         pivots degraded against its first factorization; when members
 *         fail, the status of the first of them (TS_ERROR_NUMERICALLY_SINGULAR,
 *         TS_ERROR_INVALID_MATRIX for values that are not finite), the
 *         message naming it and how many failed: the other members are
 *         factored all the same; TS_ERROR_CANCELLED when the progress
 *         callback stops the call (no member then has factors: each
 *         member's status is TS_ERROR_NOT_FACTORED).
 */
TS_API ts_status ts_lu_batch_factor(ts_lu_batch *batch, const double *values);

/**
 * ts_lu_batch_factor() with the values in a buffer of the batch's context
 * (device memory: on the GPU there; host memory: read from the host).
 * @param batch  The batch.
 * @param values At least ts_lu_batch_stats::values doubles.
 * @return As ts_lu_batch_factor().
 */
TS_API ts_status ts_lu_batch_factor_buffer(ts_lu_batch *batch, const ts_buffer *values);

/**
 * Solve A_m x_m = b_m for every member m, with iterative refinement in
 * double against the values last factored (as ts_lu_solve() does).
 * @param batch The batch, factored.
 * @param b     Right-hand sides, member after member (ts_lu_batch_stats::rows doubles, host memory).
 * @param x     Solutions, the same layout; may not overlap @p b. The solution of
 *              a member without factors, whose right-hand side is refused (not
 *              finite) or whose solve a cancellation skipped is NaN.
 * @return TS_SUCCESS; TS_ERROR_NOT_FACTORED before a factorization; when
 *         members have no factors (their factorization failed) or their
 *         solve fails (TS_ERROR_INVALID_ARGUMENT for a right-hand side that
 *         is not finite; TS_ERROR_OVERFLOW for a solution that overflows,
 *         its x left as computed), the status of the first of them with a
 *         message naming it and how many failed: the others are solved all
 *         the same; TS_ERROR_CANCELLED when the progress callback stops the
 *         call (the members not yet solved get that status and a NaN x).
 */
TS_API ts_status ts_lu_batch_solve(ts_lu_batch *batch, const double *b, double *x);

/**
 * ts_lu_batch_solve() with the right-hand sides and solutions in buffers of
 * the batch's context.
 * @param batch The batch, factored.
 * @param b     At least ts_lu_batch_stats::rows doubles.
 * @param x     At least as many; another buffer than @p b.
 * @return As ts_lu_batch_solve().
 */
TS_API ts_status ts_lu_batch_solve_buffer(ts_lu_batch *batch, const ts_buffer *b, ts_buffer *x);

/**
 * Where member @p member's data lie and the outcome of the last calls for it.
 * @param batch  The batch.
 * @param member Its index, 0 .. members - 1.
 * @param info   Receives the member's record.
 * @return TS_SUCCESS or TS_ERROR_INVALID_ARGUMENT.
 */
TS_API ts_status ts_lu_batch_get_member(const ts_lu_batch *batch, int64_t member, ts_lu_batch_member *info);

/**
 * Copy the batch's statistics out.
 * @param batch The batch.
 * @param stats Receives them.
 * @return TS_SUCCESS or TS_ERROR_INVALID_ARGUMENT.
 */
TS_API ts_status ts_lu_batch_get_stats(const ts_lu_batch *batch, ts_lu_batch_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_LU_BATCH_H */
