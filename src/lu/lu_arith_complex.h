/* The arithmetic of the host's LU templates for complex values (see
 * lu_arith_real.h): the working type is complex double, stored values
 * tsi_complex64 or tsi_complex128 (TSI_VALUE), the operations those of
 * core/complex_value.h, rounded step by step as the GPU's kernels round
 * them. The entries of L are multiplied by the pivot's reciprocal, made
 * once a column (a complex division costs several multiplications). */
#include "core/complex_value.h"

#include <string.h>

#define TSI_WORK tsi_complex128
#define TSI_W_SINGLE tsi_complex64
#define TSI_W_SINGLE_DTYPE TS_COMPLEX64
#define TSI_WIDEN(v) tsi_lu_widen(v)
#define TSI_NARROW(w) tsi_lu_narrow_to((w), (TSI_VALUE *)0)
#define TSI_W_ZERO tsi_z(0.0, 0.0)
#define TSI_W_IS_ZERO(w) tsi_z_is_zero(w)
#define TSI_W_ADD(a, b) tsi_z_add((a), (b))
#define TSI_W_SUB(a, b) tsi_z_sub((a), (b))
#define TSI_W_MUL(a, b) tsi_z_mul((a), (b))
#define TSI_W_MINUS_PRODUCT(x, l, u) tsi_z_minus_product((x), (l), (u))
#define TSI_W_MINUS_MULTIPLE(x, rows, l, begin, end, u) tsi_lu_minus_multiple((x), (rows), (l), (begin), (end), (u))
#define TSI_W_DIV(a, b) tsi_z_div((a), (b))
#define TSI_W_SCALE(s, w) tsi_z_scale((s), (w))
#define TSI_W_SCALED(s, w, t) tsi_z((s) * (w).re * (t), (s) * (w).im * (t))
#define TSI_W_ABS(w) tsi_z_abs(w)
#define TSI_W_ABS_BELOW(w, t) tsi_z_abs_below((w), (t))
#define TSI_W_ISFINITE(w) tsi_z_isfinite(w)
#define TSI_W_CONJ_IF(w, conjugate) ((conjugate) ? tsi_z_conj(w) : (w))
#define TSI_W_PERTURBED(w, r) tsi_z_direction_times((w), (r))
#define TSI_W_DIVIDER(p) tsi_z_div(tsi_z(1.0, 0.0), (p))
#define TSI_W_DIVIDE(w, d) tsi_z_mul((w), (d))
#define TSI_MAX_ABS(max, w) ((max) = tsi_z_max_abs((max), (w)))
#define TSI_FLOPS_UPDATE 8
#define TSI_FLOPS_DIVIDE 6

/* Stored complex value -> working value, for either stored precision. */
#define tsi_lu_widen(v) _Generic((v), tsi_complex64 : tsi_z_widen, default : tsi_lu_same)(v)
/* Working value -> the stored type of the pointer's type (a null pointer
 * only carries the type). */
#define tsi_lu_narrow_to(w, type_ptr) _Generic((type_ptr), tsi_complex64 * : tsi_z_narrow, default : tsi_lu_same)(w)
#ifndef TESSERA_LU_ARITH_COMPLEX_SAME
#define TESSERA_LU_ARITH_COMPLEX_SAME
static inline tsi_complex128 tsi_lu_same(tsi_complex128 v) { return v; }

/* x[rows[q]] -= l[q] * u for q in [begin, end), each product and sum
 * rounded as tsi_z_minus_product rounds them. With GCC's vector types the
 * real and imaginary parts go through one two-lane operation each:
 *   l u = (lr ur + li (-ui), li ur + lr ui) = (lr, li) (ur, ur) + (li, lr) (-ui, ui),
 * every lane the scalar expression's bits (li (-ui) is -(li ui), a + (-b)
 * is a - b, and a sum's terms commute; ISO C contracts nothing into a
 * multiply-add); without them, the scalar loop. */
#if defined(__GNUC__)
typedef double tsi_lu_v2d __attribute__((vector_size(16)));
static inline void tsi_lu_minus_multiple_c128(tsi_complex128 *x, const int32_t *rows, const tsi_complex128 *l,
                                              int64_t begin, int64_t end, tsi_complex128 u) {
  const tsi_lu_v2d u_re = {u.re, u.re}, u_im = {-u.im, u.im};
  for (int64_t q = begin; q < end; q++) {
    tsi_lu_v2d lq, xq;
    memcpy(&lq, &l[q], sizeof lq);
    const tsi_lu_v2d swapped = {lq[1], lq[0]};
    tsi_complex128 *target = &x[rows[q]];
    memcpy(&xq, target, sizeof xq);
    xq = xq - (lq * u_re + swapped * u_im);
    memcpy(target, &xq, sizeof xq);
  }
}
#else
static inline void tsi_lu_minus_multiple_c128(tsi_complex128 *x, const int32_t *rows, const tsi_complex128 *l,
                                              int64_t begin, int64_t end, tsi_complex128 u) {
  for (int64_t q = begin; q < end; q++)
    x[rows[q]] = tsi_z_minus_product(x[rows[q]], l[q], u);
}
#endif
static inline void tsi_lu_minus_multiple_c64(tsi_complex128 *x, const int32_t *rows, const tsi_complex64 *l,
                                             int64_t begin, int64_t end, tsi_complex128 u) {
  for (int64_t q = begin; q < end; q++)
    x[rows[q]] = tsi_z_minus_product(x[rows[q]], tsi_z_widen(l[q]), u);
}
#define tsi_lu_minus_multiple(x, rows, l, begin, end, u)                                                               \
  _Generic((l), tsi_complex64 *                                                                                        \
           : tsi_lu_minus_multiple_c64, default                                                                        \
           : tsi_lu_minus_multiple_c128)(x, rows, l, begin, end, u)
#endif
