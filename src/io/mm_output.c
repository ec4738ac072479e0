/* Where the writer's bytes go, so that nothing tessera did not create is ever
 * lost or removed:
 *  - a path naming a regular file, or nothing yet, is written to a new
 *    temporary file beside it, which replaces it by rename(2) only once all
 *    is written and flushed; a failure removes the temporary file only;
 *  - a path naming anything else (a character device such as /dev/full or
 *    /dev/null, a FIFO) is written directly, and never removed;
 *  - symbolic links are followed: the file they lead to is replaced, the
 *    links stay;
 *  - a descriptor is written as it is and left open.
 * SIGPIPE is held back while writing, so that a closed pipe is a failed call
 * (EPIPE) and not the end of the calling process. */
#define _POSIX_C_SOURCE 200809L
#include "mm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* Links followed before giving up, as the kernel does (ELOOP). */
#define MOST_LINKS 40

static ts_status output_error(tsi_mm_output *out, int error) {
  return tsi_error(out->ctx, TS_ERROR_IO, "%s: %s", out->name, strerror(error));
}

/* ---- SIGPIPE held back for the duration of a write ------------------------- */

typedef struct sigpipe_guard {
  sigset_t saved;
  bool was_pending;
} sigpipe_guard;

static void sigpipe_hold(sigpipe_guard *guard) {
  sigset_t pipe_only, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigemptyset(&pending);
  guard->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_only, &guard->saved);
}

/* A SIGPIPE raised by our own write is taken off the queue before the mask
 * is restored; one that was already pending is left for the program. */
static void sigpipe_release(sigpipe_guard *guard, bool broke_pipe) {
  if (broke_pipe && !guard->was_pending) {
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    const struct timespec no_wait = {0, 0};
    while (sigtimedwait(&pipe_only, NULL, &no_wait) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &guard->saved, NULL);
}

/* ---- opening ------------------------------------------------------------------------ */

/* Follow symbolic links from path; *resolved is the final name (to free),
 * *exists whether something is there, *info its lstat. */
static ts_status follow_links(tsi_mm_output *out, const char *path, char **resolved, bool *exists, struct stat *info) {
  char *current = malloc(strlen(path) + 1);
  if (!current)
    return tsi_error(out->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: out of host memory", out->name);
  strcpy(current, path);
  for (int hops = 0;; hops++) {
    if (lstat(current, info) != 0) {
      int error = errno;
      if (error != ENOENT) {
        free(current);
        return output_error(out, error);
      }
      *exists = false;
      break;
    }
    *exists = true;
    if (!S_ISLNK(info->st_mode))
      break;
    if (hops == MOST_LINKS) {
      free(current);
      return output_error(out, ELOOP);
    }
    char link[PATH_MAX];
    ssize_t n = readlink(current, link, sizeof link - 1);
    if (n < 0 || (size_t)n >= sizeof link - 1) {
      int error = n < 0 ? errno : ENAMETOOLONG;
      free(current);
      return output_error(out, error);
    }
    link[n] = '\0';
    /* A relative link is relative to the folder holding it. */
    const char *slash = strrchr(current, '/');
    size_t folder = link[0] == '/' || !slash ? 0 : (size_t)(slash - current) + 1;
    char *next = malloc(folder + (size_t)n + 1);
    if (!next) {
      free(current);
      return tsi_error(out->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: out of host memory", out->name);
    }
    memcpy(next, current, folder);
    memcpy(next + folder, link, (size_t)n + 1);
    free(current);
    current = next;
  }
  *resolved = current;
  return TS_SUCCESS;
}

/* Create a temporary file beside `target` (same folder, so that rename(2)
 * replaces the target in one step), with the mode a new file gets, or the
 * mode of the file it replaces. */
static ts_status create_temporary(tsi_mm_output *out, const char *target, const struct stat *replaced) {
  static unsigned counter;
  const char *slash = strrchr(target, '/');
  size_t folder = slash ? (size_t)(slash - target) + 1 : 0;
  const char *base = target + folder;
  size_t size = strlen(target) + 64;
  out->temporary = malloc(size);
  if (!out->temporary)
    return tsi_error(out->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: out of host memory", out->name);
  for (int attempt = 0; attempt < 100; attempt++) {
    unsigned n = __atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED);
    snprintf(out->temporary, size, "%.*s.%s.tessera-%ld-%u", (int)folder, target, base, (long)getpid(), n);
    out->fd = open(out->temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (out->fd >= 0)
      break;
    if (errno != EEXIST) {
      int error = errno;
      free(out->temporary);
      out->temporary = NULL;
      return tsi_error(out->ctx, TS_ERROR_IO, "%s: %s (creating a temporary file beside it)", out->name,
                       strerror(error));
    }
  }
  if (out->fd < 0) {
    free(out->temporary);
    out->temporary = NULL;
    return tsi_error(out->ctx, TS_ERROR_IO, "%s: cannot find a free temporary name beside it", out->name);
  }
  out->owns_fd = true;
  if (replaced) {
    /* The replacement keeps the owner (where allowed) and mode of the file. */
    (void)fchown(out->fd, replaced->st_uid, replaced->st_gid);
    (void)fchmod(out->fd, replaced->st_mode & 07777);
  }
  return TS_SUCCESS;
}

static ts_status start_gzip(tsi_mm_output *out) {
  int copy = dup(out->fd);
  if (copy < 0)
    return output_error(out, errno);
  /* Level 1: about 4x the speed of zlib's default 6 on Matrix Market text
   * (55 against 12 MB/s), for files 6-20% larger. */
  gzFile gz = gzdopen(copy, "wb1");
  if (!gz) {
    close(copy);
    return tsi_error(out->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot start gzip compression", out->name);
  }
  gzbuffer(gz, 1u << 20);
  out->gz = gz;
  return TS_SUCCESS;
}

ts_status tsi_mm_output_open_path(tsi_mm_output *out, ts_context *ctx, const char *path, bool gzip) {
  memset(out, 0, sizeof *out);
  out->ctx = ctx;
  out->name = path;
  out->fd = -1;
  struct stat info;
  bool exists = false;
  ts_status st = follow_links(out, path, &out->target, &exists, &info);
  if (st != TS_SUCCESS)
    return st;
  if (exists && S_ISDIR(info.st_mode))
    return output_error(out, EISDIR);
  /* A file the caller may not write is not replaced either (rename(2) would
   * only need the folder's permission). */
  if (exists && S_ISREG(info.st_mode) && access(out->target, W_OK) != 0)
    return output_error(out, errno);
  if (exists && !S_ISREG(info.st_mode)) {
    /* A device or a FIFO: written in place (there is nothing to replace). */
    out->fd = open(out->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (out->fd < 0)
      return output_error(out, errno);
    out->owns_fd = true;
  } else {
    st = create_temporary(out, out->target, exists ? &info : NULL);
    if (st != TS_SUCCESS)
      return st;
  }
  return gzip ? start_gzip(out) : TS_SUCCESS;
}

ts_status tsi_mm_output_open_fd(tsi_mm_output *out, ts_context *ctx, int fd, const char *name, bool gzip) {
  memset(out, 0, sizeof *out);
  out->ctx = ctx;
  out->name = name;
  out->fd = fd;
  return gzip ? start_gzip(out) : TS_SUCCESS;
}

/* ---- writing ------------------------------------------------------------------------ */

static int write_all(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n > 0) {
      data += n;
      size -= (size_t)n;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd wait_for = {fd, POLLOUT, 0};
      (void)poll(&wait_for, 1, 1000);
    } else if (n < 0 && errno != EINTR) {
      return errno;
    } else if (n == 0) {
      return EIO;
    }
  }
  return 0;
}

static int gzip_error(gzFile gz) {
  int code = Z_OK;
  (void)gzerror(gz, &code);
  return code == Z_ERRNO && errno != 0 ? errno : EIO;
}

ts_status tsi_mm_output_write(tsi_mm_output *out, const char *data, size_t size) {
  if (size == 0)
    return TS_SUCCESS;
  sigpipe_guard guard;
  sigpipe_hold(&guard);
  int error = 0;
  if (out->gz) {
    gzFile gz = out->gz;
    while (size > 0 && error == 0) {
      unsigned part = size > (1u << 30) ? (1u << 30) : (unsigned)size;
      errno = 0;
      if (gzwrite(gz, data, part) != (int)part)
        error = gzip_error(gz);
      data += part;
      size -= part;
    }
  } else {
    error = write_all(out->fd, data, size);
  }
  sigpipe_release(&guard, error == EPIPE);
  return error ? output_error(out, error) : TS_SUCCESS;
}

ts_status tsi_mm_output_close(tsi_mm_output *out, ts_status st) {
  sigpipe_guard guard;
  sigpipe_hold(&guard);
  int error = 0;
  if (out->gz) {
    errno = 0;
    int code = gzclose(out->gz); /* flushes, then closes its own copy of the descriptor */
    if (code != Z_OK)
      error = code == Z_ERRNO && errno != 0 ? errno : EIO;
    out->gz = NULL;
  }
  /* The data must be on disk before the rename makes it the target. */
  if (error == 0 && st == TS_SUCCESS && out->temporary && fsync(out->fd) != 0)
    error = errno;
  if (out->owns_fd && close(out->fd) != 0 && error == 0)
    error = errno;
  out->fd = -1;
  sigpipe_release(&guard, error == EPIPE);
  if (st == TS_SUCCESS && error != 0)
    st = output_error(out, error);
  if (out->temporary) {
    if (st == TS_SUCCESS && rename(out->temporary, out->target) != 0)
      st = output_error(out, errno);
    if (st != TS_SUCCESS)
      (void)unlink(out->temporary); /* ours; the target is untouched */
  }
  free(out->temporary);
  free(out->target);
  out->temporary = NULL;
  out->target = NULL;
  return st;
}
