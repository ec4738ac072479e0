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
  int references; /* the creator's, plus one per object holding the context */
  ts_backend backend;
  int device;
  void *stream;      /* cudaStream_t */
  bool owns_stream;  /* created by tessera, destroyed with the context */
  void *order_event; /* cudaEvent_t for ordering with other streams, made at first use */
  int num_threads;
  const char *last_async_op; /* operation of the most recent launch */
  ts_progress_fn progress;
  void *progress_user;
  int64_t progress_done, progress_total;  /* the figures last reported */
  char fallback_reason[TSI_MESSAGE_SIZE]; /* why AUTO runs on the CPU; "" when it does not */
  char message[TSI_MESSAGE_SIZE];
};

/* Objects that keep a context (plans, the LU, buffers) retain it when they
 * are created and release it when they are destroyed; ts_context_destroy()
 * releases the creator's reference, and the last release frees the context.
 * So an object outlives a destroyed context safely. NULL is ignored. */
void tsi_context_retain(ts_context *ctx);
void tsi_context_release(ts_context *ctx);

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

/* A value type as the messages name it: "float", "double", "complex64",
 * "complex128" (require_real.c). */
const char *tsi_value_type_name(ts_dtype dtype);

/* TS_ERROR_UNSUPPORTED, naming op and what ("the matrix", "the values"),
 * when dtype is complex; TS_SUCCESS otherwise (require_real.c). */
ts_status tsi_require_real(ts_context *ctx, const char *op, const char *what, ts_dtype dtype);

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

/* tsi_decimal_to_double's outcome. */
typedef enum tsi_decimal_status {
  TSI_DECIMAL_OK = 0,
  TSI_DECIMAL_SYNTAX,   /* strtod does not take the whole text */
  TSI_DECIMAL_NO_MEMORY /* a very long text could not be copied */
} tsi_decimal_status;

/* strtod on the `length` characters at begin, which need no terminator after
 * them; '.' is the decimal point whatever the locale. *value may come back
 * infinite or zero (range), for the caller to judge. */
tsi_decimal_status tsi_decimal_to_double(const char *begin, size_t length, double *value);

/* Whether [p, p + p_bytes) and [q, q + q_bytes) share a byte; empty ranges
 * share none. Calls that read one array while writing another refuse
 * overlapping arguments with this. */
static inline bool tsi_ranges_overlap(const void *p, size_t p_bytes, const void *q, size_t q_bytes) {
  uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
  return p_bytes > 0 && q_bytes > 0 && a < b + q_bytes && b < a + p_bytes;
}

/* ts_csr_check() with `op` naming the call in the message. */
ts_status tsi_csr_check(ts_context *ctx, const char *op, const ts_csr *csr);

/* a * b into *out unless it passes INT64_MAX; returns false on overflow. */
bool tsi_mul_overflows(int64_t a, int64_t b, int64_t *out);

/* Where conversion went wrong: the zero-based place and the first two input
 * entries (COO positions) there. */
typedef struct tsi_entry_place {
  int64_t row;
  int32_t col;
  int64_t first, second;
} tsi_entry_place;

/* ts_csr_from_coo(); when duplicates sum to a value that is not finite (the
 * call fails with TS_ERROR_INVALID_MATRIX), *nonfinite_sum says where (row
 * -1 otherwise). nonfinite_sum may be NULL. */
ts_status tsi_csr_from_coo(ts_context *ctx, const ts_coo *coo, ts_duplicates duplicates, ts_csr **csr,
                           tsi_entry_place *nonfinite_sum);

/* Context a buffer was created with. */
ts_context *tsi_buffer_context(const ts_buffer *buffer);

/* Bytes of the host's physical memory, or 0 when it cannot be found. */
int64_t tsi_host_memory_bytes(void);

/* Seconds on a monotonic clock, for phase timings and time-based checks. */
double tsi_seconds(void);

/* Report progress; returns TS_ERROR_CANCELLED when the callback asks to stop.
 * A long operation starts with tsi_progress(ctx, 0, total). */
ts_status tsi_progress(ts_context *ctx, int64_t done, int64_t total);

/* Simple steps (entries, rows, pow calls) of a long loop between two
 * cancellation checks: some tens of milliseconds of work. */
#define TSI_CANCEL_BLOCK ((int64_t)1 << 20)

/* End of the block of [start, n) holding TSI_CANCEL_BLOCK steps (or the rest). */
static inline int64_t tsi_block_end(int64_t start, int64_t n) {
  return n - start > TSI_CANCEL_BLOCK ? start + TSI_CANCEL_BLOCK : n;
}

/* End of the block of items [start, n) whose work, offsets[i + 1] -
 * offsets[i] for item i, adds up to about TSI_CANCEL_BLOCK (one item at
 * least): rows by their entries. */
int64_t tsi_block_end_by_work(const int64_t *offsets, int64_t start, int64_t n);

/* A cancellation check inside a step that has no figures of its own (a
 * bisection pass, a sort): the callback is given the figures last reported,
 * so that progress never goes back. Long loops call it between blocks of
 * tens of milliseconds of work, so that a cancel is honoured well within a
 * second. */
ts_status tsi_check_cancel(ts_context *ctx);

/* CUDA side of the context; stubs when tessera is built without CUDA. */
int tsi_cuda_available(void);
ts_status tsi_cuda_activate(ts_context *ctx);
ts_status tsi_cuda_context_init(ts_context *ctx, const ts_context_options *options);
void tsi_cuda_context_release(ts_context *ctx);
ts_status tsi_cuda_sync(ts_context *ctx);
/* Work queued later on `later` waits on the GPU for the work queued so far on `earlier`. */
ts_status tsi_cuda_order_streams(ts_context *ctx, void *earlier, void *later);
ts_status tsi_cuda_device_info(ts_context *ctx, ts_device_info *info);
ts_status tsi_cuda_malloc(ts_context *ctx, void **ptr, size_t bytes);
void tsi_cuda_free(void *ptr);
/* Page-locked host memory (the device copies it at full speed, without a
 * staging copy), or NULL when it cannot be had (no CUDA, no memory): the
 * caller then takes ordinary memory; nothing is reported. */
void *tsi_cuda_malloc_host(ts_context *ctx, size_t bytes);
void tsi_cuda_free_host(void *ptr);
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
