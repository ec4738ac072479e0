/* tessera sort: generate keys (random, sorted, reverse, few distinct, or the
 * bank-conflict worst case of a GPU merge sort), sort them through the plan
 * API on the chosen backend, time it, and check the result against a stable
 * qsort of the same input on the host. */
#include "cli_common.h"
#include "cli_sort_reference.h"
#include "tessera/sort.h"

#include <stdlib.h>
#include <string.h>

static const char sort_help[] =
    "Usage: tessera sort [options]\n"
    "\n"
    "Generate N keys, sort them with ts_sort on the chosen backend (stable; floats\n"
    "in a total order with -0 before +0 and every NaN last), time the sort, and\n"
    "with --check compare keys and values bit for bit with " CLI_SORT_REFERENCE_NAME ",\n"
    "written from the order documented in tessera/sort.h (independent of both\n"
    "backends).\n"
    "\n"
    "Options:\n"
    "  --n N                       number of keys, 0 to 2^31-1 (default 2^20)\n"
    "  --type T                    uint32, int32, float, uint64, double (default\n"
    "                              uint32)\n"
    "  --input I                   random, sorted, reverse, few-distinct,\n"
    "                              worst-case (default random)\n"
    "  --values V                  none, uint32, uint64, index (default none)\n"
    "  --pairs                     the same as --values uint32\n"
    "  --descending                largest key first (NaNs still last)\n"
    "  --items-per-thread E        worst case: items per thread, odd (default 17)\n"
    "  --threads-per-block U       worst case: threads per block (default 256)\n"
    "  --seed S                    random seed (default 1)\n"
    "  --backend auto|cpu|cuda     where to run (default auto)\n"
    "  --repeat N                  timed sorts of fresh copies (default 5)\n"
    "  --check                     compare with the host reference sort\n" CLI_HELP_OUTPUT_OPTIONS "\n"
    "The time is the median over --repeat sorts of the host wall time of one\n"
    "ts_sort_execute and the synchronisation after it (the copy of the input\n"
    "before each sort is not timed). E = 17, U = 256 is CUB's merge sort tuning.\n"
    "Exit status: 0 when the check passes (or is not asked for), 1 when it fails\n"
    "or on an error, 2 for a bad command line, 130 when cancelled.\n";

static const char *const type_choices[] = {"uint32", "int32", "float", "uint64", "double", NULL};
static const char *const input_choices[] = {"random", "sorted", "reverse", "few-distinct", "worst-case", NULL};
static const char *const value_choices[] = {"none", "uint32", "uint64", "index", NULL};

typedef struct sort_setup {
  ts_sort_options options;
  const void *keys, *values; /* host input */
  int64_t repeat;
} sort_setup;

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sort on @p ctx @p s->repeat times after a warm-up (Ctrl-C checked between
 * sorts): the median seconds into *seconds, the result into out_keys and
 * out_values. */
static ts_status sort_timed(ts_context *ctx, const sort_setup *s, cli_progress *progress, void *out_keys,
                            void *out_values, double *seconds) {
  int64_t n = s->options.max_n;
  size_t kb = (size_t)n * ts_sort_key_size(s->options.key), vb = (size_t)n * ts_sort_value_size(s->options.value);
  ts_sort_plan *plan = NULL;
  ts_buffer *input = NULL, *keys = NULL, *values = NULL, *work = NULL;
  double *times = calloc((size_t)s->repeat, sizeof *times);
  ts_status st = times ? ts_sort_plan_create(ctx, &s->options, &plan) : TS_ERROR_OUT_OF_MEMORY;
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, kb, &input);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, kb, &keys);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, vb, &values);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, ts_sort_plan_workspace_bytes(plan), &work);
  if (st == TS_SUCCESS)
    st = ts_buffer_upload(ctx, input, 0, s->keys, kb);
  for (int64_t r = -1; r < s->repeat && st == TS_SUCCESS; r++) { /* r = -1: warm-up */
    st = ts_buffer_copy(ctx, keys, 0, input, 0, kb);
    if (st == TS_SUCCESS && vb > 0)
      st = ts_buffer_upload(ctx, values, 0, s->values, vb);
    if (st == TS_SUCCESS)
      st = ts_context_sync(ctx);
    double t0 = cli_now();
    if (st == TS_SUCCESS)
      st = ts_sort_execute(plan, n, keys, s->options.value != TS_SORT_VALUE_NONE ? values : NULL, work);
    if (st == TS_SUCCESS)
      st = ts_context_sync(ctx);
    if (r >= 0)
      times[r] = cli_now() - t0;
    if (st == TS_SUCCESS && cli_progress_report(progress, r + 2, s->repeat + 1) != 0)
      st = TS_ERROR_CANCELLED;
  }
  if (st == TS_SUCCESS)
    st = ts_buffer_download(ctx, keys, 0, out_keys, kb);
  if (st == TS_SUCCESS && vb > 0)
    st = ts_buffer_download(ctx, values, 0, out_values, vb);
  if (st == TS_SUCCESS) {
    qsort(times, (size_t)s->repeat, sizeof *times, compare_doubles);
    *seconds = times[s->repeat / 2];
  }
  ts_buffer_destroy(input);
  ts_buffer_destroy(keys);
  ts_buffer_destroy(values);
  ts_buffer_destroy(work);
  ts_sort_plan_destroy(plan);
  free(times);
  return st;
}

static int run_sort(int argc, char **argv) {
  int backend = TS_BACKEND_AUTO, type = 0, input = 0, value = 0;
  int64_t n = 1 << 20, e = 17, u = 256, seed = 1, repeat = 5;
  bool pairs = false, descending = false, check = false;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--n", .kind = CLI_INT, .target = &n, .imin = 0, .imax = INT32_MAX},
      {.name = "--type", .kind = CLI_CHOICE, .target = &type, .choices = type_choices},
      {.name = "--input", .kind = CLI_CHOICE, .target = &input, .choices = input_choices},
      {.name = "--values", .kind = CLI_CHOICE, .target = &value, .choices = value_choices},
      {.name = "--pairs", .kind = CLI_FLAG, .target = &pairs},
      {.name = "--descending", .kind = CLI_FLAG, .target = &descending},
      {.name = "--items-per-thread", .kind = CLI_INT, .target = &e, .imin = 1, .imax = 63},
      {.name = "--threads-per-block", .kind = CLI_INT, .target = &u, .imin = 32, .imax = 1024},
      {.name = "--seed", .kind = CLI_INT, .target = &seed, .imin = 0, .imax = INT64_MAX},
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--repeat", .kind = CLI_INT, .target = &repeat, .imin = 1, .imax = 1000},
      {.name = "--check", .kind = CLI_FLAG, .target = &check},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"sort", sort_help, options, CLI_COUNT(options), NULL, 0, 0};
  int rc = cli_parse(&syntax, argc, argv, NULL, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  if (pairs && cli_option_seen(options, CLI_COUNT(options), "--values") && value != TS_SORT_VALUE_UINT32)
    return cli_usage_error("sort", "--pairs means --values uint32, not %s", value_choices[value]);
  if (pairs)
    value = TS_SORT_VALUE_UINT32;
  if (input == TS_SORT_INPUT_WORST_CASE && (e % 2 == 0 || (u & (u - 1)) != 0))
    return cli_usage_error("sort", "the worst case needs an odd --items-per-thread and a power-of-two "
                                   "--threads-per-block");

  ts_context *ctx = NULL;
  cli_progress progress;
  sort_setup s = {{(ts_sort_key)type, (ts_sort_value)value, descending ? TS_SORT_DESCENDING : TS_SORT_ASCENDING, n},
                  NULL,
                  NULL,
                  repeat};
  size_t kb = (size_t)n * ts_sort_key_size(s.options.key) + 8, vb = (size_t)n * 8 + 8;
  char *keys = malloc(kb), *values = malloc(vb), *out_keys = malloc(kb), *out_values = malloc(vb);
  char *ref_keys = check ? malloc(kb) : NULL, *ref_values = check ? malloc(vb) : NULL;
  double seconds = 0;
  bool pass = true;
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    goto cleanup;
  status = cli_progress_attach(ctx, &progress, &output);
  if (status != TS_SUCCESS)
    goto cleanup;
  if (!keys || !values || !out_keys || !out_values || (check && (!ref_keys || !ref_values))) {
    cli_set_error("no host memory for %lld keys", (long long)n);
    status = TS_ERROR_OUT_OF_MEMORY;
    goto cleanup;
  }
  cli_progress_begin(&progress, "generating");
  status = ts_sort_generate(ctx, (ts_sort_input)input, s.options.key, n, (uint64_t)seed, (int)e, (int)u, keys);
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  for (int64_t i = 0; i < n; i++) { /* payload: the input position, so moves are visible */
    if (value == TS_SORT_VALUE_UINT32)
      ((uint32_t *)values)[i] = (uint32_t)i;
    else if (value == TS_SORT_VALUE_UINT64)
      ((uint64_t *)values)[i] = (uint64_t)i << 20;
  }
  s.keys = keys;
  s.values = values;
  cli_progress_begin(&progress, "sorting");
  status = sort_timed(ctx, &s, &progress, out_keys, out_values, &seconds);
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  if (check) {
    cli_progress_begin(&progress, "checking");
    status = cli_sort_reference(s.options.key, descending, s.options.value, keys, n, ref_keys, ref_values, &progress);
    status = cli_progress_end(&progress, status);
    if (status != TS_SUCCESS)
      goto cleanup;
    size_t vbytes = (size_t)n * ts_sort_value_size(s.options.value);
    pass = memcmp(ref_keys, out_keys, (size_t)n * ts_sort_key_size(s.options.key)) == 0 &&
           memcmp(ref_values, out_values, vbytes) == 0;
  }
  {
    ts_device_info info;
    status = ts_context_device_info(ctx, &info);
    if (status != TS_SUCCESS)
      goto cleanup;
    double gkeys = seconds > 0 ? (double)n / seconds / 1e9 : 0.0;
    const char *check_text = check ? (pass ? "PASS" : "FAIL") : "not asked";
    if (output.json) {
      cli_json out;
      cli_json_begin(&out, stdout);
      cli_json_text(&out, "command", "sort");
      cli_json_int(&out, "n", n);
      cli_json_text(&out, "type", type_choices[type]);
      cli_json_text(&out, "input", input_choices[input]);
      cli_json_text(&out, "values", value_choices[value]);
      cli_json_text(&out, "order", descending ? "descending" : "ascending");
      cli_json_text(&out, "backend", ts_backend_name(ts_context_backend(ctx)));
      cli_fallback_json(&out, ctx);
      cli_json_text(&out, "device", info.name);
      cli_json_int(&out, "repeat", repeat);
      cli_json_real(&out, "median_ms", seconds * 1e3);
      cli_json_real(&out, "gkeys_per_s", gkeys);
      cli_json_text(&out, "check", check_text);
      cli_json_text(&out, "check_reference", check ? CLI_SORT_REFERENCE_NAME : NULL);
      cli_json_end(&out);
    } else {
      cli_line(stdout, "keys", "%lld %s (%s)", (long long)n, type_choices[type], input_choices[input]);
      cli_line(stdout, "values", "%s", value_choices[value]);
      cli_line(stdout, "order", "%s", descending ? "descending" : "ascending");
      cli_line(stdout, "backend", "%s (%s)", ts_backend_name(ts_context_backend(ctx)), info.name);
      cli_fallback_print(stdout, ctx);
      cli_line(stdout, "time", "%.3f ms (median of %lld)", seconds * 1e3, (long long)repeat);
      cli_line(stdout, "throughput", "%.3f Gkeys/s", gkeys);
      if (check)
        cli_line(stdout, "check", "%s (keys and values against " CLI_SORT_REFERENCE_NAME ", bit for bit)", check_text);
      else
        cli_line(stdout, "check", "%s", check_text);
    }
  }
  rc = pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  free(keys);
  free(values);
  free(out_keys);
  free(out_values);
  free(ref_keys);
  free(ref_values);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_sort = {
    .name = "sort",
    .summary = "generate keys, sort them (CPU or GPU), time and check the sort",
    .help = sort_help,
    .run = run_sort,
};
