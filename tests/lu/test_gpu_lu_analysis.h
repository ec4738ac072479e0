/* Helpers of the GPU LU analysis tests: a CUDA context (or a visible skip),
 * analyses with each phase forced onto the CPU or the GPU, comparisons of
 * two analyses field by field, and the inputs (generated circuit-like
 * matrices, random patterns, the corpus's square matrices). Small sizes
 * under compute-sanitizer (TESSERA_UNDER_SANITIZER set). */
#ifndef TESSERA_TEST_GPU_LU_ANALYSIS_H
#define TESSERA_TEST_GPU_LU_ANALYSIS_H

#include "test_lu_analysis_common.h"

static inline int under_sanitizer(void) {
  const char *tool = getenv("TESSERA_UNDER_SANITIZER");
  return tool && *tool;
}

/* A CUDA context, or NULL when no GPU is usable. */
static inline ts_context *cuda_context(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &options) != TS_SUCCESS)
    return NULL;
  return ctx;
}

/* How an analysis runs: where each phase goes, and the GPU variants. */
typedef struct analysis_setup {
  int symbolic_device; /* enum tsi_lu_phase_device */
  int levelize_device;
  int64_t budget; /* symbolic_memory_budget (0: default) */
  int one_chunk_size;
  int levelize_variant; /* enum tsi_lu_levelize_variant */
  int64_t queue_words;  /* lu->switches.symbolic_queue_words (0: the tiers' own) */
  int symbolic_memory;  /* lu->switches.symbolic_memory (enum tsi_lu_symbolic_memory) */
  int64_t window_bits;  /* lu->switches.symbolic_window_bits (0: the tiers' own) */
  int64_t hash_words;   /* lu->switches.symbolic_hash_words (0: the tiers' own) */
} analysis_setup;

static inline ts_lu *analyze_on(ts_context *ctx, const ts_csr *a, ts_lu_ordering ordering, analysis_setup setup,
                                ts_status *status) {
  ts_lu_options options = {0};
  options.ordering = ordering;
  options.symbolic_memory_budget = setup.budget;
  ts_lu *lu = NULL;
  *status = ts_lu_create(ctx, &options, &lu);
  if (*status != TS_SUCCESS)
    return NULL;
  lu->switches.symbolic_device = setup.symbolic_device;
  lu->switches.levelize_device = setup.levelize_device;
  lu->switches.symbolic_one_chunk_size = setup.one_chunk_size;
  lu->switches.levelize_variant = setup.levelize_variant;
  lu->switches.symbolic_queue_words = setup.queue_words;
  lu->switches.symbolic_memory = setup.symbolic_memory;
  lu->switches.symbolic_window_bits = setup.window_bits;
  lu->switches.symbolic_hash_words = setup.hash_words;
  /* The GPU paths factor the whole matrix; a host analysis off a CUDA
   * context would take the block form's diagonal blocks alone. */
  lu->switches.whole_factors = 1;
  *status = ts_lu_analyze(lu, a);
  return lu;
}

/* The same permutations, columns of L + U, entry map and counts. */
static inline int same_symbolic(const ts_lu *x, const ts_lu *y, const ts_csr *a) {
  size_t n = (size_t)a->rows;
  return x && y && x->state == TSI_LU_ANALYZED && y->state == TSI_LU_ANALYZED && x->lu_nnz == y->lu_nnz &&
         memcmp(x->row_perm, y->row_perm, n * sizeof(int32_t)) == 0 &&
         memcmp(x->col_perm, y->col_perm, n * sizeof(int32_t)) == 0 &&
         memcmp(x->lu_col_ptr, y->lu_col_ptr, (n + 1) * sizeof(int64_t)) == 0 &&
         memcmp(x->lu_row_idx, y->lu_row_idx, (size_t)x->lu_nnz * sizeof(int32_t)) == 0 &&
         memcmp(x->diag_pos, y->diag_pos, n * sizeof(int64_t)) == 0 &&
         memcmp(x->a_to_lu, y->a_to_lu, (size_t)a->nnz * sizeof(int64_t)) == 0 && x->stats.nnz_l == y->stats.nnz_l &&
         x->stats.nnz_u == y->stats.nnz_u && x->stats.flops == y->stats.flops;
}

/* The same levels, columns in the same order within each. */
static inline int same_levels(const ts_lu *x, const ts_lu *y) {
  return x && y && x->state == TSI_LU_ANALYZED && y->state == TSI_LU_ANALYZED && x->n == y->n &&
         x->levels == y->levels && x->stats.levels == y->stats.levels &&
         x->stats.max_level_size == y->stats.max_level_size &&
         memcmp(x->level_ptr, y->level_ptr, (size_t)(x->levels + 1) * sizeof(int64_t)) == 0 &&
         memcmp(x->level_cols, y->level_cols, (size_t)x->n * sizeof(int32_t)) == 0;
}

/* A generated circuit-like matrix of order n. */
static inline ts_csr *circuit(int64_t n, uint64_t seed) {
  ts_circuit_params params = ts_circuit_defaults(n);
  ts_csr *a = NULL;
  if (ts_gen_circuit(NULL, &params, seed, TS_FLOAT64, &a) != TS_SUCCESS)
    return NULL;
  return a;
}

/* Call `visit` on each square corpus matrix (general storage) whose
 * symmetric fill estimate stays modest; returns how many, or -1 without the
 * corpus. Under the sanitizer only orders up to 3000. */
static inline int for_each_corpus_matrix(void (*visit)(const char *name, const ts_csr *a, void *user), void *user) {
  const char *dir = test_matrices_dir();
  if (!dir)
    return -1;
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  if (!manifest)
    return -1;
  char line[8192];
  int visited = 0;
  while (fgets(line, sizeof line, manifest)) {
    char name[256];
    long long rows, cols, nnz;
    if (sscanf(line, "%255s %lld %lld %lld", name, &rows, &cols, &nnz) != 4 || rows != cols)
      continue;
    if (under_sanitizer() && rows > 3000)
      continue;
    ts_csr *a = test_read_general(NULL, dir, name);
    if (!a)
      continue;
    int64_t estimate = 0;
    if (ts_csr_fill_estimate(NULL, a, &estimate, NULL) == TS_SUCCESS && estimate <= 4000000) {
      visit(name, a, user);
      visited++;
    }
    ts_csr_destroy(a);
  }
  fclose(manifest);
  return visited;
}

#endif
