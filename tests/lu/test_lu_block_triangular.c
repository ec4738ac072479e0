/* The AMD ordering within the blocks of the block triangular form: matrices
 * built block upper triangular (strongly connected diagonal blocks, random
 * entries above them) and then scrambled by random row and column
 * permutations. The analysis must find the blocks (their number), keep L
 * inside them (no entry of L joins two blocks), leave a triangular matrix
 * without fill (L = I, U = A), solve both ways to a dense LU's answer with
 * a backward error of at most 1e-14, refactor new values, and name a
 * column of the singular block, in the caller's numbering, when one
 * diagonal block is singular. */
#include "lu/lu_internal.h" /* the block count and the pattern of L + U */
#include "test_lu_numeric_common.h"

/* Whether the analysis can take the block form (a build with SuiteSparse
 * AMD and BTF); the block form must then be kept for these matrices, whose
 * blocks fill less than the whole matrix's AMD ordering. */
#ifdef TESSERA_TEST_HAVE_BTF
static const int have_block_form = 1;
#else
static const int have_block_form = 0;
#endif

static ts_context *ctx;

/* A scrambled block upper triangular matrix: block_of_row[r] and
 * block_of_col[c] give the block of A's row r and column c. With singular
 * >= 0, that block (of three rows at least) gets two equal rows. */
typedef struct blocked_matrix {
  ts_csr *a;
  int64_t n, blocks;
  int32_t *block_of_row, *block_of_col;
} blocked_matrix;

static void shuffle(int32_t *p, int64_t n, unsigned long long *state) {
  for (int64_t i = 0; i < n; i++)
    p[i] = (int32_t)i;
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)((test_random(state) + 1.0) * 0.5 * (double)(i + 1));
    j = j > i ? i : j;
    int32_t t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

static blocked_matrix build(const int *sizes, int64_t blocks, double above, int singular, unsigned long long seed) {
  blocked_matrix m = {0};
  int64_t n = 0;
  for (int64_t b = 0; b < blocks; b++)
    n += sizes[b];
  m.n = n;
  m.blocks = blocks;
  int32_t *block = malloc((size_t)n * sizeof *block), *first = malloc((size_t)(blocks + 1) * sizeof *first);
  int32_t *p = malloc((size_t)n * sizeof *p), *q = malloc((size_t)n * sizeof *q);
  int64_t cap = n * n, count = 0;
  int32_t *rows = malloc((size_t)cap * sizeof *rows), *cols = malloc((size_t)cap * sizeof *cols);
  double *values = malloc((size_t)cap * sizeof *values);
  unsigned long long state = seed;
  first[0] = 0;
  for (int64_t b = 0; b < blocks; b++) {
    first[b + 1] = first[b] + sizes[b];
    for (int32_t i = first[b]; i < first[b + 1]; i++)
      block[i] = (int32_t)b;
  }
  shuffle(p, n, &state);
  shuffle(q, n, &state);
  for (int64_t i = 0; i < n; i++) {
    const int32_t b = block[i], lo = first[b], hi = first[b + 1];
    for (int64_t j = lo; j < n; j++) {
      const int32_t c = block[j];
      double v;
      if (c == b && b == singular) {
        /* Dense, and its second row a copy of its first. */
        unsigned long long cell = seed ^ ((unsigned long long)(i == lo + 1 ? lo : i) << 20) ^ (unsigned long long)j;
        v = test_random(&cell);
      } else if (c == b) {
        /* The diagonal and a cycle (the block strongly connected), and
         * some more entries; a dominant diagonal. */
        const int keep = j == i || j == (i + 1 < hi ? i + 1 : lo) || test_random(&state) > 0.4;
        if (!keep)
          continue;
        v = test_random(&state);
        if (j == i)
          v += v < 0 ? -3.0 : 3.0;
      } else {
        if (test_random(&state) >= 2.0 * above - 1.0)
          continue;
        v = test_random(&state);
      }
      rows[count] = p[i];
      cols[count] = q[j];
      values[count++] = v;
    }
  }
  m.a = lu_test_csr(ctx, n, count, rows, cols, values);
  m.block_of_row = malloc((size_t)n * sizeof *m.block_of_row);
  m.block_of_col = malloc((size_t)n * sizeof *m.block_of_col);
  for (int64_t i = 0; i < n; i++) {
    m.block_of_row[p[i]] = block[i];
    m.block_of_col[q[i]] = block[i];
  }
  free(block);
  free(first);
  free(p);
  free(q);
  free(rows);
  free(cols);
  free(values);
  return m;
}

static void release(blocked_matrix *m) {
  ts_csr_destroy(m->a);
  free(m->block_of_row);
  free(m->block_of_col);
}

/* No entry of L (nor a pivot) joins two blocks: M's row i is A's row
 * row_perm[i], its column j A's column col_perm[j]. */
static int64_t entries_across_blocks(const ts_lu *lu, const blocked_matrix *m) {
  int64_t across = 0;
  for (int64_t j = 0; j < lu->n; j++) {
    const int32_t col_block = m->block_of_col[lu->col_perm[j]];
    for (int64_t e = lu->diag_pos[j]; e < lu->lu_col_ptr[j + 1]; e++)
      across += m->block_of_row[lu->row_perm[lu->lu_row_idx[e]]] != col_block;
  }
  return across;
}

/* Solves op(A) x = b both ways against the dense LU; returns the largest
 * backward error. */
static double solve_both_ways(ts_lu *lu, const ts_csr *a, const char *name) {
  const int64_t n = a->rows;
  double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x), worst = 0.0;
  unsigned long long state = 3;
  for (int64_t i = 0; i < n; i++)
    b[i] = test_random(&state);
  for (int transpose = 0; transpose < 2; transpose++) {
    CHECK_OK(ctx, ts_lu_solve(lu, transpose ? TS_OP_TRANSPOSE : TS_OP_NONE, 1, b, n, x, n));
    const double berr = lu_test_backward_error(a, transpose, x, b);
    worst = fmax(worst, berr);
    double *d = lu_test_dense(a, transpose), *ref = malloc((size_t)n * sizeof *ref);
    memcpy(ref, b, (size_t)n * sizeof *ref);
    CHECK(lu_test_dense_solve(d, ref, n) == 0);
    double err = 0.0, size = 0.0;
    for (int64_t i = 0; i < n; i++) {
      err = fmax(err, fabs(x[i] - ref[i]));
      size = fmax(size, fabs(ref[i]));
    }
    CHECK_MSG(err <= 1e-10 * size, "%s op %d: |x - x_dense| %.3g of %.3g", name, transpose, err, size);
    free(d);
    free(ref);
  }
  free(b);
  free(x);
  return worst;
}

static void test_blocks_found_and_solved(void) {
  static const int sizes[] = {1, 4, 1, 1, 6, 3, 1, 5, 1, 2, 7, 1};
  const int64_t blocks = (int64_t)(sizeof sizes / sizeof *sizes);
  for (int k = 0; k < 3; k++) {
    blocked_matrix m = build(sizes, blocks, 0.15 + 0.1 * k, -1, 101 + (unsigned long long)k);
    CHECK(m.a != NULL);
    if (!m.a)
      continue;
    ts_lu_options options = lu_test_options();
    ts_lu *lu = NULL;
    CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
    CHECK_OK(ctx, ts_lu_analyze(lu, m.a));
    CHECK_OK(ctx, ts_lu_factor(lu, m.a));
    if (have_block_form) {
      CHECK_MSG(lu->btf_blocks == blocks, "case %d: %lld blocks found, %lld built", k, (long long)lu->btf_blocks,
                (long long)blocks);
      CHECK_MSG(entries_across_blocks(lu, &m) == 0, "case %d: L joins blocks", k);
    }
    double berr = solve_both_ways(lu, m.a, "blocks");
    CHECK_MSG(berr <= 1e-14, "case %d: backward error %.3g", k, berr);
    /* New values on the same pattern. */
    ts_csr *b = lu_test_perturbed_copy(ctx, m.a, 0.3, 17 + (unsigned long long)k);
    CHECK(ts_lu_refactor(lu, b) == TS_SUCCESS);
    berr = solve_both_ways(lu, b, "refactored");
    CHECK_MSG(berr <= 1e-14, "case %d refactored: backward error %.3g", k, berr);
    ts_csr_destroy(b);
    ts_lu_destroy(lu);
    release(&m);
  }
}

/* Every block a single row: a scrambled triangular matrix. Its block form
 * is triangular, so L = I and U holds A's entries, no fill at all. */
static void test_triangular_without_fill(void) {
  enum { n = 60 };
  int sizes[n];
  for (int i = 0; i < n; i++)
    sizes[i] = 1;
  blocked_matrix m = build(sizes, n, 0.3, -1, 7);
  CHECK(m.a != NULL);
  ts_lu_options options = lu_test_options();
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, m.a));
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  if (have_block_form) {
    CHECK_MSG(lu->btf_blocks == n, "%lld blocks", (long long)lu->btf_blocks);
    CHECK_MSG(stats.nnz_l == n && stats.nnz_u == m.a->nnz, "L %lld (n %d), U %lld (A %lld)", (long long)stats.nnz_l, n,
              (long long)stats.nnz_u, (long long)m.a->nnz);
  }
  CHECK_OK(ctx, ts_lu_factor(lu, m.a));
  const double berr = solve_both_ways(lu, m.a, "triangular");
  CHECK_MSG(berr <= 1e-14, "backward error %.3g", berr);
  ts_lu_destroy(lu);
  release(&m);
}

/* One diagonal block singular (two equal rows): the status names a column
 * of that block, in A's numbering. */
static void test_singular_block(void) {
  static const int sizes[] = {1, 1, 2, 1, 1, 4, 1, 1, 1, 3, 1, 1, 1, 1};
  const int64_t blocks = (int64_t)(sizeof sizes / sizeof *sizes);
  const int singular = 5;
  blocked_matrix m = build(sizes, blocks, 0.25, singular, 23);
  CHECK(m.a != NULL);
  ts_lu_options options = lu_test_options();
  options.no_perturbation = 1;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, m.a));
  CHECK_STATUS(ctx, ts_lu_factor(lu, m.a), TS_ERROR_NUMERICALLY_SINGULAR);
  ts_lu_stats stats;
  CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
  CHECK(stats.singular_column >= 0 && stats.singular_column < m.n);
  CHECK(!have_block_form || lu->btf_blocks == blocks);
  if (have_block_form && stats.singular_column >= 0 && stats.singular_column < m.n)
    CHECK_MSG(m.block_of_col[stats.singular_column] == singular, "column %lld is in block %d, not %d",
              (long long)stats.singular_column, (int)m.block_of_col[stats.singular_column], singular);
  char expect[64];
  snprintf(expect, sizeof expect, "column %lld (from 0)", (long long)stats.singular_column);
  CHECK_MSG(strstr(ts_last_error(ctx), expect) != NULL, "message '%s' does not name %s", ts_last_error(ctx), expect);
  ts_lu_destroy(lu);
  release(&m);
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_blocks_found_and_solved();
  test_triangular_without_fill();
  test_singular_block();
  ts_context_destroy(ctx);
  return test_finish();
}
