/* Time y = op(A)*x through the SpMV plan API on the context's backend, with
 * a schedule (or AUTO, or each in turn), and check y against
 * ts_csr_spmv_host on op(A) in double precision (used by demo and spmv). */
#include "cli_spmv.h"

#include "cli_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Timed bursts; the reported time is the median of their per-call times. */
#define CLI_SPMV_BURSTS 5
/* With no --repeat, a burst is sized to last about this long. */
#define CLI_SPMV_BURST_SECONDS 0.1
#define CLI_SPMV_MAX_REPEAT 100000
#define CLI_SPMV_CALIBRATION_SECONDS 0.02

/* x_j in [-1, 1), a multiple of 1/1024, so float and double hold the same
 * value. Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4) spreads the values. */
static double x_value(int64_t j) {
  uint64_t hash = (uint64_t)j * UINT64_C(0x9E3779B97F4A7C15);
  return (double)((int64_t)(hash >> 53) - 1024) / 1024.0;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A double-precision copy of A (the same values, widened when A is single). */
static ts_status widen_to_double(ts_context *ctx, const ts_csr *a, ts_csr **wide) {
  ts_status status = ts_csr_create(ctx, a->rows, a->cols, a->nnz, TS_FLOAT64, wide);
  if (status != TS_SUCCESS)
    return status;
  ts_csr *w = *wide;
  w->symmetry = a->symmetry;
  memcpy(w->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof *a->row_ptr);
  if (a->nnz > 0)
    memcpy(w->col_idx, a->col_idx, (size_t)a->nnz * sizeof *a->col_idx);
  const float *from = a->values;
  double *to = w->values;
  for (int64_t k = 0; k < a->nnz; k++)
    to[k] = (double)from[k];
  return TS_SUCCESS;
}

/* max_i |y_i - yref_i| / (|A||x|)_i; a row with (|A||x|)_i = 0 must give
 * y_i = yref_i exactly; rows beyond the type's range counted in
 * *beyond_range (cli_entry_error()). */
static double max_relative_error(const ts_csr *a64, const double *x, const double *y_ref, const void *y, ts_dtype dtype,
                                 int64_t *beyond_range) {
  const double *values = a64->values;
  double worst = 0.0;
  for (int64_t i = 0; i < a64->rows; i++) {
    double scale = 0.0;
    for (int64_t k = a64->row_ptr[i]; k < a64->row_ptr[i + 1]; k++)
      scale += fabs(values[k]) * fabs(x[a64->col_idx[k]]);
    double yi = dtype == TS_FLOAT32 ? (double)((const float *)y)[i] : ((const double *)y)[i];
    double error = cli_entry_error(yi, y_ref[i], scale, dtype, beyond_range);
    if (!(error <= worst))
      worst = error; /* a NaN in y makes the error NaN, which fails */
  }
  return worst;
}

/* @p count back-to-back calls ending in one sync: the per-call time then
 * includes no host round trip, as in an application's loop. Ctrl-C stops
 * the burst (a burst lasts about 0.1 s, unless --repeat makes it longer). */
static ts_status timed_burst(ts_context *ctx, ts_spmv_plan *plan, const ts_buffer *x, ts_buffer *y, int64_t count,
                             double *seconds) {
  double start = cli_now();
  ts_status status = TS_SUCCESS;
  for (int64_t k = 0; k < count && status == TS_SUCCESS; k++)
    status = cli_cancelled() ? TS_ERROR_CANCELLED : ts_spmv_execute(plan, 1.0, x, 0.0, y);
  if (status == TS_SUCCESS)
    status = ts_context_sync(ctx);
  *seconds = cli_now() - start;
  return status;
}

const char *const cli_schedule_choices[] = {"auto",       "thread", "warp",  "block", "group",
                                            "merge-path", "work",   "split", "all",   NULL};

/* The operand in double: A widened when single, transposed for A^T. */
static ts_status reference_operand(ts_context *ctx, const ts_csr *a, ts_operation op, ts_csr **operand) {
  ts_csr *widened = NULL;
  const ts_csr *a64 = a;
  ts_status status = TS_SUCCESS;
  *operand = NULL;
  if (a->dtype != TS_FLOAT64) {
    status = widen_to_double(ctx, a, &widened);
    if (status != TS_SUCCESS)
      return status;
    a64 = widened;
  }
  if (op == TS_OP_TRANSPOSE) {
    status = ts_csr_transpose(ctx, a64, operand);
    ts_csr_destroy(widened);
  } else if (widened) {
    *operand = widened;
  } else {
    status = ts_csr_copy(ctx, a64, operand);
  }
  return status;
}

ts_status cli_spmv_measure_run(ts_context *ctx, cli_progress *progress, const ts_csr *a,
                               const cli_spmv_request *request, cli_spmv_run *run) {
  memset(run, 0, sizeof *run);
  cli_spmv_result *result = &run->result;
  ts_spmv_plan *plan = NULL;
  ts_buffer *x = NULL, *y = NULL;
  ts_csr *operand = NULL;
  void *x_host = NULL, *y_host = NULL;
  double *x_ref = NULL, *y_ref = NULL;
  size_t value_size = ts_dtype_size(a->dtype);
  int64_t repeat = request->repeat;
  const bool transpose = request->op == TS_OP_TRANSPOSE;
  /* x has as many entries as op(A) has columns, y as many as it has rows. */
  const int64_t in_n = transpose ? a->rows : a->cols, out_n = transpose ? a->cols : a->rows;

  run->op = request->op;
  run->requested = request->schedule;
  result->backend = ts_context_backend(ctx);
  result->rows = a->rows;
  result->cols = a->cols;
  result->nnz = a->nnz;
  result->dtype = a->dtype;
  result->bursts = CLI_SPMV_BURSTS;
  const char *fallback = ts_context_fallback_reason(ctx);
  snprintf(result->fallback, sizeof result->fallback, "%s", fallback ? fallback : "");
  ts_status status = ts_context_device_info(ctx, &result->device);
  if (status != TS_SUCCESS)
    goto cleanup;

  /* +1 so that a 0-row or 0-column matrix still gets a valid pointer. */
  x_host = malloc((size_t)(in_n + 1) * value_size);
  y_host = malloc((size_t)(out_n + 1) * value_size);
  x_ref = malloc((size_t)(in_n + 1) * sizeof *x_ref);
  y_ref = malloc((size_t)(out_n + 1) * sizeof *y_ref);
  if (!x_host || !y_host || !x_ref || !y_ref) {
    status = TS_ERROR_OUT_OF_MEMORY;
    cli_set_error("no host memory for the SpMV vectors (%lld rows, %lld columns)", (long long)a->rows,
                  (long long)a->cols);
    goto cleanup;
  }
  for (int64_t j = 0; j < in_n; j++) {
    x_ref[j] = x_value(j);
    if (a->dtype == TS_FLOAT32)
      ((float *)x_host)[j] = (float)x_ref[j];
    else
      ((double *)x_host)[j] = x_ref[j];
  }

  cli_progress_begin(progress, "planning");
  ts_spmv_options options = {0};
  options.schedule = request->schedule;
  /* With `--schedule all`, a group size past split-rows' 8 is group-mapped's alone. */
  options.group_size = request->schedule == TS_SCHEDULE_SPLIT_ROWS && request->group_size > 8 ? 0 : request->group_size;
  options.op = request->op;
  status = ts_spmv_plan_create_ex(ctx, a, &options, &plan);
  status = cli_progress_end(progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  run->schedule = ts_spmv_plan_schedule(plan);
  run->group_size = ts_spmv_plan_group_size(plan);
  snprintf(run->explain, sizeof run->explain, "%s", ts_spmv_plan_explain(plan));
  status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)in_n * value_size, &x);
  if (status != TS_SUCCESS)
    goto cleanup;
  status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)out_n * value_size, &y);
  if (status != TS_SUCCESS)
    goto cleanup;
  status = ts_buffer_upload(ctx, x, 0, x_host, (size_t)in_n * value_size);
  if (status != TS_SUCCESS)
    goto cleanup;
  result->bytes = ts_spmv_plan_bytes(plan);

  cli_progress_begin(progress, "timing");
  /* Warm-up: the first call pays one-off costs (module load, caches). */
  double first_seconds = 0.0;
  status = timed_burst(ctx, plan, x, y, 1, &first_seconds);
  if (status != TS_SUCCESS)
    goto cleanup;
  result->first_ms = 1e3 * first_seconds;

  if (repeat <= 0) {
    /* Double the count until a burst lasts CLI_SPMV_CALIBRATION_SECONDS,
     * then run that burst once more and keep the faster: a single stall (a
     * busy host) cannot then shrink the bursts on its own. */
    double per_call = 0.0;
    for (int64_t count = 1; count <= CLI_SPMV_MAX_REPEAT; count *= 2) {
      double elapsed = 0.0;
      status = timed_burst(ctx, plan, x, y, count, &elapsed);
      if (status != TS_SUCCESS)
        goto cleanup;
      per_call = elapsed / (double)count;
      if (elapsed >= CLI_SPMV_CALIBRATION_SECONDS) {
        status = timed_burst(ctx, plan, x, y, count, &elapsed);
        if (status != TS_SUCCESS)
          goto cleanup;
        per_call = fmin(per_call, elapsed / (double)count);
        break;
      }
    }
    double wanted = per_call > 0.0 ? ceil(CLI_SPMV_BURST_SECONDS / per_call) : CLI_SPMV_MAX_REPEAT;
    repeat = wanted < 1.0 ? 1 : (wanted > CLI_SPMV_MAX_REPEAT ? CLI_SPMV_MAX_REPEAT : (int64_t)wanted);
  }
  result->repeat = repeat;

  double per_call_ms[CLI_SPMV_BURSTS];
  for (int burst = 0; burst < CLI_SPMV_BURSTS; burst++) {
    double elapsed = 0.0;
    status = timed_burst(ctx, plan, x, y, repeat, &elapsed);
    if (status != TS_SUCCESS)
      goto cleanup;
    per_call_ms[burst] = 1e3 * elapsed / (double)repeat;
    cli_progress_report(progress, burst + 1, CLI_SPMV_BURSTS);
  }
  status = cli_progress_end(progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  qsort(per_call_ms, CLI_SPMV_BURSTS, sizeof per_call_ms[0], compare_doubles);
  result->median_ms = per_call_ms[CLI_SPMV_BURSTS / 2];
  result->min_ms = per_call_ms[0];
  result->gbps = result->median_ms > 0.0 ? (double)result->bytes / (result->median_ms * 1e-3) / 1e9 : 0.0;

  /* beta = 0, so y holds op(A)*x from the last call. */
  cli_progress_begin(progress, "checking");
  status = ts_buffer_download(ctx, y, 0, y_host, (size_t)out_n * value_size);
  if (status != TS_SUCCESS)
    goto cleanup;
  status = reference_operand(ctx, a, request->op, &operand);
  if (status != TS_SUCCESS)
    goto cleanup;
  status = ts_csr_spmv_host(ctx, 1.0, operand, x_ref, 0.0, y_ref);
  if (status != TS_SUCCESS)
    goto cleanup;
  result->beyond_range = 0;
  result->max_error = max_relative_error(operand, x_ref, y_ref, y_host, a->dtype, &result->beyond_range);

  /* A k-term dot product in precision u errs by at most about k*u relative to
   * |A||x| (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
   * section 3.1), whatever the summation order; add the reference's own error
   * and the final rounding of y. */
  int64_t longest = 0;
  for (int64_t i = 0; i < operand->rows; i++) {
    int64_t length = operand->row_ptr[i + 1] - operand->row_ptr[i];
    if (length > longest)
      longest = length;
  }
  double unit_roundoff = a->dtype == TS_FLOAT32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
  result->tolerance = (double)(longest + 2) * (unit_roundoff + ldexp(1.0, -53));
  result->pass = result->max_error <= result->tolerance;

cleanup:
  status = cli_progress_end(progress, status);
  ts_csr_destroy(operand);
  ts_buffer_destroy(x);
  ts_buffer_destroy(y);
  ts_spmv_plan_destroy(plan);
  free(x_host);
  free(y_host);
  free(x_ref);
  free(y_ref);
  return status;
}

static const char *precision_name(ts_dtype dtype) { return dtype == TS_FLOAT32 ? "single" : "double"; }

static const char *operation_text(ts_operation op) { return op == TS_OP_TRANSPOSE ? "y = A^T*x" : "y = A*x"; }

/* backend ... precision: what every run of one matrix shares. */
static void print_header(FILE *out, const char *matrix, const cli_spmv_result *r) {
  if (r->backend == TS_BACKEND_CUDA)
    cli_line(out, "backend", "cuda (device %d, compute capability %d.%d, %d SMs)", r->device.ordinal,
             r->device.compute_major, r->device.compute_minor, r->device.multiprocessors);
  else
    cli_line(out, "backend", "cpu (%d threads)", r->device.multiprocessors);
  if (r->fallback[0])
    cli_line(out, "no GPU", "%s; the CPU backend runs instead", r->fallback);
  cli_line(out, "device", "%s", r->device.name);
  cli_line(out, "matrix", "%s", matrix);
  cli_line(out, "rows", "%lld", (long long)r->rows);
  cli_line(out, "cols", "%lld", (long long)r->cols);
  cli_line(out, "nnz", "%lld", (long long)r->nnz);
  cli_line(out, "precision", "%s", precision_name(r->dtype));
}

static void print_measurement(FILE *out, const cli_spmv_result *r) {
  cli_line(out, "time per call", "%.4f ms (median of %d bursts of %lld calls; fastest %.4f ms; first call %.3f ms)",
           r->median_ms, r->bursts, (long long)r->repeat, r->min_ms, r->first_ms);
  cli_line(out, "bandwidth", "%.2f GB/s (%.2f MB of compulsory traffic per call)", r->gbps, (double)r->bytes / 1e6);
  cli_check_print(out, "|A||x|", r->max_error, r->tolerance, r->beyond_range, r->dtype);
}

static void json_header(cli_json *json, const char *matrix, const cli_spmv_result *r) {
  cli_json_text(json, "backend", ts_backend_name(r->backend));
  cli_json_text(json, "fallback_reason", r->fallback[0] ? r->fallback : NULL);
  cli_json_text(json, "device", r->device.name);
  if (r->backend == TS_BACKEND_CUDA) {
    cli_json_int(json, "device_ordinal", r->device.ordinal);
    cli_json_int(json, "compute_major", r->device.compute_major);
    cli_json_int(json, "compute_minor", r->device.compute_minor);
  }
  cli_json_int(json, "multiprocessors", r->device.multiprocessors);
  cli_json_text(json, "matrix", matrix);
  cli_json_int(json, "rows", r->rows);
  cli_json_int(json, "cols", r->cols);
  cli_json_int(json, "nnz", r->nnz);
  cli_json_text(json, "precision", precision_name(r->dtype));
}

static void json_measurement(cli_json *json, const cli_spmv_result *r) {
  cli_json_int(json, "repeat", r->repeat);
  cli_json_int(json, "bursts", r->bursts);
  cli_json_real(json, "ms_per_call", r->median_ms);
  cli_json_real(json, "ms_per_call_min", r->min_ms);
  cli_json_real(json, "ms_first_call", r->first_ms);
  cli_json_int(json, "bytes_per_call", r->bytes);
  cli_json_real(json, "gb_per_s", r->gbps);
  cli_json_real(json, "max_error", r->max_error);
  cli_json_real(json, "tolerance", r->tolerance);
  cli_json_int(json, "unchecked_beyond_range", r->beyond_range);
  cli_json_text(json, "check", r->pass ? "PASS" : "FAIL");
}

/* "merge-path", "group-mapped, group size 32", "split-rows, 2 threads a short
 * row", "merge-path (chosen by auto)". */
static void schedule_text(const cli_spmv_run *run, char *text, size_t size) {
  char group[40] = "";
  if (run->group_size > 0 && run->schedule == TS_SCHEDULE_SPLIT_ROWS)
    snprintf(group, sizeof group, ", %d thread%s a short row", run->group_size, run->group_size > 1 ? "s" : "");
  else if (run->group_size > 0)
    snprintf(group, sizeof group, ", group size %d", run->group_size);
  snprintf(text, size, "%s%s%s", ts_schedule_name(run->schedule), group,
           run->requested == TS_SCHEDULE_AUTO ? " (chosen by auto)" : "");
}

/* The schedules are the GPU's mappings of rows and nonzeros to threads; the
 * CPU backend has one implementation, and its plan only records them. */
static bool schedule_used(const cli_spmv_run *run) { return run->result.backend == TS_BACKEND_CUDA; }

#define CPU_ONE_IMPLEMENTATION "the CPU backend has one SpMV implementation"

void cli_spmv_run_print(FILE *out, const char *matrix, const cli_spmv_run *run) {
  char schedule[96];
  schedule_text(run, schedule, sizeof schedule);
  print_header(out, matrix, &run->result);
  cli_line(out, "operation", "%s", operation_text(run->op));
  if (run->all_requested) {
    cli_line(out, "schedule", "all requested; " CPU_ONE_IMPLEMENTATION ", so it ran once");
  } else {
    if (schedule_used(run)) {
      cli_line(out, "schedule", "%s", schedule);
    } else {
      /* "merge-path (chosen by auto; recorded, not used: ...)" */
      size_t length = strlen(schedule);
      bool parenthesis = length > 0 && schedule[length - 1] == ')';
      if (parenthesis)
        schedule[length - 1] = '\0';
      cli_line(out, "schedule", "%s%srecorded, not used: " CPU_ONE_IMPLEMENTATION ")", schedule,
               parenthesis ? "; " : " (");
    }
    cli_line(out, "reason", "%s", run->explain);
  }
  print_measurement(out, &run->result);
}

static void json_schedule(cli_json *json, const cli_spmv_run *run) {
  cli_json_text(json, "schedule_requested", run->all_requested ? "all" : ts_schedule_name(run->requested));
  if (run->all_requested)
    cli_json_null(json, "schedule");
  else
    cli_json_text(json, "schedule", ts_schedule_name(run->schedule));
  cli_json_int(json, "group_size", run->group_size);
  cli_json_text(json, "explain", run->explain);
  cli_json_bool(json, "schedule_used", schedule_used(run));
  if (!schedule_used(run))
    cli_json_text(json, "note", CPU_ONE_IMPLEMENTATION ": the schedule is recorded, not used, and it ran once");
}

void cli_spmv_run_json(cli_json *json, const char *matrix, const cli_spmv_run *run) {
  json_header(json, matrix, &run->result);
  cli_json_text(json, "operation", run->op == TS_OP_TRANSPOSE ? "transpose" : "none");
  json_schedule(json, run);
  json_measurement(json, &run->result);
}

void cli_spmv_runs_print(FILE *out, const char *matrix, const cli_spmv_run *runs, int count) {
  if (count <= 0)
    return;
  print_header(out, matrix, &runs[0].result);
  cli_line(out, "operation", "%s", operation_text(runs[0].op));
  cli_line(out, "traffic", "%.2f MB of compulsory traffic per call", (double)runs[0].result.bytes / 1e6);
  int width = 30;
  for (int i = 0; i < count; i++) {
    char schedule[96];
    schedule_text(&runs[i], schedule, sizeof schedule);
    if ((int)strlen(schedule) > width)
      width = (int)strlen(schedule);
  }
  fprintf(out, "\n%-14s %-*s %12s %10s %11s  %s\n", "schedule", width, "runs as", "ms per call", "GB/s", "max error",
          "check");
  for (int i = 0; i < count; i++) {
    const cli_spmv_run *run = &runs[i];
    char schedule[96];
    schedule_text(run, schedule, sizeof schedule);
    fprintf(out, "%-14s %-*s %12.4f %10.2f %11.3g  %s\n", ts_schedule_name(run->requested), width, schedule,
            run->result.median_ms, run->result.gbps, run->result.max_error, run->result.pass ? "PASS" : "FAIL");
  }
  fputc('\n', out);
  for (int i = 0; i < count; i++)
    if (runs[i].requested == TS_SCHEDULE_AUTO)
      cli_line(out, "reason", "%s", runs[i].explain);
}

void cli_spmv_runs_json(cli_json *json, const char *matrix, const cli_spmv_run *runs, int count) {
  if (count <= 0)
    return;
  json_header(json, matrix, &runs[0].result);
  cli_json_text(json, "operation", runs[0].op == TS_OP_TRANSPOSE ? "transpose" : "none");
  cli_json_int(json, "bytes_per_call", runs[0].result.bytes);
  bool pass = true;
  cli_json_object(json, "schedules");
  for (int i = 0; i < count; i++) {
    cli_json_object(json, ts_schedule_name(runs[i].requested));
    json_schedule(json, &runs[i]);
    json_measurement(json, &runs[i].result);
    cli_json_close(json);
    pass = pass && runs[i].result.pass;
  }
  cli_json_close(json);
  cli_json_text(json, "check", pass ? "PASS" : "FAIL");
}
