/* The module tessera._core: its types and functions, the library's version,
 * and the names of the schedules and search algorithms by their codes. */
#include "tessera_python.h"

static PyObject *module_set_errors(PyObject *module, PyObject *errors) { return tspy_set_errors(module, errors); }

static PyObject *module_status_string(PyObject *module, PyObject *arg) {
  (void)module;
  long status = PyLong_AsLong(arg);
  if (status == -1 && PyErr_Occurred())
    return NULL;
  return PyUnicode_FromString(ts_status_string((ts_status)status));
}

/* Names indexed by code, from the library's own name functions. */
static PyObject *schedule_names(void) {
  PyObject *names = PyTuple_New(TS_SCHEDULE_COUNT);
  for (int i = 0; names && i < TS_SCHEDULE_COUNT; i++)
    PyTuple_SET_ITEM(names, i, PyUnicode_FromString(ts_schedule_name((ts_schedule)i)));
  return names;
}

static PyObject *search_algorithm_names(void) {
  PyObject *names = PyTuple_New(TS_SEARCH_ALGORITHM_COUNT);
  for (int i = 0; names && i < TS_SEARCH_ALGORITHM_COUNT; i++)
    PyTuple_SET_ITEM(names, i, PyUnicode_FromString(ts_search_algorithm_name((ts_search_algorithm)i)));
  return names;
}

static PyMethodDef module_functions[] = {
    {"_set_errors", module_set_errors, METH_O, "Register the exception class of each status (a dict)."},
    {"status_string", module_status_string, METH_O, "The library's short text for a status."},
    {"sort", tspy_sort, METH_VARARGS,
     "sort(context, key_type, with_index, descending, rows, n, keys, index): stable sort in place."},
    {"mm_read", tspy_mm_read, METH_VARARGS, "mm_read(context, path, dtype, expand_symmetric) -> (Matrix, info)."},
    {"mm_read_info", tspy_mm_read_info, METH_VARARGS, "mm_read_info(context, path) -> info."},
    {"mm_write", tspy_mm_write, METH_VARARGS,
     "mm_write(context, path, rows, cols, nnz, row_idx, col_idx, values, dtype, symmetry, field, precision)."},
    {"generate", tspy_generate, METH_VARARGS, "generate(context, kind, dtype, args, overrides) -> Matrix (CSR)."},
    {"spgemm", tspy_spgemm, METH_VARARGS,
     "spgemm(context, A arrays, rows, cols, B arrays, rows, cols, dtype, memory_budget) -> (Matrix, info)."},
    {"offsets_fault", tspy_offsets_fault, METH_VARARGS,
     "offsets_fault(indptr, limit) -> None, or (kind, position) of the first fault: 0 indptr[0] != 0, "
     "1 a decrease after position, 2 the end past limit."},
    {"csc_to_csr", tspy_csc_to_csr, METH_VARARGS,
     "csc_to_csr(indptr, indices, data, rows, out_indptr, out_indices, out_data): a checked CSC as CSR arrays."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_definition = {PyModuleDef_HEAD_INIT,
                                               "tessera._core",
                                               "The C extension behind the tessera package.",
                                               -1,
                                               module_functions,
                                               NULL,
                                               NULL,
                                               NULL,
                                               NULL};

static int add_type(PyObject *module, PyTypeObject *type, const char *name) {
  if (PyType_Ready(type) < 0)
    return -1;
  Py_INCREF(type);
  if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  return 0;
}

PyMODINIT_FUNC PyInit__core(void) {
  PyObject *module = PyModule_Create(&module_definition);
  if (!module)
    return NULL;
#ifdef TESSERA_PYTHON_HAVE_CUDA
  const int with_cuda = 1;
#else
  const int with_cuda = 0;
#endif
  if (add_type(module, &tspy_context_type, "Context") < 0 || add_type(module, &tspy_matrix_type, "Matrix") < 0 ||
      add_type(module, &tspy_block_type, "Block") < 0 || add_type(module, &tspy_lu_type, "LU") < 0 ||
      add_type(module, &tspy_lu_batch_type, "LUBatch") < 0 || add_type(module, &tspy_spmv_type, "SpMV") < 0 ||
      add_type(module, &tspy_search_type, "SearchPlan") < 0 || add_type(module, &tspy_graph_type, "GraphPlan") < 0 ||
      add_type(module, &tspy_spmm_type, "SpMM") < 0 || PyModule_AddIntConstant(module, "version", ts_version()) < 0 ||
      PyModule_AddIntConstant(module, "built_with_cuda", with_cuda) < 0 ||
      PyModule_AddObject(module, "schedule_names", schedule_names()) < 0 ||
      PyModule_AddObject(module, "search_algorithm_names", search_algorithm_names()) < 0) {
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
