/* The host's column kernel with chained columns of L grouped (a supernode's
 * columns subtracted together, numeric_cpu_impl.h lu_subtract_group): the
 * factors are bitwise those of the column-by-column kernel (the groups
 * forced off), whether the groups are forced on or chosen by the AUTO rule,
 * on one thread and in the four-thread dataflow, in double, single and
 * complex factors, on matrices whose L chains (a 3-D Laplacian, a circuit
 * laid out on a grid) and on a netlist, where the AUTO rule leaves them
 * off (too little of the work) and the groups forced on meet L's dense row
 * held in a register. The solution's backward error stays at rounding. */
#include "test_lu_numeric_common.h"

#include <complex.h>

#include "lu/numeric/numeric_internal.h" /* the groups' switch and share */

static ts_context *ctx;

/* Factor values of lu (double, single or complex), as bytes. */
static size_t factor_bytes(const ts_lu *lu, const void **values) {
  if (lu->lu_values_f32) {
    *values = lu->lu_values_f32;
    return (size_t)lu->lu_nnz * (lu->complex_values ? 2 : 1) * sizeof(float);
  }
  *values = lu->lu_values;
  return (size_t)lu->lu_nnz * (lu->complex_values ? 2 : 1) * sizeof(double);
}

/* Refactor a with the groups set to `groups` on `threads` host threads,
 * and compare the factors with `reference` (bytes long). */
static void refactor_and_compare(const char *name, ts_lu *lu, const ts_csr *a, int groups, int threads,
                                 const void *reference, size_t bytes) {
  lu->switches.cpu_column_groups = groups;
  lu->switches.cpu_threads = threads;
  ts_status st = ts_lu_refactor(lu, a);
  CHECK_MSG(st == TS_SUCCESS || st == TS_WARNING_PERTURBED_PIVOTS, "%s: refactor: %s", name, ts_last_error(ctx));
  const void *values = NULL;
  CHECK_MSG(factor_bytes(lu, &values) == bytes && memcmp(values, reference, bytes) == 0,
            "%s: the factors with groups %s on %d thread(s) differ from column by column", name,
            groups == TSI_LU_COLUMN_GROUPS_ON ? "on" : "by the rule", threads);
}

/* The backward error of a solve of a x = b, b the row sums of |a| (real
 * matrices only), through lu's own statistics. */
static void check_solution(const char *name, ts_lu *lu, const ts_csr *a) {
  if (TS_DTYPE_IS_COMPLEX(a->dtype))
    return;
  const int64_t n = a->rows;
  double *b = calloc((size_t)n, sizeof *b), *x = calloc((size_t)n, sizeof *x);
  for (int64_t i = 0; i < n; i++)
    b[i] = 1.0 + (double)(i % 5);
  CHECK_OK(ctx, ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n));
  ts_lu_stats stats;
  ts_lu_get_stats(lu, &stats);
  CHECK_MSG(stats.backward_error < 1e-13, "%s: backward error %.2e", name, stats.backward_error);
  free(b);
  free(x);
}

/* What the AUTO rule is expected to do on a matrix. */
typedef enum { RULE_LEAVES, RULE_GROUPS, RULE_UNCHECKED } expected_rule;

static void check_matrix(const char *name, ts_csr *a, bool float_factors, expected_rule expect_auto) {
  CHECK_MSG(a != NULL, "%s: the matrix was not made", name);
  if (!a)
    return;
  ts_lu_options options = lu_test_options();
  options.float_factors = float_factors;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  lu->switches.numeric_method = TSI_LU_METHOD_COLUMNS; /* not the fronts, which a 3-D Laplacian may take */
  CHECK_OK(ctx, ts_lu_analyze(lu, a));
  lu->switches.cpu_column_groups = TSI_LU_COLUMN_GROUPS_OFF;
  lu->switches.cpu_threads = 1;
  ts_status st = ts_lu_factor(lu, a);
  CHECK_MSG(st == TS_SUCCESS || st == TS_WARNING_PERTURBED_PIVOTS, "%s: factor: %s", name, ts_last_error(ctx));
  const void *values = NULL;
  const size_t bytes = factor_bytes(lu, &values);
  void *reference = malloc(bytes > 0 ? bytes : 1);
  memcpy(reference, values, bytes);

  refactor_and_compare(name, lu, a, TSI_LU_COLUMN_GROUPS_ON, 1, reference, bytes);
  refactor_and_compare(name, lu, a, TSI_LU_COLUMN_GROUPS_AUTO, 1, reference, bytes);
  refactor_and_compare(name, lu, a, TSI_LU_COLUMN_GROUPS_ON, 4, reference, bytes);
  const tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  const bool grouped = ws && ws->chain_run && ws->chain_share >= TSI_LU_CPU_GROUP_MIN_SHARE &&
                       ws->chain_work >= TSI_LU_CPU_GROUP_MIN_WORK;
  CHECK_MSG(expect_auto == RULE_UNCHECKED || grouped == (expect_auto == RULE_GROUPS),
            "%s: the rule %s the groups (share %.2f of the updates' work, %.0f entries)", name,
            grouped ? "takes" : "leaves", ws ? ws->chain_share : -1.0, ws ? ws->chain_work : -1.0);
  lu->switches.cpu_threads = 1;
  check_solution(name, lu, a);
  printf("%s: n %lld, the groups' share %.2f (%.0f entries), grouped by the rule: %s, factors bitwise the same%s\n",
         name, (long long)a->rows, ws ? ws->chain_share : -1.0, ws ? ws->chain_work : -1.0, grouped ? "yes" : "no",
         float_factors ? " (single)" : "");
  free(reference);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
}

static ts_csr *circuit(int64_t n, double locality, uint64_t seed) {
  ts_circuit_params params = ts_circuit_defaults(n);
  params.locality = locality;
  ts_csr *a = NULL;
  return lu_test_gen_circuit(ctx, &params, seed, TS_FLOAT64, &a) == TS_SUCCESS ? a : NULL;
}

/* A complex matrix on the pattern of a real one: each value v becomes
 * v + i v / 4 on the diagonal and v - i v / 3 off it (the diagonal stays
 * the largest of its row in modulus where it was in value). */
static ts_csr *complex_of(ts_csr *real, ts_dtype dtype) {
  if (!real)
    return NULL;
  ts_csr *a = NULL;
  if (ts_csr_create(ctx, real->rows, real->cols, real->nnz, dtype, &a) == TS_SUCCESS) {
    memcpy(a->row_ptr, real->row_ptr, (size_t)(real->rows + 1) * sizeof *a->row_ptr);
    memcpy(a->col_idx, real->col_idx, (size_t)real->nnz * sizeof *a->col_idx);
    const double *v = real->values;
    for (int64_t i = 0; i < real->rows; i++)
      for (int64_t e = real->row_ptr[i]; e < real->row_ptr[i + 1]; e++) {
        const double complex z = real->col_idx[e] == i ? v[e] + I * v[e] / 4.0 : v[e] - I * v[e] / 3.0;
        if (dtype == TS_COMPLEX64)
          ((float complex *)a->values)[e] = (float complex)z;
        else
          ((double complex *)a->values)[e] = z;
      }
  }
  ts_csr_destroy(real);
  return a;
}

static ts_csr *laplacian_3d(int64_t side) {
  ts_csr *a = NULL;
  return ts_gen_laplacian_3d(ctx, side, side, side, TS_FLOAT64, &a) == TS_SUCCESS ? a : NULL;
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  copts.num_threads = 4;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  /* Chains come with a fill-reducing order. */
  const expected_rule ordered = lu_test_fill_ordering() != TS_LU_ORDER_NATURAL ? RULE_GROUPS : RULE_LEAVES;
  /* The netlist's updates are too little of the work under AMD; in the
   * natural order it fills in and the groups take enough of the work. */
  const expected_rule netlist =
      lu_test_skip_without(TS_LU_ORDER_AMD, "netlist: the rule leaves the groups off") ? RULE_UNCHECKED : RULE_LEAVES;
  check_matrix("3-D Laplacian 12^3", laplacian_3d(12), false, ordered);
  check_matrix("3-D Laplacian 5^3", laplacian_3d(5), false, RULE_LEAVES); /* chains, but too little work to group */
  check_matrix("3-D Laplacian 12^3", laplacian_3d(12), true, ordered);
  check_matrix("circuit on a grid", circuit(3000, 1.0, 2), false, ordered);
  check_matrix("netlist", circuit(3000, 0.0, 3), false, netlist);
  check_matrix("complex circuit on a grid", complex_of(circuit(2000, 1.0, 4), TS_COMPLEX128), false, ordered);
  check_matrix("complex circuit on a grid", complex_of(circuit(2000, 1.0, 5), TS_COMPLEX64), true, ordered);
  ts_context_destroy(ctx);
  return test_finish();
}
