/* Search internals: the order-preserving map of every key type to unsigned
 * "ordered bits" (the kernels and the CPU backend compare only those), the
 * plan's fields and the layouts it builds. */
#ifndef TESSERA_SEARCH_INTERNAL_H
#define TESSERA_SEARCH_INTERNAL_H

#include "core/internal.h"
#include "search/search_tuning.h"
#include "tessera/search.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for ts_search_plan_explain()'s line. */
#define TSI_SEARCH_EXPLAIN_SIZE 256

/* Most levels a B+-tree can have (fan-out >= 8, N < 2^63). */
#define TSI_SEARCH_MAX_LEVELS 24

/* Ordered bits: a < b in the key order <=> map(a) < map(b) as unsigned.
 * Signed integers flip the sign bit; floats flip all bits when negative and
 * the sign bit otherwise; -0.0 maps as +0.0 and every NaN to the largest
 * value (NaNs last, all equal). */
static inline uint32_t tsi_order_bits32(ts_key_type type, uint32_t bits) {
  if (type == TS_KEY_INT32)
    return bits ^ 0x80000000u;
  if (type == TS_KEY_FLOAT32) {
    if ((bits & 0x7fffffffu) > 0x7f800000u)
      return 0xffffffffu;
    if (bits == 0x80000000u)
      bits = 0;
    return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
  }
  return bits;
}

static inline uint64_t tsi_order_bits64(ts_key_type type, uint64_t bits) {
  if (type == TS_KEY_FLOAT64) {
    if ((bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
      return 0xffffffffffffffffull;
    if (bits == 0x8000000000000000ull)
      bits = 0;
    return (bits & 0x8000000000000000ull) ? ~bits : bits | 0x8000000000000000ull;
  }
  return bits;
}

/* Ordered bits of key i of an array of @p type, widened to 64 bits. */
static inline uint64_t tsi_order_key(ts_key_type type, const void *keys, int64_t i) {
  if (ts_key_type_size(type) == 4) {
    uint32_t bits;
    memcpy(&bits, (const char *)keys + 4 * i, 4);
    return tsi_order_bits32(type, bits);
  }
  uint64_t bits;
  memcpy(&bits, (const char *)keys + 8 * i, 8);
  return tsi_order_bits64(type, bits);
}

/* A static B+-tree over the ordered keys (Rao and Ross's CSS-tree): level 0
 * is the sorted array, padded to whole nodes with the largest value; entry e
 * of level l+1 is the last real key under node e of level l. The levels are
 * stored top first in one array, so that the top of the tree is a prefix of
 * it (the shared-memory table). Offsets and counts are in keys. */
typedef struct tsi_search_tree {
  int levels;                             /* >= 1 when n > 0 */
  int fanout;                             /* keys per node: 16 (4-byte keys) or 8 */
  int64_t entries[TSI_SEARCH_MAX_LEVELS]; /* real entries of level l (level 0: n) */
  int64_t offset[TSI_SEARCH_MAX_LEVELS];  /* where level l starts in the array */
  int64_t total;                          /* keys in the array (all levels, padded) */
  int64_t top_keys;                       /* prefix that fits TSI_SEARCH_TOP_BYTES */
  int top_levels;                         /* levels wholly inside that prefix */
} tsi_search_tree;

/* Shape of the B+-tree over n keys of @p key_size bytes. */
void tsi_search_tree_shape(int64_t n, size_t key_size, tsi_search_tree *tree);

/* Fill the tree's array (tree->total keys of key_size bytes) from the
 * ordered keys (n values, key_size bytes each). */
void tsi_search_tree_fill(const tsi_search_tree *tree, size_t key_size, const void *ordered, void *array);

/* Height h of the perfect Eytzinger tree over n keys (2^h - 1 >= n). */
int tsi_search_eytzinger_height(int64_t n);

/* Fill the Eytzinger array (2^h - 1 keys) from the ordered keys, padding with
 * the largest value. */
void tsi_search_eytzinger_fill(int64_t n, int height, size_t key_size, const void *ordered, void *array);

/* The radix table: bucket b holds the keys whose ordered bits, shifted
 * right by shift, equal base + b; table[b] is the lower bound of the
 * bucket's first value (table[buckets] = n), or, packed, that bound and the
 * bucket's key count in one word. At most
 * 2^TSI_SEARCH_RADIX_MAX_BITS buckets, about TSI_SEARCH_RADIX_PER_KEY a key. */
typedef struct tsi_search_radix {
  int shift;
  uint64_t base;
  int64_t buckets;
  uint64_t low, high;  /* first and last key */
  int packed;          /* n < 2^16: entry b is first | count << 16 (one read a query), else first alone */
  int64_t table_slots; /* buckets + 1, rounded up to whole 16 bytes */
} tsi_search_radix;

/* Shape of the radix table over n >= 1 ordered keys. */
void tsi_search_radix_shape(int64_t n, size_t key_size, const void *ordered, tsi_search_radix *radix);

/* Fill the table (radix->buckets + 1 entries) from the ordered keys. */
void tsi_search_radix_fill(const tsi_search_radix *radix, int64_t n, size_t key_size, const void *ordered,
                           uint32_t *table);

struct ts_search_plan {
  ts_context *ctx;
  ts_key_type type;
  size_t key_size;
  int64_t n;
  ts_search_algorithm algorithm; /* resolved, never AUTO */
  size_t index_size;             /* 4 or 8 */
  void *ordered;                 /* CPU backend: the ordered keys (host) */
  /* CUDA backend, in GPU memory: the B+-tree array (its level 0 is the
   * sorted ordered keys, which the binary search reads) or the Eytzinger array. */
  void *device_layout;
  tsi_search_tree tree;
  int eytzinger_height;
  tsi_search_radix radix; /* TS_SEARCH_RADIX: the layout is the table, then the ordered keys */
  int multiprocessors;
  /* CUDA backend: blocks of the algorithm's kernel the device holds at once
   * (SMs times the kernel's occupancy with the plan's shared memory), found
   * at plan creation; the grid of a grid-stride search follows from it. */
  int resident_blocks;
  char explain[TSI_SEARCH_EXPLAIN_SIZE];
};

/* Host search over ordered keys: count of keys < q (lower) or <= q (upper). */
ts_status tsi_search_cpu(ts_search_plan *plan, ts_search_bound bound, const void *queries, int64_t count,
                         void *results);

/* The CUDA side (search_cuda.cu; search_nocuda.c without CUDA). prepare
 * runs once at plan creation, after the layout is on the device; execute
 * asks the device nothing, allocates nothing and does not synchronise. */
ts_status tsi_search_cuda_prepare(ts_search_plan *plan);
ts_status tsi_search_cuda_execute(ts_search_plan *plan, ts_search_bound bound, const void *queries, int64_t count,
                                  void *results);
ts_status tsi_search_cuda_batched(ts_context *ctx, ts_key_type type, ts_search_bound bound,
                                  ts_search_batched_algorithm algorithm, const void *keys, int64_t arrays, int64_t n,
                                  const void *queries, int64_t m, void *results);

#ifdef __cplusplus
}
#endif

#endif
