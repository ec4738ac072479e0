/* One instantiation of the CPU merge sort: included by sort_cpu.c with
 * SORT_KEY_T (uint32_t or uint64_t: keys already mapped to ordered integers),
 * SORT_VALUE_T (the payload type, or undefined for keys alone) and SORT_NAME
 * (the function's name). Bottom-up stable merge sort: insertion sort of runs
 * of TSI_SORT_CPU_RUN keys, then passes that merge pairs of runs, each pass cut
 * into equal output chunks by merge-path co-ranks (Odeh, Green, Mwassi,
 * Shmueli and Birk, "Merge Path - Parallel Merging Made Simple", IPDPSW 2012)
 * so that every thread has the same work whatever the run lengths. */

#ifdef SORT_VALUE_T
#define SORT_MOVE_VALUE(dst, di, src, si) ((dst)[di] = (src)[si])
#define SORT_VALUE_ARG(name) SORT_VALUE_T *name             /* NOLINT(bugprone-macro-parentheses) */
#define SORT_CONST_VALUE_ARG(name) const SORT_VALUE_T *name /* NOLINT(bugprone-macro-parentheses) */
#else
#define SORT_MOVE_VALUE(dst, di, src, si) ((void)0)
#define SORT_VALUE_ARG(name) void *name             /* NOLINT(bugprone-macro-parentheses) */
#define SORT_CONST_VALUE_ARG(name) const void *name /* NOLINT(bugprone-macro-parentheses) */
#endif

#define SORT_CAT2(a, b) a##b
#define SORT_CAT(a, b) SORT_CAT2(a, b)

/* Keys taken from a = [0, la) among the first d of the stable merge of a and b. */
static int64_t SORT_CAT(SORT_NAME, _corank)(const SORT_KEY_T *a, int64_t la, const SORT_KEY_T *b, int64_t lb,
                                            int64_t d) {
  int64_t lo = d > lb ? d - lb : 0, hi = d < la ? d : la;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (a[mid] <= b[d - 1 - mid])
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void SORT_CAT(SORT_NAME, _insertion)(SORT_KEY_T *keys, SORT_VALUE_ARG(values), int64_t count) {
  (void)values;
  for (int64_t i = 1; i < count; i++) {
    SORT_KEY_T k = keys[i];
#ifdef SORT_VALUE_T
    SORT_VALUE_T v = values[i];
#endif
    int64_t j = i;
    while (j > 0 && keys[j - 1] > k) { /* strict: equal keys stay in order */
      keys[j] = keys[j - 1];
      SORT_MOVE_VALUE(values, j, values, j - 1);
      j--;
    }
    keys[j] = k;
#ifdef SORT_VALUE_T
    values[j] = v;
#endif
  }
}

/* Merge every pair of runs of @p width from src into dst. */
static void SORT_CAT(SORT_NAME, _pass)(int64_t n, int64_t width, const SORT_KEY_T *src_keys,
                                       SORT_CONST_VALUE_ARG(src_values), SORT_KEY_T *dst_keys,
                                       SORT_VALUE_ARG(dst_values)) {
  (void)src_values;
  (void)dst_values;
  int64_t chunks = (n + TSI_SORT_CPU_CHUNK - 1) / TSI_SORT_CPU_CHUNK;
#pragma omp parallel for schedule(static) if (n > TSI_SORT_CPU_PARALLEL_MIN)
  for (int64_t c = 0; c < chunks; c++) {
    int64_t pos = c * TSI_SORT_CPU_CHUNK, end = pos + TSI_SORT_CPU_CHUNK < n ? pos + TSI_SORT_CPU_CHUNK : n;
    while (pos < end) {
      int64_t base = pos / (2 * width) * (2 * width);
      int64_t a_end = base + width < n ? base + width : n;
      int64_t b_end = a_end + width < n ? a_end + width : n;
      int64_t stop = end < b_end ? end : b_end;
      const SORT_KEY_T *a = src_keys + base, *b = src_keys + a_end;
      int64_t la = a_end - base, lb = b_end - a_end;
      int64_t d0 = pos - base, d1 = stop - base;
      int64_t i = SORT_CAT(SORT_NAME, _corank)(a, la, b, lb, d0);
      int64_t i_end = SORT_CAT(SORT_NAME, _corank)(a, la, b, lb, d1);
      int64_t j = d0 - i, j_end = d1 - i_end;
      for (int64_t out = pos; out < stop; out++) {
        if (j >= j_end || (i < i_end && a[i] <= b[j])) {
          dst_keys[out] = a[i];
          SORT_MOVE_VALUE(dst_values, out, src_values, base + i);
          i++;
        } else {
          dst_keys[out] = b[j];
          SORT_MOVE_VALUE(dst_values, out, src_values, a_end + j);
          j++;
        }
      }
      pos = stop;
    }
  }
}

static void SORT_NAME(int64_t n, SORT_KEY_T *keys, SORT_VALUE_ARG(values), SORT_KEY_T *alt_keys,
                      SORT_VALUE_ARG(alt_values)) {
  int64_t runs = (n + TSI_SORT_CPU_RUN - 1) / TSI_SORT_CPU_RUN;
#pragma omp parallel for schedule(static) if (n > TSI_SORT_CPU_PARALLEL_MIN)
  for (int64_t r = 0; r < runs; r++) {
    int64_t start = r * TSI_SORT_CPU_RUN, count = n - start < TSI_SORT_CPU_RUN ? n - start : TSI_SORT_CPU_RUN;
#ifdef SORT_VALUE_T
    SORT_CAT(SORT_NAME, _insertion)(keys + start, values + start, count);
#else
    SORT_CAT(SORT_NAME, _insertion)(keys + start, NULL, count);
#endif
  }
  SORT_KEY_T *src_keys = keys, *dst_keys = alt_keys;
#ifdef SORT_VALUE_T
  SORT_VALUE_T *src_values = values, *dst_values = alt_values;
#else
  void *src_values = NULL, *dst_values = NULL;
  (void)values;
  (void)alt_values;
#endif
  for (int64_t width = TSI_SORT_CPU_RUN; width < n; width *= 2) {
    SORT_CAT(SORT_NAME, _pass)(n, width, src_keys, src_values, dst_keys, dst_values);
    SORT_KEY_T *tk = src_keys;
    src_keys = dst_keys;
    dst_keys = tk;
#ifdef SORT_VALUE_T
    SORT_VALUE_T *tv = src_values;
    src_values = dst_values;
    dst_values = tv;
#endif
  }
  if (src_keys != keys) {
    memcpy(keys, src_keys, (size_t)n * sizeof *keys);
#ifdef SORT_VALUE_T
    memcpy(values, src_values, (size_t)n * sizeof *values);
#endif
  }
}

#undef SORT_MOVE_VALUE
#undef SORT_VALUE_ARG
#undef SORT_CONST_VALUE_ARG
#undef SORT_CAT
#undef SORT_CAT2
