/* Sort throughput: tessera's merge sort (its default 8-way global merge
 * passes, the 4-way ones and the pairwise ones, chosen through
 * TESSERA_SORT_MERGE when the plans are made) against CUB DeviceMergeSort
 * (same comparator, stable), CUB DeviceRadixSort (the ceiling for primitive
 * keys) and thrust::sort with a comparator (which takes Thrust's merge
 * sort), on uint32 keys alone and with uint32 values, for random,
 * worst-case (E = 17, u = 256: CUB's merge sort tuning) and sorted inputs.
 * Each call sorts a fresh copy of the input (the copy is not timed); medians
 * of CUDA-event times after a warm-up. Each tessera variant's output is
 * checked against CUB merge sort's, bit for bit.
 *
 *   sort_merge [--sizes 24,26,28] [--worst-max 26] [--repeat 10] [--csv PATH]
 */
#include "tessera/sort.h"
#include "tsb_cuda.h"

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

/* A comparator CUB and Thrust cannot recognise as less<>: Thrust takes its merge sort. */
struct key_less {
  __host__ __device__ bool operator()(uint32_t a, uint32_t b) const { return a < b; }
};

/* The tessera variants come first: IMPL_TESSERA + their index in tessera_modes. */
enum impl {
  IMPL_TESSERA,
  IMPL_TESSERA_4,
  IMPL_TESSERA_PAIRWISE,
  IMPL_CUB_MERGE,
  IMPL_CUB_RADIX,
  IMPL_THRUST,
  IMPL_COUNT
};
enum { TESSERA_VARIANTS = 3 };
static const char *const tessera_modes[TESSERA_VARIANTS] = {"8", "4", "pairwise"}; /* TESSERA_SORT_MERGE */
static const char *const impl_names[IMPL_COUNT] = {"tessera 8-way merge",    "tessera 4-way merge",
                                                   "tessera pairwise merge", "cub::DeviceMergeSort",
                                                   "cub::DeviceRadixSort",   "thrust::sort (comparator)"};

struct job {
  ts_context *ctx;
  ts_sort_plan *plan_keys[TESSERA_VARIANTS], *plan_pairs[TESSERA_VARIANTS]; /* one workspace serves all */
  cudaStream_t stream;
  int64_t n;
  bool pairs;
  uint32_t *input_keys, *input_values; /* the unsorted input, kept */
  uint32_t *keys, *values;             /* sorted in place */
  uint32_t *out_keys, *out_values;     /* radix sort's outputs */
  ts_buffer *tkeys, *tvalues, *twork;  /* tessera's views (keys/values are their data) */
  void *temp;
  size_t temp_bytes;
};

static int run_impl(job *j, int which) {
  size_t bytes = 0;
  int n = (int)j->n;
  if (which < TESSERA_VARIANTS) {
    TSB_TS_TRY(j->ctx, ts_sort_execute(j->pairs ? j->plan_pairs[which] : j->plan_keys[which], j->n, j->tkeys,
                                       j->pairs ? j->tvalues : NULL, j->twork));
    return 0;
  }
  switch (which) {
  case IMPL_CUB_MERGE:
    if (j->pairs) {
      TSB_CUDA_TRY(cub::DeviceMergeSort::StableSortPairs(NULL, bytes, j->keys, j->values, n, key_less(), j->stream));
      if (bytes > j->temp_bytes)
        return fprintf(stderr, "temp too small\n"), 1;
      TSB_CUDA_TRY(cub::DeviceMergeSort::StableSortPairs(j->temp, bytes, j->keys, j->values, n, key_less(), j->stream));
    } else {
      TSB_CUDA_TRY(cub::DeviceMergeSort::StableSortKeys(NULL, bytes, j->keys, n, key_less(), j->stream));
      if (bytes > j->temp_bytes)
        return fprintf(stderr, "temp too small\n"), 1;
      TSB_CUDA_TRY(cub::DeviceMergeSort::StableSortKeys(j->temp, bytes, j->keys, n, key_less(), j->stream));
    }
    return 0;
  case IMPL_CUB_RADIX:
    if (j->pairs) {
      TSB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(NULL, bytes, j->keys, j->out_keys, j->values, j->out_values, n, 0,
                                                   32, j->stream));
      if (bytes > j->temp_bytes)
        return fprintf(stderr, "temp too small\n"), 1;
      TSB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(j->temp, bytes, j->keys, j->out_keys, j->values, j->out_values, n, 0,
                                                   32, j->stream));
    } else {
      TSB_CUDA_TRY(cub::DeviceRadixSort::SortKeys(NULL, bytes, j->keys, j->out_keys, n, 0, 32, j->stream));
      if (bytes > j->temp_bytes)
        return fprintf(stderr, "temp too small\n"), 1;
      TSB_CUDA_TRY(cub::DeviceRadixSort::SortKeys(j->temp, bytes, j->keys, j->out_keys, n, 0, 32, j->stream));
    }
    return 0;
  default:
    if (j->pairs)
      thrust::sort_by_key(thrust::cuda::par.on(j->stream), j->keys, j->keys + n, j->values, key_less());
    else
      thrust::sort(thrust::cuda::par.on(j->stream), j->keys, j->keys + n, key_less());
    TSB_LAUNCH_TRY("thrust::sort");
    return 0;
  }
}

static int restore_input(job *j) {
  TSB_CUDA_TRY(cudaMemcpyAsync(j->keys, j->input_keys, (size_t)j->n * 4, cudaMemcpyDeviceToDevice, j->stream));
  if (j->pairs)
    TSB_CUDA_TRY(cudaMemcpyAsync(j->values, j->input_values, (size_t)j->n * 4, cudaMemcpyDeviceToDevice, j->stream));
  return 0;
}

/* Median and minimum over @p repeat sorts of fresh copies (after 2 warm-ups). */
static int time_impl(job *j, int which, int repeat, tsb_stats *out) {
  cudaEvent_t start, stop;
  TSB_CUDA_TRY(cudaEventCreate(&start));
  TSB_CUDA_TRY(cudaEventCreate(&stop));
  std::vector<double> samples;
  for (int r = -2; r < repeat; r++) {
    if (restore_input(j) || cudaEventRecord(start, j->stream) != cudaSuccess || run_impl(j, which) ||
        cudaEventRecord(stop, j->stream) != cudaSuccess)
      return 1;
    TSB_CUDA_TRY(cudaEventSynchronize(stop));
    float ms = 0;
    TSB_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
    if (r >= 0)
      samples.push_back(ms);
  }
  TSB_CUDA_TRY(cudaEventDestroy(start));
  TSB_CUDA_TRY(cudaEventDestroy(stop));
  *out = tsb_stats_of(samples.data(), repeat);
  return 0;
}

/* A tessera variant's result against CUB merge sort's, bit for bit. */
static int check_against_cub(job *j, int variant, bool *same) {
  size_t bytes = (size_t)j->n * 4;
  std::vector<uint32_t> a(j->n), b(j->n), va(j->pairs ? j->n : 0), vb(j->pairs ? j->n : 0);
  if (restore_input(j) || run_impl(j, variant))
    return 1;
  TSB_CUDA_TRY(cudaMemcpyAsync(a.data(), j->keys, bytes, cudaMemcpyDeviceToHost, j->stream));
  if (j->pairs)
    TSB_CUDA_TRY(cudaMemcpyAsync(va.data(), j->values, bytes, cudaMemcpyDeviceToHost, j->stream));
  if (restore_input(j) || run_impl(j, IMPL_CUB_MERGE))
    return 1;
  TSB_CUDA_TRY(cudaMemcpyAsync(b.data(), j->keys, bytes, cudaMemcpyDeviceToHost, j->stream));
  if (j->pairs)
    TSB_CUDA_TRY(cudaMemcpyAsync(vb.data(), j->values, bytes, cudaMemcpyDeviceToHost, j->stream));
  TSB_CUDA_TRY(cudaStreamSynchronize(j->stream));
  *same = a == b && va == vb;
  return 0;
}

int main(int argc, char **argv) {
  std::vector<int> log_sizes = {24, 26, 28};
  int worst_max = 26, repeat = 10;
  const char *csv = "bench-out/sort_merge.csv";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
      log_sizes.clear();
      for (char *p = argv[++i]; *p;) {
        log_sizes.push_back((int)strtol(p, &p, 10));
        if (*p == ',')
          p++;
      }
    } else if (strcmp(argv[i], "--worst-max") == 0 && i + 1 < argc) {
      worst_max = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      csv = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [--sizes 24,26,28] [--worst-max 26] [--repeat 10] [--csv PATH]\n", argv[0]);
      return 2;
    }
  }
  ts_context_options copt;
  memset(&copt, 0, sizeof copt);
  copt.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &copt) != TS_SUCCESS) {
    fprintf(stderr, "no GPU: %s\n", ts_last_error(NULL));
    return 77;
  }
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "worst case", "ts_sort_generate E=17 u=256 (CUB's merge sort tuning for 4-byte keys)");
  static const char *const columns[] = {"n",      "payload",     "input",        "implementation",  "median_ms",
                                        "min_ms", "gkeys_per_s", "vs_cub_merge", "radix_over_this", "check"};
  tsb_table *table = tsb_table_create(10, columns);
  int failed = 0;
  cudaStream_t stream = (cudaStream_t)ts_context_stream(ctx);
  for (int log_n : log_sizes) {
    int64_t n = (int64_t)1 << log_n;
    job j;
    memset(&j, 0, sizeof j);
    j.ctx = ctx;
    j.stream = stream;
    j.n = n;
    std::vector<uint32_t> host(n), host_values(n);
    for (int64_t i = 0; i < n; i++)
      host_values[i] = (uint32_t)i;
    size_t work_bytes = 0;
    for (int v = 0; v < TESSERA_VARIANTS; v++) {
      /* The variable is read when a plan is made. */
      setenv("TESSERA_SORT_MERGE", tessera_modes[v], 1);
      ts_sort_options o = {TS_SORT_KEY_UINT32, TS_SORT_VALUE_UINT32, TS_SORT_ASCENDING, n};
      TSB_TS_TRY(ctx, ts_sort_plan_create(ctx, &o, &j.plan_pairs[v]));
      o.value = TS_SORT_VALUE_NONE;
      TSB_TS_TRY(ctx, ts_sort_plan_create(ctx, &o, &j.plan_keys[v]));
      if (ts_sort_plan_workspace_bytes(j.plan_pairs[v]) > work_bytes)
        work_bytes = ts_sort_plan_workspace_bytes(j.plan_pairs[v]);
      if (ts_sort_plan_workspace_bytes(j.plan_keys[v]) > work_bytes)
        work_bytes = ts_sort_plan_workspace_bytes(j.plan_keys[v]);
    }
    unsetenv("TESSERA_SORT_MERGE");
    TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)n * 4, &j.tkeys));
    TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)n * 4, &j.tvalues));
    TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, work_bytes, &j.twork));
    j.keys = (uint32_t *)ts_buffer_data(j.tkeys);
    j.values = (uint32_t *)ts_buffer_data(j.tvalues);
    TSB_CUDA_TRY(cudaMalloc(&j.input_keys, (size_t)n * 4));
    TSB_CUDA_TRY(cudaMalloc(&j.input_values, (size_t)n * 4));
    TSB_CUDA_TRY(cudaMalloc(&j.out_keys, (size_t)n * 4));
    TSB_CUDA_TRY(cudaMalloc(&j.out_values, (size_t)n * 4));
    j.temp_bytes = (size_t)n * 8 + ((size_t)64 << 20); /* more than either CUB sort asks for */
    TSB_CUDA_TRY(cudaMalloc(&j.temp, j.temp_bytes));
    TSB_CUDA_TRY(cudaMemcpy(j.input_values, host_values.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
    static const ts_sort_input inputs[] = {TS_SORT_INPUT_RANDOM, TS_SORT_INPUT_WORST_CASE, TS_SORT_INPUT_SORTED};
    for (ts_sort_input input : inputs) {
      if (input == TS_SORT_INPUT_WORST_CASE && log_n > worst_max)
        continue;
      TSB_TS_TRY(ctx, ts_sort_generate(ctx, input, TS_SORT_KEY_UINT32, n, 1, 17, 256, host.data()));
      TSB_CUDA_TRY(cudaMemcpy(j.input_keys, host.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
      for (int pairs = 0; pairs < 2; pairs++) {
        j.pairs = pairs != 0;
        bool same[TESSERA_VARIANTS];
        for (int v = 0; v < TESSERA_VARIANTS; v++) {
          if (check_against_cub(&j, v, &same[v]))
            return 1;
          failed |= !same[v];
        }
        tsb_stats stats[IMPL_COUNT];
        for (int which = 0; which < IMPL_COUNT; which++)
          if (time_impl(&j, which, repeat, &stats[which]))
            return 1;
        double rate[IMPL_COUNT];
        for (int which = 0; which < IMPL_COUNT; which++)
          rate[which] = (double)n / stats[which].median / 1e6;
        for (int which = 0; which < IMPL_COUNT; which++) {
          tsb_table_cell(table, "2^%d", log_n);
          tsb_table_cell(table, "%s", j.pairs ? "uint32 values" : "keys");
          tsb_table_cell(table, "%s", ts_sort_input_name(input));
          tsb_table_cell(table, "%s", impl_names[which]);
          tsb_table_cell(table, "%.3f", stats[which].median);
          tsb_table_cell(table, "%.3f", stats[which].min);
          tsb_table_cell(table, "%.2f", rate[which]);
          tsb_table_cell(table, "%.2f", rate[which] / rate[IMPL_CUB_MERGE]);
          tsb_table_cell(table, "%.2f", rate[IMPL_CUB_RADIX] / rate[which]);
          tsb_table_cell(table, "%s", which < TESSERA_VARIANTS ? (same[which] ? "same as CUB" : "DIFFERS") : "");
        }
      }
    }
    ts_buffer_destroy(j.tkeys);
    ts_buffer_destroy(j.tvalues);
    ts_buffer_destroy(j.twork);
    for (int v = 0; v < TESSERA_VARIANTS; v++) {
      ts_sort_plan_destroy(j.plan_keys[v]);
      ts_sort_plan_destroy(j.plan_pairs[v]);
    }
    cudaFree(j.input_keys);
    cudaFree(j.input_values);
    cudaFree(j.out_keys);
    cudaFree(j.out_values);
    cudaFree(j.temp);
  }
  tsb_table_print_markdown(table, &meta, stdout);
  if (tsb_table_write_csv(table, &meta, csv) != 0)
    failed = 1;
  tsb_table_destroy(table);
  ts_context_destroy(ctx);
  return failed;
}
