/* Number forms of option values: integers as 4096, 1e6, 1.5e3 or 2^20;
 * reals as finite decimal or scientific literals. */
#include "cli_options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Digits only, with an optional leading sign. */
static bool is_plain_integer(const char *text) {
  const char *p = text;
  if (*p == '+' || *p == '-')
    p++;
  if (!isdigit((unsigned char)*p))
    return false;
  while (isdigit((unsigned char)*p))
    p++;
  return *p == '\0';
}

static bool parse_plain_integer(const char *text, int64_t *value) {
  if (!is_plain_integer(text))
    return false;
  errno = 0;
  long long v = strtoll(text, NULL, 10);
  if (errno == ERANGE)
    return false;
  *value = (int64_t)v;
  return true;
}

/* base^exponent, both plain non-negative integers: 2^20. */
static bool parse_power(const char *text, const char *caret, int64_t *value) {
  char base_text[32];
  size_t base_length = (size_t)(caret - text);
  if (base_length == 0 || base_length >= sizeof base_text)
    return false;
  memcpy(base_text, text, base_length);
  base_text[base_length] = '\0';
  int64_t base, exponent;
  if (!parse_plain_integer(base_text, &base) || !parse_plain_integer(caret + 1, &exponent))
    return false;
  if (base < 0 || exponent < 0 || base_text[0] == '+' || caret[1] == '+')
    return false;
  int64_t result = 1;
  for (int64_t i = 0; i < exponent; i++) {
    if (base != 0 && result > INT64_MAX / base)
      return false;
    result *= base;
    if (result == 0 || result == 1)
      break; /* 0^n and 1^n stay put */
  }
  *value = result;
  return true;
}

/* A decimal or scientific literal taken digit by digit, so that it is accepted only when it
 * names an integer exactly (1.5e3 yes; 1.00000000000000001 and 9007199254740993e0 as written,
 * not as a double would round them). */
static bool parse_exact_scientific(const char *text, int64_t *value) {
  const char *p = text;
  bool negative = *p == '-';
  if (*p == '+' || *p == '-')
    p++;
  char digits[64];
  int count = 0, fraction_digits = 0, seen = 0;
  bool in_fraction = false;
  for (; *p && *p != 'e' && *p != 'E'; p++) {
    if (*p == '.') {
      if (in_fraction)
        return false;
      in_fraction = true;
      continue;
    }
    if (!isdigit((unsigned char)*p))
      return false;
    seen++;
    if (in_fraction)
      fraction_digits++;
    if (count == 0 && *p == '0')
      continue; /* leading zeros carry nothing */
    if (count == (int)sizeof digits)
      return false;
    digits[count++] = *p;
  }
  if (seen == 0)
    return false;
  int64_t exponent = 0;
  if (*p == 'e' || *p == 'E') {
    if (!parse_plain_integer(p + 1, &exponent) || exponent > 64 || exponent < -64)
      return false;
  }
  int64_t scale = exponent - fraction_digits;
  /* Digits shifted below the decimal point must all be zeros. */
  while (scale < 0 && count > 0) {
    if (digits[count - 1] != '0')
      return false;
    count--;
    scale++;
  }
  int64_t result = 0;
  for (int i = 0; i < count; i++) {
    if (result > (INT64_MAX - 9) / 10)
      return false;
    result = result * 10 + (digits[i] - '0');
  }
  for (; scale > 0 && result != 0; scale--) {
    if (result > INT64_MAX / 10)
      return false;
    result *= 10;
  }
  *value = negative ? -result : result;
  return true;
}

bool cli_parse_integer(const char *text, int64_t *value) {
  if (!text || !*text)
    return false;
  if (parse_plain_integer(text, value))
    return true;
  const char *caret = strchr(text, '^');
  if (caret)
    return parse_power(text, caret, value);
  /* Scientific notation that names an exact integer: 1e6, 1.5e3. */
  double real;
  if (!cli_parse_real(text, &real))
    return false;
  return parse_exact_scientific(text, value);
}

bool cli_parse_real(const char *text, double *value) {
  if (!text || !*text || isspace((unsigned char)*text))
    return false;
  for (const char *p = text; *p; p++)
    if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
      return false; /* no hex, inf, nan */
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
    return false;
  *value = v;
  return true;
}
