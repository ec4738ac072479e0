/* How many threads find a free core now: the cores this process may run
 * on, less the threads of other processes already runnable (Linux counts
 * every runnable thread in the fourth field of /proc/loadavg; this
 * process's own, read from /proc/self/task, are taken off, since its
 * OpenMP workers spin for a while after each parallel part and would
 * otherwise make the next part, a moment later, find the cores taken and
 * run on one thread). Read only before parts large enough for threads
 * (tens of microseconds). A
 * threaded part on a machine whose cores are taken by other work waits, at
 * each point where one thread waits for another, for the scheduler to give
 * the other a core again: a time slice, several ms. */
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
/* This process's threads that are runnable now (state R in
 * /proc/self/task/TID/stat, after the command name's closing parenthesis);
 * the caller is one of them. -1 when the files cannot be read. */
static int own_runnable_threads(void) {
  DIR *tasks = opendir("/proc/self/task");
  if (!tasks)
    return -1;
  int runnable = 0;
  const struct dirent *entry;
  while ((entry = readdir(tasks)) != NULL) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
      continue;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", entry->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue; /* the thread ended meanwhile */
    char text[512];
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0)
      continue;
    text[got] = '\0';
    const char *close_paren = strrchr(text, ')');
    if (close_paren && close_paren[1] == ' ' && close_paren[2] == 'R')
      runnable++;
  }
  closedir(tasks);
  return runnable;
}

static int usable_cores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return CPU_COUNT(&set);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 && online < 1 << 20 ? (int)online : 1;
}

int tsi_lu_free_cores(int wanted) {
  if (wanted <= 1)
    return 1;
  int running = runnable_threads();
  if (running < 0)
    return wanted;
  if (usable_cores() - (running - 1) >= wanted)
    return wanted; /* enough cores even if every other runnable thread is another process's */
  /* Without the task files, only the caller is known to be ours. */
  int own = own_runnable_threads();
  if (own < 1)
    own = 1;
  int free_cores = usable_cores() - (running > own ? running - own : 0);
  if (free_cores < 1)
    free_cores = 1;
  return free_cores < wanted ? free_cores : wanted;
}
#else
int tsi_lu_free_cores(int wanted) { return wanted > 1 ? wanted : 1; }
#endif
