/* The CPU backend of a search plan: a binary search of the ordered keys per
 * query (OpenMP over the queries). The reference every GPU algorithm is
 * tested against. */
#include "search_internal.h"

/* Number of ordered keys < q: an upper bound is the lower bound of q + 1,
 * or n when q is the largest value. */
static int64_t count_below(const void *ordered, size_t key_size, int64_t n, uint64_t q, bool upper) {
  if (upper) {
    if (q == (key_size == 4 ? 0xffffffffull : ~0ull))
      return n;
    q++;
  }
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    uint64_t key = key_size == 4 ? ((const uint32_t *)ordered)[mid] : ((const uint64_t *)ordered)[mid];
    if (key < q)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

ts_status tsi_search_cpu(ts_search_plan *plan, ts_search_bound bound, const void *queries, int64_t count,
                         void *results) {
  const bool upper = bound == TS_BOUND_UPPER;
  const bool wide = plan->index_size == 8;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; i++) {
    int64_t r = count_below(plan->ordered, plan->key_size, plan->n, tsi_order_key(plan->type, queries, i), upper);
    if (wide)
      ((int64_t *)results)[i] = r;
    else
      ((int32_t *)results)[i] = (int32_t)r;
  }
  return TS_SUCCESS;
}
