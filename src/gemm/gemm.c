/* C = alpha * op(A) * op(B) + beta * C: argument checks, the BLAS special
 * cases (m or n = 0, k = 0 or alpha = 0, beta = 0), the configuration, and
 * dispatch to the context's backend. */
#include "gemm/gemm_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const op_name = "ts_gemm";

static bool valid_operation(ts_operation op) { return op == TS_OP_NONE || op == TS_OP_TRANSPOSE; }

/* Bytes an r x c column-major matrix with leading dimension ld spans:
 * (ld * (c - 1) + r) values; 0 when empty. false on int64 overflow. */
static bool matrix_span_bytes(int64_t rows, int64_t cols, int64_t ld, size_t value_size, int64_t *bytes) {
  *bytes = 0;
  if (rows == 0 || cols == 0)
    return true;
  int64_t before_last;
  if (tsi_mul_overflows(ld, cols - 1, &before_last) || before_last > INT64_MAX - rows)
    return false;
  return !tsi_mul_overflows(before_last + rows, (int64_t)value_size, bytes);
}

/* The buffer exists, belongs to ctx, lives where the backend can read it,
 * and holds the rows x cols matrix (when referenced). */
static ts_status check_operand(ts_context *ctx, const char *name, const ts_buffer *buffer, int64_t rows, int64_t cols,
                               int64_t ld, size_t value_size, bool referenced, int64_t *span) {
  if (!buffer)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: buffer %s is NULL", op_name, name);
  if (tsi_buffer_context(buffer) != ctx)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: buffer %s belongs to another context", op_name, name);
  if (ts_context_backend(ctx) == TS_BACKEND_CUDA && ts_buffer_memory(buffer) != TS_MEMORY_DEVICE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: buffer %s is host memory; the CUDA backend needs device memory", op_name, name);
  if (ld < (rows > 1 ? rows : 1))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: ld%s = %lld is less than max(1, %lld rows)", op_name, name,
                     (long long)ld, (long long)rows);
  *span = 0;
  if (!referenced)
    return TS_SUCCESS;
  if (!matrix_span_bytes(rows, cols, ld, value_size, span))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: %s (%lld x %lld, ld %lld) spans more than 2^63 bytes", op_name, name,
                     (long long)rows, (long long)cols, (long long)ld);
  if ((uint64_t)*span > (uint64_t)ts_buffer_size(buffer))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: %s (%lld x %lld, ld %lld) needs %lld bytes; its buffer holds %zu", op_name, name,
                     (long long)rows, (long long)cols, (long long)ld, (long long)*span, ts_buffer_size(buffer));
  return TS_SUCCESS;
}

static ts_status check_config(ts_context *ctx, ts_dtype dtype, int config) {
  if (config == 0)
    return TS_SUCCESS;
  const tsi_gemm_config *c = tsi_gemm_config_get(config);
  if (!c)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: no configuration %d (0 to choose, or 1 to %d)", op_name,
                     config, tsi_gemm_config_count());
  if (c->dtype != dtype)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: configuration %d is for %s, the call is %s", op_name, config,
                     c->dtype == TS_FLOAT32 ? "single precision" : "double precision",
                     dtype == TS_FLOAT32 ? "single precision" : "double precision");
  return TS_SUCCESS;
}

ts_status ts_gemm_ex(ts_context *ctx, ts_dtype dtype, int64_t m, int64_t n, int64_t k, double alpha, const ts_buffer *a,
                     int64_t lda, const ts_buffer *b, int64_t ldb, double beta, ts_buffer *c, int64_t ldc,
                     const ts_gemm_options *options) {
  if (!ctx)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: NULL context", op_name);
  ts_gemm_options o;
  memset(&o, 0, sizeof o);
  if (options)
    o = *options;
  if (TS_DTYPE_IS_COMPLEX(dtype))
    return tsi_require_real(ctx, op_name, "the operands", dtype);
  if (dtype != TS_FLOAT32 && dtype != TS_FLOAT64)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", op_name, (int)dtype);
  if (!valid_operation(o.op_a) || !valid_operation(o.op_b))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown operation (op_a %d, op_b %d)", op_name, (int)o.op_a,
                     (int)o.op_b);
  if (m < 0 || n < 0 || k < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: negative size (m %lld, n %lld, k %lld)", op_name,
                     (long long)m, (long long)n, (long long)k);
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: m, n and k must each be at most 2^31 - 1 (m %lld, n %lld, k %lld)",
                     op_name, (long long)m, (long long)n, (long long)k);
  ts_status st = check_config(ctx, dtype, o.config);
  if (st != TS_SUCCESS)
    return st;

  bool trans_a = o.op_a == TS_OP_TRANSPOSE, trans_b = o.op_b == TS_OP_TRANSPOSE;
  bool product = m > 0 && n > 0 && k > 0 && alpha != 0.0; /* A and B are read */
  size_t value = ts_dtype_size(dtype);
  int64_t span_a, span_b, span_c;
  st = check_operand(ctx, "A", a, trans_a ? k : m, trans_a ? m : k, lda, value, product, &span_a);
  if (st == TS_SUCCESS)
    st = check_operand(ctx, "B", b, trans_b ? n : k, trans_b ? k : n, ldb, value, product, &span_b);
  if (st == TS_SUCCESS)
    st = check_operand(ctx, "C", c, m, n, ldc, value, true, &span_c);
  if (st != TS_SUCCESS)
    return st;
  if (tsi_ranges_overlap(ts_buffer_data(c), (size_t)span_c, ts_buffer_data(a), (size_t)span_a) ||
      tsi_ranges_overlap(ts_buffer_data(c), (size_t)span_c, ts_buffer_data(b), (size_t)span_b))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: C overlaps A or B", op_name);
  if (m == 0 || n == 0)
    return TS_SUCCESS;

  tsi_gemm_args args = {.dtype = dtype,
                        .m = m,
                        .n = n,
                        .k = k,
                        .alpha = alpha,
                        .beta = beta,
                        .a = ts_buffer_data(a),
                        .lda = lda,
                        .trans_a = trans_a,
                        .b = ts_buffer_data(b),
                        .ldb = ldb,
                        .trans_b = trans_b,
                        .c = ts_buffer_data(c),
                        .ldc = ldc};
  bool gpu = ts_context_backend(ctx) == TS_BACKEND_CUDA;
  if (!product) { /* C = beta C; A and B are not read */
    if (beta == 1.0)
      return TS_SUCCESS;
    if (gpu)
      return tsi_gemm_cuda_scale(ctx, &args);
    tsi_gemm_cpu_scale(&args);
    return TS_SUCCESS;
  }
  if (!gpu)
    return tsi_gemm_cpu(ctx, &args);
  int config = o.config;
  if (config == 0) {
    int sms = 0;
    st = tsi_gemm_cuda_multiprocessors(ctx, &sms);
    if (st != TS_SUCCESS)
      return st;
    config = tsi_gemm_config_choose(dtype, m, n, k, sms, NULL, 0);
  }
  return tsi_gemm_cuda(ctx, &args, config);
}

ts_status ts_gemm(ts_context *ctx, ts_dtype dtype, int64_t m, int64_t n, int64_t k, double alpha, const ts_buffer *a,
                  int64_t lda, const ts_buffer *b, int64_t ldb, double beta, ts_buffer *c, int64_t ldc) {
  return ts_gemm_ex(ctx, dtype, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, NULL);
}

ts_status ts_gemm_config_choose(ts_context *ctx, ts_dtype dtype, int64_t m, int64_t n, int64_t k, int *id, char *reason,
                                size_t reason_size) {
  if (!ctx || !id)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_gemm_config_choose: NULL argument");
  *id = 0;
  if (TS_DTYPE_IS_COMPLEX(dtype))
    return tsi_require_real(ctx, "ts_gemm_config_choose", "the operands", dtype);
  if (dtype != TS_FLOAT32 && dtype != TS_FLOAT64)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_gemm_config_choose: unknown dtype %d", (int)dtype);
  if (m < 0 || n < 0 || k < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_gemm_config_choose: negative size");
  if (ts_context_backend(ctx) != TS_BACKEND_CUDA) {
    if (reason && reason_size > 0)
      snprintf(reason, reason_size, "cpu backend: one blocked implementation");
    return TS_SUCCESS;
  }
  int sms = 0;
  ts_status st = tsi_gemm_cuda_multiprocessors(ctx, &sms);
  if (st != TS_SUCCESS)
    return st;
  *id = tsi_gemm_config_choose(dtype, m, n, k, sms, reason, reason_size);
  return TS_SUCCESS;
}
