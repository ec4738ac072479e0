/* LU(context, options...): a ts_lu. factor() analyzes and factors a CSR
 * matrix (real or complex values), refactor() factors new values of the same
 * pattern, solve() solves with column-major right-hand sides in double
 * ((real, imaginary) pairs for a complex matrix), stats() returns the
 * statistics as a dict, condest(), rcond() and rgrowth() the estimates,
 * extract() the factors. Every call holds the context's lock with the GIL
 * released. */
#include "tessera_python.h"

#include <stdio.h>

typedef struct tspy_lu {
  PyObject_HEAD tspy_context *context;
  ts_lu *lu;
  int64_t n;
  bool analyzed; /* an analysis succeeded: refactor() may follow, even after a failed factorization */
  bool factored;
  bool complex_values; /* the analyzed matrix's values are complex */
} tspy_lu;

/* The ordering an analysis used, by the Python names (linalg.py's _ORDERINGS). */
static const char *tspy_ordering_name(ts_lu_ordering ordering) {
  switch (ordering) {
  case TS_LU_ORDER_AMD:
    return "amd";
  case TS_LU_ORDER_COLAMD:
    return "colamd";
  case TS_LU_ORDER_NATURAL:
    return "natural";
  case TS_LU_ORDER_NESTED_DISSECTION:
    return "nd";
  default:
    return "none";
  }
}

static PyObject *lu_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"context",
                             "ordering",
                             "no_matching",
                             "no_perturbation",
                             "pivot_threshold",
                             "float_factors",
                             "refine_max_steps",
                             "refine_tolerance",
                             "backend",
                             "amd_dense",
                             "refresh_pivots",
                             "pivoting",
                             NULL};
  tspy_context *context = NULL;
  ts_lu_options options = {0};
  int ordering = TS_LU_ORDER_AUTO, backend = TS_BACKEND_AUTO, pivoting = TS_LU_PIVOTING_AUTO;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|iiidiididii", keywords, tspy_context_converter, &context,
                                   &ordering, &options.no_matching, &options.no_perturbation, &options.pivot_threshold,
                                   &options.float_factors, &options.refine_max_steps, &options.refine_tolerance,
                                   &backend, &options.amd_dense, &options.refresh_pivots, &pivoting))
    return NULL;
  options.ordering = (ts_lu_ordering)ordering;
  options.pivoting = (ts_lu_pivoting)pivoting;
  options.backend = (ts_backend)backend;
  tspy_lu *self = (tspy_lu *)tspy_object_new(type, context);
  if (!self)
    return NULL;
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = ts_lu_create(context->ctx, &options, &self->lu);
  return tspy_object_made((PyObject *)self, &call, status);
}

static void lu_release(PyObject *self) { ts_lu_destroy(((tspy_lu *)self)->lu); }
static void lu_dealloc(PyObject *self) { tspy_object_dealloc(self, lu_release); }

/* factor(row_ptr, col_idx, values, n, dtype, analyze) and refactor: returns
 * the status (0, or 100 when tiny pivots were perturbed). */
static PyObject *lu_numeric(tspy_lu *self, PyObject *args, bool refactor) {
  PyObject *row_ptr, *col_idx, *values;
  long long n;
  int dtype, analyze = 0;
  if (!PyArg_ParseTuple(args, refactor ? "OOOLi" : "OOOLip", &row_ptr, &col_idx, &values, &n, &dtype, &analyze))
    return NULL;
  if (refactor && !self->analyzed) {
    return tspy_raise(TS_ERROR_NOT_ANALYZED, "refactor: the object holds no analysis to refactor with");
  }
  tspy_csr_view view;
  if (tspy_csr_view_get(row_ptr, col_idx, values, n, n, dtype, &view) < 0)
    return NULL;
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = TS_SUCCESS;
  if (analyze) {
    status = ts_lu_analyze(self->lu, &view.csr);
    self->analyzed = !TS_IS_ERROR(status);
    if (self->analyzed) {
      self->n = n;
      self->complex_values = TS_DTYPE_IS_COMPLEX(view.csr.dtype);
    }
  }
  if (!TS_IS_ERROR(status))
    status = refactor ? ts_lu_refactor(self->lu, &view.csr) : ts_lu_factor(self->lu, &view.csr);
  int interrupted = tspy_call_end(&call);
  tspy_csr_view_release(&view);
  /* A failed factorization keeps the analysis (the library's ts_lu_refactor
   * needs only that): the next refactor() may bring values that factor. A
   * matrix the refactorization refused before its numeric phase (another
   * pattern or size: TS_ERROR_INVALID_ARGUMENT) left the factors as they
   * were (lu.h). */
  const bool refused = refactor && !interrupted && status == TS_ERROR_INVALID_ARGUMENT;
  if (!refused)
    self->factored = !TS_IS_ERROR(status) && !interrupted;
  if (interrupted || TS_IS_ERROR(status))
    return tspy_raise_status(self->context, status);
  return PyLong_FromLong((long)status);
}

static PyObject *lu_factor(tspy_lu *self, PyObject *args) { return lu_numeric(self, args, false); }
static PyObject *lu_refactor(tspy_lu *self, PyObject *args) { return lu_numeric(self, args, true); }

/* solve(b, x, nrhs, op): b and x hold n * nrhs doubles (complex: n * nrhs
 * (real, imaginary) pairs), column-major; op 0 A, 1 A^T, 2 A^H. */
static PyObject *lu_solve(tspy_lu *self, PyObject *args) {
  PyObject *b_obj, *x_obj;
  long long nrhs;
  int op;
  if (!PyArg_ParseTuple(args, "OOLi", &b_obj, &x_obj, &nrhs, &op))
    return NULL;
  if (op != TS_OP_NONE && op != TS_OP_TRANSPOSE && op != TS_OP_CONJ_TRANSPOSE) {
    PyErr_Format(PyExc_ValueError, "solve: operation %d (0 A, 1 A^T, 2 A^H)", op);
    return NULL;
  }
  if (!self->factored) {
    return tspy_raise(TS_ERROR_NOT_FACTORED, "solve: no factorization (the last one failed)");
  }
  const size_t entry = self->complex_values ? 2 * sizeof(double) : sizeof(double);
  if (nrhs < 0 || (self->n > 0 && (uint64_t)nrhs > (uint64_t)PY_SSIZE_T_MAX / entry / (uint64_t)self->n)) {
    PyErr_Format(PyExc_ValueError, "solve: %lld right-hand sides", nrhs);
    return NULL;
  }
  const size_t bytes = (size_t)self->n * (size_t)nrhs * entry;
  tspy_operand b, x;
  if (tspy_operand_get(self->context, b_obj, bytes, false, "right-hand side", &b) < 0)
    return NULL;
  if (tspy_operand_get(self->context, x_obj, bytes, true, "solution", &x) < 0) {
    tspy_operand_release(&b);
    return NULL;
  }
  if (b.on_device || x.on_device) {
    tspy_operand_release(&b);
    tspy_operand_release(&x);
    PyErr_SetString(PyExc_ValueError, "solve: right-hand sides and solutions are host memory");
    return NULL;
  }
  const int64_t ld = self->n > 0 ? self->n : 1;
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = ts_lu_solve(self->lu, (ts_operation)op, nrhs, (const double *)b.data, ld, (double *)x.data, ld);
  int interrupted = tspy_call_end(&call);
  tspy_operand_release(&b);
  tspy_operand_release(&x);
  if (interrupted || status != TS_SUCCESS)
    return tspy_raise_status(self->context, status);
  Py_RETURN_NONE;
}

static PyObject *lu_stats(tspy_lu *self, PyObject *unused) {
  (void)unused;
  ts_lu_stats s;
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = ts_lu_get_stats(self->lu, &s);
  if (tspy_call_end(&call) < 0 || status != TS_SUCCESS)
    return tspy_raise_status(self->context, status);
  PyObject *stats = Py_BuildValue(
      "{s:L,s:L,s:L,s:L,s:d,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:i,s:O}", "n", (long long)s.n,
      "nnz_a", (long long)s.nnz_a, "nnz_l", (long long)s.nnz_l, "nnz_u", (long long)s.nnz_u, "flops", s.flops, "levels",
      (long long)s.levels, "max_level_size", (long long)s.max_level_size, "symbolic_chunks",
      (long long)s.symbolic_chunks, "structural_rank", (long long)s.structural_rank, "perturbed_pivots",
      (long long)s.perturbed_pivots, "singular_column", (long long)s.singular_column, "peak_device_bytes",
      (long long)s.peak_device_bytes, "time_matching", s.time_matching, "time_ordering", s.time_ordering,
      "time_symbolic", s.time_symbolic, "time_levelize", s.time_levelize, "time_factor", s.time_factor, "time_solve",
      s.time_solve, "backward_error", s.backward_error, "refinement_steps", s.refinement_steps, "partial_pivoting",
      s.partial_pivoting ? Py_True : Py_False);
  if (!stats)
    return NULL;
  /* The pivot check's measures, where the factorization ran, the estimates
   * (0 until computed) and the last solve's other error measures. */
  PyObject *more = Py_BuildValue(
      "{s:d,s:d,s:O,s:s,s:i,s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:s,s:s}", "max_multiplier", s.max_multiplier,
      "pivot_growth", s.pivot_growth, "pivots_refreshed", s.pivots_refreshed ? Py_True : Py_False, "factor_backend",
      s.factor_backend == TS_BACKEND_CPU    ? "cpu"
      : s.factor_backend == TS_BACKEND_CUDA ? "cuda"
                                            : "none",
      "factor_threads", s.factor_threads, "condest", s.condest, "scaled_condest", s.scaled_condest, "rcond", s.rcond,
      "rgrowth", s.rgrowth, "scaled_backward_error", s.scaled_backward_error, "componentwise_backward_error",
      s.componentwise_backward_error, "residual_norm", s.residual_norm, "solution_norm", s.solution_norm, "pivoting",
      s.pivoting == TS_LU_PIVOTING_PARTIAL  ? "partial"
      : s.pivoting == TS_LU_PIVOTING_STATIC ? "static"
                                            : "none",
      "ordering", tspy_ordering_name(s.ordering));
  if (!more || PyDict_Update(stats, more) < 0) {
    Py_XDECREF(more);
    Py_DECREF(stats);
    return NULL;
  }
  Py_DECREF(more);
  return stats;
}

/* condest(), rcond(), rgrowth(): one estimate of the factored matrix. */
static PyObject *lu_estimate(tspy_lu *self, ts_status (*estimate)(ts_lu *, double *), const char *name) {
  if (!self->factored) {
    char message[96];
    snprintf(message, sizeof message, "%s: no factorization (the last one failed)", name);
    return tspy_raise(TS_ERROR_NOT_FACTORED, message);
  }
  double value = 0.0;
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = estimate(self->lu, &value);
  int interrupted = tspy_call_end(&call);
  if (interrupted || status != TS_SUCCESS)
    return tspy_raise_status(self->context, status);
  return PyFloat_FromDouble(value);
}

static PyObject *lu_condest(tspy_lu *self, PyObject *unused) {
  (void)unused;
  return lu_estimate(self, ts_lu_condest, "condest");
}
static PyObject *lu_rcond(tspy_lu *self, PyObject *unused) {
  (void)unused;
  return lu_estimate(self, ts_lu_rcond, "rcond");
}
static PyObject *lu_rgrowth(tspy_lu *self, PyObject *unused) {
  (void)unused;
  return lu_estimate(self, ts_lu_rgrowth, "rgrowth");
}

/* A copy of `count` items of `size` bytes as a bytes object (NumPy reads
 * it with frombuffer), or NULL with an exception. */
static PyObject *bytes_of(const void *data, int64_t count, size_t size) {
  return PyBytes_FromStringAndSize(count > 0 ? (const char *)data : "",
                                   (Py_ssize_t)(count > 0 ? count : 0) * (Py_ssize_t)size);
}

/* extract(): the factors of ts_lu_extract_csc as bytes: (L col_ptr int64,
 * L row_idx int32, L values float64 (complex128 for a complex matrix), the
 * same three of U, row_perm int32, col_perm int32, row_scale float64,
 * col_scale float64). */
static PyObject *lu_extract(tspy_lu *self, PyObject *unused) {
  (void)unused;
  if (!self->factored) {
    return tspy_raise(TS_ERROR_NOT_FACTORED, "extract: no factorization (the last one failed)");
  }
  const int64_t n = self->n;
  const size_t slots = (size_t)(n > 0 ? n : 1);
  int32_t *row_perm = PyMem_Malloc(slots * sizeof(int32_t)), *col_perm = PyMem_Malloc(slots * sizeof(int32_t));
  double *row_scale = PyMem_Malloc(slots * sizeof(double)), *col_scale = PyMem_Malloc(slots * sizeof(double));
  PyObject *result = NULL;
  ts_csc *l = NULL, *u = NULL;
  if (!row_perm || !col_perm || !row_scale || !col_scale) {
    PyErr_NoMemory();
    goto cleanup;
  }
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = ts_lu_extract_csc(self->lu, &l, &u, row_perm, col_perm, row_scale, col_scale);
  int interrupted = tspy_call_end(&call);
  if (interrupted || status != TS_SUCCESS) {
    tspy_raise_status(self->context, status);
    goto cleanup;
  }
  result = Py_BuildValue(
      "(NNNNNNNNNN)", bytes_of(l->col_ptr, n + 1, sizeof(int64_t)), bytes_of(l->row_idx, l->nnz, sizeof(int32_t)),
      bytes_of(l->values, l->nnz, ts_dtype_size(l->dtype)), bytes_of(u->col_ptr, n + 1, sizeof(int64_t)),
      bytes_of(u->row_idx, u->nnz, sizeof(int32_t)), bytes_of(u->values, u->nnz, ts_dtype_size(u->dtype)),
      bytes_of(row_perm, n, sizeof(int32_t)), bytes_of(col_perm, n, sizeof(int32_t)),
      bytes_of(row_scale, n, sizeof(double)), bytes_of(col_scale, n, sizeof(double)));
cleanup:
  ts_csc_destroy(l);
  ts_csc_destroy(u);
  PyMem_Free(row_perm);
  PyMem_Free(col_perm);
  PyMem_Free(row_scale);
  PyMem_Free(col_scale);
  return result;
}

static PyMethodDef lu_methods[] = {
    {"factor", (PyCFunction)lu_factor, METH_VARARGS,
     "factor(row_ptr, col_idx, values, n, dtype, analyze): (analyze and) factor; returns the status."},
    {"refactor", (PyCFunction)lu_refactor, METH_VARARGS,
     "refactor(row_ptr, col_idx, values, n, dtype): factor new values of the analyzed pattern."},
    {"solve", (PyCFunction)lu_solve, METH_VARARGS,
     "solve(b, x, nrhs, op): x = op(A)^-1 b (op 0 A, 1 A^T, 2 A^H), column-major doubles or complex pairs."},
    {"stats", (PyCFunction)lu_stats, METH_NOARGS, "The statistics, as a dict."},
    {"condest", (PyCFunction)lu_condest, METH_NOARGS, "condest(): the 1-norm condition estimate (ts_lu_condest)."},
    {"rcond", (PyCFunction)lu_rcond, METH_NOARGS, "rcond(): min |u_kk| / max |u_kk| (ts_lu_rcond)."},
    {"rgrowth", (PyCFunction)lu_rgrowth, METH_NOARGS, "rgrowth(): the reciprocal pivot growth (ts_lu_rgrowth)."},
    {"extract", (PyCFunction)lu_extract, METH_NOARGS,
     "extract(): L and U (CSC) with the permutations and the scaling, as bytes (ts_lu_extract_csc)."},
    {NULL, NULL, 0, NULL}};

PyTypeObject tspy_lu_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera._core.LU",
    .tp_basicsize = sizeof(tspy_lu),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "LU(context, ...): a tessera sparse LU factorization.",
    .tp_new = lu_new,
    .tp_dealloc = lu_dealloc,
    .tp_methods = lu_methods,
};
