/* LU batches on the host: every member of uniform and mixed batches
 * (generated circuits, 2-D Laplacians, random unsymmetric matrices, corpus
 * matrices, values perturbed member by member) equals, bit for bit, the
 * single-system LU of its matrix (analysed with the pattern's matrix,
 * refactored with the member's values, solved: factors, solution, backward
 * error, refinement steps, pivot outcomes), and solves its system to a
 * backward error computed here; singular members, members with values
 * that are not finite and a right-hand side that is not finite are reported
 * while the others succeed; results do not
 * depend on the thread count; bad arguments are refused. */
#include "test_lu_batch_common.h"

static ts_context *ctx;

/* Member m's factors equal the single reference's, bit for bit. */
static void check_factors(const char *what, const ts_lu_batch *batch, int64_t m, const batch_single *s) {
  const ts_lu *view = batch->member[m].view;
  if (TS_IS_ERROR(s->factor_status) || !view)
    return;
  int same = view->lu_nnz == s->lu_nnz;
  for (int64_t p = 0; same && p < s->lu_nnz; p++) {
    double v = view->lu_values_f32 ? (double)view->lu_values_f32[p] : view->lu_values[p];
    same = memcmp(&v, &s->factors[p], sizeof v) == 0;
  }
  CHECK_MSG(same, "%s member %lld: factors differ from the single factorization", what, (long long)m);
}

/* Factor and solve a batch with values perturbed by `spread`, then compare
 * every member with its single-system reference and check its backward
 * error here; then refactor with other values and compare again. */
static void check_batch(const char *what, const ts_lu_options *options, int64_t patterns, const ts_csr *const *mats,
                        const int64_t *counts, double spread, unsigned long long seed) {
  ts_lu_batch *batch = NULL;
  CHECK_OK(ctx, ts_lu_batch_create(ctx, options, patterns, mats, counts, &batch));
  if (!batch)
    return;
  ts_lu_batch_stats stats;
  CHECK_OK(ctx, ts_lu_batch_get_stats(batch, &stats));
  int64_t members = 0, values_length = 0, rows = 0;
  for (int64_t p = 0; p < patterns; p++) {
    members += counts[p];
    values_length += counts[p] * mats[p]->nnz;
    rows += counts[p] * mats[p]->rows;
  }
  CHECK(stats.members == members && stats.values == values_length && stats.rows == rows && stats.patterns == patterns &&
        !stats.on_gpu);

  for (int round = 0; round < 2; round++) {
    double *values = batch_test_values(patterns, mats, counts, spread, seed + (unsigned long long)round);
    double *b = batch_test_rhs(rows, seed + 100 + (unsigned long long)round);
    double *x = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *x);
    ts_status factored = ts_lu_batch_factor(batch, values);
    CHECK_MSG(!TS_IS_ERROR(factored), "%s: factor: %s (%s)", what, ts_status_string(factored), ts_last_error(ctx));
    ts_status solved = ts_lu_batch_solve(batch, b, x);
    CHECK_MSG(solved == TS_SUCCESS, "%s: solve: %s (%s)", what, ts_status_string(solved), ts_last_error(ctx));
    int64_t perturbed = 0;
    for (int64_t m = 0; m < members; m++) {
      ts_lu_batch_member info;
      CHECK_OK(ctx, ts_lu_batch_get_member(batch, m, &info));
      const ts_csr *a = mats[info.pattern];
      CHECK(info.n == a->rows && info.nnz == a->nnz);
      batch_single s;
      batch_test_single(ctx, options, a, values + info.value_offset, b + info.vector_offset, &s);
      batch_test_compare(what, batch, m, &s, x, 1, 0.0);
      check_factors(what, batch, m, &s);
      perturbed += info.perturbed_pivots > 0;
      if (!TS_IS_ERROR(info.status) && s.stats.perturbed_pivots == 0) {
        double berr =
            batch_test_backward_error(a, values + info.value_offset, b + info.vector_offset, x + info.vector_offset);
        CHECK_MSG(berr <= 1e-14, "%s member %lld: backward error %.3e computed here", what, (long long)m, berr);
      }
      batch_single_free(&s);
    }
    CHECK_OK(ctx, ts_lu_batch_get_stats(batch, &stats));
    CHECK(stats.perturbed_members == perturbed && stats.failed_members == 0);
    CHECK(factored == (perturbed > 0 ? TS_WARNING_PERTURBED_PIVOTS : TS_SUCCESS));
    free(values);
    free(b);
    free(x);
  }
  ts_lu_batch_destroy(batch);
}

static ts_csr *laplacian(int64_t nx, int64_t ny) {
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_gen_laplacian_2d(ctx, nx, ny, TS_FLOAT64, &a));
  return a;
}

static void test_generated(void) {
  ts_lu_options options = lu_test_options();
  ts_csr *c = batch_test_circuit(ctx, 500, 7), *l = laplacian(20, 20), *r = lu_test_random(ctx, 200, 4, 0, 11);
  const int64_t n1 = 1;
  int32_t one_row = 0, one_col = 0;
  double one_value = 3.0;
  ts_csr *tiny = lu_test_csr(ctx, 1, 1, &one_row, &one_col, &one_value);

  int64_t count = 24;
  check_batch("circuit", &options, 1, (const ts_csr *const[]){c}, &count, 0.2, 1);
  count = 16;
  check_batch("laplacian", &options, 1, (const ts_csr *const[]){l}, &count, 0.2, 2);
  check_batch("single member", &options, 1, (const ts_csr *const[]){r}, &n1, 0.1, 3);
  const int64_t mixed_counts[4] = {5, 3, 4, 2};
  check_batch("mixed", &options, 4, (const ts_csr *const[]){c, l, r, tiny}, mixed_counts, 0.2, 4);

  ts_lu_options f32 = options;
  f32.float_factors = 1;
  count = 6;
  check_batch("float factors", &f32, 1, (const ts_csr *const[]){c}, &count, 0.2, 5);
  ts_lu_options natural = options;
  natural.ordering = TS_LU_ORDER_NATURAL;
  natural.no_matching = 1;
  check_batch("natural, no matching", &natural, 2, (const ts_csr *const[]){c, r}, (const int64_t[]){3, 3}, 0.2, 6);
  ts_csr_destroy(c);
  ts_csr_destroy(l);
  ts_csr_destroy(r);
  ts_csr_destroy(tiny);
}

/* Corpus matrices (the full corpus when present, else the repository's),
 * six members each, values perturbed by 1 %. */
static void check_corpus_matrix(const char *name, const ts_csr *a, size_t i) {
  ts_lu_options options = lu_test_options();
  const int64_t count = 6;
  check_batch(name, &options, 1, (const ts_csr *const[]){a}, &count, 0.01, 40 + i);
}

/* Set the values of row `row` of member m (pattern a, one pattern) to v. */
static void set_row(double *values, const ts_csr *a, int64_t m, int64_t row, double v) {
  for (int64_t e = a->row_ptr[row]; e < a->row_ptr[row + 1]; e++)
    values[m * a->nnz + e] = v;
}

/* Members made singular (a zero row) or given a NaN: reported as the single
 * LU reports them, named in the message, their x NaN; the others factored
 * and solved as single systems. With perturbation off and on. */
static void test_failing_members(void) {
  ts_csr *a = batch_test_circuit(ctx, 120, 21);
  const int64_t count = 8, rows = count * a->rows;
  for (int perturb = 0; perturb < 2; perturb++) {
    ts_lu_options options = lu_test_options();
    options.no_perturbation = !perturb;
    ts_lu_batch *batch = NULL;
    CHECK_OK(ctx, ts_lu_batch_create(ctx, &options, 1, (const ts_csr *const[]){a}, &count, &batch));
    if (!batch)
      continue;
    double *values = batch_test_values(1, (const ts_csr *const[]){a}, &count, 0.1, 77);
    set_row(values, a, 3, 17, 0.0);
    set_row(values, a, 6, 40, 0.0);
    values[2 * a->nnz + a->row_ptr[9]] = NAN;
    double *b = batch_test_rhs(rows, 78), *x = malloc((size_t)rows * sizeof *x);
    b[5 * a->rows + 3] = INFINITY; /* member 5's solve refuses its b */
    ts_status st = ts_lu_batch_factor(batch, values);
    CHECK_MSG(TS_IS_ERROR(st), "perturbation %d: a batch with failing members factored with %s", perturb,
              ts_status_string(st));
    const char *message = ts_last_error(ctx);
    CHECK_MSG(strstr(message, "member 2") != NULL, "the message names the first failed member: %s", message);
    ts_status first = st;
    st = ts_lu_batch_solve(batch, b, x);
    CHECK_MSG(st == first, "solve: %s, want the first failed member's %s", ts_status_string(st),
              ts_status_string(first));
    ts_lu_batch_stats stats;
    CHECK_OK(ctx, ts_lu_batch_get_stats(batch, &stats));
    int64_t failed = 0;
    for (int64_t m = 0; m < count; m++) {
      batch_single s;
      batch_test_single(ctx, &options, a, values + m * a->nnz, b + m * a->rows, &s);
      batch_test_compare(perturb ? "failing, perturbation on" : "failing, perturbation off", batch, m, &s, x, 1, 0.0);
      check_factors("failing", batch, m, &s);
      failed += TS_IS_ERROR(s.factor_status) || TS_IS_ERROR(s.solve_status);
      batch_single_free(&s);
    }
    CHECK_MSG(stats.failed_members == failed, "%lld failed members counted, %lld by the single LU",
              (long long)stats.failed_members, (long long)failed);
    ts_lu_batch_member info;
    CHECK_OK(ctx, ts_lu_batch_get_member(batch, 2, &info));
    CHECK(info.status == TS_ERROR_INVALID_MATRIX);
    CHECK_OK(ctx, ts_lu_batch_get_member(batch, 5, &info));
    CHECK_MSG(info.status == TS_ERROR_INVALID_ARGUMENT, "member 5 with an infinite b: %s",
              ts_status_string(info.status));
    if (!perturb) {
      CHECK_OK(ctx, ts_lu_batch_get_member(batch, 3, &info));
      CHECK(info.status == TS_ERROR_NUMERICALLY_SINGULAR && info.singular_column >= 0);
      CHECK_OK(ctx, ts_lu_batch_get_member(batch, 0, &info));
      CHECK(info.status == TS_SUCCESS && info.singular_column == -1);
    }
    free(values);
    free(b);
    free(x);
    ts_lu_batch_destroy(batch);
  }
  ts_csr_destroy(a);
}

/* The same batch on one thread and on several: bitwise the same solutions. */
static void test_threads(void) {
  ts_csr *a = batch_test_circuit(ctx, 400, 31);
  const int64_t count = 12, rows = count * a->rows;
  double *values = batch_test_values(1, (const ts_csr *const[]){a}, &count, 0.3, 5);
  double *b = batch_test_rhs(rows, 6);
  double *x[2] = {malloc((size_t)rows * sizeof(double)), malloc((size_t)rows * sizeof(double))};
  for (int t = 0; t < 2; t++) {
    ts_context_options copt;
    memset(&copt, 0, sizeof copt);
    copt.backend = TS_BACKEND_CPU;
    copt.num_threads = t == 0 ? 1 : 3;
    ts_context *c = NULL;
    CHECK_OK(NULL, ts_context_create(&c, &copt));
    ts_lu_options options = lu_test_options();
    ts_lu_batch *batch = NULL;
    CHECK_OK(c, ts_lu_batch_create(c, &options, 1, (const ts_csr *const[]){a}, &count, &batch));
    CHECK_OK(c, ts_lu_batch_factor(batch, values));
    CHECK_OK(c, ts_lu_batch_solve(batch, b, x[t]));
    ts_lu_batch_destroy(batch);
    ts_context_destroy(c);
  }
  CHECK_MSG(memcmp(x[0], x[1], (size_t)rows * sizeof(double)) == 0, "1 and 3 threads give different solutions");
  free(x[0]);
  free(x[1]);
  free(values);
  free(b);
  ts_csr_destroy(a);
}

/* The buffer calls (host and backend memory of a CPU context) give the
 * pointer calls' results. */
static void test_buffers(void) {
  ts_csr *a = batch_test_circuit(ctx, 150, 41);
  const int64_t count = 5, rows = count * a->rows, nvalues = count * a->nnz;
  double *values = batch_test_values(1, (const ts_csr *const[]){a}, &count, 0.2, 9);
  double *b = batch_test_rhs(rows, 10);
  double *x = malloc((size_t)rows * sizeof *x), *y = malloc((size_t)rows * sizeof *y);
  ts_lu_options options = lu_test_options();
  ts_lu_batch *batch = NULL;
  CHECK_OK(ctx, ts_lu_batch_create(ctx, &options, 1, (const ts_csr *const[]){a}, &count, &batch));
  CHECK_OK(ctx, ts_lu_batch_factor(batch, values));
  CHECK_OK(ctx, ts_lu_batch_solve(batch, b, x));
  for (int kind = 0; kind < 2; kind++) {
    ts_memory memory = kind ? TS_MEMORY_DEVICE : TS_MEMORY_HOST;
    ts_buffer *vb = NULL, *bb = NULL, *xb = NULL;
    CHECK_OK(ctx, ts_buffer_create(ctx, memory, (size_t)nvalues * sizeof(double), &vb));
    CHECK_OK(ctx, ts_buffer_create(ctx, memory, (size_t)rows * sizeof(double), &bb));
    CHECK_OK(ctx, ts_buffer_create(ctx, memory, (size_t)rows * sizeof(double), &xb));
    CHECK_OK(ctx, ts_buffer_upload(ctx, vb, 0, values, (size_t)nvalues * sizeof(double)));
    CHECK_OK(ctx, ts_buffer_upload(ctx, bb, 0, b, (size_t)rows * sizeof(double)));
    CHECK_OK(ctx, ts_lu_batch_factor_buffer(batch, vb));
    CHECK_OK(ctx, ts_lu_batch_solve_buffer(batch, bb, xb));
    CHECK_OK(ctx, ts_buffer_download(ctx, xb, 0, y, (size_t)rows * sizeof(double)));
    CHECK_MSG(memcmp(x, y, (size_t)rows * sizeof(double)) == 0, "buffers in %s memory: another solution",
              kind ? "device" : "host");
    /* Too small, the same buffer twice, mixed memories. */
    CHECK_STATUS(ctx, ts_lu_batch_solve_buffer(batch, bb, bb), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(ctx, ts_lu_batch_factor_buffer(batch, bb), TS_ERROR_INVALID_ARGUMENT);
    ts_buffer *small = NULL;
    CHECK_OK(ctx, ts_buffer_create(ctx, memory, 8, &small));
    CHECK_STATUS(ctx, ts_lu_batch_solve_buffer(batch, small, xb), TS_ERROR_INVALID_ARGUMENT);
    ts_buffer_destroy(small);
    ts_buffer_destroy(vb);
    ts_buffer_destroy(bb);
    ts_buffer_destroy(xb);
  }
  ts_buffer *host = NULL, *device = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_HOST, (size_t)rows * sizeof(double), &host));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)rows * sizeof(double), &device));
  CHECK_STATUS(ctx, ts_lu_batch_solve_buffer(batch, host, device), TS_ERROR_INVALID_ARGUMENT);
  ts_context *other = NULL;
  CHECK_OK(NULL, ts_context_create(&other, &(ts_context_options){.backend = TS_BACKEND_CPU}));
  ts_buffer *foreign = NULL;
  CHECK_OK(other, ts_buffer_create(other, TS_MEMORY_HOST, (size_t)rows * sizeof(double), &foreign));
  CHECK_STATUS(ctx, ts_lu_batch_solve_buffer(batch, foreign, host), TS_ERROR_INVALID_ARGUMENT);
  ts_buffer_destroy(foreign);
  ts_context_destroy(other);
  ts_buffer_destroy(host);
  ts_buffer_destroy(device);
  ts_lu_batch_destroy(batch);
  free(values);
  free(b);
  free(x);
  free(y);
  ts_csr_destroy(a);
}

static int cancel_at_once(void *user, int64_t done, int64_t total) {
  (void)user;
  (void)done;
  (void)total;
  return 1;
}

static void test_arguments(void) {
  ts_csr *a = batch_test_circuit(ctx, 60, 51);
  ts_lu_options options = lu_test_options();
  const int64_t count = 3, zero = 0, negative = -2;
  const ts_csr *const list[1] = {a};
  ts_lu_batch *batch = NULL;
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &options, 1, list, &count, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_lu_batch_create(NULL, &options, 1, list, &count, &batch), TS_ERROR_INVALID_ARGUMENT);
  CHECK(batch == NULL);
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &options, 0, list, &count, &batch), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &options, 1, NULL, &count, &batch), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &options, 1, list, NULL, &batch), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &options, 1, list, &zero, &batch), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &options, 1, list, &negative, &batch), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &options, 1, (const ts_csr *const[]){NULL}, &count, &batch),
               TS_ERROR_INVALID_ARGUMENT);
  const int64_t huge = (int64_t)1 << 61;
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &options, 1, list, &huge, &batch), TS_ERROR_OVERFLOW);
  ts_lu_options bad = options;
  bad.ordering = (ts_lu_ordering)9;
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &bad, 1, list, &count, &batch), TS_ERROR_INVALID_ARGUMENT);
  bad = options;
  bad.backend = TS_BACKEND_CUDA;
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &bad, 1, list, &count, &batch), TS_ERROR_INVALID_ARGUMENT);
  /* Not square; structurally singular (the message names the pattern). */
  ts_csr *rect = NULL;
  CHECK_OK(ctx, ts_csr_create(ctx, 2, 3, 0, TS_FLOAT64, &rect));
  CHECK_STATUS(ctx,
               ts_lu_batch_create(ctx, &options, 2, (const ts_csr *const[]){a, rect}, (const int64_t[]){1, 1}, &batch),
               TS_ERROR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(ts_last_error(ctx), "pattern 1") != NULL, "message: %s", ts_last_error(ctx));
  ts_csr_destroy(rect);
  /* Complex values: batches are real only (the message names the matrix). */
  ts_csr *complex = NULL;
  CHECK_OK(ctx, ts_csr_create(ctx, 2, 2, 0, TS_COMPLEX128, &complex));
  CHECK_STATUS(
      ctx, ts_lu_batch_create(ctx, &options, 2, (const ts_csr *const[]){a, complex}, (const int64_t[]){1, 1}, &batch),
      TS_ERROR_UNSUPPORTED);
  CHECK_MSG(strstr(ts_last_error(ctx), "matrix 1") != NULL, "message: %s", ts_last_error(ctx));
  CHECK(batch == NULL);
  ts_csr_destroy(complex);
  int32_t rows2[2] = {0, 1}, cols2[2] = {0, 0};
  double vals2[2] = {1.0, 2.0};
  ts_csr *singular = lu_test_csr(ctx, 2, 2, rows2, cols2, vals2);
  CHECK_STATUS(ctx, ts_lu_batch_create(ctx, &options, 1, (const ts_csr *const[]){singular}, &count, &batch),
               TS_ERROR_STRUCTURALLY_SINGULAR);
  CHECK(batch == NULL);
  ts_csr_destroy(singular);

  CHECK_OK(ctx, ts_lu_batch_create(ctx, &options, 1, list, &count, &batch));
  const int64_t rows = count * a->rows;
  double *values = batch_test_values(1, list, &count, 0.1, 3);
  double *b = batch_test_rhs(rows, 4), *x = malloc((size_t)rows * sizeof *x);
  CHECK_STATUS(ctx, ts_lu_batch_solve(batch, b, x), TS_ERROR_NOT_FACTORED);
  CHECK_STATUS(NULL, ts_lu_batch_factor(NULL, values), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_batch_factor(batch, NULL), TS_ERROR_INVALID_ARGUMENT);
  ts_lu_batch_member info;
  CHECK_OK(ctx, ts_lu_batch_get_member(batch, 0, &info));
  CHECK(info.status == TS_ERROR_NOT_FACTORED);
  CHECK_STATUS(ctx, ts_lu_batch_get_member(batch, count, &info), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_batch_get_member(batch, -1, &info), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_batch_get_member(batch, 0, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_lu_batch_get_stats(NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ctx, ts_lu_batch_factor(batch, values));
  CHECK_STATUS(ctx, ts_lu_batch_solve(batch, NULL, x), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_batch_solve(batch, b, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_lu_batch_solve(batch, b, b + 1), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_lu_batch_solve(NULL, b, x), TS_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ctx, ts_lu_batch_solve(batch, b, x));

  /* A cancelled factorization leaves no factors. */
  CHECK_OK(ctx, ts_context_set_progress(ctx, cancel_at_once, NULL));
  CHECK_STATUS(ctx, ts_lu_batch_factor(batch, values), TS_ERROR_CANCELLED);
  CHECK_OK(ctx, ts_context_set_progress(ctx, NULL, NULL));
  CHECK_STATUS(ctx, ts_lu_batch_solve(batch, b, x), TS_ERROR_NOT_FACTORED);
  ts_lu_batch_destroy(batch);
  ts_lu_batch_destroy(NULL);
  free(values);
  free(b);
  free(x);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CPU;
  if (ts_context_create(&ctx, &options) != TS_SUCCESS)
    return 1;
  test_generated();
  batch_test_corpus(ctx, check_corpus_matrix);
  test_failing_members();
  test_threads();
  test_buffers();
  test_arguments();
  ts_context_destroy(ctx);
  return test_finish();
}
