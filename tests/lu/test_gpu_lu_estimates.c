/* The LU's estimates and extracted factors after a GPU factorization (the
 * factors are downloaded for them): the extraction reproduces
 * P R A C Q = L U to rounding (double and float factors, a circuit matrix
 * and a near-singular one); condest, rcond and rgrowth agree with the
 * host's on the same analysis (the factors differ by rounding), and
 * condest lies between a tenth of LAPACK's dense condition number and that
 * number (up to rounding). Exits 77 without a usable GPU. */
#include "test_gpu_lu_common.h"
#include "test_lu_estimates_common.h"

typedef struct estimates {
  double condest, rcond, rgrowth;
} estimates;

static estimates measure(ts_lu *lu) {
  estimates e = {0, 0, 0};
  CHECK_OK(gpu, ts_lu_condest(lu, &e.condest));
  CHECK_OK(gpu, ts_lu_rcond(lu, &e.rcond));
  CHECK_OK(gpu, ts_lu_rgrowth(lu, &e.rgrowth));
  return e;
}

static int close_to(double a, double b, double tolerance) { return fabs(a - b) <= tolerance * fabs(b); }

/* The same object twice (no_matching: without the matching and scaling). */
static ts_lu *create(ts_backend backend, int float_factors, int no_matching) {
  ts_lu_options options = lu_test_options();
  options.backend = backend;
  options.float_factors = float_factors;
  options.no_matching = no_matching;
  ts_lu *lu = NULL;
  CHECK_OK(gpu, ts_lu_create(gpu, &options, &lu));
  return lu;
}

static void check_matrix(const char *name, const ts_csr *a, int float_factors, int no_matching) {
  ts_lu *device = create(TS_BACKEND_CUDA, float_factors, no_matching);
  ts_lu *host = create(TS_BACKEND_CPU, float_factors, no_matching);
  CHECK_OK(gpu, ts_lu_analyze(device, a));
  CHECK_OK(gpu, ts_lu_analyze(host, a));
  CHECK_OK(gpu, ts_lu_factor(device, a));
  CHECK_OK(gpu, ts_lu_factor(host, a));
  CHECK_MSG(device->factors_on_device, "%s: the factors are not on the GPU", name);
  CHECK_MSG(device->stats.perturbed_pivots == 0, "%s: perturbed pivots (the case needs none)", name);
  char what[160];
  snprintf(what, sizeof what, "%s (%s factors, GPU)", name, float_factors ? "float" : "double");
  double worst = lu_test_check_factors(gpu, device, a, float_factors ? 1e-5 : 1e-13, what);
  estimates on_gpu = measure(device), on_host = measure(host);
  printf("%-44s worst %.2e  condest %.4e (host %.4e)  rcond %.4e (host %.4e)  rgrowth %.4e (host %.4e)\n", what, worst,
         on_gpu.condest, on_host.condest, on_gpu.rcond, on_host.rcond, on_gpu.rgrowth, on_host.rgrowth);
  const double tolerance = float_factors ? 1e-4 : 1e-8;
  CHECK_MSG(close_to(on_gpu.condest, on_host.condest, tolerance), "%s: condest differs from the host's", what);
  CHECK_MSG(close_to(on_gpu.rcond, on_host.rcond, tolerance), "%s: rcond differs from the host's", what);
  CHECK_MSG(close_to(on_gpu.rgrowth, on_host.rgrowth, tolerance), "%s: rgrowth differs from the host's", what);
#ifdef TESSERA_TEST_HAVE_LAPACK
  if (a->rows <= 2000) {
    double truth = lu_test_condition_lapack(a);
    double slack = 1.0 + 1e-10 + 3.0 * (double)a->rows * (float_factors ? FLT_EPSILON : DBL_EPSILON) * truth;
    CHECK_MSG(on_gpu.condest >= 0.1 * truth && on_gpu.condest <= truth * slack,
              "%s: condest %.4e against the true %.4e", what, on_gpu.condest, truth);
  }
#endif
  ts_lu_destroy(device);
  ts_lu_destroy(host);
}

int main(void) {
  int skip = gpu_lu_setup();
  if (skip)
    return skip;
#ifndef TESSERA_TEST_HAVE_LAPACK
  printf("SKIPPED (part): the bounds against the dense condition number (built without LAPACK)\n");
#endif
  ts_csr *circuit = gpu_lu_circuit(small_sizes ? 800 : 1500, 1.0, 3);
  /* Without the matching the diagonal's pivots stay: the near-dependent
   * row's is small (about epsilon) but not tiny, so nothing is perturbed. */
  ts_csr *near_singular = lu_test_near_singular(gpu, small_sizes ? 300 : 1000, 1e-4, 9);
  CHECK(circuit && near_singular);
  for (int float_factors = 0; float_factors < 2; float_factors++) {
    if (circuit)
      check_matrix("circuit", circuit, float_factors, 0);
    if (near_singular && !float_factors)
      check_matrix("near-singular (epsilon 1e-4)", near_singular, float_factors, 1);
  }
  ts_csr_destroy(circuit);
  ts_csr_destroy(near_singular);
  ts_context_destroy(gpu);
  return test_finish();
}
