/* tessera spgemm: C = A*B (B = A by default, or B^T) for matrices read from
 * Matrix Market files, through the SpGEMM plan's phases (symbolic,
 * allocation, numeric; or row blocks under a memory budget), each timed,
 * checked against the host product in double, optionally written out. */
#include "cli_check.h"
#include "cli_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char spgemm_help[] =
    "Usage: tessera spgemm FILE [FILE_B] [options]\n"
    "\n"
    "Read A (and B; B = A when FILE_B is absent) from Matrix Market files (plain\n"
    "or gzip; '-' reads standard input), expand symmetric storage, and compute\n"
    "C = A*B through the SpGEMM plan on the chosen backend: the symbolic phase\n"
    "(products and exact entries of each row), C's allocation, the numeric\n"
    "phase; each phase is timed. C is checked against the product computed on\n"
    "the host in double: the same entries, and values within the bound of the\n"
    "sums' rounding relative to |A||B|.\n"
    "\n"
    "Options:\n"
    "  --backend auto|cpu|cuda     where to run (default auto)\n"
    "  --precision single|double   value type (default double)\n"
    "  --transpose-b               C = A*B^T (with one file, A*A^T)\n"
    "  --budget BYTES              backend memory the plan may hold (operands,\n"
    "                              workspace and C; default: no limit); when C\n"
    "                              does not fit, the run fails naming the bytes,\n"
    "                              unless --blocked\n"
    "  --blocked                   compute C in row blocks under the budget, each\n"
    "                              copied to host memory\n"
    "  -o, --output FILE           write C as Matrix Market (general, real)\n" CLI_HELP_OUTPUT_OPTIONS "\n"
    "Exit status: 0 when the check passes, 1 when it fails or on an error,\n"
    "2 for a bad command line, 130 when cancelled.\n";

static const char *const file_names[] = {"FILE", "FILE_B"};

/* Copy of @p m in double, with |values| when @p absolute (for the bound). */
static ts_status widen(ts_context *ctx, const ts_csr *m, bool absolute, ts_csr **out) {
  ts_status st = ts_csr_create(ctx, m->rows, m->cols, m->nnz, TS_FLOAT64, out);
  if (st != TS_SUCCESS)
    return st;
  memcpy((*out)->row_ptr, m->row_ptr, (size_t)(m->rows + 1) * sizeof(int64_t));
  if (m->nnz > 0)
    memcpy((*out)->col_idx, m->col_idx, (size_t)m->nnz * sizeof(int32_t));
  for (int64_t k = 0; k < m->nnz; k++) {
    const double v = m->dtype == TS_FLOAT32 ? (double)((const float *)m->values)[k] : ((const double *)m->values)[k];
    ((double *)(*out)->values)[k] = absolute ? fabs(v) : v;
  }
  return TS_SUCCESS;
}

/* The check: C's pattern equal to the host product's, each value within
 * (longest row of A + 2)(u + 2^-53) |A||B| of it. *error gets the largest
 * error relative to |A||B| (infinite for a pattern mismatch). */
static ts_status check_product(ts_context *ctx, const ts_csr *a, const ts_csr *b, const ts_csr *c, double *error,
                               double *tolerance, int64_t *beyond_range) {
  ts_csr *a64 = NULL, *b64 = NULL, *ref = NULL, *abs_a = NULL, *abs_b = NULL, *bound = NULL;
  ts_status st = widen(ctx, a, false, &a64);
  if (st == TS_SUCCESS)
    st = widen(ctx, b, false, &b64);
  if (st == TS_SUCCESS)
    st = widen(ctx, a, true, &abs_a);
  if (st == TS_SUCCESS)
    st = widen(ctx, b, true, &abs_b);
  if (st == TS_SUCCESS)
    st = ts_csr_spgemm_host(ctx, a64, b64, &ref);
  if (st == TS_SUCCESS)
    st = ts_csr_spgemm_host(ctx, abs_a, abs_b, &bound);
  int64_t longest = 0;
  for (int64_t i = 0; i < a->rows; i++)
    longest = a->row_ptr[i + 1] - a->row_ptr[i] > longest ? a->row_ptr[i + 1] - a->row_ptr[i] : longest;
  *tolerance = (double)(longest + 2) * ((c->dtype == TS_FLOAT32 ? ldexp(1.0, -24) : ldexp(1.0, -53)) + ldexp(1.0, -53));
  *error = 0;
  *beyond_range = 0;
  if (st == TS_SUCCESS) {
    const bool same = ref->nnz == c->nnz &&
                      memcmp(ref->row_ptr, c->row_ptr, (size_t)(c->rows + 1) * sizeof(int64_t)) == 0 &&
                      (c->nnz == 0 || memcmp(ref->col_idx, c->col_idx, (size_t)c->nnz * sizeof(int32_t)) == 0);
    for (int64_t e = 0; same && e < c->nnz; e++) {
      const double got =
          c->dtype == TS_FLOAT32 ? (double)((const float *)c->values)[e] : ((const double *)c->values)[e];
      const double relative = cli_entry_error(got, ((const double *)ref->values)[e], ((const double *)bound->values)[e],
                                              c->dtype, beyond_range);
      if (!(relative <= *error))
        *error = relative;
    }
    if (!same)
      *error = INFINITY;
  }
  ts_csr_destroy(a64);
  ts_csr_destroy(b64);
  ts_csr_destroy(abs_a);
  ts_csr_destroy(abs_b);
  ts_csr_destroy(ref);
  ts_csr_destroy(bound);
  return st;
}

/* The plan's phases, each timed; C copied to the host. */
typedef struct spgemm_times {
  double symbolic, allocate, numeric, blocked;
} spgemm_times;

static ts_status compute(ts_context *ctx, ts_spgemm_plan *plan, bool blocked, cli_progress *progress, spgemm_times *t,
                         ts_csr **c) {
  ts_status st;
  double start = cli_now();
  if (blocked) {
    cli_progress_begin(progress, "row blocks");
    st = cli_progress_end(progress, ts_spgemm_blocked(plan, c));
    t->blocked = cli_now() - start;
    return st;
  }
  cli_progress_begin(progress, "symbolic phase");
  st = cli_progress_end(progress, ts_spgemm_symbolic(plan));
  t->symbolic = cli_now() - start;
  start = cli_now();
  if (st == TS_SUCCESS)
    st = ts_spgemm_allocate(plan);
  t->allocate = cli_now() - start;
  start = cli_now();
  if (st == TS_SUCCESS)
    st = ts_spgemm_numeric(plan);
  if (st == TS_SUCCESS)
    st = ts_context_sync(ctx);
  t->numeric = cli_now() - start;
  if (st == TS_SUCCESS)
    st = ts_spgemm_download(plan, c);
  return st;
}

static int run_spgemm(int argc, char **argv) {
  int backend = TS_BACKEND_AUTO, precision = TS_FLOAT64;
  int64_t budget = 0;
  bool transpose = false, blocked = false;
  const char *output_path = NULL;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      {.name = "--transpose-b", .kind = CLI_FLAG, .target = &transpose},
      {.name = "--budget", .kind = CLI_INT, .target = &budget, .imin = 1, .imax = INT64_MAX},
      {.name = "--blocked", .kind = CLI_FLAG, .target = &blocked},
      {.name = "--output", .short_name = 'o', .kind = CLI_TEXT, .target = &output_path},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"spgemm", spgemm_help, options, CLI_COUNT(options), file_names, 1, 2};
  const char *paths[2] = {NULL, NULL};
  int count = 0;
  int rc = cli_parse(&syntax, argc, argv, paths, &count);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  rc = cli_check_paths("spgemm", paths, count, &output_path, 1, output.json);
  if (rc != 0)
    return rc;

  ts_context *ctx = NULL;
  cli_matrix ma = {0}, mb = {0};
  cli_progress progress;
  ts_spgemm_plan *plan = NULL;
  ts_csr *bt = NULL, *c = NULL;
  spgemm_times t = {0};
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output);
  if (status == TS_SUCCESS)
    status = cli_matrix_read(ctx, &progress, paths[0], (ts_dtype)precision, &ma);
  if (status == TS_SUCCESS && count == 2)
    status = cli_matrix_read(ctx, &progress, paths[1], (ts_dtype)precision, &mb);
  const ts_csr *b = count == 2 ? mb.csr : ma.csr;
  if (status == TS_SUCCESS && transpose) {
    status = ts_csr_transpose(ctx, b, &bt);
    b = bt;
  }
  ts_spgemm_options o = {0};
  o.memory_budget = budget;
  if (status == TS_SUCCESS)
    status = ts_spgemm_plan_create(ctx, ma.csr, b, &o, &plan);
  if (status == TS_SUCCESS)
    status = compute(ctx, plan, blocked, &progress, &t, &c);
  double error = 0, tolerance = 0;
  int64_t beyond_range = 0;
  if (status == TS_SUCCESS) {
    cli_progress_begin(&progress, "checking on the host");
    status = cli_progress_end(&progress, check_product(ctx, ma.csr, b, c, &error, &tolerance, &beyond_range));
  }
  if (status == TS_SUCCESS && output_path) {
    cli_progress_begin(&progress, "writing");
    status = cli_progress_end(&progress, cli_mm_write_csr(ctx, output_path, c, NULL));
  }
  if (status != TS_SUCCESS)
    goto cleanup;
  const bool pass = error <= tolerance;
  const char *product = transpose ? "C = A*B^T" : "C = A*B";
  /* With C on stdout, the report goes to stderr. */
  FILE *report = output_path && cli_is_stdio(output_path) ? stderr : stdout;
  if (output.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "spgemm");
    cli_json_text(&out, "file", paths[0]);
    cli_json_text(&out, "file_b", count == 2 ? paths[1] : paths[0]);
    cli_json_text(&out, "operation", product);
    cli_json_text(&out, "backend", ts_backend_name(ts_context_backend(ctx)));
    cli_fallback_json(&out, ctx);
    cli_json_text(&out, "precision", precision == TS_FLOAT32 ? "single" : "double");
    cli_json_int(&out, "rows", c->rows);
    cli_json_int(&out, "cols", c->cols);
    cli_json_int(&out, "products", ts_spgemm_plan_products(plan));
    cli_json_int(&out, "nnz", c->nnz);
    cli_json_int(&out, "backend_bytes", ts_spgemm_plan_device_bytes(plan));
    cli_json_bool(&out, "blocked", blocked);
    cli_json_real(&out, "symbolic_ms", 1e3 * t.symbolic);
    cli_json_real(&out, "allocate_ms", 1e3 * t.allocate);
    cli_json_real(&out, "numeric_ms", 1e3 * t.numeric);
    cli_json_real(&out, "blocked_ms", 1e3 * t.blocked);
    cli_json_text(&out, "plan", ts_spgemm_plan_explain(plan));
    cli_json_real(&out, "max_error", error);
    cli_json_real(&out, "tolerance", tolerance);
    cli_json_int(&out, "unchecked_beyond_range", beyond_range);
    cli_json_text(&out, "output", output_path);
    cli_json_text(&out, "check", pass ? "PASS" : "FAIL");
    cli_json_end(&out);
  } else {
    cli_line(report, "operation", "%s of %lld x %lld", product, (long long)c->rows, (long long)c->cols);
    cli_line(report, "backend", "%s", ts_backend_name(ts_context_backend(ctx)));
    cli_fallback_print(report, ctx);
    cli_line(report, "products", "%lld", (long long)ts_spgemm_plan_products(plan));
    cli_line(report, "nnz", "%lld", (long long)c->nnz);
    cli_line(report, "plan", "%s", ts_spgemm_plan_explain(plan));
    if (blocked)
      cli_line(report, "time", "%.3f ms in row blocks (budget %lld bytes)", 1e3 * t.blocked, (long long)budget);
    else
      cli_line(report, "time", "%.3f ms: symbolic %.3f, allocation %.3f, numeric %.3f",
               1e3 * (t.symbolic + t.allocate + t.numeric), 1e3 * t.symbolic, 1e3 * t.allocate, 1e3 * t.numeric);
    cli_line(report, "memory", "%lld bytes held by the plan", (long long)ts_spgemm_plan_device_bytes(plan));
    cli_check_print(report, "|A||B|", error, tolerance, beyond_range, c->dtype);
    if (output_path)
      cli_line(report, "wrote", "%s", cli_path_label(output_path, true));
  }
  rc = pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  ts_csr_destroy(c);
  ts_csr_destroy(bt);
  ts_spgemm_plan_destroy(plan);
  cli_matrix_release(&ma);
  cli_matrix_release(&mb);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_spgemm = {
    .name = "spgemm",
    .summary = "compute and check C = A*B (or A*A, A*A^T) of Matrix Market files, phase by phase",
    .help = spgemm_help,
    .run = run_spgemm,
};
