/* The fill pass of the host Gustavson for one value type; included once per
 * type with TSI_VALUE and TSI_NAME(x) defined (spgemm_host.c). */
static void TSI_NAME(fill_rows)(const ts_csr *a, const ts_csr *b, tsi_spgemm_host_work *work, int64_t r0, int64_t r1,
                                const int64_t *c_off, int64_t c_base, int32_t *c_cols, TSI_VALUE *c_vals) {
  const TSI_VALUE *av = (const TSI_VALUE *)a->values, *bv = (const TSI_VALUE *)b->values;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) num_threads(work->threads)
#endif
  for (int64_t i = r0; i < r1; i++) {
    const int t = thread_index();
    unsigned char *marks = work->marks + (size_t)t * (size_t)work->cols;
    int32_t *list = work->list + (size_t)t * (size_t)work->cols;
    TSI_VALUE *acc = (TSI_VALUE *)work->values + (size_t)t * (size_t)work->cols;
    int64_t n = 0;
    for (int64_t ka = a->row_ptr[i]; ka < a->row_ptr[i + 1]; ka++) {
      const int64_t k = a->col_idx[ka];
      const TSI_VALUE x = av[ka];
      for (int64_t kb = b->row_ptr[k]; kb < b->row_ptr[k + 1]; kb++) {
        const int32_t c = b->col_idx[kb];
        if (!marks[c]) {
          marks[c] = 1;
          list[n++] = c;
          acc[c] = x * bv[kb];
        } else {
          acc[c] += x * bv[kb];
        }
      }
    }
    qsort(list, (size_t)n, sizeof *list, compare_columns);
    int32_t *cols = c_cols + (c_off[i] - c_base);
    TSI_VALUE *vals = c_vals + (c_off[i] - c_base);
    for (int64_t e = 0; e < n; e++) {
      cols[e] = list[e];
      vals[e] = acc[list[e]];
      marks[list[e]] = 0;
    }
  }
}
