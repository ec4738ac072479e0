/* Value -> decimal text that reads back bit-identical (the writer's side of
 * the Matrix Market round trip). */
#include "mm_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int tsi_mm_format_uint64(char *out, uint64_t value) {
  char reversed[20];
  int length = 0;
  do {
    reversed[length++] = (char)('0' + value % 10u);
    value /= 10u;
  } while (value != 0);
  for (int i = 0; i < length; i++)
    out[i] = reversed[length - 1 - i];
  return length;
}

/* %g prints the locale's decimal point; Matrix Market wants '.'. Its other
 * characters are digits, signs and 'e'. */
static void use_dot_as_decimal_point(char *text, int length) {
  for (int i = 0; i < length; i++) {
    char c = text[i];
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e'))
      text[i] = '.';
  }
}

static int print_digits(char *out, double value, int digits) {
  int length = snprintf(out, 32, "%.*g", digits, value);
  if (length < 0 || length >= 32)
    return -1;
  use_dot_as_decimal_point(out, length);
  return length;
}

/* Whether the text in out[0, length) reads back as exactly value in dtype. */
static bool reads_back(char *out, int length, double value, ts_dtype dtype) {
  char saved = out[length];
  out[length] = '\n'; /* the parser stops at a delimiter */
  const char *pos = out;
  double parsed = 0.0;
  bool ok = tsi_mm_parse_double(&pos, &parsed) == TSI_MM_NUMBER_OK;
  out[length] = saved;
  if (!ok)
    return false;
  if (dtype == TS_FLOAT32)
    return (float)parsed == (float)value;
  return parsed == value;
}

/* Whether the digits hold "000" or "999" (before any exponent). */
static bool has_digit_run(const char *text, int length) {
  int zeros = 0, nines = 0;
  for (int i = 0; i < length && text[i] != 'e'; i++) {
    zeros = text[i] == '0' ? zeros + 1 : 0;
    nines = text[i] == '9' ? nines + 1 : 0;
    if (zeros >= 3 || nines >= 3)
      return true;
  }
  return false;
}

int tsi_mm_format_value(char *out, double value, ts_dtype dtype, int precision) {
  if (precision > 0)
    return print_digits(out, value, precision > 17 ? 17 : precision);
  /* Integral values (common: 1, -1, 4) without snprintf; -0 keeps its sign. */
  if (fabs(value) < 9007199254740992.0 && value == (double)(int64_t)value) {
    int length = 0;
    if (signbit(value))
      out[length++] = '-';
    return length + tsi_mm_format_uint64(out + length, (uint64_t)fabs(value));
  }
  /* 9 significant digits identify every float, 17 every double. A run of
   * zeros or nines in them means the value came from a shorter decimal
   * (0.1 prints as 0.10000000000000001): then the shorter form is tried and
   * kept when it reads back exactly. Other values cost one snprintf. */
  int longest = dtype == TS_FLOAT32 ? 9 : 17;
  int length = print_digits(out, value, longest);
  if (length <= 0 || !has_digit_run(out, length))
    return length;
  char shorter[32];
  int shorter_length = print_digits(shorter, value, dtype == TS_FLOAT32 ? 7 : 15);
  if (shorter_length > 0 && reads_back(shorter, shorter_length, value, dtype)) {
    memcpy(out, shorter, (size_t)shorter_length);
    return shorter_length;
  }
  return length;
}
