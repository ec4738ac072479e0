/* Sparse LU numeric phases, GPU against CPU on the same analysis: factor
 * (the first one uploads the pattern), refactor, solve (with refinement),
 * in double and float factors, plus the GPU's ablations: dense against
 * sparse scratch, the tail as a dense block against column by column in
 * the sparse pattern, the right-looking tail against left-looking only, and
 * the left-looking levels as dataflow launches against one launch a level.
 * The GPU runs the column path (the method switch: the ablations are the
 * columns'); the GPU's fronts are timed by bench/lu_fronts --gpu.
 * Anchors: tessera's CPU path (all threads) in the same process, and GLU
 * 3.0's published-on-this-GPU numeric time (0.33 s, float, 99,856-row
 * circuit grid, L+U 14.5 M; see the results file).
 *
 * Usage: lu_numeric_gpu [--quick] [--no-cpu] [--no-no-tail] [--no-ablations] [--scratch-slots N] [--tail-search]
 *                       [--flow-lookup map|search] [--only TEXT] [CSV_PATH]
 * (corpus from TESSERA_MATRICES)
 * Each LU call returns after its stream work has finished, so phases are
 * timed on the wall clock: the median of 5 runs after one warm-up (one run
 * when a run takes over 2 s). */
#include "tessera.h"
#include "tsb.h"

#include "lu/lu_internal.h"
#include "lu/numeric/numeric_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILL_LIMIT 40000000

typedef enum { PHASE_REFACTOR, PHASE_SOLVE } phase;

static const ts_csr *bench_a;
/* Command line: only matrices whose name holds this text; no CPU runs; no
 * all-left-looking ablation (seconds on the circuit grid). */
static const char *only_text;
static bool skip_no_tail, skip_ablations;
/* --scratch-slots: the dense scratch's slots instead of the library's rule (0: the rule). */
static long long scratch_slots;
/* --tail-search: the sparse tail finds U(j, k) by binary search, not by the dense slot's map. */
static bool tail_search;
/* --flow-lookup: the dataflow levels' positions by the slots' maps or by search (0: the library's rule). */
static int flow_lookup;
static bool skip_cpu;
static bool wanted(const char *name) { return !only_text || strstr(name, only_text) != NULL; }
static double *bench_b, *bench_x;

static int run_phase(ts_lu *lu, phase p) {
  if (p == PHASE_REFACTOR)
    return TS_IS_ERROR(ts_lu_refactor(lu, bench_a)) ? -1 : 0;
  int64_t n = bench_a->rows;
  return ts_lu_solve(lu, TS_OP_NONE, 1, bench_b, n, bench_x, n) == TS_SUCCESS ? 0 : -1;
}

/* Median milliseconds of a phase (warm-up first). */
static double time_ms(ts_lu *lu, phase p) {
  double samples[5];
  double start = tsb_wall_seconds();
  if (run_phase(lu, p) != 0)
    return NAN;
  double first = tsb_wall_seconds() - start;
  int count = first > 2.0 ? 1 : 5;
  if (count == 1)
    return 1e3 * first;
  for (int r = 0; r < count; r++) {
    start = tsb_wall_seconds();
    run_phase(lu, p);
    samples[r] = tsb_wall_seconds() - start;
  }
  return 1e3 * tsb_stats_of(samples, count).median;
}

static ts_lu *analyzed(ts_context *ctx, const ts_csr *a, ts_backend backend, int float_factors) {
  ts_lu_options options = {0};
  options.backend = backend;
  options.float_factors = float_factors;
  ts_lu *lu = NULL;
  if (ts_lu_create(ctx, &options, &lu) == TS_SUCCESS)
    lu->switches.numeric_method = TSI_LU_METHOD_COLUMNS;
  if (!lu || ts_lu_analyze(lu, a) != TS_SUCCESS) {
    fprintf(stderr, "lu_numeric_gpu: %s\n", ts_last_error(ctx));
    ts_lu_destroy(lu);
    return NULL;
  }
  return lu;
}

/* GPU refactor time with the device cache rebuilt under other switches. */
static double ablation_ms(ts_lu *lu, int scratch, int no_tail, int dense_tail) {
  tsi_lu_cuda_release(lu);
  lu->switches.gpu_tail_columns = 0;
  lu->switches.gpu_scratch = scratch;
  lu->switches.gpu_no_tail = no_tail;
  lu->switches.gpu_dense_tail = dense_tail;
  if (TS_IS_ERROR(ts_lu_factor(lu, bench_a)))
    return NAN;
  return time_ms(lu, PHASE_REFACTOR);
}

static void bench_matrix(ts_context *ctx, tsb_table *table, const char *name, const ts_csr *a, bool ablate) {
  if (!a)
    return;
  int64_t fill = 0;
  if (ts_csr_fill_estimate(ctx, a, &fill, NULL) != TS_SUCCESS || fill > FILL_LIMIT)
    return;
  const int64_t n = a->rows;
  bench_a = a;
  bench_b = malloc((size_t)n * sizeof *bench_b);
  bench_x = malloc((size_t)n * sizeof *bench_x);
  double *ones = malloc((size_t)n * sizeof *ones);
  for (int64_t i = 0; i < n; i++)
    ones[i] = 1.0;
  ts_csr_spmv_host(ctx, 1.0, a, ones, 0.0, bench_b);
  for (int float_factors = 0; float_factors < 2; float_factors++) {
    ts_lu *cpu = skip_cpu ? NULL : analyzed(ctx, a, TS_BACKEND_CPU, float_factors);
    ts_lu *gpu = analyzed(ctx, a, TS_BACKEND_CUDA, float_factors);
    if (gpu) {
      gpu->switches.gpu_scratch_slots = scratch_slots;
      gpu->switches.gpu_flow_lookup = flow_lookup;
      gpu->switches.gpu_tail_search = tail_search;
    }
    if ((!cpu && !skip_cpu) || !gpu) {
      ts_lu_destroy(cpu);
      ts_lu_destroy(gpu);
      continue;
    }
    double start = tsb_wall_seconds();
    ts_status cs = cpu ? ts_lu_factor(cpu, a) : TS_SUCCESS;
    double cpu_factor = cpu ? 1e3 * (tsb_wall_seconds() - start) : NAN;
    start = tsb_wall_seconds();
    ts_status gs = ts_lu_factor(gpu, a);
    double gpu_first = 1e3 * (tsb_wall_seconds() - start);
    if (TS_IS_ERROR(cs) || TS_IS_ERROR(gs)) {
      fprintf(stderr, "lu_numeric_gpu: %s: %s\n", name, ts_last_error(ctx));
      ts_lu_destroy(cpu);
      ts_lu_destroy(gpu);
      continue;
    }
    double cpu_refactor = cpu ? time_ms(cpu, PHASE_REFACTOR) : NAN, gpu_refactor = time_ms(gpu, PHASE_REFACTOR);
    /* The left-looking levels one launch per level (the dataflow launches'
     * ablation; the switch is read at every factorization). */
    gpu->switches.gpu_level_sync = 1;
    double level_sync = time_ms(gpu, PHASE_REFACTOR);
    gpu->switches.gpu_level_sync = 0;
    double cpu_solve = cpu ? time_ms(cpu, PHASE_SOLVE) : NAN;
    double cpu_berr = cpu ? tsb_backward_error(a, bench_x, bench_b) : NAN;
    double gpu_solve = time_ms(gpu, PHASE_SOLVE);
    double gpu_berr = tsb_backward_error(a, bench_x, bench_b);
    ts_lu_stats stats;
    ts_lu_get_stats(gpu, &stats);
    tsi_lu_device *dev = (tsi_lu_device *)gpu->numeric_device;
    int64_t tail = dev ? n - dev->tail_start : 0;
    const char *mode = dev && dev->scratch_mode == TSI_LU_SCRATCH_DENSE ? "dense" : "sparse";
    const char *tail_mode = dev && dev->tail_dense ? "dense" : "sparse";
    char slots_text[32] = "";
    if (dev && dev->scratch_mode == TSI_LU_SCRATCH_DENSE)
      snprintf(slots_text, sizeof slots_text, " (%lld slots)", (long long)dev->scratch_slots);
    double dense = NAN, sparse = NAN, sparse_tail = NAN, no_tail = NAN;
    if (ablate && !skip_ablations) {
      dense = ablation_ms(gpu, TSI_LU_SCRATCH_DENSE, 0, 0);
      sparse = ablation_ms(gpu, TSI_LU_SCRATCH_SPARSE, 0, 0);
      sparse_tail = tail > 0 ? ablation_ms(gpu, TSI_LU_SCRATCH_AUTO, 0, TSI_LU_DENSE_TAIL_OFF) : gpu_refactor;
      if (!skip_no_tail)
        no_tail = tail > 0 ? ablation_ms(gpu, TSI_LU_SCRATCH_AUTO, 1, 0) : gpu_refactor;
      /* The dense tail's width against the estimate's choice (stdout). */
      static const int64_t widths[] = {1024, 2048, 4096, 6144, 8192, 12288, 16384};
      for (size_t w = 0; !float_factors && w < sizeof widths / sizeof widths[0] && widths[w] < n; w++) {
        tsi_lu_cuda_release(gpu);
        gpu->switches.gpu_scratch = 0;
        gpu->switches.gpu_no_tail = 0;
        gpu->switches.gpu_dense_tail = 0;
        gpu->switches.gpu_tail_columns = widths[w];
        double ms = TS_IS_ERROR(ts_lu_factor(gpu, a)) ? NAN : time_ms(gpu, PHASE_REFACTOR);
        printf("%s: dense tail of %lld columns: refactor %.2f ms (chosen: %lld columns, %.2f ms)\n", name,
               (long long)widths[w], ms, (long long)tail, gpu_refactor);
      }
      gpu->switches.gpu_tail_columns = 0;
    }
    printf("%s, %s factors: GPU first factor %.2f ms, refactor %.2f ms (level by level %.2f), solve %.2f ms, "
           "backward error %.1e; CPU factor %.2f ms, refactor %.2f ms\n",
           name, float_factors ? "float" : "double", gpu_first, gpu_refactor, level_sync, gpu_solve, gpu_berr,
           cpu_factor, cpu_refactor);
    fflush(stdout);
    tsb_table_cell(table, "%s", name);
    tsb_table_cell(table, "%lld", (long long)n);
    tsb_table_cell(table, "%lld", (long long)(stats.nnz_l + stats.nnz_u - n));
    tsb_table_cell(table, "%lld", (long long)stats.levels);
    tsb_table_cell(table, "%lld", (long long)tail);
    tsb_table_cell(table, "%s", float_factors ? "float" : "double");
    tsb_table_cell(table, "%.2f", cpu_factor);
    tsb_table_cell(table, "%.2f", cpu_refactor);
    tsb_table_cell(table, "%.2f", gpu_first);
    tsb_table_cell(table, "%.2f", gpu_refactor);
    tsb_table_cell(table, "%.2f", level_sync);
    tsb_table_cell(table, "%.1fx", cpu_refactor / gpu_refactor);
    tsb_table_cell(table, "%.2f", cpu_solve);
    tsb_table_cell(table, "%.2f", gpu_solve);
    tsb_table_cell(table, "%.1e / %.1e", cpu_berr, gpu_berr);
    tsb_table_cell(table, "%s%s / %s", mode, slots_text, tail_mode);
    tsb_table_cell(table, "%.2f", dense);
    tsb_table_cell(table, "%.2f", sparse);
    tsb_table_cell(table, "%.2f", sparse_tail);
    tsb_table_cell(table, "%.2f", no_tail);
    tsb_table_cell(table, "%.0f", stats.peak_device_bytes / 1048576.0);
    fflush(stdout);
    ts_lu_destroy(cpu);
    ts_lu_destroy(gpu);
  }
  free(ones);
  free(bench_b);
  free(bench_x);
}

int main(int argc, char **argv) {
  bool quick = false;
  const char *csv = "bench-out/lu_numeric_gpu.csv";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (strcmp(argv[i], "--no-cpu") == 0)
      skip_cpu = true;
    else if (strcmp(argv[i], "--no-no-tail") == 0)
      skip_no_tail = true;
    else if (strcmp(argv[i], "--no-ablations") == 0)
      skip_ablations = true;
    else if (strcmp(argv[i], "--scratch-slots") == 0 && i + 1 < argc) {
      scratch_slots = atoll(argv[++i]);
      if (scratch_slots < 8 || scratch_slots > 65536) {
        fprintf(stderr, "lu_numeric_gpu: --scratch-slots takes 8 to 65536, not %s\n", argv[i]);
        return 2;
      }
    } else if (strcmp(argv[i], "--flow-lookup") == 0 && i + 1 < argc) {
      i++;
      if (strcmp(argv[i], "map") == 0)
        flow_lookup = TSI_LU_FLOW_LOOKUP_MAP;
      else if (strcmp(argv[i], "search") == 0)
        flow_lookup = TSI_LU_FLOW_LOOKUP_SEARCH;
      else {
        fprintf(stderr, "lu_numeric_gpu: --flow-lookup takes map or search, not %s\n", argv[i]);
        return 2;
      }
    } else if (strcmp(argv[i], "--tail-search") == 0)
      tail_search = true;
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only_text = argv[++i];
    else if (strcmp(argv[i], "--help") == 0 || argv[i][0] == '-') {
      fprintf(stderr,
              "usage: %s [--quick] [--no-cpu] [--no-no-tail] [--no-ablations] [--scratch-slots N] [--tail-search] "
              "[--flow-lookup map|search] [--only TEXT] [CSV_PATH]\n"
              "  --no-cpu     GPU phases only (the CPU columns stay empty)\n"
              "  --no-no-tail skip the ablation with every column left-looking\n"
              "  --no-ablations  no ablations and no tail-width sweep (the default configuration only)\n"
              "  --scratch-slots N  N dense scratch slots (8-65536) instead of the library's rule\n"
              "  --tail-search  the sparse tail's gather by binary search, not the dense slot's position map\n"
              "  --flow-lookup map|search  the dataflow levels find a row's position by the slot's map or by\n"
              "               binary search in shared memory (default: the library's rule)\n"
              "  --only TEXT  only the matrices whose name holds TEXT\n",
              argv[0]);
      return strcmp(argv[i], "--help") == 0 ? 0 : 2;
    } else
      csv = argv[i];
  }
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS) {
    fprintf(stderr, "lu_numeric_gpu: %s\n", ts_last_error(NULL));
    return 77;
  }
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "comparison", "tessera GPU / tessera CPU (all threads), same analysis; wall-clock medians");
  static const char *const columns[] = {"matrix",
                                        "n",
                                        "nnz(L+U)",
                                        "levels",
                                        "tail columns",
                                        "factors",
                                        "CPU factor ms",
                                        "CPU refactor ms",
                                        "GPU first factor ms",
                                        "GPU refactor ms",
                                        "GPU refactor level by level ms",
                                        "refactor CPU/GPU",
                                        "CPU solve ms",
                                        "GPU solve ms",
                                        "berr CPU / GPU",
                                        "scratch (slots) / tail",
                                        "dense-scratch refactor ms",
                                        "sparse-scratch refactor ms",
                                        "sparse-tail refactor ms",
                                        "no-tail refactor ms",
                                        "peak device MiB"};
  tsb_table *table = tsb_table_create(21, columns);

  /* Generated: the GLU comparison's circuit grid (316^2 = 99,856 rows), a
   * 10^6-row netlist, a 2-D Laplacian. */
  const char *grid_name = quick ? "circuit grid n=20000" : "circuit grid n=99856";
  if (wanted(grid_name)) {
    ts_circuit_params params = ts_circuit_defaults(quick ? 20000 : 99856);
    params.locality = 1.0;
    ts_csr *a = NULL;
    ts_gen_circuit(ctx, &params, 1, TS_FLOAT64, &a);
    bench_matrix(ctx, table, grid_name, a, true);
    ts_csr_destroy(a);
  }
  const char *netlist_name = quick ? "circuit netlist n=10^5" : "circuit netlist n=10^6";
  if (wanted(netlist_name)) {
    ts_circuit_params params = ts_circuit_defaults(quick ? 100000 : 1000000);
    ts_csr *a = NULL;
    ts_gen_circuit(ctx, &params, 2, TS_FLOAT64, &a);
    bench_matrix(ctx, table, netlist_name, a, true);
    ts_csr_destroy(a);
  }
  int64_t side = quick ? 100 : 316;
  char name[64];
  snprintf(name, sizeof name, "laplacian2d %lldx%lld", (long long)side, (long long)side);
  if (wanted(name)) {
    ts_csr *a = NULL;
    ts_gen_laplacian_2d(ctx, side, side, TS_FLOAT64, &a);
    bench_matrix(ctx, table, name, a, true);
    ts_csr_destroy(a);
  }

  /* The corpus's square unsymmetric matrices of 2000 rows and more. */
  const char *dir = getenv("TESSERA_MATRICES");
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir ? dir : ".");
  FILE *manifest = dir ? fopen(path, "r") : NULL;
  char line[8192];
  while (manifest && fgets(line, sizeof line, manifest)) {
    char mname[256], symmetry[64], field[64];
    long long rows, cols, nnz;
    if (sscanf(line, "%255s %lld %lld %lld %63s %63s", mname, &rows, &cols, &nnz, symmetry, field) != 6)
      continue;
    if (rows != cols || rows < 2000 || strcmp(symmetry, "general") != 0 || strcmp(field, "pattern") == 0 ||
        strcmp(field, "complex") == 0)
      continue;
    if (!wanted(mname))
      continue;
    snprintf(path, sizeof path, "%s/%s.mtx", dir, mname);
    ts_coo *coo = NULL;
    ts_csr *m = NULL;
    if (ts_mm_read(ctx, path, TS_FLOAT64, &coo, NULL) == TS_SUCCESS)
      ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &m);
    ts_coo_destroy(coo);
    bench_matrix(ctx, table, mname, m, false);
    ts_csr_destroy(m);
  }
  if (manifest)
    fclose(manifest);

  tsb_table_write_csv(table, &meta, csv);
  tsb_table_print_markdown(table, &meta, stdout);
  tsb_table_destroy(table);
  ts_context_destroy(ctx);
  return 0;
}
