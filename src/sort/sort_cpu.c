/* The CPU backend of ts_sort_execute: keys mapped to ordered integers in
 * place, a stable OpenMP merge sort of the integers (with their values), and
 * the keys mapped back; the same order as the CUDA backend, bit for bit. */
#include "sort/sort_internal.h"

#include <string.h>

#define SORT_KEY_T uint32_t
#define SORT_NAME sort_cpu_k32
#include "sort/sort_cpu_impl.h"
#undef SORT_NAME
#define SORT_VALUE_T uint32_t
#define SORT_NAME sort_cpu_k32_v32
#include "sort/sort_cpu_impl.h"
#undef SORT_NAME
#undef SORT_VALUE_T
#define SORT_VALUE_T uint64_t
#define SORT_NAME sort_cpu_k32_v64
#include "sort/sort_cpu_impl.h"
#undef SORT_NAME
#undef SORT_VALUE_T
#undef SORT_KEY_T

#define SORT_KEY_T uint64_t
#define SORT_NAME sort_cpu_k64
#include "sort/sort_cpu_impl.h"
#undef SORT_NAME
#define SORT_VALUE_T uint32_t
#define SORT_NAME sort_cpu_k64_v32
#include "sort/sort_cpu_impl.h"
#undef SORT_NAME
#undef SORT_VALUE_T
#define SORT_VALUE_T uint64_t
#define SORT_NAME sort_cpu_k64_v64
#include "sort/sort_cpu_impl.h"
#undef SORT_NAME
#undef SORT_VALUE_T
#undef SORT_KEY_T

static void map_keys(const ts_sort_plan *plan, int64_t n, void *keys, bool to_ordered) {
  ts_sort_key key = plan->options.key;
  bool descending = plan->options.order == TS_SORT_DESCENDING;
  if (!tsi_sort_needs_map(key, plan->options.order))
    return;
  if (plan->key_size == 4) {
    uint32_t *k = keys;
#pragma omp parallel for schedule(static) if (n > TSI_SORT_CPU_PARALLEL_MIN)
    for (int64_t i = 0; i < n; i++)
      k[i] = tsi_sort_map32(k[i], key, descending, to_ordered);
  } else {
    uint64_t *k = keys;
#pragma omp parallel for schedule(static) if (n > TSI_SORT_CPU_PARALLEL_MIN)
    for (int64_t i = 0; i < n; i++)
      k[i] = tsi_sort_map64(k[i], key, descending, to_ordered);
  }
}

ts_status tsi_sort_cpu(const ts_sort_plan *plan, int64_t n, void *keys, void *values, void *workspace) {
  char *alt_keys = workspace;
  char *alt_values = alt_keys + tsi_sort_align((size_t)plan->options.max_n * plan->key_size);
  if (plan->options.value == TS_SORT_VALUE_INDEX) {
    int32_t *index = values;
#pragma omp parallel for schedule(static) if (n > TSI_SORT_CPU_PARALLEL_MIN)
    for (int64_t i = 0; i < n; i++)
      index[i] = (int32_t)i;
  }
  map_keys(plan, n, keys, true);
  size_t v = plan->options.value == TS_SORT_VALUE_NONE ? 0 : plan->value_size;
  if (plan->key_size == 4) {
    if (v == 0)
      sort_cpu_k32(n, keys, NULL, (uint32_t *)alt_keys, NULL);
    else if (v == 4)
      sort_cpu_k32_v32(n, keys, values, (uint32_t *)alt_keys, (uint32_t *)alt_values);
    else
      sort_cpu_k32_v64(n, keys, values, (uint32_t *)alt_keys, (uint64_t *)alt_values);
  } else {
    if (v == 0)
      sort_cpu_k64(n, keys, NULL, (uint64_t *)alt_keys, NULL);
    else if (v == 4)
      sort_cpu_k64_v32(n, keys, values, (uint64_t *)alt_keys, (uint32_t *)alt_values);
    else
      sort_cpu_k64_v64(n, keys, values, (uint64_t *)alt_keys, (uint64_t *)alt_values);
  }
  map_keys(plan, n, keys, false);
  return TS_SUCCESS;
}
