/* LU symbolic factorization: the pattern of L + U against a dense boolean
 * elimination of M (random patterns, natural, AMD and COLAMD orderings) for
 * both algorithms (the row merge with symmetric pruning, and the fill-path
 * traversal kept as the reference), the entry map and counts, budgets that
 * force many chunks giving the same pattern, one and two threads, and the
 * corpus's square matrices (singular ones reported). */
#include "test_lu_analysis_common.h"

/* Analyze with the row merge (fill_path 0) or the fill-path traversal,
 * with the whole matrix's factors or (whole 0, the row merge's default) the
 * diagonal blocks alone where the ordering finds several. */
static ts_lu *analyze_whole(ts_context *ctx, const ts_csr *a, ts_lu_ordering ordering, int64_t budget, int fill_path,
                            int whole, ts_status *status) {
  ts_lu_options options = {0};
  options.ordering = ordering;
  options.symbolic_memory_budget = budget;
  ts_lu *lu = NULL;
  *status = ts_lu_create(ctx, &options, &lu);
  if (*status != TS_SUCCESS)
    return NULL;
  lu->switches.symbolic_fill_path = fill_path;
  lu->switches.whole_factors = whole;
  *status = ts_lu_analyze(lu, a);
  return lu;
}

static ts_lu *analyze_with(ts_context *ctx, const ts_csr *a, ts_lu_ordering ordering, int64_t budget, int fill_path,
                           ts_status *status) {
  return analyze_whole(ctx, a, ordering, budget, fill_path, 0, status);
}

static ts_lu *analyze(const ts_csr *a, ts_lu_ordering ordering, int64_t budget, ts_status *status) {
  return analyze_with(NULL, a, ordering, budget, 0, status);
}

/* Two analyses with the same columns of L + U, entry map and counts. */
static int same_analysis(const ts_lu *x, const ts_lu *y, const ts_csr *a) {
  return x && y && x->lu_nnz == y->lu_nnz &&
         memcmp(x->lu_col_ptr, y->lu_col_ptr, (size_t)(a->rows + 1) * sizeof(int64_t)) == 0 &&
         memcmp(x->lu_row_idx, y->lu_row_idx, (size_t)x->lu_nnz * sizeof(int32_t)) == 0 &&
         memcmp(x->diag_pos, y->diag_pos, (size_t)a->rows * sizeof(int64_t)) == 0 &&
         memcmp(x->a_to_lu, y->a_to_lu, (size_t)a->nnz * sizeof(int64_t)) == 0 && x->stats.nnz_l == y->stats.nnz_l &&
         x->stats.nnz_u == y->stats.nnz_u && x->stats.flops == y->stats.flops && x->levels == y->levels;
}

/* Every entry of A maps to M's entry in L + U; counts and flops follow the
 * pattern (in block form, U's entries beyond the row's block are updated by
 * nothing). Returns the number of problems. */
static int64_t check_maps_and_counts(const ts_lu *lu, const ts_csr *a) {
  int64_t n = a->rows, bad = 0;
  int64_t *col_inverse = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  int64_t *row_inverse = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  for (int64_t k = 0; k < n; k++) {
    col_inverse[lu->col_perm[k]] = k;
    row_inverse[lu->row_perm[k]] = k;
  }
  for (int64_t r = 0; r < n; r++)
    for (int64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++) {
      int64_t p = lu->a_to_lu[k], j = col_inverse[a->col_idx[k]];
      if (p < lu->lu_col_ptr[j] || p >= lu->lu_col_ptr[j + 1] || lu->lu_row_idx[p] != row_inverse[r])
        bad++;
    }
  int64_t strict_lower = 0, *u_row = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
  int64_t *block_start = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t)); /* 0: one block */
  for (int64_t b = 0; lu->block_ptr && b < lu->btf_blocks; b++)
    for (int64_t j = lu->block_ptr[b]; j < lu->block_ptr[b + 1]; j++)
      block_start[j] = lu->block_ptr[b];
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = lu->lu_col_ptr[j]; p < lu->lu_col_ptr[j + 1]; p++) {
      if (lu->lu_row_idx[p] > j)
        strict_lower++;
      else if (lu->lu_row_idx[p] < j && (!lu->block_ptr || lu->lu_row_idx[p] >= block_start[j]))
        u_row[lu->lu_row_idx[p]]++;
    }
  free(block_start);
  double flops = 0.0;
  for (int64_t j = 0; j < n; j++) {
    double below = (double)(lu->lu_col_ptr[j + 1] - lu->diag_pos[j] - 1);
    flops += below + 2.0 * below * (double)u_row[j];
  }
  bad += lu->stats.nnz_l != strict_lower + n;
  bad += lu->stats.nnz_u != lu->lu_nnz - strict_lower;
  bad += lu->stats.flops != flops;
  free(u_row);
  free(col_inverse);
  free(row_inverse);
  return bad;
}

static void test_against_dense(void) {
  unsigned long long state = 2024;
  const ts_lu_ordering orderings[4] = {TS_LU_ORDER_NATURAL, TS_LU_ORDER_AMD, TS_LU_ORDER_COLAMD,
                                       TS_LU_ORDER_NESTED_DISSECTION};
  int have[4];
  for (int o = 0; o < 4; o++)
    have[o] = !lu_test_skip_without(orderings[o], "symbolic against dense elimination");
  int blocked = 0;
  for (int trial = 0; trial < 120; trial++) {
    int64_t n = 1 + (trial * 37) % 80;
    double density = trial % 3 == 0 ? 0.02 : trial % 3 == 1 ? 0.06 : 0.15;
    ts_csr *a = random_matrix(n, density, 1, &state);
    if (!have[trial % 4]) {
      ts_csr_destroy(a); /* still drawn: the later trials keep their matrices */
      continue;
    }
    ts_status st;
    ts_lu *lu = analyze(a, orderings[trial % 4], 0, &st);
    ts_lu *whole = analyze_whole(NULL, a, orderings[trial % 4], 0, 0, 1, &st);
    CHECK_MSG(st == TS_SUCCESS && lu, "trial %d: %s", trial, ts_last_error(NULL));
    if (st == TS_SUCCESS && lu) {
      blocked += lu->block_ptr != NULL;
      CHECK(whole->block_ptr == NULL);
      /* The default (the diagonal blocks alone where there are several) and
       * the whole matrix's factors, each against its dense elimination. */
      unsigned char *dense = matched_dense_pattern(lu, a);
      unsigned char *dense_whole = matched_dense_pattern(whole, a);
      dense_symbolic_of(lu, dense);
      dense_symbolic(dense_whole, n);
      int64_t differences = compare_pattern(lu, dense);
      CHECK_MSG(differences == 0, "trial %d (n %lld, ordering %d, %lld blocks alone): %lld differences", trial,
                (long long)n, (int)orderings[trial % 4], (long long)(lu->block_ptr ? lu->btf_blocks : 0),
                (long long)differences);
      CHECK_MSG(check_maps_and_counts(lu, a) == 0, "trial %d: entry map or counts", trial);
      CHECK_MSG(compare_pattern(whole, dense_whole) == 0, "trial %d: the whole matrix's factors", trial);
      CHECK_MSG(check_maps_and_counts(whole, a) == 0, "trial %d: the whole matrix's entry map or counts", trial);
      /* With the same block form, the whole matrix's factors add U's
       * off-diagonal blocks' fill and updates. */
      if (whole->btf_blocks > 1)
        CHECK(whole->stats.flops >= lu->stats.flops && whole->lu_nnz >= lu->lu_nnz);

      /* A one-byte budget: one row per chunk, the same pattern; and the
       * fill-path traversal (the whole matrix's factors), with both budgets. */
      for (int fill_path = 0; fill_path < 2; fill_path++) {
        ts_lu *tiny = analyze_with(NULL, a, orderings[trial % 4], 1, fill_path, &st);
        CHECK(st == TS_SUCCESS);
        if (st == TS_SUCCESS) {
          CHECK(tiny->stats.symbolic_chunks == n);
          CHECK_MSG(compare_pattern(tiny, fill_path ? dense_whole : dense) == 0,
                    "trial %d, fill path %d, one row per chunk", trial, fill_path);
        }
        ts_lu_destroy(tiny);
      }
      ts_lu *reference = analyze_with(NULL, a, orderings[trial % 4], 0, 1, &st);
      CHECK(st == TS_SUCCESS && same_analysis(whole, reference, a));
      ts_lu_destroy(reference);
      free(dense);
      free(dense_whole);
    }
    ts_lu_destroy(lu);
    ts_lu_destroy(whole);
    ts_csr_destroy(a);
  }
  /* Random patterns of these densities fall apart into blocks often. */
  if (have[1])
    CHECK_MSG(blocked > 0, "no trial factored its diagonal blocks alone");
}

/* Budgets forcing many chunks give exactly the pattern of large chunks, on
 * one thread and two, for both algorithms. */
static void test_chunks(void) {
  ts_circuit_params params = ts_circuit_defaults(3000);
  params.locality = 1.0;
  ts_csr *a = NULL;
  CHECK_OK(NULL, ts_gen_circuit(NULL, &params, 5, TS_FLOAT64, &a));
  ts_status st;
  const ts_lu_ordering ordering = lu_test_fill_ordering();
  /* One chunk per part: a budget above the whole working set. */
  ts_lu *whole = analyze(a, ordering, (int64_t)3000 * 3000 * 12 + 1000, &st);
  CHECK_OK(NULL, st);
  CHECK_MSG(whole->stats.symbolic_chunks == 2, "chunks %lld", (long long)whole->stats.symbolic_chunks);
  /* Room for 20 rows of the second half at once: slots of 2n + n/2 words
   * (10n bytes) in the first half, 3n words (12n bytes) in the second, so
   * 1500 rows in chunks of 24, then 1500 in chunks of 20. */
  ts_lu *chunked = analyze(a, ordering, (int64_t)20 * 3000 * 12, &st);
  CHECK_OK(NULL, st);
  CHECK_MSG(chunked->stats.symbolic_chunks == 63 + 75, "chunks %lld", (long long)chunked->stats.symbolic_chunks);
  CHECK(same_analysis(whole, chunked, a));
  CHECK(check_maps_and_counts(chunked, a) == 0);
  /* The fill-path traversal: one chunk per part under the large budget
   * (slots of 8n and 12n bytes: 1500 rows of each fit), and the same result. */
  ts_lu *reference = analyze_with(NULL, a, ordering, (int64_t)3000 * 3000 * 12 + 1000, 1, &st);
  CHECK_OK(NULL, st);
  CHECK(reference && reference->stats.symbolic_chunks == 2);
  CHECK(same_analysis(whole, reference, a));
  ts_lu_destroy(reference);
  /* The default budget, sized from the thread count: other chunks, the
   * same result. */
  for (int threads = 1; threads <= 2; threads++) {
    ts_context_options copts = {0};
    copts.backend = TS_BACKEND_CPU;
    copts.num_threads = threads;
    ts_context *ctx = NULL;
    CHECK_OK(NULL, ts_context_create(&ctx, &copts));
    ts_lu *threaded = analyze_with(ctx, a, ordering, 0, 0, &st);
    CHECK_OK(ctx, st);
    CHECK_MSG(same_analysis(whole, threaded, a), "%d threads", threads);
    ts_lu_destroy(threaded);
    ts_context_destroy(ctx);
  }
  /* AMD keeps fill well below the natural order's on a mesh-like circuit. */
  ts_lu *natural = analyze(a, TS_LU_ORDER_NATURAL, 0, &st);
  CHECK_OK(NULL, st);
  if (ordering == TS_LU_ORDER_AMD)
    CHECK_MSG(2 * whole->lu_nnz < natural->lu_nnz, "AMD %lld, natural %lld", (long long)whole->lu_nnz,
              (long long)natural->lu_nnz);
  ts_lu_destroy(whole);
  ts_lu_destroy(chunked);
  ts_lu_destroy(natural);
  ts_csr_destroy(a);
}

/* Known pattern: an arrowhead with the dense row and column first fills
 * completely under the natural order, and not at all when they come last. */
static void test_arrow(void) {
  int64_t n = 6;
  double dense[36] = {0};
  for (int64_t i = 0; i < n; i++) {
    dense[i * n + i] = 10.0;
    dense[0 * n + i] = dense[i * n + 0] = 1.0;
  }
  dense[0] = 10.0;
  ts_csr *a = csr_from_dense(n, dense, NULL);
  ts_lu_options options = {0};
  options.ordering = TS_LU_ORDER_NATURAL;
  options.no_matching = 1;
  ts_lu *lu = NULL;
  ts_lu_create(NULL, &options, &lu);
  CHECK_OK(NULL, ts_lu_analyze(lu, a));
  CHECK(lu->lu_nnz == n * n);
  CHECK(lu->stats.nnz_l == n * (n + 1) / 2 && lu->stats.nnz_u == n * (n + 1) / 2);
  ts_lu_destroy(lu);
  if (!lu_test_skip_without(TS_LU_ORDER_AMD, "the arrowhead under AMD")) {
    options.ordering = TS_LU_ORDER_AMD;
    ts_lu_create(NULL, &options, &lu);
    CHECK_OK(NULL, ts_lu_analyze(lu, a));
    CHECK(lu->lu_nnz == a->nnz);
    CHECK(lu->col_perm[n - 1] == 0);
    ts_lu_destroy(lu);
  }
  ts_csr_destroy(a);
}

static void test_corpus(void) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("SKIPPED: corpus (TESSERA_MATRICES not set)\n");
    return;
  }
  /* The fill limit and the comparison with the estimate assume AMD. */
  if (lu_test_skip_without(TS_LU_ORDER_AMD, "corpus"))
    return;
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  char line[8192];
  int analysed = 0, singular = 0, skipped = 0, two_seen = 0, hyper_seen = 0;
  while (fgets(line, sizeof line, manifest)) {
    char name[256];
    long long rows, cols, nnz;
    if (sscanf(line, "%255s %lld %lld %lld", name, &rows, &cols, &nnz) != 4 || rows != cols)
      continue;
    snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
    ts_csr *a = NULL;
    if (ts_mm_read_csr(NULL, path, TS_FLOAT64, &a, NULL) != TS_SUCCESS)
      continue;
    /* Keep the test quick: matrices whose symmetric fill estimate is large
     * (dense social graphs) are left out. */
    int64_t estimate = 0;
    ts_status st = ts_csr_fill_estimate(NULL, a, &estimate, NULL);
    if (st != TS_SUCCESS || estimate > 4000000) {
      skipped++;
      ts_csr_destroy(a);
      continue;
    }
    ts_lu *lu = analyze(a, TS_LU_ORDER_AMD, 0, &st);
    if (st == TS_ERROR_STRUCTURALLY_SINGULAR) {
      singular++;
      CHECK(lu->stats.structural_rank < a->rows);
      CHECK(strstr(ts_last_error(NULL), "structurally singular: structural rank") != NULL);
    } else {
      CHECK_MSG(st == TS_SUCCESS, "%s: %s", name, ts_last_error(NULL));
      if (st == TS_SUCCESS) {
        analysed++;
        CHECK_MSG(check_maps_and_counts(lu, a) == 0, "%s: entry map or counts", name);
        /* Same order of magnitude as the Cholesky estimate of A + A^T where
         * the pattern is nearly symmetric; far below it is fine otherwise
         * (the matching can make an unsymmetric matrix nearly triangular). */
        ts_csr_stats shape;
        ts_csr_stats_compute(NULL, a, &shape);
        double ratio = (double)lu->lu_nnz / (double)estimate;
        CHECK_MSG(ratio < 10.0 && (shape.pattern_symmetry < 0.9 || ratio > 0.1),
                  "%s: nnz(L+U) %lld against the estimate %lld", name, (long long)lu->lu_nnz, (long long)estimate);
        if (getenv("TESSERA_TEST_VERBOSE"))
          printf("%-20s n %8lld nnz %8lld L+U %9lld estimate %9lld symmetry %.2f %.3f s\n", name, (long long)a->rows,
                 (long long)a->nnz, (long long)lu->lu_nnz, (long long)estimate, shape.pattern_symmetry,
                 lu->stats.time_matching + lu->stats.time_ordering + lu->stats.time_symbolic + lu->stats.time_levelize);
      }
    }
    if (strcmp(name, "klu_two_2x2") == 0) {
      two_seen = 1;
      CHECK(st == TS_ERROR_STRUCTURALLY_SINGULAR && lu->stats.structural_rank == 1);
    }
    if (strcmp(name, "LFAT5_hypersparse") == 0) {
      hyper_seen = 1;
      CHECK(st == TS_ERROR_STRUCTURALLY_SINGULAR && lu->stats.structural_rank == 14);
    }
    ts_lu_destroy(lu);
    ts_csr_destroy(a);
  }
  fclose(manifest);
  printf("corpus: %d analysed, %d structurally singular, %d left out (large fill)\n", analysed, singular, skipped);
  CHECK(analysed >= 20);
  CHECK(two_seen && hyper_seen);
}

int main(void) {
  test_against_dense();
  test_chunks();
  test_arrow();
  test_corpus();
  return test_finish();
}
