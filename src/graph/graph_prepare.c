/* A CSR graph checked and made ready for traversal on the host: offsets
 * monotone from 0 to nnz, heads in range (rows may be unsorted and repeat a
 * head); symmetric storage expanded to both directions; each adjacency list
 * sorted by head (so that the first in-neighbour a bottom-up step finds in
 * the frontier is the smallest-numbered one); an undirected graph's mirrors
 * checked; weights checked (finite, >= 0); in-edges of a directed graph
 * built by a counting sort (tails increasing). */
#include "graph_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ts_status check_shape(ts_context *ctx, const char *op, const ts_csr *a, bool want_weights) {
  if (!a)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: graph is NULL", op);
  if (a->rows < 0 || a->cols < 0 || a->nnz < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: negative size (%lld x %lld, %lld entries)", op,
                     (long long)a->rows, (long long)a->cols, (long long)a->nnz);
  if (a->rows > INT32_MAX || a->cols > INT32_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW,
                     "%s: %lld x %lld: graphs of more than %d vertices need 64-bit vertex numbers", op,
                     (long long)a->rows, (long long)a->cols, INT32_MAX);
  if (a->rows != a->cols)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: a graph's matrix is square; this one is %lld x %lld", op,
                     (long long)a->rows, (long long)a->cols);
  if (TS_DTYPE_IS_COMPLEX(a->dtype))
    return tsi_require_real(ctx, op, "the graph's matrix", a->dtype);
  if (a->dtype != TS_FLOAT32 && a->dtype != TS_FLOAT64)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: unknown value type %d", op, (int)a->dtype);
  if (a->symmetry != TS_GENERAL && a->symmetry != TS_SYMMETRIC && a->symmetry != TS_SKEW_SYMMETRIC &&
      a->symmetry != TS_HERMITIAN)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: unknown symmetry %d", op, (int)a->symmetry);
  if (!a->row_ptr)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: row offsets are NULL", op);
  if (a->nnz > 0 && !a->col_idx)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: column indices are NULL with %lld entries", op,
                     (long long)a->nnz);
  if (want_weights && a->nnz > 0 && !a->values)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: weights (values) are NULL with %lld edges", op,
                     (long long)a->nnz);
  /* Offsets first: once they run from 0 to nnz without decreasing, every
   * entry index read below lies inside the arrays. */
  if (a->row_ptr[0] != 0)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: vertex 0's edges start at offset %lld (must be 0)", op,
                     (long long)a->row_ptr[0]);
  for (int64_t i = 0; i < a->rows; i++)
    if (a->row_ptr[i + 1] < a->row_ptr[i])
      return tsi_error(ctx, TS_ERROR_INVALID_MATRIX,
                       "%s: vertex %lld's edges end at offset %lld before they start at %lld", op, (long long)i,
                       (long long)a->row_ptr[i + 1], (long long)a->row_ptr[i]);
  if (a->row_ptr[a->rows] != a->nnz)
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: offsets end at %lld but the graph has %lld entries", op,
                     (long long)a->row_ptr[a->rows], (long long)a->nnz);
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      if (a->col_idx[k] < 0 || a->col_idx[k] >= a->cols)
        return tsi_error(ctx, TS_ERROR_INVALID_MATRIX, "%s: vertex %lld, entry %lld: head %d is outside [0, %lld)", op,
                         (long long)i, (long long)k, (int)a->col_idx[k], (long long)a->cols);
  return TS_SUCCESS;
}

static double weight_at(const void *values, ts_dtype dtype, int64_t k) {
  return dtype == TS_FLOAT32 ? (double)((const float *)values)[k] : ((const double *)values)[k];
}

/* Edges of the stored entries: each entry once, and for symmetric storage
 * each off-diagonal entry also reversed (negated weight when skew). */
static ts_status expand(ts_context *ctx, const char *op, const ts_csr *a, bool want_weights, tsi_graph_host *g) {
  const int64_t n = a->rows;
  const bool mirror = a->symmetry != TS_GENERAL;
  const size_t wsize = ts_dtype_size(a->dtype);
  int64_t m = a->nnz;
  if (mirror)
    for (int64_t i = 0; i < n; i++)
      for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
        m += a->col_idx[k] != i;
  g->n = n;
  g->m = m;
  g->dtype = a->dtype;
  g->offsets = tsi_calloc_array(n + 1, sizeof(int64_t));
  g->heads = tsi_malloc_array(m > 0 ? m : 1, sizeof(int32_t));
  if (want_weights)
    g->weights = tsi_malloc_array(m > 0 ? m : 1, wsize);
  if (!g->offsets || !g->heads || (want_weights && !g->weights))
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for a graph of %lld vertices and %lld edges", op,
                     (long long)n, (long long)m);
  if (!mirror) {
    memcpy(g->offsets, a->row_ptr, (size_t)(n + 1) * sizeof(int64_t));
    if (m > 0)
      memcpy(g->heads, a->col_idx, (size_t)m * sizeof(int32_t));
    if (want_weights && m > 0)
      memcpy(g->weights, a->values, (size_t)m * wsize);
    return TS_SUCCESS;
  }
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      int32_t j = a->col_idx[k];
      g->offsets[i + 1]++;
      if (j != i)
        g->offsets[j + 1]++;
    }
  for (int64_t i = 0; i < n; i++)
    g->offsets[i + 1] += g->offsets[i];
  int64_t *fill = tsi_malloc_array(n > 0 ? n : 1, sizeof(int64_t));
  if (!fill)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory to expand %lld vertices", op, (long long)n);
  memcpy(fill, g->offsets, (size_t)n * sizeof(int64_t));
  const double sign = a->symmetry == TS_SKEW_SYMMETRIC ? -1.0 : 1.0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      int32_t j = a->col_idx[k];
      int64_t here = fill[i]++;
      g->heads[here] = j;
      if (want_weights)
        memcpy((char *)g->weights + here * wsize, (const char *)a->values + k * wsize, wsize);
      if (j != i) {
        int64_t there = fill[j]++;
        g->heads[there] = (int32_t)i;
        if (want_weights) {
          double w = sign * weight_at(a->values, a->dtype, k);
          if (a->dtype == TS_FLOAT32)
            ((float *)g->weights)[there] = (float)w;
          else
            ((double *)g->weights)[there] = w;
        }
      }
    }
  free(fill);
  return TS_SUCCESS;
}

/* Insertion sort of one short adjacency list by head, carrying the weights
 * (stable: parallel edges keep their order). */
static void sort_short(int32_t *heads, char *weights, size_t wsize, int64_t count) {
  for (int64_t i = 1; i < count; i++) {
    int32_t h = heads[i];
    char w[8];
    if (weights)
      memcpy(w, weights + i * wsize, wsize);
    int64_t j = i;
    for (; j > 0 && heads[j - 1] > h; j--) {
      heads[j] = heads[j - 1];
      if (weights)
        memcpy(weights + j * wsize, weights + (j - 1) * wsize, wsize);
    }
    heads[j] = h;
    if (weights)
      memcpy(weights + j * wsize, w, wsize);
  }
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sort a long list: (head, position) keys sorted, then heads and weights
 * gathered through a scratch copy. False when scratch cannot be had. */
static bool sort_long(int32_t *heads, char *weights, size_t wsize, int64_t count) {
  uint64_t *keys = tsi_malloc_array(count, sizeof(uint64_t));
  char *copy = tsi_malloc_array(count, weights ? wsize : sizeof(int32_t));
  bool ok = keys && copy;
  if (ok) {
    for (int64_t i = 0; i < count; i++)
      keys[i] = (uint64_t)(uint32_t)heads[i] << 32 | (uint64_t)i;
    qsort(keys, (size_t)count, sizeof(uint64_t), compare_u64);
    if (weights) {
      memcpy(copy, weights, (size_t)count * wsize);
      for (int64_t i = 0; i < count; i++)
        memcpy(weights + i * wsize, copy + (int64_t)(keys[i] & 0xffffffffu) * wsize, wsize);
    }
    for (int64_t i = 0; i < count; i++)
      heads[i] = (int32_t)(keys[i] >> 32);
  }
  free(keys);
  free(copy);
  return ok;
}

static ts_status sort_lists(ts_context *ctx, const char *op, tsi_graph_host *g) {
  const size_t wsize = ts_dtype_size(g->dtype);
  int failed = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(| : failed) if (g->m > TSI_GRAPH_PARALLEL_MIN)
  for (int64_t u = 0; u < g->n; u++) {
    const int64_t begin = g->offsets[u], count = g->offsets[u + 1] - begin;
    bool sorted = true;
    for (int64_t k = 1; k < count && sorted; k++)
      sorted = g->heads[begin + k - 1] <= g->heads[begin + k];
    if (sorted)
      continue;
    char *weights = g->weights ? (char *)g->weights + begin * wsize : NULL;
    if (count <= 32)
      sort_short(g->heads + begin, weights, wsize, count);
    else if (!sort_long(g->heads + begin, weights, wsize, count))
      failed = 1;
  }
  if (failed)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory to sort the adjacency lists", op);
  return TS_SUCCESS;
}

/* Entries of v in the sorted list of u. */
static int64_t count_in_list(const tsi_graph_host *g, int64_t u, int32_t v) {
  int64_t lo = g->offsets[u], hi = g->offsets[u + 1];
  while (lo < hi) { /* first entry >= v */
    int64_t mid = lo + (hi - lo) / 2;
    if (g->heads[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  int64_t end = lo;
  while (end < g->offsets[u + 1] && g->heads[end] == v)
    end++;
  return end - lo;
}

/* The first head of u's list whose edge count differs from its mirror's,
 * or -1. */
static int64_t unmirrored_head(const tsi_graph_host *g, int64_t u, int64_t *here, int64_t *there) {
  for (int64_t k = g->offsets[u]; k < g->offsets[u + 1];) {
    int32_t v = g->heads[k];
    int64_t run = 1;
    while (k + run < g->offsets[u + 1] && g->heads[k + run] == v)
      run++;
    if (v != u) {
      int64_t back = count_in_list(g, v, (int32_t)u);
      if (back != run) {
        *here = run;
        *there = back;
        return v;
      }
    }
    k += run;
  }
  return -1;
}

static ts_status check_mirrors(ts_context *ctx, const char *op, const tsi_graph_host *g) {
  int64_t bad = INT64_MAX;
#pragma omp parallel for schedule(dynamic, 256) reduction(min : bad) if (g->m > TSI_GRAPH_PARALLEL_MIN)
  for (int64_t u = 0; u < g->n; u++) {
    int64_t here, there;
    if (u < bad && unmirrored_head(g, u, &here, &there) >= 0)
      bad = u;
  }
  if (bad == INT64_MAX)
    return TS_SUCCESS;
  int64_t here = 0, there = 0;
  int64_t v = unmirrored_head(g, bad, &here, &there);
  return tsi_error(ctx, TS_ERROR_INVALID_MATRIX,
                   "%s: undirected graph: edge %lld -> %lld is stored %lld time%s but %lld -> %lld %lld time%s (an "
                   "undirected graph holds every edge in both directions; or declare it directed)",
                   op, (long long)bad, (long long)v, (long long)here, here == 1 ? "" : "s", (long long)v,
                   (long long)bad, (long long)there, there == 1 ? "" : "s");
}

/* The vertex whose list holds edge k. */
static int64_t tail_of(const tsi_graph_host *g, int64_t k) {
  int64_t lo = 0, hi = g->n; /* last u with offsets[u] <= k */
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (g->offsets[mid] <= k)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static ts_status check_weights(ts_context *ctx, const char *op, tsi_graph_host *g) {
  int64_t bad = INT64_MAX;
  double sum = 0.0, top = 0.0;
#pragma omp parallel for schedule(static) reduction(min : bad) reduction(+ : sum) reduction(max : top)                 \
    if (g->m > TSI_GRAPH_PARALLEL_MIN)
  for (int64_t k = 0; k < g->m; k++) {
    double w = weight_at(g->weights, g->dtype, k);
    if (!(isfinite(w) && w >= 0.0)) {
      if (k < bad)
        bad = k;
    } else {
      sum += w;
      top = w > top ? w : top;
    }
  }
  if (bad != INT64_MAX) {
    int64_t u = tail_of(g, bad);
    double w = weight_at(g->weights, g->dtype, bad);
    return tsi_error(ctx, TS_ERROR_INVALID_MATRIX,
                     "%s: edge %lld -> %d (vertex %lld's entry %lld) weighs %g: shortest paths need finite weights "
                     ">= 0",
                     op, (long long)u, (int)g->heads[bad], (long long)u, (long long)(bad - g->offsets[u]), w);
  }
  g->mean_weight = g->m > 0 ? sum / (double)g->m : 0.0;
  g->max_weight = top;
  return TS_SUCCESS;
}

/* In-edges by a counting sort over the heads: the tails of each vertex's
 * in-edges come out increasing because the lists are scanned in order. */
static ts_status build_in_edges(ts_context *ctx, const char *op, tsi_graph_host *g) {
  g->in_offsets = tsi_calloc_array(g->n + 1, sizeof(int64_t));
  g->in_tails = tsi_malloc_array(g->m > 0 ? g->m : 1, sizeof(int32_t));
  int64_t *fill = tsi_malloc_array(g->n > 0 ? g->n : 1, sizeof(int64_t));
  if (!g->in_offsets || !g->in_tails || !fill) {
    free(fill);
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for the in-edges of %lld edges", op,
                     (long long)g->m);
  }
  for (int64_t k = 0; k < g->m; k++)
    g->in_offsets[g->heads[k] + 1]++;
  for (int64_t v = 0; v < g->n; v++)
    g->in_offsets[v + 1] += g->in_offsets[v];
  memcpy(fill, g->in_offsets, (size_t)g->n * sizeof(int64_t));
  for (int64_t u = 0; u < g->n; u++)
    for (int64_t k = g->offsets[u]; k < g->offsets[u + 1]; k++)
      g->in_tails[fill[g->heads[k]]++] = (int32_t)u;
  free(fill);
  return TS_SUCCESS;
}

static int64_t max_degree(const int64_t *offsets, int64_t n) {
  int64_t most = 0;
#pragma omp parallel for schedule(static) reduction(max : most) if (n > TSI_GRAPH_PARALLEL_MIN)
  for (int64_t u = 0; u < n; u++)
    if (offsets[u + 1] - offsets[u] > most)
      most = offsets[u + 1] - offsets[u];
  return most;
}

ts_status tsi_graph_prepare(ts_context *ctx, const char *op, const ts_csr *a, ts_graph_direction direction,
                            bool want_weights, bool want_in_edges, tsi_graph_host *g) {
  memset(g, 0, sizeof *g);
  ts_status st = check_shape(ctx, op, a, want_weights);
  if (st != TS_SUCCESS)
    return st;
  g->undirected = a->symmetry != TS_GENERAL || direction == TS_GRAPH_UNDIRECTED;
  st = expand(ctx, op, a, want_weights, g);
  if (st == TS_SUCCESS && want_weights)
    st = check_weights(ctx, op, g);
  if (st == TS_SUCCESS)
    st = sort_lists(ctx, op, g);
  if (st == TS_SUCCESS && a->symmetry == TS_GENERAL && direction == TS_GRAPH_UNDIRECTED)
    st = check_mirrors(ctx, op, g);
  if (st == TS_SUCCESS && want_in_edges && !g->undirected)
    st = build_in_edges(ctx, op, g);
  if (st != TS_SUCCESS) {
    tsi_graph_host_release(g);
    return st;
  }
  g->max_out_degree = max_degree(g->offsets, g->n);
  g->max_in_degree = g->undirected ? g->max_out_degree : g->in_offsets ? max_degree(g->in_offsets, g->n) : 0;
  return TS_SUCCESS;
}

void tsi_graph_host_release(tsi_graph_host *g) {
  if (!g)
    return;
  free(g->offsets);
  free(g->heads);
  free(g->weights);
  free(g->in_offsets);
  free(g->in_tails);
  memset(g, 0, sizeof *g);
}
