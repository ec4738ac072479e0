/* A road-like graph: the vertices of an nx-by-ny grid (vertex x + nx*y),
 * each joined to its right and upper neighbours unless the edge is dropped
 * with a given probability, every edge stored in both directions with one
 * random weight. High diameter (about nx + ny hops across) and degrees of
 * at most 4, the shape of road networks that BFS and SSSP find hardest to
 * parallelise. */
#include "gen_internal.h"

#include <stdlib.h>
#include <string.h>

enum { STREAM_GRID_KEEP = 51, STREAM_GRID_WEIGHT = 52 };

/* Edge of vertex r towards +x (side 0) or +y (side 1): kept, and its weight. */
static bool grid_edge(uint64_t seed, double drop, int64_t r, int side, double *weight) {
  const uint64_t index = 2 * (uint64_t)r + (uint64_t)side;
  if (drop > 0.0 && tsi_uniform01(tsi_random_draw(tsi_random_key(seed, STREAM_GRID_KEEP, index), 0)) < drop)
    return false;
  *weight = tsi_uniform_open0(tsi_random_draw(tsi_random_key(seed, STREAM_GRID_WEIGHT, index), 0));
  return true;
}

ts_status ts_gen_grid_graph(ts_context *ctx, int64_t nx, int64_t ny, double drop, uint64_t seed, ts_dtype dtype,
                            ts_csr **csr) {
  const char *op = "ts_gen_grid_graph";
  ts_status st = tsi_gen_check_output(ctx, op, dtype, csr);
  if (st != TS_SUCCESS)
    return st;
  if (nx < 1 || ny < 1)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: grid sizes must be at least 1 (got %lld x %lld)", op,
                     (long long)nx, (long long)ny);
  if (!(drop >= 0.0 && drop < 1.0))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: drop = %g must lie in [0, 1)", op, drop);
  int64_t n;
  if (tsi_mul_overflows(nx, ny, &n) || n > TS_MAX_DIMENSION)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: a %lld x %lld grid has more than %d vertices", op, (long long)nx,
                     (long long)ny, TS_MAX_DIMENSION);
  st = tsi_progress(ctx, 0, n);
  if (st != TS_SUCCESS)
    return st;
  int64_t *degree = tsi_calloc_array(n + 1, sizeof(int64_t));
  if (!degree)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld vertices", op, (long long)n);
  /* Degrees first: each kept edge counts at both ends (the row of its upper
   * or right end is counted by that end's own loop). */
  for (int64_t start = 0, end; start < n && st == TS_SUCCESS; start = end) {
    end = tsi_block_end(start, n);
#pragma omp parallel for schedule(static)
    for (int64_t r = start; r < end; r++) {
      const int64_t x = r % nx, y = r / nx;
      double w;
      degree[r + 1] = (y > 0 && grid_edge(seed, drop, r - nx, 1, &w)) + (x > 0 && grid_edge(seed, drop, r - 1, 0, &w)) +
                      (x < nx - 1 && grid_edge(seed, drop, r, 0, &w)) + (y < ny - 1 && grid_edge(seed, drop, r, 1, &w));
    }
    st = tsi_check_cancel(ctx);
  }
  if (st == TS_SUCCESS)
    st = tsi_gen_prefix_sum(ctx, degree, n);
  ts_csr *out = NULL;
  if (st == TS_SUCCESS)
    st = ts_csr_create(ctx, n, n, degree[n], dtype, &out);
  if (st != TS_SUCCESS) {
    free(degree);
    return st;
  }
  memcpy(out->row_ptr, degree, (size_t)(n + 1) * sizeof(int64_t));
  free(degree);
  for (int64_t start = 0, end; start < n && st == TS_SUCCESS; start = end) {
    end = tsi_block_end(start, n);
#pragma omp parallel for schedule(static)
    for (int64_t r = start; r < end; r++) {
      const int64_t x = r % nx, y = r / nx;
      int64_t k = out->row_ptr[r];
      /* Neighbours in increasing order: below, left, right, above. */
      const int64_t owner[4] = {r - nx, r - 1, r, r};
      const int side[4] = {1, 0, 0, 1};
      const int64_t other[4] = {r - nx, r - 1, r + 1, r + nx};
      const bool inside[4] = {y > 0, x > 0, x < nx - 1, y < ny - 1};
      for (int s = 0; s < 4; s++) {
        double w;
        if (!inside[s] || !grid_edge(seed, drop, owner[s], side[s], &w))
          continue;
        out->col_idx[k] = (int32_t)other[s];
        tsi_store_value(out->values, dtype, k, w);
        k++;
      }
    }
    st = tsi_progress(ctx, end, n);
  }
  if (st != TS_SUCCESS) {
    ts_csr_destroy(out);
    return st;
  }
  *csr = out;
  return TS_SUCCESS;
}
