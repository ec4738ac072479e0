/* GPU levelization (Kahn's sort on the device, cooperative kernel and one
 * block): the levels and their columns, in order, equal the CPU's exactly,
 * and every column sits at its longest-path depth computed naively from the
 * pattern of L + U; random patterns, circuit-like matrices, a 2-D Laplacian,
 * the corpus's square matrices. */
#include "test_gpu_lu_analysis.h"

static const analysis_setup cpu_setup = {TSI_LU_PHASE_CPU, TSI_LU_PHASE_CPU, 0, 0, 0, 0, 0, 0, 0};

static analysis_setup gpu_levelize(int variant) {
  analysis_setup setup = {TSI_LU_PHASE_CPU, TSI_LU_PHASE_GPU, 0, 0, variant, 0, 0, 0, 0};
  return setup;
}

/* Columns not on their longest-path depth (column k depends on j < k when
 * U(j, k) or L(k, j) is stored), computed column by column. */
static int64_t misplaced_columns(const ts_lu *lu) {
  int64_t n = lu->n, bad = 0;
  int64_t *depth = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
  int64_t *level = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  for (int64_t k = 0; k < n; k++)
    level[k] = -1; /* a column left out of every level stays off its depth */
  for (int64_t l = 0; l < lu->levels; l++)
    for (int64_t p = lu->level_ptr[l]; p < lu->level_ptr[l + 1]; p++)
      level[lu->level_cols[p]] = l;
  for (int64_t k = 0; k < n; k++) {
    for (int64_t p = lu->lu_col_ptr[k]; p < lu->diag_pos[k]; p++)
      if (depth[lu->lu_row_idx[p]] + 1 > depth[k])
        depth[k] = depth[lu->lu_row_idx[p]] + 1;
    /* depth[k] is final: every column it depends on comes before it. */
    for (int64_t p = lu->diag_pos[k] + 1; p < lu->lu_col_ptr[k + 1]; p++)
      if (depth[k] + 1 > depth[lu->lu_row_idx[p]])
        depth[lu->lu_row_idx[p]] = depth[k] + 1;
    bad += level[k] != depth[k];
  }
  free(depth);
  free(level);
  return bad;
}

/* CPU levels against both GPU variants on one matrix; returns 1 when the
 * analyses ran. */
static int compare_levels(ts_context *ctx, const ts_csr *a, ts_lu_ordering ordering, const char *what) {
  ts_status st;
  ts_lu *cpu = analyze_on(NULL, a, ordering, cpu_setup, &st);
  int ran = st == TS_SUCCESS;
  const int variants[2] = {TSI_LU_LEVELIZE_COOPERATIVE, TSI_LU_LEVELIZE_SINGLE_BLOCK};
  for (int v = 0; v < 2 && ran; v++) {
    ts_lu *gpu = analyze_on(ctx, a, ordering, gpu_levelize(variants[v]), &st);
    CHECK_MSG(st == TS_SUCCESS, "%s, variant %d: %s", what, variants[v], ts_last_error(ctx));
    if (st == TS_SUCCESS) {
      CHECK_MSG(same_levels(cpu, gpu), "%s, variant %d: %lld levels, CPU %lld", what, variants[v],
                (long long)gpu->levels, (long long)cpu->levels);
      CHECK_MSG(misplaced_columns(gpu) == 0, "%s, variant %d: columns off their depth", what, variants[v]);
      CHECK(gpu->stats.peak_device_bytes > 0);
    }
    ts_lu_destroy(gpu);
  }
  ts_lu_destroy(cpu);
  return ran;
}

static void test_random_patterns(ts_context *ctx) {
  unsigned long long state = 777;
  int trials = under_sanitizer() ? 12 : 80;
  for (int trial = 0; trial < trials; trial++) {
    int64_t n = 1 + (trial * 53) % 90;
    double density = trial % 3 == 0 ? 0.01 : trial % 3 == 1 ? 0.04 : 0.12;
    ts_csr *a = random_matrix(n, density, 1, &state);
    char what[64];
    snprintf(what, sizeof what, "trial %d", trial);
    CHECK_MSG(compare_levels(ctx, a, trial % 2 ? lu_test_fill_ordering() : TS_LU_ORDER_NATURAL, what), "%s", what);
    ts_csr_destroy(a);
  }
}

static void test_generated(ts_context *ctx) {
  const int64_t sizes[2] = {3000, 50000};
  for (int s = 0; s < 2; s++) {
    int64_t n = under_sanitizer() ? sizes[s] / 10 : sizes[s];
    ts_csr *a = circuit(n, 21 + (uint64_t)s);
    CHECK(a != NULL);
    char what[64];
    snprintf(what, sizeof what, "circuit %lld", (long long)n);
    if (a)
      CHECK_MSG(compare_levels(ctx, a, lu_test_fill_ordering(), what), "%s", what);
    ts_csr_destroy(a);
  }
  int64_t side = under_sanitizer() ? 20 : 120;
  ts_csr *grid = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, side, side, TS_FLOAT64, &grid));
  if (grid) {
    CHECK(compare_levels(ctx, grid, lu_test_fill_ordering(), "2-D Laplacian"));
    /* The natural order: a long chain of levels (one per anti-diagonal and more). */
    CHECK(compare_levels(ctx, grid, TS_LU_ORDER_NATURAL, "2-D Laplacian, natural order"));
  }
  ts_csr_destroy(grid);
}

typedef struct corpus_run {
  ts_context *ctx;
  int compared;
} corpus_run;

static void corpus_matrix(const char *name, const ts_csr *a, void *user) {
  corpus_run *run = user;
  run->compared += compare_levels(run->ctx, a, lu_test_fill_ordering(), name);
}

static void test_corpus(ts_context *ctx) {
  corpus_run run = {ctx, 0};
  if (for_each_corpus_matrix(corpus_matrix, &run) < 0) {
    printf("SKIPPED: corpus (TESSERA_MATRICES not set)\n");
    return;
  }
  printf("corpus: levels of %d matrices compared\n", run.compared);
  if (!lu_test_have_ordering(TS_LU_ORDER_AMD))
    printf("SKIPPED (part): corpus count: without SuiteSparse AMD most corpus matrices fill too much to compare\n");
  else
    CHECK(run.compared >= (under_sanitizer() ? 5 : 20));
}

int main(void) {
  ts_context *ctx = cuda_context();
  if (!ctx)
    return test_skip("no usable CUDA device");
  test_random_patterns(ctx);
  test_generated(ctx);
  test_corpus(ctx);
  ts_context_destroy(ctx);
  return test_finish();
}
