/* C = alpha*A*B + beta*C for CSR A on the host; included once per value type
 * with TSI_VALUE (float or double) and TSI_NAME(x) defined. Each entry of C
 * sums its row's terms in storage order, starting from zero: the order is
 * fixed, so results repeat bitwise. */
static void TSI_NAME(spmm_host)(const ts_csr *a, TSI_VALUE alpha, const TSI_VALUE *b, const tsi_dense_shape *bs,
                                TSI_VALUE beta, TSI_VALUE *c, const tsi_dense_shape *cs, int num_threads) {
  const int64_t *row_ptr = a->row_ptr;
  const int32_t *col_idx = a->col_idx;
  const TSI_VALUE *values = (const TSI_VALUE *)a->values;
  const int64_t rows = a->rows, width = cs->cols;
  const bool b_rows = bs->layout == TS_LAYOUT_ROW_MAJOR, c_rows = cs->layout == TS_LAYOUT_ROW_MAJOR;
  const int64_t ld_b = bs->ld, ld_c = cs->ld;
  (void)num_threads;
#ifdef _OPENMP
  int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
#endif
  for (int64_t i = 0; i < rows; i++) {
    TSI_VALUE acc[TSI_SPMM_HOST_COLUMNS];
    for (int64_t j0 = 0; j0 < width; j0 += TSI_SPMM_HOST_COLUMNS) {
      const int64_t n = width - j0 < TSI_SPMM_HOST_COLUMNS ? width - j0 : TSI_SPMM_HOST_COLUMNS;
      for (int64_t j = 0; j < n; j++)
        acc[j] = 0;
      for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
        const TSI_VALUE v = values[k];
        const int64_t col = col_idx[k];
        if (b_rows) {
          const TSI_VALUE *row = b + col * ld_b + j0;
          for (int64_t j = 0; j < n; j++)
            acc[j] += v * row[j];
        } else {
          for (int64_t j = 0; j < n; j++)
            acc[j] += v * b[col + (j0 + j) * ld_b];
        }
      }
      /* beta == 0 overwrites C, so that NaN or garbage in C does not leak in. */
      for (int64_t j = 0; j < n; j++) {
        TSI_VALUE *out = c_rows ? c + i * ld_c + j0 + j : c + i + (j0 + j) * ld_c;
        *out = beta == 0 ? alpha * acc[j] : alpha * acc[j] + beta * *out;
      }
    }
  }
}
