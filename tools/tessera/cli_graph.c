/* The graph commands' shared parts (cli_graph.h). */
#include "cli_graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_graph_schedule_choices[] = {"auto", "thread", "warp", "block", "group", "work", NULL};
const ts_schedule cli_graph_schedules[] = {TS_SCHEDULE_AUTO,         TS_SCHEDULE_THREAD_MAPPED,
                                           TS_SCHEDULE_WARP_MAPPED,  TS_SCHEDULE_BLOCK_MAPPED,
                                           TS_SCHEDULE_GROUP_MAPPED, TS_SCHEDULE_WORK_ORIENTED};

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

ts_status cli_graph_time(cli_progress *progress, int64_t repeat, cli_graph_search_fn search, void *user,
                         ts_graph_run_stats *stats, double *first_ms, double *median_ms) {
  double *times = malloc((size_t)repeat * sizeof(double));
  if (!times) {
    cli_set_error("no host memory for %lld times", (long long)repeat);
    return TS_ERROR_OUT_OF_MEMORY;
  }
  ts_status status = TS_SUCCESS;
  int64_t done = 0;
  cli_progress_begin(progress, "searching");
  for (; done < repeat && status == TS_SUCCESS; done++) {
    const double start = cli_now();
    status = search(user, stats);
    times[done] = 1e3 * (cli_now() - start);
    if (status == TS_SUCCESS && cli_cancelled())
      status = TS_ERROR_CANCELLED;
  }
  status = cli_progress_end(progress, status);
  *first_ms = done > 0 ? times[0] : 0.0;
  *median_ms = cli_graph_median(times, (int)done);
  free(times);
  return status;
}

static double rate_of(const cli_graph_report *r) {
  return r->median_ms > 0 ? (double)r->stats.reached_edges / (r->median_ms * 1e6) : 0.0;
}

void cli_graph_json_head(cli_json *json, const cli_graph_report *r) {
  const ts_graph_plan_info *info = &r->info;
  cli_json_text(json, "command", r->command);
  cli_json_text(json, "file", r->path);
  cli_json_text(json, "backend", ts_backend_name(ts_context_backend(r->ctx)));
  cli_fallback_json(json, r->ctx);
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
  cli_json_int(json, "source", r->source);
  cli_json_int(json, "reached", r->stats.reached);
  cli_json_int(json, "reached_edges", r->stats.reached_edges);
}

void cli_graph_json_tail(cli_json *json, const cli_graph_report *r) {
  cli_json_int(json, "repeat", r->repeat);
  cli_json_real(json, "first_ms", r->first_ms);
  cli_json_real(json, "median_ms", r->median_ms);
  cli_json_real(json, "gteps", rate_of(r));
  cli_json_real(json, "read_seconds", r->read_seconds);
  cli_json_text(json, "check", r->pass ? "PASS" : "FAIL");
  cli_json_text(json, "check_detail", r->check);
  cli_json_text(json, "output", r->output_path);
}

FILE *cli_graph_text_head(const cli_graph_report *r) {
  FILE *out = r->output_path && cli_is_stdio(r->output_path) ? stderr : stdout;
  const ts_graph_plan_info *info = &r->info;
  cli_line(out, "file", "%s", cli_path_label(r->path, false));
  cli_fallback_print(out, r->ctx);
  cli_line(out, "backend", "%s", ts_backend_name(ts_context_backend(r->ctx)));
  cli_line(out, "vertices", "%lld", (long long)info->vertices);
  cli_line(out, "edges", "%lld (%s)", (long long)info->edges,
           info->direction == TS_GRAPH_UNDIRECTED ? "undirected: each edge both ways" : "directed");
  cli_line(out, "plan", "%s", info->explain);
  cli_line(out, "memory", "graph %.1f MB, in-edges %.1f MB, state %.1f MB", 1e-6 * (double)info->graph_bytes,
           1e-6 * (double)info->in_edge_bytes, 1e-6 * (double)info->workspace_bytes);
  cli_line(out, "source", "%lld", (long long)r->source);
  cli_line(out, "reached", "%lld vertices, %lld out-edges", (long long)r->stats.reached,
           (long long)r->stats.reached_edges);
  return out;
}

void cli_graph_text_tail(FILE *out, const cli_graph_report *r) {
  cli_line(out, "time", "%.3f ms median of %lld (first %.3f ms), with the download", r->median_ms, (long long)r->repeat,
           r->first_ms);
  cli_line(out, "rate", "%.3g GTEPS", rate_of(r));
  cli_line(out, "check", "%s", r->check);
  if (r->output_path)
    cli_line(out, "written", "%s", cli_path_label(r->output_path, true));
}
