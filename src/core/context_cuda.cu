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

/* "12.4" for CUDA's 12040. */
static void cuda_version_text(int version, char *out, size_t size) {
  snprintf(out, size, "%d.%d", version / 1000, version % 1000 / 10);
}

/* Why no device can be had, in terms a user can act on: no driver at all
 * (cudaDriverGetVersion gives 0 when libcuda cannot be loaded), a driver
 * older than the runtime, a driver without devices, or another failure. */
static ts_status no_usable_device(ts_context *ctx, cudaError_t err) {
  (void)cudaGetLastError();
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  char driver_text[16], runtime_text[16];
  cuda_version_text(driver, driver_text, sizeof driver_text);
  cuda_version_text(runtime, runtime_text, sizeof runtime_text);
  if (driver == 0)
    return tsi_error(ctx, TS_ERROR_NO_DEVICE, "no NVIDIA driver found (libcuda.so.1 cannot be loaded)");
  if (err == cudaErrorInsufficientDriver)
    return tsi_error(ctx, TS_ERROR_NO_DEVICE,
                     "the NVIDIA driver supports CUDA %s, older than the CUDA runtime %s tessera was built with",
                     driver_text, runtime_text);
  if (err == cudaErrorNoDevice || err == cudaSuccess)
    return tsi_error(ctx, TS_ERROR_NO_DEVICE, "NVIDIA driver found (CUDA %s) but no CUDA device", driver_text);
  return tsi_error(ctx, TS_ERROR_NO_DEVICE, "the NVIDIA driver (CUDA %s) cannot be used: %s (%s)", driver_text,
                   cudaGetErrorString(err), cudaGetErrorName(err));
}

ts_status tsi_cuda_context_init(ts_context *ctx, const ts_context_options *options) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0)
    return no_usable_device(ctx, err);
  int device = options->device;
  if (device < 0 || device >= count)
    return tsi_error(ctx, TS_ERROR_NO_DEVICE, "CUDA device %d requested but %d present (0 to %d)", device, count,
                     count - 1);
  err = cudaSetDevice(device);
  if (err == cudaSuccess)
    err = cudaFree(0); /* create the primary context now */
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    cudaDeviceProp prop;
    const char *name = cudaGetDeviceProperties(&prop, device) == cudaSuccess ? prop.name : "unknown";
    (void)cudaGetLastError();
    return tsi_error(ctx, TS_ERROR_NO_DEVICE, "CUDA device %d (%s) is unusable: %s (%s)", device, name,
                     cudaGetErrorString(err), cudaGetErrorName(err));
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
  if (ctx->order_event)
    (void)cudaEventDestroy((cudaEvent_t)ctx->order_event);
  ctx->order_event = NULL;
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

/* One event serves every ordering: a wait takes the event's state when it is
 * queued, so the event may be recorded again at once. */
ts_status tsi_cuda_order_streams(ts_context *ctx, void *earlier, void *later) {
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaError_t err = cudaSuccess;
  if (!ctx->order_event) {
    cudaEvent_t event;
    err = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    if (err != cudaSuccess)
      return cuda_error(ctx, err, "cudaEventCreate");
    ctx->order_event = event;
  }
  err = cudaEventRecord((cudaEvent_t)ctx->order_event, (cudaStream_t)earlier);
  if (err == cudaSuccess)
    err = cudaStreamWaitEvent((cudaStream_t)later, (cudaEvent_t)ctx->order_event, 0);
  if (err != cudaSuccess)
    return cuda_error(ctx, err, "ordering the context's stream with another stream");
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

void *tsi_cuda_malloc_host(ts_context *ctx, size_t bytes) {
  if (tsi_cuda_activate(ctx) != TS_SUCCESS)
    return NULL;
  void *ptr = NULL;
  if (cudaMallocHost(&ptr, bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return NULL;
  }
  return ptr;
}

void tsi_cuda_free_host(void *ptr) {
  if (ptr)
    (void)cudaFreeHost(ptr);
}

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
