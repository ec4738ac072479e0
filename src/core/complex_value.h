/* Complex values as tessera stores them (TS_COMPLEX64, TS_COMPLEX128): a
 * struct of the real and the imaginary part, the layout of C99's complex
 * types and of CUDA's cuFloatComplex and cuDoubleComplex, and the few
 * operations the library needs, written out so that the host and the GPU
 * round every step the same way (products and sums rounded separately:
 * on the device through the _rn intrinsics, which nvcc never fuses into a
 * multiply-add; host code is compiled without contraction, ISO C). Usable
 * from C and CUDA. */
#ifndef TESSERA_COMPLEX_VALUE_H
#define TESSERA_COMPLEX_VALUE_H

#include "tessera/core.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __CUDACC__
#define TSI_Z_FN static inline __host__ __device__
#else
#define TSI_Z_FN static inline
#endif

#if defined(__CUDA_ARCH__)
#define TSI_Z_MUL(a, b) __dmul_rn((a), (b))
#define TSI_Z_ADD(a, b) __dadd_rn((a), (b))
#define TSI_Z_SUB(a, b) __dsub_rn((a), (b))
#define TSI_Z_DIV(a, b) __ddiv_rn((a), (b))
#else
#define TSI_Z_MUL(a, b) ((a) * (b))
#define TSI_Z_ADD(a, b) ((a) + (b))
#define TSI_Z_SUB(a, b) ((a) - (b))
#define TSI_Z_DIV(a, b) ((a) / (b))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* TS_COMPLEX64 and TS_COMPLEX128 values. */
typedef struct tsi_complex64 {
  float re, im;
} tsi_complex64;
typedef struct tsi_complex128 {
  double re, im;
} tsi_complex128;

TSI_Z_FN tsi_complex128 tsi_z(double re, double im) {
  tsi_complex128 z;
  z.re = re;
  z.im = im;
  return z;
}

TSI_Z_FN tsi_complex128 tsi_z_widen(tsi_complex64 z) { return tsi_z((double)z.re, (double)z.im); }

TSI_Z_FN tsi_complex64 tsi_z_narrow(tsi_complex128 z) {
  tsi_complex64 c;
  c.re = (float)z.re;
  c.im = (float)z.im;
  return c;
}

TSI_Z_FN tsi_complex128 tsi_z_add(tsi_complex128 a, tsi_complex128 b) {
  return tsi_z(TSI_Z_ADD(a.re, b.re), TSI_Z_ADD(a.im, b.im));
}

TSI_Z_FN tsi_complex128 tsi_z_sub(tsi_complex128 a, tsi_complex128 b) {
  return tsi_z(TSI_Z_SUB(a.re, b.re), TSI_Z_SUB(a.im, b.im));
}

/* a * b = (ar br - ai bi, ar bi + ai br). */
TSI_Z_FN tsi_complex128 tsi_z_mul(tsi_complex128 a, tsi_complex128 b) {
  return tsi_z(TSI_Z_SUB(TSI_Z_MUL(a.re, b.re), TSI_Z_MUL(a.im, b.im)),
               TSI_Z_ADD(TSI_Z_MUL(a.re, b.im), TSI_Z_MUL(a.im, b.re)));
}

/* x - a * b, the update of an elimination step. */
TSI_Z_FN tsi_complex128 tsi_z_minus_product(tsi_complex128 x, tsi_complex128 a, tsi_complex128 b) {
  return tsi_z_sub(x, tsi_z_mul(a, b));
}

/* x + a * b, a term of a dot product. */
TSI_Z_FN tsi_complex128 tsi_z_plus_product(tsi_complex128 x, tsi_complex128 a, tsi_complex128 b) {
  return tsi_z_add(x, tsi_z_mul(a, b));
}

TSI_Z_FN tsi_complex128 tsi_z_conj(tsi_complex128 z) { return tsi_z(z.re, -z.im); }

TSI_Z_FN tsi_complex128 tsi_z_scale(double s, tsi_complex128 z) {
  return tsi_z(TSI_Z_MUL(s, z.re), TSI_Z_MUL(s, z.im));
}

/* a / b by Smith's algorithm (Smith, "Algorithm 116: Complex division",
 * CACM 5(8), 1962), which divides by the larger part first, so that no
 * intermediate overflows or underflows where the quotient does not. */
TSI_Z_FN tsi_complex128 tsi_z_div(tsi_complex128 a, tsi_complex128 b) {
  if (fabs(b.re) >= fabs(b.im)) {
    const double r = TSI_Z_DIV(b.im, b.re), d = TSI_Z_ADD(b.re, TSI_Z_MUL(b.im, r));
    return tsi_z(TSI_Z_DIV(TSI_Z_ADD(a.re, TSI_Z_MUL(a.im, r)), d), TSI_Z_DIV(TSI_Z_SUB(a.im, TSI_Z_MUL(a.re, r)), d));
  }
  const double r = TSI_Z_DIV(b.re, b.im), d = TSI_Z_ADD(b.im, TSI_Z_MUL(b.re, r));
  return tsi_z(TSI_Z_DIV(TSI_Z_ADD(TSI_Z_MUL(a.re, r), a.im), d), TSI_Z_DIV(TSI_Z_SUB(TSI_Z_MUL(a.im, r), a.re), d));
}

/* |z|: the square root of the squares where they can neither overflow nor
 * underflow, else hypot (a library call several times dearer). */
TSI_Z_FN double tsi_z_abs(tsi_complex128 z) {
  const double a = fabs(z.re), b = fabs(z.im), m = a > b ? a : b;
  if (m < 1e150 && m > 1e-150)
    return sqrt(TSI_Z_ADD(TSI_Z_MUL(a, a), TSI_Z_MUL(b, b)));
  return hypot(z.re, z.im);
}

TSI_Z_FN bool tsi_z_isfinite(tsi_complex128 z) { return isfinite(z.re) && isfinite(z.im); }

/* r times z's direction, z / |z|, or r for z = 0: the complex counterpart
 * of sign(z) * r (a perturbed pivot keeps its direction). */
TSI_Z_FN tsi_complex128 tsi_z_direction_times(tsi_complex128 z, double r) {
  if (z.re == 0.0 && z.im == 0.0)
    return tsi_z(r, 0.0);
  const double m = tsi_z_abs(z);
  return tsi_z(TSI_Z_MUL(TSI_Z_DIV(z.re, m), r), TSI_Z_MUL(TSI_Z_DIV(z.im, m), r));
}

/* |z| < t, with |z| computed only where both parts are below t: |z| is at
 * least the larger part, in floating point too (a square root of a
 * rounded sum of squares is no smaller than the larger part, and hypot is
 * faithful), so the answer is the modulus's. */
TSI_Z_FN bool tsi_z_abs_below(tsi_complex128 z, double t) {
  if (fabs(z.re) >= t || fabs(z.im) >= t)
    return false;
  return tsi_z_abs(z) < t;
}

/* max(largest, |z|), exact, with |z| computed only where the cheap bound
 * max(|re|, |im|) * sqrt(2) >= |z| does not rule it out. The bound is one
 * comparison, which compilers make a branch-free maximum (fmax is a libm
 * call on the host, which spills the inner loops' registers, and a test for
 * NaN added a branch taken at random); a NaN bound rules nothing out, so
 * that a part NaN beside an infinite one still gives |z| = inf. */
TSI_Z_FN double tsi_z_max_abs(double largest, tsi_complex128 z) {
  const double re = fabs(z.re), im = fabs(z.im), bound = re > im ? re : im;
  if (bound * 1.4142135623730951 <= largest)
    return largest;
  const double m = tsi_z_abs(z);
  return m > largest ? m : largest;
}

TSI_Z_FN bool tsi_z_is_zero(tsi_complex128 z) { return z.re == 0.0 && z.im == 0.0; }

/* Value k of an array of any value type as (re, im) in double (im = 0 for
 * the real types): exact, every type widens to double without rounding. */
TSI_Z_FN tsi_complex128 tsi_value_get(ts_dtype dtype, const void *values, int64_t k) {
  switch (dtype) {
  case TS_FLOAT32:
    return tsi_z((double)((const float *)values)[k], 0.0);
  case TS_COMPLEX64:
    return tsi_z_widen(((const tsi_complex64 *)values)[k]);
  case TS_COMPLEX128:
    return ((const tsi_complex128 *)values)[k];
  default:
    return tsi_z(((const double *)values)[k], 0.0);
  }
}

/* Store v as value k of an array of any value type (rounded to float for
 * the single-precision types; the imaginary part dropped for the real ones). */
TSI_Z_FN void tsi_value_set(ts_dtype dtype, void *values, int64_t k, tsi_complex128 v) {
  switch (dtype) {
  case TS_FLOAT32:
    ((float *)values)[k] = (float)v.re;
    break;
  case TS_COMPLEX64:
    ((tsi_complex64 *)values)[k] = tsi_z_narrow(v);
    break;
  case TS_COMPLEX128:
    ((tsi_complex128 *)values)[k] = v;
    break;
  default:
    ((double *)values)[k] = v.re;
    break;
  }
}

/* Copy value `from` of src to value `to` of dst, both of a type of `size`
 * bytes (ts_dtype_size), bit for bit. */
TSI_Z_FN void tsi_value_copy(size_t size, void *dst, int64_t to, const void *src, int64_t from) {
  switch (size) {
  case 4:
    ((uint32_t *)dst)[to] = ((const uint32_t *)src)[from];
    break;
  case 8:
    ((uint64_t *)dst)[to] = ((const uint64_t *)src)[from];
    break;
  default:
    ((uint64_t *)dst)[2 * to] = ((const uint64_t *)src)[2 * from];
    ((uint64_t *)dst)[2 * to + 1] = ((const uint64_t *)src)[2 * from + 1];
    break;
  }
}

#ifdef __cplusplus
}
#endif

#endif
