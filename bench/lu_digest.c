/* Digests of what tessera's LU computes, to check that a change to the code
 * leaves every bit of the results as it was: build this file at both
 * commits (it uses the public API only, so it builds at older ones as it
 * is), run both on the same machine, and compare the outputs with diff.
 *
 * For each matrix (square corpus matrices, and random ones generated here;
 * each also with its values turned by random phases into complex ones) and
 * configuration (ordering, double or float factors): the status of
 * analyze, factor, refactor and solve, and an FNV-1a digest of the
 * solutions of two right-hand sides through A and A^T after the factor and
 * after the refactor, with the statistics that do not depend on timing or
 * on the thread count (nnz(L), nnz(U), flops, levels, perturbed pivots,
 * singular column, backward error, refinement steps, fallback). The
 * solutions pass through every factor entry, so factors that differ in one
 * bit almost always give solutions that differ too.
 *
 * Usage: lu_digest [--backend cpu|cuda] [--threads N] [--matrices DIR]
 * (corpus from TESSERA_MATRICES by default; without it, the random matrices
 * only). Prints one line per matrix and configuration on stdout. */
#include "tessera.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t digest;

static void mix(const void *data, size_t bytes) {
  const unsigned char *c = data;
  for (size_t i = 0; i < bytes; i++) {
    digest ^= c[i];
    digest *= 1099511628211ULL;
  }
}

/* Deterministic doubles in [-1, 1) (splitmix64). */
static double next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* An n x n matrix with per_row random off-diagonal entries a row and a
 * diagonal that is large (dominant) or random. */
static ts_csr *random_matrix(ts_context *ctx, int64_t n, int per_row, int dominant, uint64_t seed) {
  ts_coo *coo = NULL;
  ts_csr *csr = NULL;
  if (ts_coo_create(ctx, n, n, n * (per_row + 1), TS_FLOAT64, &coo) != TS_SUCCESS)
    return NULL;
  uint64_t state = seed;
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    double sum = 0.0;
    for (int e = 0; e < per_row; e++) {
      int64_t j = (int64_t)((next_random(&state) + 1.0) * 0.5 * (double)n);
      double v = next_random(&state);
      coo->row_idx[k] = (int32_t)i;
      coo->col_idx[k] = (int32_t)(j < n ? j : n - 1);
      ((double *)coo->values)[k++] = v;
      sum += v < 0 ? -v : v;
    }
    coo->row_idx[k] = (int32_t)i;
    coo->col_idx[k] = (int32_t)i;
    ((double *)coo->values)[k++] = dominant ? 1.0 + sum : next_random(&state);
  }
  coo->nnz = k;
  if (ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr) != TS_SUCCESS)
    csr = NULL;
  ts_coo_destroy(coo);
  return csr;
}

static ts_csr *corpus_matrix(ts_context *ctx, const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
  ts_coo *coo = NULL, *general = NULL;
  ts_csr *csr = NULL;
  if (ts_mm_read(ctx, path, TS_FLOAT64, &coo, NULL) == TS_SUCCESS &&
      ts_coo_expand_symmetric(ctx, coo, &general) == TS_SUCCESS)
    (void)ts_csr_from_coo(ctx, general, TS_DUPLICATES_SUM, &csr);
  ts_coo_destroy(coo);
  ts_coo_destroy(general);
  return csr;
}

/* a with each value turned by a random phase: complex, of a's pattern. */
static ts_csr *complex_matrix(ts_context *ctx, const ts_csr *a, uint64_t seed) {
  ts_csr *z = NULL;
  if (ts_csr_create(ctx, a->rows, a->cols, a->nnz, TS_COMPLEX128, &z) != TS_SUCCESS)
    return NULL;
  memcpy(z->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof *a->row_ptr);
  memcpy(z->col_idx, a->col_idx, (size_t)a->nnz * sizeof *a->col_idx);
  const double *v = a->values;
  double *w = z->values;
  uint64_t state = seed;
  for (int64_t e = 0; e < a->nnz; e++) {
    const double phase = 3.141592653589793 * next_random(&state);
    w[2 * e] = v[e] * cos(phase);
    w[2 * e + 1] = v[e] * sin(phase);
  }
  return z;
}

/* Solve both operations for two right-hand sides; mixes the statuses,
 * the solutions and the solve's statistics. */
static void solve_both(ts_lu *lu, int64_t n, int parts, const double *b, double *x) {
  for (int op = 0; op < 2; op++) {
    ts_status st = ts_lu_solve(lu, op ? TS_OP_TRANSPOSE : TS_OP_NONE, 2, b, n, x, n);
    mix(&st, sizeof st);
    if (st == TS_SUCCESS)
      mix(x, (size_t)(2 * n * parts) * sizeof *x);
    ts_lu_stats s;
    ts_lu_get_stats(lu, &s);
    mix(&s.backward_error, sizeof s.backward_error);
    mix(&s.refinement_steps, sizeof s.refinement_steps);
    mix(&s.partial_pivoting, sizeof s.partial_pivoting);
  }
}

static void run(ts_context *ctx, ts_backend backend, const char *name, const ts_csr *a, ts_lu_ordering ordering,
                int single) {
  ts_lu_options o;
  memset(&o, 0, sizeof o);
  o.ordering = ordering;
  o.float_factors = single;
  o.backend = backend;
  ts_lu *lu = NULL;
  ts_status st = ts_lu_create(ctx, &o, &lu);
  digest = 1469598103934665603ULL;
  const int64_t n = a->rows;
  const int parts = a->dtype == TS_COMPLEX128 ? 2 : 1; /* doubles per value */
  double *b = malloc((size_t)(2 * n * parts + 1) * sizeof *b), *x = malloc((size_t)(2 * n * parts + 1) * sizeof *x);
  if (st == TS_SUCCESS && b && x) {
    uint64_t state = 7;
    for (int64_t i = 0; i < 2 * n * parts; i++)
      b[i] = next_random(&state);
    st = ts_lu_analyze(lu, a);
    mix(&st, sizeof st);
    if (st == TS_SUCCESS) {
      st = ts_lu_factor(lu, a);
      mix(&st, sizeof st);
      if (!TS_IS_ERROR(st))
        solve_both(lu, n, parts, b, x);
      st = ts_lu_refactor(lu, a);
      mix(&st, sizeof st);
      if (!TS_IS_ERROR(st))
        solve_both(lu, n, parts, b, x);
    }
    ts_lu_stats s;
    ts_lu_get_stats(lu, &s);
    mix(&s.nnz_l, sizeof s.nnz_l);
    mix(&s.nnz_u, sizeof s.nnz_u);
    mix(&s.flops, sizeof s.flops);
    mix(&s.levels, sizeof s.levels);
    mix(&s.max_level_size, sizeof s.max_level_size);
    mix(&s.structural_rank, sizeof s.structural_rank);
    mix(&s.perturbed_pivots, sizeof s.perturbed_pivots);
    mix(&s.singular_column, sizeof s.singular_column);
  } else {
    mix(&st, sizeof st);
  }
  printf("%-20s n %7lld  ordering %d  %s%s  last status %-28s digest %016llx\n", name, (long long)n, (int)ordering,
         parts == 2 ? "complex " : "", single ? "float " : "double", ts_status_string(st), (unsigned long long)digest);
  free(b);
  free(x);
  ts_lu_destroy(lu);
}

/* The complex matrix of a's pattern, AMD ordering, double and float factors. */
static void run_complex(ts_context *ctx, ts_backend backend, const char *name, const ts_csr *a, uint64_t seed) {
  ts_csr *z = complex_matrix(ctx, a, seed);
  if (!z) {
    printf("%-20s complex not made: %s\n", name, ts_last_error(ctx));
    return;
  }
  for (int single = 0; single < 2; single++)
    run(ctx, backend, name, z, TS_LU_ORDER_AMD, single);
  ts_csr_destroy(z);
}

int main(int argc, char **argv) {
  ts_backend backend = TS_BACKEND_CPU;
  int threads = 0;
  const char *dir = getenv("TESSERA_MATRICES");
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
      const char *v = argv[++i];
      backend = !strcmp(v, "cuda") ? TS_BACKEND_CUDA : TS_BACKEND_CPU;
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--matrices") && i + 1 < argc) {
      dir = argv[++i];
    } else {
      fprintf(stderr, "lu_digest: unknown argument %s (see the comment at the top of bench/lu_digest.c)\n", argv[i]);
      return 2;
    }
  }
  ts_context_options co;
  memset(&co, 0, sizeof co);
  co.backend = backend;
  co.num_threads = threads;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &co) != TS_SUCCESS) {
    fprintf(stderr, "lu_digest: no %s context: %s\n", backend == TS_BACKEND_CUDA ? "CUDA" : "CPU", ts_last_error(NULL));
    return 1;
  }
  static const char *names[] = {"add20",   "arc130",   "bayer10",  "fs_183_6", "impcol_a",
                                "hor_131", "cryg2500", "1138_bus", "bcsstk13", "gr_30_30",
                                "Hamrle1", "bp_1200",  "gent113",  "cage5",    "LFAT5"};
  for (size_t m = 0; dir && *dir && m < sizeof names / sizeof names[0]; m++) {
    ts_csr *a = corpus_matrix(ctx, dir, names[m]);
    if (!a) {
      printf("%-20s not read: %s\n", names[m], ts_last_error(ctx));
      continue;
    }
    for (int ordering = 0; ordering < 3; ordering++)
      for (int single = 0; single < 2; single++)
        run(ctx, backend, names[m], a, (ts_lu_ordering)ordering, single);
    run_complex(ctx, backend, names[m], a, 300 + (uint64_t)m);
    ts_csr_destroy(a);
  }
  for (int k = 0; k < 4; k++) {
    ts_csr *a = random_matrix(ctx, 1000 + 1000 * k, 3 + k, k % 2, 100 + (uint64_t)k);
    char name[32];
    snprintf(name, sizeof name, "random%d", k);
    if (!a) {
      printf("%-20s not made: %s\n", name, ts_last_error(ctx));
      continue;
    }
    for (int single = 0; single < 2; single++)
      run(ctx, backend, name, a, TS_LU_ORDER_AMD, single);
    run_complex(ctx, backend, name, a, 200 + (uint64_t)k);
    ts_csr_destroy(a);
  }
  ts_context_destroy(ctx);
  return 0;
}
