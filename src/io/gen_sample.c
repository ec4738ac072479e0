/* Sorted sets of k distinct uniformly random integers of [0, n), and the
 * integer sort they need. */
#include "gen_internal.h"

#include <stdlib.h>
#include <string.h>

static void insertion_sort(int32_t *v, int64_t k) {
  for (int64_t i = 1; i < k; i++) {
    int32_t x = v[i];
    int64_t j = i;
    while (j > 0 && v[j - 1] > x) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

/* Least-significant-digit radix sort, 8 bits a pass, skipping the passes
 * above the largest value's top bit. */
void tsi_sort_int32(int32_t *values, int64_t k, int32_t *scratch) {
  if (k <= 32) {
    insertion_sort(values, k);
    return;
  }
  uint32_t largest = 0;
  for (int64_t i = 0; i < k; i++)
    if ((uint32_t)values[i] > largest)
      largest = (uint32_t)values[i];
  int32_t *src = values, *dst = scratch;
  for (int shift = 0; shift < 32 && (largest >> shift) != 0; shift += 8) {
    int64_t count[257] = {0};
    for (int64_t i = 0; i < k; i++)
      count[(((uint32_t)src[i] >> shift) & 0xff) + 1]++;
    for (int d = 0; d < 256; d++)
      count[d + 1] += count[d];
    for (int64_t i = 0; i < k; i++)
      dst[count[((uint32_t)src[i] >> shift) & 0xff]++] = src[i];
    int32_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != values)
    memcpy(values, src, (size_t)k * sizeof *values);
}

/* Rows denser than 1/16 of n use selection sampling; sparser ones Floyd's
 * algorithm, whose set needs a hash table of about 2k slots. */
static bool use_selection(int64_t n, int64_t k) { return k > n / 16; }

bool tsi_sample_workspace_init(tsi_sample_workspace *ws, int64_t n, int64_t max_k) {
  memset(ws, 0, sizeof *ws);
  int64_t floyd_k = max_k < n / 16 ? max_k : n / 16;
  int64_t size = 64;
  while (size < 2 * floyd_k)
    size *= 2;
  ws->table = tsi_malloc_array(size, sizeof(int32_t));
  ws->scratch = tsi_malloc_array(floyd_k > 1 ? floyd_k : 1, sizeof(int32_t));
  if (!ws->table || !ws->scratch) {
    tsi_sample_workspace_free(ws);
    return false;
  }
  ws->table_mask = size - 1;
  memset(ws->table, 0xff, (size_t)size * sizeof(int32_t));
  return true;
}

void tsi_sample_workspace_free(tsi_sample_workspace *ws) {
  free(ws->table);
  free(ws->scratch);
  ws->table = ws->scratch = NULL;
}

/* Insert v; false if it was present. */
static bool table_insert(tsi_sample_workspace *ws, int32_t v) {
  uint64_t slot = tsi_mix64((uint64_t)v) & (uint64_t)ws->table_mask;
  while (ws->table[slot] != -1) {
    if (ws->table[slot] == v)
      return false;
    slot = (slot + 1) & (uint64_t)ws->table_mask;
  }
  ws->table[slot] = v;
  return true;
}

static void table_clear(tsi_sample_workspace *ws, const int32_t *values, int64_t k) {
  for (int64_t i = 0; i < k; i++) {
    uint64_t slot = tsi_mix64((uint64_t)values[i]) & (uint64_t)ws->table_mask;
    while (ws->table[slot] != -1) {
      ws->table[slot] = -1;
      slot = (slot + 1) & (uint64_t)ws->table_mask;
    }
  }
}

static bool linear_contains(const int32_t *values, int64_t k, int32_t v) {
  for (int64_t i = 0; i < k; i++)
    if (values[i] == v)
      return true;
  return false;
}

void tsi_sample_sorted(uint64_t key, int64_t n, int64_t k, int32_t *out, tsi_sample_workspace *ws) {
  if (k >= n) {
    for (int64_t i = 0; i < n; i++)
      out[i] = (int32_t)i;
    return;
  }
  if (use_selection(n, k)) {
    /* Knuth, TAOCP vol. 2, 3.4.2, Algorithm S: take candidate i with
     * probability (still needed) / (still available); output is sorted. */
    int64_t taken = 0;
    for (int64_t i = 0; i < n && taken < k; i++) {
      double u = tsi_uniform01(tsi_random_draw(key, (uint64_t)i));
      if ((double)(n - i) * u < (double)(k - taken))
        out[taken++] = (int32_t)i;
    }
    return;
  }
  /* Floyd's algorithm (Bentley, "Programming Pearls: A sample of
   * brilliance", CACM 1987): for j = n-k .. n-1 draw t in [0, j]; take t,
   * or j when t is already taken. */
  bool small = k <= 16;
  int64_t taken = 0;
  for (int64_t j = n - k; j < n; j++) {
    int32_t t = (int32_t)tsi_uniform_below(tsi_random_draw(key, (uint64_t)taken), (uint64_t)j + 1);
    if (small) {
      if (linear_contains(out, taken, t))
        t = (int32_t)j;
    } else if (!table_insert(ws, t)) {
      t = (int32_t)j;
      table_insert(ws, t);
    }
    out[taken++] = t;
  }
  if (!small)
    table_clear(ws, out, k);
  tsi_sort_int32(out, k, ws->scratch);
}
