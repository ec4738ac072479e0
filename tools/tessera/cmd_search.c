/* tessera search: Q queries into N generated sorted keys through the search
 * plan API, with one algorithm or each in turn, timed on the chosen backend
 * and checked against a plain binary search on the host. */
#include "cli_common.h"
#include "tessera/search.h"

#include <stdlib.h>
#include <string.h>

/* What the check says it compared with. */
#define SEARCH_REFERENCE_NAME "a plain binary search on the host"

static const char search_help[] =
    "Usage: tessera search [options]\n"
    "\n"
    "Generate N sorted keys and Q queries (random, or sorted with\n"
    "--sorted-queries), run the batched search through the plan API on the\n"
    "chosen backend, time it, and with --check compare every index with\n" SEARCH_REFERENCE_NAME ".\n"
    "\n"
    "Options:\n"
    "  --keys N                    keys (default 2^20; forms 1048576, 1e6, 2^20)\n"
    "  --queries Q                 queries (default 2^24)\n"
    "  --type T                    uint32, int32, float, uint64 or double (default\n"
    "                              uint32)\n"
    "  --bound lower|upper         which bound (default lower)\n"
    "  --algorithm A               auto, binary, eytzinger, kary, merge-path,\n"
    "                              radix, or all (each in turn, auto last; default\n"
    "                              auto)\n"
    "  --sorted-queries            generate sorted queries (and tell AUTO so)\n"
    "  --index int32|int64|auto    result width (default auto: int32 for\n"
    "                              N <= 2^31 - 1)\n"
    "  --backend auto|cpu|cuda     where to run (default auto)\n"
    "  --repeat N                  timed calls (default 20)\n"
    "  --seed N                    generator seed (default 1)\n"
    "  --check                     compare with a binary search on the host\n" CLI_HELP_OUTPUT_OPTIONS "\n"
    "Keys are spread evenly over the type's range with random gaps; queries are\n"
    "drawn from the same range, so most fall between keys. The time is the mean\n"
    "of --repeat calls after one warm-up call, ending in one synchronisation.\n"
    "The algorithms are the GPU's: the CPU backend has one implementation (a\n"
    "binary search per query), so there the algorithm is recorded, not used,\n"
    "and --algorithm all runs it once and says so.\n"
    "Exit status: 0 when the check passes (or none was asked), 1 when it fails\n"
    "or on an error, 2 for a bad command line, 130 when cancelled.\n";

static const char *const type_choices[] = {"uint32", "int32", "float", "uint64", "double", NULL};
static const char *const bound_choices[] = {"lower", "upper", NULL};
static const char *const algorithm_choices[] = {"auto",       "binary", "eytzinger", "kary",
                                                "merge-path", "radix",  "all",       NULL};
static const char *const index_choices[] = {"auto", "int32", "int64", NULL};
#define ALGORITHM_ALL TS_SEARCH_ALGORITHM_COUNT

static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Value of rank r (a 64-bit position in the type's range) as key type t. */
static void store(ts_key_type t, void *out, int64_t i, uint64_t r) {
  double unit = (double)(r >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
  switch (t) {
  case TS_KEY_UINT32:
    ((uint32_t *)out)[i] = (uint32_t)(r >> 32);
    break;
  case TS_KEY_INT32:
    ((int32_t *)out)[i] = (int32_t)((int64_t)(r >> 32) - 2147483648LL);
    break;
  case TS_KEY_FLOAT32:
    ((float *)out)[i] = (float)(2.0 * unit - 1.0);
    break;
  case TS_KEY_UINT64:
    ((uint64_t *)out)[i] = r;
    break;
  case TS_KEY_FLOAT64:
    ((double *)out)[i] = 2.0 * unit - 1.0;
    break;
  }
}

/* n sorted values: rank i * step plus a random offset below step. */
static void generate_sorted(ts_key_type t, void *out, int64_t n, uint64_t *seed) {
  uint64_t step = n > 0 ? UINT64_MAX / (uint64_t)n : 0;
  for (int64_t i = 0; i < n; i++)
    store(t, out, i, (uint64_t)i * step + (step ? next_random(seed) % step : 0));
}

static void generate_random(ts_key_type t, void *out, int64_t n, uint64_t *seed) {
  for (int64_t i = 0; i < n; i++)
    store(t, out, i, next_random(seed));
}

typedef struct search_run {
  ts_search_algorithm algorithm; /* resolved */
  char explain[256];
  double ms;
  double gqps;
  int64_t mismatches; /* -1: not checked */
} search_run;

/* keys[i] < q, for key type t. */
static bool key_below(ts_key_type t, const void *keys, int64_t i, const void *queries, int64_t j) {
  switch (t) {
  case TS_KEY_UINT32:
    return ((const uint32_t *)keys)[i] < ((const uint32_t *)queries)[j];
  case TS_KEY_INT32:
    return ((const int32_t *)keys)[i] < ((const int32_t *)queries)[j];
  case TS_KEY_FLOAT32:
    return ((const float *)keys)[i] < ((const float *)queries)[j];
  case TS_KEY_UINT64:
    return ((const uint64_t *)keys)[i] < ((const uint64_t *)queries)[j];
  case TS_KEY_FLOAT64:
    return ((const double *)keys)[i] < ((const double *)queries)[j];
  }
  return false;
}

/* The reference: for each query, the number of keys < q (lower bound) or
 * <= q (upper bound), by a textbook binary search over the sorted keys (the
 * generated keys and queries hold no NaN). Ctrl-C is checked every 2^16
 * queries. */
static ts_status search_reference(ts_key_type t, const void *keys, int64_t n, ts_search_bound bound,
                                  const void *queries, int64_t count, int64_t *want, cli_progress *progress) {
  for (int64_t j = 0; j < count; j++) {
    int64_t lo = 0, hi = n; /* the answer lies in [lo, hi] */
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      /* lower: is keys[mid] < q; upper: is keys[mid] <= q, that is, not q < keys[mid]. */
      bool before =
          bound == TS_BOUND_LOWER ? key_below(t, keys, mid, queries, j) : !key_below(t, queries, j, keys, mid);
      if (before)
        lo = mid + 1;
      else
        hi = mid;
    }
    want[j] = lo;
    if ((j & 0xFFFF) == 0xFFFF && cli_progress_report(progress, j + 1, count) != 0)
      return TS_ERROR_CANCELLED;
  }
  return TS_SUCCESS;
}

/* Time one algorithm: a warm-up call, then @p repeat calls (Ctrl-C checked
 * between calls) ending in one synchronisation; with @p want, count the
 * results that differ from it. */
static ts_status run_one(ts_context *ctx, ts_key_type type, const void *keys, int64_t n, const ts_search_options *o,
                         ts_search_bound bound, const ts_buffer *queries, int64_t count, ts_buffer *results,
                         int64_t repeat, const int64_t *want, cli_progress *progress, search_run *run) {
  ts_search_plan *plan = NULL;
  void *got = NULL;
  ts_status st = ts_search_plan_create(ctx, type, keys, n, o, &plan);
  if (st != TS_SUCCESS)
    goto cleanup;
  run->algorithm = ts_search_plan_algorithm(plan);
  snprintf(run->explain, sizeof run->explain, "%s", ts_search_plan_explain(plan));
  st = ts_search_execute(plan, bound, queries, count, results); /* warm-up */
  if (st == TS_SUCCESS)
    st = ts_context_sync(ctx);
  double start = cli_now();
  for (int64_t i = 0; i < repeat && st == TS_SUCCESS; i++) {
    st = ts_search_execute(plan, bound, queries, count, results);
    if (st == TS_SUCCESS && cli_progress_report(progress, i + 1, repeat) != 0)
      st = TS_ERROR_CANCELLED;
  }
  if (st == TS_SUCCESS)
    st = ts_context_sync(ctx);
  if (st != TS_SUCCESS)
    goto cleanup;
  run->ms = (cli_now() - start) * 1e3 / (double)repeat;
  run->gqps = run->ms > 0 ? (double)count / (run->ms * 1e6) : 0.0;
  run->mismatches = -1;
  if (!want)
    goto cleanup;
  size_t is = ts_search_plan_index_size(plan);
  got = malloc((size_t)count * is + 1);
  if (!got) {
    cli_set_error("no host memory to check %lld results", (long long)count);
    st = TS_ERROR_OUT_OF_MEMORY;
    goto cleanup;
  }
  st = ts_buffer_download(ctx, results, 0, got, (size_t)count * is);
  if (st == TS_SUCCESS) {
    run->mismatches = 0;
    for (int64_t i = 0; i < count; i++) {
      int64_t index = is == sizeof(int32_t) ? ((const int32_t *)got)[i] : ((const int64_t *)got)[i];
      run->mismatches += index != want[i];
    }
  }
cleanup:
  free(got);
  ts_search_plan_destroy(plan);
  return st;
}

static int run_search(int argc, char **argv) {
  int64_t n = (int64_t)1 << 20, count = (int64_t)1 << 24, repeat = 20, seed = 1;
  int type = TS_KEY_UINT32, bound = TS_BOUND_LOWER, algorithm = TS_SEARCH_AUTO, backend = TS_BACKEND_AUTO;
  int index = TS_INDEX_AUTO;
  bool sorted = false, check = false;
  cli_output_flags output = {0};
  cli_option options[] = {
      {.name = "--keys", .kind = CLI_INT, .target = &n, .imin = 0, .imax = (int64_t)1 << 34},
      {.name = "--queries", .kind = CLI_INT, .target = &count, .imin = 0, .imax = (int64_t)1 << 34},
      {.name = "--type", .kind = CLI_CHOICE, .target = &type, .choices = type_choices},
      {.name = "--bound", .kind = CLI_CHOICE, .target = &bound, .choices = bound_choices},
      {.name = "--algorithm", .kind = CLI_CHOICE, .target = &algorithm, .choices = algorithm_choices},
      {.name = "--sorted-queries", .kind = CLI_FLAG, .target = &sorted},
      {.name = "--index", .kind = CLI_CHOICE, .target = &index, .choices = index_choices},
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--repeat", .kind = CLI_INT, .target = &repeat, .imin = 1, .imax = 100000},
      {.name = "--seed", .kind = CLI_INT, .target = &seed, .imin = 0, .imax = INT64_MAX},
      {.name = "--check", .kind = CLI_FLAG, .target = &check},
      CLI_OUTPUT_OPTIONS(output),
  };
  const cli_syntax syntax = {"search", search_help, options, CLI_COUNT(options), NULL, 0, 0};
  int rc = cli_parse(&syntax, argc, argv, NULL, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  /* Before the keys are made: the plan would refuse them only then. */
  if ((ts_index_type)index == TS_INDEX_INT32 && n > INT32_MAX)
    return cli_usage_error("search", "--index int32 cannot number %lld keys (at most 2^31 - 1): use int64 or auto",
                           (long long)n);

  ts_context *ctx = NULL;
  ts_buffer *queries = NULL, *results = NULL;
  void *keys = NULL, *host_queries = NULL;
  int64_t *want = NULL;
  search_run runs[TS_SEARCH_ALGORITHM_COUNT];
  int run_count = 0;
  cli_progress progress;
  size_t ks = ts_key_type_size((ts_key_type)type);
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output);
  if (status != TS_SUCCESS)
    goto cleanup;
  keys = malloc((size_t)n * ks + 1);
  host_queries = malloc((size_t)count * ks + 1);
  want = check ? malloc((size_t)count * sizeof *want + 1) : NULL;
  if (!keys || !host_queries || (check && !want)) {
    cli_set_error("no host memory for %lld keys and %lld queries", (long long)n, (long long)count);
    status = TS_ERROR_OUT_OF_MEMORY;
    goto cleanup;
  }
  uint64_t state = (uint64_t)seed;
  generate_sorted((ts_key_type)type, keys, n, &state);
  if (sorted)
    generate_sorted((ts_key_type)type, host_queries, count, &state);
  else
    generate_random((ts_key_type)type, host_queries, count, &state);
  if (check) {
    cli_progress_begin(&progress, "reference");
    status = search_reference((ts_key_type)type, keys, n, (ts_search_bound)bound, host_queries, count, want, &progress);
    status = cli_progress_end(&progress, status);
    if (status != TS_SUCCESS)
      goto cleanup;
  }
  status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)count * ks, &queries);
  if (status == TS_SUCCESS)
    status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)count * 8, &results);
  if (status == TS_SUCCESS)
    status = ts_buffer_upload(ctx, queries, 0, host_queries, (size_t)count * ks);
  /* One algorithm, or each in turn with AUTO last; the CPU backend, which has
   * one implementation, runs it once for all. */
  bool all = algorithm == ALGORITHM_ALL;
  bool one_implementation = ts_context_backend(ctx) != TS_BACKEND_CUDA;
  int first = all ? (one_implementation ? TS_SEARCH_ALGORITHM_COUNT : 1) : algorithm;
  int last = all ? TS_SEARCH_ALGORITHM_COUNT : algorithm;
  for (int a = first; a <= last && status == TS_SUCCESS; a++) {
    ts_search_options o = {.algorithm = (ts_search_algorithm)(a % TS_SEARCH_ALGORITHM_COUNT),
                           .sorted_queries = sorted,
                           .index_type = (ts_index_type)index};
    cli_progress_begin(&progress, "searching");
    status = run_one(ctx, (ts_key_type)type, keys, n, &o, (ts_search_bound)bound, queries, count, results, repeat, want,
                     &progress, &runs[run_count]);
    status = cli_progress_end(&progress, status);
    if (status == TS_SUCCESS)
      run_count++;
  }
  if (status != TS_SUCCESS)
    goto cleanup;
  bool pass = true;
  for (int i = 0; i < run_count; i++)
    pass = pass && runs[i].mismatches <= 0;
  ts_device_info info;
  status = ts_context_device_info(ctx, &info);
  if (status != TS_SUCCESS)
    goto cleanup;
  if (output.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "search");
    cli_json_text(&out, "backend", ts_backend_name(ts_context_backend(ctx)));
    cli_fallback_json(&out, ctx);
    cli_json_text(&out, "device", info.name);
    cli_json_text(&out, "type", type_choices[type]);
    cli_json_text(&out, "bound", bound_choices[bound]);
    cli_json_int(&out, "keys", n);
    cli_json_int(&out, "queries", count);
    cli_json_bool(&out, "sorted_queries", sorted);
    cli_json_text(&out, "algorithm_requested", algorithm_choices[algorithm]);
    cli_json_bool(&out, "algorithm_used", !one_implementation);
    if (one_implementation)
      cli_json_text(&out, "note",
                    "the CPU backend has one search implementation (a binary search per query): the "
                    "algorithm is recorded, not used, and it ran once");
    for (int i = 0; i < run_count; i++) {
      /* With --algorithm all the last run is AUTO's: named so, not by what it resolved to. */
      bool auto_run = all && i == run_count - 1;
      cli_json_object(&out, auto_run ? "auto" : ts_search_algorithm_name(runs[i].algorithm));
      cli_json_text(&out, "explain", runs[i].explain);
      cli_json_real(&out, "ms", runs[i].ms);
      cli_json_real(&out, "gqueries_per_s", runs[i].gqps);
      if (runs[i].mismatches >= 0)
        cli_json_int(&out, "mismatches", runs[i].mismatches);
      else
        cli_json_null(&out, "mismatches");
      cli_json_close(&out);
    }
    cli_json_text(&out, "check_reference", check ? SEARCH_REFERENCE_NAME : NULL);
    cli_json_bool(&out, "pass", pass);
    cli_json_end(&out);
  } else {
    cli_line(stdout, "backend", "%s (%s)", ts_backend_name(ts_context_backend(ctx)), info.name);
    cli_fallback_print(stdout, ctx);
    cli_line(stdout, "search", "%lld %s queries (%s) into %lld keys, %s bound", (long long)count, type_choices[type],
             sorted ? "sorted" : "random", (long long)n, bound_choices[bound]);
    if (one_implementation)
      cli_line(stdout, "algorithm",
               "%s requested; the CPU backend has one implementation (a binary search per "
               "query): recorded, not used%s",
               algorithm_choices[algorithm], all ? ", so it ran once" : "");
    for (int i = 0; i < run_count; i++) {
      char check_text[96] = "not checked";
      if (runs[i].mismatches == 0)
        snprintf(check_text, sizeof check_text, "check passed");
      else if (runs[i].mismatches > 0)
        snprintf(check_text, sizeof check_text, "CHECK FAILED: %lld differ", (long long)runs[i].mismatches);
      cli_line(stdout, one_implementation ? "cpu" : ts_search_algorithm_name(runs[i].algorithm),
               "%.4f ms  %.4g Gqueries/s  %s", runs[i].ms, runs[i].gqps, check_text);
      cli_line(stdout, "  why", "%s", runs[i].explain);
    }
    if (check)
      cli_line(stdout, "check", "%s: every index against " SEARCH_REFERENCE_NAME, pass ? "PASS" : "FAIL");
  }
  rc = pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  free(keys);
  free(host_queries);
  free(want);
  ts_buffer_destroy(queries);
  ts_buffer_destroy(results);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_search = {
    .name = "search",
    .summary = "time and check batched predecessor search (lower/upper bound) on generated keys",
    .help = search_help,
    .run = run_search,
};
