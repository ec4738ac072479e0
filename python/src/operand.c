/* Memory operands: host buffers (NumPy arrays, through the buffer
 * protocol) or device addresses (CuPy arrays, from their
 * __cuda_array_interface__), and the ts_buffers a call works on: the
 * caller's memory wrapped in place, or a device copy where host memory
 * meets a CUDA context. */
#include "tessera_python.h"

int tspy_operand_get(tspy_context *context, PyObject *obj, size_t bytes, bool writable, const char *what,
                     tspy_operand *op) {
  memset(op, 0, sizeof *op);
  if (PyLong_Check(obj)) {
    if (ts_context_backend(context->ctx) != TS_BACKEND_CUDA) {
      PyErr_Format(PyExc_ValueError, "%s: a device address was given to a context on the %s backend", what,
                   ts_backend_name(ts_context_backend(context->ctx)));
      return -1;
    }
    void *address = PyLong_AsVoidPtr(obj);
    if (!address && PyErr_Occurred())
      return -1;
    if (!address && bytes > 0) {
      PyErr_Format(PyExc_ValueError, "%s: device address 0 for %zu bytes", what, bytes);
      return -1;
    }
    op->on_device = true;
    op->data = address;
    op->bytes = bytes;
    return 0;
  }
  int flags = PyBUF_ANY_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(obj, &op->view, flags) < 0) {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    /* A contiguous array that is only read-only: a ValueError, as NumPy's
     * for a read-only out=; anything else is of the wrong type. */
    bool read_only = false;
    if (writable && PyObject_GetBuffer(obj, &op->view, PyBUF_ANY_CONTIGUOUS) == 0) {
      read_only = true;
      PyBuffer_Release(&op->view);
    } else {
      PyErr_Clear();
    }
    if (read_only)
      PyErr_Format(PyExc_ValueError, "%s: the array is read-only (a writable output is needed)", what);
    else
      PyErr_Format(PyExc_TypeError, "%s: expected a contiguous%s array, got %.200s", what, writable ? " writable" : "",
                   Py_TYPE(obj)->tp_name);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    return -1;
  }
  op->has_view = true;
  if ((size_t)op->view.len != bytes) {
    PyErr_Format(PyExc_ValueError, "%s: %zd bytes given, %zu expected", what, op->view.len, bytes);
    tspy_operand_release(op);
    return -1;
  }
  op->data = op->view.buf;
  op->bytes = bytes;
  return 0;
}

void tspy_operand_release(tspy_operand *op) {
  if (op->has_view)
    PyBuffer_Release(&op->view);
  op->has_view = false;
}

bool tspy_operands_overlap(const tspy_operand *a, const tspy_operand *b) {
  if (a->bytes == 0 || b->bytes == 0 || a->on_device != b->on_device)
    return false;
  uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
  return a0 < b0 + b->bytes && b0 < a0 + a->bytes;
}

void tspy_cache_release(tspy_cache *cache) {
  ts_buffer_destroy(cache->buffer);
  cache->buffer = NULL;
  cache->wrapped = false;
}

/* Device memory on a CUDA context, with a cache: the last wrap again when it
 * covers the same bytes (the pointer was checked when it was made; memory
 * at that address is still the caller's device memory, the only kind the
 * Python layer passes), else a new wrap in its place. */
static ts_status bind_device_cached(ts_context *ctx, const tspy_operand *op, tspy_cache *cache, tspy_bound *bound) {
  if (!cache->buffer || !cache->wrapped || ts_buffer_data(cache->buffer) != op->data ||
      ts_buffer_size(cache->buffer) != op->bytes) {
    tspy_cache_release(cache);
    ts_status status = ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, op->data, op->bytes, &cache->buffer);
    if (status != TS_SUCCESS)
      return status;
    cache->wrapped = true;
  }
  bound->buffer = cache->buffer;
  bound->cached = true;
  return TS_SUCCESS;
}

ts_status tspy_bind(ts_context *ctx, const tspy_operand *op, bool upload, tspy_cache *cache, tspy_bound *bound) {
  memset(bound, 0, sizeof *bound);
  /* A device address reaches here only with a CUDA context (tspy_operand_get). */
  const bool cuda = ts_context_backend(ctx) == TS_BACKEND_CUDA;
  if (op->on_device && cache && op->bytes > 0)
    return bind_device_cached(ctx, op, cache, bound);
  if (op->on_device || !cuda)
    return ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, op->data, op->bytes, &bound->buffer);
  /* Host memory on a CUDA context: a device copy. */
  ts_status status = TS_SUCCESS;
  if (cache) {
    if (!cache->buffer || cache->wrapped || ts_buffer_size(cache->buffer) < op->bytes) {
      tspy_cache_release(cache);
      status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, op->bytes, &cache->buffer);
      if (status != TS_SUCCESS)
        return status;
    }
    bound->buffer = cache->buffer;
    bound->cached = true;
  } else {
    status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, op->bytes, &bound->buffer);
    if (status != TS_SUCCESS)
      return status;
  }
  bound->staged = true;
  if (upload)
    status = ts_buffer_upload(ctx, bound->buffer, 0, op->data, op->bytes);
  if (status != TS_SUCCESS)
    (void)tspy_unbind(ctx, op, false, bound);
  return status;
}

ts_status tspy_unbind(ts_context *ctx, const tspy_operand *op, bool download, tspy_bound *bound) {
  ts_status status = TS_SUCCESS;
  if (bound->staged && download && bound->buffer)
    status = ts_buffer_download(ctx, bound->buffer, 0, op->data, op->bytes);
  if (!bound->cached)
    ts_buffer_destroy(bound->buffer);
  bound->buffer = NULL;
  return status;
}

ts_status tspy_run_bound(ts_context *ctx, const tspy_binding *bindings, int count,
                         ts_status (*run)(void *user, ts_buffer **buffers), void *user) {
  ts_buffer *buffers[TSPY_MAX_BINDINGS] = {0};
  tspy_bound bound[TSPY_MAX_BINDINGS];
  memset(bound, 0, sizeof bound);
  ts_status status = count <= TSPY_MAX_BINDINGS ? TS_SUCCESS : TS_ERROR_INTERNAL;
  for (int i = 0; i < count && status == TS_SUCCESS; i++) {
    if (!bindings[i].op)
      continue;
    status = tspy_bind(ctx, bindings[i].op, bindings[i].upload, bindings[i].cache, &bound[i]);
    buffers[i] = bound[i].buffer;
  }
  if (status == TS_SUCCESS)
    status = run(user, buffers);
  for (int i = 0; i < count && i < TSPY_MAX_BINDINGS; i++) {
    if (!bindings[i].op || !bound[i].buffer)
      continue;
    ts_status unbound = tspy_unbind(ctx, bindings[i].op, status == TS_SUCCESS && bindings[i].download, &bound[i]);
    if (status == TS_SUCCESS)
      status = unbound;
  }
  return status;
}

PyObject *tspy_execute_pair(tspy_context *context, const tspy_pair *pair,
                            ts_status (*run)(void *user, ts_buffer **buffers), void *user) {
  tspy_operand in, out;
  if (tspy_operand_get(context, pair->in, pair->in_bytes, false, pair->in_name, &in) < 0)
    return NULL;
  if (tspy_operand_get(context, pair->out, pair->out_bytes, true, pair->out_name, &out) < 0) {
    tspy_operand_release(&in);
    return NULL;
  }
  if (tspy_operands_overlap(&in, &out)) {
    tspy_operand_release(&in);
    tspy_operand_release(&out);
    return PyErr_Format(PyExc_ValueError, "%s and %s overlap: %s must be memory of its own", pair->in_name,
                        pair->out_name, pair->out_name);
  }
  const tspy_binding bindings[2] = {{&in, true, false, pair->in_cache}, {&out, pair->read_out, true, pair->out_cache}};
  tspy_call call;
  tspy_call_begin(context, &call);
  void *stream = pair->order_stream;
  ts_status status = stream ? ts_context_wait_for_stream(context->ctx, stream) : TS_SUCCESS;
  if (status == TS_SUCCESS)
    status = tspy_run_bound(context->ctx, bindings, 2, run, user);
  if (stream) {
    /* Also after a failed run: the stream's later work must not overtake
     * whatever the context had queued. */
    const ts_status ordered = ts_stream_wait_for_context(context->ctx, stream);
    status = status == TS_SUCCESS ? ordered : status;
  }
  int interrupted = tspy_call_end(&call);
  tspy_operand_release(&in);
  tspy_operand_release(&out);
  if (interrupted || status != TS_SUCCESS)
    return tspy_raise_status(context, status);
  Py_RETURN_NONE;
}
