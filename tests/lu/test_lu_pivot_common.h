/* Matrices for the pivot check's tests (test_lu_pivot_check.c and its GPU
 * twin): pairs of unknowns (2i, 2i+1), the second unknowns coupled along a
 * chain (nothing reaches a first unknown's pivot). At the analysis every
 * pair is [4 1; 1 4] (diagonally dominant: the matching keeps the
 * diagonal); in the "switched" values every seventh pair becomes [d 1; 1 4]:
 * in the natural order the old pivot d gives multipliers of 1/d, while the
 * matching of the new values takes the off-diagonal entries. */
#ifndef TESSERA_TEST_LU_PIVOT_COMMON_H
#define TESSERA_TEST_LU_PIVOT_COMMON_H

#include "test_lu_numeric_common.h"

enum { PIVOT_TEST_PAIRS = 300, PIVOT_TEST_N = 2 * PIVOT_TEST_PAIRS };

/* The pair matrix: switched pairs with diagonal `tiny` when `switched` is
 * set; every value but the couplings jittered by 1 + jitter * r, r in
 * [-1, 1), when jitter > 0. */
static inline ts_csr *pivot_test_matrix(ts_context *ctx, int switched, double tiny, double jitter) {
  enum { N = PIVOT_TEST_N };
  int32_t rows[8 * N], cols[8 * N];
  double values[8 * N];
  int64_t at = 0;
  unsigned long long state = (unsigned long long)(jitter * 1000.0) + 7;
  for (int32_t p = 0; p < PIVOT_TEST_PAIRS; p++) {
    const int32_t i = 2 * p, j = 2 * p + 1;
    const double scale = jitter > 0.0 ? 1.0 + jitter * test_random(&state) : 1.0;
    const double diagonal = switched && p % 7 == 3 ? tiny : 4.0 * scale;
    rows[at] = i, cols[at] = i, values[at++] = diagonal;
    rows[at] = i, cols[at] = j, values[at++] = 1.0;
    rows[at] = j, cols[at] = i, values[at++] = 1.0;
    rows[at] = j, cols[at] = j, values[at++] = 4.0 * scale;
    if (p + 1 < PIVOT_TEST_PAIRS) {
      rows[at] = j, cols[at] = j + 2, values[at++] = -0.5;
      rows[at] = j + 2, cols[at] = j, values[at++] = -0.5;
    }
  }
  return lu_test_csr(ctx, N, at, rows, cols, values);
}

#endif
