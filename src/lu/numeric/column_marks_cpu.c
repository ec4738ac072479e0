/* Sleeping on a column mark of the host's dataflow factorization, and
 * waking its sleepers: a futex on Linux (the kernel queues the waiters on
 * the mark's address; a wake costs a system call only when someone sleeps,
 * which the mark's value records), yields elsewhere. */
#define _GNU_SOURCE
#include "lu/numeric/numeric_internal.h"

#include <limits.h>
#include <sched.h>
#include <stdbool.h>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

void tsi_lu_mark_sleep(int *mark) {
  for (;;) {
    int seen = TSI_LU_MARK_RUNNING;
    if (!__atomic_compare_exchange_n(mark, &seen, TSI_LU_MARK_SLEEPER, false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE) &&
        seen == TSI_LU_MARK_READY)
      return;
#ifdef __linux__
    /* Returns at once when the mark is no longer SLEEPER (set ready meanwhile). */
    syscall(SYS_futex, mark, FUTEX_WAIT_PRIVATE, TSI_LU_MARK_SLEEPER, NULL, NULL, 0);
#else
    sched_yield();
#endif
    if (__atomic_load_n(mark, __ATOMIC_ACQUIRE) == TSI_LU_MARK_READY)
      return;
  }
}

void tsi_lu_mark_wake(int *mark) {
#ifdef __linux__
  syscall(SYS_futex, mark, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
  (void)mark;
#endif
}
