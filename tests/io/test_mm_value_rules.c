/* Reading and writing agree on values: what is read can be written back
 * and reads the same, bit for bit, in both types and both fields. Integers
 * of any length read as the nearest value of the type (strtod is the
 * reference), and are written back as exact digits; a value no double
 * holds, past the largest or not zero but rounding to zero, is refused at
 * both ends of the range alike, naming the line; single precision then
 * refuses only what would be infinite. */
#include "test_common.h"

#include <float.h>
#include <stdbool.h>

static ts_context *ctx;

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static char tmp_path[4096];
static const char *temp_file(const char *name) {
  const char *dir = getenv("TESSERA_TEST_TMP");
  snprintf(tmp_path, sizeof tmp_path, "%s/%s", dir && *dir ? dir : ".", name);
  return tmp_path;
}

/* One value in a 1 x 1 file of the given field. */
static ts_status read_value(const char *field, const char *token, ts_dtype dtype, double *value) {
  char text[1024];
  snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate %s general\n1 1 1\n1 1 %s\n", field, token);
  ts_coo *coo = NULL;
  ts_status st = ts_mm_read_memory(ctx, text, strlen(text), dtype, &coo, NULL);
  if (st == TS_SUCCESS)
    *value = dtype == TS_FLOAT32 ? (double)((float *)coo->values)[0] : ((double *)coo->values)[0];
  ts_coo_destroy(coo);
  return st;
}

/* Write value in `field` and read it back (in dtype). */
static ts_status round_trip(ts_mm_field field, double value, ts_dtype dtype, double *back) {
  ts_coo *coo = NULL;
  ts_status st = ts_coo_create(ctx, 1, 1, 1, dtype, &coo);
  if (st != TS_SUCCESS)
    return st;
  coo->row_idx[0] = coo->col_idx[0] = 0;
  if (dtype == TS_FLOAT32)
    ((float *)coo->values)[0] = (float)value;
  else
    ((double *)coo->values)[0] = value;
  coo->nnz = 1;
  ts_mm_write_options options = {field, 0};
  const char *path = temp_file("test_mm_value_rules.mtx");
  st = ts_mm_write_coo(ctx, path, coo, &options);
  ts_coo_destroy(coo);
  coo = NULL;
  if (st == TS_SUCCESS)
    st = ts_mm_read(ctx, path, dtype, &coo, NULL);
  if (st == TS_SUCCESS)
    *back = dtype == TS_FLOAT32 ? (double)((float *)coo->values)[0] : ((double *)coo->values)[0];
  ts_coo_destroy(coo);
  return st;
}

static void test_integers(void) {
  char huge[320], too_huge[420];
  /* 309 digits: 1.7976e308 written out (below the largest double); 400 digits: past it. */
  memset(huge, '0', sizeof huge);
  memcpy(huge, "17976", 5);
  huge[309] = '\0';
  memset(too_huge, '9', sizeof too_huge);
  too_huge[400] = '\0';
  const char *tokens[] = {"9223372036854775807",
                          "-9223372036854775808",
                          "9223372036854775808",
                          "18446744073709551617",
                          "9007199254740993",
                          "-1000000000000000000000000000001",
                          "+42",
                          "0",
                          "-0",
                          huge};
  for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
    for (int d = 0; d < 2; d++) {
      ts_dtype dtype = d ? TS_FLOAT32 : TS_FLOAT64;
      double want = d ? (double)strtof(tokens[i], NULL) : strtod(tokens[i], NULL), got = 0;
      ts_status st = read_value("integer", tokens[i], dtype, &got);
      if (isinf(want)) {
        CHECK_MSG(st == TS_ERROR_PARSE && strstr(ts_last_error(ctx), "<memory>:3:"), "integer %.20s as %s: %s",
                  tokens[i], d ? "float" : "double", ts_last_error(ctx));
        continue;
      }
      CHECK_MSG(st == TS_SUCCESS && same_bits(got, want), "integer %.20s as %s: %.17g (%s), want %.17g", tokens[i],
                d ? "float" : "double", got, ts_last_error(ctx), want);
      /* Written back in the integer field and in the real field: the same. */
      for (int f = 0; f < 2 && st == TS_SUCCESS; f++) {
        double back = -1;
        ts_status written = round_trip(f ? TS_MM_REAL : TS_MM_INTEGER, got, dtype, &back);
        CHECK_MSG(written == TS_SUCCESS && same_bits(back, got), "integer %.20s as %s, %s field: back %.17g (%s)",
                  tokens[i], d ? "float" : "double", f ? "real" : "integer", back, ts_last_error(ctx));
      }
    }
  }
  double got;
  CHECK_STATUS(ctx, read_value("integer", too_huge, TS_FLOAT64, &got), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "<memory>:3: value") && strstr(ts_last_error(ctx), "out of range"));
  /* An integer field keeps its grammar: no fraction, no exponent. */
  CHECK_STATUS(ctx, read_value("integer", "1e3", TS_FLOAT64, &got), TS_ERROR_PARSE);
  CHECK_STATUS(ctx, read_value("integer", "2.0", TS_FLOAT64, &got), TS_ERROR_PARSE);
  /* Every integral double can be written in the integer field, exactly. */
  const double integral[] = {ldexp(1, 63), -ldexp(1, 64), ldexp(1, 1023), -DBL_MAX, 1e300, 123456789012345678.0};
  for (size_t i = 0; i < sizeof integral / sizeof integral[0]; i++) {
    double back = 0;
    CHECK_OK(ctx, round_trip(TS_MM_INTEGER, integral[i], TS_FLOAT64, &back));
    CHECK_MSG(same_bits(back, integral[i]), "%.17g written as an integer reads %.17g", integral[i], back);
  }
  double back = 0;
  CHECK_STATUS(ctx, round_trip(TS_MM_INTEGER, 0.5, TS_FLOAT64, &back), TS_ERROR_INVALID_ARGUMENT);
}

/* Both ends of the range alike: past the largest value and below the
 * smallest non-zero value are both refused; zero of any spelling is zero. */
static void test_range_ends(void) {
  const char *refused_double[] = {"1e400", "-1e400", "1e-400", "-2e-324", "2.4703282292062327e-324"};
  for (size_t i = 0; i < sizeof refused_double / sizeof refused_double[0]; i++) {
    double got;
    CHECK_STATUS(ctx, read_value("real", refused_double[i], TS_FLOAT64, &got), TS_ERROR_PARSE);
    CHECK_MSG(strstr(ts_last_error(ctx), "<memory>:3: value") && strstr(ts_last_error(ctx), "out of range"), "%s: %s",
              refused_double[i], ts_last_error(ctx));
  }
  /* Single precision: a double past the largest float is refused (it would
   * be infinite); one below the smallest float rounds to a signed zero, as
   * C's conversion does. */
  const char *refused_float[] = {"1e39", "-3.5e38"};
  for (size_t i = 0; i < sizeof refused_float / sizeof refused_float[0]; i++) {
    double got;
    CHECK_STATUS(ctx, read_value("real", refused_float[i], TS_FLOAT32, &got), TS_ERROR_PARSE);
    CHECK_MSG(strstr(ts_last_error(ctx), "<memory>:3: value") && strstr(ts_last_error(ctx), "range of float"), "%s: %s",
              refused_float[i], ts_last_error(ctx));
    CHECK_OK(ctx, read_value("real", refused_float[i], TS_FLOAT64, &got));
  }
  const char *flushed_float[] = {"1e-46", "-7e-46", "7.63049e-55"};
  for (size_t i = 0; i < sizeof flushed_float / sizeof flushed_float[0]; i++) {
    double got = 1;
    CHECK_OK(ctx, read_value("real", flushed_float[i], TS_FLOAT32, &got));
    CHECK(same_bits(got, (double)strtof(flushed_float[i], NULL)));
  }
  const char *zeros[] = {"0", "-0.0", "0e-999", "0.000e+999"};
  for (size_t i = 0; i < sizeof zeros / sizeof zeros[0]; i++) {
    double got = 1;
    CHECK_OK(ctx, read_value("real", zeros[i], TS_FLOAT32, &got));
    CHECK(got == 0);
  }
  /* The smallest values each type holds are read and written back. */
  const double tiny_double[] = {4.9406564584124654e-324, -2.2250738585072009e-308, DBL_MIN, DBL_MAX, -DBL_MAX};
  for (size_t i = 0; i < sizeof tiny_double / sizeof tiny_double[0]; i++) {
    double back = 0;
    CHECK_OK(ctx, round_trip(TS_MM_REAL, tiny_double[i], TS_FLOAT64, &back));
    CHECK_MSG(same_bits(back, tiny_double[i]), "%.17g reads back as %.17g", tiny_double[i], back);
  }
  const float tiny_float[] = {1.40129846e-45f, -1.17549421e-38f, FLT_MIN, FLT_MAX};
  for (size_t i = 0; i < sizeof tiny_float / sizeof tiny_float[0]; i++) {
    double back = 0;
    CHECK_OK(ctx, round_trip(TS_MM_REAL, tiny_float[i], TS_FLOAT32, &back));
    CHECK_MSG((float)back == tiny_float[i], "%.9g reads back as %.9g", (double)tiny_float[i], back);
  }
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  test_integers();
  test_range_ends();
  remove(temp_file("test_mm_value_rules.mtx"));
  ts_context_destroy(ctx);
  return test_finish();
}
