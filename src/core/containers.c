/* Allocation and release of the COO, CSR and CSC containers. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

const char *ts_symmetry_name(ts_symmetry symmetry) {
  switch (symmetry) {
  case TS_GENERAL:
    return "general";
  case TS_SYMMETRIC:
    return "symmetric";
  case TS_SKEW_SYMMETRIC:
    return "skew-symmetric";
  case TS_HERMITIAN:
    return "hermitian";
  }
  return "unknown";
}

/* Shape checks shared by the three create functions. */
static ts_status check_shape(ts_context *ctx, const char *op, int64_t rows, int64_t cols, int64_t count,
                             ts_dtype dtype) {
  if (rows < 0 || cols < 0 || count < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: negative size (%lld x %lld, %lld entries)", op,
                     (long long)rows, (long long)cols, (long long)count);
  if (rows > TS_MAX_DIMENSION || cols > TS_MAX_DIMENSION)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: %lld x %lld exceeds the largest dimension %d", op, (long long)rows,
                     (long long)cols, TS_MAX_DIMENSION);
  if (ts_dtype_size(dtype) == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown value type %d", op, (int)dtype);
  /* The widest array (indices or values) must have a byte size that fits
   * int64 and size_t: refused here rather than reported as out of memory. */
  size_t widest = ts_dtype_size(dtype) > sizeof(int32_t) ? ts_dtype_size(dtype) : sizeof(int32_t);
  int64_t bytes = 0;
  if (tsi_mul_overflows(count, (int64_t)widest, &bytes) || (uint64_t)bytes > (uint64_t)SIZE_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: %lld entries of %zu bytes exceed the largest addressable size", op,
                     (long long)count, widest);
  return TS_SUCCESS;
}

static ts_status out_of_memory(ts_context *ctx, const char *op, int64_t count) {
  tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld entries", op, (long long)count);
  return TS_ERROR_OUT_OF_MEMORY; /* a constant, so that analyzers see the failure */
}

ts_status ts_coo_create(ts_context *ctx, int64_t rows, int64_t cols, int64_t capacity, ts_dtype dtype, ts_coo **coo) {
  if (!coo)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_coo_create: coo is NULL");
  *coo = NULL;
  ts_status st = check_shape(ctx, "ts_coo_create", rows, cols, capacity, dtype);
  if (st != TS_SUCCESS)
    return st;
  ts_coo *m = calloc(1, sizeof *m);
  if (!m)
    return out_of_memory(ctx, "ts_coo_create", capacity);
  m->rows = rows;
  m->cols = cols;
  m->capacity = capacity;
  m->dtype = dtype;
  m->row_idx = tsi_malloc_array(capacity, sizeof(int32_t));
  m->col_idx = tsi_malloc_array(capacity, sizeof(int32_t));
  m->values = tsi_malloc_array(capacity, ts_dtype_size(dtype));
  if (!m->row_idx || !m->col_idx || !m->values) {
    ts_coo_destroy(m);
    return out_of_memory(ctx, "ts_coo_create", capacity);
  }
  *coo = m;
  return TS_SUCCESS;
}

void ts_coo_destroy(ts_coo *coo) {
  if (!coo)
    return;
  free(coo->row_idx);
  free(coo->col_idx);
  free(coo->values);
  free(coo);
}

/* Gibibytes, for messages about allocations. */
static double gibibytes(int64_t count, size_t size) { return (double)count * (double)size / (double)(1 << 30); }

/* CSR and CSC share one layout: `major` offsets, `minor` indices. A failure
 * names the array that could not be had, with its size. */
static ts_status compressed_create(ts_context *ctx, const char *op, const char *major_name, int64_t majors, int64_t nnz,
                                   ts_dtype dtype, int64_t **ptr, int32_t **idx, void **values) {
  *ptr = tsi_calloc_array(majors + 1, sizeof(int64_t));
  if (!*ptr)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the %s offsets of %lld %ss (%.2f GiB)", op,
                     major_name, (long long)majors, major_name, gibibytes(majors + 1, sizeof(int64_t)));
  *idx = tsi_malloc_array(nnz, sizeof(int32_t));
  *values = tsi_malloc_array(nnz, ts_dtype_size(dtype));
  if (!*idx || !*values)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld entries (%.2f GiB of indices and values)",
                     op, (long long)nnz, gibibytes(nnz, sizeof(int32_t) + ts_dtype_size(dtype)));
  return TS_SUCCESS;
}

ts_status ts_csr_create(ts_context *ctx, int64_t rows, int64_t cols, int64_t nnz, ts_dtype dtype, ts_csr **csr) {
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_create: csr is NULL");
  *csr = NULL;
  ts_status st = check_shape(ctx, "ts_csr_create", rows, cols, nnz, dtype);
  if (st != TS_SUCCESS)
    return st;
  ts_csr *m = calloc(1, sizeof *m);
  if (!m)
    return out_of_memory(ctx, "ts_csr_create", nnz);
  m->rows = rows;
  m->cols = cols;
  m->nnz = nnz;
  m->dtype = dtype;
  st = compressed_create(ctx, "ts_csr_create", "row", rows, nnz, dtype, &m->row_ptr, &m->col_idx, &m->values);
  if (st != TS_SUCCESS) {
    ts_csr_destroy(m);
    return st;
  }
  *csr = m;
  return TS_SUCCESS;
}

void ts_csr_destroy(ts_csr *csr) {
  if (!csr)
    return;
  free(csr->row_ptr);
  free(csr->col_idx);
  free(csr->values);
  free(csr);
}

ts_status ts_csc_create(ts_context *ctx, int64_t rows, int64_t cols, int64_t nnz, ts_dtype dtype, ts_csc **csc) {
  if (!csc)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csc_create: csc is NULL");
  *csc = NULL;
  ts_status st = check_shape(ctx, "ts_csc_create", rows, cols, nnz, dtype);
  if (st != TS_SUCCESS)
    return st;
  ts_csc *m = calloc(1, sizeof *m);
  if (!m)
    return out_of_memory(ctx, "ts_csc_create", nnz);
  m->rows = rows;
  m->cols = cols;
  m->nnz = nnz;
  m->dtype = dtype;
  st = compressed_create(ctx, "ts_csc_create", "column", cols, nnz, dtype, &m->col_ptr, &m->row_idx, &m->values);
  if (st != TS_SUCCESS) {
    ts_csc_destroy(m);
    return st;
  }
  *csc = m;
  return TS_SUCCESS;
}

void ts_csc_destroy(ts_csc *csc) {
  if (!csc)
    return;
  free(csc->col_ptr);
  free(csc->row_idx);
  free(csc->values);
  free(csc);
}

ts_status ts_csr_copy(ts_context *ctx, const ts_csr *src, ts_csr **dst) {
  if (!src || !dst)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_csr_copy: NULL argument");
  *dst = NULL;
  if (!src->row_ptr || (src->nnz > 0 && (!src->col_idx || !src->values)))
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "ts_csr_copy: source arrays are NULL");
  ts_status st = ts_csr_create(ctx, src->rows, src->cols, src->nnz, src->dtype, dst);
  if (st != TS_SUCCESS)
    return st;
  memcpy((*dst)->row_ptr, src->row_ptr, (size_t)(src->rows + 1) * sizeof(int64_t));
  memcpy((*dst)->col_idx, src->col_idx, (size_t)src->nnz * sizeof(int32_t));
  memcpy((*dst)->values, src->values, (size_t)src->nnz * ts_dtype_size(src->dtype));
  (*dst)->symmetry = src->symmetry;
  return TS_SUCCESS;
}
