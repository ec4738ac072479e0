/* SpMV(context, row_ptr, col_idx, values, rows, cols, dtype, schedule,
 * transpose, group_size): a ts_spmv_plan; execute(x, y, alpha, beta) runs
 * y = alpha op(A) x + beta y on host arrays or device addresses. Host
 * arrays on a CUDA context go through device copies the plan keeps. */
#include "tessera_python.h"

typedef struct tspy_spmv {
  PyObject_HEAD tspy_context *context;
  ts_spmv_plan *plan;
  int64_t x_count, y_count;
  size_t value_size;
  tspy_cache x_cache, y_cache; /* device copies of host x and y, or wraps of device ones (CUDA) */
} tspy_spmv;

static PyObject *spmv_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"context", "row_ptr",  "col_idx",   "values",     "rows", "cols",
                             "dtype",   "schedule", "transpose", "group_size", NULL};
  tspy_context *context = NULL;
  PyObject *row_ptr, *col_idx, *values;
  long long rows, cols;
  int dtype, schedule = TS_SCHEDULE_AUTO, transpose = 0, group_size = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&OOOLLi|ipi", keywords, tspy_context_converter, &context, &row_ptr,
                                   &col_idx, &values, &rows, &cols, &dtype, &schedule, &transpose, &group_size))
    return NULL;
  tspy_csr_view view;
  if (tspy_csr_view_get(row_ptr, col_idx, values, rows, cols, dtype, &view) < 0)
    return NULL;
  tspy_spmv *self = (tspy_spmv *)tspy_object_new(type, context);
  if (!self) {
    tspy_csr_view_release(&view);
    return NULL;
  }
  self->x_count = transpose ? rows : cols;
  self->y_count = transpose ? cols : rows;
  self->value_size = ts_dtype_size((ts_dtype)dtype);
  ts_spmv_options options = {0};
  options.schedule = (ts_schedule)schedule;
  options.op = transpose ? TS_OP_TRANSPOSE : TS_OP_NONE;
  options.group_size = group_size;
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = ts_spmv_plan_create_ex(context->ctx, &view.csr, &options, &self->plan);
  PyObject *made = tspy_object_made((PyObject *)self, &call, status);
  tspy_csr_view_release(&view);
  return made;
}

static void spmv_release(PyObject *object) {
  tspy_spmv *self = (tspy_spmv *)object;
  tspy_cache_release(&self->x_cache);
  tspy_cache_release(&self->y_cache);
  ts_spmv_plan_destroy(self->plan);
}
static void spmv_dealloc(PyObject *self) { tspy_object_dealloc(self, spmv_release); }

typedef struct spmv_product {
  ts_spmv_plan *plan;
  double alpha, beta;
} spmv_product;

static ts_status spmv_run(void *user, ts_buffer **buffers) {
  const spmv_product *p = user;
  return ts_spmv_execute(p->plan, p->alpha, buffers[0], p->beta, buffers[1]);
}

static PyObject *spmv_execute(tspy_spmv *self, PyObject *args) {
  PyObject *x, *y, *stream = NULL;
  double alpha = 1.0, beta = 0.0;
  if (!PyArg_ParseTuple(args, "OO|ddO", &x, &y, &alpha, &beta, &stream))
    return NULL;
  void *order_stream = stream ? PyLong_AsVoidPtr(stream) : NULL;
  if (!order_stream && PyErr_Occurred())
    return NULL;
  /* y's input is read only when beta != 0. */
  const tspy_pair pair = {.in = x,
                          .in_bytes = (size_t)self->x_count * self->value_size,
                          .in_name = "x",
                          .in_cache = &self->x_cache,
                          .out = y,
                          .out_bytes = (size_t)self->y_count * self->value_size,
                          .out_name = "y",
                          .out_cache = &self->y_cache,
                          .read_out = beta != 0.0,
                          .order_stream = order_stream};
  spmv_product product = {self->plan, alpha, beta};
  return tspy_execute_pair(self->context, &pair, spmv_run, &product);
}

static PyObject *spmv_schedule(tspy_spmv *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(ts_schedule_name(ts_spmv_plan_schedule(self->plan)));
}

static PyObject *spmv_group_size(tspy_spmv *self, void *closure) {
  (void)closure;
  return PyLong_FromLong(ts_spmv_plan_group_size(self->plan));
}

static PyObject *spmv_explain(tspy_spmv *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(ts_spmv_plan_explain(self->plan));
}

static PyObject *spmv_bytes(tspy_spmv *self, void *closure) {
  (void)closure;
  return PyLong_FromLongLong((long long)ts_spmv_plan_bytes(self->plan));
}

static PyMethodDef spmv_methods[] = {
    {"execute", (PyCFunction)spmv_execute, METH_VARARGS,
     "execute(x, y, alpha=1.0, beta=0.0, stream=0): y = alpha op(A) x + beta y (arrays or device addresses), "
     "ordered with a CUDA stream (an int; 0: none) as Context._wait_for_stream and _stream_wait would."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef spmv_getset[] = {
    {"schedule", (getter)spmv_schedule, NULL, "The schedule the plan runs (AUTO resolved).", NULL},
    {"group_size", (getter)spmv_group_size, NULL, "Threads per group or per short row; 0 otherwise.", NULL},
    {"explain", (getter)spmv_explain, NULL, "Why the plan runs its schedule.", NULL},
    {"bytes", (getter)spmv_bytes, NULL, "Bytes one product moves at least.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject tspy_spmv_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera._core.SpMV",
    .tp_basicsize = sizeof(tspy_spmv),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SpMV(context, row_ptr, col_idx, values, rows, cols, dtype, ...): a prepared sparse product.",
    .tp_new = spmv_new,
    .tp_dealloc = spmv_dealloc,
    .tp_methods = spmv_methods,
    .tp_getset = spmv_getset,
};
