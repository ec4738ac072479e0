/* The AMD ordering within the blocks of the block triangular form: matrices
 * built block upper triangular (strongly connected diagonal blocks, random
 * entries above them) and then scrambled by random row and column
 * permutations. The analysis must find the blocks (their number), keep L
 * inside them (no entry of L joins two blocks), leave a triangular matrix
 * without fill (L = I, U = A), solve both ways to a dense LU's answer with
 * a backward error of at most 1e-14, refactor new values, and name a
 * column of the singular block, in the caller's numbering, when one
 * diagonal block is singular (or a 1 x 1 block's entry refactored to zero). */
#include "lu/lu_internal.h"           /* the block count and the pattern of L + U */
#include "test_lu_estimates_common.h" /* lu_test_check_factors */

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
    double size;
    const double err = lu_test_dense_gap(a, transpose, b, x, &size);
    CHECK(err >= 0.0);
    CHECK_MSG(err <= 1e-10 * size, "%s op %d: |x - x_dense| %.3g of %.3g", name, transpose, err, size);
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

/* A scrambled triangular matrix of n rows: every block a single row. */
static blocked_matrix single_row_blocks(int64_t n, unsigned long long seed) {
  int *sizes = malloc((size_t)n * sizeof *sizes);
  blocked_matrix m = {0};
  if (!sizes)
    return m;
  for (int64_t i = 0; i < n; i++)
    sizes[i] = 1;
  m = build(sizes, n, 0.3, -1, seed);
  free(sizes);
  return m;
}

/* Every block a single row: its block form is triangular, so L = I and U
 * holds A's entries, no fill at all. */
static void test_triangular_without_fill(void) {
  enum { n = 60 };
  blocked_matrix m = single_row_blocks(n, 7);
  CHECK(m.a != NULL);
  if (!m.a)
    return;
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

/* A 1 x 1 block whose entry a refactorization sets to zero, then to a
 * value far below the others: the zero stops it (no perturbation) naming
 * that entry's column, in A's numbering; the tiny value is factored as
 * given; values on the pattern again solve as before. */
static void test_lone_pivot_refactored(void) {
  blocked_matrix m = single_row_blocks(40, 11);
  CHECK(m.a != NULL);
  if (!m.a)
    return;
  ts_lu_options options = lu_test_options();
  options.no_perturbation = 1;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
  CHECK_OK(ctx, ts_lu_analyze(lu, m.a));
  CHECK_OK(ctx, ts_lu_factor(lu, m.a));
  ts_csr *b = NULL;
  CHECK_OK(ctx, ts_csr_copy(ctx, m.a, &b));
  /* The last row's entry inside its block (the row's only one there). */
  const int64_t row = m.n - 1;
  int64_t entry = -1;
  for (int64_t e = b->row_ptr[row]; e < b->row_ptr[row + 1]; e++)
    if (m.block_of_col[b->col_idx[e]] == m.block_of_row[row])
      entry = e;
  CHECK(entry >= 0);
  if (entry >= 0) {
    double *values = b->values;
    const double given = values[entry];
    values[entry] = 0.0;
    CHECK_STATUS(ctx, ts_lu_refactor(lu, b), TS_ERROR_NUMERICALLY_SINGULAR);
    ts_lu_stats stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK_MSG(stats.singular_column == b->col_idx[entry], "singular column %lld, the zero is in column %d",
              (long long)stats.singular_column, (int)b->col_idx[entry]);
    values[entry] = given * 1e-9;
    CHECK_OK(ctx, ts_lu_refactor(lu, b));
    CHECK_OK(ctx, ts_lu_get_stats(lu, &stats));
    CHECK(stats.perturbed_pivots == 0 && stats.singular_column < 0);
    const double tiny_berr = solve_both_ways(lu, b, "tiny lone pivot");
    CHECK_MSG(tiny_berr <= 1e-14, "tiny lone pivot: backward error %.3g", tiny_berr);
    values[entry] = given;
    CHECK_OK(ctx, ts_lu_refactor(lu, b));
    const double berr = solve_both_ways(lu, b, "lone pivot restored");
    CHECK_MSG(berr <= 1e-14, "restored: backward error %.3g", berr);
  }
  ts_csr_destroy(b);
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

/* M(i, j) of lu's analysis: A's entry scaled, 0 where A has none. */
static double m_entry(const ts_lu *lu, const ts_csr *a, int64_t i, int64_t j) {
  const int32_t r = lu->row_perm[i], c = lu->col_perm[j];
  for (int64_t e = a->row_ptr[r]; e < a->row_ptr[r + 1]; e++)
    if (a->col_idx[e] == c)
      return lu->row_scale[r] * ((const double *)a->values)[e] * lu->col_scale[c];
  return 0.0;
}

/* With the diagonal blocks factored alone: each block's L and U multiply to
 * the block of M (dense, to rounding), U's columns hold M's entries above
 * the blocks unchanged, and L has no entry outside the blocks. Returns the
 * largest |L_kk U_kk - M_kk| relative to max |M|. */
static double check_block_factors(const ts_lu *lu, const ts_csr *a) {
  double worst = 0.0, largest = 0.0;
  int64_t unchanged = 0, outside = 0;
  for (int64_t b = 0; b < lu->btf_blocks; b++) {
    const int64_t first = lu->block_ptr[b], size = lu->block_ptr[b + 1] - first;
    double *l = calloc((size_t)(size * size), sizeof *l), *u = calloc((size_t)(size * size), sizeof *u);
    for (int64_t j = first; j < first + size; j++) {
      l[(j - first) * size + (j - first)] = 1.0;
      for (int64_t p = lu->lu_col_ptr[j]; p < lu->lu_col_ptr[j + 1]; p++) {
        const int64_t i = lu->lu_row_idx[p];
        if (i < first) {
          unchanged += p >= lu->block_begin[j] || lu->lu_values[p] != m_entry(lu, a, i, j);
        } else if (i >= first + size) {
          outside++;
        } else if (i <= j) {
          u[(i - first) * size + (j - first)] = lu->lu_values[p];
        } else {
          l[(i - first) * size + (j - first)] = lu->lu_values[p];
        }
      }
    }
    for (int64_t i = 0; i < size; i++)
      for (int64_t j = 0; j < size; j++) {
        double sum = 0.0;
        for (int64_t k = 0; k < size; k++)
          sum += l[i * size + k] * u[k * size + j];
        const double m = m_entry(lu, a, first + i, first + j);
        worst = fmax(worst, fabs(sum - m));
        largest = fmax(largest, fabs(m));
      }
    free(l);
    free(u);
  }
  CHECK_MSG(unchanged == 0 && outside == 0, "%lld entries above the blocks changed, %lld of L outside them",
            (long long)unchanged, (long long)outside);
  return largest > 0.0 ? worst / largest : worst;
}

/* The host factors only the diagonal blocks: their factors, the statistics
 * against the whole matrix's factorization of the same ordering (the
 * switch), the same solutions to rounding, the extracted factors (U's
 * off-diagonal blocks formed for them) reproducing P R A C Q = L U, the
 * condition estimate, float factors. */
static void test_diagonal_blocks_alone(void) {
  if (!have_block_form) {
    printf("SKIPPED (part): the diagonal blocks alone (built without BTF)\n");
    return;
  }
  static const int sizes[] = {3, 1, 5, 2, 1, 8, 1, 4, 6, 1, 1, 7, 2};
  const int64_t blocks = (int64_t)(sizeof sizes / sizeof *sizes);
  for (int k = 0; k < 3; k++) {
    blocked_matrix m = build(sizes, blocks, 0.2 + 0.15 * k, -1, 211 + (unsigned long long)k);
    CHECK(m.a != NULL);
    if (!m.a)
      continue;
    ts_lu_options options = lu_test_options();
    ts_lu *lu = NULL, *whole = NULL;
    CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
    CHECK_OK(ctx, ts_lu_create(ctx, &options, &whole));
    whole->switches.whole_factors = 1;
    CHECK_OK(ctx, ts_lu_analyze(lu, m.a));
    CHECK_OK(ctx, ts_lu_analyze(whole, m.a));
    CHECK_OK(ctx, ts_lu_factor(lu, m.a));
    CHECK_OK(ctx, ts_lu_factor(whole, m.a));
    CHECK_MSG(lu->block_ptr && lu->btf_blocks == blocks && !whole->block_ptr, "case %d: %lld blocks, %s", k,
              (long long)lu->btf_blocks, lu->block_ptr ? "alone" : "whole");
    if (!lu->block_ptr) {
      ts_lu_destroy(lu);
      ts_lu_destroy(whole);
      release(&m);
      continue;
    }
    const double block_error = check_block_factors(lu, m.a);
    CHECK_MSG(block_error <= 1e-14, "case %d: |L_kk U_kk - M_kk| %.3g of max |M|", k, block_error);
    /* The levels see no dependency through the entries above the blocks
     * (fewer levels than the whole matrix's factors of the same ordering),
     * and two threads, as a dataflow and level by level, give the one
     * thread's bits. */
    if (whole->btf_blocks == blocks)
      CHECK_MSG(lu->levels < whole->levels, "case %d: %lld levels, the whole matrix's %lld", k, (long long)lu->levels,
                (long long)whole->levels);
    for (int level_sync = 0; level_sync < 2; level_sync++) {
      ts_lu *threaded = NULL;
      CHECK_OK(ctx, ts_lu_create(ctx, &options, &threaded));
      threaded->switches.cpu_threads = 2;
      threaded->switches.cpu_level_sync = level_sync;
      CHECK_OK(ctx, ts_lu_analyze(threaded, m.a));
      CHECK_OK(ctx, ts_lu_factor(threaded, m.a));
      CHECK_MSG(threaded->lu_nnz == lu->lu_nnz &&
                    memcmp(threaded->lu_values, lu->lu_values, (size_t)lu->lu_nnz * sizeof(double)) == 0,
                "case %d: two threads (level sync %d) differ from one", k, level_sync);
      ts_lu_destroy(threaded);
    }
    ts_lu_stats alone_stats, whole_stats;
    CHECK_OK(ctx, ts_lu_get_stats(lu, &alone_stats));
    CHECK_OK(ctx, ts_lu_get_stats(whole, &whole_stats));
    /* The whole matrix's factorization of the same ordering forms U's
     * off-diagonal blocks too: more flops and entries of U, the same L. */
    if (whole->btf_blocks == blocks) {
      CHECK(memcmp(lu->col_perm, whole->col_perm, (size_t)m.n * sizeof(int32_t)) == 0);
      CHECK_MSG(alone_stats.nnz_l == whole_stats.nnz_l && alone_stats.nnz_u <= whole_stats.nnz_u &&
                    alone_stats.flops <= whole_stats.flops,
                "case %d: L %lld / %lld, U %lld / %lld, flops %g / %g", k, (long long)alone_stats.nnz_l,
                (long long)whole_stats.nnz_l, (long long)alone_stats.nnz_u, (long long)whole_stats.nnz_u,
                alone_stats.flops, whole_stats.flops);
    }
    /* The same solutions, both ways, to rounding. */
    double *b = malloc((size_t)m.n * sizeof *b), *x = malloc((size_t)m.n * sizeof *x),
           *y = malloc((size_t)m.n * sizeof *y);
    unsigned long long state = 5 + (unsigned long long)k;
    for (int64_t i = 0; i < m.n; i++)
      b[i] = test_random(&state);
    for (int transpose = 0; transpose < 2; transpose++) {
      const ts_operation op = transpose ? TS_OP_TRANSPOSE : TS_OP_NONE;
      CHECK_OK(ctx, ts_lu_solve(lu, op, 1, b, m.n, x, m.n));
      CHECK_OK(ctx, ts_lu_solve(whole, op, 1, b, m.n, y, m.n));
      double difference = 0.0, size = 0.0;
      for (int64_t i = 0; i < m.n; i++) {
        difference = fmax(difference, fabs(x[i] - y[i]));
        size = fmax(size, fabs(y[i]));
      }
      CHECK_MSG(difference <= 1e-12 * size, "case %d op %d: the two factorizations' solutions differ by %.3g", k,
                transpose, difference);
    }
    free(b);
    free(x);
    free(y);
    const double factor_error = lu_test_check_factors(ctx, lu, m.a, 1e-13, "the diagonal blocks alone");
    CHECK_MSG(factor_error <= 1e-13, "case %d: extracted factors %.3g", k, factor_error);
    double condest_alone = 0.0, condest_whole = 0.0;
    CHECK_OK(ctx, ts_lu_condest(lu, &condest_alone));
    CHECK_OK(ctx, ts_lu_condest(whole, &condest_whole));
    CHECK_MSG(fabs(condest_alone - condest_whole) <= 1e-8 * condest_whole, "case %d: condest %.6g against %.6g", k,
              condest_alone, condest_whole);
    ts_lu_destroy(lu);
    ts_lu_destroy(whole);
    /* Float factors, refined in double. */
    options.float_factors = 1;
    CHECK_OK(ctx, ts_lu_create(ctx, &options, &lu));
    CHECK_OK(ctx, ts_lu_analyze(lu, m.a));
    CHECK_OK(ctx, ts_lu_factor(lu, m.a));
    CHECK(lu->block_ptr != NULL);
    const double berr = solve_both_ways(lu, m.a, "float factors");
    CHECK_MSG(berr <= 1e-14, "case %d float factors: backward error %.3g", k, berr);
    ts_lu_destroy(lu);
    release(&m);
  }
}

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  test_blocks_found_and_solved();
  test_triangular_without_fill();
  test_singular_block();
  test_lone_pivot_refactored();
  test_diagonal_blocks_alone();
  ts_context_destroy(ctx);
  return test_finish();
}
