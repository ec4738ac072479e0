/* Helpers shared by the container conversions, checks and statistics; not installed. */
#ifndef TESSERA_CONVERT_INTERNAL_H
#define TESSERA_CONVERT_INTERNAL_H

#include "core/internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Validate a compressed layout (CSR: majors = rows, minors = cols; CSC the
 * reverse). `op` starts the message; major_name/minor_name are "row" and
 * "column" (or the reverse) so that the message speaks of the right thing. */
ts_status tsi_compressed_check(ts_context *ctx, const char *op, const char *major_name, const char *minor_name,
                               int64_t rows, int64_t cols, int64_t majors, int64_t minors, int64_t nnz,
                               const int64_t *ptr, const int32_t *idx, const void *values, ts_dtype dtype,
                               ts_symmetry symmetry);

/* Validate a COO matrix; `op` starts the message. */
ts_status tsi_coo_check(ts_context *ctx, const char *op, const ts_coo *coo);

/* Counting transpose of a checked compressed layout: out_ptr (minors + 1,
 * any content), out_idx and out_values (nnz) are filled so that out holds
 * the same entries grouped by minor index, majors increasing within each
 * group. Stable, O(nnz + majors + minors), no workspace. */
void tsi_compressed_transpose(int64_t majors, int64_t minors, int64_t nnz, const int64_t *ptr, const int32_t *idx,
                              const void *values, ts_dtype dtype, int64_t *out_ptr, int32_t *out_idx, void *out_values);

/* OpenMP threads for ctx: its num_threads when set, else the runtime's default. */
static inline int tsi_thread_count(const ts_context *ctx) {
  if (ctx && ctx->num_threads > 0)
    return ctx->num_threads;
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

#endif /* TESSERA_CONVERT_INTERNAL_H */
