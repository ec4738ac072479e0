/* Fill estimate: elimination tree and row-subtree counts against a naive
 * dense symbolic elimination, under the natural order, random orders and
 * AMD's; known answers (tridiagonal, arrowhead, diagonal); bad inputs. */
#include "test_gen_common.h"

/* Internal entry points of src/sparse/fill_estimate.c (not public API). */
ts_status tsi_csr_fill_count_ordered(ts_context *ctx, const ts_csr *a, const int64_t *perm, int64_t *lu_nnz,
                                     int64_t *l_nnz);
ts_status tsi_csr_fill_amd_order(ts_context *ctx, const ts_csr *a, int64_t *perm);

/* nnz(L) with its diagonal by dense boolean elimination of the pattern of
 * P (A + A^T + I) P^T: eliminating k joins all its later neighbours. */
static int64_t naive_l_nnz(const ts_csr *a, const int64_t *perm) {
  int64_t n = a->rows;
  int64_t *position = malloc((size_t)n * sizeof(int64_t));
  unsigned char *m = calloc((size_t)(n * n), 1);
  for (int64_t k = 0; k < n; k++)
    position[perm ? perm[k] : k] = k;
  for (int64_t i = 0; i < n; i++) {
    m[position[i] * n + position[i]] = 1;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      int64_t r = position[i], c = position[a->col_idx[k]];
      m[r * n + c] = m[c * n + r] = 1;
    }
  }
  for (int64_t k = 0; k < n; k++)
    for (int64_t i = k + 1; i < n; i++) {
      if (!m[i * n + k])
        continue;
      for (int64_t j = k + 1; j < n; j++)
        if (m[k * n + j])
          m[i * n + j] = m[j * n + i] = 1;
    }
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j <= i; j++)
      count += m[i * n + j];
  free(position);
  free(m);
  return count;
}

/* A random unsymmetric pattern with about `density` of the entries. */
static ts_csr *random_pattern(int64_t n, double density, unsigned long long *state) {
  ts_coo *coo = NULL;
  ts_csr *a = NULL;
  ts_coo_create(NULL, n, n, n * n, TS_FLOAT64, &coo);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      if (0.5 * (test_random(state) + 1.0) < density) {
        coo->row_idx[coo->nnz] = (int32_t)i;
        coo->col_idx[coo->nnz] = (int32_t)j;
        ((double *)coo->values)[coo->nnz++] = 1.0;
      }
  ts_csr_from_coo(NULL, coo, TS_DUPLICATES_ERROR, &a);
  ts_coo_destroy(coo);
  return a;
}

static void random_permutation(int64_t *perm, int64_t n, unsigned long long *state) {
  for (int64_t i = 0; i < n; i++)
    perm[i] = i;
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)(0.5 * (test_random(state) + 1.0) * (double)(i + 1));
    if (j > i)
      j = i;
    int64_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

static void test_against_naive(int have_amd) {
  unsigned long long state = 2024;
  int64_t sizes[] = {1, 2, 7, 20, 33, 60, 60, 45};
  double densities[] = {0.5, 0.5, 0.2, 0.1, 0.05, 0.03, 0.08, 0.01};
  int64_t perm[60];
  for (int t = 0; t < 8; t++) {
    ts_csr *a = random_pattern(sizes[t], densities[t], &state);
    CHECK(a != NULL);
    if (!a)
      continue;
    int64_t n = a->rows, lu = -1, l = -1;
    CHECK_OK(NULL, tsi_csr_fill_count_ordered(NULL, a, NULL, &lu, &l));
    int64_t want = naive_l_nnz(a, NULL);
    CHECK_MSG(l == want && lu == 2 * want - n, "n %lld natural order: L %lld, naive %lld", (long long)n, (long long)l,
              (long long)want);
    random_permutation(perm, n, &state);
    CHECK_OK(NULL, tsi_csr_fill_count_ordered(NULL, a, perm, &lu, &l));
    want = naive_l_nnz(a, perm);
    CHECK_MSG(l == want, "n %lld random order: L %lld, naive %lld", (long long)n, (long long)l, (long long)want);
    if (have_amd) {
      CHECK_OK(NULL, tsi_csr_fill_amd_order(NULL, a, perm));
      want = naive_l_nnz(a, perm);
      CHECK_OK(NULL, ts_csr_fill_estimate(NULL, a, &lu, &l));
      CHECK_MSG(l == want && lu == 2 * want - n, "n %lld AMD: L %lld, naive %lld", (long long)n, (long long)l,
                (long long)want);
    }
    ts_csr_destroy(a);
  }
}

/* Tridiagonal and arrowhead (dense first row and column): AMD leaves no
 * fill, so nnz(L + U) = nnz(A). The arrowhead in the natural order fills
 * completely: n (n + 1) / 2 entries in L. */
static ts_csr *from_entries(int64_t n, int arrow) {
  ts_coo *coo = NULL;
  ts_csr *a = NULL;
  ts_coo_create(NULL, n, n, 3 * n, TS_FLOAT64, &coo);
  for (int64_t i = 0; i < n; i++) {
    int64_t cols[3] = {i, arrow ? 0 : i - 1, arrow ? -1 : i + 1};
    if (arrow && i == 0)
      cols[1] = -1;
    for (int c = 0; c < 3; c++) {
      if (cols[c] < 0 || cols[c] >= n)
        continue;
      coo->row_idx[coo->nnz] = (int32_t)i;
      coo->col_idx[coo->nnz] = (int32_t)cols[c];
      ((double *)coo->values)[coo->nnz++] = 1.0;
      if (arrow && i > 0 && cols[c] == 0) { /* the first row */
        coo->row_idx[coo->nnz] = 0;
        coo->col_idx[coo->nnz] = (int32_t)i;
        ((double *)coo->values)[coo->nnz++] = 1.0;
      }
    }
  }
  ts_csr_from_coo(NULL, coo, TS_DUPLICATES_ERROR, &a);
  ts_coo_destroy(coo);
  return a;
}

static void test_known_answers(int have_amd) {
  int64_t lu = -1, l = -1;
  ts_csr *tri = from_entries(500, 0), *arrow = from_entries(300, 1);
  CHECK(tri && tri->nnz == 3 * 500 - 2 && arrow && arrow->nnz == 3 * 300 - 2);
  if (!tri || !arrow)
    return;
  CHECK_OK(NULL, tsi_csr_fill_count_ordered(NULL, tri, NULL, &lu, &l));
  CHECK(l == 2 * 500 - 1 && lu == tri->nnz);
  CHECK_OK(NULL, tsi_csr_fill_count_ordered(NULL, arrow, NULL, &lu, &l));
  CHECK(l == 300 * 301 / 2);
  if (have_amd) {
    CHECK_OK(NULL, ts_csr_fill_estimate(NULL, tri, &lu, &l));
    CHECK(lu == tri->nnz && l == 2 * 500 - 1);
    CHECK_OK(NULL, ts_csr_fill_estimate(NULL, arrow, &lu, NULL));
    CHECK_MSG(lu == arrow->nnz, "arrowhead: L+U %lld, A %lld", (long long)lu, (long long)arrow->nnz);
  }
  ts_csr_destroy(tri);
  ts_csr_destroy(arrow);

  ts_csr *diagonal = NULL;
  CHECK_OK(NULL, ts_gen_banded(NULL, 40, 0, 0, 1, TS_FLOAT64, &diagonal));
  CHECK_OK(NULL, tsi_csr_fill_count_ordered(NULL, diagonal, NULL, &lu, &l));
  CHECK(lu == 40 && l == 40);
  ts_csr_destroy(diagonal);

  /* 2-D Laplacian: a k x k grid in natural order fills its envelope: row i
   * of L runs from its first neighbour (i - k, or i - 1 in the first grid
   * row) to the diagonal. */
  ts_csr *grid = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 12, 12, TS_FLOAT64, &grid));
  if (!grid)
    return;
  CHECK_OK(NULL, tsi_csr_fill_count_ordered(NULL, grid, NULL, &lu, &l));
  int64_t band = 0;
  for (int64_t i = 0; i < 144; i++)
    band += 1 + (i >= 12 ? 12 : (i > 0 ? 1 : 0));
  CHECK_MSG(l == band, "grid natural order: L %lld, band %lld", (long long)l, (long long)band);
  CHECK(l == naive_l_nnz(grid, NULL));
  if (have_amd) {
    int64_t perm[144];
    CHECK_OK(NULL, tsi_csr_fill_amd_order(NULL, grid, perm));
    CHECK_OK(NULL, ts_csr_fill_estimate(NULL, grid, &lu, &l));
    CHECK(l == naive_l_nnz(grid, perm));
    CHECK(lu > grid->nnz && l < band); /* some fill, less than the band's */
  }
  ts_csr_destroy(grid);
}

static void test_bad_inputs(int have_amd) {
  int64_t lu = 0;
  ts_csr *rect = NULL;
  CHECK_OK(NULL, ts_gen_random_uniform(NULL, 5, 6, 2, 1, TS_FLOAT64, &rect));
  CHECK_STATUS(NULL, tsi_csr_fill_count_ordered(NULL, rect, NULL, &lu, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "not square") != NULL);
  CHECK_STATUS(NULL, ts_csr_fill_estimate(NULL, rect, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  if (have_amd) {
    CHECK_STATUS(NULL, ts_csr_fill_estimate(NULL, rect, &lu, NULL), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, ts_csr_fill_estimate(NULL, NULL, &lu, NULL), TS_ERROR_INVALID_ARGUMENT);
  }
  ts_csr_destroy(rect);
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 3, 3, TS_FLOAT64, &a));
  int64_t not_permutation[9] = {0, 1, 2, 3, 4, 5, 6, 7, 7};
  CHECK_STATUS(NULL, tsi_csr_fill_count_ordered(NULL, a, not_permutation, &lu, NULL), TS_ERROR_INVALID_ARGUMENT);
  a->col_idx[1] = 0; /* row 0 now repeats column 0 */
  CHECK_STATUS(NULL, tsi_csr_fill_count_ordered(NULL, a, NULL, &lu, NULL), TS_ERROR_INVALID_MATRIX);
  if (have_amd)
    CHECK_STATUS(NULL, ts_csr_fill_estimate(NULL, a, &lu, NULL), TS_ERROR_INVALID_MATRIX);
  ts_csr_destroy(a);
}

int main(void) {
  ts_csr *probe = NULL;
  int64_t lu = 0;
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 2, 2, TS_FLOAT64, &probe));
  ts_status st = ts_csr_fill_estimate(NULL, probe, &lu, NULL);
  ts_csr_destroy(probe);
  int have_amd = st != TS_ERROR_UNSUPPORTED;
  if (have_amd) {
    CHECK_OK(NULL, st);
  } else {
    CHECK(strstr(ts_last_error(NULL), "without SuiteSparse AMD") != NULL);
    printf("AMD checks skipped: %s\n", ts_last_error(NULL));
  }
  test_against_naive(have_amd);
  test_known_answers(have_amd);
  test_bad_inputs(have_amd);
  if (!have_amd && test_failed == 0)
    return test_skip("tessera built without SuiteSparse AMD (orderings not tested)");
  return test_finish();
}
