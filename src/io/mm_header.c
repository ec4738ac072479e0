/* The Matrix Market header: the %%MatrixMarket banner and the size line. */
#include "mm_internal.h"

#include <string.h>

void tsi_mm_describe_token(char *out, size_t out_size, const char *token) {
  size_t length = 0;
  while (length + 1 < out_size && length < 24 && !tsi_mm_is_delimiter(token[length]) && token[length] != '\0') {
    char c = token[length];
    out[length] = (c >= 0x20 && c < 0x7f) ? c : '?';
    length++;
  }
  out[length] = '\0';
}

/* Split a line into at most max_words blank-separated words; returns how
 * many there are (max_words + 1 when there are more). */
static int split_words(const char *begin, const char *end, const char **words, size_t *lengths, int max_words) {
  int count = 0;
  const char *p = begin;
  while (p < end) {
    while (p < end && (tsi_mm_is_blank(*p) || *p == '\r' || *p == '\n'))
      p++;
    if (p == end)
      break;
    const char *word = p;
    while (p < end && !tsi_mm_is_delimiter(*p))
      p++;
    if (count == max_words)
      return max_words + 1;
    words[count] = word;
    lengths[count] = (size_t)(p - word);
    count++;
  }
  return count;
}

static bool word_is(const char *word, size_t length, const char *lower) {
  if (strlen(lower) != length)
    return false;
  for (size_t i = 0; i < length; i++) {
    char c = word[i];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    if (c != lower[i])
      return false;
  }
  return true;
}

static ts_status parse_error(tsi_mm_parser *ps, ts_status status, const char *what, const char *word) {
  char shown[32] = "";
  if (word)
    tsi_mm_describe_token(shown, sizeof shown, word);
  return tsi_error(ps->ctx, status, "%s:%lld: %s%s%s%s", ps->name, (long long)ps->line, what, word ? " '" : "",
                   word ? shown : "", word ? "'" : "");
}

ts_status tsi_mm_parse_banner(tsi_mm_parser *ps, const char *begin, const char *end) {
  const char *words[5];
  size_t lengths[5];
  int count = split_words(begin, end, words, lengths, 5);
  if (count == 0 || !word_is(words[0], lengths[0], "%%matrixmarket"))
    return parse_error(ps, TS_ERROR_PARSE, "missing %%MatrixMarket banner", NULL);
  if (count < 5)
    return parse_error(ps, TS_ERROR_PARSE,
                       "incomplete banner: expected '%%MatrixMarket matrix <format> <field> <symmetry>'", NULL);
  if (count > 5)
    return parse_error(ps, TS_ERROR_PARSE, "unexpected text after the banner's symmetry", NULL);
  if (!word_is(words[1], lengths[1], "matrix"))
    return parse_error(ps, TS_ERROR_PARSE, "unknown object (expected 'matrix'):", words[1]);

  ts_mm_info *info = &ps->info;
  if (word_is(words[2], lengths[2], "coordinate"))
    info->format = TS_MM_COORDINATE;
  else if (word_is(words[2], lengths[2], "array"))
    info->format = TS_MM_ARRAY;
  else
    return parse_error(ps, TS_ERROR_PARSE, "unknown format (expected coordinate or array):", words[2]);

  if (word_is(words[3], lengths[3], "real"))
    info->field = TS_MM_REAL;
  else if (word_is(words[3], lengths[3], "integer"))
    info->field = TS_MM_INTEGER;
  else if (word_is(words[3], lengths[3], "pattern"))
    info->field = TS_MM_PATTERN;
  else if (word_is(words[3], lengths[3], "complex"))
    info->field = TS_MM_COMPLEX;
  else
    return parse_error(ps, TS_ERROR_PARSE, "unknown field (expected real, integer, pattern or complex):", words[3]);

  if (word_is(words[4], lengths[4], "general"))
    info->symmetry = TS_GENERAL;
  else if (word_is(words[4], lengths[4], "symmetric"))
    info->symmetry = TS_SYMMETRIC;
  else if (word_is(words[4], lengths[4], "skew-symmetric"))
    info->symmetry = TS_SKEW_SYMMETRIC;
  else if (word_is(words[4], lengths[4], "hermitian"))
    info->symmetry = TS_HERMITIAN;
  else
    return parse_error(ps, TS_ERROR_PARSE,
                       "unknown symmetry (expected general, symmetric, skew-symmetric or hermitian):", words[4]);

  if (info->field == TS_MM_PATTERN && info->format == TS_MM_ARRAY)
    return parse_error(ps, TS_ERROR_PARSE, "the pattern field needs the coordinate format", NULL);
  /* The Matrix Market definition has no skew-symmetric pattern: the signs would be lost. */
  if (info->field == TS_MM_PATTERN && info->symmetry == TS_SKEW_SYMMETRIC)
    return parse_error(ps, TS_ERROR_PARSE, "a pattern matrix cannot be skew-symmetric", NULL);
  if (info->field == TS_MM_COMPLEX && !ps->header_only && !TS_DTYPE_IS_COMPLEX(ps->dtype))
    return parse_error(ps, TS_ERROR_UNSUPPORTED,
                       "complex values cannot be read as real ones (read them as TS_COMPLEX64 or TS_COMPLEX128)", NULL);
  ps->stage = TSI_MM_STAGE_SIZE;
  return TS_SUCCESS;
}

/* One size: a non-negative integer; dimensions at most TS_MAX_DIMENSION. */
static ts_status parse_size(tsi_mm_parser *ps, const char **pos, const char *what, bool dimension, int64_t *value) {
  const char *p = *pos;
  while (tsi_mm_is_blank(*p))
    p++;
  const char *token = p;
  switch (tsi_mm_parse_int64(&p, value)) {
  case TSI_MM_NUMBER_OK:
    break;
  case TSI_MM_NUMBER_MISSING:
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: incomplete size line: missing %s (expected %s)", ps->name,
                     (long long)ps->line, what, ps->info.format == TS_MM_ARRAY ? "'rows cols'" : "'rows cols entries'");
  case TSI_MM_NUMBER_RANGE:
    return parse_error(ps, TS_ERROR_OVERFLOW, "size beyond 64-bit integers:", token);
  default:
    return parse_error(ps, TS_ERROR_PARSE, "size is not an integer:", token);
  }
  if (*value < 0)
    return parse_error(ps, TS_ERROR_PARSE, "negative size:", token);
  if (dimension && *value > TS_MAX_DIMENSION)
    return tsi_error(ps->ctx, TS_ERROR_OVERFLOW, "%s:%lld: %s %lld exceed the largest dimension %d", ps->name,
                     (long long)ps->line, what, (long long)*value, TS_MAX_DIMENSION);
  *pos = p;
  return TS_SUCCESS;
}

ts_status tsi_mm_parse_size_line(tsi_mm_parser *ps, const char *begin, const char *end) {
  (void)end;
  ts_mm_info *info = &ps->info;
  const char *p = begin;
  ts_status st = parse_size(ps, &p, "rows", true, &info->rows);
  if (st == TS_SUCCESS)
    st = parse_size(ps, &p, "columns", true, &info->cols);
  if (st != TS_SUCCESS)
    return st;
  bool square_storage = info->symmetry != TS_GENERAL;
  if (square_storage && info->rows != info->cols)
    return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: a %s matrix must be square, not %lld x %lld", ps->name,
                     (long long)ps->line, ts_symmetry_name(info->symmetry), (long long)info->rows,
                     (long long)info->cols);
  /* Dimensions are at most 2^31 - 1, so these products fit in int64. */
  int64_t n = info->rows;
  int64_t most;
  switch (info->symmetry) {
  case TS_GENERAL:
    most = info->rows * info->cols;
    break;
  case TS_SKEW_SYMMETRIC:
    most = n * (n - 1) / 2;
    break;
  default:
    most = n * (n + 1) / 2;
    break;
  }
  if (info->format == TS_MM_COORDINATE) {
    st = parse_size(ps, &p, "entries", false, &info->entries);
    if (st != TS_SUCCESS)
      return st;
    if (info->entries > most)
      return tsi_error(ps->ctx, TS_ERROR_PARSE,
                       "%s:%lld: %lld entries declared, more than the %lld places of a %s %lld x %lld matrix", ps->name,
                       (long long)ps->line, (long long)info->entries, (long long)most, ts_symmetry_name(info->symmetry),
                       (long long)info->rows, (long long)info->cols);
  } else {
    info->entries = most;
  }
  while (tsi_mm_is_blank(*p))
    p++;
  if (*p == '\r' && p[1] == '\n')
    p++;
  if (*p != '\n')
    return parse_error(ps, TS_ERROR_PARSE, "unexpected text after the size line:", p);
  return TS_SUCCESS;
}
