/* Options of the graph plans (checked, AUTO resolved) and the arguments of
 * their executions. */
#include "graph_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

ts_status tsi_graph_options_check(ts_context *ctx, const char *op, const ts_graph_options *o, bool sssp) {
  if (o->direction != TS_GRAPH_DIRECTED && o->direction != TS_GRAPH_UNDIRECTED)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown direction %d", op, (int)o->direction);
  switch (o->schedule) {
  case TS_SCHEDULE_AUTO:
  case TS_SCHEDULE_THREAD_MAPPED:
  case TS_SCHEDULE_BLOCK_MAPPED:
  case TS_SCHEDULE_WORK_ORIENTED:
    if (o->group_size != 0)
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: group size %d given with %s (which takes none)", op,
                       o->group_size, ts_schedule_name(o->schedule));
    break;
  case TS_SCHEDULE_WARP_MAPPED:
    if (o->group_size != 0 && o->group_size != 4 && o->group_size != 8 && o->group_size != 32)
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                       "%s: warp-mapped takes 4, 8 or 32 threads a vertex (0 = 32), not %d", op, o->group_size);
    break;
  case TS_SCHEDULE_GROUP_MAPPED:
    if (o->group_size != 0 && o->group_size != 32)
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                       "%s: group-mapped expansion runs groups of 32 threads (0 or 32), not %d", op, o->group_size);
    break;
  case TS_SCHEDULE_MERGE_PATH:
  case TS_SCHEDULE_SPLIT_ROWS:
    return tsi_error(ctx, TS_ERROR_UNSUPPORTED,
                     "%s: %s splits tiles between threads with a host-side plan, which a frontier known only on the "
                     "GPU does not have; use auto, thread-, warp-, block-, group-mapped or work-oriented",
                     op, ts_schedule_name(o->schedule));
  default:
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown schedule %d", op, (int)o->schedule);
  }
  if (sssp && (!isfinite(o->delta) || o->delta < 0.0))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: delta = %g must be finite and >= 0 (0 = chosen)", op,
                     o->delta);
  return TS_SUCCESS;
}

void tsi_graph_resolve_schedule(const ts_graph_options *o, int64_t max_out_degree, ts_schedule *schedule,
                                int *group_size, char *why, size_t why_size) {
  if (o->schedule != TS_SCHEDULE_AUTO) {
    *schedule = o->schedule;
    *group_size = o->schedule == TS_SCHEDULE_WARP_MAPPED || o->schedule == TS_SCHEDULE_GROUP_MAPPED
                      ? (o->group_size ? o->group_size : 32)
                      : 0;
    if (o->schedule == TS_SCHEDULE_WARP_MAPPED)
      snprintf(why, why_size, "requested, %d threads a vertex", *group_size);
    else if (o->schedule == TS_SCHEDULE_GROUP_MAPPED)
      snprintf(why, why_size, "requested, groups of %d threads", *group_size);
    else
      snprintf(why, why_size, "requested");
    return;
  }
  /* Bounded degrees (meshes, road networks): a few threads a vertex, one
   * edge each, so that a narrow level is one round trip deep. Otherwise the
   * frontier's edges are spread evenly over the whole grid (a prefix sum of
   * its degrees each step): with sets of vertices per group, one long
   * adjacency list keeps its group busy while the rest of the grid waits at
   * the level's barrier. */
  if (max_out_degree <= 8) {
    *schedule = TS_SCHEDULE_WARP_MAPPED;
    *group_size = max_out_degree <= 4 ? 4 : 8;
    snprintf(why, why_size, "auto: out-degrees at most %lld: %d threads a vertex", (long long)max_out_degree,
             *group_size);
  } else {
    *schedule = TS_SCHEDULE_WORK_ORIENTED;
    *group_size = 0;
    snprintf(why, why_size, "auto: out-degrees up to %lld: each step's edges spread evenly over the GPU",
             (long long)max_out_degree);
  }
}

ts_status tsi_graph_plan_options(ts_context *ctx, const char *op, const ts_graph_options *options, bool sssp,
                                 ts_graph_options *o) {
  memset(o, 0, sizeof *o);
  if (options)
    *o = *options;
  return tsi_graph_options_check(ctx, op, o, sssp);
}

void tsi_graph_info_of(const tsi_graph_host *g, ts_graph_plan_info *info) {
  info->vertices = g->n;
  info->edges = g->m;
  info->direction = g->undirected ? TS_GRAPH_UNDIRECTED : TS_GRAPH_DIRECTED;
  info->max_out_degree = g->max_out_degree;
}

static ts_status check_output(ts_context *ctx, const char *op, const char *name, const ts_buffer *b, int64_t bytes) {
  if (!b)
    return TS_SUCCESS;
  if (tsi_buffer_context(b) != ctx)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %s belongs to another context than the plan's", op, name);
  if (ts_buffer_memory(b) != TS_MEMORY_DEVICE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %s must be a TS_MEMORY_DEVICE buffer", op, name);
  if ((int64_t)ts_buffer_size(b) < bytes)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %s holds %zu bytes; the graph needs %lld", op, name,
                     ts_buffer_size(b), (long long)bytes);
  return TS_SUCCESS;
}

ts_status tsi_graph_check_run(ts_context *ctx, const char *op, int64_t source, int64_t n, const ts_buffer *first,
                              const char *first_name, int64_t first_bytes, const ts_buffer *second,
                              const char *second_name, int64_t second_bytes) {
  if (source < 0 || source >= n)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: source %lld is not a vertex (the graph has %lld)", op,
                     (long long)source, (long long)n);
  ts_status st = check_output(ctx, op, first_name, first, first_bytes);
  if (st == TS_SUCCESS)
    st = check_output(ctx, op, second_name, second, second_bytes);
  /* Both are written by the same run: one would overwrite the other. */
  if (st == TS_SUCCESS && first && second &&
      tsi_ranges_overlap(ts_buffer_data(first), (size_t)first_bytes, ts_buffer_data(second), (size_t)second_bytes))
    st = tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %s and %s overlap", op, first_name, second_name);
  return st;
}

ts_status tsi_graph_check_last_run(ts_context *ctx, const char *op, bool ran, const ts_graph_run_stats *stats) {
  if (!stats)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: stats is NULL", op);
  if (!ran)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the plan has not run yet", op);
  return TS_SUCCESS;
}
