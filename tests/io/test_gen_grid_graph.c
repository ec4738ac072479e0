/* The road-like grid generator: grid neighbours only, every edge stored both
 * ways with one weight in (0, 1], sorted rows, the edge count of a full grid
 * without drops, about the asked share dropped, the same graph for the same
 * seed whatever the thread count, refused arguments. */
#include "test_common.h"

#include <stdbool.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static double weight_of(const ts_csr *g, int64_t k) {
  return g->dtype == TS_FLOAT32 ? (double)((const float *)g->values)[k] : ((const double *)g->values)[k];
}

/* Entry index of u -> v, or -1. */
static int64_t find(const ts_csr *g, int64_t u, int32_t v) {
  for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++)
    if (g->col_idx[k] == v)
      return k;
  return -1;
}

static void check_shape(const ts_csr *g, int64_t nx, int64_t ny) {
  int64_t bad = 0;
  for (int64_t u = 0; u < g->rows; u++) {
    const int64_t x = u % nx, y = u / nx;
    for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++) {
      const int32_t v = g->col_idx[k];
      const int64_t vx = v % nx, vy = v / nx;
      const bool neighbour = (vx == x && (vy == y - 1 || vy == y + 1)) || (vy == y && (vx == x - 1 || vx == x + 1));
      const int64_t back = find(g, v, (int32_t)u);
      const double w = weight_of(g, k);
      const bool sorted = k == g->row_ptr[u] || g->col_idx[k - 1] < v;
      if (!neighbour || back < 0 || weight_of(g, back) != w || !(w > 0.0 && w <= 1.0) || !sorted)
        bad++;
    }
  }
  CHECK_MSG(bad == 0, "%lld entries break the grid's rules", (long long)bad);
}

int main(void) {
  ts_csr *g = NULL, *h = NULL;
  /* No drop: every grid edge, both ways. */
  CHECK_OK(NULL, ts_gen_grid_graph(NULL, 7, 5, 0.0, 1, TS_FLOAT64, &g));
  if (g) {
    CHECK(g->rows == 35 && g->cols == 35 && g->symmetry == TS_GENERAL);
    CHECK(g->nnz == (int64_t)2 * ((7 - 1) * 5 + 7 * (5 - 1)));
    check_shape(g, 7, 5);
    CHECK_OK(NULL, ts_csr_check(NULL, g));
  }
  ts_csr_destroy(g);
  g = NULL;
  /* A third dropped: about a third fewer edges, still mirrored. */
  CHECK_OK(NULL, ts_gen_grid_graph(NULL, 300, 200, 1.0 / 3.0, 7, TS_FLOAT32, &g));
  if (g) {
    const double full = 2.0 * (299.0 * 200.0 + 300.0 * 199.0);
    CHECK_MSG(fabs((double)g->nnz / full - 2.0 / 3.0) < 0.01, "kept %lld of %.0f", (long long)g->nnz, full);
    check_shape(g, 300, 200);
  }
  /* Same seed, same graph, on one thread too; another seed, another graph. */
#ifdef _OPENMP
  int threads = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  CHECK_OK(NULL, ts_gen_grid_graph(NULL, 300, 200, 1.0 / 3.0, 7, TS_FLOAT32, &h));
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
  CHECK(g && h && g->nnz == h->nnz && memcmp(g->row_ptr, h->row_ptr, (size_t)(g->rows + 1) * 8) == 0 &&
        memcmp(g->col_idx, h->col_idx, (size_t)g->nnz * 4) == 0 &&
        memcmp(g->values, h->values, (size_t)g->nnz * 4) == 0);
  ts_csr_destroy(h);
  h = NULL;
  CHECK_OK(NULL, ts_gen_grid_graph(NULL, 300, 200, 1.0 / 3.0, 8, TS_FLOAT32, &h));
  CHECK(g && h && (g->nnz != h->nnz || memcmp(g->col_idx, h->col_idx, (size_t)g->nnz * 4) != 0));
  ts_csr_destroy(g);
  ts_csr_destroy(h);
  /* One vertex, one row of vertices. */
  CHECK_OK(NULL, ts_gen_grid_graph(NULL, 1, 1, 0.0, 1, TS_FLOAT32, &g));
  CHECK(g && g->rows == 1 && g->nnz == 0);
  ts_csr_destroy(g);
  CHECK_OK(NULL, ts_gen_grid_graph(NULL, 10, 1, 0.0, 1, TS_FLOAT32, &g));
  CHECK(g && g->nnz == 18);
  ts_csr_destroy(g);
  /* Refusals. */
  CHECK_STATUS(NULL, ts_gen_grid_graph(NULL, 0, 5, 0.0, 1, TS_FLOAT32, &g), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_grid_graph(NULL, 5, 5, 1.0, 1, TS_FLOAT32, &g), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_grid_graph(NULL, 5, 5, -0.1, 1, TS_FLOAT32, &g), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_grid_graph(NULL, 5, 5, NAN, 1, TS_FLOAT32, &g), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gen_grid_graph(NULL, 65536, 65536, 0.0, 1, TS_FLOAT32, &g), TS_ERROR_OVERFLOW);
  CHECK_STATUS(NULL, ts_gen_grid_graph(NULL, 5, 5, 0.0, 1, TS_FLOAT32, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK(g == NULL);
  return test_finish();
}
