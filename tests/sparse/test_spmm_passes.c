/* SpMM's passes over bands of columns, the plan's side: the rule
 * (tsi_spmm_pass_rule, spmm_passes.c) on a GPU of a small L2, so that a
 * modest B passes eight L2s: bands of 128 fp32 / 64 fp64 columns for a
 * row-major B of random columns under thread-mapped and split-rows; one
 * pass for a column-major B, a B under two bands wide, under eight L2s, a
 * stencil, no entries, schedules that do not walk rows, and no L2 (the CPU
 * backend); the vector of a band dividing every band's start; then plans on
 * the CPU backend with requested passes (dividing the width and not, wider
 * than it, of one column) in every layout pair with padding and beta,
 * bitwise equal to one pass and to ts_csr_spmm_host(), the explain line
 * naming the passes, and a negative pass refused. */
#include "product_test_util.h"
#include "sparse/spmm_internal.h"

/* B of a.cols x width, row-major packed unless said. */
static tsi_dense_shape shape_b(int64_t rows, int64_t width, ts_layout layout, int64_t ld) {
  tsi_dense_shape b = {rows, width, ld, layout, 0};
  if (ld == 0)
    b.ld = layout == TS_LAYOUT_ROW_MAJOR ? width : rows;
  return b;
}

/* The rule's columns a pass, its reason checked to hold `want_why`. */
static void check_rule(const char *what, const ts_device_info *info, ts_schedule schedule, ts_dtype dtype,
                       const tsi_dense_shape *b, const tsi_spmm_far_offset *far, int64_t want, const char *want_why) {
  char why[256] = "";
  const int64_t got = tsi_spmm_pass_rule(info, schedule, dtype, b, far, why, sizeof why);
  CHECK_MSG(got == want, "%s: %lld columns a pass, want %lld (%s)", what, (long long)got, (long long)want, why);
  CHECK_MSG(strstr(why, want_why) != NULL, "%s: the reason '%s' lacks '%s'", what, why, want_why);
}

static void test_rule(void) {
  /* Random columns (no offset holds a fifth) and a 2-D Laplacian (d = nx
   * with 2/5), both of 90,000 columns: B of 92 MB at 256 fp32 columns. */
  ts_csr *random = NULL, *stencil = NULL;
  CHECK_OK(NULL, ts_gen_random_uniform(NULL, 90000, 90000, 8, 7u, TS_FLOAT32, &random));
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, 300, 300, TS_FLOAT32, &stencil));
  if (!random || !stencil) {
    ts_csr_destroy(random);
    ts_csr_destroy(stencil);
    return;
  }
  const tsi_spmm_far_offset far = tsi_spmm_far_offset_of(random->rows, random->row_ptr, random->col_idx);
  const tsi_spmm_far_offset near = tsi_spmm_far_offset_of(stencil->rows, stencil->row_ptr, stencil->col_idx);
  const tsi_spmm_far_offset none = {0, 0, 0};
  CHECK_MSG(!tsi_spmm_stencil(&far), "random columns: offset %lld holds %lld of %lld", (long long)far.offset,
            (long long)far.count, (long long)far.sampled);
  CHECK_MSG(tsi_spmm_stencil(&near), "laplacian2d: offset %lld holds %lld of %lld", (long long)near.offset,
            (long long)near.count, (long long)near.sampled);
  ts_device_info info;
  memset(&info, 0, sizeof info);
  info.multiprocessors = 132;
  info.l2_cache_bytes = 1 << 20; /* 1 MB: B of 8 MB or more is "far larger" */
  const int64_t n = 90000;
  const ts_schedule walks[] = {TS_SCHEDULE_THREAD_MAPPED, TS_SCHEDULE_SPLIT_ROWS};
  const ts_schedule others[] = {TS_SCHEDULE_WARP_MAPPED, TS_SCHEDULE_BLOCK_MAPPED, TS_SCHEDULE_GROUP_MAPPED,
                                TS_SCHEDULE_MERGE_PATH, TS_SCHEDULE_WORK_ORIENTED};
  /* What each schedule that walks rows meets: B's width, ld (0: packed) and
   * layout, the value type, A's sample, whether the GPU's L2 is known, and
   * the answer. */
  const struct {
    const char *what;
    int64_t width, ld;
    ts_layout layout;
    ts_dtype dtype;
    const tsi_spmm_far_offset *sample;
    bool on_gpu;
    int64_t want;
    const char *why;
  } cases[] = {{"fp32, 256 columns", 256, 0, TS_LAYOUT_ROW_MAJOR, TS_FLOAT32, &far, true, 128, "no stencil"},
               {"fp32, 520 columns, ld 600", 520, 600, TS_LAYOUT_ROW_MAJOR, TS_FLOAT32, &far, true, 128, "no stencil"},
               {"fp64, 128 columns", 128, 0, TS_LAYOUT_ROW_MAJOR, TS_FLOAT64, &far, true, 64, "no stencil"},
               {"fp32, 128 columns: one band", 128, 0, TS_LAYOUT_ROW_MAJOR, TS_FLOAT32, &far, true, 128,
                "under two bands of 128"},
               {"fp32, 255 columns", 255, 0, TS_LAYOUT_ROW_MAJOR, TS_FLOAT32, &far, true, 255, "under two bands"},
               {"fp64, 127 columns", 127, 0, TS_LAYOUT_ROW_MAJOR, TS_FLOAT64, &far, true, 127, "under two bands of 64"},
               {"column-major B", 256, 0, TS_LAYOUT_COL_MAJOR, TS_FLOAT32, &far, true, 256, "column-major"},
               {"a stencil", 256, 0, TS_LAYOUT_ROW_MAJOR, TS_FLOAT32, &near, true, 256, "a stencil"},
               {"no entries", 256, 0, TS_LAYOUT_ROW_MAJOR, TS_FLOAT32, &none, true, 256, "no entries"},
               {"no L2 (CPU backend)", 256, 0, TS_LAYOUT_ROW_MAJOR, TS_FLOAT32, &far, false, 256, "CPU backend"}};
  for (int s = 0; s < 2; s++)
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      const tsi_dense_shape b = shape_b(n, cases[k].width, cases[k].layout, cases[k].ld);
      check_rule(cases[k].what, cases[k].on_gpu ? &info : NULL, walks[s], cases[k].dtype, &b, cases[k].sample,
                 cases[k].want, cases[k].why);
    }
  for (size_t s = 0; s < sizeof others / sizeof others[0]; s++) {
    const tsi_dense_shape b = shape_b(n, 512, TS_LAYOUT_ROW_MAJOR, 0);
    check_rule(ts_schedule_name(others[s]), &info, others[s], TS_FLOAT32, &b, &far, 512, "does not walk rows");
  }
  /* Eight L2s exactly: bands; one byte of L2 more: one pass. */
  const tsi_dense_shape b = shape_b(n, 256, TS_LAYOUT_ROW_MAJOR, 0);
  const int64_t bytes = n * 256 * 4;
  info.l2_cache_bytes = bytes / TSI_SPMM_PASS_L2_MULTIPLE;
  check_rule("eight L2s", &info, TS_SCHEDULE_THREAD_MAPPED, TS_FLOAT32, &b, &far, 128, "no stencil");
  info.l2_cache_bytes++;
  check_rule("under eight L2s", &info, TS_SCHEDULE_THREAD_MAPPED, TS_FLOAT32, &b, &far, 256, "under 8 L2s");
  info.l2_cache_bytes = 50 << 20; /* an H100's: B of 92 MB is under 400 MB */
  check_rule("an H100's L2", &info, TS_SCHEDULE_THREAD_MAPPED, TS_FLOAT32, &b, &far, 256, "under 8 L2s");
  info.l2_cache_bytes = 0;
  check_rule("L2 of 0", &info, TS_SCHEDULE_THREAD_MAPPED, TS_FLOAT32, &b, &far, 256, "no L2");
  ts_csr_destroy(random);
  ts_csr_destroy(stencil);
}

/* A band's vector divides the pass width, the whole width and ld, so that
 * every band starts and ends on one. */
static void test_band_vectors(void) {
  struct {
    ts_dtype dtype;
    int64_t width, pass, ld;
    int want;
  } cases[] = {
      {TS_FLOAT32, 256, 128, 256, 4}, {TS_FLOAT32, 300, 128, 300, 4}, {TS_FLOAT32, 260, 130, 260, 2},
      {TS_FLOAT32, 300, 7, 300, 1},   {TS_FLOAT32, 256, 128, 258, 2}, {TS_FLOAT32, 256, 128, 257, 1},
      {TS_FLOAT32, 258, 128, 258, 2}, {TS_FLOAT64, 128, 64, 128, 2},  {TS_FLOAT64, 129, 64, 129, 1},
      {TS_FLOAT64, 130, 65, 130, 1},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const tsi_dense_shape b = shape_b(1000, cases[k].width, TS_LAYOUT_ROW_MAJOR, cases[k].ld);
    const tsi_dense_shape c = shape_b(1000, cases[k].width, TS_LAYOUT_ROW_MAJOR, 0);
    int64_t g = cases[k].pass, r = cases[k].width; /* their gcd: bands start g columns apart */
    while (r != 0) {
      const int64_t t = g % r;
      g = r;
      r = t;
    }
    const int64_t last = cases[k].width - (cases[k].width - 1) / cases[k].pass * cases[k].pass;
    const tsi_spmm_lanes whole = tsi_spmm_lanes_for_band(cases[k].dtype, cases[k].pass, g, &b, &c);
    const tsi_spmm_lanes end = tsi_spmm_lanes_for_band(cases[k].dtype, last, g, &b, &c);
    CHECK_MSG(whole.vector == cases[k].want && end.vector == cases[k].want,
              "case %zu (width %lld, passes of %lld, ld %lld): vectors %d and %d, want %d", k,
              (long long)cases[k].width, (long long)cases[k].pass, (long long)cases[k].ld, whole.vector, end.vector,
              cases[k].want);
    /* A band of the whole width is today's vector thread. */
    const tsi_spmm_lanes one = tsi_spmm_lanes_for(cases[k].dtype, cases[k].width, &b, &c);
    const tsi_spmm_lanes band = tsi_spmm_lanes_for_band(cases[k].dtype, cases[k].width, cases[k].width, &b, &c);
    CHECK(one.vector == band.vector && one.lanes == band.lanes && one.slices == band.slices);
  }
}

/* C = alpha A B + beta C through a CPU plan with `pass` columns a pass;
 * into c (c holds C's input on entry). */
static ts_status run_plan(ts_context *ctx, const ts_csr *a, int64_t width, const ts_spmm_options *o, double alpha,
                          const void *b, size_t b_bytes, double beta, void *c, size_t c_bytes, char *explain,
                          size_t explain_size) {
  ts_spmm_plan *plan = NULL;
  ts_buffer *bb = NULL, *bc = NULL;
  ts_status st = ts_spmm_plan_create(ctx, a, width, o, &plan);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, b_bytes, &bb);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, c_bytes, &bc);
  if (st == TS_SUCCESS)
    st = ts_buffer_upload(ctx, bb, 0, b, b_bytes);
  if (st == TS_SUCCESS)
    st = ts_buffer_upload(ctx, bc, 0, c, c_bytes);
  if (st == TS_SUCCESS)
    st = ts_spmm_execute(plan, alpha, bb, beta, bc);
  if (st == TS_SUCCESS)
    st = ts_buffer_download(ctx, bc, 0, c, c_bytes);
  if (plan)
    snprintf(explain, explain_size, "%s", ts_spmm_plan_explain(plan));
  ts_buffer_destroy(bb);
  ts_buffer_destroy(bc);
  ts_spmm_plan_destroy(plan);
  return st;
}

/* Requested passes on the CPU backend against one pass (bitwise) and the
 * reference (to rounding), the explain line naming them. */
static void check_passes(ts_context *ctx, const ts_csr *a, int64_t width, int64_t pass, ts_layout lb, int64_t ld_b,
                         ts_layout lc, int64_t ld_c, double beta, unsigned long long *state) {
  const ts_dtype dtype = a->dtype;
  const size_t vs = ts_dtype_size(dtype);
  const pt_dense bd = pt_dense_of(a->cols, width, lb, ld_b), cd = pt_dense_of(a->rows, width, lc, ld_c);
  const size_t b_bytes = (size_t)bd.elements * vs + 8, c_bytes = (size_t)cd.elements * vs + 8;
  /* calloc: every byte defined, the 8 past each span too. */
  void *b = calloc(b_bytes, 1), *c_in = calloc(c_bytes, 1), *one = calloc(c_bytes, 1), *passes = calloc(c_bytes, 1);
  double *ref = calloc((size_t)(a->rows * width) + 1, sizeof(double));
  double *bound = calloc((size_t)(a->rows * width) + 1, sizeof(double));
  char label[192], explain[TSI_SPMM_EXPLAIN_SIZE] = "";
  snprintf(label, sizeof label, "%s width %lld, passes of %lld, %s B ld %lld, %s C ld %lld, beta %g",
           dtype == TS_FLOAT32 ? "fp32" : "fp64", (long long)width, (long long)pass, ts_layout_name(lb),
           (long long)bd.ld, ts_layout_name(lc), (long long)cd.ld, beta);
  if (!b || !c_in || !one || !passes || !ref || !bound) {
    CHECK_MSG(0, "%s: out of host memory", label);
    goto cleanup;
  }
  pt_fill_random(b, dtype, bd.elements, false, state);
  pt_fill_random(c_in, dtype, cd.elements, false, state);
  memcpy(one, c_in, c_bytes);
  memcpy(passes, c_in, c_bytes);
  ts_spmm_options o;
  memset(&o, 0, sizeof o);
  o.layout_b = lb;
  o.layout_c = lc;
  o.ld_b = ld_b;
  o.ld_c = ld_c;
  ts_status st = run_plan(ctx, a, width, &o, -0.75, b, b_bytes, beta, one, c_bytes, explain, sizeof explain);
  CHECK_MSG(st == TS_SUCCESS, "%s, one pass: %s", label, ts_last_error(ctx));
  CHECK_MSG(strstr(explain, "; one pass (") != NULL, "%s: one pass explained as '%s'", label, explain);
  o.pass_columns = pass;
  st = run_plan(ctx, a, width, &o, -0.75, b, b_bytes, beta, passes, c_bytes, explain, sizeof explain);
  CHECK_MSG(st == TS_SUCCESS, "%s: %s", label, ts_last_error(ctx));
  if (st != TS_SUCCESS)
    goto cleanup;
  CHECK_MSG(memcmp(one, passes, c_bytes) == 0, "%s: other bits than one pass", label);
  char want[96];
  const int64_t count = (width + pass - 1) / pass;
  if (count > 1)
    snprintf(want, sizeof want, "; %lld passes of %lld columns", (long long)count, (long long)pass);
  else
    snprintf(want, sizeof want, "; one pass (%lld columns a pass requested)", (long long)pass);
  CHECK_MSG(strstr(explain, want) != NULL, "%s: explained as '%s', want '%s'", label, explain, want);
  pt_spmm_reference(a, b, &bd, dtype, ref, bound);
  const int64_t bad = pt_spmm_compare(label, a, &cd, dtype, -0.75, beta, ref, bound, c_in, passes);
  CHECK_MSG(bad == 0, "%s: %lld entries wrong", label, (long long)bad);
  /* The plan's product is the host call's. */
  memcpy(one, c_in, c_bytes);
  CHECK_OK(ctx, ts_csr_spmm_host(ctx, -0.75, a, width, b, lb, ld_b, beta, one, lc, ld_c));
  CHECK_MSG(memcmp(one, passes, c_bytes) == 0, "%s: other bits than ts_csr_spmm_host", label);
cleanup:
  free(b);
  free(c_in);
  free(one);
  free(passes);
  free(ref);
  free(bound);
}

static void test_cpu_passes(ts_dtype dtype) {
  unsigned long long state = 31 + (unsigned long long)dtype;
  ts_context *ctx = pt_cpu_context(2);
  const int64_t lengths[] = {0, 3, 1, 12, 0, 5, 40, 2, 300, 7};
  ts_csr *a = pt_random_csr(400, 350, lengths, 10, dtype, &state);
  CHECK(ctx != NULL && a != NULL);
  if (ctx && a) {
    const ts_layout r = TS_LAYOUT_ROW_MAJOR, c = TS_LAYOUT_COL_MAJOR;
    check_passes(ctx, a, 256, 128, r, 0, r, 0, 0.0, &state);
    check_passes(ctx, a, 300, 128, r, 0, r, 0, 0.5, &state);
    check_passes(ctx, a, 520, 256, r, 0, r, 0, 0.0, &state); /* past the host's 256-column block */
    check_passes(ctx, a, 70, 7, r, 0, r, 0, 1.0, &state);
    check_passes(ctx, a, 75, 7, r, 81, r, 77, -1.5, &state); /* padded B and C */
    check_passes(ctx, a, 75, 7, c, 0, c, 0, 0.0, &state);
    check_passes(ctx, a, 75, 7, c, 353, c, 401, 2.0, &state);
    check_passes(ctx, a, 75, 16, r, 80, c, 0, 0.25, &state);
    check_passes(ctx, a, 75, 16, c, 0, r, 0, 0.0, &state);
    check_passes(ctx, a, 33, 1, r, 0, r, 0, 0.5, &state);
    check_passes(ctx, a, 33, 32, r, 0, r, 0, 0.0, &state);
    check_passes(ctx, a, 33, 33, r, 0, r, 0, 0.0, &state);
    check_passes(ctx, a, 33, 1000, c, 0, c, 0, 1.0, &state);
  }
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
}

static void test_refused(void) {
  unsigned long long state = 8;
  ts_context *ctx = pt_cpu_context(1);
  const int64_t lengths[] = {2};
  ts_csr *a = pt_random_csr(4, 3, lengths, 1, TS_FLOAT32, &state);
  CHECK(ctx != NULL && a != NULL);
  if (ctx && a) {
    ts_spmm_options o;
    memset(&o, 0, sizeof o);
    o.pass_columns = -1;
    ts_spmm_plan *plan = NULL;
    CHECK_STATUS(ctx, ts_spmm_plan_create(ctx, a, 8, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(ts_last_error(ctx), "pass_columns -1 is negative") != NULL, "message: %s", ts_last_error(ctx));
    CHECK(plan == NULL);
    /* A width of 0 with passes requested: one pass, nothing to do. */
    o.pass_columns = 4;
    CHECK_OK(ctx, ts_spmm_plan_create(ctx, a, 0, &o, &plan));
    if (plan)
      CHECK_MSG(strstr(ts_spmm_plan_explain(plan), "; one pass (4 columns a pass requested)") != NULL, "width 0: %s",
                ts_spmm_plan_explain(plan));
    ts_spmm_plan_destroy(plan);
  }
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
}

int main(void) {
  test_rule();
  test_band_vectors();
  test_cpu_passes(TS_FLOAT32);
  test_cpu_passes(TS_FLOAT64);
  test_refused();
  return test_finish();
}
