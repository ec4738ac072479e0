/* The normwise backward error the LU benchmarks report for every solver,
 * |b - A x|_inf / (|A|_inf |x|_inf + |b|_inf), with each row's residual
 * summed in double-double (Dekker's exact product by splitting, Knuth's
 * TwoSum; Ogita, Rump and Oishi, "Accurate sum and dot product", SISC
 * 26(6), 2005): a residual in plain double, summed in A's order, carries
 * the rounding of that one order, which a solver refined with a residual
 * summed in the same order meets exactly and one summed otherwise does
 * not, so the figure would favour the first. */
#include "tsb.h"

#include <math.h>

/* a = hi + lo exactly, hi holding the leading 26 bits (Dekker 1971). */
static void split(double a, double *hi, double *lo) {
  const double c = 134217729.0 * a; /* 2^27 + 1 */
  *hi = c - (c - a);
  *lo = a - *hi;
}

/* p + e = a * b exactly (Dekker's TwoProduct, no fused multiply-add). */
static void two_product(double a, double b, double *p, double *e) {
  double ah, al, bh, bl;
  *p = a * b;
  split(a, &ah, &al);
  split(b, &bh, &bl);
  *e = al * bl - (((*p - ah * bh) - al * bh) - ah * bl);
}

/* s + e = a + b exactly (Knuth's TwoSum). */
static void two_sum(double a, double b, double *s, double *e) {
  *s = a + b;
  const double z = *s - a;
  *e = (a - (*s - z)) + (b - z);
}

double tsb_backward_error(const ts_csr *a, const double *x, const double *b) {
  const double *v = (const double *)a->values;
  double r = 0.0, an = 0.0, xn = 0.0, bn = 0.0;
  for (int64_t i = 0; i < a->rows; i++) {
    double hi = b[i], lo = 0.0, row = 0.0;
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      double p, p_error, s, s_error;
      two_product(-v[e], x[a->col_idx[e]], &p, &p_error);
      two_sum(hi, p, &s, &s_error);
      hi = s;
      lo += s_error + p_error;
      row += fabs(v[e]);
    }
    r = fmax(r, fabs(hi + lo));
    an = fmax(an, row);
    xn = fmax(xn, fabs(x[i]));
    bn = fmax(bn, fabs(b[i]));
  }
  double denominator = an * xn + bn;
  return denominator > 0.0 ? r / denominator : r;
}
