/* The pivot check after a factorization that reuses an analysis (a Newton
 * loop's refactorizations): the static pivots were chosen, by the matching
 * and the ordering, for the values the analysis saw; new values can make
 * one of them small against its column. The check compares the new
 * factors with those of the first factorization after the analysis, the
 * reference of pivots fresh for their values, on three indicators that the
 * factorization computes on the way (no extra pass): perturbed pivots, the
 * largest multiplier |L(i, j)| and the growth max |U| / max |M|. KLU's
 * users do the same with klu_rcond after klu_refactor, and factor again
 * with pivoting when it is small. */
#include "lu/numeric/numeric_internal.h"

#include <stdbool.h>

/* Worse than the reference on an indicator: past its absolute bound and
 * TSI_LU_DEGRADED_FACTOR times the reference's value (a matrix whose fresh
 * pivots already give large multipliers is not flagged for keeping them). */
static bool worse(double now, double reference, double bound) {
  return now > bound && now > TSI_LU_DEGRADED_FACTOR * reference;
}

static bool degraded(const tsi_lu_pivot_quality *now, const tsi_lu_pivot_quality *reference) {
  return now->perturbed > reference->perturbed ||
         worse(now->max_multiplier, reference->max_multiplier, TSI_LU_DEGRADED_MULTIPLIER) ||
         worse(now->growth, reference->growth, TSI_LU_DEGRADED_GROWTH);
}

ts_status tsi_lu_pivot_check(ts_lu *lu, ts_status status, const char *caller) {
  const tsi_lu_pivot_quality *now = &lu->pivot_now;
  lu->stats.max_multiplier = now->max_multiplier;
  lu->stats.pivot_growth = now->growth;
  if (!lu->pivot_base_set) {
    lu->pivot_base = *now;
    lu->pivot_base_set = 1;
    return status;
  }
  const tsi_lu_pivot_quality *base = &lu->pivot_base;
  if (!degraded(now, base))
    return status;
  return tsi_error(lu->ctx, TS_WARNING_PIVOTS_DEGRADED,
                   "%s: the pivots no longer suit the values (perturbed pivots %lld, at the analysis %lld; largest "
                   "multiplier %.3g, at the analysis %.3g; growth %.3g, at the analysis %.3g): analyze these values "
                   "again for fresh pivots (or set ts_lu_options.refresh_pivots)",
                   caller, (long long)now->perturbed, (long long)base->perturbed, now->max_multiplier,
                   base->max_multiplier, now->growth, base->growth);
}
