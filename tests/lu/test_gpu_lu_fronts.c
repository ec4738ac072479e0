/* The multifrontal factorization on the GPU (numeric/frontal_cuda.cu)
 * against the host's (frontal_cpu.c), both forced by the method switch: the
 * same status, pivot outcome (perturbed count, singular column), flops and
 * pivot-check indicators, and factors equal bit for bit, in double and
 * float factors, on generated matrices (2-D and 3-D Laplacians, whose top
 * fronts take several panels, the 2-D one also in METIS's nested dissection
 * order; a grid circuit, a netlist, a random
 * unsymmetric matrix; exact cancellations that need perturbation; a nearly
 * singular Laplacian with a small pivot) and on corpus matrices. Then the
 * GPU's solves through those factors (both operations, several right-hand
 * sides: the solve reads the dense tail block the fronts leave) reach the
 * host's backward error, a refactorization with new values equals the
 * host's new factors bit for bit, and a second factorization repeats the
 * bits. Exits 77 without a usable GPU; smaller sizes under compute-sanitizer
 * (TESSERA_UNDER_SANITIZER), and under racecheck only the meshes whose top
 * fronts take several panels (the kernels with shared memory and barriers). */
#include "test_gpu_lu_common.h"

#include "lu/symbolic/symbolic_internal.h" /* the fronts' figures */

/* The perturbation cases need the natural order (their cancellations are
 * the natural order's). */
static int natural_order;
/* The nested dissection case orders by METIS explicitly (AUTO takes AMD at
 * the 2-D test size). */
static int nested_dissection;

static ts_lu *fronts_lu(ts_backend backend, int float_factors, int no_perturbation, int no_matching) {
  ts_lu_options options = lu_test_options();
  if (natural_order)
    options.ordering = TS_LU_ORDER_NATURAL;
  else if (nested_dissection)
    options.ordering = TS_LU_ORDER_NESTED_DISSECTION;
  options.backend = backend;
  options.float_factors = float_factors;
  options.no_perturbation = no_perturbation;
  options.no_matching = no_matching;
  ts_lu *lu = NULL;
  CHECK_OK(gpu, ts_lu_create(gpu, &options, &lu));
  if (lu)
    lu->switches.numeric_method = TSI_LU_METHOD_FRONTS;
  return lu;
}

/* Largest backward error of m solves with op through lu. */
static double solve_worst(ts_lu *lu, const ts_csr *a, int op, int64_t m) {
  const int64_t n = a->rows;
  double *b = malloc((size_t)(n * m) * sizeof *b), *x = calloc((size_t)(n * m), sizeof *x);
  unsigned long long state = 23 + (unsigned long long)op;
  for (int64_t k = 0; k < n * m; k++)
    b[k] = test_random(&state);
  double worst = INFINITY;
  if (ts_lu_solve(lu, op ? TS_OP_TRANSPOSE : TS_OP_NONE, m, b, n, x, n) == TS_SUCCESS) {
    worst = 0.0;
    for (int64_t c = 0; c < m; c++)
      worst = fmax(worst, lu_test_backward_error(a, op, x + c * n, b + c * n));
  }
  free(b);
  free(x);
  return worst;
}

/* The two objects' last factorizations agree: status, outcome, flops,
 * indicators, and (when factored) the factors bit for bit. */
static int same_factorization(const char *what, const char *step, ts_lu *host, ts_lu *device, ts_status hs,
                              ts_status ds) {
  CHECK_MSG(hs == ds, "%s, %s: host %s, GPU %s (%s)", what, step, ts_status_string(hs), ts_status_string(ds),
            ts_last_error(gpu));
  ts_lu_stats h, d;
  CHECK_OK(gpu, ts_lu_get_stats(host, &h));
  CHECK_OK(gpu, ts_lu_get_stats(device, &d));
  CHECK_MSG(h.perturbed_pivots == d.perturbed_pivots && h.singular_column == d.singular_column,
            "%s, %s: perturbed %lld / %lld, singular column %lld / %lld", what, step, (long long)h.perturbed_pivots,
            (long long)d.perturbed_pivots, (long long)h.singular_column, (long long)d.singular_column);
  CHECK_MSG(h.flops == d.flops, "%s, %s: flops %.17g / %.17g", what, step, h.flops, d.flops);
  const tsi_lu_device *cache = (const tsi_lu_device *)device->numeric_device;
  CHECK_MSG(cache && cache->used_fronts, "%s, %s: the GPU did not take the fronts (%s)", what, step,
            cache && cache->method_reason ? cache->method_reason : "no device cache");
  if (TS_IS_ERROR(hs) || TS_IS_ERROR(ds))
    return 0;
  CHECK_MSG(h.max_multiplier == d.max_multiplier && h.pivot_growth == d.pivot_growth,
            "%s, %s: multiplier %.17g / %.17g, growth %.17g / %.17g", what, step, h.max_multiplier, d.max_multiplier,
            h.pivot_growth, d.pivot_growth);
  double *vh = gpu_lu_factor_values(host), *vd = gpu_lu_factor_values(device);
  int bitwise = 0;
  const double difference = gpu_lu_factor_difference(host, vd, vh, &bitwise);
  CHECK_MSG(bitwise, "%s, %s: the GPU's fronts are not the host's bits (largest column difference %.3g)", what, step,
            difference);
  free(vh);
  free(vd);
  return bitwise;
}

/* Factor a by fronts on both, compare; solve; refactor with new values;
 * factor again. */
static void compare(const char *name, const ts_csr *a, int float_factors, int no_perturbation, int no_matching) {
  char what[200];
  snprintf(what, sizeof what, "%s (%s factors%s%s)", name, float_factors ? "float" : "double",
           no_perturbation ? ", no perturbation" : "", no_matching ? ", no matching" : "");
  ts_lu *host = fronts_lu(TS_BACKEND_CPU, float_factors, no_perturbation, no_matching);
  ts_lu *device = fronts_lu(TS_BACKEND_CUDA, float_factors, no_perturbation, no_matching);
  if (!host || !device) {
    ts_lu_destroy(host);
    ts_lu_destroy(device);
    return;
  }
  CHECK_OK(gpu, ts_lu_analyze(host, a));
  CHECK_OK(gpu, ts_lu_analyze(device, a));
  const ts_status hs = ts_lu_factor(host, a), ds = ts_lu_factor(device, a);
  const int bitwise = same_factorization(what, "factor", host, device, hs, ds);
  const tsi_lu_fronts *fr = host->fronts;
  const tsi_lu_device *cache = (const tsi_lu_device *)device->numeric_device;
  if (TS_IS_ERROR(hs) || TS_IS_ERROR(ds)) {
    printf("%-52s %s on both (singular column %lld)\n", what, ts_status_string(ds),
           (long long)device->stats.singular_column);
    ts_lu_destroy(host);
    ts_lu_destroy(device);
    return;
  }
  double *first = gpu_lu_factor_values(device);
  /* Solves through the GPU's factors: the host's backward error. */
  double host_berr = 0.0, device_berr = 0.0;
  for (int op = 0; op < 2; op++) {
    host_berr = fmax(host_berr, solve_worst(host, a, op, 3));
    device_berr = fmax(device_berr, solve_worst(device, a, op, 3));
  }
  const int perturbed = device->stats.perturbed_pivots > 0;
  CHECK_MSG(device_berr <= fmax(1e-14, 4.0 * host_berr), "%s: GPU backward error %.3g, host %.3g", what, device_berr,
            host_berr);
  /* New values on the analyzed pattern, then the first values again. */
  ts_csr *next = lu_test_perturbed_copy(gpu, a, 0.2, 41);
  int refactored = 0, repeated = 0;
  if (next) {
    const ts_status hr = ts_lu_refactor(host, next), dr = ts_lu_refactor(device, next);
    refactored = same_factorization(what, "refactor", host, device, hr, dr);
    if (!TS_IS_ERROR(dr)) {
      const double berr = solve_worst(device, next, 0, 2);
      CHECK_MSG(berr <= fmax(1e-14, 4.0 * solve_worst(host, next, 0, 2)), "%s: refactored: backward error %.3g", what,
                berr);
    }
    ts_csr_destroy(next);
  }
  /* The first values again: the first factorization's bits. */
  const ts_status again = ts_lu_refactor(device, a);
  CHECK(again == ds);
  if (!TS_IS_ERROR(again)) {
    double *after = gpu_lu_factor_values(device);
    repeated = memcmp(first, after, (size_t)device->lu_nnz * sizeof *first) == 0;
    CHECK_MSG(repeated, "%s: a second factorization of the same values changed the factors", what);
    free(after);
  }
  free(first);
  printf("%-52s n %7lld  fronts %6lld  levels %5lld  largest %5d  tail %5lld  %s  refactor %s  again %s  berr %.2g "
         "(host %.2g)%s\n",
         what, (long long)a->rows, fr ? (long long)fr->count : -1LL, fr ? (long long)fr->levels : -1LL,
         fr ? fr->max_size : -1, cache && cache->tail_dense ? (long long)(a->rows - cache->tail_start) : 0LL,
         bitwise ? "bitwise" : "DIFFERENT", refactored ? "bitwise" : "DIFFERENT", repeated ? "bitwise" : "DIFFERENT",
         device_berr, host_berr, perturbed ? "  (perturbed pivots)" : "");
  ts_lu_destroy(host);
  ts_lu_destroy(device);
}

/* Copies of a block B chained by small couplings between their last
 * elements: B = [[1, 1], [1, 1]] + diag(2, 3, 4, 5) (6 x 6, singular: a zero
 * pivot by exact cancellation, the matching cannot avoid it) or, with
 * nonsingular set, the 3 x 3 [[1, 1, 0], [1, 1, 1], [0, 1, 1]] whose second
 * pivot cancels in the natural order (the perturbed pivot stands: the
 * solves refine through it). The couplings reach no row or column of a
 * block before its cancelling pivot, so every copy cancels exactly. */
static ts_csr *cancelling(int64_t copies, int nonsingular) {
  const int32_t rows6[] = {0, 0, 1, 1, 2, 3, 4, 5, 2, 5}, cols6[] = {0, 1, 0, 1, 2, 3, 4, 5, 5, 2};
  const double values6[] = {1, 1, 1, 1, 2, 3, 4, 5, 0.5, 0.25};
  const int32_t rows3[] = {0, 0, 1, 1, 1, 2, 2}, cols3[] = {0, 1, 0, 1, 2, 1, 2};
  const double values3[] = {1, 1, 1, 1, 1, 1, 1};
  const int size = nonsingular ? 3 : 6, entries = nonsingular ? 7 : 10;
  const int32_t *rows = nonsingular ? rows3 : rows6, *cols = nonsingular ? cols3 : cols6;
  const double *values = nonsingular ? values3 : values6;
  const int64_t n = size * copies, capacity = (entries + 2) * copies;
  int32_t *r = malloc((size_t)capacity * sizeof *r), *c = malloc((size_t)capacity * sizeof *c);
  double *v = malloc((size_t)capacity * sizeof *v);
  int64_t count = 0;
  for (int64_t k = 0; k < copies; k++) {
    for (int e = 0; e < entries; e++) {
      r[count] = (int32_t)(size * k + rows[e]);
      c[count] = (int32_t)(size * k + cols[e]);
      v[count++] = values[e];
    }
    if (k + 1 < copies) { /* last element of copy k with the last of copy k + 1 */
      r[count] = (int32_t)(size * k + size - 1);
      c[count] = (int32_t)(size * (k + 1) + size - 1);
      v[count++] = 1e-3;
      r[count] = (int32_t)(size * (k + 1) + size - 1);
      c[count] = (int32_t)(size * k + size - 1);
      v[count++] = -2e-3;
    }
  }
  ts_csr *a = lu_test_csr(gpu, n, count, r, c, v);
  free(r);
  free(c);
  free(v);
  return a;
}

/* The nx x ny grid graph's Laplacian (rows summing to zero: singular) plus
 * shift on the diagonal: nearly singular, its smallest pivot about shift. */
static ts_csr *shifted_laplacian(int64_t nx, int64_t ny, double shift) {
  const int64_t n = nx * ny, capacity = 5 * n;
  int32_t *r = malloc((size_t)capacity * sizeof *r), *c = malloc((size_t)capacity * sizeof *c);
  double *v = malloc((size_t)capacity * sizeof *v);
  int64_t count = 0;
  for (int64_t y = 0; y < ny; y++)
    for (int64_t x = 0; x < nx; x++) {
      const int32_t i = (int32_t)(y * nx + x);
      const int32_t neighbours[4] = {x > 0 ? i - 1 : -1, x + 1 < nx ? i + 1 : -1, y > 0 ? (int32_t)(i - nx) : -1,
                                     y + 1 < ny ? (int32_t)(i + nx) : -1};
      double degree = 0.0;
      for (int k = 0; k < 4; k++)
        if (neighbours[k] >= 0) {
          r[count] = i;
          c[count] = neighbours[k];
          v[count++] = -1.0;
          degree += 1.0;
        }
      r[count] = i;
      c[count] = i;
      v[count++] = degree + shift;
    }
  ts_csr *a = lu_test_csr(gpu, n, count, r, c, v);
  free(r);
  free(c);
  free(v);
  return a;
}

static int under_racecheck(void) {
  const char *tool = getenv("TESSERA_UNDER_SANITIZER");
  return tool && strcmp(tool, "racecheck") == 0;
}

static void test_generated(void) {
  const int s = small_sizes, racecheck = under_racecheck();
  struct {
    const char *name;
    ts_csr *a;
  } cases[9];
  memset(cases, 0, sizeof cases);
  cases[0].name = s ? "Laplacian 2-D 40 x 40" : "Laplacian 2-D 200 x 200";
  CHECK_OK(gpu, ts_gen_laplacian_2d(gpu, s ? 40 : 200, s ? 40 : 200, TS_FLOAT64, &cases[0].a));
  cases[1].name = s ? "Laplacian 3-D 14 x 13 x 12" : "Laplacian 3-D 30 x 30 x 30";
  CHECK_OK(gpu, ts_gen_laplacian_3d(gpu, s ? 14 : 30, s ? 13 : 30, s ? 12 : 30, TS_FLOAT64, &cases[1].a));
  cases[2].name = "circuit grid";
  cases[2].a = gpu_lu_circuit(s ? 1500 : 20000, 1.0, 8);
  cases[3].name = "netlist";
  {
    ts_circuit_params params = ts_circuit_defaults(s ? 1500 : 20000); /* the default locality: a netlist */
    CHECK_OK(gpu, ts_gen_circuit(gpu, &params, 9, TS_FLOAT64, &cases[3].a));
  }
  cases[4].name = "random unsymmetric";
  cases[4].a = lu_test_random(gpu, s ? 300 : 2000, 5, 0, 31);
  cases[5].name = "perturbed pivots (natural order)";
  cases[5].a = cancelling(s ? 20 : 300, 1);
  cases[6].name = "singular blocks (natural order)";
  cases[6].a = cancelling(s ? 20 : 200, 0);
  cases[7].name = "Laplacian + 1e-9 I (small pivot)";
  cases[7].a = shifted_laplacian(s ? 20 : 60, s ? 20 : 60, 1e-9);
  cases[8].name = s ? "Laplacian 2-D 40 x 40, nested dissection" : "Laplacian 2-D 200 x 200, nested dissection";
  if (lu_test_have_ordering(TS_LU_ORDER_NESTED_DISSECTION))
    CHECK_OK(gpu, ts_gen_laplacian_2d(gpu, s ? 40 : 200, s ? 40 : 200, TS_FLOAT64, &cases[8].a));
  else
    printf("SKIPPED (part): %s: built without METIS\n", cases[8].name);
  for (int k = 0; k < 9; k++) {
    if (!cases[k].a || (racecheck && k != 0 && k != 1 && k != 7 && k != 8)) {
      ts_csr_destroy(cases[k].a);
      continue;
    }
    natural_order = k == 5 || k == 6;
    nested_dissection = k == 8;
    for (int float_factors = 0; float_factors < 2; float_factors++)
      compare(cases[k].name, cases[k].a, float_factors, 0, natural_order);
    if (natural_order) /* perturbation off: the same singular column */
      compare(cases[k].name, cases[k].a, 0, 1, 1);
    natural_order = nested_dissection = 0;
    ts_csr_destroy(cases[k].a);
  }
}

static void test_corpus(void) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("corpus: none found, skipped\n");
    return;
  }
  const char *names[] = {"west0479", "add20",    "sherman5", "bayer10", "rdb2048",  "fs_183_6",
                         "jagmesh7", "bcsstk13", "plat362",  "cage5",   "impcol_a", "gr_30_30"};
  const int count = (int)(sizeof names / sizeof names[0]);
  for (int k = 0; k < count; k++) {
    char path[4096];
    if (small_sizes && k >= 2) /* under compute-sanitizer: the two smallest */
      break;
    if (!test_corpus_matrix(dir, names[k], path, sizeof path))
      continue;
    ts_csr *a = test_read_general(gpu, dir, names[k]);
    CHECK_MSG(a != NULL, "%s: %s", names[k], ts_last_error(gpu));
    if (!a)
      continue;
    if (a->rows == a->cols)
      for (int float_factors = 0; float_factors < 2; float_factors++)
        compare(names[k], a, float_factors, 0, 0);
    ts_csr_destroy(a);
  }
}

/* The rule's own choice (no switch) on a mesh: whatever it takes, the
 * solve is right; the choice is printed. */
static void test_rule(void) {
  ts_csr *a = NULL;
  CHECK_OK(gpu, ts_gen_laplacian_2d(gpu, small_sizes ? 30 : 150, small_sizes ? 30 : 150, TS_FLOAT64, &a));
  if (!a)
    return;
  ts_lu *lu = fronts_lu(TS_BACKEND_CUDA, 0, 0, 0);
  if (lu) {
    lu->switches.numeric_method = TSI_LU_METHOD_AUTO;
    CHECK_OK(gpu, ts_lu_analyze(lu, a));
    CHECK_OK(gpu, ts_lu_factor(lu, a));
    const tsi_lu_device *cache = (const tsi_lu_device *)lu->numeric_device;
    const double berr = fmax(solve_worst(lu, a, 0, 1), solve_worst(lu, a, 1, 1));
    CHECK_MSG(berr <= 1e-14, "the rule's choice: backward error %.3g", berr);
    printf("the rule on the %lld-row 2-D Laplacian: %s; backward error %.2g\n", (long long)a->rows,
           cache && cache->method_reason ? cache->method_reason : "?", berr);
  }
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

int main(void) {
  const int skip = gpu_lu_setup();
  if (skip)
    return skip;
  test_generated();
  if (!under_racecheck()) {
    test_corpus();
    test_rule();
  }
  ts_context_destroy(gpu);
  return test_finish();
}
