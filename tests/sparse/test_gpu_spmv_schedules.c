/* Every SpMV schedule on the GPU (thread-, warp-, block-mapped, group-mapped
 * with groups of 1, 4, 32, 64, 128, 256 and 1024 threads, merge-path,
 * work-oriented) and AUTO, in float and double, for A and A^T, beta = 0 (y
 * poisoned with NaN) and beta != 0, against a double-precision reference
 * summed over A's entries (spmv_plan_check.h gives the per-entry tolerance);
 * each result bitwise repeated over 5 runs. Inputs: the whole matrix corpus
 * and generated edge shapes (empty rows, one huge row, a single column, 1x1,
 * 0x0, 3x4 without entries, a 2-D Laplacian, power-law and R-MAT rows), then
 * a few of them again with int64 offsets forced through the plan's testing
 * aid TESSERA_SPMV_FORCE_WIDE_OFFSETS. Split-rows alone also runs rows of
 * 1 to 69 pieces 5 times in a row on one plan (its per-row arrival counters
 * must be back at zero after every call).
 *
 * Under compute-sanitizer (TESSERA_UNDER_SANITIZER names the tool) the same
 * shapes shrink to thousands of rows and at most 15,000 entries, still long
 * enough for rows split across threads and across 2 to 11 blocks (the last
 * block's combine), except split-rows' row of 34 pieces of 1024 entries;
 * each matrix runs in its own value type only, twice, and
 * 5 small corpus matrices are sampled. Racecheck costs about 0.16 s per
 * kernel launch on the H200, so it runs only the schedules that use shared
 * memory (block-mapped, groups of 1, 32, 64, 128 and 1024, merge-path,
 * work-oriented), once, for A, on four matrices that together hold float
 * and double with int32 and int64 offsets, and one corpus matrix. */
#define _POSIX_C_SOURCE 200112L

#include "spmv_plan_check.h"

#include <time.h>

/* The schedules under test: schedule, group size, and whether racecheck
 * runs it (thread- and warp-mapped use no shared memory, AUTO runs one of
 * the others, groups of 4 and 256 take the barriers of 32 and 1024). */
typedef struct variant {
  ts_schedule schedule;
  int group_size;
  bool racecheck;
} variant;

static const variant variants[] = {
    {TS_SCHEDULE_THREAD_MAPPED, 0, false},  {TS_SCHEDULE_WARP_MAPPED, 0, false},
    {TS_SCHEDULE_BLOCK_MAPPED, 0, true},    {TS_SCHEDULE_GROUP_MAPPED, 1, true},
    {TS_SCHEDULE_GROUP_MAPPED, 4, false},   {TS_SCHEDULE_GROUP_MAPPED, 32, true},
    {TS_SCHEDULE_GROUP_MAPPED, 64, true},   {TS_SCHEDULE_GROUP_MAPPED, 128, true},
    {TS_SCHEDULE_GROUP_MAPPED, 256, false}, {TS_SCHEDULE_GROUP_MAPPED, 1024, true},
    {TS_SCHEDULE_MERGE_PATH, 0, true},      {TS_SCHEDULE_WORK_ORIENTED, 0, true},
    {TS_SCHEDULE_SPLIT_ROWS, 0, true},      {TS_SCHEDULE_SPLIT_ROWS, 1, false},
    {TS_SCHEDULE_SPLIT_ROWS, 2, false},     {TS_SCHEDULE_SPLIT_ROWS, 8, true},
    {TS_SCHEDULE_AUTO, 0, false},
};
#define VARIANT_COUNT ((int)(sizeof variants / sizeof variants[0]))

/* What runs: everything, the sanitizer's selection, or racecheck's. */
typedef enum { RUN_FULL, RUN_SANITIZER, RUN_RACECHECK } run_mode;

typedef struct selection {
  run_mode mode;
  int repeats;        /* runs of the first beta compared bitwise */
  int beta_count;     /* betas[0 .. beta_count) */
  int corpus_samples; /* corpus matrices (0: all) */
} selection;

static const double betas[2] = {0.0, -0.75};
static selection sel;
static int plans_checked;

static selection choose_selection(void) {
  const char *tool = getenv("TESSERA_UNDER_SANITIZER");
  selection s = {RUN_FULL, 5, 2, 0};
  if (tool && *tool) {
    bool racecheck = strcmp(tool, "racecheck") == 0;
    s.mode = racecheck ? RUN_RACECHECK : RUN_SANITIZER;
    s.repeats = racecheck ? 1 : 2;
    s.beta_count = racecheck ? 1 : 2;
    s.corpus_samples = racecheck ? 1 : 5;
  }
  return s;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every variant (racecheck: its share), A and (not under racecheck) A^T, in
 * the matrix's own type and (when @p both_types, and not under the
 * sanitizer) in the other type too. */
static void check_all_variants(ts_context *ctx, const char *name, const ts_csr *a, bool both_types,
                               unsigned long long *seed) {
  const double start = now_seconds();
  const int op_count = sel.mode == RUN_RACECHECK ? 1 : 2;
  ts_csr *other = NULL;
  if (both_types && sel.mode == RUN_FULL) {
    ts_dtype to = a->dtype == TS_FLOAT32 ? TS_FLOAT64 : TS_FLOAT32;
    if (ts_csr_create(NULL, a->rows, a->cols, a->nnz, to, &other) == TS_SUCCESS) {
      memcpy(other->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
      if (a->nnz > 0)
        memcpy(other->col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
      for (int64_t k = 0; k < a->nnz; k++)
        spmv_check_store(other->values, to, k, spmv_check_value(a->values, a->dtype, k));
    }
    CHECK_MSG(other != NULL, "%s: no copy in the other value type", name);
  }
  const ts_csr *matrices[2] = {a, other};
  int64_t failures_before = test_failed;
  for (int m = 0; m < 2; m++) {
    if (!matrices[m])
      continue;
    for (int op = 0; op < op_count; op++)
      for (int v = 0; v < VARIANT_COUNT; v++) {
        if (sel.mode == RUN_RACECHECK && !variants[v].racecheck)
          continue;
        ts_spmv_options o = {0};
        o.schedule = variants[v].schedule;
        o.group_size = variants[v].group_size;
        o.op = (ts_operation)op;
        spmv_check_result r =
            spmv_check_plan_betas(ctx, name, matrices[m], &o, betas, sel.beta_count, sel.repeats, seed);
        if (!r.setup_failed) {
          if (o.schedule != TS_SCHEDULE_AUTO)
            CHECK_MSG(r.schedule == o.schedule, "%s: plan runs %s, asked %s", name, ts_schedule_name(r.schedule),
                      ts_schedule_name(o.schedule));
          if (o.schedule == TS_SCHEDULE_GROUP_MAPPED || (o.schedule == TS_SCHEDULE_SPLIT_ROWS && o.group_size > 0))
            CHECK_MSG(r.group_size == o.group_size, "%s: group size %d, asked %d", name, r.group_size, o.group_size);
        }
        plans_checked++;
      }
  }
  printf("%-28s %9lld x %-9lld %10lld nnz %s: %s (%.2f s)\n", name, (long long)a->rows, (long long)a->cols,
         (long long)a->nnz, a->dtype == TS_FLOAT32 ? "fp32" : "fp64", test_failed == failures_before ? "ok" : "FAILED",
         now_seconds() - start);
  fflush(stdout);
  ts_csr_destroy(other);
}

/* A CSR from per-row lengths, columns spread over [0, cols) in order and
 * values from the seed. */
static ts_csr *from_row_lengths(int64_t rows, int64_t cols, const int64_t *lengths, ts_dtype dtype,
                                unsigned long long *seed) {
  int64_t nnz = 0;
  for (int64_t i = 0; i < rows; i++)
    nnz += lengths[i];
  ts_csr *a = NULL;
  if (ts_csr_create(NULL, rows, cols, nnz, dtype, &a) != TS_SUCCESS)
    return NULL;
  int64_t k = 0;
  for (int64_t i = 0; i < rows; i++) {
    a->row_ptr[i] = k;
    int64_t n = lengths[i], stride = n > 0 ? cols / n : 1, offset = n > 0 ? (i * 7) % (cols - (n - 1) * stride) : 0;
    for (int64_t e = 0; e < n; e++, k++) {
      a->col_idx[k] = (int32_t)(offset + e * stride);
      spmv_check_store(a->values, dtype, k, test_random(seed));
    }
  }
  a->row_ptr[rows] = k;
  return a;
}

/* Check a generated matrix (and destroy it). Racecheck takes only the
 * matrices marked for it. */
static void check_generated_for(ts_context *ctx, const char *name, ts_csr *a, bool racecheck,
                                unsigned long long *seed) {
  CHECK_MSG(a != NULL, "%s: not generated: %s", name, ts_last_error(NULL));
  if (!a)
    return;
  CHECK_OK(NULL, ts_csr_check(NULL, a));
  if (sel.mode != RUN_RACECHECK || racecheck)
    check_all_variants(ctx, name, a, true, seed);
  ts_csr_destroy(a);
}

static void check_generated(ts_context *ctx, const char *name, ts_csr *a, unsigned long long *seed) {
  check_generated_for(ctx, name, a, false, seed);
}

/* A size: the full one, or the sanitizer's. */
static int64_t pick(int64_t full, int64_t small) { return sel.mode == RUN_FULL ? full : small; }

/* Chunks of the merge-path and work-oriented schedules hold 2048 items
 * (float, int32 offsets) or 1536 (double, or int64 offsets): the sanitizer's
 * long rows span 2 to 4 chunks, so blocks start and end inside them. */
static void test_generated(ts_context *ctx) {
  unsigned long long seed = 21;
  ts_csr *a = NULL;
  char name[64];

  /* Edge shapes. */
  const int64_t one[1] = {1};
  check_generated(ctx, "1x1", from_row_lengths(1, 1, one, TS_FLOAT64, &seed), &seed);
  check_generated(ctx, "0x0", from_row_lengths(0, 0, one, TS_FLOAT64, &seed), &seed);
  const int64_t none[3] = {0, 0, 0};
  check_generated(ctx, "3x4 without entries", from_row_lengths(3, 4, none, TS_FLOAT32, &seed), &seed);
  const int64_t zero_rows[1] = {0};
  check_generated(ctx, "0x5", from_row_lengths(0, 5, zero_rows, TS_FLOAT64, &seed), &seed);
  const int64_t five_none[5] = {0, 0, 0, 0, 0};
  check_generated(ctx, "5x0", from_row_lengths(5, 0, five_none, TS_FLOAT64, &seed), &seed);

  /* Mostly empty rows: every 7th row holds 1 to 40 entries (racecheck: float
   * with int32 offsets, 6 blocks of merge-path). */
  int64_t rows = pick(20000, 2800);
  int64_t *lengths = calloc((size_t)rows, sizeof(int64_t));
  if (lengths) {
    for (int64_t i = 0; i < rows; i += 7)
      lengths[i] = 1 + (i / 7) % 40;
    check_generated_for(ctx, "empty rows (6 of 7)", from_row_lengths(rows, pick(3000, 600), lengths, TS_FLOAT32, &seed),
                        true, &seed);
  }
  free(lengths);

  /* One long row alone (its transpose is a single column, as below). */
  const int64_t huge[1] = {pick(1000000, 6000)};
  snprintf(name, sizeof name, "one row of %lld", (long long)huge[0]);
  check_generated(ctx, name, from_row_lengths(1, huge[0], huge, TS_FLOAT32, &seed), &seed);

  /* Rows of 1 to 3 entries and one long row in the middle (racecheck:
   * double with int32 offsets; the long row spans 4 chunks). */
  rows = pick(100000, 2000);
  const int64_t long_row = pick(1000000, 5000);
  lengths = calloc((size_t)rows, sizeof(int64_t));
  if (lengths) {
    for (int64_t i = 0; i < rows; i++)
      lengths[i] = 1 + i % 3;
    lengths[rows / 2] = long_row;
    snprintf(name, sizeof name, "%lld rows, one of %lld", (long long)rows, (long long)long_row);
    check_generated_for(ctx, name, from_row_lengths(rows, long_row, lengths, TS_FLOAT64, &seed), true, &seed);
  }
  free(lengths);

  /* A single column, every row one entry (a sparse vector). */
  rows = pick(100000, 3000);
  lengths = malloc((size_t)rows * sizeof(int64_t));
  if (lengths) {
    for (int64_t i = 0; i < rows; i++)
      lengths[i] = 1;
    check_generated(ctx, "single column", from_row_lengths(rows, 1, lengths, TS_FLOAT32, &seed), &seed);
  }
  free(lengths);

  a = NULL;
  ts_gen_laplacian_2d(NULL, pick(302, 32), pick(303, 33), TS_FLOAT64, &a);
  check_generated(ctx, "laplacian 2-D", a, &seed);
  a = NULL;
  ts_gen_power_law(NULL, pick(20000, 1500), pick(20000, 1500), pick(400000, 15000), 1.1, 22, TS_FLOAT32, &a);
  check_generated(ctx, "power law Zipf 1.1", a, &seed);
  a = NULL;
  ts_rmat_params rmat = ts_rmat_graph500(sel.mode == RUN_FULL ? 14 : 10, 8);
  rmat.symmetric = 0;
  ts_gen_rmat(NULL, &rmat, 23, TS_FLOAT64, &a);
  check_generated(ctx, "R-MAT", a, &seed);
}

/* Split-rows on rows of several pieces (TSI_SPLIT_PIECE = 1024 entries):
 * short rows of 1 to 40 entries (33 to 40: a single piece), neighbours of
 * 1024, 1025 and 5000 entries (one, two and five pieces, the second's last
 * piece of one entry), a last row of three pieces, and one of more than 32,
 * so that a lane adds several piece sums (sanitizer: 34,000 entries, 34
 * pieces). The last piece of a row to finish adds them, counted on per-row
 * arrival counters that each call must leave at zero: one plan runs 5 times
 * in a row (beta 0 with y poisoned, beta -0.75, then 3 repeats of beta 0
 * compared bitwise), in both value types and both offset widths. */
static void test_split_pieces(ts_context *ctx) {
  unsigned long long seed = 27;
  const int64_t rows = pick(20000, 2000), longest = pick(70000, 34000);
  int64_t *lengths = calloc((size_t)rows, sizeof(int64_t));
  CHECK(lengths != NULL);
  if (!lengths)
    return;
  for (int64_t i = 0; i < rows; i++)
    lengths[i] = 1 + i % 40;
  lengths[rows / 5] = 1024;
  lengths[rows / 5 + 1] = 1025;
  lengths[rows / 5 + 2] = 5000;
  lengths[rows / 2] = longest;
  lengths[rows - 1] = 2 * 1024 + 7;
  for (int wide = 0; wide < 2; wide++) {
    setenv("TESSERA_SPMV_FORCE_WIDE_OFFSETS", wide ? "1" : "0", 1);
    for (int t = 0; t < 2; t++) {
      ts_dtype dtype = t == 0 ? TS_FLOAT32 : TS_FLOAT64;
      char name[96];
      snprintf(name, sizeof name, "split pieces, one row of %lld%s", (long long)longest, wide ? ", wide" : "");
      ts_csr *a = from_row_lengths(rows, longest, lengths, dtype, &seed);
      CHECK_MSG(a != NULL, "%s: not generated: %s", name, ts_last_error(NULL));
      if (!a)
        continue;
      for (int lanes = 1; lanes <= 8; lanes *= 2) { /* threads a short row */
        ts_spmv_options o = {0};
        o.schedule = TS_SCHEDULE_SPLIT_ROWS;
        o.group_size = lanes;
        spmv_check_result r = spmv_check_plan_betas(ctx, name, a, &o, betas, 2, 4, &seed);
        CHECK_MSG(r.setup_failed || (r.schedule == TS_SCHEDULE_SPLIT_ROWS && r.group_size == lanes),
                  "%s: plan runs %s with %d threads a short row, asked %d", name, ts_schedule_name(r.schedule),
                  r.group_size, lanes);
        printf("%-40s %s, %d threads a short row: %s\n", name, dtype == TS_FLOAT32 ? "fp32" : "fp64", lanes,
               r.setup_failed || r.bad || r.not_repeated ? "FAILED" : "ok");
        plans_checked++;
      }
      ts_csr_destroy(a);
    }
  }
  unsetenv("TESSERA_SPMV_FORCE_WIDE_OFFSETS");
  free(lengths);
}

/* The int64-offset kernels on small matrices, through the testing aid. */
static void test_wide_offsets(ts_context *ctx) {
  unsigned long long seed = 31;
  setenv("TESSERA_SPMV_FORCE_WIDE_OFFSETS", "1", 1);
  ts_csr *a = NULL;
  ts_gen_laplacian_2d(NULL, 40, 30, TS_FLOAT32, &a);
  if (a) {
    /* The plan says it: offsets of 8 bytes instead of 4 in its traffic. */
    ts_spmv_plan *wide = NULL, *narrow = NULL;
    CHECK_OK(ctx, ts_spmv_plan_create(ctx, a, &wide));
    setenv("TESSERA_SPMV_FORCE_WIDE_OFFSETS", "0", 1);
    CHECK_OK(ctx, ts_spmv_plan_create(ctx, a, &narrow));
    setenv("TESSERA_SPMV_FORCE_WIDE_OFFSETS", "1", 1);
    CHECK_MSG(ts_spmv_plan_bytes(wide) - ts_spmv_plan_bytes(narrow) == 4 * (a->rows + 1),
              "wide %lld, narrow %lld bytes", (long long)ts_spmv_plan_bytes(wide),
              (long long)ts_spmv_plan_bytes(narrow));
    ts_spmv_plan_destroy(wide);
    ts_spmv_plan_destroy(narrow);
  }
  check_generated_for(ctx, "wide: laplacian 2-D", a, true, &seed); /* racecheck: float, int64 */
  a = NULL;
  ts_gen_power_law(NULL, pick(5000, 1500), pick(4000, 1200), pick(60000, 15000), 1.2, 32, TS_FLOAT64, &a);
  check_generated_for(ctx, "wide: power law Zipf 1.2", a, true, &seed); /* racecheck: double, int64 */
  const int64_t huge[1] = {pick(200000, 5000)};
  check_generated(ctx, "wide: one long row", from_row_lengths(1, huge[0], huge, TS_FLOAT64, &seed), &seed);
  unsetenv("TESSERA_SPMV_FORCE_WIDE_OFFSETS");
}

/* The whole corpus; under the sanitizer a few small matrices (rows + cols
 * at most 4000, at most 20,000 stored entries) spread over the manifest. */
static void test_corpus(ts_context *ctx) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("SKIPPED: corpus part (TESSERA_MATRICES is not set or has no MANIFEST.tsv)\n");
    return;
  }
  static spmv_check_corpus_entry all[512], chosen[512];
  int count = spmv_check_corpus_list(dir, all, 512), chosen_count = 0;
  if (sel.corpus_samples == 0) {
    memcpy(chosen, all, (size_t)count * sizeof all[0]);
    chosen_count = count;
  } else {
    spmv_check_corpus_entry small[512];
    int small_count = 0;
    for (int m = 0; m < count; m++)
      if (all[m].rows + all[m].cols <= 4000 && all[m].nnz <= 20000)
        small[small_count++] = all[m];
    int step = small_count / sel.corpus_samples > 1 ? small_count / sel.corpus_samples : 1;
    for (int m = 0; m < small_count && chosen_count < sel.corpus_samples; m += step)
      chosen[chosen_count++] = small[m];
  }
  unsigned long long seed = 41;
  int matrices = 0;
  for (int m = 0; m < chosen_count; m++) {
    ts_csr *a = spmv_check_read_corpus(dir, chosen[m].name, TS_FLOAT64);
    if (!a)
      continue;
    check_all_variants(ctx, chosen[m].name, a, true, &seed);
    matrices++;
    ts_csr_destroy(a);
  }
  printf("corpus: %d of %d matrices\n", matrices, count);
  CHECK(matrices > 0);
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  ts_status st = ts_context_create(&ctx, &options);
  if (st == TS_ERROR_NO_DEVICE)
    return test_skip("no usable CUDA device");
  CHECK_MSG(st == TS_SUCCESS, "ts_context_create: %s", ts_last_error(NULL));
  if (st != TS_SUCCESS)
    return test_finish();
  sel = choose_selection();
  static const char *mode_names[] = {
      "full: 13 variants, A and A^T, both value types, beta 0 and -0.75, 5 runs, every corpus matrix",
      "sanitizer: 13 variants, A and A^T, own value type, beta 0 and -0.75, 2 runs, 5 small corpus matrices",
      "racecheck: the 8 shared-memory variants, A only, own value type, beta 0, 1 run, 4 generated and 1 corpus "
      "matrix"};
  printf("selection: %s\n", mode_names[sel.mode]);
  fflush(stdout);
  const double start = now_seconds();
  test_generated(ctx);
  test_split_pieces(ctx);
  test_wide_offsets(ctx);
  test_corpus(ctx);
  printf("%d plans checked in %.1f s\n", plans_checked, now_seconds() - start);
  ts_context_destroy(ctx);
  return test_finish();
}
