/**
 * @file tessera/core.h
 * @brief Status codes, version, the context (backend, device, stream), buffers.
 *
 * Every call returns a ::ts_status. A failed call leaves a message with the
 * detail (file and line, row, column) that ts_last_error() returns. A context
 * is used by one host thread at a time; calls that take a NULL context keep
 * their message in storage local to the calling thread.
 */
#ifndef TESSERA_CORE_H
#define TESSERA_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name Version */
/**@{*/
#define TESSERA_VERSION_MAJOR 0
#define TESSERA_VERSION_MINOR 1
#define TESSERA_VERSION_PATCH 0
/** Version as one integer: major * 10000 + minor * 100 + patch. */
#define TESSERA_VERSION (TESSERA_VERSION_MAJOR * 10000 + TESSERA_VERSION_MINOR * 100 + TESSERA_VERSION_PATCH)
/**@}*/

#if defined(_WIN32)
#define TS_API
#elif defined(__GNUC__)
#define TS_API __attribute__((visibility("default")))
#else
#define TS_API
#endif

/** Status returned by every tessera call. */
typedef enum ts_status {
  TS_SUCCESS = 0,                      /**< The call did what it was asked. */
  TS_ERROR_INVALID_ARGUMENT = 1,       /**< A NULL pointer, negative size, bad enum. */
  TS_ERROR_INVALID_MATRIX = 2,         /**< A container failed validation. */
  TS_ERROR_OUT_OF_MEMORY = 3,          /**< A host or device allocation failed. */
  TS_ERROR_OVERFLOW = 4,               /**< A size does not fit the index type. */
  TS_ERROR_IO = 5,                     /**< A file could not be opened, read or written. */
  TS_ERROR_PARSE = 6,                  /**< Malformed Matrix Market text. */
  TS_ERROR_UNSUPPORTED = 7,            /**< Valid input a call does not handle (such as complex values). */
  TS_ERROR_NO_DEVICE = 8,              /**< CUDA was asked for but no usable GPU or driver. */
  TS_ERROR_CUDA = 9,                   /**< A CUDA call or kernel failed. */
  TS_ERROR_INTERNAL = 10,              /**< A bug in tessera; please report it. */
  TS_ERROR_STRUCTURALLY_SINGULAR = 11, /**< No perfect matching: the message gives the structural rank. */
  TS_ERROR_NUMERICALLY_SINGULAR = 12,  /**< A zero or tiny pivot: the message gives the column (user numbering). */
  TS_ERROR_NOT_ANALYZED = 13,          /**< A factorization was asked for before the analysis. */
  TS_ERROR_NOT_FACTORED = 14,          /**< A solve was asked for before a factorization. */
  TS_ERROR_CANCELLED = 15,             /**< The progress callback asked to stop (ts_context_set_progress()). */
  /** Not an error: the factorization completed, but tiny pivots were
   * replaced (see ts_lu_stats); iterative refinement recovers accuracy. */
  TS_WARNING_PERTURBED_PIVOTS = 100,
  /** Not an error: a factorization that reused an analysis (ts_lu_refactor())
   * completed, but its pivots no longer suit the values: more tiny pivots,
   * or multipliers or growth far beyond those of the analysis's own
   * factorization (see ts_lu_stats). The factors are usable; a new analysis
   * of these values (or ts_lu_options.refresh_pivots) chooses fresh pivots. */
  TS_WARNING_PIVOTS_DEGRADED = 101
} ts_status;

/** True for a status that is an error (warnings and TS_SUCCESS are not). */
#define TS_IS_ERROR(status) ((status) != TS_SUCCESS && (status) < TS_WARNING_PERTURBED_PIVOTS)

/** Short fixed English text for a status ("invalid argument"). Never NULL. */
TS_API const char *ts_status_string(ts_status status);

/** Library version at run time (TESSERA_VERSION of the built library). */
TS_API int ts_version(void);

/**
 * Value type of matrix and vector entries. A complex value is a pair (re, im)
 * stored next to each other, real part first: the layout of C99's
 * `float _Complex` and `double _Complex` and of CUDA's `cuFloatComplex` and
 * `cuDoubleComplex`, so arrays of those types can be passed as they are.
 * Calls that do not take complex values refuse them with
 * TS_ERROR_UNSUPPORTED, naming the call.
 */
typedef enum ts_dtype {
  TS_FLOAT32 = 0,   /**< IEEE single precision. */
  TS_FLOAT64 = 1,   /**< IEEE double precision. */
  TS_COMPLEX64 = 2, /**< Complex, two single-precision parts (8 bytes a value). */
  TS_COMPLEX128 = 3 /**< Complex, two double-precision parts (16 bytes a value). */
} ts_dtype;

/** True for the complex value types (TS_COMPLEX64, TS_COMPLEX128). */
#define TS_DTYPE_IS_COMPLEX(dtype) ((dtype) == TS_COMPLEX64 || (dtype) == TS_COMPLEX128)

/** Size in bytes of one value of @p dtype (4, 8, 8 or 16; 0 for an unknown type). */
TS_API size_t ts_dtype_size(ts_dtype dtype);

/** Name of a value type ("float32", "float64", "complex64", "complex128"; "unknown" otherwise). */
TS_API const char *ts_dtype_name(ts_dtype dtype);

/** Which implementation runs a context's work. */
typedef enum ts_backend {
  TS_BACKEND_AUTO = 0, /**< CUDA if a GPU and driver are usable, else CPU. */
  TS_BACKEND_CPU = 1,  /**< Host threads (OpenMP). */
  TS_BACKEND_CUDA = 2  /**< An NVIDIA GPU. */
} ts_backend;

/** Name of a backend ("cpu", "cuda", "auto"). */
TS_API const char *ts_backend_name(ts_backend backend);

/** The most CPU threads a context may ask for (ts_context_options::num_threads). */
#define TS_MAX_THREADS 1024

/** Options for ts_context_create(); zero-initialise, then set fields. */
typedef struct ts_context_options {
  ts_backend backend; /**< Requested backend; AUTO by default. */
  int device;         /**< CUDA device ordinal (default 0). */
  void *stream;       /**< cudaStream_t to run on; NULL = the context's own stream. */
  int num_threads;    /**< CPU threads, 0 to TS_MAX_THREADS; 0 = OpenMP's default. */
} ts_context_options;

/**
 * Opaque execution context. One host thread at a time.
 *
 * Lifetime: every object made with a context (SpMV, sort and search plans,
 * LU objects, buffers) keeps it alive: it holds a reference from its
 * creation to its destruction. ts_context_destroy() gives up the creator's
 * reference; the context itself is freed (its stream synchronised and
 * released) when the last object using it is destroyed. Objects may thus be
 * destroyed, and used, in any order relative to ts_context_destroy(); the
 * caller must only not pass the context pointer itself to any call after
 * destroying it.
 */
typedef struct ts_context ts_context;

/**
 * Create a context.
 * @param ctx     Receives the context (NULL on failure).
 * @param options Backend, device, stream and thread count; may be NULL
 *                (AUTO backend, device 0, OpenMP's default thread count).
 * @return TS_SUCCESS; TS_ERROR_INVALID_ARGUMENT for an unknown backend or a
 *         thread count outside 0 .. TS_MAX_THREADS; TS_ERROR_NO_DEVICE when
 *         TS_BACKEND_CUDA is forced where no GPU is usable (the reason, e.g.
 *         "no NVIDIA driver found", is in ts_last_error(NULL)). With
 *         TS_BACKEND_AUTO the CPU backend is used instead, and
 *         ts_context_fallback_reason() says why.
 */
TS_API ts_status ts_context_create(ts_context **ctx, const ts_context_options *options);

/**
 * Give up the caller's reference to a context. The context is freed (after
 * its outstanding GPU work) once no object made with it remains; see
 * ::ts_context. NULL is a no-op.
 * @param ctx The context.
 */
TS_API void ts_context_destroy(ts_context *ctx);

/** Backend the context resolved to (never AUTO). */
TS_API ts_backend ts_context_backend(const ts_context *ctx);

/**
 * Why a context asked for TS_BACKEND_AUTO runs on the CPU: one of "no
 * NVIDIA driver found (...)", "NVIDIA driver ... found but no CUDA device",
 * "the NVIDIA driver supports CUDA X.Y, older than the CUDA runtime Z.W",
 * "CUDA device N (...) is unusable: ...", "tessera was built without CUDA".
 * @param ctx The context (may be NULL).
 * @return The reason, or NULL when there was no fallback (the context runs
 *         on the GPU, or the CPU was asked for, or ctx is NULL). Valid while
 *         the context lives.
 */
TS_API const char *ts_context_fallback_reason(const ts_context *ctx);

/** Properties of the device behind a context. */
typedef struct ts_device_info {
  char name[256];           /**< "NVIDIA H200" or the CPU's description. */
  int ordinal;              /**< CUDA device ordinal, -1 on the CPU. */
  int compute_major;        /**< Compute capability (0 on the CPU). */
  int compute_minor;        /**< Compute capability (0 on the CPU). */
  int multiprocessors;      /**< SMs, or CPU threads available. */
  int64_t global_memory;    /**< Bytes of device memory (0 on the CPU). */
  int64_t l2_cache_bytes;   /**< L2 size in bytes (0 on the CPU). */
  int64_t shared_per_block; /**< Largest opt-in shared memory per block. */
  int driver_version;       /**< CUDA driver version (0 on the CPU). */
  int runtime_version;      /**< CUDA runtime version (0 on the CPU). */
} ts_device_info;

/** Fill @p info for the context's device. */
TS_API ts_status ts_context_device_info(ts_context *ctx, ts_device_info *info);

/**
 * Wait for all work queued on the context's stream. A fault inside an earlier
 * kernel surfaces here as TS_ERROR_CUDA, with the operation that launched it
 * named in the message. On the CPU backend this returns TS_SUCCESS at once.
 */
TS_API ts_status ts_context_sync(ts_context *ctx);

/** The context's CUDA stream (cudaStream_t) or NULL on the CPU backend. */
TS_API void *ts_context_stream(const ts_context *ctx);

/**
 * Order the context's later work after the work queued so far on another
 * CUDA stream of the same device, on the GPU: the host does not wait. For
 * arrays shared with a library that runs on a stream of its own (CuPy,
 * PyTorch): call it before giving tessera what that stream wrote.
 * @param ctx    The context.
 * @param stream The other stream (cudaStream_t); NULL is CUDA's default
 *               stream, as in CUDA's own calls.
 * @return TS_SUCCESS, also at once on the CPU backend and when @p stream is
 *         the context's own stream; TS_ERROR_CUDA when CUDA refuses the
 *         stream.
 */
TS_API ts_status ts_context_wait_for_stream(ts_context *ctx, void *stream);

/**
 * The reverse of ts_context_wait_for_stream(): work queued later on
 * @p stream waits, on the GPU, for the context's work queued so far. Call it
 * before the other library reads what tessera wrote.
 */
TS_API ts_status ts_stream_wait_for_context(ts_context *ctx, void *stream);

/**
 * Message of the last failed call on @p ctx, or, for ctx NULL, of the last
 * failed call in this thread that had no context. "" when none failed.
 */
TS_API const char *ts_last_error(const ts_context *ctx);

/** Where a buffer's bytes live. */
typedef enum ts_memory {
  TS_MEMORY_HOST = 0,  /**< Host memory, readable by the CPU. */
  TS_MEMORY_DEVICE = 1 /**< Backend memory: GPU memory on CUDA, host memory on CPU. */
} ts_memory;

/** A block of bytes in host or backend memory, owned by tessera. */
typedef struct ts_buffer ts_buffer;

/** Allocate @p bytes (0 allowed) in @p memory for @p ctx. */
TS_API ts_status ts_buffer_create(ts_context *ctx, ts_memory memory, size_t bytes, ts_buffer **buffer);

/**
 * A buffer over memory the caller owns (another library's array, for
 * example), so that tessera works on it in place: ts_buffer_destroy() frees
 * the buffer, never the memory, and the caller keeps the memory alive until
 * then. On the CUDA backend, TS_MEMORY_DEVICE memory must be device or
 * managed memory of the context's device and TS_MEMORY_HOST memory must not
 * be device memory (both checked with cudaPointerGetAttributes); on the CPU
 * backend both are host memory. Work queued on the context's stream must
 * be ordered with the owner's own use of the memory (synchronise one stream
 * before the other starts).
 * @param ctx the context the buffer is used with
 * @param memory where @p data lives
 * @param data first byte; NULL only when @p bytes is 0
 * @param bytes size in bytes
 * @param buffer receives the buffer
 * @return TS_SUCCESS, or TS_ERROR_INVALID_ARGUMENT (a NULL argument, an
 *         unknown memory kind, memory of the wrong kind or device)
 */
TS_API ts_status ts_buffer_wrap(ts_context *ctx, ts_memory memory, void *data, size_t bytes, ts_buffer **buffer);

/**
 * Free a buffer (NULL is a no-op). Waits for the context's stream first. The
 * memory of a buffer made by ts_buffer_wrap() stays with its owner.
 */
TS_API void ts_buffer_destroy(ts_buffer *buffer);

/** Address of the buffer's first byte (NULL for a 0-byte buffer). */
TS_API void *ts_buffer_data(const ts_buffer *buffer);

/** Size in bytes. */
TS_API size_t ts_buffer_size(const ts_buffer *buffer);

/** Where the buffer lives. */
TS_API ts_memory ts_buffer_memory(const ts_buffer *buffer);

/**
 * Copy @p bytes from host memory @p src into @p buffer at @p offset.
 * Completes before returning (the host memory may be reused at once).
 */
TS_API ts_status ts_buffer_upload(ts_context *ctx, ts_buffer *buffer, size_t offset, const void *src, size_t bytes);

/**
 * Copy @p bytes from @p buffer at @p offset into host memory @p dst.
 * Synchronising: faults of earlier kernels surface here.
 */
TS_API ts_status ts_buffer_download(ts_context *ctx, const ts_buffer *buffer, size_t offset, void *dst, size_t bytes);

/** Copy between two buffers, asynchronously on the context's stream. */
TS_API ts_status ts_buffer_copy(ts_context *ctx, ts_buffer *dst, size_t dst_offset, const ts_buffer *src,
                                size_t src_offset, size_t bytes);

/** Set every byte of a buffer to @p value (asynchronous on CUDA). */
TS_API ts_status ts_buffer_fill_bytes(ts_context *ctx, ts_buffer *buffer, int value);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_CORE_H */
