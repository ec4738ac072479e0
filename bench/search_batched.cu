/* Batched predecessor search against thrust::lower_bound: 2^26 queries
 * (random, then sorted) into N = 1 Ki, 1 Mi and 64 Mi sorted uint32 keys;
 * every tessera algorithm (binary, eytzinger, kary, merge-path, auto) and
 * Thrust in one process on the same device data and stream. Every result is
 * checked against a host binary search (every 61st query) before timing;
 * times are medians of CUDA-event timed calls after a warm-up. Reported:
 * Gqueries/s, the ratio to Thrust, and the fraction of the bandwidth bound
 * (each query read, 4 B, and its index written, 4 B as int32, against the
 * copy bandwidth measured in this run). Then the shared-memory batched
 * search (many small arrays): conflict-limited against naive binary search.
 *
 *   search_batched [--csv PATH] [--md PATH] [--queries Q] [--repeat R] [--quick] */
#include "tsb_cuda.h"

#include <tessera/search.h>
#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* n sorted uint32 values spread over the whole range with random gaps. */
static void sorted_values(uint32_t *out, int64_t n, uint64_t *seed) {
  uint64_t step = ((uint64_t)1 << 32) / (uint64_t)n;
  for (int64_t i = 0; i < n; i++)
    out[i] = (uint32_t)((uint64_t)i * step + (step > 1 ? next_random(seed) % step : 0));
}

static int64_t host_lower_bound(const uint32_t *keys, int64_t n, uint32_t q) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < q)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Every 61st result against the host search; returns the mismatches. */
static int64_t check_sample(const uint32_t *keys, int64_t n, const uint32_t *queries, const int32_t *results,
                            int64_t count) {
  int64_t wrong = 0;
  for (int64_t i = 0; i < count; i += 61)
    wrong += results[i] != host_lower_bound(keys, n, queries[i]);
  return wrong;
}

struct search_job {
  ts_search_plan *plan;
  ts_buffer *queries, *results;
  int64_t count;
};

static int run_search(void *user, void *stream) {
  (void)stream;
  search_job *j = (search_job *)user;
  ts_status st = ts_search_execute(j->plan, TS_BOUND_LOWER, j->queries, j->count, j->results);
  if (st != TS_SUCCESS) {
    fprintf(stderr, "ts_search_execute: %s\n", ts_status_string(st));
    return 1;
  }
  return 0;
}

struct thrust_job {
  const uint32_t *keys;
  int64_t n;
  const uint32_t *queries;
  int32_t *results;
  int64_t count;
};

static int run_thrust(void *user, void *stream) {
  thrust_job *j = (thrust_job *)user;
  thrust::lower_bound(thrust::cuda::par.on((cudaStream_t)stream), thrust::device_pointer_cast(j->keys),
                      thrust::device_pointer_cast(j->keys + j->n), thrust::device_pointer_cast(j->queries),
                      thrust::device_pointer_cast(j->queries + j->count), thrust::device_pointer_cast(j->results));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

struct batched_job {
  ts_context *ctx;
  ts_search_batched_algorithm algorithm;
  ts_buffer *keys, *queries, *results;
  int64_t arrays, n, m;
};

static int run_batched(void *user, void *stream) {
  (void)stream;
  batched_job *j = (batched_job *)user;
  ts_status st = ts_search_batched(j->ctx, TS_KEY_UINT32, TS_BOUND_LOWER, j->algorithm, j->keys, j->arrays, j->n,
                                   j->queries, j->m, j->results);
  return st == TS_SUCCESS ? 0 : 1;
}

static const char *const columns[] = {"case",      "keys",       "queries",   "order",          "algorithm",
                                      "median_ms", "gqueries_s", "vs_anchor", "bound_fraction", "check"};

int main(int argc, char **argv) {
  const char *csv_path = "bench-out/search-batched.csv", *md_path = NULL;
  int64_t count = (int64_t)1 << 26;
  int repeat = 20, warmup = 3;
  bool quick = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--csv") && i + 1 < argc)
      csv_path = argv[++i];
    else if (!strcmp(argv[i], "--md") && i + 1 < argc)
      md_path = argv[++i];
    else if (!strcmp(argv[i], "--queries") && i + 1 < argc)
      count = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick"))
      quick = true;
    else {
      fprintf(stderr, "usage: %s [--csv PATH] [--md PATH] [--queries Q] [--repeat R] [--quick]\n", argv[0]);
      return 2;
    }
  }
  if (quick) {
    count = (int64_t)1 << 22;
    repeat = 5;
  }
  ts_context *ctx = NULL;
  ts_context_options co;
  memset(&co, 0, sizeof co);
  co.backend = TS_BACKEND_CUDA;
  if (ts_context_create(&ctx, &co) != TS_SUCCESS) {
    printf("SKIPPED: %s\n", ts_last_error(NULL));
    return 77;
  }
  cudaStream_t stream = (cudaStream_t)ts_context_stream(ctx);
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_copy_bandwidth copy;
  if (tsb_measure_copy_bandwidth(stream, (size_t)1 << 30, 10, &copy) != 0)
    return 1;
  tsb_metadata_set(&meta, "copy_bandwidth_gbps", "%.0f", copy.best_gbps);
  tsb_metadata_set(&meta, "bound", "query 4 B read + int32 index 4 B written per query, over the copy bandwidth");
  tsb_table *table = tsb_table_create(10, columns);
  const int64_t sizes[] = {1024, (int64_t)1 << 20, (int64_t)1 << 26};
  const int size_count = quick ? 2 : 3;
  uint64_t seed = 12345;
  uint32_t *host_random = (uint32_t *)malloc((size_t)count * 4), *host_sorted = (uint32_t *)malloc((size_t)count * 4);
  int32_t *host_results = (int32_t *)malloc((size_t)count * 4);
  uint32_t *host_keys = (uint32_t *)malloc((size_t)sizes[size_count - 1] * 4);
  if (!host_random || !host_sorted || !host_results || !host_keys)
    return 1;
  for (int64_t i = 0; i < count; i++)
    host_random[i] = (uint32_t)next_random(&seed);
  sorted_values(host_sorted, count, &seed);
  ts_buffer *queries[2] = {NULL, NULL}, *results = NULL;
  TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)count * 4, &queries[0]));
  TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)count * 4, &queries[1]));
  TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)count * 4, &results));
  TSB_TS_TRY(ctx, ts_buffer_upload(ctx, queries[0], 0, host_random, (size_t)count * 4));
  TSB_TS_TRY(ctx, ts_buffer_upload(ctx, queries[1], 0, host_sorted, (size_t)count * 4));
  const uint32_t *host_queries[2] = {host_random, host_sorted};
  const char *const order_names[2] = {"random", "sorted"};
  int failures = 0;

  for (int s = 0; s < size_count; s++) {
    int64_t n = sizes[s];
    sorted_values(host_keys, n, &seed);
    uint32_t *device_keys = NULL;
    TSB_CUDA_TRY(cudaMalloc(&device_keys, (size_t)n * 4));
    TSB_CUDA_TRY(cudaMemcpy(device_keys, host_keys, (size_t)n * 4, cudaMemcpyHostToDevice));
    for (int order = 0; order < 2; order++) {
      /* The anchor first. */
      thrust_job tj = {device_keys, n, (const uint32_t *)ts_buffer_data(queries[order]),
                       (int32_t *)ts_buffer_data(results), count};
      TSB_CUDA_TRY(cudaMemsetAsync(tj.results, 0xff, (size_t)count * 4, stream));
      if (run_thrust(&tj, stream) != 0)
        return 1;
      TSB_CUDA_TRY(cudaStreamSynchronize(stream));
      TSB_CUDA_TRY(cudaMemcpy(host_results, tj.results, (size_t)count * 4, cudaMemcpyDeviceToHost));
      int64_t wrong = check_sample(host_keys, n, host_queries[order], host_results, count);
      tsb_stats thrust_ms;
      if (tsb_time_events(stream, warmup, repeat, run_thrust, &tj, &thrust_ms) != 0)
        return 1;
      double thrust_gq = (double)count / (thrust_ms.median * 1e6);
      double bound_gq = copy.best_gbps / 8.0; /* Gqueries/s at the copy bandwidth, 8 B per query */
      tsb_table_cell(table, "%s", "global");
      tsb_table_cell(table, "%lld", (long long)n);
      tsb_table_cell(table, "%lld", (long long)count);
      tsb_table_cell(table, "%s", order_names[order]);
      tsb_table_cell(table, "%s", "thrust::lower_bound");
      tsb_table_cell(table, "%.4f", thrust_ms.median);
      tsb_table_cell(table, "%.2f", thrust_gq);
      tsb_table_cell(table, "%.2f", 1.0);
      tsb_table_cell(table, "%.3f", thrust_gq / bound_gq);
      tsb_table_cell(table, "%s", wrong ? "FAILED" : "ok");
      failures += wrong != 0;
      for (int a = 1; a <= TS_SEARCH_ALGORITHM_COUNT; a++) {
        ts_search_options o;
        memset(&o, 0, sizeof o);
        o.algorithm = (ts_search_algorithm)(a % TS_SEARCH_ALGORITHM_COUNT);
        o.sorted_queries = order == 1;
        o.index_type = TS_INDEX_INT32;
        search_job job = {NULL, queries[order], results, count};
        TSB_TS_TRY(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, host_keys, n, &o, &job.plan));
        TSB_TS_TRY(ctx, ts_buffer_fill_bytes(ctx, results, 0xff));
        TSB_TS_TRY(ctx, ts_search_execute(job.plan, TS_BOUND_LOWER, queries[order], count, results));
        TSB_TS_TRY(ctx, ts_buffer_download(ctx, results, 0, host_results, (size_t)count * 4));
        wrong = check_sample(host_keys, n, host_queries[order], host_results, count);
        tsb_stats ms;
        if (tsb_time_events(stream, warmup, repeat, run_search, &job, &ms) != 0)
          return 1;
        double gq = (double)count / (ms.median * 1e6);
        char name[64];
        snprintf(name, sizeof name, "%s%s", a == TS_SEARCH_ALGORITHM_COUNT ? "auto=" : "",
                 ts_search_algorithm_name(ts_search_plan_algorithm(job.plan)));
        tsb_table_cell(table, "%s", "global");
        tsb_table_cell(table, "%lld", (long long)n);
        tsb_table_cell(table, "%lld", (long long)count);
        tsb_table_cell(table, "%s", order_names[order]);
        tsb_table_cell(table, "%s", name);
        tsb_table_cell(table, "%.4f", ms.median);
        tsb_table_cell(table, "%.2f", gq);
        tsb_table_cell(table, "%.2f", gq / thrust_gq);
        tsb_table_cell(table, "%.3f", gq / bound_gq);
        tsb_table_cell(table, "%s", wrong ? "FAILED" : "ok");
        failures += wrong != 0;
        ts_search_plan_destroy(job.plan);
      }
    }
    TSB_CUDA_TRY(cudaFree(device_keys));
  }

  /* Many small arrays in shared memory: naive binary search is the anchor. */
  const int64_t small_sizes[] = {256, 1024, 2048};
  for (int s = 0; s < 3; s++) {
    int64_t n = small_sizes[s], m = 4096, arrays = count / m;
    uint32_t *keys = (uint32_t *)malloc((size_t)(arrays * n) * 4);
    if (!keys)
      return 1;
    for (int64_t a = 0; a < arrays; a++)
      sorted_values(keys + a * n, n, &seed);
    ts_buffer *kb = NULL;
    TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)(arrays * n) * 4, &kb));
    TSB_TS_TRY(ctx, ts_buffer_upload(ctx, kb, 0, keys, (size_t)(arrays * n) * 4));
    double naive_gq = 0;
    for (int alg = TS_SEARCH_BATCHED_NAIVE; alg <= TS_SEARCH_BATCHED_CONFLICT_LIMITED; alg++) {
      batched_job job = {ctx, (ts_search_batched_algorithm)alg, kb, queries[0], results, arrays, n, m};
      TSB_TS_TRY(ctx, ts_buffer_fill_bytes(ctx, results, 0xff));
      if (run_batched(&job, stream) != 0)
        return 1;
      TSB_TS_TRY(ctx, ts_buffer_download(ctx, results, 0, host_results, (size_t)(arrays * m) * 4));
      int64_t wrong = 0;
      for (int64_t i = 0; i < arrays * m; i += 61)
        wrong += host_results[i] != host_lower_bound(keys + (i / m) * n, n, host_random[i]);
      tsb_stats ms;
      if (tsb_time_events(stream, warmup, repeat, run_batched, &job, &ms) != 0)
        return 1;
      double gq = (double)(arrays * m) / (ms.median * 1e6);
      if (alg == TS_SEARCH_BATCHED_NAIVE)
        naive_gq = gq;
      tsb_table_cell(table, "%s", "shared");
      tsb_table_cell(table, "%lld", (long long)n);
      tsb_table_cell(table, "%lld", (long long)(arrays * m));
      tsb_table_cell(table, "%s", "random");
      tsb_table_cell(table, "%s", ts_search_batched_algorithm_name((ts_search_batched_algorithm)alg));
      tsb_table_cell(table, "%.4f", ms.median);
      tsb_table_cell(table, "%.2f", gq);
      tsb_table_cell(table, "%.2f", gq / naive_gq);
      tsb_table_cell(table, "%.3f", gq / (copy.best_gbps / (8.0 + 4.0 * (double)n / (double)m)));
      tsb_table_cell(table, "%s", wrong ? "FAILED" : "ok");
      failures += wrong != 0;
    }
    ts_buffer_destroy(kb);
    free(keys);
  }

  tsb_metadata_set(&meta, "anchor", "global: thrust::lower_bound (same run); shared: the naive shared-memory search");
  if (tsb_table_write_csv(table, &meta, csv_path) != 0)
    return 1;
  FILE *md = stdout;
  if (md_path && !(md = fopen(md_path, "w")))
    md = stdout;
  tsb_table_print_markdown(table, &meta, md);
  if (md != stdout)
    fclose(md);
  tsb_table_destroy(table);
  ts_buffer_destroy(queries[0]);
  ts_buffer_destroy(queries[1]);
  ts_buffer_destroy(results);
  free(host_random);
  free(host_sorted);
  free(host_results);
  free(host_keys);
  ts_context_destroy(ctx);
  return failures ? 1 : 0;
}
