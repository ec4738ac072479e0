/* Checked host allocation and overflow helpers. */
#include "core/internal.h"

#include <stdlib.h>

bool tsi_mul_overflows(int64_t a, int64_t b, int64_t *out) {
  if (a < 0 || b < 0)
    return true;
  if (a != 0 && b > INT64_MAX / a)
    return true;
  *out = a * b;
  return false;
}

void *tsi_malloc_array(int64_t count, size_t size) {
  int64_t bytes;
  if (size > (size_t)INT64_MAX || tsi_mul_overflows(count, (int64_t)size, &bytes))
    return NULL;
  if ((uint64_t)bytes > (uint64_t)SIZE_MAX)
    return NULL;
  /* malloc(0) may return NULL; callers treat a 0-length array as valid. */
  return malloc(bytes > 0 ? (size_t)bytes : 1);
}

void *tsi_calloc_array(int64_t count, size_t size) {
  int64_t bytes;
  if (size > (size_t)INT64_MAX || tsi_mul_overflows(count, (int64_t)size, &bytes))
    return NULL;
  if ((uint64_t)bytes > (uint64_t)SIZE_MAX)
    return NULL;
  return calloc(count > 0 ? (size_t)count : 1, size > 0 ? size : 1);
}
