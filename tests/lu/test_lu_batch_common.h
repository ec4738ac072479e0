/* Helpers of the LU batch tests: batches of generated and corpus matrices
 * with values perturbed member by member, right-hand sides, the
 * single-system reference of a member (an LU object analysed with the
 * member's pattern matrix, refactored with the member's values, solved),
 * and the comparison of a batch member with it. */
#ifndef TESSERA_TEST_LU_BATCH_COMMON_H
#define TESSERA_TEST_LU_BATCH_COMMON_H

#include "test_lu_numeric_common.h"

#include "lu/batch/batch_internal.h"

/* A generated circuit of order n (the defaults of ts_circuit_defaults). */
static inline ts_csr *batch_test_circuit(ts_context *ctx, int64_t n, unsigned long long seed) {
  ts_circuit_params params = ts_circuit_defaults(n);
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_gen_circuit(ctx, &params, seed, TS_FLOAT64, &a));
  return a;
}

/* The values of every member: each pattern matrix's values, each times
 * (1 + spread * r) with r uniform in [-1, 1), member after member. */
static inline double *batch_test_values(int64_t patterns, const ts_csr *const *mats, const int64_t *counts,
                                        double spread, unsigned long long seed) {
  int64_t total = 0;
  for (int64_t p = 0; p < patterns; p++)
    total += counts[p] * mats[p]->nnz;
  double *values = malloc((size_t)(total > 0 ? total : 1) * sizeof *values);
  unsigned long long state = seed;
  int64_t at = 0;
  for (int64_t p = 0; p < patterns; p++)
    for (int64_t m = 0; m < counts[p]; m++)
      for (int64_t e = 0; e < mats[p]->nnz; e++)
        values[at++] = ((const double *)mats[p]->values)[e] * (1.0 + spread * test_random(&state));
  return values;
}

/* `rows` random right-hand side entries in [-1, 1). */
static inline double *batch_test_rhs(int64_t rows, unsigned long long seed) {
  double *b = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *b);
  unsigned long long state = seed;
  for (int64_t i = 0; i < rows; i++)
    b[i] = test_random(&state);
  return b;
}

/* Normwise backward error |b - A x|_inf / (|A|_inf |x|_inf + |b|_inf) of x
 * for the matrix of pattern a with `values`, computed here. */
static inline double batch_test_backward_error(const ts_csr *a, const double *values, const double *b,
                                               const double *x) {
  double r_norm = 0.0, a_norm = 0.0, x_norm = 0.0, b_norm = 0.0;
  for (int64_t i = 0; i < a->rows; i++) {
    double r = b[i], row = 0.0;
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      r -= values[e] * x[a->col_idx[e]];
      row += fabs(values[e]);
    }
    r_norm = fmax(r_norm, fabs(r));
    a_norm = fmax(a_norm, row);
    x_norm = fmax(x_norm, fabs(x[i]));
    b_norm = fmax(b_norm, fabs(b[i]));
  }
  double scale = a_norm * x_norm + b_norm;
  return scale > 0.0 ? r_norm / scale : r_norm;
}

/* A batch made with the GPU switches set (width 0: the rule); NULL after a
 * failed check. */
static inline ts_lu_batch *batch_test_create(ts_context *ctx, const ts_lu_options *options, int64_t patterns,
                                             const ts_csr *const *mats, const int64_t *counts, int width, int no_map) {
  ts_lu_batch *batch = NULL;
  CHECK_OK(ctx, ts_lu_batch_create(ctx, options, patterns, mats, counts, &batch));
  if (batch) {
    batch->switches.width = width;
    batch->switches.no_map = no_map;
  }
  return batch;
}

/* The corpus matrices the batch tests use (the full corpus when present,
 * else the repository's small one), each handed to `check` with its index;
 * parts skipped visibly. */
static inline void batch_test_corpus(ts_context *ctx, void (*check)(const char *name, const ts_csr *a, size_t i)) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("SKIPPED (part): no corpus found\n");
    return;
  }
  static const char *const names[] = {"add20", "west0067", "impcol_a", "arc130", "Hamrle1", "1138_bus"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[4096];
    if (!test_corpus_matrix(dir, names[i], path, sizeof path))
      continue;
    /* add20 fills to 4 M entries in the natural order: seconds a member. */
    if (strcmp(names[i], "add20") == 0 && lu_test_skip_unordered("add20"))
      continue;
    ts_csr *a = test_read_general(ctx, dir, names[i]);
    CHECK_MSG(a != NULL, "%s: %s", names[i], ts_last_error(ctx));
    if (!a)
      continue;
    check(names[i], a, i);
    ts_csr_destroy(a);
  }
}

/* A member solved as a single system. */
typedef struct batch_single {
  ts_status factor_status, solve_status;
  ts_lu_stats stats;
  double *x;
  double *factors; /* lu_nnz doubles (float factors widened) */
  int64_t lu_nnz;
} batch_single;

static inline void batch_single_free(batch_single *s) {
  free(s->x);
  free(s->factors);
  memset(s, 0, sizeof *s);
}

/* The single-system reference of a member of pattern a: ts_lu_analyze(a),
 * ts_lu_refactor with the member's values, ts_lu_solve (when the
 * factorization succeeded), all on the host, with the whole matrix's
 * factors as the batch's kernels make them (never the diagonal blocks
 * alone). */
static inline void batch_test_single(ts_context *ctx, const ts_lu_options *options, const ts_csr *a,
                                     const double *values, const double *b, batch_single *out) {
  memset(out, 0, sizeof *out);
  ts_lu_options host = *options;
  host.backend = TS_BACKEND_CPU;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &host, &lu));
  lu->switches.whole_factors = 1;
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  ts_csr member = *a;
  member.values = (void *)values;
  member.dtype = TS_FLOAT64;
  out->factor_status = ts_lu_refactor(lu, &member);
  out->x = calloc((size_t)(a->rows > 0 ? a->rows : 1), sizeof(double));
  out->solve_status = TS_ERROR_NOT_FACTORED;
  if (!TS_IS_ERROR(out->factor_status)) {
    out->lu_nnz = lu->lu_nnz;
    out->factors = malloc((size_t)(lu->lu_nnz > 0 ? lu->lu_nnz : 1) * sizeof(double));
    for (int64_t p = 0; p < lu->lu_nnz; p++)
      out->factors[p] = lu->lu_values_f32 ? (double)lu->lu_values_f32[p] : lu->lu_values[p];
    int64_t ld = a->rows > 1 ? a->rows : 1;
    out->solve_status = ts_lu_solve(lu, TS_OP_NONE, 1, b, ld, out->x, ld);
  }
  ts_lu_get_stats(lu, &out->stats);
  ts_lu_destroy(lu);
}

/* Member m of the batch against its single-system reference: the status,
 * pivots, singular column and, for a member with factors, the solution,
 * backward error and refinement steps; bitwise when `bitwise`, else to
 * `tolerance` relative to |x|_inf. x is the batch's solution array. */
static inline void batch_test_compare(const char *what, const ts_lu_batch *batch, int64_t m, const batch_single *s,
                                      const double *x, int bitwise, double tolerance) {
  ts_lu_batch_member info;
  CHECK_OK(NULL, ts_lu_batch_get_member(batch, m, &info));
  /* A member keeps its factorization's status unless its solve failed. */
  const ts_status want =
      !TS_IS_ERROR(s->factor_status) && TS_IS_ERROR(s->solve_status) ? s->solve_status : s->factor_status;
  CHECK_MSG(info.status == want, "%s member %lld: status %s, single %s", what, (long long)m,
            ts_status_string(info.status), ts_status_string(want));
  CHECK_MSG(info.perturbed_pivots == s->stats.perturbed_pivots, "%s member %lld: %lld perturbed pivots, single %lld",
            what, (long long)m, (long long)info.perturbed_pivots, (long long)s->stats.perturbed_pivots);
  CHECK_MSG(info.singular_column == s->stats.singular_column, "%s member %lld: singular column %lld, single %lld", what,
            (long long)m, (long long)info.singular_column, (long long)s->stats.singular_column);
  const double *xm = x + info.vector_offset;
  if (TS_IS_ERROR(s->factor_status) || s->solve_status == TS_ERROR_INVALID_ARGUMENT) {
    int nan = 1;
    for (int64_t i = 0; i < info.n; i++)
      nan = nan && isnan(xm[i]);
    CHECK_MSG(nan, "%s member %lld: a member without factors or with a refused b has a solution that is not NaN", what,
              (long long)m);
    return;
  }
  if (bitwise) {
    CHECK_MSG(memcmp(xm, s->x, (size_t)info.n * sizeof(double)) == 0, "%s member %lld: x differs from the single solve",
              what, (long long)m);
    CHECK_MSG(info.backward_error == s->stats.backward_error, "%s member %lld: backward error %.3e, single %.3e", what,
              (long long)m, info.backward_error, s->stats.backward_error);
    CHECK_MSG(info.refinement_steps == s->stats.refinement_steps, "%s member %lld: %d refinement steps, single %d",
              what, (long long)m, info.refinement_steps, s->stats.refinement_steps);
  } else {
    double diff = 0.0, scale = 0.0;
    for (int64_t i = 0; i < info.n; i++) {
      diff = fmax(diff, fabs(xm[i] - s->x[i]));
      scale = fmax(scale, fabs(s->x[i]));
    }
    CHECK_MSG(diff <= tolerance * (scale > 0.0 ? scale : 1.0), "%s member %lld: |x - x_single| = %.3e (|x| %.3e)", what,
              (long long)m, diff, scale);
  }
}

#endif
