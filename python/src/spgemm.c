/* spgemm(context, A arrays, B arrays, dtype, memory_budget) -> (Matrix, info):
 * C = A B as a CSR Matrix in host memory, through the library's phases
 * (plan, symbolic, allocate, numeric, download), or its row-blocked mode
 * when C does not fit the budget or the device. */
#include "tessera_python.h"

typedef struct spgemm_result {
  ts_csr *c;
  int64_t nnz, products;
  bool blocked;
  char explain[512];
} spgemm_result;

static ts_status spgemm_run(ts_context *ctx, const ts_csr *a, const ts_csr *b, int64_t budget, spgemm_result *r) {
  ts_spgemm_options options = {0};
  options.memory_budget = budget;
  ts_spgemm_plan *plan = NULL;
  ts_status status = ts_spgemm_plan_create(ctx, a, b, &options, &plan);
  if (status == TS_SUCCESS)
    status = ts_spgemm_symbolic(plan);
  if (status == TS_SUCCESS) {
    status = ts_spgemm_allocate(plan);
    if (status == TS_ERROR_OUT_OF_MEMORY) {
      r->blocked = true; /* C does not fit: computed in row blocks into host memory */
      status = ts_spgemm_blocked(plan, &r->c);
    } else if (status == TS_SUCCESS) {
      status = ts_spgemm_numeric(plan);
      if (status == TS_SUCCESS)
        status = ts_spgemm_download(plan, &r->c);
    }
  }
  if (plan) {
    r->nnz = ts_spgemm_plan_nnz(plan);
    r->products = ts_spgemm_plan_products(plan);
    snprintf(r->explain, sizeof r->explain, "%s", ts_spgemm_plan_explain(plan));
  }
  ts_spgemm_plan_destroy(plan);
  return status;
}

PyObject *tspy_spgemm(PyObject *module, PyObject *args) {
  (void)module;
  tspy_context *context;
  PyObject *a_ptr, *a_idx, *a_val, *b_ptr, *b_idx, *b_val;
  long long a_rows, a_cols, b_rows, b_cols, budget;
  int dtype;
  if (!PyArg_ParseTuple(args, "O&OOOLLOOOLLiL", tspy_context_converter, &context, &a_ptr, &a_idx, &a_val, &a_rows,
                        &a_cols, &b_ptr, &b_idx, &b_val, &b_rows, &b_cols, &dtype, &budget))
    return NULL;
  tspy_csr_view a, b;
  if (tspy_csr_view_get(a_ptr, a_idx, a_val, a_rows, a_cols, dtype, &a) < 0)
    return NULL;
  if (tspy_csr_view_get(b_ptr, b_idx, b_val, b_rows, b_cols, dtype, &b) < 0) {
    tspy_csr_view_release(&a);
    return NULL;
  }
  spgemm_result result;
  memset(&result, 0, sizeof result);
  tspy_call call;
  tspy_call_begin(context, &call);
  ts_status status = spgemm_run(context->ctx, &a.csr, &b.csr, budget, &result);
  int interrupted = tspy_call_end(&call);
  tspy_csr_view_release(&a);
  tspy_csr_view_release(&b);
  if (interrupted || status != TS_SUCCESS) {
    ts_csr_destroy(result.c);
    return tspy_raise_status(context, status);
  }
  PyObject *matrix = tspy_matrix_from_csr(result.c);
  if (!matrix)
    return NULL;
  return Py_BuildValue("(N{s:L,s:L,s:O,s:s})", matrix, "nnz", (long long)result.nnz, "products",
                       (long long)result.products, "blocked", result.blocked ? Py_True : Py_False, "explain",
                       result.explain);
}
