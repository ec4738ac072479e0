/**
 * @file tessera/search.h
 * @brief Batched predecessor search: lower and upper bounds of many queries
 *        in a sorted array of keys, and in many small sorted arrays at once.
 *
 * Order. Integer keys compare as integers. Floating-point keys compare as
 * numbers with a total order in which every NaN (any sign or payload) is
 * equal to every other NaN and greater than +infinity ("NaNs last", the
 * order of tessera's sorts), and -0.0 equals +0.0. A key array holding NaNs
 * must therefore have them at its end.
 *
 * Results. For a query q, the lower bound is the number of keys that are
 * less than q (the index of the first key not less than q) and the upper
 * bound the number of keys not greater than q (the index of the first key
 * greater than q); both lie in [0, N]. Every backend and every algorithm
 * gives the same indices.
 */
#ifndef TESSERA_SEARCH_H
#define TESSERA_SEARCH_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Type of the keys and queries of a search. */
typedef enum ts_key_type {
  TS_KEY_UINT32 = 0,  /**< uint32_t. */
  TS_KEY_INT32 = 1,   /**< int32_t. */
  TS_KEY_FLOAT32 = 2, /**< float, NaNs last. */
  TS_KEY_UINT64 = 3,  /**< uint64_t. */
  TS_KEY_FLOAT64 = 4  /**< double, NaNs last. */
} ts_key_type;

/** Number of key types (for loops over all of them). */
#define TS_KEY_TYPE_COUNT 5

/** Size in bytes of one key of @p type (4 or 8; 0 for an unknown type). */
TS_API size_t ts_key_type_size(ts_key_type type);

/** Name of a key type ("uint32", "int32", "float", "uint64", "double"). */
TS_API const char *ts_key_type_name(ts_key_type type);

/** Which bound a search returns. */
typedef enum ts_search_bound {
  TS_BOUND_LOWER = 0, /**< Number of keys < q: first index whose key is not less than q. */
  TS_BOUND_UPPER = 1  /**< Number of keys <= q: first index whose key is greater than q. */
} ts_search_bound;

/**
 * How the GPU searches. Every algorithm gives the same indices for any
 * queries, sorted or not; they differ in speed only. The CPU backend runs a
 * binary search whatever is chosen (the algorithm is recorded, not used).
 */
typedef enum ts_search_algorithm {
  /** Chosen by the plan: RADIX for keys of at most 16 KiB (N <= 4096
   * 4-byte or 2048 8-byte keys); else MERGE_PATH when the options say the
   * queries are sorted; else EYTZINGER when the whole
   * Eytzinger tree fits the shared-memory table (N <= 8191 for 4-byte keys,
   * 4095 for 8-byte keys); else KARY. ts_search_plan_explain() says which
   * and why. */
  TS_SEARCH_AUTO = 0,
  /** Plain binary search of the sorted keys in global memory, one query per
   * thread: the baseline, as thrust::lower_bound does it. */
  TS_SEARCH_BINARY = 1,
  /** Eytzinger (breadth-first) layout of the keys, padded to a perfect
   * binary tree; its first levels, a prefix of the layout, are copied to
   * shared memory by each block (Khuong and Morin, "Array Layouts for
   * Comparison-Based Searching", JEA 2017, section 4). */
  TS_SEARCH_EYTZINGER = 2,
  /** A static B+-tree over the sorted keys (K-ary search, Rao and Ross
   * "cache-conscious search trees", VLDB 1999): nodes of 64 bytes (16
   * 4-byte or 8 8-byte keys) read by one thread with vector loads; the top
   * levels sit in shared memory. Henneberg and Schuhknecht (arXiv
   * 2506.01576) report K-ary search 1.5-2.7x faster than a GPU B+-tree. */
  TS_SEARCH_KARY = 3,
  /** For sorted queries: each block takes a tile of queries and the window
   * of keys its merge path with the keys crosses (two searches at the
   * tile's least and greatest query), loads the window to shared memory
   * and searches there (Baxter's vectorised sorted search, ModernGPU).
   * Queries out of order stay correct: a window too large for shared
   * memory falls back to a search in global memory. */
  TS_SEARCH_MERGE_PATH = 4,
  /** A radix table over the bits in which the keys differ (the radix table
   * of Kipf et al., "RadixSpline", aiDM 2020): up to 4096 buckets, about
   * four per key, each holding the lower bound of its first value, so that
   * a query reads two table entries and binary-searches the few keys of its
   * bucket. Table and keys sit in shared memory when together they fit 48
   * KiB (about 8,000 4-byte keys), else the keys are read from global
   * memory. Keys crowded into few buckets fall back to a binary search of
   * the bucket: always correct, fast when the keys spread. */
  TS_SEARCH_RADIX = 5
} ts_search_algorithm;

/** Number of algorithms including AUTO (for loops over all of them). */
#define TS_SEARCH_ALGORITHM_COUNT 6

/** Name of an algorithm ("auto", "binary", "eytzinger", "kary", "merge-path", "radix"). */
TS_API const char *ts_search_algorithm_name(ts_search_algorithm algorithm);

/** Width of the result indices. */
typedef enum ts_index_type {
  TS_INDEX_AUTO = 0,  /**< int32_t when N <= INT32_MAX (always, in practice), else int64_t. */
  TS_INDEX_INT32 = 1, /**< int32_t; refused with TS_ERROR_OVERFLOW when N > INT32_MAX. */
  TS_INDEX_INT64 = 2  /**< int64_t. */
} ts_index_type;

/** Options of ts_search_plan_create(); zero-initialise, then set fields. */
typedef struct ts_search_options {
  ts_search_algorithm algorithm; /**< GPU algorithm (default AUTO). */
  int sorted_queries;            /**< Non-zero: queries come sorted (AUTO: MERGE_PATH past 16 KiB of keys). */
  ts_index_type index_type;      /**< Result width (default AUTO: int32 for N <= INT32_MAX). */
} ts_search_options;

/** A prepared search: the keys and their layout in backend memory. */
typedef struct ts_search_plan ts_search_plan;

/**
 * Prepare searches in @p n keys of @p type at @p keys (host memory, sorted in
 * the order described at the top of this file). The keys are copied: the
 * caller may free them afterwards. The plan builds the chosen algorithm's
 * layout once (the B+-tree levels for KARY and MERGE_PATH, the Eytzinger
 * array for EYTZINGER) and copies it to backend memory. @p options may be
 * NULL (AUTO). Keys out of order give TS_ERROR_INVALID_ARGUMENT naming the
 * first offending index; an unknown type, algorithm or index type gives
 * TS_ERROR_INVALID_ARGUMENT; n < 0 too; @p keys may be NULL only when n is 0.
 */
TS_API ts_status ts_search_plan_create(ts_context *ctx, ts_key_type type, const void *keys, int64_t n,
                                       const ts_search_options *options, ts_search_plan **plan);

/** Free a plan (NULL is a no-op). */
TS_API void ts_search_plan_destroy(ts_search_plan *plan);

/** Algorithm the plan runs (never AUTO: what AUTO resolved to). */
TS_API ts_search_algorithm ts_search_plan_algorithm(const ts_search_plan *plan);

/** Bytes of one result index (4 or 8); 0 for a NULL plan. */
TS_API size_t ts_search_plan_index_size(const ts_search_plan *plan);

/** One line saying which algorithm runs and why. Owned by the plan. */
TS_API const char *ts_search_plan_explain(const ts_search_plan *plan);

/**
 * For each of @p count queries (of the plan's key type) in @p queries, write
 * its @p bound into @p results (ts_search_plan_index_size() bytes each). Both
 * buffers are TS_MEMORY_DEVICE buffers of the plan's context holding at least
 * count entries, and their entries must not overlap (TS_ERROR_INVALID_ARGUMENT:
 * the results would overwrite queries not yet read). Allocates nothing and
 * does not wait for the GPU; faults surface at the next ts_context_sync().
 */
TS_API ts_status ts_search_execute(ts_search_plan *plan, ts_search_bound bound, const ts_buffer *queries, int64_t count,
                                   ts_buffer *results);

/** Largest array length ts_search_batched() accepts. */
#define TS_SEARCH_BATCHED_MAX_KEYS 2048

/** Algorithms of ts_search_batched(), which searches in shared memory. */
typedef enum ts_search_batched_algorithm {
  /** Chosen: CONFLICT_LIMITED. */
  TS_SEARCH_BATCHED_AUTO = 0,
  /** Binary search of the sorted array copied to shared memory: the early
   * midpoints of a warp's searches fall in the same bank. */
  TS_SEARCH_BATCHED_NAIVE = 1,
  /** Work-optimal search with a limited number of bank conflicts (after
   * Karsin, Casanova and Sitchinava, "Efficient batched predecessor search
   * in shared memory on GPUs"): the array is laid out in Eytzinger order in
   * shared memory, so the first five levels of a warp's 32 searches read 32
   * consecutive words (no conflict) and only the deeper, random levels can
   * conflict. */
  TS_SEARCH_BATCHED_CONFLICT_LIMITED = 2
} ts_search_batched_algorithm;

/** Name of a batched algorithm ("auto", "naive", "conflict-limited"). */
TS_API const char *ts_search_batched_algorithm_name(ts_search_batched_algorithm algorithm);

/**
 * Many independent searches: array a (a = 0 .. @p arrays - 1) is the @p n
 * sorted keys at keys[a * n], its @p m queries are queries[a * m] onward, and
 * the @p bound of query j of array a (an index in [0, n] within array a) goes
 * to results[a * m + j] as int32_t. All three are TS_MEMORY_DEVICE buffers of
 * @p ctx; the results must not overlap the keys or the queries
 * (TS_ERROR_INVALID_ARGUMENT). n is at most TS_SEARCH_BATCHED_MAX_KEYS
 * (TS_ERROR_UNSUPPORTED beyond). Keys are not checked for order (unsorted arrays give unspecified
 * indices in [0, n]). Asynchronous on the GPU, like ts_search_execute().
 */
TS_API ts_status ts_search_batched(ts_context *ctx, ts_key_type type, ts_search_bound bound,
                                   ts_search_batched_algorithm algorithm, const ts_buffer *keys, int64_t arrays,
                                   int64_t n, const ts_buffer *queries, int64_t m, ts_buffer *results);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_SEARCH_H */
