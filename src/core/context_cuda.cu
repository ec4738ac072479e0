/* CUDA side of the context and buffers: device probing, stream, memory,
 * and how asynchronous faults surface (at the next synchronising call, with
 * the operation that launched last named in the message). */
#include "internal.h"

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

ts_status tsi_cuda_error(ts_context *ctx, int err, const char *what, ...) {
  char text[TSI_MESSAGE_SIZE / 2];
  va_list args;
  va_start(args, what);
  vsnprintf(text, sizeof text, what, args);
  va_end(args);
  (void)cudaGetLastError();
  const cudaError_t e = (cudaError_t)err;
  const ts_status st = e == cudaErrorMemoryAllocation ? TS_ERROR_OUT_OF_MEMORY : TS_ERROR_CUDA;
  return tsi_error(ctx, st, "%s: %s (%s)", text, cudaGetErrorString(e), cudaGetErrorName(e));
}

static ts_status cuda_error(ts_context *ctx, cudaError_t err, const char *what) {
  return tsi_cuda_error(ctx, err, "%s", what);
}

/* Make the context's device current, so that contexts on different GPUs can
 * be used from one thread in turn. */
ts_status tsi_cuda_activate(ts_context *ctx) {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == ctx->device)
    return TS_SUCCESS;
  cudaError_t err = cudaSetDevice(ctx->device);
  if (err != cudaSuccess)
    return cuda_error(ctx, err, "cudaSetDevice");
  return TS_SUCCESS;
}

int tsi_cuda_available(void) {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

ts_status tsi_cuda_context_init(ts_context *ctx, const ts_context_options *options) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return tsi_error(ctx, TS_ERROR_NO_DEVICE, "no usable CUDA device: %s", cudaGetErrorString(err));
  }
  if (count == 0)
    return tsi_error(ctx, TS_ERROR_NO_DEVICE, "no usable CUDA device: none found");
  int device = options->device;
  if (device < 0 || device >= count)
    return tsi_error(ctx, TS_ERROR_NO_DEVICE, "CUDA device %d requested but %d present", device, count);
  err = cudaSetDevice(device);
  if (err == cudaSuccess)
    err = cudaFree(0); /* create the primary context now */
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return tsi_error(ctx, TS_ERROR_NO_DEVICE, "CUDA device %d unusable: %s", device, cudaGetErrorString(err));
  }
  ctx->device = device;
  if (options->stream) {
    ctx->stream = options->stream;
    ctx->owns_stream = false;
  } else {
    cudaStream_t stream;
    err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (err != cudaSuccess)
      return cuda_error(ctx, err, "cudaStreamCreate");
    ctx->stream = stream;
    ctx->owns_stream = true;
  }
  return TS_SUCCESS;
}

void tsi_cuda_context_release(ts_context *ctx) {
  (void)cudaSetDevice(ctx->device);
  (void)cudaStreamSynchronize((cudaStream_t)ctx->stream);
  if (ctx->owns_stream)
    (void)cudaStreamDestroy((cudaStream_t)ctx->stream);
  ctx->stream = NULL;
}

ts_status tsi_cuda_sync(ts_context *ctx) {
  cudaError_t err = cudaStreamSynchronize((cudaStream_t)ctx->stream);
  if (err != cudaSuccess) {
    char what[128];
    snprintf(what, sizeof what, "GPU work failed (last launched: %s)",
             ctx->last_async_op ? ctx->last_async_op : "none");
    return cuda_error(ctx, err, what);
  }
  return TS_SUCCESS;
}

ts_status tsi_cuda_check_launch(ts_context *ctx, const char *op) {
  ctx->last_async_op = op;
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return cuda_error(ctx, err, op);
  return TS_SUCCESS;
}

ts_status tsi_cuda_device_info(ts_context *ctx, ts_device_info *info) {
  cudaDeviceProp prop;
  cudaError_t err = cudaGetDeviceProperties(&prop, ctx->device);
  if (err != cudaSuccess)
    return cuda_error(ctx, err, "cudaGetDeviceProperties");
  snprintf(info->name, sizeof info->name, "%s", prop.name);
  info->ordinal = ctx->device;
  info->compute_major = prop.major;
  info->compute_minor = prop.minor;
  info->multiprocessors = prop.multiProcessorCount;
  info->global_memory = (int64_t)prop.totalGlobalMem;
  info->l2_cache_bytes = prop.l2CacheSize;
  info->shared_per_block = (int64_t)prop.sharedMemPerBlockOptin;
  (void)cudaDriverGetVersion(&info->driver_version);
  (void)cudaRuntimeGetVersion(&info->runtime_version);
  return TS_SUCCESS;
}

ts_status tsi_cuda_malloc(ts_context *ctx, void **ptr, size_t bytes) {
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaError_t err = cudaMalloc(ptr, bytes);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    *ptr = NULL;
    return tsi_error(ctx, err == cudaErrorMemoryAllocation ? TS_ERROR_OUT_OF_MEMORY : TS_ERROR_CUDA,
                     "cudaMalloc of %zu bytes: %s", bytes, cudaGetErrorString(err));
  }
  return TS_SUCCESS;
}

void tsi_cuda_free(void *ptr) { (void)cudaFree(ptr); }

static const char *memory_type_name(cudaMemoryType type) {
  switch (type) {
  case cudaMemoryTypeHost:
    return "pinned host memory";
  case cudaMemoryTypeDevice:
    return "device memory";
  case cudaMemoryTypeManaged:
    return "managed memory";
  default:
    return "pageable host memory";
  }
}

ts_status tsi_cuda_check_pointer(ts_context *ctx, const void *ptr, bool want_device, const char *op) {
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaPointerAttributes attributes;
  cudaError_t err = cudaPointerGetAttributes(&attributes, ptr);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %p is not a pointer CUDA knows: %s", op, ptr,
                     cudaGetErrorString(err));
  }
  const cudaMemoryType type = attributes.type;
  if (!want_device) {
    if (type == cudaMemoryTypeDevice)
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %p is device memory, given as host memory", op, ptr);
    return TS_SUCCESS;
  }
  if (type != cudaMemoryTypeDevice && type != cudaMemoryTypeManaged)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %p is %s, given as device memory", op, ptr,
                     memory_type_name(type));
  if (type == cudaMemoryTypeDevice && attributes.device != ctx->device)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %p is memory of device %d, the context is on device %d", op,
                     ptr, attributes.device, ctx->device);
  return TS_SUCCESS;
}

static ts_status copy(ts_context *ctx, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, bool wait,
                      const char *what) {
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  cudaError_t err = cudaMemcpyAsync(dst, src, bytes, kind, stream);
  if (err == cudaSuccess && wait)
    err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return cuda_error(ctx, err, what);
  return TS_SUCCESS;
}

ts_status tsi_cuda_memcpy_to_device(ts_context *ctx, void *dst, const void *src, size_t bytes) {
  /* Waits so that the caller may reuse pageable host memory at once. */
  return copy(ctx, dst, src, bytes, cudaMemcpyHostToDevice, true, "copy to device");
}

ts_status tsi_cuda_memcpy_to_host(ts_context *ctx, void *dst, const void *src, size_t bytes) {
  return copy(ctx, dst, src, bytes, cudaMemcpyDeviceToHost, true, "copy to host");
}

ts_status tsi_cuda_memcpy_device(ts_context *ctx, void *dst, const void *src, size_t bytes) {
  ctx->last_async_op = "device-to-device copy";
  return copy(ctx, dst, src, bytes, cudaMemcpyDeviceToDevice, false, "device-to-device copy");
}

ts_status tsi_cuda_memset(ts_context *ctx, void *dst, int value, size_t bytes) {
  ctx->last_async_op = "memset";
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaError_t err = cudaMemsetAsync(dst, value, bytes, (cudaStream_t)ctx->stream);
  if (err != cudaSuccess)
    return cuda_error(ctx, err, "cudaMemsetAsync");
  return TS_SUCCESS;
}
