/* LU matching and scaling: the maximum-product matching against brute force
 * over all permutations (n <= 8), scaled entries at most 1 with 1 on the
 * matched diagonal, structural rank against a plain augmenting-path count,
 * known cases (anti-diagonal, empty row, repeated row pattern, explicit
 * zeros), and the no_matching option. */
#include "test_lu_analysis_common.h"

#include "lu/analyze/analyze_internal.h"

/* Best log-product over permutations and the largest number of stored
 * nonzeros a permutation can cover (the structural rank). */
static void brute_force(int64_t n, const double *dense, double *best_log, int64_t *rank) {
  int perm[8], used[8] = {0};
  *best_log = -INFINITY;
  *rank = 0;
  /* Iterative enumeration by depth-first search over the columns. */
  int depth = 0;
  perm[0] = -1;
  while (depth >= 0) {
    if (depth == n) {
      double sum = 0.0;
      int64_t covered = 0;
      for (int k = 0; k < n; k++) {
        double v = fabs(dense[perm[k] * n + k]);
        if (v > 0.0) {
          covered++;
          sum += log(v);
        } else {
          sum = -INFINITY;
        }
      }
      if (sum > *best_log)
        *best_log = sum;
      if (covered > *rank)
        *rank = covered;
      depth--;
      if (depth >= 0)
        used[perm[depth]] = 0;
      continue;
    }
    int next = perm[depth] + 1;
    while (next < n && used[next])
      next++;
    if (next >= n) {
      perm[depth] = -1;
      depth--;
      if (depth >= 0)
        used[perm[depth]] = 0;
      continue;
    }
    perm[depth] = next;
    used[next] = 1;
    depth++;
    if (depth < n)
      perm[depth] = -1;
  }
}

static void test_brute_force(void) {
  unsigned long long state = 12345;
  int checked = 0, singular = 0;
  for (int64_t n = 1; n <= 8; n++)
    for (int trial = 0; trial < 40; trial++) {
      ts_csr *a = random_matrix(n, trial % 2 ? 0.3 : 0.6, 0, &state);
      double *dense = calloc((size_t)(n * n), sizeof(double));
      for (int64_t i = 0; i < n; i++)
        for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
          dense[i * n + a->col_idx[k]] = ((double *)a->values)[k];
      double best = 0.0;
      int64_t rank = 0;
      brute_force(n, dense, &best, &rank);

      ts_lu_options options = {0};
      options.ordering = TS_LU_ORDER_NATURAL;
      ts_lu *lu = NULL;
      CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
      ts_status st = ts_lu_analyze(lu, a);
      ts_lu_stats stats;
      ts_lu_get_stats(lu, &stats);
      CHECK_MSG(stats.structural_rank == rank, "n %lld trial %d: rank %lld, brute force %lld", (long long)n, trial,
                (long long)stats.structural_rank, (long long)rank);
      if (rank < n) {
        singular++;
        CHECK(st == TS_ERROR_STRUCTURALLY_SINGULAR);
        char want[96];
        snprintf(want, sizeof want, "structurally singular: structural rank %lld of %lld", (long long)rank,
                 (long long)n);
        CHECK_MSG(strstr(ts_last_error(NULL), want) != NULL, "message '%s'", ts_last_error(NULL));
      } else {
        checked++;
        CHECK_MSG(st == TS_SUCCESS, "n %lld trial %d: %s", (long long)n, trial, ts_last_error(NULL));
        if (st == TS_SUCCESS) {
          double sum = 0.0;
          for (int64_t k = 0; k < n; k++)
            sum += log(fabs(dense[lu->row_perm[k] * n + k]));
          CHECK_MSG(fabs(sum - best) <= 1e-9 * (1.0 + fabs(best)), "n %lld trial %d: log product %.15g, best %.15g",
                    (long long)n, trial, sum, best);
          /* Scaled: |entries| <= 1, matched entries 1. */
          double largest = 0.0, worst_diagonal = 0.0;
          for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
              double v = fabs(lu->row_scale[i] * dense[i * n + j] * lu->col_scale[j]);
              largest = fmax(largest, v);
            }
          for (int64_t k = 0; k < n; k++) {
            int64_t r = lu->row_perm[k];
            double v = fabs(lu->row_scale[r] * dense[r * n + k] * lu->col_scale[k]);
            worst_diagonal = fmax(worst_diagonal, fabs(v - 1.0));
          }
          CHECK_MSG(largest <= 1.0 + 1e-12, "n %lld trial %d: scaled entry %.17g", (long long)n, trial, largest);
          CHECK_MSG(worst_diagonal <= 1e-12, "n %lld trial %d: matched entry off 1 by %g", (long long)n, trial,
                    worst_diagonal);
        }
      }
      ts_lu_destroy(lu);
      free(dense);
      ts_csr_destroy(a);
    }
  /* The random cases must exercise both outcomes. */
  CHECK(checked > 100);
  CHECK(singular > 10);
}

/* Kuhn's augmenting paths, recursive: the reference structural rank. */
static int kuhn_augment(const ts_csr *a, int64_t row, int32_t *col_match, unsigned char *visited) {
  for (int64_t k = a->row_ptr[row]; k < a->row_ptr[row + 1]; k++) {
    int32_t c = a->col_idx[k];
    if (visited[c])
      continue;
    visited[c] = 1;
    if (col_match[c] < 0 || kuhn_augment(a, col_match[c], col_match, visited)) {
      col_match[c] = (int32_t)row;
      return 1;
    }
  }
  return 0;
}

static void test_structural_rank(void) {
  unsigned long long state = 777;
  for (int trial = 0; trial < 200; trial++) {
    int64_t n = 1 + trial % 60;
    ts_csr *a = random_matrix(n, 1.5 / (double)n, 0, &state);
    int32_t *col_match = malloc((size_t)n * sizeof(int32_t));
    unsigned char *visited = malloc((size_t)n);
    int64_t want = 0;
    for (int64_t c = 0; c < n; c++)
      col_match[c] = -1;
    for (int64_t r = 0; r < n; r++) {
      memset(visited, 0, (size_t)n);
      want += kuhn_augment(a, r, col_match, visited);
    }
    int64_t rank = -1;
    int32_t *got_match = malloc((size_t)n * sizeof(int32_t));
    CHECK_OK(NULL, tsi_lu_structural_rank(NULL, n, a->row_ptr, a->col_idx, NULL, got_match, &rank));
    CHECK_MSG(rank == want, "trial %d (n %lld): rank %lld, want %lld", trial, (long long)n, (long long)rank,
              (long long)want);
    /* The matching returned is a matching of stored entries of that size. */
    int64_t size = 0, bad = 0;
    memset(visited, 0, (size_t)n);
    for (int64_t c = 0; c < n; c++) {
      int32_t r = got_match[c];
      if (r < 0)
        continue;
      size++;
      int found = 0;
      for (int64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++)
        found |= a->col_idx[k] == c;
      bad += !found || visited[r];
      visited[r] = 1;
    }
    CHECK(size == want && bad == 0);
    free(col_match);
    free(got_match);
    free(visited);
    ts_csr_destroy(a);
  }
}

static ts_status analyze_dense(int64_t n, const double *dense, const unsigned char *present, int no_matching,
                               ts_lu **out) {
  ts_csr *a = csr_from_dense(n, dense, present);
  ts_lu_options options = {0};
  options.ordering = TS_LU_ORDER_NATURAL;
  options.no_matching = no_matching;
  ts_lu *lu = NULL;
  ts_lu_create(NULL, &options, &lu);
  ts_status st = ts_lu_analyze(lu, a);
  ts_csr_destroy(a);
  *out = lu;
  return st;
}

static void test_known_cases(void) {
  ts_lu *lu = NULL;
  ts_lu_stats stats;

  /* [1 2; 3 4]: 2 * 3 beats 1 * 4, so the anti-diagonal is matched. */
  double two[4] = {1, 2, 3, 4};
  CHECK_OK(NULL, analyze_dense(2, two, NULL, 0, &lu));
  CHECK(lu->row_perm[0] == 1 && lu->row_perm[1] == 0);
  /* Scaled matched entries are 1: |r1 * 3 * c0| and |r0 * 2 * c1|. */
  CHECK(fabs(lu->row_scale[1] * 3.0 * lu->col_scale[0] - 1.0) < 1e-14);
  CHECK(fabs(lu->row_scale[0] * 2.0 * lu->col_scale[1] - 1.0) < 1e-14);
  ts_lu_destroy(lu);

  /* no_matching: identity and unit scales, even where a matching would move rows. */
  CHECK_OK(NULL, analyze_dense(2, two, NULL, 1, &lu));
  CHECK(lu->row_perm[0] == 0 && lu->row_perm[1] == 1 && lu->col_perm[0] == 0 && lu->col_perm[1] == 1);
  CHECK(lu->row_scale[0] == 1.0 && lu->row_scale[1] == 1.0 && lu->col_scale[0] == 1.0 && lu->col_scale[1] == 1.0);
  ts_lu_destroy(lu);

  /* An empty row: structural rank 2 of 3. */
  double empty_row[9] = {1, 2, 0, 0, 0, 0, 4, 5, 6};
  CHECK_STATUS(NULL, analyze_dense(3, empty_row, NULL, 0, &lu), TS_ERROR_STRUCTURALLY_SINGULAR);
  CHECK(strstr(ts_last_error(NULL), "structurally singular: structural rank 2 of 3") != NULL);
  ts_lu_get_stats(lu, &stats);
  CHECK(stats.structural_rank == 2);
  CHECK(lu->state == TSI_LU_CREATED && lu->row_perm == NULL && lu->lu_row_idx == NULL);
  ts_lu_destroy(lu);

  /* The structural check runs without the matching too. */
  CHECK_STATUS(NULL, analyze_dense(3, empty_row, NULL, 1, &lu), TS_ERROR_STRUCTURALLY_SINGULAR);
  ts_lu_destroy(lu);

  /* Two rows with the same single column: rank 2 of 3. */
  double repeated[9] = {7, 0, 0, 8, 0, 0, 1, 2, 3};
  CHECK_STATUS(NULL, analyze_dense(3, repeated, NULL, 0, &lu), TS_ERROR_STRUCTURALLY_SINGULAR);
  ts_lu_get_stats(lu, &stats);
  CHECK(stats.structural_rank == 2);
  ts_lu_destroy(lu);

  /* An explicit zero cannot be matched: [0* 1; . 1] has a full pattern
   * but its nonzeros leave column 0 empty. Without matching it passes. */
  double zeros[4] = {0, 1, 0, 1};
  unsigned char present[4] = {1, 1, 0, 1};
  CHECK_STATUS(NULL, analyze_dense(2, zeros, present, 0, &lu), TS_ERROR_STRUCTURALLY_SINGULAR);
  CHECK(strstr(ts_last_error(NULL), "structural rank 1 of 2") != NULL);
  CHECK(strstr(ts_last_error(NULL), "explicit zeros") != NULL);
  ts_lu_get_stats(lu, &stats);
  CHECK(stats.structural_rank == 1);
  ts_lu_destroy(lu);
  CHECK_OK(NULL, analyze_dense(2, zeros, present, 1, &lu));
  ts_lu_destroy(lu);

  /* An explicit zero on the diagonal is avoided when another matching exists. */
  double avoid[4] = {0, 5, 2, 1};
  unsigned char avoid_present[4] = {1, 1, 1, 1};
  CHECK_OK(NULL, analyze_dense(2, avoid, avoid_present, 0, &lu));
  CHECK(lu->row_perm[0] == 1 && lu->row_perm[1] == 0);
  ts_lu_destroy(lu);

  /* A non-finite value is refused with its position. */
  double infinite[4] = {1, INFINITY, 0, 1};
  CHECK_STATUS(NULL, analyze_dense(2, infinite, NULL, 0, &lu), TS_ERROR_INVALID_MATRIX);
  CHECK(strstr(ts_last_error(NULL), "row 0, column 1") != NULL);
  ts_lu_destroy(lu);
}

/* Single-precision input gives the same matching as its double twin. */
static void test_float_input(void) {
  unsigned long long state = 99;
  ts_csr *a = random_matrix(30, 0.2, 1, &state);
  ts_csr *af = NULL;
  ts_csr_create(NULL, a->rows, a->cols, a->nnz, TS_FLOAT32, &af);
  memcpy(af->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
  memcpy(af->col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
  for (int64_t k = 0; k < a->nnz; k++) {
    /* Exactly representable values, so both see the same costs. */
    float v = (float)((double *)a->values)[k];
    ((float *)af->values)[k] = v;
    ((double *)a->values)[k] = (double)v;
  }
  ts_lu_options options = {0};
  options.ordering = TS_LU_ORDER_NATURAL;
  ts_lu *lu = NULL, *luf = NULL;
  ts_lu_create(NULL, &options, &lu);
  ts_lu_create(NULL, &options, &luf);
  CHECK_OK(NULL, ts_lu_analyze(lu, a));
  CHECK_OK(NULL, ts_lu_analyze(luf, af));
  CHECK(memcmp(lu->row_perm, luf->row_perm, 30 * sizeof(int32_t)) == 0);
  ts_lu_destroy(lu);
  ts_lu_destroy(luf);
  ts_csr_destroy(a);
  ts_csr_destroy(af);
}

int main(void) {
  test_brute_force();
  test_structural_rank();
  test_known_cases();
  test_float_input();
  return test_finish();
}
