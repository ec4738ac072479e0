/* Split points of a K-way stable merge: for K sorted runs and an output rank
 * r, how many keys of each run are among the first r outputs of their merge.
 * The merge order is (key, run index, position): equal keys go to the lower
 * run first, and within a run keep their order. Plain C, for the host and
 * the device (the K-way merge pass of sort_cuda.cu and tests/sort/test_sort.c).
 *
 * Search (a K-way form of merge-path co-ranking, Siebert and Traff, "Perfectly
 * load-balanced, optimal, stable, parallel merge", 2013, done on the key
 * value instead of the position, as the multiway partition of Karsin et al.,
 * ICS 2018, section 5, selects by value): narrow the key interval [lo, hi]
 * that holds the least v with count(key <= v) >= r. For each run the search
 * keeps the bracket [count(key < lo), count(key <= hi)], so every count is a
 * search inside a bracket that shrinks with the interval. Each step probes
 * two values p1 <= p2 in [lo, hi) and keeps the piece of the interval that
 * holds v: p1, p2 bracket the value that linear interpolation of the counts
 * over [lo, hi] predicts, about two standard deviations of a uniform
 * sample apart (interpolation search: a handful of steps on spread keys); a step
 * that did not halve the interval is followed by a bisection, so that
 * skewed keys take at most twice the steps of a plain bisection. The
 * searches inside the brackets interpolate the same way (the interval
 * bounds the bracket's keys). At the end the keys below v are taken, and
 * the r - count(key < v) keys equal to v are handed
 * out in run order. It stops early once count(key < lo) or count(key <= hi)
 * is r: the runs then split there whatever v is.
 * Cost: on random keys a handful of steps, each 2 K searches of a few
 * probes in brackets that shrink to about the square root of their size a
 * step; at most 2 (bits of the key) steps of 2 K searches of at most
 * 2 log2(W) probes. */
#ifndef TESSERA_SORT_KWAY_SPLIT_H
#define TESSERA_SORT_KWAY_SPLIT_H

#include <math.h>
#include <stdint.h>

/* The interpolation's guesses need little precision: fast device forms. */
#if defined(__CUDA_ARCH__)
#define TSI_SPLIT_DIVIDE(a, b) __fdividef(a, b)
#define TSI_SPLIT_RSQRT(x) rsqrtf(x)
#else
#define TSI_SPLIT_DIVIDE(a, b) ((a) / (b))
#define TSI_SPLIT_RSQRT(x) (1.0f / sqrtf(x))
#endif
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
  /* Where in [0, span) linear interpolation puts fraction f of it (span                                               \
   * > 0). Single precision: a guess, whose error costs steps, never                                                   \
   * correctness; the result is clamped below span in integers. */                                                     \
  TSI_SPLIT_FN uint64_t NAME##_offset(uint64_t span, float f) {                                                        \
    float x = (float)span * f;                                                                                         \
    x = x < 0.0f ? 0.0f : x > 1.8e19f ? 1.8e19f : x;                                                                   \
    uint64_t at = (uint64_t)x;                                                                                         \
    return at < span ? at : span - 1;                                                                                  \
  }                                                                                                                    \
  /* First position in run[lo, hi) whose key is above v; every key there                                               \
   * lies in [a, b] (run sorted). Interpolation search (Perl, Itai and                                                 \
   * Avni 1978) with a bisection after any step that did not halve the                                                 \
   * bracket: about log2 log2 of the bracket on spread keys, at most twice                                             \
   * the steps of a binary search otherwise. Each probe narrows [a, b]. */                                             \
  TSI_SPLIT_FN int64_t NAME##_upper(const KEY *run, int64_t lo, int64_t hi, KEY v, KEY a, KEY b) {                     \
    int interpolate = 1;                                                                                               \
    while (lo < hi) {                                                                                                  \
      if (v < a)                                                                                                       \
        return lo;                                                                                                     \
      if (v >= b)                                                                                                      \
        return hi;                                                                                                     \
      int64_t size = hi - lo, mid = lo + size / 2;                                                                     \
      if (interpolate) {                                                                                               \
        /* a <= v < b here: the fraction of [a, b] at or below v. */                                                   \
        float f = TSI_SPLIT_DIVIDE((float)(KEY)(v - a) + 1.0f, (float)(KEY)(b - a) + 1.0f);                            \
        mid = lo + (int64_t)NAME##_offset((uint64_t)size, f);                                                          \
      }                                                                                                                \
      KEY key = run[mid];                                                                                              \
      if (key <= v) {                                                                                                  \
        lo = mid + 1;                                                                                                  \
        a = key;                                                                                                       \
      } else {                                                                                                         \
        hi = mid;                                                                                                      \
        b = key;                                                                                                       \
      }                                                                                                                \
      interpolate = 2 * (hi - lo) <= size;                                                                             \
    }                                                                                                                  \
    return lo;                                                                                                         \
  }                                                                                                                    \
  /* The two probes of a step, lo <= low <= high < hi (needs lo < hi and                                               \
   * below < rank < upto, the counts of keys < lo and <= hi): around the                                               \
   * value that interpolation of the counts predicts, about one standard                                               \
   * deviation of a uniform sample either side, or both the midpoint. */                                               \
  typedef struct NAME##_probe_pair {                                                                                   \
    KEY low, high;                                                                                                     \
  } NAME##_probe_pair;                                                                                                 \
  TSI_SPLIT_FN NAME##_probe_pair NAME##_probes(KEY lo, KEY hi, int64_t below, int64_t upto, int64_t rank,              \
                                               int interpolate) {                                                      \
    NAME##_probe_pair p;                                                                                               \
    if (!interpolate) {                                                                                                \
      p.low = p.high = (KEY)(lo + (KEY)(hi - lo) / 2);                                                                 \
      return p;                                                                                                        \
    }                                                                                                                  \
    float window = (float)(upto - below);                                                                              \
    float at = TSI_SPLIT_DIVIDE((float)(rank - below), window), spread = 0.5f * TSI_SPLIT_RSQRT(window);               \
    p.low = (KEY)(lo + NAME##_offset((KEY)(hi - lo), at - spread));                                                    \
    p.high = (KEY)(lo + NAME##_offset((KEY)(hi - lo), at + spread));                                                   \
    return p;                                                                                                          \
  }                                                                                                                    \
  TSI_SPLIT_FN void NAME(const KEY *keys, int64_t stride, const int64_t *len, int k, int64_t rank, int64_t *split) {   \
    int64_t below[TSI_SORT_MAX_WAYS], upto[TSI_SORT_MAX_WAYS]; /* count(key < lo), count(key <= hi) */                 \
    int64_t sum_below = 0, sum_upto = 0;                                                                               \
    KEY lo = (KEY) ~(KEY)0, hi = 0; /* empty runs leave these: no search then */                                       \
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
    /* Inside the loop sum_below < rank < sum_upto; the keys of every                                                  \
     * bracket lie in [lo, hi]. */                                                                                     \
    for (int interpolate = 1; lo < hi && sum_below != rank && sum_upto != rank;) {                                     \
      NAME##_probe_pair probe = NAME##_probes(lo, hi, sum_below, sum_upto, rank, interpolate);                         \
      KEY p1 = probe.low, p2 = probe.high;                                                                             \
      int64_t c1[TSI_SORT_MAX_WAYS], c2[TSI_SORT_MAX_WAYS], s1 = 0, s2 = 0;                                            \
      for (int i = 0; i < TSI_SORT_MAX_WAYS; i++) {                                                                    \
        if (i < k) {                                                                                                   \
          c1[i] = NAME##_upper(keys + i * stride, below[i], upto[i], p1, lo, hi);                                      \
          c2[i] = p2 == p1 ? c1[i] : NAME##_upper(keys + i * stride, below[i], upto[i], p2, lo, hi);                   \
          s1 += c1[i];                                                                                                 \
          s2 += c2[i];                                                                                                 \
        }                                                                                                              \
      }                                                                                                                \
      /* v <= p1, p1 < v <= p2, or v > p2: the piece of [lo, hi] that holds                                            \
       * v. A step that did not halve [lo, hi] is followed by a bisection. */                                          \
      int low = s1 >= rank, mid = !low && s2 >= rank;                                                                  \
      for (int i = 0; i < TSI_SORT_MAX_WAYS; i++) {                                                                    \
        if (i < k) {                                                                                                   \
          below[i] = low ? below[i] : mid ? c1[i] : c2[i];                                                             \
          upto[i] = low ? c1[i] : mid ? c2[i] : upto[i];                                                               \
        }                                                                                                              \
      }                                                                                                                \
      sum_below = low ? sum_below : mid ? s1 : s2;                                                                     \
      sum_upto = low ? s1 : mid ? s2 : sum_upto;                                                                       \
      KEY span = (KEY)(hi - lo);                                                                                       \
      lo = low ? lo : mid ? (KEY)(p1 + 1) : (KEY)(p2 + 1);                                                             \
      hi = low ? p1 : mid ? p2 : hi;                                                                                   \
      interpolate = (KEY)(hi - lo) <= span / 2;                                                                        \
    }                                                                                                                  \
    /* Every key below lo is taken; of the keys in [lo, hi] (all equal when the                                        \
     * search ran out) the first need in run order. */                                                                 \
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
