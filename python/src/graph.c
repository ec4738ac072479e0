/* GraphPlan(context, kind, row_ptr, col_idx, values, n, dtype, undirected,
 * schedule, group_size, top_down_only, delta): a ts_bfs_plan (kind 0) or a
 * ts_sssp_plan (kind 1) over a CSR graph; execute(source, first, second)
 * writes levels and parents (BFS) or distances and predecessors (SSSP),
 * either output None, as host arrays or device addresses. */
#include "tessera_python.h"

enum graph_kind { GRAPH_BFS = 0, GRAPH_SSSP = 1 };

typedef struct tspy_graph {
  PyObject_HEAD tspy_context *context;
  enum graph_kind kind;
  ts_bfs_plan *bfs;
  ts_sssp_plan *sssp;
  int64_t n;
  size_t first_size; /* bytes of one level (int32) or one distance (the graph's value type) */
} tspy_graph;

static PyObject *graph_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"context",    "kind",     "row_ptr",    "col_idx",       "values", "n", "dtype",
                             "undirected", "schedule", "group_size", "top_down_only", "delta",  NULL};
  tspy_context *context = NULL;
  PyObject *row_ptr, *col_idx, *values;
  long long n;
  int kind, dtype, undirected = 0, schedule = TS_SCHEDULE_AUTO, group_size = 0, top_down_only = 0;
  double delta = 0.0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&iOOOLi|piipd", keywords, tspy_context_converter, &context, &kind,
                                   &row_ptr, &col_idx, &values, &n, &dtype, &undirected, &schedule, &group_size,
                                   &top_down_only, &delta))
    return NULL;
  if (kind != GRAPH_BFS && kind != GRAPH_SSSP) {
    PyErr_Format(PyExc_ValueError, "GraphPlan: unknown kind %d (0 BFS, 1 SSSP)", kind);
    return NULL;
  }
  tspy_csr_view view;
  if (tspy_csr_view_get(row_ptr, col_idx, values, n, n, dtype, &view) < 0)
    return NULL;
  tspy_graph *self = (tspy_graph *)type->tp_alloc(type, 0);
  if (!self) {
    tspy_csr_view_release(&view);
    return NULL;
  }
  Py_INCREF(context);
  self->context = context;
  self->kind = (enum graph_kind)kind;
  self->n = n;
  self->first_size = kind == GRAPH_BFS ? sizeof(int32_t) : ts_dtype_size((ts_dtype)dtype);
  ts_graph_options options = {0};
  options.direction = undirected ? TS_GRAPH_UNDIRECTED : TS_GRAPH_DIRECTED;
  options.schedule = (ts_schedule)schedule;
  options.group_size = group_size;
  options.top_down_only = top_down_only;
  options.delta = delta;
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = kind == GRAPH_BFS ? ts_bfs_plan_create(context->ctx, &view.csr, &options, &self->bfs)
                                       : ts_sssp_plan_create(context->ctx, &view.csr, &options, &self->sssp);
  int interrupted = tspy_call_end(&call);
  tspy_csr_view_release(&view);
  if (interrupted || status != TS_SUCCESS) {
    tspy_raise_status(context, status);
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject *)self;
}

static void graph_dealloc(tspy_graph *self) {
  if (self->bfs || self->sssp) {
    tspy_call call;
    tspy_call_begin(self->context, &call);
    ts_bfs_plan_destroy(self->bfs);
    ts_sssp_plan_destroy(self->sssp);
    if (tspy_call_end(&call) < 0)
      PyErr_WriteUnraisable((PyObject *)self);
  }
  Py_XDECREF(self->context);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The traversal with bound outputs (either may be absent). */
static ts_status graph_run(tspy_graph *self, int64_t source, const tspy_operand *first, const tspy_operand *second) {
  ts_context *ctx = self->context->ctx;
  tspy_bound fb = {0}, sb = {0};
  ts_status status = TS_SUCCESS;
  if (first)
    status = tspy_bind(ctx, first, false, NULL, &fb);
  if (status == TS_SUCCESS && second)
    status = tspy_bind(ctx, second, false, NULL, &sb);
  if (status == TS_SUCCESS)
    status = self->kind == GRAPH_BFS ? ts_bfs_execute(self->bfs, source, fb.buffer, sb.buffer)
                                     : ts_sssp_execute(self->sssp, source, fb.buffer, sb.buffer);
  if (fb.buffer) {
    ts_status unbound = tspy_unbind(ctx, first, status == TS_SUCCESS, &fb);
    status = status == TS_SUCCESS ? unbound : status;
  }
  if (sb.buffer) {
    ts_status unbound = tspy_unbind(ctx, second, status == TS_SUCCESS, &sb);
    status = status == TS_SUCCESS ? unbound : status;
  }
  return status;
}

static PyObject *graph_execute(tspy_graph *self, PyObject *args) {
  long long source;
  PyObject *first_obj, *second_obj;
  if (!PyArg_ParseTuple(args, "LOO", &source, &first_obj, &second_obj))
    return NULL;
  const size_t n = (size_t)self->n;
  tspy_operand first, second;
  const bool with_first = first_obj != Py_None, with_second = second_obj != Py_None;
  if (with_first && tspy_operand_get(self->context, first_obj, n * self->first_size, true,
                                     self->kind == GRAPH_BFS ? "levels" : "distances", &first) < 0)
    return NULL;
  if (with_second && tspy_operand_get(self->context, second_obj, n * sizeof(int32_t), true,
                                      self->kind == GRAPH_BFS ? "parents" : "predecessors", &second) < 0) {
    if (with_first)
      tspy_operand_release(&first);
    return NULL;
  }
  if (with_first && with_second && tspy_operands_overlap(&first, &second)) {
    tspy_operand_release(&first);
    tspy_operand_release(&second);
    PyErr_SetString(PyExc_ValueError, "the two outputs overlap");
    return NULL;
  }
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = graph_run(self, source, with_first ? &first : NULL, with_second ? &second : NULL);
  int interrupted = tspy_call_end(&call);
  if (with_first)
    tspy_operand_release(&first);
  if (with_second)
    tspy_operand_release(&second);
  if (interrupted || status != TS_SUCCESS)
    return tspy_raise_status(self->context, status);
  Py_RETURN_NONE;
}

static PyObject *graph_last_run(tspy_graph *self, PyObject *unused) {
  (void)unused;
  ts_graph_run_stats s;
  tspy_call call;
  tspy_call_begin(self->context, &call);
  ts_status status = self->kind == GRAPH_BFS ? ts_bfs_last_run(self->bfs, &s) : ts_sssp_last_run(self->sssp, &s);
  if (tspy_call_end(&call) < 0 || status != TS_SUCCESS)
    return tspy_raise_status(self->context, status);
  return Py_BuildValue("{s:L,s:L,s:L,s:i,s:i,s:i,s:i,s:i}", "source", (long long)s.source, "reached",
                       (long long)s.reached, "reached_edges", (long long)s.reached_edges, "depth", s.depth,
                       "top_down_steps", s.top_down_steps, "bottom_up_steps", s.bottom_up_steps, "rounds", s.rounds,
                       "phases", s.phases);
}

static PyObject *graph_info(tspy_graph *self, PyObject *unused) {
  (void)unused;
  ts_graph_plan_info i;
  ts_status status = self->kind == GRAPH_BFS ? ts_bfs_plan_info(self->bfs, &i) : ts_sssp_plan_info(self->sssp, &i);
  if (status != TS_SUCCESS)
    return tspy_raise_status(self->context, status);
  return Py_BuildValue(
      "{s:L,s:L,s:s,s:s,s:i,s:L,s:L,s:O,s:d,s:L,s:L,s:L,s:s}", "vertices", (long long)i.vertices, "edges",
      (long long)i.edges, "direction", i.direction == TS_GRAPH_UNDIRECTED ? "undirected" : "directed", "schedule",
      ts_schedule_name(i.schedule), "group_size", i.group_size, "max_out_degree", (long long)i.max_out_degree,
      "hub_vertices", (long long)i.hub_vertices, "bottom_up", i.bottom_up ? Py_True : Py_False, "delta", i.delta,
      "graph_bytes", (long long)i.graph_bytes, "in_edge_bytes", (long long)i.in_edge_bytes, "workspace_bytes",
      (long long)i.workspace_bytes, "explain", i.explain);
}

static PyMethodDef graph_methods[] = {
    {"execute", (PyCFunction)graph_execute, METH_VARARGS,
     "execute(source, first, second): levels and parents (BFS) or distances and predecessors (SSSP)."},
    {"last_run", (PyCFunction)graph_last_run, METH_NOARGS, "What the last execution did, as a dict (waits for it)."},
    {"info", (PyCFunction)graph_info, METH_NOARGS, "What the plan holds and how it chose, as a dict."},
    {NULL, NULL, 0, NULL}};

PyTypeObject tspy_graph_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera._core.GraphPlan",
    .tp_basicsize = sizeof(tspy_graph),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "GraphPlan(context, kind, row_ptr, col_idx, values, n, dtype, ...): a BFS or SSSP plan.",
    .tp_new = graph_new,
    .tp_dealloc = (destructor)graph_dealloc,
    .tp_methods = graph_methods,
};
