/* Declarations shared by the sources of the extension tessera._core: the
 * context object with its lock, calls into the library with the GIL
 * released, errors as Python exceptions, memory operands (host buffers or
 * device addresses) bound to ts_buffers, and matrices owned by tessera that
 * NumPy reads in place. The Python package (python/tessera) is the only
 * caller: it checks types and shapes; this layer checks every length it
 * relies on, so that a wrong call raises rather than reads out of bounds. */
#ifndef TESSERA_PYTHON_H
#define TESSERA_PYTHON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <stdbool.h>
#include <stdint.h>
#include <tessera.h>

/* ---- context ---------------------------------------------------------------- */

/* A ts_context with the lock that gives it to one thread at a time. */
typedef struct tspy_context {
  PyObject_HEAD ts_context *ctx;
  PyThread_type_lock lock;
  /* KeyboardInterrupt for a Ctrl-C seen by the progress callback, kept
   * until the cancelled call returns. */
  PyObject *pending_type, *pending_value, *pending_traceback;
  /* What owns the caller's stream (a cupy.cuda.Stream), released only after
   * the context is destroyed: a subclass's __dict__ is cleared before this
   * type's dealloc runs, and the library synchronises the stream when the
   * context goes. */
  PyObject *stream_owner;
} tspy_context;

extern PyTypeObject tspy_context_type;

/* *out = obj as a context, or NULL with a TypeError. */
int tspy_context_converter(PyObject *obj, void *out);

/* A call into the library: the context's lock is held and the GIL released
 * between tspy_call_begin and tspy_call_end (no Python API in between).
 * tspy_call_end returns -1 with KeyboardInterrupt set when Ctrl-C arrived
 * during the call (seen by the progress callback), else 0. */
typedef struct tspy_call {
  tspy_context *context;
  PyThreadState *thread;
} tspy_call;

void tspy_call_begin(tspy_context *context, tspy_call *call);
int tspy_call_end(tspy_call *call);

/* ---- errors --------------------------------------------------------------- */

/* Raise the exception class registered for status (RuntimeError if none)
 * with message; returns NULL. */
PyObject *tspy_raise(ts_status status, const char *message);

/* Raise for a failed call on context: the status with ts_last_error(ctx)
 * (ctx NULL: the thread's message), unless an exception is already set (the
 * KeyboardInterrupt of tspy_call_end), which is kept. Returns NULL. */
PyObject *tspy_raise_status(tspy_context *context, ts_status status);

/* The module's table of exception classes by status (set from Python). */
PyObject *tspy_set_errors(PyObject *module, PyObject *errors);

/* ---- memory operands -------------------------------------------------------- */

/* Memory a call reads or writes: a host buffer (any object with the buffer
 * protocol, contiguous) or a device address given as an int. */
typedef struct tspy_operand {
  Py_buffer view;
  bool has_view;
  bool on_device;
  char *data;
  size_t bytes;
} tspy_operand;

/* Take obj as an operand of exactly `bytes` bytes for a call on context
 * (None is refused; a device address only on a CUDA context); writable for
 * outputs. Returns 0, or -1 with a ValueError or TypeError naming `what`. */
int tspy_operand_get(tspy_context *context, PyObject *obj, size_t bytes, bool writable, const char *what,
                     tspy_operand *op);
void tspy_operand_release(tspy_operand *op);

/* True when two operands' byte ranges overlap. */
bool tspy_operands_overlap(const tspy_operand *a, const tspy_operand *b);

/* What a plan keeps of an operand between calls on a CUDA context: a device
 * copy for host arrays (grown as needed), or the wrap of the last device
 * array given (reused while the next call gives the same address and size,
 * so that a loop over the same CuPy arrays neither checks the pointer nor
 * waits for the stream, as destroying a wrap does, at every call). */
typedef struct tspy_cache {
  ts_buffer *buffer;
  bool wrapped; /* buffer wraps the caller's device memory (it owns none) */
} tspy_cache;

/* Destroy what the cache holds (waiting for the context's stream). */
void tspy_cache_release(tspy_cache *cache);

/* A ts_buffer over an operand for a context, valid between bind and unbind:
 * the operand's memory itself (host memory on the CPU backend, device
 * memory on CUDA), or, for host memory on a CUDA context, a device copy
 * (uploaded by bind when `upload`, downloaded by unbind when `download`).
 * With a cache (non-NULL) the device copy, or the wrap of device memory,
 * lives in it and is kept for later calls (the caller releases it);
 * otherwise unbind frees it. Called with the GIL released. */
typedef struct tspy_bound {
  ts_buffer *buffer;
  bool staged;
  bool cached;
} tspy_bound;

ts_status tspy_bind(ts_context *ctx, const tspy_operand *op, bool upload, tspy_cache *cache, tspy_bound *bound);
ts_status tspy_unbind(ts_context *ctx, const tspy_operand *op, bool download, tspy_bound *bound);

/* One operand of a call: op NULL for an absent one (its buffer is NULL);
 * upload its contents before, download them after a successful call. */
typedef struct tspy_binding {
  const tspy_operand *op;
  bool upload;
  bool download;
  tspy_cache *cache;
} tspy_binding;

enum { TSPY_MAX_BINDINGS = 4 };

/* Bind `count` operands (at most TSPY_MAX_BINDINGS), run(user, buffers)
 * with their buffers in the same order, unbind them; the first failure's
 * status. Called with the GIL released. */
ts_status tspy_run_bound(ts_context *ctx, const tspy_binding *bindings, int count,
                         ts_status (*run)(void *user, ts_buffer **buffers), void *user);

/* A call with one input and one output operand (x and y, B and C, queries
 * and results): the input uploaded, the output downloaded, read first only
 * when read_out; device copies of host arrays, or wraps of device arrays,
 * kept in the caches (which may be NULL). */
typedef struct tspy_pair {
  PyObject *in;
  size_t in_bytes;
  const char *in_name;
  tspy_cache *in_cache;
  PyObject *out;
  size_t out_bytes;
  const char *out_name;
  tspy_cache *out_cache;
  bool read_out;
  /* A caller's CUDA stream to order the run with (NULL: none): the context
   * waits for its work before the run, and it waits for the context's after
   * (ts_context_wait_for_stream, ts_stream_wait_for_context), under the
   * same lock as the run. */
  void *order_stream;
} tspy_pair;

/* Take both operands (refused if they overlap), run(user, buffers) on them
 * with the context's lock held and the GIL released, ordered with
 * pair->order_stream; None, or NULL with the exception. */
PyObject *tspy_execute_pair(tspy_context *context, const tspy_pair *pair,
                            ts_status (*run)(void *user, ts_buffer **buffers), void *user);

/* ---- objects made on a context ------------------------------------------------ */

/* The head of every object that holds library resources made on a context. */
typedef struct tspy_object {
  PyObject_HEAD tspy_context *context;
} tspy_object;

/* A new object of `type` holding a reference to context, or NULL. */
PyObject *tspy_object_new(PyTypeObject *type, tspy_context *context);

/* Ends the call that made an object's library resources: self, or NULL
 * (self released) with the exception for a failed status or a signal. */
PyObject *tspy_object_made(PyObject *self, tspy_call *call, ts_status status);

/* tp_dealloc of such an object: release(self) frees its library resources
 * under the context's lock, then the context reference goes. */
void tspy_object_dealloc(PyObject *self, void (*release)(PyObject *self));

/* ---- CSR matrices given as three arrays ------------------------------------- */

/* A ts_csr over arrays the caller holds: row_ptr int64 (rows + 1), col_idx
 * int32 (nnz), values of dtype (nnz; 0 float32, 1 float64, 2 complex64,
 * 3 complex128); nnz is read from row_ptr[rows]. The
 * views stay held until tspy_csr_view_release. */
typedef struct tspy_csr_view {
  ts_csr csr;
  Py_buffer views[3];
  int held;
} tspy_csr_view;

int tspy_csr_view_get(PyObject *row_ptr, PyObject *col_idx, PyObject *values, int64_t rows, int64_t cols, int dtype,
                      tspy_csr_view *view);
void tspy_csr_view_release(tspy_csr_view *view);

/* ts_dtype from the int the Python layer passes (0 float32, 1 float64). */
int tspy_dtype_check(int dtype);

/* ---- matrices tessera allocated, read by NumPy in place --------------------- */

/* Owns a ts_coo or ts_csr; arrays() gives one buffer object per array. */
PyObject *tspy_matrix_from_coo(ts_coo *coo);
PyObject *tspy_matrix_from_csr(ts_csr *csr);
PyObject *tspy_matrix_from_csc(ts_csc *csc);
extern PyTypeObject tspy_matrix_type;
extern PyTypeObject tspy_block_type;

/* ---- the objects and functions of the module -------------------------------- */

extern PyTypeObject tspy_lu_type;
extern PyTypeObject tspy_lu_batch_type;
extern PyTypeObject tspy_spmv_type;
extern PyTypeObject tspy_search_type;
extern PyTypeObject tspy_graph_type;
extern PyTypeObject tspy_spmm_type;

PyObject *tspy_sort(PyObject *module, PyObject *args);
PyObject *tspy_offsets_fault(PyObject *module, PyObject *args);
PyObject *tspy_csc_to_csr(PyObject *module, PyObject *args);

/* An index buffer (PyBUF_FORMAT) of int32 or int64: true when its items
 * are one of those; tspy_index_at reads item i as int64. */
static inline bool tspy_index_buffer(const Py_buffer *view) {
  const char *format = view->format ? view->format : "B";
  if (*format == '<' || *format == '=' || *format == '@')
    format++;
  return (view->itemsize == 8 && (*format == 'l' || *format == 'q')) ||
         (view->itemsize == 4 && (*format == 'i' || (*format == 'l' && sizeof(long) == 4)));
}
static inline int64_t tspy_index_at(const Py_buffer *view, Py_ssize_t i) {
  return view->itemsize == 8 ? ((const int64_t *)view->buf)[i] : ((const int32_t *)view->buf)[i];
}
PyObject *tspy_mm_read(PyObject *module, PyObject *args);
PyObject *tspy_mm_read_info(PyObject *module, PyObject *args);
PyObject *tspy_mm_write(PyObject *module, PyObject *args);
PyObject *tspy_generate(PyObject *module, PyObject *args);
PyObject *tspy_spgemm(PyObject *module, PyObject *args);

#endif /* TESSERA_PYTHON_H */
