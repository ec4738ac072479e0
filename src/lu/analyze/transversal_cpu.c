/* The matching of the partial-pivoting analysis: the weighted matching and
 * its scaling (matching_cpu.c), as static pivoting has them, and where the
 * entries span more decades than its scales can hold, a maximum transversal
 * of A's nonzero entries (Duff, ACM TOMS 7(3), 1981: depth-first augmenting
 * paths, through tsi_lu_structural_rank), which only has to make M's
 * diagonal zero-free for the block triangular form and the ordering; the
 * pivots themselves come from the values later (partial_pivots_cpu.c).
 * There, rows then columns are scaled by their largest magnitude
 * (equilibrate, below), so that the pivot tolerance compares entries of
 * like rows. */
#include "lu/analyze/analyze_internal.h"

#include <math.h>
#include <stdlib.h>

/* A power of two near 1/largest, within double's normal range (a line of
 * subnormal magnitudes gets a finite scale); 1 for a line without a nonzero
 * entry (the transversal then finds the matrix singular). */
static double reciprocal_power_of_two(double largest) {
  if (!(largest > 0.0))
    return 1.0;
  int exponent = 0;
  (void)frexp(largest, &exponent);
  exponent = exponent < -1023 ? -1023 : exponent > 1022 ? 1022 : exponent;
  return ldexp(1.0, -exponent);
}

/* Rows scaled by their largest magnitude (KLU's default scaling: Davis and
 * Palamadai Natarajan, ACM TOMS 37(3), 2010), then columns by their largest
 * scaled one, so that the tiny-pivot test, against max|M|, does not depend
 * on a column's units (an upper triangular [1e-20 1; 0 1] would otherwise
 * hold a "tiny" pivot). One pass, where the weighted matching's scaling
 * (the first choice) cannot hold the entries' range: Ruiz's iteration,
 * tried, fought the clamp to double's range on such matrices
 * (bench/notes/lu-singularity.md). Scales are powers of two within double's
 * normal range, so that the scaled values are exact. A non-finite entry is
 * refused in the first pass. */
static ts_status equilibrate(ts_lu *lu, const ts_csr *a, int diagonal) {
  const int64_t n = a->rows;
  for (int64_t i = 0; i < n; i++) {
    double row_largest = 0.0;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      const double magnitude = fabs(tsi_lu_real_entry(a, k));
      if (!isfinite(magnitude))
        return tsi_lu_non_finite_entry(lu, a, diagonal, k);
      row_largest = magnitude > row_largest ? magnitude : row_largest;
    }
    lu->row_scale[i] = reciprocal_power_of_two(row_largest);
  }
  double *largest = tsi_calloc_array(n > 0 ? n : 1, sizeof(double));
  if (!largest)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the scaling's workspace");
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      const int32_t j = a->col_idx[k];
      const double magnitude = lu->row_scale[i] * fabs(tsi_lu_real_entry(a, k));
      largest[j] = magnitude > largest[j] ? magnitude : largest[j];
    }
  for (int64_t j = 0; j < n; j++)
    lu->col_scale[j] = reciprocal_power_of_two(largest[j]);
  free(largest);
  return TS_SUCCESS;
}

ts_status tsi_lu_matching_transversal(ts_lu *lu, const ts_csr *a, int diagonal) {
  const int64_t n = a->rows;
  ts_status st = tsi_lu_permutations_alloc(lu, n);
  if (st != TS_SUCCESS)
    return st;
  for (int64_t i = 0; i < n; i++)
    lu->col_perm[i] = lu->row_perm[i] = (int32_t)i;
  st = equilibrate(lu, a, diagonal);
  if (st != TS_SUCCESS)
    return st;
  if (diagonal == 2) {
    lu->stats.structural_rank = n;
    return TS_SUCCESS;
  }
  /* Explicit zeros cannot be pivots, as in the weighted matching. */
  unsigned char *zero = tsi_malloc_array(a->nnz > 0 ? a->nnz : 1, 1);
  if (!zero)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the matching's mask");
  for (int64_t k = 0; k < a->nnz; k++)
    zero[k] = tsi_lu_real_entry(a, k) == 0.0;
  int64_t rank = n;
  st = tsi_lu_structural_rank(lu->ctx, n, a->row_ptr, a->col_idx, zero, lu->row_perm, &rank);
  free(zero);
  if (st == TS_SUCCESS && rank < n)
    st = tsi_lu_no_perfect_matching(lu, a, diagonal);
  if (st == TS_SUCCESS)
    lu->stats.structural_rank = n;
  return st;
}

ts_status tsi_lu_matching_partial(ts_lu *lu, const ts_csr *a, int diagonal) {
  ts_status st = tsi_lu_matching(lu, a, diagonal);
  if (st != TS_ERROR_OVERFLOW)
    return st;
  /* Entries spanning more decades than the matching's scales can hold: the
   * transversal, whose powers of two stay within double's range. */
  free(lu->row_perm);
  free(lu->col_perm);
  free(lu->row_scale);
  free(lu->col_scale);
  lu->row_perm = lu->col_perm = NULL;
  lu->row_scale = lu->col_scale = NULL;
  return tsi_lu_matching_transversal(lu, a, diagonal);
}
