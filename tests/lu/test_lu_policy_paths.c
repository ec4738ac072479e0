/* The singularity policy and the pivot check on the complex and the batch
 * paths, as on the real single-system one (test_lu_singular_policy.c,
 * test_lu_pivot_check.c):
 * - complex: (1 + i) times a rank-deficient real matrix (row n-1 a sum of
 *   scaled rows; the complex products are exact, so the matrix is singular
 *   in exact arithmetic) gives the singular status with a column, with
 *   double and float factors; diag(1, 1e-10 i, 1) without the matching
 *   stands, its condition estimate near 1e10 and its solution exact;
 * - batch (host path): a singular member among nonsingular ones of one
 *   pattern gives the singular status as the single LU gives it (perturbation
 *   on), the others their solutions;
 * - batch with refresh_pivots: a member whose new values degrade its static
 *   pivots reports TS_WARNING_PIVOTS_DEGRADED and keeps its pattern's
 *   analysis (the members share it: a new analysis would free it under
 *   them); its solve still reaches a small backward error. */
#include "test_lu_batch_common.h"
#include "test_lu_pivot_common.h"
#include "test_lu_rank_deficient.h"

#include <complex.h>

static ts_context *ctx;

/* c times the real matrix a, as a complex CSR of the same pattern. */
static ts_csr *complex_times(const ts_csr *a, double complex c) {
  ts_coo *coo = NULL;
  CHECK_OK(ctx, ts_coo_create(ctx, a->rows, a->cols, a->nnz, TS_COMPLEX128, &coo));
  if (!coo)
    return NULL;
  const double *values = (const double *)a->values;
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      coo->row_idx[e] = (int32_t)i;
      coo->col_idx[e] = a->col_idx[e];
      ((double complex *)coo->values)[e] = c * values[e];
    }
  coo->nnz = a->nnz;
  ts_csr *z = NULL;
  CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_ERROR, &z));
  ts_coo_destroy(coo);
  return z;
}

static void test_complex_rank_deficient(void) {
  int unperturbed = 0, cases = 0;
  for (unsigned long long seed = 1; seed <= 8; seed++) {
    ts_csr *real = lu_test_row_sum(ctx, 120, 1, seed);
    CHECK(real != NULL);
    if (!real)
      continue;
    ts_csr *a = complex_times(real, 1.0 + 1.0 * I);
    for (int f = 0; f < 2 && a; f++) {
      ts_lu_options options = lu_test_options();
      options.float_factors = f;
      ts_lu *lu = NULL;
      CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
      CHECK_OK(ctx, ts_lu_analyze(lu, a));
      ts_status st = ts_lu_factor(lu, a);
      ts_lu_stats stats;
      CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
      cases++;
      unperturbed += stats.perturbed_pivots == 0;
      CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "complex row sum, seed %llu, %s factors: %s, want singular", seed,
                f ? "float" : "double", ts_status_string(st));
      CHECK_MSG(stats.singular_column >= 0 && stats.singular_column < 120, "seed %llu: singular column %lld", seed,
                (long long)stats.singular_column);
      ts_lu_destroy(lu);
    }
    ts_csr_destroy(a);
    ts_csr_destroy(real);
  }
  printf("complex row sum: %d of %d singular verdicts reached without a perturbed pivot\n", unperturbed, cases);
}

static void test_complex_small_honest_pivot(void) {
  ts_csr *real =
      lu_test_csr(ctx, 3, 3, (const int32_t[]){0, 1, 2}, (const int32_t[]){0, 1, 2}, (const double[]){1.0, 1.0, 1.0});
  ts_csr *a = complex_times(real, 1.0);
  ts_csr_destroy(real);
  if (!a)
    return;
  ((double complex *)a->values)[1] = 1e-10 * I;
  ts_lu *lu = lu_test_factor_unmatched(ctx, a);
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK_MSG(stats.condest > 0.5e10 && stats.condest < 2e10, "diag(1, 1e-10 i, 1): condest %.3g", stats.condest);
  const double complex b[3] = {1.0, 1e-10 * I, 2.0};
  double complex x[3];
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, (const double *)b, 3, (double *)x, 3));
  CHECK_MSG(cabs(x[0] - 1.0) < 1e-15 && cabs(x[1] - 1.0) < 1e-15 && cabs(x[2] - 2.0) < 1e-15,
            "x = %g%+gi %g%+gi %g%+gi", creal(x[0]), cimag(x[0]), creal(x[1]), cimag(x[1]), creal(x[2]), cimag(x[2]));
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

static void test_batch_singular_member(void) {
  ts_csr *a = lu_test_row_sum(ctx, 120, 1, 3);
  CHECK(a != NULL);
  if (!a)
    return;
  const int64_t count = 3, nnz = a->nnz, n = a->rows;
  double *values = calloc((size_t)(count * nnz), sizeof *values);
  double *b = calloc((size_t)(count * n), sizeof *b), *x = calloc((size_t)(count * n), sizeof *x);
  const double *given = (const double *)a->values;
  for (int64_t m = 0; m < count; m++)
    for (int64_t i = 0; i < n; i++) {
      b[m * n + i] = 1.0 + (double)(i % 5);
      for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
        double v = given[e];
        /* Members 0 and 2: the diagonal made dominant (nonsingular); member 1
         * the rank-deficient values themselves. */
        if (m != 1 && a->col_idx[e] == i)
          v += (m + 1) * 1e3 * (fabs(v) + 1.0);
        values[m * nnz + e] = v;
      }
    }
  ts_lu_options options = lu_test_options();
  ts_lu_batch *batch = NULL;
  CHECK_OK(ctx, ts_lu_batch_create(ctx, &options, 1, (const ts_csr *const[]){a}, &count, &batch));
  if (batch) {
    ts_status st = ts_lu_batch_factor(batch, values);
    CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "a batch with a singular member: %s", ts_status_string(st));
    ts_lu_batch_member info;
    CHECK_OK(ctx, ts_lu_batch_get_member(batch, 1, &info));
    CHECK_MSG(info.status == TS_ERROR_NUMERICALLY_SINGULAR && info.singular_column >= 0 && info.singular_column < n,
              "the singular member: %s, column %lld", ts_status_string(info.status), (long long)info.singular_column);
    /* The single LU's verdict on the same values. */
    ts_lu *lu = NULL;
    CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
    CHECK_OK(ctx, ts_lu_analyze(lu, a));
    CHECK(ts_lu_factor(lu, a) == TS_ERROR_NUMERICALLY_SINGULAR);
    ts_lu_destroy(lu);
    (void)ts_lu_batch_solve(batch, b, x);
    for (int64_t m = 0; m < count; m += 2) {
      CHECK_OK(ctx, ts_lu_batch_get_member(batch, m, &info));
      CHECK_MSG(!TS_IS_ERROR(info.status), "member %lld: %s", (long long)m, ts_status_string(info.status));
      const double error = batch_test_backward_error(a, values + m * nnz, b + m * n, x + m * n);
      CHECK_MSG(error <= 1e-14, "member %lld: backward error %.3g", (long long)m, error);
    }
    ts_lu_batch_destroy(batch);
  }
  free(values);
  free(b);
  free(x);
  ts_csr_destroy(a);
}

static void test_batch_degraded_member(void) {
  ts_csr *a0 = pivot_test_matrix(ctx, 0, 0.0, 0.0), *a1 = pivot_test_matrix(ctx, 1, 1e-9, 0.0);
  const int64_t count = 3, nnz = a0->nnz, n = a0->rows;
  CHECK(a1->nnz == nnz);
  double *values = calloc((size_t)(count * nnz), sizeof *values);
  double *b = calloc((size_t)(count * n), sizeof *b), *x = calloc((size_t)(count * n), sizeof *x);
  for (int64_t m = 0; m < count; m++) {
    memcpy(values + m * nnz, a0->values, (size_t)nnz * sizeof *values);
    for (int64_t i = 0; i < n; i++)
      b[m * n + i] = 1.0 + (double)(i % 3);
  }
  ts_lu_options options = lu_test_options();
  options.ordering = TS_LU_ORDER_NATURAL;
  options.refresh_pivots = 1;
  ts_lu_batch *batch = NULL;
  CHECK_OK(ctx, ts_lu_batch_create(ctx, &options, 1, (const ts_csr *const[]){a0}, &count, &batch));
  if (batch) {
    CHECK_OK(ctx, ts_lu_batch_factor(batch, values)); /* each member's reference */
    memcpy(values + nnz, a1->values, (size_t)nnz * sizeof *values);
    ts_status st = ts_lu_batch_factor(batch, values);
    CHECK_MSG(st == TS_WARNING_PIVOTS_DEGRADED, "a member with degraded pivots: %s", ts_status_string(st));
    for (int64_t m = 0; m < count; m++) {
      ts_lu_batch_member info;
      CHECK_OK(ctx, ts_lu_batch_get_member(batch, m, &info));
      const ts_status want = m == 1 ? TS_WARNING_PIVOTS_DEGRADED : TS_SUCCESS;
      CHECK_MSG(info.status == want, "member %lld: %s, want %s", (long long)m, ts_status_string(info.status),
                ts_status_string(want));
    }
    st = ts_lu_batch_solve(batch, b, x);
    CHECK_MSG(!TS_IS_ERROR(st), "solve: %s", ts_status_string(st));
    for (int64_t m = 0; m < count; m++) {
      const double error = batch_test_backward_error(a0, values + m * nnz, b + m * n, x + m * n);
      CHECK_MSG(error <= 1e-14, "member %lld: backward error %.3g", (long long)m, error);
    }
    /* The pattern's analysis is intact: the members factor again as at first. */
    memcpy(values + nnz, a0->values, (size_t)nnz * sizeof *values);
    CHECK_OK(ctx, ts_lu_batch_factor(batch, values));
    ts_lu_batch_destroy(batch);
  }
  free(values);
  free(b);
  free(x);
  ts_csr_destroy(a0);
  ts_csr_destroy(a1);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS)
    return 1;
  test_complex_rank_deficient();
  test_complex_small_honest_pivot();
  test_batch_singular_member();
  test_batch_degraded_member();
  ts_context_destroy(ctx);
  return test_finish();
}
