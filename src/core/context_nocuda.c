/* Built instead of context_cuda.cu when tessera is compiled without CUDA:
 * every CUDA request answers TS_ERROR_NO_DEVICE. */
#include "internal.h"

int tsi_cuda_available(void) { return 0; }
ts_status tsi_cuda_activate(ts_context *ctx) {
  (void)ctx;
  return TS_SUCCESS;
}

ts_status tsi_cuda_context_init(ts_context *ctx, const ts_context_options *options) {
  (void)options;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

void tsi_cuda_context_release(ts_context *ctx) { (void)ctx; }
ts_status tsi_cuda_sync(ts_context *ctx) {
  (void)ctx;
  return TS_SUCCESS;
}

ts_status tsi_cuda_order_streams(ts_context *ctx, void *earlier, void *later) {
  (void)earlier;
  (void)later;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

ts_status tsi_cuda_error(ts_context *ctx, int err, const char *what, ...) {
  (void)err;
  (void)what;
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

static ts_status no_cuda(ts_context *ctx) {
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "tessera was built without CUDA");
}

ts_status tsi_cuda_device_info(ts_context *ctx, ts_device_info *info) {
  (void)info;
  return no_cuda(ctx);
}
ts_status tsi_cuda_malloc(ts_context *ctx, void **ptr, size_t bytes) {
  (void)bytes;
  *ptr = 0;
  return no_cuda(ctx);
}
void tsi_cuda_free(void *ptr) { (void)ptr; }
void *tsi_cuda_malloc_host(ts_context *ctx, size_t bytes) {
  (void)ctx;
  (void)bytes;
  return NULL;
}
void tsi_cuda_free_host(void *ptr) { (void)ptr; }
ts_status tsi_cuda_check_pointer(ts_context *ctx, const void *ptr, bool want_device, const char *op) {
  (void)ptr;
  (void)want_device;
  (void)op;
  return no_cuda(ctx);
}
ts_status tsi_cuda_memcpy_to_device(ts_context *ctx, void *dst, const void *src, size_t bytes) {
  (void)dst;
  (void)src;
  (void)bytes;
  return no_cuda(ctx);
}
ts_status tsi_cuda_memcpy_to_host(ts_context *ctx, void *dst, const void *src, size_t bytes) {
  (void)dst;
  (void)src;
  (void)bytes;
  return no_cuda(ctx);
}
ts_status tsi_cuda_memcpy_device(ts_context *ctx, void *dst, const void *src, size_t bytes) {
  (void)dst;
  (void)src;
  (void)bytes;
  return no_cuda(ctx);
}
ts_status tsi_cuda_memset(ts_context *ctx, void *dst, int value, size_t bytes) {
  (void)dst;
  (void)value;
  (void)bytes;
  return no_cuda(ctx);
}
ts_status tsi_cuda_check_launch(ts_context *ctx, const char *op) {
  (void)op;
  return no_cuda(ctx);
}
