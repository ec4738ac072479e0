/* Plan a batched search: check the keys (type, order), map them to ordered
 * bits, resolve AUTO, build the algorithm's layout once and place it in
 * backend memory, so that ts_search_execute() allocates nothing. */
#include "search/search_internal.h"

#include <stdio.h>
#include <stdlib.h>

static ts_status check_options(ts_context *ctx, ts_key_type type, const void *keys, int64_t n,
                               const ts_search_options *o) {
  if (ts_key_type_size(type) == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_plan_create: unknown key type %d", (int)type);
  if (n < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_plan_create: negative key count %lld", (long long)n);
  if (n > 0 && !keys)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_plan_create: NULL keys for %lld keys", (long long)n);
  if ((int)o->algorithm < 0 || (int)o->algorithm >= TS_SEARCH_ALGORITHM_COUNT)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_plan_create: unknown algorithm %d", (int)o->algorithm);
  if ((int)o->index_type < TS_INDEX_AUTO || (int)o->index_type > TS_INDEX_INT64)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_plan_create: unknown index type %d",
                     (int)o->index_type);
  if (o->index_type == TS_INDEX_INT32 && n > INT32_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_search_plan_create: %lld keys do not fit int32 indices", (long long)n);
  return TS_SUCCESS;
}

/* The ordered bits of the keys, checked for order on the way. */
static ts_status order_keys(ts_search_plan *p, const void *keys) {
  p->ordered = tsi_malloc_array(p->n > 0 ? p->n : 1, p->key_size);
  if (!p->ordered)
    return tsi_error(p->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_search_plan_create: no host memory for %lld keys",
                     (long long)p->n);
  uint64_t previous = 0;
  for (int64_t i = 0; i < p->n; i++) {
    uint64_t v = tsi_order_key(p->type, keys, i);
    if (i > 0 && v < previous)
      return tsi_error(p->ctx, TS_ERROR_INVALID_ARGUMENT,
                       "ts_search_plan_create: keys are not sorted: key %lld is less than key %lld (%s keys, NaNs "
                       "last)",
                       (long long)i, (long long)(i - 1), ts_key_type_name(p->type));
    previous = v;
    if (p->key_size == 4)
      ((uint32_t *)p->ordered)[i] = (uint32_t)v;
    else
      ((uint64_t *)p->ordered)[i] = v;
  }
  return TS_SUCCESS;
}

static void resolve_algorithm(ts_search_plan *p, const ts_search_options *o) {
  int top_height = tsi_search_eytzinger_height((int64_t)(TSI_SEARCH_TOP_BYTES / p->key_size));
  if (((int64_t)1 << top_height) - 1 > (int64_t)(TSI_SEARCH_TOP_BYTES / p->key_size))
    top_height--;
  if (o->algorithm != TS_SEARCH_AUTO) {
    p->algorithm = o->algorithm;
    snprintf(p->explain, sizeof p->explain, "requested: %s (%lld %s keys)", ts_search_algorithm_name(p->algorithm),
             (long long)p->n, ts_key_type_name(p->type));
  } else if (p->n * (int64_t)p->key_size <= TSI_SEARCH_RADIX_AUTO_BYTES) {
    /* Sorted queries too: radix beat merge-path there (TSI_SEARCH_RADIX_AUTO_BYTES). */
    p->algorithm = TS_SEARCH_RADIX;
    snprintf(p->explain, sizeof p->explain,
             "auto: radix: %lld %s keys in <= %d bytes (a bucket a key or more; table and keys in shared memory)",
             (long long)p->n, ts_key_type_name(p->type), TSI_SEARCH_RADIX_AUTO_BYTES);
  } else if (o->sorted_queries) {
    p->algorithm = TS_SEARCH_MERGE_PATH;
    snprintf(p->explain, sizeof p->explain, "auto: merge-path: queries declared sorted (%lld %s keys)", (long long)p->n,
             ts_key_type_name(p->type));
  } else if (tsi_search_eytzinger_height(p->n) <= top_height) {
    p->algorithm = TS_SEARCH_EYTZINGER;
    snprintf(p->explain, sizeof p->explain,
             "auto: eytzinger: %lld %s keys fit a %d-level tree in the %d-byte shared-memory table", (long long)p->n,
             ts_key_type_name(p->type), top_height, TSI_SEARCH_TOP_BYTES);
  } else {
    p->algorithm = TS_SEARCH_KARY;
    snprintf(p->explain, sizeof p->explain,
             "auto: kary: %lld %s keys pass the %d-byte shared-memory table; unsorted queries", (long long)p->n,
             ts_key_type_name(p->type), TSI_SEARCH_TOP_BYTES);
  }
}

static ts_status build_device_layout(ts_search_plan *p) {
  ts_context *ctx = p->ctx;
  ts_device_info info;
  ts_status st = ts_context_device_info(ctx, &info);
  if (st != TS_SUCCESS)
    return st;
  p->multiprocessors = info.multiprocessors > 0 ? info.multiprocessors : 1;
  if (p->n == 0)
    return TS_SUCCESS;
  int64_t slots;
  void *host = NULL;
  size_t bytes;
  if (p->algorithm == TS_SEARCH_RADIX) {
    if (p->n > (int64_t)UINT32_MAX)
      return tsi_error(ctx, TS_ERROR_UNSUPPORTED, "ts_search_plan_create: radix takes at most %lu keys, not %lld",
                       (unsigned long)UINT32_MAX, (long long)p->n);
    tsi_search_radix_shape(p->n, p->key_size, p->ordered, &p->radix);
    slots = p->n;
    bytes = (size_t)p->radix.table_slots * sizeof(uint32_t) + (size_t)p->n * p->key_size;
    host = malloc(bytes);
    if (host) {
      tsi_search_radix_fill(&p->radix, p->n, p->key_size, p->ordered, host);
      memcpy((char *)host + p->radix.table_slots * sizeof(uint32_t), p->ordered, (size_t)p->n * p->key_size);
    }
  } else if (p->algorithm == TS_SEARCH_EYTZINGER) {
    p->eytzinger_height = tsi_search_eytzinger_height(p->n);
    slots = ((int64_t)1 << p->eytzinger_height) - 1;
    bytes = (size_t)slots * p->key_size;
    host = tsi_malloc_array(slots, p->key_size);
    if (host)
      tsi_search_eytzinger_fill(p->n, p->eytzinger_height, p->key_size, p->ordered, host);
  } else {
    slots = p->tree.total;
    bytes = (size_t)slots * p->key_size;
    host = tsi_malloc_array(slots, p->key_size);
    if (host)
      tsi_search_tree_fill(&p->tree, p->key_size, p->ordered, host);
  }
  if (!host)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_search_plan_create: no host memory for a %lld-key layout",
                     (long long)slots);
  st = tsi_cuda_malloc(ctx, &p->device_layout, bytes);
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_device(ctx, p->device_layout, host, bytes);
  free(host);
  if (st == TS_SUCCESS)
    st = tsi_search_cuda_prepare(p);
  return st;
}

ts_status ts_search_plan_create(ts_context *ctx, ts_key_type type, const void *keys, int64_t n,
                                const ts_search_options *options, ts_search_plan **plan) {
  if (!ctx || !plan)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_search_plan_create: NULL argument");
  *plan = NULL;
  ts_search_options o;
  memset(&o, 0, sizeof o);
  if (options)
    o = *options;
  ts_status st = check_options(ctx, type, keys, n, &o);
  if (st != TS_SUCCESS)
    return st;
  ts_search_plan *p = calloc(1, sizeof *p);
  if (!p)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_search_plan_create: out of host memory");
  p->ctx = ctx;
  tsi_context_retain(ctx); /* released by ts_search_plan_destroy */
  p->type = type;
  p->key_size = ts_key_type_size(type);
  p->n = n;
  p->index_size = (o.index_type == TS_INDEX_INT64 || (o.index_type == TS_INDEX_AUTO && n > INT32_MAX)) ? 8 : 4;
  st = order_keys(p, keys);
  if (st == TS_SUCCESS) {
    tsi_search_tree_shape(n, p->key_size, &p->tree);
    resolve_algorithm(p, &o);
    if (ctx->backend == TS_BACKEND_CUDA) {
      st = build_device_layout(p);
      free(p->ordered); /* the GPU plan keeps its layout only */
      p->ordered = NULL;
    }
  }
  if (st != TS_SUCCESS) {
    ts_search_plan_destroy(p);
    return st;
  }
  *plan = p;
  return TS_SUCCESS;
}

void ts_search_plan_destroy(ts_search_plan *plan) {
  if (!plan)
    return;
  if (plan->device_layout)
    tsi_cuda_free(plan->device_layout);
  free(plan->ordered);
  ts_context *ctx = plan->ctx;
  free(plan);
  tsi_context_release(ctx);
}

ts_search_algorithm ts_search_plan_algorithm(const ts_search_plan *plan) {
  return plan ? plan->algorithm : TS_SEARCH_AUTO;
}

size_t ts_search_plan_index_size(const ts_search_plan *plan) { return plan ? plan->index_size : 0; }

const char *ts_search_plan_explain(const ts_search_plan *plan) { return plan ? plan->explain : ""; }
