/* Shared by the GEMM tests: one product on a context's backend checked
 * entry by entry against the naive product computed in double. Inputs are
 * drawn in [-1, 1) and rounded to the precision first, so the reference
 * sees exactly the values tessera sees. Bound per entry (Higham, "Accuracy
 * and Stability of Numerical Algorithms", 2nd ed., section 3.5, dot
 * products): |C - C_ref| <= (k + 2) * u * (|alpha| sum_p |a_ip||b_pj| +
 * |beta||c_ij|), with u the unit roundoff, here doubled for the final
 * scaling by alpha and beta. */
#ifndef TESSERA_TEST_GEMM_CHECK_H
#define TESSERA_TEST_GEMM_CHECK_H

#include "tessera/gemm.h"
#include "test_common.h"

#include <float.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct gemm_case {
  ts_dtype dtype;
  int64_t m, n, k;
  bool trans_a, trans_b;
  int64_t lda, ldb, ldc; /* 0: the smallest valid one */
  double alpha, beta;
  bool nan_in_c;  /* C holds NaN before the call (for beta = 0) */
  bool nan_in_ab; /* A and B hold NaN (for alpha = 0 or k = 0) */
} gemm_case;

static double gemm_round(ts_dtype dtype, double v) { return dtype == TS_FLOAT32 ? (double)(float)v : v; }

/* Stored shape of an operand. */
static void gemm_stored(const gemm_case *g, char which, int64_t *rows, int64_t *cols) {
  bool trans = which == 'a' ? g->trans_a : g->trans_b;
  int64_t r = which == 'a' ? g->m : g->k, c = which == 'a' ? g->k : g->n;
  *rows = trans ? c : r;
  *cols = trans ? r : c;
}

static int64_t gemm_min_ld(int64_t rows) { return rows > 1 ? rows : 1; }

/* Upload n_values doubles into a fresh buffer of dtype; NULL on failure. */
static ts_buffer *gemm_upload(ts_context *ctx, ts_dtype dtype, const double *values, int64_t count) {
  size_t size = ts_dtype_size(dtype);
  ts_buffer *buffer = NULL;
  void *host = malloc((size_t)(count > 0 ? count : 1) * size);
  if (!host)
    return NULL;
  for (int64_t i = 0; i < count; i++) {
    if (dtype == TS_FLOAT32)
      ((float *)host)[i] = (float)values[i];
    else
      ((double *)host)[i] = values[i];
  }
  if (ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)count * size, &buffer) == TS_SUCCESS &&
      ts_buffer_upload(ctx, buffer, 0, host, (size_t)count * size) != TS_SUCCESS) {
    ts_buffer_destroy(buffer);
    buffer = NULL;
  }
  free(host);
  return buffer;
}

static bool gemm_download(ts_context *ctx, ts_dtype dtype, const ts_buffer *buffer, double *values, int64_t count) {
  size_t size = ts_dtype_size(dtype);
  void *host = malloc((size_t)(count > 0 ? count : 1) * size);
  if (!host)
    return false;
  bool ok = ts_buffer_download(ctx, buffer, 0, host, (size_t)count * size) == TS_SUCCESS;
  for (int64_t i = 0; ok && i < count; i++)
    values[i] = dtype == TS_FLOAT32 ? (double)((float *)host)[i] : ((double *)host)[i];
  free(host);
  return ok;
}

/* Run g on ctx with options (NULL allowed) and check it; returns the number
 * of wrong entries (or -1 when the call failed). When result is non-NULL it
 * receives C after the call (ldc * n values, caller frees). */
static int64_t gemm_run_case(ts_context *ctx, const gemm_case *g_in, const ts_gemm_options *options,
                             unsigned long long seed, double **result) {
  gemm_case g = *g_in;
  int64_t ar, ac, br, bc;
  gemm_stored(&g, 'a', &ar, &ac);
  gemm_stored(&g, 'b', &br, &bc);
  if (g.lda == 0)
    g.lda = gemm_min_ld(ar);
  if (g.ldb == 0)
    g.ldb = gemm_min_ld(br);
  if (g.ldc == 0)
    g.ldc = gemm_min_ld(g.m);
  int64_t na = g.lda * ac, nb = g.ldb * bc, nc = g.ldc * g.n;
  double *a = calloc((size_t)(na + 1), sizeof(double));
  double *b = calloc((size_t)(nb + 1), sizeof(double));
  double *c0 = calloc((size_t)(nc + 1), sizeof(double));
  double *c = calloc((size_t)(nc + 1), sizeof(double));
  int64_t wrong = -1;
  ts_buffer *da = NULL, *db = NULL, *dc = NULL;
  if (!a || !b || !c0 || !c)
    goto done;
  for (int64_t i = 0; i < na; i++)
    a[i] = g.nan_in_ab ? NAN : gemm_round(g.dtype, test_random(&seed));
  for (int64_t i = 0; i < nb; i++)
    b[i] = g.nan_in_ab ? NAN : gemm_round(g.dtype, test_random(&seed));
  for (int64_t i = 0; i < nc; i++)
    c0[i] = g.nan_in_c ? NAN : gemm_round(g.dtype, test_random(&seed));
  da = gemm_upload(ctx, g.dtype, a, na);
  db = gemm_upload(ctx, g.dtype, b, nb);
  dc = gemm_upload(ctx, g.dtype, c0, nc);
  if (!da || !db || !dc)
    goto done;
  ts_gemm_options o = {0};
  if (options)
    o = *options;
  o.op_a = g.trans_a ? TS_OP_TRANSPOSE : TS_OP_NONE;
  o.op_b = g.trans_b ? TS_OP_TRANSPOSE : TS_OP_NONE;
  ts_status st = ts_gemm_ex(ctx, g.dtype, g.m, g.n, g.k, g.alpha, da, g.lda, db, g.ldb, g.beta, dc, g.ldc, &o);
  if (st != TS_SUCCESS) {
    fprintf(stderr, "ts_gemm_ex: %s: %s\n", ts_status_string(st), ts_last_error(ctx));
    goto done;
  }
  if (!gemm_download(ctx, g.dtype, dc, c, nc))
    goto done;
  double u = g.dtype == TS_FLOAT32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
  wrong = 0;
  for (int64_t j = 0; j < g.n; j++) {
    for (int64_t i = 0; i < g.ldc; i++) {
      int64_t at = i + j * g.ldc;
      if (i >= g.m) { /* padding rows of C stay untouched */
        if (!(c[at] == c0[at] || (isnan(c[at]) && isnan(c0[at]))))
          wrong++;
        continue;
      }
      double sum = 0.0, magnitude = 0.0;
      if (g.alpha != 0.0) {
        for (int64_t p = 0; p < g.k; p++) {
          double x = g.trans_a ? a[p + i * g.lda] : a[i + p * g.lda];
          double y = g.trans_b ? b[j + p * g.ldb] : b[p + j * g.ldb];
          sum += x * y;
          magnitude += fabs(x * y);
        }
      }
      double ref = g.alpha * sum, bound = fabs(g.alpha) * magnitude;
      if (g.beta != 0.0) {
        ref += g.beta * c0[at];
        bound += fabs(g.beta * c0[at]);
      }
      double tolerance = 2.0 * (double)(g.k + 2) * u * bound;
      if (!(fabs(c[at] - ref) <= tolerance)) {
        if (wrong < 3)
          fprintf(stderr, "  C(%lld,%lld) = %.17g, reference %.17g, tolerance %.3g\n", (long long)i, (long long)j,
                  c[at], ref, tolerance);
        wrong++;
      }
    }
  }
  if (result) {
    *result = c;
    c = NULL;
  }
done:
  ts_buffer_destroy(da);
  ts_buffer_destroy(db);
  ts_buffer_destroy(dc);
  free(a);
  free(b);
  free(c0);
  free(c);
  return wrong;
}

static int64_t gemm_random_size(unsigned long long *state, int64_t lo, int64_t hi) {
  double r = (test_random(state) + 1.0) / 2.0; /* [0, 1) */
  return lo + (int64_t)(r * (double)(hi - lo + 1));
}

/* A random case: sizes in [1, max_size], any transposition, leading
 * dimensions either tight or padded, alpha and beta from a small set that
 * includes 0, 1 and -1. */
static gemm_case gemm_random_case(unsigned long long *state, ts_dtype dtype, int64_t max_size) {
  static const double scalars[] = {1.0, -1.0, 0.5, 0.0, 2.0, -0.75};
  gemm_case g = {.dtype = dtype};
  g.m = gemm_random_size(state, 1, max_size);
  g.n = gemm_random_size(state, 1, max_size);
  g.k = gemm_random_size(state, 1, max_size);
  g.trans_a = test_random(state) > 0.4;
  g.trans_b = test_random(state) > 0.4;
  int64_t ar, ac, br, bc;
  gemm_stored(&g, 'a', &ar, &ac);
  gemm_stored(&g, 'b', &br, &bc);
  (void)ac;
  (void)bc;
  g.lda = test_random(state) > 0.0 ? ar + gemm_random_size(state, 0, 5) : 0;
  g.ldb = test_random(state) > 0.0 ? br + gemm_random_size(state, 0, 5) : 0;
  g.ldc = test_random(state) > 0.0 ? g.m + gemm_random_size(state, 0, 5) : 0;
  g.alpha = scalars[gemm_random_size(state, 0, 2)]; /* 1, -1 or 0.5 */
  g.beta = scalars[gemm_random_size(state, 0, 5)];  /* any, 0 included */
  g.nan_in_c = g.beta == 0.0;
  return g;
}

#endif
