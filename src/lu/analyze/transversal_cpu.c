/* The matching of the partial-pivoting analysis: a maximum transversal of
 * A's nonzero entries (Duff, ACM TOMS 7(3), 1981: depth-first augmenting
 * paths, through tsi_lu_structural_rank), which only has to make M's
 * diagonal zero-free for the block triangular form and the ordering; the
 * pivots themselves come from the values later (partial_pivots_cpu.c).
 * Rows are scaled by their largest magnitude (rounded to a power of two), as
 * KLU scales by default (Davis and Palamadai Natarajan, ACM TOMS 37(3),
 * 2010), so that the pivot tolerance compares entries of like rows. */
#include "lu/analyze/analyze_internal.h"

#include <math.h>
#include <stdlib.h>

static double real_value(const ts_csr *a, int64_t k) {
  return a->dtype == TS_FLOAT64 ? ((const double *)a->values)[k] : (double)((const float *)a->values)[k];
}

ts_status tsi_lu_matching_transversal(ts_lu *lu, const ts_csr *a, int diagonal) {
  const int64_t n = a->rows;
  lu->row_perm = tsi_malloc_array(n, sizeof(int32_t));
  lu->col_perm = tsi_malloc_array(n, sizeof(int32_t));
  lu->row_scale = tsi_malloc_array(n, sizeof(double));
  lu->col_scale = tsi_malloc_array(n, sizeof(double));
  if (!lu->row_perm || !lu->col_perm || !lu->row_scale || !lu->col_scale)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the permutations of %lld rows",
                     (long long)n);
  for (int64_t i = 0; i < n; i++) {
    double largest = 0.0;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      const double magnitude = fabs(real_value(a, k));
      if (!isfinite(magnitude))
        return tsi_lu_non_finite_entry(lu, a, diagonal, k);
      largest = magnitude > largest ? magnitude : largest;
    }
    /* A power of two near 1/largest: the scaled values are exact, and a
     * row of subnormal magnitudes gets a finite scale (the exponent is
     * kept within double's range). A row without a nonzero entry makes the
     * matrix singular: the transversal below says so. */
    int exponent = 0;
    (void)frexp(largest, &exponent);
    exponent = exponent < -1023 ? -1023 : exponent > 1022 ? 1022 : exponent; /* 2^-exponent normal, finite */
    lu->row_scale[i] = largest > 0.0 ? ldexp(1.0, -exponent) : 1.0;
    lu->col_scale[i] = 1.0;
    lu->col_perm[i] = lu->row_perm[i] = (int32_t)i;
  }
  if (diagonal == 2) {
    lu->stats.structural_rank = n;
    return TS_SUCCESS;
  }
  /* Explicit zeros cannot be pivots, as in the weighted matching. */
  unsigned char *zero = tsi_malloc_array(a->nnz > 0 ? a->nnz : 1, 1);
  if (!zero)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the matching's mask");
  for (int64_t k = 0; k < a->nnz; k++)
    zero[k] = real_value(a, k) == 0.0;
  int64_t rank = n;
  ts_status st = tsi_lu_structural_rank(lu->ctx, n, a->row_ptr, a->col_idx, zero, lu->row_perm, &rank);
  free(zero);
  if (st == TS_SUCCESS && rank < n)
    st = tsi_lu_no_perfect_matching(lu, a, diagonal);
  if (st == TS_SUCCESS)
    lu->stats.structural_rank = n;
  return st;
}
