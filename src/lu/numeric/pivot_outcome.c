/* A factorization's pivot outcome from the kind of each column's pivot, as
 * the multifrontal paths (host and GPU) report it: the same counts, first
 * perturbed column and messages as the column paths. */
#include "lu/numeric/numeric_internal.h"

#include <stdio.h>

enum { KIND_OK = 0, KIND_PERTURBED = 1, KIND_SINGULAR = 2, KIND_NOT_FINITE = 3 };

ts_status tsi_lu_pivot_outcome(ts_lu *lu, const signed char *kind, const int32_t *level_of, double tiny,
                               double threshold, const char *caller) {
  const int64_t n = lu->n;
  int64_t perturbed = 0, bad_column = -1, bad_level = INT64_MAX;
  int bad_kind = KIND_OK;
  lu->first_perturbed = -1;
  for (int64_t k = 0; k < n; k++) {
    const int outcome = (unsigned char)kind[k]; /* 0 to 3 */
    if (outcome == KIND_PERTURBED) {
      if (perturbed++ == 0)
        lu->first_perturbed = k;
    } else if (outcome != KIND_OK) {
      const int64_t level = level_of[k];
      if (level < bad_level || (level == bad_level && k < bad_column)) {
        bad_level = level;
        bad_column = k;
        bad_kind = outcome;
      }
    }
  }
  lu->stats.perturbed_pivots = perturbed;
  lu->stats.singular_column = -1;
  if (bad_kind == KIND_OK)
    return perturbed > 0 ? TS_WARNING_PERTURBED_PIVOTS : TS_SUCCESS;
  const int64_t user_column = lu->col_perm[bad_column];
  lu->stats.singular_column = user_column;
  if (bad_kind == KIND_NOT_FINITE)
    return tsi_error(lu->ctx, TS_ERROR_NUMERICALLY_SINGULAR,
                     "%s: the pivot of column %lld (from 0) is not finite: the elimination "
                     "overflowed (pivot %lld of %lld)",
                     caller, (long long)user_column, (long long)bad_column, (long long)n);
  return tsi_lu_tiny_pivot_error(lu->ctx, caller, user_column, bad_column, n, tiny, threshold);
}

ts_status tsi_lu_tiny_pivot_error(ts_context *ctx, const char *caller, int64_t user_column, int64_t position, int64_t n,
                                  double tiny, double threshold) {
  char bound[96];
  if (tiny > 0.0)
    snprintf(bound, sizeof bound, "|u| < %.3g = %.3g x max|scaled A|", tiny, threshold);
  else if (tiny < 0.0)
    snprintf(bound, sizeof bound, "|u| < %.3g x max|scaled A|", threshold);
  else if (threshold > 0.0)
    snprintf(bound, sizeof bound, "u = 0; every value of the scaled matrix is zero");
  else
    snprintf(bound, sizeof bound, "u = 0; the tiny-pivot threshold is 0");
  return tsi_error(ctx, TS_ERROR_NUMERICALLY_SINGULAR,
                   "%s: the matrix is numerically singular: column %lld (from 0) has a zero or tiny pivot "
                   "(%s; pivot %lld of %lld; perturbation is off)",
                   caller, (long long)user_column, bound, (long long)position, (long long)n);
}
