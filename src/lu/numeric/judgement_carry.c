/* The singularity policy's judgement carried to a factorization of values
 * near those last judged, instead of a new condition estimate (a Newton
 * loop's refactorizations near convergence, or of the same values). A
 * perturbation bound decides (Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., 2002, Theorem 6.5 / problem 6.14): if
 * |dA|_1 |A^{-1}|_1 = theta < 1, then A + dA is nonsingular and
 * |(A + dA)^{-1}|_1 <= |A^{-1}|_1 / (1 - theta). With |A^{-1}|_1 from the
 * judged factorization's estimate (a lower bound, as every use of the
 * estimate in the policy takes it) and |dA|_1 bounded by the sum of the
 * entries' changes, the new condition number is at most
 * (|A|_1 + |dA|_1) |A^{-1}|_1 / (1 - theta); the judgement carries when
 * theta <= TSI_LU_JUDGEMENT_CARRY_THETA, that bound is within 1/eps, and the
 * pivots were perturbed (or found small) as in the judged factorization:
 * the same count, the same first perturbed column and the same smallest
 * pivot's column. The solves' own check (refinement to the backward error
 * limit, else the fallback) stays on every solve through perturbed pivots.
 * A judgement that stood on the scaled matrix M's estimate carries the same
 * way in M's terms (|dM|_1, |M|_1, the estimate of |M^{-1}|_1): the bound
 * is then on M's condition number. */
#include "core/complex_value.h"
#include "lu/numeric/numeric_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* |A_now(e) - A_judged(e)| (the modulus for complex values). */
static inline double entry_change(const ts_lu *lu, const double *judged, int64_t e) {
  const double *now = lu->a_values;
  return lu->complex_values ? tsi_z_abs(tsi_z(now[2 * e] - judged[2 * e], now[2 * e + 1] - judged[2 * e + 1]))
                            : fabs(now[e] - judged[e]);
}

/* The sum of the entries' changes: at least |dA|_1; with scaled, of the
 * scaled matrix's (each change times its row's and column's scales): at
 * least |dM|_1. */
static double change_sum(const ts_lu *lu, const double *judged, bool scaled) {
  double sum = 0.0;
  if (!scaled) {
    for (int64_t e = 0; e < lu->nnz_a; e++)
      sum += entry_change(lu, judged, e);
    return sum;
  }
  for (int64_t i = 0; i < lu->n; i++)
    for (int64_t e = lu->a_row_ptr[i]; e < lu->a_row_ptr[i + 1]; e++)
      sum += lu->row_scale[i] * entry_change(lu, judged, e) * lu->col_scale[lu->a_col_idx[e]];
  return sum;
}

bool tsi_lu_judgement_carries(const ts_lu *lu, const tsi_lu_numeric_workspace *ws, double *condition_bound,
                              bool *of_scaled) {
  const tsi_lu_judgement_record *record = &ws->judged;
  if (!record->values || lu->pivoted)
    return false;
  const tsi_lu_pivot_quality *now = &lu->pivot_now;
  if (now->perturbed != record->perturbed || lu->first_perturbed != record->first_perturbed ||
      now->smallest_pivot_column != record->smallest_pivot_column)
    return false;
  const double change = change_sum(lu, record->values, record->scaled);
  const double theta = change * record->inverse_norm;
  if (!(theta <= TSI_LU_JUDGEMENT_CARRY_THETA))
    return false;
  const double bound = (record->norm_one + change) * record->inverse_norm / (1.0 - theta);
  if (!(bound <= 1.0 / DBL_EPSILON))
    return false;
  *condition_bound = bound;
  *of_scaled = record->scaled;
  return true;
}

void tsi_lu_judgement_record_set(ts_lu *lu, tsi_lu_numeric_workspace *ws, double condest, bool of_scaled) {
  tsi_lu_judgement_record *record = &ws->judged;
  const int64_t count = (lu->nnz_a > 0 ? lu->nnz_a : 1) * tsi_lu_parts(lu);
  const double norm_one = of_scaled ? ws->m_norm_one : ws->a_norm_one;
  /* Only factors that stood without the fallback, with a finite estimate
   * over a known 1-norm, are a reference. */
  if (lu->pivoted || !(norm_one > 0.0) || !isfinite(condest)) {
    tsi_lu_judgement_record_clear(ws);
    return;
  }
  if (!record->values)
    record->values = tsi_malloc_array(count, sizeof(double));
  if (!record->values)
    return; /* no reference: the next factorization is judged anew */
  memcpy(record->values, lu->a_values, (size_t)count * sizeof(double));
  record->scaled = of_scaled;
  record->norm_one = norm_one;
  record->inverse_norm = condest / norm_one;
  record->perturbed = lu->pivot_now.perturbed;
  record->first_perturbed = lu->first_perturbed;
  record->smallest_pivot_column = lu->pivot_now.smallest_pivot_column;
}

void tsi_lu_judgement_record_clear(tsi_lu_numeric_workspace *ws) {
  free(ws->judged.values);
  memset(&ws->judged, 0, sizeof ws->judged);
}
