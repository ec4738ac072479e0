/* tessera sssp: shortest paths from a source over a weighted graph read from
 * a Matrix Market file, timed on the chosen backend, the predecessors
 * checked against the distances and the graph (and on the GPU distances and
 * predecessors against the CPU backend's Dijkstra), optionally written. */
#include "cli_graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sssp_help[] = "Usage: tessera sssp FILE [options]\n"
                                "\n"
                                "Read a weighted graph from a Matrix Market file (plain or gzip; '-' reads\n"
                                "standard input): entry (u, v, w) is the edge u -> v of weight w, which must\n"
                                "be finite and not negative (pattern entries weigh 1; an entry repeated in\n"
                                "the file is one edge of their summed weight, as the reader sums repeated\n"
                                "entries); a symmetric file is an undirected graph. Find the shortest paths\n"
                                "from a source through the plan API on the chosen backend (on the GPU:\n"
                                "near-far label correcting in one persistent kernel; on the CPU:\n"
                                "Dijkstra), time it, and check the result: every predecessor's edge tight\n"
                                "(dist(u) + w == dist(v) in the value type) and every chain ending at the\n"
                                "source; on the GPU also distances and predecessors equal to the CPU\n"
                                "backend's. A predecessor is the\n"
                                "smallest-numbered vertex with a tight edge among those the fewest tight\n"
                                "edges from the source, so the predecessors form a tree.\n"
                                "\n"
                                "Options:\n"
                                "  --backend auto|cpu|cuda     where to run (default auto: the GPU when one is\n"
                                "                              usable, else the CPU, saying why)\n"
                                "  --precision single|double   weights and distances (default double)\n"
                                "  --source V                  the source vertex, numbered from 0 (default 0)\n"
                                "  --undirected                the (general) file stores every edge in both\n"
                                "                              directions (checked)\n"
                                "  --schedule S                how the near set's edges are spread over GPU\n"
                                "                              threads: auto, thread, warp, block, group or\n"
                                "                              work (default auto)\n"
                                "  --group-size N              threads a vertex for warp (4, 8 or 32), or 32 for\n"
                                "                              group (default: chosen)\n"
                                "  --delta D                   width of the near-far step in weight units\n"
                                "                              (default: from the mean weight and degree)\n"
                                "  --repeat N                  timed searches; the median is reported (default 5)\n"
                                "  -o, --output FILE           write one line 'vertex predecessor distance' a\n"
                                "                              vertex (-1 and inf when unreached; '-' is\n"
                                "                              standard output)\n" CLI_HELP_OUTPUT_OPTIONS "\n"
                                "Traversed edges per second count the out-edges of every reached vertex (each\n"
                                "undirected edge twice), as Gunrock reports them.\n"
                                "Exit status: 0 when the check passes, 1 when it fails or on an error,\n"
                                "2 for a bad command line, 130 when cancelled.\n";

static const char *const file_names[] = {"FILE"};

/* One search: distances and predecessors downloaded. */
typedef struct sssp_search {
  ts_context *ctx;
  ts_sssp_plan *plan;
  int64_t n, source;
  ts_dtype dtype;
  void *dist;
  int32_t *pred;
} sssp_search;

static ts_status search(void *user, ts_graph_run_stats *stats) {
  const sssp_search *s = user;
  ts_buffer *d = NULL, *p = NULL;
  const size_t count = (size_t)(s->n > 0 ? s->n : 1), value = ts_dtype_size(s->dtype);
  ts_status status = ts_buffer_create(s->ctx, TS_MEMORY_DEVICE, count * value, &d);
  if (status == TS_SUCCESS)
    status = ts_buffer_create(s->ctx, TS_MEMORY_DEVICE, count * sizeof(int32_t), &p);
  if (status == TS_SUCCESS)
    status = ts_sssp_execute(s->plan, s->source, d, p);
  if (status == TS_SUCCESS)
    status = ts_sssp_last_run(s->plan, stats);
  if (status == TS_SUCCESS)
    status = ts_buffer_download(s->ctx, d, 0, s->dist, (size_t)s->n * value);
  if (status == TS_SUCCESS)
    status = ts_buffer_download(s->ctx, p, 0, s->pred, (size_t)s->n * sizeof(int32_t));
  ts_buffer_destroy(d);
  ts_buffer_destroy(p);
  return status;
}

/* Host arrays of a search of n vertices; false when they cannot be had. */
static bool allocate(sssp_search *s, ts_context *ctx, int64_t n, int64_t source, ts_dtype dtype) {
  const size_t count = (size_t)(n > 0 ? n : 1);
  *s =
      (sssp_search){ctx, NULL, n, source, dtype, malloc(count * ts_dtype_size(dtype)), malloc(count * sizeof(int32_t))};
  return s->dist && s->pred;
}

static int run_sssp(int argc, char **argv) {
  int backend = TS_BACKEND_AUTO, schedule = 0, precision = TS_FLOAT64;
  int64_t source = 0, repeat = 5, group_size = 0;
  double delta = 0.0;
  bool undirected = false;
  const char *output_path = NULL;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      {.name = "--source", .kind = CLI_INT, .target = &source, .imin = 0, .imax = INT32_MAX},
      {.name = "--undirected", .kind = CLI_FLAG, .target = &undirected},
      {.name = "--schedule", .kind = CLI_CHOICE, .target = &schedule, .choices = cli_graph_schedule_choices},
      {.name = "--group-size", .kind = CLI_INT, .target = &group_size, .imin = 1, .imax = 32},
      {.name = "--delta", .kind = CLI_REAL, .target = &delta, .rmin = 1e-300, .rmax = 1e300},
      {.name = "--repeat", .kind = CLI_INT, .target = &repeat, .imin = 1, .imax = 10000},
      {.name = "--output", .short_name = 'o', .kind = CLI_TEXT, .target = &output_path},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"sssp", sssp_help, options, CLI_COUNT(options), file_names, 1, 1};
  const char *path = NULL;
  int rc = cli_parse(&syntax, argc, argv, &path, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  const char *inputs[] = {path}, *outputs[] = {output_path};
  rc = cli_check_paths("sssp", inputs, 1, outputs, 1, output.json);
  if (rc != 0)
    return rc;

  ts_context *ctx = NULL, *cpu = NULL, *failed_on = NULL;
  cli_graph graph;
  memset(&graph, 0, sizeof graph);
  sssp_search run = {0}, reference = {0};
  cli_graph_report r;
  memset(&r, 0, sizeof r);
  cli_progress progress;
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  failed_on = ctx;
  status = cli_progress_attach(ctx, &progress, &output);
  if (status == TS_SUCCESS)
    status = cli_graph_read(ctx, &progress, path, (ts_dtype)precision, undirected, &graph);
  if (status != TS_SUCCESS)
    goto cleanup;
  const ts_csr *g = graph.matrix.csr;
  const int64_t n = g->rows;
  const ts_dtype dtype = g->dtype;
  const size_t value = ts_dtype_size(dtype);
  ts_graph_options o = {0};
  o.direction = graph.direction;
  o.schedule = cli_graph_schedules[schedule];
  o.group_size = (int)group_size;
  o.delta = delta;
  if (!allocate(&run, ctx, n, source, dtype)) {
    status = TS_ERROR_OUT_OF_MEMORY;
    cli_set_error("no host memory for the distances of %lld vertices", (long long)n);
    goto cleanup;
  }
  cli_progress_begin(&progress, "planning");
  status = cli_progress_end(&progress, ts_sssp_plan_create(ctx, g, &o, &run.plan));
  if (status == TS_SUCCESS)
    status = cli_graph_time(&progress, repeat, search, &run, &r.stats, &r.first_ms, &r.median_ms);
  if (status != TS_SUCCESS)
    goto cleanup;

  /* The check: the tree of tight edges against the graph; on the GPU the
   * CPU's Dijkstra too. */
  cli_progress_begin(&progress, "checking");
  const int64_t violation = cli_sssp_tree_violation(g, source, run.dist, run.pred);
  int64_t differ = -1;
  const bool compare = ts_context_backend(ctx) == TS_BACKEND_CUDA;
  if (compare) {
    ts_graph_run_stats ref_stats;
    status = cli_context_create(TS_BACKEND_CPU, &cpu);
    failed_on = cpu;
    if (status == TS_SUCCESS && !allocate(&reference, cpu, n, source, dtype))
      status = TS_ERROR_OUT_OF_MEMORY;
    if (status == TS_SUCCESS)
      status = ts_sssp_plan_create(cpu, g, &o, &reference.plan);
    if (status == TS_SUCCESS)
      status = search(&reference, &ref_stats);
    for (int64_t v = 0; status == TS_SUCCESS && v < n && differ < 0; v++)
      if (memcmp((char *)run.dist + v * value, (char *)reference.dist + v * value, value) != 0 ||
          run.pred[v] != reference.pred[v])
        differ = v;
  }
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  failed_on = ctx;
  if (output_path) {
    status = cli_graph_write(ctx, output_path, "% vertex predecessor distance", n, run.pred, NULL, run.dist, dtype);
    if (status != TS_SUCCESS)
      goto cleanup;
  }

  double farthest = 0.0;
  for (int64_t v = 0; v < n; v++) {
    const double d = dtype == TS_FLOAT32 ? (double)((const float *)run.dist)[v] : ((const double *)run.dist)[v];
    if (d < INFINITY && d > farthest)
      farthest = d;
  }
  r = (cli_graph_report){"sssp",
                         path,
                         output_path,
                         ctx,
                         {0},
                         source,
                         repeat,
                         r.stats,
                         r.first_ms,
                         r.median_ms,
                         graph.matrix.read_seconds,
                         violation < 0 && differ < 0,
                         ""};
  ts_sssp_plan_info(run.plan, &r.info);
  if (violation >= 0)
    snprintf(r.check, sizeof r.check, "FAIL: vertex %lld has predecessor %d", (long long)violation,
             run.pred[violation]);
  else if (differ >= 0)
    snprintf(r.check, sizeof r.check, "FAIL: vertex %lld: predecessor %d; the CPU's %d (or the distances differ)",
             (long long)differ, run.pred[differ], reference.pred[differ]);
  else
    snprintf(r.check, sizeof r.check, "PASS (%s)",
             compare ? "a tree of tight edges, and distances and predecessors equal to the CPU's Dijkstra"
                     : "a tree of tight edges");
  if (output.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_graph_json_head(&out, &r);
    cli_json_text(&out, "precision", dtype == TS_FLOAT32 ? "single" : "double");
    cli_json_real(&out, "delta", r.info.delta);
    cli_json_real(&out, "farthest", farthest);
    cli_json_int(&out, "tree_levels", r.stats.depth);
    cli_json_int(&out, "rounds", r.stats.rounds);
    cli_json_int(&out, "phases", r.stats.phases);
    cli_graph_json_tail(&out, &r);
    cli_json_end(&out);
  } else {
    FILE *report = cli_graph_text_head(&r);
    cli_line(report, "farthest", "%.17g (the largest finite distance)", farthest);
    cli_line(report, "tree", "%d levels of predecessors", r.stats.depth);
    if (ts_context_backend(ctx) == TS_BACKEND_CUDA)
      cli_line(report, "near-far", "step %g: %d rounds, %d phases", r.info.delta, r.stats.rounds, r.stats.phases);
    cli_graph_text_tail(report, &r);
  }
  rc = r.pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(failed_on, status);
  ts_sssp_plan_destroy(run.plan);
  ts_sssp_plan_destroy(reference.plan);
  free(run.dist);
  free(run.pred);
  free(reference.dist);
  free(reference.pred);
  cli_matrix_release(&graph.matrix);
  ts_context_destroy(cpu);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_sssp = {
    .name = "sssp",
    .summary = "shortest paths on a weighted graph: distances, predecessors, time, check",
    .help = sssp_help,
    .run = run_sssp,
};
