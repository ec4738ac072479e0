/* Reading Matrix Market text from descriptors and special files: pipes,
 * FIFOs and a terminal, plain and gzip (told by the magic bytes, never the
 * name), fed in uneven pieces by another process. Every read is compared
 * with the entries the test wrote (an independent formula), and the bad
 * streams (truncated or corrupt gzip, trailing data, endless lines, NUL
 * bytes, declared sizes the text does not hold) give one clear error. */
#include "mm_test_util.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <termios.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static ts_context *ctx;

/* A general real matrix of `count` entries: entry k at (k % 1009, k % 997)
 * (no repeats below 1009 * 997 entries), value k / 8 (exact in binary). */
static mm_bytes make_text(int count) {
  mm_bytes b = {NULL, 0};
  size_t capacity = (size_t)count * 32 + 128;
  b.data = malloc(capacity);
  if (!b.data)
    return b;
  b.size = (size_t)snprintf(b.data, capacity,
                            "%%%%MatrixMarket matrix coordinate real general\n%% made by a test\n1009 997 %d\n", count);
  for (int k = 0; k < count; k++)
    b.size += (size_t)snprintf(b.data + b.size, capacity - b.size, "%d %d %.3f\n", k % 1009 + 1, k % 997 + 1, k / 8.0);
  return b;
}

static void expect_text_entries(const char *what, const ts_coo *coo, int count) {
  CHECK_MSG(coo != NULL, "%s: no matrix (%s)", what, ts_last_error(ctx));
  if (!coo)
    return;
  CHECK_MSG(coo->rows == 1009 && coo->cols == 997 && coo->nnz == count, "%s: %lld x %lld, %lld entries", what,
            (long long)coo->rows, (long long)coo->cols, (long long)coo->nnz);
  int wrong = 0;
  for (int k = 0; k < count && k < coo->nnz; k++)
    wrong += coo->row_idx[k] != k % 1009 || coo->col_idx[k] != k % 997 || ((const double *)coo->values)[k] != k / 8.0;
  CHECK_MSG(wrong == 0, "%s: %d entries differ", what, wrong);
}

/* Read `data` through a pipe fed by a child process. */
static ts_status read_through_pipe(const mm_bytes *data, const char *name, ts_coo **coo) {
  int fds[2];
  CHECK(pipe(fds) == 0);
  pid_t child = mm_test_feed(fds[1], fds[0], NULL, data->data, data->size);
  close(fds[1]);
  ts_status st = ts_mm_read_fd(ctx, fds[0], name, TS_FLOAT64, coo, NULL);
  /* The descriptor stays the caller's: still open. */
  CHECK(fcntl(fds[0], F_GETFD) != -1);
  close(fds[0]);
  mm_test_wait(child);
  return st;
}

/* Read `data` through a FIFO (by path, opened once). */
static ts_status read_through_fifo(const char *folder, const mm_bytes *data, ts_coo **coo) {
  char path[4200];
  snprintf(path, sizeof path, "%s/input.mtx", folder);
  (void)unlink(path);
  CHECK(mkfifo(path, 0600) == 0);
  pid_t child = mm_test_feed(-1, -1, path, data->data, data->size);
  ts_status st = ts_mm_read(ctx, path, TS_FLOAT64, coo, NULL);
  mm_test_wait(child);
  unlink(path);
  return st;
}

static void test_pipes_and_fifos(void) {
  const char *folder = mm_test_folder("test_mm_stream_fifo.d");
  const int counts[] = {0, 5, 200000}; /* 200000 entries: about 3 MB, several reads */
  for (int c = 0; c < 3; c++) {
    mm_bytes text = make_text(counts[c]);
    mm_bytes gz = mm_test_gzip(text.data, text.size);
    CHECK(text.data && gz.data);
    for (int compressed = 0; compressed < 2; compressed++) {
      const mm_bytes *data = compressed ? &gz : &text;
      char what[64];
      ts_coo *coo = NULL;
      snprintf(what, sizeof what, "pipe, %d entries, %s", counts[c], compressed ? "gzip" : "plain");
      CHECK_OK(ctx, read_through_pipe(data, "<pipe>", &coo));
      expect_text_entries(what, coo, counts[c]);
      ts_coo_destroy(coo);
      coo = NULL;
      snprintf(what, sizeof what, "FIFO, %d entries, %s", counts[c], compressed ? "gzip" : "plain");
      CHECK_OK(ctx, read_through_fifo(folder, data, &coo));
      expect_text_entries(what, coo, counts[c]);
      ts_coo_destroy(coo);
    }
    /* The general CSR through a pipe, against a dense matrix of the formula. */
    if (counts[c] == 200000) {
      int fds[2];
      CHECK(pipe(fds) == 0);
      pid_t child = mm_test_feed(fds[1], fds[0], NULL, gz.data, gz.size);
      close(fds[1]);
      ts_csr *csr = NULL;
      ts_mm_info info;
      CHECK_OK(ctx, ts_mm_read_csr_fd(ctx, fds[0], NULL, TS_FLOAT64, &csr, &info));
      close(fds[0]);
      mm_test_wait(child);
      double *dense = calloc((size_t)1009 * 997, sizeof *dense);
      char *stored = calloc((size_t)1009 * 997, 1);
      for (int k = 0; k < counts[c]; k++) {
        dense[(size_t)(k % 1009) * 997 + k % 997] = k / 8.0;
        stored[(size_t)(k % 1009) * 997 + k % 997] = 1;
      }
      bool same = csr && csr->nnz == counts[c] && info.entries == counts[c];
      for (int64_t i = 0; same && i < 1009; i++)
        for (int64_t k = csr->row_ptr[i]; same && k < csr->row_ptr[i + 1]; k++)
          same = stored[i * 997 + csr->col_idx[k]] && ((double *)csr->values)[k] == dense[i * 997 + csr->col_idx[k]];
      free(stored);
      CHECK_MSG(same, "CSR through a pipe differs from the dense sum");
      free(dense);
      ts_csr_destroy(csr);
    }
    free(text.data);
    free(gz.data);
  }
}

/* Gzip is told by the bytes: a gzip file named .mtx, a plain one named .gz. */
static void test_magic_not_name(void) {
  const char *folder = mm_test_folder("test_mm_stream_magic.d");
  mm_bytes text = make_text(40);
  mm_bytes gz = mm_test_gzip(text.data, text.size);
  char path[4200];
  snprintf(path, sizeof path, "%s/compressed.mtx", folder);
  CHECK(mm_test_write_file(path, gz.data, gz.size));
  ts_coo *coo = NULL;
  CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT64, &coo, NULL));
  expect_text_entries("gzip named .mtx", coo, 40);
  ts_coo_destroy(coo);
  snprintf(path, sizeof path, "%s/plain.mtx.gz", folder);
  CHECK(mm_test_write_file(path, text.data, text.size));
  CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT64, &coo, NULL));
  expect_text_entries("plain named .gz", coo, 40);
  ts_coo_destroy(coo);
  ts_mm_info info;
  CHECK_OK(ctx, ts_mm_read_info(ctx, path, &info));
  CHECK(info.rows == 1009 && info.cols == 997 && info.entries == 40);
  free(text.data);
  free(gz.data);
}

/* Concatenated members read as one text; anything else after the end, a cut
 * or a corrupt check sum is an I/O error naming the stream. */
static void test_gzip_streams(void) {
  mm_bytes text = make_text(1000);
  size_t half = text.size / 2;
  mm_bytes first = mm_test_gzip(text.data, half), second = mm_test_gzip(text.data + half, text.size - half);
  mm_bytes whole = mm_test_gzip(text.data, text.size);
  mm_bytes both = {malloc(first.size + second.size + 16), first.size + second.size};
  mm_bytes trailing = {malloc(whole.size + 8), whole.size + 5};
  CHECK(first.data && second.data && whole.data && both.data && trailing.data);
  if (!first.data || !second.data || !whole.data || !both.data || !trailing.data) {
    free(text.data);
    free(first.data);
    free(second.data);
    free(whole.data);
    free(both.data);
    free(trailing.data);
    return;
  }
  memcpy(both.data, first.data, first.size);
  memcpy(both.data + first.size, second.data, second.size);
  ts_coo *coo = NULL;
  CHECK_OK(ctx, read_through_pipe(&both, "<two members>", &coo));
  expect_text_entries("two gzip members", coo, 1000);
  ts_coo_destroy(coo);

  memcpy(trailing.data, whole.data, whole.size);
  snprintf(trailing.data + whole.size, 8, "junk\n");
  CHECK_STATUS(ctx, read_through_pipe(&trailing, "<trailing>", &coo), TS_ERROR_IO);
  CHECK(coo == NULL && strstr(ts_last_error(ctx), "<trailing>:") && strstr(ts_last_error(ctx), "after the end"));

  mm_bytes cut = {whole.data, whole.size - 9};
  CHECK_STATUS(ctx, read_through_pipe(&cut, "<cut>", &coo), TS_ERROR_IO);
  CHECK(coo == NULL && strstr(ts_last_error(ctx), "<cut>:") && strstr(ts_last_error(ctx), "truncated"));

  whole.data[whole.size - 6] ^= 0x55; /* the CRC-32 of the trailer */
  CHECK_STATUS(ctx, read_through_pipe(&whole, "<corrupt>", &coo), TS_ERROR_IO);
  CHECK(coo == NULL && strstr(ts_last_error(ctx), "<corrupt>:") && strstr(ts_last_error(ctx), "corrupt"));

  /* One byte that is not the gzip magic: plain text (a parse error on line 1). */
  mm_bytes one = {"\x1f", 1};
  CHECK_STATUS(ctx, read_through_pipe(&one, NULL, &coo), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "<descriptor ") == ts_last_error(ctx));
  free(text.data);
  free(first.data);
  free(second.data);
  free(both.data);
  free(whole.data);
  free(trailing.data);
}

/* A terminal (pseudo-terminal): lines as typed, end of input by ^D. */
static void test_terminal(void) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    printf("SKIPPED (part): no pseudo-terminal here (%s)\n", strerror(errno));
    if (master >= 0)
      close(master);
    return;
  }
  int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  CHECK(slave >= 0);
  struct termios mode;
  if (slave >= 0 && tcgetattr(slave, &mode) == 0) {
    mode.c_lflag &= ~(tcflag_t)ECHO;
    tcsetattr(slave, TCSANOW, &mode);
  }
  const char *typed = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0.5\n2 2 -4\n\x04";
  CHECK(write(master, typed, strlen(typed)) == (ssize_t)strlen(typed));
  ts_coo *coo = NULL;
  CHECK_OK(ctx, ts_mm_read_fd(ctx, slave, "<terminal>", TS_FLOAT64, &coo, NULL));
  CHECK(coo && coo->nnz == 2 && coo->row_idx[1] == 1 && ((double *)coo->values)[0] == 0.5 &&
        ((double *)coo->values)[1] == -4);
  ts_coo_destroy(coo);
  close(slave);
  close(master);
}

/* Streams that are not Matrix Market text end at once with one message. */
static void test_hostile_streams(void) {
  ts_coo *coo = NULL;
  /* /dev/zero never ends: the NUL bytes are refused on line 1. */
  CHECK_STATUS(ctx, ts_mm_read(ctx, "/dev/zero", TS_FLOAT64, &coo, NULL), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "/dev/zero:1: NUL byte") != NULL);
  /* A gzip bomb of NUL bytes (64 MiB in about 64 KiB), after a good header. */
  size_t bomb_size = (size_t)64 << 20;
  char *zeros = calloc(bomb_size, 1);
  const char *header = "%%MatrixMarket matrix coordinate real general\n3 3 1\n";
  CHECK(zeros != NULL);
  if (!zeros)
    return;
  snprintf(zeros, bomb_size, "%s", header); /* the rest stays zero */
  mm_bytes bomb = mm_test_gzip(zeros, bomb_size);
  free(zeros);
  CHECK_STATUS(ctx, read_through_pipe(&bomb, "<bomb>", &coo), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "<bomb>:3: NUL byte") != NULL);
  free(bomb.data);
  /* A line without end (no NUL): refused at 16 MiB, naming the line. */
  size_t long_size = ((size_t)16 << 20) + 100;
  mm_bytes endless = {malloc(long_size), long_size};
  CHECK(endless.data != NULL);
  if (!endless.data)
    return;
  memset(endless.data, 'a', long_size);
  int start = snprintf(endless.data, long_size, "%s%% ", header); /* then a comment of 'a' without end */
  endless.data[start] = 'a';
  CHECK_STATUS(ctx, read_through_pipe(&endless, "<endless>", &coo), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "<endless>:3: line longer than 16 MiB") != NULL);
  free(endless.data);
  /* A NUL byte in an entry is named as the cause (from memory and through
   * a pipe); in a comment it is as harmless as any other character. */
  const char entry_nul[] = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 5\0\n";
  mm_bytes with_nul = {(char *)entry_nul, sizeof entry_nul - 1};
  CHECK_STATUS(ctx, ts_mm_read_memory(ctx, entry_nul, sizeof entry_nul - 1, TS_FLOAT64, &coo, NULL), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "<memory>:4: NUL byte") != NULL);
  CHECK_STATUS(ctx, read_through_pipe(&with_nul, "<pipe>", &coo), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "<pipe>:4: NUL byte") != NULL);
  const char comment_nul[] = "%%MatrixMarket matrix coordinate real general\n% a\0b\n1 1 1\n1 1 5\n";
  CHECK_OK(ctx, ts_mm_read_memory(ctx, comment_nul, sizeof comment_nul - 1, TS_FLOAT64, &coo, NULL));
  CHECK(coo && coo->nnz == 1 && ((double *)coo->values)[0] == 5);
  ts_coo_destroy(coo);
  coo = NULL;
  /* A directory, a bad descriptor, a negative one. */
  const char *tmp = getenv("TESSERA_TEST_TMP");
  int dir = open(tmp && *tmp ? tmp : ".", O_RDONLY);
  CHECK_STATUS(ctx, ts_mm_read_fd(ctx, dir, "<dir>", TS_FLOAT64, &coo, NULL), TS_ERROR_IO);
  CHECK(strstr(ts_last_error(ctx), "<dir>: ") != NULL);
  close(dir);
  CHECK_STATUS(ctx, ts_mm_read_fd(ctx, dir, "<closed>", TS_FLOAT64, &coo, NULL), TS_ERROR_IO);
  CHECK(strstr(ts_last_error(ctx), "<closed>: ") != NULL);
  CHECK_STATUS(ctx, ts_mm_read_fd(ctx, -1, NULL, TS_FLOAT64, &coo, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_mm_read_fd(ctx, 0, NULL, TS_FLOAT64, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_mm_read_csr(ctx, NULL, TS_FLOAT64, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
}

/* Allocation follows the text, not the header: run in a child whose address
 * space is limited to 512 MiB more than it uses. */
static int limited_child(const mm_bytes *text, bool as_csr, const char *expected_message) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit limit;
    long pages = 0, resident = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (!statm || fscanf(statm, "%ld %ld", &pages, &resident) != 2)
      _exit(100);
    fclose(statm);
    limit.rlim_cur = limit.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)512 << 20);
    if (setrlimit(RLIMIT_AS, &limit) != 0)
      _exit(101);
    ts_coo *coo = NULL;
    ts_csr *csr = NULL;
    ts_status st = as_csr ? ts_mm_read_csr_fd(NULL, 0, NULL, TS_FLOAT64, &csr, NULL)
                          : ts_mm_read_memory(NULL, text->data, text->size, TS_FLOAT64, &coo, NULL);
    printf("under a memory limit: %s\n", ts_last_error(NULL));
    fflush(stdout);
    _exit(strstr(ts_last_error(NULL), expected_message) ? (int)st : 99);
  }
  return mm_test_wait(pid);
}

static void test_declared_sizes(void) {
  /* 2^31 - 1 rows and 10^12 entries declared, three given: a parse error
   * about the missing entries, not an allocation the text does not back. */
  const char *text = "%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1000000000000\n"
                     "1 1 1\n2 2 2\n2147483647 5 3\n";
  ts_coo *coo = NULL;
  CHECK_STATUS(ctx, ts_mm_read_memory(ctx, text, strlen(text), TS_FLOAT64, &coo, NULL), TS_ERROR_PARSE);
  CHECK(strstr(ts_last_error(ctx), "<memory>:5: input ends after 3 of the 1000000000000 entries") != NULL);
  mm_bytes through = {(char *)text, strlen(text)};
  CHECK_STATUS(ctx, read_through_pipe(&through, "<pipe>", &coo), TS_ERROR_PARSE);
  /* The 78-byte file of the report: one entry in a 2^31 - 1 square; as COO it
   * costs one entry. */
  const char *small = "%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1\n";
  CHECK_OK(ctx, ts_mm_read_memory(ctx, small, strlen(small), TS_FLOAT64, &coo, NULL));
  CHECK(coo && coo->nnz == 1 && coo->capacity <= 16);
  ts_coo_destroy(coo);
#ifdef UNDER_ASAN
  printf("SKIPPED (part): address-space limits do not mix with AddressSanitizer\n");
#else
  mm_bytes declared = {(char *)text, strlen(text)};
  CHECK_MSG(limited_child(&declared, false, "input ends after 3 of") == TS_ERROR_PARSE,
            "10^12 declared entries under a memory limit");
  /* As CSR it needs 16 GiB of row offsets: under the limit the call fails,
   * saying so (the real cause, not "1 entries"). */
  int fds[2];
  CHECK(pipe(fds) == 0);
  pid_t feeder = mm_test_feed(fds[1], fds[0], NULL, small, strlen(small));
  close(fds[1]);
  int saved = dup(0);
  dup2(fds[0], 0);
  close(fds[0]);
  int status = limited_child(NULL, true, "<stdin>: ts_csr_create: cannot allocate the row offsets of 2147483647 rows");
  dup2(saved, 0);
  close(saved);
  mm_test_wait(feeder);
  CHECK_MSG(status == TS_ERROR_OUT_OF_MEMORY, "CSR of 2^31 - 1 rows under a memory limit: status %d", status);
#endif
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  alarm(300); /* a read that hangs (the old double open of a FIFO) fails the test */
  test_pipes_and_fifos();
  test_magic_not_name();
  test_gzip_streams();
  test_terminal();
  test_hostile_streams();
  test_declared_sizes();
  ts_context_destroy(ctx);
  return test_finish();
}
