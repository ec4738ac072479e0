/**
 * @file tessera/sort.h
 * @brief Stable comparison sort of keys, or of keys with values, through a plan.
 *
 * A plan fixes the key type, the value type (none, a 32- or 64-bit payload,
 * or the permutation of input positions), the order and the largest length;
 * ts_sort_plan_workspace_bytes() says how much workspace an execution needs.
 * ts_sort_execute() sorts TS_MEMORY_DEVICE buffers in place on the context's
 * stream: on the CUDA backend it allocates nothing and does not synchronise
 * the host. Both backends give bitwise the same result.
 *
 * Order of keys: integers by value. Floating-point keys follow a total order:
 * -inf < negative numbers < -0.0 < +0.0 < positive numbers < +inf < NaNs,
 * so -0.0 sorts before +0.0 and every NaN, whatever its sign bit, sorts after
 * +inf (NaNs among themselves: positive NaNs by payload, then negative NaNs by
 * payload). TS_SORT_DESCENDING reverses the order of everything but the NaNs,
 * which stay last. The sort is stable in both orders: equal keys keep their
 * input order. Keys (and NaN bit patterns) come back unchanged, only moved.
 */
#ifndef TESSERA_SORT_H
#define TESSERA_SORT_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Type of the keys. */
typedef enum ts_sort_key {
  TS_SORT_KEY_UINT32 = 0,  /**< uint32_t. */
  TS_SORT_KEY_INT32 = 1,   /**< int32_t. */
  TS_SORT_KEY_FLOAT32 = 2, /**< float, in the total order above. */
  TS_SORT_KEY_UINT64 = 3,  /**< uint64_t. */
  TS_SORT_KEY_FLOAT64 = 4, /**< double, in the total order above. */
  TS_SORT_KEY_COUNT = 5    /**< Number of key types. */
} ts_sort_key;

/** What travels with the keys. */
typedef enum ts_sort_value {
  TS_SORT_VALUE_NONE = 0,   /**< Keys alone; the values buffer may be NULL. */
  TS_SORT_VALUE_UINT32 = 1, /**< A 4-byte payload per key, moved with it. */
  TS_SORT_VALUE_UINT64 = 2, /**< An 8-byte payload per key, moved with it. */
  /** The values buffer receives the permutation: for each sorted position,
   * the int32 input position of its key (its contents on entry are ignored). */
  TS_SORT_VALUE_INDEX = 3,
  TS_SORT_VALUE_COUNT = 4 /**< Number of value kinds. */
} ts_sort_value;

/** Direction of the sort. */
typedef enum ts_sort_order {
  TS_SORT_ASCENDING = 0, /**< Smallest key first. */
  TS_SORT_DESCENDING = 1 /**< Largest key first (NaNs still last); still stable. */
} ts_sort_order;

/** What a sort plan is for; zero-initialise, then set fields. */
typedef struct ts_sort_options {
  ts_sort_key key;     /**< Key type (default TS_SORT_KEY_UINT32). */
  ts_sort_value value; /**< Values moved with the keys (default none). */
  ts_sort_order order; /**< Ascending by default. */
  int64_t max_n;       /**< Largest length executed with the plan: 0 to INT32_MAX. */
} ts_sort_options;

/** A sort prepared for one key type, value type, order and largest length. */
typedef struct ts_sort_plan ts_sort_plan;

/**
 * Create a plan for @p options on @p ctx's backend. Unknown enums, a negative
 * max_n or one above INT32_MAX give TS_ERROR_INVALID_ARGUMENT or
 * TS_ERROR_OVERFLOW with the reason in ts_last_error(ctx).
 */
TS_API ts_status ts_sort_plan_create(ts_context *ctx, const ts_sort_options *options, ts_sort_plan **plan);

/** Destroy a plan (NULL is a no-op). */
TS_API void ts_sort_plan_destroy(ts_sort_plan *plan);

/** Bytes of TS_MEMORY_DEVICE workspace ts_sort_execute() needs for up to
 * max_n keys (0 for a NULL plan). */
TS_API size_t ts_sort_plan_workspace_bytes(const ts_sort_plan *plan);

/**
 * Sort the first @p n keys of @p keys (and, with a value type, the first @p n
 * entries of @p values) in place. All buffers are TS_MEMORY_DEVICE buffers of
 * the plan's context; @p workspace holds at least
 * ts_sort_plan_workspace_bytes() bytes (it may be NULL when that is 0) and
 * must not overlap the keys or values. @p n is 0 to the plan's max_n.
 * Asynchronous on CUDA: the result is ready after ts_context_sync() or a
 * download.
 */
TS_API ts_status ts_sort_execute(ts_sort_plan *plan, int64_t n, ts_buffer *keys, ts_buffer *values,
                                 ts_buffer *workspace);

/** Size in bytes of one key of @p key (0 for an unknown type). */
TS_API size_t ts_sort_key_size(ts_sort_key key);

/** Size in bytes of one value of @p value (0 for none or an unknown kind). */
TS_API size_t ts_sort_value_size(ts_sort_value value);

/** Name of a key type ("uint32", "int32", "float", "uint64", "double"; "unknown"). */
TS_API const char *ts_sort_key_name(ts_sort_key key);

/** Kinds of input ts_sort_generate() makes. */
typedef enum ts_sort_input {
  TS_SORT_INPUT_RANDOM = 0,       /**< Independent uniform keys (random bits for integers, [-1e6, 1e6) for floats). */
  TS_SORT_INPUT_SORTED = 1,       /**< Already ascending, distinct. */
  TS_SORT_INPUT_REVERSE = 2,      /**< Descending, distinct. */
  TS_SORT_INPUT_FEW_DISTINCT = 3, /**< Random picks among 16 distinct keys. */
  /** Keys that make the merge steps of a pairwise GPU merge sort with
   * @p items_per_thread items per thread and @p threads_per_block threads
   * hit one shared-memory bank across a warp as often as it can (see
   * ts_sort_generate()). */
  TS_SORT_INPUT_WORST_CASE = 4,
  TS_SORT_INPUT_COUNT = 5 /**< Number of input kinds. */
} ts_sort_input;

/** Name of an input kind ("random", "sorted", "reverse", "few-distinct", "worst-case"; "unknown"). */
TS_API const char *ts_sort_input_name(ts_sort_input input);

/**
 * Fill host memory @p keys with @p n keys of type @p key of kind @p input,
 * the same for a seed on every machine. @p items_per_thread (E, odd, 1 to 63)
 * and @p threads_per_block (u, a power of two from 32 to 1024) describe the
 * merge sort the worst case is made for (CUB's DeviceMergeSort uses E = 17,
 * u = 256 for 4-byte keys); the other kinds ignore them.
 *
 * Worst case (after Berney and Sitchinava, "Engineering worst-case inputs for
 * pairwise merge sort on GPUs", IPDPS 2020): a pairwise merge sort sorts tiles
 * of u*E keys in shared memory (E keys per thread, then merges of runs of E,
 * 2E, ... keys) and then merges pairs of runs in global memory tile by tile;
 * in every merge, each thread walks its E outputs serially and loads the next
 * key of whichever run it took from. Which run it takes is decided by the
 * data, so the input chooses the shared-memory banks. The generator picks,
 * for every merge of every level, the interleaving of its two runs: lane by
 * lane in each warp, the run whose next load falls in the bank lane 0 loads
 * at that step, under the counts each run must supply; it then builds the
 * input by un-merging the sorted sequence 0..n-1 level by level, from the
 * last merge down to the E-key pieces. This greedy construction is ours; the
 * paper proves (and constructs) a permutation that serialises each warp to
 * ceil(32/E) threads, which ours approaches but does not guarantee.
 * Integer keys are the ranks (uint32 wraps past 2^32); float keys are the ranks
 * converted, so ties appear past 2^24.
 */
TS_API ts_status ts_sort_generate(ts_context *ctx, ts_sort_input input, ts_sort_key key, int64_t n, uint64_t seed,
                                  int items_per_thread, int threads_per_block, void *keys);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_SORT_H */
