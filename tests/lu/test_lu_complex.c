/* The sparse LU in complex arithmetic on the host (TS_COMPLEX128 and
 * TS_COMPLEX64 matrices; b and x as (re, im) pairs):
 * - AC-analysis matrices G + i omega C on ts_gen_circuit's pattern (a
 *   netlist and a mesh-like one), and random complex matrices whose large
 *   entries the matching must find: A x = b, A^T x = b and A^H x = b, each
 *   with a backward error of at most 1e-14 recomputed from the matrix, and
 *   the solution against a dense complex LU with partial pivoting written
 *   here and against KLU's complex routines (klu_zl_*), to the accuracy
 *   their condition numbers allow;
 * - complex64 input, float factors with double refinement, several
 *   right-hand sides with a leading dimension above n, refactorization
 *   with new values (the same bits as a fresh factorization), bitwise the
 *   same factors whatever the thread count;
 * - the condition estimate against the true kappa_1 from the dense
 *   inverse, the extracted factors reproducing P R A C Q = L U, rgrowth and
 *   rcond in (0, 1];
 * - a singular complex matrix (a row a complex multiple of another) is
 *   refused with the singular status, as KLU refuses it; a matrix whose
 *   static pivot is zero is solved through the perturbation (or the
 *   fallback) to the same accuracy;
 * - a real matrix after a complex analysis, non-finite parts in A or b are
 *   refused. */
#include "lu/lu_internal.h" /* whether the diagonal blocks were factored alone */
#include "test_lu_complex_common.h"
#include "test_lu_orderings.h"

static ts_context *ctx;

/* Accuracy the references allow for op(A) x = b: a few eps times kappa. */
static double allowed_difference(double condition) { return 64.0 * 2.220446049250313e-16 * fmax(condition, 1.0); }

/* Factor a (an analysis of `a` too) with options (NULL: lu_test_options(),
 * the defaults with an ordering the build has); NULL on failure (checked). */
static ts_lu *factored(const char *what, const ts_csr *a, const ts_lu_options *options) {
  const ts_lu_options defaults = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, options ? options : &defaults, &lu));
  ts_status st = ts_lu_analyze(lu, a);
  CHECK_MSG(st == TS_SUCCESS, "%s: analysis: %s", what, ts_last_error(ctx));
  if (st == TS_SUCCESS) {
    st = ts_lu_factor(lu, a);
    CHECK_MSG(!TS_IS_ERROR(st), "%s: factorization: %s", what, ts_last_error(ctx));
  }
  if (TS_IS_ERROR(st)) {
    ts_lu_destroy(lu);
    return NULL;
  }
  return lu;
}

static const char *op_name(int op) { return op == 0 ? "A" : op == 1 ? "A^T" : "A^H"; }
static ts_operation op_of(int op) { return op == 0 ? TS_OP_NONE : op == 1 ? TS_OP_TRANSPOSE : TS_OP_CONJ_TRANSPOSE; }

/* Solve op(A) x = b for the three ops and check the backward error, the
 * dense reference (n <= dense_limit) and KLU. */
static void check_solves(const char *what, const ts_csr *a, const ts_lu_options *options, int64_t dense_limit) {
  const int64_t n = a->rows;
  ts_lu *lu = factored(what, a, options);
  if (!lu)
    return;
  double complex *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
  double complex *reference = malloc((size_t)n * sizeof *reference);
  cx_reference ref = cx_reference_make(a, dense_limit);
  double complex *dense = ref.dense;
  int64_t *piv = ref.piv;
  const double condition = ref.condition;
  for (int op = 0; op < 3; op++) {
    cx_random_vector(n, (uint64_t)(17 + op), b);
    ts_status st = ts_lu_solve(lu, op_of(op), 1, (const double *)b, n, (double *)x, n);
    CHECK_MSG(st == TS_SUCCESS, "%s: %s x = b: %s", what, op_name(op), ts_last_error(ctx));
    const double error = cx_backward_error(a, op, b, x);
    CHECK_MSG(error <= 1e-14, "%s: %s x = b: backward error %.3g", what, op_name(op), error);
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK_MSG(stats.backward_error <= 1e-14 && stats.backward_error >= 0.0, "%s: %s: reported backward error %.3g",
              what, op_name(op), stats.backward_error);
    if (dense) {
      memcpy(reference, b, (size_t)n * sizeof *b);
      cx_dense_solve(n, dense, piv, op, reference);
      const double difference = cx_relative_difference(n, x, reference);
      CHECK_MSG(difference <= allowed_difference(condition), "%s: %s x = b: %.3g from the dense LU (kappa %.3g)", what,
                op_name(op), difference, condition);
    }
    const int klu = cx_klu_solve(ctx, a, op, b, reference);
    if (klu == 1) {
      const double klu_error = cx_backward_error(a, op, b, reference);
      const double difference = cx_relative_difference(n, x, reference);
      /* KLU does not refine: its solution is within about kappa times its
       * own backward error of the true one (kappa: the dense one, else
       * tessera's estimate, a lower bound within a small factor). */
      double estimate = condition;
      if (!isfinite(estimate))
        CHECK_OK(ctx, ts_lu_condest(lu, &estimate));
      const double bound = allowed_difference(estimate) + 10.0 * estimate * klu_error;
      CHECK_MSG(difference <= bound, "%s: %s x = b: %.3g from KLU's (KLU's backward error %.3g, kappa %.3g)", what,
                op_name(op), difference, klu_error, condition);
    } else {
      CHECK_MSG(klu != 0, "%s: KLU found the matrix singular where tessera solves it", what);
    }
  }
  free(b);
  free(x);
  free(reference);
  cx_reference_free(&ref);
  ts_lu_destroy(lu);
}

static void test_generated(void) {
  ts_lu_options options = lu_test_options();
  ts_csr *a = cx_circuit(ctx, 1200, 0.0, 3, 1e2, TS_COMPLEX128);
  CHECK(a != NULL);
  if (a)
    check_solves("netlist G + i omega C", a, &options, 1200);
  ts_csr_destroy(a);
  a = cx_circuit(ctx, 900, 1.0, 5, 10.0, TS_COMPLEX128);
  CHECK(a != NULL);
  if (a)
    check_solves("mesh G + i omega C", a, &options, 900);
  ts_csr_destroy(a);
  if (!lu_test_skip_unordered("larger G + i omega C (KLU only)")) {
    a = cx_circuit(ctx, 20000, 0.3, 9, 1e3, TS_COMPLEX128);
    CHECK(a != NULL);
    if (a)
      check_solves("larger G + i omega C (KLU only)", a, &options, 0);
    ts_csr_destroy(a);
  }
  a = cx_random_permuted(ctx, 401, 4, 21);
  CHECK(a != NULL);
  if (a) {
    check_solves("random, permuted diagonal", a, &options, 401);
    if (!lu_test_skip_without(TS_LU_ORDER_COLAMD, "random, permuted diagonal, COLAMD")) {
      ts_lu_options colamd = {.ordering = TS_LU_ORDER_COLAMD};
      check_solves("random, permuted diagonal, COLAMD", a, &colamd, 401);
    }
  }
  ts_csr_destroy(a);
  /* Block triangular: the diagonal blocks factored alone, solved block by
   * block (all three operations), in double and float factors. */
  a = cx_block_triangular(ctx, 307, 6, 23);
  CHECK(a != NULL);
  if (a) {
    check_solves("block triangular", a, &options, 307);
    ts_lu_options single = lu_test_options();
    single.float_factors = 1;
    check_solves("block triangular, float factors", a, &single, 307);
  }
  ts_csr_destroy(a);
  /* The smallest orders. */
  for (int64_t n = 1; n <= 3; n++) {
    a = cx_random_permuted(ctx, n, n > 1 ? 1 : 0, 40 + (uint64_t)n);
    CHECK(a != NULL);
    if (a)
      check_solves("tiny", a, &options, 10);
    ts_csr_destroy(a);
  }
}

/* complex64 values, factored in double or in float (refined in double). */
static void test_precisions(void) {
  ts_csr *a = cx_circuit(ctx, 800, 0.5, 13, 50.0, TS_COMPLEX64);
  CHECK(a != NULL);
  if (!a)
    return;
  ts_lu_options options = lu_test_options();
  check_solves("complex64 input", a, &options, 800);
  options.float_factors = 1;
  check_solves("complex64 input, float factors", a, &options, 800);
  ts_csr_destroy(a);
  a = cx_random_permuted(ctx, 307, 5, 77);
  if (a)
    check_solves("complex128, float factors", a, &options, 307);
  ts_csr_destroy(a);
}

/* Several right-hand sides, leading dimensions above n: each column as
 * solved alone, bit for bit. */
static void test_several_right_hand_sides(void) {
  ts_csr *a = cx_circuit(ctx, 500, 0.2, 31, 5.0, TS_COMPLEX128);
  ts_lu *lu = a ? factored("several right-hand sides", a, NULL) : NULL;
  if (!lu) {
    ts_csr_destroy(a);
    return;
  }
  const int64_t n = a->rows, nrhs = 3, ldb = n + 5, ldx = n + 2;
  double complex *b = calloc((size_t)(ldb * nrhs), sizeof *b), *x = calloc((size_t)(ldx * nrhs), sizeof *x);
  double complex *one = malloc((size_t)n * sizeof *one);
  for (int64_t j = 0; j < nrhs; j++)
    cx_random_vector(n, (uint64_t)(100 + j), b + j * ldb);
  for (int op = 0; op < 3; op++) {
    CHECK_OK(ctx, ts_lu_solve(lu, op_of(op), nrhs, (const double *)b, ldb, (double *)x, ldx));
    for (int64_t j = 0; j < nrhs; j++) {
      CHECK_OK(ctx, ts_lu_solve(lu, op_of(op), 1, (const double *)(b + j * ldb), n, (double *)one, n));
      CHECK_MSG(memcmp(one, x + j * ldx, (size_t)n * sizeof *one) == 0, "%s: right-hand side %lld differs alone",
                op_name(op), (long long)j);
      CHECK(cx_backward_error(a, op, b + j * ldb, x + j * ldx) <= 1e-14);
    }
  }
  free(b);
  free(x);
  free(one);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* The factors of one value type, extracted (U then L) into one array. */
static double complex *factor_values(ts_lu *lu, int64_t *count) {
  ts_csr *l = NULL, *u = NULL;
  CHECK_OK(ctx, ts_lu_extract_csr(lu, &l, &u, NULL, NULL, NULL, NULL));
  if (!l || !u) {
    ts_csr_destroy(l);
    ts_csr_destroy(u);
    *count = 0;
    return NULL;
  }
  CHECK(l->dtype == TS_COMPLEX128 && u->dtype == TS_COMPLEX128);
  *count = l->nnz + u->nnz;
  double complex *v = malloc((size_t)*count * sizeof *v);
  memcpy(v, u->values, (size_t)u->nnz * sizeof *v);
  memcpy(v + u->nnz, l->values, (size_t)l->nnz * sizeof *v);
  ts_csr_destroy(l);
  ts_csr_destroy(u);
  return v;
}

/* Refactorization with new values gives a fresh factorization's bits; the
 * factors are the same bits with one thread and with two. */
static void test_refactor_and_threads(void) {
  ts_csr *a = cx_circuit(ctx, 3000, 0.2, 41, 1.0, TS_COMPLEX128);
  ts_csr *a2 = cx_circuit(ctx, 3000, 0.2, 41, 1e4, TS_COMPLEX128); /* the same pattern, another frequency */
  CHECK(a && a2);
  if (!a || !a2) {
    ts_csr_destroy(a);
    ts_csr_destroy(a2);
    return;
  }
  /* Both analyzed with a (the scaling depends on the values): one factors
   * a then refactors with a2, the other factors a2 at once. */
  ts_lu *lu = factored("refactor", a, NULL);
  ts_lu *fresh = factored("refactor, fresh", a, NULL);
  if (lu && fresh) {
    CHECK(!TS_IS_ERROR(ts_lu_refactor(lu, a2)));
    CHECK(!TS_IS_ERROR(ts_lu_factor(fresh, a2)));
    int64_t count_a = 0, count_b = 0;
    double complex *va = factor_values(lu, &count_a), *vb = factor_values(fresh, &count_b);
    CHECK(count_a == count_b && count_a > 0 && va && vb && memcmp(va, vb, (size_t)count_a * sizeof *va) == 0);
    free(va);
    free(vb);
    check_solves("after refactorization", a2, NULL, 0);
  }
  ts_lu_destroy(lu);
  ts_lu_destroy(fresh);
  /* Threads. */
  ts_context *single = NULL, *pair = NULL;
  ts_context_options o = {.backend = TS_BACKEND_CPU, .num_threads = 1};
  CHECK_OK(NULL, ts_context_create(&single, &o));
  o.num_threads = 2;
  CHECK_OK(NULL, ts_context_create(&pair, &o));
  ts_lu *one = NULL, *two = NULL;
  const ts_lu_options defaults = lu_test_options();
  CHECK_OK(single, ts_lu_create(single, &defaults, &one));
  CHECK_OK(pair, ts_lu_create(pair, &defaults, &two));
  CHECK_OK(single, ts_lu_analyze(one, a));
  CHECK_OK(pair, ts_lu_analyze(two, a));
  CHECK(!TS_IS_ERROR(ts_lu_factor(one, a)) && !TS_IS_ERROR(ts_lu_factor(two, a)));
  int64_t count_1 = 0, count_2 = 0;
  double complex *v1 = factor_values(one, &count_1), *v2 = factor_values(two, &count_2);
  CHECK_MSG(count_1 == count_2 && v1 && v2 && memcmp(v1, v2, (size_t)count_1 * sizeof *v1) == 0,
            "the factors differ between one thread and two");
  free(v1);
  free(v2);
  ts_lu_destroy(one);
  ts_lu_destroy(two);
  ts_context_destroy(single);
  ts_context_destroy(pair);
  ts_csr_destroy(a);
  ts_csr_destroy(a2);
}

/* The condition estimate, the extracted factors, rgrowth and rcond, of a
 * random matrix and of one in block triangular form (its diagonal blocks
 * factored alone: the extraction forms U's off-diagonal blocks). */
static void check_inspection(ts_csr *a, int blocks_alone) {
  ts_lu *lu = a ? factored("inspection", a, NULL) : NULL;
  if (!lu) {
    ts_csr_destroy(a);
    return;
  }
  /* The block triangular form comes with the AMD ordering. */
  if (blocks_alone && !lu_test_skip_without(TS_LU_ORDER_AMD, "inspection: the diagonal blocks factored alone"))
    CHECK_MSG(lu->block_ptr && lu->btf_blocks > 10, "%lld blocks, %s", (long long)lu->btf_blocks,
              lu->block_ptr ? "factored alone" : "the whole matrix factored");
  const int64_t n = a->rows;
  double condest = 0.0, rgrowth = 0.0, rcond = 0.0;
  CHECK_OK(ctx, ts_lu_condest(lu, &condest));
  const double condition = cx_dense_condition(a);
  CHECK_MSG(condest <= condition * (1.0 + 1e-10) && condest >= condition / 10.0,
            "condition estimate %.6g, true kappa_1 %.6g", condest, condition);
  CHECK_OK(ctx, ts_lu_rgrowth(lu, &rgrowth));
  CHECK_OK(ctx, ts_lu_rcond(lu, &rcond));
  CHECK_MSG(rgrowth > 0.0 && rgrowth <= 1.0 && rcond > 0.0 && rcond <= 1.0, "rgrowth %g, rcond %g", rgrowth, rcond);

  /* P R A C Q = L U: row k of L U is row row_perm[k] of A scaled, column j
   * column col_perm[j]. */
  ts_csr *l = NULL, *u = NULL;
  int32_t *row_perm = malloc((size_t)n * sizeof *row_perm), *col_perm = malloc((size_t)n * sizeof *col_perm);
  double *row_scale = malloc((size_t)n * sizeof *row_scale), *col_scale = malloc((size_t)n * sizeof *col_scale);
  CHECK_OK(ctx, ts_lu_extract_csr(lu, &l, &u, row_perm, col_perm, row_scale, col_scale));
  if (l && u) {
    double complex *lu_dense = calloc((size_t)(n * n), sizeof *lu_dense), *a_dense = cx_dense(a);
    const double complex *lv = l->values, *uv = u->values;
    for (int64_t i = 0; i < n; i++)
      for (int64_t e = l->row_ptr[i]; e < l->row_ptr[i + 1]; e++) {
        const int32_t k = l->col_idx[e];
        for (int64_t f = u->row_ptr[k]; f < u->row_ptr[k + 1]; f++)
          lu_dense[i + u->col_idx[f] * n] += lv[e] * uv[f];
      }
    double worst = 0.0, largest = 0.0;
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        const double complex m =
            row_scale[row_perm[i]] * a_dense[row_perm[i] + col_perm[j] * n] * col_scale[col_perm[j]];
        worst = fmax(worst, cabs(lu_dense[i + j * n] - m));
        largest = fmax(largest, cabs(m));
      }
    CHECK_MSG(worst <= 1e-13 * largest, "P R A C Q - L U: %.3g (largest %.3g)", worst, largest);
    free(lu_dense);
    free(a_dense);
  }
  ts_csr_destroy(l);
  ts_csr_destroy(u);
  free(row_perm);
  free(col_perm);
  free(row_scale);
  free(col_scale);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

static void test_inspection(void) {
  check_inspection(cx_random_permuted(ctx, 211, 3, 55), 0);
  check_inspection(cx_block_triangular(ctx, 211, 5, 57), 1);
}

/* A 3 x 3 complex matrix from its entries (row-major; zeros not stored). */
static ts_csr *small_matrix(const double complex *entries, int64_t n) {
  ts_coo *coo = NULL;
  CHECK_OK(ctx, ts_coo_create(ctx, n, n, n * n, TS_COMPLEX128, &coo));
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      if (entries[i * n + j] != 0) {
        coo->row_idx[k] = (int32_t)i;
        coo->col_idx[k] = (int32_t)j;
        ((double complex *)coo->values)[k++] = entries[i * n + j];
      }
  coo->nnz = k;
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_ERROR, &a));
  ts_coo_destroy(coo);
  return a;
}

/* Singular and near-singular complex matrices. */
static void test_singular(void) {
  /* Row 2 = 2i * row 0: structurally full, rank 2. */
  const double complex z = 2 * I; /* exact in floating point: KLU finds the zero pivot too */
  const double complex singular_entries[9] = {1 + I, 2, 0.5 * I, 3, 1 - 2 * I, 4, z * (1 + I), z * 2, z * 0.5 * I};
  ts_csr *a = small_matrix(singular_entries, 3);
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  ts_status st = ts_lu_factor(lu, a);
  CHECK_MSG(st == TS_ERROR_NUMERICALLY_SINGULAR, "a rank-2 complex matrix: %s (%s)", ts_status_string(st),
            TS_IS_ERROR(st) ? ts_last_error(ctx) : "");
  double complex b[3] = {1, I, 2}, x[3];
  CHECK_MSG(cx_klu_solve(ctx, a, 0, b, x) != 1, "KLU factors the rank-2 matrix");
  ts_lu_destroy(lu);
  ts_csr_destroy(a);

  /* A zero static pivot on a nonsingular matrix, without the matching
   * (which would move it): perturbation, then refinement or the fallback. */
  const double complex zero_pivot[9] = {0, 1 + I, 2, 1 - I, 3 * I, 1, 2, 1, 4 + I};
  a = small_matrix(zero_pivot, 3);
  options.no_matching = 1;
  lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  st = ts_lu_factor(lu, a);
  CHECK_MSG(st == TS_WARNING_PERTURBED_PIVOTS, "a zero static pivot: %s (%s)", ts_status_string(st),
            TS_IS_ERROR(st) ? ts_last_error(ctx) : "");
  if (!TS_IS_ERROR(st)) {
    for (int op = 0; op < 3; op++) {
      CHECK_OK(ctx, ts_lu_solve(lu, op_of(op), 1, (const double *)b, 3, (double *)x, 3));
      CHECK_MSG(cx_backward_error(a, op, b, x) <= 1e-14, "zero static pivot, %s: %.3g", op_name(op),
                cx_backward_error(a, op, b, x));
    }
  }
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

/* What is refused. */
static void test_refusals(void) {
  ts_csr *a = cx_circuit(ctx, 200, 0.0, 61, 1.0, TS_COMPLEX128);
  ts_lu *lu = a ? factored("refusals", a, NULL) : NULL;
  if (!lu) {
    ts_csr_destroy(a);
    return;
  }
  const int64_t n = a->rows;
  /* A real matrix of the same pattern after a complex analysis. */
  ts_csr *real = NULL;
  CHECK_OK(ctx, ts_csr_create(ctx, n, n, a->nnz, TS_FLOAT64, &real));
  memcpy(real->row_ptr, a->row_ptr, (size_t)(n + 1) * sizeof *real->row_ptr);
  memcpy(real->col_idx, a->col_idx, (size_t)a->nnz * sizeof *real->col_idx);
  for (int64_t e = 0; e < a->nnz; e++)
    ((double *)real->values)[e] = creal(((double complex *)a->values)[e]);
  CHECK_STATUS(ctx, ts_lu_refactor(lu, real), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "complex") != NULL);
  CHECK(!TS_IS_ERROR(ts_lu_factor(lu, a)));
  /* A non-finite imaginary part in A, then in b. */
  double complex *values = a->values;
  const double complex kept = values[7];
  values[7] = CMPLX(creal(kept), NAN);
  CHECK_STATUS(ctx, ts_lu_refactor(lu, a), TS_ERROR_INVALID_MATRIX);
  CHECK_MSG(strstr(ts_last_error(ctx), "imaginary") != NULL, "%s", ts_last_error(ctx));
  values[7] = kept;
  CHECK(!TS_IS_ERROR(ts_lu_refactor(lu, a)));
  double complex *b = calloc((size_t)n, sizeof *b), *x = calloc((size_t)n, sizeof *x);
  b[5] = CMPLX(1.0, INFINITY);
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_CONJ_TRANSPOSE, 1, (const double *)b, n, (double *)x, n),
               TS_ERROR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(ts_last_error(ctx), "row 5") != NULL && strstr(ts_last_error(ctx), "imaginary") != NULL, "%s",
            ts_last_error(ctx));
  /* b and x overlapping by half a vector of pairs. */
  CHECK_STATUS(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, (const double *)b, n, (double *)b + n, n),
               TS_ERROR_INVALID_ARGUMENT);
  free(b);
  free(x);
  ts_lu_destroy(lu);
  /* A real analysis refuses a complex factorization. */
  lu = factored("real analysis", real, NULL);
  if (lu)
    CHECK_STATUS(ctx, ts_lu_factor(lu, a), TS_ERROR_INVALID_ARGUMENT);
  ts_lu_destroy(lu);
  ts_csr_destroy(real);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context_options options = {.backend = TS_BACKEND_CPU};
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
#ifndef TESSERA_TEST_HAVE_KLU
  printf("KLU is not installed: the comparisons with klu_zl_* are skipped\n");
#endif
  printf("no complex matrices in the corpus (MANIFEST.tsv lists none): generated ones only\n");
  test_generated();
  test_precisions();
  test_several_right_hand_sides();
  test_refactor_and_threads();
  test_inspection();
  test_singular();
  test_refusals();
  ts_context_destroy(ctx);
  return test_finish();
}
