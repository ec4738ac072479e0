/* Rows of L + U of M = P Dr A Dc Q from the fill-path theorem (Rose and
 * Tarjan, SIAM J. Appl. Math. 34(1), 1978: (i, j) is in L + U iff G(M) has a
 * path from i to j whose intermediate vertices are all below min(i, j)),
 * each row by an independent traversal of G(M), in chunks of rows whose
 * working memory fits a budget (Xia, Jiang, Agrawal and Ramnath, PPoPP
 * 2023, section 3.2: count, prefix sum, then write; two chunk sizes). The
 * GPU's algorithm: every row re-explores what it reaches, so the row merge
 * (symbolic_row_merge_cpu.c) is the CPU's default and this one the
 * reference it is tested against. */
#include "lu/symbolic/symbolic_internal.h"

#include <stdlib.h>
#include <string.h>

/* Working memory of one row in flight: visit stamps for all n vertices, a
 * heap of the row's L entries still to expand and a stack of the vertices
 * below the current threshold, each at most `bound` long, where bound is the
 * largest row of the part: only vertices below the row go into them. */
static int64_t slot_words(int64_t n, int64_t bound) { return n + 2 * bound; }

typedef struct fill_path_rows {
  int64_t n;
  const int64_t *m_ptr; /* M's pattern by rows */
  const int32_t *m_idx;
  int64_t *row_count;     /* phase one: entries of row i of L + U */
  const int64_t *row_ptr; /* phase two: where row i's entries go */
  int32_t *row_idx;
} fill_path_rows;

static inline void heap_push(int32_t *heap, int64_t *size, int32_t value) {
  int64_t at = (*size)++;
  while (at > 0) {
    int64_t parent = (at - 1) / 2;
    if (heap[parent] <= value)
      break;
    heap[at] = heap[parent];
    at = parent;
  }
  heap[at] = value;
}

static inline int32_t heap_pop(int32_t *heap, int64_t *size) {
  int32_t top = heap[0], last = heap[--(*size)];
  int64_t at = 0;
  for (;;) {
    int64_t child = 2 * at + 1;
    if (child >= *size)
      break;
    if (child + 1 < *size && heap[child + 1] < heap[child])
      child++;
    if (last <= heap[child])
      break;
    heap[at] = heap[child];
    at = child;
  }
  if (*size > 0)
    heap[at] = last;
  return top;
}

/* Row i of L + U (Rose and Tarjan's fill2): thresholds t are taken in
 * increasing order from the heap of reached vertices below i; from each, the
 * vertices below t reachable through vertices below t are swept (they are
 * not entries of the row: their best path runs through t), and every vertex
 * above t first met this way has a path whose intermediates are all at most
 * t, so it is an entry: an L entry (pushed, a later threshold) below i, a U
 * entry above. Writes the entries to out when it is not NULL (diagonal
 * first, then in the order found) and returns their number. */
static int64_t row_pattern(const fill_path_rows *s, int32_t i, int32_t *stamp, int32_t *heap, int32_t *stack,
                           int32_t *out) {
  const int64_t *ptr = s->m_ptr;
  const int32_t *idx = s->m_idx;
  const int32_t mark = i + 1;
  int64_t count = 0, heap_size = 0;
  stamp[i] = mark;
  if (out)
    out[count] = i;
  count++;
  for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
    int32_t x = idx[k];
    if (stamp[x] == mark)
      continue;
    stamp[x] = mark;
    if (x < i) {
      heap_push(heap, &heap_size, x);
    } else {
      if (out)
        out[count] = x;
      count++;
    }
  }
  while (heap_size > 0) {
    int32_t t = heap_pop(heap, &heap_size);
    if (out)
      out[count] = t;
    count++;
    int64_t depth = 0;
    stack[depth++] = t;
    while (depth > 0) {
      int32_t w = stack[--depth];
      for (int64_t k = ptr[w]; k < ptr[w + 1]; k++) {
        int32_t x = idx[k];
        if (stamp[x] == mark)
          continue;
        stamp[x] = mark;
        if (x < t) {
          stack[depth++] = x;
        } else if (x < i) {
          heap_push(heap, &heap_size, x);
        } else {
          if (out)
            out[count] = x;
          count++;
        }
      }
    }
  }
  return count;
}

/* One phase (count or write) over rows [begin, end) in chunks of `chunk`
 * rows, each row with its own slot of the workspace. Returns the chunks. */
static int64_t run_part(const fill_path_rows *s, int32_t *workspace, int64_t begin, int64_t end, int64_t chunk,
                        int64_t bound, int write, int threads) {
  int64_t words = slot_words(s->n, bound), chunks = 0;
  int parallel = threads > 1 && s->n >= TSI_LU_SYMBOLIC_PARALLEL_ORDER;
  /* Stamps left by other rows in this memory could equal a row's mark. */
  int64_t used = (chunk < end - begin ? chunk : end - begin) * words;
  memset(workspace, 0, (size_t)used * sizeof(int32_t));
  for (int64_t first = begin; first < end; first += chunk) {
    int64_t last = first + chunk < end ? first + chunk : end;
    chunks++;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (parallel)
    for (int64_t i = first; i < last; i++) {
      int32_t *stamp = workspace + (i - first) * words;
      int32_t *heap = stamp + s->n;
      int32_t *stack = heap + bound;
      if (write)
        row_pattern(s, (int32_t)i, stamp, heap, stack, s->row_idx + s->row_ptr[i]);
      else
        s->row_count[i] = row_pattern(s, (int32_t)i, stamp, heap, stack, NULL);
    }
  }
  return chunks;
}

ts_status tsi_lu_symbolic_fill_path_rows(ts_lu *lu, tsi_lu_rows *rows) {
  ts_status st = TS_SUCCESS;
  const int64_t n = rows->n;
  int32_t *workspace = NULL;
  int64_t *row_count = tsi_calloc_array(n + 1, sizeof(int64_t));
  if (!row_count)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the row counts of L + U");
  const int threads = tsi_lu_threads(lu);

  /* Two parts, as in the paper's Algorithm 4: a row's heap and stack hold
   * only vertices below it, so rows of the first half need half the
   * frontier room and their chunks are larger (slots of n + n words against
   * n + 2n words: 1.5 times the rows per chunk). */
  int64_t split = n / 2;
  int64_t words_first = slot_words(n, split), words_second = slot_words(n, n);
  int64_t budget = tsi_lu_symbolic_budget(lu, words_second, threads);
  int64_t chunk_first = tsi_lu_symbolic_chunk_rows(budget, words_first, split);
  int64_t chunk_second = tsi_lu_symbolic_chunk_rows(budget, words_second, n - split);
  int64_t first_words = 0, second_words = 0;
  if (tsi_mul_overflows(chunk_first, words_first, &first_words) ||
      tsi_mul_overflows(chunk_second, words_second, &second_words)) {
    st = tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: the symbolic workspace overflows");
    goto cleanup;
  }
  int64_t words_needed = first_words > second_words ? first_words : second_words;
  workspace = tsi_malloc_array(words_needed, sizeof(int32_t));
  if (!workspace) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                   "ts_lu_analyze: cannot allocate the symbolic workspace (%lld bytes; lower symbolic_memory_budget)",
                   (long long)(words_needed * (int64_t)sizeof(int32_t)));
    goto cleanup;
  }

  /* Phase one: count each row's entries. */
  fill_path_rows s = {n, rows->m_ptr, rows->m_idx, row_count + 1, NULL, NULL};
  int64_t chunks = 0;
  if (split > 0)
    chunks += run_part(&s, workspace, 0, split, chunk_first, split, 0, threads);
  if (n > split)
    chunks += run_part(&s, workspace, split, n, chunk_second, n, 0, threads);
  lu->stats.symbolic_chunks = chunks;

  /* Prefix sum sizes the rows of L + U. */
  for (int64_t i = 0; i < n; i++)
    row_count[i + 1] += row_count[i];
  rows->row_ptr = row_count;
  row_count = NULL;
  rows->row_idx = tsi_malloc_array(rows->row_ptr[n], sizeof(int32_t));
  if (!rows->row_idx) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the rows of L + U (%lld entries)",
                   (long long)rows->row_ptr[n]);
    goto cleanup;
  }

  /* Phase two: write the entries, in the same chunks. */
  s.row_count = NULL;
  s.row_ptr = rows->row_ptr;
  s.row_idx = rows->row_idx;
  if (split > 0)
    run_part(&s, workspace, 0, split, chunk_first, split, 1, threads);
  if (n > split)
    run_part(&s, workspace, split, n, chunk_second, n, 1, threads);
cleanup:
  free(row_count);
  free(workspace);
  return st;
}
