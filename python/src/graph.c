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
  tspy_graph *self = (tspy_graph *)tspy_object_new(type, context);
  if (!self) {
    tspy_csr_view_release(&view);
    return NULL;
  }
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
  PyObject *made = tspy_object_made((PyObject *)self, &call, status);
  tspy_csr_view_release(&view);
  return made;
}

static void graph_release(PyObject *object) {
  tspy_graph *self = (tspy_graph *)object;
  ts_bfs_plan_destroy(self->bfs);
  ts_sssp_plan_destroy(self->sssp);
}
static void graph_dealloc(PyObject *self) { tspy_object_dealloc(self, graph_release); }

typedef struct graph_traversal {
  const tspy_graph *graph;
  int64_t source;
} graph_traversal;

static ts_status graph_run(void *user, ts_buffer **buffers) {
  const graph_traversal *t = user;
  return t->graph->kind == GRAPH_BFS ? ts_bfs_execute(t->graph->bfs, t->source, buffers[0], buffers[1])
                                     : ts_sssp_execute(t->graph->sssp, t->source, buffers[0], buffers[1]);
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
  const tspy_binding bindings[2] = {{with_first ? &first : NULL, false, true, NULL},
                                    {with_second ? &second : NULL, false, true, NULL}};
  graph_traversal traversal = {self, source};
  ts_status status = tspy_run_bound(self->context->ctx, bindings, 2, graph_run, &traversal);
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
    .tp_dealloc = graph_dealloc,
    .tp_methods = graph_methods,
};
