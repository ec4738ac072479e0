/* GPU basics: the device's properties, host<->device transfer rates through
 * the public buffer API, the device copy bandwidth (the ceiling every
 * memory-bound benchmark quotes), and kernel launch cost. */
#include "tsb_cuda.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

__global__ void empty_kernel(void) {}

static int launch_empty(void *user, void *stream) {
  (void)user;
  empty_kernel<<<1, 32, 0, (cudaStream_t)stream>>>();
  TSB_LAUNCH_TRY("empty_kernel");
  return 0;
}

struct tiny_spmv {
  ts_spmv_plan *plan;
  ts_buffer *x, *y;
};

/* One public-API SpMV on a 1x1 matrix: the per-call cost a user's loop pays. */
static int launch_tiny_spmv(void *user, void *stream) {
  (void)stream;
  tiny_spmv *job = (tiny_spmv *)user;
  ts_status st = ts_spmv_execute(job->plan, 1.0, job->x, 0.0, job->y);
  if (st != TS_SUCCESS) {
    fprintf(stderr, "error: ts_spmv_execute: %s\n", ts_status_string(st));
    return 1;
  }
  return 0;
}

static void add_row(tsb_table *t, const char *section, const char *metric, const char *unit, const char *format,
                    double value) {
  tsb_table_cell(t, "%s", section);
  tsb_table_cell(t, "%s", metric);
  tsb_table_cell(t, format, value);
  tsb_table_cell(t, "%s", unit);
}

static int device_query(ts_context *ctx, tsb_table *t, tsb_metadata *meta) {
  ts_device_info info;
  TSB_TS_TRY(ctx, ts_context_device_info(ctx, &info));
  int device = info.ordinal, clock_khz = 0, memory_clock_khz = 0, bus_bits = 0;
  TSB_CUDA_TRY(cudaSetDevice(device));
  TSB_CUDA_TRY(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  TSB_CUDA_TRY(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device));
  TSB_CUDA_TRY(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
  size_t free_bytes = 0, total_bytes = 0;
  TSB_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  /* Double data rate: two transfers per memory clock. A nominal figure only. */
  double nominal_gbps = 2.0 * memory_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  add_row(t, "device", "compute capability", "", "%.1f", info.compute_major + 0.1 * info.compute_minor);
  add_row(t, "device", "multiprocessors", "SMs", "%.0f", (double)info.multiprocessors);
  add_row(t, "device", "global memory", "GiB", "%.1f", (double)info.global_memory / (1u << 30));
  add_row(t, "device", "free memory", "GiB", "%.1f", (double)free_bytes / (1u << 30));
  add_row(t, "device", "L2 cache", "MiB", "%.1f", (double)info.l2_cache_bytes / (1u << 20));
  add_row(t, "device", "shared memory per block (opt-in)", "KiB", "%.0f", (double)info.shared_per_block / 1024);
  add_row(t, "device", "SM clock (maximum)", "MHz", "%.0f", clock_khz / 1e3);
  add_row(t, "device", "memory clock", "MHz", "%.0f", memory_clock_khz / 1e3);
  add_row(t, "device", "memory bus", "bits", "%.0f", (double)bus_bits);
  add_row(t, "device", "nominal memory bandwidth (clock x bus)", "GB/s", "%.0f", nominal_gbps);
  tsb_metadata_set(meta, "sms", "%d", info.multiprocessors);
  return 0;
}

/* Upload and download 1 GiB through ts_buffer_upload/download (pageable host
 * memory), check every byte, report the median of three of each. */
static int buffer_round_trip(ts_context *ctx, tsb_table *t, size_t bytes) {
  int failed = 1;
  uint64_t *out = (uint64_t *)malloc(bytes), *back = (uint64_t *)malloc(bytes);
  ts_buffer *buffer = NULL;
  double up_s[3], down_s[3];
  size_t words = bytes / 8;
  if (!out || !back) {
    fprintf(stderr, "error: cannot allocate 2 x %zu bytes of host memory\n", bytes);
    goto cleanup;
  }
  for (size_t i = 0; i < words; i++)
    out[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull ^ 0x5555555555555555ull;
  if (ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &buffer) != TS_SUCCESS) {
    fprintf(stderr, "error: ts_buffer_create(%zu): %s\n", bytes, ts_last_error(ctx));
    goto cleanup;
  }
  for (int r = 0; r < 3; r++) {
    memset(back, 0xA5, bytes);
    double t0 = tsb_wall_seconds();
    ts_status st = ts_buffer_upload(ctx, buffer, 0, out, bytes);
    double t1 = tsb_wall_seconds();
    if (st == TS_SUCCESS)
      st = ts_buffer_download(ctx, buffer, 0, back, bytes);
    double t2 = tsb_wall_seconds();
    if (st != TS_SUCCESS) {
      fprintf(stderr, "error: buffer round trip: %s: %s\n", ts_status_string(st), ts_last_error(ctx));
      goto cleanup;
    }
    if (memcmp(out, back, bytes) != 0) {
      size_t i = 0;
      while (i < words && out[i] == back[i])
        i++;
      fprintf(stderr, "error: buffer round trip corrupted word %zu of %zu\n", i, words);
      goto cleanup;
    }
    up_s[r] = t1 - t0;
    down_s[r] = t2 - t1;
  }
  add_row(t, "transfer", "host to device, pageable, 1 GiB (ts_buffer_upload)", "GB/s", "%.2f",
          bytes / tsb_stats_of(up_s, 3).median / 1e9);
  add_row(t, "transfer", "device to host, pageable, 1 GiB (ts_buffer_download)", "GB/s", "%.2f",
          bytes / tsb_stats_of(down_s, 3).median / 1e9);
  add_row(t, "transfer", "round trip checked (bytes)", "B", "%.0f", (double)bytes);
  failed = 0;
cleanup:
  ts_buffer_destroy(buffer);
  free(out);
  free(back);
  return failed;
}

static int launch_cost(ts_context *ctx, tsb_table *t) {
  void *stream = ts_context_stream(ctx);
  tsb_stats single;
  if (tsb_time_events(stream, 100, 1000, launch_empty, NULL, &single) != 0)
    return 1;
  tsb_burst burst;
  if (tsb_time_burst(stream, 100, 10000, 5, launch_empty, NULL, &burst) != 0)
    return 1;
  add_row(t, "launch", "empty kernel, between events (median of 1000)", "us", "%.2f", 1e3 * single.median);
  add_row(t, "launch", "empty kernel, device time per launch in a burst of 10000", "us", "%.2f",
          burst.device_us_per_call);
  add_row(t, "launch", "empty kernel, host wall time per launch in a burst of 10000", "us", "%.2f",
          burst.host_us_per_call);

  /* The same through the public API: a 1x1 SpMV plan. */
  int failed = 1;
  ts_csr *a = NULL;
  ts_spmv_plan *plan = NULL;
  tiny_spmv job = {NULL, NULL, NULL};
  float one = 1.0f, y = 0;
  if (ts_csr_create(ctx, 1, 1, 1, TS_FLOAT32, &a) != TS_SUCCESS)
    goto cleanup;
  a->row_ptr[1] = 1;
  a->col_idx[0] = 0;
  ((float *)a->values)[0] = 2.0f;
  if (ts_spmv_plan_create(ctx, a, &plan) != TS_SUCCESS)
    goto cleanup;
  if (ts_buffer_create(ctx, TS_MEMORY_DEVICE, sizeof one, &job.x) != TS_SUCCESS)
    goto cleanup;
  if (ts_buffer_create(ctx, TS_MEMORY_DEVICE, sizeof one, &job.y) != TS_SUCCESS)
    goto cleanup;
  if (ts_buffer_upload(ctx, job.x, 0, &one, sizeof one) != TS_SUCCESS)
    goto cleanup;
  job.plan = plan;
  if (tsb_time_burst(stream, 100, 10000, 5, launch_tiny_spmv, &job, &burst) != 0)
    goto cleanup;
  if (ts_context_sync(ctx) != TS_SUCCESS)
    goto cleanup;
  if (ts_buffer_download(ctx, job.y, 0, &y, sizeof y) != TS_SUCCESS)
    goto cleanup;
  if (y != 2.0f) {
    fprintf(stderr, "error: 1x1 SpMV gave %g, expected 2\n", y);
    goto cleanup;
  }
  add_row(t, "launch", "ts_spmv_execute 1x1, device time per call in a burst of 10000", "us", "%.2f",
          burst.device_us_per_call);
  add_row(t, "launch", "ts_spmv_execute 1x1, host wall time per call in a burst of 10000", "us", "%.2f",
          burst.host_us_per_call);
  failed = 0;
cleanup:
  if (failed && ts_last_error(ctx)[0])
    fprintf(stderr, "error: tiny SpMV: %s\n", ts_last_error(ctx));
  ts_buffer_destroy(job.x);
  ts_buffer_destroy(job.y);
  ts_spmv_plan_destroy(plan);
  ts_csr_destroy(a);
  return failed;
}

int main(int argc, char **argv) {
  const char *csv_path = "bench-out/gpu_basics.csv";
  for (int i = 1; i < argc; i++) {
    int rc = tsb_option_or_path(argv[0], argv[i], "[CSV_PATH]   (default bench-out/gpu_basics.csv)");
    if (rc >= 0)
      return rc;
    csv_path = argv[i];
  }
  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &options) != TS_SUCCESS) {
    fprintf(stderr, "error: %s\n", ts_last_error(NULL));
    return 2;
  }
  const char *columns[] = {"section", "metric", "value", "unit"};
  tsb_table *t = tsb_table_create(4, columns);
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_print(&meta, stdout, "# ");
  int failed = !t;

  if (!failed)
    failed = device_query(ctx, t, &meta);
  if (!failed)
    failed = buffer_round_trip(ctx, t, (size_t)1 << 30);
  tsb_copy_bandwidth copy;
  if (!failed)
    failed = tsb_measure_copy_bandwidth(ts_context_stream(ctx), 0, 20, &copy);
  if (!failed) {
    add_row(t, "copy", "device-to-device buffer size", "GiB", "%.2f", (double)copy.bytes / (1u << 30));
    add_row(t, "copy", "cudaMemcpyAsync (read + write)", "GB/s", "%.0f", copy.memcpy_gbps);
    add_row(t, "copy", "vectorised copy kernel (read + write)", "GB/s", "%.0f", copy.kernel_gbps);
    add_row(t, "copy", "copy bandwidth (best)", "GB/s", "%.0f", copy.best_gbps);
    tsb_metadata_set(&meta, "copy_gbps", "%.0f", copy.best_gbps);
  }
  if (!failed)
    failed = launch_cost(ctx, t);
  if (!failed)
    failed = tsb_table_write_csv(t, &meta, csv_path);
  if (t && tsb_table_rows(t) > 0) {
    printf("\n## GPU basics\n\n");
    tsb_table_print_markdown(t, &meta, stdout);
  }
  tsb_table_destroy(t);
  ts_context_destroy(ctx);
  if (failed) {
    fprintf(stderr, "gpu_basics: FAILED\n");
    return 1;
  }
  printf("\nwrote %s\n", csv_path);
  return 0;
}
