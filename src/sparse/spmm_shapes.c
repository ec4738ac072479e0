/* The dense operands of C = alpha*A*B + beta*C: width, layouts, leading
 * dimensions and their 64-bit sizes, checked once for the host call and the
 * plan. */
#include "spmm_internal.h"

/* One dense operand of rows x cols: its leading dimension (0 = packed) and
 * the elements it spans, or a refusal naming it. */
static ts_status dense_shape(ts_context *ctx, const char *op, const char *name, int64_t rows, int64_t cols,
                             ts_layout layout, int64_t ld, size_t value_size, tsi_dense_shape *out) {
  if (layout != TS_LAYOUT_ROW_MAJOR && layout != TS_LAYOUT_COL_MAJOR)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown layout %d for %s", op, (int)layout, name);
  const int64_t major = layout == TS_LAYOUT_ROW_MAJOR ? rows : cols; /* lines of the layout */
  const int64_t minor = layout == TS_LAYOUT_ROW_MAJOR ? cols : rows; /* entries of a line */
  if (ld < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: leading dimension %lld of %s is negative", op, (long long)ld,
                     name);
  if (ld == 0)
    ld = minor > 0 ? minor : 1;
  if (ld < minor)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: leading dimension %lld of %s (%lld x %lld, %s) is below the %lld entries of a %s", op,
                     (long long)ld, name, (long long)rows, (long long)cols, ts_layout_name(layout), (long long)minor,
                     layout == TS_LAYOUT_ROW_MAJOR ? "row" : "column");
  int64_t elements = 0, span = 0, bytes = 0;
  if (major > 0 && minor > 0) {
    if (tsi_mul_overflows(major - 1, ld, &span) || span > INT64_MAX - minor)
      return tsi_error(ctx, TS_ERROR_OVERFLOW,
                       "%s: %s (%lld x %lld, leading dimension %lld) spans more than 2^63 entries", op, name,
                       (long long)rows, (long long)cols, (long long)ld);
    elements = span + minor;
  }
  if (tsi_mul_overflows(elements, (int64_t)value_size, &bytes) || (uint64_t)bytes > (uint64_t)SIZE_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: %s (%lld x %lld, leading dimension %lld) spans more than 2^63 bytes",
                     op, name, (long long)rows, (long long)cols, (long long)ld);
  out->rows = rows;
  out->cols = cols;
  out->ld = ld;
  out->layout = layout;
  out->elements = elements;
  return TS_SUCCESS;
}

ts_status tsi_spmm_check_shapes(ts_context *ctx, const char *op, const ts_csr *a, int64_t width, ts_layout layout_b,
                                int64_t ld_b, ts_layout layout_c, int64_t ld_c, tsi_dense_shape *b,
                                tsi_dense_shape *c) {
  if (width < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: width %lld is negative", op, (long long)width);
  if (width > TS_MAX_DIMENSION)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: width %lld passes the 32-bit column limit %d", op, (long long)width,
                     TS_MAX_DIMENSION);
  size_t value_size = ts_dtype_size(a->dtype);
  if (value_size == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown value type %d", op, (int)a->dtype);
  ts_status st = dense_shape(ctx, op, "B", a->cols, width, layout_b, ld_b, value_size, b);
  if (st == TS_SUCCESS)
    st = dense_shape(ctx, op, "C", a->rows, width, layout_c, ld_c, value_size, c);
  return st;
}
