/* Shared by the search tests: typed keys and queries with duplicates,
 * extremes, infinities, signed zeros and NaNs; and the naive reference, a
 * linear count written from the documented order (NaNs last and equal,
 * -0.0 == +0.0), independent of tessera's ordered bits. */
#ifndef TESSERA_TEST_SEARCH_COMMON_H
#define TESSERA_TEST_SEARCH_COMMON_H

#include "test_common.h"
#include "tessera/search.h"

#include <stdbool.h>

#include <stdint.h>

/* a < b in the documented order, for key i of a and key j of b. */
static inline bool search_less(ts_key_type type, const void *a, int64_t i, const void *b, int64_t j) {
  switch (type) {
  case TS_KEY_UINT32:
    return ((const uint32_t *)a)[i] < ((const uint32_t *)b)[j];
  case TS_KEY_INT32:
    return ((const int32_t *)a)[i] < ((const int32_t *)b)[j];
  case TS_KEY_UINT64:
    return ((const uint64_t *)a)[i] < ((const uint64_t *)b)[j];
  case TS_KEY_FLOAT32: {
    float x = ((const float *)a)[i], y = ((const float *)b)[j];
    return isnan(y) ? !isnan(x) : x < y;
  }
  case TS_KEY_FLOAT64: {
    double x = ((const double *)a)[i], y = ((const double *)b)[j];
    return isnan(y) ? !isnan(x) : x < y;
  }
  }
  return false;
}

/* Naive bound: count of keys < q (lower) or not > q (upper), key by key. */
static inline int64_t search_naive(ts_key_type type, ts_search_bound bound, const void *keys, int64_t n,
                                   const void *queries, int64_t j) {
  int64_t c = 0;
  for (int64_t i = 0; i < n; i++)
    c += bound == TS_BOUND_LOWER ? search_less(type, keys, i, queries, j) : !search_less(type, queries, j, keys, i);
  return c;
}

/* Value number v (0 <= v < 64, increasing in the key order) of @p type:
 * the extremes; for floats -inf first, then negatives, -0.0/+0.0
 * (31), positives, +inf (62), NaN (63, either sign). */
static inline void search_value(ts_key_type type, int v, void *out, int64_t i) {
  /* Positive values, each more than twice the one before. */
  static const double ladder[15] = {1e-30, 1e-3, 0.25, 0.75, 2, 5, 11, 77.5, 1000.5, 1e5, 1e9, 1e15, 1e20, 1e25, 1e30};
  switch (type) {
  case TS_KEY_UINT32:
    ((uint32_t *)out)[i] = v == 63 ? UINT32_MAX : (uint32_t)v * 67108864u;
    break;
  case TS_KEY_INT32:
    ((int32_t *)out)[i] = v == 0 ? INT32_MIN : v == 63 ? INT32_MAX : (int32_t)((v - 32) * 50000000);
    break;
  case TS_KEY_UINT64:
    ((uint64_t *)out)[i] = v == 63 ? UINT64_MAX : (uint64_t)v * 0x0400000000000000ull;
    break;
  case TS_KEY_FLOAT32:
  case TS_KEY_FLOAT64: {
    double x;
    if (v == 0)
      x = -INFINITY;
    else if (v == 62)
      x = INFINITY;
    else if (v == 63)
      x = (i % 2) ? NAN : -NAN; /* NaNs of both signs are equal and last */
    else if (v == 31)
      x = (i % 2) ? 0.0 : -0.0; /* equal in the order */
    else if (v > 31)
      x = ladder[(v - 32) / 2] * (1.0 + (double)((v - 32) % 2));
    else
      x = -ladder[(30 - v) / 2] * (1.0 + (double)((30 - v) % 2));
    if (type == TS_KEY_FLOAT32)
      ((float *)out)[i] = (float)x;
    else
      ((double *)out)[i] = x;
    break;
  }
  }
}

/* Fill n sorted keys with values from [lo, hi] (duplicates when the range is
 * narrow), by a non-decreasing random walk. */
static inline void search_sorted_keys(ts_key_type type, void *keys, int64_t n, int lo, int hi,
                                      unsigned long long *seed) {
  for (int64_t i = 0; i < n; i++) {
    double u = 0.5 * (test_random(seed) + 1.0);
    int v = lo + (int)((double)(hi - lo + 1) * ((double)i + u) / (double)(n + 1));
    if (v > hi)
      v = hi;
    search_value(type, v, keys, i);
  }
  /* Make sure the walk is non-decreasing despite the jitter. */
  for (int64_t i = 1; i < n; i++)
    if (search_less(type, keys, i, keys, i - 1))
      memcpy((char *)keys + i * ts_key_type_size(type), (char *)keys + (i - 1) * ts_key_type_size(type),
             ts_key_type_size(type));
}

/* Random queries over every value number (so below, between, equal to and
 * above the keys, and NaN for floats). */
static inline void search_random_queries(ts_key_type type, void *queries, int64_t count, unsigned long long *seed) {
  for (int64_t i = 0; i < count; i++) {
    int v = (int)(32.0 * (test_random(seed) + 1.0));
    search_value(type, v > 63 ? 63 : v, queries, i);
  }
}

/* A device buffer of the context holding @p bytes of @p data (may be NULL). */
static inline ts_buffer *search_buffer(ts_context *ctx, const void *data, size_t bytes) {
  ts_buffer *b = NULL;
  if (ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &b) != TS_SUCCESS)
    return NULL;
  if (data && bytes > 0 && ts_buffer_upload(ctx, b, 0, data, bytes) != TS_SUCCESS) {
    ts_buffer_destroy(b);
    return NULL;
  }
  return b;
}

static inline int64_t search_result(const void *results, size_t index_size, int64_t i) {
  return index_size == 8 ? ((const int64_t *)results)[i] : ((const int32_t *)results)[i];
}

#endif
