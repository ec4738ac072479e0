/* Helpers of the Matrix Market stream and writer tests: a fresh folder per
 * test, whole files in and out, gzip in memory (zlib), and a child process
 * that feeds bytes into a descriptor in uneven pieces. */
#ifndef TESSERA_MM_TEST_UTIL_H
#define TESSERA_MM_TEST_UTIL_H

#define _XOPEN_SOURCE 700
#include "test_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#define ZLIB_CONST /* next_in is const */
#include <zlib.h>

/* A byte string owned by the caller. */
typedef struct mm_bytes {
  char *data;
  size_t size;
} mm_bytes;

/* An empty folder <TESSERA_TEST_TMP>/<name> (emptied when it exists). */
static inline const char *mm_test_folder(const char *name) {
  static char folder[4096];
  const char *tmp = getenv("TESSERA_TEST_TMP");
  snprintf(folder, sizeof folder, "%s/%s", tmp && *tmp ? tmp : ".", name);
  DIR *dir = opendir(folder);
  if (dir) {
    struct dirent *entry;
    char path[4400];
    while ((entry = readdir(dir)) != NULL) {
      if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
        continue;
      snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
      (void)unlink(path);
      (void)rmdir(path);
    }
    closedir(dir);
  } else {
    CHECK_MSG(mkdir(folder, 0777) == 0, "mkdir %s: %s", folder, strerror(errno));
  }
  return folder;
}

/* How many entries of a folder have names containing `part`. */
static inline int mm_test_count_names(const char *folder, const char *part) {
  DIR *dir = opendir(folder);
  int count = 0;
  struct dirent *entry;
  while (dir && (entry = readdir(dir)) != NULL)
    count += strstr(entry->d_name, part) != NULL;
  if (dir)
    closedir(dir);
  return count;
}

static inline bool mm_test_write_file(const char *path, const char *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return false;
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

/* The whole file (data NULL when it cannot be read). */
static inline mm_bytes mm_test_read_file(const char *path) {
  mm_bytes b = {NULL, 0};
  FILE *f = fopen(path, "rb");
  if (!f)
    return b;
  size_t capacity = 1 << 16;
  b.data = malloc(capacity);
  size_t got;
  while (b.data && (got = fread(b.data + b.size, 1, capacity - b.size, f)) > 0) {
    b.size += got;
    if (b.size == capacity) {
      char *larger = realloc(b.data, capacity *= 2);
      if (!larger)
        free(b.data);
      b.data = larger;
    }
  }
  fclose(f);
  return b;
}

/* gzip of size bytes (one member), compressed with zlib. */
static inline mm_bytes mm_test_gzip(const char *text, size_t size) {
  mm_bytes b = {NULL, 0};
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return b;
  size_t capacity = deflateBound(&z, (uLong)size) + 64;
  b.data = malloc(capacity);
  z.next_in = (const Bytef *)text;
  z.avail_in = (uInt)size;
  z.next_out = (Bytef *)b.data;
  z.avail_out = (uInt)capacity;
  if (!b.data || deflate(&z, Z_FINISH) != Z_STREAM_END) {
    free(b.data);
    b.data = NULL;
  } else {
    b.size = capacity - z.avail_out;
  }
  deflateEnd(&z);
  return b;
}

/* Fork a child that writes `size` bytes to the descriptor it opens with
 * open_path (a FIFO) or to fd, in pieces of 1, 3, 7, ... up to 64 KiB bytes
 * (uneven reads on the other side), then exits; it first closes
 * `other_end` (the reading end of a pipe, so that a reader that stops early
 * does not leave it blocked). Returns the child's pid. */
static inline pid_t mm_test_feed(int fd, int other_end, const char *open_path, const char *data, size_t size) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  signal(SIGPIPE, SIG_DFL);
  if (other_end >= 0)
    close(other_end);
  if (open_path)
    fd = open(open_path, O_WRONLY);
  size_t done = 0, piece = 1;
  while (fd >= 0 && done < size) {
    size_t n = size - done < piece ? size - done : piece;
    ssize_t w = write(fd, data + done, n);
    if (w <= 0)
      _exit(1);
    done += (size_t)w;
    piece = piece * 2 + 1 < 65536 ? piece * 2 + 1 : 65536;
  }
  _exit(fd >= 0 ? 0 : 2);
}

/* Wait for a feeding child; its exit status (-1 when killed). */
static inline int mm_test_wait(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
