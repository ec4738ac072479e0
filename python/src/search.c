/* SearchPlan(context, key_type, keys, algorithm, sorted_queries): a
 * ts_search_plan over sorted host keys (copied by the library);
 * execute(upper, queries, count, results) writes the lower or upper bound
 * of each query as int64. */
#include "tessera_python.h"

typedef struct tspy_search {
  PyObject_HEAD tspy_context *context;
  ts_search_plan *plan;
  size_t key_size;
} tspy_search;

static PyObject *search_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"context", "key_type", "keys", "algorithm", "sorted_queries", NULL};
  tspy_context *context = NULL;
  int key_type, algorithm = TS_SEARCH_AUTO, sorted_queries = 0;
  PyObject *keys_obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&iO|ip", keywords, tspy_context_converter, &context, &key_type,
                                   &keys_obj, &algorithm, &sorted_queries))
    return NULL;
  const size_t key_size = ts_key_type_size((ts_key_type)key_type);
  if (key_size == 0) {
    PyErr_Format(PyExc_ValueError, "SearchPlan: unknown key type %d", key_type);
    return NULL;
  }
  Py_buffer keys;
  if (PyObject_GetBuffer(keys_obj, &keys, PyBUF_C_CONTIGUOUS) < 0)
    return NULL;
  if ((size_t)keys.len % key_size != 0) {
    PyBuffer_Release(&keys);
    PyErr_Format(PyExc_ValueError, "SearchPlan: %zd bytes of keys is not a whole number of %zu-byte keys", keys.len,
                 key_size);
    return NULL;
  }
  tspy_search *self = (tspy_search *)tspy_object_new(type, context);
  if (!self) {
    PyBuffer_Release(&keys);
    return NULL;
  }
  self->key_size = key_size;
  ts_search_options options = {0};
  options.algorithm = (ts_search_algorithm)algorithm;
  options.sorted_queries = sorted_queries;
  options.index_type = TS_INDEX_INT64;
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = ts_search_plan_create(context->ctx, (ts_key_type)key_type, keys.len > 0 ? keys.buf : NULL,
                                           (int64_t)((size_t)keys.len / key_size), &options, &self->plan);
  PyObject *made = tspy_object_made((PyObject *)self, &call, status);
  PyBuffer_Release(&keys);
  return made;
}

static void search_release(PyObject *self) { ts_search_plan_destroy(((tspy_search *)self)->plan); }
static void search_dealloc(PyObject *self) { tspy_object_dealloc(self, search_release); }

typedef struct search_batch {
  ts_search_plan *plan;
  ts_search_bound bound;
  int64_t count;
} search_batch;

static ts_status search_run(void *user, ts_buffer **buffers) {
  const search_batch *b = user;
  return ts_search_execute(b->plan, b->bound, buffers[0], b->count, buffers[1]);
}

static PyObject *search_execute(tspy_search *self, PyObject *args) {
  int upper;
  PyObject *queries, *results;
  long long count;
  if (!PyArg_ParseTuple(args, "pOLO", &upper, &queries, &count, &results))
    return NULL;
  if (count < 0 || (uint64_t)count > (uint64_t)PY_SSIZE_T_MAX / 8) {
    PyErr_Format(PyExc_ValueError, "searchsorted: %lld queries", count);
    return NULL;
  }
  const tspy_pair pair = {.in = queries,
                          .in_bytes = (size_t)count * self->key_size,
                          .in_name = "queries",
                          .out = results,
                          .out_bytes = (size_t)count * sizeof(int64_t),
                          .out_name = "results"};
  search_batch batch = {self->plan, upper ? TS_BOUND_UPPER : TS_BOUND_LOWER, count};
  return tspy_execute_pair(self->context, &pair, search_run, &batch);
}

static PyObject *search_algorithm(tspy_search *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(ts_search_algorithm_name(ts_search_plan_algorithm(self->plan)));
}

static PyObject *search_explain(tspy_search *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(ts_search_plan_explain(self->plan));
}

static PyMethodDef search_methods[] = {{"execute", (PyCFunction)search_execute, METH_VARARGS,
                                        "execute(upper, queries, count, results): bounds of the queries, as int64."},
                                       {NULL, NULL, 0, NULL}};

static PyGetSetDef search_getset[] = {
    {"algorithm", (getter)search_algorithm, NULL, "The algorithm the plan runs (AUTO resolved).", NULL},
    {"explain", (getter)search_explain, NULL, "Why the plan runs its algorithm.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject tspy_search_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera._core.SearchPlan",
    .tp_basicsize = sizeof(tspy_search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SearchPlan(context, key_type, keys, ...): sorted keys prepared for batched searches.",
    .tp_new = search_new,
    .tp_dealloc = search_dealloc,
    .tp_methods = search_methods,
    .tp_getset = search_getset,
};
