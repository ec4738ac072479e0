/* The shortcuts of core/complex_value.h answer as the modulus does:
 * tsi_z_abs_below(z, t) is tsi_z_abs(z) < t and tsi_z_max_abs(m, z) is
 * max(m, tsi_z_abs(z)), for values of every magnitude, thresholds on either
 * side of |z| and of its parts, and non-finite parts; and tsi_z_abs itself
 * is within an ulp of libm's hypot and no smaller than the larger part, the
 * property the shortcuts rest on. */
#include "test_common.h"

#include "core/complex_value.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

/* Deterministic doubles (splitmix64). */
static uint64_t next_bits(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* A value of random sign, mantissa and binary exponent in [-1074, 1023]:
 * subnormals, the square root's range and hypot's range all come up. */
static double random_part(uint64_t *state) {
  const uint64_t bits = next_bits(state);
  const double mantissa = 1.0 + (double)(bits >> 12) / 4503599627370496.0;
  const int exponent = (int)(next_bits(state) % 2098) - 1074;
  const double v = ldexp(mantissa, exponent);
  return (bits & 1) ? -v : v;
}

/* Thresholds around z: |z| and its neighbours, each part and its
 * neighbours, and a random value. */
static int thresholds(tsi_complex128 z, double modulus, uint64_t *state, double *t) {
  const double re = fabs(z.re), im = fabs(z.im);
  int k = 0;
  t[k++] = modulus;
  t[k++] = nextafter(modulus, INFINITY);
  t[k++] = nextafter(modulus, 0.0);
  t[k++] = re;
  t[k++] = nextafter(re, INFINITY);
  t[k++] = im;
  t[k++] = nextafter(im, INFINITY);
  t[k++] = fabs(random_part(state));
  return k;
}

/* Equal, NaN counting as equal to NaN. */
static bool same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static void check_one(tsi_complex128 z, uint64_t *state, int64_t *checked) {
  const double modulus = tsi_z_abs(z);
  double t[8];
  const int count = thresholds(z, modulus, state, t);
  for (int k = 0; k < count; k++) {
    CHECK_MSG(tsi_z_abs_below(z, t[k]) == (modulus < t[k]), "z = (%a, %a), t = %a: below says %d, |z| = %a", z.re, z.im,
              t[k], (int)tsi_z_abs_below(z, t[k]), modulus);
    const double expected = modulus > t[k] ? modulus : t[k]; /* a NaN modulus leaves the maximum as it was */
    const double got = tsi_z_max_abs(t[k], z);
    CHECK_MSG(same(got, expected), "z = (%a, %a), largest = %a: max_abs %a, expected %a", z.re, z.im, t[k], got,
              expected);
    (*checked)++;
  }
  if (isfinite(z.re) && isfinite(z.im)) {
    const double larger = fmax(fabs(z.re), fabs(z.im)), reference = hypot(z.re, z.im);
    CHECK_MSG(modulus >= larger, "z = (%a, %a): |z| = %a below the larger part", z.re, z.im, modulus);
    /* Within an ulp of hypot (both infinite where the modulus overflows). */
    CHECK_MSG(modulus == reference || fabs(modulus - reference) <= nextafter(reference, INFINITY) - reference,
              "z = (%a, %a): |z| = %a, hypot %a", z.re, z.im, modulus, reference);
  }
}

static void test_random_values(void) {
  uint64_t state = 2026;
  int64_t checked = 0;
  for (int i = 0; i < 200000; i++) {
    tsi_complex128 z = tsi_z(random_part(&state), random_part(&state));
    /* Parts of close magnitude too, where neither dominates the sum. */
    if (i % 3 == 0)
      z.im = ldexp(z.im, ilogb(z.re) - ilogb(z.im));
    check_one(z, &state, &checked);
  }
  CHECK(checked > 1000000);
}

static void test_special_values(void) {
  uint64_t state = 7;
  int64_t checked = 0;
  const double specials[] = {0.0, -0.0, DBL_TRUE_MIN, DBL_MIN, 1e-150, 1e150, 1.0, DBL_MAX, INFINITY, -INFINITY, NAN};
  const int count = (int)(sizeof specials / sizeof specials[0]);
  for (int i = 0; i < count; i++)
    for (int j = 0; j < count; j++)
      check_one(tsi_z(specials[i], specials[j]), &state, &checked);
  /* A zero threshold: nothing is below it. */
  CHECK(!tsi_z_abs_below(tsi_z(0.0, 0.0), 0.0));
  CHECK(tsi_z_abs_below(tsi_z(0.0, 0.0), DBL_TRUE_MIN));
  CHECK(checked == (int64_t)count * count * 8);
}

int main(void) {
  test_random_values();
  test_special_values();
  return test_finish();
}
