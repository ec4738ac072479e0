/* Quick start: generate a matrix, run y = A*x on the best backend available
 * (the GPU when one is usable, else the CPU), and check one entry. */
#include <tessera.h>

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  ts_context *ctx = NULL;
  ts_csr *a = NULL;
  ts_spmv_plan *plan = NULL;
  ts_buffer *x = NULL, *y = NULL;
  double *host = NULL;
  int exit_code = 1;

  /* NULL options: TS_BACKEND_AUTO on device 0. */
  ts_status st = ts_context_create(&ctx, NULL);
  if (st == TS_SUCCESS)
    st = ts_gen_laplacian_2d(ctx, 100, 100, TS_FLOAT64, &a); /* 10,000 rows */
  if (st == TS_SUCCESS)
    st = ts_spmv_plan_create(ctx, a, &plan);
  size_t bytes = a ? (size_t)a->rows * sizeof(double) : 0;
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &x);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &y);
  host = malloc(bytes);
  if (st == TS_SUCCESS && host) {
    for (int64_t i = 0; i < a->rows; i++)
      host[i] = 1.0;
    st = ts_buffer_upload(ctx, x, 0, host, bytes);
  }
  if (st == TS_SUCCESS)
    st = ts_spmv_execute(plan, 1.0, x, 0.0, y); /* asynchronous on the GPU */
  if (st == TS_SUCCESS)
    st = ts_buffer_download(ctx, y, 0, host, bytes); /* waits; kernel faults surface here */
  if (st != TS_SUCCESS) {
    fprintf(stderr, "quickstart: %s: %s\n", ts_status_string(st), ts_last_error(ctx));
  } else if (host) {
    /* A corner row of the Laplacian with x = 1: 4 - 1 - 1 = 2; an inner row sums to 0. */
    printf("backend %s: y[0] = %g, y[5050] = %g\n", ts_backend_name(ts_context_backend(ctx)), host[0], host[5050]);
    exit_code = (host[0] == 2.0 && host[5050] == 0.0) ? 0 : 1;
  }
  free(host);
  ts_buffer_destroy(x);
  ts_buffer_destroy(y);
  ts_spmv_plan_destroy(plan);
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
  return exit_code;
}
