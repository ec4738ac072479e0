/* C = alpha op(A) op(B) + beta C on the host, blocked for the caches;
 * included once per value type with TSI_VALUE and TSI_NAME(x) defined.
 * Each thread owns whole MB x NB tiles of C (no reduction across threads,
 * so the result does not depend on the thread count): for each KB-deep slice
 * it packs op(A) (MB x KB) and op(B) (KB x NB) into contiguous column-major
 * panels, so that transposed operands cost one strided copy, then runs a
 * rank-KB update whose inner loop is unit-stride and vectorisable. */

static TSI_VALUE TSI_NAME(op_entry)(const TSI_VALUE *x, int64_t ld, bool trans, int64_t row, int64_t col) {
  return trans ? x[col + row * ld] : x[row + col * ld];
}

static void TSI_NAME(gemm_tile)(const tsi_gemm_args *g, int64_t i0, int64_t j0, TSI_VALUE *panel_a, TSI_VALUE *panel_b,
                                TSI_VALUE *acc) {
  const TSI_VALUE *a = (const TSI_VALUE *)g->a, *b = (const TSI_VALUE *)g->b;
  TSI_VALUE *c = (TSI_VALUE *)g->c;
  int64_t mb = g->m - i0 < TSI_GEMM_CPU_MB ? g->m - i0 : TSI_GEMM_CPU_MB;
  int64_t nb = g->n - j0 < TSI_GEMM_CPU_NB ? g->n - j0 : TSI_GEMM_CPU_NB;
  for (int64_t x = 0; x < TSI_GEMM_CPU_MB * TSI_GEMM_CPU_NB; x++)
    acc[x] = 0;
  for (int64_t p0 = 0; p0 < g->k; p0 += TSI_GEMM_CPU_KB) {
    int64_t kb = g->k - p0 < TSI_GEMM_CPU_KB ? g->k - p0 : TSI_GEMM_CPU_KB;
    for (int64_t p = 0; p < kb; p++)
      for (int64_t i = 0; i < mb; i++)
        panel_a[i + p * TSI_GEMM_CPU_MB] = TSI_NAME(op_entry)(a, g->lda, g->trans_a, i0 + i, p0 + p);
    for (int64_t jj = 0; jj < nb; jj++)
      for (int64_t p = 0; p < kb; p++)
        panel_b[p + jj * TSI_GEMM_CPU_KB] = TSI_NAME(op_entry)(b, g->ldb, g->trans_b, p0 + p, j0 + jj);
    /* Four columns of C per pass: each panel_a column is loaded once for four FMAs. */
    int64_t j = 0;
    for (; j + 4 <= nb; j += 4) {
      TSI_VALUE *restrict c0 = acc + j * TSI_GEMM_CPU_MB, *restrict c1 = c0 + TSI_GEMM_CPU_MB;
      TSI_VALUE *restrict c2 = c1 + TSI_GEMM_CPU_MB, *restrict c3 = c2 + TSI_GEMM_CPU_MB;
      for (int64_t p = 0; p < kb; p++) {
        const TSI_VALUE *restrict a_col = panel_a + p * TSI_GEMM_CPU_MB;
        const TSI_VALUE *b_row = panel_b + p + j * TSI_GEMM_CPU_KB;
        TSI_VALUE b0 = b_row[0], b1 = b_row[TSI_GEMM_CPU_KB], b2 = b_row[2 * TSI_GEMM_CPU_KB];
        TSI_VALUE b3 = b_row[3 * TSI_GEMM_CPU_KB];
#ifdef _OPENMP
#pragma omp simd
#endif
        for (int64_t i = 0; i < mb; i++) {
          c0[i] += a_col[i] * b0;
          c1[i] += a_col[i] * b1;
          c2[i] += a_col[i] * b2;
          c3[i] += a_col[i] * b3;
        }
      }
    }
    for (; j < nb; j++) {
      TSI_VALUE *restrict acc_col = acc + j * TSI_GEMM_CPU_MB;
      for (int64_t p = 0; p < kb; p++) {
        TSI_VALUE bpj = panel_b[p + j * TSI_GEMM_CPU_KB];
        const TSI_VALUE *restrict a_col = panel_a + p * TSI_GEMM_CPU_MB;
#ifdef _OPENMP
#pragma omp simd
#endif
        for (int64_t i = 0; i < mb; i++)
          acc_col[i] += a_col[i] * bpj;
      }
    }
  }
  TSI_VALUE alpha = (TSI_VALUE)g->alpha, beta = (TSI_VALUE)g->beta;
  for (int64_t j = 0; j < nb; j++) {
    TSI_VALUE *c_col = c + i0 + (j0 + j) * g->ldc;
    const TSI_VALUE *acc_col = acc + j * TSI_GEMM_CPU_MB;
    for (int64_t i = 0; i < mb; i++)
      /* beta == 0 overwrites C: NaN or garbage in C does not leak in. */
      c_col[i] = beta == 0 ? alpha * acc_col[i] : alpha * acc_col[i] + beta * c_col[i];
  }
}

static ts_status TSI_NAME(gemm_host)(ts_context *ctx, const tsi_gemm_args *g) {
  int64_t tiles_m = (g->m + TSI_GEMM_CPU_MB - 1) / TSI_GEMM_CPU_MB;
  int64_t tiles_n = (g->n + TSI_GEMM_CPU_NB - 1) / TSI_GEMM_CPU_NB;
  int64_t tiles = tiles_m * tiles_n; /* m, n < 2^31: no overflow */
  int threads = 1;
#ifdef _OPENMP
  threads = ctx->num_threads > 0 ? ctx->num_threads : omp_get_max_threads();
  if ((int64_t)threads > tiles)
    threads = (int)tiles;
#endif
  int64_t per_thread =
      TSI_GEMM_CPU_MB * TSI_GEMM_CPU_KB + TSI_GEMM_CPU_KB * TSI_GEMM_CPU_NB + TSI_GEMM_CPU_MB * TSI_GEMM_CPU_NB;
  TSI_VALUE *workspace = tsi_malloc_array((int64_t)threads * per_thread, sizeof(TSI_VALUE));
  if (!workspace)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_gemm: no host memory for %d threads' panels", threads);
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
  {
    int thread = 0;
#ifdef _OPENMP
    thread = omp_get_thread_num();
#endif
    TSI_VALUE *panel_a = workspace + (int64_t)thread * per_thread;
    TSI_VALUE *panel_b = panel_a + TSI_GEMM_CPU_MB * TSI_GEMM_CPU_KB;
    TSI_VALUE *acc = panel_b + TSI_GEMM_CPU_KB * TSI_GEMM_CPU_NB;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (int64_t t = 0; t < tiles; t++)
      TSI_NAME(gemm_tile)(g, (t % tiles_m) * TSI_GEMM_CPU_MB, (t / tiles_m) * TSI_GEMM_CPU_NB, panel_a, panel_b, acc);
  }
  free(workspace);
  return TS_SUCCESS;
}

static void TSI_NAME(gemm_scale_host)(const tsi_gemm_args *g) {
  TSI_VALUE *c = (TSI_VALUE *)g->c;
  TSI_VALUE beta = (TSI_VALUE)g->beta;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
  for (int64_t j = 0; j < g->n; j++)
    for (int64_t i = 0; i < g->m; i++)
      c[i + j * g->ldc] = beta == 0 ? 0 : beta * c[i + j * g->ldc];
}
