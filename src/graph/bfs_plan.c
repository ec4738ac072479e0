/* Plan then execute breadth-first search: the graph checked and prepared
 * once (graph_prepare.c), then on CUDA uploaded with the in-edges bottom-up
 * steps need and a persistent-kernel engine's state (bfs_cuda.cu), on the
 * CPU kept with a level-by-level search's workspace (bfs_cpu.c). */
#include "graph_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const create_op = "ts_bfs_plan_create";

static void describe(ts_bfs_plan *p, const char *why) {
  ts_graph_plan_info *info = &p->info;
  snprintf(info->explain, sizeof info->explain, "%s (%s), %s; graph %lld B, in-edges %lld B, state %lld B",
           ts_schedule_name(info->schedule), why, info->bottom_up ? "direction-optimising" : "top-down only",
           (long long)info->graph_bytes, (long long)info->in_edge_bytes, (long long)info->workspace_bytes);
}

static ts_status create_cuda(ts_bfs_plan *p, const ts_graph_options *o, const tsi_graph_tuning *t) {
  ts_context *ctx = p->ctx;
  ts_status st = tsi_graph_cuda_upload(ctx, create_op, &p->host, p->info.bottom_up != 0, t, &p->device);
  if (st == TS_SUCCESS)
    st = tsi_bfs_cuda_create(ctx, create_op, &p->device, p->info.schedule, p->info.group_size, p->info.bottom_up != 0,
                             -1, t, &p->cuda);
  if (st != TS_SUCCESS)
    return st;
  (void)o;
  p->info.graph_bytes = p->device.bytes;
  p->info.in_edge_bytes = p->device.in_edge_bytes;
  p->info.hub_vertices = p->device.hubs;
  p->info.workspace_bytes = tsi_bfs_cuda_bytes(p->cuda);
  /* The host copy served the upload; the GPU holds the graph from now on. */
  tsi_graph_host_release(&p->host);
  return TS_SUCCESS;
}

ts_status ts_bfs_plan_create(ts_context *ctx, const ts_csr *graph, const ts_graph_options *options,
                             ts_bfs_plan **plan) {
  if (!ctx || !graph || !plan)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: NULL argument", create_op);
  *plan = NULL;
  ts_graph_options o;
  ts_status st = tsi_graph_plan_options(ctx, create_op, options, false, &o);
  if (st != TS_SUCCESS)
    return st;
  ts_bfs_plan *p = calloc(1, sizeof *p);
  if (!p)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: out of host memory", create_op);
  p->ctx = ctx;
  const bool bottom_up = !o.top_down_only;
  st = tsi_graph_prepare(ctx, create_op, graph, o.direction, false, bottom_up, &p->host);
  if (st != TS_SUCCESS)
    goto fail;
  int major = 0, minor = 0;
  if (ctx->backend == TS_BACKEND_CUDA)
    tsi_graph_cuda_capability(ctx, &major, &minor);
  const tsi_graph_tuning t = tsi_graph_tuning_for(major, minor);
  ts_graph_plan_info *info = &p->info;
  tsi_graph_info_of(&p->host, info);
  info->bottom_up = bottom_up;
  char why[160];
  tsi_graph_resolve_schedule(&o, p->host.max_out_degree, &info->schedule, &info->group_size, why, sizeof why);
  if (ctx->backend == TS_BACKEND_CUDA) {
    const tsi_graph_tuning run_tuning = tsi_graph_tuning_for_schedule(t, info->schedule);
    st = create_cuda(p, &o, &run_tuning);
  } else {
    st = tsi_bfs_cpu_work_create(ctx, create_op, p->host.n, &p->cpu);
    int64_t n = p->host.n, m = p->host.m;
    info->graph_bytes = (n + 1) * 8 + m * 4;
    info->in_edge_bytes = p->host.in_offsets ? (n + 1) * 8 + m * 4 : 0;
    info->workspace_bytes = n * 16;
  }
  if (st != TS_SUCCESS)
    goto fail;
  describe(p, why);
  *plan = p;
  return TS_SUCCESS;
fail:
  ts_bfs_plan_destroy(p);
  return st;
}

ts_status ts_bfs_execute(ts_bfs_plan *plan, int64_t source, ts_buffer *levels, ts_buffer *parents) {
  const char *op = "ts_bfs_execute";
  if (!plan)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: plan is NULL", op);
  ts_context *ctx = plan->ctx;
  const int64_t n = plan->info.vertices, bytes = n * (int64_t)sizeof(int32_t);
  ts_status st = tsi_graph_check_run(ctx, op, source, n, levels, "levels", bytes, parents, "parents", bytes);
  if (st != TS_SUCCESS)
    return st;
  int32_t *l = levels ? ts_buffer_data(levels) : NULL, *pa = parents ? ts_buffer_data(parents) : NULL;
  if (ctx->backend == TS_BACKEND_CUDA) {
    st = tsi_bfs_cuda_run(ctx, op, plan->cuda, (int32_t)source, l, pa, NULL);
  } else {
    memset(&plan->last, 0, sizeof plan->last);
    st = tsi_bfs_cpu(ctx, &plan->host, (int32_t)source, NULL, &plan->cpu, l, pa, &plan->last);
  }
  plan->ran = st == TS_SUCCESS;
  return st;
}

ts_status ts_bfs_last_run(ts_bfs_plan *plan, ts_graph_run_stats *stats) {
  const char *op = "ts_bfs_last_run";
  if (!plan)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: plan is NULL", op);
  ts_status st = tsi_graph_check_last_run(plan->ctx, op, plan->ran, stats);
  if (st != TS_SUCCESS)
    return st;
  if (plan->ctx->backend == TS_BACKEND_CUDA)
    return tsi_bfs_cuda_stats(plan->ctx, op, plan->cuda, stats);
  *stats = plan->last;
  return TS_SUCCESS;
}

ts_status ts_bfs_plan_info(const ts_bfs_plan *plan, ts_graph_plan_info *info) {
  if (!plan || !info)
    return tsi_error(plan ? plan->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_bfs_plan_info: NULL argument");
  *info = plan->info;
  return TS_SUCCESS;
}

void ts_bfs_plan_destroy(ts_bfs_plan *plan) {
  if (!plan)
    return;
  if (plan->ctx->backend == TS_BACKEND_CUDA) {
    tsi_bfs_cuda_destroy(plan->cuda);
    tsi_graph_cuda_release(&plan->device);
  }
  tsi_bfs_cpu_work_release(&plan->cpu);
  tsi_graph_host_release(&plan->host);
  free(plan);
}
