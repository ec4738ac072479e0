/* Matrix Market reading and writing of two builds of the shared library in
 * one process, on the same files: a change to the reader or the writer
 * measured against its own anchor, interleaved (A, B, A, B, ...) so that the
 * load of a shared machine falls on both alike. CPU time of the process is
 * reported beside the wall time: on a loaded machine it is the steadier one.
 *
 * Usage: mm_io_ab A.so B.so [--write FOLDER] FILE...
 * Each FILE is read three times by each build (ts_mm_read, double); with
 * --write, the first file's matrix is also written three times by each
 * build to FOLDER/mm_io_ab.mtx and FOLDER/mm_io_ab.mtx.gz (removed after). */
#define _POSIX_C_SOURCE 200809L
#include "tessera.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef ts_status (*read_fn)(ts_context *, const char *, ts_dtype, ts_coo **, ts_mm_info *);
typedef ts_status (*write_fn)(ts_context *, const char *, const ts_coo *, const ts_mm_write_options *);
typedef void (*destroy_fn)(ts_coo *);

typedef struct build {
  const char *path;
  read_fn read;
  write_fn write;
  destroy_fn destroy;
} build;

enum { REPEATS = 3 };

static double seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int load(build *b) {
  void *handle = dlopen(b->path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  b->read = (read_fn)dlsym(handle, "ts_mm_read");
  b->write = (write_fn)dlsym(handle, "ts_mm_write_coo");
  b->destroy = (destroy_fn)dlsym(handle, "ts_coo_destroy");
  return !b->read || !b->write || !b->destroy;
}

/* Best CPU and wall seconds of REPEATS interleaved runs of each build; the
 * matrix read by build B stays in *kept when kept is not NULL. */
static int measure(build builds[2], const char *file, const char *target, const ts_coo *matrix, ts_coo **kept) {
  double best_cpu[2] = {1e30, 1e30}, best_wall[2] = {1e30, 1e30};
  for (int r = 0; r < REPEATS; r++)
    for (int i = 0; i < 2; i++) {
      ts_coo *coo = NULL;
      double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
      ts_status st =
          target ? builds[i].write(NULL, target, matrix, NULL) : builds[i].read(NULL, file, TS_FLOAT64, &coo, NULL);
      cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
      wall = seconds(CLOCK_MONOTONIC) - wall;
      if (st != TS_SUCCESS) {
        fprintf(stderr, "%s: status %d\n", builds[i].path, (int)st);
        return 1;
      }
      if (kept && i == 1 && r == REPEATS - 1)
        *kept = coo;
      else
        builds[i].destroy(coo);
      best_cpu[i] = cpu < best_cpu[i] ? cpu : best_cpu[i];
      best_wall[i] = wall < best_wall[i] ? wall : best_wall[i];
    }
  printf("| %s %s | %.2f | %.2f | %.3f | %.2f | %.2f |\n", target ? "write" : "read", target ? target : file,
         best_cpu[0], best_cpu[1], best_cpu[1] / best_cpu[0], best_wall[0], best_wall[1]);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s A.so B.so [--write FOLDER] FILE...\n", argv[0]);
    return 2;
  }
  build builds[2] = {{argv[1], NULL, NULL, NULL}, {argv[2], NULL, NULL, NULL}};
  if (load(&builds[0]) || load(&builds[1]))
    return 1;
  int first = 3;
  const char *folder = NULL;
  if (strcmp(argv[3], "--write") == 0 && argc > 5) {
    folder = argv[4];
    first = 5;
  }
  printf("command:");
  for (int i = 0; i < argc; i++)
    printf(" %s", argv[i]);
  printf("\n\n| operation | CPU s, A | CPU s, B | B / A | wall s, A | wall s, B |\n|---|---|---|---|---|---|\n");
  ts_coo *matrix = NULL;
  for (int f = first; f < argc; f++)
    if (measure(builds, argv[f], NULL, NULL, f == first ? &matrix : NULL))
      return 1;
  if (folder && matrix) {
    const char *names[2] = {"mm_io_ab.mtx", "mm_io_ab.mtx.gz"};
    for (int n = 0; n < 2; n++) {
      char target[4096];
      snprintf(target, sizeof target, "%s/%s", folder, names[n]);
      int failed = measure(builds, NULL, target, matrix, NULL);
      remove(target);
      if (failed)
        return 1;
    }
  }
  builds[1].destroy(matrix);
  return 0;
}
