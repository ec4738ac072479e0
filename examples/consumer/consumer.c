/* y = A*x and the solve of A*x = b for a 3-by-3 CSR matrix, through an
 * installed tessera: the SpMV plan and the sparse LU on the default backend
 * (the GPU where one is usable, the CPU otherwise), so that a static link
 * pulls in the CUDA runtime and the C++ runtime parts of the library too.
 *
 * Built by scripts/check-install against an installed copy, through CMake
 * (find_package(tessera)) and through pkg-config:
 *   cc consumer.c $(pkg-config --cflags --libs tessera)          (shared)
 *   cc consumer.c $(pkg-config --cflags --libs tessera-static)   (static)
 */
#include <tessera.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Report a failed call with tessera's own message and leave. */
#define TRY(call)                                                                                                      \
  do {                                                                                                                 \
    status = (call);                                                                                                   \
    if (TS_IS_ERROR(status)) {                                                                                         \
      fprintf(stderr, "consumer: %s failed: %s (%s)\n", #call, ts_status_string(status), ts_last_error(ctx));          \
      goto cleanup;                                                                                                    \
    }                                                                                                                  \
  } while (0)

/* Count the entries of got that differ from want by more than 1e-12. */
static int count_mismatches(const char *what, const double *got, const double *want, int n) {
  int mismatches = 0;
  for (int i = 0; i < n; i++) {
    if (fabs(got[i] - want[i]) > 1e-12) {
      fprintf(stderr, "consumer: %s[%d] = %g, expected %g\n", what, i, got[i], want[i]);
      mismatches++;
    }
  }
  return mismatches;
}

int main(void) {
  /*     [ 2 0 1 ]         [1]                 [ 2*1 + 1*3      ]   [ 5]
   * A = [ 0 3 0 ],    x = [2],    y = A*x  =  [ 3*2            ] = [ 6]
   *     [ 4 0 5 ]         [3]                 [ 4*1 + 5*3      ]   [19] */
  static const int64_t row_ptr[] = {0, 2, 3, 5};
  static const int32_t col_idx[] = {0, 2, 1, 0, 2};
  static const double values[] = {2.0, 1.0, 3.0, 4.0, 5.0};
  static const double x[] = {1.0, 2.0, 3.0};
  static const double y_expected[] = {5.0, 6.0, 19.0};
  double y[3] = {0.0, 0.0, 0.0}, solution[3] = {0.0, 0.0, 0.0};
  ts_context *ctx = NULL;
  ts_csr *a = NULL;
  ts_spmv_plan *plan = NULL;
  ts_buffer *x_buffer = NULL, *y_buffer = NULL;
  ts_lu *lu = NULL;
  ts_status status = TS_SUCCESS;
  int mismatches = 0;

  TRY(ts_context_create(&ctx, NULL));
  TRY(ts_csr_create(ctx, 3, 3, 5, TS_FLOAT64, &a));
  memcpy(a->row_ptr, row_ptr, sizeof row_ptr);
  memcpy(a->col_idx, col_idx, sizeof col_idx);
  memcpy(a->values, values, sizeof values);
  TRY(ts_csr_check(ctx, a));

  /* y = A*x through a plan, on the context's backend. */
  TRY(ts_spmv_plan_create(ctx, a, &plan));
  TRY(ts_buffer_create(ctx, TS_MEMORY_DEVICE, sizeof x, &x_buffer));
  TRY(ts_buffer_create(ctx, TS_MEMORY_DEVICE, sizeof y, &y_buffer));
  TRY(ts_buffer_upload(ctx, x_buffer, 0, x, sizeof x));
  TRY(ts_spmv_execute(plan, 1.0, x_buffer, 0.0, y_buffer));
  TRY(ts_buffer_download(ctx, y_buffer, 0, y, sizeof y));
  mismatches += count_mismatches("y", y, y_expected, 3);

  /* A*solution = y gives back x. */
  TRY(ts_lu_create(ctx, NULL, &lu));
  TRY(ts_lu_analyze(lu, a));
  TRY(ts_lu_factor(lu, a));
  TRY(ts_lu_solve(lu, TS_OP_NONE, 1, y, 3, solution, 3));
  mismatches += count_mismatches("solution", solution, x, 3);

  printf("tessera %d (%s backend): y = A*x = [%g, %g, %g], A\\y = [%g, %g, %g]%s\n", ts_version(),
         ts_backend_name(ts_context_backend(ctx)), y[0], y[1], y[2], solution[0], solution[1], solution[2],
         mismatches ? " WRONG" : "");

cleanup:
  ts_lu_destroy(lu);
  ts_buffer_destroy(x_buffer);
  ts_buffer_destroy(y_buffer);
  ts_spmv_plan_destroy(plan);
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
  return !TS_IS_ERROR(status) && mismatches == 0 ? 0 : 1;
}
