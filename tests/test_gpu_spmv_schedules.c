/* Every SpMV schedule on the GPU (thread-, warp-, block-mapped, group-mapped
 * with groups of 1, 4, 32, 256 and 1024 threads, merge-path, work-oriented)
 * and AUTO, in float and double, for A and A^T, beta = 0 (y poisoned with
 * NaN) and beta != 0, against a double-precision reference summed over A's
 * entries (spmv_plan_check.h gives the per-entry tolerance); each result
 * bitwise repeated over 5 runs. Inputs: the whole matrix corpus and
 * generated edge shapes (empty rows, one huge row, a single column, 1x1,
 * 0x0, 3x4 without entries, a 2-D Laplacian, power-law and R-MAT rows), then
 * a few of them again with int64 offsets forced through the plan's testing
 * aid TESSERA_SPMV_FORCE_WIDE_OFFSETS. With TESSERA_UNDER_SANITIZER set the
 * corpus is sampled, the large shapes shrink, each matrix runs in its own
 * value type only and twice, so that compute-sanitizer runs stay short. */
#define _POSIX_C_SOURCE 200112L

#include "spmv_plan_check.h"

/* The schedules under test: schedule and group size. */
typedef struct variant {
  ts_schedule schedule;
  int group_size;
} variant;

static const variant variants[] = {
    {TS_SCHEDULE_THREAD_MAPPED, 0},  {TS_SCHEDULE_WARP_MAPPED, 0},
    {TS_SCHEDULE_BLOCK_MAPPED, 0},   {TS_SCHEDULE_GROUP_MAPPED, 1},
    {TS_SCHEDULE_GROUP_MAPPED, 4},   {TS_SCHEDULE_GROUP_MAPPED, 32},
    {TS_SCHEDULE_GROUP_MAPPED, 256}, {TS_SCHEDULE_GROUP_MAPPED, 1024},
    {TS_SCHEDULE_MERGE_PATH, 0},     {TS_SCHEDULE_WORK_ORIENTED, 0},
    {TS_SCHEDULE_AUTO, 0},
};
#define VARIANT_COUNT ((int)(sizeof variants / sizeof variants[0]))
#define REPEATS 5

static bool under_sanitizer;
static int plans_checked;

/* Every variant, A and A^T, in the matrix's own type and (when @p both_types,
 * and not under the sanitizer) in the other type too. */
static void check_all_variants(ts_context *ctx, const char *name, const ts_csr *a, bool both_types,
                               unsigned long long *seed) {
  ts_csr *other = NULL;
  if (both_types && !under_sanitizer) {
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
    for (int op = 0; op < 2; op++)
      for (int v = 0; v < VARIANT_COUNT; v++) {
        ts_spmv_options o = {0};
        o.schedule = variants[v].schedule;
        o.group_size = variants[v].group_size;
        o.op = (ts_operation)op;
        spmv_check_result r = spmv_check_plan(ctx, name, matrices[m], &o, under_sanitizer ? 2 : REPEATS, seed);
        if (!r.setup_failed) {
          if (o.schedule != TS_SCHEDULE_AUTO)
            CHECK_MSG(r.schedule == o.schedule, "%s: plan runs %s, asked %s", name, ts_schedule_name(r.schedule),
                      ts_schedule_name(o.schedule));
          if (o.schedule == TS_SCHEDULE_GROUP_MAPPED)
            CHECK_MSG(r.group_size == o.group_size, "%s: group size %d, asked %d", name, r.group_size, o.group_size);
        }
        plans_checked++;
      }
  }
  printf("%-28s %9lld x %-9lld %10lld nnz: %s\n", name, (long long)a->rows, (long long)a->cols, (long long)a->nnz,
         test_failed == failures_before ? "ok" : "FAILED");
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

static void check_generated(ts_context *ctx, const char *name, ts_csr *a, unsigned long long *seed) {
  CHECK_MSG(a != NULL, "%s: not generated: %s", name, ts_last_error(NULL));
  if (!a)
    return;
  CHECK_OK(NULL, ts_csr_check(NULL, a));
  check_all_variants(ctx, name, a, true, seed);
  ts_csr_destroy(a);
}

static void test_generated(ts_context *ctx) {
  unsigned long long seed = 21;
  const int64_t scale = under_sanitizer ? 10 : 1;
  ts_csr *a = NULL;

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

  /* Mostly empty rows: every 7th row holds 1 to 40 entries. */
  int64_t rows = 20000;
  int64_t *lengths = calloc((size_t)rows, sizeof(int64_t));
  if (lengths) {
    for (int64_t i = 0; i < rows; i += 7)
      lengths[i] = 1 + (i / 7) % 40;
    check_generated(ctx, "empty rows (6 of 7)", from_row_lengths(rows, 3000, lengths, TS_FLOAT32, &seed), &seed);
  }
  free(lengths);

  /* One huge row alone: 1 x 10^6. */
  const int64_t huge[1] = {1000000 / scale};
  check_generated(ctx, "one row of 10^6", from_row_lengths(1, huge[0], huge, TS_FLOAT32, &seed), &seed);

  /* 10^5 rows of 1 to 3 entries and one row of 10^6 in the middle. */
  rows = 100000 / scale;
  lengths = calloc((size_t)rows, sizeof(int64_t));
  if (lengths) {
    for (int64_t i = 0; i < rows; i++)
      lengths[i] = 1 + i % 3;
    lengths[rows / 2] = 1000000 / scale;
    check_generated(ctx, "10^5 rows, one of 10^6", from_row_lengths(rows, 1000000 / scale, lengths, TS_FLOAT64, &seed),
                    &seed);
  }
  free(lengths);

  /* A single column: 10^5 x 1, every row one entry (a sparse vector). */
  rows = 100000 / scale;
  lengths = malloc((size_t)rows * sizeof(int64_t));
  if (lengths) {
    for (int64_t i = 0; i < rows; i++)
      lengths[i] = 1;
    check_generated(ctx, "single column", from_row_lengths(rows, 1, lengths, TS_FLOAT32, &seed), &seed);
  }
  free(lengths);

  a = NULL;
  ts_gen_laplacian_2d(NULL, 300 / scale + 2, 301 / scale + 2, TS_FLOAT64, &a);
  check_generated(ctx, "laplacian 2-D", a, &seed);
  a = NULL;
  ts_gen_power_law(NULL, 20000 / scale, 20000 / scale, 400000 / scale, 1.1, 22, TS_FLOAT32, &a);
  check_generated(ctx, "power law Zipf 1.1", a, &seed);
  a = NULL;
  ts_rmat_params rmat = ts_rmat_graph500(under_sanitizer ? 10 : 14, 8);
  rmat.symmetric = 0;
  ts_gen_rmat(NULL, &rmat, 23, TS_FLOAT64, &a);
  check_generated(ctx, "R-MAT", a, &seed);
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
  check_generated(ctx, "wide: laplacian 2-D", a, &seed);
  a = NULL;
  ts_gen_power_law(NULL, 5000, 4000, 60000, 1.2, 32, TS_FLOAT64, &a);
  check_generated(ctx, "wide: power law Zipf 1.2", a, &seed);
  const int64_t huge[1] = {under_sanitizer ? 20000 : 200000};
  check_generated(ctx, "wide: one long row", from_row_lengths(1, huge[0], huge, TS_FLOAT64, &seed), &seed);
  unsetenv("TESSERA_SPMV_FORCE_WIDE_OFFSETS");
}

static void test_corpus(ts_context *ctx) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("SKIPPED: corpus part (TESSERA_MATRICES is not set or has no MANIFEST.tsv)\n");
    return;
  }
  static char names[512][128];
  int count = spmv_check_corpus_names(dir, names, 512);
  /* Under compute-sanitizer every 6th matrix. */
  int step = under_sanitizer ? 6 : 1;
  unsigned long long seed = 41;
  int matrices = 0;
  for (int m = 0; m < count; m += step) {
    ts_csr *a = spmv_check_read_corpus(dir, names[m], TS_FLOAT64);
    if (!a)
      continue;
    check_all_variants(ctx, names[m], a, true, &seed);
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
  const char *sanitizer = getenv("TESSERA_UNDER_SANITIZER");
  under_sanitizer = sanitizer && *sanitizer && strcmp(sanitizer, "0") != 0;
  test_generated(ctx);
  test_wide_offsets(ctx);
  test_corpus(ctx);
  printf("%d plans checked (%d variants, A and A^T, float and double, beta 0 and -0.75, %d runs each)\n", plans_checked,
         VARIANT_COUNT, under_sanitizer ? 2 : REPEATS);
  ts_context_destroy(ctx);
  return test_finish();
}
