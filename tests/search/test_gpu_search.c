/* Batched search on the GPU: every algorithm, key type, bound and index
 * width against the CPU backend (itself checked against a naive reference
 * by test_search), on random and on sorted queries; layouts of one to
 * several levels, trees wholly in and partly out of the shared-memory
 * table; the merge-path fallback (unsorted queries, large windows); the
 * shared-memory batched search. Smaller under TESSERA_UNDER_SANITIZER. */
#include "test_search_common.h"

#include <stdlib.h>

/* Results of a plan on @p ctx for @p queries (host), into @p out (8 bytes each). */
static ts_status run_plan(ts_context *ctx, ts_key_type type, const void *keys, int64_t n, const ts_search_options *o,
                          ts_search_bound bound, const void *queries, int64_t count, int64_t *out, size_t *index_size) {
  size_t ks = ts_key_type_size(type);
  ts_search_plan *plan = NULL;
  ts_buffer *q = NULL, *r = NULL;
  ts_status st = ts_search_plan_create(ctx, type, keys, n, o, &plan);
  if (st == TS_SUCCESS) {
    q = search_buffer(ctx, queries, (size_t)count * ks);
    r = search_buffer(ctx, NULL, (size_t)count * 8 + 8);
    st = q && r ? TS_SUCCESS : TS_ERROR_OUT_OF_MEMORY;
  }
  if (st == TS_SUCCESS)
    st = ts_buffer_fill_bytes(ctx, r, 0x5a); /* poison */
  if (st == TS_SUCCESS)
    st = ts_search_execute(plan, bound, q, count, r);
  if (st == TS_SUCCESS)
    st = ts_context_sync(ctx);
  if (st == TS_SUCCESS) {
    *index_size = ts_search_plan_index_size(plan);
    st = ts_buffer_download(ctx, r, 0, out, (size_t)count * *index_size);
  }
  ts_buffer_destroy(q);
  ts_buffer_destroy(r);
  ts_search_plan_destroy(plan);
  return st;
}

static void check_case(ts_context *gpu, ts_context *cpu, ts_key_type type, int64_t n, int64_t count, bool sorted,
                       unsigned long long *seed) {
  size_t ks = ts_key_type_size(type);
  void *keys = malloc((size_t)(n + 1) * ks), *queries = malloc((size_t)count * ks);
  int64_t *want = malloc((size_t)count * 8), *got = malloc((size_t)count * 8);
  CHECK(keys && queries && want && got);
  if (!keys || !queries || !want || !got)
    goto done;
  search_sorted_keys(type, keys, n, 0, 63, seed);
  if (sorted)
    search_sorted_keys(type, queries, count, 0, 63, seed);
  else
    search_random_queries(type, queries, count, seed);
  for (int64_t j = 0; j < count && n > 0; j += 3) /* queries equal to keys */
    memcpy((char *)queries + j * ks, (char *)keys + ((j * 7919) % n) * ks, ks);
  if (sorted) /* sorted again after the copies, with fresh values */
    search_sorted_keys(type, queries, count, 0, 63, seed);
  for (int bound = 0; bound <= 1; bound++) {
    size_t want_size = 0;
    memset(want, 0, (size_t)count * 8);
    ts_search_options ref = {.index_type = TS_INDEX_INT64};
    CHECK_OK(cpu, run_plan(cpu, type, keys, n, &ref, (ts_search_bound)bound, queries, count, want, &want_size));
    for (int a = 0; a < TS_SEARCH_ALGORITHM_COUNT; a++) {
      for (int index = TS_INDEX_INT32; index <= TS_INDEX_INT64; index++) {
        ts_search_options o = {
            .algorithm = (ts_search_algorithm)a, .index_type = (ts_index_type)index, .sorted_queries = sorted};
        size_t is = 0;
        memset(got, 0, (size_t)count * 8);
        CHECK_OK(gpu, run_plan(gpu, type, keys, n, &o, (ts_search_bound)bound, queries, count, got, &is));
        int64_t wrong = 0, first = -1;
        for (int64_t j = 0; j < count; j++)
          if (search_result(got, is, j) != want[j]) {
            wrong++;
            if (first < 0)
              first = j;
          }
        CHECK_MSG(wrong == 0, "%s n=%lld %s %s %s index %zu: %lld of %lld differ (first %lld: %lld, want %lld)",
                  ts_key_type_name(type), (long long)n, sorted ? "sorted" : "random", bound ? "upper" : "lower",
                  ts_search_algorithm_name((ts_search_algorithm)a), is, (long long)wrong, (long long)count,
                  (long long)first, first >= 0 ? (long long)search_result(got, is, first) : 0LL,
                  first >= 0 ? (long long)want[first] : 0LL);
      }
    }
  }
done:
  free(keys);
  free(queries);
  free(want);
  free(got);
}

static void check_batched(ts_context *gpu, ts_context *cpu, bool small) {
  unsigned long long seed = 99;
  const int64_t ns[] = {0, 1, 31, 32, 33, 1000, 2047, 2048};
  for (int type = 0; type < TS_KEY_TYPE_COUNT; type++) {
    size_t ks = ts_key_type_size((ts_key_type)type);
    for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) {
      int64_t arrays = small ? 3 : 40, n = ns[s], m = small ? 70 : 600;
      char *keys = malloc((size_t)(arrays * n + 1) * ks), *queries = malloc((size_t)(arrays * m) * ks);
      int32_t *want = malloc((size_t)(arrays * m) * 4), *got = malloc((size_t)(arrays * m) * 4);
      for (int64_t a = 0; a < arrays; a++) {
        search_sorted_keys((ts_key_type)type, keys + a * n * (int64_t)ks, n, a % 2 ? 30 : 0, a % 2 ? 33 : 63, &seed);
        search_random_queries((ts_key_type)type, queries + a * m * (int64_t)ks, m, &seed);
      }
      ts_buffer *kc = search_buffer(cpu, keys, (size_t)(arrays * n) * ks),
                *qc = search_buffer(cpu, queries, (size_t)(arrays * m) * ks);
      ts_buffer *rc = search_buffer(cpu, NULL, (size_t)(arrays * m) * 4);
      ts_buffer *kg = search_buffer(gpu, keys, (size_t)(arrays * n) * ks),
                *qg = search_buffer(gpu, queries, (size_t)(arrays * m) * ks);
      ts_buffer *rg = search_buffer(gpu, NULL, (size_t)(arrays * m) * 4);
      for (int bound = 0; bound <= 1; bound++) {
        CHECK_OK(cpu, ts_search_batched(cpu, (ts_key_type)type, (ts_search_bound)bound, TS_SEARCH_BATCHED_AUTO, kc,
                                        arrays, n, qc, m, rc));
        CHECK_OK(cpu, ts_buffer_download(cpu, rc, 0, want, (size_t)(arrays * m) * 4));
        for (int alg = TS_SEARCH_BATCHED_NAIVE; alg <= TS_SEARCH_BATCHED_CONFLICT_LIMITED; alg++) {
          CHECK_OK(gpu, ts_buffer_fill_bytes(gpu, rg, 0x5a));
          CHECK_OK(gpu, ts_search_batched(gpu, (ts_key_type)type, (ts_search_bound)bound,
                                          (ts_search_batched_algorithm)alg, kg, arrays, n, qg, m, rg));
          CHECK_OK(gpu, ts_buffer_download(gpu, rg, 0, got, (size_t)(arrays * m) * 4));
          int64_t wrong = 0;
          for (int64_t j = 0; j < arrays * m; j++)
            wrong += got[j] != want[j];
          CHECK_MSG(wrong == 0, "batched %s n=%lld %s %s: %lld differ", ts_key_type_name((ts_key_type)type),
                    (long long)n, bound ? "upper" : "lower",
                    ts_search_batched_algorithm_name((ts_search_batched_algorithm)alg), (long long)wrong);
        }
      }
      ts_buffer_destroy(kc);
      ts_buffer_destroy(qc);
      ts_buffer_destroy(rc);
      ts_buffer_destroy(kg);
      ts_buffer_destroy(qg);
      ts_buffer_destroy(rg);
      free(keys);
      free(queries);
      free(want);
      free(got);
    }
  }
}

int main(void) {
  ts_context *gpu = NULL, *cpu = NULL;
  ts_context_options go = {.backend = TS_BACKEND_CUDA}, co = {.backend = TS_BACKEND_CPU};
  if (ts_context_create(&gpu, &go) != TS_SUCCESS)
    return test_skip(ts_last_error(NULL));
  if (ts_context_create(&cpu, &co) != TS_SUCCESS) {
    ts_context_destroy(gpu);
    return test_skip("no CPU context");
  }
  const char *sanitizer = getenv("TESSERA_UNDER_SANITIZER");
  bool small = sanitizer && *sanitizer;
  unsigned long long seed = 2026;
  /* One level; the whole Eytzinger tree in the table (8191) or not (8192);
   * B+-trees with levels outside the table (70001, 2^20 + 3). */
  const int64_t sizes[] = {0, 1, 2, 17, 1000, 8191, 8192, 70001, (1 << 20) + 3};
  int size_count = small ? 8 : 9;
  for (int type = 0; type < TS_KEY_TYPE_COUNT; type++)
    for (int s = 0; s < size_count; s++)
      for (int sorted = 0; sorted <= 1; sorted++)
        check_case(gpu, cpu, (ts_key_type)type, sizes[s], small ? 3001 : 100003, sorted, &seed);
  check_batched(gpu, cpu, small);
  ts_context_destroy(cpu);
  ts_context_destroy(gpu);
  return test_finish();
}
