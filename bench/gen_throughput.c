/* Generator throughput: seconds and millions of nonzeros per second of each
 * matrix generator at about 10^8 nonzeros (the benchmark matrices of the
 * project: 2-D Laplacian 4096^2, power law Zipf 0.9 with 2^22 rows and
 * 68.7 M nonzeros, R-MAT scale 22...), then the fill of L+U under AMD of
 * circuit matrices of 10^5 rows over locality 0 .. 1.
 *
 * Usage: gen_throughput [--small] [--csv PATH]
 * --small divides every size by about 16 (a quick smoke run). */
#include "tessera.h"
#include "tsb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
  const char *name;
  const char *shape;
  int kind;
  int64_t a, b, c;
  double x;
} job;

enum { LAPLACIAN_2D, LAPLACIAN_3D, BANDED, UNIFORM, POWER_LAW, RMAT, CIRCUIT };

static ts_status run_job(const job *j, ts_csr **out) {
  switch (j->kind) {
  case LAPLACIAN_2D:
    return ts_gen_laplacian_2d(NULL, j->a, j->b, TS_FLOAT64, out);
  case LAPLACIAN_3D:
    return ts_gen_laplacian_3d(NULL, j->a, j->b, j->c, TS_FLOAT64, out);
  case BANDED:
    return ts_gen_banded(NULL, j->a, j->b, j->c, 1, TS_FLOAT64, out);
  case UNIFORM:
    return ts_gen_random_uniform(NULL, j->a, j->a, j->b, 1, TS_FLOAT64, out);
  case POWER_LAW:
    return ts_gen_power_law(NULL, j->a, j->a, j->b, j->x, 1, TS_FLOAT64, out);
  case RMAT: {
    ts_rmat_params p = ts_rmat_graph500((int)j->a, (int)j->b);
    return ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, out);
  }
  case CIRCUIT: {
    ts_circuit_params p = ts_circuit_defaults(j->a);
    p.locality = j->x;
    return ts_gen_circuit(NULL, &p, 1, TS_FLOAT64, out);
  }
  }
  return TS_ERROR_INVALID_ARGUMENT;
}

static int64_t longest_row(const ts_csr *a) {
  int64_t longest = 0;
  for (int64_t i = 0; i < a->rows; i++)
    if (a->row_ptr[i + 1] - a->row_ptr[i] > longest)
      longest = a->row_ptr[i + 1] - a->row_ptr[i];
  return longest;
}

int main(int argc, char **argv) {
  int small = 0;
  const char *csv = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--small") == 0)
      small = 1;
    else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
      csv = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--small] [--csv PATH]\n", argv[0]);
      return 2;
    }
  }
  int d = small ? 4 : 1; /* linear shrink of the grids; 16 for the counts */
  int64_t s = small ? 16 : 1;
  const job jobs[] = {
      {"laplacian_2d", "4096 x 4096 grid", LAPLACIAN_2D, 4096 / d, 4096 / d, 1, 0},
      {"laplacian_3d", "256^3 grid", LAPLACIAN_3D, 256 / (small ? 2 : 1), 256 / (small ? 2 : 1),
       256 / 4 * (small ? 1 : 4), 0},
      {"banded", "n = 10^7, 4 + 4 diagonals", BANDED, 10000000 / s, 4, 4, 0},
      {"random_uniform", "2^22 rows, 24 per row", UNIFORM, ((int64_t)1 << 22) / s, 24, 0, 0},
      {"power_law", "Zipf 0.9, 2^22 rows, 68.7 M", POWER_LAW, ((int64_t)1 << 22) / s, 68700000 / s, 0, 0.9},
      {"power_law", "Zipf 1.2, 2^20 rows, 13.4 M", POWER_LAW, ((int64_t)1 << 20) / s, 13400000 / s, 0, 1.2},
      {"rmat", "Graph500 scale 22, edge factor 16", RMAT, small ? 18 : 22, 16, 0, 0},
      {"circuit", "n = 2 x 10^7, locality 0", CIRCUIT, 20000000 / s, 0, 0, 0.0},
      {"circuit", "n = 2 x 10^7, locality 1", CIRCUIT, 20000000 / s, 0, 0, 1.0},
  };
  tsb_metadata meta;
  tsb_metadata_collect(&meta, NULL, argc, argv);
  const char *columns[] = {"generator", "shape", "rows", "nnz", "longest row", "seconds", "Mnnz/s"};
  tsb_table *table = tsb_table_create(7, columns);
  for (size_t k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
    ts_csr *a = NULL;
    double start = tsb_wall_seconds();
    ts_status st = run_job(&jobs[k], &a);
    double seconds = tsb_wall_seconds() - start;
    if (st != TS_SUCCESS) {
      fprintf(stderr, "%s (%s): %s: %s\n", jobs[k].name, jobs[k].shape, ts_status_string(st), ts_last_error(NULL));
      tsb_table_destroy(table);
      return 1;
    }
    tsb_table_cell(table, "%s", jobs[k].name);
    tsb_table_cell(table, "%s", jobs[k].shape);
    tsb_table_cell(table, "%lld", (long long)a->rows);
    tsb_table_cell(table, "%lld", (long long)a->nnz);
    tsb_table_cell(table, "%lld", (long long)longest_row(a));
    tsb_table_cell(table, "%.2f", seconds);
    tsb_table_cell(table, "%.1f", (double)a->nnz / seconds / 1e6);
    fprintf(stderr, "%s (%s): %.2f s\n", jobs[k].name, jobs[k].shape, seconds);
    ts_csr_destroy(a);
  }
  tsb_table_print_markdown(table, &meta, stdout);
  if (csv && tsb_table_write_csv(table, &meta, csv) != 0)
    return 1;
  tsb_table_destroy(table);

  /* Fill sweep: n = 10^5 (n = 2 x 10^4 with --small). */
  const char *fill_columns[] = {"locality", "rows", "nnz(A)", "nnz(L+U)", "fill ratio", "seconds (gen + fill)"};
  tsb_table *fill = tsb_table_create(6, fill_columns);
  const double localities[] = {0.0, 0.25, 0.5, 0.75, 1.0};
  for (int l = 0; l < 5; l++) {
    job j = {"circuit", "", CIRCUIT, small ? 20000 : 100000, 0, 0, localities[l]};
    ts_csr *a = NULL;
    int64_t lu = 0;
    double start = tsb_wall_seconds();
    ts_status st = run_job(&j, &a);
    if (st == TS_SUCCESS)
      st = ts_csr_fill_estimate(NULL, a, &lu, NULL);
    double seconds = tsb_wall_seconds() - start;
    if (st != TS_SUCCESS) {
      fprintf(stderr, "fill sweep, locality %.2f: %s: %s\n", localities[l], ts_status_string(st), ts_last_error(NULL));
      ts_csr_destroy(a);
      tsb_table_destroy(fill);
      return st == TS_ERROR_UNSUPPORTED ? 0 : 1;
    }
    tsb_table_cell(fill, "%.2f", localities[l]);
    tsb_table_cell(fill, "%lld", (long long)a->rows);
    tsb_table_cell(fill, "%lld", (long long)a->nnz);
    tsb_table_cell(fill, "%lld", (long long)lu);
    tsb_table_cell(fill, "%.2f", (double)lu / (double)a->nnz);
    tsb_table_cell(fill, "%.2f", seconds);
    ts_csr_destroy(a);
  }
  printf("\n");
  tsb_table_print_markdown(fill, NULL, stdout);
  tsb_table_destroy(fill);
  return 0;
}
