/* The C side of the Python binding's per-call overhead (bench/python_overhead.py):
 * SpMV on a tiny matrix (the 2-D Laplacian of a 4 x 4 grid: 16 rows, 64
 * entries, double) on a one-thread CPU context, timed per call in two forms:
 * the library's floor (ts_spmv_execute on buffers made once) and what the
 * binding does in C for each call (x and y wrapped with ts_buffer_wrap, the
 * product, the wrappers destroyed). Prints "name: nanoseconds per call"
 * lines, each the median of 21 blocks of 100,000 calls.
 *
 *   python_overhead_anchor [threads]      (default 1)
 */
#include "tsb.h"

#include <stdio.h>
#include <stdlib.h>
#include <tessera.h>

enum { BLOCKS = 21, CALLS = 100000, ROWS = 16 };

typedef struct call_state {
  ts_context *ctx;
  ts_spmv_plan *plan;
  ts_buffer *x, *y;
  double *host_x, *host_y;
} call_state;

static int execute_only(call_state *s) { return ts_spmv_execute(s->plan, 1.0, s->x, 0.0, s->y) != TS_SUCCESS; }

static int wrap_execute(call_state *s) {
  ts_buffer *x = NULL, *y = NULL;
  ts_status st = ts_buffer_wrap(s->ctx, TS_MEMORY_DEVICE, s->host_x, ROWS * sizeof(double), &x);
  if (st == TS_SUCCESS)
    st = ts_buffer_wrap(s->ctx, TS_MEMORY_DEVICE, s->host_y, ROWS * sizeof(double), &y);
  if (st == TS_SUCCESS)
    st = ts_spmv_execute(s->plan, 1.0, x, 0.0, y);
  ts_buffer_destroy(x);
  ts_buffer_destroy(y);
  return st != TS_SUCCESS;
}

/* Median over the blocks of the mean nanoseconds per call; -1 on a failure. */
static double time_calls(int (*call)(call_state *), call_state *s) {
  double per_call[BLOCKS];
  for (int b = 0; b < BLOCKS; b++) {
    double start = tsb_wall_seconds();
    for (int i = 0; i < CALLS; i++)
      if (call(s))
        return -1.0;
    per_call[b] = (tsb_wall_seconds() - start) / CALLS * 1e9;
  }
  return tsb_stats_of(per_call, BLOCKS).median;
}

int main(int argc, char **argv) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  options.num_threads = argc > 1 ? atoi(argv[1]) : 1;
  call_state s = {0};
  ts_csr *a = NULL;
  double x[ROWS], y[ROWS];
  for (int i = 0; i < ROWS; i++)
    x[i] = 1.0 + i;
  s.host_x = x;
  s.host_y = y;
  ts_status st = ts_context_create(&s.ctx, &options);
  if (st == TS_SUCCESS)
    st = ts_gen_laplacian_2d(s.ctx, 4, 4, TS_FLOAT64, &a);
  if (st == TS_SUCCESS)
    st = ts_spmv_plan_create(s.ctx, a, &s.plan);
  if (st == TS_SUCCESS)
    st = ts_buffer_wrap(s.ctx, TS_MEMORY_DEVICE, x, sizeof x, &s.x);
  if (st == TS_SUCCESS)
    st = ts_buffer_wrap(s.ctx, TS_MEMORY_DEVICE, y, sizeof y, &s.y);
  int failed = st != TS_SUCCESS;
  if (failed) {
    fprintf(stderr, "python_overhead_anchor: %s: %s\n", ts_status_string(st), ts_last_error(s.ctx));
  } else {
    double floor_ns = time_calls(execute_only, &s);
    double wrapped_ns = time_calls(wrap_execute, &s);
    failed = floor_ns < 0 || wrapped_ns < 0;
    printf("threads: %d\n", options.num_threads);
    printf("c_execute: %.1f\n", floor_ns);
    printf("c_wrap_execute: %.1f\n", wrapped_ns);
  }
  ts_buffer_destroy(s.x);
  ts_buffer_destroy(s.y);
  ts_spmv_plan_destroy(s.plan);
  ts_csr_destroy(a);
  ts_context_destroy(s.ctx);
  return failed;
}
