/* tessera bfs: breadth-first search from a source over a graph read from a
 * Matrix Market file, timed on the chosen backend, the parents checked
 * against the levels and the graph (and on the GPU against the CPU
 * backend), levels and parents optionally written. */
#include "cli_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char bfs_help[] =
    "Usage: tessera bfs FILE [options]\n"
    "\n"
    "Read a graph from a Matrix Market file (plain or gzip; '-' reads standard\n"
    "input): row u lists the heads of u's edges (an entry repeated in the file\n"
    "is one edge); a symmetric file is an undirected graph. Search it breadth first from a source through the plan\n"
    "API on the chosen backend (on the GPU: one persistent kernel, top-down and\n"
    "bottom-up steps), time it, and check the result: every parent one level up\n"
    "with an edge to its vertex; on the GPU also levels and parents equal to the\n"
    "CPU backend's. The parent of a vertex is the smallest-numbered vertex one\n"
    "level up with an edge to it.\n"
    "\n"
    "Options:\n"
    "  --backend auto|cpu|cuda     where to run (default auto: the GPU when one is\n"
    "                              usable, else the CPU, saying why)\n"
    "  --source V                  the source vertex, numbered from 0 (default 0)\n"
    "  --undirected                the (general) file stores every edge in both\n"
    "                              directions: checked, and no in-edges are built\n"
    "  --schedule S                how a frontier's edges are spread over GPU\n"
    "                              threads: auto, thread, warp, block, group or\n"
    "                              work (default auto)\n"
    "  --group-size N              threads a vertex for warp (4, 8 or 32), or 32 for\n"
    "                              group (default: chosen)\n"
    "  --top-down-only             no bottom-up steps (and no in-edges)\n"
    "  --repeat N                  timed searches; the median is reported (default 5)\n"
    "  -o, --output FILE           write one line 'vertex level parent' a vertex\n"
    "                              (-1 when unreached; '-' is standard output)\n" CLI_HELP_OUTPUT_OPTIONS "\n"
    "Traversed edges per second count the out-edges of every reached vertex (each\n"
    "undirected edge twice), as Gunrock reports them.\n"
    "Exit status: 0 when the check passes, 1 when it fails or on an error,\n"
    "2 for a bad command line, 130 when cancelled.\n";

static const char *const file_names[] = {"FILE"};

/* One search: levels and parents downloaded. */
typedef struct bfs_search {
  ts_context *ctx;
  ts_bfs_plan *plan;
  int64_t n, source;
  int32_t *levels, *parents;
} bfs_search;

static ts_status search(void *user, ts_graph_run_stats *stats) {
  const bfs_search *s = user;
  ts_buffer *lv = NULL, *pa = NULL;
  const size_t bytes = (size_t)(s->n > 0 ? s->n : 1) * sizeof(int32_t);
  ts_status status = ts_buffer_create(s->ctx, TS_MEMORY_DEVICE, bytes, &lv);
  if (status == TS_SUCCESS)
    status = ts_buffer_create(s->ctx, TS_MEMORY_DEVICE, bytes, &pa);
  if (status == TS_SUCCESS)
    status = ts_bfs_execute(s->plan, s->source, lv, pa);
  if (status == TS_SUCCESS)
    status = ts_bfs_last_run(s->plan, stats);
  if (status == TS_SUCCESS)
    status = ts_buffer_download(s->ctx, lv, 0, s->levels, (size_t)s->n * sizeof(int32_t));
  if (status == TS_SUCCESS)
    status = ts_buffer_download(s->ctx, pa, 0, s->parents, (size_t)s->n * sizeof(int32_t));
  ts_buffer_destroy(lv);
  ts_buffer_destroy(pa);
  return status;
}

static int run_bfs(int argc, char **argv) {
  int backend = TS_BACKEND_AUTO, schedule = 0;
  int64_t source = 0, repeat = 5, group_size = 0;
  bool undirected = false, top_down_only = false;
  const char *output_path = NULL;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--source", .kind = CLI_INT, .target = &source, .imin = 0, .imax = INT32_MAX},
      {.name = "--undirected", .kind = CLI_FLAG, .target = &undirected},
      {.name = "--schedule", .kind = CLI_CHOICE, .target = &schedule, .choices = cli_graph_schedule_choices},
      {.name = "--group-size", .kind = CLI_INT, .target = &group_size, .imin = 1, .imax = 32},
      {.name = "--top-down-only", .kind = CLI_FLAG, .target = &top_down_only},
      {.name = "--repeat", .kind = CLI_INT, .target = &repeat, .imin = 1, .imax = 10000},
      {.name = "--output", .short_name = 'o', .kind = CLI_TEXT, .target = &output_path},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"bfs", bfs_help, options, CLI_COUNT(options), file_names, 1, 1};
  const char *path = NULL;
  int rc = cli_parse(&syntax, argc, argv, &path, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  const char *inputs[] = {path}, *outputs[] = {output_path};
  rc = cli_check_paths("bfs", inputs, 1, outputs, 1, output.json);
  if (rc != 0)
    return rc;

  ts_context *ctx = NULL, *cpu = NULL, *failed_on = NULL;
  cli_graph graph;
  memset(&graph, 0, sizeof graph);
  bfs_search run = {0}, reference = {0};
  cli_graph_report r;
  memset(&r, 0, sizeof r);
  cli_progress progress;
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  failed_on = ctx;
  status = cli_progress_attach(ctx, &progress, &output);
  if (status == TS_SUCCESS)
    status = cli_graph_read(ctx, &progress, path, TS_FLOAT64, undirected, &graph);
  if (status != TS_SUCCESS)
    goto cleanup;
  const ts_csr *g = graph.matrix.csr;
  const int64_t n = g->rows;
  ts_graph_options o = {0};
  o.direction = graph.direction;
  o.schedule = cli_graph_schedules[schedule];
  o.group_size = (int)group_size;
  o.top_down_only = top_down_only;
  run = (bfs_search){ctx,
                     NULL,
                     n,
                     source,
                     malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t)),
                     malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t))};
  if (!run.levels || !run.parents) {
    status = TS_ERROR_OUT_OF_MEMORY;
    cli_set_error("no host memory for the levels of %lld vertices", (long long)n);
    goto cleanup;
  }
  cli_progress_begin(&progress, "planning");
  status = cli_progress_end(&progress, ts_bfs_plan_create(ctx, g, &o, &run.plan));
  if (status == TS_SUCCESS)
    status = cli_graph_time(&progress, repeat, search, &run, &r.stats, &r.first_ms, &r.median_ms);
  if (status != TS_SUCCESS)
    goto cleanup;

  /* The check: the tree against the graph; on the GPU the CPU's result too. */
  cli_progress_begin(&progress, "checking");
  const int64_t violation = cli_bfs_tree_violation(g, source, run.levels, run.parents);
  int64_t differ = -1;
  const bool compare = ts_context_backend(ctx) == TS_BACKEND_CUDA;
  if (compare) {
    ts_graph_run_stats ref_stats;
    status = cli_context_create(TS_BACKEND_CPU, &cpu);
    failed_on = cpu;
    reference = (bfs_search){cpu,
                             NULL,
                             n,
                             source,
                             malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t)),
                             malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t))};
    if (status == TS_SUCCESS && (!reference.levels || !reference.parents))
      status = TS_ERROR_OUT_OF_MEMORY;
    if (status == TS_SUCCESS)
      status = ts_bfs_plan_create(cpu, g, &o, &reference.plan);
    if (status == TS_SUCCESS)
      status = search(&reference, &ref_stats);
    for (int64_t v = 0; status == TS_SUCCESS && v < n && differ < 0; v++)
      if (run.levels[v] != reference.levels[v] || run.parents[v] != reference.parents[v])
        differ = v;
  }
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  failed_on = ctx;
  if (output_path) {
    status = cli_graph_write(ctx, output_path, "% vertex level parent", n, run.levels, run.parents, NULL, TS_FLOAT64);
    if (status != TS_SUCCESS)
      goto cleanup;
  }

  r = (cli_graph_report){"bfs",
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
  ts_bfs_plan_info(run.plan, &r.info);
  if (violation >= 0)
    snprintf(r.check, sizeof r.check, "FAIL: vertex %lld has level %d and parent %d", (long long)violation,
             run.levels[violation], run.parents[violation]);
  else if (differ >= 0)
    snprintf(r.check, sizeof r.check, "FAIL: vertex %lld: level %d, parent %d; the CPU's %d, %d", (long long)differ,
             run.levels[differ], run.parents[differ], reference.levels[differ], reference.parents[differ]);
  else
    snprintf(r.check, sizeof r.check, "PASS (%s)",
             compare ? "a BFS tree, and levels and parents equal to the CPU backend's" : "a BFS tree");
  if (output.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_graph_json_head(&out, &r);
    cli_json_bool(&out, "bottom_up_allowed", r.info.bottom_up != 0);
    cli_json_int(&out, "levels", r.stats.depth);
    cli_json_int(&out, "top_down_steps", r.stats.top_down_steps);
    cli_json_int(&out, "bottom_up_steps", r.stats.bottom_up_steps);
    cli_graph_json_tail(&out, &r);
    cli_json_end(&out);
  } else {
    FILE *report = cli_graph_text_head(&r);
    cli_line(report, "levels", "%d (%d top-down, %d bottom-up)", r.stats.depth, r.stats.top_down_steps,
             r.stats.bottom_up_steps);
    cli_graph_text_tail(report, &r);
  }
  rc = r.pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(failed_on, status);
  ts_bfs_plan_destroy(run.plan);
  ts_bfs_plan_destroy(reference.plan);
  free(run.levels);
  free(run.parents);
  free(reference.levels);
  free(reference.parents);
  cli_matrix_release(&graph.matrix);
  ts_context_destroy(cpu);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_bfs = {
    .name = "bfs",
    .summary = "breadth-first search on a graph: levels, parents, time, check",
    .help = bfs_help,
    .run = run_bfs,
};
