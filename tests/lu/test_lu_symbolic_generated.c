/* LU symbolic on generated matrices of some thousands of rows: the row
 * merge (one set of stamps, short pruned lists kept in the rows' records,
 * rows written in place) gives exactly the columns of L + U, entry map,
 * counts and levels of the fill-path traversal, its independent reference,
 * on netlist-like and grid-like circuits, a 2-D Laplacian, under the fill
 * ordering and the natural one, and on the corpus's square matrices of
 * modest fill; and the levels are the longest dependency paths, recomputed
 * here from the columns by a queue (Kahn's sort). */
#include "test_lu_analysis_common.h"

/* One thread for the reference: its chunks' barriers made it ten times
 * slower on a shared 2-core machine. */
static ts_context *single_thread;

static ts_lu *analyze_with(const ts_csr *a, ts_lu_ordering ordering, int fill_path) {
  ts_lu_options options = {0};
  options.ordering = ordering;
  ts_lu *lu = NULL;
  if (ts_lu_create(fill_path ? single_thread : NULL, &options, &lu) != TS_SUCCESS)
    return NULL;
  lu->switches.symbolic_fill_path = fill_path;
  lu->switches.whole_factors = 1; /* both algorithms find L + U of the whole matrix */
  ts_status st = ts_lu_analyze(lu, a);
  CHECK_MSG(st == TS_SUCCESS, "%s", ts_last_error(NULL));
  if (st != TS_SUCCESS) {
    ts_lu_destroy(lu);
    return NULL;
  }
  return lu;
}

static int same_arrays(const void *x, const void *y, int64_t count, size_t size) {
  return count == 0 || memcmp(x, y, (size_t)count * size) == 0;
}

/* Kahn's sort one level at a time on the dependency graph (column k
 * depends on j < k when U(j, k) or L(k, j) is stored): each level's columns
 * sorted. Returns 1 when lu's levels are the same. */
static int levels_match_kahn(const ts_lu *lu) {
  int64_t n = lu->n, placed = 0, levels = 0, begin = 0;
  int64_t *in_degree = calloc((size_t)n + 1, sizeof(int64_t));
  int32_t *order = malloc(((size_t)n + 1) * sizeof(int32_t));
  int64_t *level_ptr = malloc(((size_t)n + 2) * sizeof(int64_t));
  /* Out-edges of column j: L(:, j) below the diagonal, and the columns k
   * with U(j, k) (U's rows, by a transpose of its columns). */
  int64_t *u_count = calloc((size_t)n + 1, sizeof(int64_t));
  for (int64_t k = 0; k < n; k++) {
    in_degree[k] += lu->diag_pos[k] - lu->lu_col_ptr[k];
    for (int64_t p = lu->lu_col_ptr[k]; p < lu->diag_pos[k]; p++)
      u_count[lu->lu_row_idx[p] + 1]++;
    for (int64_t p = lu->diag_pos[k] + 1; p < lu->lu_col_ptr[k + 1]; p++)
      in_degree[lu->lu_row_idx[p]]++;
  }
  for (int64_t j = 0; j < n; j++)
    u_count[j + 1] += u_count[j];
  int32_t *u_cols = malloc(((size_t)u_count[n] + 1) * sizeof(int32_t));
  int64_t *fill = malloc(((size_t)n + 1) * sizeof(int64_t));
  memcpy(fill, u_count, (size_t)n * sizeof(int64_t));
  for (int64_t k = 0; k < n; k++)
    for (int64_t p = lu->lu_col_ptr[k]; p < lu->diag_pos[k]; p++)
      u_cols[fill[lu->lu_row_idx[p]]++] = (int32_t)k;
  for (int64_t k = 0; k < n; k++)
    if (in_degree[k] == 0)
      order[placed++] = (int32_t)k;
  level_ptr[0] = 0;
  while (begin < placed) {
    int64_t end = placed;
    level_ptr[++levels] = end;
    for (int64_t s = begin; s < end; s++) {
      int32_t j = order[s];
      for (int64_t p = lu->diag_pos[j] + 1; p < lu->lu_col_ptr[j + 1]; p++)
        if (--in_degree[lu->lu_row_idx[p]] == 0)
          order[placed++] = lu->lu_row_idx[p];
      for (int64_t p = u_count[j]; p < u_count[j + 1]; p++)
        if (--in_degree[u_cols[p]] == 0)
          order[placed++] = u_cols[p];
    }
    /* Insertion sort of the new level: levels are short here. */
    for (int64_t s = end + 1; s < placed; s++)
      for (int64_t t = s; t > end && order[t - 1] > order[t]; t--) {
        int32_t swap = order[t];
        order[t] = order[t - 1];
        order[t - 1] = swap;
      }
    begin = end;
  }
  int same = placed == n && levels == lu->levels &&
             same_arrays(level_ptr, lu->level_ptr, levels + 1, sizeof(int64_t)) &&
             same_arrays(order, lu->level_cols, n, sizeof(int32_t));
  free(in_degree);
  free(order);
  free(level_ptr);
  free(u_count);
  free(u_cols);
  free(fill);
  return same;
}

static void compare(const char *name, const ts_csr *a, ts_lu_ordering ordering) {
  ts_lu *merged = analyze_with(a, ordering, 0);
  ts_lu *reference = analyze_with(a, ordering, 1);
  CHECK_MSG(merged && reference, "%s: analysis failed", name);
  if (merged && reference) {
    int64_t n = a->rows;
    CHECK_MSG(merged->lu_nnz == reference->lu_nnz, "%s: nnz(L+U) %lld against %lld", name, (long long)merged->lu_nnz,
              (long long)reference->lu_nnz);
    CHECK_MSG(same_arrays(merged->lu_col_ptr, reference->lu_col_ptr, n + 1, sizeof(int64_t)) &&
                  merged->lu_nnz == reference->lu_nnz &&
                  same_arrays(merged->lu_row_idx, reference->lu_row_idx, merged->lu_nnz, sizeof(int32_t)) &&
                  same_arrays(merged->diag_pos, reference->diag_pos, n, sizeof(int64_t)),
              "%s: the columns of L + U differ", name);
    CHECK_MSG(same_arrays(merged->a_to_lu, reference->a_to_lu, a->nnz, sizeof(int64_t)), "%s: entry maps differ", name);
    CHECK_MSG(merged->stats.nnz_l == reference->stats.nnz_l && merged->stats.nnz_u == reference->stats.nnz_u &&
                  merged->stats.flops == reference->stats.flops,
              "%s: counts differ", name);
    CHECK_MSG(merged->levels == reference->levels &&
                  same_arrays(merged->level_cols, reference->level_cols, n, sizeof(int32_t)),
              "%s: levels differ", name);
    CHECK_MSG(levels_match_kahn(merged), "%s: levels differ from Kahn's sort", name);
  }
  ts_lu_destroy(merged);
  ts_lu_destroy(reference);
}

/* The corpus's square matrices of modest fill (structurally singular ones
 * are left out: they have no symbolic phase). */
static void compare_corpus(ts_lu_ordering ordering) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("SKIPPED: corpus (TESSERA_MATRICES not set)\n");
    return;
  }
  if (!lu_test_have_ordering(TS_LU_ORDER_AMD)) {
    printf("SKIPPED (part): corpus: the fill filter needs SuiteSparse AMD, which this build lacks\n");
    return;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  if (!manifest) {
    printf("SKIPPED: corpus (no MANIFEST.tsv)\n");
    return;
  }
  char line[8192];
  int compared = 0;
  while (fgets(line, sizeof line, manifest)) {
    char name[256];
    long long rows, cols, nnz;
    if (sscanf(line, "%255s %lld %lld %lld", name, &rows, &cols, &nnz) != 4 || rows != cols || rows > 5000)
      continue;
    ts_csr *a = test_read_general(NULL, dir, name);
    int64_t estimate = 0;
    if (!a || ts_csr_fill_estimate(NULL, a, &estimate, NULL) != TS_SUCCESS || estimate > 300000) {
      ts_csr_destroy(a);
      continue;
    }
    ts_lu_options options = {0};
    options.ordering = ordering;
    ts_lu *probe = NULL;
    ts_lu_create(NULL, &options, &probe);
    if (probe && ts_lu_analyze(probe, a) == TS_SUCCESS) {
      compare(name, a, ordering);
      compared++;
    }
    ts_lu_destroy(probe);
    ts_csr_destroy(a);
  }
  fclose(manifest);
  printf("corpus: %d matrices compared\n", compared);
  CHECK(compared >= 10);
}

int main(void) {
  ts_context_options context_options = {0};
  context_options.backend = TS_BACKEND_CPU;
  context_options.num_threads = 1;
  CHECK_OK(NULL, ts_context_create(&single_thread, &context_options));
  const ts_lu_ordering fill = lu_test_fill_ordering();
  for (int locality = 0; locality <= 1; locality++) {
    ts_circuit_params params = ts_circuit_defaults(6000);
    params.locality = locality;
    ts_csr *a = NULL;
    CHECK_OK(NULL, ts_gen_circuit(NULL, &params, 11, TS_FLOAT64, &a));
    compare(locality ? "circuit, locality 1" : "circuit, locality 0", a, fill);
    compare(locality ? "circuit, locality 1, natural" : "circuit, locality 0, natural", a, TS_LU_ORDER_NATURAL);
    ts_csr_destroy(a);
  }
  ts_csr *laplacian = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 70, 70, TS_FLOAT64, &laplacian));
  compare("laplacian 70 x 70", laplacian, fill);
  ts_csr_destroy(laplacian);
  compare_corpus(fill);
  ts_context_destroy(single_thread);
  return test_finish();
}
