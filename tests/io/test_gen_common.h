/* Helpers shared by the generator tests: byte comparison of matrices,
 * determinism over thread counts. */
#ifndef TESSERA_TEST_GEN_COMMON_H
#define TESSERA_TEST_GEN_COMMON_H

#include "test_common.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Byte-identical shape, offsets, columns and values. */
static inline int csr_identical(const ts_csr *a, const ts_csr *b) {
  if (!a || !b)
    return 0;
  if (a->rows != b->rows || a->cols != b->cols || a->nnz != b->nnz || a->dtype != b->dtype)
    return 0;
  if (memcmp(a->row_ptr, b->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t)) != 0)
    return 0;
  if (a->nnz == 0)
    return 1;
  return memcmp(a->col_idx, b->col_idx, (size_t)a->nnz * sizeof(int32_t)) == 0 &&
         memcmp(a->values, b->values, (size_t)a->nnz * ts_dtype_size(a->dtype)) == 0;
}

static inline void set_threads(int threads) {
#ifdef _OPENMP
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
}

static inline int default_threads(void) {
#ifdef _OPENMP
  return omp_get_num_procs();
#else
  return 1;
#endif
}

static inline double value_at(const ts_csr *a, int64_t k) {
  return a->dtype == TS_FLOAT32 ? (double)((const float *)a->values)[k] : ((const double *)a->values)[k];
}

/* Index of entry (i, j) or -1. */
static inline int64_t find_entry(const ts_csr *a, int64_t i, int64_t j) {
  int64_t lo = a->row_ptr[i], hi = a->row_ptr[i + 1];
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (a->col_idx[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < a->row_ptr[i + 1] && a->col_idx[lo] == j) ? lo : -1;
}

/* A generator call as a function of the seed, for determinism checks. */
typedef ts_status (*generate_fn)(const void *args, uint64_t seed, ts_csr **csr);

/* Same seed with 1, 2 and 3 threads: byte-identical; another seed: different. */
static inline void check_deterministic(const char *name, generate_fn generate, const void *args) {
  ts_csr *reference = NULL;
  set_threads(1);
  ts_status st = generate(args, 12345, &reference);
  CHECK_MSG(st == TS_SUCCESS, "%s: %s", name, ts_last_error(NULL));
  if (st != TS_SUCCESS)
    return;
  CHECK_MSG(ts_csr_check(NULL, reference) == TS_SUCCESS, "%s: %s", name, ts_last_error(NULL));
  for (int threads = 2; threads <= 3; threads++) {
    ts_csr *again = NULL;
    set_threads(threads);
    CHECK_OK(NULL, generate(args, 12345, &again));
    CHECK_MSG(csr_identical(reference, again), "%s: %d threads differ from 1 thread", name, threads);
    ts_csr_destroy(again);
  }
  ts_csr *other = NULL;
  CHECK_OK(NULL, generate(args, 54321, &other));
  CHECK_MSG(other && !csr_identical(reference, other), "%s: seeds 12345 and 54321 give the same matrix", name);
  ts_csr_destroy(other);
  ts_csr_destroy(reference);
  set_threads(default_threads());
}

/* Total entries of min(cols, max(1, round(c r^-e))) over ranks 1..rows:
 * the power-law generator's documented row lengths. */
static inline int64_t zipf_total(double c, int64_t rows, int64_t cols, double exponent) {
  int64_t total = 0;
  for (int64_t r = 1; r <= rows; r++) {
    double len = c * pow((double)r, -exponent);
    int64_t l = len >= (double)cols ? cols : (int64_t)llround(len);
    total += l < 1 ? 1 : l;
  }
  return total;
}

#endif
