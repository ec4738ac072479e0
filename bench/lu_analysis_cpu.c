/* The host LU analysis phase by phase (ts_lu_stats time_*: matching with
 * scaling, AMD ordering, row-merge symbolic, levelization), median of several
 * ts_lu_analyze calls after a warm-up, beside SuiteSparse KLU's klu_analyze
 * (BTF and AMD; KLU's symbolic work happens in its factorization, so the
 * ratio overstates what tessera does more). Each row also prints a
 * fingerprint of the results (permutations, scaling bits, L + U pattern,
 * levels) so that two builds can be checked to give the same analysis.
 * Inputs: circuit-like matrices of 10^5 rows (locality 0 and 1) and 10^6
 * rows (locality 0), and a 316 x 316 2-D Laplacian.
 * Usage: lu_analysis_cpu [--quick] [--repeat R] [out.csv] */
#include "lu/lu_internal.h"
#include "tsb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef TESSERA_BENCH_HAVE_KLU
#include <klu.h>
#endif

/* FNV-1a over bytes: equal results give equal fingerprints. */
static uint64_t fingerprint(uint64_t hash, const void *data, size_t bytes) {
  const unsigned char *p = data;
  for (size_t k = 0; k < bytes; k++) {
    hash ^= p[k];
    hash *= 1099511628211ull;
  }
  return hash;
}

static uint64_t analysis_fingerprint(const ts_lu *lu) {
  size_t n = (size_t)lu->n;
  uint64_t h = 14695981039346656037ull;
  h = fingerprint(h, lu->row_perm, n * sizeof(int32_t));
  h = fingerprint(h, lu->col_perm, n * sizeof(int32_t));
  h = fingerprint(h, lu->row_scale, n * sizeof(double));
  h = fingerprint(h, lu->col_scale, n * sizeof(double));
  h = fingerprint(h, lu->lu_col_ptr, (n + 1) * sizeof(int64_t));
  h = fingerprint(h, lu->lu_row_idx, (size_t)lu->lu_nnz * sizeof(int32_t));
  h = fingerprint(h, lu->diag_pos, n * sizeof(int64_t));
  h = fingerprint(h, lu->a_to_lu, (size_t)lu->nnz_a * sizeof(int64_t));
  h = fingerprint(h, lu->level_ptr, (size_t)(lu->levels + 1) * sizeof(int64_t));
  h = fingerprint(h, lu->level_cols, n * sizeof(int32_t));
  return h;
}

static double median_of(double *samples, int count) { return tsb_stats_of(samples, count).median * 1e3; }

#ifdef TESSERA_BENCH_HAVE_KLU
/* Median klu_analyze time in ms (A by columns: the transpose of its CSR). */
static double klu_analyze_ms(const ts_csr *a, int repeat) {
  int n = (int)a->rows;
  int *col_ptr = calloc((size_t)n + 1, sizeof(int));
  int *row_idx = malloc((size_t)a->nnz * sizeof(int));
  for (int64_t k = 0; k < a->nnz; k++)
    col_ptr[a->col_idx[k] + 1]++;
  for (int j = 0; j < n; j++)
    col_ptr[j + 1] += col_ptr[j];
  int *fill = malloc((size_t)n * sizeof(int));
  memcpy(fill, col_ptr, (size_t)n * sizeof(int));
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      row_idx[fill[a->col_idx[k]]++] = (int)i;
  free(fill);
  klu_common common;
  klu_defaults(&common);
  double samples[32];
  int count = 0;
  for (int r = 0; r <= repeat && r < 32; r++) {
    double start = tsb_wall_seconds();
    klu_symbolic *symbolic = klu_analyze(n, col_ptr, row_idx, &common);
    double seconds = tsb_wall_seconds() - start;
    if (!symbolic) {
      count = 0;
      break;
    }
    klu_free_symbolic(&symbolic, &common);
    if (r > 0)
      samples[count++] = seconds;
  }
  free(col_ptr);
  free(row_idx);
  return count > 0 ? median_of(samples, count) : NAN;
}
#endif

static void run_matrix(tsb_table *table, const char *name, const ts_csr *a, int repeat) {
  double total[32], matching[32], ordering[32], symbolic[32], levelize[32];
  int count = 0;
  uint64_t print = 0;
  int64_t lu_nnz = 0, levels = 0;
  ts_lu *lu = NULL;
  if (ts_lu_create(NULL, NULL, &lu) != TS_SUCCESS)
    return;
  for (int r = 0; r <= repeat && r < 32; r++) {
    double start = tsb_wall_seconds();
    ts_status st = ts_lu_analyze(lu, a);
    double seconds = tsb_wall_seconds() - start;
    if (st != TS_SUCCESS) {
      fprintf(stderr, "%s: %s\n", name, ts_last_error(NULL));
      ts_lu_destroy(lu);
      return;
    }
    if (r == 0) {
      print = analysis_fingerprint(lu);
      lu_nnz = lu->lu_nnz;
      levels = lu->levels;
      continue;
    }
    total[count] = seconds;
    matching[count] = lu->stats.time_matching;
    ordering[count] = lu->stats.time_ordering;
    symbolic[count] = lu->stats.time_symbolic;
    levelize[count] = lu->stats.time_levelize;
    count++;
  }
  ts_lu_destroy(lu);
  double klu = NAN;
#ifdef TESSERA_BENCH_HAVE_KLU
  klu = klu_analyze_ms(a, repeat);
#endif
  double analyze = median_of(total, count);
  tsb_table_cell(table, "%s", name);
  tsb_table_cell(table, "%lld", (long long)a->rows);
  tsb_table_cell(table, "%lld", (long long)a->nnz);
  tsb_table_cell(table, "%lld", (long long)lu_nnz);
  tsb_table_cell(table, "%lld", (long long)levels);
  tsb_table_cell(table, "%.1f", median_of(matching, count));
  tsb_table_cell(table, "%.1f", median_of(ordering, count));
  tsb_table_cell(table, "%.1f", median_of(symbolic, count));
  tsb_table_cell(table, "%.1f", median_of(levelize, count));
  tsb_table_cell(table, "%.1f", analyze);
  tsb_table_cell(table, "%.1f", klu);
  tsb_table_cell(table, "%.2f", analyze / klu);
  tsb_table_cell(table, "%016llx", (unsigned long long)print);
}

int main(int argc, char **argv) {
  int quick = 0, repeat = 5;
  const char *csv = NULL;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[k], "--repeat") == 0 && k + 1 < argc)
      repeat = atoi(argv[++k]);
    else {
      int rc = tsb_option_or_path(argv[0], argv[k], "[--quick] [--repeat N] [CSV_PATH]");
      if (rc >= 0)
        return rc;
      csv = argv[k];
    }
  }
  if (repeat < 1)
    repeat = 1;
  const char *columns[] = {"matrix",      "n",           "nnz",         "nnz(L+U)",   "levels",         "matching ms",
                           "ordering ms", "symbolic ms", "levelize ms", "analyze ms", "KLU analyze ms", "ratio to KLU",
                           "fingerprint"};
  tsb_table *table = tsb_table_create(13, columns);
  tsb_metadata meta;
  tsb_metadata_collect(&meta, NULL, argc, argv);
  tsb_metadata_set(&meta, "repeat", "%d (median, after one warm-up)", repeat);

  for (int locality = 0; locality <= 1; locality++) {
    ts_circuit_params params = ts_circuit_defaults(100000);
    params.locality = locality;
    ts_csr *a = NULL;
    if (ts_gen_circuit(NULL, &params, 1, TS_FLOAT64, &a) == TS_SUCCESS)
      run_matrix(table, locality ? "circuit 1e5 locality 1" : "circuit 1e5 locality 0", a, repeat);
    ts_csr_destroy(a);
  }
  ts_csr *laplacian = NULL;
  if (ts_gen_laplacian_2d(NULL, 316, 316, TS_FLOAT64, &laplacian) == TS_SUCCESS)
    run_matrix(table, "laplacian 316^2", laplacian, repeat);
  ts_csr_destroy(laplacian);
  if (!quick) {
    ts_circuit_params params = ts_circuit_defaults(1000000);
    params.locality = 0;
    ts_csr *a = NULL;
    if (ts_gen_circuit(NULL, &params, 1, TS_FLOAT64, &a) == TS_SUCCESS)
      run_matrix(table, "circuit 1e6 locality 0", a, repeat < 3 ? repeat : 3);
    ts_csr_destroy(a);
  }
  tsb_table_print_markdown(table, &meta, stdout);
  int failed = csv ? tsb_table_write_csv(table, &meta, csv) : 0;
  tsb_table_destroy(table);
  return failed;
}
