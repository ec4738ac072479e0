/* The multifrontal view of bench/lu_solvers's matrices, computed on the
 * host from tessera's analysis (src/lu/symbolic/fronts.c): fronts, levels
 * of the front tree, front sizes by class with their flops and storage,
 * children per front, against the column-based path's figures (entries of
 * L + U, flops, levels, the longest rows of L): the figures of the model
 * in src/lu/numeric/frontal_rule.c. No GPU needed.
 *
 * With --gpu (a GPU needed), the GPU's numeric methods instead: the
 * refactorization by the GPU's fronts (numeric/frontal_cuda.cu) against the
 * GPU's columns and the host's fronts (all threads) on the same analysis,
 * the GPU's factors checked bit for bit against the host's fronts, its
 * solve's backward error, and the model's seconds of each method
 * (frontal_rule.c), to calibrate the rule; a summary table last.
 *
 * Usage: lu_fronts [--set circuit,laplacian] [--only WORDS] [--large]
 *                  [--relax P0,P1,P2,Z0,Z1,Z2] [--levels] [--time] [--gpu] [--side3d N]
 *                  [--matrices A.mtx,B.mtx]
 *   --large   the 10^6-row matrices too (the 3-D 100^3 Laplacian is never run)
 *   --relax   the amalgamation rule (default: lu_tuning.h's; not with --gpu)
 *   --levels  a line per level of the front tree (fronts, largest front, flops)
 *   --time    the host's refactorization by columns and by fronts (median of 5, all threads), with
 *             an FNV-1a digest of each method's factors (to check that a change keeps every bit)
 *   --gpu     the GPU's fronts against its columns and the host's fronts (medians of 5, one run past 2 s)
 *   --side3d  the 3-D Laplacian's side (default 46)
 *   --matrices Matrix Market files too, after the generated set (e.g. corpus matrices) */
#include "lu/numeric/numeric_internal.h"
#include "lu/solve/solve_internal.h"
#include "lu/symbolic/symbolic_internal.h"
#include "tsb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
  const char *set, *only, *matrices;
  bool large, levels, time, gpu;
  int64_t side3d;
  tsi_lu_front_rule rule;
} options;

/* The fronts' solve modes timed (lu->switches.gpu_solve_split + 1). */
enum { modes = 5 };

/* A row of the --gpu summary. */
typedef struct gpu_row {
  char name[64];
  int64_t n, lu_nnz, fronts, levels;
  int largest;
  double host_fronts, gpu_columns, gpu_fronts_first, gpu_fronts, model_fronts, model_columns, berr;
  double solve[5]; /* the triangular solves through the fronts, ms: levels whole, the rule, all split, all wide,
                    the rule's forward split without its wide levels */
  bool bitwise, split_bitwise;
} gpu_row;
static gpu_row gpu_rows[16];
static int gpu_row_count;

static bool selected(const options *o, const char *name) {
  if (!o->only)
    return true;
  char words[512];
  snprintf(words, sizeof words, "%s", o->only);
  for (char *w = strtok(words, ","); w; w = strtok(NULL, ","))
    if (strstr(name, w))
      return true;
  return false;
}

/* Flops of a front's partial factorization (p pivots of f rows). */
static double front_flops(int64_t p, int64_t f) {
  double flops = 0.0;
  for (int64_t k = 0; k < p; k++) {
    const double rest = (double)(f - 1 - k);
    flops += rest + 2.0 * rest * rest;
  }
  return flops;
}

/* FNV-1a of the factors' bytes. */
static unsigned long long factors_digest(const ts_lu *lu) {
  unsigned long long digest = 14695981039346656037ULL;
  const unsigned char *bytes = (const unsigned char *)lu->lu_values;
  const size_t count = lu->lu_values ? (size_t)lu->lu_nnz * sizeof(double) : 0;
  for (size_t b = 0; b < count; b++) {
    digest ^= bytes[b];
    digest *= 1099511628211ULL;
  }
  return digest;
}

/* Median ms of 5 host refactorizations by each method. */
static void time_host(ts_lu *lu, const ts_csr *a) {
  double ms[2];
  unsigned long long digests[2];
  for (int method = 0; method < 2; method++) {
    lu->switches.numeric_method = method ? TSI_LU_METHOD_FRONTS : TSI_LU_METHOD_COLUMNS;
    double samples[5];
    for (int r = 0; r < 5; r++) {
      double start = tsb_wall_seconds();
      if (TS_IS_ERROR(ts_lu_refactor(lu, a)))
        samples[r] = NAN;
      else
        samples[r] = tsb_wall_seconds() - start;
    }
    ms[method] = tsb_stats_of(samples, 5).median * 1e3;
    digests[method] = factors_digest(lu);
  }
  printf("- host refactorization (all threads): columns %.2f ms, fronts %.2f ms (%.2fx); digests columns %016llx, "
         "fronts %016llx\n",
         ms[0], ms[1], ms[0] / ms[1], digests[0], digests[1]);
}

/* Milliseconds of a refactorization: the median of 5 after a warm-up, or
 * the warm-up alone past 2 s. NAN on failure. */
static double refactor_ms(ts_lu *lu, const ts_csr *a) {
  double start = tsb_wall_seconds();
  if (TS_IS_ERROR(ts_lu_refactor(lu, a)))
    return NAN;
  const double first = tsb_wall_seconds() - start;
  if (first > 2.0)
    return 1e3 * first;
  double samples[5];
  for (int r = 0; r < 5; r++) {
    start = tsb_wall_seconds();
    (void)ts_lu_refactor(lu, a);
    samples[r] = tsb_wall_seconds() - start;
  }
  return 1e3 * tsb_stats_of(samples, 5).median;
}

/* The triangular solves through the GPU's fronts (b and x in device
 * memory, no residual), the levels' products kept whole, split and wide
 * where the rule says, split everywhere in both directions, every level
 * wide, and the rule's forward split without its wide levels
 * (lu->switches.gpu_solve_split -1, 0, 1, 2, 3): medians of 11, the modes
 * taking turns; *same: the five solutions are bitwise equal. */
static void time_front_solves(ts_context *ctx, ts_lu *lu, const double *b_host, double ms[modes], bool *same) {
  const int64_t n = lu->n;
  const size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
  ts_buffer *b = NULL, *x[modes] = {NULL, NULL, NULL, NULL, NULL};
  double *host[modes] = {malloc(bytes), malloc(bytes), malloc(bytes), malloc(bytes), malloc(bytes)};
  for (int m = 0; m < modes; m++)
    ms[m] = NAN;
  *same = false;
  bool ok = host[0] && host[1] && host[2] && host[3] && host[4] &&
            ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &b) == TS_SUCCESS &&
            ts_buffer_upload(ctx, b, 0, b_host, (size_t)n * sizeof(double)) == TS_SUCCESS;
  for (int m = 0; ok && m < modes; m++)
    ok = ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &x[m]) == TS_SUCCESS;
  enum { REPEATS = 11 };
  double samples[modes][REPEATS];
  for (int r = 0; ok && r < REPEATS; r++)
    for (int m = 0; ok && m < modes; m++) {
      lu->switches.gpu_solve_split = m - 1;
      const double start = tsb_wall_seconds();
      ok = tsi_lu_cuda_apply_inverse_device(lu, TS_OP_NONE, ts_buffer_data(b), ts_buffer_data(x[m])) == TS_SUCCESS &&
           ts_context_sync(ctx) == TS_SUCCESS;
      samples[m][r] = tsb_wall_seconds() - start;
    }
  lu->switches.gpu_solve_split = 0;
  for (int m = 0; ok && m < modes; m++) {
    ms[m] = 1e3 * tsb_stats_of(samples[m], REPEATS).median;
    ok = ts_buffer_download(ctx, x[m], 0, host[m], (size_t)n * sizeof(double)) == TS_SUCCESS;
  }
  *same = ok;
  for (int m = 1; m < modes; m++)
    *same = *same && memcmp(host[0], host[m], (size_t)n * sizeof(double)) == 0;
  if (!ok)
    fprintf(stderr, "lu_fronts: the fronts' solves: %s\n", ts_last_error(ctx));
  ts_buffer_destroy(b);
  for (int m = 0; m < modes; m++) {
    ts_buffer_destroy(x[m]);
    free(host[m]);
  }
}

/* An analyzed LU object on ctx, its numeric phase on backend by method. */
static ts_lu *analyzed(ts_context *ctx, const ts_csr *a, ts_backend backend, int method) {
  ts_lu_options lopts;
  memset(&lopts, 0, sizeof lopts);
  lopts.backend = backend;
  ts_lu *lu = NULL;
  if (ts_lu_create(ctx, &lopts, &lu) != TS_SUCCESS) {
    fprintf(stderr, "lu_fronts: %s\n", ts_last_error(ctx));
    return NULL;
  }
  lu->switches.numeric_method = method;
  lu->switches.whole_factors = 1; /* the fronts and the columns factor the same whole matrix */
  if (ts_lu_analyze(lu, a) != TS_SUCCESS) {
    fprintf(stderr, "lu_fronts: %s\n", ts_last_error(ctx));
    ts_lu_destroy(lu);
    return NULL;
  }
  return lu;
}

/* The GPU's fronts against its columns and the host's fronts. */
static void report_gpu(const char *name, ts_context *ctx, const ts_csr *a) {
  ts_lu *host = analyzed(ctx, a, TS_BACKEND_CPU, TSI_LU_METHOD_FRONTS);
  ts_lu *columns = analyzed(ctx, a, TS_BACKEND_CUDA, TSI_LU_METHOD_COLUMNS);
  ts_lu *fronts = analyzed(ctx, a, TS_BACKEND_CUDA, TSI_LU_METHOD_FRONTS);
  if (!host || !columns || !fronts || gpu_row_count == (int)(sizeof gpu_rows / sizeof gpu_rows[0]))
    goto cleanup;
  gpu_row *row = &gpu_rows[gpu_row_count++];
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "%s", name);
  row->n = a->rows;
  row->lu_nnz = fronts->lu_nnz;
  const bool host_ok = !TS_IS_ERROR(ts_lu_factor(host, a));
  const bool columns_ok = !TS_IS_ERROR(ts_lu_factor(columns, a));
  double start = tsb_wall_seconds();
  const bool fronts_ok = !TS_IS_ERROR(ts_lu_factor(fronts, a));
  row->gpu_fronts_first = fronts_ok ? 1e3 * (tsb_wall_seconds() - start) : NAN;
  if (!fronts_ok)
    fprintf(stderr, "lu_fronts: %s, GPU fronts: %s\n", name, ts_last_error(ctx));
  row->host_fronts = host_ok ? refactor_ms(host, a) : NAN;
  row->gpu_columns = columns_ok ? refactor_ms(columns, a) : NAN;
  row->gpu_fronts = fronts_ok ? refactor_ms(fronts, a) : NAN;
  const tsi_lu_fronts *fr = fronts->fronts;
  if (fr) {
    row->fronts = fr->count;
    row->levels = fr->levels;
    row->largest = fr->max_size;
    row->model_fronts = 1e3 * tsi_lu_frontal_model_seconds(fr);
  }
  row->model_columns = 1e3 * tsi_lu_column_model_seconds(columns);
  row->berr = NAN;
  if (host_ok && fronts_ok && tsi_lu_cuda_download_factors(fronts) == TS_SUCCESS && host->lu_values &&
      fronts->lu_values)
    row->bitwise = memcmp(host->lu_values, fronts->lu_values, (size_t)host->lu_nnz * sizeof(double)) == 0;
  if (fronts_ok) {
    const int64_t n = a->rows;
    double *ones = malloc((size_t)n * sizeof *ones), *b = malloc((size_t)n * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++)
      ones[i] = 1.0;
    ts_csr_spmv_host(ctx, 1.0, a, ones, 0.0, b);
    if (ts_lu_solve(fronts, TS_OP_NONE, 1, b, n, x, n) == TS_SUCCESS)
      row->berr = tsb_backward_error(a, x, b);
    time_front_solves(ctx, fronts, b, row->solve, &row->split_bitwise);
    free(ones);
    free(b);
    free(x);
  }
  printf("%s: n %lld, L+U %lld, fronts %lld in %lld levels (largest %d); refactor: host fronts %.2f ms, GPU columns "
         "%.2f ms, GPU fronts %.2f ms (first factor %.2f ms); model: fronts %.2f ms, columns %.2f ms; GPU fronts %s "
         "the host's; backward error %.1e; triangular solves through the fronts: levels whole %.3f ms, split by "
         "the rule %.3f ms, all split %.3f ms, all wide %.3f ms, split without wide %.3f ms (%s)\n",
         name, (long long)row->n, (long long)row->lu_nnz, (long long)row->fronts, (long long)row->levels, row->largest,
         row->host_fronts, row->gpu_columns, row->gpu_fronts, row->gpu_fronts_first, row->model_fronts,
         row->model_columns, row->bitwise ? "bitwise equal to" : "NOT bitwise equal to", row->berr, row->solve[0],
         row->solve[1], row->solve[2], row->solve[3], row->solve[4],
         row->split_bitwise ? "the same bits" : "NOT the same bits");
  fflush(stdout);
cleanup:
  ts_lu_destroy(host);
  ts_lu_destroy(columns);
  ts_lu_destroy(fronts);
}

static void print_gpu_summary(void) {
  printf("\n| matrix | n | nnz(L+U) | fronts | levels | largest | host fronts ms | GPU columns ms | GPU fronts ms | "
         "columns / fronts | model fronts / columns ms | bitwise | berr | solve ms: whole / rule / all split / all "
         "wide / split without wide | "
         "split bitwise |\n"
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|\n");
  for (int r = 0; r < gpu_row_count; r++) {
    const gpu_row *row = &gpu_rows[r];
    printf(
        "| %s | %lld | %lld | %lld | %lld | %d | %.2f | %.2f | %.2f | %.2fx | %.2f / %.2f | %s | %.1e | %.3f / %.3f / "
        "%.3f / %.3f / %.3f | %s |\n",
        row->name, (long long)row->n, (long long)row->lu_nnz, (long long)row->fronts, (long long)row->levels,
        row->largest, row->host_fronts, row->gpu_columns, row->gpu_fronts, row->gpu_columns / row->gpu_fronts,
        row->model_fronts, row->model_columns, row->bitwise ? "yes" : "NO", row->berr, row->solve[0], row->solve[1],
        row->solve[2], row->solve[3], row->solve[4], row->split_bitwise ? "yes" : "NO");
  }
}

static void report(const options *o, const char *name, ts_context *ctx, const ts_csr *a) {
  if (o->gpu) {
    report_gpu(name, ctx, a);
    return;
  }
  ts_lu_options lopts;
  memset(&lopts, 0, sizeof lopts);
  lopts.backend = TS_BACKEND_CPU;
  ts_lu *lu = NULL;
  ts_status st = ts_lu_create(ctx, &lopts, &lu);
  if (st == TS_SUCCESS) {
    lu->switches.whole_factors = 1; /* the fronts and the columns factor the same whole matrix */
    st = ts_lu_analyze(lu, a);
  }
  if (st != TS_SUCCESS) {
    fprintf(stderr, "%s: %s\n", name, ts_last_error(ctx));
    ts_lu_destroy(lu);
    return;
  }
  const int64_t n = lu->n;
  /* The column path's figures: the longest rows of L (the solves' chains). */
  int64_t *row_len = calloc((size_t)n, sizeof *row_len);
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = lu->diag_pos[j] + 1; p < lu->lu_col_ptr[j + 1]; p++)
      row_len[lu->lu_row_idx[p]]++;
  int64_t longest = 0, long_rows = 0, long_entries = 0;
  for (int64_t i = 0; i < n; i++) {
    if (row_len[i] > longest)
      longest = row_len[i];
    if (row_len[i] > 1024) {
      long_rows++;
      long_entries += row_len[i];
    }
  }
  free(row_len);
  double start = tsb_wall_seconds();
  tsi_lu_fronts *fr = NULL;
  if (tsi_lu_fronts_build(lu, &o->rule, &fr) != TS_SUCCESS) {
    fprintf(stderr, "%s: %s\n", name, ts_last_error(ctx));
    ts_lu_destroy(lu);
    return;
  }
  const double build_ms = (tsb_wall_seconds() - start) * 1e3;
  printf("\n## %s\n\n", name);
  printf("- n %lld, nnz(A) %lld, nnz(L+U) %lld, column-path flops %.3g, column levels %lld, analysis %.0f ms "
         "(symbolic %.0f)\n",
         (long long)n, (long long)a->nnz, (long long)lu->lu_nnz, lu->stats.flops, (long long)lu->levels,
         1e3 * (lu->stats.time_matching + lu->stats.time_ordering + lu->stats.time_symbolic + lu->stats.time_levelize),
         1e3 * lu->stats.time_symbolic);
  printf("- rows of L: longest %lld, %lld rows over 1024 entries holding %lld entries\n", (long long)longest,
         (long long)long_rows, (long long)long_entries);
  printf("- symmetrized Cholesky pattern: %lld entries a triangle (L+U as 2x-n: %lld = %.2fx L+U); fronts' factor "
         "parts %lld a triangle (%.2fx, the amalgamation's zeros)\n",
         (long long)fr->chol_entries, (long long)(2 * fr->chol_entries - n),
         (double)(2 * fr->chol_entries - n) / (double)lu->lu_nnz, (long long)fr->factor_entries,
         (double)fr->factor_entries / (double)fr->chol_entries);
  printf("- fronts %lld, levels %lld, largest front %d (pivots %d), most children %lld, dense flops %.3g (%.2fx the "
         "column path's), front storage %.1f MB (sum f^2), built in %.0f ms\n",
         (long long)fr->count, (long long)fr->levels, fr->max_size, fr->max_pivots, (long long)fr->max_children,
         fr->flops, fr->flops / fmax(lu->stats.flops, 1.0), 8e-6 * (double)fr->offset[fr->count], build_ms);
  /* Classes by front size: fronts, levels holding one, flops, storage, the
   * contribution blocks' entries. */
  const int classes = 9;
  const int64_t bounds[] = {8, 16, 32, 64, 128, 256, 512, 1024, INT64_MAX};
  int64_t count[9] = {0}, levels_with[9] = {0};
  double flops[9] = {0}, storage[9] = {0}, cb[9] = {0};
  int64_t many_children = 0;
  double many_children_cb = 0.0;
  for (int64_t l = 0; l < fr->levels; l++) {
    int largest = 0;
    for (int64_t s = fr->level_ptr[l]; s < fr->level_ptr[l + 1]; s++)
      largest = fr->size[s] > largest ? fr->size[s] : largest;
    for (int c = 0; c < classes; c++)
      if (largest <= bounds[c]) {
        levels_with[c]++;
        break;
      }
  }
  for (int64_t s = 0; s < fr->count; s++) {
    const int64_t f = fr->size[s], p = fr->pivots[s], r = f - p;
    int c = 0;
    while (f > bounds[c])
      c++;
    count[c]++;
    flops[c] += front_flops(p, f);
    storage[c] += (double)f * (double)f;
    cb[c] += (double)r * (double)r;
    if (fr->child_ptr[s + 1] - fr->child_ptr[s] > 64) {
      many_children++;
      for (int64_t k = fr->child_ptr[s]; k < fr->child_ptr[s + 1]; k++) {
        const int32_t child = fr->children[k];
        const double rc = fr->size[child] - fr->pivots[child];
        many_children_cb += rc * rc;
      }
    }
  }
  printf("- fronts with more than 64 children: %lld, their children's contribution entries %.3g\n",
         (long long)many_children, many_children_cb);
  printf("\n| front size | fronts | levels whose largest front is in the class | flops share | storage MB | "
         "contribution MB |\n|---|---:|---:|---:|---:|---:|\n");
  for (int c = 0; c < classes; c++) {
    if (count[c] == 0)
      continue;
    char bound[32];
    if (bounds[c] == INT64_MAX)
      snprintf(bound, sizeof bound, "> %lld", (long long)bounds[c - 1]);
    else
      snprintf(bound, sizeof bound, "<= %lld", (long long)bounds[c]);
    printf("| %s | %lld | %lld | %.3f | %.1f | %.1f |\n", bound, (long long)count[c], (long long)levels_with[c],
           flops[c] / fmax(fr->flops, 1.0), 8e-6 * storage[c], 8e-6 * cb[c]);
  }
  if (o->levels) {
    printf("\n| level | fronts | largest f | largest p | flops |\n|---:|---:|---:|---:|---:|\n");
    for (int64_t l = 0; l < fr->levels; l++) {
      int64_t fronts = fr->level_ptr[l + 1] - fr->level_ptr[l];
      int largest = 0, largest_p = 0;
      double level_flops = 0.0;
      for (int64_t s = fr->level_ptr[l]; s < fr->level_ptr[l + 1]; s++) {
        largest = fr->size[s] > largest ? fr->size[s] : largest;
        largest_p = fr->pivots[s] > largest_p ? fr->pivots[s] : largest_p;
        level_flops += front_flops(fr->pivots[s], fr->size[s]);
      }
      printf("| %lld | %lld | %d | %d | %.3g |\n", (long long)l, (long long)fronts, largest, largest_p, level_flops);
    }
  }
  fflush(stdout);
  tsi_lu_fronts_free(fr);
  if (o->time)
    time_host(lu, a);
  ts_lu_destroy(lu);
}

int main(int argc, char **argv) {
  options o = {.set = "circuit,laplacian", .side3d = 46, .rule = tsi_lu_front_rule_default()};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--set") == 0 && i + 1 < argc)
      o.set = argv[++i];
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      o.only = argv[++i];
    else if (strcmp(argv[i], "--large") == 0)
      o.large = true;
    else if (strcmp(argv[i], "--levels") == 0)
      o.levels = true;
    else if (strcmp(argv[i], "--time") == 0)
      o.time = true;
    else if (strcmp(argv[i], "--gpu") == 0)
      o.gpu = true;
    else if (strcmp(argv[i], "--matrices") == 0 && i + 1 < argc)
      o.matrices = argv[++i];
    else if (strcmp(argv[i], "--side3d") == 0 && i + 1 < argc && atoll(argv[i + 1]) > 1)
      o.side3d = atoll(argv[++i]);
    else if (strcmp(argv[i], "--relax") == 0 && i + 1 < argc) {
      long long p0, p1, p2;
      double z0, z1, z2;
      if (sscanf(argv[++i], "%lld,%lld,%lld,%lf,%lf,%lf", &p0, &p1, &p2, &z0, &z1, &z2) != 6) {
        fprintf(stderr, "lu_fronts: --relax P0,P1,P2,Z0,Z1,Z2\n");
        return 2;
      }
      o.rule = (tsi_lu_front_rule){{p0, p1, p2}, {z0, z1, z2}};
    } else {
      fprintf(stderr, "lu_fronts: unknown option %s (see the comment at the top of bench/lu_fronts.c)\n", argv[i]);
      return 2;
    }
  }
  ts_context *ctx = NULL;
  ts_context_options copts = {0};
  copts.backend = o.gpu ? TS_BACKEND_CUDA : TS_BACKEND_CPU;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS) {
    fprintf(stderr, "lu_fronts: %s\n", ts_last_error(NULL));
    return o.gpu ? 77 : 1;
  }
  printf("# Fronts of the LU benchmark matrices (rule %lld,%lld,%lld / %.2f,%.2f,%.2f)\n",
         (long long)o.rule.max_pivots[0], (long long)o.rule.max_pivots[1], (long long)o.rule.max_pivots[2],
         o.rule.max_zeros[0], o.rule.max_zeros[1], o.rule.max_zeros[2]);
  char name[128];
  if (strstr(o.set, "circuit")) {
    const int64_t sizes[] = {100000, 1000000};
    for (int s = 0; s < (o.large ? 2 : 1); s++)
      for (int locality = 0; locality <= 1; locality++) {
        snprintf(name, sizeof name, "circuit n=%lld locality=%d", (long long)sizes[s], locality);
        if (!selected(&o, name))
          continue;
        ts_circuit_params params = ts_circuit_defaults(sizes[s]);
        params.locality = locality;
        ts_csr *a = NULL;
        if (ts_gen_circuit(ctx, &params, 1, TS_FLOAT64, &a) == TS_SUCCESS)
          report(&o, name, ctx, a);
        ts_csr_destroy(a);
      }
  }
  if (strstr(o.set, "laplacian")) {
    const int64_t sides[] = {316, 1000};
    for (int s = 0; s < (o.large ? 2 : 1); s++) {
      snprintf(name, sizeof name, "laplacian2d %lldx%lld", (long long)sides[s], (long long)sides[s]);
      ts_csr *a = NULL;
      if (selected(&o, name) && ts_gen_laplacian_2d(ctx, sides[s], sides[s], TS_FLOAT64, &a) == TS_SUCCESS)
        report(&o, name, ctx, a);
      ts_csr_destroy(a);
    }
    snprintf(name, sizeof name, "laplacian3d %lld^3", (long long)o.side3d);
    ts_csr *a = NULL;
    if (selected(&o, name) && ts_gen_laplacian_3d(ctx, o.side3d, o.side3d, o.side3d, TS_FLOAT64, &a) == TS_SUCCESS)
      report(&o, name, ctx, a);
    ts_csr_destroy(a);
  }
  if (o.matrices) {
    char paths[4096];
    snprintf(paths, sizeof paths, "%s", o.matrices);
    for (char *path = paths, *next = NULL; path && *path; path = next) {
      next = strchr(path, ',');
      if (next)
        *next++ = '\0';
      ts_csr *a = NULL;
      if (ts_mm_read_csr(ctx, path, TS_FLOAT64, &a, NULL) == TS_SUCCESS)
        report(&o, path, ctx, a);
      else
        fprintf(stderr, "lu_fronts: %s: %s\n", path, ts_last_error(ctx));
      ts_csr_destroy(a);
    }
  }
  if (o.gpu)
    print_gpu_summary();
  ts_context_destroy(ctx);
  return 0;
}
