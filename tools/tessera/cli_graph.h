/* What the bfs and sssp commands share: the graph read from a Matrix
 * Market file, its direction, the schedule choices, the timed runs, the
 * independent tree checks, the results written as a text table, and the
 * plan's lines in the report. */
#ifndef TESSERA_CLI_GRAPH_H
#define TESSERA_CLI_GRAPH_H

#include "cli_common.h"

/* --schedule choices of the traversals; the index maps through cli_graph_schedules. */
extern const char *const cli_graph_schedule_choices[];
extern const ts_schedule cli_graph_schedules[];

/* The graph of a Matrix Market file: general CSR (symmetric storage
 * expanded), undirected when the file stores one triangle or when asked. */
typedef struct cli_graph {
  cli_matrix matrix;
  ts_graph_direction direction;
} cli_graph;

ts_status cli_graph_read(ts_context *ctx, cli_progress *progress, const char *path, ts_dtype dtype, bool undirected,
                         cli_graph *graph);

/* Median of @p count samples (sorts them). */
double cli_graph_median(double *samples, int count);

/* Trees checked against the graph alone (no second traversal): the BFS
 * parents lie one level up and have an edge to their vertex; the SSSP
 * predecessors' edges are tight (dist(u) + w == dist(v) in the type) and
 * every chain ends at the source. Return the first vertex that breaks the
 * rule, or -1. */
int64_t cli_bfs_tree_violation(const ts_csr *g, int64_t source, const int32_t *levels, const int32_t *parents);
int64_t cli_sssp_tree_violation(const ts_csr *g, int64_t source, const void *dist, const int32_t *pred);

/* A table "vertex a b" (b a real when @p reals), one line per vertex, to
 * @p path ("-": standard output) through a temporary file. Unreached
 * vertices print -1 (and inf for a distance). */
ts_status cli_graph_write(ts_context *ctx, const char *path, const char *header, int64_t n, const int32_t *a,
                          const int32_t *b, const void *reals, ts_dtype dtype);

/* One search, timed by cli_graph_time(). */
typedef ts_status (*cli_graph_search_fn)(void *user, ts_graph_run_stats *stats);

/* Run @p search @p repeat times (a progress step "searching"; Ctrl-C stops
 * it): the first run's time and the median, in ms, and the last stats. */
ts_status cli_graph_time(cli_progress *progress, int64_t repeat, cli_graph_search_fn search, void *user,
                         ts_graph_run_stats *stats, double *first_ms, double *median_ms);

/* What a graph command reports, whatever the algorithm. */
typedef struct cli_graph_report {
  const char *command, *path, *output_path;
  const ts_context *ctx;
  ts_graph_plan_info info;
  int64_t source, repeat;
  ts_graph_run_stats stats;
  double first_ms, median_ms, read_seconds;
  bool pass;
  char check[256];
} cli_graph_report;

/* The report's shared members: the head (command, file, backend, the
 * plan, source, what was reached) and the tail (times, rate, check,
 * output) around the command's own members. The text report goes to
 * standard error when the table is written to standard output. */
void cli_graph_json_head(cli_json *json, const cli_graph_report *r);
void cli_graph_json_tail(cli_json *json, const cli_graph_report *r);
FILE *cli_graph_text_head(const cli_graph_report *r);
void cli_graph_text_tail(FILE *out, const cli_graph_report *r);

#endif
