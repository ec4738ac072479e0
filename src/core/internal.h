/* Internal declarations shared by tessera's sources; not installed. */
#ifndef TESSERA_INTERNAL_H
#define TESSERA_INTERNAL_H

#include "tessera.h"

#include <stdarg.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSI_MESSAGE_SIZE 1024

struct ts_context {
  ts_backend backend;
  int device;
  void *stream;     /* cudaStream_t */
  bool owns_stream; /* created by tessera, destroyed with the context */
  int num_threads;
  const char *last_async_op; /* operation of the most recent launch */
  ts_progress_fn progress;
  void *progress_user;
  char message[TSI_MESSAGE_SIZE];
};

/* Record a printf-style message for ctx (thread-local when ctx is NULL) and
 * return status, so that error paths read `return tsi_error(ctx, ...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
ts_status
tsi_error(ts_context *ctx, ts_status status, const char *format, ...);
#ifdef __clang_analyzer__
/* Let the static analyzer see that tsi_error returns its status argument. */
#define tsi_error(ctx, status, ...) ((void)tsi_error((ctx), (status), __VA_ARGS__), (status))
#endif

/* Message storage for ctx (thread-local when ctx is NULL). */
char *tsi_message_slot(ts_context *ctx);

/* Allocation helpers: NULL on overflow or failure; count * size checked. */
void *tsi_malloc_array(int64_t count, size_t size);
void *tsi_calloc_array(int64_t count, size_t size);

/* Position of v in the sorted run [lo, hi) of idx, or -1 (binary search). */
static inline int64_t tsi_sorted_find(const int32_t *idx, int64_t lo, int64_t hi, int32_t v) {
  const int64_t end = hi;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (idx[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < end && idx[lo] == v ? lo : -1;
}

/* a * b into *out unless it passes INT64_MAX; returns false on overflow. */
bool tsi_mul_overflows(int64_t a, int64_t b, int64_t *out);

/* Context a buffer was created with. */
ts_context *tsi_buffer_context(const ts_buffer *buffer);

/* Seconds on a monotonic clock, for phase timings and time-based checks. */
double tsi_seconds(void);

/* Report progress; returns TS_ERROR_CANCELLED when the callback asks to stop. */
ts_status tsi_progress(ts_context *ctx, int64_t done, int64_t total);

/* CUDA side of the context; stubs when tessera is built without CUDA. */
int tsi_cuda_available(void);
ts_status tsi_cuda_activate(ts_context *ctx);
ts_status tsi_cuda_context_init(ts_context *ctx, const ts_context_options *options);
void tsi_cuda_context_release(ts_context *ctx);
ts_status tsi_cuda_sync(ts_context *ctx);
ts_status tsi_cuda_device_info(ts_context *ctx, ts_device_info *info);
ts_status tsi_cuda_malloc(ts_context *ctx, void **ptr, size_t bytes);
void tsi_cuda_free(void *ptr);
/* TS_SUCCESS when ptr is memory of the context's device (device or managed
 * memory) for want_device, or memory the host can read (not device memory)
 * otherwise; TS_ERROR_INVALID_ARGUMENT naming op and the kind found if not. */
ts_status tsi_cuda_check_pointer(ts_context *ctx, const void *ptr, bool want_device, const char *op);
ts_status tsi_cuda_memcpy_to_device(ts_context *ctx, void *dst, const void *src, size_t bytes);
ts_status tsi_cuda_memcpy_to_host(ts_context *ctx, void *dst, const void *src, size_t bytes);
ts_status tsi_cuda_memcpy_device(ts_context *ctx, void *dst, const void *src, size_t bytes);
ts_status tsi_cuda_memset(ts_context *ctx, void *dst, int value, size_t bytes);
/* The one way to report a failed CUDA runtime call: err is a cudaError_t
 * (int here so that C files can call it); the message is the formatted
 * `what`, then the CUDA error's text and name. An allocation failure gives
 * TS_ERROR_OUT_OF_MEMORY, anything else TS_ERROR_CUDA. The CUDA runtime's
 * sticky last error is cleared. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
ts_status
tsi_cuda_error(ts_context *ctx, int err, const char *what, ...);
/* Check the launch just queued by `op`; records op for later faults. */
ts_status tsi_cuda_check_launch(ts_context *ctx, const char *op);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_INTERNAL_H */
