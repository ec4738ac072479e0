/* A small test harness: CHECK records a failure and carries on; the
 * program ends with the plain line "N passed, N failed" and exits non-zero
 * if anything failed. Exit code 77 means skipped (CTest shows it). */
#ifndef TESSERA_TEST_COMMON_H
#define TESSERA_TEST_COMMON_H

#include "tessera.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_passed, test_failed;

#define CHECK(cond)                                                                                                    \
  do {                                                                                                                 \
    if (cond) {                                                                                                        \
      test_passed++;                                                                                                   \
    } else {                                                                                                           \
      test_failed++;                                                                                                   \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                         \
    }                                                                                                                  \
  } while (0)

#define CHECK_MSG(cond, ...)                                                                                           \
  do {                                                                                                                 \
    if (cond) {                                                                                                        \
      test_passed++;                                                                                                   \
    } else {                                                                                                           \
      test_failed++;                                                                                                   \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fputc('\n', stderr);                                                                                             \
    }                                                                                                                  \
  } while (0)

/* A call expected to succeed; prints the status and message otherwise. */
#define CHECK_OK(ctx, call)                                                                                            \
  do {                                                                                                                 \
    ts_status check_ok_status = (call);                                                                                \
    CHECK_MSG(check_ok_status == TS_SUCCESS, "%s: %s", ts_status_string(check_ok_status), ts_last_error(ctx));         \
  } while (0)

/* A call expected to fail with `status`. */
#define CHECK_STATUS(ctx, call, status)                                                                                \
  do {                                                                                                                 \
    ts_status check_status_got = (call);                                                                               \
    CHECK_MSG(check_status_got == (status), "got %s, want %s (%s)", ts_status_string(check_status_got),                \
              ts_status_string(status), ts_last_error(ctx));                                                           \
  } while (0)

static inline int test_finish(void) {
  printf("%d passed, %d failed\n", test_passed, test_failed);
  return test_failed == 0 ? 0 : 1;
}

static inline int test_skip(const char *why) {
  printf("SKIPPED: %s\n", why);
  return 77;
}

/* Whether dir holds a MANIFEST.tsv. */
static inline int test_has_manifest(const char *dir) {
  if (!dir || !*dir)
    return 0;
  char manifest[4096];
  snprintf(manifest, sizeof manifest, "%s/MANIFEST.tsv", dir);
  FILE *f = fopen(manifest, "r");
  if (f)
    fclose(f);
  return f != NULL;
}

/* Whether the tests read the full corpus (TESSERA_MATRICES). */
static inline int test_corpus_is_full(void) { return test_has_manifest(getenv("TESSERA_MATRICES")); }

/* Folder of the Matrix Market corpus: the full one (TESSERA_MATRICES) when
 * present, else the small one in the repository (TESSERA_TEST_CORPUS, set
 * by CTest to tests/data/corpus), saying so once; NULL when neither is
 * there. Loops over its MANIFEST.tsv read what is there. */
static inline const char *test_matrices_dir(void) {
  static int said;
  if (test_corpus_is_full())
    return getenv("TESSERA_MATRICES");
  const char *small = getenv("TESSERA_TEST_CORPUS");
  if (!test_has_manifest(small))
    return NULL;
  if (!said++)
    printf("corpus: the small one in the repository (%s); the full corpus (TESSERA_MATRICES) is absent\n", small);
  return small;
}

/* dir/name.mtx into path when the file is there; otherwise NULL, after
 * printing that this part needs the full corpus. */
static inline const char *test_corpus_matrix(const char *dir, const char *name, char *path, size_t size) {
  snprintf(path, size, "%s/%s.mtx", dir, name);
  FILE *f = fopen(path, "r");
  if (f) {
    fclose(f);
    return path;
  }
  printf("SKIPPED (part): %s is only in the full corpus (set TESSERA_MATRICES)\n", name);
  return NULL;
}

/* Deterministic pseudo-random doubles in [-1, 1) (splitmix64). */
static inline double test_random(unsigned long long *state) {
  unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* Corpus matrix dir/name.mtx as a general CSR in double: read, symmetric
 * storage expanded, duplicates summed. NULL when any step fails (the
 * message is in ts_last_error(ctx)). */
static inline ts_csr *test_read_general(ts_context *ctx, const char *dir, const char *name) {
  char path[4096];
  int length = snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
  if (length <= 0 || (size_t)length >= sizeof path)
    return NULL;
  ts_csr *csr = NULL;
  (void)ts_mm_read_csr(ctx, path, TS_FLOAT64, &csr, NULL);
  return csr;
}

#endif
