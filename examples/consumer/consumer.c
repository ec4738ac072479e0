/* y = A*x for a 3-by-3 CSR matrix on the CPU backend, through an installed tessera.
 *
 * Built by scripts/check-install against an installed copy, both through CMake
 * (find_package(tessera)) and through pkg-config:
 *   cc consumer.c $(pkg-config --cflags --libs tessera)
 */
#include <tessera.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Report a failed call with tessera's own message and leave. */
#define TRY(call)                                                                                                      \
  do {                                                                                                                 \
    status = (call);                                                                                                   \
    if (status != TS_SUCCESS) {                                                                                        \
      fprintf(stderr, "consumer: %s failed: %s (%s)\n", #call, ts_status_string(status), ts_last_error(ctx));          \
      goto cleanup;                                                                                                    \
    }                                                                                                                  \
  } while (0)

int main(void) {
  /*     [ 2 0 1 ]         [1]                 [ 2*1 + 1*3      ]   [ 5]
   * A = [ 0 3 0 ],    x = [2],    y = A*x  =  [ 3*2            ] = [ 6]
   *     [ 4 0 5 ]         [3]                 [ 4*1 + 5*3      ]   [19] */
  static const int64_t row_ptr[] = {0, 2, 3, 5};
  static const int32_t col_idx[] = {0, 2, 1, 0, 2};
  static const double values[] = {2.0, 1.0, 3.0, 4.0, 5.0};
  static const double x[] = {1.0, 2.0, 3.0};
  static const double expected[] = {5.0, 6.0, 19.0};
  double y[3] = {0.0, 0.0, 0.0};
  ts_context *ctx = NULL;
  ts_csr *a = NULL;
  ts_status status = TS_SUCCESS;
  int mismatches = 0;

  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CPU;
  TRY(ts_context_create(&ctx, &options));
  TRY(ts_csr_create(ctx, 3, 3, 5, TS_FLOAT64, &a));
  memcpy(a->row_ptr, row_ptr, sizeof row_ptr);
  memcpy(a->col_idx, col_idx, sizeof col_idx);
  memcpy(a->values, values, sizeof values);
  TRY(ts_csr_check(ctx, a));
  TRY(ts_csr_spmv_host(ctx, 1.0, a, x, 0.0, y));

  for (int i = 0; i < 3; i++) {
    if (fabs(y[i] - expected[i]) > 1e-12) {
      fprintf(stderr, "consumer: y[%d] = %g, expected %g\n", i, y[i], expected[i]);
      mismatches++;
    }
  }
  printf("tessera %d (%s backend): y = A*x = [%g, %g, %g]%s\n", ts_version(), ts_backend_name(ts_context_backend(ctx)),
         y[0], y[1], y[2], mismatches ? " WRONG" : "");

cleanup:
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
  return status == TS_SUCCESS && mismatches == 0 ? 0 : 1;
}
