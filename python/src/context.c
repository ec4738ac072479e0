/* Context(backend, device, threads, stream): a ts_context, its lock (a
 * context serves one thread at a time), and the progress callback through
 * which Ctrl-C cancels a long call. */
#include "tessera_python.h"

/* Called by the library between the chunks of a long operation, from the
 * thread that made the call (which released the GIL). A Ctrl-C that arrived
 * meanwhile (SIGINT, in the main thread) cancels the call, and
 * KeyboardInterrupt is kept for tspy_call_end to raise. Python's signal
 * handlers are not run here (PyOS_InterruptOccurred only reads and clears
 * SIGINT's flag): a handler's code, or a garbage collection it set off,
 * could call into this context, whose lock this thread holds. */
static int progress_check_interrupt(void *user, int64_t done, int64_t total) {
  (void)done;
  (void)total;
  tspy_context *self = user;
  PyGILState_STATE gil = PyGILState_Ensure();
  int stop = 0;
  if (PyOS_InterruptOccurred()) {
    stop = 1;
    if (!self->pending_type) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      PyErr_Fetch(&self->pending_type, &self->pending_value, &self->pending_traceback);
    }
  }
  PyGILState_Release(gil);
  return stop;
}

void tspy_call_begin(tspy_context *context, tspy_call *call) {
  call->context = context;
  if (!PyThread_acquire_lock(context->lock, NOWAIT_LOCK)) {
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(context->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
  }
  call->thread = PyEval_SaveThread();
}

int tspy_call_end(tspy_call *call) {
  PyEval_RestoreThread(call->thread);
  tspy_context *context = call->context;
  PyObject *type = context->pending_type, *value = context->pending_value, *traceback = context->pending_traceback;
  context->pending_type = context->pending_value = context->pending_traceback = NULL;
  PyThread_release_lock(context->lock);
  if (!type)
    return 0;
  /* A signal's exception, caught by the progress callback: raised now,
   * whether or not the call stopped for it. */
  PyErr_Restore(type, value, traceback);
  return -1;
}

PyObject *tspy_object_new(PyTypeObject *type, tspy_context *context) {
  tspy_object *self = (tspy_object *)type->tp_alloc(type, 0);
  if (!self)
    return NULL;
  Py_INCREF(context);
  self->context = context;
  return (PyObject *)self;
}

PyObject *tspy_object_made(PyObject *self, tspy_call *call, ts_status status) {
  tspy_context *context = call->context;
  if (tspy_call_end(call) < 0 || status != TS_SUCCESS) {
    tspy_raise_status(context, status);
    Py_DECREF(self);
    return NULL;
  }
  return self;
}

void tspy_object_dealloc(PyObject *self, void (*release)(PyObject *self)) {
  tspy_object *object = (tspy_object *)self;
  if (object->context) {
    tspy_call call;
    tspy_call_begin(object->context, &call);
    release(self);
    if (tspy_call_end(&call) < 0)
      PyErr_WriteUnraisable(self);
    Py_CLEAR(object->context);
  }
  Py_TYPE(self)->tp_free(self);
}

int tspy_context_converter(PyObject *obj, void *out) {
  if (!PyObject_TypeCheck(obj, &tspy_context_type)) {
    PyErr_Format(PyExc_TypeError, "expected a tessera context, got %.200s", Py_TYPE(obj)->tp_name);
    return 0;
  }
  *(tspy_context **)out = (tspy_context *)obj;
  return 1;
}

static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"backend", "device", "threads", "stream", "stream_owner", NULL};
  int backend = TS_BACKEND_AUTO, device = 0, threads = 0;
  PyObject *stream_address = NULL, *stream_owner = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|iiiO!O", keywords, &backend, &device, &threads, &PyLong_Type,
                                   &stream_address, &stream_owner))
    return NULL;
  void *stream = stream_address ? PyLong_AsVoidPtr(stream_address) : NULL;
  if (PyErr_Occurred())
    return NULL;
  tspy_context *self = (tspy_context *)type->tp_alloc(type, 0);
  if (!self)
    return NULL;
  self->lock = PyThread_allocate_lock();
  if (!self->lock) {
    Py_DECREF(self);
    return PyErr_NoMemory();
  }
  ts_context_options options = {0};
  options.backend = (ts_backend)backend;
  options.device = device;
  options.num_threads = threads;
  options.stream = stream;
  ts_status status;
  ts_context *ctx = NULL;
  Py_BEGIN_ALLOW_THREADS status = ts_context_create(&ctx, &options);
  Py_END_ALLOW_THREADS if (status != TS_SUCCESS) {
    Py_DECREF(self);
    return tspy_raise_status(NULL, status);
  }
  self->ctx = ctx;
  if (stream_owner && stream_owner != Py_None) {
    Py_INCREF(stream_owner);
    self->stream_owner = stream_owner;
  }
  (void)ts_context_set_progress(ctx, progress_check_interrupt, self);
  return (PyObject *)self;
}

static void context_dealloc(tspy_context *self) {
  if (self->ctx) {
    ts_context *ctx = self->ctx;
    self->ctx = NULL;
    Py_BEGIN_ALLOW_THREADS ts_context_destroy(ctx);
    Py_END_ALLOW_THREADS
  }
  Py_CLEAR(self->stream_owner); /* after the context, which used its stream */
  if (self->lock)
    PyThread_free_lock(self->lock);
  Py_XDECREF(self->pending_type);
  Py_XDECREF(self->pending_value);
  Py_XDECREF(self->pending_traceback);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *context_backend(tspy_context *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(ts_backend_name(ts_context_backend(self->ctx)));
}

static PyObject *context_stream(tspy_context *self, void *closure) {
  (void)closure;
  return PyLong_FromVoidPtr(ts_context_stream(self->ctx));
}

static PyObject *context_sync(tspy_context *self, PyObject *unused) {
  (void)unused;
  tspy_call call;
  tspy_call_begin(self, &call);
  ts_status status = ts_context_sync(self->ctx);
  if (tspy_call_end(&call) < 0 || status != TS_SUCCESS)
    return tspy_raise_status(self, status);
  Py_RETURN_NONE;
}

static PyObject *context_device_info(tspy_context *self, PyObject *unused) {
  (void)unused;
  ts_device_info info;
  tspy_call call;
  tspy_call_begin(self, &call);
  ts_status status = ts_context_device_info(self->ctx, &info);
  if (tspy_call_end(&call) < 0 || status != TS_SUCCESS)
    return tspy_raise_status(self, status);
  return Py_BuildValue("{s:s,s:i,s:(ii),s:i,s:L,s:L,s:L,s:i,s:i}", "name", info.name, "ordinal", info.ordinal,
                       "compute_capability", info.compute_major, info.compute_minor, "multiprocessors",
                       info.multiprocessors, "global_memory", (long long)info.global_memory, "l2_cache_bytes",
                       (long long)info.l2_cache_bytes, "shared_per_block", (long long)info.shared_per_block,
                       "driver_version", info.driver_version, "runtime_version", info.runtime_version);
}

/* ts_context_wait_for_stream (context_waits) or ts_stream_wait_for_context
 * for a stream given as an int, under the context's lock. */
static PyObject *context_order(tspy_context *self, PyObject *stream, bool context_waits) {
  void *pointer = PyLong_AsVoidPtr(stream);
  if (!pointer && PyErr_Occurred())
    return NULL;
  tspy_call call;
  tspy_call_begin(self, &call);
  ts_status status =
      context_waits ? ts_context_wait_for_stream(self->ctx, pointer) : ts_stream_wait_for_context(self->ctx, pointer);
  if (tspy_call_end(&call) < 0 || status != TS_SUCCESS)
    return tspy_raise_status(self, status);
  Py_RETURN_NONE;
}

static PyObject *context_wait_for_stream(tspy_context *self, PyObject *stream) {
  return context_order(self, stream, true);
}

static PyObject *context_stream_wait(tspy_context *self, PyObject *stream) {
  return context_order(self, stream, false);
}

static PyMethodDef context_methods[] = {
    {"sync", (PyCFunction)context_sync, METH_NOARGS, "Wait for the work queued on the context's stream."},
    {"_wait_for_stream", (PyCFunction)context_wait_for_stream, METH_O,
     "_wait_for_stream(stream): the context's later work waits on the GPU for the stream's (an int) work so far."},
    {"_stream_wait", (PyCFunction)context_stream_wait, METH_O,
     "_stream_wait(stream): the stream's (an int) later work waits on the GPU for the context's work so far."},
    {"device_info", (PyCFunction)context_device_info, METH_NOARGS, "Properties of the context's device, as a dict."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef context_getset[] = {
    {"backend", (getter)context_backend, NULL, "Backend the context resolved to: 'cpu' or 'cuda'.", NULL},
    {"stream", (getter)context_stream, NULL, "The context's CUDA stream as an int (0 on the CPU).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject tspy_context_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera._core.Context",
    .tp_basicsize = sizeof(tspy_context),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Context(backend=0, device=0, threads=0, stream=0): a tessera execution context.",
    .tp_new = context_new,
    .tp_dealloc = (destructor)context_dealloc,
    .tp_methods = context_methods,
    .tp_getset = context_getset,
};
