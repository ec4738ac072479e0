/* SpMM's stacked warp order, the plan's side (spmm_stack.c): A's most
 * frequent long column offset from the sample and the rule. 2-D and 3-D
 * Laplacians (d = nx; a 3-D one's nx and nx*ny tie and the smaller is d,
 * unless nx is within a warp's group), the share against the whole
 * matrix's, a 9-point stencil (three offsets at 2/9), a dominant offset
 * with empty rows and rows not a multiple of it, d past rows / 8 (no whole
 * band), random rows (no offset), tiny and empty matrices (every entry or
 * none sampled), the walk's preconditions, and the same answer twice. */
#include "sparse/spmm_internal.h"
#include "test_common.h"

#include <math.h>
#include <stdlib.h>

/* The exact share of entries at |j - i| == d. */
static double exact_share(const ts_csr *a, int64_t d) {
  int64_t n = 0;
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      n += llabs((long long)a->col_idx[k] - (long long)i) == d;
  return a->nnz > 0 ? (double)n / (double)a->nnz : 0.0;
}

/* Offset d and the rule's rows for A; the share within 3 percentage points
 * of the matrix's own when d is expected. */
static void check(const char *what, const ts_csr *a, int64_t want_offset, int64_t want_rows) {
  CHECK_MSG(a != NULL, "%s: no matrix", what);
  if (!a)
    return;
  const tsi_spmm_far_offset far = tsi_spmm_far_offset_of(a->rows, a->row_ptr, a->col_idx);
  const tsi_spmm_far_offset again = tsi_spmm_far_offset_of(a->rows, a->row_ptr, a->col_idx);
  const int64_t rows = tsi_spmm_stack_rows(a->rows, &far);
  const int64_t want_sampled = a->nnz < TSI_SPMM_STACK_SAMPLE ? a->nnz : TSI_SPMM_STACK_SAMPLE;
  CHECK_MSG(far.sampled == want_sampled, "%s: %lld entries sampled, want %lld", what, (long long)far.sampled,
            (long long)want_sampled);
  CHECK_MSG(far.offset == again.offset && far.count == again.count, "%s: a second sample differs", what);
  if (want_offset >= 0)
    CHECK_MSG(far.offset == want_offset, "%s: offset %lld, want %lld", what, (long long)far.offset,
              (long long)want_offset);
  CHECK_MSG(rows == want_rows, "%s: stacked %lld rows apart, want %lld (offset %lld, %lld of %lld sampled)", what,
            (long long)rows, (long long)want_rows, (long long)far.offset, (long long)far.count, (long long)far.sampled);
  if (far.offset > 0 && far.sampled > 0) {
    const double got = (double)far.count / (double)far.sampled, want = exact_share(a, far.offset);
    CHECK_MSG(fabs(got - want) < 0.03, "%s: offset %lld holds %.4f of the sample, %.4f of A", what,
              (long long)far.offset, got, want);
  }
}

/* rows x cols with row i holding i - d, i, i + d where in range, every
 * `empty`-th row empty (0: none), and a few random columns on every 5th
 * row. */
/* The CSR of the first nnz entries of coo (NULL on failure); coo freed. */
static ts_csr *csr_of(ts_coo *coo, int64_t nnz) {
  coo->nnz = nnz;
  ts_csr *a = NULL;
  if (ts_csr_from_coo(NULL, coo, TS_DUPLICATES_SUM, &a) != TS_SUCCESS)
    a = NULL;
  ts_coo_destroy(coo);
  return a;
}

static ts_csr *offset_matrix(int64_t rows, int64_t cols, int64_t d, int64_t empty, unsigned long long *state) {
  ts_coo *coo = NULL;
  if (ts_coo_create(NULL, rows, cols, 3 * rows + rows / 5 * 2, TS_FLOAT64, &coo) != TS_SUCCESS)
    return NULL;
  int64_t n = 0;
  for (int64_t i = 0; i < rows; i++) {
    if (empty > 0 && i % empty == empty - 1)
      continue;
    const int64_t js[3] = {i - d, i, i + d};
    for (int t = 0; t < 3; t++)
      if (js[t] >= 0 && js[t] < cols) {
        coo->row_idx[n] = (int32_t)i;
        coo->col_idx[n] = (int32_t)js[t];
        ((double *)coo->values)[n++] = 1.0;
      }
    for (int t = 0; t < 2 && i % 5 == 0; t++) {
      coo->row_idx[n] = (int32_t)i;
      const int64_t j = (int64_t)((test_random(state) + 1.0) * 0.5 * (double)cols);
      coo->col_idx[n] = (int32_t)(j < cols ? j : cols - 1);
      ((double *)coo->values)[n++] = 1.0;
    }
  }
  return csr_of(coo, n);
}

/* The 9-point stencil on an n x n grid. */
static ts_csr *nine_point(int64_t n) {
  ts_coo *coo = NULL;
  if (ts_coo_create(NULL, n * n, n * n, 9 * n * n, TS_FLOAT64, &coo) != TS_SUCCESS)
    return NULL;
  int64_t k = 0;
  for (int64_t y = 0; y < n; y++)
    for (int64_t x = 0; x < n; x++)
      for (int64_t dy = -1; dy <= 1; dy++)
        for (int64_t dx = -1; dx <= 1; dx++)
          if (x + dx >= 0 && x + dx < n && y + dy >= 0 && y + dy < n) {
            coo->row_idx[k] = (int32_t)(x + n * y);
            coo->col_idx[k] = (int32_t)(x + dx + n * (y + dy));
            ((double *)coo->values)[k++] = dx == 0 && dy == 0 ? 8.0 : -1.0;
          }
  return csr_of(coo, k);
}

static void test_offsets(void) {
  unsigned long long state = 99;
  ts_csr *a = NULL;
  /* 2-D: d = nx with 2/5 of the entries (less the boundary). */
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 300, 300, TS_FLOAT32, &a));
  check("laplacian2d 300x300", a, 300, 300);
  ts_csr_destroy(a);
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 1024, 1024, TS_FLOAT32, &a));
  check("laplacian2d 1024x1024", a, 1024, 1024);
  ts_csr_destroy(a);
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 100, 37, TS_FLOAT64, &a));
  check("laplacian2d 100x37", a, 100, 100);
  ts_csr_destroy(a);
  /* nx = 500 of 3,000 rows: no band of 8 warps 500 rows apart. */
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 500, 6, TS_FLOAT32, &a));
  check("laplacian2d 500x6", a, 500, 0);
  ts_csr_destroy(a);
  /* nx = 20 within a warp's group: d = nx ny = 400 (2/7). */
  CHECK_OK(NULL, ts_gen_laplacian_3d(NULL, 20, 20, 20, TS_FLOAT32, &a));
  check("laplacian3d 20^3", a, 400, 400);
  ts_csr_destroy(a);
  /* nx = 64 and nx ny = 4096 tie: the smaller. */
  CHECK_OK(NULL, ts_gen_laplacian_3d(NULL, 64, 64, 64, TS_FLOAT32, &a));
  check("laplacian3d 64^3", a, 64, 64);
  ts_csr_destroy(a);
  CHECK_OK(NULL, ts_gen_laplacian_3d(NULL, 128, 128, 128, TS_FLOAT32, &a));
  check("laplacian3d 128^3", a, 128, 128);
  ts_csr_destroy(a);
  /* 9-point: n - 1, n, n + 1 tie at 2/9 each, above the 1/5. */
  a = nine_point(200);
  check("9-point 200x200", a, 199, 199);
  ts_csr_destroy(a);
  /* A dominant offset not a multiple of a group, rows not a multiple of it,
   * every 3rd row empty; and d past rows / 8. */
  a = offset_matrix(8 * 1013 + 517, 8 * 1013 + 600, 1013, 3, &state);
  check("offset 1013, empty rows", a, 1013, 1013);
  ts_csr_destroy(a);
  a = offset_matrix(5000, 5000, 700, 0, &state);
  check("offset 700 of 5000 rows", a, 700, 0);
  ts_csr_destroy(a);
  /* Fewer entries than the sample: all of them. */
  a = offset_matrix(600, 600, 40, 4, &state);
  check("offset 40, 600 rows", a, 40, 40);
  ts_csr_destroy(a);
  /* Random columns: no offset holds a fifth. */
  CHECK_OK(NULL, ts_gen_random_uniform(NULL, 20000, 20000, 8, 7u, TS_FLOAT32, &a));
  check("random uniform", a, -1, 0);
  ts_csr_destroy(a);
  /* Near the diagonal only (offsets up to 32): no candidate. */
  CHECK_OK(NULL, ts_gen_banded(NULL, 5000, 3, 3, 5u, TS_FLOAT32, &a));
  check("banded 3", a, 0, 0);
  ts_csr_destroy(a);
  /* No entries; no rows. */
  a = offset_matrix(100, 100, 10, 1, &state);
  check("no entries", a, 0, 0);
  ts_csr_destroy(a);
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 1, 1, TS_FLOAT32, &a));
  if (a) {
    const tsi_spmm_far_offset none = tsi_spmm_far_offset_of(0, a->row_ptr, a->col_idx);
    CHECK(none.offset == 0 && none.sampled == 0 && tsi_spmm_stack_rows(0, &none) == 0);
  }
  ts_csr_destroy(a);
}

/* The walk that may be stacked: thread-mapped, a row-major B, two slices
 * of a warp's vector threads (over 128 fp32, 64 fp64 columns). */
static void test_walk(void) {
  struct {
    ts_dtype dtype;
    int64_t width;
    ts_layout layout_b;
    ts_schedule schedule;
    bool want;
  } cases[] = {
      {TS_FLOAT32, 256, TS_LAYOUT_ROW_MAJOR, TS_SCHEDULE_THREAD_MAPPED, true},
      {TS_FLOAT32, 520, TS_LAYOUT_ROW_MAJOR, TS_SCHEDULE_THREAD_MAPPED, true},
      {TS_FLOAT32, 130, TS_LAYOUT_ROW_MAJOR, TS_SCHEDULE_THREAD_MAPPED, true},
      {TS_FLOAT32, 128, TS_LAYOUT_ROW_MAJOR, TS_SCHEDULE_THREAD_MAPPED, false},
      {TS_FLOAT32, 32, TS_LAYOUT_ROW_MAJOR, TS_SCHEDULE_THREAD_MAPPED, false},
      {TS_FLOAT64, 128, TS_LAYOUT_ROW_MAJOR, TS_SCHEDULE_THREAD_MAPPED, true},
      {TS_FLOAT64, 64, TS_LAYOUT_ROW_MAJOR, TS_SCHEDULE_THREAD_MAPPED, false},
      {TS_FLOAT32, 256, TS_LAYOUT_COL_MAJOR, TS_SCHEDULE_THREAD_MAPPED, false},
      {TS_FLOAT32, 256, TS_LAYOUT_ROW_MAJOR, TS_SCHEDULE_WARP_MAPPED, false},
      {TS_FLOAT32, 256, TS_LAYOUT_ROW_MAJOR, TS_SCHEDULE_MERGE_PATH, false},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    tsi_dense_shape b = {1000, cases[c].width, 0, cases[c].layout_b, 0};
    b.ld = cases[c].layout_b == TS_LAYOUT_ROW_MAJOR ? cases[c].width : 1000;
    tsi_dense_shape cs = {1000, cases[c].width, cases[c].width, TS_LAYOUT_ROW_MAJOR, 0};
    const tsi_spmm_lanes l = tsi_spmm_lanes_for(cases[c].dtype, cases[c].width, &b, &cs);
    const bool got = tsi_spmm_stack_walk(cases[c].schedule, &l, cases[c].layout_b);
    CHECK_MSG(got == cases[c].want, "case %zu (%s width %lld, %s): walk %d, want %d", c,
              cases[c].dtype == TS_FLOAT32 ? "float" : "double", (long long)cases[c].width,
              ts_schedule_name(cases[c].schedule), (int)got, (int)cases[c].want);
  }
}

int main(void) {
  test_offsets();
  test_walk();
  return test_finish();
}
