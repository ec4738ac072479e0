/* Matrix with power-law (Zipf) row lengths: the row of rank r, ranks given
 * by a seeded random permutation of the rows, holds
 * min(cols, max(1, round(C / r^exponent))) distinct random columns, C found
 * by bisection so that the total is as close as possible to the requested
 * nnz. Every loop has a fixed bound (the search for C takes at most about
 * 80 passes over the rows, whatever the exponent) and checks for
 * cancellation between blocks. */
#include "gen_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

enum { STREAM_POWER_LAW_RANKS = 21 };

/* Passes of the final bisection of C: the relative tolerance 1e-12 is met
 * after about 40; the bound only makes termination plain. */
#define MOST_BISECTIONS 200

static int64_t row_length(double scale, double weight, int64_t cols) {
  double len = scale * weight; /* scale and weight are finite: len is finite */
  if (len >= (double)cols)
    return cols;
  int64_t rounded = (int64_t)llround(len);
  return rounded < 1 ? 1 : rounded;
}

/* Total entries for scale C; weight[r-1] = r^-exponent. Integer sums are
 * exact, so the result does not depend on the thread count. */
static ts_status total_entries(ts_context *ctx, double scale, const double *weight, int64_t rows, int64_t cols,
                               int64_t *total) {
  int64_t sum = 0;
  for (int64_t start = 0, end; start < rows; start = end) {
    end = tsi_block_end(start, rows);
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int64_t r = start; r < end; r++)
      sum += row_length(scale, weight[r], cols);
    ts_status st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      return st;
  }
  *total = sum;
  return TS_SUCCESS;
}

/* C such that total(C) is as close as possible to nnz (total(0) = rows <=
 * nnz <= total(DBL_MAX), checked by the caller). total is non-decreasing in
 * C: find consecutive powers of two around the answer by a search on the
 * exponent of C (at most 11 + 11 passes), then bisect between them. */
static ts_status find_scale(ts_context *ctx, const double *weight, int64_t rows, int64_t cols, int64_t nnz,
                            double *scale, int64_t *total) {
  double lo = 0.0, hi = 1.0;
  int64_t total_lo = rows, total_hi = 0;
  ts_status st = total_entries(ctx, hi, weight, rows, cols, &total_hi);
  /* Powers 2^k for k = 1, 2, 4, ..., 1023: the largest power below DBL_MAX. */
  int k_lo = 0, k_hi = 0;
  while (st == TS_SUCCESS && total_hi < nnz && k_hi < 1023) {
    k_lo = k_hi;
    lo = hi;
    total_lo = total_hi;
    k_hi = k_hi == 0 ? 1 : (2 * k_hi > 1023 ? 1023 : 2 * k_hi);
    hi = ldexp(1.0, k_hi);
    st = total_entries(ctx, hi, weight, rows, cols, &total_hi);
  }
  if (st == TS_SUCCESS && total_hi < nnz) {
    /* Only the very top of the range is left. */
    k_lo = k_hi;
    lo = hi;
    total_lo = total_hi;
    hi = DBL_MAX;
    st = total_entries(ctx, hi, weight, rows, cols, &total_hi);
  }
  /* Bisect the exponent until the powers are neighbours. */
  while (st == TS_SUCCESS && k_hi - k_lo > 1 && hi != DBL_MAX) {
    int k_mid = k_lo + (k_hi - k_lo) / 2;
    double mid = ldexp(1.0, k_mid);
    int64_t total_mid = 0;
    st = total_entries(ctx, mid, weight, rows, cols, &total_mid);
    if (total_mid < nnz) {
      k_lo = k_mid;
      lo = mid;
      total_lo = total_mid;
    } else {
      k_hi = k_mid;
      hi = mid;
      total_hi = total_mid;
    }
  }
  for (int iteration = 0;
       st == TS_SUCCESS && iteration < MOST_BISECTIONS && total_hi != nnz && total_lo != nnz && hi - lo > 1e-12 * hi;
       iteration++) {
    /* (lo + hi) / 2 as before, but never past DBL_MAX near the top. */
    double mid = hi > 0x1p1022 ? lo + 0.5 * (hi - lo) : 0.5 * (lo + hi);
    int64_t total_mid = 0;
    st = total_entries(ctx, mid, weight, rows, cols, &total_mid);
    if (total_mid < nnz) {
      lo = mid;
      total_lo = total_mid;
    } else {
      hi = mid;
      total_hi = total_mid;
    }
  }
  bool take_lo = nnz - total_lo <= total_hi - nnz;
  *scale = take_lo ? lo : hi;
  *total = take_lo ? total_lo : total_hi;
  return st;
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
  st = tsi_progress(ctx, 0, rows);
  if (st != TS_SUCCESS)
    return st;

  ts_csr *out = NULL;
  double *weight = tsi_malloc_array(rows, sizeof(double));
  if (!weight) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld row weights", op, (long long)rows);
    goto cleanup;
  }
  for (int64_t start = 0, end; start < rows && st == TS_SUCCESS; start = end) {
    end = tsi_block_end(start, rows);
#pragma omp parallel for schedule(static)
    for (int64_t r = start; r < end; r++)
      weight[r] = pow((double)(r + 1), -exponent);
    st = tsi_check_cancel(ctx);
  }
  if (st != TS_SUCCESS)
    goto cleanup;

  /* With a large exponent r^-exponent underflows to 0 and no finite C fills
   * those rows: the most entries any C gives is total(DBL_MAX). */
  int64_t reachable = 0;
  st = total_entries(ctx, DBL_MAX, weight, rows, cols, &reachable);
  if (st != TS_SUCCESS)
    goto cleanup;
  if (nnz > reachable) {
    st = tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                   "%s: nnz = %lld cannot be reached with exponent %g: r^-%g falls below the range of double for "
                   "most ranks, and at most %lld entries are possible (use a smaller exponent)",
                   op, (long long)nnz, exponent, exponent, (long long)reachable);
    goto cleanup;
  }
  double scale = 0.0;
  int64_t total = 0;
  st = find_scale(ctx, weight, rows, cols, nnz, &scale, &total);
  if (st != TS_SUCCESS)
    goto cleanup;

  st = ts_csr_create(ctx, rows, cols, total, dtype, &out);
  if (st != TS_SUCCESS)
    goto cleanup;
  tsi_permutation ranks;
  tsi_permutation_init(&ranks, (uint64_t)rows, seed, STREAM_POWER_LAW_RANKS);
  for (int64_t start = 0, end; start < rows && st == TS_SUCCESS; start = end) {
    end = tsi_block_end(start, rows);
#pragma omp parallel for schedule(static)
    for (int64_t i = start; i < end; i++)
      out->row_ptr[i + 1] = row_length(scale, weight[tsi_permutation_apply(&ranks, (uint64_t)i)], cols);
    st = tsi_check_cancel(ctx);
  }
  if (st == TS_SUCCESS)
    st = tsi_gen_prefix_sum(ctx, out->row_ptr, rows);
  if (st != TS_SUCCESS)
    goto cleanup;
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
