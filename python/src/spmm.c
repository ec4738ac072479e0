/* SpMM(context, row_ptr, col_idx, values, rows, cols, dtype, width,
 * schedule, col_major, group_size, pass_columns): a ts_spmm_plan for dense
 * B and C of one width and layout (packed); execute(b, c, alpha, beta) runs
 * C = alpha A B + beta C on host arrays or device addresses. Host arrays on
 * a CUDA context go through device copies the plan keeps. */
#include "tessera_python.h"

typedef struct tspy_spmm {
  PyObject_HEAD tspy_context *context;
  ts_spmm_plan *plan;
  size_t b_bytes, c_bytes;
  tspy_cache b_cache, c_cache; /* device copies of host B and C, or wraps of device ones (CUDA) */
} tspy_spmm;

/* rows * width values of value_size bytes into *bytes, or -1 with an error. */
static int dense_bytes(int64_t rows, int64_t width, size_t value_size, size_t *bytes) {
  if ((uint64_t)rows > (uint64_t)PY_SSIZE_T_MAX / value_size / (uint64_t)(width > 0 ? width : 1)) {
    PyErr_Format(PyExc_OverflowError, "a dense %lld x %lld matrix is too large", (long long)rows, (long long)width);
    return -1;
  }
  *bytes = (size_t)rows * (size_t)width * value_size;
  return 0;
}

static PyObject *spmm_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"context", "row_ptr",  "col_idx",   "values",     "rows",         "cols", "dtype",
                             "width",   "schedule", "col_major", "group_size", "pass_columns", NULL};
  tspy_context *context = NULL;
  PyObject *row_ptr, *col_idx, *values;
  long long rows, cols, width, pass_columns = 0;
  int dtype, schedule = TS_SCHEDULE_AUTO, col_major = 0, group_size = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&OOOLLiL|ipiL", keywords, tspy_context_converter, &context, &row_ptr,
                                   &col_idx, &values, &rows, &cols, &dtype, &width, &schedule, &col_major, &group_size,
                                   &pass_columns))
    return NULL;
  if (width < 0 || width > INT32_MAX) {
    PyErr_Format(PyExc_ValueError, "SpMM: width %lld is outside 0 to %d", width, INT32_MAX);
    return NULL;
  }
  tspy_csr_view view;
  if (tspy_csr_view_get(row_ptr, col_idx, values, rows, cols, dtype, &view) < 0)
    return NULL;
  const size_t value_size = ts_dtype_size((ts_dtype)dtype);
  size_t b_bytes, c_bytes;
  if (dense_bytes(cols, width, value_size, &b_bytes) < 0 || dense_bytes(rows, width, value_size, &c_bytes) < 0) {
    tspy_csr_view_release(&view);
    return NULL;
  }
  tspy_spmm *self = (tspy_spmm *)tspy_object_new(type, context);
  if (!self) {
    tspy_csr_view_release(&view);
    return NULL;
  }
  self->b_bytes = b_bytes;
  self->c_bytes = c_bytes;
  ts_spmm_options options = {0};
  options.schedule = (ts_schedule)schedule;
  options.layout_b = options.layout_c = col_major ? TS_LAYOUT_COL_MAJOR : TS_LAYOUT_ROW_MAJOR;
  options.group_size = group_size;
  options.pass_columns = (int64_t)pass_columns;
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = ts_spmm_plan_create(context->ctx, &view.csr, width, &options, &self->plan);
  PyObject *made = tspy_object_made((PyObject *)self, &call, status);
  tspy_csr_view_release(&view);
  return made;
}

static void spmm_release(PyObject *object) {
  tspy_spmm *self = (tspy_spmm *)object;
  tspy_cache_release(&self->b_cache);
  tspy_cache_release(&self->c_cache);
  ts_spmm_plan_destroy(self->plan);
}
static void spmm_dealloc(PyObject *self) { tspy_object_dealloc(self, spmm_release); }

typedef struct spmm_product {
  ts_spmm_plan *plan;
  double alpha, beta;
} spmm_product;

static ts_status spmm_run(void *user, ts_buffer **buffers) {
  const spmm_product *p = user;
  return ts_spmm_execute(p->plan, p->alpha, buffers[0], p->beta, buffers[1]);
}

static PyObject *spmm_execute(tspy_spmm *self, PyObject *args) {
  PyObject *b, *c;
  double alpha = 1.0, beta = 0.0;
  if (!PyArg_ParseTuple(args, "OO|dd", &b, &c, &alpha, &beta))
    return NULL;
  /* C's input is read only when beta != 0. */
  const tspy_pair pair = {.in = b,
                          .in_bytes = self->b_bytes,
                          .in_name = "B",
                          .in_cache = &self->b_cache,
                          .out = c,
                          .out_bytes = self->c_bytes,
                          .out_name = "C",
                          .out_cache = &self->c_cache,
                          .read_out = beta != 0.0};
  spmm_product product = {self->plan, alpha, beta};
  return tspy_execute_pair(self->context, &pair, spmm_run, &product);
}

static PyObject *spmm_schedule(tspy_spmm *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(ts_schedule_name(ts_spmm_plan_schedule(self->plan)));
}

static PyObject *spmm_explain(tspy_spmm *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(ts_spmm_plan_explain(self->plan));
}

static PyObject *spmm_bytes(tspy_spmm *self, void *closure) {
  (void)closure;
  return PyLong_FromLongLong((long long)ts_spmm_plan_bytes(self->plan));
}

static PyMethodDef spmm_methods[] = {
    {"execute", (PyCFunction)spmm_execute, METH_VARARGS,
     "execute(b, c, alpha=1.0, beta=0.0): C = alpha A B + beta C (arrays or device addresses)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef spmm_getset[] = {
    {"schedule", (getter)spmm_schedule, NULL, "The schedule the plan runs (AUTO resolved).", NULL},
    {"explain", (getter)spmm_explain, NULL, "Why the plan runs its schedule.", NULL},
    {"bytes", (getter)spmm_bytes, NULL, "Bytes one product moves at least.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject tspy_spmm_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera._core.SpMM",
    .tp_basicsize = sizeof(tspy_spmm),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "SpMM(context, row_ptr, col_idx, values, rows, cols, dtype, width, ...): a prepared sparse-dense product.",
    .tp_new = spmm_new,
    .tp_dealloc = spmm_dealloc,
    .tp_methods = spmm_methods,
    .tp_getset = spmm_getset,
};
