/* GPU triangular solves with refinement: A x = b and A^T x = b for one and
 * several right-hand sides (ldb, ldx > n), double and float factors, on
 * circuit matrices and a 2-D Laplacian: normwise backward error (computed
 * here, in double) at most 1e-14 after refinement, the solution close to
 * the dense reference on a small system, and bitwise the same run to run.
 * The device's solves themselves (synchronisation-free, one launch per
 * triangular solve) are checked against the factors they use (L U z = y to
 * rounding, computed here) and bit for bit against the level-scheduled
 * reference path, for 1 and 3 right-hand sides, op(A) = A and A^T, also
 * across the wrap of the solve counter and with rows summed by segments of
 * 64 entries (the tickets of long rows); the dense tail's blocked solve
 * (both paths share it) is checked by the same factored residual. The
 * solves through the fronts' dense blocks, where the fronts made the
 * factors, are checked by the same factored residual, run to run, and end
 * to end with host and device vectors. */
#include "test_gpu_lu_common.h"

static void check_solves(const char *name, const ts_csr *a, int float_factors) {
  const int64_t n = a->rows, nrhs = 3, ld = n + 5;
  ts_lu *lu = gpu_lu_create(TS_BACKEND_CUDA, float_factors, 0);
  CHECK_OK(gpu, ts_lu_analyze(lu, a));
  ts_status st = ts_lu_factor(lu, a);
  CHECK_MSG(!TS_IS_ERROR(st), "%s: %s", name, ts_last_error(gpu));
  CHECK(lu->factors_on_device);
  double *b = calloc((size_t)(ld * nrhs), sizeof *b), *x = calloc((size_t)(ld * nrhs), sizeof *x);
  double *x2 = calloc((size_t)(ld * nrhs), sizeof *x2);
  unsigned long long state = 99;
  for (int64_t i = 0; i < ld * nrhs; i++)
    b[i] = test_random(&state);
  for (int op = 0; op < 2; op++) {
    ts_operation operation = op ? TS_OP_TRANSPOSE : TS_OP_NONE;
    CHECK_OK(gpu, ts_lu_solve(lu, operation, nrhs, b, ld, x, ld));
    ts_lu_stats stats;
    ts_lu_get_stats(lu, &stats);
    double worst = 0.0;
    for (int64_t c = 0; c < nrhs; c++)
      worst = fmax(worst, lu_test_backward_error(a, op, x + c * ld, b + c * ld));
    CHECK_MSG(worst <= 1e-14, "%s %s %s: backward error %.3g", name, float_factors ? "float" : "double",
              op ? "A^T" : "A", worst);
    CHECK_MSG(stats.backward_error <= 1e-14 && fabs(stats.backward_error - worst) <= 1e-14 + 0.5 * worst,
              "%s: reported backward error %.3g, measured %.3g", name, stats.backward_error, worst);
    CHECK(stats.time_solve > 0.0 && stats.peak_device_bytes > 0);
    CHECK_OK(gpu, ts_lu_solve(lu, operation, nrhs, b, ld, x2, ld));
    int same = 1;
    for (int64_t c = 0; c < nrhs; c++)
      same &= memcmp(x + c * ld, x2 + c * ld, (size_t)n * sizeof *x) == 0;
    CHECK_MSG(same, "%s: two GPU solves differ", name);
    printf("%-22s %-6s %-3s n %7lld  refinement steps %d  backward error %.2g\n", name,
           float_factors ? "float" : "double", op ? "A^T" : "A", (long long)n, stats.refinement_steps, worst);
  }
  free(b);
  free(x);
  free(x2);
  ts_lu_destroy(lu);
}

/* Normwise backward error of the factored system for one column: with
 * y the permuted, scaled rhs and z the solution before its permutation,
 * |y - L U z| / (|L| |U| |z| + |y|) (A), or with U^T L^T (A^T). */
static double factored_residual(const ts_lu *lu, const double *v, int transpose, const double *b, const double *x) {
  const int64_t n = lu->n;
  const int64_t *col_ptr = lu->lu_col_ptr, *diag = lu->diag_pos;
  const int32_t *row = lu->lu_row_idx;
  const int32_t *in_perm = transpose ? lu->col_perm : lu->row_perm, *out_perm = transpose ? lu->row_perm : lu->col_perm;
  const double *in_scale = transpose ? lu->col_scale : lu->row_scale;
  const double *out_scale = transpose ? lu->row_scale : lu->col_scale;
  double *y = malloc((size_t)n * sizeof *y), *z = malloc((size_t)n * sizeof *z);
  double *t = calloc((size_t)n, sizeof *t), *ta = calloc((size_t)n, sizeof *ta);
  double *w = calloc((size_t)n, sizeof *w), *wa = calloc((size_t)n, sizeof *wa);
  for (int64_t i = 0; i < n; i++) {
    y[i] = in_scale[in_perm[i]] * b[in_perm[i]];
    z[i] = x[out_perm[i]] / out_scale[out_perm[i]];
  }
  if (!transpose) {
    for (int64_t k = 0; k < n; k++) /* t = U z (diagonal included) */
      for (int64_t p = col_ptr[k]; p <= diag[k]; p++) {
        t[row[p]] += v[p] * z[k];
        ta[row[p]] += fabs(v[p] * z[k]);
      }
    memcpy(w, t, (size_t)n * sizeof *w);
    memcpy(wa, ta, (size_t)n * sizeof *wa);
    for (int64_t k = 0; k < n; k++) /* w = L t (unit diagonal) */
      for (int64_t p = diag[k] + 1; p < col_ptr[k + 1]; p++) {
        w[row[p]] += v[p] * t[k];
        wa[row[p]] += fabs(v[p]) * ta[k];
      }
  } else {
    for (int64_t k = 0; k < n; k++) { /* t = L^T z */
      t[k] = z[k];
      ta[k] = fabs(z[k]);
      for (int64_t p = diag[k] + 1; p < col_ptr[k + 1]; p++) {
        t[k] += v[p] * z[row[p]];
        ta[k] += fabs(v[p] * z[row[p]]);
      }
    }
    for (int64_t k = 0; k < n; k++) /* w = U^T t */
      for (int64_t p = col_ptr[k]; p <= diag[k]; p++) {
        w[k] += v[p] * t[row[p]];
        wa[k] += fabs(v[p]) * ta[row[p]];
      }
  }
  double diff = 0.0, size = 0.0, y_size = 0.0;
  for (int64_t i = 0; i < n; i++) {
    diff = fmax(diff, fabs(y[i] - w[i]));
    size = fmax(size, wa[i]);
    y_size = fmax(y_size, fabs(y[i]));
  }
  free(y);
  free(z);
  free(t);
  free(ta);
  free(w);
  free(wa);
  double denominator = size + y_size;
  return isfinite(diff) ? diff / (denominator > 0.0 ? denominator : 1.0) : INFINITY;
}

/* The device's solves (no refinement): the default synchronisation-free
 * path against the factors and bit for bit against the level-scheduled
 * path, repeatably, and across the wrap of the solve counter. */
/* Matrices whose factors had a dense tail (its own solve kernels). */
static int dense_tails;
static int64_t segmented_rows; /* rows the synchronisation-free solves summed by segments */

static void check_against_levels(const char *name, const ts_csr *a, int float_factors) {
  const int64_t n = a->rows, ld = n + 3, most_rhs = 3;
  const char *precision = float_factors ? "float" : "double";
  ts_lu *lu = gpu_lu_create(TS_BACKEND_CUDA, float_factors, 0);
  CHECK_OK(gpu, ts_lu_analyze(lu, a));
  ts_status st = ts_lu_factor(lu, a);
  CHECK_MSG(!TS_IS_ERROR(st), "%s: %s", name, ts_last_error(gpu));
  CHECK(lu->factors_on_device && lu->numeric_device);
  if (TS_IS_ERROR(st) || !lu->factors_on_device || !lu->numeric_device) {
    ts_lu_destroy(lu);
    return;
  }
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  lu->switches.gpu_solve_columns = 1; /* the column kernels, also where the fronts made the factors */
  double *factors = gpu_lu_factor_values(lu);
  const size_t bytes = (size_t)(ld * most_rhs) * sizeof(double);
  double *b = malloc(bytes), *reference = calloc(1, bytes), *x = calloc(1, bytes), *again = calloc(1, bytes);
  unsigned long long state = 17;
  for (int64_t i = 0; i < ld * most_rhs; i++)
    b[i] = test_random(&state);
  /* Rows summed by segments of 64 entries (most of these matrices then have
   * long rows), then of the default size (the reference kept below). */
  for (int pass = 0; pass < 2; pass++) {
    lu->switches.gpu_solve_segment = pass == 0 ? 64 : 0;
    for (int64_t nrhs = 1; nrhs <= most_rhs; nrhs += most_rhs - 1)
      for (int op = 0; op < 2; op++) {
        ts_operation operation = op ? TS_OP_TRANSPOSE : TS_OP_NONE;
        lu->switches.gpu_solve_level_sync = 1;
        CHECK_OK(gpu, tsi_lu_cuda_apply_inverse(lu, operation, nrhs, b, ld, reference, ld));
        lu->switches.gpu_solve_level_sync = 0;
        CHECK_OK(gpu, tsi_lu_cuda_apply_inverse(lu, operation, nrhs, b, ld, x, ld));
        CHECK_OK(gpu, tsi_lu_cuda_apply_inverse(lu, operation, nrhs, b, ld, again, ld));
        int same = 1, repeat = 1;
        double worst = 0.0;
        for (int64_t c = 0; c < nrhs; c++) {
          same &= memcmp(x + c * ld, reference + c * ld, (size_t)n * sizeof *x) == 0;
          repeat &= memcmp(x + c * ld, again + c * ld, (size_t)n * sizeof *x) == 0;
          worst = fmax(worst, factored_residual(lu, factors, op, b + c * ld, x + c * ld));
        }
        CHECK_MSG(same, "%s %s %s nrhs %lld: synchronisation-free and level-scheduled solves differ", name, precision,
                  op ? "A^T" : "A", (long long)nrhs);
        CHECK_MSG(repeat, "%s %s %s nrhs %lld: two synchronisation-free solves differ", name, precision,
                  op ? "A^T" : "A", (long long)nrhs);
        CHECK_MSG(worst <= 1e-12, "%s %s %s nrhs %lld: |y - LUz| relative %.3g", name, precision, op ? "A^T" : "A",
                  (long long)nrhs, worst);
        const tsi_lu_solve_schedule *forward = op ? &dev->upper_t : &dev->lower;
        const tsi_lu_solve_schedule *backward = op ? &dev->lower_t : &dev->upper;
        segmented_rows += forward->long_rows + backward->long_rows;
        printf("%-22s %-6s %-3s nrhs %lld  dense tail %5lld rows  rows by segments of %lld: %lld + %lld  one launch "
               "per solve == per level: %s  factored residual %.2g\n",
               name, precision, op ? "A^T" : "A", (long long)nrhs,
               dev->tail_dense ? (long long)(n - dev->tail_start) : 0LL, (long long)forward->segment,
               (long long)forward->long_rows, (long long)backward->long_rows, same ? "bitwise" : "NO", worst);
      }
  }
  dense_tails += dev->tail_dense != NULL;
  /* Six triangular solves from just below the counter's end: it wraps. */
  dev->solve_epoch = INT32_MAX - 2;
  for (int round = 0; round < 3; round++) {
    CHECK_OK(gpu, tsi_lu_cuda_apply_inverse(lu, round % 2 ? TS_OP_NONE : TS_OP_TRANSPOSE, most_rhs, b, ld, x, ld));
    CHECK(dev->solve_epoch == (round == 0 ? INT32_MAX : 2 * round));
  }
  CHECK_OK(gpu, tsi_lu_cuda_apply_inverse(lu, TS_OP_TRANSPOSE, most_rhs, b, ld, x, ld));
  int same = 1;
  for (int64_t c = 0; c < most_rhs; c++)
    same &= memcmp(x + c * ld, reference + c * ld, (size_t)n * sizeof *x) == 0;
  CHECK_MSG(same, "%s %s: the solve after the counter wrapped differs", name, precision);
  free(factors);
  free(b);
  free(reference);
  free(x);
  free(again);
  ts_lu_destroy(lu);
}

/* A small random system against the dense solve with partial pivoting. */
/* A random system with rows 0 and n/2 full and row n - 1 at half: rows
 * that the device refinement's residual takes a block each (the others a
 * thread each). */
static ts_csr *with_long_rows(int64_t n) {
  ts_csr *base = lu_test_random(gpu, n, 4, 1, 21);
  if (!base)
    return NULL;
  const int64_t long_rows[3] = {0, n / 2, n - 1}, long_lengths[3] = {n, n, n / 2};
  int64_t nnz = base->nnz;
  for (int k = 0; k < 3; k++)
    nnz += long_lengths[k];
  ts_csr *a = NULL;
  if (ts_csr_create(gpu, n, n, nnz, TS_FLOAT64, &a) != TS_SUCCESS) {
    ts_csr_destroy(base);
    return NULL;
  }
  double *values = a->values;
  const double *base_values = base->values;
  int64_t count = 0;
  unsigned long long state = 5;
  for (int64_t i = 0; i < n; i++) {
    a->row_ptr[i] = count;
    int64_t length = 0;
    for (int k = 0; k < 3; k++)
      length = long_rows[k] == i ? long_lengths[k] : length;
    if (length > 0) {
      /* Columns 0 .. length - 1 and the diagonal, diagonally dominant. */
      double sum = 0.0;
      for (int64_t j = 0; j < length; j++)
        if (j != i) {
          a->col_idx[count] = (int32_t)j;
          values[count] = test_random(&state);
          sum += fabs(values[count++]);
        }
      if (i >= length) {
        a->col_idx[count] = (int32_t)i;
        values[count++] = 1.0 + sum;
      } else {
        /* The diagonal inside the run: put it in its place. */
        int64_t at = a->row_ptr[i] + i;
        memmove(a->col_idx + at + 1, a->col_idx + at, (size_t)(count - at) * sizeof(int32_t));
        memmove(values + at + 1, values + at, (size_t)(count - at) * sizeof(double));
        a->col_idx[at] = (int32_t)i;
        values[at] = 1.0 + sum;
        count++;
      }
    } else {
      for (int64_t e = base->row_ptr[i]; e < base->row_ptr[i + 1]; e++) {
        a->col_idx[count] = base->col_idx[e];
        values[count++] = base_values[e];
      }
    }
  }
  a->row_ptr[n] = count;
  a->nnz = count;
  ts_csr_destroy(base);
  return a;
}

/* The device refinement's residual over long rows: the backward error
 * (computed here) within 1e-14 and as reported, and the rows listed. */
static void test_long_rows(void) {
  ts_csr *a = with_long_rows(small_sizes ? 1200 : 6000);
  CHECK(a != NULL);
  if (!a)
    return;
  check_solves("long rows", a, 0);
  ts_lu *lu = gpu_lu_create(TS_BACKEND_CUDA, 0, 0);
  CHECK_OK(gpu, ts_lu_analyze(lu, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a)));
  const int64_t n = a->rows;
  double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
  unsigned long long state = 8;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state);
  CHECK_OK(gpu, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  const tsi_lu_device *dev = (const tsi_lu_device *)lu->numeric_device;
  CHECK_MSG(dev && dev->refine_long_listed && dev->refine_long_count == 3, "long rows listed: %lld",
            dev ? (long long)dev->refine_long_count : -1LL);
  CHECK(lu_test_backward_error(a, 0, x, b) <= 1e-14);
  free(b);
  free(x);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* ts_lu_solve_buffers with device buffers: A x = b stays on the device
 * (the device refinement reading b and writing x in place) and gives
 * ts_lu_solve's bits and statistics; A^T x = b goes through host copies,
 * the same bits too; a right-hand side that is not finite is refused with
 * its row. */
static void test_device_buffers(const ts_csr *a) {
  const int64_t n = a->rows, nrhs = 2, ld = n + 3, count = ld * nrhs;
  const size_t bytes = (size_t)count * sizeof(double);
  ts_lu *lu = gpu_lu_create(TS_BACKEND_CUDA, 0, 0);
  CHECK_OK(gpu, ts_lu_analyze(lu, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a)));
  double *b = malloc(bytes), *x = malloc(bytes), *y = malloc(bytes);
  unsigned long long state = 31;
  for (int64_t i = 0; i < count; i++) {
    b[i] = test_random(&state);
    x[i] = y[i] = 5.0;
  }
  ts_buffer *bb = NULL, *xb = NULL;
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, bytes, &bb));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, bytes, &xb));
  CHECK_OK(gpu, ts_buffer_upload(gpu, bb, 0, b, bytes));
  for (int op = 0; op < 2; op++) {
    const ts_operation operation = op ? TS_OP_TRANSPOSE : TS_OP_NONE;
    CHECK_OK(gpu, ts_buffer_upload(gpu, xb, 0, y, bytes));
    CHECK_OK(gpu, ts_lu_solve(lu, operation, nrhs, b, ld, x, ld));
    ts_lu_stats host_stats, buffer_stats;
    ts_lu_get_stats(lu, &host_stats);
    CHECK_OK(gpu, ts_lu_solve_buffers(lu, operation, nrhs, bb, ld, xb, ld));
    ts_lu_get_stats(lu, &buffer_stats);
    double *got = malloc(bytes);
    CHECK_OK(gpu, ts_buffer_download(gpu, xb, 0, got, bytes));
    CHECK_MSG(memcmp(got, x, bytes) == 0, "device buffers, %s: x differs from ts_lu_solve's", op ? "A^T" : "A");
    CHECK(buffer_stats.backward_error == host_stats.backward_error &&
          buffer_stats.refinement_steps == host_stats.refinement_steps);
    free(got);
  }
  b[ld + 4] = INFINITY;
  CHECK_OK(gpu, ts_buffer_upload(gpu, bb, 0, b, bytes));
  CHECK(ts_lu_solve_buffers(lu, TS_OP_NONE, nrhs, bb, ld, xb, ld) == TS_ERROR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(ts_last_error(gpu), "row 4") != NULL, "%s", ts_last_error(gpu));
  ts_buffer_destroy(bb);
  ts_buffer_destroy(xb);
  free(b);
  free(x);
  free(y);
  ts_lu_destroy(lu);
}

static void test_dense_reference(void) {
  const int64_t n = 120;
  ts_csr *a = lu_test_random(gpu, n, 4, 0, 7);
  double *d = lu_test_dense(a, 0), *b = malloc((size_t)n * sizeof *b), *x = calloc((size_t)n, sizeof *x);
  unsigned long long state = 3;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state);
  double *reference = malloc((size_t)n * sizeof *reference);
  memcpy(reference, b, (size_t)n * sizeof *b);
  CHECK(lu_test_dense_solve(d, reference, n) == 0);
  ts_lu *lu = gpu_lu_create(TS_BACKEND_CUDA, 0, 0);
  CHECK_OK(gpu, ts_lu_analyze(lu, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a)));
  CHECK_OK(gpu, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  double cond = lu_test_condition(a), diff = 0.0, size = 0.0;
  for (int64_t i = 0; i < n; i++) {
    diff = fmax(diff, fabs(x[i] - reference[i]));
    size = fmax(size, fabs(reference[i]));
  }
  CHECK_MSG(diff <= 1e-13 * cond * size, "dense reference: difference %.3g, condition %.3g", diff, cond);
  free(d);
  free(b);
  free(x);
  free(reference);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* The solves through the fronts' dense blocks (solve_fronts_cuda.cu), the
 * fronts forced: L U z = y to rounding against the factors as gathered
 * into the pattern (computed here), bitwise run to run and with the
 * levels' products split over blocks or not, their pivots a window at a
 * time or not, for 1 and 3 right-hand sides
 * with ld > n; the column solves through the same factors
 * satisfy the same bound; then ts_lu_solve end to end (A through the
 * fronts, A^T through the columns) and ts_lu_solve_buffers with device
 * vectors reach a backward error of 1e-14. */
static void check_front_solves(const char *name, const ts_csr *a) {
  const int64_t n = a->rows, ld = n + 3, most_rhs = 3;
  ts_lu *lu = gpu_lu_create(TS_BACKEND_CUDA, 0, 0);
  if (!lu)
    return;
  lu->switches.numeric_method = TSI_LU_METHOD_FRONTS;
  CHECK_OK(gpu, ts_lu_analyze(lu, a));
  ts_status st = ts_lu_factor(lu, a);
  CHECK_MSG(!TS_IS_ERROR(st), "%s: %s", name, ts_last_error(gpu));
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  CHECK_MSG(dev && dev->used_fronts && lu->factors_on_device, "%s: the fronts did not make the factors on the GPU",
            name);
  if (TS_IS_ERROR(st) || !dev || !dev->used_fronts || !lu->factors_on_device) {
    ts_lu_destroy(lu);
    return;
  }
  CHECK(tsi_lu_front_solve_applies(lu, dev, TS_OP_NONE) && !tsi_lu_front_solve_applies(lu, dev, TS_OP_TRANSPOSE));
  double *factors = gpu_lu_factor_values(lu);
  const size_t bytes = (size_t)(ld * most_rhs) * sizeof(double);
  double *b = malloc(bytes), *x = calloc(1, bytes), *again = calloc(1, bytes), *columns = calloc(1, bytes);
  unsigned long long state = 29;
  for (int64_t i = 0; i < ld * most_rhs; i++)
    b[i] = test_random(&state);
  for (int64_t nrhs = 1; nrhs <= most_rhs; nrhs += most_rhs - 1) {
    CHECK_OK(gpu, tsi_lu_cuda_apply_inverse(lu, TS_OP_NONE, nrhs, b, ld, x, ld));
    CHECK_OK(gpu, tsi_lu_cuda_apply_inverse(lu, TS_OP_NONE, nrhs, b, ld, again, ld));
    lu->switches.gpu_solve_columns = 1;
    CHECK_OK(gpu, tsi_lu_cuda_apply_inverse(lu, TS_OP_NONE, nrhs, b, ld, columns, ld));
    lu->switches.gpu_solve_columns = 0;
    /* Every level split, every level wide (a window of pivots a launch),
     * the rule without wide levels, and neither: the same bits as the
     * rule's choice. */
    int same_split = 1;
    for (int force = -1; force <= 3; force += force == -1 ? 2 : 1) {
      lu->switches.gpu_solve_split = force;
      CHECK_OK(gpu, tsi_lu_cuda_apply_inverse(lu, TS_OP_NONE, nrhs, b, ld, again, ld));
      for (int64_t c = 0; c < nrhs; c++)
        same_split &= memcmp(x + c * ld, again + c * ld, (size_t)n * sizeof *x) == 0;
    }
    lu->switches.gpu_solve_split = 0;
    CHECK_MSG(same_split, "%s nrhs %lld: the solve with its levels split differs from the whole levels' solve", name,
              (long long)nrhs);
    CHECK_OK(gpu, tsi_lu_cuda_apply_inverse(lu, TS_OP_NONE, nrhs, b, ld, again, ld));
    int repeat = 1;
    double worst = 0.0, worst_columns = 0.0;
    for (int64_t c = 0; c < nrhs; c++) {
      repeat &= memcmp(x + c * ld, again + c * ld, (size_t)n * sizeof *x) == 0;
      worst = fmax(worst, factored_residual(lu, factors, 0, b + c * ld, x + c * ld));
      worst_columns = fmax(worst_columns, factored_residual(lu, factors, 0, b + c * ld, columns + c * ld));
    }
    CHECK_MSG(repeat, "%s nrhs %lld: two solves through the fronts differ", name, (long long)nrhs);
    CHECK_MSG(worst <= 1e-12, "%s nrhs %lld: through the fronts |y - LUz| relative %.3g", name, (long long)nrhs, worst);
    CHECK_MSG(worst_columns <= 1e-12, "%s nrhs %lld: through the columns |y - LUz| relative %.3g", name,
              (long long)nrhs, worst_columns);
    printf("%-22s nrhs %lld  factored residual through the fronts %.2g, through the columns %.2g\n", name,
           (long long)nrhs, worst, worst_columns);
  }
  for (int op = 0; op < 2; op++) {
    CHECK_OK(gpu, ts_lu_solve(lu, op ? TS_OP_TRANSPOSE : TS_OP_NONE, most_rhs, b, ld, x, ld));
    double berr = 0.0;
    for (int64_t c = 0; c < most_rhs; c++)
      berr = fmax(berr, lu_test_backward_error(a, op, x + c * ld, b + c * ld));
    CHECK_MSG(berr <= 1e-14, "%s %s: backward error %.3g after refinement", name, op ? "A^T" : "A", berr);
  }
  ts_buffer *bb = NULL, *xb = NULL;
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, bytes, &bb));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, bytes, &xb));
  if (bb && xb) {
    CHECK_OK(gpu, ts_buffer_upload(gpu, bb, 0, b, bytes));
    CHECK_OK(gpu, ts_lu_solve_buffers(lu, TS_OP_NONE, most_rhs, bb, ld, xb, ld));
    CHECK_OK(gpu, ts_buffer_download(gpu, xb, 0, x, bytes));
    double berr = 0.0;
    for (int64_t c = 0; c < most_rhs; c++)
      berr = fmax(berr, lu_test_backward_error(a, 0, x + c * ld, b + c * ld));
    CHECK_MSG(berr <= 1e-14, "%s: device vectors through the fronts: backward error %.3g", name, berr);
  }
  ts_buffer_destroy(bb);
  ts_buffer_destroy(xb);
  free(b);
  free(x);
  free(again);
  free(columns);
  free(factors);
  ts_lu_destroy(lu);
}

int main(void) {
  int skip = gpu_lu_setup();
  if (skip)
    return skip;
  /* racecheck: the solves through the fronts alone (their shared memory),
   * on the sanitizer's sizes. */
  const char *sanitizer = getenv("TESSERA_UNDER_SANITIZER");
  const int fronts_only = sanitizer && strcmp(sanitizer, "racecheck") == 0;
  if (!fronts_only) {
    test_dense_reference();
    test_long_rows();
  }
  {
    ts_csr *small = lu_test_random(gpu, small_sizes ? 300 : 3000, 4, 1, 41);
    CHECK(small != NULL);
    if (small && !fronts_only)
      test_device_buffers(small);
    ts_csr_destroy(small);
  }
  ts_csr *grid = gpu_lu_circuit(small_sizes ? 1500 : 30000, 1.0, 5);
  ts_csr *netlist = gpu_lu_circuit(small_sizes ? 1500 : 50000, 0.0, 6);
  ts_csr *laplacian = NULL;
  CHECK_OK(gpu, ts_gen_laplacian_2d(gpu, small_sizes ? 30 : 150, small_sizes ? 30 : 150, TS_FLOAT64, &laplacian));
  ts_csr *random = lu_test_random(gpu, small_sizes ? 400 : 4000, 4, 0, 11);
  for (int float_factors = 0; float_factors < 2 && !fronts_only; float_factors++) {
    if (random)
      check_against_levels("random", random, float_factors);
    if (grid)
      check_against_levels("circuit grid", grid, float_factors);
    if (netlist)
      check_against_levels("circuit netlist", netlist, float_factors);
    if (laplacian)
      check_against_levels("laplacian 2d", laplacian, float_factors);
  }
  CHECK_MSG(fronts_only || dense_tails > 0, "no matrix had a dense tail: its solve was not checked");
  CHECK_MSG(fronts_only || segmented_rows > 0, "no row was summed by segments: their tickets were not checked");
  {
    ts_csr *cube = NULL, *dense = lu_test_random(gpu, small_sizes ? 40 : 100, small_sizes ? 40 : 100, 0, 13);
    /* 12^3 under a sanitizer: its top fronts have more pivots than a wide
     * level's window, so the forced wide solves run their triangles' launches. */
    CHECK_OK(gpu, ts_gen_laplacian_3d(gpu, small_sizes ? 12 : 16, small_sizes ? 12 : 16, small_sizes ? 12 : 16,
                                      TS_FLOAT64, &cube));
    const ts_csr *front_cases[] = {laplacian, cube, grid, netlist, random, dense};
    const char *front_names[] = {"laplacian 2d",    "laplacian 3d", "circuit grid",
                                 "circuit netlist", "random",       "dense random"};
    for (size_t k = 0; k < sizeof front_cases / sizeof front_cases[0]; k++)
      if (front_cases[k])
        check_front_solves(front_names[k], front_cases[k]);
    ts_csr_destroy(cube);
    ts_csr_destroy(dense);
  }
  for (int float_factors = 0; float_factors < 2 && !fronts_only; float_factors++) {
    if (grid)
      check_solves("circuit grid", grid, float_factors);
    if (netlist)
      check_solves("circuit netlist", netlist, float_factors);
    if (laplacian)
      check_solves("laplacian 2d", laplacian, float_factors);
  }
  ts_csr_destroy(grid);
  ts_csr_destroy(netlist);
  ts_csr_destroy(laplacian);
  ts_csr_destroy(random);
  ts_context_destroy(gpu);
  return test_finish();
}
