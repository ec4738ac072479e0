/* Long steps end, and end soon when asked:
 * - ts_gen_power_law terminates for any finite exponent: where r^-exponent
 *   underflows, an nnz no scale C can reach is refused with the most that is
 *   possible (computed here from the documented rule), and reachable ones
 *   are generated, in bounded time;
 * - every generator, the reader and the conversions behind ts_mm_read_csr
 *   call the progress callback at least every second (the longest gap, from
 *   the call to its return, is measured in CPU time on one thread), and a
 *   cancel is honoured within a second, with nothing returned or leaked. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "test_gen_common.h"

#include <float.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

/* The library's promise is about a second between checks; a build under
 * AddressSanitizer runs the same work a few times slower. */
#if defined(__SANITIZE_ADDRESS__)
#define GAP_SCALE 3.0
#else
#define GAP_SCALE 1.0
#endif

/* Gaps are measured in the process's CPU time with one library thread: the
 * work done between two checks, whatever else the machine runs (a loaded
 * machine stretches wall-clock gaps without the library doing more work). */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The most entries any scale gives: rows whose weight is 0 in double keep
 * one entry, the others are full at C = DBL_MAX when DBL_MAX * w rounds to
 * cols or more. */
static int64_t reachable(int64_t rows, int64_t cols, double exponent) {
  return zipf_total(DBL_MAX, rows, cols, exponent);
}

static void test_power_law_terminates(ts_context *ctx) {
  const struct {
    int64_t rows, cols;
    double exponent;
  } cases[] = {{1000, 1000, 1000.0}, {1000, 1000, 1e300}, {5000, 3000, 200.0}, {2000, 2000, 120.0}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int64_t rows = cases[c].rows, cols = cases[c].cols;
    double e = cases[c].exponent;
    int64_t most = reachable(rows, cols, e);
    ts_csr *a = NULL;
    double start = now();
    /* One more than possible: refused, naming the most. */
    if (most < rows * cols) {
      CHECK_STATUS(ctx, ts_gen_power_law(ctx, rows, cols, most + 1, e, 5, TS_FLOAT64, &a), TS_ERROR_INVALID_ARGUMENT);
      char most_text[64];
      snprintf(most_text, sizeof most_text, "at most %lld entries", (long long)most);
      CHECK_MSG(a == NULL && strstr(ts_last_error(ctx), "cannot be reached") && strstr(ts_last_error(ctx), most_text),
                "exponent %g: '%s'", e, ts_last_error(ctx));
    }
    /* Exactly the most, and something between: generated. */
    int64_t wanted[2] = {most, rows + (most - rows) / 3};
    for (int w = 0; w < 2; w++) {
      CHECK_OK(ctx, ts_gen_power_law(ctx, rows, cols, wanted[w], e, 5, TS_FLOAT64, &a));
      if (a) {
        CHECK_OK(ctx, ts_csr_check(ctx, a));
        CHECK(a->rows == rows && a->nnz >= rows && a->nnz <= most);
        if (w == 0)
          CHECK_MSG(a->nnz == most, "exponent %g: %lld entries for the most, %lld", e, (long long)a->nnz,
                    (long long)most);
        int64_t longest = 0;
        for (int64_t i = 0; i < rows; i++)
          longest = a->row_ptr[i + 1] - a->row_ptr[i] > longest ? a->row_ptr[i + 1] - a->row_ptr[i] : longest;
        CHECK(longest <= cols);
      }
      ts_csr_destroy(a);
      a = NULL;
    }
    double seconds = now() - start;
    CHECK_MSG(seconds < 10.0, "exponent %g took %.1f s", e, seconds);
    printf("power law, exponent %g: at most %lld entries; %.2f s\n", e, (long long)most, seconds);
  }
}

/* The callback's view: time of each call, and when to cancel. */
typedef struct watch {
  double last, longest_gap, cancelled_at;
  int calls, cancel_at_call;
  int64_t gap_done, gap_total; /* the figures that ended the longest gap */
} watch;

static int watch_progress(void *user, int64_t done, int64_t total) {
  watch *w = user;
  double t = now();
  if (t - w->last > w->longest_gap) {
    w->longest_gap = t - w->last;
    w->gap_done = done;
    w->gap_total = total;
  }
  w->last = t;
  w->calls++;
  if (w->cancel_at_call > 0 && w->calls >= w->cancel_at_call) {
    w->cancelled_at = t;
    return 1;
  }
  return 0;
}

typedef ts_status (*generator_fn)(ts_context *ctx, ts_csr **csr);

/* The reader and the conversions, on inputs made once. */
static char *big_text;
static size_t big_text_size;
static ts_coo *big_coo;

static ts_status make_by_reading(ts_context *ctx, ts_csr **csr) {
  ts_coo *coo = NULL;
  ts_status st = ts_mm_read_memory(ctx, big_text, big_text_size, TS_FLOAT64, &coo, NULL);
  *csr = NULL;
  if (st == TS_SUCCESS)
    st = ts_csr_create(ctx, 1, 1, 0, TS_FLOAT64, csr); /* something to free on success */
  ts_coo_destroy(coo);
  return st;
}
static ts_status make_by_converting(ts_context *ctx, ts_csr **csr) {
  ts_coo *general = NULL;
  *csr = NULL;
  ts_status st = ts_coo_expand_symmetric(ctx, big_coo, &general);
  if (st == TS_SUCCESS)
    st = ts_csr_from_coo(ctx, general, TS_DUPLICATES_SUM, csr);
  ts_coo_destroy(general);
  return st;
}

static void make_inputs(void) {
  /* About 60 MB of text: 3M entries of a symmetric 2^20 square. */
  const int64_t n = 1 << 20, count = 3000000;
  big_text = malloc((size_t)count * 20 + 128);
  big_text_size = (size_t)sprintf(big_text, "%%%%MatrixMarket matrix coordinate real symmetric\n%lld %lld %lld\n",
                                  (long long)n, (long long)n, (long long)count);
  for (int64_t k = 0; k < count; k++) {
    int64_t i = (k * 7919) % n, j = (k * 104729) % n;
    if (i < j) {
      int64_t t = i;
      i = j;
      j = t;
    }
    big_text_size += (size_t)sprintf(big_text + big_text_size, "%lld %lld %lld\n", (long long)i + 1, (long long)j + 1,
                                     (long long)(k % 97));
  }
  /* 12M stored entries, half repeats, to expand and convert. */
  const int64_t stored = 12000000;
  CHECK_OK(NULL, ts_coo_create(NULL, n, n, stored, TS_FLOAT64, &big_coo));
  for (int64_t k = 0; big_coo && k < stored; k++) {
    int64_t i = (k / 2 * 7919) % n, j = (k / 2 * 31) % n;
    big_coo->row_idx[k] = (int32_t)(i > j ? i : j);
    big_coo->col_idx[k] = (int32_t)(i > j ? j : i);
    ((double *)big_coo->values)[k] = 1.0;
  }
  if (big_coo) {
    big_coo->nnz = stored;
    big_coo->symmetry = TS_SYMMETRIC;
  }
}

static ts_status make_power_law(ts_context *ctx, ts_csr **csr) {
  return ts_gen_power_law(ctx, 1 << 21, 1 << 21, 1 << 24, 0.9, 1, TS_FLOAT64, csr);
}
static ts_status make_laplacian(ts_context *ctx, ts_csr **csr) {
  return ts_gen_laplacian_3d(ctx, 100, 100, 100, TS_FLOAT64, csr);
}
static ts_status make_banded(ts_context *ctx, ts_csr **csr) {
  return ts_gen_banded(ctx, 1 << 20, 8, 8, 1, TS_FLOAT64, csr);
}
static ts_status make_uniform(ts_context *ctx, ts_csr **csr) {
  return ts_gen_random_uniform(ctx, 1 << 20, 1 << 20, 16, 1, TS_FLOAT64, csr);
}
static ts_status make_rmat(ts_context *ctx, ts_csr **csr) {
  ts_rmat_params p = ts_rmat_graph500(18, 16);
  return ts_gen_rmat(ctx, &p, 1, TS_FLOAT64, csr);
}
static ts_status make_circuit(ts_context *ctx, ts_csr **csr) {
  ts_circuit_params p = ts_circuit_defaults(1 << 20);
  p.locality = 0.5;
  return ts_gen_circuit(ctx, &p, 1, TS_FLOAT64, csr);
}

/* Steps that consume a matrix (statistics, writing, the fill estimate), on a
 * 2-D Laplacian made once: they report progress and honour a cancel too. */
static ts_csr *big_csr;
static char big_path[512];

static ts_status something_to_free(ts_context *ctx, ts_status st, ts_csr **csr) {
  *csr = NULL;
  return st == TS_SUCCESS ? ts_csr_create(ctx, 1, 1, 0, TS_FLOAT64, csr) : st;
}
static ts_status make_by_statistics(ts_context *ctx, ts_csr **csr) {
  ts_csr_stats stats;
  return something_to_free(ctx, ts_csr_stats_compute(ctx, big_csr, &stats), csr);
}
static ts_status make_by_writing(ts_context *ctx, ts_csr **csr) {
  return something_to_free(ctx, ts_mm_write_csr(ctx, big_path, big_csr, NULL), csr);
}
static ts_status make_by_fill_estimate(ts_context *ctx, ts_csr **csr) {
  int64_t lu_nnz = 0;
  ts_status st = ts_csr_fill_estimate(ctx, big_csr, &lu_nnz, NULL);
  return something_to_free(ctx, st == TS_ERROR_UNSUPPORTED ? TS_SUCCESS : st, csr);
}

/* max_gap: the longest time allowed without a progress call (one second,
 * unless a step calls a library that cannot be interrupted). */
static void check_step(ts_context *ctx, const char *name, generator_fn generate, double max_gap) {
  /* A whole run: the longest time without a call. */
  watch w = {now(), 0, 0, 0, 0, -2, -2};
  CHECK_OK(ctx, ts_context_set_progress(ctx, watch_progress, &w));
  ts_csr *a = NULL;
  double start = w.last;
  CHECK_OK(ctx, generate(ctx, &a));
  double end = now();
  if (end - w.last > w.longest_gap) {
    w.longest_gap = end - w.last;
    w.gap_done = w.gap_total = -2; /* the end of the call */
  }
  CHECK_MSG(w.longest_gap < max_gap, "%s: %.2f s without a progress call", name, w.longest_gap);
  printf("%s: %.2f s, %d progress calls, longest gap %.3f s (before %lld of %lld)\n", name, end - start, w.calls,
         w.longest_gap, (long long)w.gap_done, (long long)w.gap_total);
  int calls = w.calls;
  ts_csr_destroy(a);
  /* Cancelled at the second call and half-way: prompt, nothing returned. */
  int cancel_points[2] = {2, calls / 2 > 2 ? calls / 2 : 3};
  for (int c = 0; c < 2; c++) {
    watch cancel = {now(), 0, 0, 0, cancel_points[c], 0, 0};
    CHECK_OK(ctx, ts_context_set_progress(ctx, watch_progress, &cancel));
    a = (ts_csr *)&a;
    ts_status st = generate(ctx, &a);
    double returned = now();
    if (cancel.cancelled_at > 0) {
      CHECK_MSG(st == TS_ERROR_CANCELLED && a == NULL, "%s: cancel at call %d gave %s", name, cancel_points[c],
                ts_status_string(st));
      CHECK_MSG(returned - cancel.cancelled_at < 1.0 * GAP_SCALE, "%s: returned %.2f s after the cancel", name,
                returned - cancel.cancelled_at);
    } else {
      /* Fewer calls than the cancel point: a normal run. */
      CHECK(st == TS_SUCCESS);
      ts_csr_destroy(a);
    }
  }
  CHECK_OK(ctx, ts_context_set_progress(ctx, NULL, NULL));
}

static void check_generator(ts_context *ctx, const char *name, generator_fn generate) {
  check_step(ctx, name, generate, 1.0 * GAP_SCALE);
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  options.num_threads = 1;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  alarm(600); /* the old power-law loop never returned */
  test_power_law_terminates(ctx);
  check_generator(ctx, "power law", make_power_law);
  check_generator(ctx, "laplacian 3-D", make_laplacian);
  check_generator(ctx, "banded", make_banded);
  check_generator(ctx, "random uniform", make_uniform);
  check_generator(ctx, "R-MAT", make_rmat);
  check_generator(ctx, "circuit", make_circuit);
  make_inputs();
  check_generator(ctx, "reading 60 MB", make_by_reading);
  check_generator(ctx, "expanding and converting 12M entries", make_by_converting);
  CHECK_OK(ctx, ts_gen_laplacian_2d(ctx, 1500, 1500, TS_FLOAT64, &big_csr));
  check_generator(ctx, "statistics of 11M entries", make_by_statistics);
  const char *tmp = getenv("TESSERA_TEST_TMP");
  snprintf(big_path, sizeof big_path, "%s/test_cancel_write.mtx", tmp ? tmp : ".");
  check_generator(ctx, "writing 11M entries", make_by_writing);
  /* The last run of check_generator was cancelled half-way: the complete file
   * of the earlier full run is still there, whole. */
  ts_coo *back = NULL;
  CHECK_OK(ctx, ts_mm_read(ctx, big_path, TS_FLOAT64, &back, NULL));
  CHECK(back && back->nnz == big_csr->nnz);
  ts_coo_destroy(back);
  remove(big_path);
  /* The fill estimate's AMD ordering is one call of SuiteSparse that cannot
   * be interrupted (seconds for millions of rows); the steps around it check. */
  check_step(ctx, "fill estimate of 11M entries", make_by_fill_estimate, 10.0 * GAP_SCALE);
  ts_csr_destroy(big_csr);
  free(big_text);
  ts_coo_destroy(big_coo);
  ts_context_destroy(ctx);
  return test_finish();
}
