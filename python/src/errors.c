/* Library statuses as Python exceptions: the package registers one class
 * per status (tessera/_errors.py); each instance carries the library's
 * message and its status (attribute `status`). */
#include "tessera_python.h"

static PyObject *errors_by_status; /* dict: int status -> exception class */

PyObject *tspy_set_errors(PyObject *module, PyObject *errors) {
  (void)module;
  if (!PyDict_Check(errors)) {
    PyErr_SetString(PyExc_TypeError, "_set_errors expects a dict of status -> exception class");
    return NULL;
  }
  Py_INCREF(errors);
  Py_XSETREF(errors_by_status, errors);
  Py_RETURN_NONE;
}

PyObject *tspy_raise(ts_status status, const char *message) {
  PyObject *cls = NULL;
  if (errors_by_status) {
    PyObject *key = PyLong_FromLong((long)status);
    if (!key)
      return NULL;
    cls = PyDict_GetItemWithError(errors_by_status, key);
    Py_DECREF(key);
    if (!cls && PyErr_Occurred())
      return NULL;
  }
  if (!cls)
    cls = PyExc_RuntimeError;
  const char *text = message && *message ? message : ts_status_string(status);
  PyObject *exception = PyObject_CallFunction(cls, "s", text);
  if (!exception)
    return NULL;
  PyObject *code = PyLong_FromLong((long)status);
  if (!code || PyObject_SetAttrString(exception, "status", code) < 0) {
    Py_XDECREF(code);
    Py_DECREF(exception);
    return NULL;
  }
  Py_DECREF(code);
  PyErr_SetObject((PyObject *)Py_TYPE(exception), exception);
  Py_DECREF(exception);
  return NULL;
}

PyObject *tspy_raise_status(tspy_context *context, ts_status status) {
  if (PyErr_Occurred())
    return NULL; /* the KeyboardInterrupt that cancelled the call (tspy_call_end) */
  return tspy_raise(status, ts_last_error(context ? context->ctx : NULL));
}
