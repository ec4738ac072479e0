/* The host's physical memory, for refusing up front an allocation that
 * could only be met by swapping or would end the process in the kernel's
 * out-of-memory handler (Linux overcommits: malloc then succeeds and the
 * first touch of the pages kills the process). */
#define _GNU_SOURCE
#include "core/internal.h"

#include <unistd.h>

int64_t tsi_host_memory_bytes(void) {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && (int64_t)pages <= INT64_MAX / (int64_t)page)
    return (int64_t)pages * (int64_t)page;
#endif
  return 0;
}
