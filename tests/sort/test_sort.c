/* ts_sort on the CPU backend against a qsort reference written from the
 * documented order (not from the library's key maps): every key type and
 * order, keys alone and with 32-bit, 64-bit and index values, lengths from 0
 * to 2^16 + 7, random, few-distinct, sorted, reverse and special values
 * (NaNs of both signs, signed zeros, infinities, extremes); stability is
 * checked through the index permutation. Then the checks of bad input. */
#include "tessera/sort.h"
#include "test_common.h"

/* The split search of the GPU K-way merge passes (internal, plain C). */
#include "sort/sort_kway_split.h"

#include <stdint.h>

/* ---- the reference order ---------------------------------------------------- */

typedef struct ref_item {
  uint64_t bits; /* the key's bit pattern (zero-extended for 4-byte keys) */
  int64_t index; /* input position */
} ref_item;

static ts_sort_key ref_key;
static int ref_descending;

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

/* Floats: numbers by value with -0 before +0, NaNs after every number; among
 * NaNs, positive before negative, then by bit pattern. Descending reverses the
 * numbers only. */
static int ref_compare_float(double a, double b, uint64_t abits, uint64_t bbits, int sign_shift) {
  int a_nan = isnan(a), b_nan = isnan(b);
  if (a_nan || b_nan) {
    if (!a_nan)
      return -1;
    if (!b_nan)
      return 1;
    int as = (int)(abits >> sign_shift & 1), bs = (int)(bbits >> sign_shift & 1);
    if (as != bs)
      return as - bs;
    return abits < bbits ? -1 : abits > bbits;
  }
  int c = a < b ? -1 : a > b;
  if (c == 0 && a == 0.0)
    c = (signbit(b) ? 1 : 0) - (signbit(a) ? 1 : 0); /* -0 first */
  return ref_descending ? -c : c;
}

static int ref_compare(const void *pa, const void *pb) {
  const ref_item *x = pa, *y = pb;
  int c = 0;
  switch (ref_key) {
  case TS_SORT_KEY_UINT32:
  case TS_SORT_KEY_UINT64:
    c = x->bits < y->bits ? -1 : x->bits > y->bits;
    c = ref_descending ? -c : c;
    break;
  case TS_SORT_KEY_INT32:
    c = cmp_i64((int32_t)(uint32_t)x->bits, (int32_t)(uint32_t)y->bits);
    c = ref_descending ? -c : c;
    break;
  case TS_SORT_KEY_FLOAT32: {
    float a, b;
    uint32_t ab = (uint32_t)x->bits, bb = (uint32_t)y->bits;
    memcpy(&a, &ab, 4);
    memcpy(&b, &bb, 4);
    c = ref_compare_float(a, b, x->bits, y->bits, 31);
    break;
  }
  default: {
    double a, b;
    memcpy(&a, &x->bits, 8);
    memcpy(&b, &y->bits, 8);
    c = ref_compare_float(a, b, x->bits, y->bits, 63);
    break;
  }
  }
  return c != 0 ? c : cmp_i64(x->index, y->index); /* stable */
}

/* ---- inputs ----------------------------------------------------------------- */

enum { INPUT_SPECIAL = TS_SORT_INPUT_COUNT, INPUT_KINDS };

static uint64_t key_bits(const void *keys, size_t size, int64_t i) {
  if (size == 4) {
    uint32_t v;
    memcpy(&v, (const char *)keys + 4 * i, 4);
    return v;
  }
  uint64_t v;
  memcpy(&v, (const char *)keys + 8 * i, 8);
  return v;
}

static void set_bits(void *keys, size_t size, int64_t i, uint64_t bits) {
  if (size == 4) {
    uint32_t v = (uint32_t)bits;
    memcpy((char *)keys + 4 * i, &v, 4);
  } else {
    memcpy((char *)keys + 8 * i, &bits, 8);
  }
}

/* Special values: NaNs of both signs and several payloads, signed zeros,
 * infinities, the smallest and largest values, a denormal, duplicates. */
static void make_special(ts_sort_key key, int64_t n, void *keys) {
  static const uint32_t f32[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, 0xFFFFFFFFu,
                                 0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x00000001u, 0x80000001u,
                                 0x3F800000u, 0xBF800000u, 0x7F7FFFFFu, 0xFF7FFFFFu};
  static const uint64_t f64[] = {
      0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull, 0xFFF0000000000001ull, 0x7FFFFFFFFFFFFFFFull,
      0xFFFFFFFFFFFFFFFFull, 0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
      0x0000000000000001ull, 0x8000000000000001ull, 0x3FF0000000000000ull, 0xBFF0000000000000ull};
  static const uint64_t ints[] = {0,
                                  1,
                                  2,
                                  0x7FFFFFFFull,
                                  0x80000000ull,
                                  0xFFFFFFFFull,
                                  0xFFFFFFFFFFFFFFFFull,
                                  0x8000000000000000ull,
                                  0x7FFFFFFFFFFFFFFFull,
                                  12345};
  unsigned long long state = 99 + (unsigned long long)n;
  size_t size = ts_sort_key_size(key);
  for (int64_t i = 0; i < n; i++) {
    unsigned pick = (unsigned)((test_random(&state) + 1.0) * 1000.0);
    uint64_t bits;
    if (key == TS_SORT_KEY_FLOAT32)
      bits = f32[pick % (sizeof f32 / sizeof f32[0])];
    else if (key == TS_SORT_KEY_FLOAT64)
      bits = f64[pick % (sizeof f64 / sizeof f64[0])];
    else
      bits = ints[pick % (sizeof ints / sizeof ints[0])];
    set_bits(keys, size, i, bits);
  }
}

static uint64_t payload_of(int64_t i) { return (uint64_t)i * 0x9E3779B97F4A7C15ull ^ 0x0123456789ABCDEFull; }

/* ---- one case ----------------------------------------------------------------- */

static void check_case(ts_context *ctx, ts_sort_key key, ts_sort_order order, ts_sort_value value, int input,
                       int64_t n) {
  size_t ks = ts_sort_key_size(key), vs = ts_sort_value_size(value);
  ts_sort_options o = {key, value, order, n};
  ts_sort_plan *plan = NULL;
  ts_buffer *keys = NULL, *values = NULL, *work = NULL;
  void *input_keys = malloc(ks * (size_t)(n + 1));
  ref_item *ref = malloc(sizeof *ref * (size_t)(n + 1));
  if (!input_keys || !ref) {
    CHECK(!"out of memory");
    goto cleanup;
  }
  if (input == INPUT_SPECIAL)
    make_special(key, n, input_keys);
  else
    CHECK_OK(ctx, ts_sort_generate(ctx, (ts_sort_input)input, key, n, 7, 17, 256, input_keys));
  CHECK_OK(ctx, ts_sort_plan_create(ctx, &o, &plan));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, ks * (size_t)n, &keys));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, vs * (size_t)n, &values));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, ts_sort_plan_workspace_bytes(plan), &work));
  if (!plan || !keys || !values || !work)
    goto cleanup;
  if (n > 0)
    memcpy(ts_buffer_data(keys), input_keys, ks * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    if (value == TS_SORT_VALUE_UINT32)
      ((uint32_t *)ts_buffer_data(values))[i] = (uint32_t)payload_of(i);
    else if (value == TS_SORT_VALUE_UINT64)
      ((uint64_t *)ts_buffer_data(values))[i] = payload_of(i);
    else if (value == TS_SORT_VALUE_INDEX)
      ((int32_t *)ts_buffer_data(values))[i] = -5; /* ignored on entry */
    ref[i].bits = key_bits(input_keys, ks, i);
    ref[i].index = i;
  }
  CHECK_OK(ctx, ts_sort_execute(plan, n, keys, value == TS_SORT_VALUE_NONE ? NULL : values, work));
  ref_key = key;
  ref_descending = order == TS_SORT_DESCENDING;
  if (n > 0)
    qsort(ref, (size_t)n, sizeof *ref, ref_compare);
  int64_t bad_key = -1, bad_value = -1;
  for (int64_t i = 0; i < n && (bad_key < 0 || bad_value < 0); i++) {
    if (bad_key < 0 && key_bits(ts_buffer_data(keys), ks, i) != ref[i].bits)
      bad_key = i;
    uint64_t want = 0, got = 0;
    if (value == TS_SORT_VALUE_UINT32) {
      want = (uint32_t)payload_of(ref[i].index);
      got = ((uint32_t *)ts_buffer_data(values))[i];
    } else if (value == TS_SORT_VALUE_UINT64) {
      want = payload_of(ref[i].index);
      got = ((uint64_t *)ts_buffer_data(values))[i];
    } else if (value == TS_SORT_VALUE_INDEX) {
      want = (uint64_t)ref[i].index;
      got = (uint64_t)(int64_t)((int32_t *)ts_buffer_data(values))[i];
    }
    if (bad_value < 0 && want != got)
      bad_value = i;
  }
  const char *in_name = input == INPUT_SPECIAL ? "special" : ts_sort_input_name((ts_sort_input)input);
  CHECK_MSG(bad_key < 0, "%s %s %s values %d n=%lld: key %lld differs from the reference", ts_sort_key_name(key),
            in_name, order ? "descending" : "ascending", (int)value, (long long)n, (long long)bad_key);
  CHECK_MSG(bad_value < 0, "%s %s %s values %d n=%lld: value %lld differs (stability)", ts_sort_key_name(key), in_name,
            order ? "descending" : "ascending", (int)value, (long long)n, (long long)bad_value);
cleanup:
  ts_buffer_destroy(keys);
  ts_buffer_destroy(values);
  ts_buffer_destroy(work);
  ts_sort_plan_destroy(plan);
  free(input_keys);
  free(ref);
}

/* ---- bad input ------------------------------------------------------------------ */

static void check_bad_input(ts_context *ctx) {
  ts_sort_plan *plan = NULL;
  ts_sort_options o = {TS_SORT_KEY_UINT32, TS_SORT_VALUE_UINT32, TS_SORT_ASCENDING, 100};
  CHECK_STATUS(ctx, ts_sort_plan_create(NULL, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_sort_plan_create(ctx, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.key = (ts_sort_key)9;
  CHECK_STATUS(ctx, ts_sort_plan_create(ctx, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "key type 9") != NULL);
  o.key = TS_SORT_KEY_UINT32;
  o.value = (ts_sort_value)-1;
  CHECK_STATUS(ctx, ts_sort_plan_create(ctx, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.value = TS_SORT_VALUE_UINT32;
  o.order = (ts_sort_order)2;
  CHECK_STATUS(ctx, ts_sort_plan_create(ctx, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.order = TS_SORT_ASCENDING;
  o.max_n = -1;
  CHECK_STATUS(ctx, ts_sort_plan_create(ctx, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o.max_n = (int64_t)INT32_MAX + 1;
  CHECK_STATUS(ctx, ts_sort_plan_create(ctx, &o, &plan), TS_ERROR_OVERFLOW);
  CHECK(strstr(ts_last_error(ctx), "INT32_MAX") != NULL);
  CHECK(plan == NULL);
  o.max_n = 100;
  CHECK_OK(ctx, ts_sort_plan_create(ctx, &o, &plan));
  CHECK(ts_sort_plan_workspace_bytes(plan) >= (size_t)100 * 8);
  CHECK(ts_sort_plan_workspace_bytes(NULL) == 0);

  ts_buffer *keys = NULL, *values = NULL, *work = NULL, *small = NULL, *host = NULL, *tiny = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 400, &keys));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 400, &values));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, ts_sort_plan_workspace_bytes(plan), &work));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, ts_sort_plan_workspace_bytes(plan) - 1, &small));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_HOST, 400, &host));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, 40, &tiny));
  CHECK_STATUS(ctx, ts_sort_execute(NULL, 10, keys, values, work), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_sort_execute(plan, 101, keys, values, work), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "max_n") != NULL);
  CHECK_STATUS(ctx, ts_sort_execute(plan, -1, keys, values, work), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_sort_execute(plan, 10, NULL, values, work), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_sort_execute(plan, 10, keys, NULL, work), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "values") != NULL);
  CHECK_STATUS(ctx, ts_sort_execute(plan, 10, keys, values, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_sort_execute(plan, 10, keys, values, small), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "workspace holds") != NULL);
  CHECK_STATUS(ctx, ts_sort_execute(plan, 10, host, values, work), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "TS_MEMORY_DEVICE") != NULL);
  CHECK_STATUS(ctx, ts_sort_execute(plan, 100, keys, tiny, work), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "values holds 40 bytes; 400 are needed") != NULL);
  CHECK_STATUS(ctx, ts_sort_execute(plan, 10, keys, keys, work), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(ctx), "overlap") != NULL);
  CHECK_OK(ctx, ts_sort_execute(plan, 0, keys, values, work));
  ts_buffer_destroy(keys);
  ts_buffer_destroy(values);
  ts_buffer_destroy(work);
  ts_buffer_destroy(small);
  ts_buffer_destroy(host);
  ts_buffer_destroy(tiny);
  ts_sort_plan_destroy(plan);
  ts_sort_plan_destroy(NULL);

  uint32_t out[8];
  CHECK_STATUS(ctx, ts_sort_generate(ctx, TS_SORT_INPUT_WORST_CASE, TS_SORT_KEY_UINT32, 8, 1, 16, 256, out),
               TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_sort_generate(ctx, TS_SORT_INPUT_WORST_CASE, TS_SORT_KEY_UINT32, 8, 1, 17, 100, out),
               TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_sort_generate(ctx, TS_SORT_INPUT_RANDOM, TS_SORT_KEY_UINT32, 8, 1, 17, 256, NULL),
               TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_sort_generate(ctx, (ts_sort_input)7, TS_SORT_KEY_UINT32, 8, 1, 17, 256, out),
               TS_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(ts_sort_key_name(TS_SORT_KEY_FLOAT64), "double") == 0);
  CHECK(strcmp(ts_sort_input_name(TS_SORT_INPUT_FEW_DISTINCT), "few-distinct") == 0);
}

/* The worst case is a permutation of 0..n-1, the same for every call. */
static void check_worst_case(ts_context *ctx) {
  const int64_t n = 3 * 17 * 256 * 4 + 1001;
  uint32_t *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n);
  uint8_t *seen = calloc((size_t)n, 1);
  if (!a || !b || !seen) {
    CHECK(!"out of memory");
  } else {
    CHECK_OK(ctx, ts_sort_generate(ctx, TS_SORT_INPUT_WORST_CASE, TS_SORT_KEY_UINT32, n, 1, 17, 256, a));
    CHECK_OK(ctx, ts_sort_generate(ctx, TS_SORT_INPUT_WORST_CASE, TS_SORT_KEY_UINT32, n, 2, 17, 256, b));
    int64_t bad = 0, sorted_runs = 0;
    for (int64_t i = 0; i < n; i++) {
      if (a[i] >= n || seen[a[i]]++)
        bad++;
      if (i > 0 && a[i] > a[i - 1])
        sorted_runs++;
    }
    CHECK(bad == 0);
    CHECK(memcmp(a, b, sizeof *a * n) == 0);
    CHECK(sorted_runs > 0 && sorted_runs < n - 1); /* neither sorted nor reversed */
  }
  free(a);
  free(b);
  free(seen);
}

/* ---- split points of the K-way merge ------------------------------------------ */

static uint64_t split_rng = 0x9E3779B97F4A7C15ull;
static uint64_t split_random(void) {
  split_rng ^= split_rng << 13;
  split_rng ^= split_rng >> 7;
  split_rng ^= split_rng << 17;
  return split_rng;
}

static int compare_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* k sorted runs of keys (kind 0: a few distinct values, 1: random bits,
 * 2: all equal, 3: values near the top of the type) laid out with a
 * stride; for every rank, the split search against the counts of a naive
 * stable k-way merge (smallest head, lowest run on ties). */
static void check_split_case(int k, int wide, int kind, const int64_t *len) {
  enum { STRIDE = 64 };
  uint64_t keys64[TSI_SORT_MAX_WAYS * STRIDE];
  uint32_t keys32[TSI_SORT_MAX_WAYS * STRIDE];
  int64_t total = 0;
  for (int i = 0; i < k; i++) {
    uint64_t *run = keys64 + (int64_t)i * STRIDE;
    for (int64_t j = 0; j < len[i]; j++) {
      uint64_t r = split_random();
      uint64_t top = wide ? UINT64_MAX : UINT32_MAX;
      run[j] = kind == 0 ? r % 5 : kind == 1 ? (wide ? r : r >> 32) : kind == 2 ? 7 : top - r % 3;
    }
    qsort(run, (size_t)len[i], sizeof *run, compare_u64);
    for (int64_t j = 0; j < len[i]; j++)
      keys32[(int64_t)i * STRIDE + j] = (uint32_t)keys64[(int64_t)i * STRIDE + j];
    total += len[i];
  }
  int64_t head[TSI_SORT_MAX_WAYS] = {0}, split[TSI_SORT_MAX_WAYS];
  int bad = 0;
  for (int64_t rank = 0; rank <= total && !bad; rank++) {
    if (wide)
      tsi_sort_kway_split64(keys64, STRIDE, len, k, rank, split);
    else
      tsi_sort_kway_split32(keys32, STRIDE, len, k, rank, split);
    for (int i = 0; i < k; i++)
      bad |= split[i] != head[i];
    if (bad)
      break;
    if (rank == total)
      break;
    int pick = -1; /* the next output of the stable merge */
    for (int i = 0; i < k; i++)
      if (head[i] < len[i] &&
          (pick < 0 || keys64[(int64_t)i * STRIDE + head[i]] < keys64[(int64_t)pick * STRIDE + head[pick]]))
        pick = i;
    head[pick]++;
  }
  CHECK_MSG(!bad, "K-way split: k %d, %s keys, kind %d, total %lld: wrong split", k, wide ? "64-bit" : "32-bit", kind,
            (long long)total);
}

/* Long runs (where the interpolating search takes over from bisection) with
 * spread, skewed and clustered keys: for sampled ranks, the split against
 * the counts of a naive stable merge. Kind 0: uniform 32-bit keys; 1: 2^(a
 * random 0..31) (skewed: interpolation misses, bisection must follow); 2: a
 * few values inside a narrow band plus rare keys near the top (clusters far
 * from where a straight line puts them). */
static void check_kway_split_long(int k, int kind) {
  enum { LONG_STRIDE = 4096, RANKS = 64 };
  static uint32_t keys[TSI_SORT_MAX_WAYS * LONG_STRIDE];
  int64_t len[TSI_SORT_MAX_WAYS] = {0}, total = 0;
  for (int i = 0; i < k; i++) {
    len[i] = 1 + (int64_t)(split_random() % LONG_STRIDE);
    uint32_t *run = keys + (int64_t)i * LONG_STRIDE;
    for (int64_t j = 0; j < len[i]; j++) {
      uint64_t r = split_random();
      run[j] = kind == 0   ? (uint32_t)(r >> 32)
               : kind == 1 ? (uint32_t)1u << (r % 32)
                           : (r % 64 == 0 ? UINT32_MAX - (uint32_t)(r >> 40) % 8 : 1000u + (uint32_t)(r >> 40) % 16);
    }
    qsort(run, (size_t)len[i], sizeof *run, compare_u32);
    total += len[i];
  }
  int bad = 0;
  for (int t = 0; t <= RANKS && !bad; t++) {
    int64_t rank = t == RANKS ? total : (int64_t)(split_random() % (uint64_t)(total + 1)), split[TSI_SORT_MAX_WAYS];
    tsi_sort_kway_split32(keys, LONG_STRIDE, len, k, rank, split);
    int64_t head[TSI_SORT_MAX_WAYS] = {0};
    for (int64_t out = 0; out < rank; out++) { /* the first rank outputs of the stable merge */
      int pick = -1;
      for (int i = 0; i < k; i++)
        if (head[i] < len[i] &&
            (pick < 0 || keys[(int64_t)i * LONG_STRIDE + head[i]] < keys[(int64_t)pick * LONG_STRIDE + head[pick]]))
          pick = i;
      head[pick]++;
    }
    for (int i = 0; i < k; i++)
      bad |= split[i] != head[i];
  }
  CHECK_MSG(!bad, "K-way split on long runs: k %d, kind %d, total %lld: wrong split", k, kind, (long long)total);
}

static void check_kway_split(void) {
  static const int64_t shapes[][TSI_SORT_MAX_WAYS] = {
      {0, 0, 0, 0, 0, 0, 0, 0},         {1, 0, 0, 0, 0, 0, 0, 0},     {0, 0, 0, 5, 0, 0, 0, 0},
      {64, 64, 64, 64, 64, 64, 64, 64}, {64, 64, 64, 17, 0, 0, 0, 0}, {3, 64, 1, 40, 64, 0, 9, 2},
      {64, 64, 64, 64, 64, 64, 64, 1},  {1, 2, 3, 4, 5, 6, 7, 8},     {0, 64, 0, 64, 0, 64, 0, 64},
  };
  static const int ways[] = {1, 2, 3, 4, 8};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++)
      for (int wide = 0; wide < 2; wide++)
        for (int kind = 0; kind < 4; kind++)
          for (int repeat = 0; repeat < 3; repeat++)
            check_split_case(ways[w], wide, kind, shapes[s]);
  for (int w = 0; w < (int)(sizeof ways / sizeof ways[0]); w++)
    for (int kind = 0; kind < 3; kind++)
      check_kway_split_long(ways[w], kind);
}

int main(void) {
  ts_context_options opt = {0};
  opt.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &opt) != TS_SUCCESS) {
    fprintf(stderr, "no CPU context: %s\n", ts_last_error(NULL));
    return 1;
  }
  static const int64_t sizes[] = {0, 1, 2, 31, 1000, (1 << 16) + 7};
  for (int key = 0; key < TS_SORT_KEY_COUNT; key++)
    for (int order = 0; order < 2; order++)
      for (int value = 0; value < TS_SORT_VALUE_COUNT; value++)
        for (int input = 0; input < INPUT_KINDS; input++)
          for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            /* The largest size with every value kind only for index values (stability). */
            if (sizes[s] > 1000 && value != TS_SORT_VALUE_INDEX && input != TS_SORT_INPUT_RANDOM)
              continue;
            check_case(ctx, (ts_sort_key)key, (ts_sort_order)order, (ts_sort_value)value, input, sizes[s]);
          }
  check_bad_input(ctx);
  check_worst_case(ctx);
  check_kway_split();
  ts_context_destroy(ctx);
  return test_finish();
}
