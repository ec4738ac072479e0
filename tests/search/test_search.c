/* Batched search on the CPU backend against the naive reference (a linear
 * count in the documented order) for every key type, both bounds, every
 * algorithm and index width; duplicates, queries below and above all keys,
 * N = 0, 1, 2 and non-powers of two, NaN and signed zeros; the layouts the
 * GPU reads (B+-tree, Eytzinger array), searched here by a host emulation of
 * the kernels' descents; the batched small-array search; bad inputs. */
#include "search/search_internal.h"
#include "test_search_common.h"

static const int64_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 100, 255, 256, 257, 1000, 4097};

/* Every algorithm option and index width on the CPU backend against naive. */
static void check_plan_cpu(ts_context *ctx, ts_key_type type, const void *keys, int64_t n, const void *queries,
                           int64_t count) {
  size_t ks = ts_key_type_size(type);
  ts_buffer *q = search_buffer(ctx, queries, (size_t)count * ks);
  ts_buffer *r = search_buffer(ctx, NULL, (size_t)count * 8);
  int64_t *results = malloc((size_t)count * 8);
  CHECK(q && r && results);
  for (int a = 0; a < TS_SEARCH_ALGORITHM_COUNT && q && r && results; a++) {
    for (int index = TS_INDEX_AUTO; index <= TS_INDEX_INT64; index++) {
      ts_search_options o = {.algorithm = (ts_search_algorithm)a, .index_type = (ts_index_type)index};
      ts_search_plan *plan = NULL;
      CHECK_OK(ctx, ts_search_plan_create(ctx, type, keys, n, &o, &plan));
      if (!plan)
        continue;
      size_t is = ts_search_plan_index_size(plan);
      CHECK(is == (index == TS_INDEX_INT64 ? 8u : 4u));
      CHECK(ts_search_plan_algorithm(plan) != TS_SEARCH_AUTO);
      for (int bound = TS_BOUND_LOWER; bound <= TS_BOUND_UPPER; bound++) {
        memset(results, 0x5a, (size_t)count * 8);
        CHECK_OK(ctx, ts_buffer_upload(ctx, r, 0, results, (size_t)count * 8)); /* poison */
        CHECK_OK(ctx, ts_search_execute(plan, (ts_search_bound)bound, q, count, r));
        CHECK_OK(ctx, ts_buffer_download(ctx, r, 0, results, (size_t)count * is));
        int64_t wrong = 0, first = -1;
        for (int64_t j = 0; j < count; j++)
          if (search_result(results, is, j) != search_naive(type, (ts_search_bound)bound, keys, n, queries, j)) {
            wrong++;
            if (first < 0)
              first = j;
          }
        CHECK_MSG(wrong == 0, "%s n=%lld %s %s index %zu: %lld of %lld wrong (first %lld: %lld, want %lld)",
                  ts_key_type_name(type), (long long)n, bound ? "upper" : "lower",
                  ts_search_algorithm_name((ts_search_algorithm)a), is, (long long)wrong, (long long)count,
                  (long long)first, first >= 0 ? (long long)search_result(results, is, first) : 0LL,
                  first >= 0 ? (long long)search_naive(type, (ts_search_bound)bound, keys, n, queries, first) : 0LL);
      }
      ts_search_plan_destroy(plan);
    }
  }
  free(results);
  ts_buffer_destroy(q);
  ts_buffer_destroy(r);
}

/* Host emulation of the kernels' descents over the plan's layouts: the
 * B+-tree (KARY, and the window search of MERGE_PATH) and the Eytzinger
 * array, both on ordered bits, against the naive reference. */
static uint64_t at(const void *a, size_t ks, int64_t i) {
  return ks == 4 ? ((const uint32_t *)a)[i] : ((const uint64_t *)a)[i];
}

static int64_t emulate_tree(const tsi_search_tree *t, size_t ks, const void *array, int64_t n, uint64_t q) {
  int l = t->levels - 1;
  int64_t node = 0, k = t->fanout;
  for (; l >= 0; l--) {
    int64_t c = 0;
    for (int64_t e = 0; e < k; e++)
      c += at(array, ks, t->offset[l] + node * k + e) < q;
    if (l == t->levels - 1 && c >= t->entries[l])
      return n;
    node = node * k + c;
  }
  return node;
}

static int64_t emulate_eytzinger(int height, const void *array, size_t ks, uint64_t q) {
  int64_t node = 0;
  for (int d = 0; d < height; d++)
    node = 2 * node + 1 + (at(array, ks, node) < q);
  return node - (((int64_t)1 << height) - 1);
}

/* The radix kernel's walk on the host: the bucket's bounds, then bisection. */
static int64_t emulate_radix(const tsi_search_radix *r, const uint32_t *table, size_t ks, const void *ordered,
                             int64_t n, uint64_t q) {
  if (q > r->high)
    return n;
  if (q <= r->low)
    return 0;
  uint64_t b = (q >> r->shift) - r->base;
  int64_t lo = r->packed ? table[b] & 0xffffu : table[b];
  int64_t hi = r->packed ? lo + (table[b] >> 16) : table[b + 1];
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (at(ordered, ks, mid) < q)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void check_layouts(ts_key_type type, const void *keys, int64_t n, const void *queries, int64_t count) {
  size_t ks = ts_key_type_size(type);
  uint64_t largest = ks == 4 ? 0xffffffffull : ~0ull;
  void *ordered = malloc((size_t)(n > 0 ? n : 1) * ks);
  for (int64_t i = 0; i < n; i++) {
    uint64_t v = tsi_order_key(type, keys, i);
    if (ks == 4)
      ((uint32_t *)ordered)[i] = (uint32_t)v;
    else
      ((uint64_t *)ordered)[i] = v;
  }
  tsi_search_tree t;
  tsi_search_tree_shape(n, ks, &t);
  int height = tsi_search_eytzinger_height(n);
  CHECK(((int64_t)1 << height) - 1 >= n && (height == 0 || ((int64_t)1 << (height - 1)) - 1 < n));
  void *tree = malloc((size_t)(t.total > 0 ? t.total : 1) * ks);
  void *eyt = malloc((size_t)((int64_t)1 << height) * ks);
  tsi_search_radix radix = {0};
  uint32_t *table = NULL;
  if (n > 0) {
    tsi_search_radix_shape(n, ks, ordered, &radix);
    CHECK(radix.buckets >= 1 && radix.buckets <= ((int64_t)1 << TSI_SEARCH_RADIX_MAX_BITS));
    CHECK(radix.table_slots > radix.buckets && radix.table_slots % 4 == 0 && radix.packed == (n < 65536));
    table = malloc((size_t)radix.table_slots * sizeof(uint32_t));
    CHECK(table != NULL);
    if (table)
      tsi_search_radix_fill(&radix, n, ks, ordered, table);
  }
  if (n > 0) {
    tsi_search_tree_fill(&t, ks, ordered, tree);
    tsi_search_eytzinger_fill(n, height, ks, ordered, eyt);
    CHECK(t.top_levels >= 1 && t.top_keys * (int64_t)ks <= TSI_SEARCH_TOP_BYTES);
    CHECK(t.entries[t.levels - 1] <= t.fanout);
  }
  int64_t wrong = 0;
  for (int bound = TS_BOUND_LOWER; bound <= TS_BOUND_UPPER && n > 0; bound++) {
    for (int64_t j = 0; j < count; j++) {
      uint64_t q = tsi_order_key(type, queries, j);
      bool all = bound == TS_BOUND_UPPER && q == largest;
      q += bound == TS_BOUND_UPPER && !all;
      int64_t want = search_naive(type, (ts_search_bound)bound, keys, n, queries, j);
      int64_t by_tree = all ? n : emulate_tree(&t, ks, tree, n, q);
      int64_t by_eyt = all ? n : emulate_eytzinger(height, eyt, ks, q);
      int64_t by_radix = all || !table ? n : emulate_radix(&radix, table, ks, ordered, n, q);
      wrong += (by_tree != want) + (by_eyt != want) + (table && by_radix != want);
    }
  }
  CHECK_MSG(wrong == 0, "%s n=%lld: %lld layout searches wrong", ts_key_type_name(type), (long long)n,
            (long long)wrong);
  free(ordered);
  free(tree);
  free(eyt);
  free(table);
}

static void check_types(ts_context *ctx) {
  unsigned long long seed = 42;
  for (int type = 0; type < TS_KEY_TYPE_COUNT; type++) {
    size_t ks = ts_key_type_size((ts_key_type)type);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      int64_t n = sizes[s], count = 300;
      void *keys = malloc((size_t)(n + 1) * ks), *queries = malloc((size_t)count * ks);
      /* Wide range (few duplicates), then narrow (many). */
      for (int narrow = 0; narrow < 2; narrow++) {
        if (narrow)
          search_sorted_keys((ts_key_type)type, keys, n, 29, 34, &seed);
        else
          search_sorted_keys((ts_key_type)type, keys, n, 0, 63, &seed);
        search_random_queries((ts_key_type)type, queries, count, &seed);
        check_plan_cpu(ctx, (ts_key_type)type, keys, n, queries, count);
        check_layouts((ts_key_type)type, keys, n, queries, count);
      }
      free(keys);
      free(queries);
    }
  }
  /* Layouts of several levels (fan-out 16 and 8), emulated only. */
  const int64_t big[] = {4096, 4097, 65536, 70001};
  for (size_t s = 0; s < 4; s++) {
    for (int type = TS_KEY_UINT32; type <= TS_KEY_UINT64; type += 3) {
      size_t ks = ts_key_type_size((ts_key_type)type);
      int64_t n = big[s], count = 2000;
      void *keys = malloc((size_t)n * ks), *queries = malloc((size_t)count * ks);
      search_sorted_keys((ts_key_type)type, keys, n, 0, 63, &seed);
      search_random_queries((ts_key_type)type, queries, count, &seed);
      /* Queries equal to keys as well. */
      for (int64_t j = 0; j < count; j += 2)
        memcpy((char *)queries + j * ks, (char *)keys + ((j * 7919) % n) * ks, ks);
      check_layouts((ts_key_type)type, keys, n, queries, count);
      free(keys);
      free(queries);
    }
  }
}

/* Many small arrays, both shared-memory algorithms (the CPU backend runs its
 * binary search), against naive per array. */
static void check_batched(ts_context *ctx) {
  unsigned long long seed = 7;
  const int64_t ns[] = {0, 1, 5, 32, 100, 2048};
  for (int type = 0; type < TS_KEY_TYPE_COUNT; type++) {
    size_t ks = ts_key_type_size((ts_key_type)type);
    for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) {
      int64_t arrays = 3, n = ns[s], m = 50;
      char *keys = malloc((size_t)(arrays * n + 1) * ks), *queries = malloc((size_t)(arrays * m) * ks);
      int32_t *results = malloc((size_t)(arrays * m) * 4);
      for (int64_t a = 0; a < arrays; a++) {
        search_sorted_keys((ts_key_type)type, keys + a * n * (int64_t)ks, n, a == 1 ? 30 : 0, a == 1 ? 33 : 63, &seed);
        search_random_queries((ts_key_type)type, queries + a * m * (int64_t)ks, m, &seed);
      }
      ts_buffer *kb = search_buffer(ctx, keys, (size_t)(arrays * n) * ks);
      ts_buffer *qb = search_buffer(ctx, queries, (size_t)(arrays * m) * ks);
      ts_buffer *rb = search_buffer(ctx, NULL, (size_t)(arrays * m) * 4);
      for (int alg = 0; alg <= TS_SEARCH_BATCHED_CONFLICT_LIMITED; alg++) {
        for (int bound = 0; bound <= 1; bound++) {
          CHECK_OK(ctx, ts_search_batched(ctx, (ts_key_type)type, (ts_search_bound)bound,
                                          (ts_search_batched_algorithm)alg, kb, arrays, n, qb, m, rb));
          CHECK_OK(ctx, ts_buffer_download(ctx, rb, 0, results, (size_t)(arrays * m) * 4));
          int64_t wrong = 0;
          for (int64_t a = 0; a < arrays; a++)
            for (int64_t j = 0; j < m; j++)
              wrong +=
                  results[a * m + j] != search_naive((ts_key_type)type, (ts_search_bound)bound,
                                                     keys + a * n * (int64_t)ks, n, queries + a * m * (int64_t)ks, j);
          CHECK_MSG(wrong == 0, "batched %s n=%lld %s: %lld wrong", ts_key_type_name((ts_key_type)type), (long long)n,
                    ts_search_batched_algorithm_name((ts_search_batched_algorithm)alg), (long long)wrong);
        }
      }
      ts_buffer_destroy(kb);
      ts_buffer_destroy(qb);
      ts_buffer_destroy(rb);
      free(keys);
      free(queries);
      free(results);
    }
  }
}

static void check_bad_inputs(ts_context *ctx) {
  uint32_t unsorted[] = {1, 5, 3};
  float nan_inside[] = {1.0f, NAN, 2.0f};
  double nan_last[] = {-INFINITY, -0.0, 0.0, 1.0, INFINITY, NAN, -NAN};
  ts_search_plan *plan = NULL;
  CHECK_STATUS(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, unsorted, 3, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK(plan == NULL);
  CHECK(strstr(ts_last_error(ctx), "key 2") != NULL);
  CHECK_STATUS(ctx, ts_search_plan_create(ctx, TS_KEY_FLOAT32, nan_inside, 3, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ctx, ts_search_plan_create(ctx, TS_KEY_FLOAT64, nan_last, 7, NULL, &plan));
  ts_search_plan_destroy(plan);
  plan = NULL;
  CHECK_STATUS(ctx, ts_search_plan_create(ctx, (ts_key_type)9, unsorted, 3, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, unsorted, -1, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, NULL, 3, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_search_plan_create(NULL, TS_KEY_UINT32, unsorted, 3, NULL, &plan), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, unsorted, 3, NULL, NULL), TS_ERROR_INVALID_ARGUMENT);
  ts_search_options o = {.algorithm = (ts_search_algorithm)TS_SEARCH_ALGORITHM_COUNT};
  CHECK_STATUS(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, unsorted, 1, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  o = (ts_search_options){.index_type = (ts_index_type)7};
  CHECK_STATUS(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, unsorted, 1, &o, &plan), TS_ERROR_INVALID_ARGUMENT);
  /* Refused before the keys are read. */
  o = (ts_search_options){.index_type = TS_INDEX_INT32};
  CHECK_STATUS(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, unsorted, (int64_t)INT32_MAX + 1, &o, &plan),
               TS_ERROR_OVERFLOW);
  CHECK(plan == NULL);

  uint32_t keys[] = {1, 2, 3};
  CHECK_OK(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, keys, 3, NULL, &plan));
  ts_buffer *q = search_buffer(ctx, keys, sizeof keys), *r = search_buffer(ctx, NULL, 8), *host = NULL;
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_HOST, 64, &host));
  CHECK_STATUS(ctx, ts_search_execute(plan, TS_BOUND_LOWER, q, 3, r), TS_ERROR_INVALID_ARGUMENT); /* r too small */
  CHECK_OK(ctx, ts_search_execute(plan, TS_BOUND_LOWER, q, 2, r));
  CHECK_OK(ctx, ts_search_execute(plan, TS_BOUND_LOWER, q, 0, r));
  CHECK_STATUS(ctx, ts_search_execute(plan, TS_BOUND_LOWER, q, -1, r), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_search_execute(plan, (ts_search_bound)2, q, 2, r), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_search_execute(plan, TS_BOUND_LOWER, host, 2, r), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_search_execute(plan, TS_BOUND_LOWER, NULL, 2, r), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_search_execute(NULL, TS_BOUND_LOWER, q, 2, r), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_search_execute(plan, TS_BOUND_LOWER, q, INT64_MAX / 2, r), TS_ERROR_OVERFLOW);
  {
    /* Results over the queries (wider int64 results would overwrite queries
     * not yet read) are refused; beside them they are fine. */
    ts_search_options wide = {.index_type = TS_INDEX_INT64};
    ts_search_plan *wide_plan = NULL;
    CHECK_OK(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, keys, 3, &wide, &wide_plan));
    uint32_t memory[12] = {3, 2, 1, 0};
    ts_buffer *queries = NULL, *over = NULL, *beside = NULL;
    CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, memory, 4 * sizeof(uint32_t), &queries));
    CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, memory, 4 * sizeof(int64_t), &over));
    CHECK_OK(ctx, ts_buffer_wrap(ctx, TS_MEMORY_DEVICE, memory + 4, 4 * sizeof(int64_t), &beside));
    CHECK_STATUS(ctx, ts_search_execute(wide_plan, TS_BOUND_LOWER, queries, 4, queries), TS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(ctx, ts_search_execute(wide_plan, TS_BOUND_LOWER, queries, 4, over), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(ctx), "overlap") != NULL);
    CHECK_OK(ctx, ts_search_execute(wide_plan, TS_BOUND_LOWER, queries, 4, beside));
    int64_t found[4];
    memcpy(found, memory + 4, sizeof found);
    CHECK(found[0] == 2 && found[1] == 1 && found[2] == 0 && found[3] == 0);
    CHECK_STATUS(
        ctx,
        ts_search_batched(ctx, TS_KEY_UINT32, TS_BOUND_LOWER, TS_SEARCH_BATCHED_AUTO, queries, 1, 4, queries, 1, over),
        TS_ERROR_INVALID_ARGUMENT);
    ts_buffer_destroy(queries);
    ts_buffer_destroy(over);
    ts_buffer_destroy(beside);
    ts_search_plan_destroy(wide_plan);
  }
  CHECK_STATUS(ctx,
               ts_search_batched(ctx, TS_KEY_UINT32, TS_BOUND_LOWER, TS_SEARCH_BATCHED_AUTO, q, 1,
                                 TS_SEARCH_BATCHED_MAX_KEYS + 1, q, 1, r),
               TS_ERROR_UNSUPPORTED);
  CHECK_STATUS(ctx, ts_search_batched(ctx, TS_KEY_UINT32, TS_BOUND_LOWER, TS_SEARCH_BATCHED_AUTO, q, 1, 4, q, 1, r),
               TS_ERROR_INVALID_ARGUMENT); /* 4 keys in a 3-key buffer */
  CHECK_STATUS(ctx,
               ts_search_batched(ctx, TS_KEY_UINT32, TS_BOUND_LOWER, (ts_search_batched_algorithm)5, q, 1, 3, q, 1, r),
               TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_search_batched(ctx, TS_KEY_UINT32, TS_BOUND_LOWER, TS_SEARCH_BATCHED_AUTO, q, -1, 3, q, 1, r),
               TS_ERROR_INVALID_ARGUMENT);
  ts_buffer_destroy(q);
  ts_buffer_destroy(r);
  ts_buffer_destroy(host);
  ts_search_plan_destroy(plan);

  /* AUTO: tiny -> radix (sorted queries or not); sorted queries -> merge-path; small -> eytzinger; large -> kary. */
  uint32_t *many = malloc(10000 * sizeof *many);
  for (int i = 0; i < 10000; i++)
    many[i] = (uint32_t)i;
  o = (ts_search_options){.sorted_queries = 1};
  CHECK_OK(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, many, 100, &o, &plan));
  CHECK(ts_search_plan_algorithm(plan) == TS_SEARCH_RADIX);
  ts_search_plan_destroy(plan);
  CHECK_OK(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, many, 4097, &o, &plan));
  CHECK(ts_search_plan_algorithm(plan) == TS_SEARCH_MERGE_PATH);
  ts_search_plan_destroy(plan);
  CHECK_OK(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, many, 4096, NULL, &plan));
  CHECK(ts_search_plan_algorithm(plan) == TS_SEARCH_RADIX);
  CHECK(strstr(ts_search_plan_explain(plan), "auto: radix") != NULL);
  ts_search_plan_destroy(plan);
  CHECK_OK(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, many, 8191, NULL, &plan));
  CHECK(ts_search_plan_algorithm(plan) == TS_SEARCH_EYTZINGER);
  CHECK(strstr(ts_search_plan_explain(plan), "eytzinger") != NULL);
  ts_search_plan_destroy(plan);
  CHECK_OK(ctx, ts_search_plan_create(ctx, TS_KEY_UINT32, many, 8192, NULL, &plan));
  CHECK(ts_search_plan_algorithm(plan) == TS_SEARCH_KARY);
  ts_search_plan_destroy(plan);
  free(many);
  CHECK(strcmp(ts_search_algorithm_name(TS_SEARCH_MERGE_PATH), "merge-path") == 0);
  CHECK(strcmp(ts_key_type_name(TS_KEY_FLOAT64), "double") == 0);
  CHECK(ts_key_type_size((ts_key_type)9) == 0);
}

int main(void) {
  ts_context *ctx = NULL;
  ts_context_options options = {.backend = TS_BACKEND_CPU};
  if (ts_context_create(&ctx, &options) != TS_SUCCESS)
    return test_skip("no CPU context");
  check_types(ctx);
  check_batched(ctx);
  check_bad_inputs(ctx);
  ts_context_destroy(ctx);
  return test_finish();
}
