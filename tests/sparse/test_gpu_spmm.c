/* SpMM plans on the CUDA backend against the naive double-precision
 * reference (product_test_util.h) with Higham's bound: every schedule and
 * group size, widths from 1 to 512 and a thin A with 2^21 columns, every
 * pair of layouts, padded leading dimensions (the gaps must stay untouched),
 * alpha/beta pairs and NaN in C with beta = 0, in float and double; edge
 * shapes (no entries, 0 x 0, one column, one huge row, empty rows,
 * power-law rows); split-rows on a huge row, and on near, far and huge
 * rows together (each joined its own way); many short rows that
 * thread-mapped walks in groups; stencils and a dominant column offset that
 * thread-mapped walks with a block's warps stacked d rows apart (and one
 * too far for it); passes over bands of columns (pass_columns): every
 * schedule with passes dividing the width and not, a padded B and C with
 * beta, column-major with passes of 7, split-rows on a huge row, thread-
 * mapped bitwise equal to one pass, and the plan's rule taking bands on a B
 * of ten L2s of random columns; the corpus; bitwise repeatability of every
 * run (each is executed twice); refused arguments (a negative pass).
 *
 * Under compute-sanitizer (TESSERA_UNDER_SANITIZER names the tool) the
 * matrices and widths shrink, the thin case keeps 2^16 columns and the corpus
 * 4 small matrices; racecheck (shared memory only: block-mapped's join and
 * split-rows' block join) runs the schedule sweep and the split-rows cases in
 * float once, with and without passes. */
#include "internal.h"
#include "product_test_util.h"

static ts_context *gpu;
static int runs; /* checked executions */

static run_mode mode = RUN_FULL;

static int64_t pick(int64_t full, int64_t small) { return mode == RUN_FULL ? full : small; }

/* One SpMM to run and check. */
typedef struct spmm_case {
  const char *what;
  int64_t width;
  ts_spmm_options options;
  double alpha, beta;
  int nan_c;           /* C's input is NaN and beta = 0 */
  const char *explain; /* when set: the plan's explain line holds it */
  void *out;           /* when set: receives C after the run (C's span of values) */
} spmm_case;

/* Plan, run twice (bitwise equal), check against the reference. Returns the
 * failing entries (1 when a call failed). */
static int64_t check_gpu(const ts_csr *a, const spmm_case *k, unsigned long long *state) {
  const ts_dtype dtype = a->dtype;
  const size_t vs = ts_dtype_size(dtype);
  const ts_spmm_options *o = &k->options;
  pt_dense bd = pt_dense_of(a->cols, k->width, o->layout_b, o->ld_b);
  pt_dense cd = pt_dense_of(a->rows, k->width, o->layout_c, o->ld_c);
  const size_t b_bytes = (size_t)bd.elements * vs, c_bytes = (size_t)cd.elements * vs;
  const size_t cells = (size_t)(a->rows * k->width);
  void *b = malloc(b_bytes + 8), *c_in = malloc(c_bytes + 8), *c_out = malloc(c_bytes + 8),
       *again = malloc(c_bytes + 8);
  double *ref = malloc(cells * sizeof(double) + 8), *bound = malloc(cells * sizeof(double) + 8);
  ts_spmm_plan *plan = NULL;
  ts_buffer *bb = NULL, *bc = NULL;
  int64_t bad = 1;
  char label[256];
  snprintf(label, sizeof label,
           "%s [%s, width %lld, %s B ld %lld, %s C ld %lld, group %d, passes of %lld, alpha %g, beta %g%s]", k->what,
           ts_schedule_name(o->schedule), (long long)k->width, ts_layout_name(o->layout_b), (long long)bd.ld,
           ts_layout_name(o->layout_c), (long long)cd.ld, o->group_size, (long long)o->pass_columns, k->alpha, k->beta,
           k->nan_c ? ", NaN C" : "");
  if (!b || !c_in || !c_out || !again || !ref || !bound) {
    CHECK_MSG(0, "%s: out of host memory", label);
    goto cleanup;
  }
  pt_fill_random(b, dtype, bd.elements, false, state);
  pt_fill_random(c_in, dtype, cd.elements, k->nan_c, state);
  pt_spmm_reference(a, b, &bd, dtype, ref, bound);
  ts_status st = ts_spmm_plan_create(gpu, a, k->width, o, &plan);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(gpu, TS_MEMORY_DEVICE, b_bytes, &bb);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(gpu, TS_MEMORY_DEVICE, c_bytes, &bc);
  if (st == TS_SUCCESS)
    st = ts_buffer_upload(gpu, bb, 0, b, b_bytes);
  for (int run = 0; run < 2 && st == TS_SUCCESS; run++) {
    st = ts_buffer_upload(gpu, bc, 0, c_in, c_bytes);
    if (st == TS_SUCCESS)
      st = ts_spmm_execute(plan, k->alpha, bb, k->nan_c ? 0.0 : k->beta, bc);
    if (st == TS_SUCCESS)
      st = ts_context_sync(gpu);
    if (st == TS_SUCCESS)
      st = ts_buffer_download(gpu, bc, 0, run == 0 ? c_out : again, c_bytes);
    runs++;
  }
  CHECK_MSG(st == TS_SUCCESS, "%s: %s: %s", label, ts_status_string(st), ts_last_error(gpu));
  if (st != TS_SUCCESS)
    goto cleanup;
  CHECK_MSG(memcmp(c_out, again, c_bytes) == 0, "%s: a second run gave other bits", label);
  CHECK(o->schedule == TS_SCHEDULE_AUTO || ts_spmm_plan_schedule(plan) == o->schedule);
  CHECK_MSG(!k->explain || strstr(ts_spmm_plan_explain(plan), k->explain), "%s: the plan says '%s', want '%s'", label,
            ts_spmm_plan_explain(plan), k->explain);
  bad = pt_spmm_compare(label, a, &cd, dtype, k->alpha, k->nan_c ? 0.0 : k->beta, ref, bound, c_in, c_out);
  CHECK_MSG(bad == 0, "%s: %lld entries wrong (plan: %s)", label, (long long)bad, ts_spmm_plan_explain(plan));
  if (k->out)
    memcpy(k->out, c_out, c_bytes);
cleanup:
  ts_buffer_destroy(bb);
  ts_buffer_destroy(bc);
  ts_spmm_plan_destroy(plan);
  free(b);
  free(c_in);
  free(c_out);
  free(again);
  free(ref);
  free(bound);
  return bad;
}

static spmm_case make_case(const char *what, int64_t width, ts_schedule schedule, ts_layout lb, ts_layout lc) {
  spmm_case k;
  memset(&k, 0, sizeof k);
  k.what = what;
  k.width = width;
  k.options.schedule = schedule;
  k.options.layout_b = lb;
  k.options.layout_c = lc;
  k.alpha = 1.0;
  k.beta = 0.0;
  return k;
}

/* A matrix with empty, short, medium and long rows (longer than a
 * split-rows piece, so that every schedule cuts or shares some rows). */
static ts_csr *mixed_matrix(ts_dtype dtype, unsigned long long *state) {
  const int64_t lengths[] = {0, 3, 1, 12, 0, 5, 40, 2, 700, 7, 0, 1};
  ts_csr *a = pt_random_csr(pick(1500, 150), pick(2000, 400), lengths, 12, dtype, state);
  CHECK_MSG(a != NULL, "the mixed matrix (%s) could not be made", dtype == TS_FLOAT32 ? "float" : "double");
  return a;
}

/* Every schedule (and group sizes) at widths that take each vector width
 * and lane count, in three layout pairs. */
static void test_schedules(ts_dtype dtype) {
  unsigned long long state = 101 + (unsigned long long)dtype;
  ts_csr *a = mixed_matrix(dtype, &state);
  if (!a)
    return;
  const int64_t widths_full[] = {1, 3, 4, 8, 16, 33, 64, 128, 130, 256, 512};
  const int64_t widths_small[] = {1, 6, 33, 130};
  const int64_t *widths = mode == RUN_FULL ? widths_full : widths_small;
  const int nwidths = mode == RUN_FULL ? 11 : 4;
  const ts_layout pairs[3][2] = {{TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR},
                                 {TS_LAYOUT_COL_MAJOR, TS_LAYOUT_COL_MAJOR},
                                 {TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_COL_MAJOR}};
  for (int s = 0; s < TS_SCHEDULE_COUNT; s++)
    for (int w = 0; w < nwidths; w++)
      for (int p = 0; p < 3; p++) {
        if (mode == RUN_RACECHECK && (p > 0 || s != TS_SCHEDULE_BLOCK_MAPPED))
          continue;
        spmm_case k = make_case("mixed rows", widths[w], (ts_schedule)s, pairs[p][0], pairs[p][1]);
        if (w % 2 == 1) {
          k.alpha = -0.5;
          k.beta = 1.5;
        }
        check_gpu(a, &k, &state);
      }
  /* Group-mapped's group sizes: a lane's worth, within a warp, a block. */
  const int groups[] = {1, 2, 8, 32, 64, 1024};
  for (size_t g = 0; g < sizeof groups / sizeof groups[0] && mode != RUN_RACECHECK; g++)
    for (int w = 0; w < nwidths; w += 3) {
      spmm_case k =
          make_case("mixed rows", widths[w], TS_SCHEDULE_GROUP_MAPPED, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
      k.options.group_size = groups[g];
      check_gpu(a, &k, &state);
    }
  ts_csr_destroy(a);
}

/* Every width from 1 to 512 with AUTO (row-major), and a few with padding,
 * alpha/beta pairs and NaN. */
static void test_widths(ts_dtype dtype) {
  unsigned long long state = 202 + (unsigned long long)dtype;
  const int64_t lengths[] = {4, 0, 9, 1, 30};
  ts_csr *a = pt_random_csr(pick(300, 40), pick(250, 50), lengths, 5, dtype, &state);
  CHECK(a != NULL);
  if (!a)
    return;
  const int64_t step = mode == RUN_FULL ? 1 : 37;
  for (int64_t w = 1; w <= 512; w += step) {
    spmm_case k = make_case("widths", w, TS_SCHEDULE_AUTO, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    check_gpu(a, &k, &state);
  }
  static const double alphas[] = {1.0, -0.5, 2.0, 0.0};
  static const double betas[] = {1.0, -0.5, 0.0, 2.0};
  for (int s = 0; s < 4; s++)
    for (int p = 0; p < 2; p++) {
      spmm_case k =
          make_case("padded", 20 + s, p ? TS_SCHEDULE_MERGE_PATH : TS_SCHEDULE_AUTO,
                    p ? TS_LAYOUT_COL_MAJOR : TS_LAYOUT_ROW_MAJOR, p ? TS_LAYOUT_COL_MAJOR : TS_LAYOUT_ROW_MAJOR);
      k.options.ld_b = p ? a->cols + 3 : 20 + s + 4;
      k.options.ld_c = p ? a->rows + 5 : 20 + s + 1;
      k.alpha = alphas[s];
      k.beta = betas[s];
      check_gpu(a, &k, &state);
    }
  for (int s = 0; s < TS_SCHEDULE_COUNT; s++) {
    spmm_case k = make_case("NaN in C", 24, (ts_schedule)s, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    k.nan_c = 1;
    k.alpha = 2.0;
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
}

/* A thin A (3 x 5) times B with 2^21 columns (2^16 under the sanitizer),
 * in both layouts and with every schedule at 2^18 or 2^12 columns. */
static void test_thin(ts_dtype dtype) {
  unsigned long long state = 303 + (unsigned long long)dtype;
  const int64_t lengths[] = {5, 2, 3};
  ts_csr *a = pt_random_csr(3, 5, lengths, 3, dtype, &state);
  CHECK(a != NULL);
  if (!a)
    return;
  const int64_t wide = (int64_t)1 << pick(21, 16);
  for (int p = 0; p < 2; p++) {
    spmm_case k = make_case("thin 3x5", wide, TS_SCHEDULE_AUTO, p ? TS_LAYOUT_COL_MAJOR : TS_LAYOUT_ROW_MAJOR,
                            p ? TS_LAYOUT_COL_MAJOR : TS_LAYOUT_ROW_MAJOR);
    k.beta = 0.5;
    check_gpu(a, &k, &state);
  }
  for (int s = 1; s < TS_SCHEDULE_COUNT && mode == RUN_FULL; s++) {
    spmm_case k = make_case("thin 3x5", (int64_t)1 << 18, (ts_schedule)s, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
}

static void test_edges(ts_dtype dtype) {
  unsigned long long state = 404 + (unsigned long long)dtype;
  const int64_t none[] = {0}, one[] = {1};
  /* No entries (C = beta C), 0 x 0, a single column, one huge row. */
  ts_csr *a = pt_random_csr(37, 11, none, 1, dtype, &state);
  for (int s = 0; a && s < TS_SCHEDULE_COUNT; s++) {
    spmm_case k = make_case("no entries", 9, (ts_schedule)s, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    k.beta = -2.0;
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
  a = pt_random_csr(0, 0, none, 1, dtype, &state);
  if (a) {
    spmm_case k = make_case("0x0", 16, TS_SCHEDULE_AUTO, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
  a = pt_random_csr(pick(5000, 300), 1, one, 1, dtype, &state);
  for (int p = 0; a && p < 2; p++) {
    spmm_case k = make_case("one column", 40, TS_SCHEDULE_AUTO, p ? TS_LAYOUT_COL_MAJOR : TS_LAYOUT_ROW_MAJOR,
                            TS_LAYOUT_ROW_MAJOR);
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
  const int64_t huge[] = {pick(200000, 5000)};
  a = pt_random_csr(1, huge[0] + 10, huge, 1, dtype, &state);
  for (int s = 0; a && s < TS_SCHEDULE_COUNT; s++) {
    spmm_case k = make_case("one huge row", 32, (ts_schedule)s, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
  /* One huge row among short and empty ones. */
  const int64_t among[] = {pick(100000, 3000), 0, 2, 1, 0, 3};
  a = pt_random_csr(pick(3000, 200), pick(120000, 4000), among, 6, dtype, &state);
  for (int s = 0; a && s < TS_SCHEDULE_COUNT; s++) {
    spmm_case k = make_case("huge row among short", 16, (ts_schedule)s, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
  /* Power-law rows from the generator. */
  ts_csr *p = NULL;
  ts_status st = ts_gen_power_law(NULL, pick(20000, 1000), pick(20000, 1000), pick(300000, 10000), 1.1, 42u, dtype, &p);
  CHECK_MSG(st == TS_SUCCESS, "ts_gen_power_law: %s", ts_last_error(NULL));
  for (int s = 0; p && s < TS_SCHEDULE_COUNT; s++) {
    spmm_case k = make_case("power-law", 64, (ts_schedule)s, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    check_gpu(p, &k, &state);
  }
  if (p) {
    spmm_case k = make_case("power-law", 24, TS_SCHEDULE_AUTO, TS_LAYOUT_COL_MAJOR, TS_LAYOUT_COL_MAJOR);
    check_gpu(p, &k, &state);
  }
  ts_csr_destroy(p);
}

/* Split-rows on a huge row among short and empty ones, whose pieces a
 * block joins (lb::group_sum through shared memory: run under racecheck
 * too), with vector threads of a warp (short rows in groups; 256 and 130
 * columns) and narrow ones (8), beta kept. */
static void test_split_huge(ts_dtype dtype) {
  unsigned long long state = 707 + (unsigned long long)dtype;
  const int64_t among[] = {pick(100000, 20000), 0, 2, 1, 0, 3, 40, 0};
  ts_csr *a = pt_random_csr(pick(3000, 300), pick(120000, 24000), among, 8, dtype, &state);
  const int64_t widths[] = {256, 130, 8};
  for (int w = 0; a && w < 3; w++) {
    spmm_case k =
        make_case("split-rows, huge row", widths[w], TS_SCHEDULE_SPLIT_ROWS, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    k.beta = 0.25;
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
}

/* Split-rows with long rows of few pieces only (near: the split kernel
 * joins each by its last piece), and with every kind at once (near, far and
 * huge: the join launch takes them all), among short and empty rows;
 * vector threads of 2 to 32 lanes and a column-major B and C (several
 * columns a lane). Each case runs twice, bitwise equal: the near rows'
 * counters are back at zero after a call. */
static void test_split_kinds(ts_dtype dtype) {
  unsigned long long state = 909 + (unsigned long long)dtype;
  const int64_t near[] = {0, 40, 3, 600, 0, 5, 100, 1, 33, 620};
  const int64_t all[] = {pick(12000, 6000), 0, 40, 3, pick(2500, 1500), 700, 0, 5, 100, 1, pick(2500, 1500), 33};
  const int64_t *lengths[2] = {near, all};
  const int counts[2] = {10, 12};
  const char *what[2] = {"split-rows, near rows", "split-rows, near, far and huge rows"};
  const int64_t widths[] = {8, 32, 130, 256};
  for (int m = 0; m < 2; m++) {
    ts_csr *a = pt_random_csr(pick(480, 240), pick(20000, 8000), lengths[m], counts[m], dtype, &state);
    CHECK_MSG(a != NULL, "%s (%s): no matrix", what[m], dtype == TS_FLOAT32 ? "float" : "double");
    for (int w = 0; a && w < 4; w++)
      for (int p = 0; p < 2; p++) {
        const ts_layout layout = p ? TS_LAYOUT_COL_MAJOR : TS_LAYOUT_ROW_MAJOR;
        if (mode == RUN_RACECHECK && p > 0)
          continue;
        spmm_case k = make_case(what[m], widths[w], TS_SCHEDULE_SPLIT_ROWS, layout, layout);
        k.beta = w % 2 ? 0.5 : 0.0;
        check_gpu(a, &k, &state);
      }
    ts_csr_destroy(a);
  }
}

/* Many short rows (empty ones among them) with vector threads of a whole
 * warp: enough rows that thread-mapped gives each warp a group of
 * consecutive rows (up to 32 on a large GPU), a partial last group, one and
 * two slices a warp, a partial slice, beta and a column-major C. */
static void test_row_groups(ts_dtype dtype) {
  unsigned long long state = 606 + (unsigned long long)dtype;
  const int64_t lengths[] = {0, 5, 1, 7, 3, 0, 9, 2, 0, 0, 4};
  ts_csr *a = pt_random_csr(pick(600001, 70001), 4096, lengths, 11, dtype, &state);
  const int single = dtype == TS_FLOAT32;
  const int64_t widths[] = {single ? 128 : 64, single ? 256 : 128, single ? 96 : 48, 130};
  for (int w = 0; a && w < 4; w++) {
    spmm_case k = make_case("short rows in groups", widths[w], TS_SCHEDULE_THREAD_MAPPED, TS_LAYOUT_ROW_MAJOR,
                            w == 3 ? TS_LAYOUT_COL_MAJOR : TS_LAYOUT_ROW_MAJOR);
    k.alpha = w == 2 ? -0.75 : 1.0;
    k.beta = w >= 2 ? 0.5 : 0.0;
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
}

/* rows x cols, row i holding i - d, i, i + d where in range and two more
 * random columns every 5th row, every `empty`-th row empty. */
static ts_csr *offset_matrix(int64_t rows, int64_t cols, int64_t d, int64_t empty, ts_dtype dtype,
                             unsigned long long *state) {
  ts_coo *coo = NULL;
  if (ts_coo_create(NULL, rows, cols, 3 * rows + rows / 5 * 2 + 2, dtype, &coo) != TS_SUCCESS)
    return NULL;
  for (int64_t i = 0; i < rows; i++) {
    if (empty > 0 && i % empty == empty - 1)
      continue;
    int64_t js[5] = {i - d, i, i + d, -1, -1};
    for (int t = 3; t < 5 && i % 5 == 0; t++) {
      const int64_t j = (int64_t)((test_random(state) + 1.0) * 0.5 * (double)cols);
      js[t] = j < cols ? j : cols - 1;
    }
    for (int t = 0; t < 5; t++)
      if (js[t] >= 0 && js[t] < cols) {
        coo->row_idx[coo->nnz] = (int32_t)i;
        coo->col_idx[coo->nnz] = (int32_t)js[t];
        pt_set(coo->values, dtype, coo->nnz, test_random(state));
        coo->nnz++;
      }
  }
  ts_csr *a = NULL;
  if (ts_csr_from_coo(NULL, coo, TS_DUPLICATES_SUM, &a) != TS_SUCCESS)
    a = NULL;
  ts_coo_destroy(coo);
  return a;
}

/* Thread-mapped's stacked warp order (the plan's rule, spmm_tuning.h):
 * 2-D and 3-D Laplacians under AUTO at two slices (256 fp32 / 128 fp64
 * columns) and at more passes with a partial last slice (520 / 200), a
 * padded B with a column-major C and beta; a dominant offset that is no
 * multiple of a group over rows that are no multiple of it, with empty
 * rows; one past rows / 8 (consecutive order); each plan's explain line
 * checked for the order it takes. Skipped under racecheck (no shared
 * memory). */
static void test_stacked(ts_dtype dtype) {
  unsigned long long state = 808 + (unsigned long long)dtype;
  const int single = dtype == TS_FLOAT32;
  const int64_t two = single ? 256 : 128, more = single ? 520 : 200;
  ts_csr *a = NULL;
  const int64_t n2 = pick(300, 128); /* rows x slices past AUTO's warp-mapped units on 132 SMs */
  ts_status st = ts_gen_laplacian_2d(NULL, n2, n2 - 7, dtype, &a);
  CHECK_MSG(st == TS_SUCCESS, "ts_gen_laplacian_2d: %s", ts_last_error(NULL));
  for (int w = 0; a && w < 3; w++) {
    spmm_case k = make_case("laplacian2d, stacked", w == 1 ? more : two, TS_SCHEDULE_AUTO, TS_LAYOUT_ROW_MAJOR,
                            w == 2 ? TS_LAYOUT_COL_MAJOR : TS_LAYOUT_ROW_MAJOR);
    k.explain = "warps stacked";
    if (w == 2) {
      k.options.ld_b = two + 4;
      k.alpha = -0.5;
      k.beta = 1.5;
    }
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
  a = NULL;
  const int64_t n3 = pick(40, 24); /* d = 40 (ties 1600), or 576 past a group's 32 */
  st = ts_gen_laplacian_3d(NULL, n3, n3, n3 + 3, dtype, &a);
  CHECK_MSG(st == TS_SUCCESS, "ts_gen_laplacian_3d: %s", ts_last_error(NULL));
  for (int w = 0; a && w < 2; w++) {
    spmm_case k =
        make_case("laplacian3d, stacked", w ? more : two, TS_SCHEDULE_AUTO, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    k.explain = "warps stacked";
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
  /* d = 1013 (or 77) over 8 d + 517 (150) rows, every 3rd row empty, 40 more
   * columns than rows. */
  const int64_t d = pick(1013, 77), rows = 8 * d + pick(517, 150);
  a = offset_matrix(rows, rows + 40, d, 3, dtype, &state);
  CHECK(a != NULL);
  for (int w = 0; a && w < 2; w++) {
    spmm_case k = make_case("offset d, empty rows, stacked", w ? more : two, TS_SCHEDULE_THREAD_MAPPED,
                            TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    k.explain = "warps stacked";
    k.beta = w ? -1.0 : 0.0;
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
  /* d past rows / 8: no whole band, the consecutive order. */
  a = offset_matrix(pick(5000, 1000), pick(5000, 1000), pick(700, 140), 0, dtype, &state);
  CHECK(a != NULL);
  if (a) {
    spmm_case k =
        make_case("offset past rows / 8", two, TS_SCHEDULE_THREAD_MAPPED, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    k.explain = "warps on consecutive rows";
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
}

/* The explain line's clause for `pass` columns a pass over `width`. */
static const char *passes_clause(int64_t width, int64_t pass, char *text, size_t size) {
  const int64_t count = (width + pass - 1) / pass;
  if (count <= 1)
    snprintf(text, size, "; one pass (");
  else if (width % pass != 0)
    snprintf(text, size, "; %lld passes of %lld columns, the last of %lld", (long long)count, (long long)pass,
             (long long)(width - (count - 1) * pass));
  else
    snprintf(text, size, "; %lld passes of %lld columns (", (long long)count, (long long)pass);
  return text;
}

/* k with `pass` columns a pass against the reference, and, for
 * thread-mapped, bitwise against one pass on the same B and C. */
static void check_passes(const ts_csr *a, spmm_case k, int64_t pass, unsigned long long *state) {
  char clause[128];
  k.options.pass_columns = pass;
  k.explain = passes_clause(k.width, pass, clause, sizeof clause);
  if (k.options.schedule != TS_SCHEDULE_THREAD_MAPPED) {
    check_gpu(a, &k, state);
    return;
  }
  const pt_dense cd = pt_dense_of(a->rows, k.width, k.options.layout_c, k.options.ld_c);
  const size_t c_bytes = (size_t)cd.elements * ts_dtype_size(a->dtype);
  void *banded = malloc(c_bytes + 8), *whole = malloc(c_bytes + 8);
  const unsigned long long start = *state;
  unsigned long long again = start;
  CHECK(banded && whole);
  if (banded && whole) {
    k.out = banded;
    const int64_t bad = check_gpu(a, &k, state);
    spmm_case one = k;
    one.options.pass_columns = 0;
    one.explain = "; one pass (";
    one.out = whole;
    if (bad == 0 && check_gpu(a, &one, &again) == 0)
      CHECK_MSG(memcmp(banded, whole, c_bytes) == 0,
                "%s: thread-mapped with passes of %lld columns gave other bits than one pass (width %lld)", k.what,
                (long long)pass, (long long)k.width);
  }
  free(banded);
  free(whole);
}

/* Passes over bands of columns (pass_columns): every schedule with passes
 * that divide the width and passes that leave a narrower last band
 * (vectors of 4, 2 and 1 columns), a padded B and C with beta, column-major
 * B and C with passes of 7, row-major B with a column-major C. */
static void test_passes(ts_dtype dtype) {
  unsigned long long state = 909 + (unsigned long long)dtype;
  ts_csr *a = mixed_matrix(dtype, &state);
  if (!a)
    return;
  const int64_t full[][2] = {{256, 128}, {300, 128}, {130, 64}, {512, 200}, {64, 24}, {40, 1}};
  const int64_t small[][2] = {{300, 128}, {130, 64}};
  const int64_t(*shapes)[2] = mode == RUN_FULL ? full : small;
  const int nshapes = mode == RUN_FULL ? 6 : 2;
  for (int s = 0; s < TS_SCHEDULE_COUNT; s++) {
    for (int w = 0; w < nshapes; w++) {
      spmm_case k =
          make_case("mixed rows, passes", shapes[w][0], (ts_schedule)s, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
      if (w % 2 == 1) {
        k.alpha = -0.5;
        k.beta = 1.5;
      }
      check_passes(a, k, shapes[w][1], &state);
    }
    /* Padded B and C with beta: ld_b 308 keeps vectors of 4 over bands of
     * 128 (gcd 4), ld_b 305 takes single columns. */
    for (int p = 0; p < 2; p++) {
      spmm_case k = make_case("padded, passes", 300, (ts_schedule)s, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
      k.options.ld_b = p ? 305 : 308;
      k.options.ld_c = p ? 301 : 304;
      k.alpha = 2.0;
      k.beta = -0.75;
      check_passes(a, k, 128, &state);
    }
    /* Column-major B and C with passes of 7 (the last of 5), padded and
     * not; a row-major B with a column-major C. */
    for (int p = 0; p < 3; p++) {
      spmm_case k = make_case("column-major, passes of 7", 40, (ts_schedule)s,
                              p == 2 ? TS_LAYOUT_ROW_MAJOR : TS_LAYOUT_COL_MAJOR, TS_LAYOUT_COL_MAJOR);
      if (p == 1) {
        k.options.ld_b = a->cols + 3;
        k.options.ld_c = a->rows + 5;
        k.beta = 0.5;
      }
      check_passes(a, k, 7, &state);
    }
  }
  /* NaN in C with beta = 0 stays out of every band. */
  spmm_case k = make_case("NaN in C, passes", 300, TS_SCHEDULE_AUTO, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
  k.nan_c = 1;
  check_passes(a, k, 128, &state);
  ts_csr_destroy(a);
}

/* Split-rows on a huge row among short ones (its pieces joined by a block)
 * with passes: bands of a whole warp's vector threads and narrower, the
 * workspace's records serving each band in turn; run under racecheck too. */
static void test_passes_split_huge(ts_dtype dtype) {
  unsigned long long state = 1010 + (unsigned long long)dtype;
  const int64_t among[] = {pick(100000, 20000), 0, 2, 1, 0, 3, 40, 0};
  ts_csr *a = pt_random_csr(pick(3000, 300), pick(120000, 24000), among, 8, dtype, &state);
  const int64_t shapes[][2] = {{256, 128}, {300, 128}, {130, 24}, {64, 7}};
  for (int w = 0; a && w < 4; w++) {
    if (mode == RUN_RACECHECK && w % 2 == 1)
      continue;
    spmm_case k = make_case("split-rows, huge row, passes", shapes[w][0], TS_SCHEDULE_SPLIT_ROWS, TS_LAYOUT_ROW_MAJOR,
                            w == 3 ? TS_LAYOUT_COL_MAJOR : TS_LAYOUT_ROW_MAJOR);
    k.beta = 0.25;
    check_passes(a, k, shapes[w][1], &state);
  }
  ts_csr_destroy(a);
}

/* The plan's own passes: random columns and B of about ten L2s (sized from
 * the device's L2) at two bands' width: AUTO takes thread-mapped and bands
 * of 128 fp32 / 64 fp64 columns; a dominant offset over the same B keeps
 * one pass (a stencil). Full run only (B of hundreds of MB). */
static void test_passes_rule(ts_dtype dtype) {
  ts_device_info info;
  if (ts_context_device_info(gpu, &info) != TS_SUCCESS || info.l2_cache_bytes <= 0) {
    CHECK_MSG(0, "no L2 size: %s", ts_last_error(gpu));
    return;
  }
  unsigned long long state = 1111 + (unsigned long long)dtype;
  const int64_t vs = (int64_t)ts_dtype_size(dtype), band = 512 / vs, width = 2 * band;
  const int64_t cols = 10 * info.l2_cache_bytes / (width * vs);
  if (4 * cols * width * vs > info.global_memory) {
    printf("passes rule: skipped, B of %lld MB against %lld MB of GPU memory\n", (long long)(cols * width * vs >> 20),
           (long long)(info.global_memory >> 20));
    return;
  }
  const int64_t lengths[] = {8, 3, 12, 5};
  ts_csr *a = pt_random_csr(20000, cols, lengths, 4, dtype, &state);
  CHECK(a != NULL);
  if (a) {
    char clause[128];
    spmm_case k =
        make_case("random columns, B of ten L2s", width, TS_SCHEDULE_AUTO, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    k.explain = passes_clause(width, band, clause, sizeof clause);
    k.beta = 0.5;
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
  /* Rows i - 1000, i, i + 1000 over the same columns (2/3 of the entries
   * at offset 1000: a stencil): one pass. */
  a = offset_matrix(20000, cols, 1000, 0, dtype, &state);
  CHECK(a != NULL);
  if (a) {
    spmm_case k = make_case("offset 1000, B of ten L2s", width, TS_SCHEDULE_THREAD_MAPPED, TS_LAYOUT_ROW_MAJOR,
                            TS_LAYOUT_ROW_MAJOR);
    k.explain = "; one pass (a stencil";
    check_gpu(a, &k, &state);
  }
  ts_csr_destroy(a);
}

static void test_refused(void) {
  unsigned long long state = 5;
  const int64_t lengths[] = {2};
  ts_csr *a = pt_random_csr(4, 3, lengths, 1, TS_FLOAT32, &state);
  ts_spmm_plan *plan = NULL;
  ts_buffer *bb = NULL, *bc = NULL, *small = NULL, *host = NULL;
  CHECK(a != NULL);
  if (!a)
    return;
  CHECK_OK(gpu, ts_spmm_plan_create(gpu, a, 2, NULL, &plan));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, 6 * sizeof(float), &bb));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, 8 * sizeof(float), &bc));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_DEVICE, 7 * sizeof(float), &small));
  CHECK_OK(gpu, ts_buffer_create(gpu, TS_MEMORY_HOST, 8 * sizeof(float), &host));
  if (plan && bb && bc && small && host) {
    CHECK_STATUS(gpu, ts_spmm_execute(plan, 1.0, bb, 0.0, small), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(gpu), "C holds 28 bytes") != NULL);
    CHECK_STATUS(gpu, ts_spmm_execute(plan, 1.0, host, 0.0, bc), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(gpu, ts_spmm_execute(plan, 1.0, bc, 0.0, bc), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(gpu, ts_spmm_execute(plan, 1.0, bb, 0.0, NULL), TS_ERROR_INVALID_ARGUMENT);
    /* Still usable: B of ones gives each row's sum (at most two entries:
     * exact in float). */
    float ones[6] = {1, 1, 1, 1, 1, 1}, out[8] = {0};
    CHECK_OK(gpu, ts_buffer_upload(gpu, bb, 0, ones, sizeof ones));
    CHECK_OK(gpu, ts_spmm_execute(plan, 1.0, bb, 0.0, bc));
    CHECK_OK(gpu, ts_buffer_download(gpu, bc, 0, out, sizeof out));
    for (int64_t i = 0; i < 4; i++) {
      float want = 0;
      for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
        want += ((float *)a->values)[k];
      CHECK(out[2 * i] == want && out[2 * i + 1] == want);
    }
  }
  ts_spmm_options o = {0};
  o.layout_c = (ts_layout)3;
  ts_spmm_plan *bad = NULL;
  CHECK_STATUS(gpu, ts_spmm_plan_create(gpu, a, 2, &o, &bad), TS_ERROR_INVALID_ARGUMENT);
  o.layout_c = TS_LAYOUT_ROW_MAJOR;
  o.pass_columns = -7;
  CHECK_STATUS(gpu, ts_spmm_plan_create(gpu, a, 2, &o, &bad), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(gpu), "pass_columns -7 is negative") != NULL);
  CHECK_STATUS(gpu, ts_spmm_plan_create(gpu, a, (int64_t)1 << 40, NULL, &bad), TS_ERROR_OVERFLOW);
  CHECK(bad == NULL);
  CHECK_OK(gpu, ts_context_sync(gpu));
  ts_buffer_destroy(bb);
  ts_buffer_destroy(bc);
  ts_buffer_destroy(small);
  ts_buffer_destroy(host);
  ts_spmm_plan_destroy(plan);
  ts_csr_destroy(a);
}

/* A corpus matrix in float and double: AUTO at 8 and 64 columns row-major
 * and 16 column-major. */
static void corpus_matrix(void *user, const char *dir, const char *name, long long rows, long long cols) {
  (void)user;
  (void)rows;
  (void)cols;
  unsigned long long state = 505;
  for (int d = 0; d < 2; d++) {
    ts_csr *a = pt_read_corpus(dir, name, d ? TS_FLOAT64 : TS_FLOAT32);
    if (!a)
      continue;
    spmm_case k = make_case(name, 8, TS_SCHEDULE_AUTO, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    check_gpu(a, &k, &state);
    k = make_case(name, 64, TS_SCHEDULE_AUTO, TS_LAYOUT_ROW_MAJOR, TS_LAYOUT_ROW_MAJOR);
    k.beta = -1.0;
    check_gpu(a, &k, &state);
    k = make_case(name, 16, TS_SCHEDULE_AUTO, TS_LAYOUT_COL_MAJOR, TS_LAYOUT_COL_MAJOR);
    check_gpu(a, &k, &state);
    ts_csr_destroy(a);
  }
}

int main(void) {
  gpu = pt_gpu_context();
  if (!gpu)
    return test_skip("no usable CUDA device");
  mode = pt_run_mode();
  static const char *mode_names[] = {"full", "sanitizer (smaller matrices and widths, 2^16-column thin case)",
                                     "racecheck (block-mapped sweep and split-rows' block join in float, row-major)"};
  printf("selection: %s\n", mode_names[mode]);
  fflush(stdout);
  const double start = tsi_seconds();
  for (int d = 0; d < 2; d++) {
    ts_dtype dtype = d ? TS_FLOAT64 : TS_FLOAT32;
    if (mode == RUN_RACECHECK && d == 1)
      break;
    test_schedules(dtype);
    test_split_huge(dtype);
    test_split_kinds(dtype);
    test_passes_split_huge(dtype);
    if (mode == RUN_RACECHECK)
      continue;
    test_widths(dtype);
    test_thin(dtype);
    test_edges(dtype);
    test_row_groups(dtype);
    test_stacked(dtype);
    test_passes(dtype);
    if (mode == RUN_FULL)
      test_passes_rule(dtype);
  }
  if (mode != RUN_RACECHECK) {
    test_refused();
    pt_corpus(mode != RUN_FULL, 4, corpus_matrix, NULL);
  }
  printf("%d checked SpMM executions in %.1f s\n", runs, tsi_seconds() - start);
  ts_context_destroy(gpu);
  return test_finish();
}
