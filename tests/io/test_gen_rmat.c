/* R-MAT generator: corner cases with a known answer, the distinct count of
 * uniform edges, symmetry and skew of Graph500 graphs, determinism over
 * thread counts, bad parameters. */
#include "test_gen_common.h"

static ts_rmat_params plain(int scale, int edge_factor, double a, double b, double c) {
  ts_rmat_params p = ts_rmat_graph500(scale, edge_factor);
  p.a = a;
  p.b = b;
  p.c = c;
  p.symmetric = 0;
  p.scramble = 0;
  return p;
}

static void test_defaults(void) {
  ts_rmat_params p = ts_rmat_graph500(20, 16);
  CHECK(p.scale == 20 && p.edge_factor == 16 && p.a == 0.57 && p.b == 0.19 && p.c == 0.19);
  CHECK(p.symmetric && p.scramble);
}

/* Every edge in one quadrant at every level: the whole graph is one entry. */
static void test_corners(void) {
  ts_csr *g = NULL;
  ts_rmat_params p = plain(6, 4, 1.0, 0.0, 0.0);
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &g));
  if (g) {
    CHECK(g->rows == 64 && g->cols == 64 && g->nnz == 1 && g->col_idx[0] == 0 && g->row_ptr[1] == 1);
    CHECK(value_at(g, 0) > 0.0 && value_at(g, 0) <= 1.0);
    ts_csr_destroy(g);
  }
  p = plain(6, 4, 0.0, 1.0, 0.0); /* always the top-right quadrant: (0, 63) */
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &g));
  if (g) {
    CHECK(g->nnz == 1 && g->row_ptr[1] == 1 && g->col_idx[0] == 63);
    ts_csr_destroy(g);
  }
  p.symmetric = 1; /* and its mirror (63, 0) */
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &g));
  if (g) {
    CHECK(g->nnz == 2 && g->col_idx[0] == 63 && g->row_ptr[63] == 1 && g->col_idx[1] == 0);
    CHECK(value_at(g, 0) == value_at(g, 1));
    ts_csr_destroy(g);
  }
  p = plain(5, 2, 0.0, 0.0, 0.0); /* d = 1: the bottom-right corner */
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT32, &g));
  if (g) {
    CHECK(g->nnz == 1 && g->row_ptr[31] == 0 && g->col_idx[0] == 31);
    ts_csr_destroy(g);
  }
  p = plain(0, 3, 0.57, 0.19, 0.19); /* one vertex */
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &g));
  if (g) {
    CHECK(g->rows == 1 && g->nnz == 1);
    ts_csr_destroy(g);
  }
}

/* a = b = c = d = 1/4: edges uniform over the n^2 cells, so the expected
 * number of distinct cells is n^2 (1 - (1 - 1/n^2)^E). */
static void test_uniform_edges(void) {
  ts_csr *g = NULL;
  ts_rmat_params p = plain(8, 16, 0.25, 0.25, 0.25);
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 5, TS_FLOAT64, &g));
  if (!g)
    return;
  CHECK_OK(NULL, ts_csr_check(NULL, g));
  double cells = 65536.0, edges = 4096.0;
  double expected = cells * (1.0 - pow(1.0 - 1.0 / cells, edges));
  CHECK_MSG(fabs((double)g->nnz - expected) < 0.01 * expected, "%lld distinct, %.1f expected", (long long)g->nnz,
            expected);
  /* Quadrant balance: a quarter of the entries in each (binomial, 5 sigma). */
  int64_t top_left = 0;
  for (int64_t i = 0; i < 128; i++)
    for (int64_t k = g->row_ptr[i]; k < g->row_ptr[i + 1]; k++)
      top_left += g->col_idx[k] < 128;
  double sigma = sqrt(g->nnz * 0.25 * 0.75);
  CHECK(fabs((double)top_left - 0.25 * g->nnz) < 5 * sigma);
  ts_csr_destroy(g);
}

/* Graph500 skew: unscrambled, the top-left quadrant holds a fraction a of
 * the edges drawn; with merging, at most that share of distinct entries
 * but far more than d = 0.05. */
static void test_graph500(void) {
  ts_csr *g = NULL;
  ts_rmat_params p = ts_rmat_graph500(12, 16);
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 11, TS_FLOAT64, &g));
  if (!g)
    return;
  CHECK_OK(NULL, ts_csr_check(NULL, g));
  int64_t n = 4096, edges = (int64_t)16 * 4096;
  CHECK(g->rows == n && g->cols == n && g->nnz <= 2 * edges && g->nnz > edges);
  int64_t max_degree = 0, asymmetric = 0, bad_values = 0, isolated = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t degree = g->row_ptr[i + 1] - g->row_ptr[i];
    if (degree > max_degree)
      max_degree = degree;
    isolated += degree == 0;
    for (int64_t k = g->row_ptr[i]; k < g->row_ptr[i + 1]; k++) {
      int64_t mirror = find_entry(g, g->col_idx[k], i);
      if (mirror < 0 || value_at(g, mirror) != value_at(g, k))
        asymmetric++;
      if (!(value_at(g, k) > 0.0 && value_at(g, k) <= 1.0))
        bad_values++;
    }
  }
  double mean = (double)g->nnz / n;
  CHECK_MSG(max_degree > 20 * mean, "max degree %lld, mean %.1f", (long long)max_degree, mean);
  CHECK(isolated > n / 20); /* R-MAT leaves many vertices without edges */
  CHECK(asymmetric == 0 && bad_values == 0);
  /* Scrambling: the highest degree vertex is not vertex 0. */
  CHECK(g->row_ptr[1] - g->row_ptr[0] < max_degree);
  ts_csr_destroy(g);

  p.scramble = 0;
  p.symmetric = 0;
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 11, TS_FLOAT64, &g));
  if (!g)
    return;
  int64_t top_left = 0;
  for (int64_t i = 0; i < n / 2; i++)
    for (int64_t k = g->row_ptr[i]; k < g->row_ptr[i + 1]; k++)
      top_left += g->col_idx[k] < n / 2;
  double share = (double)top_left / g->nnz;
  CHECK_MSG(share > 0.4 && share < 0.57, "top-left share %.3f", share);
  CHECK(g->row_ptr[1] - g->row_ptr[0] > 20 * (double)g->nnz / n); /* vertex 0 is the hub */
  ts_csr_destroy(g);
}

static ts_status make_graph500(const void *args, uint64_t seed, ts_csr **csr) {
  (void)args;
  ts_rmat_params p = ts_rmat_graph500(13, 8);
  return ts_gen_rmat(NULL, &p, seed, TS_FLOAT64, csr);
}

static ts_status make_directed(const void *args, uint64_t seed, ts_csr **csr) {
  (void)args;
  ts_rmat_params p = plain(12, 16, 0.45, 0.15, 0.15);
  return ts_gen_rmat(NULL, &p, seed, TS_FLOAT32, csr);
}

static void test_bad_parameters(void) {
  ts_csr *g = NULL;
  ts_rmat_params p = ts_rmat_graph500(10, 16);
  CHECK_STATUS(NULL, ts_gen_rmat(NULL, NULL, 1, TS_FLOAT64, &g), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, NULL), TS_ERROR_INVALID_ARGUMENT);
  p.scale = -1;
  CHECK_STATUS(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &g), TS_ERROR_INVALID_ARGUMENT);
  p.scale = 31;
  CHECK_STATUS(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &g), TS_ERROR_OVERFLOW);
  CHECK(strstr(ts_last_error(NULL), "scale") != NULL);
  p = ts_rmat_graph500(10, 0);
  CHECK_STATUS(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &g), TS_ERROR_INVALID_ARGUMENT);
  p = ts_rmat_graph500(10, 16);
  p.a = 0.7; /* a + b + c = 1.08 */
  CHECK_STATUS(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &g), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "a + b + c") != NULL);
  p.a = 0.57;
  p.b = -0.1;
  CHECK_STATUS(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &g), TS_ERROR_INVALID_ARGUMENT);
  p.b = NAN;
  CHECK_STATUS(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &g), TS_ERROR_INVALID_ARGUMENT);
  p.b = 0.19;
  CHECK_STATUS(NULL, ts_gen_rmat(NULL, &p, 1, (ts_dtype)5, &g), TS_ERROR_INVALID_ARGUMENT);
  CHECK(g == NULL);
}

int main(void) {
  test_defaults();
  test_corners();
  test_uniform_edges();
  test_graph500();
  check_deterministic("rmat graph500", make_graph500, NULL);
  check_deterministic("rmat directed", make_directed, NULL);
  test_bad_parameters();
  return test_finish();
}
