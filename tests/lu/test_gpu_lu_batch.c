/* LU batches on the GPU: uniform and mixed batches (generated circuits, 2-D
 * Laplacians, random unsymmetric matrices, corpus matrices; values perturbed
 * member by member) factored and solved on the device, every member checked
 * against the host's single-system LU of its matrix (analysed with its
 * pattern's matrix, refactored with its values, solved): the same status and
 * pivot outcomes, the solution to 1e-12 of |x| and the backward error
 * computed here at most 1e-14 (the kernels round as the host does, so the
 * solutions are expected bit for bit: the count of equal members is
 * printed); member widths of 1 to 32 lanes a warp and the update map on and
 * off; members with tiny or zero pivots and values that are not finite,
 * decided on the host as the single LU decides them; values and vectors in
 * device buffers; a refactorization; two runs bitwise the same. Exits 77
 * without a GPU. Under compute-sanitizer (TESSERA_UNDER_SANITIZER set) the
 * batches are smaller. */
#include "test_lu_batch_common.h"

static ts_context *gpu;
static int small;

typedef struct run_result {
  double *x;
  ts_status factored, solved;
} run_result;

/* Factor and solve on the GPU (optionally through device buffers). */
static run_result run_batch(ts_lu_batch *batch, const double *values, const double *b, int buffers) {
  ts_lu_batch_stats stats;
  CHECK_OK(gpu, ts_lu_batch_get_stats(batch, &stats));
  run_result r;
  r.x = malloc((size_t)(stats.rows > 0 ? stats.rows : 1) * sizeof(double));
  if (!buffers) {
    r.factored = ts_lu_batch_factor(batch, values);
    r.solved = ts_lu_batch_solve(batch, b, r.x);
    return r;
  }
  ts_buffer *vb = NULL, *bb = NULL, *xb = NULL;
  const size_t vbytes = (size_t)stats.values * sizeof(double), rbytes = (size_t)stats.rows * sizeof(double);
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, vbytes, &vb));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, rbytes, &bb));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, rbytes, &xb));
  CHECK_OK(gpu, ts_buffer_upload(gpu, vb, 0, values, vbytes));
  CHECK_OK(gpu, ts_buffer_upload(gpu, bb, 0, b, rbytes));
  r.factored = ts_lu_batch_factor_buffer(batch, vb);
  r.solved = ts_lu_batch_solve_buffer(batch, bb, xb);
  CHECK_OK(gpu, ts_buffer_download(gpu, xb, 0, r.x, rbytes));
  ts_buffer_destroy(vb);
  ts_buffer_destroy(bb);
  ts_buffer_destroy(xb);
  return r;
}

/* A batch on the GPU against the host's single LU, member by member
 * (every `stride`-th member). */
/* The plan's L solve tail (its switch: 0 the model's choice, > 0 rows, < 0
 * none; the factorization's tail follows it), and the factorization tail's
 * columns accumulated in the factors instead of shared memory. */
static int tail_rows, unstaged;

static void check_gpu_batch(const char *what, const ts_lu_options *options, int64_t patterns, const ts_csr *const *mats,
                            const int64_t *counts, double spread, unsigned long long seed, int width, int no_map,
                            int buffers, int64_t stride, const double *given, int64_t poison_b) {
  /* AUTO takes the GPU for these batches at full size (checked here); the
   * sanitizer's smaller ones are below its work threshold: forced there. */
  ts_lu_options batch_options = *options;
  if (small && batch_options.backend == TS_BACKEND_AUTO)
    batch_options.backend = TS_BACKEND_CUDA;
  ts_lu_batch *batch = batch_test_create(gpu, &batch_options, patterns, mats, counts, width, no_map);
  if (!batch)
    return;
  batch->switches.tail_rows = tail_rows;
  batch->switches.factor_tail_unstaged = unstaged;
  ts_lu_batch_stats stats;
  CHECK_OK(gpu, ts_lu_batch_get_stats(batch, &stats));
  CHECK_MSG(stats.on_gpu, "%s: the batch does not run on the GPU", what);
  double *values = given ? NULL : batch_test_values(patterns, mats, counts, spread, seed);
  const double *v = given ? given : values;
  double *b = batch_test_rhs(stats.rows, seed + 7);
  if (poison_b >= 0) {
    ts_lu_batch_member info;
    CHECK_OK(gpu, ts_lu_batch_get_member(batch, poison_b, &info));
    b[info.vector_offset + info.n / 2] = NAN;
  }
  run_result r = run_batch(batch, v, b, buffers);
  int64_t compared = 0, bitwise = 0, failed = 0;
  for (int64_t m = 0; m < stats.members; m++) {
    ts_lu_batch_member info;
    CHECK_OK(gpu, ts_lu_batch_get_member(batch, m, &info));
    failed += TS_IS_ERROR(info.status) && m != poison_b;
    if (m % stride != 0 && m != stats.members - 1)
      continue;
    const ts_csr *a = mats[info.pattern];
    batch_single s;
    batch_test_single(gpu, options, a, v + info.value_offset, b + info.vector_offset, &s);
    batch_test_compare(what, batch, m, &s, r.x, 0, 1e-12);
    CHECK_MSG(!info.on_host == (s.factor_status == TS_SUCCESS), "%s member %lld: on the host %d, single %s", what,
              (long long)m, info.on_host, ts_status_string(s.factor_status));
    if (!TS_IS_ERROR(s.factor_status) && !TS_IS_ERROR(s.solve_status)) {
      bitwise += memcmp(r.x + info.vector_offset, s.x, (size_t)info.n * sizeof(double)) == 0;
      if (s.stats.perturbed_pivots == 0) {
        double berr =
            batch_test_backward_error(a, v + info.value_offset, b + info.vector_offset, r.x + info.vector_offset);
        CHECK_MSG(berr <= 1e-14, "%s member %lld: backward error %.3e computed here", what, (long long)m, berr);
      }
    }
    compared++;
    batch_single_free(&s);
  }
  CHECK_MSG((failed > 0) == TS_IS_ERROR(r.factored), "%s: factor returned %s with %lld failed members", what,
            ts_status_string(r.factored), (long long)failed);
  printf("%s: %lld members, %lld compared, %lld bitwise equal to the host's single LU, %lld failed\n", what,
         (long long)stats.members, (long long)compared, (long long)bitwise, (long long)failed);
  free(r.x);
  free(values);
  free(b);
  ts_lu_batch_destroy(batch);
}

static void test_generated(void) {
  ts_lu_options options = lu_test_options();
  ts_csr *c = batch_test_circuit(gpu, small ? 200 : 1000, 7);
  ts_csr *l = NULL;
  CHECK_OK(gpu, ts_gen_laplacian_2d(gpu, small ? 12 : 32, small ? 12 : 32, TS_FLOAT64, &l));
  ts_csr *r = lu_test_random(gpu, small ? 100 : 400, 4, 0, 11);
  int32_t one_row = 0, one_col = 0;
  double one_value = -2.0;
  ts_csr *tiny = lu_test_csr(gpu, 1, 1, &one_row, &one_col, &one_value);

  const int64_t many = small ? 16 : 1000;
  check_gpu_batch("circuit", &options, 1, (const ts_csr *const[]){c}, &many, 0.2, 1, 0, 0, 0, small ? 1 : 37, NULL, -1);
  check_gpu_batch("laplacian", &options, 1, (const ts_csr *const[]){l}, &many, 0.2, 2, 0, 0, 0, small ? 1 : 37, NULL,
                  -1);
  const int64_t counts[4] = {small ? 9 : 70, 5, 3, 2};
  const int widths[] = {0, 1, 4, 32};
  for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
    check_gpu_batch("mixed", &options, 4, (const ts_csr *const[]){c, l, r, tiny}, counts, 0.2, 3 + w, widths[w], w == 2,
                    0, 1, NULL, -1);
  /* The tails: none, and every row and column (up to the most they take),
   * the factorization's columns staged and not. */
  const char *tail_cases[] = {"mixed, no tail", "mixed, all tail", "mixed, all tail unstaged"};
  for (int t = 0; t < 3; t++) {
    tail_rows = t == 0 ? -1 : 100000;
    unstaged = t == 2;
    check_gpu_batch(tail_cases[t], &options, 4, (const ts_csr *const[]){c, l, r, tiny}, counts, 0.2, 20 + t, 0, 0, 0, 1,
                    NULL, -1);
  }
  tail_rows = 0;
  unstaged = 0;
  const int64_t count = small ? 10 : 100;
  check_gpu_batch("circuit, device buffers", &options, 1, (const ts_csr *const[]){c}, &count, 0.2, 9, 0, 0, 1, 3, NULL,
                  -1);
  ts_lu_options f32 = options;
  f32.float_factors = 1;
  check_gpu_batch("float factors", &f32, 1, (const ts_csr *const[]){c}, &count, 0.2, 10, 8, 0, 0, 3, NULL, -1);
  ts_csr_destroy(c);
  ts_csr_destroy(l);
  ts_csr_destroy(r);
  ts_csr_destroy(tiny);
}

/* Zero rows (tiny pivots: replaced, or singular without perturbation) and a
 * NaN: those members decided on the host as the single LU decides them. */
static void test_failing_members(void) {
  ts_csr *c = batch_test_circuit(gpu, 150, 21);
  const int64_t count = small ? 20 : 40;
  double *values = batch_test_values(1, (const ts_csr *const[]){c}, &count, 0.1, 77);
  for (int64_t e = c->row_ptr[17]; e < c->row_ptr[18]; e++)
    values[3 * c->nnz + e] = 0.0;
  for (int64_t e = c->row_ptr[40]; e < c->row_ptr[41]; e++)
    values[(count - 7) * c->nnz + e] = 0.0;
  values[2 * c->nnz + c->row_ptr[9]] = NAN;
  for (int perturb = 0; perturb < 2; perturb++) {
    ts_lu_options options = lu_test_options();
    options.no_perturbation = !perturb;
    options.backend = TS_BACKEND_CUDA; /* a small batch: AUTO would keep it on the host */
    for (int buffers = 0; buffers < 2; buffers++)
      check_gpu_batch(perturb ? "failing members, perturbation on" : "failing members, perturbation off", &options, 1,
                      (const ts_csr *const[]){c}, &count, 0.0, 78, 0, 0, buffers, 1, values, 11);
  }
  free(values);
  ts_csr_destroy(c);
}

/* Two factorizations with other values, and two runs of the same: the
 * second equals its own single references, the runs are bitwise the same. */
static void test_refactor_and_repeat(void) {
  ts_csr *c = batch_test_circuit(gpu, small ? 150 : 800, 31);
  const int64_t count = small ? 20 : 300;
  ts_lu_options options = lu_test_options();
  ts_lu_batch *batch = NULL;
  CHECK_OK(gpu, ts_lu_batch_create(gpu, &options, 1, (const ts_csr *const[]){c}, &count, &batch));
  if (!batch)
    return;
  double *first = batch_test_values(1, (const ts_csr *const[]){c}, &count, 0.3, 5);
  double *second = batch_test_values(1, (const ts_csr *const[]){c}, &count, 0.3, 6);
  double *b = batch_test_rhs(count * c->rows, 7);
  run_result r1 = run_batch(batch, first, b, 0);
  run_result r2 = run_batch(batch, second, b, 0);
  run_result r3 = run_batch(batch, second, b, 1);
  CHECK(r1.factored == TS_SUCCESS && r2.factored == TS_SUCCESS && r3.factored == TS_SUCCESS);
  CHECK_MSG(memcmp(r2.x, r3.x, (size_t)(count * c->rows) * sizeof(double)) == 0,
            "two runs with the same values differ");
  for (int64_t m = 0; m < count; m += count / 5) {
    batch_single s;
    batch_test_single(gpu, &options, c, second + m * c->nnz, b + m * c->rows, &s);
    batch_test_compare("refactor", batch, m, &s, r2.x, 0, 1e-12);
    batch_single_free(&s);
  }
  free(r1.x);
  free(r2.x);
  free(r3.x);
  free(first);
  free(second);
  free(b);
  ts_lu_batch_destroy(batch);
  ts_csr_destroy(c);
}

/* Corpus matrices (the full corpus when present), values perturbed by 1 %.
 * 24 members of a corpus matrix are below AUTO's work threshold (the host is
 * faster there): the GPU path is forced, since it is what is tested. */
static void check_corpus_matrix(const char *name, const ts_csr *a, size_t i) {
  ts_lu_options options = lu_test_options();
  options.backend = TS_BACKEND_CUDA;
  const int64_t count = small ? 3 : 24;
  check_gpu_batch(name, &options, 1, (const ts_csr *const[]){a}, &count, 0.01, 40 + i, 0, 0, 0, 1, NULL, -1);
}

int main(void) {
  small = getenv("TESSERA_UNDER_SANITIZER") != NULL;
  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CUDA;
  if (ts_context_create(&gpu, &options) != TS_SUCCESS)
    return test_skip("no usable CUDA device");
  test_generated();
  test_failing_members();
  test_refactor_and_repeat();
  batch_test_corpus(gpu, check_corpus_matrix);
  ts_context_destroy(gpu);
  return test_finish();
}
