/* Circuit-like unsymmetric matrices: a nearly symmetric pattern made of
 * (1) dense nets, like supply and ground, each wired to a fraction of the
 * nodes; (2) a grid part, nodes laid out on a 2-D grid and wired to random
 * nodes a few grid steps away, which fills like a mesh under any ordering;
 * (3) a hierarchical part, small fully connected subcircuits (cells) each
 * hanging from one node of an earlier cell or of the grid, a chordal "tree
 * of cliques" that a minimum-degree ordering eliminates with almost no fill.
 * `locality` is the share of nodes in the grid part. Values: A(i,j) in
 * [-1, -0.1) off the diagonal (independent for A(i,j) and A(j,i)),
 * A(i,i) = sum_j |A(i,j)| + [0.1, 1), so rows are strictly dominant. */
#include "gen_internal.h"

#include <math.h>
#include <stdlib.h>

enum {
  STREAM_CIRCUIT_CELL_SIZE = 41,
  STREAM_CIRCUIT_CELL_PARENT = 42,
  STREAM_CIRCUIT_MESH = 43,
  STREAM_CIRCUIT_DENSE = 44,
  STREAM_CIRCUIT_ONE_WAY = 45,
  STREAM_CIRCUIT_VALUES = 46
};

#define MAX_MESH_RADIUS 16
#define MAX_AVG_DEGREE 1000.0
#define MAX_FORWARD_OFFSETS (2 * MAX_MESH_RADIUS * MAX_MESH_RADIUS + 2 * MAX_MESH_RADIUS)

ts_circuit_params ts_circuit_defaults(int64_t n) {
  ts_circuit_params p;
  p.n = n;
  p.avg_degree = 4.0;
  p.locality = 0.0;
  p.dense_nets = n >= 100 ? 3 : 0;
  p.dense_fraction = 0.05;
  p.asymmetry = 0.05;
  p.mesh_radius = 3;
  return p;
}

/* Node ranges: [0, dense) dense nets, [dense, cells_first) grid,
 * [cells_first, n) cells. */
typedef struct circuit_model {
  uint64_t seed;
  int64_t n, dense, mesh, mesh_width, cells_first;
  int64_t cells;
  int32_t *cell_start; /* cells + 1 */
  int cell_size;       /* cells have cell_size or cell_size + 1 nodes */
  double larger_cell_probability, parent_link_probability;
  double mesh_forward_edges; /* edges each grid node owns (mean) */
  int forward_count;
  int forward_dx[MAX_FORWARD_OFFSETS], forward_dy[MAX_FORWARD_OFFSETS];
  uint64_t one_way_threshold; /* in units of 2^-32 */
  int64_t dense_size;
  int32_t *dense_members; /* dense * dense_size */
} circuit_model;

/* Where one unit's entries go: counted only (rows NULL), or written from
 * the unit's offset in the pair lists. */
typedef struct entry_sink {
  int32_t *rows, *cols;
  int64_t at;
} entry_sink;

static void put_entry(entry_sink *sink, int64_t row, int64_t col) {
  if (sink->rows) {
    sink->rows[sink->at] = (int32_t)row;
    sink->cols[sink->at] = (int32_t)col;
  }
  sink->at++;
}

/* Wire u and v: both entries, or, for a fraction of the pairs decided by a
 * hash of the pair (so a pair is treated the same wherever it comes from),
 * only one of them. */
static void put_edge(const circuit_model *m, entry_sink *sink, int64_t u, int64_t v) {
  if (u == v)
    return;
  int64_t lo = u < v ? u : v, hi = u < v ? v : u;
  uint64_t h = tsi_random_draw(tsi_random_key(m->seed, STREAM_CIRCUIT_ONE_WAY, (uint64_t)lo), (uint64_t)hi);
  bool one_way = (h & 0xffffffffULL) < m->one_way_threshold;
  if (!one_way || (h >> 63))
    put_entry(sink, lo, hi);
  if (!one_way || !(h >> 63))
    put_entry(sink, hi, lo);
}

static void put_cell(const circuit_model *m, entry_sink *sink, int64_t c) {
  int64_t first = m->cell_start[c], end = m->cell_start[c + 1];
  for (int64_t a = first; a < end; a++)
    for (int64_t b = a + 1; b < end; b++)
      put_edge(m, sink, a, b);
  /* Hang the cell from a uniformly chosen earlier node: a random recursive
   * tree of cells, of depth O(log n), as in a hierarchical netlist. */
  if (first > m->dense) {
    uint64_t key = tsi_random_key(m->seed, STREAM_CIRCUIT_CELL_PARENT, (uint64_t)c);
    if (m->parent_link_probability >= 1.0 || tsi_uniform01(tsi_random_draw(key, 0)) < m->parent_link_probability)
      put_edge(m, sink, first,
               m->dense + (int64_t)tsi_uniform_below(tsi_random_draw(key, 1), (uint64_t)(first - m->dense)));
  }
}

static void put_grid_node(const circuit_model *m, entry_sink *sink, int64_t p) {
  uint64_t key = tsi_random_key(m->seed, STREAM_CIRCUIT_MESH, (uint64_t)p);
  int64_t x = p % m->mesh_width, y = p / m->mesh_width;
  int whole = (int)m->mesh_forward_edges;
  int k = whole + (tsi_uniform01(tsi_random_draw(key, 0)) < m->mesh_forward_edges - whole);
  if (k > m->forward_count)
    k = m->forward_count;
  /* k distinct forward offsets by a partial Fisher-Yates shuffle. */
  int order[MAX_FORWARD_OFFSETS] = {0};
  for (int i = 0; i < m->forward_count; i++)
    order[i] = i;
  for (int i = 0; i < k; i++) {
    int j = i + (int)tsi_uniform_below(tsi_random_draw(key, (uint64_t)i + 1), (uint64_t)(m->forward_count - i));
    int t = order[i];
    order[i] = order[j];
    order[j] = t;
    int64_t tx = x + m->forward_dx[order[i]], ty = y + m->forward_dy[order[i]];
    int64_t q = ty * m->mesh_width + tx;
    if (tx < 0 || tx >= m->mesh_width || q >= m->mesh)
      continue; /* off the grid */
    put_edge(m, sink, m->dense + p, m->dense + q);
  }
}

static void put_dense_net(const circuit_model *m, entry_sink *sink, int64_t d) {
  const int32_t *members = m->dense_members + d * m->dense_size;
  for (int64_t k = 0; k < m->dense_size; k++)
    put_edge(m, sink, d, members[k]);
}

static void put_unit(const circuit_model *m, entry_sink *sink, int64_t u) {
  if (u < m->cells)
    put_cell(m, sink, u);
  else if (u < m->cells + m->mesh)
    put_grid_node(m, sink, u - m->cells);
  else
    put_dense_net(m, sink, u - m->cells - m->mesh);
}

/* Two passes over the units (cells, grid nodes, dense nets): count each
 * one's entries, then write them at the unit's offset. Every unit draws
 * from its own counters, so the lists do not depend on the threads. */
static ts_status make_pairs(ts_context *ctx, const char *op, const circuit_model *m, int64_t *unit_offset,
                            int32_t **rows_out, int32_t **cols_out, int64_t *count) {
  int64_t units = m->cells + m->mesh + m->dense, small_units = m->cells + m->mesh;
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t start = 0, end; start < units; start = end) {
      /* Cells and grid nodes have a few entries each; a dense net has
       * dense_size: in the second pass their offsets are known. */
      if (pass)
        end = tsi_block_end_by_work(unit_offset, start, units);
      else if (start < small_units)
        end = start + TSI_GEN_CHUNK < small_units ? start + TSI_GEN_CHUNK : small_units;
      else
        end = start + 1;
#pragma omp parallel for schedule(dynamic, 256)
      for (int64_t u = start; u < end; u++) {
        entry_sink sink = {pass ? *rows_out : NULL, pass ? *cols_out : NULL, pass ? unit_offset[u] : 0};
        put_unit(m, &sink, u);
        if (!pass)
          unit_offset[u + 1] = sink.at;
      }
      ts_status st = tsi_progress(ctx, pass * units + end, 2 * units);
      if (st != TS_SUCCESS)
        return st;
    }
    if (pass == 0) {
      /* The diagonal goes after the units' entries. */
      ts_status st = tsi_gen_prefix_sum(ctx, unit_offset, units);
      if (st != TS_SUCCESS)
        return st;
      *count = unit_offset[units] + m->n;
      *rows_out = tsi_malloc_array(*count, sizeof(int32_t));
      *cols_out = tsi_malloc_array(*count, sizeof(int32_t));
      if (!*rows_out || !*cols_out)
        return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld entries", op, (long long)*count);
    }
  }
  int64_t diagonal_first = unit_offset[units];
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m->n; i++) {
    (*rows_out)[diagonal_first + i] = (int32_t)i;
    (*cols_out)[diagonal_first + i] = (int32_t)i;
  }
  return TS_SUCCESS;
}

static ts_status check_params(ts_context *ctx, const char *op, const ts_circuit_params *p) {
  if (!p)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: params is NULL", op);
  if (p->n < 1)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: n must be at least 1 (got %lld)", op, (long long)p->n);
  if (p->n > TS_MAX_DIMENSION)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: n = %lld exceeds the largest dimension %d", op, (long long)p->n,
                     TS_MAX_DIMENSION);
  if (!(p->avg_degree >= 0.0 && p->avg_degree <= MAX_AVG_DEGREE))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: avg_degree = %g must lie in [0, %g]", op, p->avg_degree,
                     MAX_AVG_DEGREE);
  if (!(p->locality >= 0.0 && p->locality <= 1.0))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: locality = %g must lie in [0, 1]", op, p->locality);
  if (p->dense_nets < 0 || p->dense_nets >= p->n)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: dense_nets = %d must lie in [0, n) (n = %lld)", op,
                     p->dense_nets, (long long)p->n);
  if (!(p->dense_fraction >= 0.0 && p->dense_fraction <= 1.0))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: dense_fraction = %g must lie in [0, 1]", op,
                     p->dense_fraction);
  if (!(p->asymmetry >= 0.0 && p->asymmetry <= 1.0))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: asymmetry = %g must lie in [0, 1]", op, p->asymmetry);
  if (p->mesh_radius < 1 || p->mesh_radius > MAX_MESH_RADIUS)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: mesh_radius = %d must lie in [1, %d]", op, p->mesh_radius,
                     MAX_MESH_RADIUS);
  return TS_SUCCESS;
}

/* Cells of s nodes (a clique plus the link to the parent) give their nodes
 * a mean degree f(s) = (s (s - 1) + 2) / s; mixing sizes s and s + 1 in
 * proportion 1 - p : p hits any mean degree d >= 2 exactly:
 * p = (d s - s^2 + s - 2) / (2 s - d). Below 2, single-node cells keep
 * their link with probability d / 2 (a forest). */
static void cell_size_rule(double d, circuit_model *m) {
  m->parent_link_probability = 1.0;
  m->larger_cell_probability = 0.0;
  if (d < 2.0) {
    m->cell_size = 1;
    m->parent_link_probability = d / 2.0;
    return;
  }
  int s = 2;
  while ((double)((s + 1) * s + 2) / (s + 1) <= d)
    s++;
  double p = (d * s - (double)s * s + s - 2.0) / (2.0 * s - d);
  m->cell_size = s;
  m->larger_cell_probability = p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p);
}

static ts_status build_model(ts_context *ctx, const char *op, const ts_circuit_params *p, uint64_t seed,
                             circuit_model *m) {
  m->seed = seed;
  m->n = p->n;
  m->dense = p->dense_nets;
  int64_t rest = m->n - m->dense;
  m->mesh = (int64_t)llround(p->locality * (double)rest);
  m->mesh_width = (int64_t)ceil(sqrt((double)m->mesh));
  if (m->mesh_width < 1)
    m->mesh_width = 1;
  m->cells_first = m->dense + m->mesh;
  m->mesh_forward_edges = p->avg_degree / 2.0;
  m->forward_count = 0;
  for (int dy = 0; dy <= p->mesh_radius; dy++)
    for (int dx = -p->mesh_radius; dx <= p->mesh_radius; dx++)
      if (dy > 0 || dx > 0) {
        m->forward_dx[m->forward_count] = dx;
        m->forward_dy[m->forward_count] = dy;
        m->forward_count++;
      }
  /* One-way pairs give one entry instead of two: a share q of one-way
   * pairs leaves q / (2 - q) of the entries without a mirror. */
  double one_way = 2.0 * p->asymmetry / (1.0 + p->asymmetry);
  m->one_way_threshold = (uint64_t)(one_way * 4294967296.0);
  cell_size_rule(p->avg_degree, m);

  int64_t cells = 0;
  for (int pass = 0; pass < 2; pass++) {
    int64_t start = m->cells_first;
    cells = 0;
    while (start < m->n) {
      uint64_t h = tsi_random_draw(tsi_random_key(seed, STREAM_CIRCUIT_CELL_SIZE, 0), (uint64_t)cells);
      int64_t size = m->cell_size + (tsi_uniform01(h) < m->larger_cell_probability);
      if (pass)
        m->cell_start[cells] = (int32_t)start;
      start += size;
      cells++;
      if (cells % TSI_CANCEL_BLOCK == 0) {
        ts_status st = tsi_check_cancel(ctx);
        if (st != TS_SUCCESS)
          return st;
      }
    }
    if (pass == 0) {
      m->cell_start = tsi_malloc_array(cells + 1, sizeof(int32_t));
      if (!m->cell_start)
        return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %lld cells", op, (long long)cells);
    }
  }
  m->cells = cells;
  m->cell_start[cells] = (int32_t)m->n;

  m->dense_size = (int64_t)llround(p->dense_fraction * (double)rest);
  m->dense_members = tsi_malloc_array(m->dense * m->dense_size > 0 ? m->dense * m->dense_size : 1, sizeof(int32_t));
  if (!m->dense_members)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %d dense nets of %lld nodes", op, p->dense_nets,
                     (long long)m->dense_size);
  int failed = 0;
  /* Nets in groups of about TSI_CANCEL_BLOCK members, a cancellation check after each. */
  int64_t nets_per_group = m->dense_size > 0 ? TSI_CANCEL_BLOCK / m->dense_size : m->dense;
  if (nets_per_group < 1)
    nets_per_group = 1;
  for (int64_t group = 0; group < m->dense && !failed; group += nets_per_group) {
    int64_t group_end = m->dense - group > nets_per_group ? group + nets_per_group : m->dense;
#pragma omp parallel reduction(| : failed)
    {
      tsi_sample_workspace ws;
      bool ready = tsi_sample_workspace_init(&ws, rest, m->dense_size);
      if (!ready)
        failed = 1;
#pragma omp for schedule(dynamic, 1)
      for (int64_t d = group; d < group_end; d++) {
        if (!ready)
          continue;
        int32_t *members = m->dense_members + d * m->dense_size;
        tsi_sample_sorted(tsi_random_key(seed, STREAM_CIRCUIT_DENSE, (uint64_t)d), rest, m->dense_size, members, &ws);
        for (int64_t k = 0; k < m->dense_size; k++)
          members[k] += (int32_t)m->dense;
      }
      if (ready)
        tsi_sample_workspace_free(&ws);
    }
    ts_status st = tsi_check_cancel(ctx);
    if (st != TS_SUCCESS)
      return st;
  }
  if (failed)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate sampling workspace", op);
  return TS_SUCCESS;
}

/* Values of rows [start, end): negative off-diagonal values, independent for
 * A(i,j) and A(j,i), and a diagonal that dominates its row by a random margin. */
static ts_status fill_values(ts_context *ctx, ts_csr *out, int64_t start, int64_t end, uint64_t seed, ts_dtype dtype) {
  int64_t n = out->rows;
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = start; i < end; i++) {
    uint64_t key = tsi_random_key(seed, STREAM_CIRCUIT_VALUES, (uint64_t)i);
    double off_sum = 0.0;
    int64_t diagonal_at = -1;
    for (int64_t k = out->row_ptr[i]; k < out->row_ptr[i + 1]; k++) {
      int64_t j = out->col_idx[k];
      if (j == i) {
        diagonal_at = k;
        continue;
      }
      double v = -(0.1 + 0.9 * tsi_uniform01(tsi_random_draw(key, (uint64_t)j)));
      if (dtype == TS_FLOAT32)
        v = (float)v; /* dominance of the stored values */
      off_sum += -v;
      tsi_store_value(out->values, dtype, k, v);
    }
    double margin = 0.1 + 0.9 * tsi_uniform01(tsi_random_draw(key, (uint64_t)n));
    tsi_store_value(out->values, dtype, diagonal_at, off_sum + margin);
  }
  return tsi_check_cancel(ctx);
}

ts_status ts_gen_circuit(ts_context *ctx, const ts_circuit_params *params, uint64_t seed, ts_dtype dtype,
                         ts_csr **csr) {
  const char *op = "ts_gen_circuit";
  ts_status st = tsi_gen_check_output(ctx, op, dtype, csr);
  if (st != TS_SUCCESS)
    return st;
  st = check_params(ctx, op, params);
  if (st != TS_SUCCESS)
    return st;

  circuit_model m = {0};
  ts_csr *out = NULL;
  int64_t *unit_offset = NULL, count = 0;
  int32_t *rows_of = NULL, *cols_of = NULL;
  int64_t n = params->n;
  st = tsi_progress(ctx, 0, 1);
  if (st == TS_SUCCESS)
    st = build_model(ctx, op, params, seed, &m);
  if (st != TS_SUCCESS)
    goto cleanup;
  unit_offset = tsi_calloc_array(m.cells + m.mesh + m.dense + 1, sizeof(int64_t));
  if (!unit_offset) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the unit offsets", op);
    goto cleanup;
  }
  st = make_pairs(ctx, op, &m, unit_offset, &rows_of, &cols_of, &count);
  if (st != TS_SUCCESS)
    goto cleanup;
  st = tsi_gen_csr_from_pairs(ctx, op, n, n, rows_of, cols_of, count, false, dtype, &out);
  if (st != TS_SUCCESS)
    goto cleanup;
  free(rows_of);
  free(cols_of);
  rows_of = cols_of = NULL;

  for (int64_t start = 0, end; start < n && st == TS_SUCCESS; start = end) {
    end = tsi_block_end_by_work(out->row_ptr, start, n);
    st = fill_values(ctx, out, start, end, seed, dtype);
  }
  if (st != TS_SUCCESS)
    goto cleanup;
  *csr = out;
  out = NULL;
cleanup:
  free(m.cell_start);
  free(m.dense_members);
  free(unit_offset);
  free(rows_of);
  free(cols_of);
  ts_csr_destroy(out);
  return st;
}
