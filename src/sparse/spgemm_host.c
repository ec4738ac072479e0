/* C = A*B on the host by Gustavson's row-by-row method (F. G. Gustavson,
 * "Two fast algorithms for sparse matrices: multiplication and permuted
 * transposition", ACM TOMS 4(3), 1978) with a dense accumulator per thread
 * (OpenMP): a count pass, then a fill pass whose entries add their products
 * in the order of k along A's row, so results repeat bitwise. The CPU
 * backend of SpGEMM plans and the reference of the GPU path. */
#include "spgemm_internal.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

int64_t tsi_spgemm_host_work_bytes(int threads, int64_t cols, ts_dtype dtype) {
  int64_t per_column = 1 + (int64_t)ts_dtype_size(dtype) + (int64_t)sizeof(int32_t), per_thread, bytes;
  if (tsi_mul_overflows(cols, per_column, &per_thread) || tsi_mul_overflows(per_thread, threads, &bytes))
    return INT64_MAX;
  return bytes;
}

ts_status tsi_spgemm_host_work_create(ts_context *ctx, const char *op, int threads, int64_t cols, ts_dtype dtype,
                                      tsi_spgemm_host_work *work) {
  memset(work, 0, sizeof *work);
  int64_t slots;
  if (tsi_mul_overflows(cols, threads, &slots))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: accumulators of %lld columns for %d threads pass 2^63", op,
                     (long long)cols, threads);
  work->threads = threads;
  work->cols = cols;
  work->dtype = dtype;
  work->marks = tsi_calloc_array(slots, 1);
  work->values = tsi_malloc_array(slots, ts_dtype_size(dtype));
  work->list = tsi_malloc_array(slots, sizeof(int32_t));
  if (!work->marks || !work->values || !work->list) {
    tsi_spgemm_host_work_destroy(work);
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for %d accumulators of %lld columns (%lld bytes)",
                     op, threads, (long long)cols, (long long)tsi_spgemm_host_work_bytes(threads, cols, dtype));
  }
  return TS_SUCCESS;
}

void tsi_spgemm_host_work_destroy(tsi_spgemm_host_work *work) {
  free(work->marks);
  free(work->values);
  free(work->list);
  memset(work, 0, sizeof *work);
}

static int thread_index(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/* The distinct columns of row i of C in first-touch order into list; marks
 * left set (the caller clears them). Returns how many; *products gets the
 * row's products. */
static int64_t touch_row(const ts_csr *a, const ts_csr *b, int64_t i, unsigned char *marks, int32_t *list,
                         int64_t *products) {
  int64_t n = 0, p = 0;
  for (int64_t ka = a->row_ptr[i]; ka < a->row_ptr[i + 1]; ka++) {
    const int64_t k = a->col_idx[ka];
    p += b->row_ptr[k + 1] - b->row_ptr[k];
    for (int64_t kb = b->row_ptr[k]; kb < b->row_ptr[k + 1]; kb++) {
      const int32_t c = b->col_idx[kb];
      if (!marks[c]) {
        marks[c] = 1;
        list[n++] = c;
      }
    }
  }
  *products = p;
  return n;
}

ts_status tsi_spgemm_host_count(ts_context *ctx, const ts_csr *a, const ts_csr *b, tsi_spgemm_host_work *work,
                                int64_t *row_nnz, int64_t *products) {
  int64_t total = 0;
  int overflow = 0;
  const int64_t rows = a->rows;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) num_threads(work->threads) reduction(+ : total) reduction(| : overflow)
#endif
  for (int64_t i = 0; i < rows; i++) {
    const int t = thread_index();
    unsigned char *marks = work->marks + (size_t)t * (size_t)work->cols;
    int32_t *list = work->list + (size_t)t * (size_t)work->cols;
    int64_t p = 0;
    const int64_t n = touch_row(a, b, i, marks, list, &p);
    for (int64_t e = 0; e < n; e++)
      marks[list[e]] = 0;
    row_nnz[i] = n;
    /* Each row's products fit (at most nnz(A) * INT32_MAX); their sum may not. */
    overflow |= p > INT64_MAX / 2 || total > INT64_MAX / 2;
    total += p;
  }
  if (overflow)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_spgemm_symbolic: the products of A*B pass 2^62");
  *products = total;
  return TS_SUCCESS;
}

static int compare_columns(const void *x, const void *y) {
  const int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

#define TSI_VALUE float
#define TSI_NAME(x) x##_f32
#include "spgemm_host_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

#define TSI_VALUE double
#define TSI_NAME(x) x##_f64
#include "spgemm_host_impl.h"
#undef TSI_VALUE
#undef TSI_NAME

void tsi_spgemm_host_fill(const ts_csr *a, const ts_csr *b, tsi_spgemm_host_work *work, int64_t r0, int64_t r1,
                          const int64_t *c_off, int64_t c_base, int32_t *c_cols, void *c_vals) {
  if (a->dtype == TS_FLOAT32)
    fill_rows_f32(a, b, work, r0, r1, c_off, c_base, c_cols, (float *)c_vals);
  else
    fill_rows_f64(a, b, work, r0, r1, c_off, c_base, c_cols, (double *)c_vals);
}

ts_status ts_csr_spgemm_host(ts_context *ctx, const ts_csr *a, const ts_csr *b, ts_csr **c) {
  static const char op[] = "ts_csr_spgemm_host";
  if (!c)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: c is NULL", op);
  *c = NULL;
  ts_status st = tsi_spgemm_check_operands(ctx, op, a, b);
  if (st != TS_SUCCESS)
    return st;
#ifdef _OPENMP
  const int threads = ctx && ctx->num_threads > 0 ? ctx->num_threads : omp_get_max_threads();
#else
  const int threads = 1;
#endif
  tsi_spgemm_host_work work;
  int64_t *row_nnz = tsi_malloc_array(a->rows + 1, sizeof(int64_t));
  int64_t products = 0;
  if (!row_nnz)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for %lld row counts", op, (long long)a->rows);
  st = tsi_spgemm_host_work_create(ctx, op, threads, b->cols, a->dtype, &work);
  if (st == TS_SUCCESS)
    st = tsi_spgemm_host_count(ctx, a, b, &work, row_nnz, &products);
  int64_t nnz = 0;
  for (int64_t i = 0; st == TS_SUCCESS && i < a->rows; i++)
    nnz += row_nnz[i];
  if (st == TS_SUCCESS)
    st = ts_csr_create(ctx, a->rows, b->cols, nnz, a->dtype, c);
  if (st == TS_SUCCESS) {
    for (int64_t i = 0; i < a->rows; i++)
      (*c)->row_ptr[i + 1] = (*c)->row_ptr[i] + row_nnz[i];
    tsi_spgemm_host_fill(a, b, &work, 0, a->rows, (*c)->row_ptr, 0, (*c)->col_idx, (*c)->values);
  }
  tsi_spgemm_host_work_destroy(&work);
  free(row_nnz);
  return st;
}
