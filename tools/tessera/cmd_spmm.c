/* tessera spmm: C = A*B for a matrix read from a Matrix Market file and a
 * generated dense B of a chosen width and layout, through the SpMM plan API
 * with one schedule or AUTO, timed on the chosen backend and checked entry
 * by entry against the product in double. */
#include "cli_check.h"
#include "cli_common.h"
#include "cli_spmv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char spmm_help[] = "Usage: tessera spmm FILE [options]\n"
                                "\n"
                                "Read a Matrix Market file (plain or gzip; '-' reads standard input) as A,\n"
                                "expand symmetric storage, and run C = A*B through the SpMM plan API on\n"
                                "the chosen backend, B of the given width filled with values in [-1, 1)\n"
                                "that float and double hold alike; time it and check every entry of C\n"
                                "against the product computed in double.\n"
                                "\n"
                                "Options:\n"
                                "  --backend auto|cpu|cuda     where to run (default auto)\n"
                                "  --precision single|double   value type (default double)\n"
                                "  --width N                   columns of B and C (default 32)\n"
                                "  --layout row|col            layout of B and C (default row)\n"
                                "  --schedule S                auto, thread, warp, block, group, merge-path,\n"
                                "                              work or split (default auto)\n"
                                "  --group-size N              threads a row for --schedule group: a power of\n"
                                "                              two, 1 to 1024 (default: chosen)\n"
                                "  --repeat N                  calls per timed burst (default: as many as take\n"
                                "                              about 0.1 s)\n" CLI_HELP_OUTPUT_OPTIONS "\n"
                                "The schedule, the vector thread (lanes and columns a lane) and the reason\n"
                                "are printed. The time is the median of 3 bursts of back-to-back calls ending\n"
                                "in one synchronisation; the rate counts A once, B once and C written.\n"
                                "The CPU backend has one implementation: the schedule is recorded, not used.\n"
                                "Exit status: 0 when the check passes, 1 when it fails or on an error,\n"
                                "2 for a bad command line, 130 when cancelled.\n";

static const char *const file_names[] = {"FILE"};
static const char *const layout_choices[] = {"row", "col", NULL};

#define SPMM_BURSTS 3
#define SPMM_BURST_SECONDS 0.1

/* B's entry e in [-1, 1), a multiple of 1/1024 (Fibonacci hashing, Knuth,
 * TAOCP vol. 3, 6.4). */
static double b_value(int64_t e) {
  uint64_t hash = (uint64_t)(e + 1) * UINT64_C(0x9E3779B97F4A7C15);
  return (double)((int64_t)(hash >> 53) - 1024) / 1024.0;
}

static double get(const void *p, ts_dtype dtype, int64_t e) {
  return dtype == TS_FLOAT32 ? (double)((const float *)p)[e] : ((const double *)p)[e];
}

/* The largest |C - A*B| over |A||B| entry by entry (an entry with |A||B| = 0
 * must be exact; a NaN fails; entries beyond the type's range counted in
 * *beyond_range, cli_entry_error()). */
static double max_error(const ts_csr *a, int64_t width, ts_layout layout, const void *b, const void *c,
                        int64_t *beyond_range) {
  double worst = 0;
  const int64_t ld_b = layout == TS_LAYOUT_ROW_MAJOR ? width : a->cols;
  const int64_t ld_c = layout == TS_LAYOUT_ROW_MAJOR ? width : a->rows;
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t j = 0; j < width; j++) {
      double sum = 0, scale = 0;
      for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
        const int64_t col = a->col_idx[k];
        const double term = get(a->values, a->dtype, k) *
                            get(b, a->dtype, layout == TS_LAYOUT_ROW_MAJOR ? col * ld_b + j : col + j * ld_b);
        sum += term;
        scale += fabs(term);
      }
      const double got = get(c, a->dtype, layout == TS_LAYOUT_ROW_MAJOR ? i * ld_c + j : i + j * ld_c);
      const double error = cli_entry_error(got, sum, scale, a->dtype, beyond_range);
      if (!(error <= worst))
        worst = error;
    }
  return worst;
}

/* `calls` back-to-back executions ending in one synchronisation. */
static ts_status burst(ts_context *ctx, ts_spmm_plan *plan, const ts_buffer *b, ts_buffer *c, int64_t calls,
                       double *seconds) {
  const double start = cli_now();
  ts_status status = TS_SUCCESS;
  for (int64_t k = 0; k < calls && status == TS_SUCCESS; k++)
    status = cli_cancelled() ? TS_ERROR_CANCELLED : ts_spmm_execute(plan, 1.0, b, 0.0, c);
  if (status == TS_SUCCESS)
    status = ts_context_sync(ctx);
  *seconds = cli_now() - start;
  return status;
}

static int compare_doubles(const void *x, const void *y) {
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static int run_spmm(int argc, char **argv) {
  int backend = TS_BACKEND_AUTO, precision = TS_FLOAT64, schedule = TS_SCHEDULE_AUTO, layout = 0;
  int64_t width = 32, group_size = 0, repeat = 0;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      {.name = "--width", .kind = CLI_INT, .target = &width, .imin = 1, .imax = INT32_MAX},
      {.name = "--layout", .kind = CLI_CHOICE, .target = &layout, .choices = layout_choices},
      {.name = "--schedule", .kind = CLI_CHOICE, .target = &schedule, .choices = cli_schedule_choices},
      {.name = "--group-size", .kind = CLI_INT, .target = &group_size, .imin = 1, .imax = 1024},
      {.name = "--repeat", .kind = CLI_INT, .target = &repeat, .imin = 1, .imax = 1000000},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"spmm", spmm_help, options, CLI_COUNT(options), file_names, 1, 1};
  const char *path = NULL;
  int rc = cli_parse(&syntax, argc, argv, &path, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  if (schedule == CLI_SCHEDULE_ALL)
    return cli_usage_error("spmm", "--schedule all is not taken here: name one schedule, or auto");
  if (group_size & (group_size - 1))
    return cli_usage_error("spmm", "--group-size %lld is not a power of two", (long long)group_size);
  if (group_size > 0 && schedule != TS_SCHEDULE_GROUP_MAPPED && schedule != TS_SCHEDULE_AUTO)
    return cli_usage_error("spmm", "--group-size applies to --schedule group (or auto), not %s",
                           cli_schedule_choices[schedule]);

  ts_context *ctx = NULL;
  cli_matrix matrix = {0};
  cli_progress progress;
  ts_spmm_plan *plan = NULL;
  ts_buffer *bb = NULL, *bc = NULL;
  void *b = NULL, *c = NULL;
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output);
  if (status == TS_SUCCESS)
    status = cli_matrix_read(ctx, &progress, path, (ts_dtype)precision, &matrix);
  if (status != TS_SUCCESS)
    goto cleanup;
  const ts_csr *a = matrix.csr;
  const ts_layout lay = (ts_layout)layout;
  const size_t vs = ts_dtype_size(a->dtype);
  const int64_t b_elements = a->cols * width, c_elements = a->rows * width;
  ts_spmm_options o = {0};
  o.schedule = (ts_schedule)schedule;
  o.layout_b = o.layout_c = lay;
  o.group_size = (int)group_size;
  cli_progress_begin(&progress, "planning");
  status = cli_progress_end(&progress, ts_spmm_plan_create(ctx, a, width, &o, &plan));
  if (status == TS_SUCCESS && !(b = malloc((size_t)b_elements * vs + 8)))
    status = TS_ERROR_OUT_OF_MEMORY;
  if (status == TS_SUCCESS && !(c = malloc((size_t)c_elements * vs + 8)))
    status = TS_ERROR_OUT_OF_MEMORY;
  if (status == TS_ERROR_OUT_OF_MEMORY && !c)
    cli_set_error("no host memory for B and C of %lld columns", (long long)width);
  if (status == TS_SUCCESS)
    status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)b_elements * vs, &bb);
  if (status == TS_SUCCESS)
    status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)c_elements * vs, &bc);
  if (status != TS_SUCCESS)
    goto cleanup;
  for (int64_t e = 0; e < b_elements; e++) {
    if (a->dtype == TS_FLOAT32)
      ((float *)b)[e] = (float)b_value(e);
    else
      ((double *)b)[e] = b_value(e);
  }
  status = ts_buffer_upload(ctx, bb, 0, b, (size_t)b_elements * vs);
  double first = 0, times[SPMM_BURSTS];
  if (status == TS_SUCCESS)
    status = burst(ctx, plan, bb, bc, 1, &first);
  if (status == TS_SUCCESS)
    status = ts_buffer_download(ctx, bc, 0, c, (size_t)c_elements * vs);
  int64_t calls = repeat > 0 ? repeat : 1;
  if (status == TS_SUCCESS && repeat == 0) {
    double probe = 0;
    status = burst(ctx, plan, bb, bc, 3, &probe);
    calls = probe > 0 ? (int64_t)(SPMM_BURST_SECONDS / (probe / 3)) : 1000;
    calls = calls < 1 ? 1 : calls > 100000 ? 100000 : calls;
  }
  for (int t = 0; t < SPMM_BURSTS && status == TS_SUCCESS; t++) {
    status = burst(ctx, plan, bb, bc, calls, &times[t]);
    times[t] /= (double)calls;
  }
  if (status != TS_SUCCESS)
    goto cleanup;
  qsort(times, SPMM_BURSTS, sizeof times[0], compare_doubles);
  const double seconds = times[SPMM_BURSTS / 2];
  int64_t beyond_range = 0;
  const double error = max_error(a, width, lay, b, c, &beyond_range);
  int64_t longest = 0;
  for (int64_t i = 0; i < a->rows; i++)
    longest = a->row_ptr[i + 1] - a->row_ptr[i] > longest ? a->row_ptr[i + 1] - a->row_ptr[i] : longest;
  /* A sum of n terms rounds by at most about n units (Higham, sec. 3.1);
   * the double reference adds its own. */
  const double unit = a->dtype == TS_FLOAT32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
  const double tolerance = (double)(longest + 2) * (unit + ldexp(1.0, -53));
  const bool pass = error <= tolerance;
  const double gbps = (double)ts_spmm_plan_bytes(plan) / seconds / 1e9;
  const double gflops = 2.0 * (double)a->nnz * (double)width / seconds / 1e9;
  const bool cpu = ts_context_backend(ctx) != TS_BACKEND_CUDA;
  if (output.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "spmm");
    cli_json_text(&out, "file", path);
    cli_json_text(&out, "backend", ts_backend_name(ts_context_backend(ctx)));
    cli_fallback_json(&out, ctx);
    cli_json_text(&out, "precision", a->dtype == TS_FLOAT32 ? "single" : "double");
    cli_json_int(&out, "rows", a->rows);
    cli_json_int(&out, "cols", a->cols);
    cli_json_int(&out, "nnz", a->nnz);
    cli_json_int(&out, "width", width);
    cli_json_text(&out, "layout", ts_layout_name(lay));
    cli_json_text(&out, "schedule_requested", cli_schedule_choices[schedule]);
    cli_json_text(&out, "schedule", ts_schedule_name(ts_spmm_plan_schedule(plan)));
    cli_json_bool(&out, "schedule_used", !cpu);
    cli_json_text(&out, "reason", ts_spmm_plan_explain(plan));
    cli_json_int(&out, "repeat", calls);
    cli_json_real(&out, "first_ms", 1e3 * first);
    cli_json_real(&out, "median_ms", 1e3 * seconds);
    cli_json_real(&out, "gbps", gbps);
    cli_json_real(&out, "gflops", gflops);
    cli_json_real(&out, "max_error", error);
    cli_json_real(&out, "tolerance", tolerance);
    cli_json_int(&out, "unchecked_beyond_range", beyond_range);
    cli_json_text(&out, "check", pass ? "PASS" : "FAIL");
    cli_json_end(&out);
  } else {
    cli_line(stdout, "file", "%s", cli_path_label(path, false));
    cli_line(stdout, "backend", "%s", ts_backend_name(ts_context_backend(ctx)));
    cli_fallback_print(stdout, ctx);
    cli_line(stdout, "rows", "%lld", (long long)a->rows);
    cli_line(stdout, "cols", "%lld", (long long)a->cols);
    cli_line(stdout, "nnz", "%lld", (long long)a->nnz);
    cli_line(stdout, "operation", "C = A*B, B and C %s with %lld columns", ts_layout_name(lay), (long long)width);
    cli_line(stdout, "schedule", "%s%s", ts_schedule_name(ts_spmm_plan_schedule(plan)),
             cpu ? " (recorded, not used: the CPU backend has one SpMM implementation)" : "");
    cli_line(stdout, "reason", "%s", ts_spmm_plan_explain(plan));
    cli_line(stdout, "time per call", "%.4f ms (median of %d bursts of %lld calls; first call %.3f ms)", 1e3 * seconds,
             SPMM_BURSTS, (long long)calls, 1e3 * first);
    cli_line(stdout, "rate", "%.1f GB/s, %.1f GFLOP/s", gbps, gflops);
    cli_check_print(stdout, "|A||B|", error, tolerance, beyond_range, a->dtype);
  }
  rc = pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  ts_buffer_destroy(bb);
  ts_buffer_destroy(bc);
  ts_spmm_plan_destroy(plan);
  free(b);
  free(c);
  cli_matrix_release(&matrix);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_spmm = {
    .name = "spmm",
    .summary = "time and check SpMM C = A*B (dense B of any width) on a Matrix Market file",
    .help = spmm_help,
    .run = run_spmm,
};
