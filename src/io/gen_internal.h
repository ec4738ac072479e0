/* Helpers shared by the matrix generators (src/io/gen_*.c): argument checks,
 * sorting of column lists, distinct random column sets, and the assembly of
 * a CSR matrix from unsorted rows with repeats. */
#ifndef TESSERA_GEN_INTERNAL_H
#define TESSERA_GEN_INTERNAL_H

#include "internal.h"
#include "gen_random.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Rows generated between two progress reports (and cancellation checks),
 * for generators whose rows hold a few entries each. */
#define TSI_GEN_CHUNK ((int64_t)1 << 20)

/* Checks shared by every generator: output pointer, value type. Sets *csr to
 * NULL first. */
ts_status tsi_gen_check_output(ts_context *ctx, const char *op, ts_dtype dtype, ts_csr **csr);

/* rows and cols are at least 1 and at most TS_MAX_DIMENSION. */
ts_status tsi_gen_check_shape(ts_context *ctx, const char *op, int64_t rows, int64_t cols);

/* Turn counts held in ptr[1..rows] into offsets (ptr[0] = 0), checking for
 * cancellation between blocks; the total is ptr[rows]. */
ts_status tsi_gen_prefix_sum(ts_context *ctx, int64_t *ptr, int64_t rows);

/* Sort k non-negative int32 values increasingly; scratch holds k values
 * (unused for k <= 32). */
void tsi_sort_int32(int32_t *values, int64_t k, int32_t *scratch);

/* Per-thread workspace of tsi_sample_sorted(), sized for samples of at most
 * max_k values out of n. */
typedef struct tsi_sample_workspace {
  int32_t *table; /* open-addressing hash set, -1 = empty */
  int64_t table_mask;
  int32_t *scratch; /* sort scratch */
} tsi_sample_workspace;

bool tsi_sample_workspace_init(tsi_sample_workspace *ws, int64_t n, int64_t max_k);
void tsi_sample_workspace_free(tsi_sample_workspace *ws);

/* out[0..k) = k distinct values of [0, n), increasing, uniformly drawn from
 * the random sequence `key`; 0 <= k <= n. */
void tsi_sample_sorted(uint64_t key, int64_t n, int64_t k, int32_t *out, tsi_sample_workspace *ws);

/* raw_ptr / raw_cols hold `rows` rows of columns in any order, with repeats.
 * Sorts each row in place, drops repeats, and creates *csr (TS_GENERAL) with
 * the distinct columns; its values are left for the caller to fill. */
ts_status tsi_gen_compact_rows(ts_context *ctx, const char *op, int64_t rows, int64_t cols, const int64_t *raw_ptr,
                               int32_t *raw_cols, ts_dtype dtype, ts_csr **csr);

/* CSR (TS_GENERAL, values left for the caller) of the pattern of `count`
 * entries (rows_of[e], cols_of[e]), plus each one's mirror when
 * add_mirrors; repeats merged. Entries are bucketed by row blocks with
 * per-thread histograms, so no atomics, and the result does not depend on
 * the thread count. */
ts_status tsi_gen_csr_from_pairs(ts_context *ctx, const char *op, int64_t rows, int64_t cols, const int32_t *rows_of,
                                 const int32_t *cols_of, int64_t count, bool add_mirrors, ts_dtype dtype, ts_csr **csr);

/* Fill the columns and values of `out`, whose row_ptr is set: row i gets
 * row_ptr[i+1] - row_ptr[i] distinct uniformly random columns (seeded by
 * (seed, i)) and values uniform in [-1, 1). Reports progress by rows. */
ts_status tsi_gen_fill_sampled_rows(ts_context *ctx, const char *op, ts_csr *out, uint64_t seed);

#endif /* TESSERA_GEN_INTERNAL_H */
