/* Built instead of spgemm_cuda*.cu without CUDA; a CUDA context cannot exist then. */
#include "spgemm_internal.h"

static ts_status no_device(ts_context *ctx) {
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

size_t tsi_spgemm_cuda_scan_bytes(int64_t rows) {
  (void)rows;
  return 0;
}

ts_status tsi_spgemm_cuda_shared_dense(ts_context *ctx, tsi_spgemm_device *d, bool allowed) {
  (void)d;
  (void)allowed;
  return no_device(ctx);
}

int64_t tsi_spgemm_cuda_free_bytes(ts_context *ctx) {
  (void)ctx;
  return 0;
}

ts_status tsi_spgemm_cuda_bin(ts_context *ctx, tsi_spgemm_device *d, int64_t r0, int64_t r1, int64_t *products) {
  (void)d;
  (void)r0;
  (void)r1;
  *products = 0;
  return no_device(ctx);
}

ts_status tsi_spgemm_cuda_count(ts_context *ctx, const tsi_spgemm_device *d) {
  (void)d;
  return no_device(ctx);
}

/* NOLINTNEXTLINE(readability-non-const-parameter): the CUDA build writes c_off */
ts_status tsi_spgemm_cuda_offsets(ts_context *ctx, const tsi_spgemm_device *d, int64_t *c_off, int64_t *nnz) {
  (void)d;
  (void)c_off;
  *nnz = 0;
  return no_device(ctx);
}

/* The CUDA build writes c_cols. */
ts_status tsi_spgemm_cuda_fill(ts_context *ctx, const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base,
                               int32_t *c_cols, /* NOLINT(readability-non-const-parameter) */
                               void *c_vals) {
  (void)d;
  (void)c_off;
  (void)c_base;
  (void)c_cols;
  (void)c_vals;
  return no_device(ctx);
}

size_t tsi_spgemm_cuda_rowsort_temp_bytes(int64_t capacity, int64_t a_nnz, ts_dtype dtype) {
  (void)capacity;
  (void)a_nnz;
  (void)dtype;
  return 0;
}

ts_status tsi_spgemm_cuda_rowsort_prepare(ts_context *ctx, tsi_spgemm_device *d) {
  (void)d;
  return no_device(ctx);
}
