/* Wall-clock seconds for the phase timings of the LU analysis. */
#ifndef TESSERA_LU_ANALYSIS_TIME_H
#define TESSERA_LU_ANALYSIS_TIME_H

#include <time.h>

/* C11's timespec_get: portable without POSIX feature macros; the phases
 * last milliseconds or more, far above its resolution. */
static inline double tsi_lu_seconds(void) {
  struct timespec now;
  if (timespec_get(&now, TIME_UTC) != TIME_UTC)
    return 0.0;
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

#endif
