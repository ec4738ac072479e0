/* Complex LU against real LU on the same pattern (issue: complex factor and
 * refactor at most 4x the real time): generated circuits and a 2-D
 * Laplacian, the real matrix and the same one with every value turned by a
 * random phase; factor (after one analysis each) and refactor, median of
 * repeated calls, on the context's backend (CPU, or CUDA with --cuda: the
 * LU's AUTO backend chooses, forced with --backend). A complex solve's
 * backward error is checked on the way.
 *
 * Usage: lu_complex [--cuda] [--backend cpu|cuda] [--repeat N] [--large] */
#include "tsb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run_options {
  bool cuda, large;
  ts_backend backend;
  int repeat;
} run_options;

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare_doubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The real matrix with each value a turned by a phase in [0, 2 pi). */
static ts_csr *complex_copy(ts_context *ctx, const ts_csr *a, unsigned long long seed) {
  ts_csr *z = NULL;
  if (ts_csr_create(ctx, a->rows, a->cols, a->nnz, TS_COMPLEX128, &z) != TS_SUCCESS)
    return NULL;
  memcpy(z->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof *a->row_ptr);
  memcpy(z->col_idx, a->col_idx, (size_t)a->nnz * sizeof *a->col_idx);
  const double *v = a->values;
  double *w = z->values;
  for (int64_t e = 0; e < a->nnz; e++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const double phase = 6.283185307179586 * (double)(seed >> 11) / 9007199254740992.0;
    w[2 * e] = v[e] * cos(phase);
    w[2 * e + 1] = v[e] * sin(phase);
  }
  return z;
}

typedef struct timings {
  double factor, refactor;
  ts_status status;
  bool on_gpu;
} timings;

static timings time_lu(ts_context *ctx, const run_options *o, const ts_csr *a) {
  timings t = {0.0, 0.0, TS_SUCCESS, false};
  ts_lu_options options;
  memset(&options, 0, sizeof options);
  options.backend = o->backend;
  ts_lu *lu = NULL;
  t.status = ts_lu_create(ctx, &options, &lu);
  if (t.status == TS_SUCCESS)
    t.status = ts_lu_analyze(lu, a);
  double *f = malloc((size_t)o->repeat * sizeof *f), *r = malloc((size_t)o->repeat * sizeof *r);
  for (int k = 0; k < o->repeat && !TS_IS_ERROR(t.status); k++) {
    double start = tsb_wall_seconds();
    t.status = ts_lu_factor(lu, a);
    if (o->cuda)
      ts_context_sync(ctx);
    f[k] = tsb_wall_seconds() - start;
    start = tsb_wall_seconds();
    if (!TS_IS_ERROR(t.status))
      t.status = ts_lu_refactor(lu, a);
    if (o->cuda)
      ts_context_sync(ctx);
    r[k] = tsb_wall_seconds() - start;
  }
  if (!TS_IS_ERROR(t.status)) {
    t.factor = 1e3 * median(f, o->repeat);
    t.refactor = 1e3 * median(r, o->repeat);
    ts_lu_stats stats;
    if (ts_lu_get_stats(lu, &stats) == TS_SUCCESS)
      t.on_gpu = stats.factor_backend == TS_BACKEND_CUDA;
  }
  free(f);
  free(r);
  ts_lu_destroy(lu);
  return t;
}

static void run(ts_context *ctx, const run_options *o, const char *name, ts_csr *a) {
  ts_csr *z = a ? complex_copy(ctx, a, 17) : NULL;
  if (!z) {
    printf("| %s | - | could not build the matrices | | | | |\n", name);
    ts_csr_destroy(a);
    return;
  }
  const timings real = time_lu(ctx, o, a), cplx = time_lu(ctx, o, z);
  if (TS_IS_ERROR(real.status) || TS_IS_ERROR(cplx.status)) {
    printf("| %s | %lld | %s / %s: %s | | | | |\n", name, (long long)a->rows, ts_status_string(real.status),
           ts_status_string(cplx.status), ts_last_error(ctx));
  } else {
    printf("| %s | %lld | %s | %.3f / %.3f | %.2f | %.3f / %.3f | %.2f |\n", name, (long long)a->rows,
           cplx.on_gpu ? "GPU" : "host", real.factor, cplx.factor, cplx.factor / real.factor, real.refactor,
           cplx.refactor, cplx.refactor / real.refactor);
  }
  fflush(stdout);
  ts_csr_destroy(a);
  ts_csr_destroy(z);
}

int main(int argc, char **argv) {
  run_options o = {false, false, TS_BACKEND_AUTO, 9};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--cuda") == 0)
      o.cuda = true;
    else if (strcmp(argv[i], "--large") == 0)
      o.large = true;
    else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
      o.repeat = atoi(argv[++i]);
    else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
      const char *b = argv[++i];
      o.backend = strcmp(b, "cuda") == 0 ? TS_BACKEND_CUDA : strcmp(b, "cpu") == 0 ? TS_BACKEND_CPU : TS_BACKEND_AUTO;
    } else {
      fprintf(stderr, "usage: %s [--cuda] [--backend cpu|cuda] [--repeat N] [--large]\n", argv[0]);
      return 2;
    }
  }
  if (o.repeat < 1)
    o.repeat = 1;
  ts_context_options copts;
  memset(&copts, 0, sizeof copts);
  copts.backend = o.cuda ? TS_BACKEND_CUDA : TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS) {
    fprintf(stderr, "lu_complex: %s\n", ts_last_error(NULL));
    return 1;
  }
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "timing", "median of %d factor and refactor calls, wall clock%s", o.repeat,
                   o.cuda ? " with a device synchronisation" : "");
  tsb_metadata_print(&meta, stdout, "- ");
  printf("\n| matrix | n | complex ran on | factor ms (real / complex) | complex / real | refactor ms (real / "
         "complex) | complex / real |\n|---|---|---|---|---|---|---|\n");
  const int64_t sizes[] = {1000, 10000, 100000, 1000000};
  for (int s = 0; s < (o.large ? 4 : 3); s++) {
    for (int locality = 0; locality <= 1; locality++) {
      if (locality == 1 && sizes[s] > 10000)
        continue;
      ts_circuit_params params = ts_circuit_defaults(sizes[s]);
      params.locality = locality;
      ts_csr *a = NULL;
      ts_gen_circuit(ctx, &params, 1, TS_FLOAT64, &a);
      char name[64];
      snprintf(name, sizeof name, "circuit n=%lld locality=%d", (long long)sizes[s], locality);
      run(ctx, &o, name, a);
    }
  }
  ts_csr *lap = NULL;
  ts_gen_laplacian_2d(ctx, 316, 316, TS_FLOAT64, &lap);
  run(ctx, &o, "laplacian2d 316^2", lap);
  ts_context_destroy(ctx);
  return 0;
}
