/* SpGEMM plans on the CUDA backend against the textbook product in double
 * (product_test_util.h: the same pattern exactly, values within Higham's
 * bound): matrices whose rows fill every bin (no products, each shared hash
 * table, the dense accumulators), A*A and A*A^T, rectangular products,
 * meshes, power-law and R-MAT rows, empty rows and matrices, one column,
 * one huge row, a B of 2^21 columns, the corpus; in float and double. Every
 * numeric phase runs twice (the same bits), the row-blocked mode under a
 * budget that forces several blocks gives the same C, an intermediate count
 * past 2^31 is counted in 64 bits and a C that passes the budget is refused
 * with its bytes named.
 *
 * The bins run again with the plan's switches: the merged bin off and at
 * every size (the same bits with it as without: test_merged_bin), the dense
 * rows out of shared memory (the same bits: test_shared_dense), the hash
 * bins for rows of few products, the full-width accumulators (dense and
 * long rows, default and smallest pools) instead of the dense rows' sort,
 * and that sort in its smallest chunks.
 *
 * Under compute-sanitizer (TESSERA_UNDER_SANITIZER) the matrices shrink, the
 * 2^31 count case is left out and the corpus keeps 3 small ones; racecheck
 * runs the bins' matrix in float. */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include "internal.h"
#include "product_test_util.h"
#include "sparse/spgemm_tuning.h"

static ts_context *gpu;
static int checked;

static run_mode mode = RUN_FULL;

static int64_t pick(int64_t full, int64_t small) { return mode == RUN_FULL ? full : small; }

/* C through the plan's steps (numeric twice), or NULL after a failure. */
static ts_csr *gpu_product(const char *what, const ts_csr *a, const ts_csr *b, int64_t budget, int64_t *held) {
  ts_spgemm_options o = {0};
  o.memory_budget = budget;
  ts_spgemm_plan *plan = NULL;
  ts_csr *c = NULL, *again = NULL;
  ts_status st = ts_spgemm_plan_create(gpu, a, b, &o, &plan);
  if (st == TS_SUCCESS)
    st = ts_spgemm_symbolic(plan);
  if (st == TS_SUCCESS && held)
    *held = ts_spgemm_plan_device_bytes(plan);
  if (st == TS_SUCCESS)
    st = ts_spgemm_allocate(plan);
  if (st == TS_SUCCESS)
    st = ts_spgemm_numeric(plan);
  if (st == TS_SUCCESS)
    st = ts_spgemm_download(plan, &c);
  if (st == TS_SUCCESS)
    st = ts_spgemm_numeric(plan);
  if (st == TS_SUCCESS)
    st = ts_spgemm_download(plan, &again);
  CHECK_MSG(st == TS_SUCCESS, "%s: %s: %s", what, ts_status_string(st), ts_last_error(gpu));
  if (st == TS_SUCCESS)
    CHECK_MSG(pt_csr_identical(c, again), "%s: a second numeric phase gave other bits (%s)", what,
              ts_spgemm_plan_explain(plan));
  ts_csr_destroy(again);
  ts_spgemm_plan_destroy(plan);
  if (st != TS_SUCCESS) {
    ts_csr_destroy(c);
    return NULL;
  }
  return c;
}

/* The row-blocked mode under a budget that leaves a third of C's entries
 * (or its longest row) beside the operands and workspace: the same bits as
 * `want`. */
static void check_blocked(const char *what, const ts_csr *a, const ts_csr *b, const ts_csr *want, int64_t held) {
  const int64_t per_entry = 4 + (int64_t)ts_dtype_size(want->dtype);
  int64_t longest = 0;
  for (int64_t i = 0; i < want->rows; i++)
    longest = want->row_ptr[i + 1] - want->row_ptr[i] > longest ? want->row_ptr[i + 1] - want->row_ptr[i] : longest;
  const int64_t room = (want->nnz / 3 > longest ? want->nnz / 3 : longest) * per_entry + 64;
  ts_spgemm_options o = {0};
  o.memory_budget = held + room;
  ts_spgemm_plan *plan = NULL;
  ts_csr *c = NULL;
  ts_status st = ts_spgemm_plan_create(gpu, a, b, &o, &plan);
  if (st == TS_SUCCESS)
    st = ts_spgemm_blocked(plan, &c);
  CHECK_MSG(st == TS_SUCCESS, "%s blocked: %s: %s", what, ts_status_string(st), ts_last_error(gpu));
  if (c)
    CHECK_MSG(pt_csr_identical(c, want), "%s: the blocked C differs", what);
  /* C whole passes what the budget leaves beside the plan (its pools take a
   * share of the budget, so that depends on the plan): refused, the bytes
   * named; else it is allocated. */
  if (plan && want->nnz * per_entry <= o.memory_budget - ts_spgemm_plan_device_bytes(plan))
    CHECK_OK(gpu, ts_spgemm_allocate(plan));
  else if (plan) {
    st = ts_spgemm_allocate(plan);
    CHECK_MSG(st == TS_ERROR_OUT_OF_MEMORY, "%s: allocating C beyond the budget gave %s", what, ts_status_string(st));
    char bytes[48];
    snprintf(bytes, sizeof bytes, "%lld bytes", (long long)ts_spgemm_plan_c_bytes(plan));
    CHECK_MSG(strstr(ts_last_error(gpu), bytes) != NULL, "%s: the refusal names %s: %s", what, bytes,
              ts_last_error(gpu));
  }
  ts_csr_destroy(c);
  ts_spgemm_plan_destroy(plan);
  /* A budget set from the operands and C alone, as a caller would set it
   * (the operands, half of C and 8 MB): the plan fits its pools, chunks and
   * blocks within it (they once took all of it, and the long rows' first
   * slot was refused). */
  const int64_t operands = (a->rows + 1) * 8 + a->nnz * per_entry + (b->rows + 1) * 8 + b->nnz * per_entry;
  const int64_t c_bytes = (want->rows + 1) * 8 + want->nnz * per_entry;
  o.memory_budget = operands + c_bytes / 2 + ((int64_t)8 << 20) + 64 * (a->rows + 1);
  plan = NULL;
  c = NULL;
  st = ts_spgemm_plan_create(gpu, a, b, &o, &plan);
  if (st == TS_SUCCESS)
    st = ts_spgemm_blocked(plan, &c);
  CHECK_MSG(st == TS_SUCCESS, "%s blocked under the operands' budget: %s: %s", what, ts_status_string(st),
            ts_last_error(gpu));
  if (c)
    CHECK_MSG(pt_csr_identical(c, want), "%s: the blocked C under the operands' budget differs", what);
  ts_csr_destroy(c);
  ts_spgemm_plan_destroy(plan);
}

static void check_product(const char *what, const ts_csr *a, const ts_csr *b, bool blocked) {
  int64_t held = 0;
  ts_csr *c = gpu_product(what, a, b, 0, &held);
  pt_spgemm_ref r;
  memset(&r, 0, sizeof r);
  if (c) {
    CHECK_OK(NULL, ts_csr_check(NULL, c));
    CHECK_MSG(pt_spgemm_reference(a, b, &r), "%s: reference out of memory", what);
    CHECK_MSG(pt_spgemm_compare(what, a, &r, c) == 0, "%s (%s): C differs from the reference", what,
              a->dtype == TS_FLOAT32 ? "float" : "double");
    checked++;
    if (blocked && mode != RUN_RACECHECK)
      check_blocked(what, a, b, c, held);
  }
  pt_spgemm_reference_free(&r);
  ts_csr_destroy(c);
}

/* A*A and A*A^T; takes a. */
static void check_square(const char *what, ts_csr *a, bool blocked) {
  CHECK_MSG(a != NULL, "%s: generation failed", what);
  if (!a)
    return;
  char name[200];
  snprintf(name, sizeof name, "%s A*A", what);
  if (a->rows == a->cols)
    check_product(name, a, a, blocked);
  ts_csr *at = NULL;
  CHECK_OK(NULL, ts_csr_transpose(NULL, a, &at));
  snprintf(name, sizeof name, "%s A*A^T", what);
  if (at && mode != RUN_RACECHECK)
    check_product(name, a, at, false);
  ts_csr_destroy(at);
  ts_csr_destroy(a);
}

/* Row lengths whose products (about length x the mean length, 30 to 70)
 * land in every bin, from none through the sorted and hash bins to past
 * 2048 (dense) and rows of TSI_SPGEMM_LONG_ENTRIES entries or more (long). */
static void test_bins(ts_dtype dtype, const char *what) {
  unsigned long long state = 11 + (unsigned long long)dtype;
  const int64_t lengths[] = {0, 1, 2, 3, 5, 8, 11, 16, 23, 32, 45, 64, 90, 128, TSI_SPGEMM_LONG_ENTRIES + 100};
  check_square(what, pt_random_csr(pick(6000, 600), pick(6000, 600), lengths, 15, dtype, &state), true);
}

/* The bins again with spgemm_plan.c's environment switches set: name and
 * value pairs, NULL after the last. */
static void test_bins_with(ts_dtype dtype, const char *what, const char *const *settings) {
  for (int i = 0; settings[i]; i += 2)
    setenv(settings[i], settings[i + 1], 1);
  test_bins(dtype, what);
  for (int i = 0; settings[i]; i += 2)
    unsetenv(settings[i]);
}

/* The merged bin (rows of few entries of A, a thread each) against the
 * sorted bins that its rows take without it, bitwise: both add each entry's
 * products in the order of A's entries. Rows of 0 to 12 entries (some past
 * TSI_SPGEMM_MERGE_ENTRIES) on rows of B of 0 to 40, and a 2-D stencil.
 * Then the bin with no bound on products (rows that would take the hash
 * bins), against the textbook product. */
static void test_merged_bin(ts_dtype dtype) {
  setenv("TESSERA_SPGEMM_MERGE_LEAST_ROWS", "1", 1); /* the bin at these sizes too */
  unsigned long long state = 47 + (unsigned long long)dtype;
  const int64_t lengths[] = {0, 1, 2, 3, 5, 7, TSI_SPGEMM_MERGE_ENTRIES, TSI_SPGEMM_MERGE_ENTRIES + 1, 12};
  const int64_t b_lengths[] = {0, 1, 3, 6, 13, 40};
  ts_csr *m[2] = {pt_random_csr(pick(5000, 400), pick(3000, 300), lengths, 9, dtype, &state), NULL};
  ts_csr *b = pt_random_csr(pick(3000, 300), pick(4000, 400), b_lengths, 6, dtype, &state);
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, pick(120, 20), pick(90, 20), dtype, &m[1]));
  for (int k = 0; k < 2 && b; k++) {
    const ts_csr *a = m[k], *right = k == 0 ? b : m[1];
    const char *what = k ? "merged bin, 2-D stencil" : "merged bin, random rows";
    if (!a)
      continue;
    setenv("TESSERA_SPGEMM_MERGE", "0", 1);
    ts_csr *want = gpu_product(what, a, right, 0, NULL);
    unsetenv("TESSERA_SPGEMM_MERGE");
    for (int staged = 0; staged < 2; staged++) {
      if (!staged)
        setenv("TESSERA_SPGEMM_MERGE_STAGED", "0", 1);
      ts_csr *got = gpu_product(what, a, right, 0, NULL);
      unsetenv("TESSERA_SPGEMM_MERGE_STAGED");
      CHECK_MSG(got && want && pt_csr_identical(got, want), "%s%s: other bits than without the merged bin", what,
                staged ? "" : " (unstaged stores)");
      ts_csr_destroy(got);
    }
    ts_csr_destroy(want);
    setenv("TESSERA_SPGEMM_MERGE_PRODUCTS", "1048576", 1);
    check_product(k ? "merged bin without a bound, 2-D stencil" : "merged bin without a bound, random rows", a, right,
                  true);
    unsetenv("TESSERA_SPGEMM_MERGE_PRODUCTS");
  }
  ts_csr_destroy(m[0]);
  ts_csr_destroy(m[1]);
  ts_csr_destroy(b);
  unsetenv("TESSERA_SPGEMM_MERGE_LEAST_ROWS");
}

/* The dense bin's accumulators in shared memory against the same rows
 * through expand, sort, compress (TESSERA_SPGEMM_SHARED_DENSE=0), bitwise:
 * both add each column's products in the order of A's entries. Rows of
 * 60 to 400 entries of A on rows of B of 20 to 60 (past 2048 products), B
 * as wide as a block's shared memory holds eight warps' accumulators, two,
 * one (in double), and only the count's bitmap; and against the textbook
 * product. */
static void test_shared_dense(ts_dtype dtype) {
  unsigned long long state = 71 + (unsigned long long)dtype;
  const int64_t lengths[] = {0, 3, 60, 130, 400, 17};
  const int64_t b_lengths[] = {20, 41, 60, 2};
  const int64_t widths[] = {3000, 20000, 40000, 100000};
  for (int w = 0; w < 4; w++) {
    char what[96];
    snprintf(what, sizeof what, "dense rows in shared memory, B of %lld columns", (long long)widths[w]);
    ts_csr *a = pt_random_csr(pick(700, 90), pick(2000, 500), lengths, 6, dtype, &state);
    ts_csr *b = pt_random_csr(pick(2000, 500), widths[w], b_lengths, 4, dtype, &state);
    if (a && b) {
      /* The shared path first: a plan after the other's would find its
       * freed buffers (the same counts in them) and could hide a count
       * left undone. */
      ts_csr *got = gpu_product(what, a, b, 0, NULL);
      setenv("TESSERA_SPGEMM_SHARED_DENSE", "0", 1);
      ts_csr *want = gpu_product(what, a, b, 0, NULL);
      unsetenv("TESSERA_SPGEMM_SHARED_DENSE");
      CHECK_MSG(got && want && pt_csr_identical(got, want), "%s: other bits than the dense rows' sort", what);
      ts_csr_destroy(got);
      ts_csr_destroy(want);
      check_product(what, a, b, w == 0);
    }
    CHECK_MSG(a && b, "%s: generation failed", what);
    ts_csr_destroy(a);
    ts_csr_destroy(b);
  }
}

static void test_shapes(ts_dtype dtype) {
  unsigned long long state = 23 + (unsigned long long)dtype;
  const int64_t mixed[] = {0, 2, 5, 1, 13, 0, 40, 3};
  ts_csr *a = pt_random_csr(pick(1200, 120), 800, mixed, 8, dtype, &state);
  ts_csr *b = pt_random_csr(800, pick(2100, 210), mixed + 1, 7, dtype, &state);
  if (a && b)
    check_product("rectangular", a, b, true);
  ts_csr_destroy(a);
  ts_csr_destroy(b);
  ts_csr *m = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_2d(NULL, pick(200, 30), pick(150, 30), dtype, &m));
  check_square("laplacian 2-D", m, true);
  m = NULL;
  CHECK_OK(NULL, ts_gen_laplacian_3d(NULL, pick(24, 8), pick(20, 8), pick(16, 8), dtype, &m));
  check_square("laplacian 3-D", m, false);
  m = NULL;
  CHECK_OK(NULL, ts_gen_power_law(NULL, pick(5000, 500), pick(5000, 500), pick(60000, 4000), 1.1, 9u, dtype, &m));
  check_square("power-law", m, true);
  ts_rmat_params p = ts_rmat_graph500((int)pick(12, 8), 8);
  m = NULL;
  CHECK_OK(NULL, ts_gen_rmat(NULL, &p, 3u, dtype, &m));
  check_square("R-MAT", m, true);
}

static void test_edges(ts_dtype dtype) {
  unsigned long long state = 37 + (unsigned long long)dtype;
  const int64_t none[] = {0}, one[] = {1};
  check_square("no entries", pt_random_csr(70, 70, none, 1, dtype, &state), false);
  check_square("0x0", pt_random_csr(0, 0, none, 1, dtype, &state), false);
  ts_csr *a = pt_random_csr(300, 1, one, 1, dtype, &state), *b = pt_random_csr(1, 1, one, 1, dtype, &state);
  if (a && b)
    check_product("300x1 * 1x1", a, b, false);
  ts_csr_destroy(a);
  ts_csr_destroy(b);
  /* One huge row of A among empty ones, times a B of rows of 50. */
  const int64_t huge[] = {pick(100000, 5000), 0, 0}, fifty[] = {50};
  a = pt_random_csr(3, pick(100000, 5000), huge, 3, dtype, &state);
  b = pt_random_csr(pick(100000, 5000), pick(30000, 3000), fifty, 1, dtype, &state);
  if (a && b)
    check_product("one huge row", a, b, true);
  /* The same row cut into many chunks of the dense rows' sort. */
  setenv("TESSERA_SPGEMM_SORT_CHUNK", "7919", 1);
  if (a && b)
    check_product("one huge row in small chunks", a, b, true);
  unsetenv("TESSERA_SPGEMM_SORT_CHUNK");
  ts_csr_destroy(a);
  ts_csr_destroy(b);
  /* B of 2^21 columns (2^16 under the sanitizer): dense rows across it. */
  const int64_t few[] = {4, 1}, wide_rows[] = {pick(100000, 3000)};
  a = pt_random_csr(2, 4, few, 2, dtype, &state);
  b = pt_random_csr(4, (int64_t)1 << pick(21, 16), wide_rows, 1, dtype, &state);
  if (a && b)
    check_product("B of 2^21 columns", a, b, false);
  ts_csr_destroy(a);
  ts_csr_destroy(b);
}

/* Gustavson's intermediate count of A*A and of A*A^T (column counts
 * squared), the larger one. */
static int64_t most_products(const ts_csr *a) {
  int64_t square = 0, gram = 0;
  int64_t *col_count = calloc((size_t)a->cols + 1, sizeof *col_count);
  if (!col_count)
    return INT64_MAX;
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t p = a->row_ptr[i]; p < a->row_ptr[i + 1]; p++) {
      const int32_t k = a->col_idx[p];
      square += k < a->rows ? a->row_ptr[k + 1] - a->row_ptr[k] : 0;
      col_count[k]++;
    }
  for (int64_t k = 0; k < a->cols; k++)
    gram += col_count[k] * col_count[k];
  free(col_count);
  return square > gram ? square : gram;
}

/* A*A and A*A^T of a square corpus matrix in float and double; a matrix
 * whose products pass CORPUS_MOST_PRODUCTS (arrow's dense row and column
 * make A*A^T dense: 2.2e9 entries) is left out, said so: the double
 * reference on the host would take minutes. */
#define CORPUS_MOST_PRODUCTS 100000000
static void corpus_matrix(void *user, const char *dir, const char *name, long long rows, long long cols) {
  (void)user;
  if (rows != cols)
    return;
  for (int d = 0; d < 2; d++) {
    ts_csr *a = pt_read_corpus(dir, name, d ? TS_FLOAT64 : TS_FLOAT32);
    if (!a)
      continue;
    const int64_t products = most_products(a);
    if (products > CORPUS_MOST_PRODUCTS) {
      if (d == 0)
        printf("  %s: left out (%lld products, past %d)\n", name, (long long)products, CORPUS_MOST_PRODUCTS);
      ts_csr_destroy(a);
      continue;
    }
    check_square(name, a, false);
  }
}

/* Where the run's time goes (the full selection is the longest GPU test). */
static void section_done(const char *what, double start) {
  printf("  %-12s done at %.1f s (%d products)\n", what, tsi_seconds() - start, checked);
  fflush(stdout);
}

int main(void) {
  gpu = pt_gpu_context();
  if (!gpu)
    return test_skip("no usable CUDA device");
  mode = pt_run_mode();
  printf("selection: %s\n", mode == RUN_FULL        ? "full"
                            : mode == RUN_SANITIZER ? "sanitizer (smaller matrices, 3 small corpus matrices)"
                                                    : "racecheck (the bins' matrix in float)");
  fflush(stdout);
  const double start = tsi_seconds();
  for (int d = 0; d < 2; d++) {
    const ts_dtype dtype = d ? TS_FLOAT64 : TS_FLOAT32;
    test_bins(dtype, "bins");
    if (mode == RUN_RACECHECK)
      break;
    /* Rows of few products in the hash bins; rows past the tables in the
     * full-width accumulators, long rows among the dense ones. */
    const char *const hash_dense[] = {
        "TESSERA_SPGEMM_SORTED_BINS", "0", "TESSERA_SPGEMM_DENSE_SORT", "0", "TESSERA_SPGEMM_LONG_ROWS", "0", NULL};
    test_bins_with(dtype, "bins (sorted bins, dense sort and long rows off)", hash_dense);
    /* The full-width accumulators with long rows, in the smallest pools:
     * slots reused across many rows. */
    const char *const pools[] = {"TESSERA_SPGEMM_DENSE_SORT",
                                 "0",
                                 "TESSERA_SPGEMM_DENSE_WARPS_PER_SM",
                                 "1",
                                 "TESSERA_SPGEMM_LONG_SLOTS",
                                 "1",
                                 NULL};
    test_bins_with(dtype, "bins (full-width accumulators, smallest pools)", pools);
    /* The dense rows' sort in its smallest chunks: rows cut, some many
     * times. */
    const char *const chunks[] = {"TESSERA_SPGEMM_SORT_CHUNK", "5000", NULL};
    test_bins_with(dtype, "bins (dense sort in small chunks)", chunks);
    test_bins_with(dtype, "bins (merged bin off)", (const char *const[]){"TESSERA_SPGEMM_MERGE", "0", NULL});
    test_bins_with(dtype, "bins (merged bin at every size)",
                   (const char *const[]){"TESSERA_SPGEMM_MERGE_LEAST_ROWS", "1", NULL});
    test_bins_with(dtype, "bins (dense rows out of shared memory)",
                   (const char *const[]){"TESSERA_SPGEMM_SHARED_DENSE", "0", NULL});
    section_done("bins", start);
    test_merged_bin(dtype);
    section_done("merged bin", start);
    test_shared_dense(dtype);
    section_done("dense rows in shared memory", start);
    test_shapes(dtype);
    section_done("shapes", start);
    test_edges(dtype);
    section_done("edges", start);
  }
  if (mode != RUN_RACECHECK) {
    if (mode == RUN_FULL) /* 2.2e9 products: too long under compute-sanitizer */
      ts_spgemm_plan_destroy(pt_check_large_counts(gpu));
    section_done("2^31 counts", start);
    pt_corpus(mode != RUN_FULL, 3, corpus_matrix, NULL);
    section_done("corpus", start);
  }
  printf("%d products checked in %.1f s\n", checked, tsi_seconds() - start);
  ts_context_destroy(gpu);
  return test_finish();
}
