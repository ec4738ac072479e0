/* A CSC matrix's arrays (SciPy's, the form splu takes) as CSR arrays in one
 * counting pass and one scatter, into arrays the caller made: what SciPy's
 * tocsr followed by the int64 offsets and int32 indices tessera takes would
 * do in four passes. Columns are scattered in order, so each row's columns
 * come out ascending; a canonical CSC (sorted, no duplicates) gives a
 * canonical CSR. The caller has checked the offsets and the row indices
 * (_arrays.check_structure). */
#include "tessera_python.h"

#include <stdint.h>
#include <string.h>

static int get(PyObject *obj, Py_buffer *view, bool writable) {
  return PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0));
}

/* Values of 4, 8 or 16 bytes (float32, float64 or complex64, complex128)
 * moved as such: a fixed-size copy the compiler makes one or two moves. */
typedef struct {
  uint64_t half[2];
} pair16;
#define TSPY_SCATTER(TYPE)                                                                                             \
  for (Py_ssize_t j = 0; j < cols; j++)                                                                                \
    for (int64_t k = tspy_index_at(indptr, j), end = tspy_index_at(indptr, j + 1); k < end; k++) {                     \
      const int64_t dest = ptr[tspy_index_at(indices, k)]++;                                                           \
      out_cols[dest] = (int32_t)j;                                                                                     \
      ((TYPE *)out_data->buf)[dest] = ((const TYPE *)data->buf)[k];                                                    \
    }

/* csc_to_csr(indptr, indices, data, rows, out_indptr, out_indices, out_data):
 * indptr (cols + 1) and indices (nnz) int32 or int64, data nnz values of
 * any one size; out_indptr int64 (rows + 1), out_indices int32 (nnz),
 * out_data as data. */
PyObject *tspy_csc_to_csr(PyObject *module, PyObject *args) {
  (void)module;
  PyObject *objects[6];
  long long rows;
  if (!PyArg_ParseTuple(args, "OOOLOOO", &objects[0], &objects[1], &objects[2], &rows, &objects[3], &objects[4],
                        &objects[5]))
    return NULL;
  Py_buffer views[6];
  int held = 0;
  PyObject *result = NULL;
  for (; held < 6; held++)
    if (get(objects[held], &views[held], held >= 3) < 0)
      goto done;
  const Py_buffer *indptr = &views[0], *indices = &views[1], *data = &views[2];
  Py_buffer *out_indptr = &views[3], *out_indices = &views[4], *out_data = &views[5];
  const Py_ssize_t cols = indptr->len / indptr->itemsize - 1;
  const Py_ssize_t nnz = indices->len / (indices->itemsize > 0 ? indices->itemsize : 1);
  const Py_ssize_t size = data->itemsize;
  if (!tspy_index_buffer(indptr) || !tspy_index_buffer(indices) || cols < 0 || rows < 0 || out_indptr->itemsize != 8 ||
      out_indptr->len != (Py_ssize_t)((rows + 1) * 8) || out_indices->itemsize != 4 || out_indices->len != nnz * 4 ||
      data->len != nnz * size || out_data->itemsize != size || out_data->len != data->len ||
      (size != 4 && size != 8 && size != 16) || tspy_index_at(indptr, cols) != nnz) {
    PyErr_SetString(PyExc_ValueError, "csc_to_csr: arrays of the wrong kinds or lengths");
    goto done;
  }
  int64_t *ptr = out_indptr->buf;
  int32_t *out_cols = out_indices->buf;
  /* The caller's checks again, cheaply, so that no call of this function
   * can index outside the arrays: offsets from 0 to nnz, never decreasing,
   * and row indices within rows. */
  for (Py_ssize_t j = 0; j < cols; j++)
    if (tspy_index_at(indptr, j) > tspy_index_at(indptr, j + 1) || (j == 0 && tspy_index_at(indptr, 0) != 0)) {
      PyErr_SetString(PyExc_ValueError, "csc_to_csr: offsets that do not rise from 0");
      goto done;
    }
  memset(ptr, 0, (size_t)(rows + 1) * sizeof *ptr);
  for (Py_ssize_t k = 0; k < nnz; k++) {
    const int64_t row = tspy_index_at(indices, k);
    if (row < 0 || row >= rows) {
      PyErr_Format(PyExc_ValueError, "csc_to_csr: row index %lld outside [0, %lld)", (long long)row, rows);
      goto done;
    }
    ptr[row + 1]++;
  }
  for (long long i = 0; i < rows; i++)
    ptr[i + 1] += ptr[i];
  /* ptr[i] is row i's cursor during the scatter, then row i + 1's start. */
  if (size == 4) {
    TSPY_SCATTER(float)
  } else if (size == 8) {
    TSPY_SCATTER(double)
  } else {
    TSPY_SCATTER(pair16)
  }
  for (long long i = rows; i > 0; i--)
    ptr[i] = ptr[i - 1];
  ptr[0] = 0;
  result = Py_None;
  Py_INCREF(result);
done:
  for (int i = 0; i < held; i++)
    PyBuffer_Release(&views[i]);
  return result;
}
