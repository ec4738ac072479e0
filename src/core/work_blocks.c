/* Blocks of work between two cancellation checks (see tsi_check_cancel). */
#include "internal.h"

int64_t tsi_block_end_by_work(const int64_t *offsets, int64_t start, int64_t n) {
  /* The first item past start whose offset reaches start's + the budget. */
  int64_t lo = start + 1, hi = n, goal = offsets[start] + TSI_CANCEL_BLOCK;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] < goal)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}
