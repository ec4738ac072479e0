/* "-" for standard input and output, and the check that no output names an
 * input, done before anything is read or written. */
#define _XOPEN_SOURCE 700

#include "cli_common.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool cli_is_stdio(const char *path) { return path && strcmp(path, "-") == 0; }

const char *cli_path_label(const char *path, bool output) {
  if (cli_is_stdio(path))
    return output ? "standard output" : "standard input";
  return path;
}

/* The file behind a path or a standard stream, when it is a regular file. */
static bool regular_file(const char *path, bool output, struct stat *info) {
  int status = cli_is_stdio(path) ? fstat(output ? STDOUT_FILENO : STDIN_FILENO, info) : stat(path, info);
  return status == 0 && S_ISREG(info->st_mode);
}

int cli_check_paths(const char *command, const char *const *inputs, int input_count, const char *const *outputs,
                    int output_count, bool json) {
  int stdin_uses = 0, stdout_uses = 0;
  for (int i = 0; i < input_count; i++)
    stdin_uses += cli_is_stdio(inputs[i]);
  for (int o = 0; o < output_count; o++)
    stdout_uses += cli_is_stdio(outputs[o]);
  if (stdin_uses > 1)
    return cli_usage_error(command, "standard input ('-') can be read only once");
  if (stdout_uses > 1)
    return cli_usage_error(command, "standard output ('-') can be written only once");
  if (stdout_uses && json)
    return cli_usage_error(command, "--json and an output on standard output ('-') cannot share it");
  for (int o = 0; o < output_count; o++) {
    struct stat out;
    if (!outputs[o] || !regular_file(outputs[o], true, &out))
      continue; /* a new file, a device or a pipe cannot be an input overwritten */
    for (int i = 0; i < input_count; i++) {
      struct stat in;
      if (inputs[i] && regular_file(inputs[i], false, &in) && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
        return cli_usage_error(command, "the output %s is the input %s (the same file); write to another file",
                               cli_path_label(outputs[o], true), cli_path_label(inputs[i], false));
    }
  }
  return 0;
}

/* How the library's messages name the standard streams. */
#define STDIN_NAME "standard input"
#define STDOUT_NAME "standard output"

/* The reader refuses complex values asked for as real ones with
 * TS_ERROR_UNSUPPORTED (its only use of that status), naming the library's
 * complex types: say instead which command takes them. */
static ts_status explain_complex(const char *path, ts_dtype dtype, ts_status status) {
  if (status == TS_ERROR_UNSUPPORTED && !TS_DTYPE_IS_COMPLEX(dtype))
    cli_set_error("%s holds complex values: this command takes real, integer and pattern matrices ('tessera "
                  "solve' takes complex systems)",
                  cli_path_label(path, false));
  return status;
}

ts_status cli_mm_read(ts_context *ctx, const char *path, ts_dtype dtype, ts_coo **coo, ts_mm_info *info) {
  if (cli_is_stdio(path))
    return explain_complex(path, dtype, ts_mm_read_fd(ctx, STDIN_FILENO, STDIN_NAME, dtype, coo, info));
  return explain_complex(path, dtype, ts_mm_read(ctx, path, dtype, coo, info));
}

ts_status cli_mm_read_csr(ts_context *ctx, const char *path, ts_dtype dtype, ts_csr **csr, ts_mm_info *info) {
  if (cli_is_stdio(path))
    return explain_complex(path, dtype, ts_mm_read_csr_fd(ctx, STDIN_FILENO, STDIN_NAME, dtype, csr, info));
  return explain_complex(path, dtype, ts_mm_read_csr(ctx, path, dtype, csr, info));
}

ts_status cli_mm_write_coo(ts_context *ctx, const char *path, const ts_coo *coo, const ts_mm_write_options *options) {
  if (!cli_is_stdio(path))
    return ts_mm_write_coo(ctx, path, coo, options);
  fflush(stdout);
  return ts_mm_write_coo_fd(ctx, STDOUT_FILENO, STDOUT_NAME, coo, options);
}

ts_status cli_mm_write_csr(ts_context *ctx, const char *path, const ts_csr *csr, const ts_mm_write_options *options) {
  if (!cli_is_stdio(path))
    return ts_mm_write_csr(ctx, path, csr, options);
  fflush(stdout);
  return ts_mm_write_csr_fd(ctx, STDOUT_FILENO, STDOUT_NAME, csr, options);
}

/* Copy the file at @p path to standard output. */
static ts_status copy_to_stdout(const char *path) {
  FILE *in = fopen(path, "rb");
  if (!in) {
    cli_set_error("cannot reopen the temporary file %s: %s", path, strerror(errno));
    return TS_ERROR_IO;
  }
  char buffer[1 << 16];
  size_t got;
  bool failed = false;
  while (!failed && (got = fread(buffer, 1, sizeof buffer, in)) > 0)
    failed = fwrite(buffer, 1, got, stdout) != got;
  failed = failed || ferror(in) || fflush(stdout) != 0;
  fclose(in);
  if (failed) {
    cli_set_error("standard output: %s", strerror(errno));
    return TS_ERROR_IO;
  }
  return TS_SUCCESS;
}

/* Write to a new temporary file in TMPDIR, then copy it to standard output. */
static ts_status write_to_stdout(ts_context *ctx, cli_path_writer writer, const void *object) {
  const char *directory = getenv("TMPDIR");
  char temporary[PATH_MAX];
  snprintf(temporary, sizeof temporary, "%s/tessera-XXXXXX", directory && *directory ? directory : "/tmp");
  int fd = mkstemp(temporary);
  if (fd < 0) {
    cli_set_error("cannot create a temporary file %s: %s", temporary, strerror(errno));
    return TS_ERROR_IO;
  }
  close(fd);
  ts_status status = writer(ctx, temporary, object);
  if (status == TS_SUCCESS)
    status = copy_to_stdout(temporary);
  unlink(temporary);
  return status;
}

/* The name a write to target lands on: its symbolic links followed, each
 * relative one from the folder that holds it, to a file or to nothing (a
 * link that dangles), so that a link stays a link and its target gets the
 * file, as the library's writers do. False with errno set otherwise. */
static bool follow_links(const char *target, char *final, size_t size) {
  if (snprintf(final, size, "%s", target) >= (int)size) {
    errno = ENAMETOOLONG;
    return false;
  }
  for (int hops = 0; hops < 40; hops++) {
    struct stat info;
    if (lstat(final, &info) != 0)
      return errno == ENOENT;
    if (!S_ISLNK(info.st_mode))
      return true;
    char link[PATH_MAX];
    const ssize_t length = readlink(final, link, sizeof link - 1);
    if (length < 0)
      return false;
    link[length] = '\0';
    const char *slash = strrchr(final, '/');
    const size_t folder = link[0] == '/' || !slash ? 0 : (size_t)(slash - final) + 1;
    if (folder + (size_t)length + 1 > size) {
      errno = ENAMETOOLONG;
      return false;
    }
    memcpy(final + folder, link, (size_t)length + 1);
  }
  errno = ELOOP;
  return false;
}

ts_status cli_write_through_temporary(ts_context *ctx, const char *target, cli_path_writer writer, const void *object) {
  if (cli_is_stdio(target))
    return write_to_stdout(ctx, writer, object);
  char final[PATH_MAX];
  if (!follow_links(target, final, sizeof final)) {
    cli_set_error("%s: %s", target, strerror(errno));
    return TS_ERROR_IO;
  }
  struct stat info;
  bool exists = stat(final, &info) == 0;
  if (exists && !S_ISREG(info.st_mode))
    return writer(ctx, target, object);
  /* A file the caller may not write is not replaced either (the rename
   * below needs only the folder's permission). */
  if (exists && access(final, W_OK) != 0) {
    cli_set_error("%s: %s", target, strerror(errno));
    return TS_ERROR_IO;
  }
  const char *slash = strrchr(final, '/');
  int directory_length = slash ? (int)(slash - final + 1) : 0;
  char temporary[PATH_MAX + 32];
  snprintf(temporary, sizeof temporary, "%.*s.%s.tessera-XXXXXX", directory_length, final, final + directory_length);
  int fd = mkstemp(temporary);
  if (fd < 0) {
    cli_set_error("cannot create a temporary file beside %s: %s", target, strerror(errno));
    return TS_ERROR_IO;
  }
  /* mkstemp makes the file private; give it the target's mode, or the one a new file would get. */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, exists ? (info.st_mode & 07777) : (0666 & ~mask));
  close(fd);
  ts_status status = writer(ctx, temporary, object);
  if (status == TS_SUCCESS && rename(temporary, final) != 0) {
    cli_set_error("cannot rename %s onto %s: %s", temporary, target, strerror(errno));
    status = TS_ERROR_IO;
  }
  if (status != TS_SUCCESS)
    unlink(temporary);
  return status;
}
