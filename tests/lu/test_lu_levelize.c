/* LU levelization: levels from Kahn's sort against a naive longest-path
 * level of every column (level(k) = 1 + max over the columns it depends on),
 * columns sorted within a level, every dependency crossing levels forward. */
#include "test_lu_analysis_common.h"

/* The first column of column k's diagonal block where only the diagonal
 * blocks are factored (lu->block_ptr), else 0. */
static int64_t block_start(const ts_lu *lu, int64_t k) {
  int64_t b = 0;
  while (lu->block_ptr && lu->block_ptr[b + 1] <= k)
    b++;
  return lu->block_ptr ? lu->block_ptr[b] : 0;
}

/* Whether column k depends on column j < k: U(j, k) or L(k, j) stored,
 * and with the diagonal blocks factored alone, j in k's block (the entries
 * above the blocks are M's, which no column updates). */
static int depends(const ts_lu *lu, const unsigned char *dense, int64_t n, int64_t j, int64_t k) {
  return (dense[j * n + k] || dense[k * n + j]) && j >= block_start(lu, k);
}

/* Naive levels from the dense pattern of L + U: column k depends on j < k
 * as above. */
static int64_t naive_levels(const ts_lu *lu, const unsigned char *dense, int64_t n, int64_t *level) {
  int64_t most = 0;
  for (int64_t k = 0; k < n; k++) {
    level[k] = 0;
    for (int64_t j = 0; j < k; j++)
      if (depends(lu, dense, n, j, k) && level[j] + 1 > level[k])
        level[k] = level[j] + 1;
    if (level[k] + 1 > most)
      most = level[k] + 1;
  }
  return most;
}

static void check_levels(const ts_lu *lu, const unsigned char *dense, int trial) {
  int64_t n = lu->n;
  int64_t *want = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  int64_t *got = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  int64_t want_levels = naive_levels(lu, dense, n, want);
  CHECK_MSG(lu->levels == want_levels && lu->stats.levels == want_levels, "trial %d: %lld levels, want %lld", trial,
            (long long)lu->levels, (long long)want_levels);
  for (int64_t k = 0; k < n; k++)
    got[k] = -1;
  int64_t bad_order = 0, widest = 0;
  CHECK(lu->level_ptr[0] == 0 && lu->level_ptr[lu->levels] == n);
  for (int64_t l = 0; l < lu->levels; l++) {
    int64_t size = lu->level_ptr[l + 1] - lu->level_ptr[l];
    bad_order += size <= 0;
    if (size > widest)
      widest = size;
    for (int64_t p = lu->level_ptr[l]; p < lu->level_ptr[l + 1]; p++) {
      got[lu->level_cols[p]] = l;
      if (p > lu->level_ptr[l] && lu->level_cols[p - 1] >= lu->level_cols[p])
        bad_order++;
    }
  }
  CHECK(lu->stats.max_level_size == widest);
  CHECK_MSG(bad_order == 0, "trial %d: empty or unsorted levels", trial);
  int64_t mismatched = 0, backward = 0;
  for (int64_t k = 0; k < n; k++) {
    mismatched += got[k] != want[k];
    for (int64_t j = 0; j < k; j++)
      if (depends(lu, dense, n, j, k) && got[j] >= got[k])
        backward++;
  }
  CHECK_MSG(mismatched == 0 && backward == 0, "trial %d: %lld columns on the wrong level, %lld dependencies backward",
            trial, (long long)mismatched, (long long)backward);
  free(want);
  free(got);
}

static void test_random_patterns(void) {
  unsigned long long state = 31337;
  for (int trial = 0; trial < 150; trial++) {
    int64_t n = 1 + (trial * 53) % 90;
    double density = trial % 3 == 0 ? 0.01 : trial % 3 == 1 ? 0.04 : 0.12;
    ts_csr *a = random_matrix(n, density, 1, &state);
    ts_lu_options options = {0};
    options.ordering = trial % 2 ? lu_test_fill_ordering() : TS_LU_ORDER_NATURAL;
    ts_lu *lu = NULL;
    ts_lu_create(NULL, &options, &lu);
    ts_status st = ts_lu_analyze(lu, a);
    CHECK_MSG(st == TS_SUCCESS, "trial %d: %s", trial, ts_last_error(NULL));
    if (st == TS_SUCCESS) {
      unsigned char *dense = matched_dense_pattern(lu, a);
      dense_symbolic_of(lu, dense);
      check_levels(lu, dense, trial);
      free(dense);
    }
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
}

/* Known shapes: a diagonal matrix is one level; a bidiagonal one is a chain
 * of n levels; the second rule alone (L below, no U) also chains. */
static void test_known(void) {
  int64_t n = 7;
  double dense[49];
  const char *names[3] = {"diagonal", "upper bidiagonal", "lower bidiagonal"};
  const int64_t want[3] = {1, 7, 7};
  for (int shape = 0; shape < 3; shape++) {
    memset(dense, 0, sizeof dense);
    for (int64_t i = 0; i < n; i++) {
      dense[i * n + i] = 4.0;
      if (shape == 1 && i + 1 < n)
        dense[i * n + i + 1] = 1.0;
      if (shape == 2 && i + 1 < n)
        dense[(i + 1) * n + i] = 1.0;
    }
    ts_csr *a = csr_from_dense(n, dense, NULL);
    ts_lu_options options = {0};
    options.ordering = TS_LU_ORDER_NATURAL;
    ts_lu *lu = NULL;
    ts_lu_create(NULL, &options, &lu);
    CHECK_OK(NULL, ts_lu_analyze(lu, a));
    CHECK_MSG(lu->levels == want[shape], "%s: %lld levels", names[shape], (long long)lu->levels);
    CHECK(lu->stats.max_level_size == (shape == 0 ? n : 1));
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
}

int main(void) {
  test_random_patterns();
  test_known();
  return test_finish();
}
