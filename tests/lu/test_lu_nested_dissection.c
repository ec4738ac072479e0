/* The nested dissection ordering (TS_LU_ORDER_NESTED_DISSECTION, METIS):
 * on 2-D and 3-D grids less fill and fewer levels than AMD (George's
 * theorem for grids; the separators' tree is balanced), the same ordering
 * run to run, solves to 1e-14 in backward error against the residual
 * computed here in double, on meshes, circuits and matrices whose matching
 * moves rows; the empty, 1 x 1 and diagonal (edgeless graph) cases; and a
 * structurally singular matrix refused as with AMD; TS_LU_ORDER_AUTO's
 * choice on a large grid, a small grid and a circuit. Skips visibly in a
 * build without METIS. */
#include "test_lu_numeric_common.h"
#include "test_lu_orderings.h"

#include "lu/lu_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ts_context *ctx;

static ts_lu *analyzed(const ts_csr *a, ts_lu_ordering ordering, ts_status *st) {
  ts_lu_options options = {0};
  options.ordering = ordering;
  ts_lu *lu = NULL;
  *st = ts_lu_create(ctx, &options, &lu);
  if (*st == TS_SUCCESS)
    *st = ts_lu_analyze(lu, a);
  return lu;
}

/* max_i |b - A x|_i / (|A| |x| + |b|)_i, in double. */
static double backward_error(const ts_csr *a, const double *x, const double *b) {
  const double *v = a->values;
  double worst = 0.0;
  for (int64_t i = 0; i < a->rows; i++) {
    double r = b[i], scale = fabs(b[i]);
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      r -= v[e] * x[a->col_idx[e]];
      scale += fabs(v[e] * x[a->col_idx[e]]);
    }
    if (scale > 0.0 && fabs(r) / scale > worst)
      worst = fabs(r) / scale;
  }
  return worst;
}

/* Factor and solve A x = b (b from x = 1, 2, 3, ...) with the ordering;
 * returns the backward error, or INFINITY on failure. */
static double solve_error(const char *what, const ts_csr *a, ts_lu_ordering ordering) {
  ts_status st;
  ts_lu *lu = analyzed(a, ordering, &st);
  const int64_t n = a->rows;
  double *x = calloc((size_t)n + 1, sizeof(double)), *b = calloc((size_t)n + 1, sizeof(double));
  double error = INFINITY;
  const double *v = a->values;
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
      b[i] += v[e] * (double)(1 + a->col_idx[e] % 7);
  if (st == TS_SUCCESS)
    st = ts_lu_factor(lu, a);
  if (!TS_IS_ERROR(st))
    st = ts_lu_solve(lu, TS_OP_NONE, 1, b, n > 0 ? n : 1, x, n > 0 ? n : 1);
  CHECK_MSG(!TS_IS_ERROR(st), "%s: %s", what, ts_last_error(ctx));
  if (!TS_IS_ERROR(st))
    error = backward_error(a, x, b);
  free(x);
  free(b);
  ts_lu_destroy(lu);
  return error;
}

static void test_grids(void) {
  ts_csr *grids[2] = {NULL, NULL};
  CHECK_OK(ctx, ts_gen_laplacian_2d(ctx, 120, 120, TS_FLOAT64, &grids[0]));
  CHECK_OK(ctx, ts_gen_laplacian_3d(ctx, 18, 18, 18, TS_FLOAT64, &grids[1]));
  for (int g = 0; g < 2; g++) {
    if (!grids[g])
      continue;
    ts_status st_nd, st_amd;
    ts_lu *nd = analyzed(grids[g], TS_LU_ORDER_NESTED_DISSECTION, &st_nd);
    ts_lu *amd = analyzed(grids[g], TS_LU_ORDER_AMD, &st_amd);
    CHECK_MSG(st_nd == TS_SUCCESS, "grid %d: %s", g, ts_last_error(ctx));
    if (st_nd == TS_SUCCESS && st_amd == TS_SUCCESS) {
      ts_lu_stats s_nd, s_amd;
      ts_lu_get_stats(nd, &s_nd);
      ts_lu_get_stats(amd, &s_amd);
      printf("%s-D grid n %lld: nested dissection L+U %lld, flops %.3g, levels %lld; AMD L+U %lld, flops %.3g, "
             "levels %lld\n",
             g == 0 ? "2" : "3", (long long)s_nd.n, (long long)(s_nd.nnz_l + s_nd.nnz_u), s_nd.flops,
             (long long)s_nd.levels, (long long)(s_amd.nnz_l + s_amd.nnz_u), s_amd.flops, (long long)s_amd.levels);
      CHECK_MSG(s_nd.flops < s_amd.flops, "grid %d: flops %.4g against AMD's %.4g", g, s_nd.flops, s_amd.flops);
      CHECK_MSG(s_nd.levels < s_amd.levels, "grid %d: levels %lld against AMD's %lld", g, (long long)s_nd.levels,
                (long long)s_amd.levels);
      /* The same ordering on a second analysis (and a second object). */
      ts_status st_again;
      ts_lu *again = analyzed(grids[g], TS_LU_ORDER_NESTED_DISSECTION, &st_again);
      CHECK(st_again == TS_SUCCESS);
      if (st_again == TS_SUCCESS) {
        const size_t bytes = (size_t)grids[g]->rows * sizeof(int32_t);
        CHECK(memcmp(again->col_perm, nd->col_perm, bytes) == 0 && memcmp(again->row_perm, nd->row_perm, bytes) == 0);
      }
      ts_lu_destroy(again);
    }
    ts_lu_destroy(nd);
    ts_lu_destroy(amd);
    const double error = solve_error(g == 0 ? "2-D grid" : "3-D grid", grids[g], TS_LU_ORDER_NESTED_DISSECTION);
    CHECK_MSG(error <= 1e-14, "grid %d: backward error %.3e", g, error);
    ts_csr_destroy(grids[g]);
  }
}

/* Circuits (a dense net, rows the matching leaves) and random matrices
 * whose diagonal is zero or small (the matching moves rows, so the graph is
 * B + B^T's, not A + A^T's). */
static void test_other_matrices(void) {
  ts_circuit_params params = ts_circuit_defaults(3000);
  params.locality = 0.3;
  ts_csr *circuit = NULL;
  CHECK_OK(ctx, lu_test_gen_circuit(ctx, &params, 5, TS_FLOAT64, &circuit));
  if (circuit) {
    const double error = solve_error("circuit", circuit, TS_LU_ORDER_NESTED_DISSECTION);
    CHECK_MSG(error <= 1e-14, "circuit: backward error %.3e", error);
  }
  ts_csr_destroy(circuit);
  for (int trial = 0; trial < 12; trial++) {
    ts_csr *a = lu_test_random(ctx, 50 + 97 * trial, 3 + trial % 4, trial % 2, 100 + trial);
    if (!a)
      continue;
    const double error = solve_error("random", a, TS_LU_ORDER_NESTED_DISSECTION);
    CHECK_MSG(error <= 1e-14, "random trial %d (n %lld): backward error %.3e", trial, (long long)a->rows, error);
    ts_csr_destroy(a);
  }
}

static void test_edge_cases(void) {
  /* 0 x 0, 1 x 1 and a diagonal matrix (a graph without edges). */
  for (int64_t n = 0; n <= 5; n += n == 0 ? 1 : 4) {
    ts_csr *a = NULL;
    CHECK_OK(ctx, ts_csr_create(ctx, n, n, n, TS_FLOAT64, &a));
    if (!a)
      continue;
    for (int64_t i = 0; i < n; i++) {
      a->row_ptr[i + 1] = i + 1;
      a->col_idx[i] = (int32_t)i;
      ((double *)a->values)[i] = 2.0 + (double)i;
    }
    const double error = solve_error("diagonal", a, TS_LU_ORDER_NESTED_DISSECTION);
    CHECK_MSG(n == 0 || error <= 1e-15, "diagonal n %lld: backward error %.3e", (long long)n, error);
    ts_csr_destroy(a);
  }
  /* Structurally singular: two rows with the same single column. */
  const int32_t rows[] = {0, 0, 1, 2}, cols[] = {0, 1, 1, 1};
  const double values[] = {1.0, 2.0, 3.0, 4.0};
  ts_csr *singular = lu_test_csr(ctx, 3, 4, rows, cols, values);
  if (singular) {
    ts_status st;
    ts_lu *lu = analyzed(singular, TS_LU_ORDER_NESTED_DISSECTION, &st);
    CHECK_MSG(st == TS_ERROR_STRUCTURALLY_SINGULAR, "structurally singular: status %d (%s)", (int)st,
              ts_last_error(ctx));
    ts_lu_destroy(lu);
  }
  ts_csr_destroy(singular);
}

/* TS_LU_ORDER_AUTO (the default) takes nested dissection on a 3-D grid
 * large enough for the rule, AMD on a circuit as large and on a 2-D grid
 * below the rule's size; ts_lu_stats::ordering says which. */
static void test_auto(void) {
  ts_csr *grid = NULL, *small_grid = NULL, *circuit = NULL;
  CHECK_OK(ctx, ts_gen_laplacian_3d(ctx, 30, 30, 30, TS_FLOAT64, &grid));
  CHECK_OK(ctx, ts_gen_laplacian_2d(ctx, 120, 120, TS_FLOAT64, &small_grid));
  ts_circuit_params params = ts_circuit_defaults(30000);
  params.locality = 0.0;
  CHECK_OK(ctx, lu_test_gen_circuit(ctx, &params, 3, TS_FLOAT64, &circuit));
  const ts_csr *matrices[3] = {grid, small_grid, circuit};
  const ts_lu_ordering expected[3] = {TS_LU_ORDER_NESTED_DISSECTION, TS_LU_ORDER_AMD, TS_LU_ORDER_AMD};
  for (int m = 0; m < 3; m++) {
    if (!matrices[m])
      continue;
    ts_status st;
    ts_lu *lu = analyzed(matrices[m], TS_LU_ORDER_AUTO, &st);
    CHECK_MSG(st == TS_SUCCESS, "auto %d: %s", m, ts_last_error(ctx));
    if (st == TS_SUCCESS) {
      ts_lu_stats stats;
      ts_lu_get_stats(lu, &stats);
      CHECK_MSG(stats.ordering == expected[m], "auto %d (n %lld): ordering %d, expected %d", m, (long long)stats.n,
                (int)stats.ordering, (int)expected[m]);
    }
    ts_lu_destroy(lu);
  }
  const double error = solve_error("auto grid", grid, TS_LU_ORDER_AUTO);
  CHECK_MSG(error <= 1e-14, "auto grid: backward error %.3e", error);
  ts_csr_destroy(grid);
  ts_csr_destroy(small_grid);
  ts_csr_destroy(circuit);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  if (!lu_test_skip_without(TS_LU_ORDER_NESTED_DISSECTION, "nested dissection")) {
    test_grids();
    test_other_matrices();
    test_edge_cases();
    test_auto();
  }
  ts_context_destroy(ctx);
  return test_finish();
}
