/* Sort plans: checks, workspace size, and the dispatch of an execution to
 * the context's backend. */
#include "sort/sort_internal.h"

#include <stdlib.h>
#include <string.h>

size_t ts_sort_key_size(ts_sort_key key) {
  switch (key) {
  case TS_SORT_KEY_UINT32:
  case TS_SORT_KEY_INT32:
  case TS_SORT_KEY_FLOAT32:
    return 4;
  case TS_SORT_KEY_UINT64:
  case TS_SORT_KEY_FLOAT64:
    return 8;
  default:
    return 0;
  }
}

size_t ts_sort_value_size(ts_sort_value value) {
  switch (value) {
  case TS_SORT_VALUE_UINT32:
  case TS_SORT_VALUE_INDEX:
    return 4;
  case TS_SORT_VALUE_UINT64:
    return 8;
  default:
    return 0;
  }
}

const char *ts_sort_key_name(ts_sort_key key) {
  static const char *const names[TS_SORT_KEY_COUNT] = {"uint32", "int32", "float", "uint64", "double"};
  return (int)key >= 0 && key < TS_SORT_KEY_COUNT ? names[key] : "unknown";
}

ts_status ts_sort_plan_create(ts_context *ctx, const ts_sort_options *options, ts_sort_plan **plan) {
  if (!ctx || !options || !plan)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_plan_create: NULL argument");
  *plan = NULL;
  const ts_sort_options *o = options;
  if ((int)o->key < 0 || o->key >= TS_SORT_KEY_COUNT)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_plan_create: unknown key type %d", (int)o->key);
  if ((int)o->value < 0 || o->value >= TS_SORT_VALUE_COUNT)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_plan_create: unknown value type %d", (int)o->value);
  if (o->order != TS_SORT_ASCENDING && o->order != TS_SORT_DESCENDING)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_plan_create: unknown order %d", (int)o->order);
  if (o->max_n < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_plan_create: max_n %lld is negative",
                     (long long)o->max_n);
  if (o->max_n > INT32_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_sort_plan_create: max_n %lld is above INT32_MAX (%d)",
                     (long long)o->max_n, INT32_MAX);
  ts_sort_plan *p = calloc(1, sizeof *p);
  if (!p)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_sort_plan_create: out of host memory");
  p->ctx = ctx;
  tsi_context_retain(ctx); /* released by ts_sort_plan_destroy */
  p->options = *o;
  p->key_size = ts_sort_key_size(o->key);
  p->value_size = ts_sort_value_size(o->value);
  p->merge_ways = TSI_SORT_MERGE_WAYS;
  const char *ways = getenv("TESSERA_SORT_MERGE");
  if (ways && strcmp(ways, "pairwise") == 0)
    p->merge_ways = 2;
  else if (ways && (strcmp(ways, "4") == 0 || strcmp(ways, "8") == 0))
    p->merge_ways = ways[0] - '0';
  /* max_n <= INT32_MAX and sizes <= 8: no overflow in size_t. */
  size_t n = (size_t)o->max_n;
  p->workspace_bytes = n == 0 ? 0 : tsi_sort_align(n * p->key_size) + tsi_sort_align(n * p->value_size);
  if (n > 0 && ctx->backend == TS_BACKEND_CUDA) {
    p->workspace_bytes += tsi_sort_cuda_scratch_bytes(o->max_n, p->key_size, p->value_size);
    ts_status st = tsi_sort_cuda_prepare(p);
    if (st != TS_SUCCESS) {
      free(p);
      return st;
    }
  }
  *plan = p;
  return TS_SUCCESS;
}

void ts_sort_plan_destroy(ts_sort_plan *plan) {
  if (!plan)
    return;
  ts_context *ctx = plan->ctx;
  free(plan);
  tsi_context_release(ctx);
}

size_t ts_sort_plan_workspace_bytes(const ts_sort_plan *plan) { return plan ? plan->workspace_bytes : 0; }

static bool overlaps(const ts_buffer *a, const ts_buffer *b) {
  if (!a || !b || ts_buffer_size(a) == 0 || ts_buffer_size(b) == 0)
    return false;
  const char *pa = ts_buffer_data(a), *pb = ts_buffer_data(b);
  return pa < pb + ts_buffer_size(b) && pb < pa + ts_buffer_size(a);
}

static ts_status check_buffer(ts_context *ctx, const ts_buffer *buffer, const char *name, size_t need) {
  if (tsi_buffer_context(buffer) != ctx)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_execute: %s belongs to another context", name);
  if (ts_buffer_memory(buffer) != TS_MEMORY_DEVICE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_execute: %s must be a TS_MEMORY_DEVICE buffer", name);
  if (ts_buffer_size(buffer) < need)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_execute: %s holds %zu bytes; %zu are needed", name,
                     ts_buffer_size(buffer), need);
  return TS_SUCCESS;
}

ts_status ts_sort_execute(ts_sort_plan *plan, int64_t n, ts_buffer *keys, ts_buffer *values, ts_buffer *workspace) {
  if (!plan)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_sort_execute: NULL plan");
  ts_context *ctx = plan->ctx;
  bool with_values = plan->options.value != TS_SORT_VALUE_NONE;
  if (n < 0 || n > plan->options.max_n)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_execute: n = %lld is outside [0, max_n = %lld]",
                     (long long)n, (long long)plan->options.max_n);
  if (!keys)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_execute: NULL keys buffer");
  if (with_values && !values)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_execute: the plan moves values but values is NULL");
  if (!workspace && plan->workspace_bytes > 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_execute: NULL workspace; the plan needs %zu bytes",
                     plan->workspace_bytes);
  ts_status st = check_buffer(ctx, keys, "keys", (size_t)n * plan->key_size);
  if (st == TS_SUCCESS && with_values)
    st = check_buffer(ctx, values, "values", (size_t)n * plan->value_size);
  if (st == TS_SUCCESS && workspace)
    st = check_buffer(ctx, workspace, "workspace", plan->workspace_bytes);
  if (st != TS_SUCCESS)
    return st;
  if (overlaps(workspace, keys) || (with_values && (overlaps(workspace, values) || overlaps(keys, values))))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_execute: keys, values and workspace must not overlap");
  if (n == 0)
    return TS_SUCCESS;
  void *value_data = with_values ? ts_buffer_data(values) : NULL;
  void *workspace_data = workspace ? ts_buffer_data(workspace) : NULL;
  if (ctx->backend == TS_BACKEND_CUDA)
    return tsi_sort_cuda(plan, n, ts_buffer_data(keys), value_data, workspace_data);
  return tsi_sort_cpu(plan, n, ts_buffer_data(keys), value_data, workspace_data);
}
