/* y = alpha*A*x + beta*y for CSR on the host; included once per value type
 * with TSI_VALUE (the stored type), TSI_SUM (the type a row is summed in),
 * TSI_NAME(x), and the arithmetic: TSI_SUM_ZERO, TSI_SUM_ADD_PRODUCT(sum,
 * a, x) (sum + a * x), TSI_SUM_STORE(alpha, sum, beta, y) (the new y from a
 * row's sum; beta = 0 ignores y) with alpha and beta real. */
static void TSI_NAME(spmv_csr_host)(const ts_csr *a, double alpha, const TSI_VALUE *x, double beta, TSI_VALUE *y,
                                    int num_threads) {
  const int64_t *row_ptr = a->row_ptr;
  const int32_t *col_idx = a->col_idx;
  const TSI_VALUE *values = (const TSI_VALUE *)a->values;
  int64_t rows = a->rows;
  (void)num_threads;
#ifdef _OPENMP
  int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, TSI_SPMV_CPU_ROWS_PER_CHUNK)                                                \
    num_threads(threads) if (a->nnz >= TSI_SPMV_CPU_PARALLEL_MIN_NNZ)
#endif
  for (int64_t i = 0; i < rows; i++) {
    TSI_SUM sum = TSI_SUM_ZERO;
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++)
      sum = TSI_SUM_ADD_PRODUCT(sum, values[k], x[col_idx[k]]);
    /* beta == 0 overwrites y, so that NaN or garbage in y does not leak in. */
    y[i] = TSI_SUM_STORE(alpha, sum, beta, y[i]);
  }
}
