/* How many threads find a free core now: the cores this process may run
 * on, less the threads already runnable beside the caller (Linux counts
 * them, the caller included, in the fourth field of /proc/loadavg), this
 * process's own left out: those are, as a rule, the OpenMP runtime's idle
 * workers, which spin for a while after each parallel region (libgomp by
 * default) and join the next team on the core they hold. Read only
 * before parts large enough for threads (a few microseconds). A threaded
 * part on a machine whose cores are taken by other work waits, at each
 * point where one thread waits for another, for the scheduler to give the
 * other a core again: a time slice, several ms. */
#define _GNU_SOURCE
#include "lu/lu_internal.h"

#ifdef __linux__
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* This process's threads are looked at only while it has at most this
 * many (each costs a read of its stat file); beyond, none is counted. */
#define OWN_THREADS_LOOKED_AT 32

/* Runnable threads on the machine now, the caller included; -1 unknown. */
static int runnable_threads(void) {
  int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char text[256];
  ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0)
    return -1;
  text[got] = '\0';
  /* "0.50 0.40 0.30 3/512 4242": the fourth field's numerator. */
  const char *at = text;
  for (int field = 0; field < 3; field++) {
    while (*at && *at != ' ')
      at++;
    while (*at == ' ')
      at++;
  }
  char *end = NULL;
  long running = strtol(at, &end, 10);
  if (end == at || *end != '/' || running < 1)
    return -1;
  return running > 1 << 20 ? 1 << 20 : (int)running;
}

/* Cores this process may run on. */
static int usable_cores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return CPU_COUNT(&set);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 && online < 1 << 20 ? (int)online : 1;
}

/* Whether the thread of /proc/self/task/<name> is runnable: its stat's
 * state, the field after the command's closing parenthesis. */
static int task_runnable(const char *name) {
  char path[64];
  if (snprintf(path, sizeof path, "/proc/self/task/%s/stat", name) >= (int)sizeof path)
    return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char text[512];
  ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0)
    return 0;
  text[got] = '\0';
  const char *state = NULL;
  for (const char *at = text; *at; at++)
    if (*at == ')')
      state = at;
  return state && state[1] == ' ' && state[2] == 'R';
}

int tsi_lu_own_runnable_threads(void) {
  DIR *tasks = opendir("/proc/self/task");
  if (!tasks)
    return 0;
  char caller[24];
  snprintf(caller, sizeof caller, "%ld", (long)gettid());
  int runnable = 0, seen = 0;
  for (struct dirent *entry = readdir(tasks); entry; entry = readdir(tasks)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9' || strcmp(entry->d_name, caller) == 0)
      continue;
    if (++seen > OWN_THREADS_LOOKED_AT) {
      runnable = 0;
      break;
    }
    runnable += task_runnable(entry->d_name);
  }
  closedir(tasks);
  return runnable;
}

int tsi_lu_free_cores(int wanted) {
  if (wanted <= 1)
    return 1;
  int running = runnable_threads();
  if (running < 0)
    return wanted;
  int free_cores = usable_cores() - (running - 1);
  if (free_cores < wanted && running > 1) {
    int own = tsi_lu_own_runnable_threads();
    free_cores += own < running - 1 ? own : running - 1;
  }
  if (free_cores < 1)
    free_cores = 1;
  return free_cores < wanted ? free_cores : wanted;
}
#else
int tsi_lu_own_runnable_threads(void) { return 0; }
int tsi_lu_free_cores(int wanted) { return wanted > 1 ? wanted : 1; }
#endif
