/* Split points of a K-way stable merge: for K sorted runs and an output rank
 * r, how many keys of each run are among the first r outputs of their merge.
 * The merge order is (key, run index, position): equal keys go to the lower
 * run first, and within a run keep their order. Plain C, for the host and
 * the device (the K-way merge pass of sort_cuda.cu and tests/test_sort.c).
 *
 * Search (a K-way form of merge-path co-ranking, Siebert and Traff, "Perfectly
 * load-balanced, optimal, stable, parallel merge", 2013, done on the key
 * value instead of the position, as the multiway partition of Karsin et al.,
 * ICS 2018, section 5, selects by value): bisect the key value v between the
 * smallest and the largest key for the least v with count(key <= v) >= r.
 * For each run the search keeps the bracket [count(key < lo), count(key <= hi)]
 * of the value interval [lo, hi], so every count is a binary search inside a
 * bracket that shrinks with the interval. At the end the keys below v are
 * taken, and the r - count(key < v) keys equal to v are handed out in run
 * order. It stops early once count(key < lo) or count(key <= hi) is r: the
 * runs then split there whatever v is.
 * Cost: at most (bits of the key) bisection steps, each K binary searches in
 * the brackets: about K * log2(W)^2 / 2 loads for runs of W random keys. */
#ifndef TESSERA_SORT_KWAY_SPLIT_H
#define TESSERA_SORT_KWAY_SPLIT_H

#include <stdint.h>

#if defined(__CUDACC__)
#define TSI_SPLIT_FN static inline __host__ __device__
#else
#define TSI_SPLIT_FN static inline
#endif

/* Largest K: the fixed bound of the loops below (unrolled on the device,
 * so the per-run brackets live in registers). */
#define TSI_SORT_MAX_WAYS 8

/* TSI_SORT_SPLIT_DEFINE(name, key type) defines
 *   void name(const KEY *keys, int64_t stride, const int64_t *len, int k,
 *             int64_t rank, int64_t *split)
 * run i is keys[i * stride, i * stride + len[i]) (sorted ascending), k is
 * 1..TSI_SORT_MAX_WAYS, 0 <= rank <= sum of len; split[i] receives the keys
 * of run i among the first rank outputs (their sum is rank). */
#define TSI_SORT_SPLIT_DEFINE(NAME, KEY)                                                                               \
  /* First position in run[lo, hi) whose key is above v (run sorted). */                                               \
  TSI_SPLIT_FN int64_t NAME##_upper(const KEY *run, int64_t lo, int64_t hi, KEY v) {                                   \
    while (lo < hi) {                                                                                                  \
      int64_t mid = lo + (hi - lo) / 2;                                                                                \
      if (run[mid] <= v)                                                                                               \
        lo = mid + 1;                                                                                                  \
      else                                                                                                             \
        hi = mid;                                                                                                      \
    }                                                                                                                  \
    return lo;                                                                                                         \
  }                                                                                                                    \
  TSI_SPLIT_FN void NAME(const KEY *keys, int64_t stride, const int64_t *len, int k, int64_t rank, int64_t *split) {   \
    int64_t below[TSI_SORT_MAX_WAYS], upto[TSI_SORT_MAX_WAYS]; /* count(key < lo), count(key <= hi) */                 \
    int64_t sum_below = 0, sum_upto = 0;                                                                               \
    KEY lo = (KEY) ~(KEY)0, hi = 0; /* empty runs leave these: no bisection then */                                    \
    for (int i = 0; i < TSI_SORT_MAX_WAYS; i++) {                                                                      \
      if (i < k) {                                                                                                     \
        below[i] = 0;                                                                                                  \
        upto[i] = len[i];                                                                                              \
        sum_upto += len[i];                                                                                            \
        if (len[i] > 0) {                                                                                              \
          KEY first = keys[i * stride], last = keys[i * stride + len[i] - 1];                                          \
          lo = first < lo ? first : lo;                                                                                \
          hi = last > hi ? last : hi;                                                                                  \
        }                                                                                                              \
      }                                                                                                                \
    }                                                                                                                  \
    /* Inside the loop sum_below < rank < sum_upto. */                                                                 \
    while (lo < hi && sum_below != rank && sum_upto != rank) {                                                         \
      KEY mid = lo + (hi - lo) / 2;                                                                                    \
      int64_t count[TSI_SORT_MAX_WAYS], sum = 0;                                                                       \
      for (int i = 0; i < TSI_SORT_MAX_WAYS; i++) {                                                                    \
        if (i < k) {                                                                                                   \
          count[i] = NAME##_upper(keys + i * stride, below[i], upto[i], mid);                                          \
          sum += count[i];                                                                                             \
        }                                                                                                              \
      }                                                                                                                \
      int up = sum >= rank;                                                                                            \
      for (int i = 0; i < TSI_SORT_MAX_WAYS; i++) {                                                                    \
        if (i < k) {                                                                                                   \
          below[i] = up ? below[i] : count[i];                                                                         \
          upto[i] = up ? count[i] : upto[i];                                                                           \
        }                                                                                                              \
      }                                                                                                                \
      hi = up ? mid : hi;                                                                                              \
      lo = up ? lo : mid + 1;                                                                                          \
      sum_upto = up ? sum : sum_upto;                                                                                  \
      sum_below = up ? sum_below : sum;                                                                                \
    }                                                                                                                  \
    /* Every key below lo is taken; of the keys in [lo, hi] (all equal when the                                        \
     * bisection ran out) the first need in run order. */                                                              \
    int64_t need = rank - sum_below, before = 0;                                                                       \
    for (int i = 0; i < TSI_SORT_MAX_WAYS; i++) {                                                                      \
      if (i < k) {                                                                                                     \
        split[i] = below[i] + tsi_sort_split_take(need, before, upto[i] - below[i]);                                   \
        before += upto[i] - below[i];                                                                                  \
      }                                                                                                                \
    }                                                                                                                  \
  }

/* Of @p equal keys in one run, preceded in run order by @p before equal keys
 * of lower runs, how many are among the @p need equal keys taken. */
TSI_SPLIT_FN int64_t tsi_sort_split_take(int64_t need, int64_t before, int64_t equal) {
  int64_t left = need - before;
  return left <= 0 ? 0 : left < equal ? left : equal;
}

TSI_SORT_SPLIT_DEFINE(tsi_sort_kway_split32, uint32_t)
TSI_SORT_SPLIT_DEFINE(tsi_sort_kway_split64, uint64_t)

#endif
