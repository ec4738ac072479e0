/* Matrix with power-law (Zipf) row lengths: the row of rank r, ranks given
 * by a seeded random permutation of the rows, holds
 * min(cols, max(1, round(C / r^exponent))) distinct random columns, C found
 * by bisection so that the total is as close as possible to the requested
 * nnz. */
#include "gen_internal.h"

#include <math.h>
#include <stdlib.h>

enum { STREAM_POWER_LAW_RANKS = 21 };

static int64_t row_length(double scale, double weight, int64_t cols) {
  double len = scale * weight;
  if (len >= (double)cols)
    return cols;
  int64_t rounded = (int64_t)llround(len);
  return rounded < 1 ? 1 : rounded;
}

/* Total entries for scale C; weight[r-1] = r^-exponent. Integer sums are
 * exact, so the result does not depend on the thread count. */
static int64_t total_entries(double scale, const double *weight, int64_t rows, int64_t cols) {
  int64_t total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
  for (int64_t r = 0; r < rows; r++)
    total += row_length(scale, weight[r], cols);
  return total;
}

ts_status ts_gen_power_law(ts_context *ctx, int64_t rows, int64_t cols, int64_t nnz, double exponent, uint64_t seed,
                           ts_dtype dtype, ts_csr **csr) {
  const char *op = "ts_gen_power_law";
  ts_status st = tsi_gen_check_output(ctx, op, dtype, csr);
  if (st != TS_SUCCESS)
    return st;
  st = tsi_gen_check_shape(ctx, op, rows, cols);
  if (st != TS_SUCCESS)
    return st;
  if (!(exponent > 0.0) || !isfinite(exponent))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: exponent must be finite and > 0 (got %g)", op, exponent);
  int64_t most;
  bool full_fits = !tsi_mul_overflows(rows, cols, &most);
  if (nnz < rows || (full_fits && nnz > most))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: nnz = %lld must lie between rows (%lld: one entry per row) and rows * cols", op,
                     (long long)nnz, (long long)rows);

  ts_csr *out = NULL;
  double *weight = tsi_malloc_array(rows, sizeof(double));
  if (!weight) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld row weights", op, (long long)rows);
    goto cleanup;
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; r++)
    weight[r] = pow((double)(r + 1), -exponent);

  /* total(C) is non-decreasing in C: find hi with total(hi) >= nnz, then
   * bisect [lo, hi] and keep the end nearer to nnz. */
  double lo = 0.0, hi = 1.0;
  int64_t total_lo = rows, total_hi = total_entries(hi, weight, rows, cols);
  while (total_hi < nnz) {
    lo = hi;
    total_lo = total_hi;
    hi *= 2.0;
    total_hi = total_entries(hi, weight, rows, cols);
  }
  for (int iteration = 0; iteration < 200 && total_hi != nnz && total_lo != nnz && hi - lo > 1e-12 * hi; iteration++) {
    double mid = 0.5 * (lo + hi);
    int64_t total_mid = total_entries(mid, weight, rows, cols);
    if (total_mid < nnz) {
      lo = mid;
      total_lo = total_mid;
    } else {
      hi = mid;
      total_hi = total_mid;
    }
  }
  double scale = (nnz - total_lo <= total_hi - nnz) ? lo : hi;
  int64_t total = (scale == lo) ? total_lo : total_hi;

  st = ts_csr_create(ctx, rows, cols, total, dtype, &out);
  if (st != TS_SUCCESS)
    goto cleanup;
  tsi_permutation ranks;
  tsi_permutation_init(&ranks, (uint64_t)rows, seed, STREAM_POWER_LAW_RANKS);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < rows; i++)
    out->row_ptr[i + 1] = row_length(scale, weight[tsi_permutation_apply(&ranks, (uint64_t)i)], cols);
  tsi_gen_prefix_sum(out->row_ptr, rows);
  free(weight);
  weight = NULL;

  st = tsi_gen_fill_sampled_rows(ctx, op, out, seed);
  if (st != TS_SUCCESS)
    goto cleanup;
  out->symmetry = TS_GENERAL;
  *csr = out;
  out = NULL;
cleanup:
  free(weight);
  ts_csr_destroy(out);
  return st;
}
