/* Plan then execute single-source shortest paths: the weighted graph checked
 * and prepared once (graph_prepare.c), then on CUDA uploaded with a near-far
 * engine's state (sssp_cuda.cu), on the CPU kept with Dijkstra's heap
 * (sssp_cpu.c). Predecessors come from a BFS over the tight edges (u -> v
 * with dist(u) + w = dist(v)) on both backends, so they form a tree even
 * where zero-weight cycles make several parents tight. */
#include "graph_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const create_op = "ts_sssp_plan_create";

/* The near-far step: the caller's, else the tuning's rule of thumb. */
static double choose_delta(const ts_graph_options *o, const tsi_graph_host *g, const tsi_graph_tuning *t) {
  if (o->delta > 0.0)
    return o->delta;
  double mean_degree = g->n > 0 ? (double)g->m / (double)g->n : 1.0;
  if (mean_degree < 1.0)
    mean_degree = 1.0;
  double delta = mean_degree >= t->wide_mean_degree ? t->wide_delta_scale * g->mean_weight
                                                    : t->delta_scale * g->mean_weight * 32.0 / mean_degree;
  return isfinite(delta) && delta > 0.0 ? delta : 1.0;
}

/* heavy_edges: some weight reaches the step (light and heavy rounds wanted). */
static ts_status create_cuda(ts_sssp_plan *p, const tsi_graph_tuning *t, bool heavy_edges) {
  ts_context *ctx = p->ctx;
  ts_status st = tsi_graph_cuda_upload(ctx, create_op, &p->host, false, t, &p->device);
  if (st == TS_SUCCESS)
    st = tsi_sssp_cuda_create(ctx, create_op, &p->device, p->info.schedule, p->info.group_size, p->info.delta,
                              heavy_edges, t, &p->cuda);
  if (st != TS_SUCCESS)
    return st;
  p->info.graph_bytes = p->device.bytes;
  p->info.hub_vertices = p->device.hubs;
  p->info.workspace_bytes = tsi_sssp_cuda_bytes(p->cuda);
  tsi_graph_host_release(&p->host);
  return TS_SUCCESS;
}

ts_status ts_sssp_plan_create(ts_context *ctx, const ts_csr *graph, const ts_graph_options *options,
                              ts_sssp_plan **plan) {
  if (!ctx || !graph || !plan)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: NULL argument", create_op);
  *plan = NULL;
  ts_graph_options o;
  ts_status st = tsi_graph_plan_options(ctx, create_op, options, true, &o);
  if (st != TS_SUCCESS)
    return st;
  ts_sssp_plan *p = calloc(1, sizeof *p);
  if (!p)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: out of host memory", create_op);
  p->ctx = ctx;
  st = tsi_graph_prepare(ctx, create_op, graph, o.direction, true, false, &p->host);
  if (st != TS_SUCCESS)
    goto fail;
  int major = 0, minor = 0;
  if (ctx->backend == TS_BACKEND_CUDA)
    tsi_graph_cuda_capability(ctx, &major, &minor);
  const tsi_graph_tuning t = tsi_graph_tuning_for(major, minor);
  ts_graph_plan_info *info = &p->info;
  tsi_graph_info_of(&p->host, info);
  info->delta = choose_delta(&o, &p->host, &t);
  const bool heavy_edges = p->host.max_weight >= info->delta;
  char why[96];
  tsi_graph_resolve_schedule(&o, p->host.max_out_degree, &info->schedule, &info->group_size, why, sizeof why);
  if (ctx->backend == TS_BACKEND_CUDA) {
    const tsi_graph_tuning run_tuning = tsi_graph_tuning_for_schedule(t, info->schedule);
    st = create_cuda(p, &run_tuning, heavy_edges);
  } else {
    st = tsi_sssp_cpu_work_create(ctx, create_op, p->host.n, p->host.dtype, &p->cpu);
    if (st == TS_SUCCESS)
      st = tsi_bfs_cpu_work_create(ctx, create_op, p->host.n, &p->cpu_tree);
    int64_t n = p->host.n, m = p->host.m, v = (int64_t)ts_dtype_size(p->host.dtype);
    info->graph_bytes = (n + 1) * 8 + m * (4 + v);
    info->workspace_bytes = n * (8 + v + 16);
  }
  if (st != TS_SUCCESS)
    goto fail;
  const char *edge_classes = "";
  if (p->cuda && tsi_sssp_cuda_heavy_edges(p->cuda))
    edge_classes = ", light and heavy edges";
  else if (p->cuda && heavy_edges)
    edge_classes = ", all edges each round (no room for a second copy)";
  snprintf(info->explain, sizeof info->explain, "%s (%s), near-far step %g%s; graph %lld B, state %lld B",
           ts_schedule_name(info->schedule), why, info->delta, edge_classes, (long long)info->graph_bytes,
           (long long)info->workspace_bytes);
  *plan = p;
  return TS_SUCCESS;
fail:
  ts_sssp_plan_destroy(p);
  return st;
}

/* Reached vertices and their out-edges, from the distances. */
static void count_reached(const tsi_graph_host *g, const void *dist, ts_graph_run_stats *stats) {
  int64_t reached = 0, edges = 0;
#pragma omp parallel for schedule(static) reduction(+ : reached, edges) if (g->n > TSI_GRAPH_PARALLEL_MIN)
  for (int64_t v = 0; v < g->n; v++) {
    double d = g->dtype == TS_FLOAT32 ? (double)((const float *)dist)[v] : ((const double *)dist)[v];
    if (isfinite(d)) {
      reached++;
      edges += g->offsets[v + 1] - g->offsets[v];
    }
  }
  stats->reached = reached;
  stats->reached_edges = edges;
}

static ts_status execute_cpu(ts_sssp_plan *p, int32_t source, void *distances, int32_t *predecessors) {
  tsi_sssp_cpu_dijkstra(&p->host, source, &p->cpu);
  memset(&p->last, 0, sizeof p->last);
  if (predecessors) {
    tsi_tight_edges tight = {p->cpu.dist, p->host.weights, p->host.dtype};
    ts_status st = tsi_bfs_cpu(p->ctx, &p->host, source, &tight, &p->cpu_tree, NULL, predecessors, &p->last);
    if (st != TS_SUCCESS)
      return st;
    p->last.top_down_steps = 0;
  }
  count_reached(&p->host, p->cpu.dist, &p->last);
  p->last.source = source;
  if (distances)
    memcpy(distances, p->cpu.dist, (size_t)p->host.n * ts_dtype_size(p->host.dtype));
  return TS_SUCCESS;
}

ts_status ts_sssp_execute(ts_sssp_plan *plan, int64_t source, ts_buffer *distances, ts_buffer *predecessors) {
  const char *op = "ts_sssp_execute";
  if (!plan)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: plan is NULL", op);
  ts_context *ctx = plan->ctx;
  const int64_t n = plan->info.vertices;
  const int64_t value =
      (int64_t)(ctx->backend == TS_BACKEND_CUDA ? ts_dtype_size(plan->device.dtype) : ts_dtype_size(plan->host.dtype));
  ts_status st = tsi_graph_check_run(ctx, op, source, n, distances, "distances", n * value, predecessors,
                                     "predecessors", n * (int64_t)sizeof(int32_t));
  if (st != TS_SUCCESS)
    return st;
  void *d = distances ? ts_buffer_data(distances) : NULL;
  int32_t *pr = predecessors ? ts_buffer_data(predecessors) : NULL;
  if (ctx->backend == TS_BACKEND_CUDA)
    st = tsi_sssp_cuda_run(ctx, op, plan->cuda, (int32_t)source, d, pr);
  else
    st = execute_cpu(plan, (int32_t)source, d, pr);
  plan->ran = st == TS_SUCCESS;
  return st;
}

ts_status ts_sssp_last_run(ts_sssp_plan *plan, ts_graph_run_stats *stats) {
  const char *op = "ts_sssp_last_run";
  if (!plan)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: plan is NULL", op);
  ts_status st = tsi_graph_check_last_run(plan->ctx, op, plan->ran, stats);
  if (st != TS_SUCCESS)
    return st;
  if (plan->ctx->backend == TS_BACKEND_CUDA)
    return tsi_sssp_cuda_stats(plan->ctx, op, plan->cuda, stats);
  *stats = plan->last;
  return TS_SUCCESS;
}

ts_status ts_sssp_plan_info(const ts_sssp_plan *plan, ts_graph_plan_info *info) {
  if (!plan || !info)
    return tsi_error(plan ? plan->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_sssp_plan_info: NULL argument");
  *info = plan->info;
  return TS_SUCCESS;
}

void ts_sssp_plan_destroy(ts_sssp_plan *plan) {
  if (!plan)
    return;
  if (plan->ctx->backend == TS_BACKEND_CUDA) {
    tsi_sssp_cuda_destroy(plan->cuda);
    tsi_graph_cuda_release(&plan->device);
  }
  tsi_sssp_cpu_work_release(&plan->cpu);
  tsi_bfs_cpu_work_release(&plan->cpu_tree);
  tsi_graph_host_release(&plan->host);
  free(plan);
}
