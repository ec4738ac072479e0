/* The GPU analysis phases of the sparse LU against the CPU's, per matrix
 * (Xia, Jiang, Agrawal and Ramnath, PPoPP 2023, sections 3.2 and 3.3):
 *   symbolic: CPU (row merge, all threads) / GPU out of core with two chunk
 *   sizes (default budget) / GPU with one chunk size / GPU under a small
 *   budget (many chunks), its per-row queue sized from the budget (rows that
 *   outgrow it rerun) or the paper's full queue; the last in unified memory
 *   (section 4.3's baseline), paged on demand or prefetched;
 *   levelization: CPU / GPU cooperative kernel / GPU one block.
 * Each phase is timed as the caller sees it (host wall clock, uploads and
 * downloads included), median of several runs after one warm-up, on the
 * permutations of one analysis; every GPU result is checked against the CPU's.
 * Inputs: circuit-like matrices of 10^5 and 10^6 rows, a 2-D Laplacian, and
 * the corpus's square unsymmetric matrices of 2000 rows or more.
 * Usage: lu_analysis_gpu [--quick] [out.csv] */
#include "lu/levelize/levelize_internal.h"
#include "lu/symbolic/symbolic_internal.h"
#include "tsb.h"

#include <stdlib.h>
#include <string.h>

/* Budget of the out-of-core runs: small enough to force many chunks on the
 * large matrices. */
#define SMALL_BUDGET ((int64_t)1 << 30)

static void release_symbolic(ts_lu *lu) {
  free(lu->lu_col_ptr);
  free(lu->lu_row_idx);
  free(lu->diag_pos);
  free(lu->a_to_lu);
  lu->lu_col_ptr = NULL;
  lu->lu_row_idx = NULL;
  lu->diag_pos = NULL;
  lu->a_to_lu = NULL;
}

static void release_levels(ts_lu *lu) {
  free(lu->level_ptr);
  free(lu->level_cols);
  lu->level_ptr = NULL;
  lu->level_cols = NULL;
}

typedef struct phase_run {
  int gpu, one_chunk_size, variant;
  int64_t budget, queue_words; /* queue_words: lu->switches.symbolic_queue_words */
  int memory;                  /* lu->switches.symbolic_memory */
} phase_run;

typedef struct phase_result {
  double ms; /* median */
  int64_t chunks, peak_bytes, lu_nnz, levels;
  int ok;
} phase_result;

/* Time the symbolic phase (levelize 0) or the levelization (1) on lu's
 * permutations; `repeat` timed runs after a warm-up. */
static phase_result time_phase(ts_lu *lu, const ts_csr *a, int levelize, phase_run run, int repeat) {
  phase_result result = {0};
  double samples[16];
  int count = 0;
  lu->options.symbolic_memory_budget = run.budget;
  lu->switches.symbolic_one_chunk_size = run.one_chunk_size;
  lu->switches.symbolic_queue_words = run.queue_words;
  lu->switches.levelize_variant = run.variant;
  lu->switches.symbolic_memory = run.memory;
  for (int r = 0; r <= repeat && r < 16; r++) {
    ts_status st;
    lu->stats.peak_device_bytes = 0;
    double start = tsb_wall_seconds();
    if (levelize) {
      release_levels(lu);
      st = run.gpu ? tsi_lu_levelize_cuda(lu) : tsi_lu_levelize_cpu(lu);
    } else {
      release_symbolic(lu);
      st = run.gpu ? tsi_lu_symbolic_cuda(lu, a) : tsi_lu_symbolic_cpu(lu, a);
    }
    double seconds = tsb_wall_seconds() - start;
    if (st != TS_SUCCESS) {
      fprintf(stderr, "phase failed: %s\n", ts_last_error(lu->ctx));
      return result;
    }
    if (r > 0)
      samples[count++] = seconds * 1e3;
    /* One long run is enough. */
    if (seconds > 3.0 && r > 0)
      break;
  }
  result.ms = tsb_stats_of(samples, count).median;
  result.chunks = lu->stats.symbolic_chunks;
  result.peak_bytes = lu->stats.peak_device_bytes;
  result.lu_nnz = lu->lu_nnz;
  result.levels = lu->levels;
  result.ok = 1;
  return result;
}

static int same_arrays(const void *x, const void *y, size_t bytes) { return x && y && memcmp(x, y, bytes) == 0; }

static void bench_matrix(ts_context *ctx, tsb_table *table, const char *name, const ts_csr *a, int quick) {
  ts_lu_options options = {0};
  ts_lu *lu = NULL;
  if (ts_lu_create(ctx, &options, &lu) != TS_SUCCESS)
    return;
  lu->switches.symbolic_device = TSI_LU_PHASE_CPU;
  lu->switches.levelize_device = TSI_LU_PHASE_CPU;
  if (ts_lu_analyze(lu, a) != TS_SUCCESS) {
    printf("%s: %s (left out)\n", name, ts_last_error(ctx));
    ts_lu_destroy(lu);
    return;
  }
  int64_t n = a->rows;
  int repeat = quick ? 1 : n >= 500000 ? 2 : 5;
  /* The CPU's results, kept for the checks. */
  int64_t nnz = lu->lu_nnz;
  int32_t *cpu_rows = malloc((size_t)nnz * sizeof(int32_t));
  int32_t *cpu_levels = malloc((size_t)n * sizeof(int32_t));
  memcpy(cpu_rows, lu->lu_row_idx, (size_t)nnz * sizeof(int32_t));
  memcpy(cpu_levels, lu->level_cols, (size_t)n * sizeof(int32_t));
  int64_t cpu_level_count = lu->levels;

  const phase_run cpu = {0, 0, 0, 0, 0, 0}, gpu_two = {1, 0, 0, 0, 0, 0}, gpu_one = {1, 1, 0, 0, 0, 0},
                  gpu_small = {1, 0, 0, SMALL_BUDGET, 0, 0}, gpu_small_one = {1, 1, 0, SMALL_BUDGET, 0, 0},
                  gpu_small_full = {1, 0, 0, SMALL_BUDGET, TSI_LU_FULL_QUEUE, 0},
                  gpu_small_managed = {1, 0, 0, SMALL_BUDGET, TSI_LU_FULL_QUEUE, TSI_LU_SYMBOLIC_MANAGED},
                  gpu_small_prefetch = {1, 0, 0, SMALL_BUDGET, TSI_LU_FULL_QUEUE, TSI_LU_SYMBOLIC_MANAGED_PREFETCH};
  const phase_run coop = {1, 0, TSI_LU_LEVELIZE_COOPERATIVE, 0, 0, 0},
                  single = {1, 0, TSI_LU_LEVELIZE_SINGLE_BLOCK, 0, 0, 0};
  phase_result sym_cpu = time_phase(lu, a, 0, cpu, repeat);
  phase_result sym_two = time_phase(lu, a, 0, gpu_two, repeat);
  int sym_ok = sym_two.ok && lu->lu_nnz == nnz && same_arrays(lu->lu_row_idx, cpu_rows, (size_t)nnz * 4);
  phase_result sym_one = time_phase(lu, a, 0, gpu_one, repeat);
  phase_result sym_small = time_phase(lu, a, 0, gpu_small, repeat);
  sym_ok = sym_ok && sym_small.ok && lu->lu_nnz == nnz && same_arrays(lu->lu_row_idx, cpu_rows, (size_t)nnz * 4);
  phase_result sym_small_one = time_phase(lu, a, 0, gpu_small_one, repeat);
  phase_result sym_small_full = time_phase(lu, a, 0, gpu_small_full, repeat);
  sym_ok = sym_ok && sym_one.ok && sym_small_one.ok && sym_small_full.ok && lu->lu_nnz == nnz &&
           same_arrays(lu->lu_row_idx, cpu_rows, (size_t)nnz * 4);
  phase_result sym_managed = time_phase(lu, a, 0, gpu_small_managed, repeat);
  sym_ok = sym_ok && sym_managed.ok && lu->lu_nnz == nnz && same_arrays(lu->lu_row_idx, cpu_rows, (size_t)nnz * 4);
  phase_result sym_prefetch = time_phase(lu, a, 0, gpu_small_prefetch, repeat);
  sym_ok = sym_ok && sym_prefetch.ok && lu->lu_nnz == nnz && same_arrays(lu->lu_row_idx, cpu_rows, (size_t)nnz * 4);
  phase_result lev_cpu = time_phase(lu, a, 1, cpu, repeat);
  phase_result lev_coop = time_phase(lu, a, 1, coop, repeat);
  int lev_ok = lev_coop.ok && lu->levels == cpu_level_count && same_arrays(lu->level_cols, cpu_levels, (size_t)n * 4);
  phase_result lev_single = time_phase(lu, a, 1, single, repeat);
  lev_ok = lev_ok && lev_single.ok && lu->levels == cpu_level_count &&
           same_arrays(lu->level_cols, cpu_levels, (size_t)n * 4);

  /* A line per matrix as it finishes, so that a cut-short run still tells. */
  fprintf(stderr,
          "%s: symbolic CPU %.2f, GPU %.2f / %.2f / %.2f / %.2f / %.2f, managed %.2f / %.2f ms; levelize CPU %.3f, "
          "GPU %.3f / %.3f ms; %s\n",
          name, sym_cpu.ms, sym_two.ms, sym_one.ms, sym_small.ms, sym_small_one.ms, sym_small_full.ms, sym_managed.ms,
          sym_prefetch.ms, lev_cpu.ms, lev_coop.ms, lev_single.ms, sym_ok && lev_ok ? "same" : "DIFFERENT");
  tsb_table_cell(table, "%s", name);
  tsb_table_cell(table, "%lld", (long long)n);
  tsb_table_cell(table, "%lld", (long long)a->nnz);
  tsb_table_cell(table, "%lld", (long long)nnz);
  tsb_table_cell(table, "%.2f", sym_cpu.ms);
  tsb_table_cell(table, "%.2f", sym_two.ms);
  tsb_table_cell(table, "%.2f", sym_one.ms);
  tsb_table_cell(table, "%.2f (%lld)", sym_small.ms, (long long)sym_small.chunks);
  tsb_table_cell(table, "%.2f (%lld)", sym_small_one.ms, (long long)sym_small_one.chunks);
  tsb_table_cell(table, "%.2f (%lld)", sym_small_full.ms, (long long)sym_small_full.chunks);
  tsb_table_cell(table, "%.2f", sym_managed.ms);
  tsb_table_cell(table, "%.2f", sym_prefetch.ms);
  tsb_table_cell(table, "%.0f / %.0f", (double)sym_two.peak_bytes / 1048576.0,
                 (double)sym_small.peak_bytes / 1048576.0);
  tsb_table_cell(table, "%.2f", sym_two.ms > 0 ? sym_cpu.ms / sym_two.ms : 0.0);
  tsb_table_cell(table, "%lld", (long long)cpu_level_count);
  tsb_table_cell(table, "%.3f", lev_cpu.ms);
  tsb_table_cell(table, "%.3f", lev_coop.ms);
  tsb_table_cell(table, "%.3f", lev_single.ms);
  tsb_table_cell(table, "%.2f", lev_coop.ms > 0 ? lev_cpu.ms / lev_coop.ms : 0.0);
  tsb_table_cell(table, "%s", sym_ok && lev_ok ? "yes" : "NO");
  fflush(stdout);
  free(cpu_rows);
  free(cpu_levels);
  ts_lu_destroy(lu);
}

static void bench_generated(ts_context *ctx, tsb_table *table, int quick) {
  const int64_t sizes[2] = {100000, 1000000};
  for (int s = 0; s < (quick ? 1 : 2); s++) {
    ts_circuit_params params = ts_circuit_defaults(sizes[s]);
    ts_csr *a = NULL;
    if (ts_gen_circuit(NULL, &params, 1, TS_FLOAT64, &a) != TS_SUCCESS)
      continue;
    char name[64];
    snprintf(name, sizeof name, "circuit_%lld", (long long)sizes[s]);
    bench_matrix(ctx, table, name, a, quick);
    ts_csr_destroy(a);
  }
  int64_t side = quick ? 200 : 500;
  ts_csr *grid = NULL;
  if (ts_gen_laplacian_2d(NULL, side, side, TS_FLOAT64, &grid) == TS_SUCCESS) {
    char name[64];
    snprintf(name, sizeof name, "laplace2d_%lldx%lld", (long long)side, (long long)side);
    bench_matrix(ctx, table, name, grid, quick);
  }
  ts_csr_destroy(grid);
}

/* The corpus's square matrices of 2000 rows or more with an unsymmetric
 * pattern. */
static void bench_corpus(ts_context *ctx, tsb_table *table, int quick) {
  const char *dir = getenv("TESSERA_MATRICES");
  if (!dir || !*dir)
    return;
  char path[4096], line[8192];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  if (!manifest)
    return;
  while (fgets(line, sizeof line, manifest)) {
    char name[256];
    long long rows, cols, nnz;
    if (sscanf(line, "%255s %lld %lld %lld", name, &rows, &cols, &nnz) != 4 || rows != cols || rows < 2000)
      continue;
    snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
    ts_coo *coo = NULL;
    ts_csr *a = NULL;
    ts_mm_info info;
    if (ts_mm_read(NULL, path, TS_FLOAT64, &coo, &info) != TS_SUCCESS)
      continue;
    if (coo->symmetry == TS_GENERAL)
      (void)ts_csr_from_coo(NULL, coo, TS_DUPLICATES_SUM, &a);
    ts_coo_destroy(coo);
    if (!a)
      continue;
    ts_csr_stats shape;
    int64_t estimate = 0;
    if (ts_csr_stats_compute(NULL, a, &shape) == TS_SUCCESS && shape.pattern_symmetry < 0.99 &&
        ts_csr_fill_estimate(NULL, a, &estimate, NULL) == TS_SUCCESS && estimate <= 20000000)
      bench_matrix(ctx, table, name, a, quick);
    ts_csr_destroy(a);
  }
  fclose(manifest);
}

int main(int argc, char **argv) {
  int quick = 0;
  const char *csv = "lu_analysis_gpu.csv";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else {
      int rc = tsb_option_or_path(argv[0], argv[i], "[--quick] [CSV_PATH]");
      if (rc >= 0)
        return rc;
      csv = argv[i];
    }
  }
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS) {
    printf("SKIPPED: no usable CUDA device\n");
    return 0;
  }
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "timing", "host wall clock per phase (transfers included), median after one warm-up");
  tsb_metadata_set(&meta, "small budget", "%lld bytes (symbolic_memory_budget)", (long long)SMALL_BUDGET);
  const char *columns[] = {"matrix",
                           "n",
                           "nnz(A)",
                           "nnz(L+U)",
                           "symbolic CPU ms",
                           "symbolic GPU 2 sizes ms",
                           "symbolic GPU 1 size ms",
                           "GPU small budget 2 sizes ms (chunks)",
                           "GPU small budget 1 size ms (chunks)",
                           "GPU small budget full queue ms (chunks)",
                           "same, unified memory on demand ms",
                           "same, unified memory prefetched ms",
                           "peak device MiB default / small",
                           "symbolic CPU/GPU",
                           "levels",
                           "levelize CPU ms",
                           "levelize GPU cooperative ms",
                           "levelize GPU one block ms",
                           "levelize CPU/GPU coop",
                           "same as CPU"};
  tsb_table *table = tsb_table_create(20, columns);
  bench_corpus(ctx, table, quick);
  bench_generated(ctx, table, quick);
  tsb_table_write_csv(table, &meta, csv);
  tsb_table_print_markdown(table, &meta, stdout);
  tsb_table_destroy(table);
  ts_context_destroy(ctx);
  return 0;
}
