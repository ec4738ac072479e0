/* The layouts a search plan builds once on the host: the static B+-tree
 * (levels top first, so that the top of the tree is a prefix of the array),
 * the Eytzinger array of a perfect binary tree, and the radix table. The
 * tree and the Eytzinger array hold ordered bits (search_internal.h), padded
 * with the largest value, which no lower-bound comparison counts; the radix
 * table holds indices into the ordered keys. */
#include "search/search_internal.h"

static uint64_t largest(size_t key_size) { return key_size == 4 ? 0xffffffffull : ~0ull; }

static uint64_t get(const void *a, size_t key_size, int64_t i) {
  if (key_size == 4)
    return ((const uint32_t *)a)[i];
  return ((const uint64_t *)a)[i];
}

static void put(void *a, size_t key_size, int64_t i, uint64_t v) {
  if (key_size == 4)
    ((uint32_t *)a)[i] = (uint32_t)v;
  else
    ((uint64_t *)a)[i] = v;
}

static int64_t round_up(int64_t x, int64_t k) { return (x + k - 1) / k * k; }

void tsi_search_tree_shape(int64_t n, size_t key_size, tsi_search_tree *tree) {
  memset(tree, 0, sizeof *tree);
  tree->fanout = (int)(TSI_SEARCH_NODE_BYTES / key_size);
  if (n <= 0)
    return;
  int64_t k = tree->fanout;
  int levels = 0;
  int64_t entries = n;
  for (;;) {
    tree->entries[levels++] = entries;
    if (entries <= k)
      break;
    entries = (entries + k - 1) / k; /* one entry per node of the level below */
  }
  tree->levels = levels;
  int64_t offset = 0;
  for (int l = levels - 1; l >= 0; l--) {
    tree->offset[l] = offset;
    offset += round_up(tree->entries[l], k);
  }
  tree->total = offset;
  /* Whole levels from the top while they fit the shared-memory table. */
  int64_t budget = (int64_t)(TSI_SEARCH_TOP_BYTES / key_size);
  for (int l = levels - 1; l >= 0; l--) {
    int64_t end = tree->offset[l] + round_up(tree->entries[l], k);
    if (end > budget)
      break;
    tree->top_keys = end;
    tree->top_levels++;
  }
}

void tsi_search_tree_fill(const tsi_search_tree *tree, size_t key_size, const void *ordered, void *array) {
  int64_t k = tree->fanout, n = tree->entries[0];
  uint64_t pad = largest(key_size);
  int64_t span = 1; /* level-0 keys under one entry of level l */
  for (int l = 0; l < tree->levels; l++) {
    int64_t base = tree->offset[l], entries = tree->entries[l];
    for (int64_t e = 0; e < entries; e++) {
      /* The last real key under entry e; span is capped at n, so e * span
       * cannot overflow where it matters (e < entries <= n / span + 1). */
      int64_t last = (e + 1 > n / span) ? n - 1 : (e + 1) * span - 1;
      if (last > n - 1)
        last = n - 1;
      put(array, key_size, base + e, get(ordered, key_size, last));
    }
    for (int64_t e = entries; e < round_up(entries, k); e++)
      put(array, key_size, base + e, pad);
    span = span > n / k ? n : span * k;
  }
}

int tsi_search_eytzinger_height(int64_t n) {
  int h = 0;
  while (h < 63 && ((int64_t)1 << h) - 1 < n)
    h++;
  return h;
}

/* Sorted position i of a perfect tree of height h sits at depth
 * h - 1 - ctz(i + 1), (i + 1) >> (ctz + 1) nodes from the left of its level. */
void tsi_search_eytzinger_fill(int64_t n, int height, size_t key_size, const void *ordered, void *array) {
  int64_t slots = ((int64_t)1 << height) - 1;
  uint64_t pad = largest(key_size);
  for (int64_t i = 0; i < slots; i++) {
    uint64_t j = (uint64_t)i + 1;
    int tz = 0;
    while (!((j >> tz) & 1))
      tz++;
    int depth = height - 1 - tz;
    int64_t index = ((int64_t)1 << depth) - 1 + (int64_t)(j >> (tz + 1));
    put(array, key_size, index, i < n ? get(ordered, key_size, i) : pad);
  }
}

/* Keys below v among the n ordered keys (a lower bound by bisection). */
static int64_t lower_bound(const void *ordered, size_t key_size, int64_t n, uint64_t v) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (get(ordered, key_size, mid) < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void tsi_search_radix_shape(int64_t n, size_t key_size, const void *ordered, tsi_search_radix *radix) {
  memset(radix, 0, sizeof *radix);
  radix->low = get(ordered, key_size, 0);
  radix->high = get(ordered, key_size, n - 1);
  int bits = 1;
  while (bits < TSI_SEARCH_RADIX_MAX_BITS && ((int64_t)1 << bits) < TSI_SEARCH_RADIX_PER_KEY * n)
    bits++;
  uint64_t differ = radix->low ^ radix->high;
  int varying = 0; /* bits below the keys' common prefix */
  while (varying < 64 && (differ >> varying) != 0)
    varying++;
  radix->shift = varying > bits ? varying - bits : 0;
  radix->base = radix->low >> radix->shift;
  radix->buckets = (int64_t)((radix->high >> radix->shift) - radix->base) + 1; /* <= 2^bits */
  radix->table_slots = round_up(radix->buckets + 1, 4);
  radix->packed = n < 65536;
}

void tsi_search_radix_fill(const tsi_search_radix *radix, int64_t n, size_t key_size, const void *ordered,
                           uint32_t *table) {
  int64_t first = 0; /* bucket 0 starts at or below the first key */
  for (int64_t b = 0; b < radix->buckets; b++) {
    /* (base + b + 1) << shift <= high while b + 1 < buckets: no overflow */
    int64_t next =
        b + 1 < radix->buckets ? lower_bound(ordered, key_size, n, (radix->base + (uint64_t)b + 1) << radix->shift) : n;
    table[b] = radix->packed ? (uint32_t)first | (uint32_t)(next - first) << 16 : (uint32_t)first;
    first = next;
  }
  for (int64_t b = radix->buckets; b < radix->table_slots; b++)
    table[b] = (uint32_t)n; /* unpacked, entry buckets bounds the last bucket; the rest is padding */
}
