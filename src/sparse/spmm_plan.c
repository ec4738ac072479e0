/* Plan then execute C = alpha*A*B + beta*C on the context's backend:
 * validation, A's row-length shape, the vector thread and the schedule
 * (AUTO resolved), A in backend memory and the schedule's workspace,
 * prepared once so that execution allocates nothing. */
#include "device_upload.h"
#include "spmm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

static ts_status check_options(ts_context *ctx, const ts_spmm_options *o) {
  if ((int)o->schedule < 0 || (int)o->schedule >= TS_SCHEDULE_COUNT)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmm_plan_create: unknown schedule %d", (int)o->schedule);
  if (o->group_size != 0 && (!is_power_of_two(o->group_size) || o->group_size > 1024))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmm_plan_create: group size %d is not a power of two from 1 to 1024 (or 0 to choose)",
                     o->group_size);
  return TS_SUCCESS;
}

/* A's arrays in GPU memory (int64 row offsets: at 8 columns and more, A is a
 * small part of the traffic). */
static ts_status upload_matrix(ts_spmm_plan *p, const ts_csr *a) {
  tsi_spmm_device *d = &p->device;
  ts_status st = tsi_upload_array(p->ctx, (void **)&d->offsets, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
  if (st == TS_SUCCESS)
    st = tsi_upload_array(p->ctx, (void **)&d->indices, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
  if (st == TS_SUCCESS)
    st = tsi_upload_array(p->ctx, &d->values, a->values, (size_t)a->nnz * ts_dtype_size(a->dtype));
  return st;
}

/* Split-rows: the tables of the long rows' pieces, built on the host and
 * copied into their places in the workspace. */
static ts_status upload_split_tables(ts_spmm_plan *p, const ts_csr *a) {
  tsi_spmm_device *d = &p->device;
  int32_t *piece_row = tsi_malloc_array(d->pieces, sizeof(int32_t));
  int64_t *piece_begin = tsi_malloc_array(d->pieces, sizeof(int64_t));
  int32_t *long_row = tsi_malloc_array(d->long_rows, sizeof(int32_t));
  int64_t *long_first = tsi_malloc_array(d->long_rows + 1, sizeof(int64_t));
  ts_status st = TS_SUCCESS;
  if (!piece_row || !piece_begin || !long_row || !long_first) {
    st = tsi_error(p->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_spmm_plan_create: no host memory for %lld split-rows pieces",
                   (long long)d->pieces);
  } else {
    tsi_spmm_split_fill(a->rows, a->row_ptr, d->piece, d->huge, piece_row, piece_begin, long_row, long_first);
    char *w = (char *)p->workspace;
    st = tsi_cuda_memcpy_to_device(p->ctx, w + d->piece_row_at, piece_row, (size_t)d->pieces * sizeof(int32_t));
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_device(p->ctx, w + d->piece_begin_at, piece_begin, (size_t)d->pieces * sizeof(int64_t));
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_device(p->ctx, w + d->long_row_at, long_row, (size_t)d->long_rows * sizeof(int32_t));
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_device(p->ctx, w + d->long_first_at, long_first,
                                     (size_t)(d->long_rows + 1) * sizeof(int64_t));
  }
  free(piece_row);
  free(piece_begin);
  free(long_row);
  free(long_first);
  return st;
}

/* Thread-mapped's warp order (spmm_tuning.h): where the two-slice warp walk
 * runs, A's long offset is sampled (O(TSI_SPMM_STACK_SAMPLE log rows)) and
 * the explain line says the order and why. */
static int64_t stack_rows(ts_spmm_plan *p, const ts_csr *a, const tsi_spmm_lanes *lanes) {
  if (!tsi_spmm_stack_walk(p->schedule, lanes, p->b.layout))
    return 0;
  const tsi_spmm_far_offset far = tsi_spmm_far_offset_of(a->rows, a->row_ptr, a->col_idx);
  const int64_t d = tsi_spmm_stack_rows(a->rows, &far);
  const size_t used = strlen(p->explain);
  const double share = far.sampled > 0 ? 100.0 * (double)far.count / (double)far.sampled : 0.0;
  if (d > 0)
    snprintf(p->explain + used, sizeof p->explain - used,
             "; warps stacked %lld rows apart (offset %lld holds %.0f %% of %lld sampled entries)", (long long)d,
             (long long)far.offset, share, (long long)far.sampled);
  else
    snprintf(p->explain + used, sizeof p->explain - used,
             "; warps on consecutive rows (offset %lld holds %.0f %% of %lld sampled entries)", (long long)far.offset,
             share, (long long)far.sampled);
  return d;
}

static ts_status prepare_cuda(ts_spmm_plan *p, const ts_csr *a, int group_size) {
  tsi_spmm_device *d = &p->device;
  d->rows = a->rows;
  d->cols = a->cols;
  d->nnz = a->nnz;
  d->width = p->width;
  d->dtype = a->dtype;
  d->b = p->b;
  d->c = p->c;
  d->lanes = tsi_spmm_lanes_for(a->dtype, p->width, &p->b, &p->c);
  d->row_threads = tsi_spmm_row_threads(p->schedule, d->lanes.lanes, group_size);
  d->stack = stack_rows(p, a, &d->lanes);
  ts_status st = upload_matrix(p, a);
  if (st != TS_SUCCESS)
    return st;
  if (p->schedule == TS_SCHEDULE_SPLIT_ROWS) {
    d->piece = tsi_spmm_split_piece(&d->lanes);
    d->huge = tsi_spmm_split_huge(&d->lanes);
    tsi_spmm_split_count(a->rows, a->row_ptr, d->piece, d->huge, &d->pieces, &d->long_rows, &d->huge_rows);
  }
  p->workspace_bytes = tsi_spmm_workspace_layout(d, p->schedule);
  if (p->workspace_bytes == SIZE_MAX)
    return tsi_error(p->ctx, TS_ERROR_OVERFLOW,
                     "ts_spmm_plan_create: %s's partial rows of %lld columns pass 2^63 bytes",
                     ts_schedule_name(p->schedule), (long long)p->width);
  if (p->workspace_bytes > 0) {
    st = tsi_cuda_malloc(p->ctx, &p->workspace, p->workspace_bytes);
    if (st != TS_SUCCESS)
      return st;
  }
  if (p->schedule == TS_SCHEDULE_SPLIT_ROWS && d->pieces > 0) {
    st = upload_split_tables(p, a);
    if (st != TS_SUCCESS)
      return st;
  }
  return tsi_spmm_cuda_prepare(p->ctx, d, p->schedule, p->workspace);
}

static void resolve_schedule(ts_spmm_plan *p, const ts_spmm_options *o, const tsi_spmm_lanes *lanes,
                             int multiprocessors) {
  char vector[96];
  snprintf(vector, sizeof vector, "vector threads of %d lanes x %d column%s (%lld slice%s of %lld columns)",
           lanes->lanes, lanes->vector * lanes->columns, lanes->vector * lanes->columns > 1 ? "s" : "",
           (long long)lanes->slices, lanes->slices == 1 ? "" : "s", (long long)lanes->slice);
  if (o->schedule == TS_SCHEDULE_AUTO) {
    char reason[TSI_SPMM_EXPLAIN_SIZE - 160];
    p->schedule = tsi_spmm_auto_choose(&p->shape, lanes, multiprocessors, reason, sizeof reason);
    snprintf(p->explain, sizeof p->explain, "auto: %s, %s: %s", ts_schedule_name(p->schedule), vector, reason);
    return;
  }
  p->schedule = o->schedule;
  snprintf(p->explain, sizeof p->explain, "requested: %s, %s (%lld rows, %lld nnz, mean row %.3g, max row %lld)",
           ts_schedule_name(p->schedule), vector, (long long)p->shape.rows, (long long)p->shape.nnz, p->shape.mean_row,
           (long long)p->shape.max_row);
}

ts_status ts_spmm_plan_create(ts_context *ctx, const ts_csr *a, int64_t width, const ts_spmm_options *options,
                              ts_spmm_plan **plan) {
  static const char op[] = "ts_spmm_plan_create";
  if (!ctx || !a || !plan)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  *plan = NULL;
  const ts_spmm_options o = options ? *options : (ts_spmm_options){0};
  ts_status st = check_options(ctx, &o);
  if (st != TS_SUCCESS)
    return st;
  st = tsi_require_general(ctx, op, "A", a);
  if (st == TS_SUCCESS)
    st = tsi_require_real(ctx, op, "A", a->dtype);
  if (st != TS_SUCCESS)
    return st;
  tsi_dense_shape b, c;
  st = tsi_spmm_check_shapes(ctx, op, a, width, o.layout_b, o.ld_b, o.layout_c, o.ld_c, &b, &c);
  if (st != TS_SUCCESS)
    return st;
  st = ts_csr_check(ctx, a);
  if (st != TS_SUCCESS)
    return st;

  ts_spmm_plan *p = calloc(1, sizeof *p);
  if (!p)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  p->ctx = ctx;
  tsi_context_retain(ctx); /* released by ts_spmm_plan_destroy */
  p->rows = a->rows;
  p->cols = a->cols;
  p->nnz = a->nnz;
  p->width = width;
  p->dtype = a->dtype;
  p->b = b;
  p->c = c;
  tsi_spmv_shape_of(a->rows, a->cols, a->row_ptr, &p->shape);
  int multiprocessors = 1;
  ts_device_info info;
  if (ctx->backend == TS_BACKEND_CUDA && ts_context_device_info(ctx, &info) == TS_SUCCESS)
    multiprocessors = info.multiprocessors;
  tsi_spmm_lanes lanes = tsi_spmm_lanes_for(a->dtype, width, &b, &c);
  resolve_schedule(p, &o, &lanes, multiprocessors);
  if (ctx->backend == TS_BACKEND_CUDA)
    st = prepare_cuda(p, a, o.group_size);
  else
    st = ts_csr_copy(ctx, a, &p->host);
  if (st != TS_SUCCESS) {
    ts_spmm_plan_destroy(p);
    return st;
  }
  *plan = p;
  return TS_SUCCESS;
}

ts_schedule ts_spmm_plan_schedule(const ts_spmm_plan *plan) { return plan ? plan->schedule : TS_SCHEDULE_AUTO; }

const char *ts_spmm_plan_explain(const ts_spmm_plan *plan) { return plan ? plan->explain : ""; }

int64_t ts_spmm_plan_workspace_bytes(const ts_spmm_plan *plan) { return plan ? (int64_t)plan->workspace_bytes : 0; }

int64_t ts_spmm_plan_bytes(const ts_spmm_plan *plan) {
  if (!plan)
    return 0;
  const int64_t v = (int64_t)ts_dtype_size(plan->dtype);
  const double bytes = (double)plan->nnz * (double)(v + 4) + (double)(plan->rows + 1) * 8.0 +
                       (double)plan->cols * (double)plan->width * (double)v +
                       2.0 * (double)plan->rows * (double)plan->width * (double)v;
  return bytes < 9.2e18 ? (int64_t)bytes : INT64_MAX;
}

void ts_spmm_plan_destroy(ts_spmm_plan *plan) {
  if (!plan)
    return;
  ts_context *ctx = plan->ctx;
  if (ctx->backend == TS_BACKEND_CUDA) {
    (void)tsi_cuda_sync(ctx);
    tsi_cuda_free(plan->device.offsets);
    tsi_cuda_free(plan->device.indices);
    tsi_cuda_free(plan->device.values);
    tsi_cuda_free(plan->workspace);
  }
  ts_csr_destroy(plan->host);
  free(plan);
  tsi_context_release(ctx);
}

/* A buffer holding `elements` values of `size` bytes, of the plan's context,
 * in backend memory; else the refusal naming `name`. */
static ts_status check_buffer(ts_spmm_plan *p, const ts_buffer *buffer, const char *name, int64_t elements) {
  ts_context *ctx = p->ctx;
  const size_t need = (size_t)elements * ts_dtype_size(p->dtype);
  if (tsi_buffer_context(buffer) != ctx)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmm_execute: %s must belong to the plan's context", name);
  if (ts_buffer_memory(buffer) != TS_MEMORY_DEVICE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmm_execute: %s must be a TS_MEMORY_DEVICE buffer", name);
  if (ts_buffer_size(buffer) < need)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmm_execute: %s holds %zu bytes; %lld x %lld %s (leading dimension %lld) of %s needs %zu",
                     name, ts_buffer_size(buffer), (long long)(name[0] == 'B' ? p->b.rows : p->c.rows),
                     (long long)p->width, ts_layout_name(name[0] == 'B' ? p->b.layout : p->c.layout),
                     (long long)(name[0] == 'B' ? p->b.ld : p->c.ld), p->dtype == TS_FLOAT32 ? "float" : "double",
                     need);
  return TS_SUCCESS;
}

ts_status ts_spmm_execute(ts_spmm_plan *plan, double alpha, const ts_buffer *b, double beta, ts_buffer *c) {
  if (!plan || !b || !c)
    return tsi_error(plan ? plan->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_spmm_execute: NULL argument");
  ts_context *ctx = plan->ctx;
  ts_status st = check_buffer(plan, b, "B", plan->b.elements);
  if (st == TS_SUCCESS)
    st = check_buffer(plan, c, "C", plan->c.elements);
  if (st != TS_SUCCESS)
    return st;
  if (b == c)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmm_execute: B and C are the same buffer (C is written while B is read)");
  if (plan->c.elements == 0)
    return TS_SUCCESS;
  if (ctx->backend == TS_BACKEND_CUDA)
    return tsi_spmm_cuda_run(ctx, &plan->device, plan->schedule, plan->workspace, alpha, ts_buffer_data(b), beta,
                             ts_buffer_data(c));
  tsi_spmm_host_run(ctx, alpha, plan->host, ts_buffer_data(b), &plan->b, beta, ts_buffer_data(c), &plan->c);
  return TS_SUCCESS;
}
