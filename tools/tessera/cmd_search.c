/* tessera search: Q queries into N generated sorted keys through the search
 * plan API, with one algorithm or each in turn, timed on the chosen backend
 * and checked against the CPU backend. */
#include "cli_common.h"
#include "tessera/search.h"

#include <stdlib.h>
#include <string.h>

static const char search_help[] =
    "Usage: tessera search [options]\n"
    "\n"
    "Generate N sorted keys and Q queries (random, or sorted with\n"
    "--sorted-queries), run the batched search through the plan API on the\n"
    "chosen backend, time it, and with --check compare every index with the\n"
    "CPU backend's.\n"
    "\n"
    "Options:\n"
    "  --keys N                      keys (default 2^20; forms 1048576, 1e6, 2^20)\n"
    "  --queries Q                   queries (default 2^24)\n"
    "  --type T                      uint32, int32, float, uint64 or double (default uint32)\n"
    "  --bound lower|upper           which bound (default lower)\n"
    "  --algorithm A                 auto, binary, eytzinger, kary, merge-path, radix,\n"
    "                                or all\n"
    "                                (each in turn, auto last; default auto)\n"
    "  --sorted-queries              generate sorted queries (and tell AUTO so)\n"
    "  --index int32|int64|auto      result width (default auto: int32 for N <= 2^31 - 1)\n"
    "  --backend auto|cpu|cuda       where to run (default auto)\n"
    "  --repeat N                    timed calls (default 20)\n"
    "  --seed N                      generator seed (default 1)\n"
    "  --check                       compare with the CPU backend\n"
    "  --json                        print one JSON object on stdout, nothing else\n"
    "  -h, --help                    show this help\n"
    "\n"
    "Keys are spread evenly over the type's range with random gaps; queries are\n"
    "drawn from the same range, so most fall between keys. The time is the mean\n"
    "of --repeat calls after one warm-up call, ending in one synchronisation.\n"
    "Exit status: 0 when the check passes (or none was asked), 1 when it fails\n"
    "or on an error, 2 for a bad command line.\n";

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

static ts_status run_one(ts_context *ctx, ts_context *reference, ts_key_type type, const void *keys, int64_t n,
                         const ts_search_options *o, ts_search_bound bound, const ts_buffer *queries,
                         const void *host_queries, int64_t count, ts_buffer *results, int64_t repeat, bool check,
                         search_run *run) {
  ts_search_plan *plan = NULL, *ref_plan = NULL;
  ts_buffer *rq = NULL, *rr = NULL;
  void *got = NULL, *want = NULL;
  ts_status st = ts_search_plan_create(ctx, type, keys, n, o, &plan);
  if (st != TS_SUCCESS)
    goto cleanup;
  run->algorithm = ts_search_plan_algorithm(plan);
  snprintf(run->explain, sizeof run->explain, "%s", ts_search_plan_explain(plan));
  st = ts_search_execute(plan, bound, queries, count, results); /* warm-up */
  if (st == TS_SUCCESS)
    st = ts_context_sync(ctx);
  double start = cli_now();
  for (int64_t i = 0; i < repeat && st == TS_SUCCESS; i++)
    st = ts_search_execute(plan, bound, queries, count, results);
  if (st == TS_SUCCESS)
    st = ts_context_sync(ctx);
  if (st != TS_SUCCESS)
    goto cleanup;
  run->ms = (cli_now() - start) * 1e3 / (double)repeat;
  run->gqps = run->ms > 0 ? (double)count / (run->ms * 1e6) : 0.0;
  run->mismatches = -1;
  if (!check)
    goto cleanup;
  size_t is = ts_search_plan_index_size(plan), ks = ts_key_type_size(type);
  ts_search_options ro = *o;
  ro.algorithm = TS_SEARCH_AUTO;
  got = malloc((size_t)count * is + 1);
  want = malloc((size_t)count * is + 1);
  if (!got || !want) {
    cli_set_error("no host memory to check %lld results", (long long)count);
    st = TS_ERROR_OUT_OF_MEMORY;
    goto cleanup;
  }
  st = ts_buffer_download(ctx, results, 0, got, (size_t)count * is);
  if (st == TS_SUCCESS)
    st = ts_search_plan_create(reference, type, keys, n, &ro, &ref_plan);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(reference, TS_MEMORY_DEVICE, (size_t)count * ks, &rq);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(reference, TS_MEMORY_DEVICE, (size_t)count * is, &rr);
  if (st == TS_SUCCESS)
    st = ts_buffer_upload(reference, rq, 0, host_queries, (size_t)count * ks);
  if (st == TS_SUCCESS)
    st = ts_search_execute(ref_plan, bound, rq, count, rr);
  if (st == TS_SUCCESS)
    st = ts_buffer_download(reference, rr, 0, want, (size_t)count * is);
  if (st == TS_SUCCESS) {
    run->mismatches = 0;
    for (int64_t i = 0; i < count; i++)
      run->mismatches += memcmp((char *)got + i * is, (char *)want + i * is, is) != 0;
  }
cleanup:
  free(got);
  free(want);
  ts_buffer_destroy(rq);
  ts_buffer_destroy(rr);
  ts_search_plan_destroy(ref_plan);
  ts_search_plan_destroy(plan);
  return st;
}

static int run_search(int argc, char **argv) {
  int64_t n = (int64_t)1 << 20, count = (int64_t)1 << 24, repeat = 20, seed = 1;
  int type = TS_KEY_UINT32, bound = TS_BOUND_LOWER, algorithm = TS_SEARCH_AUTO, backend = TS_BACKEND_AUTO;
  int index = TS_INDEX_AUTO;
  bool sorted = false, check = false, json = false;
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
      {.name = "--json", .kind = CLI_FLAG, .target = &json},
  };
  int rc = cli_parse("search", search_help, argc, argv, options, (int)(sizeof options / sizeof options[0]), NULL, NULL,
                     0, 0, NULL);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;

  ts_context *ctx = NULL, *reference = NULL;
  ts_buffer *queries = NULL, *results = NULL;
  void *keys = NULL, *host_queries = NULL;
  search_run runs[TS_SEARCH_ALGORITHM_COUNT];
  int run_count = 0;
  size_t ks = ts_key_type_size((ts_key_type)type);
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  if (check) {
    ts_context_options co = {.backend = TS_BACKEND_CPU};
    status = ts_context_create(&reference, &co);
    if (status != TS_SUCCESS)
      goto cleanup;
  }
  keys = malloc((size_t)n * ks + 1);
  host_queries = malloc((size_t)count * ks + 1);
  if (!keys || !host_queries) {
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
  status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)count * ks, &queries);
  if (status == TS_SUCCESS)
    status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)count * 8, &results);
  if (status == TS_SUCCESS)
    status = ts_buffer_upload(ctx, queries, 0, host_queries, (size_t)count * ks);
  bool all = algorithm == ALGORITHM_ALL;
  for (int a = all ? 1 : algorithm; a <= (all ? TS_SEARCH_ALGORITHM_COUNT : algorithm) && status == TS_SUCCESS; a++) {
    ts_search_options o = {.algorithm = (ts_search_algorithm)(a % TS_SEARCH_ALGORITHM_COUNT),
                           .sorted_queries = sorted,
                           .index_type = (ts_index_type)index};
    status = run_one(ctx, reference, (ts_key_type)type, keys, n, &o, (ts_search_bound)bound, queries, host_queries,
                     count, results, repeat, check, &runs[run_count]);
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
  if (json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "search");
    cli_json_text(&out, "backend", ts_backend_name(ts_context_backend(ctx)));
    cli_json_text(&out, "device", info.name);
    cli_json_text(&out, "type", type_choices[type]);
    cli_json_text(&out, "bound", bound_choices[bound]);
    cli_json_int(&out, "keys", n);
    cli_json_int(&out, "queries", count);
    cli_json_bool(&out, "sorted_queries", sorted);
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
    cli_json_bool(&out, "pass", pass);
    cli_json_end(&out);
  } else {
    cli_line(stdout, "backend", "%s (%s)", ts_backend_name(ts_context_backend(ctx)), info.name);
    cli_line(stdout, "search", "%lld %s queries (%s) into %lld keys, %s bound", (long long)count, type_choices[type],
             sorted ? "sorted" : "random", (long long)n, bound_choices[bound]);
    for (int i = 0; i < run_count; i++) {
      char check_text[64] = "not checked";
      if (runs[i].mismatches == 0)
        snprintf(check_text, sizeof check_text, "check passed");
      else if (runs[i].mismatches > 0)
        snprintf(check_text, sizeof check_text, "CHECK FAILED: %lld differ", (long long)runs[i].mismatches);
      cli_line(stdout, ts_search_algorithm_name(runs[i].algorithm), "%.4f ms  %.4g Gqueries/s  %s", runs[i].ms,
               runs[i].gqps, check_text);
      cli_line(stdout, "  why", "%s", runs[i].explain);
    }
  }
  rc = pass ? CLI_EXIT_OK : CLI_EXIT_FAILURE;

cleanup:
  if (status != TS_SUCCESS)
    rc = cli_library_error(ctx, status);
  free(keys);
  free(host_queries);
  ts_buffer_destroy(queries);
  ts_buffer_destroy(results);
  ts_context_destroy(reference);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_search = {
    .name = "search",
    .summary = "time and check batched predecessor search (lower/upper bound) on generated keys",
    .help = search_help,
    .run = run_search,
};
