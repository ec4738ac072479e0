/* The GPU symbolic phase out of core, simulated on the host: every row's
 * fill-path traversal (Rose and Tarjan's fill2, the GPU kernel's order:
 * thresholds in increasing order, each swept breadth first level by level)
 * run here with its statistics (edges scanned, the lowest vertex reached,
 * the sweep's length, the widest pair of consecutive levels, the U entries
 * past a window), then the chunk schedules of the GPU code replayed from
 * them under memory budgets: the slots of the old kernel (an n-bit bitmap
 * and a queue of the sweep's length, shortened to the budget with reruns in
 * full slots) against the tiered slots (a bitmap window around the row, a
 * hash set for the U entries past it, a ring of the sweep's levels; a row
 * that outgrows a tier reruns in the next), with the time of each modelled
 * as the longest row of each chunk plus a fixed cost a chunk (old kernel:
 * one warp a row, a chunk of rows at once) or the work shared out over the
 * rows in flight with the longest row as floor (tiered kernel: warps take
 * rows from a counter). The model's rate is calibrated on the old kernel's
 * measured default-budget time, given with --measured-default.
 *
 * With --gpu (a CUDA build and a GPU), the phase is run instead, under the
 * default budget, 1 GiB and 256 MiB, and the paper's slots under the default
 * budget for reference: host wall clock of the phase (M's pattern up, the
 * rows of L + U down, the columns built on the host), its chunks and peak
 * device memory, and whether the pattern is the host row merge's.
 *
 * Usage: lu_symbolic_ooc [--side S] [--stride K] [--sms N] [--measured-default SECONDS] [--gpu] [CSV]
 *   --side S     the S x S 5-point Laplacian (default 1024)
 *   --stride K   the traversal of every K-th row only, each standing for K rows (default 1)
 *   --sms N      multiprocessors of the simulated GPU (default 132, an H200)
 *   --gpu        measure on the GPU instead of simulating */
#include "lu/lu_internal.h"
#include "tsb.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lu/symbolic/symbolic_internal.h"

enum { GROUPS = 5 }; /* threads a row: 32, 64, 128, 256, 512 */

typedef struct row_stats {
  int64_t work;          /* edges scanned */
  int64_t steps[GROUPS]; /* a group's rounds over the sweeps' levels, a threshold search each */
  int32_t low;           /* lowest vertex reached */
  int32_t sweep;         /* longest sweep of one threshold, the threshold included (the old queue) */
  int32_t ring;          /* widest pair of consecutive levels of a sweep (a ring's need) */
  int32_t far;           /* U entries above the windowed tier's window */
  int32_t entries;       /* entries of the row of L + U */
} row_stats;

/* Row i's traversal with its statistics. */
static void traverse(int64_t n, const int64_t *ptr, const int32_t *idx, int32_t i, int32_t *stamp, int32_t *heap,
                     int32_t *level, int32_t *uppers, int64_t window, row_stats *out) {
  const int32_t mark = i + 1;
  int64_t heap_size = 0, work = 0, upper_count = 0, steps[GROUPS] = {0};
  int32_t low = i, count = 1, sweep = 0, ring = 0;
  stamp[i] = mark;
  for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
    int32_t x = idx[k];
    work++;
    if (stamp[x] == mark)
      continue;
    stamp[x] = mark;
    low = x < low ? x : low;
    count++;
    if (x < i) {
      int64_t at = heap_size++;
      while (at > 0 && heap[(at - 1) / 2] > x) {
        heap[at] = heap[(at - 1) / 2];
        at = (at - 1) / 2;
      }
      heap[at] = x;
    } else if (x > i) {
      uppers[upper_count++] = x;
    }
  }
  while (heap_size > 0) {
    int32_t t = heap[0], last = heap[--heap_size];
    int64_t at = 0;
    for (;;) {
      int64_t child = 2 * at + 1;
      if (child >= heap_size)
        break;
      if (child + 1 < heap_size && heap[child + 1] < heap[child])
        child++;
      if (last <= heap[child])
        break;
      heap[at] = heap[child];
      at = child;
    }
    if (heap_size > 0)
      heap[at] = last;
    for (int g = 0; g < GROUPS; g++)
      steps[g]++; /* the threshold's search */
    /* Breadth first, level by level: level[begin, end) is the current one. */
    int64_t begin = 0, end = 1, tail = 1;
    level[0] = t;
    int32_t previous = 1;
    while (begin < end) {
      for (int64_t q = begin; q < end; q++) {
        int32_t v = level[q];
        for (int64_t k = ptr[v]; k < ptr[v + 1]; k++) {
          int32_t x = idx[k];
          work++;
          if (stamp[x] == mark)
            continue;
          stamp[x] = mark;
          low = x < low ? x : low;
          if (x < t) {
            level[tail++] = x;
          } else {
            count++;
            if (x < i) {
              int64_t h = heap_size++;
              while (h > 0 && heap[(h - 1) / 2] > x) {
                heap[h] = heap[(h - 1) / 2];
                h = (h - 1) / 2;
              }
              heap[h] = x;
            } else {
              uppers[upper_count++] = x;
            }
          }
        }
      }
      int32_t width = (int32_t)(tail - end);
      for (int g = 0; g < GROUPS; g++)
        steps[g] += (end - begin + (32 << g) - 1) / (32 << g);
      ring = previous + width > ring ? previous + width : ring;
      previous = width;
      begin = end;
      end = tail;
    }
    sweep = tail > sweep ? (int32_t)tail : sweep;
  }
  out->work = work;
  out->low = low;
  out->sweep = sweep;
  out->ring = ring;
  out->entries = count;
  for (int g = 0; g < GROUPS; g++)
    out->steps[g] = steps[g];
  int64_t top = tsi_lu_symbolic_window_base(i, window, n) + window, far = 0;
  for (int64_t u = 0; u < upper_count; u++)
    far += uppers[u] >= top;
  out->far = (int32_t)far;
}

/* ---- the schedules ------------------------------------------------------------------ */

typedef struct machine {
  int64_t in_flight; /* rows the GPU runs at once a warp each (two a resident warp) */
  int64_t threads;   /* resident threads */
  double step;       /* seconds of a group's round (calibrated) */
  double chunk_cost; /* seconds a launch (and its clearing) costs */
} machine;

typedef struct sample {
  int64_t rows, stride;
  const int32_t *row;
  const row_stats *stats;
} sample;

static int group_index(int group) {
  int g = 0;
  while (g + 1 < GROUPS && (32 << (g + 1)) <= group)
    g++;
  return g;
}

/* Chunks of `chunk` rows from the listed sample entries (in order); each
 * chunk lasts as long as its slowest row (cost[k]), plus a launch. */
static double chunked(const bool *listed, const double *cost, const sample *s, int64_t chunk, const machine *m,
                      int64_t *chunks) {
  double seconds = 0.0, longest = 0.0;
  int64_t in_chunk = 0;
  for (int64_t k = 0; k < s->rows; k++) {
    if (!listed[k])
      continue;
    longest = fmax(longest, cost[k]);
    in_chunk += s->stride;
    if (in_chunk >= chunk) {
      seconds += longest + m->chunk_cost;
      (*chunks)++;
      longest = 0.0;
      in_chunk = 0;
    }
  }
  if (in_chunk > 0) {
    seconds += longest + m->chunk_cost;
    (*chunks)++;
  }
  return seconds;
}

/* The old kernel: two parts (rows of the first half have queues of n/2),
 * each queue shortened to the budget where full slots leave rows idle (at
 * least the bitmap's words), the rows whose sweep outgrows it rerun in full
 * slots; a warp a row. */
static double old_schedule(int64_t n, int64_t budget, const sample *s, const machine *m, int64_t *chunks,
                           int64_t *reruns) {
  const int64_t bitmap = (n + 31) / 32, fixed = bitmap + (bitmap + 31) / 32;
  bool *listed = calloc((size_t)s->rows, sizeof *listed), *rerun = calloc((size_t)s->rows, sizeof *rerun);
  double *cost = malloc((size_t)s->rows * sizeof *cost);
  double seconds = 0.0;
  *chunks = 0;
  *reruns = 0;
  for (int part = 0; part < 2; part++) {
    const int64_t begin = part ? n / 2 : 0, end = part ? n : n / 2, bound = part ? n : n / 2;
    const int64_t rows = end - begin < m->in_flight ? end - begin : m->in_flight;
    int64_t full_rows = budget / (4 * (fixed + bound)), queue = bound;
    if (full_rows < rows) {
      int64_t words = budget / 4 / rows - fixed;
      int64_t least = fixed > TSI_LU_SYMBOLIC_MIN_QUEUE_WORDS ? fixed : TSI_LU_SYMBOLIC_MIN_QUEUE_WORDS;
      words = words < least ? least : words;
      if (words < bound && budget / (4 * (fixed + words)) > full_rows)
        queue = words;
    }
    int64_t chunk = budget / (4 * (fixed + queue));
    chunk = chunk < 1 ? 1 : chunk > m->in_flight ? m->in_flight : chunk;
    for (int64_t k = 0; k < s->rows; k++) {
      listed[k] = s->row[k] >= begin && s->row[k] < end;
      bool out = listed[k] && s->stats[k].sweep > queue;
      /* A row stopped by its queue did about a queue's worth of rounds. */
      cost[k] =
          (out ? fmin((double)s->stats[k].steps[0], (double)queue / 32.0) : (double)s->stats[k].steps[0]) * m->step;
      if (out) {
        rerun[k] = true;
        *reruns += s->stride;
      }
    }
    seconds += chunked(listed, cost, s, chunk, m, chunks);
  }
  if (*reruns > 0) {
    int64_t chunk = budget / (4 * (fixed + n));
    chunk = chunk < 1 ? 1 : chunk > m->in_flight ? m->in_flight : chunk;
    for (int64_t k = 0; k < s->rows; k++)
      cost[k] = (double)s->stats[k].steps[0] * m->step;
    seconds += chunked(rerun, cost, s, chunk, m, chunks);
  }
  free(listed);
  free(rerun);
  free(cost);
  return 2.0 * seconds; /* count and write phases alike */
}

/* The tiered kernel (tsi_lu_symbolic_plan_tiers): each tier's rows in chunks
 * of its rows in flight, a group of its threads a row; a row stops in a tier
 * when it reaches below the window, fills half the hash set or outgrows the
 * ring, after about a window's worth of rounds. */
static double tiered_schedule(int64_t n, const tsi_lu_symbolic_plan *plan, const sample *s, const machine *m,
                              int64_t *rows_out, int64_t *chunks) {
  bool *listed = malloc((size_t)s->rows * sizeof *listed), *next = malloc((size_t)s->rows * sizeof *next);
  double *cost = malloc((size_t)s->rows * sizeof *cost);
  double seconds = 0.0;
  *chunks = 0;
  for (int64_t k = 0; k < s->rows; k++)
    listed[k] = true;
  for (int t = 0; t < plan->tiers; t++) {
    const tsi_lu_symbolic_tier *tier = &plan->tier[t];
    const int g = group_index(tier->group);
    rows_out[t] = 0;
    for (int64_t k = 0; k < s->rows; k++) {
      next[k] = false;
      if (!listed[k])
        continue;
      const row_stats *r = &s->stats[k];
      const int64_t i = s->row[k];
      bool out = false;
      if (t + 1 < plan->tiers) {
        out = r->low < tsi_lu_symbolic_window_base(i, tier->window_bits, n) ||
              (tier->ring && r->ring > tier->queue_words) || (tier->hash_words > 0 && r->far > tier->hash_words / 2);
      }
      double rounds = (double)r->steps[g];
      if (out)
        rounds = fmin(rounds, (double)tier->window_bits / (double)tier->group + 1.0);
      cost[k] = rounds * m->step;
      next[k] = out;
      rows_out[t] += s->stride;
    }
    if (rows_out[t] > 0)
      seconds += chunked(listed, cost, s, tier->rows, m, chunks);
    bool *swap = listed;
    listed = next;
    next = swap;
  }
  free(listed);
  free(next);
  free(cost);
  return 2.0 * seconds;
}

/* ---- the phase measured on the GPU ------------------------------------------------------ */

static void release_symbolic(ts_lu *lu) {
  free(lu->lu_col_ptr);
  free(lu->lu_row_idx);
  free(lu->diag_pos);
  free(lu->a_to_lu);
  lu->lu_col_ptr = NULL;
  lu->lu_row_idx = NULL;
  lu->diag_pos = NULL;
  lu->a_to_lu = NULL;
}

/* The GPU symbolic phase on the host analysis's permutations under each
 * budget; 0 when every run gave the host's pattern. */
static int measure_gpu(int64_t side, const char *csv, int argc, char **argv) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  ts_csr *a = NULL;
  ts_lu *lu = NULL;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS) {
    fprintf(stderr, "lu_symbolic_ooc: no CUDA context: %s\n", ts_last_error(NULL));
    return 77;
  }
  double start = tsb_wall_seconds();
  if (ts_gen_laplacian_2d(ctx, side, side, TS_FLOAT64, &a) != TS_SUCCESS ||
      ts_lu_create(ctx, NULL, &lu) != TS_SUCCESS) {
    fprintf(stderr, "lu_symbolic_ooc: %s\n", ts_last_error(ctx));
    return 1;
  }
  lu->switches.symbolic_device = TSI_LU_PHASE_CPU;
  lu->switches.levelize_device = TSI_LU_PHASE_CPU;
  if (ts_lu_analyze(lu, a) != TS_SUCCESS) {
    fprintf(stderr, "lu_symbolic_ooc: %s\n", ts_last_error(ctx));
    return 1;
  }
  const double host_symbolic = lu->stats.time_symbolic;
  fprintf(stderr, "host analysis %.1f s (row merge %.2f s)\n", tsb_wall_seconds() - start, host_symbolic);
  const int64_t nnz = lu->lu_nnz;
  int32_t *host_rows = malloc((size_t)nnz * sizeof *host_rows);
  int64_t *host_cols = malloc((size_t)(a->rows + 1) * sizeof *host_cols);
  memcpy(host_rows, lu->lu_row_idx, (size_t)nnz * sizeof *host_rows);
  memcpy(host_cols, lu->lu_col_ptr, (size_t)(a->rows + 1) * sizeof *host_cols);
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "matrix", "%lld x %lld 5-point Laplacian, n %lld, nnz(L+U) %lld", (long long)side,
                   (long long)side, (long long)a->rows, (long long)nnz);
  tsb_metadata_set(&meta, "host row merge", "%.2f s", host_symbolic);
  static const char *const columns[] = {"slots",  "budget",          "GPU symbolic s",
                                        "chunks", "peak device MiB", "same as the host"};
  tsb_table *table = tsb_table_create(6, columns);
  const struct {
    const char *slots;
    int64_t budget, queue_words;
  } runs[] = {{"tiers", 0, 0},
              {"tiers", (int64_t)1 << 30, 0},
              {"tiers", (int64_t)256 << 20, 0},
              {"paper (n-bit bitmap, queue of n)", 0, TSI_LU_FULL_QUEUE}};
  int failures = 0;
  for (int r = 0; r < 4; r++) {
    release_symbolic(lu);
    lu->options.symbolic_memory_budget = runs[r].budget;
    lu->switches.symbolic_queue_words = runs[r].queue_words;
    lu->stats.peak_device_bytes = 0;
    double begin = tsb_wall_seconds();
    ts_status st = tsi_lu_symbolic_cuda(lu, a);
    double seconds = tsb_wall_seconds() - begin;
    int same = st == TS_SUCCESS && lu->lu_nnz == nnz &&
               memcmp(lu->lu_col_ptr, host_cols, (size_t)(a->rows + 1) * sizeof *host_cols) == 0 &&
               memcmp(lu->lu_row_idx, host_rows, (size_t)nnz * sizeof *host_rows) == 0;
    failures += !same;
    fprintf(stderr, "%s, budget %lld: %.2f s, %lld chunks, %s%s\n", runs[r].slots, (long long)runs[r].budget, seconds,
            (long long)lu->stats.symbolic_chunks,
            same ? "same pattern" : "DIFFERENT pattern or failure: ", same ? "" : ts_last_error(ctx));
    tsb_table_cell(table, "%s", runs[r].slots);
    tsb_table_cell(table, "%s",
                   runs[r].budget ? (runs[r].budget == (int64_t)1 << 30 ? "1 GiB" : "256 MiB") : "default");
    tsb_table_cell(table, "%.2f", seconds);
    tsb_table_cell(table, "%lld", (long long)lu->stats.symbolic_chunks);
    tsb_table_cell(table, "%.0f", (double)lu->stats.peak_device_bytes / (1 << 20));
    tsb_table_cell(table, "%s", same ? "yes" : "NO");
  }
  int rc = tsb_table_write_csv(table, &meta, csv);
  tsb_table_print_markdown(table, &meta, stdout);
  tsb_table_destroy(table);
  free(host_rows);
  free(host_cols);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
  ts_context_destroy(ctx);
  return rc || failures ? 1 : 0;
}

int main(int argc, char **argv) {
  int64_t side = 1024, stride = 1, sms = 132;
  double measured = 0.0;
  bool gpu = false;
  const char *csv = "bench-out/lu_symbolic_ooc.csv";
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--side") == 0 && a + 1 < argc)
      side = atoll(argv[++a]);
    else if (strcmp(argv[a], "--stride") == 0 && a + 1 < argc)
      stride = atoll(argv[++a]);
    else if (strcmp(argv[a], "--sms") == 0 && a + 1 < argc)
      sms = atoll(argv[++a]);
    else if (strcmp(argv[a], "--measured-default") == 0 && a + 1 < argc)
      measured = atof(argv[++a]);
    else if (strcmp(argv[a], "--gpu") == 0)
      gpu = true;
    else {
      int rc = tsb_option_or_path(argv[0], argv[a],
                                  "[--side S] [--stride K] [--sms N] [--measured-default SECONDS] [--gpu] [CSV]");
      if (rc >= 0)
        return rc;
      csv = argv[a];
    }
  }
  if (side < 2 || stride < 1) {
    fprintf(stderr, "lu_symbolic_ooc: --side >= 2 and --stride >= 1\n");
    return 2;
  }
  if (gpu)
    return measure_gpu(side, csv, argc, argv);
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  ts_csr *a = NULL;
  ts_lu *lu = NULL;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS || ts_gen_laplacian_2d(ctx, side, side, TS_FLOAT64, &a) ||
      ts_lu_create(ctx, NULL, &lu) != TS_SUCCESS || ts_lu_analyze(lu, a) != TS_SUCCESS) {
    fprintf(stderr, "lu_symbolic_ooc: %s\n", ts_last_error(ctx));
    return 1;
  }
  const int64_t n = a->rows;
  /* M's pattern by rows: row i is row row_perm[i] of A, columns renumbered. */
  int64_t *ptr = malloc((size_t)(n + 1) * sizeof *ptr);
  int32_t *idx = malloc((size_t)a->nnz * sizeof *idx), *col_inverse = malloc((size_t)n * sizeof *col_inverse);
  for (int64_t k = 0; k < n; k++)
    col_inverse[lu->col_perm[k]] = (int32_t)k;
  ptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t r = lu->row_perm[i], at = ptr[i];
    for (int64_t e = a->row_ptr[r]; e < a->row_ptr[r + 1]; e++)
      idx[at++] = col_inverse[a->col_idx[e]];
    ptr[i + 1] = at;
  }
  const int64_t lu_nnz = lu->lu_nnz;
  ts_lu_destroy(lu);
  ts_csr_destroy(a);

  int64_t rows = (n + stride - 1) / stride;
  int32_t *row = malloc((size_t)rows * sizeof *row);
  row_stats *stats = calloc((size_t)rows, sizeof *stats);
  int32_t *stamp = calloc((size_t)n, sizeof *stamp), *heap = malloc((size_t)n * sizeof *heap),
          *level = malloc((size_t)n * sizeof *level), *uppers = malloc((size_t)n * sizeof *uppers);
  double start = tsb_wall_seconds();
  double total_work = 0.0;
  for (int64_t k = 0; k < rows; k++) {
    row[k] = (int32_t)(k * stride + (stride - 1) / 2 < n ? k * stride + (stride - 1) / 2 : n - 1);
    traverse(n, ptr, idx, row[k], stamp, heap, level, uppers, TSI_LU_SYMBOLIC_WINDOW, &stats[k]);
    total_work += (double)stats[k].work * (double)stride;
  }
  double traversal = tsb_wall_seconds() - start;
  fprintf(stderr, "traversals of %lld rows (stride %lld): %.1f s, %.3g edges scanned in all\n", (long long)rows,
          (long long)stride, traversal, total_work);

  /* Distributions: rows (of the sample) whose reach below the row, widest
   * pair of levels, sweep and far U entries fit 2^k. */
  fprintf(stderr, "  k   reach<=2^k  ring<=2^k  sweep<=2^k  far<=2^k  work of rows with reach>2^k\n");
  for (int k = 4; k <= 22; k += 2) {
    int64_t reach = 0, ring = 0, sweep = 0, far = 0;
    double heavy = 0.0;
    for (int64_t q = 0; q < rows; q++) {
      reach += row[q] - stats[q].low <= (1 << k);
      ring += stats[q].ring <= (1 << k);
      sweep += stats[q].sweep <= (1 << k);
      far += stats[q].far <= (1 << k);
      if (row[q] - stats[q].low > (1 << k))
        heavy += (double)stats[q].work * (double)stride;
    }
    fprintf(stderr, "%3d %11.5f %10.5f %11.5f %9.5f %10.4f\n", k, (double)reach / rows, (double)ring / rows,
            (double)sweep / rows, (double)far / rows, heavy / total_work);
  }

  sample s = {rows, stride, row, stats};
  machine m = {sms * 64 * TSI_LU_SYMBOLIC_ROWS_PER_RESIDENT_WARP, sms * 2048, 1e-6, 20e-6};
  /* Calibrate: the old kernel's default budget (a quarter of 139 GiB free)
   * took `measured` seconds; the seconds of a round follow. */
  const int64_t default_budget = (int64_t)(139.0 * (1 << 30)) / TSI_LU_SYMBOLIC_BUDGET_DIVISOR;
  int64_t chunks = 0, reruns = 0;
  double model_default = old_schedule(n, default_budget, &s, &m, &chunks, &reruns);
  if (measured > 0.0) {
    double launches = 2.0 * (double)chunks * m.chunk_cost;
    m.step *= (measured - launches) / (model_default - launches);
  }
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "matrix", "%lld x %lld 5-point Laplacian, n %lld, nnz(L+U) %lld", (long long)side,
                   (long long)side, (long long)n, (long long)lu_nnz);
  tsb_metadata_set(&meta, "model",
                   "%lld rows in flight, %lld resident threads, %.3g us a round of a row's group (%s), %.0f us a "
                   "chunk; count and write phases alike",
                   (long long)m.in_flight, (long long)m.threads, m.step * 1e6,
                   measured > 0.0 ? "calibrated on the measured default" : "assumed", m.chunk_cost * 1e6);
  static const char *const columns[] = {
      "budget",        "old kernel s", "old chunks",          "old reruns",         "tiered s",
      "tiered chunks", "tier rows",    "tier rows in flight", "tier threads a row", "old/tiered x"};
  tsb_table *table = tsb_table_create(10, columns);
  const int64_t budgets[] = {default_budget, (int64_t)1 << 30, (int64_t)256 << 20, 200000000};
  const char *const names[] = {"default (1/4 of 139 GiB)", "1 GiB", "256 MiB", "200 MB"};
  for (int b = 0; b < 4; b++) {
    tsi_lu_symbolic_plan plan;
    if (tsi_lu_symbolic_plan_tiers(ctx, n, budgets[b], m.in_flight, m.threads, NULL, &plan) != TS_SUCCESS)
      continue;
    int64_t tier_rows[TSI_LU_SYMBOLIC_TIERS_MAX] = {0}, tiered_chunks = 0;
    double old_s = old_schedule(n, budgets[b], &s, &m, &chunks, &reruns);
    double new_s = tiered_schedule(n, &plan, &s, &m, tier_rows, &tiered_chunks);
    char rows_text[96] = "", flight_text[96] = "", group_text[96] = "";
    for (int t = 0; t < plan.tiers; t++) {
      snprintf(rows_text + strlen(rows_text), sizeof rows_text - strlen(rows_text), "%s%lld", t ? " / " : "",
               (long long)tier_rows[t]);
      snprintf(flight_text + strlen(flight_text), sizeof flight_text - strlen(flight_text), "%s%lld", t ? " / " : "",
               (long long)plan.tier[t].rows);
      snprintf(group_text + strlen(group_text), sizeof group_text - strlen(group_text), "%s%d", t ? " / " : "",
               plan.tier[t].group);
    }
    tsb_table_cell(table, "%s", names[b]);
    tsb_table_cell(table, "%.2f", old_s);
    tsb_table_cell(table, "%lld", (long long)chunks);
    tsb_table_cell(table, "%lld", (long long)reruns);
    tsb_table_cell(table, "%.2f", new_s);
    tsb_table_cell(table, "%lld", (long long)tiered_chunks);
    tsb_table_cell(table, "%s", rows_text);
    tsb_table_cell(table, "%s", flight_text);
    tsb_table_cell(table, "%s", group_text);
    tsb_table_cell(table, "%.2f", old_s / new_s);
  }
  int rc = tsb_table_write_csv(table, &meta, csv);
  tsb_table_print_markdown(table, &meta, stdout);
  tsb_table_destroy(table);
  free(ptr);
  free(idx);
  free(col_inverse);
  free(row);
  free(stats);
  free(stamp);
  free(heap);
  free(level);
  free(uppers);
  ts_context_destroy(ctx);
  return rc ? 1 : 0;
}
