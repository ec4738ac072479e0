/* The CPU backend of a search plan: a binary search of the ordered keys per
 * query (OpenMP over the queries). The reference every GPU algorithm is
 * tested against. */
#include "core/convert_internal.h"
#include "search/search_internal.h"
#include "search/search_tuning.h"

/* Number of ordered keys < q (the lower bound of q), for one key width. */
#define DEFINE_COUNT_BELOW(name, Bits)                                                                                 \
  static int64_t name(const Bits *keys, int64_t n, Bits q) {                                                           \
    int64_t lo = 0, len = n;                                                                                           \
    while (len > 0) {                                                                                                  \
      int64_t half = len >> 1;                                                                                         \
      if (keys[lo + half] < q) {                                                                                       \
        lo += half + 1;                                                                                                \
        len -= half + 1;                                                                                               \
      } else {                                                                                                         \
        len = half;                                                                                                    \
      }                                                                                                                \
    }                                                                                                                  \
    return lo;                                                                                                         \
  }
DEFINE_COUNT_BELOW(count_below32, uint32_t)
DEFINE_COUNT_BELOW(count_below64, uint64_t)

/* An upper bound is the lower bound of q + 1, or n when q is the largest value. */
static int64_t bound_of(const ts_search_plan *plan, uint64_t q, bool upper) {
  if (plan->key_size == 4) {
    if (upper && q == 0xffffffffull)
      return plan->n;
    return count_below32((const uint32_t *)plan->ordered, plan->n, (uint32_t)(q + upper));
  }
  if (upper && q == ~0ull)
    return plan->n;
  return count_below64((const uint64_t *)plan->ordered, plan->n, q + upper);
}

ts_status tsi_search_cpu(ts_search_plan *plan, ts_search_bound bound, const void *queries, int64_t count,
                         void *results) {
  const bool upper = bound == TS_BOUND_UPPER;
  const int threads = tsi_thread_count(plan->ctx); /* the context's thread count */
  (void)threads;
  if (plan->index_size == 8) {
    int64_t *out = results;
#pragma omp parallel for schedule(static) num_threads(threads) if (count >= TSI_SEARCH_CPU_PARALLEL_MIN)
    for (int64_t i = 0; i < count; i++)
      out[i] = bound_of(plan, tsi_order_key(plan->type, queries, i), upper);
  } else {
    int32_t *out = results;
#pragma omp parallel for schedule(static) num_threads(threads) if (count >= TSI_SEARCH_CPU_PARALLEL_MIN)
    for (int64_t i = 0; i < count; i++)
      out[i] = (int32_t)bound_of(plan, tsi_order_key(plan->type, queries, i), upper);
  }
  return TS_SUCCESS;
}
