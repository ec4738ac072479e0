/* ts_lu_solve_buffers: ts_lu_solve with B and X in tessera buffers. Device
 * buffers with factors on the GPU stay on the device where the device
 * refinement applies (refine_cuda.cu); every other case solves through the
 * buffers' host memory, or through host copies of device buffers. */
#include "lu/solve/solve_internal.h"

#include <stdlib.h>

/* Bytes that nrhs columns of n values (parts doubles each) at leading
 * dimension ld span; false on overflow. */
static bool span_bytes(int64_t n, int64_t nrhs, int64_t ld, int64_t parts, int64_t *bytes) {
  if (n == 0 || nrhs == 0) {
    *bytes = 0;
    return true;
  }
  int64_t span;
  return !tsi_mul_overflows(nrhs - 1, ld, &span) && span <= INT64_MAX - n &&
         !tsi_mul_overflows(span + n, parts * (int64_t)sizeof(double), bytes);
}

static ts_status check_buffer(ts_lu *lu, const ts_buffer *buffer, const char *name, int64_t nrhs, int64_t ld,
                              int64_t *bytes) {
  const int64_t n = lu->n, parts = tsi_lu_parts(lu);
  if (!buffer)
    return tsi_error(lu->ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve_buffers: %s is NULL", name);
  if (!span_bytes(n, nrhs, ld, parts, bytes))
    return tsi_error(lu->ctx, TS_ERROR_OVERFLOW,
                     "ts_lu_solve_buffers: %lld columns of %s with leading dimension %lld overflow", (long long)nrhs,
                     name, (long long)ld);
  if ((uint64_t)*bytes > (uint64_t)ts_buffer_size(buffer))
    return tsi_error(lu->ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_lu_solve_buffers: %s holds %zu bytes; %lld columns of %lld %s values at leading dimension "
                     "%lld need %lld",
                     name, ts_buffer_size(buffer), (long long)nrhs, (long long)n, parts == 2 ? "complex" : "real",
                     (long long)ld, (long long)*bytes);
  return TS_SUCCESS;
}

ts_status ts_lu_solve_buffers(ts_lu *lu, ts_operation op, int64_t nrhs, const ts_buffer *b, int64_t ldb, ts_buffer *x,
                              int64_t ldx) {
  if (!lu)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve_buffers: lu is NULL");
  ts_context *ctx = lu->ctx;
  if (lu->state != TSI_LU_FACTORED)
    return ts_lu_solve(lu, op, nrhs, NULL, ldb, NULL, ldx); /* its message: no factorization */
  const int64_t n = lu->n, min_ld = n > 1 ? n : 1;
  if (nrhs < 0 || ldb < min_ld || ldx < min_ld)
    return ts_lu_solve(lu, op, nrhs, NULL, ldb, NULL, ldx); /* its message on the sizes */
  int64_t b_bytes = 0, x_bytes = 0;
  ts_status status = check_buffer(lu, b, "b", nrhs, ldb, &b_bytes);
  if (status == TS_SUCCESS)
    status = check_buffer(lu, x, "x", nrhs, ldx, &x_bytes);
  if (status != TS_SUCCESS)
    return status;
  if (b_bytes == 0 || x_bytes == 0)
    return ts_lu_solve(lu, op, nrhs, NULL, ldb, NULL, ldx); /* nothing to solve: the statistics zeroed */
  const double *b_data = ts_buffer_data(b);
  double *x_data = ts_buffer_data(x);
  if (tsi_ranges_overlap(b_data, (size_t)b_bytes, x_data, (size_t)x_bytes))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_solve_buffers: b and x overlap");
  const bool on_device = ts_context_backend(ctx) == TS_BACKEND_CUDA;
  const bool b_device = on_device && ts_buffer_memory(b) == TS_MEMORY_DEVICE;
  const bool x_device = on_device && ts_buffer_memory(x) == TS_MEMORY_DEVICE;
  if (!b_device && !x_device)
    return ts_lu_solve(lu, op, nrhs, b_data, ldb, x_data, ldx);
  /* The device refinement: A x = b through real factors on the GPU that
   * the singularity policy did not have to judge, solves checked. */
  const bool device_path = b_device && x_device && lu->factors_on_device && !lu->pivoted && !lu->complex_values &&
                           op == TS_OP_NONE && !lu->options.unchecked_solves && lu->stats.perturbed_pivots == 0;
  if (device_path)
    return tsi_lu_solve_device(lu, nrhs, b_data, ldb, x_data, ldx);
  /* Through host copies of the device buffers. */
  double *b_host = b_device ? malloc((size_t)b_bytes) : (double *)b_data;
  double *x_host = x_device ? malloc((size_t)x_bytes) : x_data;
  if (!b_host || !x_host) {
    if (b_device)
      free(b_host);
    if (x_device)
      free(x_host);
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_solve_buffers: no host memory for copies of b and x");
  }
  if (b_device)
    status = ts_buffer_download(ctx, b, 0, b_host, (size_t)b_bytes);
  if (status == TS_SUCCESS && x_device)
    status = ts_buffer_download(ctx, x, 0, x_host, (size_t)x_bytes); /* x's bytes between the columns kept */
  if (status == TS_SUCCESS)
    status = ts_lu_solve(lu, op, nrhs, b_host, ldb, x_host, ldx);
  if (!TS_IS_ERROR(status) && x_device) {
    ts_status copied = ts_buffer_upload(ctx, x, 0, x_host, (size_t)x_bytes);
    status = copied == TS_SUCCESS ? status : copied;
  }
  if (b_device)
    free(b_host);
  if (x_device)
    free(x_host);
  return status;
}
