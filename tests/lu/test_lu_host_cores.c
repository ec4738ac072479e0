/* The free-core check's count of this process's own runnable threads
 * (tsi_lu_own_runnable_threads), which tsi_lu_free_cores leaves out of the
 * machine's load: a thread of the test that spins is counted, one that
 * sleeps is not, and neither is the caller; the count falls back once the
 * spinning thread has ended. Linux only (elsewhere the count is 0). */
#include "lu/lu_internal.h"
#include "test_common.h"

#include <pthread.h>
#include <time.h>

static int spinning_started, stop_spinning, sleeper_started, stop_sleeping; /* read and written atomically */
static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sleep_signal = PTHREAD_COND_INITIALIZER;

static void *spin(void *unused) {
  (void)unused;
  __atomic_store_n(&spinning_started, 1, __ATOMIC_SEQ_CST);
  while (!__atomic_load_n(&stop_spinning, __ATOMIC_SEQ_CST)) {
  }
  return NULL;
}

static void *sleep_until_told(void *unused) {
  (void)unused;
  pthread_mutex_lock(&sleep_lock);
  __atomic_store_n(&sleeper_started, 1, __ATOMIC_SEQ_CST);
  while (!__atomic_load_n(&stop_sleeping, __ATOMIC_SEQ_CST))
    pthread_cond_wait(&sleep_signal, &sleep_lock);
  pthread_mutex_unlock(&sleep_lock);
  return NULL;
}

/* The count once it is `want`, polled for up to a second: a thread just
 * started or just blocked may take a moment to show its state. */
static int own_count_reaching(int want) {
  int got = -1;
  for (int tries = 0; tries < 1000; tries++) {
    got = tsi_lu_own_runnable_threads();
    if (got == want)
      break;
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
  return got;
}

int main(void) {
#ifdef __linux__
  CHECK_MSG(tsi_lu_own_runnable_threads() == 0, "the caller alone: %d own runnable threads",
            tsi_lu_own_runnable_threads());

  pthread_t sleeper, spinner;
  CHECK(pthread_create(&sleeper, NULL, sleep_until_told, NULL) == 0);
  while (!__atomic_load_n(&sleeper_started, __ATOMIC_SEQ_CST)) {
  }
  int asleep = own_count_reaching(0);
  CHECK_MSG(asleep == 0, "a sleeping thread counted: %d", asleep);

  CHECK(pthread_create(&spinner, NULL, spin, NULL) == 0);
  while (!__atomic_load_n(&spinning_started, __ATOMIC_SEQ_CST)) {
  }
  int spinning = own_count_reaching(1);
  CHECK_MSG(spinning == 1, "one spinning thread, one sleeping: %d counted", spinning);

  __atomic_store_n(&stop_spinning, 1, __ATOMIC_SEQ_CST);
  CHECK(pthread_join(spinner, NULL) == 0);
  int after = own_count_reaching(0);
  CHECK_MSG(after == 0, "the spinning thread ended: %d counted", after);

  pthread_mutex_lock(&sleep_lock);
  __atomic_store_n(&stop_sleeping, 1, __ATOMIC_SEQ_CST);
  pthread_cond_signal(&sleep_signal);
  pthread_mutex_unlock(&sleep_lock);
  CHECK(pthread_join(sleeper, NULL) == 0);

  /* Whatever the machine's load, the answer stays within [1, wanted]. */
  for (int wanted = 1; wanted <= 4; wanted++) {
    int free_cores = tsi_lu_free_cores(wanted);
    CHECK_MSG(free_cores >= 1 && free_cores <= wanted, "%d free cores of %d wanted", free_cores, wanted);
  }
#endif
  return test_finish();
}
