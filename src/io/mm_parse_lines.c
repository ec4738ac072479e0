/* Matrix Market text -> COO entries, one run of complete lines at a time
 * (the reader streams the input through this in large chunks). */
#include "core/complex_value.h"
#include "mm_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* First allocation when the input size is unknown (gzip, a pipe): the arrays
 * grow as entries arrive, so that what is allocated is what the text holds,
 * whatever count its header declares. */
#define INITIAL_ENTRIES_UNKNOWN_SIZE ((int64_t)1 << 12)

void tsi_mm_parser_init(tsi_mm_parser *ps, ts_context *ctx, const char *name, ts_dtype dtype, bool header_only,
                        int64_t input_bytes) {
  memset(ps, 0, sizeof *ps);
  ps->ctx = ctx;
  ps->name = name;
  ps->dtype = dtype;
  ps->header_only = header_only;
  ps->input_bytes = input_bytes;
  ps->stage = TSI_MM_STAGE_BANNER;
}

void tsi_mm_parser_release(tsi_mm_parser *ps) {
  ts_coo_destroy(ps->coo);
  ps->coo = NULL;
}

static const char *next_line(const char *p) {
  while (*p != '\n')
    p++;
  return p + 1;
}

/* A line holding only blanks (and "\r"), or a comment. */
static bool is_blank_or_comment(const char *p) {
  while (tsi_mm_is_blank(*p))
    p++;
  return *p == '\n' || *p == '%' || (*p == '\r' && p[1] == '\n');
}

/* Array format: the first stored row of column col. */
static int64_t array_first_row(const ts_mm_info *info, int64_t col) {
  switch (info->symmetry) {
  case TS_GENERAL:
    return 0;
  case TS_SKEW_SYMMETRIC:
    return col + 1;
  default:
    return col;
  }
}

/* The size line was read: allocate the COO for what the input can hold. */
static ts_status start_entries(tsi_mm_parser *ps) {
  ts_mm_info *info = &ps->info;
  int64_t capacity = info->entries;
  /* The shortest lines, "1 1\n" and "1\n", bound the entries a text can hold. */
  int64_t shortest_line = info->format == TS_MM_ARRAY ? 2 : 4;
  int64_t bound = ps->input_bytes >= 0 ? ps->input_bytes / shortest_line + 1 : INITIAL_ENTRIES_UNKNOWN_SIZE;
  if (capacity > bound)
    capacity = bound;
  ts_status st = ts_coo_create(ps->ctx, info->rows, info->cols, capacity, ps->dtype, &ps->coo);
  if (st != TS_SUCCESS)
    return st;
  ps->coo->symmetry = info->symmetry;
  ps->array_col = 0;
  ps->array_row = array_first_row(info, 0);
  ps->stage = info->entries == 0 ? TSI_MM_STAGE_TRAILER : TSI_MM_STAGE_ENTRIES;
  return TS_SUCCESS;
}

/* Room for one more entry: geometric growth, never past the declared count. */
static ts_status grow(tsi_mm_parser *ps) {
  ts_coo *coo = ps->coo;
  int64_t capacity = coo->capacity < 1024 ? 1024 : coo->capacity * 2;
  if (capacity > ps->info.entries)
    capacity = ps->info.entries;
  size_t value_size = ts_dtype_size(coo->dtype);
  int32_t *rows = realloc(coo->row_idx, (size_t)capacity * sizeof(int32_t));
  if (rows)
    coo->row_idx = rows;
  int32_t *cols = rows ? realloc(coo->col_idx, (size_t)capacity * sizeof(int32_t)) : NULL;
  if (cols)
    coo->col_idx = cols;
  void *values = cols ? realloc(coo->values, (size_t)capacity * value_size) : NULL;
  if (values)
    coo->values = values;
  if (!values)
    return tsi_error(ps->ctx, TS_ERROR_OUT_OF_MEMORY, "%s:%lld: cannot allocate %lld entries", ps->name,
                     (long long)ps->line, (long long)capacity);
  /* The arrays that were grown keep their larger size; capacity counts the smallest. */
  coo->capacity = capacity;
  return TS_SUCCESS;
}

static ts_status number_error(tsi_mm_parser *ps, tsi_mm_number_error error, const char *what, const char *token) {
  char shown[32];
  tsi_mm_describe_token(shown, sizeof shown, token);
  long long line = (long long)ps->line;
  switch (error) {
  case TSI_MM_NUMBER_MISSING:
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: missing %s", ps->name, line, what);
  case TSI_MM_NUMBER_RANGE:
    if (strcmp(what, "value") == 0)
      return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: value '%s' is out of range (beyond the largest double, %g)",
                       ps->name, line, shown, DBL_MAX);
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: %s '%s' is out of range", ps->name, line, what, shown);
  case TSI_MM_NUMBER_UNDERFLOW:
    return tsi_error(ps->ctx, TS_ERROR_PARSE,
                     "%s:%lld: value '%s' is out of range (not zero, but below the smallest double, %g)", ps->name,
                     line, shown, 4.9406564584124654e-324);
  case TSI_MM_NUMBER_NONFINITE:
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: non-finite value '%s'", ps->name, line, shown);
  case TSI_MM_NUMBER_MEMORY:
    return tsi_error(ps->ctx, TS_ERROR_OUT_OF_MEMORY, "%s:%lld: cannot copy a long number", ps->name, line);
  default:
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: %s '%s' is not %s", ps->name, line, what, shown,
                     strcmp(what, "value") == 0 ? "a number" : "an integer");
  }
}

static ts_status parse_index(tsi_mm_parser *ps, const char **pos, const char *what, int64_t limit, int64_t *index) {
  const char *p = *pos;
  while (tsi_mm_is_blank(*p))
    p++;
  const char *token = p;
  tsi_mm_number_error error = tsi_mm_parse_int64(&p, index);
  if (error != TSI_MM_NUMBER_OK)
    return number_error(ps, error, what, token);
  if (*index < 1 || *index > limit)
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: %s %lld out of range 1..%lld", ps->name, (long long)ps->line,
                     what, (long long)*index, (long long)limit);
  *pos = p;
  return TS_SUCCESS;
}

/* One number of the value field: real, or integer digits only. */
static ts_status parse_number(tsi_mm_parser *ps, const char **pos, double *value) {
  const char *p = *pos;
  while (tsi_mm_is_blank(*p))
    p++;
  const char *token = p;
  tsi_mm_number_error error;
  if (ps->info.field == TS_MM_INTEGER) {
    error = tsi_mm_parse_integer_value(&p, value);
    if (error == TSI_MM_NUMBER_SYNTAX) {
      char shown[32];
      tsi_mm_describe_token(shown, sizeof shown, token);
      return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: value '%s' is not an integer (integer field)", ps->name,
                       (long long)ps->line, shown);
    }
  } else {
    error = tsi_mm_parse_double(&p, value);
  }
  if (error != TSI_MM_NUMBER_OK)
    return number_error(ps, error, "value", token);
  /* Single precision rounds the double as C does; only a result that would
   * be infinite is refused (a tiny value becoming 0 is precision lost, as
   * with any rounding). */
  if ((ps->dtype == TS_FLOAT32 || ps->dtype == TS_COMPLEX64) && isinf((float)*value))
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: value %g is out of the range of float (beyond %g)", ps->name,
                     (long long)ps->line, *value, (double)FLT_MAX);
  *pos = p;
  return TS_SUCCESS;
}

/* The value field: absent for pattern (1), one number for real and
 * integer, two (real and imaginary parts) for complex. */
static ts_status parse_value(tsi_mm_parser *ps, const char **pos, tsi_complex128 *value) {
  *value = tsi_z(1.0, 0.0);
  if (ps->info.field == TS_MM_PATTERN)
    return TS_SUCCESS;
  ts_status st = parse_number(ps, pos, &value->re);
  if (st == TS_SUCCESS && ps->info.field == TS_MM_COMPLEX) {
    const char *p = *pos;
    while (tsi_mm_is_blank(*p))
      p++;
    if (*p == '\n' || (*p == '\r' && p[1] == '\n'))
      return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: missing imaginary part (complex field: 're im')", ps->name,
                       (long long)ps->line);
    st = parse_number(ps, pos, &value->im);
  }
  return st;
}

/* Nothing but blanks may follow the last field. */
static ts_status expect_line_end(tsi_mm_parser *ps, const char **pos) {
  const char *p = *pos;
  while (tsi_mm_is_blank(*p))
    p++;
  if (*p == '\r' && p[1] == '\n')
    p++;
  if (*p != '\n') {
    char shown[32];
    tsi_mm_describe_token(shown, sizeof shown, p);
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: unexpected text '%s' after the entry", ps->name,
                     (long long)ps->line, shown);
  }
  *pos = p + 1;
  return TS_SUCCESS;
}

static void store(tsi_mm_parser *ps, int64_t row, int64_t col, tsi_complex128 value) {
  ts_coo *coo = ps->coo;
  int64_t k = ps->entries_read++;
  coo->row_idx[k] = (int32_t)row;
  coo->col_idx[k] = (int32_t)col;
  tsi_value_set(ps->dtype, coo->values, k, value);
  coo->nnz = ps->entries_read;
}

/* A hermitian matrix's diagonal is real (A(i,i) = conj(A(i,i))). */
static ts_status check_hermitian_diagonal(tsi_mm_parser *ps, int64_t row, int64_t col, tsi_complex128 value) {
  if (ps->info.symmetry != TS_HERMITIAN || row != col || value.im == 0.0)
    return TS_SUCCESS;
  return tsi_error(ps->ctx, TS_ERROR_PARSE,
                   "%s:%lld: diagonal entry (%lld, %lld) of a hermitian matrix has the imaginary part %g (it must be "
                   "real)",
                   ps->name, (long long)ps->line, (long long)row, (long long)col, value.im);
}

/* One coordinate line "i j [value]" holding an entry. */
static ts_status parse_coordinate_entry(tsi_mm_parser *ps, const char **pos) {
  const ts_mm_info *info = &ps->info;
  int64_t row, col;
  tsi_complex128 value;
  ts_status st = parse_index(ps, pos, "row index", info->rows, &row);
  if (st == TS_SUCCESS)
    st = parse_index(ps, pos, "column index", info->cols, &col);
  if (st == TS_SUCCESS)
    st = parse_value(ps, pos, &value);
  if (st == TS_SUCCESS)
    st = expect_line_end(ps, pos);
  if (st != TS_SUCCESS)
    return st;
  if (info->symmetry != TS_GENERAL && row < col)
    return tsi_error(ps->ctx, TS_ERROR_PARSE,
                     "%s:%lld: entry (%lld, %lld) above the diagonal in a %s file (only the lower triangle is stored)",
                     ps->name, (long long)ps->line, (long long)row, (long long)col, ts_symmetry_name(info->symmetry));
  if (info->symmetry == TS_SKEW_SYMMETRIC && row == col)
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: diagonal entry (%lld, %lld) in a skew-symmetric file", ps->name,
                     (long long)ps->line, (long long)row, (long long)col);
  if ((st = check_hermitian_diagonal(ps, row, col, value)) != TS_SUCCESS)
    return st;
  if (ps->entries_read == ps->coo->capacity && (st = grow(ps)) != TS_SUCCESS)
    return st;
  store(ps, row - 1, col - 1, value);
  return TS_SUCCESS;
}

/* One array line: the next value in column-major order of the stored part. */
static ts_status parse_array_entry(tsi_mm_parser *ps, const char **pos) {
  tsi_complex128 value;
  ts_status st = parse_value(ps, pos, &value);
  if (st == TS_SUCCESS)
    st = expect_line_end(ps, pos);
  if (st == TS_SUCCESS)
    st = check_hermitian_diagonal(ps, ps->array_row + 1, ps->array_col + 1, value);
  if (st != TS_SUCCESS)
    return st;
  if (ps->entries_read == ps->coo->capacity && (st = grow(ps)) != TS_SUCCESS)
    return st;
  store(ps, ps->array_row, ps->array_col, value);
  const ts_mm_info *info = &ps->info;
  if (++ps->array_row >= info->rows) {
    do {
      ps->array_col++;
      ps->array_row = array_first_row(info, ps->array_col);
    } while (ps->array_col < info->cols && ps->array_row >= info->rows);
  }
  return TS_SUCCESS;
}

ts_status tsi_mm_parse_lines(tsi_mm_parser *ps, const char *begin, const char *end) {
  const char *p = begin;
  while (p < end) {
    if (ps->stage == TSI_MM_STAGE_ENTRIES) {
      /* The hot loop: one entry per line, comments and blank lines skipped. */
      const int64_t declared = ps->info.entries;
      while (p < end && ps->entries_read < declared) {
        ps->line++;
        ps->line_begin = p;
        const char *q = p;
        while (tsi_mm_is_blank(*q))
          q++;
        if (*q == '%' || *q == '\n' || (*q == '\r' && q[1] == '\n')) {
          p = next_line(q);
          continue;
        }
        ts_status st = ps->info.format == TS_MM_COORDINATE ? parse_coordinate_entry(ps, &q) : parse_array_entry(ps, &q);
        if (st != TS_SUCCESS)
          return st;
        p = q;
      }
      if (ps->entries_read == declared)
        ps->stage = TSI_MM_STAGE_TRAILER;
      continue;
    }
    if (ps->stage == TSI_MM_STAGE_STOPPED)
      return TS_SUCCESS;
    ps->line++;
    ps->line_begin = p;
    const char *line_end = next_line(p);
    ts_status st = TS_SUCCESS;
    switch (ps->stage) {
    case TSI_MM_STAGE_BANNER:
      st = tsi_mm_parse_banner(ps, p, line_end);
      break;
    case TSI_MM_STAGE_SIZE:
      if (is_blank_or_comment(p))
        break;
      st = tsi_mm_parse_size_line(ps, p, line_end);
      if (st != TS_SUCCESS)
        break;
      if (ps->header_only)
        ps->stage = TSI_MM_STAGE_STOPPED;
      else
        st = start_entries(ps);
      break;
    case TSI_MM_STAGE_TRAILER:
      if (!is_blank_or_comment(p))
        return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: more entries than the %lld declared", ps->name,
                         (long long)ps->line, (long long)ps->info.entries);
      break;
    default:
      break;
    }
    if (st != TS_SUCCESS)
      return st;
    p = line_end;
  }
  return TS_SUCCESS;
}

ts_status tsi_mm_parser_finish(tsi_mm_parser *ps) {
  long long line = ps->line > 0 ? (long long)ps->line : 1;
  switch (ps->stage) {
  case TSI_MM_STAGE_BANNER:
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: empty input: missing %%%%MatrixMarket banner", ps->name, line);
  case TSI_MM_STAGE_SIZE:
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: input ends before the size line", ps->name, line);
  case TSI_MM_STAGE_ENTRIES:
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: input ends after %lld of the %lld entries declared", ps->name,
                     line, (long long)ps->entries_read, (long long)ps->info.entries);
  default:
    return TS_SUCCESS;
  }
}
