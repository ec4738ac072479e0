/* Plan then execute C = alpha*A*B + beta*C on the context's backend:
 * validation, A's row-length shape, the vector thread and the schedule
 * (AUTO resolved), the passes over bands of columns, A in backend memory
 * and the schedule's workspace, prepared once so that execution allocates
 * nothing; execution runs the passes one after another. */
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
  if (o->pass_columns < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmm_plan_create: pass_columns %lld is negative (0 = the plan's choice, else columns a pass)",
                     (long long)o->pass_columns);
  return TS_SUCCESS;
}

static int64_t gcd(int64_t x, int64_t y) {
  while (y != 0) {
    const int64_t r = x % y;
    x = y;
    y = r;
  }
  return x;
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
 * copied into their places in the workspace, and the near rows' counters
 * zeroed (the kernel leaves them zero after each call). */
static ts_status upload_split_tables(ts_spmm_plan *p, const ts_csr *a) {
  tsi_spmm_device *d = &p->device;
  int32_t *piece_row = tsi_malloc_array(d->pieces, sizeof(int32_t));
  int64_t *piece_begin = tsi_malloc_array(d->pieces, sizeof(int64_t));
  int32_t *piece_long = tsi_malloc_array(d->pieces, sizeof(int32_t));
  int32_t *long_row = tsi_malloc_array(d->long_rows, sizeof(int32_t));
  int64_t *long_first = tsi_malloc_array(d->long_rows + 1, sizeof(int64_t));
  ts_status st = TS_SUCCESS;
  if (!piece_row || !piece_begin || !piece_long || !long_row || !long_first) {
    st = tsi_error(p->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_spmm_plan_create: no host memory for %lld split-rows pieces",
                   (long long)d->pieces);
  } else {
    tsi_spmm_split_fill(a->rows, a->row_ptr, d->piece, d->huge, d->near, piece_row, piece_begin, piece_long, long_row,
                        long_first);
    char *w = (char *)p->workspace;
    st = tsi_cuda_memcpy_to_device(p->ctx, w + d->piece_row_at, piece_row, (size_t)d->pieces * sizeof(int32_t));
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_device(p->ctx, w + d->piece_begin_at, piece_begin, (size_t)d->pieces * sizeof(int64_t));
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_device(p->ctx, w + d->piece_long_at, piece_long, (size_t)d->pieces * sizeof(int32_t));
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_device(p->ctx, w + d->long_row_at, long_row, (size_t)d->long_rows * sizeof(int32_t));
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_device(p->ctx, w + d->long_first_at, long_first,
                                     (size_t)(d->long_rows + 1) * sizeof(int64_t));
    if (st == TS_SUCCESS && d->long_rows > d->joined_rows)
      st = tsi_cuda_memset(p->ctx, w + d->counters_at, 0, (d->records_at - d->counters_at));
  }
  free(piece_row);
  free(piece_begin);
  free(piece_long);
  free(long_row);
  free(long_first);
  return st;
}

/* Thread-mapped's warp order (spmm_tuning.h): where the two-slice warp walk
 * runs, the explain line says the order and why from A's sampled offset. */
static int64_t stack_rows(ts_spmm_plan *p, const ts_csr *a, const tsi_spmm_lanes *lanes,
                          const tsi_spmm_far_offset *far) {
  if (!tsi_spmm_stack_walk(p->schedule, lanes, p->b.layout))
    return 0;
  const int64_t d = tsi_spmm_stack_rows(a->rows, far);
  const size_t used = strlen(p->explain);
  const double share = far->sampled > 0 ? 100.0 * (double)far->count / (double)far->sampled : 0.0;
  if (d > 0)
    snprintf(p->explain + used, sizeof p->explain - used,
             "; warps stacked %lld rows apart (offset %lld holds %.0f %% of %lld sampled entries)", (long long)d,
             (long long)far->offset, share, (long long)far->sampled);
  else
    snprintf(p->explain + used, sizeof p->explain - used,
             "; warps on consecutive rows (offset %lld holds %.0f %% of %lld sampled entries)", (long long)far->offset,
             share, (long long)far->sampled);
  return d;
}

/* Columns of the last band (narrower than a pass where the pass width does
 * not divide the width). */
static int64_t last_band(const ts_spmm_plan *p) { return p->width - (p->passes - 1) * p->pass_columns; }

/* One band's descriptor of `width` columns: B and C keep their layouts and
 * leading dimensions (the run offsets their pointers). */
static void band_device(const ts_spmm_plan *p, tsi_spmm_device *d, int64_t width, int group_size) {
  d->width = width;
  d->b.cols = width;
  d->c.cols = width;
  d->lanes = tsi_spmm_lanes_for_band(p->dtype, width, gcd(p->pass_columns, p->width), &p->b, &p->c);
  d->row_threads = tsi_spmm_row_threads(p->schedule, d->lanes.lanes, group_size);
}

static ts_status prepare_cuda(ts_spmm_plan *p, const ts_csr *a, int group_size, const tsi_spmm_far_offset *far) {
  tsi_spmm_device *d = &p->device;
  d->rows = a->rows;
  d->cols = a->cols;
  d->nnz = a->nnz;
  d->dtype = a->dtype;
  d->b = p->b;
  d->c = p->c;
  band_device(p, d, p->pass_columns, group_size);
  d->stack = stack_rows(p, a, &d->lanes, far);
  ts_status st = upload_matrix(p, a);
  if (st != TS_SUCCESS)
    return st;
  if (p->schedule == TS_SCHEDULE_SPLIT_ROWS) {
    d->piece = tsi_spmm_split_piece(&d->lanes);
    d->huge = tsi_spmm_split_huge(&d->lanes);
    d->near = tsi_spmm_split_near(d->huge);
    const tsi_spmm_split_counts counts = tsi_spmm_split_count(a->rows, a->row_ptr, d->piece, d->huge, d->near);
    d->pieces = counts.pieces;
    d->long_rows = counts.long_rows;
    d->huge_rows = counts.huge_rows;
    /* The split kernel joins the long rows itself only when all of them are
     * near: where the join launch runs anyway, joining the near ones early
     * only adds fences and a serial tail (bench/notes/spmm.md). */
    d->joined_rows = counts.joined_rows > 0 ? counts.long_rows : 0;
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
  /* A narrower last band: its own vector thread over the same workspace
   * (records of a whole band hold its rows; the pieces and the partition
   * do not depend on the columns). */
  if (last_band(p) < p->pass_columns) {
    p->last = *d;
    band_device(p, &p->last, last_band(p), group_size);
  }
  return tsi_spmm_cuda_prepare(p->ctx, d, p->schedule, p->workspace);
}

/* The schedule (AUTO resolved for the vector thread `lanes`) and why. */
static void resolve_schedule(ts_spmm_plan *p, const ts_spmm_options *o, const tsi_spmm_lanes *lanes,
                             int multiprocessors, char *reason, size_t reason_size) {
  if (o->schedule == TS_SCHEDULE_AUTO) {
    p->schedule = tsi_spmm_auto_choose(&p->shape, lanes, multiprocessors, reason, reason_size);
    return;
  }
  p->schedule = o->schedule;
  snprintf(reason, reason_size, "%lld rows, %lld nnz, mean row %.3g, max row %lld", (long long)p->shape.rows,
           (long long)p->shape.nnz, p->shape.mean_row, (long long)p->shape.max_row);
}

/* Passes over bands of columns: the requested width, else the rule's
 * (spmm_passes.c; one pass on the CPU backend, `info` NULL); `why` gets the
 * explain line's clause. */
static void plan_passes(ts_spmm_plan *p, const ts_spmm_options *o, const ts_device_info *info,
                        const tsi_spmm_far_offset *far, char *why, size_t why_size) {
  char rule[192];
  if (o->pass_columns > 0) {
    p->pass_columns = o->pass_columns < p->width ? o->pass_columns : p->width;
    snprintf(rule, sizeof rule, "%lld columns a pass requested", (long long)o->pass_columns);
  } else {
    p->pass_columns = tsi_spmm_pass_rule(info, p->schedule, p->dtype, &p->b, far, rule, sizeof rule);
  }
  p->passes = p->pass_columns > 0 ? (p->width + p->pass_columns - 1) / p->pass_columns : 1;
  if (p->passes <= 1) {
    p->passes = 1;
    p->pass_columns = p->width;
    snprintf(why, why_size, "; one pass (%s)", rule);
  } else if (last_band(p) < p->pass_columns) {
    snprintf(why, why_size, "; %lld passes of %lld columns, the last of %lld (%s)", (long long)p->passes,
             (long long)p->pass_columns, (long long)last_band(p), rule);
  } else {
    snprintf(why, why_size, "; %lld passes of %lld columns (%s)", (long long)p->passes, (long long)p->pass_columns,
             rule);
  }
}

static void write_explain(ts_spmm_plan *p, const ts_spmm_options *o, const tsi_spmm_lanes *lanes, const char *reason,
                          const char *passes) {
  char vector[96];
  snprintf(vector, sizeof vector, "vector threads of %d lanes x %d column%s (%lld slice%s of %lld columns)",
           lanes->lanes, lanes->vector * lanes->columns, lanes->vector * lanes->columns > 1 ? "s" : "",
           (long long)lanes->slices, lanes->slices == 1 ? "" : "s", (long long)lanes->slice);
  if (o->schedule == TS_SCHEDULE_AUTO)
    snprintf(p->explain, sizeof p->explain, "auto: %s, %s: %s%s", ts_schedule_name(p->schedule), vector, reason,
             passes);
  else
    snprintf(p->explain, sizeof p->explain, "requested: %s, %s (%s)%s", ts_schedule_name(p->schedule), vector, reason,
             passes);
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
  const bool gpu = ctx->backend == TS_BACKEND_CUDA;
  ts_device_info info;
  const bool have_info = gpu && ts_context_device_info(ctx, &info) == TS_SUCCESS;
  const int multiprocessors = have_info ? info.multiprocessors : 1;
  /* A's sampled offset: the stacked order's and the passes' rule's
   * (O(TSI_SPMM_STACK_SAMPLE log rows)). */
  tsi_spmm_far_offset far = {0, 0, 0};
  if (gpu)
    far = tsi_spmm_far_offset_of(a->rows, a->row_ptr, a->col_idx);
  /* AUTO chooses for the vector thread of a requested band, else of the
   * whole width (the rule for passes then asks for the schedule). */
  const int64_t chosen = o.pass_columns > 0 && o.pass_columns < width ? o.pass_columns : width;
  const tsi_spmm_lanes lanes = tsi_spmm_lanes_for_band(a->dtype, chosen, gcd(chosen, width), &b, &c);
  char reason[TSI_SPMM_EXPLAIN_SIZE / 2], passes[320];
  resolve_schedule(p, &o, &lanes, multiprocessors, reason, sizeof reason);
  plan_passes(p, &o, have_info ? &info : NULL, &far, passes, sizeof passes);
  const tsi_spmm_lanes band = tsi_spmm_lanes_for_band(a->dtype, p->pass_columns, gcd(p->pass_columns, width), &b, &c);
  write_explain(p, &o, &band, reason, passes);
  if (gpu)
    st = prepare_cuda(p, a, o.group_size, &far);
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

/* The passes one after another, each on its band of B and C (pointers
 * offset to the band's first column); on CUDA all on the context's stream,
 * each band's launches after the previous band's, so that the workspace
 * serves each in turn. On the CPU backend every entry of C sums its terms
 * in the same order whatever the band, so passes give the same bits. */
static ts_status run_passes(ts_spmm_plan *p, double alpha, const void *b, double beta, void *c) {
  const size_t value = ts_dtype_size(p->dtype);
  for (int64_t k = 0; k < p->passes; k++) {
    const int64_t first = k * p->pass_columns;
    const int64_t columns = k == p->passes - 1 ? last_band(p) : p->pass_columns;
    const char *band_b = (const char *)b + (size_t)(first * (p->b.layout == TS_LAYOUT_ROW_MAJOR ? 1 : p->b.ld)) * value;
    char *band_c = (char *)c + (size_t)(first * (p->c.layout == TS_LAYOUT_ROW_MAJOR ? 1 : p->c.ld)) * value;
    if (p->ctx->backend == TS_BACKEND_CUDA) {
      const tsi_spmm_device *d = columns < p->pass_columns ? &p->last : &p->device;
      const ts_status st = tsi_spmm_cuda_run(p->ctx, d, p->schedule, p->workspace, alpha, band_b, beta, band_c);
      if (st != TS_SUCCESS)
        return st;
    } else {
      tsi_dense_shape bs = p->b, cs = p->c;
      bs.cols = cs.cols = columns;
      tsi_spmm_host_run(p->ctx, alpha, p->host, band_b, &bs, beta, band_c, &cs);
    }
  }
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
  /* Two buffers may wrap overlapping memory: the bytes the product reads
   * and writes must not meet. */
  const size_t value = ts_dtype_size(plan->dtype);
  if (tsi_ranges_overlap(ts_buffer_data(b), (size_t)plan->b.elements * value, ts_buffer_data(c),
                         (size_t)plan->c.elements * value))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmm_execute: B and C overlap in memory (C is written while B is read)");
  if (plan->c.elements == 0)
    return TS_SUCCESS;
  return run_passes(plan, alpha, ts_buffer_data(b), beta, ts_buffer_data(c));
}
