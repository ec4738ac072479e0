/* Sparse matrices between NumPy and the library: a ts_csr over three arrays
 * the caller holds (no copy), and Matrix, which owns a ts_coo, ts_csr or
 * ts_csc that tessera allocated (a file read, a generator, a factor) and
 * lends its arrays to NumPy as buffers (Block), so that SciPy matrices are
 * built over tessera's memory without a copy; the last array to go frees it. */
#include "tessera_python.h"

int tspy_dtype_check(int dtype) {
  if (dtype != TS_FLOAT32 && dtype != TS_FLOAT64) {
    PyErr_Format(PyExc_ValueError, "unknown value type code %d (0 float32, 1 float64)", dtype);
    return -1;
  }
  return 0;
}

static int get_array(PyObject *obj, Py_ssize_t bytes, const char *what, Py_buffer *view) {
  if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0)
    return -1;
  if (view->len != bytes) {
    PyErr_Format(PyExc_ValueError, "%s: %zd bytes given, %zd expected", what, view->len, bytes);
    PyBuffer_Release(view);
    return -1;
  }
  return 0;
}

int tspy_csr_view_get(PyObject *row_ptr, PyObject *col_idx, PyObject *values, int64_t rows, int64_t cols, int dtype,
                      tspy_csr_view *view) {
  memset(view, 0, sizeof *view);
  /* Complex values too: the library refuses them where it has no complex path. */
  if (dtype != TS_COMPLEX64 && dtype != TS_COMPLEX128 && tspy_dtype_check(dtype) < 0)
    return -1;
  if (rows < 0 || cols < 0 || rows > TS_MAX_DIMENSION || cols > TS_MAX_DIMENSION) {
    PyErr_Format(PyExc_OverflowError, "a %lld x %lld matrix: dimensions are 0 to %d", (long long)rows, (long long)cols,
                 TS_MAX_DIMENSION);
    return -1;
  }
  if (get_array(row_ptr, (Py_ssize_t)((rows + 1) * (int64_t)sizeof(int64_t)), "row offsets", &view->views[0]) < 0)
    return -1;
  view->held = 1;
  const int64_t nnz = ((const int64_t *)view->views[0].buf)[rows];
  const size_t value_size = ts_dtype_size((ts_dtype)dtype);
  if (nnz < 0 || (uint64_t)nnz > (uint64_t)PY_SSIZE_T_MAX / 8) {
    PyErr_Format(PyExc_ValueError, "row offsets end at %lld", (long long)nnz);
    tspy_csr_view_release(view);
    return -1;
  }
  if (get_array(col_idx, (Py_ssize_t)(nnz * (int64_t)sizeof(int32_t)), "column indices", &view->views[1]) < 0) {
    tspy_csr_view_release(view);
    return -1;
  }
  view->held = 2;
  if (get_array(values, (Py_ssize_t)(nnz * (int64_t)value_size), "values", &view->views[2]) < 0) {
    tspy_csr_view_release(view);
    return -1;
  }
  view->held = 3;
  view->csr.rows = rows;
  view->csr.cols = cols;
  view->csr.nnz = nnz;
  view->csr.row_ptr = view->views[0].buf;
  view->csr.col_idx = view->views[1].buf;
  view->csr.values = view->views[2].buf;
  view->csr.dtype = (ts_dtype)dtype;
  view->csr.symmetry = TS_GENERAL;
  return 0;
}

void tspy_csr_view_release(tspy_csr_view *view) {
  for (int i = 0; i < view->held; i++)
    PyBuffer_Release(&view->views[i]);
  view->held = 0;
}

/* ---- Block: one array of a Matrix, as a writable byte buffer ---------------- */

typedef struct block {
  PyObject_HEAD PyObject *owner;
  void *data;
  Py_ssize_t bytes;
} block;

static int block_getbuffer(block *self, Py_buffer *view, int flags) {
  return PyBuffer_FillInfo(view, (PyObject *)self, self->data, self->bytes, 0, flags);
}

static void block_dealloc(block *self) {
  Py_XDECREF(self->owner);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyBufferProcs block_as_buffer = {(getbufferproc)block_getbuffer, NULL};

PyTypeObject tspy_block_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera._core.Block",
    .tp_basicsize = sizeof(block),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Bytes of one array of a matrix that tessera allocated (read by numpy.frombuffer).",
    .tp_dealloc = (destructor)block_dealloc,
    .tp_as_buffer = &block_as_buffer,
};

static PyObject *block_new(PyObject *owner, void *data, int64_t bytes) {
  block *self = PyObject_New(block, &tspy_block_type);
  if (!self)
    return NULL;
  Py_INCREF(owner);
  self->owner = owner;
  self->data = data;
  self->bytes = (Py_ssize_t)bytes;
  return (PyObject *)self;
}

/* ---- Matrix --------------------------------------------------------------- */

enum matrix_kind { MATRIX_COO, MATRIX_CSR, MATRIX_CSC };

typedef struct matrix {
  PyObject_HEAD enum matrix_kind kind;
  ts_coo *coo;
  ts_csr *csr;
  ts_csc *csc;
} matrix;

static PyObject *matrix_alloc(enum matrix_kind kind) {
  matrix *self = PyObject_New(matrix, &tspy_matrix_type);
  if (!self)
    return NULL;
  self->kind = kind;
  self->coo = NULL;
  self->csr = NULL;
  self->csc = NULL;
  return (PyObject *)self;
}

PyObject *tspy_matrix_from_coo(ts_coo *coo) {
  matrix *self = (matrix *)matrix_alloc(MATRIX_COO);
  if (!self) {
    ts_coo_destroy(coo);
    return NULL;
  }
  self->coo = coo;
  return (PyObject *)self;
}

PyObject *tspy_matrix_from_csr(ts_csr *csr) {
  matrix *self = (matrix *)matrix_alloc(MATRIX_CSR);
  if (!self) {
    ts_csr_destroy(csr);
    return NULL;
  }
  self->csr = csr;
  return (PyObject *)self;
}

PyObject *tspy_matrix_from_csc(ts_csc *csc) {
  matrix *self = (matrix *)matrix_alloc(MATRIX_CSC);
  if (!self) {
    ts_csc_destroy(csc);
    return NULL;
  }
  self->csc = csc;
  return (PyObject *)self;
}

static void matrix_dealloc(matrix *self) {
  ts_coo_destroy(self->coo);
  ts_csr_destroy(self->csr);
  ts_csc_destroy(self->csc);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* rows, cols, nnz, dtype, symmetry and format of the matrix held. */
static PyObject *matrix_describe(matrix *self, PyObject *unused) {
  (void)unused;
  int64_t rows, cols, nnz;
  ts_dtype dtype;
  ts_symmetry symmetry;
  const char *format;
  if (self->kind == MATRIX_COO) {
    rows = self->coo->rows, cols = self->coo->cols, nnz = self->coo->nnz;
    dtype = self->coo->dtype, symmetry = self->coo->symmetry, format = "coo";
  } else if (self->kind == MATRIX_CSR) {
    rows = self->csr->rows, cols = self->csr->cols, nnz = self->csr->nnz;
    dtype = self->csr->dtype, symmetry = self->csr->symmetry, format = "csr";
  } else {
    rows = self->csc->rows, cols = self->csc->cols, nnz = self->csc->nnz;
    dtype = self->csc->dtype, symmetry = self->csc->symmetry, format = "csc";
  }
  return Py_BuildValue("{s:L,s:L,s:L,s:i,s:s,s:s}", "rows", (long long)rows, "cols", (long long)cols, "nnz",
                       (long long)nnz, "dtype", (int)dtype, "symmetry", ts_symmetry_name(symmetry), "format", format);
}

/* The three arrays as Blocks: (row_idx, col_idx, values) for COO,
 * (row_ptr, col_idx, values) for CSR, (col_ptr, row_idx, values) for CSC. */
static PyObject *matrix_arrays(matrix *self, PyObject *unused) {
  (void)unused;
  void *first, *second, *values;
  int64_t first_bytes, nnz;
  ts_dtype dtype;
  if (self->kind == MATRIX_COO) {
    nnz = self->coo->nnz, dtype = self->coo->dtype;
    first = self->coo->row_idx, first_bytes = nnz * (int64_t)sizeof(int32_t);
    second = self->coo->col_idx, values = self->coo->values;
  } else if (self->kind == MATRIX_CSR) {
    nnz = self->csr->nnz, dtype = self->csr->dtype;
    first = self->csr->row_ptr, first_bytes = (self->csr->rows + 1) * (int64_t)sizeof(int64_t);
    second = self->csr->col_idx, values = self->csr->values;
  } else {
    nnz = self->csc->nnz, dtype = self->csc->dtype;
    first = self->csc->col_ptr, first_bytes = (self->csc->cols + 1) * (int64_t)sizeof(int64_t);
    second = self->csc->row_idx, values = self->csc->values;
  }
  PyObject *owner = (PyObject *)self;
  PyObject *a = block_new(owner, first, first_bytes);
  PyObject *b = block_new(owner, second, nnz * (int64_t)sizeof(int32_t));
  PyObject *c = block_new(owner, values, nnz * (int64_t)ts_dtype_size(dtype));
  PyObject *result = a && b && c ? PyTuple_Pack(3, a, b, c) : NULL;
  Py_XDECREF(a);
  Py_XDECREF(b);
  Py_XDECREF(c);
  return result;
}

static PyMethodDef matrix_methods[] = {
    {"describe", (PyCFunction)matrix_describe, METH_NOARGS, "Sizes, value type, symmetry and format, as a dict."},
    {"arrays", (PyCFunction)matrix_arrays, METH_NOARGS, "The three arrays as buffers (no copy)."},
    {NULL, NULL, 0, NULL}};

PyTypeObject tspy_matrix_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera._core.Matrix",
    .tp_basicsize = sizeof(matrix),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A sparse matrix that tessera allocated; its arrays are lent to NumPy.",
    .tp_dealloc = (destructor)matrix_dealloc,
    .tp_methods = matrix_methods,
};
