/* Symbolic LU factorization of M = P Dr A Dc Q without pivoting: the pattern
 * of L + U by columns, found row by row from the fill-path theorem (Rose and
 * Tarjan, SIAM J. Appl. Math. 34(1), 1978: (i, j) is in L + U iff G(M) has a
 * path from i to j whose intermediate vertices are all below min(i, j)),
 * each row by an independent traversal, in chunks of rows whose working
 * memory fits a budget (Xia, Jiang, Agrawal and Ramnath, PPoPP 2023, section
 * 3.2: count, prefix sum, then write; two chunk sizes). */
#include "lu_analysis.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Working memory of one row in flight: visit stamps for all n vertices, a
 * heap of the row's L entries still to expand and a stack of the vertices
 * below the current threshold, each at most `bound` long, where bound is the
 * largest row of the part: only vertices below the row go into them. */
static int64_t slot_words(int64_t n, int64_t bound) { return n + 2 * bound; }

/* Default budget: enough rows in flight per thread that a chunk's rows
 * balance across threads, capped so large orders stay modest. */
#define TSI_LU_SYMBOLIC_ROWS_PER_THREAD 16
#define TSI_LU_SYMBOLIC_DEFAULT_CAP ((int64_t)256 << 20)
/* Smallest order whose chunks run on several threads. */
#define TSI_LU_SYMBOLIC_PARALLEL_ORDER 2048

typedef struct symbolic_rows {
  int64_t n;
  const int64_t *m_ptr; /* M's pattern by rows */
  const int32_t *m_idx;
  int64_t *row_count;     /* phase one: entries of row i of L + U */
  const int64_t *row_ptr; /* phase two: where row i's entries go */
  int32_t *row_idx;
} symbolic_rows;

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
static int64_t row_pattern(const symbolic_rows *s, int32_t i, int32_t *stamp, int32_t *heap, int32_t *stack,
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
static int64_t run_part(const symbolic_rows *s, int32_t *workspace, int64_t begin, int64_t end, int64_t chunk,
                        int64_t bound, int write, int threads) {
  int64_t words = slot_words(s->n, bound), chunks = 0;
  /* Waking the threads for each chunk costs more than small orders' rows. */
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

/* M's pattern by rows: row i is row row_perm[i] of A with its columns
 * renumbered by the inverse of col_perm. */
static ts_status matched_pattern(ts_lu *lu, const ts_csr *a, int32_t *col_inverse, int32_t *row_inverse,
                                 int64_t **m_ptr, int32_t **m_idx) {
  int64_t n = a->rows;
  for (int64_t k = 0; k < n; k++) {
    col_inverse[lu->col_perm[k]] = (int32_t)k;
    row_inverse[lu->row_perm[k]] = (int32_t)k;
  }
  int64_t *ptr = tsi_malloc_array(n + 1, sizeof(int64_t));
  int32_t *idx = tsi_malloc_array(a->nnz, sizeof(int32_t));
  if (!ptr || !idx) {
    free(ptr);
    free(idx);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "ts_lu_analyze: cannot allocate the permuted pattern (%lld entries)", (long long)a->nnz);
  }
  ptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t r = lu->row_perm[i];
    ptr[i + 1] = ptr[i] + (a->row_ptr[r + 1] - a->row_ptr[r]);
  }
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = 0; i < n; i++) {
    int64_t r = lu->row_perm[i], at = ptr[i];
    for (int64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++)
      idx[at++] = col_inverse[a->col_idx[k]];
  }
  *m_ptr = ptr;
  *m_idx = idx;
  return TS_SUCCESS;
}

/* The rows of L + U (any order within a row) to columns with sorted rows:
 * a counting sort by column visits the rows in increasing order. */
static ts_status rows_to_columns(ts_lu *lu, const int64_t *row_ptr, const int32_t *row_idx) {
  int64_t n = lu->n, nnz = row_ptr[n];
  lu->lu_col_ptr = tsi_calloc_array(n + 1, sizeof(int64_t));
  lu->lu_row_idx = tsi_malloc_array(nnz, sizeof(int32_t));
  lu->diag_pos = tsi_malloc_array(n, sizeof(int64_t));
  int64_t *fill = tsi_malloc_array(n, sizeof(int64_t));
  if (!lu->lu_col_ptr || !lu->lu_row_idx || !lu->diag_pos || !fill) {
    free(fill);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "ts_lu_analyze: cannot allocate the pattern of L + U (%lld entries)", (long long)nnz);
  }
  for (int64_t k = 0; k < nnz; k++)
    lu->lu_col_ptr[row_idx[k] + 1]++;
  for (int64_t j = 0; j < n; j++)
    lu->lu_col_ptr[j + 1] += lu->lu_col_ptr[j];
  memcpy(fill, lu->lu_col_ptr, (size_t)n * sizeof(int64_t));
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
      int32_t j = row_idx[k];
      if (j == i)
        lu->diag_pos[j] = fill[j];
      lu->lu_row_idx[fill[j]++] = (int32_t)i;
    }
  free(fill);
  lu->lu_nnz = nnz;
  return TS_SUCCESS;
}

/* Position in lu_row_idx of each entry of A (in A's CSR order). */
static ts_status map_entries(ts_lu *lu, const ts_csr *a, const int32_t *col_inverse, const int32_t *row_inverse) {
  lu->a_to_lu = tsi_malloc_array(a->nnz, sizeof(int64_t));
  if (!lu->a_to_lu)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the entry map (%lld entries)",
                     (long long)a->nnz);
  int64_t missing = -1;
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t r = 0; r < a->rows; r++) {
    int32_t i = row_inverse[r];
    for (int64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++) {
      int32_t j = col_inverse[a->col_idx[k]];
      int64_t low = lu->lu_col_ptr[j], high = lu->lu_col_ptr[j + 1];
      while (low < high) {
        int64_t mid = low + (high - low) / 2;
        if (lu->lu_row_idx[mid] < i)
          low = mid + 1;
        else
          high = mid;
      }
      if (low < lu->lu_col_ptr[j + 1] && lu->lu_row_idx[low] == i) {
        lu->a_to_lu[k] = low;
      } else {
        lu->a_to_lu[k] = -1;
#pragma omp atomic write
        missing = k;
      }
    }
  }
  if (missing >= 0)
    return tsi_error(lu->ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: entry %lld of A is missing from the pattern of L + U",
                     (long long)missing);
  return TS_SUCCESS;
}

/* nnz(L) (unit diagonal counted), nnz(U) (diagonal included) and the flops
 * of a right-looking numeric factorization in this pattern: column j does
 * |L(:, j)| divisions and 2 |L(:, j)| |U(j, :)| multiply-adds (strict parts). */
static ts_status count_factors(ts_lu *lu) {
  int64_t n = lu->n, strict_lower = 0;
  int64_t *u_row = tsi_calloc_array(n, sizeof(int64_t));
  if (!u_row)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the row counts of U");
  for (int64_t j = 0; j < n; j++)
    for (int64_t k = lu->lu_col_ptr[j]; k < lu->diag_pos[j]; k++)
      u_row[lu->lu_row_idx[k]]++;
  double flops = 0.0;
  for (int64_t j = 0; j < n; j++) {
    int64_t below = lu->lu_col_ptr[j + 1] - lu->diag_pos[j] - 1;
    strict_lower += below;
    flops += (double)below + 2.0 * (double)below * (double)u_row[j];
  }
  free(u_row);
  lu->stats.nnz_l = strict_lower + n;
  lu->stats.nnz_u = lu->lu_nnz - strict_lower;
  lu->stats.flops = flops;
  return TS_SUCCESS;
}

/* Rows per chunk for slots of `words` 32-bit words under `budget` bytes:
 * at least one row, so a tiny budget still makes progress (one row at a
 * time). */
static int64_t chunk_rows(int64_t budget, int64_t words, int64_t rows) {
  int64_t bytes_per_row = words * (int64_t)sizeof(int32_t);
  int64_t chunk = bytes_per_row > 0 ? budget / bytes_per_row : 1;
  if (chunk < 1)
    chunk = 1;
  if (chunk > rows)
    chunk = rows > 0 ? rows : 1;
  return chunk;
}

ts_status tsi_lu_symbolic_cpu(ts_lu *lu, const ts_csr *a) {
  ts_status st = TS_SUCCESS;
  int64_t n = a->rows;
  int64_t *m_ptr = NULL, *row_ptr = NULL;
  int32_t *m_idx = NULL, *row_idx = NULL, *workspace = NULL;
  int32_t *col_inverse = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *row_inverse = tsi_malloc_array(n, sizeof(int32_t));
  int64_t *row_count = tsi_calloc_array(n + 1, sizeof(int64_t));
  if (!col_inverse || !row_inverse || !row_count) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the symbolic phase's arrays");
    goto cleanup;
  }
  st = matched_pattern(lu, a, col_inverse, row_inverse, &m_ptr, &m_idx);
  if (st != TS_SUCCESS)
    goto cleanup;

  int threads = lu->ctx ? lu->ctx->num_threads : 0;
#ifdef _OPENMP
  if (threads <= 0)
    threads = omp_get_max_threads();
#else
  threads = 1;
#endif

  /* Two parts, as in the paper's Algorithm 4: a row's heap and stack hold
   * only vertices below it, so rows of the first half need half the
   * frontier room and their chunks are larger (slots of n + n words against
   * n + 2n words: 1.5 times the rows per chunk). */
  int64_t split = n / 2;
  int64_t words_first = slot_words(n, split), words_second = slot_words(n, n);
  int64_t budget = lu->options.symbolic_memory_budget;
  if (budget <= 0) {
    int64_t want = 0;
    if (tsi_mul_overflows((int64_t)TSI_LU_SYMBOLIC_ROWS_PER_THREAD * threads, words_second * (int64_t)sizeof(int32_t),
                          &want) ||
        want > TSI_LU_SYMBOLIC_DEFAULT_CAP)
      want = TSI_LU_SYMBOLIC_DEFAULT_CAP;
    budget = want;
  }
  int64_t chunk_first = chunk_rows(budget, words_first, split);
  int64_t chunk_second = chunk_rows(budget, words_second, n - split);
  int64_t words_needed = 0, first_words = 0, second_words = 0;
  if (tsi_mul_overflows(chunk_first, words_first, &first_words) ||
      tsi_mul_overflows(chunk_second, words_second, &second_words)) {
    st = tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: the symbolic workspace overflows");
    goto cleanup;
  }
  words_needed = first_words > second_words ? first_words : second_words;
  workspace = tsi_malloc_array(words_needed, sizeof(int32_t));
  if (!workspace) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                   "ts_lu_analyze: cannot allocate the symbolic workspace (%lld bytes; lower symbolic_memory_budget)",
                   (long long)(words_needed * (int64_t)sizeof(int32_t)));
    goto cleanup;
  }

  /* Phase one: count each row's entries. */
  symbolic_rows rows = {n, m_ptr, m_idx, row_count + 1, NULL, NULL};
  int64_t chunks = 0;
  if (split > 0)
    chunks += run_part(&rows, workspace, 0, split, chunk_first, split, 0, threads);
  if (n > split)
    chunks += run_part(&rows, workspace, split, n, chunk_second, n, 0, threads);
  lu->stats.symbolic_chunks = chunks;

  /* Prefix sum sizes the rows of L + U. */
  for (int64_t i = 0; i < n; i++)
    row_count[i + 1] += row_count[i];
  row_ptr = row_count;
  row_count = NULL;
  row_idx = tsi_malloc_array(row_ptr[n], sizeof(int32_t));
  if (!row_idx) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the rows of L + U (%lld entries)",
                   (long long)row_ptr[n]);
    goto cleanup;
  }

  /* Phase two: write the entries, in the same chunks. */
  rows.row_count = NULL;
  rows.row_ptr = row_ptr;
  rows.row_idx = row_idx;
  if (split > 0)
    run_part(&rows, workspace, 0, split, chunk_first, split, 1, threads);
  if (n > split)
    run_part(&rows, workspace, split, n, chunk_second, n, 1, threads);
  free(workspace);
  workspace = NULL;

  st = rows_to_columns(lu, row_ptr, row_idx);
  if (st == TS_SUCCESS)
    st = map_entries(lu, a, col_inverse, row_inverse);
  if (st == TS_SUCCESS)
    st = count_factors(lu);
cleanup:
  free(col_inverse);
  free(row_inverse);
  free(row_count);
  free(m_ptr);
  free(m_idx);
  free(row_ptr);
  free(row_idx);
  free(workspace);
  return st;
}
