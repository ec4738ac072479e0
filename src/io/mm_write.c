/* COO or CSR -> Matrix Market coordinate text (gzip for names ending in
 * ".gz"), with values printed so that they read back bit-identical (complex
 * values as "re im", each part so); where the bytes go is mm_output.c's
 * concern. */
#include "core/complex_value.h"
#include "mm_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text is formatted into this buffer and written in one call when full. */
#define WRITE_BUFFER ((size_t)4 << 20)
/* Longest entry line: two 10-digit indices, the longest value (an integral
 * double in the integer field has up to 309 digits and a sign), blanks, '\n'. */
#define LONGEST_LINE 400

typedef struct mm_writer {
  ts_context *ctx;
  const char *name; /* the path, or the descriptor's name */
  char where[320];  /* "call: name", the start of messages about the matrix */
  tsi_mm_output output;
  bool opened;
  char *buffer;
  size_t length;
  ts_mm_field field;
  int precision;
  ts_dtype dtype;
  ts_symmetry symmetry;
  int64_t rows, cols;
  const void *values;
} mm_writer;

static bool ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), m = strlen(suffix);
  return n >= m && strcmp(text + n - m, suffix) == 0;
}

static ts_status writer_flush(mm_writer *w) {
  ts_status st = tsi_mm_output_write(&w->output, w->buffer, w->length);
  w->length = 0;
  return st;
}

/* Open the destination: `path`, or the descriptor fd when path is NULL.
 * Either is compressed when its name ends in ".gz". */
static ts_status writer_open(mm_writer *w, const char *path, int fd) {
  w->buffer = malloc(WRITE_BUFFER);
  if (!w->buffer)
    return tsi_error(w->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate a write buffer", w->name);
  w->opened = true;
  bool gzip = ends_with(w->name, ".gz");
  return path ? tsi_mm_output_open_path(&w->output, w->ctx, path, gzip)
              : tsi_mm_output_open_fd(&w->output, w->ctx, fd, w->name, gzip);
}

/* Flush and close; on failure only what the writer created is removed. */
static ts_status writer_close(mm_writer *w, ts_status st) {
  if (st == TS_SUCCESS && w->length > 0)
    st = writer_flush(w);
  if (w->opened)
    st = tsi_mm_output_close(&w->output, st);
  free(w->buffer);
  return st;
}

static void put_text(mm_writer *w, const char *text) {
  size_t n = strlen(text);
  memcpy(w->buffer + w->length, text, n);
  w->length += n;
}

static ts_status write_header(mm_writer *w, int64_t nnz) {
  const char *field = w->field == TS_MM_INTEGER   ? "integer"
                      : w->field == TS_MM_PATTERN ? "pattern"
                      : w->field == TS_MM_COMPLEX ? "complex"
                                                  : "real";
  char line[256];
  snprintf(line, sizeof line,
           "%%%%MatrixMarket matrix coordinate %s %s\n%% written by tessera %d.%d.%d\n%lld %lld %lld\n", field,
           ts_symmetry_name(w->symmetry), TESSERA_VERSION_MAJOR, TESSERA_VERSION_MINOR, TESSERA_VERSION_PATCH,
           (long long)w->rows, (long long)w->cols, (long long)nnz);
  put_text(w, line);
  return TS_SUCCESS;
}

/* A complex value as "re im", each part printed to read back bit-identical
 * in the type's precision; returns the length, or -1. */
static int format_complex(char *out, tsi_complex128 value, ts_dtype dtype, int precision) {
  const ts_dtype part = dtype == TS_COMPLEX64 ? TS_FLOAT32 : TS_FLOAT64;
  int n = tsi_mm_format_value(out, value.re, part, precision);
  if (n < 0)
    return -1;
  out[n++] = ' ';
  int m = tsi_mm_format_value(out + n, value.im, part, precision);
  return m < 0 ? -1 : n + m;
}

/* Write entry k at zero-based (row, col). Symmetric storage is written as
 * its lower triangle: an upper entry is mirrored (negated when skew,
 * conjugated when hermitian). */
static ts_status write_entry(mm_writer *w, int64_t k, int64_t row, int64_t col) {
  if (row < 0 || row >= w->rows || col < 0 || col >= w->cols)
    return tsi_error(w->ctx, TS_ERROR_INVALID_MATRIX,
                     "%s: entry %lld at (%lld, %lld) is outside the %lld x %lld matrix", w->where, (long long)k,
                     (long long)row, (long long)col, (long long)w->rows, (long long)w->cols);
  tsi_complex128 z = tsi_z(0.0, 0.0);
  if (w->values)
    z = tsi_value_get(w->dtype, w->values, k);
  if (w->symmetry != TS_GENERAL && row < col) {
    int64_t swap = row;
    row = col;
    col = swap;
    if (w->symmetry == TS_SKEW_SYMMETRIC)
      z = tsi_z(-z.re, -z.im);
    else if (w->symmetry == TS_HERMITIAN)
      z = tsi_z_conj(z);
  }
  double value = z.re;
  if (w->symmetry == TS_SKEW_SYMMETRIC && row == col)
    return tsi_error(w->ctx, TS_ERROR_INVALID_MATRIX, "%s: entry %lld is on the diagonal of a skew-symmetric matrix",
                     w->where, (long long)k);
  if (w->field == TS_MM_COMPLEX && w->symmetry == TS_HERMITIAN && row == col && z.im != 0.0)
    return tsi_error(w->ctx, TS_ERROR_INVALID_MATRIX,
                     "%s: entry %lld is on the diagonal of a hermitian matrix with the imaginary part %g (it must be "
                     "real)",
                     w->where, (long long)k, z.im);
  if (w->length + LONGEST_LINE > WRITE_BUFFER) {
    ts_status st = writer_flush(w);
    if (st != TS_SUCCESS)
      return st;
  }
  char *out = w->buffer + w->length;
  int n = tsi_mm_format_uint64(out, (uint64_t)row + 1u);
  out[n++] = ' ';
  n += tsi_mm_format_uint64(out + n, (uint64_t)col + 1u);
  if (w->field != TS_MM_PATTERN) {
    out[n++] = ' ';
    if (!isfinite(value) || !isfinite(z.im))
      return tsi_error(w->ctx, TS_ERROR_INVALID_MATRIX, "%s: entry %lld has the non-finite value %g%s", w->where,
                       (long long)k, isfinite(value) ? z.im : value, isfinite(value) ? " (imaginary part)" : "");
    if (w->field == TS_MM_COMPLEX) {
      int length = format_complex(out + n, z, w->dtype, w->precision);
      if (length < 0)
        return tsi_error(w->ctx, TS_ERROR_INTERNAL, "%s: cannot format entry %lld", w->where, (long long)k);
      n += length;
    } else if (w->field == TS_MM_INTEGER) {
      /* Any integral value, printed exactly, so that it reads back the same. */
      if (value != trunc(value))
        return tsi_error(w->ctx, TS_ERROR_INVALID_ARGUMENT,
                         "%s: entry %lld has the value %.17g, not an integer (integer field)", w->where, (long long)k,
                         value);
      if (signbit(value)) /* -0 too: it reads back as -0 */
        out[n++] = '-';
      double magnitude = fabs(value);
      if (magnitude < 18446744073709551616.0) {
        n += tsi_mm_format_uint64(out + n, (uint64_t)magnitude);
      } else {
        int length = snprintf(out + n, LONGEST_LINE - (size_t)n - 1, "%.0f", magnitude);
        if (length < 0 || (size_t)length >= LONGEST_LINE - (size_t)n - 1)
          return tsi_error(w->ctx, TS_ERROR_INTERNAL, "%s: cannot format entry %lld", w->where, (long long)k);
        n += length;
      }
    } else {
      int length = tsi_mm_format_value(out + n, value, w->dtype, w->precision);
      if (length < 0)
        return tsi_error(w->ctx, TS_ERROR_INTERNAL, "%s: cannot format entry %lld", w->where, (long long)k);
      n += length;
    }
  }
  out[n++] = '\n';
  w->length += (size_t)n;
  return TS_SUCCESS;
}

/* The options, into w; `name` is the path or the descriptor's name. */
static ts_status check_options(ts_context *ctx, const char *op, const char *name, const ts_mm_write_options *options,
                               mm_writer *w) {
  w->ctx = ctx;
  w->name = name;
  w->field = options ? options->field : TS_MM_REAL;
  w->precision = options ? options->precision : 0;
  snprintf(w->where, sizeof w->where, "%s: %s", op, name ? name : "");
  if (!name || !*name)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: path is %s", op, name ? "empty" : "NULL");
  if (w->field != TS_MM_REAL && w->field != TS_MM_INTEGER && w->field != TS_MM_PATTERN && w->field != TS_MM_COMPLEX)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: field %d cannot be written (real, integer, pattern or complex)", op, (int)w->field);
  if (w->precision < 0 || w->precision > 17)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: precision %d outside 0..17", op, w->precision);
  return TS_SUCCESS;
}

/* The field for the values: real values take the real (default), integer
 * or pattern field; complex values the complex field (the default, TS_MM_REAL,
 * meaning the values' own field) or pattern. */
static ts_status resolve_field(ts_context *ctx, const char *op, ts_dtype dtype, ts_mm_field *field) {
  const bool complex_values = TS_DTYPE_IS_COMPLEX(dtype);
  if (complex_values && *field == TS_MM_REAL)
    *field = TS_MM_COMPLEX;
  if (complex_values && *field == TS_MM_INTEGER)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: the integer field cannot hold complex values (complex or pattern fields)", op);
  if (!complex_values && *field == TS_MM_COMPLEX)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: the complex field needs complex values; the matrix holds %s (convert it to TS_COMPLEX64 "
                     "or TS_COMPLEX128)",
                     op, ts_dtype_name(dtype));
  return TS_SUCCESS;
}

static ts_status check_matrix(ts_context *ctx, const char *op, int64_t rows, int64_t cols, int64_t nnz, ts_dtype dtype,
                              ts_symmetry symmetry, bool values_present) {
  if (rows < 0 || cols < 0 || nnz < 0 || rows > TS_MAX_DIMENSION || cols > TS_MAX_DIMENSION)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: invalid shape %lld x %lld with %lld entries", op,
                     (long long)rows, (long long)cols, (long long)nnz);
  if (ts_dtype_size(dtype) == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: unknown value type %d", op, (int)dtype);
  if ((unsigned)symmetry > (unsigned)TS_HERMITIAN)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: unknown symmetry %d", op, (int)symmetry);
  if (symmetry != TS_GENERAL && rows != cols)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: a %s matrix must be square, not %lld x %lld", op,
                     ts_symmetry_name(symmetry), (long long)rows, (long long)cols);
  if (nnz > 0 && !values_present)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: NULL value array", op);
  return TS_SUCCESS;
}

/* Progress and a cancellation check every TSI_CANCEL_BLOCK entries written:
 * a cancelled write fails, and the path writers then leave the target as it was. */
static ts_status write_progress(ts_context *ctx, int64_t written, int64_t total) {
  return written % TSI_CANCEL_BLOCK == 0 ? tsi_progress(ctx, written, total) : TS_SUCCESS;
}

static ts_status write_csr(ts_context *ctx, const char *op, const char *path, int fd, const char *name,
                           const ts_csr *csr, const ts_mm_write_options *options);

/* The places a coordinate file of this shape and symmetry has (the
 * reader's bound on the declared entries). */
static int64_t coordinate_places(int64_t rows, int64_t cols, ts_symmetry symmetry) {
  if (symmetry == TS_GENERAL)
    return rows * cols;
  return symmetry == TS_SKEW_SYMMETRIC ? rows * (rows - 1) / 2 : rows * (rows + 1) / 2;
}

/* Check a COO and write it to path (or to fd when path is NULL). */
static ts_status write_coo(ts_context *ctx, const char *op, const char *path, int fd, const char *name,
                           const ts_coo *coo, const ts_mm_write_options *options) {
  mm_writer w;
  memset(&w, 0, sizeof w);
  ts_status st = check_options(ctx, op, name, options, &w);
  if (st != TS_SUCCESS)
    return st;
  if (!coo)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: coo is NULL", op);
  st = check_matrix(ctx, op, coo->rows, coo->cols, coo->nnz, coo->dtype, coo->symmetry,
                    coo->values || w.field == TS_MM_PATTERN);
  if (st == TS_SUCCESS)
    st = resolve_field(ctx, op, coo->dtype, &w.field);
  if (st != TS_SUCCESS)
    return st;
  const int32_t *row_idx = coo->row_idx, *col_idx = coo->col_idx;
  if (coo->nnz > 0 && (!row_idx || !col_idx))
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: NULL index array", op);
  /* More entries than places: duplicates, which readers (tessera's among
   * them) take for a malformed count; they are written summed. */
  if (coo->nnz > coordinate_places(coo->rows, coo->cols, coo->symmetry)) {
    ts_csr *summed = NULL;
    st = ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &summed);
    if (st == TS_SUCCESS)
      st = write_csr(ctx, op, path, fd, name, summed, options);
    ts_csr_destroy(summed);
    return st;
  }
  w.dtype = coo->dtype;
  w.symmetry = coo->symmetry;
  w.rows = coo->rows;
  w.cols = coo->cols;
  w.values = coo->values;
  st = writer_open(&w, path, fd);
  if (st == TS_SUCCESS)
    st = write_header(&w, coo->nnz);
  for (int64_t k = 0; k < coo->nnz && st == TS_SUCCESS && row_idx && col_idx; k++) {
    st = write_progress(ctx, k, coo->nnz);
    if (st == TS_SUCCESS)
      st = write_entry(&w, k, row_idx[k], col_idx[k]);
  }
  return writer_close(&w, st);
}

/* Check a CSR and write it to path (or to fd when path is NULL). */
static ts_status write_csr(ts_context *ctx, const char *op, const char *path, int fd, const char *name,
                           const ts_csr *csr, const ts_mm_write_options *options) {
  mm_writer w;
  memset(&w, 0, sizeof w);
  ts_status st = check_options(ctx, op, name, options, &w);
  if (st != TS_SUCCESS)
    return st;
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: csr is NULL", op);
  st = check_matrix(ctx, op, csr->rows, csr->cols, csr->nnz, csr->dtype, csr->symmetry,
                    csr->values || w.field == TS_MM_PATTERN);
  if (st == TS_SUCCESS)
    st = resolve_field(ctx, op, csr->dtype, &w.field);
  if (st != TS_SUCCESS)
    return st;
  const int32_t *col_idx = csr->col_idx;
  if (csr->nnz > 0 && !col_idx)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: NULL index array", op);
  if (!csr->row_ptr || csr->row_ptr[0] != 0 || csr->row_ptr[csr->rows] != csr->nnz)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: row offsets must run from 0 to nnz = %lld", op,
                     (long long)csr->nnz);
  w.dtype = csr->dtype;
  w.symmetry = csr->symmetry;
  w.rows = csr->rows;
  w.cols = csr->cols;
  w.values = csr->values;
  st = writer_open(&w, path, fd);
  if (st == TS_SUCCESS)
    st = write_header(&w, csr->nnz);
  for (int64_t row = 0; row < csr->rows && st == TS_SUCCESS; row++) {
    int64_t begin = csr->row_ptr[row], end = csr->row_ptr[row + 1];
    if (begin > end || end > csr->nnz) {
      st = tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: row offsets of row %lld (%lld..%lld) are not monotone", op,
                     (long long)row, (long long)begin, (long long)end);
      break;
    }
    for (int64_t k = begin; k < end && st == TS_SUCCESS && col_idx; k++) {
      st = write_progress(ctx, k, csr->nnz);
      if (st == TS_SUCCESS)
        st = write_entry(&w, k, row, col_idx[k]);
    }
  }
  return writer_close(&w, st);
}

ts_status ts_mm_write_coo(ts_context *ctx, const char *path, const ts_coo *coo, const ts_mm_write_options *options) {
  return write_coo(ctx, "ts_mm_write_coo", path, -1, path, coo, options);
}

ts_status ts_mm_write_csr(ts_context *ctx, const char *path, const ts_csr *csr, const ts_mm_write_options *options) {
  return write_csr(ctx, "ts_mm_write_csr", path, -1, path, csr, options);
}

/* The descriptor writers: a COO or a CSR (the other NULL) onto fd. */
static ts_status write_to_descriptor(ts_context *ctx, const char *op, int fd, const char *name, const ts_coo *coo,
                                     const ts_csr *csr, const ts_mm_write_options *options) {
  if (fd < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: descriptor %d is negative", op, fd);
  char scratch[32];
  name = tsi_mm_descriptor_name(fd, name, scratch, sizeof scratch);
  return coo ? write_coo(ctx, op, NULL, fd, name, coo, options) : write_csr(ctx, op, NULL, fd, name, csr, options);
}

ts_status ts_mm_write_coo_fd(ts_context *ctx, int fd, const char *name, const ts_coo *coo,
                             const ts_mm_write_options *options) {
  if (!coo)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_mm_write_coo_fd: coo is NULL");
  return write_to_descriptor(ctx, "ts_mm_write_coo_fd", fd, name, coo, NULL, options);
}

ts_status ts_mm_write_csr_fd(ts_context *ctx, int fd, const char *name, const ts_csr *csr,
                             const ts_mm_write_options *options) {
  if (!csr)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_mm_write_csr_fd: csr is NULL");
  return write_to_descriptor(ctx, "ts_mm_write_csr_fd", fd, name, NULL, csr, options);
}
