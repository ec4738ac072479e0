/* Helpers of the GPU LU tests: a CUDA context (or a visible skip), LU
 * objects forced onto the host or the GPU, the factors of each brought to
 * the host, and their comparison column by column. */
#ifndef TESSERA_TEST_GPU_LU_COMMON_H
#define TESSERA_TEST_GPU_LU_COMMON_H

#include "test_lu_numeric_common.h"

#include "lu/lu_internal.h"          /* factor values and the GPU's switches */
#include "lu/solve/solve_internal.h" /* the device cache, the GPU solves */

static ts_context *gpu;
static int small_sizes; /* under compute-sanitizer */

/* 0 when a CUDA context exists, else the skip code. */
static inline int gpu_lu_setup(void) {
  small_sizes = getenv("TESSERA_UNDER_SANITIZER") != NULL;
  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CUDA;
  if (ts_context_create(&gpu, &options) != TS_SUCCESS)
    return test_skip("no usable CUDA device");
  return 0;
}

/* An LU object on the GPU context, its numeric phases on `backend`, by
 * columns: these tests compare the GPU's column path with the host's bit
 * for bit (the GPU's rule could take the fronts, whose factors are the
 * host's multifrontal ones: test_gpu_lu_fronts.c). */
static inline ts_lu *gpu_lu_create(ts_backend backend, int float_factors, int no_perturbation) {
  ts_lu_options options = lu_test_options();
  options.backend = backend;
  options.float_factors = float_factors;
  options.no_perturbation = no_perturbation;
  ts_lu *lu = NULL;
  CHECK_OK(gpu, ts_lu_create(gpu, &options, &lu));
  if (lu)
    lu->switches.numeric_method = TSI_LU_METHOD_COLUMNS;
  return lu;
}

/* The factors as doubles on the host (downloaded from the GPU when there). */
static inline double *gpu_lu_factor_values(ts_lu *lu) {
  if (lu->factors_on_device)
    CHECK_OK(gpu, tsi_lu_cuda_download_factors(lu));
  double *v = malloc((size_t)(lu->lu_nnz > 0 ? lu->lu_nnz : 1) * sizeof *v);
  for (int64_t p = 0; p < lu->lu_nnz; p++)
    v[p] = lu->options.float_factors ? (double)lu->lu_values_f32[p] : lu->lu_values[p];
  return v;
}

/* Largest |a - b| in a column over the column's largest |b|; *bitwise gets
 * whether all entries are equal bit for bit. */
static inline double gpu_lu_factor_difference(const ts_lu *lu, const double *a, const double *b, int *bitwise) {
  double worst = 0.0;
  *bitwise = memcmp(a, b, (size_t)lu->lu_nnz * sizeof *a) == 0;
  for (int64_t k = 0; k < lu->n; k++) {
    double scale = 0.0, diff = 0.0;
    for (int64_t p = lu->lu_col_ptr[k]; p < lu->lu_col_ptr[k + 1]; p++) {
      scale = fmax(scale, fabs(b[p]));
      diff = fmax(diff, fabs(a[p] - b[p]));
    }
    double relative = diff / (scale > 0.0 ? scale : 1.0);
    if (!(relative <= worst))
      worst = isnan(relative) ? INFINITY : relative;
  }
  return worst;
}

/* The device copy of `count` entries of `size` bytes equals the host's. */
static inline int gpu_lu_same_on_device(const void *device, const void *host, int64_t count, size_t size) {
  size_t bytes = (size_t)(count > 0 ? count : 0) * size;
  void *copy = malloc(bytes > 0 ? bytes : 1);
  int same = copy && tsi_cuda_memcpy_to_host(gpu, copy, device, bytes) == TS_SUCCESS && memcmp(copy, host, bytes) == 0;
  free(copy);
  return same;
}

/* The rows of U and L on the device after a GPU factorization (sorted
 * there, numeric/factor_rows_cuda.cu) equal the host's transpose
 * (tsi_lu_build_rows), offsets, columns and positions, bit for bit. */
static inline void gpu_lu_check_rows(const char *what, ts_lu *lu) {
  const tsi_lu_device *dev = (const tsi_lu_device *)lu->numeric_device;
  CHECK_MSG(dev != NULL, "%s: no device cache", what);
  if (!dev)
    return;
  const int64_t n = lu->n;
  for (int upper = 1; upper >= 0; upper--) {
    int64_t *ptr = NULL, *pos = NULL;
    int32_t *col = NULL;
    CHECK_OK(gpu, tsi_lu_build_rows(lu, upper, &ptr, &col, &pos));
    if (!ptr)
      continue;
    const int64_t count = ptr[n];
    CHECK_MSG(gpu_lu_same_on_device(upper ? dev->urow_ptr : dev->lrow_ptr, ptr, n + 1, sizeof(int64_t)),
              "%s: row offsets of %s differ from the host's", what, upper ? "U" : "L");
    CHECK_MSG(gpu_lu_same_on_device(upper ? dev->urow_col : dev->lrow_col, col, count, sizeof(int32_t)),
              "%s: row columns of %s differ from the host's", what, upper ? "U" : "L");
    CHECK_MSG(gpu_lu_same_on_device(upper ? dev->urow_pos : dev->lrow_pos, pos, count, sizeof(int64_t)),
              "%s: row positions of %s differ from the host's", what, upper ? "U" : "L");
    if (upper)
      CHECK_MSG(memcmp(dev->urow_ptr_host, ptr, (size_t)(n + 1) * sizeof(int64_t)) == 0,
                "%s: the host copy of U's row offsets differs", what);
    free(ptr);
    free(col);
    free(pos);
  }
}

/* A circuit-like matrix (grid part: locality 1) of about n rows. */
static inline ts_csr *gpu_lu_circuit(int64_t n, double locality, uint64_t seed) {
  ts_circuit_params params = ts_circuit_defaults(n);
  params.locality = locality;
  ts_csr *a = NULL;
  CHECK_OK(gpu, ts_gen_circuit(gpu, &params, seed, TS_FLOAT64, &a));
  return a;
}

#endif
