/* R-MAT / Kronecker graph as a square matrix (Chakrabarti, Zhan and
 * Faloutsos, "R-MAT: A Recursive Model for Graph Mining", SDM 2004): each of
 * edge_factor * 2^scale edges picks one quadrant of the adjacency matrix per
 * level with probabilities a, b, c, d = 1 - a - b - c. Repeated edges are
 * merged, self-loops kept, values uniform in (0, 1] (the same for both
 * directions of an undirected edge). */
#include "gen_internal.h"

#include <math.h>
#include <stdlib.h>

enum { STREAM_RMAT_EDGES = 31, STREAM_RMAT_SCRAMBLE = 32, STREAM_RMAT_VALUES = 33 };

ts_rmat_params ts_rmat_graph500(int scale, int edge_factor) {
  ts_rmat_params p;
  p.scale = scale;
  p.edge_factor = edge_factor;
  p.a = 0.57;
  p.b = 0.19;
  p.c = 0.19;
  p.symmetric = 1;
  p.scramble = 1;
  return p;
}

static ts_status check_params(ts_context *ctx, const char *op, const ts_rmat_params *p) {
  if (!p)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: params is NULL", op);
  if (p->scale < 0 || p->scale > 30)
    return tsi_error(ctx, p->scale > 30 ? TS_ERROR_OVERFLOW : TS_ERROR_INVALID_ARGUMENT,
                     "%s: scale = %d must lie in [0, 30] (2^scale vertices, at most %d)", op, p->scale,
                     TS_MAX_DIMENSION);
  if (p->edge_factor < 1)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: edge_factor = %d must be at least 1", op, p->edge_factor);
  if (!isfinite(p->a) || !isfinite(p->b) || !isfinite(p->c) || p->a < 0 || p->b < 0 || p->c < 0 ||
      p->a + p->b + p->c > 1.0 + 1e-12)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: probabilities a = %g, b = %g, c = %g must be >= 0 with a + b + c <= 1", op, p->a, p->b, p->c);
  return TS_SUCCESS;
}

/* Thresholds in units of 2^-32 for one 32-bit uniform draw per level. */
typedef struct quadrant_thresholds {
  uint64_t a, ab, abc;
} quadrant_thresholds;

static void rmat_edge(const quadrant_thresholds *t, int scale, uint64_t key, int64_t *u, int64_t *v) {
  int64_t row = 0, col = 0;
  uint64_t bits = 0;
  for (int level = 0; level < scale; level++) {
    if ((level & 1) == 0)
      bits = tsi_random_draw(key, (uint64_t)(level / 2));
    uint64_t r = (level & 1) ? (bits >> 32) : (bits & 0xffffffffULL);
    /* Branch-free: the quadrant is random, so branches mispredict. right is
     * set in [a, a+b) and [a+b+c, 1). */
    int above_a = r >= t->a, down = r >= t->ab, above_abc = r >= t->abc;
    int right = above_a ^ down ^ above_abc;
    row = 2 * row + down;
    col = 2 * col + right;
  }
  *u = row;
  *v = col;
}

ts_status ts_gen_rmat(ts_context *ctx, const ts_rmat_params *params, uint64_t seed, ts_dtype dtype, ts_csr **csr) {
  const char *op = "ts_gen_rmat";
  ts_status st = tsi_gen_check_output(ctx, op, dtype, csr);
  if (st != TS_SUCCESS)
    return st;
  st = check_params(ctx, op, params);
  if (st != TS_SUCCESS)
    return st;
  const int scale = params->scale;
  const bool symmetric = params->symmetric != 0;
  const int64_t n = (int64_t)1 << scale, edges = (int64_t)params->edge_factor << scale;
  const double two32 = 4294967296.0;
  quadrant_thresholds t = {(uint64_t)(params->a * two32), (uint64_t)((params->a + params->b) * two32),
                           (uint64_t)((params->a + params->b + params->c) * two32)};
  tsi_permutation scramble;
  tsi_permutation_init(&scramble, (uint64_t)n, seed, STREAM_RMAT_SCRAMBLE);
  st = tsi_progress(ctx, 0, edges);
  if (st != TS_SUCCESS)
    return st;

  ts_csr *out = NULL;
  int32_t *src = tsi_malloc_array(edges, sizeof(int32_t));
  int32_t *dst = tsi_malloc_array(edges, sizeof(int32_t));
  if (!src || !dst) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld edges", op, (long long)edges);
    goto cleanup;
  }
  /* Every edge drawn from its own counter. */
  for (int64_t start = 0; start < edges; start += TSI_GEN_CHUNK) {
    int64_t end = start + TSI_GEN_CHUNK < edges ? start + TSI_GEN_CHUNK : edges;
#pragma omp parallel for schedule(static)
    for (int64_t e = start; e < end; e++) {
      int64_t u, v;
      rmat_edge(&t, scale, tsi_random_key(seed, STREAM_RMAT_EDGES, (uint64_t)e), &u, &v);
      if (params->scramble) {
        u = (int64_t)tsi_permutation_apply(&scramble, (uint64_t)u);
        v = (int64_t)tsi_permutation_apply(&scramble, (uint64_t)v);
      }
      src[e] = (int32_t)u;
      dst[e] = (int32_t)v;
    }
    st = tsi_progress(ctx, end, edges);
    if (st != TS_SUCCESS)
      goto cleanup;
  }
  st = tsi_gen_csr_from_pairs(ctx, op, n, n, src, dst, edges, symmetric, dtype, &out);
  if (st != TS_SUCCESS)
    goto cleanup;
  free(src);
  free(dst);
  src = dst = NULL;
  for (int64_t start = 0, end; start < n && st == TS_SUCCESS; start = end) {
    end = tsi_block_end_by_work(out->row_ptr, start, n);
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t i = start; i < end; i++) {
      for (int64_t k = out->row_ptr[i]; k < out->row_ptr[i + 1]; k++) {
        int64_t j = out->col_idx[k];
        int64_t first = (symmetric && j < i) ? j : i, second = (symmetric && j < i) ? i : j;
        uint64_t key = tsi_random_key(seed, STREAM_RMAT_VALUES, (uint64_t)first);
        tsi_store_value(out->values, dtype, k, tsi_uniform_open0(tsi_random_draw(key, (uint64_t)second)));
      }
    }
    st = tsi_check_cancel(ctx);
  }
  if (st != TS_SUCCESS)
    goto cleanup;
  *csr = out;
  out = NULL;
cleanup:
  free(src);
  free(dst);
  ts_csr_destroy(out);
  return st;
}
