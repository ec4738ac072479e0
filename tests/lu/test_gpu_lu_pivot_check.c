/* The pivot check on the GPU path: the indicators the device reduces from
 * its factors (largest multiplier, growth) equal the host's bit for bit
 * (double factors, the same bits), and refactorizations on the GPU give the
 * host's verdicts: no warning for values that suit the pivots, the warning
 * for switched pivots, and with refresh_pivots a new analysis whose solve
 * matches the host's; with every column read by chunks, and with none. */
#include "test_gpu_lu_common.h"
#include "test_lu_pivot_common.h"

static ts_lu *pivot_lu(ts_backend backend, int refresh, int64_t quality_thread, const ts_csr *a) {
  ts_lu_options options = lu_test_options();
  options.ordering = TS_LU_ORDER_NATURAL;
  options.backend = backend;
  options.refresh_pivots = refresh;
  ts_lu *lu = NULL;
  CHECK_OK(gpu, ts_lu_create(gpu, &options, &lu));
  lu->switches.numeric_method = TSI_LU_METHOD_COLUMNS; /* the host's column factors' indicators, bit for bit */
  lu->switches.gpu_quality_thread = quality_thread;
  CHECK_OK(gpu, ts_lu_analyze(lu, a));
  CHECK_OK(gpu, ts_lu_factor(lu, a));
  return lu;
}

/* quality_thread: the device reads columns longer than this by chunks
 * (0: the default; 1: every column; huge: none). */
static void test_same_verdicts(int refresh, int64_t quality_thread) {
  ts_csr *a0 = pivot_test_matrix(gpu, 0, 0.0, 0.0), *mild = pivot_test_matrix(gpu, 0, 0.0, 0.05),
         *switched = pivot_test_matrix(gpu, 1, 1e-9, 0.0);
  ts_lu *host = pivot_lu(TS_BACKEND_CPU, refresh, 0, a0),
        *device = pivot_lu(TS_BACKEND_CUDA, refresh, quality_thread, a0);
  const ts_csr *steps[2] = {mild, switched};
  for (int s = 0; s < 2; s++) {
    ts_status on_host = ts_lu_refactor(host, steps[s]);
    ts_status on_device = ts_lu_refactor(device, steps[s]);
    ts_lu_stats hs, ds;
    CHECK_OK(gpu, ts_lu_get_stats(host, &hs));
    CHECK_OK(gpu, ts_lu_get_stats(device, &ds));
    CHECK_MSG(on_host == on_device && ds.peak_device_bytes > 0, "step %d, chunks from %lld: host %s, GPU %s (%s)", s,
              (long long)quality_thread, ts_status_string(on_host), ts_status_string(on_device), ts_last_error(gpu));
    CHECK_MSG(hs.max_multiplier == ds.max_multiplier && hs.pivot_growth == ds.pivot_growth &&
                  hs.pivots_refreshed == ds.pivots_refreshed,
              "step %d, chunks from %lld: multiplier %.17g / %.17g, growth %.17g / %.17g", s, (long long)quality_thread,
              hs.max_multiplier, ds.max_multiplier, hs.pivot_growth, ds.pivot_growth);
    CHECK(on_device == (s == 0 || refresh ? TS_SUCCESS : TS_WARNING_PIVOTS_DEGRADED));
  }
  double *b = malloc(PIVOT_TEST_N * sizeof *b), *xh = malloc(PIVOT_TEST_N * sizeof *xh),
         *xd = malloc(PIVOT_TEST_N * sizeof *xd);
  for (int64_t i = 0; i < PIVOT_TEST_N; i++)
    b[i] = 1.0 + (double)(i % 5);
  CHECK_OK(gpu, ts_lu_solve(host, TS_OP_NONE, 1, b, PIVOT_TEST_N, xh, PIVOT_TEST_N));
  CHECK_OK(gpu, ts_lu_solve(device, TS_OP_NONE, 1, b, PIVOT_TEST_N, xd, PIVOT_TEST_N));
  double berr = lu_test_backward_error(switched, 0, xd, b);
  CHECK_MSG(berr <= 1e-14, "GPU solve after the switch (refresh %d): backward error %g", refresh, berr);
  printf("refresh %d, chunks from %lld entries: GPU verdicts and indicators equal the host's; backward error %.2g\n",
         refresh, (long long)quality_thread, berr);
  free(b);
  free(xh);
  free(xd);
  ts_lu_destroy(host);
  ts_lu_destroy(device);
  ts_csr_destroy(a0);
  ts_csr_destroy(mild);
  ts_csr_destroy(switched);
}

int main(void) {
  int skip = gpu_lu_setup();
  if (skip)
    return skip;
  const int64_t quality_threads[] = {0, 1, (int64_t)1 << 40};
  for (int q = 0; q < 3; q++)
    test_same_verdicts(0, quality_threads[q]);
  test_same_verdicts(1, 0);
  ts_context_destroy(gpu);
  return test_finish();
}
