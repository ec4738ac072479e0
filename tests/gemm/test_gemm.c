/* GEMM on the CPU backend against the naive product in double: fixed and
 * random shapes, every transposition, padded leading dimensions, the BLAS
 * special cases (k = 0, alpha = 0, beta = 0 with NaN in C), determinism,
 * the configuration table, and the statuses of bad calls. */
#include "test_gemm_check.h"

#include <stdint.h>

static void test_fixed_example(ts_context *ctx) {
  /* The header's example: A = [[1, 2], [3, 4]], B = I, alpha 2, beta 0. */
  const double a[] = {1, 3, 2, 4}, b[] = {1, 0, 0, 1}, nan4[] = {NAN, NAN, NAN, NAN};
  ts_buffer *da = gemm_upload(ctx, TS_FLOAT64, a, 4), *db = gemm_upload(ctx, TS_FLOAT64, b, 4);
  ts_buffer *dc = gemm_upload(ctx, TS_FLOAT64, nan4, 4);
  CHECK(da && db && dc);
  if (da && db && dc) {
    double c[4] = {0};
    CHECK_OK(ctx, ts_gemm(ctx, TS_FLOAT64, 2, 2, 2, 2.0, da, 2, db, 2, 0.0, dc, 2));
    CHECK(gemm_download(ctx, TS_FLOAT64, dc, c, 4));
    CHECK(c[0] == 2 && c[1] == 6 && c[2] == 4 && c[3] == 8);
  }
  ts_buffer_destroy(da);
  ts_buffer_destroy(db);
  ts_buffer_destroy(dc);
}

static void test_shapes(ts_context *ctx, ts_dtype dtype) {
  /* 1x1x1, and sizes that straddle the CPU tile (64) and slice (256). */
  const int64_t sizes[][3] = {{1, 1, 1}, {1, 7, 1}, {5, 1, 3}, {64, 64, 256}, {65, 63, 257}, {130, 129, 300}};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    for (int t = 0; t < 4; t++) {
      gemm_case g = {.dtype = dtype, .m = sizes[s][0], .n = sizes[s][1], .k = sizes[s][2], .alpha = 1.5, .beta = -0.5};
      g.trans_a = t & 1;
      g.trans_b = t & 2;
      int64_t wrong = gemm_run_case(ctx, &g, NULL, 11 + s * 4 + t, NULL);
      CHECK_MSG(wrong == 0, "%lldx%lldx%lld trans %d: %lld wrong", (long long)g.m, (long long)g.n, (long long)g.k, t,
                (long long)wrong);
    }
  }
  unsigned long long state = 42 + (unsigned long long)dtype;
  for (int trial = 0; trial < 40; trial++) {
    gemm_case g = gemm_random_case(&state, dtype, 130);
    int64_t wrong = gemm_run_case(ctx, &g, NULL, 1000 + trial, NULL);
    CHECK_MSG(wrong == 0, "random %lldx%lldx%lld ta %d tb %d lda %lld ldb %lld ldc %lld alpha %g beta %g: %lld wrong",
              (long long)g.m, (long long)g.n, (long long)g.k, g.trans_a, g.trans_b, (long long)g.lda, (long long)g.ldb,
              (long long)g.ldc, g.alpha, g.beta, (long long)wrong);
  }
}

static void test_special_cases(ts_context *ctx, ts_dtype dtype) {
  /* k = 0: C = beta C, A and B not read (they hold NaN). */
  gemm_case g = {.dtype = dtype, .m = 9, .n = 4, .k = 0, .alpha = 1.0, .beta = 0.5, .nan_in_ab = true};
  CHECK(gemm_run_case(ctx, &g, NULL, 1, NULL) == 0);
  g.beta = 0.0; /* C = 0 although it held NaN */
  g.nan_in_c = true;
  CHECK(gemm_run_case(ctx, &g, NULL, 2, NULL) == 0);
  /* alpha = 0: A and B not read. */
  gemm_case z = {.dtype = dtype, .m = 17, .n = 5, .k = 8, .alpha = 0.0, .beta = -2.0, .nan_in_ab = true};
  CHECK(gemm_run_case(ctx, &z, NULL, 3, NULL) == 0);
  z.beta = 1.0;
  CHECK(gemm_run_case(ctx, &z, NULL, 4, NULL) == 0);
  /* beta = 0 with NaN in C, alpha = 1 and -1. */
  gemm_case w = {.dtype = dtype, .m = 33, .n = 31, .k = 29, .alpha = 1.0, .beta = 0.0, .nan_in_c = true};
  CHECK(gemm_run_case(ctx, &w, NULL, 5, NULL) == 0);
  w.alpha = -1.0;
  w.ldc = 40;
  CHECK(gemm_run_case(ctx, &w, NULL, 6, NULL) == 0);
  /* m = 0 or n = 0: nothing happens (C of 0 columns). */
  gemm_case e = {.dtype = dtype, .m = 0, .n = 3, .k = 4, .alpha = 1.0, .beta = 1.0};
  CHECK(gemm_run_case(ctx, &e, NULL, 7, NULL) == 0);
}

static void test_deterministic(ts_context *ctx) {
  /* Same bits on a repeat and with a single thread: each thread owns whole tiles. */
  ts_context *one = NULL;
  ts_context_options o = {.backend = TS_BACKEND_CPU, .num_threads = 1};
  CHECK_OK(NULL, ts_context_create(&one, &o));
  gemm_case g = {.dtype = TS_FLOAT32, .m = 150, .n = 140, .k = 600, .alpha = 1.0, .beta = 0.25, .trans_b = true};
  double *r1 = NULL, *r2 = NULL, *r3 = NULL;
  CHECK(gemm_run_case(ctx, &g, NULL, 9, &r1) == 0);
  CHECK(gemm_run_case(ctx, &g, NULL, 9, &r2) == 0);
  if (one)
    CHECK(gemm_run_case(one, &g, NULL, 9, &r3) == 0);
  CHECK(r1 && r2 && r3 && memcmp(r1, r2, (size_t)150 * 140 * sizeof(double)) == 0 &&
        memcmp(r1, r3, (size_t)150 * 140 * sizeof(double)) == 0);
  free(r1);
  free(r2);
  free(r3);
  ts_context_destroy(one);
}

static void test_configs(ts_context *ctx) {
  int count = ts_gemm_config_count();
  CHECK(count > 0);
  int per_dtype[2] = {0, 0};
  for (int id = 1; id <= count; id++) {
    ts_gemm_config_info info;
    CHECK_OK(NULL, ts_gemm_config_describe(id, &info));
    CHECK(info.id == id);
    CHECK(info.dtype == TS_FLOAT32 || info.dtype == TS_FLOAT64);
    per_dtype[info.dtype == TS_FLOAT64]++;
    /* Threads times register tiles cover the block tile exactly once. */
    CHECK((int64_t)info.threads * info.thread_m * info.thread_n == (int64_t)info.block_m * info.block_n);
    CHECK(info.fmas == (int64_t)info.block_m * info.block_n * info.block_k);
    CHECK(info.global_bytes ==
          (int64_t)(info.block_m + info.block_n) * info.block_k * (int64_t)ts_dtype_size(info.dtype));
    /* sm_90: at most 227 KiB of shared memory a block, 228 KiB an SM. */
    CHECK(info.shared_bytes >= 2 * info.global_bytes && info.shared_bytes <= 227 * 1024);
    CHECK((int64_t)info.shared_bytes * info.blocks_per_sm <= (int64_t)228 * 1024);
    CHECK((int64_t)info.registers * info.threads * info.blocks_per_sm <= 65536);
    CHECK(info.barriers == 1 && info.name[0] == (info.dtype == TS_FLOAT32 ? 's' : 'd'));
    /* A forced configuration is accepted on the CPU (and ignored there). */
    ts_gemm_options o = {.config = id};
    gemm_case g = {.dtype = info.dtype, .m = 20, .n = 21, .k = 22, .alpha = 1.0, .beta = 1.0};
    CHECK(gemm_run_case(ctx, &g, &o, 100 + id, NULL) == 0);
  }
  CHECK(per_dtype[0] >= 2 && per_dtype[1] >= 2);
  ts_gemm_config_info info;
  CHECK_STATUS(NULL, ts_gemm_config_describe(0, &info), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gemm_config_describe(count + 1, &info), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(NULL, ts_gemm_config_describe(1, NULL), TS_ERROR_INVALID_ARGUMENT);
  int id = -1;
  char reason[200] = "";
  CHECK_OK(ctx, ts_gemm_config_choose(ctx, TS_FLOAT32, 4096, 4096, 4096, &id, reason, sizeof reason));
  CHECK(id == 0 && strstr(reason, "cpu") != NULL);
  CHECK_STATUS(ctx, ts_gemm_config_choose(ctx, TS_FLOAT32, -1, 4, 4, &id, NULL, 0), TS_ERROR_INVALID_ARGUMENT);
}

static void test_bad_calls(ts_context *ctx) {
  ts_buffer *a = NULL, *b = NULL, *c = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 100 * sizeof(double), &a));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 100 * sizeof(double), &b));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 100 * sizeof(double), &c));
  const ts_status bad = TS_ERROR_INVALID_ARGUMENT;
  CHECK_STATUS(NULL, ts_gemm(NULL, TS_FLOAT64, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2), bad);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 2, 2, 2, 1, NULL, 2, b, 2, 0, c, 2), bad);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 2, 2, 2, 1, a, 2, NULL, 2, 0, c, 2), bad);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 2, 2, 2, 1, a, 2, b, 2, 0, NULL, 2), bad);
  CHECK_STATUS(ctx, ts_gemm(ctx, (ts_dtype)7, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2), bad);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, -1, 2, 2, 1, a, 2, b, 2, 0, c, 2), bad);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 2, 2, -3, 1, a, 2, b, 2, 0, c, 2), bad);
  /* Leading dimensions below the rows of the stored matrix (A^T is k x m). */
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 3, 2, 2, 1, a, 2, b, 2, 0, c, 3), bad);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 2, 2, 3, 1, a, 2, b, 2, 0, c, 2), bad);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 3, 2, 2, 1, a, 3, b, 2, 0, c, 2), bad);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 0, 2, 2, 1, a, 0, b, 2, 0, c, 1), bad);
  ts_gemm_options ta = {.op_a = TS_OP_TRANSPOSE};
  CHECK_STATUS(ctx, ts_gemm_ex(ctx, TS_FLOAT64, 2, 2, 3, 1, a, 2, b, 3, 0, c, 2, &ta), bad);
  CHECK_OK(ctx, ts_gemm_ex(ctx, TS_FLOAT64, 2, 2, 3, 1, a, 3, b, 3, 0, c, 2, &ta));
  ts_gemm_options bad_op = {.op_b = (ts_operation)5};
  CHECK_STATUS(ctx, ts_gemm_ex(ctx, TS_FLOAT64, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2, &bad_op), bad);
  /* Configurations: unknown ids and one of the other precision. */
  ts_gemm_options unknown = {.config = ts_gemm_config_count() + 1}, negative = {.config = -1};
  CHECK_STATUS(ctx, ts_gemm_ex(ctx, TS_FLOAT64, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2, &unknown), bad);
  CHECK_STATUS(ctx, ts_gemm_ex(ctx, TS_FLOAT64, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2, &negative), bad);
  for (int id = 1; id <= ts_gemm_config_count(); id++) {
    ts_gemm_config_info info;
    ts_gemm_config_describe(id, &info);
    ts_gemm_options other = {.config = id};
    ts_dtype wrong = info.dtype == TS_FLOAT32 ? TS_FLOAT64 : TS_FLOAT32;
    CHECK_STATUS(ctx, ts_gemm_ex(ctx, wrong, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2, &other), bad);
  }
  /* Buffers too small: 100 doubles hold 10 x 10, not 11 x 10. */
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 11, 10, 2, 1, a, 11, b, 2, 0, c, 11), bad);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 2, 2, 2, 1, a, 2, b, 99, 0, c, 2), bad); /* 99 + 2 values */
  CHECK_OK(ctx, ts_gemm(ctx, TS_FLOAT64, 10, 10, 10, 1, a, 10, b, 10, 0, c, 10));
  CHECK_OK(ctx, ts_gemm(ctx, TS_FLOAT32, 10, 20, 10, 1, a, 10, b, 10, 0, c, 10)); /* 200 floats fit */
  /* Overflow: sizes past 2^31 - 1, and a span past 2^63 bytes. */
  CHECK_STATUS(ctx,
               ts_gemm(ctx, TS_FLOAT64, (int64_t)1 << 31, 1, 1, 1, a, (int64_t)1 << 31, b, 1, 0, c, (int64_t)1 << 31),
               TS_ERROR_OVERFLOW);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 2, 4, 2, 1, a, 2, b, 2, 0, c, INT64_MAX / 2), TS_ERROR_OVERFLOW);
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 2, 2, 3, 1, a, INT64_MAX / 4, b, 3, 0, c, 2), TS_ERROR_OVERFLOW);
  /* C overlapping A, and a buffer of another context. */
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 4, 4, 4, 1, a, 4, b, 4, 0, a, 4), bad);
  ts_context *other = NULL;
  ts_context_options o = {.backend = TS_BACKEND_CPU};
  CHECK_OK(NULL, ts_context_create(&other, &o));
  ts_buffer *foreign = NULL;
  if (other)
    CHECK_OK(other, ts_buffer_create(other, TS_MEMORY_DEVICE, 100 * sizeof(double), &foreign));
  CHECK_STATUS(ctx, ts_gemm(ctx, TS_FLOAT64, 2, 2, 2, 1, a, 2, b, 2, 0, foreign, 2), bad);
  CHECK(strstr(ts_last_error(ctx), "another context") != NULL);
  ts_buffer_destroy(foreign);
  ts_context_destroy(other);
  ts_buffer_destroy(a);
  ts_buffer_destroy(b);
  ts_buffer_destroy(c);
}

int main(void) {
  ts_context *ctx = NULL;
  ts_context_options o = {.backend = TS_BACKEND_CPU};
  CHECK_OK(NULL, ts_context_create(&ctx, &o));
  if (!ctx)
    return test_finish();
  test_fixed_example(ctx);
  test_shapes(ctx, TS_FLOAT32);
  test_shapes(ctx, TS_FLOAT64);
  test_special_cases(ctx, TS_FLOAT32);
  test_special_cases(ctx, TS_FLOAT64);
  test_deterministic(ctx);
  test_configs(ctx);
  test_bad_calls(ctx);
  ts_context_destroy(ctx);
  return test_finish();
}
