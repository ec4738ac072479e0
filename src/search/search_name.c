/* Names of key types and search algorithms, and key sizes. */
#include "search/search_internal.h"

size_t ts_key_type_size(ts_key_type type) {
  switch (type) {
  case TS_KEY_UINT32:
  case TS_KEY_INT32:
  case TS_KEY_FLOAT32:
    return 4;
  case TS_KEY_UINT64:
  case TS_KEY_FLOAT64:
    return 8;
  }
  return 0;
}

const char *ts_key_type_name(ts_key_type type) {
  static const char *const names[TS_KEY_TYPE_COUNT] = {"uint32", "int32", "float", "uint64", "double"};
  return ((int)type >= 0 && (int)type < TS_KEY_TYPE_COUNT) ? names[type] : "unknown";
}

const char *ts_search_algorithm_name(ts_search_algorithm algorithm) {
  static const char *const names[TS_SEARCH_ALGORITHM_COUNT] = {"auto", "binary",     "eytzinger",
                                                               "kary", "merge-path", "radix"};
  return ((int)algorithm >= 0 && (int)algorithm < TS_SEARCH_ALGORITHM_COUNT) ? names[algorithm] : "unknown";
}

const char *ts_search_batched_algorithm_name(ts_search_batched_algorithm algorithm) {
  switch (algorithm) {
  case TS_SEARCH_BATCHED_AUTO:
    return "auto";
  case TS_SEARCH_BATCHED_NAIVE:
    return "naive";
  case TS_SEARCH_BATCHED_CONFLICT_LIMITED:
    return "conflict-limited";
  }
  return "unknown";
}
