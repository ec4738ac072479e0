/* The offsets of a compressed sparse matrix (SciPy's indptr) checked before
 * any SciPy routine indexes memory with them: SciPy checks a matrix's arrays
 * when it is made, not arrays assigned to it later, and its conversions and
 * canonical-format test read indices[indptr[i]:indptr[i + 1]] unchecked. A
 * loop here, so that the check costs a call rather than several NumPy
 * passes on the small matrices whose per-call cost the binding bounds. */
#include "tessera_python.h"

/* offsets_fault(indptr, limit): None when indptr (C-contiguous, int32 or
 * int64) starts at 0, never decreases and ends at most at limit; else
 * (kind, position): 0 indptr[0] is not 0, 1 indptr[position] >
 * indptr[position + 1], 2 the last offset passes limit. */
PyObject *tspy_offsets_fault(PyObject *module, PyObject *args) {
  (void)module;
  PyObject *indptr_obj;
  long long limit;
  if (!PyArg_ParseTuple(args, "OL", &indptr_obj, &limit))
    return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(indptr_obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
    return NULL;
  if (!tspy_index_buffer(&view)) {
    PyBuffer_Release(&view);
    PyErr_Format(PyExc_TypeError, "indptr: expected int32 or int64 offsets, got format '%s'", view.format);
    return NULL;
  }
  const Py_ssize_t count = view.len / view.itemsize;
  long long kind = -1, position = 0;
  if (count > 0) {
    long long previous = tspy_index_at(&view, 0);
    if (previous != 0)
      kind = 0;
    for (Py_ssize_t i = 1; kind < 0 && i < count; i++) {
      const long long next = tspy_index_at(&view, i);
      if (next < previous) {
        kind = 1;
        position = (long long)i - 1;
      }
      previous = next;
    }
    if (kind < 0 && previous > limit) {
      kind = 2;
      position = (long long)count - 1;
    }
  }
  PyBuffer_Release(&view);
  if (kind < 0)
    Py_RETURN_NONE;
  return Py_BuildValue("(LL)", kind, position);
}
