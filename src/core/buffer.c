/* Host and backend buffers. On the CPU backend, device memory is host memory. */
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

struct ts_buffer {
  ts_context *ctx;
  ts_memory memory;
  bool on_gpu;
  size_t bytes;
  void *data;
  bool owns_data; /* false for ts_buffer_wrap()'s buffers */
};

ts_status ts_buffer_create(ts_context *ctx, ts_memory memory, size_t bytes, ts_buffer **buffer) {
  if (!ctx || !buffer)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_create: NULL argument");
  *buffer = NULL;
  if (memory != TS_MEMORY_HOST && memory != TS_MEMORY_DEVICE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_create: unknown memory kind %d", (int)memory);
  ts_buffer *b = calloc(1, sizeof *b);
  if (!b)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_buffer_create: out of host memory");
  b->ctx = ctx;
  b->memory = memory;
  b->bytes = bytes;
  b->on_gpu = memory == TS_MEMORY_DEVICE && ctx->backend == TS_BACKEND_CUDA;
  b->owns_data = true;
  if (bytes > 0) {
    if (b->on_gpu) {
      ts_status st = tsi_cuda_malloc(ctx, &b->data, bytes);
      if (st != TS_SUCCESS) {
        free(b);
        return st;
      }
    } else {
      b->data = malloc(bytes);
      if (!b->data) {
        free(b);
        return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_buffer_create: cannot allocate %zu bytes of host memory",
                         bytes);
      }
    }
  }
  tsi_context_retain(ctx); /* the buffer keeps its context alive */
  *buffer = b;
  return TS_SUCCESS;
}

ts_status ts_buffer_wrap(ts_context *ctx, ts_memory memory, void *data, size_t bytes, ts_buffer **buffer) {
  if (!ctx || !buffer)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_wrap: NULL argument");
  *buffer = NULL;
  if (memory != TS_MEMORY_HOST && memory != TS_MEMORY_DEVICE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_wrap: unknown memory kind %d", (int)memory);
  if (!data && bytes > 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_wrap: data is NULL for %zu bytes", bytes);
  if (bytes > 0 && ctx->backend == TS_BACKEND_CUDA) {
    /* A kernel reading host memory, or a memcpy reading device memory,
     * would fault; the pointer's kind is checked here instead. */
    ts_status st = tsi_cuda_check_pointer(ctx, data, memory == TS_MEMORY_DEVICE, "ts_buffer_wrap");
    if (st != TS_SUCCESS)
      return st;
  }
  ts_buffer *b = calloc(1, sizeof *b);
  if (!b)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_buffer_wrap: out of host memory");
  b->ctx = ctx;
  b->memory = memory;
  b->bytes = bytes;
  b->on_gpu = memory == TS_MEMORY_DEVICE && ctx->backend == TS_BACKEND_CUDA;
  b->owns_data = false;
  b->data = bytes > 0 ? data : NULL;
  tsi_context_retain(ctx); /* the buffer keeps its context alive */
  *buffer = b;
  return TS_SUCCESS;
}

void ts_buffer_destroy(ts_buffer *buffer) {
  if (!buffer)
    return;
  ts_context *ctx = buffer->ctx;
  if (buffer->on_gpu)
    (void)tsi_cuda_sync(ctx);
  if (buffer->owns_data) {
    if (buffer->on_gpu)
      tsi_cuda_free(buffer->data);
    else
      free(buffer->data);
  }
  free(buffer);
  tsi_context_release(ctx);
}

void *ts_buffer_data(const ts_buffer *buffer) { return buffer ? buffer->data : NULL; }
size_t ts_buffer_size(const ts_buffer *buffer) { return buffer ? buffer->bytes : 0; }
ts_memory ts_buffer_memory(const ts_buffer *buffer) { return buffer ? buffer->memory : TS_MEMORY_HOST; }
ts_context *tsi_buffer_context(const ts_buffer *buffer) { return buffer ? buffer->ctx : NULL; }

static ts_status check_range(ts_context *ctx, const char *op, const ts_buffer *b, size_t offset, size_t bytes) {
  if (!b)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: buffer is NULL", op);
  if (b->ctx != ctx)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: buffer belongs to another context", op);
  if (offset > b->bytes || bytes > b->bytes - offset)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: range [%zu, %zu + %zu) outside a buffer of %zu bytes", op,
                     offset, offset, bytes, b->bytes);
  return TS_SUCCESS;
}

ts_status ts_buffer_upload(ts_context *ctx, ts_buffer *buffer, size_t offset, const void *src, size_t bytes) {
  if (!ctx)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_upload: ctx is NULL");
  ts_status st = check_range(ctx, "ts_buffer_upload", buffer, offset, bytes);
  if (st != TS_SUCCESS)
    return st;
  if (bytes == 0)
    return TS_SUCCESS;
  if (!src)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_upload: src is NULL");
  if (buffer->on_gpu)
    return tsi_cuda_memcpy_to_device(ctx, (char *)buffer->data + offset, src, bytes);
  memcpy((char *)buffer->data + offset, src, bytes);
  return TS_SUCCESS;
}

ts_status ts_buffer_download(ts_context *ctx, const ts_buffer *buffer, size_t offset, void *dst, size_t bytes) {
  if (!ctx)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_download: ctx is NULL");
  ts_status st = check_range(ctx, "ts_buffer_download", buffer, offset, bytes);
  if (st != TS_SUCCESS)
    return st;
  if (bytes == 0)
    return TS_SUCCESS;
  if (!dst)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_download: dst is NULL");
  if (buffer->on_gpu)
    return tsi_cuda_memcpy_to_host(ctx, dst, (const char *)buffer->data + offset, bytes);
  memcpy(dst, (const char *)buffer->data + offset, bytes);
  return TS_SUCCESS;
}

ts_status ts_buffer_copy(ts_context *ctx, ts_buffer *dst, size_t dst_offset, const ts_buffer *src, size_t src_offset,
                         size_t bytes) {
  if (!ctx)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_copy: ctx is NULL");
  ts_status st = check_range(ctx, "ts_buffer_copy", dst, dst_offset, bytes);
  if (st == TS_SUCCESS)
    st = check_range(ctx, "ts_buffer_copy", src, src_offset, bytes);
  if (st != TS_SUCCESS)
    return st;
  if (bytes == 0)
    return TS_SUCCESS;
  char *d = (char *)dst->data + dst_offset;
  const char *s = (const char *)src->data + src_offset;
  if (dst->on_gpu && src->on_gpu)
    return tsi_cuda_memcpy_device(ctx, d, s, bytes);
  if (dst->on_gpu)
    return tsi_cuda_memcpy_to_device(ctx, d, s, bytes);
  if (src->on_gpu)
    return tsi_cuda_memcpy_to_host(ctx, d, s, bytes);
  memmove(d, s, bytes);
  return TS_SUCCESS;
}

ts_status ts_buffer_fill_bytes(ts_context *ctx, ts_buffer *buffer, int value) {
  if (!ctx)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_buffer_fill_bytes: ctx is NULL");
  ts_status st = check_range(ctx, "ts_buffer_fill_bytes", buffer, 0, 0);
  if (st != TS_SUCCESS)
    return st;
  if (buffer->bytes == 0)
    return TS_SUCCESS;
  if (buffer->on_gpu)
    return tsi_cuda_memset(ctx, buffer->data, value, buffer->bytes);
  memset(buffer->data, value, buffer->bytes);
  return TS_SUCCESS;
}
