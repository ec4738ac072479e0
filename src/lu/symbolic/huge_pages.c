/* Large arrays of the LU analysis that are written or read at random (the
 * columns of L + U filled row by row, the rows of U read by later rows):
 * transparent huge pages, where the system offers them on request, cut the
 * TLB misses of those accesses (4 KiB pages: one miss per access past a few
 * MiB) and the page faults of first touch. Advice only: nothing changes in
 * the results, and nothing happens where it is not supported. */
#define _DEFAULT_SOURCE 1

#include "lu/symbolic/symbolic_internal.h"

#include <stdint.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

void tsi_lu_advise_huge_pages(void *memory, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (!memory || bytes < TSI_LU_HUGE_PAGES_MIN)
    return;
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0)
    return;
  uintptr_t begin = ((uintptr_t)memory + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
  uintptr_t end = ((uintptr_t)memory + bytes) / (uintptr_t)page * (uintptr_t)page;
  if (end > begin)
    (void)madvise((char *)memory + (begin - (uintptr_t)memory), end - begin, MADV_HUGEPAGE);
#else
  (void)memory;
  (void)bytes;
#endif
}
