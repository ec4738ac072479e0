/* The writers never lose or remove what tessera did not create: a failed
 * write leaves the target as it was (and no temporary file behind); a
 * device or FIFO is written in place and survives a failure; links are
 * written through and stay links; descriptors are written and left open; a
 * closed pipe is an error, not the end of the process. Contents are
 * checked by reading them back against the matrix written. */
#include "mm_test_util.h"

static ts_context *ctx;
static char folder[4096];

/* folder/name in one of eight rotating buffers (enough for one check). */
static const char *in_folder(const char *name) {
  static char path[8][4400];
  static int which;
  which = (which + 1) % 8;
  snprintf(path[which], sizeof path[which], "%s/%s", folder, name);
  return path[which];
}

/* A 3 x 3 COO with entries (0,0)=1.5, (2,1)=-2, (1,2)=4. */
static ts_coo *small_matrix(void) {
  ts_coo *coo = NULL;
  CHECK_OK(ctx, ts_coo_create(ctx, 3, 3, 3, TS_FLOAT64, &coo));
  int32_t r[] = {0, 2, 1}, c[] = {0, 1, 2};
  double v[] = {1.5, -2, 4};
  memcpy(coo->row_idx, r, sizeof r);
  memcpy(coo->col_idx, c, sizeof c);
  memcpy(coo->values, v, sizeof v);
  coo->nnz = 3;
  return coo;
}

/* Whether path reads back as small_matrix() (in any entry order). */
static bool holds_small_matrix(const char *path) {
  ts_coo *back = NULL;
  if (ts_mm_read(ctx, path, TS_FLOAT64, &back, NULL) != TS_SUCCESS)
    return false;
  double dense[3][3] = {{0}};
  bool same = back->rows == 3 && back->cols == 3 && back->nnz == 3;
  for (int64_t k = 0; same && k < back->nnz; k++)
    dense[back->row_idx[k]][back->col_idx[k]] += ((double *)back->values)[k];
  same = same && dense[0][0] == 1.5 && dense[2][1] == -2 && dense[1][2] == 4;
  ts_coo_destroy(back);
  return same;
}

static bool file_is(const char *path, const char *text) {
  mm_bytes b = mm_test_read_file(path);
  bool same = b.data && b.size == strlen(text) && memcmp(b.data, text, b.size) == 0;
  free(b.data);
  return same;
}

static int temporary_files(void) { return mm_test_count_names(folder, ".tessera-"); }

/* A failure in the middle of the text (entry 40000 of 60000 lies outside
 * the matrix) leaves an existing target untouched and no temporary file. */
static void test_failure_keeps_target(void) {
  ts_coo *big = NULL;
  CHECK_OK(ctx, ts_coo_create(ctx, 1000, 1000, 60000, TS_FLOAT64, &big));
  for (int k = 0; k < 60000; k++) {
    big->row_idx[k] = k % 1000;
    big->col_idx[k] = k / 60;
    ((double *)big->values)[k] = k * 0.25;
  }
  big->nnz = 60000;
  big->row_idx[40000] = 1000;
  const char *names[] = {"keep.mtx", "keep.mtx.gz"};
  for (int n = 0; n < 2; n++) {
    char path[4400];
    snprintf(path, sizeof path, "%s", in_folder(names[n]));
    const char *original = "my own data, not a matrix\n";
    CHECK(mm_test_write_file(path, original, strlen(original)));
    CHECK(chmod(path, 0640) == 0);
    CHECK_STATUS(ctx, ts_mm_write_coo(ctx, path, big, NULL), TS_ERROR_INVALID_MATRIX);
    CHECK(strstr(ts_last_error(ctx), "entry 40000") != NULL);
    CHECK_MSG(file_is(path, original), "%s: the target changed after a failed write", names[n]);
    CHECK(temporary_files() == 0);
    /* A failure before anything is written: the same. */
    ts_mm_write_options bad = {TS_MM_REAL, 99};
    CHECK_STATUS(ctx, ts_mm_write_coo(ctx, path, big, &bad), TS_ERROR_INVALID_ARGUMENT);
    CHECK(file_is(path, original) && temporary_files() == 0);
    /* Success replaces it, keeping its permission bits. */
    ts_coo *small = small_matrix();
    CHECK_OK(ctx, ts_mm_write_coo(ctx, path, small, NULL));
    CHECK(holds_small_matrix(path) && temporary_files() == 0);
    struct stat info;
    CHECK(stat(path, &info) == 0 && (info.st_mode & 0777) == 0640);
    ts_coo_destroy(small);
  }
  /* A file the caller may not write is refused, not replaced (rename(2)
   * would only need the folder's permission). Root may write anything. */
  const char *locked = in_folder("read-only.mtx");
  CHECK(mm_test_write_file(locked, "mine\n", 5) && chmod(locked, 0444) == 0);
  ts_coo *small = small_matrix();
  if (geteuid() == 0) {
    printf("SKIPPED (part): running as root, who may write a read-only file\n");
  } else {
    CHECK_STATUS(ctx, ts_mm_write_coo(ctx, locked, small, NULL), TS_ERROR_IO);
    CHECK(strstr(ts_last_error(ctx), strerror(EACCES)) != NULL && file_is(locked, "mine\n"));
  }
  CHECK_STATUS(ctx, ts_mm_write_coo(ctx, "", small, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "path is empty") != NULL);
  ts_coo_destroy(small);
  CHECK(temporary_files() == 0);
  /* A new file is created only on success. */
  const char *fresh = in_folder("fresh.mtx");
  CHECK_STATUS(ctx, ts_mm_write_coo(ctx, fresh, big, NULL), TS_ERROR_INVALID_MATRIX);
  CHECK(access(fresh, F_OK) != 0 && temporary_files() == 0);
  ts_coo_destroy(big);
}

/* Character devices are written in place and never removed, failed write or not. */
static void test_devices(void) {
  ts_coo *small = small_matrix();
  struct stat before, after;
  if (stat("/dev/full", &before) != 0 || !S_ISCHR(before.st_mode)) {
    printf("SKIPPED (part): no /dev/full here\n");
  } else {
    CHECK_STATUS(ctx, ts_mm_write_coo(ctx, "/dev/full", small, NULL), TS_ERROR_IO);
    CHECK(strstr(ts_last_error(ctx), "/dev/full: ") && strstr(ts_last_error(ctx), strerror(ENOSPC)));
    CHECK(stat("/dev/full", &after) == 0 && S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev);
    /* Through a link: the link and the device stay. */
    const char *link = in_folder("full-link.mtx");
    CHECK(symlink("/dev/full", link) == 0);
    CHECK_STATUS(ctx, ts_mm_write_coo(ctx, link, small, NULL), TS_ERROR_IO);
    struct stat link_info;
    CHECK(lstat(link, &link_info) == 0 && S_ISLNK(link_info.st_mode));
    CHECK(stat("/dev/full", &after) == 0 && S_ISCHR(after.st_mode));
    CHECK(temporary_files() == 0);
    /* gzip onto the device fails as well, at the flush. */
    ts_csr *csr = NULL;
    CHECK_OK(ctx, ts_csr_from_coo(ctx, small, TS_DUPLICATES_SUM, &csr));
    CHECK(symlink("/dev/full", in_folder("full.mtx.gz")) == 0);
    CHECK_STATUS(ctx, ts_mm_write_csr(ctx, in_folder("full.mtx.gz"), csr, NULL), TS_ERROR_IO);
    CHECK(stat("/dev/full", &after) == 0 && S_ISCHR(after.st_mode));
    ts_csr_destroy(csr);
  }
  CHECK_OK(ctx, ts_mm_write_coo(ctx, "/dev/null", small, NULL));
  CHECK(stat("/dev/null", &after) == 0 && S_ISCHR(after.st_mode));
  ts_coo_destroy(small);
}

/* Links: written through to the file they lead to, which is replaced; the
 * link stays a link; a dangling link gets its file; a loop is an error. */
static void test_links(void) {
  ts_coo *small = small_matrix();
  char target[4400];
  snprintf(target, sizeof target, "%s", in_folder("target.mtx"));
  CHECK(mm_test_write_file(target, "old\n", 4));
  CHECK(symlink("target.mtx", in_folder("relative-link.mtx")) == 0);
  CHECK(symlink(in_folder("relative-link.mtx"), in_folder("link-to-link.mtx")) == 0);
  CHECK_OK(ctx, ts_mm_write_coo(ctx, in_folder("link-to-link.mtx"), small, NULL));
  struct stat info;
  CHECK(lstat(in_folder("relative-link.mtx"), &info) == 0 && S_ISLNK(info.st_mode));
  CHECK(lstat(in_folder("link-to-link.mtx"), &info) == 0 && S_ISLNK(info.st_mode));
  CHECK(lstat(target, &info) == 0 && S_ISREG(info.st_mode) && holds_small_matrix(target));

  CHECK(symlink("not-yet.mtx", in_folder("dangling.mtx")) == 0);
  CHECK_OK(ctx, ts_mm_write_coo(ctx, in_folder("dangling.mtx"), small, NULL));
  CHECK(lstat(in_folder("dangling.mtx"), &info) == 0 && S_ISLNK(info.st_mode));
  CHECK(holds_small_matrix(in_folder("not-yet.mtx")));

  CHECK(symlink("loop-b.mtx", in_folder("loop-a.mtx")) == 0);
  CHECK(symlink("loop-a.mtx", in_folder("loop-b.mtx")) == 0);
  CHECK_STATUS(ctx, ts_mm_write_coo(ctx, in_folder("loop-a.mtx"), small, NULL), TS_ERROR_IO);
  CHECK(strstr(ts_last_error(ctx), strerror(ELOOP)) != NULL);
  CHECK(lstat(in_folder("loop-a.mtx"), &info) == 0 && S_ISLNK(info.st_mode));

  /* A folder is refused and stays. */
  CHECK(mkdir(in_folder("a-folder.mtx"), 0777) == 0);
  CHECK_STATUS(ctx, ts_mm_write_coo(ctx, in_folder("a-folder.mtx"), small, NULL), TS_ERROR_IO);
  CHECK(stat(in_folder("a-folder.mtx"), &info) == 0 && S_ISDIR(info.st_mode));
  CHECK(temporary_files() == 0);
  ts_coo_destroy(small);
}

/* A FIFO is written in place (the reader sees the text) and stays a FIFO. */
static void test_fifo(void) {
  const char *fifo = in_folder("out.fifo");
  CHECK(mkfifo(fifo, 0600) == 0);
  int fds[2];
  CHECK(pipe(fds) == 0);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    /* Read the FIFO to its end and report the matrix through the pipe. */
    close(fds[0]);
    ts_coo *back = NULL;
    ts_status st = ts_mm_read(NULL, fifo, TS_FLOAT64, &back, NULL);
    char verdict = st == TS_SUCCESS && back->nnz == 3 && ((double *)back->values)[0] == 1.5 ? 'y' : 'n';
    ts_coo_destroy(back);
    _exit(write(fds[1], &verdict, 1) == 1 ? 0 : 1);
  }
  close(fds[1]);
  ts_coo *small = small_matrix();
  CHECK_OK(ctx, ts_mm_write_coo(ctx, fifo, small, NULL));
  char verdict = 'n';
  CHECK(read(fds[0], &verdict, 1) == 1 && verdict == 'y');
  close(fds[0]);
  mm_test_wait(child);
  struct stat info;
  CHECK(lstat(fifo, &info) == 0 && S_ISFIFO(info.st_mode));
  ts_coo_destroy(small);
}

/* Descriptors: a pipe read back by a child (plain, and gzip for a name
 * ending in .gz: the reader tells by the bytes); a file at its current
 * position; a pipe whose reader is gone fails with EPIPE and the process
 * lives on. */
static void test_descriptors(void) {
  ts_coo *small = small_matrix();
  for (int gz = 0; gz < 2; gz++) {
    int fds[2], verdict_pipe[2];
    if (pipe(fds) != 0 || pipe(verdict_pipe) != 0) {
      CHECK_MSG(0, "pipe: %s", strerror(errno));
      continue;
    }
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      close(fds[1]);
      close(verdict_pipe[0]);
      ts_coo *back = NULL;
      ts_status st = ts_mm_read_fd(NULL, fds[0], "<pipe>", TS_FLOAT64, &back, NULL);
      char verdict = st == TS_SUCCESS && back->nnz == 3 && ((double *)back->values)[2] == 4 ? 'y' : 'n';
      ts_coo_destroy(back);
      _exit(write(verdict_pipe[1], &verdict, 1) == 1 ? 0 : 1);
    }
    close(fds[0]);
    close(verdict_pipe[1]);
    CHECK_OK(ctx, ts_mm_write_coo_fd(ctx, fds[1], gz ? "<stdout>.gz" : NULL, small, NULL));
    CHECK(fcntl(fds[1], F_GETFD) != -1); /* left open */
    close(fds[1]);
    char verdict = 'n';
    CHECK(read(verdict_pipe[0], &verdict, 1) == 1 && verdict == 'y');
    close(verdict_pipe[0]);
    mm_test_wait(child);
  }
  /* Into regular files through their descriptors, after what they hold. */
  ts_csr *csr = NULL;
  CHECK_OK(ctx, ts_csr_from_coo(ctx, small, TS_DUPLICATES_SUM, &csr));
  for (int gz = 0; gz < 2; gz++) {
    char path[4400];
    snprintf(path, sizeof path, "%s", in_folder(gz ? "by-descriptor.mtx.gz" : "by-descriptor.mtx"));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(write(fd, "%%", 2) == 2 && lseek(fd, 0, SEEK_SET) == 0); /* overwritten from position 0 */
    CHECK_OK(ctx, ts_mm_write_csr_fd(ctx, fd, path, csr, NULL));
    close(fd);
    mm_bytes b = mm_test_read_file(path);
    CHECK(b.data && b.size > 2 && ((unsigned char)b.data[0] == 0x1f) == (gz == 1));
    free(b.data);
    CHECK(holds_small_matrix(path));
  }
  ts_csr_destroy(csr);

  int fds[2];
  CHECK(pipe(fds) == 0);
  close(fds[0]);
  CHECK_STATUS(ctx, ts_mm_write_coo_fd(ctx, fds[1], NULL, small, NULL), TS_ERROR_IO);
  CHECK(strstr(ts_last_error(ctx), "<descriptor ") && strstr(ts_last_error(ctx), strerror(EPIPE)));
  close(fds[1]);
  CHECK_STATUS(ctx, ts_mm_write_coo_fd(ctx, -3, NULL, small, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_mm_write_csr_fd(ctx, 1, NULL, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  ts_coo_destroy(small);
}

int main(void) {
  /* A SIGPIPE must not end this process (the writers hold it back). */
  signal(SIGPIPE, SIG_DFL);
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  snprintf(folder, sizeof folder, "%s", mm_test_folder("test_mm_write_safety.d"));
  alarm(300);
  test_failure_keeps_target();
  test_devices();
  test_links();
  test_fifo();
  test_descriptors();
  ts_context_destroy(ctx);
  return test_finish();
}
