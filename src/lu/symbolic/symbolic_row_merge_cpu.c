/* Rows of L + U of M = P Dr A Dc Q by the row merge: row i of L + U is
 * what row i of M reaches in the graph of the finished rows of U, through
 * vertices below i,
 *   struct(L(i, :)) = the vertices k < i reached,
 *   struct(U(i, :)) = struct(M(i, >= i)) + the union over k in struct(L(i, :))
 *                     of struct(U(k, > i))
 * (the row form of Gilbert and Peierls's column reach, SIAM J. Sci. Stat.
 * Comput. 9(5), 1988; the same sets as the fill-path theorem of Rose and
 * Tarjan, so the same pattern as symbolic_fill_path_cpu.c), with the
 * symmetric pruning of Eisenstat and Liu (SIAM J. Matrix Anal. Appl. 13(1),
 * 1992): once L(j, k) and U(k, j) are both found, U(k, m) for m > j is also
 * U(j, m), so rows after j need scan only the entries of U(k, :) up to j.
 * Each row reads finished rows instead of re-exploring M below it.
 *
 * The structure of Xia, Jiang, Agrawal and Ramnath (PPoPP 2023, section
 * 3.2) is kept in the chunks' count (the budget sizes them as for the
 * fill-path traversal's slots, two chunk sizes), but a row depends on the
 * rows below it, so the rows are merged in increasing order on one thread.
 * Running them on two threads, a row waiting for the rows it reaches,
 * gained little (nothing on a 2-D grid, where each row needs the one
 * before) and lost far more when the machine was shared (threads spinning
 * at every chunk's barriers); each row costs little here, unlike the
 * fill-path traversal (bench/notes/lu-analysis.md). Being sequential, the
 * merge needs one set of visit stamps, not one per row in flight, and
 * writes each row straight to its place: the stamps stay in cache, and the
 * working memory is some ten words per row whatever the budget (per-row
 * slots of 2n + n words made it chunk x 12n bytes, memset and cycled
 * through, several times slower). Each row's pruning is applied at once.
 * The pattern does not depend on the chunks.
 *
 * With the diagonal blocks factored alone (lu->block_ptr), a row takes into
 * its merge only the U entries of its own block: its entries of M in later
 * blocks are kept as they are but listed after the scanned part, so that no
 * later row reaches them (no fill above the blocks). */
#include "lu/symbolic/symbolic_internal.h"

#include <stdlib.h>
#include <string.h>

/* Words of one row in flight in the paper's layout (visit stamps and
 * entries for all n vertices, a frontier of the part's largest row): the
 * budget's unit when counting the chunks. */
static int64_t slot_words(int64_t n, int64_t bound) { return 2 * n + bound; }

/* Room of a finished row's record for a pruned list: after pruning nearly
 * every row keeps one entry (the pruning row itself; almost all of them on
 * grid-like circuits, all on a 2-D Laplacian), read where the record already is instead of a
 * second miss far away in the rows. */
#define SHORT_LIST 2

/* What a later row reads of a finished row k, in one place (the row is
 * reached in no useful order: one 16-byte record instead of three arrays
 * and the list, small enough to stay mostly in the second-level cache):
 * its first scan_len strict U entries are all a later row needs (all of
 * them until row k is pruned), at row_idx + where.start, or, once pruned
 * to at most SHORT_LIST, in where.short_list (the start is then no longer
 * needed). */
typedef struct finished_row {
  union {
    int64_t start;
    int32_t short_list[SHORT_LIST];
  } where;
  int32_t scan_len;
  int32_t state; /* enum list_state */
} finished_row;

enum list_state { UNPRUNED = 0, PRUNED = 1, PRUNED_SHORT = 2 };

typedef struct vertex_state {
  int32_t stamp;
  int32_t column_count;
} vertex_state;

typedef struct row_merge {
  int64_t n;
  const int64_t *m_ptr; /* M by rows */
  const int32_t *m_idx;
  /* Rows written so far: row k at row_idx + row_ptr[k], strict U (u_len[k]
   * entries) first. */
  int64_t *row_ptr;
  int32_t *row_idx;
  int64_t capacity; /* words of row_idx */
  int32_t *u_len;
  finished_row *finished;
  /* Per vertex: i + 1 once row i has reached it, and the entries of L + U
   * found so far in its column (side by side: the count costs no access
   * of its own, and the transpose to columns needs no counting pass). */
  vertex_state *vertex;
  int32_t *frontier; /* n: vertices below the row to expand, from the front;
                        rows to prune, from the back (both L entries) */
  int32_t *lower;    /* n: the row's L entries */
  int32_t *far;      /* n: the row's entries of M beyond its block (block form) */
  int64_t block_end; /* the end of the current row's block: n for the whole matrix */
} row_merge;

/* Room for `needed` entries in s->row_idx, growing it by doubling. */
static ts_status reserve_entries(ts_lu *lu, row_merge *s, int64_t needed) {
  if (needed <= s->capacity && s->row_idx)
    return TS_SUCCESS;
  int64_t grown = s->capacity > 0 ? s->capacity : 1024;
  while (grown < needed)
    grown = grown > INT64_MAX / 2 ? needed : 2 * grown;
  int32_t *bigger = NULL;
  if ((uint64_t)grown <= SIZE_MAX / sizeof(int32_t))
    bigger = realloc(s->row_idx, (size_t)grown * sizeof(int32_t));
  if (!bigger)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the rows of L + U (%lld entries)",
                     (long long)needed);
  s->row_idx = bigger;
  s->capacity = grown;
  /* Later rows read finished rows anywhere in it. */
  tsi_lu_advise_huge_pages(bigger, (size_t)grown * sizeof(int32_t));
  return TS_SUCCESS;
}

/* Prune row k at row j: the entries of U(k, :) up to j first, or in the
 * record when they are few. */
static void prune_row(row_merge *s, int32_t k, int32_t j) {
  finished_row *f = &s->finished[k];
  int32_t *list = s->row_idx + f->where.start;
  int64_t kept = 0;
  for (int64_t p = 0; p < f->scan_len; p++) /* unpruned: the row's entries within its block */
    if (list[p] <= j) {
      int32_t keep = list[p];
      list[p] = list[kept];
      list[kept++] = keep;
    }
  f->scan_len = (int32_t)kept;
  f->state = PRUNED;
  if (kept <= SHORT_LIST) {
    memcpy(f->where.short_list, list, (size_t)kept * sizeof(int32_t));
    f->state = PRUNED_SHORT;
  }
}

/* Row i to its place (strict U, the diagonal, then L; room for its U and
 * diagonal reserved by the caller), then the rows it prunes. Returns the
 * number of L entries, left in s->lower for the caller to append. */
static int64_t merge_row(row_merge *s, int32_t i) {
  const int64_t n = s->n;
  vertex_state *vertex = s->vertex;
  int32_t *frontier = s->frontier, *lower_entries = s->lower;
  int32_t *upper_entries = s->row_idx + s->row_ptr[i];
  const int32_t mark = i + 1;
  const int64_t block_end = s->block_end;
  int64_t upper = 0, lower = 0, depth = 0, prune = 0, far = 0;
  vertex[i].stamp = mark;
  vertex[i].column_count++;
  for (int64_t p = s->m_ptr[i]; p < s->m_ptr[i + 1]; p++) {
    int32_t x = s->m_idx[p];
    if (vertex[x].stamp == mark)
      continue;
    vertex[x].stamp = mark;
    vertex[x].column_count++;
    if (x < i) {
      frontier[depth++] = x;
      lower_entries[lower++] = x;
    } else if (x < block_end) {
      upper_entries[upper++] = x;
    } else {
      s->far[far++] = x;
    }
  }
  while (depth > 0) {
    const int32_t k = frontier[--depth];
    const finished_row *f = &s->finished[k];
    const int32_t *list = f->state == PRUNED_SHORT ? f->where.short_list : s->row_idx + f->where.start;
    const int64_t length = f->scan_len;
    const int unpruned = f->state == UNPRUNED;
    for (int64_t p = 0; p < length; p++) {
      int32_t x = list[p];
      if (vertex[x].stamp == mark) {
        /* U(k, i) with L(i, k): row k can be pruned at i. */
        if (x == i && unpruned)
          frontier[n - 1 - prune++] = k;
        continue;
      }
      vertex[x].stamp = mark;
      vertex[x].column_count++;
      if (x < i) {
        frontier[depth++] = x;
        lower_entries[lower++] = x;
      } else {
        upper_entries[upper++] = x;
      }
    }
  }
  /* The entries beyond the block after the scanned ones: later rows (all
   * of this block, or later blocks) never read them. */
  for (int64_t f = 0; f < far; f++)
    upper_entries[upper + f] = s->far[f];
  upper_entries[upper + far] = i;
  s->u_len[i] = (int32_t)(upper + far);
  s->finished[i] = (finished_row){.where.start = s->row_ptr[i], .scan_len = (int32_t)upper, .state = UNPRUNED};
  /* Rows still unpruned, at the first row that can prune them. */
  for (int64_t c = 0; c < prune; c++)
    prune_row(s, frontier[n - 1 - c], i);
  return lower;
}

/* Rows [begin, end) in chunks of `chunk`, counted. */
static ts_status run_part(ts_lu *lu, row_merge *s, int64_t begin, int64_t end, int64_t chunk, int64_t *chunks) {
  *chunks += (end - begin + chunk - 1) / chunk;
  const int64_t *block_ptr = lu->block_ptr;
  int64_t block = 0;
  for (int64_t i = begin; i < end; i++) {
    if (block_ptr) {
      while (block_ptr[block + 1] <= i)
        block++;
      s->block_end = block_ptr[block + 1];
    }
    /* Strict U and the diagonal: at most n - i words. */
    ts_status st = reserve_entries(lu, s, s->row_ptr[i] + (s->n - i));
    if (st != TS_SUCCESS)
      return st;
    int64_t lower = merge_row(s, (int32_t)i);
    int64_t at = s->row_ptr[i] + s->u_len[i] + 1;
    st = reserve_entries(lu, s, at + lower);
    if (st != TS_SUCCESS)
      return st;
    memcpy(s->row_idx + at, s->lower, (size_t)lower * sizeof(int32_t));
    s->row_ptr[i + 1] = at + lower;
  }
  return TS_SUCCESS;
}

ts_status tsi_lu_symbolic_row_merge_rows(ts_lu *lu, tsi_lu_rows *rows) {
  ts_status st = TS_SUCCESS;
  const int64_t n = rows->n;
  row_merge s = {.n = n, .m_ptr = rows->m_ptr, .m_idx = rows->m_idx, .block_end = n};
  s.row_ptr = tsi_calloc_array(n + 1, sizeof(int64_t));
  s.u_len = tsi_malloc_array(n, sizeof(int32_t));
  s.finished = tsi_malloc_array(n, sizeof(finished_row));
  s.vertex = tsi_calloc_array(n, sizeof(vertex_state));
  s.frontier = tsi_malloc_array(n, sizeof(int32_t));
  s.lower = tsi_malloc_array(n, sizeof(int32_t));
  s.far = tsi_malloc_array(n, sizeof(int32_t));
  if (!s.row_ptr || !s.u_len || !s.finished || !s.vertex || !s.frontier || !s.lower || !s.far) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the symbolic phase's arrays");
    goto cleanup;
  }

  /* Chunks as in the paper's Algorithm 4, two parts: a row's frontier holds
   * only vertices below it, so rows of the first half need half the
   * frontier room (slots of 2n + n/2 words against 3n: 1.2 times the rows). */
  const int64_t split = n / 2;
  const int64_t words_first = slot_words(n, split), words_second = slot_words(n, n);
  const int64_t budget = tsi_lu_symbolic_budget(lu, words_second, tsi_lu_threads(lu));
  const int64_t chunk_first = tsi_lu_symbolic_chunk_rows(budget, words_first, split);
  const int64_t chunk_second = tsi_lu_symbolic_chunk_rows(budget, words_second, n - split);

  /* A first guess at the size of L + U: grown by doubling as rows come. */
  st = reserve_entries(lu, &s, 4 * (rows->m_ptr[n] + n));
  if (st != TS_SUCCESS)
    goto cleanup;

  int64_t chunks = 0;
  if (split > 0)
    st = run_part(lu, &s, 0, split, chunk_first, &chunks);
  if (st == TS_SUCCESS && n > split)
    st = run_part(lu, &s, split, n, chunk_second, &chunks);
  if (st != TS_SUCCESS)
    goto cleanup;
  lu->stats.symbolic_chunks = chunks;
  rows->col_count = tsi_malloc_array(n, sizeof(int64_t));
  if (!rows->col_count) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the column counts");
    goto cleanup;
  }
  for (int64_t j = 0; j < n; j++)
    rows->col_count[j] = s.vertex[j].column_count;
  rows->row_ptr = s.row_ptr;
  rows->row_idx = s.row_idx;
  s.row_ptr = NULL;
  s.row_idx = NULL;
cleanup:
  free(s.row_ptr);
  free(s.row_idx);
  free(s.u_len);
  free(s.finished);
  free(s.vertex);
  free(s.frontier);
  free(s.lower);
  free(s.far);
  return st;
}
