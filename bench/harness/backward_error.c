/* The normwise backward error the LU benchmarks report for every solver. */
#include "tsb.h"

#include <math.h>

double tsb_backward_error(const ts_csr *a, const double *x, const double *b) {
  const double *v = (const double *)a->values;
  double r = 0.0, an = 0.0, xn = 0.0, bn = 0.0;
  for (int64_t i = 0; i < a->rows; i++) {
    double s = b[i], row = 0.0;
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      s -= v[e] * x[a->col_idx[e]];
      row += fabs(v[e]);
    }
    r = fmax(r, fabs(s));
    an = fmax(an, row);
    xn = fmax(xn, fabs(x[i]));
    bn = fmax(bn, fabs(b[i]));
  }
  double denominator = an * xn + bn;
  return denominator > 0.0 ? r / denominator : r;
}
