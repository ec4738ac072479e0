/* The SpMV plan on the CPU backend: option validation and its messages,
 * y = alpha*op(A)*x + beta*y for A and A^T against a dense reference and
 * the double-precision reference of spmv_plan_check.h, buffer checks, the
 * schedule and group size a plan reports, the AUTO choice and its explain
 * line on matrices of known shape, and ts_spmv_plan_bytes by hand. */
#include "spmv_plan_check.h"

static ts_context *cpu_context(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  ts_context_create(&ctx, &options);
  return ctx;
}

/* A 4x3 matrix (row 2 empty) written out densely:
 *   [ 1  0  2 ]
 *   [ 0  3  0 ]
 *   [ 0  0  0 ]
 *   [ 4  5  6 ] */
static const double dense43[4][3] = {{1, 0, 2}, {0, 3, 0}, {0, 0, 0}, {4, 5, 6}};

static ts_csr *small_matrix(ts_dtype dtype) {
  ts_csr *a = NULL;
  if (ts_csr_create(NULL, 4, 3, 6, dtype, &a) != TS_SUCCESS)
    return NULL;
  const int64_t ptr[5] = {0, 2, 3, 3, 6};
  const int32_t col[6] = {0, 2, 1, 0, 1, 2};
  const double val[6] = {1, 2, 3, 4, 5, 6};
  memcpy(a->row_ptr, ptr, sizeof ptr);
  memcpy(a->col_idx, col, sizeof col);
  for (int k = 0; k < 6; k++)
    spmv_check_store(a->values, dtype, k, val[k]);
  return a;
}

static void test_options(ts_context *ctx) {
  ts_csr *a = small_matrix(TS_FLOAT64);
  ts_spmv_plan *plan = (ts_spmv_plan *)&plan; /* must be set to NULL on failure */
  ts_spmv_options o = {0};

  o.schedule = (ts_schedule)-1;
  CHECK_STATUS(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(plan == NULL);
  CHECK(strstr(ts_last_error(ctx), "unknown schedule -1") != NULL);
  o.schedule = (ts_schedule)TS_SCHEDULE_COUNT;
  CHECK_STATUS(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "unknown schedule 8") != NULL);

  o.schedule = TS_SCHEDULE_AUTO;
  o.op = (ts_operation)3;
  CHECK_STATUS(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "unknown operation 3") != NULL);
  o.op = TS_OP_NONE;

  const int bad_sizes[] = {3, 6, 2048, -4, 1023, 1025};
  for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
    o.schedule = TS_SCHEDULE_GROUP_MAPPED;
    o.group_size = bad_sizes[i];
    CHECK_STATUS(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
    char expected[64];
    snprintf(expected, sizeof expected, "group size %d is not a power of two", bad_sizes[i]);
    CHECK_MSG(strstr(ts_last_error(ctx), expected) != NULL, "message: %s", ts_last_error(ctx));
  }
  const int good_sizes[] = {1, 2, 4, 32, 256, 1024};
  for (size_t i = 0; i < sizeof good_sizes / sizeof good_sizes[0]; i++) {
    o.group_size = good_sizes[i];
    CHECK_OK(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan));
    CHECK(ts_spmv_plan_schedule(plan) == TS_SCHEDULE_GROUP_MAPPED);
    CHECK(ts_spmv_plan_group_size(plan) == good_sizes[i]);
    ts_spmv_plan_destroy(plan);
  }
  /* Split-rows takes 1, 2, 4 or 8 threads a short row; 0 lets the plan choose. */
  o.schedule = TS_SCHEDULE_SPLIT_ROWS;
  o.group_size = 16;
  CHECK_STATUS(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(ts_last_error(ctx), "split-rows takes 1, 2, 4 or 8 threads a short row, not 16") != NULL,
            "message: %s", ts_last_error(ctx));
  o.group_size = 4;
  CHECK_OK(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan));
  CHECK(ts_spmv_plan_group_size(plan) == 4);
  CHECK(strstr(ts_spmv_plan_explain(plan), "split-rows, threads a short row 4 for A") != NULL);
  ts_spmv_plan_destroy(plan);
  o.group_size = 0;
  CHECK_OK(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan));
  CHECK(ts_spmv_plan_group_size(plan) == 1); /* mean row 1.5: one thread a row */
  CHECK(strstr(ts_spmv_plan_explain(plan), "threads a short row 1 (chosen)") != NULL);
  ts_spmv_plan_destroy(plan);
  /* A group size with another schedule is validated, then not used. */
  o.schedule = TS_SCHEDULE_WARP_MAPPED;
  o.group_size = 64;
  CHECK_OK(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan));
  CHECK(ts_spmv_plan_group_size(plan) == 0);
  ts_spmv_plan_destroy(plan);

  CHECK_STATUS(NULL, ts_spmv_plan_create_ex(NULL, a, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_spmv_plan_create_ex(ctx, NULL, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_spmv_plan_create_ex(ctx, a, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);

  /* Symmetric storage and an invalid matrix are refused with the reason. */
  a->symmetry = TS_SYMMETRIC;
  CHECK_STATUS(ctx, ts_spmv_plan_create_ex(ctx, a, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "ts_coo_expand_symmetric") != NULL);
  a->symmetry = TS_GENERAL;
  a->col_idx[1] = 7;
  CHECK_STATUS(ctx, ts_spmv_plan_create_ex(ctx, a, NULL, &plan), TS_ERROR_INVALID_MATRIX);
  CHECK(plan == NULL);
  a->col_idx[1] = 2;

  /* NULL plans: the accessors answer without crashing. */
  CHECK(ts_spmv_plan_schedule(NULL) == TS_SCHEDULE_AUTO);
  CHECK(ts_spmv_plan_group_size(NULL) == 0);
  CHECK(strcmp(ts_spmv_plan_explain(NULL), "") == 0);
  CHECK(ts_spmv_plan_bytes(NULL) == 0);
  ts_spmv_plan_destroy(NULL);
  ts_csr_destroy(a);
}

static void test_schedule_names(void) {
  const char *expected[TS_SCHEDULE_COUNT] = {"auto",         "thread-mapped", "warp-mapped",   "block-mapped",
                                             "group-mapped", "merge-path",    "work-oriented", "split-rows"};
  for (int s = 0; s < TS_SCHEDULE_COUNT; s++)
    CHECK_MSG(strcmp(ts_schedule_name((ts_schedule)s), expected[s]) == 0, "schedule %d: %s", s,
              ts_schedule_name((ts_schedule)s));
  CHECK(strcmp(ts_schedule_name((ts_schedule)99), "unknown") == 0);
}

/* y = 2 op(A) x - y0 against the dense matrix, exact in double. */
static void test_dense_reference(ts_context *ctx) {
  for (int t = 0; t < 2; t++) {
    ts_dtype dtype = t == 0 ? TS_FLOAT64 : TS_FLOAT32;
    ts_csr *a = small_matrix(dtype);
    for (int op = 0; op < 2; op++) {
      for (int s = 0; s < TS_SCHEDULE_COUNT; s++) {
        ts_spmv_options o = {0};
        o.schedule = (ts_schedule)s;
        o.op = (ts_operation)op;
        int in_n = op ? 4 : 3, out_n = op ? 3 : 4;
        double x[4] = {1, -2, 0.5, 3}, y0[4] = {1, 2, 3, 4}, want[4] = {0};
        for (int i = 0; i < out_n; i++) {
          double sum = 0;
          for (int j = 0; j < in_n; j++)
            sum += (op ? dense43[j][i] : dense43[i][j]) * x[j];
          want[i] = 2 * sum - y0[i];
        }
        ts_spmv_plan *plan = NULL;
        ts_buffer *xb = NULL, *yb = NULL;
        unsigned char xs[32], ys[32];
        for (int j = 0; j < 4; j++) {
          spmv_check_store(xs, dtype, j, x[j]);
          spmv_check_store(ys, dtype, j, y0[j]);
        }
        size_t vs = ts_dtype_size(dtype);
        CHECK_OK(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan));
        CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)in_n * vs, &xb));
        CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)out_n * vs, &yb));
        if (plan && xb && yb) {
          CHECK_OK(ctx, ts_buffer_upload(ctx, xb, 0, xs, (size_t)in_n * vs));
          CHECK_OK(ctx, ts_buffer_upload(ctx, yb, 0, ys, (size_t)out_n * vs));
          CHECK_OK(ctx, ts_spmv_execute(plan, 2.0, xb, -1.0, yb));
          CHECK_OK(ctx, ts_buffer_download(ctx, yb, 0, ys, (size_t)out_n * vs));
          for (int i = 0; i < out_n; i++)
            CHECK_MSG(spmv_check_value(ys, dtype, i) == want[i], "op %d schedule %s y[%d] = %g, want %g", op,
                      ts_schedule_name((ts_schedule)s), i, spmv_check_value(ys, dtype, i), want[i]);
          /* The requested schedule is recorded (the CPU has one implementation). */
          if (s != TS_SCHEDULE_AUTO)
            CHECK(ts_spmv_plan_schedule(plan) == (ts_schedule)s);
          CHECK(ts_spmv_plan_schedule(plan) != TS_SCHEDULE_AUTO);
        }
        ts_buffer_destroy(xb);
        ts_buffer_destroy(yb);
        ts_spmv_plan_destroy(plan);
      }
    }
    ts_csr_destroy(a);
  }
}

/* x and y sizes follow the operation: x has cols entries for A, rows for A^T. */
static void test_buffer_checks(ts_context *ctx) {
  ts_csr *a = small_matrix(TS_FLOAT64);
  ts_spmv_options o = {0};
  o.op = TS_OP_TRANSPOSE;
  ts_spmv_plan *plan = NULL, *plain = NULL;
  ts_buffer *x3 = NULL, *x4 = NULL, *y3 = NULL, *y4 = NULL, *host = NULL;
  CHECK_OK(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan));
  CHECK_OK(ctx, ts_spmv_plan_create(ctx, a, &plain));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 3 * sizeof(double), &x3));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 4 * sizeof(double), &x4));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 3 * sizeof(double), &y3));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 4 * sizeof(double), &y4));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_HOST, 4 * sizeof(double), &host));
  CHECK_OK(ctx, ts_buffer_fill_bytes(ctx, x3, 0));
  CHECK_OK(ctx, ts_buffer_fill_bytes(ctx, x4, 0));
  /* A^T: x has 4 entries, y 3. */
  CHECK_STATUS(ctx, ts_spmv_execute(plan, 1, x3, 0, y3), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "A^T") != NULL);
  CHECK_OK(ctx, ts_spmv_execute(plan, 1, x4, 0, y3));
  /* A: x has 3 entries, y 4. */
  CHECK_STATUS(ctx, ts_spmv_execute(plain, 1, x3, 0, y3), TS_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ctx, ts_spmv_execute(plain, 1, x3, 0, y4));
  CHECK_STATUS(ctx, ts_spmv_execute(plain, 1, host, 0, y4), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "TS_MEMORY_DEVICE") != NULL);
  CHECK_STATUS(ctx, ts_spmv_execute(plain, 1, NULL, 0, y4), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_spmv_execute(NULL, 1, x3, 0, y4), TS_ERROR_INVALID_ARGUMENT);
  /* A buffer of another context is refused. */
  ts_context *other = cpu_context();
  ts_buffer *foreign = NULL;
  CHECK_OK(other, ts_buffer_create(other, TS_MEMORY_DEVICE, 3 * sizeof(double), &foreign));
  CHECK_STATUS(ctx, ts_spmv_execute(plain, 1, foreign, 0, y4), TS_ERROR_INVALID_ARGUMENT);
  ts_buffer_destroy(foreign);
  ts_context_destroy(other);

  /* Compulsory bytes on the CPU (8-byte offsets), by hand. */
  CHECK(ts_spmv_plan_bytes(plain) == 6 * 12 + 5 * 8 + 3 * 8 + 2 * 4 * 8);
  CHECK(ts_spmv_plan_bytes(plan) == 6 * 12 + 4 * 8 + 4 * 8 + 2 * 3 * 8);
  ts_buffer_destroy(x3);
  ts_buffer_destroy(x4);
  ts_buffer_destroy(y3);
  ts_buffer_destroy(y4);
  ts_buffer_destroy(host);
  ts_spmv_plan_destroy(plan);
  ts_spmv_plan_destroy(plain);
  ts_csr_destroy(a);
}

/* AUTO's choice and explain line on matrices whose shape is known; want
 * TS_SCHEDULE_AUTO accepts any choice (where the choice is the tunable
 * TSI_AUTO_SHORT_ROWS of sparse/sparse_tuning.h) and checks only the reason. */
static void expect_auto(ts_context *ctx, const char *name, ts_csr *a, ts_operation op, ts_schedule want,
                        const char *reason) {
  CHECK_MSG(a != NULL, "%s: not generated: %s", name, ts_last_error(NULL));
  if (!a)
    return;
  ts_spmv_options o = {0};
  o.op = op;
  ts_spmv_plan *plan = NULL;
  CHECK_OK(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan));
  if (plan) {
    const char *explain = ts_spmv_plan_explain(plan);
    ts_schedule got = ts_spmv_plan_schedule(plan);
    CHECK_MSG(got != TS_SCHEDULE_AUTO && (want == TS_SCHEDULE_AUTO || got == want), "%s: AUTO chose %s, want %s (%s)",
              name, ts_schedule_name(got), ts_schedule_name(want), explain);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "auto: %s for %s: ", ts_schedule_name(got), op ? "A^T" : "A");
    CHECK_MSG(strncmp(explain, prefix, strlen(prefix)) == 0, "%s: explain '%s'", name, explain);
    CHECK_MSG(strstr(explain, reason) != NULL, "%s: explain '%s' lacks '%s'", name, explain, reason);
    CHECK_MSG(strchr(explain, '\n') == NULL, "%s: explain is not one line", name);
  }
  ts_spmv_plan_destroy(plan);
  ts_csr_destroy(a);
}

static void test_auto(ts_context *ctx) {
  ts_csr *a = NULL;
  ts_gen_laplacian_2d(NULL, 10, 10, TS_FLOAT64, &a); /* 460 nnz, rows of 3 to 5 */
  expect_auto(ctx, "laplacian 10x10", a, TS_OP_NONE, TS_SCHEDULE_SPLIT_ROWS,
              "100 rows, 100 cols, 460 nnz, mean row 4.6, max row 5, cv 0.123: nnz < 50000 and max row <= 32 (tiny, "
              "short rows");
  a = NULL;
  ts_gen_random_uniform(NULL, 50, 2000, 100, 1, TS_FLOAT64, &a); /* 5000 nnz, rows of 100 */
  expect_auto(ctx, "tiny long rows", a, TS_OP_NONE, TS_SCHEDULE_WARP_MAPPED, "nnz < 50000 (tiny");
  a = NULL;
  ts_gen_laplacian_2d(NULL, 200, 200, TS_FLOAT64, &a); /* 199,200 nnz, short regular rows */
  expect_auto(ctx, "laplacian 200x200", a, TS_OP_NONE, TS_SCHEDULE_THREAD_MAPPED, "(short regular rows)");
  a = NULL;
  ts_gen_random_uniform(NULL, 2000, 4000, 64, 2, TS_FLOAT64, &a); /* 128,000 nnz in rows of 64 */
  expect_auto(ctx, "small, rows of 64", a, TS_OP_NONE, TS_SCHEDULE_WARP_MAPPED, "(small: one wave of warps)");
  a = NULL;
  ts_gen_random_uniform(NULL, 40000, 40000, 40, 2, TS_FLOAT64, &a); /* 1.6 M nnz in rows of 40 */
  expect_auto(ctx, "uniform 40 per row", a, TS_OP_NONE, TS_SCHEDULE_THREAD_MAPPED, "mean row < 64");
  a = NULL;
  ts_gen_random_uniform(NULL, 40000, 40000, 80, 2, TS_FLOAT64, &a); /* 3.2 M nnz in rows of 80 */
  expect_auto(ctx, "uniform 80 per row", a, TS_OP_NONE, TS_SCHEDULE_WARP_MAPPED, "(regular rows of a warp)");
  a = NULL;
  ts_gen_random_uniform(NULL, 40000, 40000, 8, 2, TS_FLOAT64, &a); /* 320,000 nnz, 40,000 short rows */
  expect_auto(ctx, "small, many short rows", a, TS_OP_NONE, TS_SCHEDULE_AUTO, "(short regular rows)");
  a = NULL;
  ts_gen_random_uniform(NULL, 1024, 2048, 1100, 3, TS_FLOAT32, &a); /* regular rows of 1100 */
  expect_auto(ctx, "uniform 1100 per row", a, TS_OP_NONE, TS_SCHEDULE_BLOCK_MAPPED, "(long regular rows)");
  a = NULL;
  ts_gen_power_law(NULL, 1 << 14, 1 << 14, 200000, 1.0, 4, TS_FLOAT32, &a);
  expect_auto(ctx, "power law", a, TS_OP_NONE, TS_SCHEDULE_SPLIT_ROWS, "(skewed rows)");
  a = NULL;
  ts_gen_random_uniform(NULL, 1, 60000, 60000, 5, TS_FLOAT32, &a); /* one row of 60,000 */
  expect_auto(ctx, "one long row", a, TS_OP_NONE, TS_SCHEDULE_SPLIT_ROWS, "max row > 4096");
  a = NULL;
  ts_gen_random_uniform(NULL, 1, 20000, 20000, 5, TS_FLOAT32, &a); /* tiny, but one row of 20,000 */
  expect_auto(ctx, "tiny with one long row", a, TS_OP_NONE, TS_SCHEDULE_SPLIT_ROWS,
              "(tiny: launch-bound) and max row > 4096");
  /* The transpose of the single row is a single column: 20,000 rows of 1. */
  a = NULL;
  ts_gen_random_uniform(NULL, 1, 20000, 20000, 5, TS_FLOAT32, &a);
  expect_auto(ctx, "one long row, transposed", a, TS_OP_TRANSPOSE, TS_SCHEDULE_AUTO,
              "20000 rows, 1 cols, 20000 nnz, mean row 1, max row 1, cv 0");
  a = NULL;
  ts_csr_create(NULL, 3, 4, 0, TS_FLOAT64, &a);
  expect_auto(ctx, "3x4 without entries", a, TS_OP_NONE, TS_SCHEDULE_THREAD_MAPPED, "no entries");

  /* A requested schedule says so; group-mapped with 0 gets a chosen size. */
  a = small_matrix(TS_FLOAT64);
  ts_spmv_options o = {0};
  o.schedule = TS_SCHEDULE_GROUP_MAPPED;
  ts_spmv_plan *plan = NULL;
  CHECK_OK(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan));
  CHECK(ts_spmv_plan_group_size(plan) == 32);
  CHECK_MSG(strstr(ts_spmv_plan_explain(plan), "requested: group-mapped, group size 32 (chosen) for A (4 rows") ==
                ts_spmv_plan_explain(plan),
            "explain '%s'", ts_spmv_plan_explain(plan));
  ts_spmv_plan_destroy(plan);
  o.schedule = TS_SCHEDULE_MERGE_PATH;
  o.op = TS_OP_TRANSPOSE;
  CHECK_OK(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &plan));
  CHECK(strstr(ts_spmv_plan_explain(plan), "requested: merge-path for A^T (3 rows, 4 cols, 6 nnz") ==
        ts_spmv_plan_explain(plan));
  ts_spmv_plan_destroy(plan);
  ts_csr_destroy(a);
}

/* Every schedule, A and A^T, float and double, against the double reference. */
static void test_generated(ts_context *ctx) {
  unsigned long long seed = 11;
  ts_csr *matrices[4] = {NULL, NULL, NULL, NULL};
  ts_gen_laplacian_2d(NULL, 17, 9, TS_FLOAT64, &matrices[0]);
  ts_gen_power_law(NULL, 300, 200, 3000, 1.1, 7, TS_FLOAT32, &matrices[1]);
  ts_gen_random_uniform(NULL, 40, 300, 0, 8, TS_FLOAT64, &matrices[2]); /* 40x300, no entries */
  ts_gen_random_uniform(NULL, 1, 500, 500, 9, TS_FLOAT32, &matrices[3]);
  const char *names[4] = {"laplacian 17x9", "power law 300x200", "empty 40x300", "one row of 500"};
  for (int m = 0; m < 4; m++) {
    CHECK_MSG(matrices[m] != NULL, "%s not generated", names[m]);
    if (!matrices[m])
      continue;
    for (int op = 0; op < 2; op++)
      for (int s = 0; s < TS_SCHEDULE_COUNT; s++) {
        ts_spmv_options o = {0};
        o.schedule = (ts_schedule)s;
        o.op = (ts_operation)op;
        spmv_check_plan(ctx, names[m], matrices[m], &o, 3, &seed);
      }
    ts_csr_destroy(matrices[m]);
  }
}

/* A slice of the corpus on the CPU (the GPU test runs all of it). */
static void test_corpus(ts_context *ctx) {
  const char *dir = test_matrices_dir();
  if (!dir) {
    printf("SKIPPED: corpus part (TESSERA_MATRICES is not set or has no MANIFEST.tsv)\n");
    return;
  }
  static char names[512][128];
  int count = spmv_check_corpus_names(dir, names, 512);
  unsigned long long seed = 12;
  int matrices = 0;
  for (int m = 0; m < count; m++) {
    ts_csr *a = spmv_check_read_corpus(dir, names[m], m % 2 ? TS_FLOAT32 : TS_FLOAT64);
    if (!a)
      continue;
    for (int op = 0; op < 2; op++) {
      ts_spmv_options o = {0};
      o.op = (ts_operation)op;
      spmv_check_plan(ctx, names[m], a, &o, 1, &seed);
    }
    matrices++;
    ts_csr_destroy(a);
  }
  printf("corpus: %d matrices, A and A^T\n", matrices);
  CHECK(matrices > 0);
}

int main(void) {
  ts_context *ctx = cpu_context();
  CHECK(ctx != NULL);
  if (!ctx)
    return test_finish();
  test_schedule_names();
  test_options(ctx);
  test_dense_reference(ctx);
  test_buffer_checks(ctx);
  test_auto(ctx);
  test_generated(ctx);
  test_corpus(ctx);
  ts_context_destroy(ctx);
  return test_finish();
}
