/* LUBatch(context, patterns, counts, options...): a ts_lu_batch. patterns is
 * a sequence of (row_ptr, col_idx, values, n, dtype) CSR matrices, counts
 * the members of each; factor() takes every member's values (float64,
 * member after member), solve() the right-hand sides and solutions
 * (float64, member after member), member(m) one member's record, stats()
 * the totals. Every call holds the context's lock with the GIL released. */
#include "tessera_python.h"

typedef struct tspy_lu_batch {
  PyObject_HEAD tspy_context *context;
  ts_lu_batch *batch;
  int64_t values; /* doubles of the value array */
  int64_t rows;   /* doubles of the right-hand side and solution arrays */
  int64_t members;
} tspy_lu_batch;

static void batch_release(PyObject *self) { ts_lu_batch_destroy(((tspy_lu_batch *)self)->batch); }
static void batch_dealloc(PyObject *self) { tspy_object_dealloc(self, batch_release); }

/* The CSR views of the patterns, released by release_views. */
static void release_views(tspy_csr_view *views, Py_ssize_t count) {
  for (Py_ssize_t i = 0; i < count; i++)
    tspy_csr_view_release(&views[i]);
}

static int get_pattern(PyObject *item, tspy_csr_view *view) {
  PyObject *row_ptr, *col_idx, *values;
  long long n;
  int dtype;
  if (!PyArg_ParseTuple(item, "OOOLi", &row_ptr, &col_idx, &values, &n, &dtype))
    return -1;
  if (TS_DTYPE_IS_COMPLEX(dtype)) {
    PyErr_SetString(PyExc_TypeError, "LU batches take real values (float32 or float64)");
    return -1;
  }
  return tspy_csr_view_get(row_ptr, col_idx, values, n, n, dtype, view);
}

static PyObject *batch_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"context",
                             "patterns",
                             "counts",
                             "ordering",
                             "no_matching",
                             "no_perturbation",
                             "pivot_threshold",
                             "float_factors",
                             "refine_max_steps",
                             "refine_tolerance",
                             "backend",
                             "amd_dense",
                             NULL};
  tspy_context *context = NULL;
  PyObject *patterns_obj, *counts_obj;
  ts_lu_options options = {0};
  int ordering = TS_LU_ORDER_AUTO, backend = TS_BACKEND_AUTO;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O!O!|iiidiidid", keywords, tspy_context_converter, &context,
                                   &PyTuple_Type, &patterns_obj, &PyTuple_Type, &counts_obj, &ordering,
                                   &options.no_matching, &options.no_perturbation, &options.pivot_threshold,
                                   &options.float_factors, &options.refine_max_steps, &options.refine_tolerance,
                                   &backend, &options.amd_dense))
    return NULL;
  options.ordering = (ts_lu_ordering)ordering;
  options.backend = (ts_backend)backend;
  const Py_ssize_t patterns = PyTuple_GET_SIZE(patterns_obj);
  if (patterns < 1 || PyTuple_GET_SIZE(counts_obj) != patterns) {
    PyErr_Format(PyExc_ValueError, "LUBatch: %zd patterns and %zd counts (at least one pattern, a count each)",
                 patterns, PyTuple_GET_SIZE(counts_obj));
    return NULL;
  }
  tspy_csr_view *views = PyMem_Calloc((size_t)patterns, sizeof *views);
  const ts_csr **matrices = PyMem_Calloc((size_t)patterns, sizeof *matrices);
  int64_t *counts = PyMem_Calloc((size_t)patterns, sizeof *counts);
  Py_ssize_t held = 0;
  PyObject *result = NULL;
  if (!views || !matrices || !counts) {
    PyErr_NoMemory();
    goto cleanup;
  }
  for (; held < patterns; held++) {
    counts[held] = PyLong_AsLongLong(PyTuple_GET_ITEM(counts_obj, held));
    if (counts[held] == -1 && PyErr_Occurred())
      goto cleanup;
    if (get_pattern(PyTuple_GET_ITEM(patterns_obj, held), &views[held]) < 0)
      goto cleanup;
    matrices[held] = &views[held].csr;
  }
  tspy_lu_batch *self = (tspy_lu_batch *)tspy_object_new(type, context);
  if (!self)
    goto cleanup;
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = ts_lu_batch_create(context->ctx, &options, patterns, matrices, counts, &self->batch);
  ts_lu_batch_stats stats = {0};
  if (status == TS_SUCCESS)
    status = ts_lu_batch_get_stats(self->batch, &stats);
  result = tspy_object_made((PyObject *)self, &call, status);
  if (result) {
    self->values = stats.values;
    self->rows = stats.rows;
    self->members = stats.members;
  }
cleanup:
  if (views)
    release_views(views, held);
  PyMem_Free(views);
  PyMem_Free(matrices);
  PyMem_Free(counts);
  return result;
}

/* An array of `count` doubles as an operand (host memory only). */
static int get_doubles(tspy_lu_batch *self, PyObject *obj, int64_t count, bool writable, const char *what,
                       tspy_operand *op) {
  if (tspy_operand_get(self->context, obj, (size_t)count * sizeof(double), writable, what, op) < 0)
    return -1;
  if (op->on_device) {
    PyErr_Format(PyExc_ValueError, "%s: host memory expected", what);
    tspy_operand_release(op);
    return -1;
  }
  return 0;
}

/* factor(values): returns the status (0, or a warning's code); an error
 * status is returned too when `check` is false (the other members are
 * factored all the same), else raised. */
static PyObject *batch_factor(tspy_lu_batch *self, PyObject *args) {
  PyObject *values_obj;
  int check = 1;
  if (!PyArg_ParseTuple(args, "O|p", &values_obj, &check))
    return NULL;
  tspy_operand values;
  if (get_doubles(self, values_obj, self->values, false, "values", &values) < 0)
    return NULL;
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = ts_lu_batch_factor(self->batch, (const double *)values.data);
  int interrupted = tspy_call_end(&call);
  tspy_operand_release(&values);
  /* Members that failed leave the others factored (ts_lu_batch_member says
   * which): with check false their status is returned, not raised. */
  if (interrupted || (TS_IS_ERROR(status) && check))
    return tspy_raise_status(self->context, status);
  return PyLong_FromLong((long)status);
}

/* solve(b, x, check): x = A_m^-1 b_m for every member (NaN for a member
 * without factors); the status as factor(). */
static PyObject *batch_solve(tspy_lu_batch *self, PyObject *args) {
  PyObject *b_obj, *x_obj;
  int check = 1;
  if (!PyArg_ParseTuple(args, "OO|p", &b_obj, &x_obj, &check))
    return NULL;
  tspy_operand b, x;
  if (get_doubles(self, b_obj, self->rows, false, "right-hand sides", &b) < 0)
    return NULL;
  if (get_doubles(self, x_obj, self->rows, true, "solutions", &x) < 0) {
    tspy_operand_release(&b);
    return NULL;
  }
  if (tspy_operands_overlap(&b, &x)) {
    tspy_operand_release(&b);
    tspy_operand_release(&x);
    PyErr_SetString(PyExc_ValueError, "solve: the right-hand sides and the solutions overlap");
    return NULL;
  }
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = ts_lu_batch_solve(self->batch, (const double *)b.data, (double *)x.data);
  int interrupted = tspy_call_end(&call);
  tspy_operand_release(&b);
  tspy_operand_release(&x);
  if (interrupted || (TS_IS_ERROR(status) && check))
    return tspy_raise_status(self->context, status);
  return PyLong_FromLong((long)status);
}

static PyObject *batch_member(tspy_lu_batch *self, PyObject *arg) {
  long long member = PyLong_AsLongLong(arg);
  if (member == -1 && PyErr_Occurred())
    return NULL;
  if (member < 0 || member >= self->members) {
    PyErr_Format(PyExc_IndexError, "member %lld of a batch of %lld", member, (long long)self->members);
    return NULL;
  }
  ts_lu_batch_member m;
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = ts_lu_batch_get_member(self->batch, member, &m);
  if (tspy_call_end(&call) < 0 || status != TS_SUCCESS)
    return tspy_raise_status(self->context, status);
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:i,s:L,s:L,s:d,s:i,s:O,s:O}", "pattern", (long long)m.pattern, "n",
                       (long long)m.n, "nnz", (long long)m.nnz, "value_offset", (long long)m.value_offset,
                       "vector_offset", (long long)m.vector_offset, "status", (int)m.status, "singular_column",
                       (long long)m.singular_column, "perturbed_pivots", (long long)m.perturbed_pivots,
                       "backward_error", m.backward_error, "refinement_steps", m.refinement_steps, "partial_pivoting",
                       m.partial_pivoting ? Py_True : Py_False, "on_host", m.on_host ? Py_True : Py_False);
}

static PyObject *batch_stats(tspy_lu_batch *self, PyObject *unused) {
  (void)unused;
  ts_lu_batch_stats s;
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = ts_lu_batch_get_stats(self->batch, &s);
  if (tspy_call_end(&call) < 0 || status != TS_SUCCESS)
    return tspy_raise_status(self->context, status);
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:d,s:L,s:L,s:L,s:L,s:O,s:d,s:d,s:d,s:d,s:i}", "members",
                       (long long)s.members, "patterns", (long long)s.patterns, "values", (long long)s.values, "rows",
                       (long long)s.rows, "nnz_lu", (long long)s.nnz_lu, "flops", s.flops, "failed_members",
                       (long long)s.failed_members, "perturbed_members", (long long)s.perturbed_members, "host_members",
                       (long long)s.host_members, "peak_device_bytes", (long long)s.peak_device_bytes, "on_gpu",
                       s.on_gpu ? Py_True : Py_False, "time_analyze", s.time_analyze, "time_factor", s.time_factor,
                       "time_solve", s.time_solve, "backward_error", s.backward_error, "refinement_steps",
                       s.refinement_steps);
}

static PyMethodDef batch_methods[] = {
    {"factor", (PyCFunction)batch_factor, METH_VARARGS,
     "factor(values, check=True): factor every member (float64 values, member after member); the status."},
    {"solve", (PyCFunction)batch_solve, METH_VARARGS,
     "solve(b, x, check=True): solve every member (float64, member after member); the status."},
    {"member", (PyCFunction)batch_member, METH_O, "member(m): member m's record, as a dict."},
    {"stats", (PyCFunction)batch_stats, METH_NOARGS, "The batch's statistics, as a dict."},
    {NULL, NULL, 0, NULL}};

PyTypeObject tspy_lu_batch_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera._core.LUBatch",
    .tp_basicsize = sizeof(tspy_lu_batch),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "LUBatch(context, patterns, counts, ...): a batch of sparse LU systems.",
    .tp_new = batch_new,
    .tp_dealloc = batch_dealloc,
    .tp_methods = batch_methods,
};
