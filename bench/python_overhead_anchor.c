/* The C side of the Python binding's per-call overhead (bench/python_overhead.py):
 * SpMV on a tiny matrix (the 2-D Laplacian of a 4 x 4 grid: 16 rows, 64
 * entries, double) on a one-thread CPU context, or on a CUDA context with x
 * and y in device memory, timed per call in two forms: the library's floor
 * (ts_spmv_execute on buffers made once) and what the binding does in C for
 * each call (x and y wrapped with ts_buffer_wrap, the product, the wrappers
 * destroyed); on CUDA also the product between ts_context_wait_for_stream
 * and ts_stream_wait_for_context with another stream (CUDA's legacy default
 * stream), the ordering a call with CuPy arrays on another stream needs.
 * Prints "name: nanoseconds per call" lines, each the median of
 * 21 blocks of 100,000 calls (CPU) or 11 blocks of 20,000 (CUDA: the calls
 * queue products on the stream and each block ends by waiting for them).
 *
 *   python_overhead_anchor [threads] [cpu|cuda]      (default 1 cpu)
 */
#include "tsb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tessera.h>

enum { MAX_BLOCKS = 21, ROWS = 16 };

typedef struct call_state {
  ts_context *ctx;
  ts_spmv_plan *plan;
  ts_buffer *x, *y;
  void *raw_x, *raw_y; /* what the binding wraps: host arrays, or device memory on CUDA */
  int blocks, calls;
} call_state;

static int execute_only(call_state *s) { return ts_spmv_execute(s->plan, 1.0, s->x, 0.0, s->y) != TS_SUCCESS; }

static int wrap_execute(call_state *s) {
  ts_buffer *x = NULL, *y = NULL;
  ts_status st = ts_buffer_wrap(s->ctx, TS_MEMORY_DEVICE, s->raw_x, ROWS * sizeof(double), &x);
  if (st == TS_SUCCESS)
    st = ts_buffer_wrap(s->ctx, TS_MEMORY_DEVICE, s->raw_y, ROWS * sizeof(double), &y);
  if (st == TS_SUCCESS)
    st = ts_spmv_execute(s->plan, 1.0, x, 0.0, y);
  ts_buffer_destroy(x);
  ts_buffer_destroy(y);
  return st != TS_SUCCESS;
}

/* cudaStreamLegacy, named by its value: this program does not include CUDA's headers. */
#define LEGACY_STREAM ((void *)1)

static int ordered_execute(call_state *s) {
  ts_status st = ts_context_wait_for_stream(s->ctx, LEGACY_STREAM);
  if (st == TS_SUCCESS)
    st = ts_spmv_execute(s->plan, 1.0, s->x, 0.0, s->y);
  if (st == TS_SUCCESS)
    st = ts_stream_wait_for_context(s->ctx, LEGACY_STREAM);
  return st != TS_SUCCESS;
}

/* Median over the blocks of the mean nanoseconds per call, each block
 * ending when the context's queued work has finished; -1 on a failure. */
static double time_calls(int (*call)(call_state *), call_state *s) {
  double per_call[MAX_BLOCKS];
  for (int b = 0; b < s->blocks; b++) {
    double start = tsb_wall_seconds();
    for (int i = 0; i < s->calls; i++)
      if (call(s))
        return -1.0;
    if (ts_context_sync(s->ctx) != TS_SUCCESS)
      return -1.0;
    per_call[b] = (tsb_wall_seconds() - start) / s->calls * 1e9;
  }
  return tsb_stats_of(per_call, s->blocks).median;
}

int main(int argc, char **argv) {
  ts_context_options options = {0};
  const int on_gpu = argc > 2 && strcmp(argv[2], "cuda") == 0;
  if (argc > 2 && !on_gpu && strcmp(argv[2], "cpu") != 0) {
    fprintf(stderr, "python_overhead_anchor: the backend must be cpu or cuda, not %s\n", argv[2]);
    return 2;
  }
  options.backend = on_gpu ? TS_BACKEND_CUDA : TS_BACKEND_CPU;
  options.num_threads = argc > 1 ? atoi(argv[1]) : 1;
  call_state s = {0};
  s.blocks = on_gpu ? 11 : MAX_BLOCKS;
  s.calls = on_gpu ? 20000 : 100000;
  ts_csr *a = NULL;
  double x[ROWS], y[ROWS];
  for (int i = 0; i < ROWS; i++)
    x[i] = 1.0 + i;
  ts_status st = ts_context_create(&s.ctx, &options);
  if (st == TS_SUCCESS)
    st = ts_gen_laplacian_2d(s.ctx, 4, 4, TS_FLOAT64, &a);
  if (st == TS_SUCCESS)
    st = ts_spmv_plan_create(s.ctx, a, &s.plan);
  if (on_gpu) { /* x and y in device memory, as a CuPy caller holds them */
    if (st == TS_SUCCESS)
      st = ts_buffer_create(s.ctx, TS_MEMORY_DEVICE, sizeof x, &s.x);
    if (st == TS_SUCCESS)
      st = ts_buffer_create(s.ctx, TS_MEMORY_DEVICE, sizeof y, &s.y);
    if (st == TS_SUCCESS)
      st = ts_buffer_upload(s.ctx, s.x, 0, x, sizeof x);
    s.raw_x = s.x ? ts_buffer_data(s.x) : NULL;
    s.raw_y = s.y ? ts_buffer_data(s.y) : NULL;
  } else {
    s.raw_x = x;
    s.raw_y = y;
    if (st == TS_SUCCESS)
      st = ts_buffer_wrap(s.ctx, TS_MEMORY_DEVICE, x, sizeof x, &s.x);
    if (st == TS_SUCCESS)
      st = ts_buffer_wrap(s.ctx, TS_MEMORY_DEVICE, y, sizeof y, &s.y);
  }
  int failed = st != TS_SUCCESS;
  if (failed) {
    fprintf(stderr, "python_overhead_anchor: %s: %s\n", ts_status_string(st), ts_last_error(s.ctx));
  } else {
    double floor_ns = time_calls(execute_only, &s);
    double wrapped_ns = time_calls(wrap_execute, &s);
    double ordered_ns = on_gpu ? time_calls(ordered_execute, &s) : floor_ns;
    failed = floor_ns < 0 || wrapped_ns < 0 || ordered_ns < 0;
    printf("backend: %s\n", on_gpu ? "cuda" : "cpu");
    printf("threads: %d\n", options.num_threads);
    printf("c_execute: %.1f\n", floor_ns);
    printf("c_wrap_execute: %.1f\n", wrapped_ns);
    if (on_gpu)
      printf("c_ordered_execute: %.1f\n", ordered_ns);
  }
  ts_buffer_destroy(s.x);
  ts_buffer_destroy(s.y);
  ts_spmv_plan_destroy(s.plan);
  ts_csr_destroy(a);
  ts_context_destroy(s.ctx);
  return failed;
}
