/* Matrix Market file -> general CSR, the form most operations take:
 * symmetric, skew-symmetric and hermitian storage expanded to both
 * triangles, duplicates summed (a sum past the value type's range refused
 * with the file and the entry named), the result validated. */
#include "mm_internal.h"

#include <stdio.h>

ts_status tsi_mm_general_csr(ts_context *ctx, const char *name, const ts_coo *stored, ts_csr **csr) {
  ts_coo *general = NULL;
  const ts_coo *source = stored;
  ts_status st = TS_SUCCESS;
  if (stored->symmetry != TS_GENERAL) {
    st = ts_coo_expand_symmetric(ctx, stored, &general);
    source = general;
  }
  tsi_entry_place place = {-1, -1, -1, -1};
  if (st == TS_SUCCESS)
    st = tsi_csr_from_coo(ctx, source, TS_DUPLICATES_SUM, csr, &place);
  if (st == TS_ERROR_INVALID_MATRIX && place.row >= 0) {
    /* Speak of the entries as the file holds them: one-based, and in the
     * stored triangle of a symmetric file. */
    int64_t row = place.row, col = place.col;
    if (stored->symmetry != TS_GENERAL && row < col) {
      row = place.col;
      col = place.row;
    }
    int64_t first = -1, second = -1;
    for (int64_t k = 0; k < stored->nnz && second < 0; k++)
      if (stored->row_idx[k] == row && stored->col_idx[k] == col) {
        if (first < 0)
          first = k;
        else
          second = k;
      }
    st = tsi_error(ctx, TS_ERROR_INVALID_MATRIX,
                   "%s: the duplicate entries at (%lld, %lld) (entries %lld and %lld of the file, ...) sum to a value "
                   "beyond the range of %s",
                   name, (long long)row + 1, (long long)col + 1, (long long)first + 1, (long long)second + 1,
                   tsi_value_type_name(stored->dtype));
  }
  if (st == TS_SUCCESS)
    st = ts_csr_check(ctx, *csr);
  if (st != TS_SUCCESS && !(st == TS_ERROR_INVALID_MATRIX && place.row >= 0)) {
    /* Say which file the failed step was for ("cannot allocate the row
     * offsets of ..." is about this file's declared size). */
    char message[TSI_MESSAGE_SIZE];
    snprintf(message, sizeof message, "%s", ts_last_error(ctx));
    tsi_error(ctx, st, "%s: %s", name, message);
  }
  if (st != TS_SUCCESS) {
    ts_csr_destroy(*csr);
    *csr = NULL;
  }
  ts_coo_destroy(general);
  return st;
}

static ts_status read_csr(ts_context *ctx, const char *op, int fd, const char *path, const char *name, ts_dtype dtype,
                          ts_csr **csr, ts_mm_info *info) {
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: csr is NULL", op);
  *csr = NULL;
  ts_coo *stored = NULL;
  ts_mm_info header;
  ts_status st =
      path ? ts_mm_read(ctx, path, dtype, &stored, &header) : ts_mm_read_fd(ctx, fd, name, dtype, &stored, &header);
  if (st == TS_SUCCESS) {
    char scratch[32];
    st = tsi_mm_general_csr(ctx, path ? path : tsi_mm_descriptor_name(fd, name, scratch, sizeof scratch), stored, csr);
  }
  if (st == TS_SUCCESS && info)
    *info = header;
  ts_coo_destroy(stored);
  return st;
}

ts_status ts_mm_read_csr(ts_context *ctx, const char *path, ts_dtype dtype, ts_csr **csr, ts_mm_info *info) {
  if (!path) {
    if (csr)
      *csr = NULL;
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_mm_read_csr: path is NULL");
  }
  return read_csr(ctx, "ts_mm_read_csr", -1, path, NULL, dtype, csr, info);
}

ts_status ts_mm_read_csr_fd(ts_context *ctx, int fd, const char *name, ts_dtype dtype, ts_csr **csr, ts_mm_info *info) {
  return read_csr(ctx, "ts_mm_read_csr_fd", fd, NULL, name, dtype, csr, info);
}
