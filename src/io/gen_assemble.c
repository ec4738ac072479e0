/* Common steps of the generators: output checks, offsets from row counts,
 * and CSR assembly from unsorted rows with repeated columns. */
#include "gen_internal.h"

#include <stdlib.h>
#include <string.h>

ts_status tsi_gen_check_output(ts_context *ctx, const char *op, ts_dtype dtype, ts_csr **csr) {
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: csr is NULL", op);
  *csr = NULL;
  if (ts_dtype_size(dtype) == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown value type %d", op, (int)dtype);
  return TS_SUCCESS;
}

int64_t tsi_gen_prefix_sum(int64_t *ptr, int64_t rows) {
  ptr[0] = 0;
  for (int64_t i = 0; i < rows; i++)
    ptr[i + 1] += ptr[i];
  return ptr[rows];
}

ts_status tsi_gen_compact_rows(ts_context *ctx, const char *op, int64_t rows, int64_t cols, const int64_t *raw_ptr,
                               int32_t *raw_cols, ts_dtype dtype, ts_csr **csr) {
  ts_status st = TS_SUCCESS;
  ts_csr *out = NULL;
  int64_t *distinct = tsi_calloc_array(rows + 1, sizeof(int64_t));
  int64_t longest = 0;
  int failed = 0;
  if (!distinct) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld row counts", op, (long long)rows);
    goto cleanup;
  }
  for (int64_t i = 0; i < rows; i++)
    if (raw_ptr[i + 1] - raw_ptr[i] > longest)
      longest = raw_ptr[i + 1] - raw_ptr[i];

#pragma omp parallel reduction(| : failed)
  {
    int32_t *scratch = tsi_malloc_array(longest > 1 ? longest : 1, sizeof(int32_t));
    if (!scratch)
      failed = 1;
      /* Dynamic chunks: row lengths of skewed graphs vary by orders of
       * magnitude. Each row's result does not depend on the thread. */
#pragma omp for schedule(dynamic, 1024)
    for (int64_t i = 0; i < rows; i++) {
      if (!scratch)
        continue;
      int32_t *row = raw_cols + raw_ptr[i];
      int64_t len = raw_ptr[i + 1] - raw_ptr[i], kept = 0;
      tsi_sort_int32(row, len, scratch);
      for (int64_t k = 0; k < len; k++)
        if (kept == 0 || row[k] != row[kept - 1])
          row[kept++] = row[k];
      distinct[i + 1] = kept;
    }
    free(scratch);
  }
  if (failed) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate sort workspace of %lld columns", op,
                   (long long)longest);
    goto cleanup;
  }
  int64_t nnz = tsi_gen_prefix_sum(distinct, rows);
  st = ts_csr_create(ctx, rows, cols, nnz, dtype, &out);
  if (st != TS_SUCCESS)
    goto cleanup;
  memcpy(out->row_ptr, distinct, (size_t)(rows + 1) * sizeof(int64_t));
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = 0; i < rows; i++)
    memcpy(out->col_idx + distinct[i], raw_cols + raw_ptr[i],
           (size_t)(distinct[i + 1] - distinct[i]) * sizeof(int32_t));
  out->symmetry = TS_GENERAL;
  *csr = out;
  out = NULL;
cleanup:
  free(distinct);
  ts_csr_destroy(out);
  return st;
}
