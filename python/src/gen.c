/* generate(context, kind, dtype, args, overrides): the library's matrix
 * generators, each returning a CSR Matrix. args are the generator's
 * positional parameters; overrides (a dict, for rmat and circuit) replace
 * fields of the library's defaults (ts_rmat_graph500, ts_circuit_defaults). */
#include "tessera_python.h"

/* Read overrides[name] into *value when present: 0, or -1 with an error. */
static int override_double(PyObject *overrides, const char *name, double *value) {
  PyObject *item = PyDict_GetItemString(overrides, name);
  if (!item || item == Py_None)
    return 0;
  double v = PyFloat_AsDouble(item);
  if (v == -1.0 && PyErr_Occurred())
    return -1;
  *value = v;
  return 0;
}

static int override_int(PyObject *overrides, const char *name, int *value) {
  PyObject *item = PyDict_GetItemString(overrides, name);
  if (!item || item == Py_None)
    return 0;
  long v = PyLong_AsLong(item);
  if (v == -1 && PyErr_Occurred())
    return -1;
  if (v < INT32_MIN || v > INT32_MAX) {
    PyErr_Format(PyExc_OverflowError, "%s = %ld is out of range", name, v);
    return -1;
  }
  *value = (int)v;
  return 0;
}

static int override_int64(PyObject *overrides, const char *name, int64_t *value) {
  PyObject *item = PyDict_GetItemString(overrides, name);
  if (!item || item == Py_None)
    return 0;
  long long v = PyLong_AsLongLong(item);
  if (v == -1 && PyErr_Occurred())
    return -1;
  *value = v;
  return 0;
}

typedef struct gen_request {
  const char *kind;
  ts_dtype dtype;
  long long a, b, c;
  double x;
  unsigned long long seed;
  ts_rmat_params rmat;
  ts_circuit_params circuit;
} gen_request;

/* Parse args and overrides for kind into request: 0, or -1 with an error. */
static int parse_request(const char *kind, PyObject *args, PyObject *overrides, gen_request *r) {
  if (strcmp(kind, "laplacian_2d") == 0)
    return PyArg_ParseTuple(args, "LL", &r->a, &r->b) ? 0 : -1;
  if (strcmp(kind, "laplacian_3d") == 0)
    return PyArg_ParseTuple(args, "LLL", &r->a, &r->b, &r->c) ? 0 : -1;
  if (strcmp(kind, "banded") == 0 || strcmp(kind, "random_uniform") == 0)
    return PyArg_ParseTuple(args, "LLLK", &r->a, &r->b, &r->c, &r->seed) ? 0 : -1;
  if (strcmp(kind, "power_law") == 0)
    return PyArg_ParseTuple(args, "LLLdK", &r->a, &r->b, &r->c, &r->x, &r->seed) ? 0 : -1;
  if (strcmp(kind, "rmat") == 0) {
    int scale, edge_factor;
    if (!PyArg_ParseTuple(args, "iiK", &scale, &edge_factor, &r->seed))
      return -1;
    r->rmat = ts_rmat_graph500(scale, edge_factor);
    if (override_double(overrides, "a", &r->rmat.a) < 0 || override_double(overrides, "b", &r->rmat.b) < 0 ||
        override_double(overrides, "c", &r->rmat.c) < 0 ||
        override_int(overrides, "symmetric", &r->rmat.symmetric) < 0 ||
        override_int(overrides, "scramble", &r->rmat.scramble) < 0)
      return -1;
    return 0;
  }
  if (strcmp(kind, "circuit") == 0) {
    long long n;
    if (!PyArg_ParseTuple(args, "LK", &n, &r->seed))
      return -1;
    r->circuit = ts_circuit_defaults(n);
    ts_circuit_params *p = &r->circuit;
    if (override_double(overrides, "avg_degree", &p->avg_degree) < 0 ||
        override_double(overrides, "locality", &p->locality) < 0 ||
        override_int(overrides, "dense_nets", &p->dense_nets) < 0 ||
        override_double(overrides, "dense_fraction", &p->dense_fraction) < 0 ||
        override_double(overrides, "asymmetry", &p->asymmetry) < 0 ||
        override_int(overrides, "mesh_radius", &p->mesh_radius) < 0 || override_int64(overrides, "n", &p->n) < 0)
      return -1;
    return 0;
  }
  PyErr_Format(PyExc_ValueError, "unknown generator '%s'", kind);
  return -1;
}

static ts_status run_request(ts_context *ctx, const gen_request *r, ts_csr **csr) {
  const char *kind = r->kind;
  if (strcmp(kind, "laplacian_2d") == 0)
    return ts_gen_laplacian_2d(ctx, r->a, r->b, r->dtype, csr);
  if (strcmp(kind, "laplacian_3d") == 0)
    return ts_gen_laplacian_3d(ctx, r->a, r->b, r->c, r->dtype, csr);
  if (strcmp(kind, "banded") == 0)
    return ts_gen_banded(ctx, r->a, r->b, r->c, r->seed, r->dtype, csr);
  if (strcmp(kind, "random_uniform") == 0)
    return ts_gen_random_uniform(ctx, r->a, r->b, r->c, r->seed, r->dtype, csr);
  if (strcmp(kind, "power_law") == 0)
    return ts_gen_power_law(ctx, r->a, r->b, r->c, r->x, r->seed, r->dtype, csr);
  if (strcmp(kind, "rmat") == 0)
    return ts_gen_rmat(ctx, &r->rmat, r->seed, r->dtype, csr);
  return ts_gen_circuit(ctx, &r->circuit, r->seed, r->dtype, csr);
}

PyObject *tspy_generate(PyObject *module, PyObject *args) {
  (void)module;
  tspy_context *context;
  const char *kind;
  int dtype;
  PyObject *gen_args, *overrides;
  if (!PyArg_ParseTuple(args, "O&siO!O!", tspy_context_converter, &context, &kind, &dtype, &PyTuple_Type, &gen_args,
                        &PyDict_Type, &overrides))
    return NULL;
  if (tspy_dtype_check(dtype) < 0)
    return NULL;
  gen_request request;
  memset(&request, 0, sizeof request);
  request.kind = kind;
  request.dtype = (ts_dtype)dtype;
  if (parse_request(kind, gen_args, overrides, &request) < 0)
    return NULL;
  ts_csr *csr = NULL;
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = run_request(context->ctx, &request, &csr);
  int interrupted = tspy_call_end(&call);
  if (interrupted || status != TS_SUCCESS) {
    ts_csr_destroy(csr);
    return tspy_raise_status(context, status);
  }
  return tspy_matrix_from_csr(csr);
}
