/* sort(context, key_type, with_index, descending, rows, n, keys, index):
 * stable sort, in place, of `rows` consecutive runs of n keys each (the
 * last axis of an array), with the input positions of each run written to
 * index (int32, or None). One plan and one workspace serve every run. */
#include "tessera_python.h"

/* The runs one after another; keys and index are bound buffers of
 * rows * n entries. */
static ts_status sort_runs(ts_context *ctx, ts_sort_plan *plan, int64_t rows, int64_t n, size_t key_size,
                           ts_buffer *keys, ts_buffer *index, ts_buffer *workspace) {
  if (rows == 1)
    return ts_sort_execute(plan, n, keys, index, workspace);
  char *key_base = ts_buffer_data(keys), *index_base = index ? ts_buffer_data(index) : NULL;
  ts_status status = TS_SUCCESS;
  for (int64_t r = 0; r < rows && status == TS_SUCCESS; r++) {
    ts_buffer *run_keys = NULL, *run_index = NULL;
    status =
        ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, key_base + (size_t)(r * n) * key_size, (size_t)n * key_size, &run_keys);
    if (status == TS_SUCCESS && index_base)
      status = ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, index_base + (size_t)(r * n) * sizeof(int32_t),
                              (size_t)n * sizeof(int32_t), &run_index);
    if (status == TS_SUCCESS)
      status = ts_sort_execute(plan, n, run_keys, run_index, workspace);
    ts_buffer_destroy(run_keys);
    ts_buffer_destroy(run_index);
  }
  return status;
}

typedef struct sort_job {
  ts_context *ctx;
  ts_sort_plan *plan;
  ts_buffer *workspace;
  int64_t rows, n;
  size_t key_size;
} sort_job;

static ts_status sort_run(void *user, ts_buffer **buffers) {
  const sort_job *job = user;
  return sort_runs(job->ctx, job->plan, job->rows, job->n, job->key_size, buffers[0], buffers[1], job->workspace);
}

/* The plan and its workspace, then the runs with the keys and index bound. */
static ts_status sort_bound(ts_context *ctx, const ts_sort_options *options, int64_t rows, const tspy_operand *keys,
                            const tspy_operand *index) {
  sort_job job = {ctx, NULL, NULL, rows, options->max_n, ts_sort_key_size(options->key)};
  ts_status status = ts_sort_plan_create(ctx, options, &job.plan);
  if (status == TS_SUCCESS)
    status = ts_buffer_create(ctx, TS_MEMORY_DEVICE, ts_sort_plan_workspace_bytes(job.plan), &job.workspace);
  if (status == TS_SUCCESS) {
    const tspy_binding bindings[2] = {{keys, true, true, NULL}, {index, false, true, NULL}};
    status = tspy_run_bound(ctx, bindings, 2, sort_run, &job);
  }
  ts_buffer_destroy(job.workspace);
  ts_sort_plan_destroy(job.plan);
  return status;
}

PyObject *tspy_sort(PyObject *module, PyObject *args) {
  (void)module;
  tspy_context *context;
  int key, with_index, descending;
  long long rows, n;
  PyObject *keys_obj, *index_obj;
  if (!PyArg_ParseTuple(args, "O&ippLLOO", tspy_context_converter, &context, &key, &with_index, &descending, &rows, &n,
                        &keys_obj, &index_obj))
    return NULL;
  const size_t key_size = ts_sort_key_size((ts_sort_key)key);
  if (key_size == 0) {
    PyErr_Format(PyExc_ValueError, "sort: unknown key type %d", key);
    return NULL;
  }
  if (rows < 0 || n < 0 || n > INT32_MAX || (n > 0 && (uint64_t)rows > (uint64_t)PY_SSIZE_T_MAX / 8 / (uint64_t)n)) {
    PyErr_Format(PyExc_ValueError, "sort: %lld runs of %lld keys (a run holds at most %d)", rows, n, INT32_MAX);
    return NULL;
  }
  const size_t count = (size_t)rows * (size_t)n;
  tspy_operand keys, index;
  if (tspy_operand_get(context, keys_obj, count * key_size, true, "keys", &keys) < 0)
    return NULL;
  if (with_index && tspy_operand_get(context, index_obj, count * sizeof(int32_t), true, "index", &index) < 0) {
    tspy_operand_release(&keys);
    return NULL;
  }
  if (with_index && tspy_operands_overlap(&keys, &index)) {
    tspy_operand_release(&keys);
    tspy_operand_release(&index);
    PyErr_SetString(PyExc_ValueError, "sort: keys and index overlap");
    return NULL;
  }
  ts_sort_options options = {0};
  options.key = (ts_sort_key)key;
  options.value = with_index ? TS_SORT_VALUE_INDEX : TS_SORT_VALUE_NONE;
  options.order = descending ? TS_SORT_DESCENDING : TS_SORT_ASCENDING;
  options.max_n = n;
  ts_status status = TS_SUCCESS;
  int interrupted = 0;
  if (count > 0) {
    tspy_call call;
    tspy_call_begin(context, &call);
    status = sort_bound(context->ctx, &options, rows, &keys, with_index ? &index : NULL);
    interrupted = tspy_call_end(&call);
  }
  tspy_operand_release(&keys);
  if (with_index)
    tspy_operand_release(&index);
  if (interrupted || status != TS_SUCCESS)
    return tspy_raise_status(context, status);
  Py_RETURN_NONE;
}
