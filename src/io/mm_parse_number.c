/* Decimal text -> int64 and -> double (correctly rounded, equal to strtod),
 * without sscanf: the hot path of the Matrix Market reader. */
#include "mm_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline bool is_digit(char c) { return (unsigned char)(c - '0') < 10; }

/* True where a field is absent: the line ends (optionally with "\r\n"). */
static inline bool at_line_end(const char *p) { return *p == '\n' || (*p == '\r' && p[1] == '\n'); }

tsi_mm_number_error tsi_mm_parse_int64(const char **pos, int64_t *value) {
  const char *p = *pos;
  if (at_line_end(p))
    return TSI_MM_NUMBER_MISSING;
  bool negative = false;
  if (*p == '+' || *p == '-') {
    negative = *p == '-';
    p++;
  }
  if (!is_digit(*p))
    return TSI_MM_NUMBER_SYNTAX;
  /* Accumulate in uint64; the limit is 2^63 - 1, or 2^63 for negatives. */
  const uint64_t limit = negative ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
  uint64_t magnitude = 0;
  bool too_large = false;
  for (; is_digit(*p); p++) {
    uint64_t digit = (uint64_t)(*p - '0');
    if (magnitude > (limit - digit) / 10u)
      too_large = true;
    else
      magnitude = magnitude * 10u + digit;
  }
  if (!tsi_mm_is_delimiter(*p))
    return TSI_MM_NUMBER_SYNTAX;
  if (too_large)
    return TSI_MM_NUMBER_RANGE;
  *value = negative ? (int64_t)(0u - magnitude) : (int64_t)magnitude;
  *pos = p;
  return TSI_MM_NUMBER_OK;
}

/* Powers of ten that a double holds exactly (10^22 < 2^53 * 2^22). */
static const double exact_power_of_ten[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                              1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Case-insensitive comparison of [begin, end) with a lower-case word. */
static bool token_is(const char *begin, const char *end, const char *word) {
  size_t length = strlen(word);
  if ((size_t)(end - begin) != length)
    return false;
  for (size_t i = 0; i < length; i++)
    if ((begin[i] | 0x20) != word[i])
      return false;
  return true;
}

/* The slow, always-right path: strtod on a terminated copy. The token
 * already matched the decimal grammar, so strtod reads all of it. */
static tsi_mm_number_error parse_with_strtod(const char *begin, const char *end, double *value) {
  double result = 0.0;
  tsi_decimal_status status = tsi_decimal_to_double(begin, (size_t)(end - begin), &result);
  if (status == TSI_DECIMAL_NO_MEMORY)
    return TSI_MM_NUMBER_MEMORY;
  if (status != TSI_DECIMAL_OK)
    return TSI_MM_NUMBER_SYNTAX;
  if (isinf(result))
    return TSI_MM_NUMBER_RANGE;
  /* The caller has seen a non-zero digit: 0 here means the value lies below
   * the smallest subnormal, refused as 1e400 is (not read as 0). */
  if (result == 0.0)
    return TSI_MM_NUMBER_UNDERFLOW;
  *value = result;
  return TSI_MM_NUMBER_OK;
}

#if defined(__x86_64__) && defined(__linux__) && LDBL_MANT_DIG == 64
#define HAVE_X87_EXTENDED 1
/* Powers of ten that the x87 64-bit significand holds exactly (5^27 < 2^64). */
static const long double exact_power_of_ten_extended[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
    1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* Whether long double arithmetic runs with its full 64-bit significand (the
 * x87 precision control could have been lowered by the program). */
static bool extended_precision_active(void) {
  static _Atomic int state; /* 0 unknown, 1 yes, 2 no */
  int known = state;
  if (known == 0) {
    volatile long double one = 1.0L, tiny = 0x1p-63L;
    known = (one + tiny != one) ? 1 : 2;
    state = known;
  }
  return known == 1;
}
#endif

/*
 * Second fast path, for the 17 to 19 significant digits that exact double
 * printers (%.17g) write and that pass 2^53: with x86-64's 80-bit long
 * double, w (< 2^64) and 10^|e| (|e| <= 27) are exact, so q = w * 10^e or
 * w / 10^e is rounded once to 64 bits. Rounding q again to 53 bits gives the
 * correctly rounded double unless q lies exactly on a halfway point between
 * two doubles (low 11 bits 100 0000 0000): since halfway points are
 * representable and rounding is monotone, q and the exact quotient are then
 * on the same side of every halfway point. Ties go to strtod. (The double
 * rounding argument is that of S. Figueroa, "When is double rounding
 * innocuous?", SIGNUM Newsletter 30(3), 1995.)
 */
static bool parse_with_extended_precision(uint64_t mantissa, int64_t exponent, double *value) {
#ifdef HAVE_X87_EXTENDED
  if (exponent < -27 || exponent > 27 || !extended_precision_active())
    return false;
  long double q = exponent >= 0 ? (long double)mantissa * exact_power_of_ten_extended[exponent]
                                : (long double)mantissa / exact_power_of_ten_extended[-exponent];
  /* q >= 1e-27 and < 2^64 * 1e27: a normal number whose double is normal too. */
  uint64_t significand;
  memcpy(&significand, &q, sizeof significand); /* x87 layout: the 64-bit significand first */
  if ((significand & 0x7ffu) == 0x400u)
    return false;
  *value = (double)q;
  return true;
#else
  (void)mantissa;
  (void)exponent;
  (void)value;
  return false;
#endif
}

/*
 * Fast path after W. D. Clinger, "How to read floating point numbers
 * accurately" (PLDI 1990): when the decimal mantissa w is at most 2^53 and
 * the power of ten |e| <= 22, both w and 10^e are exact doubles, so one
 * IEEE multiplication or division rounds w * 10^e correctly. Longer mantissas
 * (up to 19 digits) take the extended-precision path above; everything else
 * (more than 19 significant digits, large exponents, ties) goes to strtod.
 */
tsi_mm_number_error tsi_mm_parse_integer_value(const char **pos, double *value) {
  const char *p = *pos;
  if (at_line_end(p))
    return TSI_MM_NUMBER_MISSING;
  if (*p == '+' || *p == '-')
    p++;
  if (!is_digit(*p))
    return TSI_MM_NUMBER_SYNTAX;
  while (is_digit(*p))
    p++;
  if (!tsi_mm_is_delimiter(*p))
    return TSI_MM_NUMBER_SYNTAX;
  return tsi_mm_parse_double(pos, value);
}

tsi_mm_number_error tsi_mm_parse_double(const char **pos, double *value) {
  const char *start = *pos;
  const char *p = start;
  if (at_line_end(p))
    return TSI_MM_NUMBER_MISSING;
  bool negative = false;
  if (*p == '+' || *p == '-') {
    negative = *p == '-';
    p++;
  }
  if ((*p | 0x20) == 'n' || (*p | 0x20) == 'i') {
    const char *word = p;
    while (!tsi_mm_is_delimiter(*p))
      p++;
    if (token_is(word, p, "nan") || token_is(word, p, "inf") || token_is(word, p, "infinity"))
      return TSI_MM_NUMBER_NONFINITE;
    return TSI_MM_NUMBER_SYNTAX;
  }

  uint64_t mantissa = 0; /* the first 19 significant digits */
  int significant = 0;
  int64_t exponent = 0; /* value = mantissa * 10^exponent (before dropped digits) */
  bool dropped_nonzero = false;
  bool any_digit = false;
  for (; is_digit(*p); p++) {
    any_digit = true;
    int digit = *p - '0';
    if (significant < 19) {
      if (mantissa != 0 || digit != 0) {
        mantissa = mantissa * 10u + (uint64_t)digit;
        significant++;
      }
    } else {
      exponent++;
      dropped_nonzero |= digit != 0;
    }
  }
  if (*p == '.') {
    p++;
    for (; is_digit(*p); p++) {
      any_digit = true;
      int digit = *p - '0';
      if (significant < 19) {
        exponent--;
        if (mantissa != 0 || digit != 0) {
          mantissa = mantissa * 10u + (uint64_t)digit;
          significant++;
        }
      } else {
        dropped_nonzero |= digit != 0;
      }
    }
  }
  if (!any_digit)
    return TSI_MM_NUMBER_SYNTAX;
  if (*p == 'e' || *p == 'E') {
    p++;
    bool exponent_negative = false;
    if (*p == '+' || *p == '-') {
      exponent_negative = *p == '-';
      p++;
    }
    if (!is_digit(*p))
      return TSI_MM_NUMBER_SYNTAX;
    int64_t written = 0;
    for (; is_digit(*p); p++)
      if (written < 100000000)
        written = written * 10 + (*p - '0'); /* far past any double */
    exponent += exponent_negative ? -written : written;
  }
  if (!tsi_mm_is_delimiter(*p))
    return TSI_MM_NUMBER_SYNTAX;
  *pos = p;

  if (mantissa == 0) {
    *value = negative ? -0.0 : 0.0;
    return TSI_MM_NUMBER_OK;
  }
  const uint64_t two_to_53 = (uint64_t)1 << 53;
  if (!dropped_nonzero && mantissa <= two_to_53) {
    double result;
    bool exact = true;
    if (exponent >= 0 && exponent <= 22) {
      result = (double)mantissa * exact_power_of_ten[exponent];
    } else if (exponent < 0 && exponent >= -22) {
      result = (double)mantissa / exact_power_of_ten[-exponent];
    } else if (exponent > 22 && exponent <= 22 + 16) {
      /* "12e30": move the surplus power into the integer while it stays exact. */
      uint64_t scaled = mantissa;
      for (int64_t e = exponent; e > 22 && exact; e--) {
        if (scaled > two_to_53 / 10u)
          exact = false;
        else
          scaled *= 10u;
      }
      result = (double)scaled * 1e22;
    } else {
      exact = false;
      result = 0.0;
    }
    if (exact) {
      *value = negative ? -result : result;
      return TSI_MM_NUMBER_OK;
    }
  }
  if (!dropped_nonzero && parse_with_extended_precision(mantissa, exponent, value)) {
    if (negative)
      *value = -*value;
    return TSI_MM_NUMBER_OK;
  }
  tsi_mm_number_error status = parse_with_strtod(start, p, value);
  if (status != TSI_MM_NUMBER_OK)
    *pos = start;
  return status;
}
