/* The GPU's Newton loop part by part on generated matrices: after an
 * analysis and a first factorization, refactor + solve rounds (wall clock,
 * each refactorization synchronised), then the numeric kernels alone and
 * the pivot check alone on the values already on the device; medians.
 * Switches of the sparse tail (--tail-split, --tail-segment-row) make A/B
 * runs in one process.
 * The anchors (cuDSS, KLU) are in bench/lu_solvers; this one says where
 * tessera's own loop goes.
 *
 * Usage: lu_refactor_gpu [--matrix netlist-1e5|netlist-1e6|laplacian-2d|laplacian-3d|all] [--rounds N]
 *                        [--tail-split N] (tail columns with N entries above the tail or more in pieces;
 *                        -1 none; 0 the library's rule) [--tail-segment-row N] (tail entries whose rows of L
 *                        hold more than N entries summed by segments; -1 none; 0 the library's rule)
 *                        [--ordering auto|amd|nd] (default auto; nd: METIS nested dissection) */
#include "tessera.h"
#include "tsb.h"

#include "lu/lu_internal.h"
#include "lu/numeric/numeric_internal.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MOST_ROUNDS = 64 };

static double median_of(double *v, int count) { return count > 0 ? tsb_stats_of(v, count).median : 0.0; }

static double ms_since(double start) { return 1e3 * (tsb_wall_seconds() - start); }

static int run(ts_context *ctx, const char *name, const ts_csr *a, int rounds, long long tail_split,
               long long segment_row, ts_lu_ordering ordering) {
  ts_lu_options options;
  memset(&options, 0, sizeof options);
  options.unchecked_solves = 1;
  options.ordering = ordering;
  ts_lu *lu = NULL;
  if (ts_lu_create(ctx, &options, &lu) != TS_SUCCESS)
    return 1;
  lu->switches.gpu_tail_split = tail_split;
  lu->switches.gpu_tail_segment_row = segment_row;
  double *b = malloc((size_t)a->rows * sizeof *b), *x = malloc((size_t)a->rows * sizeof *x);
  double refactor[MOST_ROUNDS], solve[MOST_ROUNDS], numeric[MOST_ROUNDS], check[MOST_ROUNDS];
  int failed = !b || !x;
  for (int64_t i = 0; !failed && i < a->rows; i++)
    b[i] = 1.0;
  double start = tsb_wall_seconds();
  failed = failed || ts_lu_analyze(lu, a) != TS_SUCCESS;
  const double analyze_ms = ms_since(start);
  failed = failed || TS_IS_ERROR(ts_lu_factor(lu, a));
  /* The first refactorization builds the device's copy of the pattern
   * where the first factorization ran on the host: not timed. */
  failed = failed || TS_IS_ERROR(ts_lu_refactor(lu, a));
  for (int r = 0; !failed && r < rounds; r++) {
    start = tsb_wall_seconds();
    failed = TS_IS_ERROR(ts_lu_refactor(lu, a)) || ts_context_sync(ctx) != TS_SUCCESS;
    refactor[r] = ms_since(start);
    start = tsb_wall_seconds();
    failed = failed || ts_lu_solve(lu, TS_OP_NONE, 1, b, a->rows, x, a->rows) != TS_SUCCESS;
    solve[r] = ms_since(start);
  }
  const tsi_lu_device *dev = (const tsi_lu_device *)lu->numeric_device;
  failed = failed || !dev || !lu->factors_on_device;
  for (int r = 0; !failed && r < rounds; r++) {
    start = tsb_wall_seconds();
    failed = TS_IS_ERROR(tsi_lu_numeric_cuda(lu, "lu_refactor_gpu")) || ts_context_sync(ctx) != TS_SUCCESS;
    numeric[r] = ms_since(start);
    start = tsb_wall_seconds();
    failed = failed || tsi_lu_cuda_pivot_quality(lu) != TS_SUCCESS;
    check[r] = ms_since(start);
  }
  if (failed) {
    printf("%s: failed: %s\n", name, ts_last_error(ctx));
  } else {
    printf("%-14s n %8lld  analyze %9.2f ms  refactor %7.3f  solve %7.3f  loop %7.3f  | numeric alone %7.3f  pivot "
           "check %6.3f  | tail %lld columns, %lld split, %lld pieces in %lld launches, %lld entries in %lld "
           "segments\n",
           name, (long long)a->rows, analyze_ms, median_of(refactor, rounds), median_of(solve, rounds),
           median_of(refactor, rounds) + median_of(solve, rounds), median_of(numeric, rounds), median_of(check, rounds),
           (long long)(dev->n - dev->tail_start), (long long)dev->tail_split_columns, (long long)dev->tail_pieces,
           (long long)dev->tail_launches, (long long)dev->tail_long_entries, (long long)dev->tail_segments);
  }
  free(b);
  free(x);
  ts_lu_destroy(lu);
  return failed;
}

int main(int argc, char **argv) {
  const char *matrix = "all";
  int rounds = 5;
  long long tail_split = 0, segment_row = 0;
  ts_lu_ordering ordering = TS_LU_ORDER_AUTO;
  static const struct option long_options[] = {{"matrix", required_argument, NULL, 'm'},
                                               {"rounds", required_argument, NULL, 'r'},
                                               {"tail-split", required_argument, NULL, 's'},
                                               {"tail-segment-row", required_argument, NULL, 'g'},
                                               {"ordering", required_argument, NULL, 'o'},
                                               {"help", no_argument, NULL, 'h'},
                                               {NULL, 0, NULL, 0}};
  for (int c; (c = getopt_long(argc, argv, "m:r:s:g:o:h", long_options, NULL)) != -1;) {
    if (c == 'm')
      matrix = optarg;
    else if (c == 'r')
      rounds = atoi(optarg);
    else if (c == 's')
      tail_split = atoll(optarg);
    else if (c == 'g')
      segment_row = atoll(optarg);
    else if (c == 'o' && (strcmp(optarg, "amd") == 0 || strcmp(optarg, "nd") == 0 || strcmp(optarg, "auto") == 0))
      ordering = strcmp(optarg, "nd") == 0    ? TS_LU_ORDER_NESTED_DISSECTION
                 : strcmp(optarg, "amd") == 0 ? TS_LU_ORDER_AMD
                                              : TS_LU_ORDER_AUTO;
    else {
      printf("usage: lu_refactor_gpu [--matrix netlist-1e5|netlist-1e6|laplacian-2d|laplacian-3d|all] [--rounds N] "
             "[--tail-split N] [--tail-segment-row N] [--ordering auto|amd|nd]\n");
      return c == 'h' ? 0 : 2;
    }
  }
  if (rounds < 1 || rounds > MOST_ROUNDS) {
    fprintf(stderr, "lu_refactor_gpu: --rounds takes 1 to %d\n", MOST_ROUNDS);
    return 2;
  }
  ts_context *cpu = NULL, *gpu = NULL;
  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CPU;
  if (ts_context_create(&cpu, &options) != TS_SUCCESS)
    return 1;
  options.backend = TS_BACKEND_CUDA;
  if (ts_context_create(&gpu, &options) != TS_SUCCESS) {
    printf("lu_refactor_gpu: no GPU (%s), skipped\n", ts_last_error(NULL));
    ts_context_destroy(cpu);
    return 0;
  }
  const char *names[] = {"netlist-1e5", "netlist-1e6", "laplacian-2d", "laplacian-3d"};
  int failures = 0, ran = 0;
  for (int m = 0; m < 4; m++) {
    if (strcmp(matrix, "all") != 0 && strcmp(matrix, names[m]) != 0)
      continue;
    ts_csr *a = NULL;
    ts_status st;
    if (m < 2) {
      ts_circuit_params params = ts_circuit_defaults(m == 0 ? 100000 : 1000000);
      params.locality = 0.0;
      st = ts_gen_circuit(cpu, &params, 1, TS_FLOAT64, &a);
    } else if (m == 2) {
      st = ts_gen_laplacian_2d(cpu, 316, 316, TS_FLOAT64, &a);
    } else {
      st = ts_gen_laplacian_3d(cpu, 46, 46, 46, TS_FLOAT64, &a);
    }
    failures += st != TS_SUCCESS || run(gpu, names[m], a, rounds, tail_split, segment_row, ordering);
    ran++;
    ts_csr_destroy(a);
  }
  if (ran == 0)
    fprintf(stderr, "lu_refactor_gpu: no matrix named %s\n", matrix);
  ts_context_destroy(gpu);
  ts_context_destroy(cpu);
  return failures > 0 || ran == 0;
}
