/* A stable host sort in the documented order of tessera/sort.h: integers by
 * value; floats -inf < negatives < -0 < +0 < positives < +inf < NaNs, the
 * NaNs positive first, each sign by payload; descending reverses all but
 * the NaNs, which stay last. qsort on runs, ties broken by input position,
 * then a bottom-up merge of the runs. */
#include "cli_sort_reference.h"
#include "cli_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Keys per qsort run: a fraction of a second each, so that Ctrl-C is seen soon. */
#define REFERENCE_RUN ((int64_t)1 << 20)

typedef struct sort_entry {
  uint64_t bits; /* the key's bits, zero-extended */
  int64_t index; /* input position */
} sort_entry;

/* qsort's comparator has no context argument: the key type and the order
 * of the sort in progress. */
static ts_sort_key reference_key;
static bool reference_descending;

/* -1, 0, 1: a against b among non-NaN values, ascending. */
static int compare_numbers(uint64_t a, uint64_t b) {
  switch (reference_key) {
  case TS_SORT_KEY_UINT32:
  case TS_SORT_KEY_UINT64:
    return (a > b) - (a < b);
  case TS_SORT_KEY_INT32:
    return ((int32_t)(uint32_t)a > (int32_t)(uint32_t)b) - ((int32_t)(uint32_t)a < (int32_t)(uint32_t)b);
  default:
    break;
  }
  double x, y;
  if (reference_key == TS_SORT_KEY_FLOAT32) {
    float fx, fy;
    uint32_t ax = (uint32_t)a, by = (uint32_t)b;
    memcpy(&fx, &ax, sizeof fx);
    memcpy(&fy, &by, sizeof fy);
    x = fx;
    y = fy;
  } else {
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
  }
  if (x != y)
    return (x > y) - (x < y);
  return (signbit(y) != 0) - (signbit(x) != 0); /* -0 before +0 */
}

static bool is_nan(uint64_t bits) {
  if (reference_key == TS_SORT_KEY_FLOAT32) {
    float f;
    uint32_t b = (uint32_t)bits;
    memcpy(&f, &b, sizeof f);
    return isnan(f);
  }
  if (reference_key == TS_SORT_KEY_FLOAT64) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return isnan(d);
  }
  return false;
}

/* NaNs among themselves: positive ones first, each sign by payload. */
static int compare_nans(uint64_t a, uint64_t b) {
  int sign_bit = reference_key == TS_SORT_KEY_FLOAT32 ? 31 : 63;
  uint64_t payload_mask = reference_key == TS_SORT_KEY_FLOAT32 ? 0x7FFFFFull : 0xFFFFFFFFFFFFFull;
  int sa = (int)((a >> sign_bit) & 1), sb = (int)((b >> sign_bit) & 1);
  if (sa != sb)
    return sa - sb;
  uint64_t pa = a & payload_mask, pb = b & payload_mask;
  return (pa > pb) - (pa < pb);
}

static int compare_entries(const void *left, const void *right) {
  const sort_entry *a = left, *b = right;
  bool nan_a = is_nan(a->bits), nan_b = is_nan(b->bits);
  int order;
  if (nan_a || nan_b)
    order = nan_a && nan_b ? compare_nans(a->bits, b->bits) : (nan_a ? 1 : -1);
  else
    order = reference_descending ? -compare_numbers(a->bits, b->bits) : compare_numbers(a->bits, b->bits);
  if (order != 0)
    return order;
  return (a->index > b->index) - (a->index < b->index);
}

/* Merge the sorted runs from[lo, mid) and from[mid, hi) into to[lo, hi), stably. */
static void merge_runs(const sort_entry *from, sort_entry *to, int64_t lo, int64_t mid, int64_t hi) {
  int64_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi)
    to[k++] = compare_entries(&from[j], &from[i]) < 0 ? from[j++] : from[i++];
  while (i < mid)
    to[k++] = from[i++];
  while (j < hi)
    to[k++] = from[j++];
}

ts_status cli_sort_reference(ts_sort_key key, bool descending, ts_sort_value value, const void *keys, int64_t n,
                             void *sorted_keys, void *sorted_values, cli_progress *progress) {
  size_t key_size = ts_sort_key_size(key);
  sort_entry *entries = malloc((size_t)(n > 0 ? n : 1) * sizeof *entries);
  sort_entry *scratch = malloc((size_t)(n > 0 ? n : 1) * sizeof *scratch);
  if (!entries || !scratch) {
    free(entries);
    free(scratch);
    cli_set_error("no host memory for the reference sort of %lld keys", (long long)n);
    return TS_ERROR_OUT_OF_MEMORY;
  }
  for (int64_t i = 0; i < n; i++) {
    if (key_size == sizeof(uint32_t)) {
      uint32_t bits;
      memcpy(&bits, (const char *)keys + (size_t)i * key_size, sizeof bits);
      entries[i].bits = bits;
    } else {
      memcpy(&entries[i].bits, (const char *)keys + (size_t)i * key_size, sizeof entries[i].bits);
    }
    entries[i].index = i;
  }
  reference_key = key;
  reference_descending = descending;
  ts_status status = TS_SUCCESS;
  int64_t runs = (n + REFERENCE_RUN - 1) / REFERENCE_RUN, steps = runs, done = 0;
  for (int64_t width = REFERENCE_RUN; width < n; width *= 2)
    steps += (n + 2 * width - 1) / (2 * width);
  for (int64_t lo = 0; lo < n && status == TS_SUCCESS; lo += REFERENCE_RUN) {
    int64_t length = n - lo < REFERENCE_RUN ? n - lo : REFERENCE_RUN;
    qsort(entries + lo, (size_t)length, sizeof *entries, compare_entries);
    if (cli_progress_report(progress, ++done, steps) != 0)
      status = TS_ERROR_CANCELLED;
  }
  for (int64_t width = REFERENCE_RUN; width < n && status == TS_SUCCESS; width *= 2) {
    for (int64_t lo = 0; lo < n && status == TS_SUCCESS; lo += 2 * width) {
      int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      merge_runs(entries, scratch, lo, mid, hi);
      if (cli_progress_report(progress, ++done, steps) != 0)
        status = TS_ERROR_CANCELLED;
    }
    sort_entry *swap = entries;
    entries = scratch;
    scratch = swap;
  }
  for (int64_t i = 0; i < n && status == TS_SUCCESS; i++) {
    if (key_size == sizeof(uint32_t)) {
      uint32_t bits = (uint32_t)entries[i].bits;
      memcpy((char *)sorted_keys + (size_t)i * key_size, &bits, sizeof bits);
    } else {
      memcpy((char *)sorted_keys + (size_t)i * key_size, &entries[i].bits, sizeof entries[i].bits);
    }
    int64_t from = entries[i].index;
    if (value == TS_SORT_VALUE_UINT32)
      ((uint32_t *)sorted_values)[i] = (uint32_t)from;
    else if (value == TS_SORT_VALUE_UINT64)
      ((uint64_t *)sorted_values)[i] = (uint64_t)from << 20;
    else if (value == TS_SORT_VALUE_INDEX)
      ((int32_t *)sorted_values)[i] = (int32_t)from;
  }
  free(entries);
  free(scratch);
  return status;
}
