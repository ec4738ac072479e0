/* Inputs for sort tests and benchmarks: random, sorted, reverse, few
 * distinct, and the bank-conflict worst case of a pairwise GPU merge sort
 * (the construction is described at ts_sort_generate in tessera/sort.h). */
#include "sort/sort_internal.h"

#include <stdlib.h>
#include <string.h>

#define WARP 32
#define BANKS 32

const char *ts_sort_input_name(ts_sort_input input) {
  static const char *const names[TS_SORT_INPUT_COUNT] = {"random", "sorted", "reverse", "few-distinct", "worst-case"};
  return (int)input >= 0 && input < TS_SORT_INPUT_COUNT ? names[input] : "unknown";
}

/* splitmix64 of one counter: a value per index, whatever the thread count. */
static uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Key @p i of the output from an unsigned rank, monotone in the rank. */
static void store_rank(ts_sort_key key, void *keys, int64_t i, uint64_t rank) {
  switch (key) {
  case TS_SORT_KEY_UINT32:
    ((uint32_t *)keys)[i] = (uint32_t)rank;
    break;
  case TS_SORT_KEY_INT32:
    ((int32_t *)keys)[i] = (int32_t)((int64_t)(rank & 0xffffffffu) - 2147483648LL);
    break;
  case TS_SORT_KEY_FLOAT32:
    ((float *)keys)[i] = (float)rank;
    break;
  case TS_SORT_KEY_UINT64:
    ((uint64_t *)keys)[i] = rank;
    break;
  default:
    ((double *)keys)[i] = (double)rank;
    break;
  }
}

static void store_random(ts_sort_key key, void *keys, int64_t i, uint64_t z) {
  double unit = (double)(z >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
  switch (key) {
  case TS_SORT_KEY_UINT32:
    ((uint32_t *)keys)[i] = (uint32_t)(z >> 32);
    break;
  case TS_SORT_KEY_INT32:
    ((int32_t *)keys)[i] = (int32_t)((int64_t)(z >> 32) - 2147483648LL);
    break;
  case TS_SORT_KEY_FLOAT32:
    ((float *)keys)[i] = (float)(unit * 2e6 - 1e6);
    break;
  case TS_SORT_KEY_UINT64:
    ((uint64_t *)keys)[i] = z;
    break;
  default:
    ((double *)keys)[i] = unit * 2e6 - 1e6;
    break;
  }
}

/* Interleaving of one merge segment of @p len outputs, @p la of them from run
 * A: side[k] = 1 when output k comes from A. A's first key sits at
 * shared-memory word @p oa, B's at @p ob. Each thread makes E outputs and, at
 * each step, loads the next key of the run it took from; lane 0 of a warp
 * keeps A's share proportional, every other lane takes the run whose next
 * load hits the bank lane 0 loaded at that step, when it can. */
static void interleave(uint8_t *side, int64_t len, int64_t la, int64_t oa, int64_t ob, int e) {
  int64_t ai = 0, bi = 0;
  int target[64];
  for (int64_t k = 0; k < len; k++) {
    int64_t thread = k / e, step = k % e;
    int lane = (int)(thread % WARP);
    int64_t rest_a = la - ai, rest = len - k;
    int bank_a = (int)((oa + ai + 1) % BANKS), bank_b = (int)((ob + bi + 1) % BANKS);
    int take_a;
    if (rest_a == 0 || rest_a == rest) /* one side is used up, or only it is left */
      take_a = rest_a != 0;
    else if (lane != 0 && (bank_a == target[step] || bank_b == target[step]))
      take_a = bank_a == target[step]; /* follow lane 0's bank */
    else
      take_a = ai * len <= la * k; /* A's share so far at most its share overall */
    if (lane == 0)
      target[step] = take_a ? bank_a : bank_b;
    side[k] = (uint8_t)take_a;
    ai += take_a;
    bi += !take_a;
  }
}

/* Un-merge the merged run cur[0, len) by @p side: A's keys to the front (in
 * place: an A key only moves left), B's after them (through @p spare). */
static void unmerge(uint32_t *cur, const uint8_t *side, int64_t len, uint32_t *spare) {
  int64_t na = 0, nb = 0;
  for (int64_t k = 0; k < len; k++) {
    if (side[k])
      cur[na++] = cur[k];
    else
      spare[nb++] = cur[k];
  }
  memcpy(cur + na, spare, (size_t)nb * sizeof *cur);
}

static ts_status worst_case(ts_context *ctx, ts_sort_key key, int64_t n, int e, int u, void *keys) {
  int64_t tile = (int64_t)e * u;
  uint32_t *cur = tsi_malloc_array(n, sizeof *cur), *spare = tsi_malloc_array(n, sizeof *spare);
  uint8_t *side = tsi_malloc_array(tile, 1);
  ts_status st = TS_SUCCESS;
  if (!cur || !spare || !side) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_sort_generate: no host memory for %lld keys", (long long)n);
    goto cleanup;
  }
  for (int64_t i = 0; i < n; i++)
    cur[i] = (uint32_t)i;
  /* Global merges of runs of w = tile * 2^k, the last first: each output tile
   * loads its share of A to word 0 and its share of B after it. */
  int64_t top = tile;
  while (top < n && top <= INT64_MAX / 4)
    top *= 2;
  for (int64_t w = top / 2; w >= tile; w /= 2) {
    for (int64_t base = 0; base + w < n; base += 2 * w) {
      int64_t la = w, lb = n - base - w < w ? n - base - w : w, len = la + lb;
      int64_t rest_a = la, rest_b = lb;
      /* Interleave tile by tile, then un-merge the pair as a whole. */
      uint8_t *pair_side = tsi_malloc_array(len, 1);
      if (!pair_side) {
        st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_sort_generate: no host memory for %lld flags", (long long)len);
        goto cleanup;
      }
      for (int64_t off = 0; off < len; off += tile) {
        int64_t tlen = len - off < tile ? len - off : tile;
        int64_t qa = tlen * la / len;
        if (qa > rest_a)
          qa = rest_a;
        if (tlen - qa > rest_b)
          qa = tlen - rest_b;
        interleave(pair_side + off, tlen, qa, 0, qa, e);
        rest_a -= qa;
        rest_b -= tlen - qa;
      }
      unmerge(cur + base, pair_side, len, spare);
      free(pair_side);
    }
  }
  /* Merges inside each tile of runs of w = E * 2^k, the last first; the
   * runs sit at their tile-local words. */
  for (int64_t t0 = 0; t0 < n; t0 += tile) {
    int64_t tlen = n - t0 < tile ? n - t0 : tile;
    for (int64_t w = tile / 2; w >= e; w /= 2) {
      for (int64_t q = 0; q + w < tlen; q += 2 * w) {
        int64_t la = w, lb = tlen - q - w < w ? tlen - q - w : w;
        interleave(side, la + lb, la, q, q + la, e);
        unmerge(cur + t0 + q, side, la + lb, spare);
      }
    }
  }
  /* Each thread's E keys in reverse, so that its register sort has work. */
  for (int64_t i = 0; i < n; i++) {
    int64_t start = i / e * e, end = start + e < n ? start + e : n;
    store_rank(key, keys, i, cur[start + (end - 1 - i)]);
  }
cleanup:
  free(cur);
  free(spare);
  free(side);
  return st;
}

ts_status ts_sort_generate(ts_context *ctx, ts_sort_input input, ts_sort_key key, int64_t n, uint64_t seed,
                           int items_per_thread, int threads_per_block, void *keys) {
  if ((int)key < 0 || key >= TS_SORT_KEY_COUNT)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_generate: unknown key type %d", (int)key);
  if ((int)input < 0 || input >= TS_SORT_INPUT_COUNT)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_generate: unknown input kind %d", (int)input);
  if (n < 0 || n > INT32_MAX)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_generate: n = %lld is outside [0, INT32_MAX]",
                     (long long)n);
  if (n > 0 && !keys)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_sort_generate: NULL keys");
  if (input == TS_SORT_INPUT_WORST_CASE) {
    int e = items_per_thread, u = threads_per_block;
    if (e < 1 || e > 63 || e % 2 == 0)
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                       "ts_sort_generate: items per thread %d is not odd from 1 to 63 (an even count shares banks "
                       "with the warp width)",
                       e);
    if (u < WARP || u > 1024 || (u & (u - 1)) != 0)
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                       "ts_sort_generate: threads per block %d is not a power of two from 32 to 1024", u);
    return worst_case(ctx, key, n, e, u, keys);
  }
#pragma omp parallel for schedule(static) if (n > TSI_SORT_CPU_PARALLEL_MIN)
  for (int64_t i = 0; i < n; i++) {
    uint64_t z = mix(seed * 0x632be59bd9b4e019ull + (uint64_t)i);
    switch (input) {
    case TS_SORT_INPUT_RANDOM:
      store_random(key, keys, i, z);
      break;
    case TS_SORT_INPUT_SORTED:
      store_rank(key, keys, i, (uint64_t)i);
      break;
    case TS_SORT_INPUT_REVERSE:
      store_rank(key, keys, i, (uint64_t)(n - 1 - i));
      break;
    default: /* few distinct: 16 keys spread over the range */
      store_rank(key, keys, i, (z >> 60) * 1000003u);
      break;
    }
  }
  return TS_SUCCESS;
}
