/* ts_sort on the CUDA backend against the CPU backend, bit for bit (keys and
 * values): every key type, order and value kind, on random, few-distinct,
 * sorted, reverse and worst-case inputs and on special float values, at
 * lengths that take the block sort alone, one merge pass, and several (odd
 * and even pass counts, partial last tiles, partial last groups of runs).
 * The default K-way passes get every case; the 4-way and the pairwise passes
 * (chosen through TESSERA_SORT_MERGE at plan creation) the random ones.
 * Smaller under a sanitizer. */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include "tessera/sort.h"
#include "test_common.h"

#include <stdbool.h>
#include <stdint.h>

static uint64_t payload_of(int64_t i) { return (uint64_t)i * 0x9E3779B97F4A7C15ull ^ 0x0123456789ABCDEFull; }

/* Floats with NaNs of both signs, signed zeros and infinities among random keys. */
static void sprinkle_specials(ts_sort_key key, int64_t n, void *keys) {
  static const uint32_t f32[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu, 0x00000000u,
                                 0x80000000u, 0x7F800000u, 0xFF800000u, 0x00000001u};
  static const uint64_t f64[] = {0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x0000000000000000ull,
                                 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull};
  for (int64_t i = 0; i < n; i += 3) {
    if (key == TS_SORT_KEY_FLOAT32)
      memcpy((char *)keys + 4 * i, &f32[(i / 3) % 9], 4);
    else if (key == TS_SORT_KEY_FLOAT64)
      memcpy((char *)keys + 8 * i, &f64[(i / 3) % 6], 8);
  }
}

/* Sort host keys (and payload) with @p ctx; results into out_keys/out_values. */
static ts_status sort_on(ts_context *ctx, const ts_sort_options *o, int64_t n, const void *keys, const void *values,
                         void *out_keys, void *out_values) {
  size_t ks = ts_sort_key_size(o->key), vs = ts_sort_value_size(o->value);
  ts_sort_plan *plan = NULL;
  ts_buffer *k = NULL, *v = NULL, *w = NULL;
  ts_status st = ts_sort_plan_create(ctx, o, &plan);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, ks * (size_t)n, &k);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, vs * (size_t)n, &v);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, ts_sort_plan_workspace_bytes(plan), &w);
  if (st == TS_SUCCESS)
    st = ts_buffer_upload(ctx, k, 0, keys, ks * (size_t)n);
  if (st == TS_SUCCESS && vs > 0)
    st = ts_buffer_upload(ctx, v, 0, values, vs * (size_t)n);
  if (st == TS_SUCCESS)
    st = ts_sort_execute(plan, n, k, vs > 0 ? v : NULL, w);
  if (st == TS_SUCCESS)
    st = ts_buffer_download(ctx, k, 0, out_keys, ks * (size_t)n);
  if (st == TS_SUCCESS && vs > 0)
    st = ts_buffer_download(ctx, v, 0, out_values, vs * (size_t)n);
  ts_buffer_destroy(k);
  ts_buffer_destroy(v);
  ts_buffer_destroy(w);
  ts_sort_plan_destroy(plan);
  return st;
}

static const char *merge_mode = "default";

static void check_case(ts_context *gpu, ts_context *cpu, ts_sort_key key, ts_sort_order order, ts_sort_value value,
                       int input, int64_t n) {
  size_t ks = ts_sort_key_size(key), vs = ts_sort_value_size(value);
  size_t kb = ks * (size_t)(n + 1), vb = 8 * (size_t)(n + 1);
  char *keys = malloc(kb), *values = malloc(vb), *ck = malloc(kb), *cv = malloc(vb), *gk = malloc(kb), *gv = malloc(vb);
  if (!keys || !values || !ck || !cv || !gk || !gv) {
    CHECK(!"out of memory");
    goto cleanup;
  }
  /* input == TS_SORT_INPUT_COUNT: random keys with special values sprinkled. */
  ts_sort_input kind = input == TS_SORT_INPUT_COUNT ? TS_SORT_INPUT_RANDOM : (ts_sort_input)input;
  CHECK_OK(NULL, ts_sort_generate(NULL, kind, key, n, 11, 17, 256, keys));
  if (input == TS_SORT_INPUT_COUNT)
    sprinkle_specials(key, n, keys);
  for (int64_t i = 0; i < n; i++) {
    if (vs == 4)
      ((uint32_t *)values)[i] = (uint32_t)payload_of(i);
    else if (vs == 8)
      ((uint64_t *)values)[i] = payload_of(i);
  }
  memset(gv, 0, vb);
  memset(cv, 0, vb);
  ts_sort_options o = {key, value, order, n};
  CHECK_OK(cpu, sort_on(cpu, &o, n, keys, values, ck, cv));
  CHECK_OK(gpu, sort_on(gpu, &o, n, keys, values, gk, gv));
  int64_t bad_key = -1, bad_value = -1;
  for (int64_t i = 0; i < n && bad_key < 0; i++)
    if (memcmp(ck + ks * i, gk + ks * i, ks) != 0)
      bad_key = i;
  for (int64_t i = 0; i < n && bad_value < 0 && vs > 0; i++)
    if (memcmp(cv + vs * i, gv + vs * i, vs) != 0)
      bad_value = i;
  const char *name = input == TS_SORT_INPUT_COUNT ? "specials" : ts_sort_input_name(kind);
  CHECK_MSG(bad_key < 0 && bad_value < 0,
            "merge %s: %s %s %s values %d n=%lld: GPU differs from CPU at key %lld, value %lld", merge_mode,
            ts_sort_key_name(key), name, order ? "descending" : "ascending", (int)value, (long long)n,
            (long long)bad_key, (long long)bad_value);
cleanup:
  free(keys);
  free(values);
  free(ck);
  free(cv);
  free(gk);
  free(gv);
}

int main(void) {
  ts_context_options opt = {0};
  opt.backend = TS_BACKEND_CUDA;
  ts_context *gpu = NULL, *cpu = NULL;
  if (ts_context_create(&gpu, &opt) != TS_SUCCESS)
    return test_skip(ts_last_error(NULL));
  opt.backend = TS_BACKEND_CPU;
  if (ts_context_create(&cpu, &opt) != TS_SUCCESS) {
    ts_context_destroy(gpu);
    return 1;
  }
  const char *sanitizer = getenv("TESSERA_UNDER_SANITIZER");
  bool small = sanitizer && *sanitizer;
  /* Tiles are 3840 keys (4-byte) and 2304 (8-byte): these take 0 to 9
   * pairwise merge passes (0 to 3 8-way ones); 3840 * 5 + 17 and the
   * K^2 tiles + 1 lengths (3840 * 16 + 1, 2304 * 64 + 1, 3840 * 64 + 1)
   * leave partial last groups of runs. The sizes above 61441 only for random
   * keys (with and without specials). */
  static const int64_t sizes[] = {0,    1,     2,     31,     1000,          2304,   3840,   3841,
                                  9001, 19217, 61441, 147457, (1 << 16) + 7, 245761, 1000003};
  static const int64_t small_sizes[] = {31, 3841, 20000};
  const int64_t *list = small ? small_sizes : sizes;
  size_t count = small ? sizeof small_sizes / sizeof small_sizes[0] : sizeof sizes / sizeof sizes[0];
  /* NULL: the plan's default (8-way); then 4-way and pairwise. */
  static const char *const modes[] = {NULL, "4", "pairwise"};
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    if (modes[m])
      setenv("TESSERA_SORT_MERGE", modes[m], 1);
    else
      unsetenv("TESSERA_SORT_MERGE");
    merge_mode = modes[m] ? modes[m] : "default";
    for (int key = 0; key < TS_SORT_KEY_COUNT; key++)
      for (int order = 0; order < 2; order++)
        for (int value = 0; value < TS_SORT_VALUE_COUNT; value++)
          for (int input = 0; input <= TS_SORT_INPUT_COUNT; input++)
            for (size_t s = 0; s < count; s++) {
              bool randomish = input == TS_SORT_INPUT_RANDOM || input == TS_SORT_INPUT_COUNT;
              if ((small && input != TS_SORT_INPUT_COUNT) || (!randomish && list[s] > 61441))
                continue;
              /* The other passes: random keys that take at least one merge pass. */
              if (modes[m] && (!randomish || list[s] <= 3840 || (small && value != TS_SORT_VALUE_INDEX)))
                continue;
              check_case(gpu, cpu, (ts_sort_key)key, (ts_sort_order)order, (ts_sort_value)value, input, list[s]);
            }
  }
  unsetenv("TESSERA_SORT_MERGE");
  merge_mode = "default";
  /* Worst case of CUB's tuning (E = 17, u = 256) through several passes. */
  if (!small)
    check_case(gpu, cpu, TS_SORT_KEY_UINT32, TS_SORT_ASCENDING, TS_SORT_VALUE_INDEX, TS_SORT_INPUT_WORST_CASE,
               (1 << 22) + 5);
  ts_context_destroy(gpu);
  ts_context_destroy(cpu);
  return test_finish();
}
