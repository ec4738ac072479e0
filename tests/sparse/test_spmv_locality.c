/* The locality option on the CPU backend: accepted and recorded as none (the
 * CPU runs the operand as given), results unchanged against the plain plan;
 * an unknown layout refused with its value named. And the layouts' host
 * tables, which the GPU kernels read: the segmented runs (every long entry
 * once, segment-major, items inside one segment, each row's runs by
 * segment) and the hot columns' renumbering, each checked by computing
 * y = A x through them on the host against the plain product. */
#include "sparse/spmv_locality.h"
#include "test_common.h"

#include <stdbool.h>

static double value_of(const ts_csr *a, const void *v, int64_t k) {
  return a->dtype == TS_FLOAT32 ? (double)((const float *)v)[k] : ((const double *)v)[k];
}

/* y = A x in double from the plain CSR. */
static void product(const ts_csr *a, const double *x, double *y) {
  for (int64_t i = 0; i < a->rows; i++) {
    double sum = 0;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      sum += value_of(a, a->values, k) * x[a->col_idx[k]];
    y[i] = sum;
  }
}

static void check_segments(const char *what, const ts_csr *a, int width, int64_t min_len) {
  tsi_spmv_segment_tables t;
  ts_csr *rest = NULL;
  CHECK_OK(NULL, tsi_spmv_segment_tables_build(NULL, "test", a, width, min_len, &t));
  CHECK_OK(NULL, tsi_spmv_short_rows(NULL, a, min_len, &rest));
  double *x = calloc((size_t)a->cols + 1, 8), *want = calloc((size_t)a->rows + 1, 8),
         *got = calloc((size_t)a->rows + 1, 8);
  double *partial = calloc((size_t)t.runs + 1, 8);
  if (!rest || !x || !want || !got || !partial)
    goto done;
  unsigned long long state = 11;
  for (int64_t j = 0; j < a->cols; j++)
    x[j] = test_random(&state);
  product(a, x, want);
  product(rest, x, got);
  bool ordered = true, inside = true;
  for (int64_t i = 0; i < t.items; i++) {
    const int64_t base = (int64_t)t.item_segment[i] * width;
    for (int64_t r = t.item_run[i]; r < t.item_run[i + 1]; r++) {
      double sum = 0;
      for (int64_t k = t.run_ptr[r]; k < t.run_ptr[r + 1]; k++) {
        inside &= t.seg_cols[k] < width && base + t.seg_cols[k] < a->cols;
        sum += value_of(a, t.seg_vals, k) * x[base + t.seg_cols[k]];
      }
      partial[r] = sum;
    }
    ordered &= t.item_run[i] < t.item_run[i + 1] && (i == 0 || t.item_segment[i] >= t.item_segment[i - 1]) &&
               (t.run_ptr[t.item_run[i + 1]] - t.run_ptr[t.item_run[i]] <= TSI_SEGMENT_ITEM_ENTRIES ||
                t.item_run[i + 1] - t.item_run[i] == 1);
  }
  int64_t long_nnz = 0;
  for (int64_t i = 0; i < t.long_rows; i++) {
    const int32_t row = t.long_row[i];
    long_nnz += a->row_ptr[row + 1] - a->row_ptr[row];
    ordered &= a->row_ptr[row + 1] - a->row_ptr[row] >= min_len && rest->row_ptr[row + 1] == rest->row_ptr[row];
    double sum = 0;
    for (int64_t k = t.row_run_ptr[i]; k < t.row_run_ptr[i + 1]; k++) {
      sum += partial[t.row_runs[k]];
      ordered &= k == t.row_run_ptr[i] || t.row_runs[k] > t.row_runs[k - 1];
    }
    got[row] += sum;
  }
  CHECK_MSG(ordered && inside && long_nnz == t.long_nnz && t.run_ptr[t.runs] == t.long_nnz &&
                rest->nnz + t.long_nnz == a->nnz && t.item_run[t.items] == t.runs,
            "%s: the segment tables break their rules", what);
  int64_t bad = 0;
  for (int64_t i = 0; i < a->rows; i++)
    bad += !(fabs(got[i] - want[i]) <= 1e-12 * (1.0 + fabs(want[i])) * (double)(a->row_ptr[i + 1] - a->row_ptr[i] + 1));
  CHECK_MSG(bad == 0, "%s: %lld rows differ through the segment tables", what, (long long)bad);
done:
  tsi_spmv_segment_tables_free(&t);
  ts_csr_destroy(rest);
  free(x);
  free(want);
  free(got);
  free(partial);
}

static void check_hot(const char *what, const ts_csr *a, int64_t most, bool expect_some) {
  int32_t *hot = NULL;
  int64_t count = 0;
  double share = 0;
  ts_csr *b = NULL;
  CHECK_OK(NULL, tsi_spmv_hot_choose(NULL, "test", a, most, &hot, &count, &share));
  CHECK_MSG((count > 0) == expect_some && count <= most && share >= 0.0 && share <= 1.0, "%s: %lld hot columns", what,
            (long long)count);
  if (count > 0)
    CHECK_OK(NULL, tsi_spmv_hot_renumber(NULL, "test", a, hot, count, &b));
  if (b) {
    CHECK_OK(NULL, ts_csr_check(NULL, b));
    CHECK(b->cols == a->cols + count && b->nnz == a->nnz);
    double *x = calloc((size_t)(a->cols + count) + 1, 8), *want = calloc((size_t)a->rows + 1, 8);
    double *got = calloc((size_t)a->rows + 1, 8);
    unsigned long long state = 5;
    for (int64_t j = 0; x && j < a->cols; j++)
      x[j] = test_random(&state);
    for (int64_t k = 0; x && k < count; k++)
      x[a->cols + k] = x[hot[k]];
    if (x && want && got) {
      product(a, x, want);
      product(b, x, got);
      int64_t bad = 0;
      for (int64_t i = 0; i < a->rows; i++)
        bad += !(fabs(got[i] - want[i]) <=
                 1e-12 * (1.0 + fabs(want[i])) * (double)(a->row_ptr[i + 1] - a->row_ptr[i] + 1));
      CHECK_MSG(bad == 0, "%s: %lld rows differ through the hot columns", what, (long long)bad);
    }
    free(x);
    free(want);
    free(got);
  }
  ts_csr_destroy(b);
  free(hot);
}

int main(void) {
  ts_context *cpu = NULL;
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  if (ts_context_create(&cpu, &options) != TS_SUCCESS) {
    fprintf(stderr, "cannot create a CPU context: %s\n", ts_last_error(NULL));
    return 1;
  }
  ts_csr *a = NULL;
  ts_rmat_params p = ts_rmat_graph500(10, 8);
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 1, TS_FLOAT64, &a));
  if (!a)
    return test_finish();
  const size_t n = (size_t)a->rows;
  ts_buffer *x = NULL, *y = NULL;
  CHECK_OK(cpu, ts_buffer_create(cpu, TS_MEMORY_DEVICE, n * 8, &x));
  CHECK_OK(cpu, ts_buffer_create(cpu, TS_MEMORY_DEVICE, n * 8, &y));
  unsigned long long state = 3;
  for (size_t j = 0; j < n; j++)
    ((double *)ts_buffer_data(x))[j] = test_random(&state);
  double *plain = calloc(n + 1, 8);
  for (int l = 0; l <= 4; l++) {
    ts_spmv_options o = {0};
    o.locality = (ts_spmv_locality)l;
    ts_spmv_plan *plan = NULL;
    CHECK_OK(cpu, ts_spmv_plan_create_ex(cpu, a, &o, &plan));
    CHECK(ts_spmv_plan_locality(plan) == TS_SPMV_LOCALITY_NONE);
    CHECK_OK(cpu, ts_spmv_execute(plan, 1.0, x, 0.0, y));
    if (l == 0 && plain)
      memcpy(plain, ts_buffer_data(y), n * 8);
    else if (plain)
      CHECK(memcmp(plain, ts_buffer_data(y), n * 8) == 0);
    ts_spmv_plan_destroy(plan);
  }
  ts_spmv_options o = {0};
  ts_spmv_plan *plan = NULL;
  o.locality = (ts_spmv_locality)-1;
  CHECK_STATUS(cpu, ts_spmv_plan_create_ex(cpu, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.locality = (ts_spmv_locality)5;
  CHECK_STATUS(cpu, ts_spmv_plan_create_ex(cpu, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(cpu), "locality layout 5") != NULL && plan == NULL);
  CHECK(ts_spmv_plan_locality(NULL) == TS_SPMV_LOCALITY_NONE);
  free(plain);

  /* The host tables, on R-MAT (skewed columns) and power-law rows. */
  check_segments("R-MAT, 64-column segments", a, 64, 32);
  check_segments("R-MAT, one segment", a, 65536, 16);
  check_segments("R-MAT, nothing long", a, 64, 1 << 30);
  check_hot("R-MAT", a, 100, true);
  check_hot("R-MAT, one hot column", a, 1, true);
  ts_csr *pl = NULL;
  CHECK_OK(NULL, ts_gen_power_law(NULL, 4000, 3000, 120000, 0.9, 2, TS_FLOAT32, &pl));
  if (pl) {
    check_segments("power-law rows", pl, 500, 40);
    check_hot("power-law rows (uniform columns)", pl, 1000, false);
  }
  ts_csr_destroy(pl);
  ts_buffer_destroy(x);
  ts_buffer_destroy(y);
  ts_csr_destroy(a);
  ts_context_destroy(cpu);
  return test_finish();
}
