/* Rows of L + U of M = P Dr A Dc Q by the row merge: row i of L + U is
 * what row i of M reaches in the graph of the finished rows of U, through
 * vertices below i,
 *   struct(L(i, :)) = the vertices k < i reached,
 *   struct(U(i, :)) = struct(M(i, >= i)) + the union over k in struct(L(i, :))
 *                     of struct(U(k, > i))
 * (the row form of Gilbert and Peierls's column reach, SIAM J. Sci. Stat.
 * Comput. 9(5), 1988; the same sets as the fill-path theorem of Rose and
 * Tarjan, so the same pattern as lu_symbolic_fill_path_cpu.c), with the
 * symmetric pruning of Eisenstat and Liu (SIAM J. Matrix Anal. Appl. 13(1),
 * 1992): once L(j, k) and U(k, j) are both found, U(k, m) for m > j is also
 * U(j, m), so rows after j need scan only the entries of U(k, :) up to j.
 * Each row reads finished rows instead of re-exploring M below it.
 *
 * The structure of Xia, Jiang, Agrawal and Ramnath (PPoPP 2023, section
 * 3.2) is kept: rows in chunks whose working memory fits the budget, two
 * chunk sizes, and per chunk a count phase (each row in its own slot), a
 * prefix sum, and a write phase. But a row depends on the rows below it:
 * those of earlier chunks are written, those of its own chunk are read from
 * their slots, so a chunk's rows are merged in increasing order, on one
 * thread. Running them on two threads, a row waiting for the rows it
 * reaches, gained at most 1.4x on the 2-core development machine (nothing
 * on a 2-D grid, where each row needs the one before) and lost far more
 * when the machine was shared (threads spinning at every chunk's
 * barriers); each row costs little here, unlike the fill-path traversal.
 * Each row's pruning is applied at once. The pattern does not depend on
 * the chunks. */
#include "lu_symbolic.h"

#include <stdlib.h>
#include <string.h>

/* Slot of one row in flight: visit stamps for all n vertices; a frontier of
 * `bound` words (the vertices below the row still to expand, from the
 * front, and the rows to prune, from the back: both are L entries of the
 * row, at most bound = the largest row of the part); and the row's entries
 * (n words: U from the front, L from the back). */
static int64_t slot_words(int64_t n, int64_t bound) { return 2 * n + bound; }

typedef struct row_merge {
  int64_t n;
  const int64_t *m_ptr; /* M by rows */
  const int32_t *m_idx;
  /* Finished rows: row k's strict U entries are u_len[k] words at
   * row_idx + row_ptr[k] (earlier chunks) or at the start of its slot's
   * entries (this chunk), the first scan_len[k] of them all a later row
   * needs (all of them until row k is pruned). */
  const int64_t *row_ptr;
  int32_t *row_idx;
  int32_t *u_len, *l_len, *scan_len;
  unsigned char *pruned;
  int32_t *workspace;
  int64_t words, bound; /* of a slot */
  int64_t first;        /* first row of the chunk */
} row_merge;

/* The strict U entries of a finished row k. */
static int32_t *upper_entries(const row_merge *s, int32_t k) {
  if (k < s->first)
    return s->row_idx + s->row_ptr[k];
  return s->workspace + (k - s->first) * s->words + s->n + s->bound;
}

/* Prune row k at row j: the entries of U(k, :) up to j first. */
static void prune_row(row_merge *s, int32_t k, int32_t j) {
  int32_t *list = upper_entries(s, k);
  int64_t kept = 0;
  for (int64_t p = 0; p < s->u_len[k]; p++)
    if (list[p] <= j) {
      int32_t keep = list[p];
      list[p] = list[kept];
      list[kept++] = keep;
    }
  s->scan_len[k] = (int32_t)kept;
  s->pruned[k] = 1;
}

/* Row i into its slot (entries and counts), then the rows it prunes. */
static void merge_row(row_merge *s, int32_t i) {
  const int64_t n = s->n;
  int32_t *stamp = s->workspace + (i - s->first) * s->words;
  int32_t *frontier = stamp + n, *entries = frontier + s->bound;
  const int32_t mark = i + 1;
  int64_t upper = 0, lower = 0, depth = 0, prune = 0;
  stamp[i] = mark;
  for (int64_t p = s->m_ptr[i]; p < s->m_ptr[i + 1]; p++) {
    int32_t x = s->m_idx[p];
    if (stamp[x] == mark)
      continue;
    stamp[x] = mark;
    if (x < i) {
      frontier[depth++] = x;
      entries[n - 1 - lower++] = x;
    } else {
      entries[upper++] = x;
    }
  }
  while (depth > 0) {
    const int32_t k = frontier[--depth];
    const int32_t *list = upper_entries(s, k);
    const int64_t length = s->scan_len[k];
    const int unpruned = !s->pruned[k];
    for (int64_t p = 0; p < length; p++) {
      int32_t x = list[p];
      if (stamp[x] == mark) {
        /* U(k, i) with L(i, k): row k can be pruned at i. */
        if (x == i && unpruned)
          frontier[s->bound - 1 - prune++] = k;
        continue;
      }
      stamp[x] = mark;
      if (x < i) {
        frontier[depth++] = x;
        entries[n - 1 - lower++] = x;
      } else {
        entries[upper++] = x;
      }
    }
  }
  s->u_len[i] = (int32_t)upper;
  s->l_len[i] = (int32_t)lower;
  s->scan_len[i] = (int32_t)upper;
  /* Rows still unpruned, at the first row that can prune them. */
  for (int64_t c = 0; c < prune; c++)
    prune_row(s, frontier[s->bound - 1 - c], i);
}

/* Row i from its slot to its place: strict U, the diagonal, then L. */
static void write_row(const row_merge *s, int32_t i, int32_t *out) {
  const int32_t *entries = s->workspace + (i - s->first) * s->words + s->n + s->bound;
  int64_t upper = s->u_len[i], lower = s->l_len[i];
  memcpy(out, entries, (size_t)upper * sizeof(int32_t));
  out[upper] = i;
  memcpy(out + upper + 1, entries + s->n - lower, (size_t)lower * sizeof(int32_t));
}

/* Room for `needed` entries in *row_idx, growing it by doubling. */
static ts_status reserve_entries(ts_lu *lu, int32_t **row_idx, int64_t *capacity, int64_t needed) {
  if (needed <= *capacity)
    return TS_SUCCESS;
  int64_t grown = *capacity > 0 ? *capacity : 1024;
  while (grown < needed)
    grown = grown > INT64_MAX / 2 ? needed : 2 * grown;
  int32_t *bigger = NULL;
  if ((uint64_t)grown <= SIZE_MAX / sizeof(int32_t))
    bigger = realloc(*row_idx, (size_t)grown * sizeof(int32_t));
  if (!bigger)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the rows of L + U (%lld entries)",
                     (long long)needed);
  *row_idx = bigger;
  *capacity = grown;
  return TS_SUCCESS;
}

/* Rows [begin, end) in chunks of `chunk`: count, prefix sum, write. */
static ts_status run_part(ts_lu *lu, row_merge *s, int64_t *row_ptr, int32_t **row_idx, int64_t *capacity,
                          int64_t begin, int64_t end, int64_t chunk, int64_t bound, int64_t *chunks) {
  s->bound = bound;
  s->words = slot_words(s->n, bound);
  /* Stamps left by other rows in this memory could equal a row's mark. */
  int64_t used = (chunk < end - begin ? chunk : end - begin) * s->words;
  memset(s->workspace, 0, (size_t)used * sizeof(int32_t));
  for (int64_t first = begin; first < end; first += chunk) {
    const int64_t last = first + chunk < end ? first + chunk : end;
    (*chunks)++;
    s->first = first;
    s->row_ptr = row_ptr;
    s->row_idx = *row_idx;

    /* Phase one: each row's entries into its slot, counted. */
    for (int64_t i = first; i < last; i++)
      merge_row(s, (int32_t)i);

    /* Prefix sum: where the chunk's rows go. */
    for (int64_t i = first; i < last; i++)
      row_ptr[i + 1] = row_ptr[i] + s->u_len[i] + 1 + s->l_len[i];
    ts_status st = reserve_entries(lu, row_idx, capacity, row_ptr[last]);
    if (st != TS_SUCCESS)
      return st;

    /* Phase two: write them (pruned rows keep their reordered lists). */
    for (int64_t i = first; i < last; i++)
      write_row(s, (int32_t)i, *row_idx + row_ptr[i]);
  }
  return TS_SUCCESS;
}

ts_status tsi_lu_symbolic_row_merge_rows(ts_lu *lu, tsi_lu_rows *rows) {
  ts_status st = TS_SUCCESS;
  const int64_t n = rows->n;
  row_merge s = {.n = n, .m_ptr = rows->m_ptr, .m_idx = rows->m_idx};
  int64_t *row_ptr = tsi_calloc_array(n + 1, sizeof(int64_t));
  int32_t *row_idx = NULL;
  int64_t capacity = 0;
  s.u_len = tsi_malloc_array(n, sizeof(int32_t));
  s.l_len = tsi_malloc_array(n, sizeof(int32_t));
  s.scan_len = tsi_malloc_array(n, sizeof(int32_t));
  s.pruned = tsi_calloc_array(n, 1);

  /* Two parts, as in the paper's Algorithm 4: a row's frontier holds only
   * vertices below it, so rows of the first half need half the frontier
   * room (slots of 2n + n/2 words against 3n: 1.2 times the rows). */
  const int64_t split = n / 2;
  const int64_t words_first = slot_words(n, split), words_second = slot_words(n, n);
  const int64_t budget = tsi_lu_symbolic_budget(lu, words_second, tsi_lu_symbolic_threads(lu));
  const int64_t chunk_first = tsi_lu_symbolic_chunk_rows(budget, words_first, split);
  const int64_t chunk_second = tsi_lu_symbolic_chunk_rows(budget, words_second, n - split);
  int64_t first_words = 0, second_words = 0;
  if (tsi_mul_overflows(chunk_first, words_first, &first_words) ||
      tsi_mul_overflows(chunk_second, words_second, &second_words)) {
    st = tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: the symbolic workspace overflows");
    goto cleanup;
  }
  const int64_t words_needed = first_words > second_words ? first_words : second_words;
  s.workspace = tsi_malloc_array(words_needed, sizeof(int32_t));
  if (!row_ptr || !s.u_len || !s.l_len || !s.scan_len || !s.pruned) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the symbolic phase's arrays");
    goto cleanup;
  }
  if (!s.workspace) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                   "ts_lu_analyze: cannot allocate the symbolic workspace (%lld bytes; lower symbolic_memory_budget)",
                   (long long)(words_needed * (int64_t)sizeof(int32_t)));
    goto cleanup;
  }
  /* A first guess at the size of L + U: grown by doubling as rows come. */
  st = reserve_entries(lu, &row_idx, &capacity, 4 * (rows->m_ptr[n] + n));
  if (st != TS_SUCCESS)
    goto cleanup;

  int64_t chunks = 0;
  if (split > 0)
    st = run_part(lu, &s, row_ptr, &row_idx, &capacity, 0, split, chunk_first, split, &chunks);
  if (st == TS_SUCCESS && n > split)
    st = run_part(lu, &s, row_ptr, &row_idx, &capacity, split, n, chunk_second, n, &chunks);
  if (st != TS_SUCCESS)
    goto cleanup;
  lu->stats.symbolic_chunks = chunks;
  rows->row_ptr = row_ptr;
  rows->row_idx = row_idx;
  row_ptr = NULL;
  row_idx = NULL;
cleanup:
  free(row_ptr);
  free(row_idx);
  free(s.u_len);
  free(s.l_len);
  free(s.scan_len);
  free(s.pruned);
  free(s.workspace);
  return st;
}
