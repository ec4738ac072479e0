/* Matrix Market files: mm_read (a COO Matrix and the header's description,
 * symmetric storage expanded on request), mm_read_info (the header only) and
 * mm_write (a COO given as three arrays). The header's format and field are
 * given as the library's codes (ts_mm_format, ts_mm_field). */
#include "tessera_python.h"

static PyObject *info_dict(const ts_mm_info *info) {
  return Py_BuildValue("{s:i,s:i,s:s,s:L,s:L,s:L}", "format", (int)info->format, "field", (int)info->field, "symmetry",
                       ts_symmetry_name(info->symmetry), "rows", (long long)info->rows, "cols", (long long)info->cols,
                       "entries", (long long)info->entries);
}

/* mm_read(context, path, dtype, expand_symmetric) -> (Matrix, info). */
PyObject *tspy_mm_read(PyObject *module, PyObject *args) {
  (void)module;
  tspy_context *context;
  PyObject *path;
  int dtype, expand;
  if (!PyArg_ParseTuple(args, "O&O&ip", tspy_context_converter, &context, PyUnicode_FSConverter, &path, &dtype,
                        &expand))
    return NULL;
  if (tspy_dtype_check(dtype) < 0) {
    Py_DECREF(path);
    return NULL;
  }
  ts_coo *coo = NULL;
  ts_mm_info info;
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = ts_mm_read(context->ctx, PyBytes_AS_STRING(path), (ts_dtype)dtype, &coo, &info);
  if (status == TS_SUCCESS && expand && coo->symmetry != TS_GENERAL) {
    ts_coo *general = NULL;
    status = ts_coo_expand_symmetric(context->ctx, coo, &general);
    ts_coo_destroy(coo);
    coo = general;
  }
  int interrupted = tspy_call_end(&call);
  Py_DECREF(path);
  if (interrupted || status != TS_SUCCESS) {
    ts_coo_destroy(coo);
    return tspy_raise_status(context, status);
  }
  PyObject *matrix = tspy_matrix_from_coo(coo);
  if (!matrix)
    return NULL;
  PyObject *description = info_dict(&info);
  if (!description) {
    Py_DECREF(matrix);
    return NULL;
  }
  return Py_BuildValue("(NN)", matrix, description);
}

/* mm_read_info(context, path) -> info. */
PyObject *tspy_mm_read_info(PyObject *module, PyObject *args) {
  (void)module;
  tspy_context *context;
  PyObject *path;
  if (!PyArg_ParseTuple(args, "O&O&", tspy_context_converter, &context, PyUnicode_FSConverter, &path))
    return NULL;
  ts_mm_info info;
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = ts_mm_read_info(context->ctx, PyBytes_AS_STRING(path), &info);
  int interrupted = tspy_call_end(&call);
  Py_DECREF(path);
  if (interrupted || status != TS_SUCCESS)
    return tspy_raise_status(context, status);
  return info_dict(&info);
}

static int get_exact(PyObject *obj, Py_ssize_t bytes, const char *what, Py_buffer *view) {
  if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0)
    return -1;
  if (view->len != bytes) {
    PyErr_Format(PyExc_ValueError, "mm_write: %s: %zd bytes given, %zd expected", what, view->len, bytes);
    PyBuffer_Release(view);
    return -1;
  }
  return 0;
}

/* mm_write(context, path, rows, cols, row_idx, col_idx, values, dtype,
 * symmetry, field, precision): row_idx and col_idx int32, values of dtype. */
PyObject *tspy_mm_write(PyObject *module, PyObject *args) {
  (void)module;
  tspy_context *context;
  PyObject *path, *row_obj, *col_obj, *value_obj;
  long long rows, cols, nnz;
  int dtype, symmetry, field, precision;
  if (!PyArg_ParseTuple(args, "O&O&LLLOOOiiii", tspy_context_converter, &context, PyUnicode_FSConverter, &path, &rows,
                        &cols, &nnz, &row_obj, &col_obj, &value_obj, &dtype, &symmetry, &field, &precision))
    return NULL;
  Py_buffer views[3];
  int held = 0;
  PyObject *result = NULL;
  if (tspy_dtype_check(dtype) < 0)
    goto done;
  if (nnz < 0 || (uint64_t)nnz > (uint64_t)PY_SSIZE_T_MAX / 8) {
    PyErr_Format(PyExc_ValueError, "mm_write: %lld entries", nnz);
    goto done;
  }
  if (get_exact(row_obj, (Py_ssize_t)nnz * 4, "row indices", &views[held]) < 0)
    goto done;
  held++;
  if (get_exact(col_obj, (Py_ssize_t)nnz * 4, "column indices", &views[held]) < 0)
    goto done;
  held++;
  if (get_exact(value_obj, (Py_ssize_t)(nnz * (long long)ts_dtype_size((ts_dtype)dtype)), "values", &views[held]) < 0)
    goto done;
  held++;
  ts_coo coo = {0};
  coo.rows = rows;
  coo.cols = cols;
  coo.nnz = nnz;
  coo.capacity = nnz;
  coo.row_idx = views[0].buf;
  coo.col_idx = views[1].buf;
  coo.values = views[2].buf;
  coo.dtype = (ts_dtype)dtype;
  coo.symmetry = (ts_symmetry)symmetry;
  ts_mm_write_options options = {0};
  options.field = (ts_mm_field)field;
  options.precision = precision;
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = ts_mm_write_coo(context->ctx, PyBytes_AS_STRING(path), &coo, &options);
  int interrupted = tspy_call_end(&call);
  if (interrupted || status != TS_SUCCESS) {
    tspy_raise_status(context, status);
    goto done;
  }
  result = Py_None;
  Py_INCREF(result);
done:
  for (int i = 0; i < held; i++)
    PyBuffer_Release(&views[i]);
  Py_DECREF(path);
  return result;
}
