/* LU matching and scaling: the maximum-product matching against brute force
 * over all permutations (n <= 8) and against a dense Hungarian method on
 * larger sparse matrices without a diagonal and with many equal magnitudes,
 * scaled entries at most 1 with 1 on the matched diagonal (the duals'
 * certificate of optimality, also on corpus matrices that need thousands of
 * shortest-path searches), structural rank against a plain augmenting-path
 * count, known cases (anti-diagonal, empty row, repeated row pattern,
 * explicit zeros), and the no_matching option. */
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

/* Least-cost assignment of a dense n x n cost matrix (row-major) by the
 * Hungarian method with potentials (Kuhn 1955; Munkres 1957), one row added
 * at a time along a shortest augmenting path found by dense O(n^2) scans:
 * O(n^3), independent of the sparse heap-based search under test. Returns
 * the least total cost. */
static double hungarian_least_cost(int n, const double *cost) {
  double *u = calloc((size_t)n + 1, sizeof(double)), *v = calloc((size_t)n + 1, sizeof(double));
  double *least = malloc(((size_t)n + 1) * sizeof(double));
  int *row_of = calloc((size_t)n + 1, sizeof(int)), *came_from = calloc((size_t)n + 1, sizeof(int));
  unsigned char *used = malloc((size_t)n + 1);
  /* Column 0 is a virtual start; rows and columns count from 1. */
  for (int i = 1; i <= n; i++) {
    row_of[0] = i;
    int col = 0;
    for (int j = 0; j <= n; j++) {
      least[j] = INFINITY;
      used[j] = 0;
    }
    do {
      used[col] = 1;
      int row = row_of[col], nearest = 0;
      double delta = INFINITY;
      for (int j = 1; j <= n; j++) {
        if (used[j])
          continue;
        double reduced = cost[(row - 1) * n + (j - 1)] - u[row] - v[j];
        if (reduced < least[j]) {
          least[j] = reduced;
          came_from[j] = col;
        }
        if (least[j] < delta) {
          delta = least[j];
          nearest = j;
        }
      }
      for (int j = 0; j <= n; j++)
        if (used[j]) {
          u[row_of[j]] += delta;
          v[j] -= delta;
        } else {
          least[j] -= delta;
        }
      col = nearest;
    } while (row_of[col] != 0);
    do {
      int previous = came_from[col];
      row_of[col] = row_of[previous];
      col = previous;
    } while (col != 0);
  }
  double total = 0.0;
  for (int j = 1; j <= n; j++)
    total += cost[(row_of[j] - 1) * n + (j - 1)];
  free(u);
  free(v);
  free(least);
  free(row_of);
  free(came_from);
  free(used);
  return total;
}

/* Largest |scaled entry| - 1 over A and largest |scaled matched entry - 1|:
 * both about 0 certify that the matching maximises the product (the scales
 * are feasible duals whose bound it reaches). */
static void scaled_certificate(const ts_lu *lu, const ts_csr *a, double *above_one, double *matched_off) {
  int64_t n = a->rows;
  int32_t *col_of_row = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
  for (int64_t k = 0; k < n; k++)
    col_of_row[lu->row_perm[k]] = lu->col_perm[k];
  *above_one = -1.0;
  *matched_off = 0.0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      const int32_t j = a->col_idx[k];
      const double scaled = fabs(lu->row_scale[i] * ((const double *)a->values)[k] * lu->col_scale[j]);
      *above_one = fmax(*above_one, scaled - 1.0);
      if (col_of_row[i] == j)
        *matched_off = fmax(*matched_off, fabs(scaled - 1.0));
    }
  free(col_of_row);
}

/* Sparse matrices shaped like bayer10's (a few entries a row, no diagonal,
 * magnitudes spanning decades and often equal, so that many searches run
 * and many rows are reached at equal distances; some with explicit zeros):
 * the matched log-product equals the dense Hungarian method's optimum. */
static void test_against_hungarian(void) {
  unsigned long long state = 2026;
  const double values[] = {1.0, 2.0, 0.5, 10.0, 1e-3, 3.0, 1e4, 0.25};
  int checked = 0;
  for (int trial = 0; trial < 24; trial++) {
    const int n = trial < 8 ? 60 : trial < 16 ? 150 : 300;
    const int per_row = 2 + trial % 4;
    const int tied = trial % 2 == 0;
    double *dense = calloc((size_t)n * (size_t)n, sizeof(double));
    /* A random permutation without fixed points keeps the pattern
     * nonsingular; the other entries fall anywhere off the diagonal. */
    int *hidden = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
      hidden[i] = i;
    for (int i = n - 1; i > 0; i--) {
      int other = (int)((test_random(&state) + 1.0) * 0.5 * (i + 1)) % (i + 1), kept = hidden[i];
      hidden[i] = hidden[other];
      hidden[other] = kept;
    }
    for (int i = 0; i < n; i++)
      if (hidden[i] == i) {
        int kept = hidden[(i + 1) % n];
        hidden[(i + 1) % n] = hidden[i];
        hidden[i] = kept;
      }
    for (int i = 0; i < n; i++)
      for (int e = -1; e < per_row; e++) {
        int j = e < 0 ? hidden[i] : (int)((test_random(&state) + 1.0) * 0.5 * n) % n;
        if (j == i)
          continue;
        double magnitude =
            tied ? values[(int)((test_random(&state) + 1.0) * 4.0) % 8] : pow(10.0, 6.0 * test_random(&state));
        dense[(size_t)i * n + j] = test_random(&state) < 0 ? -magnitude : magnitude;
      }
    const double missing = 1e6;
    double *cost = malloc((size_t)n * (size_t)n * sizeof(double));
    for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
      cost[k] = dense[k] != 0.0 ? -log(fabs(dense[k])) : missing;
    const double least = hungarian_least_cost(n, cost);
    /* Every third matrix also stores explicit zeros, which no matching
     * may use (the costs then have a pattern of their own). */
    unsigned char *present = malloc((size_t)n * (size_t)n);
    for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
      present[k] = dense[k] != 0.0 || (trial % 3 == 0 && test_random(&state) > 0.98);
    ts_csr *a = csr_from_dense(n, dense, present);
    ts_lu_options options = {0};
    options.ordering = TS_LU_ORDER_NATURAL;
    ts_lu *lu = NULL;
    CHECK_OK(NULL, ts_lu_create(NULL, &options, &lu));
    ts_status st = ts_lu_analyze(lu, a);
    CHECK(least < missing / 2);
    CHECK_MSG(st == TS_SUCCESS, "trial %d: %s", trial, ts_last_error(NULL));
    if (st == TS_SUCCESS) {
      checked++;
      double sum = 0.0, above_one = 0.0, matched_off = 0.0;
      for (int k = 0; k < n; k++)
        sum -= log(fabs(dense[(size_t)lu->row_perm[k] * n + lu->col_perm[k]]));
      CHECK_MSG(fabs(sum - least) <= 1e-9 * (1.0 + fabs(least)), "trial %d (n %d): cost %.15g, Hungarian %.15g", trial,
                n, sum, least);
      scaled_certificate(lu, a, &above_one, &matched_off);
      CHECK_MSG(above_one <= 1e-12 && matched_off <= 1e-12, "trial %d: scaled entry 1 + %g, matched off by %g", trial,
                above_one, matched_off);
    }
    ts_lu_destroy(lu);
    free(hidden);
    free(present);
    ts_csr_destroy(a);
    free(cost);
    free(dense);
  }
  CHECK(checked == 24);
}

/* Corpus matrices whose matching runs hundreds to thousands of
 * shortest-path searches: the scales certify the optimum. The matching
 * alone (tsi_lu_matching), without the ordering and symbolic phases. */
static void test_corpus_certificates(void) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("SKIPPED (part): no corpus for the matching's certificates\n");
    return;
  }
  const char *names[] = {"bayer10", "wing", "bp_1200", "mahindas", "west0479", "Pd", "bcsstk13", "plskz362"};
  for (size_t m = 0; m < sizeof names / sizeof names[0]; m++) {
    char path[4096];
    if (!test_corpus_matrix(dir, names[m], path, sizeof path))
      continue;
    ts_csr *a = test_read_general(NULL, dir, names[m]);
    CHECK_MSG(a != NULL, "%s: %s", names[m], ts_last_error(NULL));
    if (!a)
      continue;
    ts_lu *lu = NULL;
    CHECK_OK(NULL, ts_lu_create(NULL, NULL, &lu));
    CHECK_OK(NULL, tsi_lu_matching(lu, a, tsi_lu_diagonal_kind(a)));
    double above_one = 0.0, matched_off = 0.0;
    scaled_certificate(lu, a, &above_one, &matched_off);
    CHECK_MSG(above_one <= 1e-12 && matched_off <= 1e-12, "%s: scaled entry 1 + %g, matched off by %g", names[m],
              above_one, matched_off);
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
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
  test_against_hungarian();
  test_corpus_certificates();
  test_structural_rank();
  test_known_cases();
  test_float_input();
  return test_finish();
}
