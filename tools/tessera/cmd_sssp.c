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
                                "be finite and not negative (pattern entries weigh 1); a symmetric file is an\n"
                                "undirected graph. Find the shortest paths from a source through the plan API\n"
                                "on the chosen backend (on the GPU: near-far label correcting in one\n"
                                "persistent kernel; on the CPU: Dijkstra), time it, and check the result:\n"
                                "every predecessor's edge tight (dist(u) + w == dist(v) in the value type)\n"
                                "and every chain ending at the source; on the GPU also distances and\n"
                                "predecessors equal to the CPU backend's. A predecessor is the\n"
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
                                "                              threads: auto, thread, warp, block or group\n"
                                "                              (default auto)\n"
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

/* One search through a plan on ctx: distances and predecessors downloaded. */
static ts_status search(ts_context *ctx, ts_sssp_plan *plan, int64_t n, ts_dtype dtype, int64_t source, void *dist,
                        int32_t *pred, ts_graph_run_stats *stats) {
  ts_buffer *d = NULL, *p = NULL;
  const size_t count = (size_t)(n > 0 ? n : 1), value = ts_dtype_size(dtype);
  ts_status status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, count * value, &d);
  if (status == TS_SUCCESS)
    status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, count * sizeof(int32_t), &p);
  if (status == TS_SUCCESS)
    status = ts_sssp_execute(plan, source, d, p);
  if (status == TS_SUCCESS)
    status = ts_sssp_last_run(plan, stats);
  if (status == TS_SUCCESS)
    status = ts_buffer_download(ctx, d, 0, dist, (size_t)n * value);
  if (status == TS_SUCCESS)
    status = ts_buffer_download(ctx, p, 0, pred, (size_t)n * sizeof(int32_t));
  ts_buffer_destroy(d);
  ts_buffer_destroy(p);
  return status;
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
  ts_sssp_plan *plan = NULL, *reference = NULL;
  void *dist = NULL, *ref_dist = NULL;
  int32_t *pred = NULL, *ref_pred = NULL;
  double *times = NULL;
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
  cli_progress_begin(&progress, "planning");
  status = cli_progress_end(&progress, ts_sssp_plan_create(ctx, g, &o, &plan));
  if (status != TS_SUCCESS)
    goto cleanup;
  dist = malloc((size_t)(n > 0 ? n : 1) * value);
  pred = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
  times = malloc((size_t)repeat * sizeof(double));
  if (!dist || !pred || !times) {
    status = TS_ERROR_OUT_OF_MEMORY;
    cli_set_error("no host memory for the distances of %lld vertices", (long long)n);
    goto cleanup;
  }
  ts_graph_run_stats stats;
  cli_progress_begin(&progress, "searching");
  double first_ms = 0.0;
  for (int64_t r = 0; r < repeat && status == TS_SUCCESS; r++) {
    const double start = cli_now();
    status = search(ctx, plan, n, dtype, source, dist, pred, &stats);
    times[r] = 1e3 * (cli_now() - start);
    if (r == 0)
      first_ms = times[r];
    if (cli_cancelled())
      status = TS_ERROR_CANCELLED;
  }
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  const double median_ms = cli_graph_median(times, (int)repeat);

  /* The check: the tree against the graph; on the GPU the CPU's result too. */
  cli_progress_begin(&progress, "checking");
  int64_t violation = cli_sssp_tree_violation(g, source, dist, pred);
  int64_t differ = -1;
  const bool compare = ts_context_backend(ctx) == TS_BACKEND_CUDA;
  if (compare) {
    ts_graph_run_stats ref_stats;
    ref_dist = malloc((size_t)(n > 0 ? n : 1) * value);
    ref_pred = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    status = cli_context_create(TS_BACKEND_CPU, &cpu);
    failed_on = cpu;
    if (status == TS_SUCCESS && (!ref_dist || !ref_pred))
      status = TS_ERROR_OUT_OF_MEMORY;
    if (status == TS_SUCCESS)
      status = ts_sssp_plan_create(cpu, g, &o, &reference);
    if (status == TS_SUCCESS)
      status = search(cpu, reference, n, dtype, source, ref_dist, ref_pred, &ref_stats);
    for (int64_t v = 0; status == TS_SUCCESS && v < n && differ < 0; v++)
      if (memcmp((char *)dist + v * value, (char *)ref_dist + v * value, value) != 0 || pred[v] != ref_pred[v])
        differ = v;
  }
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  failed_on = ctx;
  const bool pass = violation < 0 && differ < 0;
  if (output_path) {
    status = cli_graph_write(ctx, output_path, "% vertex predecessor distance", n, pred, NULL, dist, dtype);
    if (status != TS_SUCCESS)
      goto cleanup;
  }

  ts_graph_plan_info info;
  ts_sssp_plan_info(plan, &info);
  double farthest = 0.0;
  for (int64_t v = 0; v < n; v++) {
    const double d = dtype == TS_FLOAT32 ? (double)((const float *)dist)[v] : ((const double *)dist)[v];
    if (d < INFINITY && d > farthest)
      farthest = d;
  }
  const double gteps = median_ms > 0 ? (double)stats.reached_edges / (median_ms * 1e6) : 0.0;
  char check[256];
  if (violation >= 0)
    snprintf(check, sizeof check, "FAIL: vertex %lld has predecessor %d", (long long)violation, pred[violation]);
  else if (differ >= 0)
    snprintf(check, sizeof check, "FAIL: vertex %lld: predecessor %d; the CPU's %d (or the distances differ)",
             (long long)differ, pred[differ], ref_pred[differ]);
  else
    snprintf(check, sizeof check, "PASS (%s)",
             compare ? "a tree of tight edges, and distances and predecessors equal to the CPU's Dijkstra"
                     : "a tree of tight edges");
  if (output.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "sssp");
    cli_json_text(&out, "file", path);
    cli_json_text(&out, "backend", ts_backend_name(ts_context_backend(ctx)));
    cli_fallback_json(&out, ctx);
    cli_graph_info_json(&out, &info);
    cli_json_text(&out, "precision", dtype == TS_FLOAT32 ? "single" : "double");
    cli_json_real(&out, "delta", info.delta);
    cli_json_int(&out, "source", source);
    cli_json_int(&out, "reached", stats.reached);
    cli_json_int(&out, "reached_edges", stats.reached_edges);
    cli_json_real(&out, "farthest", farthest);
    cli_json_int(&out, "tree_levels", stats.depth);
    cli_json_int(&out, "rounds", stats.rounds);
    cli_json_int(&out, "phases", stats.phases);
    cli_json_int(&out, "repeat", repeat);
    cli_json_real(&out, "first_ms", first_ms);
    cli_json_real(&out, "median_ms", median_ms);
    cli_json_real(&out, "gteps", gteps);
    cli_json_real(&out, "read_seconds", graph.matrix.read_seconds);
    cli_json_text(&out, "check", pass ? "PASS" : "FAIL");
    cli_json_text(&out, "check_detail", check);
    cli_json_text(&out, "output", output_path);
    cli_json_end(&out);
  } else {
    /* With the table on standard output, the report goes to standard error. */
    FILE *report = output_path && cli_is_stdio(output_path) ? stderr : stdout;
    cli_line(report, "file", "%s", cli_path_label(path, false));
    cli_fallback_print(report, ctx);
    cli_line(report, "backend", "%s", ts_backend_name(ts_context_backend(ctx)));
    cli_graph_info_print(report, &info);
    cli_line(report, "source", "%lld", (long long)source);
    cli_line(report, "reached", "%lld vertices, %lld out-edges", (long long)stats.reached,
             (long long)stats.reached_edges);
    cli_line(report, "farthest", "%.17g (the largest finite distance)", farthest);
    cli_line(report, "tree", "%d levels of predecessors", stats.depth);
    if (ts_context_backend(ctx) == TS_BACKEND_CUDA)
      cli_line(report, "near-far", "step %g: %d rounds, %d phases", info.delta, stats.rounds, stats.phases);
    cli_line(report, "time", "%.3f ms median of %lld (first %.3f ms), with the download", median_ms, (long long)repeat,
             first_ms);
    cli_line(report, "rate", "%.3g GTEPS", gteps);
    cli_line(report, "check", "%s", check);
    if (output_path)
      cli_line(report, "written", "%s", cli_path_label(output_path, true));
  }
  rc = pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(failed_on, status);
  ts_sssp_plan_destroy(plan);
  ts_sssp_plan_destroy(reference);
  free(dist);
  free(pred);
  free(ref_dist);
  free(ref_pred);
  free(times);
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
