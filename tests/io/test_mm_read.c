/* Matrix Market reading and writing: every header variant against
 * hand-written expected entries, number formats against strtod bit for bit,
 * gzip input and output, and write -> read round trips. */
#include "test_common.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <zlib.h>

/* Read text through ts_mm_read_memory from an exact-size copy without a
 * NUL, so that AddressSanitizer sees any read past the end. */
static ts_status read_text_sized(ts_context *ctx, const char *text, size_t size, ts_dtype dtype, ts_coo **coo,
                                 ts_mm_info *info) {
  char *copy = malloc(size ? size : 1);
  if (size)
    memcpy(copy, text, size);
  ts_status st = ts_mm_read_memory(ctx, copy, size, dtype, coo, info);
  free(copy);
  return st;
}

static ts_status read_text(ts_context *ctx, const char *text, ts_dtype dtype, ts_coo **coo, ts_mm_info *info) {
  return read_text_sized(ctx, text, strlen(text), dtype, coo, info);
}

static double coo_value(const ts_coo *coo, int64_t k) {
  return coo->dtype == TS_FLOAT32 ? (double)((const float *)coo->values)[k] : ((const double *)coo->values)[k];
}

/* Compare a COO with expected zero-based entries, in order. */
static void expect_entries(const char *what, const ts_coo *coo, int64_t rows, int64_t cols, ts_symmetry symmetry,
                           int64_t nnz, const int *erows, const int *ecols, const double *evalues) {
  CHECK_MSG(coo != NULL, "%s: no matrix", what);
  if (!coo)
    return;
  CHECK_MSG(coo->rows == rows && coo->cols == cols && coo->nnz == nnz && coo->symmetry == symmetry,
            "%s: got %lld x %lld, %lld entries, %s", what, (long long)coo->rows, (long long)coo->cols,
            (long long)coo->nnz, ts_symmetry_name(coo->symmetry));
  if (coo->nnz != nnz)
    return;
  for (int64_t k = 0; k < nnz; k++)
    CHECK_MSG(coo->row_idx[k] == erows[k] && coo->col_idx[k] == ecols[k] && coo_value(coo, k) == evalues[k],
              "%s: entry %lld is (%d, %d, %g), want (%d, %d, %g)", what, (long long)k, coo->row_idx[k], coo->col_idx[k],
              coo_value(coo, k), erows[k], ecols[k], evalues[k]);
  CHECK(ts_coo_check(NULL, coo) == TS_SUCCESS);
}

static void test_coordinate_variants(ts_context *ctx) {
  ts_coo *coo = NULL;
  ts_mm_info info;

  /* General real, with comments and blank lines everywhere after the banner. */
  const char *general = "%%MatrixMarket matrix coordinate real general\n"
                        "% a comment\n"
                        "\n"
                        "  % an indented comment\n"
                        "3 4 4\n"
                        "1 1 1.5\n"
                        "% between entries\n"
                        "\n"
                        "3 4 -2\n"
                        "2 2 0\n" /* explicit zero: kept */
                        "3 1 1e3\n"
                        "% trailing comment\n"
                        "\n";
  CHECK_OK(ctx, read_text(ctx, general, TS_FLOAT64, &coo, &info));
  {
    int r[] = {0, 2, 1, 2}, c[] = {0, 3, 1, 0};
    double v[] = {1.5, -2, 0, 1000};
    expect_entries("general", coo, 3, 4, TS_GENERAL, 4, r, c, v);
    CHECK(info.format == TS_MM_COORDINATE && info.field == TS_MM_REAL && info.symmetry == TS_GENERAL);
    CHECK(info.rows == 3 && info.cols == 4 && info.entries == 4);
  }
  ts_coo_destroy(coo);

  /* CRLF line endings, tabs and trailing blanks, keywords in any case. */
  const char *crlf = "%%matrixmarket MATRIX Coordinate REAL General\r\n"
                     "%comment\r\n"
                     "\r\n"
                     " 2\t2  2 \r\n"
                     "\t1 2\t-.5  \r\n"
                     "2 1 +2\r\n";
  CHECK_OK(ctx, read_text(ctx, crlf, TS_FLOAT64, &coo, NULL));
  {
    int r[] = {0, 1}, c[] = {1, 0};
    double v[] = {-0.5, 2};
    expect_entries("crlf", coo, 2, 2, TS_GENERAL, 2, r, c, v);
  }
  ts_coo_destroy(coo);

  /* Integer symmetric: the lower triangle as stored, symmetry tag set. */
  const char *symmetric = "%%MatrixMarket matrix coordinate integer symmetric\n"
                          "3 3 4\n"
                          "1 1 4\n"
                          "2 1 -1\n"
                          "3 3 7\n"
                          "3 2 -12345\n";
  CHECK_OK(ctx, read_text(ctx, symmetric, TS_FLOAT64, &coo, &info));
  {
    int r[] = {0, 1, 2, 2}, c[] = {0, 0, 2, 1};
    double v[] = {4, -1, 7, -12345};
    expect_entries("integer symmetric", coo, 3, 3, TS_SYMMETRIC, 4, r, c, v);
    CHECK(info.field == TS_MM_INTEGER);
  }
  ts_coo_destroy(coo);

  /* Pattern: every entry reads as 1. */
  const char *pattern = "%%MatrixMarket matrix coordinate pattern general\n"
                        "2 3 3\n"
                        "1 3\n"
                        "2 1\n"
                        "2 2\n";
  CHECK_OK(ctx, read_text(ctx, pattern, TS_FLOAT32, &coo, &info));
  {
    int r[] = {0, 1, 1}, c[] = {2, 0, 1};
    double v[] = {1, 1, 1};
    expect_entries("pattern", coo, 2, 3, TS_GENERAL, 3, r, c, v);
    CHECK(info.field == TS_MM_PATTERN && coo && coo->dtype == TS_FLOAT32);
  }
  ts_coo_destroy(coo);

  /* Symmetric pattern. */
  const char *symmetric_pattern = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n";
  CHECK_OK(ctx, read_text(ctx, symmetric_pattern, TS_FLOAT64, &coo, NULL));
  {
    int r[] = {1, 2}, c[] = {0, 2};
    double v[] = {1, 1};
    expect_entries("symmetric pattern", coo, 3, 3, TS_SYMMETRIC, 2, r, c, v);
  }
  ts_coo_destroy(coo);

  /* Skew-symmetric: strictly lower. */
  const char *skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 0.25\n3 2 -8\n";
  CHECK_OK(ctx, read_text(ctx, skew, TS_FLOAT64, &coo, NULL));
  {
    int r[] = {1, 2}, c[] = {0, 1};
    double v[] = {0.25, -8};
    expect_entries("skew", coo, 3, 3, TS_SKEW_SYMMETRIC, 2, r, c, v);
  }
  ts_coo_destroy(coo);

  /* Hermitian (real values): as symmetric. */
  const char *hermitian = "%%MatrixMarket matrix coordinate real hermitian\n2 2 3\n1 1 2\n2 1 3\n2 2 4\n";
  CHECK_OK(ctx, read_text(ctx, hermitian, TS_FLOAT64, &coo, NULL));
  {
    int r[] = {0, 1, 1}, c[] = {0, 0, 1};
    double v[] = {2, 3, 4};
    expect_entries("hermitian", coo, 2, 2, TS_HERMITIAN, 3, r, c, v);
  }
  ts_coo_destroy(coo);

  /* No entries at all, and an empty matrix. */
  CHECK_OK(ctx, read_text(ctx, "%%MatrixMarket matrix coordinate real general\n3 4 0\n", TS_FLOAT64, &coo, NULL));
  expect_entries("no entries", coo, 3, 4, TS_GENERAL, 0, NULL, NULL, NULL);
  ts_coo_destroy(coo);
  CHECK_OK(ctx, read_text(ctx, "%%MatrixMarket matrix coordinate real general\n0 0 0", TS_FLOAT64, &coo, NULL));
  expect_entries("0 x 0", coo, 0, 0, TS_GENERAL, 0, NULL, NULL, NULL);
  ts_coo_destroy(coo);

  /* Complex is refused with the banner's line. */
  CHECK_STATUS(
      ctx, read_text(ctx, "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", TS_FLOAT64, &coo, NULL),
      TS_ERROR_UNSUPPORTED);
  CHECK(strstr(ts_last_error(ctx), "<memory>:1:") != NULL);
  CHECK(coo == NULL);
}

static void test_array_variants(ts_context *ctx) {
  ts_coo *coo = NULL;
  ts_mm_info info;
  /* General 2 x 3, column-major: every value is an entry, zeros included. */
  const char *general = "%%MatrixMarket matrix array real general\n% comment\n2 3\n1\n2\n3\n0\n5\n6\n";
  CHECK_OK(ctx, read_text(ctx, general, TS_FLOAT64, &coo, &info));
  {
    int r[] = {0, 1, 0, 1, 0, 1}, c[] = {0, 0, 1, 1, 2, 2};
    double v[] = {1, 2, 3, 0, 5, 6};
    expect_entries("array general", coo, 2, 3, TS_GENERAL, 6, r, c, v);
    CHECK(info.format == TS_MM_ARRAY && info.entries == 6);
  }
  ts_coo_destroy(coo);

  /* Symmetric 3 x 3: lower triangle including the diagonal, by columns. */
  const char *symmetric = "%%MatrixMarket matrix array real symmetric\n3 3\n11\n21\n31\n22\n32\n33\n";
  CHECK_OK(ctx, read_text(ctx, symmetric, TS_FLOAT64, &coo, &info));
  {
    int r[] = {0, 1, 2, 1, 2, 2}, c[] = {0, 0, 0, 1, 1, 2};
    double v[] = {11, 21, 31, 22, 32, 33};
    expect_entries("array symmetric", coo, 3, 3, TS_SYMMETRIC, 6, r, c, v);
    CHECK(info.entries == 6);
  }
  ts_coo_destroy(coo);

  /* Skew-symmetric 4 x 4: strictly lower, by columns. */
  const char *skew = "%%MatrixMarket matrix array real skew-symmetric\n4 4\n21\n31\n41\n32\n42\n43\n";
  CHECK_OK(ctx, read_text(ctx, skew, TS_FLOAT64, &coo, &info));
  {
    int r[] = {1, 2, 3, 2, 3, 3}, c[] = {0, 0, 0, 1, 1, 2};
    double v[] = {21, 31, 41, 32, 42, 43};
    expect_entries("array skew", coo, 4, 4, TS_SKEW_SYMMETRIC, 6, r, c, v);
  }
  ts_coo_destroy(coo);

  /* Integer array, float values. */
  const char *integer = "%%MatrixMarket matrix array integer general\n1 2\n-3\n+4\n";
  CHECK_OK(ctx, read_text(ctx, integer, TS_FLOAT32, &coo, NULL));
  {
    int r[] = {0, 0}, c[] = {0, 1};
    double v[] = {-3, 4};
    expect_entries("array integer", coo, 1, 2, TS_GENERAL, 2, r, c, v);
  }
  ts_coo_destroy(coo);

  /* Pattern needs coordinates. */
  CHECK_STATUS(ctx, read_text(ctx, "%%MatrixMarket matrix array pattern general\n1 1\n", TS_FLOAT64, &coo, NULL),
               TS_ERROR_PARSE);
}

/* Text that is not NUL-terminated and ends in the middle of a line. */
static void test_unterminated_memory(ts_context *ctx) {
  const char *text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 2.5\n2 2 7.259";
  ts_coo *coo = NULL;
  /* Cut the last two digits off: the value must read as 7.2, not 7.259. */
  CHECK_OK(ctx, read_text_sized(ctx, text, strlen(text) - 2, TS_FLOAT64, &coo, NULL));
  {
    int r[] = {0, 1}, c[] = {0, 1};
    double v[] = {2.5, 7.2};
    expect_entries("unterminated", coo, 2, 2, TS_GENERAL, 2, r, c, v);
  }
  ts_coo_destroy(coo);
  /* Cut inside the size line: an incomplete size line on line 2. */
  CHECK_STATUS(ctx, read_text_sized(ctx, text, 50, TS_FLOAT64, &coo, NULL), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "<memory>:2:") != NULL);
  /* Empty input. */
  CHECK_STATUS(ctx, read_text_sized(ctx, text, 0, TS_FLOAT64, &coo, NULL), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "<memory>:1:") != NULL);
  CHECK_STATUS(ctx, ts_mm_read_memory(ctx, NULL, 0, TS_FLOAT64, &coo, NULL), TS_ERROR_PARSE);
}

/* Read one value token through a 1 x 1 matrix. */
static ts_status read_one_value(ts_context *ctx, const char *token, ts_dtype dtype, double *value) {
  char text[4096];
  snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 %s\n", token);
  ts_coo *coo = NULL;
  ts_status st = read_text(ctx, text, dtype, &coo, NULL);
  if (st == TS_SUCCESS)
    *value = coo_value(coo, 0);
  ts_coo_destroy(coo);
  return st;
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Whether a decimal token has a non-zero digit before its exponent. */
static bool token_nonzero(const char *token) {
  for (const char *p = token; *p && *p != 'e' && *p != 'E'; p++)
    if (*p >= '1' && *p <= '9')
      return true;
  return false;
}

/* A token reads as strtod's value (strtof's in single precision); a value
 * no double holds is refused at both ends alike: past the largest double,
 * or not zero but rounding to zero. Single precision then refuses only what
 * would be infinite. */
static void check_token(ts_context *ctx, const char *token) {
  double want = strtod(token, NULL), got = 0;
  ts_status st = read_one_value(ctx, token, TS_FLOAT64, &got);
  if (want == 0 && token_nonzero(token)) {
    CHECK_MSG(st == TS_ERROR_PARSE && strstr(ts_last_error(ctx), "below the smallest double"),
              "'%s': %s (%s), want an underflow error", token, ts_status_string(st), ts_last_error(ctx));
  } else {
    CHECK_MSG(st == TS_SUCCESS && same_bits(got, want), "'%s': got %.17g (%s), strtod %.17g", token, got,
              ts_status_string(st), want);
  }
  float want_float = strtof(token, NULL);
  st = read_one_value(ctx, token, TS_FLOAT32, &got);
  if (isinf(want_float) || (want == 0 && token_nonzero(token))) {
    CHECK_MSG(st == TS_ERROR_PARSE && strstr(ts_last_error(ctx), "out of"), "'%s' as float: %s, want out of range",
              token, ts_status_string(st));
    return;
  }
  /* float values go through double: equal to strtof except in double-rounding
   * cases, which none of these tokens hits. */
  CHECK_MSG(st == TS_SUCCESS && (float)got == want_float, "'%s' as float: got %.9g, strtof %.9g", token, got,
            (double)want_float);
}

static void test_number_formats(ts_context *ctx) {
  static const char *tokens[] = {
      "1e3",
      "-.5",
      "+2",
      "1.000000000000000000001",
      "0.1",
      "-0",
      "0e0",
      "0.0e-400",
      "7.",
      ".5e1",
      "1E+22",
      "1e23",
      "12e30",
      "9007199254740992",
      "9007199254740993",
      "18446744073709551615",
      "123456789012345678901234567890",
      "3.14159265358979323846264338327950288419716939937510582097494459",
      "0.000000000000000000000000000000000000000000000000000000000000001234567890123456789",
      "4.9406564584124654e-324", /* smallest subnormal */
      "2.4703282292062328e-324", /* just above half of it: rounds up */
      "2.2250738585072011e-308", /* largest subnormal, a famous hard case */
      "2.2250738585072014e-308", /* smallest normal */
      "1.7976931348623157e308",  /* largest double */
      "1e-320",
      "8.5e-5",
      "123.456e-7",
      "-1.5e+300",
      "0.30000000000000004",
      "5e-324",
      "1e-400",
      "00000000000000000000000000000000001.5",
      "1.00000000000000011102230246251565404236316680908203125",
      "1.00000000000000011102230246251565404236316680908203124",
      "1.00000000000000011102230246251565404236316680908203126",
  };
  for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++)
    check_token(ctx, tokens[i]);

  /* A 1000-digit mantissa goes through the long-token path. */
  char long_token[1100];
  long_token[0] = '1';
  long_token[1] = '.';
  for (int i = 2; i < 1002; i++)
    long_token[i] = (char)('0' + (i * 7) % 10);
  long_token[1002] = '\0';
  check_token(ctx, long_token);

  /* Non-numbers, partial numbers and non-finite values are refused. */
  static const char *bad[] = {"nan", "-inf", "Infinity", "1x",   "1.2.3", "e5",    ".",
                              "-",   "1e",   "1e+",      "0x10", "1,5",   "1e999", "-1e400"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    double got;
    ts_status st = read_one_value(ctx, bad[i], TS_FLOAT64, &got);
    CHECK_MSG(st == TS_ERROR_PARSE && strstr(ts_last_error(ctx), "<memory>:3:") != NULL, "'%s': %s (%s)", bad[i],
              ts_status_string(st), ts_last_error(ctx));
  }
  double got;
  CHECK_STATUS(ctx, read_one_value(ctx, "nan", TS_FLOAT64, &got), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "non-finite value") != NULL);
  /* In range for double, not for float. */
  CHECK_OK(ctx, read_one_value(ctx, "1e300", TS_FLOAT64, &got));
  CHECK_STATUS(ctx, read_one_value(ctx, "1e300", TS_FLOAT32, &got), TS_ERROR_PARSE);
}

/* Many random values printed in several styles, read in one file: each
 * must equal strtod's result bit for bit. */
static void test_random_values_against_strtod(ts_context *ctx) {
  const int count = 20000;
  size_t capacity = (size_t)count * 64 + 128;
  char *text = malloc(capacity);
  char **tokens = malloc((size_t)count * sizeof *tokens);
  size_t length =
      (size_t)snprintf(text, capacity, "%%%%MatrixMarket matrix coordinate real general\n%d 1 %d\n", count, count);
  unsigned long long state = 12345;
  static const char *styles[] = {"%.17g", "%.15g", "%.6e", "%.20e", "%.3f", "%.25g", "%g", "%.1e"};
  for (int k = 0; k < count; k++) {
    double mantissa = test_random(&state);
    int exponent = (int)(test_random(&state) * 320);
    double value = ldexp(mantissa, (int)(exponent * 3.3));
    if (k % 5 == 0)
      value = mantissa * pow(10.0, exponent % 25);
    const char *style = styles[k % 8];
    char token[64];
    snprintf(token, sizeof token, style, value);
    if (strchr(token, 'n') || strchr(token, 'i'))
      snprintf(token, sizeof token, "%d", k); /* inf/nan */
    tokens[k] = malloc(strlen(token) + 1);
    strcpy(tokens[k], token);
    length += (size_t)snprintf(text + length, capacity - length, "%d 1 %s\n", k + 1, token);
  }
  ts_coo *coo = NULL;
  CHECK_OK(ctx, read_text_sized(ctx, text, length, TS_FLOAT64, &coo, NULL));
  int mismatches = 0;
  for (int k = 0; coo && k < count; k++) {
    double want = strtod(tokens[k], NULL);
    double got = ((double *)coo->values)[k];
    if (!same_bits(got, want) && mismatches++ < 5)
      fprintf(stderr, "value '%s': got %.17g, strtod %.17g\n", tokens[k], got, want);
  }
  CHECK_MSG(mismatches == 0, "%d of %d values differ from strtod", mismatches, count);
  ts_coo_destroy(coo);
  for (int k = 0; k < count; k++)
    free(tokens[k]);
  free(tokens);
  free(text);
}

/* Tokens of 16 to 19 significant digits near the halfway points between
 * adjacent doubles (the hardest cases for rounding), against strtod. */
static void test_halfway_values_against_strtod(ts_context *ctx) {
  const int count = 60000;
  size_t capacity = (size_t)count * 48 + 128;
  char *text = malloc(capacity);
  char(*tokens)[40] = malloc((size_t)count * sizeof *tokens);
  size_t length =
      (size_t)snprintf(text, capacity, "%%%%MatrixMarket matrix coordinate real general\n%d 1 %d\n", count, count);
  unsigned long long state = 777;
  for (int k = 0; k < count; k++) {
    double d = ldexp(fabs(test_random(&state)) + 0.5, (int)(test_random(&state) * 130));
    double next = nextafter(d, INFINITY);
    long double midpoint = ((long double)d + (long double)next) / 2; /* exact in 64 bits */
    int digits = 15 + k % 4;                                         /* 16..19 significant digits */
    if (k % 3 == 0)
      snprintf(tokens[k], sizeof tokens[k], "%.*e", digits, d);
    else
      snprintf(tokens[k], sizeof tokens[k], "%.*Le", digits, midpoint);
    length += (size_t)snprintf(text + length, capacity - length, "%d 1 %s\n", k + 1, tokens[k]);
  }
  ts_coo *coo = NULL;
  CHECK_OK(ctx, read_text_sized(ctx, text, length, TS_FLOAT64, &coo, NULL));
  int mismatches = 0;
  for (int k = 0; coo && k < count; k++) {
    double want = strtod(tokens[k], NULL), got = ((double *)coo->values)[k];
    if (!same_bits(got, want) && mismatches++ < 5)
      fprintf(stderr, "value '%s': got %.17g, strtod %.17g\n", tokens[k], got, want);
  }
  CHECK_MSG(mismatches == 0, "%d of %d near-halfway values differ from strtod", mismatches, count);
  /* Exact ties: 2^53 + 1 and friends lie halfway between two doubles. */
  static const char *ties[] = {"9007199254740993",     "9007199254740995",    "18014398509481986",
                               "1152921504606846977",  "4611686018427387906", "9223372036854775809",
                               "1.8014398509481985e16"};
  for (size_t i = 0; i < sizeof ties / sizeof ties[0]; i++)
    check_token(ctx, ties[i]);
  ts_coo_destroy(coo);
  free(tokens);
  free(text);
}

static char tmp_path[4096];
static const char *temp_file(const char *name) {
  const char *dir = getenv("TESSERA_TEST_TMP");
  if (!dir || !*dir)
    dir = ".";
  snprintf(tmp_path, sizeof tmp_path, "%s/%s", dir, name);
  return tmp_path;
}

static void write_gzip(const char *path, const char *text) {
  gzFile gz = gzopen(path, "wb");
  CHECK(gz != NULL);
  if (!gz)
    return;
  CHECK(gzwrite(gz, text, (unsigned)strlen(text)) == (int)strlen(text));
  CHECK(gzclose(gz) == Z_OK);
}

static void test_gzip_and_info(ts_context *ctx) {
  const char *text = "%%MatrixMarket matrix coordinate real symmetric\n% gz\n3 3 3\n1 1 1.25\n3 1 -2\n3 3 1e-3\n";
  int r[] = {0, 2, 2}, c[] = {0, 0, 2};
  double v[] = {1.25, -2, 1e-3};
  /* A .gz file, and the same bytes under a name without .gz (magic bytes). */
  const char *names[] = {"test_mm_read_small.mtx.gz", "test_mm_read_small_gz_named.mtx"};
  for (int i = 0; i < 2; i++) {
    const char *path = temp_file(names[i]);
    write_gzip(path, text);
    ts_coo *coo = NULL;
    ts_mm_info info;
    CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT64, &coo, &info));
    expect_entries(names[i], coo, 3, 3, TS_SYMMETRIC, 3, r, c, v);
    ts_coo_destroy(coo);
    memset(&info, 0, sizeof info);
    CHECK_OK(ctx, ts_mm_read_info(ctx, path, &info));
    CHECK(info.format == TS_MM_COORDINATE && info.field == TS_MM_REAL && info.symmetry == TS_SYMMETRIC &&
          info.rows == 3 && info.cols == 3 && info.entries == 3);
    remove(path);
  }
  /* Plain file, no final newline. */
  const char *path = temp_file("test_mm_read_plain.mtx");
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f) {
    fputs("%%MatrixMarket matrix array integer general\n2 1\n5\n-6", f);
    fclose(f);
  }
  ts_mm_info info;
  CHECK_OK(ctx, ts_mm_read_info(ctx, path, &info));
  CHECK(info.format == TS_MM_ARRAY && info.field == TS_MM_INTEGER && info.rows == 2 && info.cols == 1 &&
        info.entries == 2);
  ts_coo *coo = NULL;
  CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT32, &coo, NULL));
  {
    int ar[] = {0, 1}, ac[] = {0, 0};
    double av[] = {5, -6};
    expect_entries("plain file", coo, 2, 1, TS_GENERAL, 2, ar, ac, av);
  }
  ts_coo_destroy(coo);
  remove(path);
  /* ts_mm_read_info accepts a complex header (reading it is refused). */
  f = fopen(path, "wb");
  if (f) {
    fputs("%%MatrixMarket matrix coordinate complex hermitian\n4 4 1\n1 1 1 0\n", f);
    fclose(f);
  }
  CHECK_OK(ctx, ts_mm_read_info(ctx, path, &info));
  CHECK(info.field == TS_MM_COMPLEX && info.symmetry == TS_HERMITIAN && info.entries == 1);
  CHECK_STATUS(ctx, ts_mm_read(ctx, path, TS_FLOAT64, &coo, NULL), TS_ERROR_UNSUPPORTED);
  CHECK(strstr(ts_last_error(ctx), ":1:") != NULL);
  remove(path);
}

/* More entries than the first allocation for a gzip input (whose text size
 * is unknown): the arrays grow geometrically. */
static void test_gzip_growth(ts_context *ctx) {
  const int64_t count = ((int64_t)1 << 22) + 3000;
  const char *path = temp_file("test_mm_read_growth.mtx.gz");
  gzFile gz = gzopen(path, "wb1");
  CHECK(gz != NULL);
  if (!gz)
    return;
  gzprintf(gz, "%%%%MatrixMarket matrix coordinate pattern general\n3000 3000 %lld\n", (long long)count);
  char line[64];
  char block[1 << 16];
  size_t used = 0;
  for (int64_t k = 0; k < count; k++) {
    int n = snprintf(line, sizeof line, "%d %d\n", (int)(k % 3000) + 1, (int)(k / 3000 % 3000) + 1);
    if (used + (size_t)n > sizeof block) {
      gzwrite(gz, block, (unsigned)used);
      used = 0;
    }
    memcpy(block + used, line, (size_t)n);
    used += (size_t)n;
  }
  gzwrite(gz, block, (unsigned)used);
  CHECK(gzclose(gz) == Z_OK);
  ts_coo *coo = NULL;
  CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT32, &coo, NULL));
  if (coo) {
    CHECK(coo->nnz == count && coo->capacity >= count);
    int bad = 0;
    for (int64_t k = 0; k < count; k++)
      bad += coo->row_idx[k] != (int)(k % 3000) || coo->col_idx[k] != (int)(k / 3000 % 3000) ||
             ((float *)coo->values)[k] != 1.0f;
    CHECK(bad == 0);
  }
  ts_coo_destroy(coo);
  remove(path);
}

/* Fill a COO with random entries (lower triangle when symmetric). */
static ts_coo *random_coo(int64_t rows, int64_t cols, int64_t nnz, ts_dtype dtype, ts_symmetry symmetry,
                          unsigned long long seed, bool integers) {
  ts_coo *coo = NULL;
  if (ts_coo_create(NULL, rows, cols, nnz, dtype, &coo) != TS_SUCCESS)
    return NULL;
  coo->symmetry = symmetry;
  for (int64_t k = 0; k < nnz; k++) {
    int64_t i = (int64_t)((test_random(&seed) + 1) / 2 * (double)rows);
    int64_t j = (int64_t)((test_random(&seed) + 1) / 2 * (double)cols);
    if (symmetry != TS_GENERAL && i < j) {
      int64_t t = i;
      i = j;
      j = t;
    }
    if (symmetry == TS_SKEW_SYMMETRIC && i == j) {
      if (i > 0)
        j = i - 1;
      else
        i = 1;
    }
    double v = test_random(&seed);
    if (integers)
      v = floor(v * 1e6);
    else if (k % 3 == 0)
      v = ldexp(v, (int)(test_random(&seed) * (dtype == TS_FLOAT32 ? 120 : 1000))); /* wide exponents */
    else if (k % 3 == 1)
      v = floor(v * 1000) / 8; /* short decimals */
    if (k == 0 && !integers)
      v = -0.0; /* the sign of zero must survive */
    coo->row_idx[k] = (int32_t)i;
    coo->col_idx[k] = (int32_t)j;
    if (dtype == TS_FLOAT32)
      ((float *)coo->values)[k] = (float)v;
    else
      ((double *)coo->values)[k] = v;
  }
  coo->nnz = nnz;
  return coo;
}

static bool same_coo(const ts_coo *a, const ts_coo *b, bool compare_values) {
  if (!a || !b || a->rows != b->rows || a->cols != b->cols || a->nnz != b->nnz || a->symmetry != b->symmetry ||
      a->dtype != b->dtype)
    return false;
  size_t value_size = ts_dtype_size(a->dtype);
  for (int64_t k = 0; k < a->nnz; k++) {
    if (a->row_idx[k] != b->row_idx[k] || a->col_idx[k] != b->col_idx[k])
      return false;
    if (compare_values &&
        memcmp((const char *)a->values + k * value_size, (const char *)b->values + k * value_size, value_size) != 0)
      return false;
  }
  return true;
}

static void test_write_read_round_trip(ts_context *ctx) {
  const ts_dtype dtypes[] = {TS_FLOAT64, TS_FLOAT32};
  const ts_symmetry symmetries[] = {TS_GENERAL, TS_SYMMETRIC, TS_SKEW_SYMMETRIC};
  const char *names[] = {"test_mm_read_rt.mtx", "test_mm_read_rt.mtx.gz"};
  for (int d = 0; d < 2; d++)
    for (int s = 0; s < 3; s++)
      for (int n = 0; n < 2; n++) {
        int64_t rows = 300, cols = symmetries[s] == TS_GENERAL ? 170 : 300;
        ts_coo *original = random_coo(rows, cols, 3000, dtypes[d], symmetries[s], 7 + (unsigned)(d * 10 + s), false);
        const char *path = temp_file(names[n]);
        CHECK_OK(ctx, ts_mm_write_coo(ctx, path, original, NULL));
        ts_coo *back = NULL;
        ts_mm_info info;
        CHECK_OK(ctx, ts_mm_read(ctx, path, dtypes[d], &back, &info));
        CHECK_MSG(same_coo(original, back, true), "round trip %s %s %s", names[n], d ? "float" : "double",
                  ts_symmetry_name(symmetries[s]));
        CHECK(info.field == TS_MM_REAL && info.symmetry == symmetries[s]);
        ts_coo_destroy(back);

        /* Fixed precision: 6 digits. */
        ts_mm_write_options options = {TS_MM_REAL, 6};
        CHECK_OK(ctx, ts_mm_write_coo(ctx, path, original, &options));
        CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT64, &back, NULL));
        bool close = back && back->nnz == original->nnz;
        for (int64_t k = 0; close && k < back->nnz; k++) {
          double a = coo_value(original, k), b = coo_value(back, k);
          close = fabs(a - b) <= 1e-5 * fabs(a);
        }
        CHECK(close);
        ts_coo_destroy(back);

        /* Pattern drops the values: they read back as 1. */
        options.field = TS_MM_PATTERN;
        options.precision = 0;
        CHECK_OK(ctx, ts_mm_write_coo(ctx, path, original, &options));
        if (symmetries[s] == TS_SKEW_SYMMETRIC) {
          /* No skew-symmetric pattern in Matrix Market: the reader refuses it. */
          CHECK_STATUS(ctx, ts_mm_read(ctx, path, dtypes[d], &back, &info), TS_ERROR_PARSE);
        } else {
          CHECK_OK(ctx, ts_mm_read(ctx, path, dtypes[d], &back, &info));
          CHECK(same_coo(original, back, false) && info.field == TS_MM_PATTERN);
          bool ones = back != NULL;
          for (int64_t k = 0; ones && k < back->nnz; k++)
            ones = coo_value(back, k) == 1.0;
          CHECK(ones);
          ts_coo_destroy(back);
        }
        remove(path);
        ts_coo_destroy(original);
      }

  /* Integer field: integral values exactly; a fraction is refused. */
  ts_coo *integers = random_coo(50, 60, 400, TS_FLOAT64, TS_GENERAL, 99, true);
  const char *path = temp_file("test_mm_read_int.mtx");
  ts_mm_write_options options = {TS_MM_INTEGER, 0};
  CHECK_OK(ctx, ts_mm_write_coo(ctx, path, integers, &options));
  ts_coo *back = NULL;
  ts_mm_info info;
  CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT64, &back, &info));
  CHECK(info.field == TS_MM_INTEGER && same_coo(integers, back, true));
  ts_coo_destroy(back);
  ((double *)integers->values)[5] = 0.5;
  CHECK_STATUS(ctx, ts_mm_write_coo(ctx, path, integers, &options), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "entry 5") != NULL);
  ((double *)integers->values)[5] = NAN;
  CHECK_STATUS(ctx, ts_mm_write_coo(ctx, path, integers, NULL), TS_ERROR_INVALID_MATRIX);
  ts_coo_destroy(integers);
  remove(path);

  /* CSR: rows written in order; read back, it is the same entries. */
  for (int d = 0; d < 2; d++) {
    ts_csr *csr = NULL;
    CHECK_OK(ctx, ts_csr_create(ctx, 4, 5, 6, dtypes[d], &csr));
    if (!csr)
      continue;
    int64_t ptr[] = {0, 2, 2, 5, 6};
    int32_t col[] = {0, 4, 1, 2, 3, 0};
    double val[] = {0.1, -2.5e-300, 3, 1.0 / 3.0, 0, 6.02214076e23};
    memcpy(csr->row_ptr, ptr, sizeof ptr);
    memcpy(csr->col_idx, col, sizeof col);
    for (int k = 0; k < 6; k++) {
      if (dtypes[d] == TS_FLOAT32)
        ((float *)csr->values)[k] = (float)val[k];
      else
        ((double *)csr->values)[k] = val[k];
    }
    for (int n = 0; n < 2; n++) {
      const char *csr_path = temp_file(n ? "test_mm_read_csr.mtx.gz" : "test_mm_read_csr.mtx");
      CHECK_OK(ctx, ts_mm_write_csr(ctx, csr_path, csr, NULL));
      ts_coo *read_back = NULL;
      CHECK_OK(ctx, ts_mm_read(ctx, csr_path, dtypes[d], &read_back, NULL));
      int r[] = {0, 0, 2, 2, 2, 3};
      double expected[6];
      for (int k = 0; k < 6; k++)
        expected[k] = dtypes[d] == TS_FLOAT32 ? (double)(float)val[k] : val[k];
      expect_entries("csr round trip", read_back, 4, 5, TS_GENERAL, 6, r, col, expected);
      ts_coo_destroy(read_back);
      remove(csr_path);
    }
    ts_csr_destroy(csr);
  }

  /* A symmetric matrix holding an upper entry is written mirrored. */
  ts_coo *upper = NULL;
  CHECK_OK(ctx, ts_coo_create(ctx, 3, 3, 1, TS_FLOAT64, &upper));
  upper->symmetry = TS_SKEW_SYMMETRIC;
  upper->row_idx[0] = 0;
  upper->col_idx[0] = 2;
  ((double *)upper->values)[0] = 4;
  upper->nnz = 1;
  path = temp_file("test_mm_read_upper.mtx");
  CHECK_OK(ctx, ts_mm_write_coo(ctx, path, upper, NULL));
  CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT64, &back, NULL));
  {
    int r[] = {2}, c[] = {0};
    double v[] = {-4};
    expect_entries("mirrored", back, 3, 3, TS_SKEW_SYMMETRIC, 1, r, c, v);
  }
  ts_coo_destroy(back);
  remove(path);
  ts_coo_destroy(upper);

  /* More entries than places (duplicates): written summed, so that the file
   * reads back (a reader takes such a count for a malformed one). */
  ts_coo *duplicated = NULL;
  CHECK_OK(ctx, ts_coo_create(ctx, 1, 2, 3, TS_FLOAT64, &duplicated));
  const int32_t dup_cols[] = {0, 0, 1};
  const double dup_values[] = {1, 2, 3};
  for (int k = 0; k < 3; k++) {
    duplicated->row_idx[k] = 0;
    duplicated->col_idx[k] = dup_cols[k];
    ((double *)duplicated->values)[k] = dup_values[k];
  }
  duplicated->nnz = 3;
  path = temp_file("test_mm_read_duplicates.mtx");
  CHECK_OK(ctx, ts_mm_write_coo(ctx, path, duplicated, NULL));
  CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT64, &back, NULL));
  {
    int r[] = {0, 0}, c[] = {0, 1};
    double v[] = {3, 3};
    expect_entries("duplicates summed", back, 1, 2, TS_GENERAL, 2, r, c, v);
  }
  ts_coo_destroy(back);
  remove(path);
  ts_coo_destroy(duplicated);
}

static void test_bad_calls(ts_context *ctx) {
  ts_coo *coo = (ts_coo *)&coo;
  ts_mm_info info;
  CHECK_STATUS(ctx, ts_mm_read(ctx, NULL, TS_FLOAT64, &coo, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK(coo == NULL);
  CHECK_STATUS(ctx, ts_mm_read(ctx, "x.mtx", TS_FLOAT64, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_mm_read(ctx, "x.mtx", (ts_dtype)9, &coo, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_mm_read_memory(ctx, NULL, 5, TS_FLOAT64, &coo, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_mm_read_info(ctx, NULL, &info), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_mm_read_info(ctx, "x.mtx", NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_mm_write_coo(ctx, NULL, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_mm_write_csr(ctx, "x.mtx", NULL, NULL), TS_ERROR_INVALID_ARGUMENT);

  /* A missing file: TS_ERROR_IO naming the path and the system's reason. */
  const char *missing = temp_file("test_mm_read_no_such_dir/none.mtx");
  CHECK_STATUS(NULL, ts_mm_read(NULL, missing, TS_FLOAT64, &coo, NULL), TS_ERROR_IO);
  CHECK(strstr(ts_last_error(NULL), missing) != NULL && strstr(ts_last_error(NULL), strerror(ENOENT)) != NULL);
  CHECK_STATUS(ctx, ts_mm_read_info(ctx, missing, &info), TS_ERROR_IO);
  ts_coo *small = NULL;
  CHECK_OK(ctx, ts_coo_create(ctx, 2, 2, 1, TS_FLOAT64, &small));
  CHECK_STATUS(ctx, ts_mm_write_coo(ctx, missing, small, NULL), TS_ERROR_IO);
  CHECK(strstr(ts_last_error(ctx), missing) != NULL && strstr(ts_last_error(ctx), strerror(ENOENT)) != NULL);
  /* A directory is not a Matrix Market file. */
  const char *dir = getenv("TESSERA_TEST_TMP");
  if (dir && *dir)
    CHECK_STATUS(ctx, ts_mm_read(ctx, dir, TS_FLOAT64, &coo, NULL), TS_ERROR_IO);
  /* Out-of-range indices and bad options are refused on writing. */
  small->row_idx[0] = 2;
  small->col_idx[0] = 0;
  small->nnz = 1;
  CHECK_STATUS(ctx, ts_mm_write_coo(ctx, temp_file("test_mm_read_bad.mtx"), small, NULL), TS_ERROR_INVALID_MATRIX);
  ts_mm_write_options complex_field = {TS_MM_COMPLEX, 0};
  small->row_idx[0] = 1;
  CHECK_STATUS(ctx, ts_mm_write_coo(ctx, temp_file("test_mm_read_bad.mtx"), small, &complex_field),
               TS_ERROR_INVALID_ARGUMENT);
  ts_coo_destroy(small);
}

/* Progress is reported while reading, and a callback can cancel. */
typedef struct progress_log {
  int calls;
  int64_t last_done, last_total;
  int cancel_after;
} progress_log;

static int record_progress(void *user, int64_t done, int64_t total) {
  progress_log *log = user;
  log->calls++;
  CHECK(done >= log->last_done);
  log->last_done = done;
  log->last_total = total;
  return log->cancel_after > 0 && log->calls >= log->cancel_after;
}

static void test_progress(ts_context *ctx) {
  const int count = 600000; /* about 10 MB of text */
  size_t capacity = (size_t)count * 24 + 128;
  char *text = malloc(capacity);
  size_t length = (size_t)snprintf(text, capacity, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", count,
                                   count, count);
  for (int k = 0; k < count; k++)
    length += (size_t)snprintf(text + length, capacity - length, "%d %d 0.%d\n", k + 1, count - k, k);
  progress_log log = {0, 0, 0, 0};
  CHECK_OK(ctx, ts_context_set_progress(ctx, record_progress, &log));
  ts_coo *coo = NULL;
  CHECK_OK(ctx, read_text_sized(ctx, text, length, TS_FLOAT64, &coo, NULL));
  CHECK(log.calls >= 2 && log.last_done == (int64_t)length && log.last_total == (int64_t)length);
  CHECK(coo && coo->nnz == count && coo->row_idx[count - 1] == count - 1 && ((double *)coo->values)[7] == 0.7);
  ts_coo_destroy(coo);
  progress_log cancel = {0, 0, 0, 1};
  CHECK_OK(ctx, ts_context_set_progress(ctx, record_progress, &cancel));
  coo = (ts_coo *)&coo;
  CHECK_STATUS(ctx, read_text_sized(ctx, text, length, TS_FLOAT64, &coo, NULL), TS_ERROR_CANCELLED);
  CHECK(coo == NULL && strstr(ts_last_error(ctx), "cancel") != NULL);
  CHECK_OK(ctx, ts_context_set_progress(ctx, NULL, NULL));
  free(text);
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  test_coordinate_variants(ctx);
  test_array_variants(ctx);
  test_unterminated_memory(ctx);
  test_number_formats(ctx);
  test_random_values_against_strtod(ctx);
  test_halfway_values_against_strtod(ctx);
  test_gzip_and_info(ctx);
  test_gzip_growth(ctx);
  test_write_read_round_trip(ctx);
  test_bad_calls(ctx);
  test_progress(ctx);
  ts_context_destroy(ctx);
  return test_finish();
}
