/* The complex LU on the GPU (exits 77 without one): complex factorizations
 * on the device against the host's (the same bits where the GPU's
 * left-looking code and sparse tail compute column by column in the host's
 * order: every variant of the scratch, tail and launches), solves with A,
 * A^T and A^H on the device (refined in double; backward error at most
 * 1e-14 recomputed from the matrix, the dense reference and KLU's klu_zl_*
 * as on the host), complex64 and float factors, refactorization, and
 * repeated factorizations bitwise the same. Under compute-sanitizer
 * (TESSERA_UNDER_SANITIZER set) the matrices are smaller. */
#include "test_lu_complex_common.h"

#include "lu/lu_internal.h" /* the switches, factor values */
#include "lu/numeric/numeric_internal.h"

static ts_context *gpu;
static int small_sizes;

/* The factors of lu as (re, im) pairs of doubles (downloaded from the GPU
 * when there); count values. */
static double complex *factor_values(ts_lu *lu) {
  if (lu->factors_on_device)
    CHECK_OK(gpu, tsi_lu_cuda_download_factors(lu));
  double complex *v = malloc((size_t)(lu->lu_nnz > 0 ? lu->lu_nnz : 1) * sizeof *v);
  for (int64_t p = 0; p < lu->lu_nnz; p++)
    v[p] = lu->options.float_factors ? CMPLX(lu->lu_values_f32[2 * p], lu->lu_values_f32[2 * p + 1])
                                     : CMPLX(lu->lu_values[2 * p], lu->lu_values[2 * p + 1]);
  return v;
}

typedef struct variant {
  const char *name;
  int scratch, no_tail, global_columns, tail_search, level_sync, solve_level_sync;
} variant;

static const variant variants[] = {
    {"default", 0, 0, 0, 0, 0, 0},
    {"level by level, solves by level", 0, 0, 0, 0, 1, 1},
    {"dense scratch in global memory", TSI_LU_SCRATCH_DENSE, 0, 1, 0, 0, 0},
    {"sparse scratch", TSI_LU_SCRATCH_SPARSE, 0, 0, 0, 0, 0},
    {"no tail", 0, 1, 0, 0, 0, 0},
    {"tail by binary search", 0, 0, 0, 1, 0, 0},
};

static ts_lu *create(ts_backend backend, int float_factors, const variant *v) {
  ts_lu_options options = lu_test_options();
  options.backend = backend;
  options.float_factors = float_factors;
  ts_lu *lu = NULL;
  CHECK_OK(gpu, ts_lu_create(gpu, &options, &lu));
  if (lu && v) {
    lu->switches.gpu_scratch = v->scratch;
    lu->switches.gpu_no_tail = v->no_tail;
    lu->switches.gpu_global_columns = v->global_columns;
    lu->switches.gpu_tail_search = v->tail_search;
    lu->switches.gpu_level_sync = v->level_sync;
    lu->switches.gpu_solve_level_sync = v->solve_level_sync;
  }
  return lu;
}

static const char *op_name(int op) { return op == 0 ? "A" : op == 1 ? "A^T" : "A^H"; }
static ts_operation op_of(int op) { return op == 0 ? TS_OP_NONE : op == 1 ? TS_OP_TRANSPOSE : TS_OP_CONJ_TRANSPOSE; }

/* Factor on the host and on the GPU (variant v), compare the factors, and
 * solve on the GPU with the three ops. */
static void check_matrix(const char *what, const ts_csr *a, int float_factors, const variant *v, int64_t dense_limit) {
  const int64_t n = a->rows;
  ts_lu *host = create(TS_BACKEND_CPU, float_factors, NULL), *device = create(TS_BACKEND_CUDA, float_factors, v);
  if (!host || !device) {
    ts_lu_destroy(host);
    ts_lu_destroy(device);
    return;
  }
  CHECK_OK(gpu, ts_lu_analyze(host, a));
  CHECK_OK(gpu, ts_lu_analyze(device, a));
  ts_status sh = ts_lu_factor(host, a), sd = ts_lu_factor(device, a);
  CHECK_MSG(sh == sd, "%s (%s): host %s, GPU %s (%s)", what, v->name, ts_status_string(sh), ts_status_string(sd),
            ts_last_error(gpu));
  if (TS_IS_ERROR(sh) || TS_IS_ERROR(sd)) {
    ts_lu_destroy(host);
    ts_lu_destroy(device);
    return;
  }
  CHECK_MSG(device->factors_on_device, "%s: the factors are not on the device", what);
  double complex *fh = factor_values(host), *fd = factor_values(device);
  double worst = 0.0;
  for (int64_t k = 0; k < n; k++) {
    double scale = 0.0, diff = 0.0;
    for (int64_t p = host->lu_col_ptr[k]; p < host->lu_col_ptr[k + 1]; p++) {
      scale = fmax(scale, cabs(fh[p]));
      diff = fmax(diff, cabs(fd[p] - fh[p]));
    }
    worst = fmax(worst, diff / (scale > 0.0 ? scale : 1.0));
  }
  const int bitwise = memcmp(fh, fd, (size_t)host->lu_nnz * sizeof *fh) == 0;
  CHECK_MSG(bitwise, "%s (%s): the GPU's factors are not the host's bits (largest column difference %.3g)", what,
            v->name, worst);
  free(fh);
  free(fd);

  double complex *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
  double complex *reference = malloc((size_t)n * sizeof *reference);
  cx_reference ref = cx_reference_make(a, dense_limit);
  double complex *dense = ref.dense;
  int64_t *piv = ref.piv;
  const double condition = ref.condition;
  for (int op = 0; op < 3; op++) {
    cx_random_vector(n, (uint64_t)(31 + op), b);
    CHECK_MSG(ts_lu_solve(device, op_of(op), 1, (const double *)b, n, (double *)x, n) == TS_SUCCESS, "%s: %s: %s", what,
              op_name(op), ts_last_error(gpu));
    const double error = cx_backward_error(a, op, b, x);
    CHECK_MSG(error <= 1e-14, "%s (%s): %s x = b on the GPU: backward error %.3g", what, v->name, op_name(op), error);
    if (dense) {
      memcpy(reference, b, (size_t)n * sizeof *b);
      cx_dense_solve(n, dense, piv, op, reference);
      const double difference = cx_relative_difference(n, x, reference);
      CHECK_MSG(difference <= 64 * 2.2e-16 * fmax(condition, 1.0), "%s (%s): %s: %.3g from the dense LU (kappa %.3g)",
                what, v->name, op_name(op), difference, condition);
    }
    if (cx_klu_solve(gpu, a, op, b, reference) == 1) {
      double estimate = condition;
      if (!isfinite(estimate))
        CHECK_OK(gpu, ts_lu_condest(device, &estimate));
      const double bound = 64 * 2.2e-16 * fmax(estimate, 1.0) + 10 * estimate * cx_backward_error(a, op, b, reference);
      CHECK_MSG(cx_relative_difference(n, x, reference) <= bound, "%s (%s): %s: %.3g from KLU's", what, v->name,
                op_name(op), cx_relative_difference(n, x, reference));
    }
  }
  free(b);
  free(x);
  free(reference);
  cx_reference_free(&ref);
  ts_lu_destroy(host);
  ts_lu_destroy(device);
}

/* Refactorization on the GPU: the bits of a fresh GPU factorization of the
 * same values (both analyzed with the first), and twice the same bits. */
static void check_refactor(const ts_csr *a, const ts_csr *a2) {
  ts_lu *first = create(TS_BACKEND_CUDA, 0, NULL), *second = create(TS_BACKEND_CUDA, 0, NULL);
  if (!first || !second) {
    ts_lu_destroy(first);
    ts_lu_destroy(second);
    return;
  }
  CHECK_OK(gpu, ts_lu_analyze(first, a));
  CHECK_OK(gpu, ts_lu_analyze(second, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(first, a)));
  CHECK(!TS_IS_ERROR(ts_lu_refactor(first, a2)));
  CHECK(!TS_IS_ERROR(ts_lu_factor(second, a2)));
  double complex *f1 = factor_values(first), *f2 = factor_values(second);
  CHECK_MSG(memcmp(f1, f2, (size_t)first->lu_nnz * sizeof *f1) == 0,
            "refactor on the GPU: not a fresh factorization's bits");
  CHECK(!TS_IS_ERROR(ts_lu_refactor(second, a2)));
  double complex *f3 = factor_values(second);
  CHECK_MSG(memcmp(f2, f3, (size_t)first->lu_nnz * sizeof *f2) == 0, "two GPU factorizations differ");
  free(f1);
  free(f2);
  free(f3);
  ts_lu_destroy(first);
  ts_lu_destroy(second);
}

int main(void) {
  small_sizes = getenv("TESSERA_UNDER_SANITIZER") != NULL;
  ts_context_options options = {.backend = TS_BACKEND_CUDA};
  if (ts_context_create(&gpu, &options) != TS_SUCCESS)
    return test_skip("no usable CUDA device");
  const int64_t n_netlist = small_sizes ? 600 : 3000, n_mesh = small_sizes ? 400 : 2500;
  ts_csr *netlist = cx_circuit(gpu, n_netlist, 0.0, 3, 1e2, TS_COMPLEX128);
  ts_csr *mesh = cx_circuit(gpu, n_mesh, 1.0, 5, 10.0, TS_COMPLEX128);
  ts_csr *mesh2 = cx_circuit(gpu, n_mesh, 1.0, 5, 1e3, TS_COMPLEX128);
  ts_csr *random = cx_random_permuted(gpu, 311, 4, 21);
  ts_csr *single = cx_circuit(gpu, n_mesh, 0.5, 13, 50.0, TS_COMPLEX64);
  CHECK(netlist && mesh && mesh2 && random && single);
  if (netlist && mesh && mesh2 && random && single) {
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
      check_matrix("netlist G + i omega C", netlist, 0, &variants[v], small_sizes ? 600 : 0);
      check_matrix("mesh G + i omega C", mesh, 0, &variants[v], small_sizes ? 400 : 0);
      check_matrix("random, permuted diagonal", random, 0, &variants[v], 311);
    }
    check_matrix("complex64 input", single, 0, &variants[0], 0);
    check_matrix("complex64 input, float factors", single, 1, &variants[0], 0);
    check_matrix("mesh, float factors", mesh, 1, &variants[0], 0);
    check_refactor(mesh, mesh2);
  }
  ts_csr_destroy(netlist);
  ts_csr_destroy(mesh);
  ts_csr_destroy(mesh2);
  ts_csr_destroy(random);
  ts_csr_destroy(single);
  ts_context_destroy(gpu);
  return test_finish();
}
