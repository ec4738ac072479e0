/* The singularity policy (tessera/lu.h, "Singular matrices"): whether a
 * factorization whose static pivoting replaced tiny pivots stands. The
 * replaced pivots make the factors those of a nearby matrix whose condition
 * number is bounded by about 1/sqrt(eps), so the factors alone cannot say
 * whether A is singular; refinement with them can: it converges for a
 * nonsingular A and cannot for a singular one and a right-hand side outside
 * A's range, which the condition estimator's right-hand sides (e/n, sign
 * vectors, columns e_j, an alternating vector) provide. So A's condition
 * number is estimated through the factors with every solve refined; if the
 * solves reach the backward error and the estimate stays within 1/eps, the
 * factors stand. If not, partial pivoting (KLU's algorithm) decides: a
 * column without a nonzero pivot candidate is KLU's own singular verdict;
 * otherwise the same two tests through its factors. Factors without a
 * perturbed pivot face the same judgement when their smallest pivot is
 * below sqrt(pivot_threshold) * max|M| (the threshold no lower than its
 * default): rounding leaves a rank-deficient matrix's cancelled pivot a
 * little above the threshold as often as below; and float factors whose
 * growth left a cancelled pivot nothing to tell by. Those stand only if
 * they are also stable_enough.
 * A judgement whose factors stood carries to later values close enough that
 * a perturbation bound keeps their condition number within 1/eps
 * (judgement_carry.c), the pivots perturbed as before. */
#include "lu/inspect/inspect_internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* The singular status naming column m_column of M (in the user's numbering)
 * and why. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static ts_status
singular(ts_lu *lu, int64_t m_column, const char *caller, const char *format, ...) {
  const int64_t column = m_column >= 0 && m_column < lu->n ? lu->col_perm[m_column] : 0;
  lu->stats.singular_column = column;
  char why[512];
  va_list args;
  va_start(args, format);
  vsnprintf(why, sizeof why, format, args);
  va_end(args);
  return tsi_error(lu->ctx, TS_ERROR_NUMERICALLY_SINGULAR,
                   "%s: the matrix is numerically singular: column %lld (from 0) %s; %lld pivots were perturbed (%s "
                   "pivoting)",
                   caller, (long long)column, why, (long long)lu->stats.perturbed_pivots,
                   lu->stats.pivoting == TS_LU_PIVOTING_PARTIAL ? "partial" : "static");
}

ts_status tsi_lu_fall_back(ts_lu *lu, const char *caller) {
  ts_status st = tsi_lu_pivoted_factor(lu);
  if (st != TS_SUCCESS)
    return st;
  if (lu->pivoted->replaced > 0) {
    const int64_t column = lu->pivoted->first_replaced, count = lu->pivoted->replaced;
    tsi_lu_pivoted_release(lu);
    return singular(lu, column, caller, "has no nonzero pivot under partial pivoting (%lld such column%s)",
                    (long long)count, count == 1 ? "" : "s");
  }
  return TS_SUCCESS;
}

ts_status tsi_lu_singular_by_refinement(ts_lu *lu, double backward_error, double limit, const char *caller) {
  return singular(lu, lu->first_perturbed, caller,
                  "has a perturbed pivot, and refinement leaves the backward error at %.2e, above %.0e", backward_error,
                  limit);
}

/* A hint where the matching's scaling, which equilibrates a badly scaled
 * matrix, was turned off. */
static const char *no_matching_hint(const ts_lu *lu) {
  return lu->options.no_matching ? " (the matching's scaling is off: it may equilibrate the matrix)" : "";
}

/* A hint where a refactorization is refused: its pivots and scaling were
 * chosen for the values an earlier factorization of the analysis had. */
static const char *stale_hint(const ts_lu *lu) {
  return lu->pivot_base_set ? " (the pivots and the scaling were chosen for other values: analyze these anew, or set "
                              "refresh_pivots)"
                            : "";
}

/* The factors stand when every refined solve of the condition estimate
 * reached the limit and the estimate is at most 1/eps. */
static bool factors_stand(const tsi_lu_condition *c) {
  return c->worst <= TSI_LU_SINGULAR_BACKWARD_ERROR && c->estimate <= 1.0 / DBL_EPSILON;
}

/* Static factors whose largest multiplier times their growth exceeds
 * TSI_LU_JUDGED_GROWTH are those of a matrix further from M than the
 * rounding of a stable factorization: a singular M's estimate through
 * them can fall below 1/eps, and its refined solves reach the backward
 * error with a huge x. They do not stand on their own estimate; partial
 * pivoting decides. */
static bool stable_enough(const ts_lu *lu) {
  const tsi_lu_pivot_quality *q = &lu->pivot_now;
  return !(q->max_multiplier * q->growth > TSI_LU_JUDGED_GROWTH);
}

/* Whether the analysis scaled A (M differs from A by more than its
 * permutations). */
static bool scaled(const ts_lu *lu) {
  for (int64_t i = 0; i < lu->n; i++)
    if (lu->row_scale[i] != 1.0 || lu->col_scale[i] != 1.0)
      return true;
  return false;
}

/* max(scale) / min(scale) over n scales. */
static double span(int64_t n, const double *scale) {
  double low = INFINITY, high = 0.0;
  for (int64_t i = 0; i < n; i++) {
    low = scale[i] < low ? scale[i] : low;
    high = scale[i] > high ? scale[i] : high;
  }
  return n > 0 && low > 0.0 ? high / low : 1.0;
}

/* A's condition through the current factors, then, where only A's
 * estimate keeps them from standing (every solve reached the limit), M's:
 * the diagonal scaling changes neither whether the matrix is singular nor
 * what the factors of M can solve, only A's own condition number (a matrix
 * whose rows and columns are in other units). M's estimate is raised to
 * A's over the scalings' spans where that is larger (kappa(A) <=
 * kappa(Dr) kappa(M) kappa(Dc), so that too is a lower bound of M's), and
 * must be within TSI_LU_SCALED_CONDITION_LIMIT. *a_condition and
 * *m_condition (estimate 0 where none was made) get the estimates;
 * *by_scaled whether M's stood. */
static ts_status estimate_and_judge(ts_lu *lu, tsi_lu_condition *a_condition, tsi_lu_condition *m_condition,
                                    bool *stand, bool *by_scaled) {
  *m_condition = (tsi_lu_condition){0};
  *by_scaled = false;
  ts_status st = tsi_lu_estimate_condition(lu, false, a_condition);
  if (st != TS_SUCCESS)
    return st;
  lu->stats.condest = a_condition->estimate;
  *stand = factors_stand(a_condition);
  if (*stand || !(a_condition->worst <= TSI_LU_SINGULAR_BACKWARD_ERROR) || !scaled(lu))
    return TS_SUCCESS;
  st = tsi_lu_estimate_condition(lu, true, m_condition);
  if (st != TS_SUCCESS)
    return st;
  const double spans = span(lu->n, lu->row_scale) * span(lu->n, lu->col_scale);
  const double from_a = a_condition->estimate / spans;
  if (from_a > m_condition->estimate)
    m_condition->estimate = from_a;
  lu->stats.scaled_condest = m_condition->estimate;
  *stand = *by_scaled =
      m_condition->worst <= TSI_LU_SINGULAR_BACKWARD_ERROR && m_condition->estimate <= TSI_LU_SCALED_CONDITION_LIMIT;
  return TS_SUCCESS;
}

/* " and %.2e of the scaled matrix M" where M's condition was estimated. */
static void scaled_clause(const tsi_lu_condition *m_condition, char *text, size_t size) {
  if (m_condition->estimate > 0.0)
    snprintf(text, size, " and %.2e of the scaled matrix M", m_condition->estimate);
  else
    text[0] = '\0';
}

/* The judgement of factors under suspicion (`what` says why: "has a
 * perturbed pivot", or a small one) naming column m_column of M; `stand`
 * is the status of factors that stand. With check_growth (a small pivot
 * left as it was, not one replaced, whose replacement makes large
 * multipliers by design) the static factors must also be stable_enough. */
static ts_status judge(ts_lu *lu, const char *caller, const char *what, int64_t m_column, ts_status stand,
                       bool check_growth) {
  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no memory for the workspace", caller);
  lu->stats.scaled_condest = 0.0;
  if (ws->a_norm_inf == 0.0) {
    lu->stats.condest = INFINITY;
    return singular(lu, m_column >= 0 ? m_column : 0, caller, "has no pivot: every value of the matrix is zero");
  }
  double bound = 0.0;
  bool of_scaled = false;
  if (tsi_lu_judgement_carries(lu, ws, &bound, &of_scaled)) {
    /* The bound on the condition number, of A or of M. */
    if (of_scaled)
      lu->stats.scaled_condest = bound;
    else
      lu->stats.condest = bound;
    return stand;
  }
  ws->condition_estimates++;
  tsi_lu_condition a_condition, m_condition;
  bool stands = false, by_scaled = false;
  ts_status st = estimate_and_judge(lu, &a_condition, &m_condition, &stands, &by_scaled);
  if (st != TS_SUCCESS)
    return st;
  stands = stands && (!check_growth || stable_enough(lu));
  if (stands) {
    tsi_lu_judgement_record_set(lu, ws, by_scaled ? m_condition.estimate : a_condition.estimate, by_scaled);
    return stand;
  }
  tsi_lu_judgement_record_clear(ws);
  /* Refinement could not make the static factors solve with A, or A (and
   * M) are beyond 1/eps: partial pivoting decides. */
  st = tsi_lu_fall_back(lu, caller);
  if (st != TS_SUCCESS)
    return st;
  st = estimate_and_judge(lu, &a_condition, &m_condition, &stands, &by_scaled);
  if (st != TS_SUCCESS) {
    tsi_lu_pivoted_release(lu);
    return st;
  }
  if (stands)
    return stand; /* the solves use the fallback's factors */
  tsi_lu_pivoted_release(lu);
  char clause[96];
  scaled_clause(&m_condition, clause, sizeof clause);
  const tsi_lu_condition *worse = m_condition.estimate > 0.0 ? &m_condition : &a_condition;
  if (!isfinite(a_condition.worst))
    return singular(lu, m_column, caller,
                    "%s, and solves through its factors, with partial pivoting too, overflow (condition estimate "
                    "%.2e%s)%s",
                    what, a_condition.estimate, clause, no_matching_hint(lu));
  if (!(worse->worst <= TSI_LU_SINGULAR_BACKWARD_ERROR))
    return singular(lu, m_column, caller,
                    "%s, and refined solves, with partial pivoting too, stay at a backward error of %.2e, above %.0e "
                    "(condition estimate %.2e%s)",
                    what, worse->worst, TSI_LU_SINGULAR_BACKWARD_ERROR, a_condition.estimate, clause);
  if (m_condition.estimate > 0.0)
    return singular(lu, m_column, caller,
                    "%s, and the condition estimate of A, %.2e, exceeds 1/eps = %.2e, and that of the scaled matrix M, "
                    "%.2e, exceeds %.2e%s",
                    what, a_condition.estimate, 1.0 / DBL_EPSILON, m_condition.estimate, TSI_LU_SCALED_CONDITION_LIMIT,
                    stale_hint(lu));
  return singular(lu, m_column, caller, "%s, and the condition estimate %.2e exceeds 1/eps = %.2e%s%s", what,
                  a_condition.estimate, 1.0 / DBL_EPSILON, no_matching_hint(lu), stale_hint(lu));
}

ts_status tsi_lu_judge_factorization(ts_lu *lu, const char *caller) {
  return judge(lu, caller, "has a perturbed pivot", lu->first_perturbed, TS_WARNING_PERTURBED_PIVOTS, false);
}

ts_status tsi_lu_judge_small_pivot(ts_lu *lu, const char *caller) {
  const tsi_lu_pivot_quality *q = &lu->pivot_now;
  /* A smaller pivot_threshold asked for moves the perturbation, not this
   * judgement: the default's for the factors' precision at the least. */
  const double least = lu->options.float_factors ? TSI_LU_PIVOT_THRESHOLD_F32 : TSI_LU_PIVOT_THRESHOLD_F64;
  const double threshold = fmax(tsi_lu_pivot_threshold(lu), least);
  const double ratio = q->smallest_pivot_ratio, growth = q->max_multiplier * q->growth;
  if (q->smallest_pivot_column < 0)
    return TS_SUCCESS;
  char what[160];
  if (ratio < sqrt(threshold)) {
    snprintf(what, sizeof what, "has a pivot of %.2e times max|M| (below %.1e)", ratio, sqrt(threshold));
  } else if (lu->options.float_factors && growth > 1.0 / sqrt((double)FLT_EPSILON)) {
    /* Float factors that grew this much have lost every digit of a
     * cancelled pivot: the smallest one tells nothing. */
    snprintf(what, sizeof what,
             "has float factors whose largest multiplier times growth is %.2e (above 1/sqrt(eps) of float)", growth);
  } else {
    return TS_SUCCESS;
  }
  return judge(lu, caller, what, q->smallest_pivot_column, TS_SUCCESS, true);
}

ts_status tsi_lu_judge_repivoted(ts_lu *lu, const char *caller) {
  const int64_t column = lu->pivot_now.smallest_pivot_column >= 0 ? lu->pivot_now.smallest_pivot_column : 0;
  return judge(lu, caller, "needed a perturbed pivot under static pivoting (partial pivoting then chose them)", column,
               TS_SUCCESS, false);
}
