/* The graph commands' shared parts (cli_graph.h). */
#include "cli_graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_graph_schedule_choices[] = {"auto", "thread", "warp", "block", "group", NULL};
const ts_schedule cli_graph_schedules[] = {TS_SCHEDULE_AUTO, TS_SCHEDULE_THREAD_MAPPED, TS_SCHEDULE_WARP_MAPPED,
                                           TS_SCHEDULE_BLOCK_MAPPED, TS_SCHEDULE_GROUP_MAPPED};

ts_status cli_graph_read(ts_context *ctx, cli_progress *progress, const char *path, ts_dtype dtype, bool undirected,
                         cli_graph *graph) {
  memset(graph, 0, sizeof *graph);
  ts_status status = cli_matrix_read(ctx, progress, path, dtype, &graph->matrix);
  graph->direction =
      undirected || graph->matrix.header.symmetry != TS_GENERAL ? TS_GRAPH_UNDIRECTED : TS_GRAPH_DIRECTED;
  return status;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double cli_graph_median(double *samples, int count) {
  if (count <= 0)
    return 0.0;
  qsort(samples, (size_t)count, sizeof(double), compare_double);
  return count % 2 ? samples[count / 2] : 0.5 * (samples[count / 2 - 1] + samples[count / 2]);
}

static bool has_edge(const ts_csr *g, int64_t u, int64_t v) {
  for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++)
    if (g->col_idx[k] == v)
      return true;
  return false;
}

int64_t cli_bfs_tree_violation(const ts_csr *g, int64_t source, const int32_t *levels, const int32_t *parents) {
  for (int64_t v = 0; v < g->rows; v++) {
    bool ok;
    if (v == source)
      ok = levels[v] == 0 && parents[v] == source;
    else if (levels[v] < 0)
      ok = levels[v] == -1 && parents[v] == -1;
    else
      ok = parents[v] >= 0 && parents[v] < g->rows && levels[parents[v]] == levels[v] - 1 && has_edge(g, parents[v], v);
    if (!ok)
      return v;
  }
  return -1;
}

static double distance_of(const void *dist, ts_dtype dtype, int64_t v) {
  return dtype == TS_FLOAT32 ? (double)((const float *)dist)[v] : ((const double *)dist)[v];
}

/* dist(u) + w == dist(v) in the graph's type, for some copy of u -> v. */
static bool tight(const ts_csr *g, const void *dist, int64_t u, int64_t v) {
  for (int64_t k = g->row_ptr[u]; k < g->row_ptr[u + 1]; k++) {
    if (g->col_idx[k] != v)
      continue;
    if (g->dtype == TS_FLOAT32) {
      const float sum = ((const float *)dist)[u] + ((const float *)g->values)[k];
      if (sum == ((const float *)dist)[v])
        return true;
    } else {
      const double sum = ((const double *)dist)[u] + ((const double *)g->values)[k];
      if (sum == ((const double *)dist)[v])
        return true;
    }
  }
  return false;
}

int64_t cli_sssp_tree_violation(const ts_csr *g, int64_t source, const void *dist, const int32_t *pred) {
  for (int64_t v = 0; v < g->rows; v++) {
    const double d = distance_of(dist, g->dtype, v);
    bool ok;
    if (v == source) {
      ok = pred[v] == source && d == 0.0;
    } else if (!isfinite(d)) {
      ok = pred[v] == -1;
    } else {
      ok = pred[v] >= 0 && pred[v] < g->rows && pred[v] != v && tight(g, dist, pred[v], v);
      int64_t at = v, steps = 0;
      while (ok && at != source && steps++ <= g->rows) {
        at = pred[at];
        ok = at >= 0 && at < g->rows;
      }
      ok = ok && at == source;
    }
    if (!ok)
      return v;
  }
  return -1;
}

typedef struct table {
  const char *header;
  int64_t n;
  const int32_t *a, *b;
  const void *reals;
  ts_dtype dtype;
} table;

static ts_status write_table(ts_context *ctx, const char *path, const void *object) {
  (void)ctx;
  const table *t = object;
  FILE *f = fopen(path, "w");
  if (!f)
    return TS_ERROR_IO;
  fprintf(f, "%s\n", t->header);
  for (int64_t v = 0; v < t->n; v++) {
    if (t->reals)
      fprintf(f, "%lld %d %.17g\n", (long long)v, t->a[v], distance_of(t->reals, t->dtype, v));
    else
      fprintf(f, "%lld %d %d\n", (long long)v, t->a[v], t->b[v]);
  }
  return fclose(f) == 0 ? TS_SUCCESS : TS_ERROR_IO;
}

ts_status cli_graph_write(ts_context *ctx, const char *path, const char *header, int64_t n, const int32_t *a,
                          const int32_t *b, const void *reals, ts_dtype dtype) {
  const table t = {header, n, a, b, reals, dtype};
  ts_status status = cli_write_through_temporary(ctx, path, write_table, &t);
  if (status == TS_ERROR_IO)
    cli_set_error("cannot write %s", cli_path_label(path, true));
  return status;
}

void cli_graph_info_print(FILE *out, const ts_graph_plan_info *info) {
  cli_line(out, "vertices", "%lld", (long long)info->vertices);
  cli_line(out, "edges", "%lld (%s%s)", (long long)info->edges,
           info->direction == TS_GRAPH_UNDIRECTED ? "undirected: each edge both ways" : "directed",
           info->max_out_degree > 0 ? "" : ", none");
  cli_line(out, "plan", "%s", info->explain);
  cli_line(out, "memory", "graph %.1f MB, in-edges %.1f MB, state %.1f MB", 1e-6 * (double)info->graph_bytes,
           1e-6 * (double)info->in_edge_bytes, 1e-6 * (double)info->workspace_bytes);
}

void cli_graph_info_json(cli_json *json, const ts_graph_plan_info *info) {
  cli_json_int(json, "vertices", info->vertices);
  cli_json_int(json, "edges", info->edges);
  cli_json_text(json, "direction", info->direction == TS_GRAPH_UNDIRECTED ? "undirected" : "directed");
  cli_json_text(json, "schedule", ts_schedule_name(info->schedule));
  cli_json_int(json, "group_size", info->group_size);
  cli_json_text(json, "explain", info->explain);
  cli_json_int(json, "max_out_degree", info->max_out_degree);
  cli_json_int(json, "graph_bytes", info->graph_bytes);
  cli_json_int(json, "in_edge_bytes", info->in_edge_bytes);
  cli_json_int(json, "workspace_bytes", info->workspace_bytes);
}
