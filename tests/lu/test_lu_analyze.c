/* ts_lu_create / ts_lu_analyze / ts_lu_get_stats: option checks and
 * defaults, input checks, empty and 1 x 1 matrices, a second analysis
 * replacing the first (also after a failed one), statistics of a circuit
 * matrix under each ordering, AMD's dense rows (amd_dense), and the same
 * analysis on two threads (the AMD ordering of A beside the matching) as on
 * one. */
#include "test_lu_analysis_common.h"

#include "lu/lu_tuning.h"

static void test_options(void) {
  ts_lu *lu = NULL;
  CHECK_STATUS(NULL, ts_lu_create(NULL, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);

  CHECK_OK(NULL, ts_lu_create(NULL, NULL, &lu));
  CHECK(lu->options.ordering == TS_LU_ORDER_AUTO && lu->options.float_factors == 0);
  CHECK(lu->options.no_matching == 0 && lu->options.no_perturbation == 0);
  CHECK(lu->options.pivot_threshold == 1e-14 && lu->options.refine_max_steps == 30);
  CHECK(lu->options.refine_tolerance == 1e-14 && lu->options.symbolic_memory_budget == 0);
  CHECK(lu->options.amd_dense == 10.0); /* AMD's own default */
  CHECK(lu->state == TSI_LU_CREATED && lu->stats.singular_column == -1);
  ts_lu_options from_null = lu->options;
  ts_lu_destroy(lu);

  /* A zero-initialised struct means exactly the defaults of NULL. */
  ts_lu_options options;
  memset(&options, 0, sizeof options);
  CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
  const ts_lu_options *zero = &lu->options;
  CHECK(zero->ordering == from_null.ordering && zero->no_matching == from_null.no_matching &&
        zero->no_perturbation == from_null.no_perturbation && zero->pivot_threshold == from_null.pivot_threshold &&
        zero->float_factors == from_null.float_factors && zero->refine_max_steps == from_null.refine_max_steps &&
        zero->refine_tolerance == from_null.refine_tolerance &&
        zero->symbolic_memory_budget == from_null.symbolic_memory_budget && zero->amd_dense == from_null.amd_dense);
  ts_lu_destroy(lu);

  memset(&options, 0, sizeof options);
  options.float_factors = 5; /* any non-zero value */
  options.refine_max_steps = -1;
  CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
  CHECK(lu->options.float_factors == 1);
  CHECK(lu->options.pivot_threshold == 1e-7 && lu->options.refine_max_steps == -1);
  ts_lu_destroy(lu);

  const char *what[13] = {"ordering",
                          "pivot_threshold",
                          "pivot_threshold NaN",
                          "refine_max_steps",
                          "refine_tolerance",
                          "symbolic_memory_budget",
                          "backend",
                          "symbolic_backend",
                          "symbolic_backend CUDA without a context",
                          "levelize_backend",
                          "levelize_backend CUDA without a context",
                          "amd_dense NaN",
                          "amd_dense infinite"};
  for (int bad = 0; bad < 13; bad++) {
    memset(&options, 0, sizeof options);
    switch (bad) {
    case 0:
      options.ordering = (ts_lu_ordering)7;
      break;
    case 1:
      options.pivot_threshold = -1.0;
      break;
    case 2:
      options.pivot_threshold = NAN;
      break;
    case 3:
      options.refine_max_steps = -2;
      break;
    case 4:
      options.refine_tolerance = -1e-3;
      break;
    case 5:
      options.symbolic_memory_budget = -1;
      break;
    case 6:
      options.backend = (ts_backend)9;
      break;
    case 7:
      options.symbolic_backend = (ts_backend)9;
      break;
    case 8:
      options.symbolic_backend = TS_BACKEND_CUDA; /* no context: no GPU */
      break;
    case 9:
      options.levelize_backend = (ts_backend)9;
      break;
    case 10:
      options.levelize_backend = TS_BACKEND_CUDA;
      break;
    case 11:
      options.amd_dense = NAN;
      break;
    default:
      options.amd_dense = -INFINITY;
      break;
    }
    lu = (ts_lu *)&options; /* must be reset to NULL on failure */
    CHECK_MSG(ts_lu_create(NULL, &options, &lu) == TS_ERROR_INVALID_ARGUMENT, "%s accepted", what[bad]);
    CHECK(lu == NULL);
    CHECK(strstr(ts_last_error(NULL), "ts_lu_create") != NULL);
  }

  ts_lu_stats stats;
  CHECK_STATUS(NULL, ts_lu_get_stats(NULL, &stats), TS_ERROR_INVALID_ARGUMENT);
  CHECK_OK(NULL, ts_lu_create(NULL, NULL, &lu));
  CHECK_STATUS(NULL, ts_lu_get_stats(lu, NULL), TS_ERROR_INVALID_ARGUMENT);
  ts_lu_destroy(lu);
  ts_lu_destroy(NULL);
}

static void test_inputs(void) {
  ts_lu *lu = NULL;
  ts_lu_options options = {0};
  options.ordering = TS_LU_ORDER_NATURAL;
  CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
  CHECK_STATUS(NULL, ts_lu_analyze(NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_lu_analyze(lu, NULL), TS_ERROR_INVALID_ARGUMENT);

  ts_csr *rectangular = NULL;
  ts_csr_create(NULL, 3, 4, 0, TS_FLOAT64, &rectangular);
  CHECK_STATUS(NULL, ts_lu_analyze(lu, rectangular), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "not square (3 x 4)") != NULL);
  ts_csr_destroy(rectangular);

  double dense[9] = {4, 1, 0, 1, 4, 1, 0, 1, 4};
  ts_csr *a = csr_from_dense(3, dense, NULL);
  a->symmetry = TS_SYMMETRIC;
  CHECK_STATUS(NULL, ts_lu_analyze(lu, a), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "symmetric storage") != NULL);
  a->symmetry = TS_GENERAL;
  /* Unsorted columns in row 1 fail ts_csr_check. */
  int32_t saved = a->col_idx[3];
  a->col_idx[3] = a->col_idx[4];
  a->col_idx[4] = saved;
  CHECK_STATUS(NULL, ts_lu_analyze(lu, a), TS_ERROR_INVALID_MATRIX);
  a->col_idx[4] = a->col_idx[3];
  a->col_idx[3] = saved;
  CHECK(lu->state == TSI_LU_CREATED);
  CHECK_OK(NULL, ts_lu_analyze(lu, a));
  CHECK(lu->state == TSI_LU_ANALYZED);
  ts_csr_destroy(a);
  ts_lu_destroy(lu);
}

static void test_small_orders(void) {
  for (int64_t n = 0; n <= 1; n++) {
    double one = 2.5;
    ts_csr *a = csr_from_dense(n, &one, NULL);
    ts_lu *lu = NULL;
    ts_lu_options options = {0};
    options.ordering = lu_test_fill_ordering();
    CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
    CHECK_OK(NULL, ts_lu_analyze(lu, a));
    ts_lu_stats stats;
    ts_lu_get_stats(lu, &stats);
    CHECK(stats.n == n && stats.nnz_a == n && stats.levels == n && stats.structural_rank == n);
    CHECK(stats.nnz_l == n && stats.nnz_u == n && lu->lu_nnz == n);
    if (n == 1) {
      CHECK(lu->diag_pos[0] == 0 && lu->a_to_lu[0] == 0);
      CHECK(fabs(lu->row_scale[0] * 2.5 * lu->col_scale[0] - 1.0) < 1e-15);
    }
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
}

/* A new analysis replaces the old one: sizes follow the new matrix, and a
 * failed analysis leaves none behind but allows another. */
static void test_reanalysis(void) {
  unsigned long long state = 4242;
  ts_csr *small = random_matrix(30, 0.1, 1, &state);
  ts_csr *large = random_matrix(50, 0.1, 1, &state);
  double singular_dense[4] = {1, 1, 0, 0};
  ts_csr *singular = csr_from_dense(2, singular_dense, NULL);
  ts_lu *lu = NULL;
  ts_lu_stats stats;
  ts_lu_options options = {0};
  options.ordering = lu_test_fill_ordering();
  CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
  CHECK_OK(NULL, ts_lu_analyze(lu, small));
  CHECK_OK(NULL, ts_lu_analyze(lu, large));
  ts_lu_get_stats(lu, &stats);
  CHECK(stats.n == 50 && stats.nnz_a == large->nnz && lu->n == 50);
  unsigned char *dense = matched_dense_pattern(lu, large);
  dense_symbolic(dense, 50);
  CHECK(compare_pattern(lu, dense) == 0);
  free(dense);

  CHECK_STATUS(NULL, ts_lu_analyze(lu, singular), TS_ERROR_STRUCTURALLY_SINGULAR);
  ts_lu_get_stats(lu, &stats);
  CHECK(stats.structural_rank == 1 && stats.n == 2 && lu->state == TSI_LU_CREATED);
  CHECK(lu->row_perm == NULL && lu->lu_col_ptr == NULL && lu->level_ptr == NULL && lu->a_row_ptr == NULL);

  CHECK_OK(NULL, ts_lu_analyze(lu, small));
  ts_lu_get_stats(lu, &stats);
  CHECK(stats.n == 30 && stats.structural_rank == 30 && lu->state == TSI_LU_ANALYZED);
  CHECK(memcmp(lu->a_row_ptr, small->row_ptr, 31 * sizeof(int64_t)) == 0);
  CHECK(memcmp(lu->a_col_idx, small->col_idx, (size_t)small->nnz * sizeof(int32_t)) == 0);
  ts_lu_destroy(lu);
  ts_csr_destroy(small);
  ts_csr_destroy(large);
  ts_csr_destroy(singular);
}

/* Statistics of a circuit matrix under each ordering. */
static void test_circuit_stats(void) {
  ts_circuit_params params = ts_circuit_defaults(4000);
  params.locality = 0.5;
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_circuit(NULL, &params, 11, TS_FLOAT64, &a));
  const ts_lu_ordering orderings[4] = {TS_LU_ORDER_AMD, TS_LU_ORDER_COLAMD, TS_LU_ORDER_NATURAL,
                                       TS_LU_ORDER_NESTED_DISSECTION};
  int64_t fill[4] = {0};
  for (int o = 0; o < 4; o++) {
    if (lu_test_skip_without(orderings[o], "circuit statistics"))
      continue;
    ts_lu_options options = {0};
    options.ordering = orderings[o];
    ts_lu *lu = NULL;
    ts_lu_stats stats;
    CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
    CHECK_OK(NULL, ts_lu_analyze(lu, a));
    ts_lu_get_stats(lu, &stats);
    CHECK(stats.n == a->rows && stats.nnz_a == a->nnz && stats.structural_rank == a->rows);
    CHECK(stats.nnz_l + stats.nnz_u - a->rows == lu->lu_nnz && lu->lu_nnz >= a->nnz);
    CHECK(stats.levels == lu->levels && stats.levels >= 1 && stats.max_level_size >= 1);
    CHECK(stats.symbolic_chunks >= 2 && stats.flops > 0.0);
    CHECK(stats.time_matching >= 0.0 && stats.time_ordering >= 0.0 && stats.time_symbolic >= 0.0 &&
          stats.time_levelize >= 0.0);
    /* The permutations are permutations. */
    unsigned char *seen_rows = calloc((size_t)a->rows, 1), *seen_cols = calloc((size_t)a->rows, 1);
    int64_t bad = 0;
    for (int64_t k = 0; k < a->rows; k++) {
      bad += seen_rows[lu->row_perm[k]]++ != 0;
      bad += seen_cols[lu->col_perm[k]]++ != 0;
    }
    CHECK(bad == 0);
    free(seen_rows);
    free(seen_cols);
    fill[o] = lu->lu_nnz;
    ts_lu_destroy(lu);
  }
  /* The fill-reducing orderings (where built) beat the natural order on this matrix. */
  CHECK_MSG((fill[0] == 0 || fill[0] < fill[2]) && (fill[1] == 0 || fill[1] < fill[2]) &&
                (fill[3] == 0 || fill[3] < fill[2]),
            "fill AMD %lld, COLAMD %lld, natural %lld, nested dissection %lld", (long long)fill[0], (long long)fill[1],
            (long long)fill[2], (long long)fill[3]);
  ts_csr_destroy(a);
}

/* The column order of a's analysis with amd_dense (the default when 0);
 * NULL when the analysis fails. */
static int32_t *amd_order_with(const ts_csr *a, double amd_dense) {
  ts_lu_options options = {0};
  options.amd_dense = amd_dense;
  ts_lu *lu = NULL;
  int32_t *order = NULL;
  CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
  if (ts_lu_analyze(lu, a) == TS_SUCCESS) {
    order = malloc((size_t)a->rows * sizeof *order);
    memcpy(order, lu->col_perm, (size_t)a->rows * sizeof *order);
  }
  ts_lu_destroy(lu);
  return order;
}

/* amd_dense, against AMD's rule counted here on A + A^T: with 1, the rows of
 * more than max(16, sqrt(n)) entries off the diagonal (a circuit's supply
 * nets) are ordered last, and the system still solves; 10 is the default;
 * -1 (no dense rows) orders as the default does where no row reaches
 * 10 sqrt(n). The circuit's nets keep it one block (the whole matrix ordered),
 * and its largest diagonal keeps the rows in place, so M's rows are A's. */
static void test_amd_dense(void) {
  if (lu_test_skip_without(TS_LU_ORDER_AMD, "AMD's dense rows"))
    return;
  ts_circuit_params params = ts_circuit_defaults(3000);
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_circuit(NULL, &params, 5, TS_FLOAT64, &a));
  const int64_t n = a->rows;
  /* Degrees of A + A^T off the diagonal: A's rows, plus A's columns whose
   * mirror entry is missing. */
  int64_t *degree = calloc((size_t)n, sizeof *degree);
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      const int32_t j = a->col_idx[k];
      if (j == i)
        continue;
      degree[i]++;
      int64_t m = a->row_ptr[j];
      while (m < a->row_ptr[j + 1] && a->col_idx[m] < i)
        m++;
      if (m == a->row_ptr[j + 1] || a->col_idx[m] != i)
        degree[j]++;
    }
  const double low = fmax(16.0, sqrt((double)n)), high = 10.0 * sqrt((double)n);
  int64_t dense = 0, above_high = 0;
  for (int64_t i = 0; i < n; i++) {
    dense += degree[i] > low;
    above_high += degree[i] > high;
  }
  CHECK_MSG(dense >= 2 && above_high == 0, "the circuit should have dense nets below 10 sqrt(n): %lld, %lld",
            (long long)dense, (long long)above_high);

  int32_t *by_default = amd_order_with(a, 0.0), *ten = amd_order_with(a, 10.0);
  int32_t *none = amd_order_with(a, -1.0), *one = amd_order_with(a, 1.0);
  CHECK(by_default && ten && none && one);
  if (by_default && ten && none && one) {
    CHECK(memcmp(by_default, ten, (size_t)n * sizeof *ten) == 0);
    CHECK(memcmp(by_default, none, (size_t)n * sizeof *none) == 0);
    int64_t dense_last = 0;
    for (int64_t k = n - dense; k < n; k++)
      dense_last += degree[one[k]] > low;
    CHECK_MSG(dense_last == dense, "%lld of the %lld dense rows ordered last", (long long)dense_last, (long long)dense);
    CHECK(memcmp(by_default, one, (size_t)n * sizeof *one) != 0);
  }

  /* The system solves in the new order. */
  ts_lu_options options = {0};
  options.amd_dense = 1.0;
  ts_lu *lu = NULL;
  double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
  for (int64_t i = 0; i < n; i++)
    b[i] = 1.0 + (double)(i % 7);
  CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
  CHECK_OK(NULL, ts_lu_analyze(lu, a));
  CHECK_OK(NULL, ts_lu_factor(lu, a));
  CHECK_OK(NULL, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  ts_lu_stats stats;
  ts_lu_get_stats(lu, &stats);
  CHECK_MSG(stats.backward_error < 1e-14, "backward error %g", stats.backward_error);
  ts_lu_destroy(lu);
  free(b);
  free(x);
  free(by_default);
  free(ten);
  free(none);
  free(one);
  free(degree);
  ts_csr_destroy(a);
}

/* n x n with a stored nonzero diagonal and per_row other entries a row:
 * the diagonal the largest entry of each row (the matching leaves the rows
 * in place) or as small as the others (it moves some). */
static ts_csr *diagonal_matrix(int64_t n, int per_row, int diagonal_largest, unsigned long long *state) {
  ts_csr *a = NULL;
  if (ts_csr_create(NULL, n, n, n * (per_row + 1), TS_FLOAT64, &a) != TS_SUCCESS)
    return NULL;
  unsigned char *used = calloc((size_t)n, 1);
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++) {
    used[i] = 1;
    for (int e = 0; e < per_row; e++) {
      int64_t j = (int64_t)((test_random(state) + 1.0) * 0.5 * (double)n) % n;
      used[j] = 1;
    }
    for (int64_t j = 0; j < n; j++) {
      if (!used[j])
        continue;
      used[j] = 0;
      const double magnitude = 0.1 + 0.45 * (test_random(state) + 1.0);
      a->col_idx[at] = (int32_t)j;
      ((double *)a->values)[at++] = j == i && diagonal_largest ? 10.0 : magnitude;
    }
    a->row_ptr[i + 1] = at;
  }
  a->nnz = at;
  free(used);
  return a;
}

/* Two threads run the AMD ordering of A beside the matching (from
 * TSI_LU_ANALYSIS_PARALLEL_ENTRIES entries, where every diagonal entry is
 * stored and nonzero); where the matching then moves rows, the calling
 * thread orders the matched matrix while the other finishes. Either way
 * the analysis is the one thread's, bit for bit. */
static void test_two_threads_same_analysis(void) {
  if (lu_test_skip_without(TS_LU_ORDER_AMD, "the ordering beside the matching"))
    return;
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  copts.num_threads = 2;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  unsigned long long state = 77;
  for (int diagonal_largest = 0; diagonal_largest < 2; diagonal_largest++) {
    ts_csr *a = diagonal_matrix(3000, 4, diagonal_largest, &state);
    CHECK(a != NULL && a->nnz >= TSI_LU_ANALYSIS_PARALLEL_ENTRIES);
    ts_lu *one = NULL, *two = NULL;
    CHECK_OK(ctx, ts_lu_create(ctx, NULL, &one));
    CHECK_OK(ctx, ts_lu_create(ctx, NULL, &two));
    one->switches.cpu_threads = 1;
    two->switches.cpu_threads = 2;
    CHECK_OK(ctx, ts_lu_analyze(one, a));
    CHECK_OK(ctx, ts_lu_analyze(two, a));
    const size_t n = (size_t)a->rows;
    int64_t moved = 0;
    for (int64_t k = 0; k < a->rows; k++)
      moved += one->row_perm[k] != one->col_perm[k];
    /* The case this loop step stands for. */
    CHECK_MSG(diagonal_largest ? moved == 0 : moved > 0, "diagonal largest %d: %lld rows moved", diagonal_largest,
              (long long)moved);
    CHECK_MSG(one->lu_nnz == two->lu_nnz && one->btf_blocks == two->btf_blocks &&
                  memcmp(one->row_perm, two->row_perm, n * sizeof(int32_t)) == 0 &&
                  memcmp(one->col_perm, two->col_perm, n * sizeof(int32_t)) == 0 &&
                  memcmp(one->row_scale, two->row_scale, n * sizeof(double)) == 0 &&
                  memcmp(one->col_scale, two->col_scale, n * sizeof(double)) == 0 &&
                  memcmp(one->lu_col_ptr, two->lu_col_ptr, (n + 1) * sizeof(int64_t)) == 0 &&
                  memcmp(one->lu_row_idx, two->lu_row_idx, (size_t)one->lu_nnz * sizeof(int32_t)) == 0,
              "diagonal largest %d: two threads analyse differently", diagonal_largest);
    ts_lu_destroy(one);
    ts_lu_destroy(two);
    ts_csr_destroy(a);
  }
  ts_context_destroy(ctx);
}

int main(void) {
  test_options();
  test_inputs();
  test_small_orders();
  test_reanalysis();
  test_circuit_stats();
  test_amd_dense();
  test_two_threads_same_analysis();
  return test_finish();
}
