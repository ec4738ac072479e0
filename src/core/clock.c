/* The library's one clock: seconds on a monotonic clock. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"

#include <time.h>

/* POSIX's CLOCK_MONOTONIC where the C library has it (never steps back when
 * the wall clock is set); C11's timespec_get otherwise. */
double tsi_seconds(void) {
  struct timespec now;
#if defined(CLOCK_MONOTONIC) && defined(_POSIX_C_SOURCE)
  if (clock_gettime(CLOCK_MONOTONIC, &now) == 0)
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
#endif
  if (timespec_get(&now, TIME_UTC) != TIME_UTC)
    return 0.0;
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}
