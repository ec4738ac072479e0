/* The fronts of the multifrontal numeric phase, from the pattern of L + U
 * (symbolic_internal.h describes struct tsi_lu_fronts):
 *   1. the elimination tree of B = L + U + (L + U)^T (Liu, "A compact row
 *      storage scheme for Cholesky factors using elimination trees", ACM
 *      TOMS 12(2), 1986: the ancestor walk with path compression);
 *   2. the column counts of B's Cholesky factor C, row by row through the
 *      row subtrees (each row's walk from its entries up to the diagonal
 *      visits exactly the columns of its row of C: Liu, "The role of
 *      elimination trees in sparse factorization", SIMAX 11(1), 1990);
 *   3. the fundamental supernodes (a column joins its only child when their
 *      counts differ by one), then relaxed amalgamation (Ashcraft and
 *      Grimes, ACM TOMS 15(4), 1989) under a tsi_lu_front_rule;
 *   4. the fronts numbered level by level (height in the front tree), their
 *      index lists (a second pass of the row walks collects each front's
 *      update rows: the rows of C in its last pivot's column), the
 *      extend-add maps and the place of every entry of L + U.
 * L + U's pattern lies within C's (George and Ng, "Symbolic factorization
 * for sparse Gaussian elimination with partial pivoting", SISSC 8(6),
 * 1987, for the pattern without pivoting), so every factor entry has a place
 * in a front; C's other entries stay exact zeros in the fronts. */
#include "lu/symbolic/symbolic_internal.h"

#include <stdlib.h>
#include <string.h>

tsi_lu_front_rule tsi_lu_front_rule_default(void) {
  tsi_lu_front_rule rule = {{TSI_LU_FRONT_RELAX_PIVOTS_0, TSI_LU_FRONT_RELAX_PIVOTS_1, TSI_LU_FRONT_RELAX_PIVOTS_2},
                            {TSI_LU_FRONT_RELAX_ZEROS_0, TSI_LU_FRONT_RELAX_ZEROS_1, TSI_LU_FRONT_RELAX_ZEROS_2}};
  return rule;
}

void tsi_lu_fronts_free(tsi_lu_fronts *fronts) {
  if (!fronts)
    return;
  free(fronts->level_ptr);
  free(fronts->parent);
  free(fronts->child_ptr);
  free(fronts->children);
  free(fronts->pivots);
  free(fronts->size);
  free(fronts->index_ptr);
  free(fronts->index);
  free(fronts->relative);
  free(fronts->offset);
  free(fronts->front_of);
  free(fronts->lu_to_front);
  free(fronts);
}

/* The columns j < k of row k of B: U(:, k)'s rows above the diagonal, then
 * row k of the strict L (lrow). */
typedef struct upper_rows {
  const int64_t *col_ptr, *diag_pos, *lrow_ptr;
  const int32_t *row_idx, *lrow_col;
} upper_rows;

/* The transpose of the strict L: for each row, its columns ascending. */
static bool lower_rows(const ts_lu *lu, int64_t **ptr_out, int32_t **col_out) {
  const int64_t n = lu->n;
  int64_t *ptr = tsi_calloc_array(n + 1, sizeof(int64_t));
  int64_t count = 0; /* strict L */
  for (int64_t j = 0; j < n; j++)
    count += lu->lu_col_ptr[j + 1] - lu->diag_pos[j] - 1;
  int32_t *col = tsi_malloc_array(count > 0 ? count : 1, sizeof(int32_t));
  int64_t *fill = tsi_malloc_array(n > 0 ? n : 1, sizeof(int64_t));
  if (!ptr || !col || !fill) {
    free(ptr);
    free(col);
    free(fill);
    return false;
  }
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = lu->diag_pos[j] + 1; p < lu->lu_col_ptr[j + 1]; p++)
      ptr[lu->lu_row_idx[p] + 1]++;
  for (int64_t i = 0; i < n; i++)
    ptr[i + 1] += ptr[i];
  memcpy(fill, ptr, (size_t)n * sizeof(int64_t));
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = lu->diag_pos[j] + 1; p < lu->lu_col_ptr[j + 1]; p++)
      col[fill[lu->lu_row_idx[p]]++] = (int32_t)j;
  free(fill);
  *ptr_out = ptr;
  *col_out = col;
  return true;
}

/* The elimination tree of B (parent[k] = -1 at a root). */
static void elimination_tree(int64_t n, const upper_rows *b, int32_t *parent, int32_t *ancestor) {
  for (int64_t k = 0; k < n; k++) {
    parent[k] = ancestor[k] = -1;
    for (int part = 0; part < 2; part++) {
      const int64_t begin = part ? b->lrow_ptr[k] : b->col_ptr[k];
      const int64_t end = part ? b->lrow_ptr[k + 1] : b->diag_pos[k];
      const int32_t *rows = part ? b->lrow_col : b->row_idx;
      for (int64_t p = begin; p < end; p++) {
        /* Up from the entry's column to the root of its current subtree,
         * pointing every node passed at k. */
        for (int32_t i = rows[p]; i != -1 && i < k;) {
          const int32_t next = ancestor[i];
          ancestor[i] = (int32_t)k;
          if (next == -1)
            parent[i] = (int32_t)k;
          i = next;
        }
      }
    }
  }
}

/* The row walks of C: for each row k, the columns of C's row k (the nodes
 * on the tree paths from B's entries up to k), each visited once; visit is
 * called with (column, row). False when a path leaves the tree before k
 * (the analysis's pattern is inconsistent). */
typedef void (*visit_fn)(void *state, int32_t column, int64_t row);

static bool row_walks(int64_t n, const upper_rows *b, const int32_t *parent, int64_t *mark, visit_fn visit,
                      void *state) {
  for (int64_t k = 0; k < n; k++)
    mark[k] = -1;
  for (int64_t k = 0; k < n; k++) {
    mark[k] = k;
    for (int part = 0; part < 2; part++) {
      const int64_t begin = part ? b->lrow_ptr[k] : b->col_ptr[k];
      const int64_t end = part ? b->lrow_ptr[k + 1] : b->diag_pos[k];
      const int32_t *rows = part ? b->lrow_col : b->row_idx;
      for (int64_t p = begin; p < end; p++) {
        for (int32_t j = rows[p]; mark[j] != k; j = parent[j]) {
          visit(state, j, k);
          mark[j] = k;
          if (parent[j] < 0 || parent[j] > k)
            return false;
        }
      }
    }
  }
  return true;
}

static void count_visit(void *state, int32_t column, int64_t row) {
  (void)row;
  ((int64_t *)state)[column]++;
}

/* The second pass: each front's update rows, appended in increasing row
 * order at its last pivot. */
typedef struct collect_state {
  const int32_t *front_of, *root;
  int64_t *fill; /* per front: the next free place in index */
  int32_t *index;
} collect_state;

static void collect_visit(void *state, int32_t column, int64_t row) {
  collect_state *c = state;
  const int32_t front = c->front_of[column];
  if (c->root[front] == column)
    c->index[c->fill[front]++] = (int32_t)row;
}

/* Whether merging a child front (pivots p_child, true factor entries
 * true_child) into its parent (p_parent, update rows r, true_parent) keeps
 * the merged front's share of explicit zeros within the rule. */
static bool merge_fits(const tsi_lu_front_rule *rule, int64_t p_child, int64_t true_child, int64_t p_parent,
                       int64_t true_parent, int64_t r) {
  const int64_t p = p_child + p_parent, f = p + r;
  const double stored = (double)p * (double)f - (double)p * (double)(p - 1) / 2.0;
  const double zeros = stored - (double)(true_child + true_parent);
  const double share = stored > 0.0 ? zeros / stored : 0.0;
  if (p <= rule->max_pivots[0])
    return true;
  if (p <= rule->max_pivots[1] && share < rule->max_zeros[0])
    return true;
  if (p <= rule->max_pivots[2] && share < rule->max_zeros[1])
    return true;
  return share < rule->max_zeros[2];
}

/* The representative of supernode s after the merges (path halving). */
static int32_t find_front(int32_t *merged_into, int32_t s) {
  while (merged_into[s] != s) {
    merged_into[s] = merged_into[merged_into[s]];
    s = merged_into[s];
  }
  return s;
}

/* Step 4's arrays from the merged supernodes: sn_front[s] is the front of
 * surviving supernode s in level order. */
typedef struct front_tables {
  int32_t *sn_of;      /* n: fundamental supernode of each column */
  int32_t *sn_root;    /* supernodes: last pivot */
  int32_t *merged;     /* supernodes: merge representative */
  int32_t *sn_front;   /* supernodes: front number, for the survivors */
  int32_t *height;     /* supernodes */
  int32_t *front_root; /* fronts: last pivot */
  int64_t *fill;       /* fronts */
} front_tables;

static void tables_free(front_tables *t) {
  free(t->sn_of);
  free(t->sn_root);
  free(t->merged);
  free(t->sn_front);
  free(t->height);
  free(t->front_root);
  free(t->fill);
}

/* Each contribution block row's place in the parent's index list: both
 * lists ascend, so one merge walk per child. False when one is missing. */
static bool extend_add_maps(tsi_lu_fronts *fr, int threads) {
  int64_t missing = -1;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256) reduction(max : missing)
  for (int64_t s = 0; s < fr->count; s++) {
    const int32_t up = fr->parent[s];
    const int64_t first = fr->index_ptr[s], rows = fr->index_ptr[s + 1];
    for (int64_t a = first; a < first + fr->pivots[s]; a++)
      fr->relative[a] = -1;
    if (up < 0) {
      for (int64_t a = first + fr->pivots[s]; a < rows; a++)
        fr->relative[a] = -1;
      continue;
    }
    const int32_t *list = fr->index + fr->index_ptr[up];
    const int64_t size = fr->size[up];
    int64_t at = 0;
    for (int64_t a = first + fr->pivots[s]; a < rows; a++) {
      while (at < size && list[at] < fr->index[a])
        at++;
      if (at == size || list[at] != fr->index[a]) {
        missing = s;
        break;
      }
      fr->relative[a] = (int32_t)at;
    }
  }
  return missing < 0;
}

/* Every entry of L + U's place in its front (the front of the lower of its
 * row and column): column k's entries of L by a merge walk along k's front
 * list, its entries of U by runs of rows of one front, each run's column
 * place found once. False when an entry has no place. */
static bool entry_places(const ts_lu *lu, tsi_lu_fronts *fr, int threads) {
  /* Each column's place among its front's pivots (the first entries of
   * the front's list). */
  int32_t *rank = tsi_malloc_array(lu->n > 0 ? lu->n : 1, sizeof(int32_t));
  if (!rank)
    return false;
  for (int64_t s = 0; s < fr->count; s++)
    for (int32_t a = 0; a < fr->pivots[s]; a++)
      rank[fr->index[fr->index_ptr[s] + a]] = a;
  int64_t missing = -1;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1024) reduction(max : missing)
  for (int64_t k = 0; k < lu->n; k++) {
    const int32_t own = fr->front_of[k];
    const int32_t *list = fr->index + fr->index_ptr[own];
    const int64_t size = fr->size[own];
    /* U(:, k): rows above the diagonal, each the pivot of its front. */
    int32_t run_front = -1;
    int64_t column = -1;
    for (int64_t p = lu->lu_col_ptr[k]; p < lu->diag_pos[k]; p++) {
      const int32_t i = lu->lu_row_idx[p], s = fr->front_of[i];
      if (s != run_front) {
        run_front = s;
        const int64_t at = tsi_sorted_find(fr->index, fr->index_ptr[s], fr->index_ptr[s + 1], (int32_t)k);
        column = at < 0 ? -1 : at - fr->index_ptr[s];
      }
      if (column < 0) {
        missing = k;
        fr->lu_to_front[p] = -1;
        continue;
      }
      fr->lu_to_front[p] = fr->offset[s] + rank[i] + column * fr->size[s];
    }
    /* L(:, k) with the diagonal: rows along k's own front. */
    int64_t at = 0;
    while (at < size && list[at] < k)
      at++;
    const int64_t column_k = at;
    for (int64_t p = lu->diag_pos[k]; p < lu->lu_col_ptr[k + 1]; p++) {
      const int32_t i = lu->lu_row_idx[p];
      while (at < size && list[at] < i)
        at++;
      if (at == size || list[at] != i || column_k == size) {
        missing = k;
        fr->lu_to_front[p] = -1;
        continue;
      }
      fr->lu_to_front[p] = fr->offset[own] + at + column_k * size;
    }
  }
  free(rank);
  return missing < 0;
}

ts_status tsi_lu_fronts_build(const ts_lu *lu, const tsi_lu_front_rule *rule, tsi_lu_fronts **out) {
  *out = NULL;
  const int64_t n = lu->n;
  ts_context *ctx = lu->ctx;
  if (n > INT32_MAX - 1)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "LU fronts: order %lld exceeds 32-bit indices", (long long)n);
  ts_status st = TS_SUCCESS;
  tsi_lu_fronts *fr = calloc(1, sizeof *fr);
  int64_t *lrow_ptr = NULL, *counts = NULL, *mark = NULL, *true_entries = NULL;
  int32_t *lrow_col = NULL, *parent = NULL, *ancestor = NULL, *pivots_of = NULL;
  front_tables t;
  memset(&t, 0, sizeof t);
  const int64_t m = n > 0 ? n : 1;
  if (!fr || !lower_rows(lu, &lrow_ptr, &lrow_col))
    goto out_of_memory;
  fr->n = n;
  parent = tsi_malloc_array(m, sizeof(int32_t));
  ancestor = tsi_malloc_array(m, sizeof(int32_t));
  counts = tsi_malloc_array(m, sizeof(int64_t));
  mark = tsi_malloc_array(m, sizeof(int64_t));
  t.sn_of = tsi_malloc_array(m, sizeof(int32_t));
  if (!parent || !ancestor || !counts || !mark || !t.sn_of)
    goto out_of_memory;
  const upper_rows b = {lu->lu_col_ptr, lu->diag_pos, lrow_ptr, lu->lu_row_idx, lrow_col};
  elimination_tree(n, &b, parent, ancestor);
  for (int64_t k = 0; k < n; k++)
    counts[k] = 1;
  if (!row_walks(n, &b, parent, mark, count_visit, counts)) {
    st = tsi_error(ctx, TS_ERROR_INTERNAL, "LU fronts: the pattern of L + U is not closed under elimination");
    goto cleanup;
  }
  for (int64_t k = 0; k < n; k++)
    fr->chol_entries += counts[k];

  /* Fundamental supernodes: ancestor[] now counts children, pivots_of the
   * last child seen. A supernode's first pivot is its lowest column and
   * the parent of a child supernode's last pivot is the parent's first, so
   * supernodes numbered by first pivot come after their children. */
  int32_t *only_child = ancestor;
  int32_t *child_count = tsi_calloc_array(m, sizeof(int32_t));
  if (!child_count)
    goto out_of_memory;
  for (int64_t k = 0; k < n; k++)
    if (parent[k] >= 0) {
      child_count[parent[k]]++;
      only_child[parent[k]] = (int32_t)k;
    }
  int32_t supernodes = 0;
  for (int64_t k = 0; k < n; k++) {
    const int32_t c = only_child[k];
    if (child_count[k] == 1 && counts[c] == counts[k] + 1)
      t.sn_of[k] = t.sn_of[c];
    else
      t.sn_of[k] = supernodes++;
  }
  free(child_count);
  const int64_t ms = supernodes > 0 ? supernodes : 1;
  t.sn_root = tsi_malloc_array(ms, sizeof(int32_t));
  t.merged = tsi_malloc_array(ms, sizeof(int32_t));
  t.sn_front = tsi_malloc_array(ms, sizeof(int32_t));
  t.height = tsi_calloc_array(ms, sizeof(int32_t));
  pivots_of = tsi_calloc_array(ms, sizeof(int32_t));
  true_entries = tsi_calloc_array(ms, sizeof(int64_t));
  int64_t *sn_child_ptr = tsi_calloc_array(ms + 1, sizeof(int64_t));
  int32_t *sn_children = tsi_malloc_array(ms, sizeof(int32_t));
  int32_t *sn_child_fill = tsi_calloc_array(ms, sizeof(int32_t));
  if (!t.sn_root || !t.merged || !t.sn_front || !t.height || !pivots_of || !true_entries || !sn_child_ptr ||
      !sn_children || !sn_child_fill) {
    free(sn_child_ptr);
    free(sn_children);
    free(sn_child_fill);
    goto out_of_memory;
  }
  for (int64_t k = 0; k < n; k++) {
    const int32_t s = t.sn_of[k];
    t.sn_root[s] = (int32_t)k;
    pivots_of[s]++;
    true_entries[s] += counts[k];
  }
  /* Children of each supernode, ascending (a counting sort). */
  for (int32_t s = 0; s < supernodes; s++) {
    const int32_t up = parent[t.sn_root[s]];
    if (up >= 0)
      sn_child_ptr[t.sn_of[up] + 1]++;
  }
  for (int32_t s = 0; s < supernodes; s++)
    sn_child_ptr[s + 1] += sn_child_ptr[s];
  for (int32_t s = 0; s < supernodes; s++) {
    const int32_t up = parent[t.sn_root[s]];
    if (up >= 0) {
      const int32_t q = t.sn_of[up];
      sn_children[sn_child_ptr[q] + sn_child_fill[q]++] = s;
    }
  }
  free(sn_child_fill);
  /* Relaxed amalgamation, children before parents: each child (final by
   * then) merges into its parent while the rule allows. */
  for (int32_t s = 0; s < supernodes; s++)
    t.merged[s] = s;
  for (int32_t s = 0; s < supernodes; s++) {
    const int64_t r = counts[t.sn_root[s]] - 1;
    for (int64_t c = sn_child_ptr[s]; c < sn_child_ptr[s + 1]; c++) {
      const int32_t child = sn_children[c];
      if (merge_fits(rule, pivots_of[child], true_entries[child], pivots_of[s], true_entries[s], r)) {
        t.merged[child] = s;
        pivots_of[s] += pivots_of[child];
        true_entries[s] += true_entries[child];
      }
    }
  }
  free(sn_child_ptr);
  free(sn_children);

  /* The surviving fronts' heights (children first), then their numbers in
   * level order: by height, then by last pivot. */
  int64_t count = 0;
  int32_t max_height = -1;
  for (int32_t s = 0; s < supernodes; s++) {
    if (find_front(t.merged, s) != s)
      continue;
    count++;
    const int32_t up = parent[t.sn_root[s]];
    if (up >= 0) {
      const int32_t q = find_front(t.merged, t.sn_of[up]);
      if (t.height[q] < t.height[s] + 1)
        t.height[q] = t.height[s] + 1;
    }
    if (t.height[s] > max_height)
      max_height = t.height[s];
  }
  fr->count = count;
  fr->levels = max_height + 1;
  const int64_t mc = count > 0 ? count : 1;
  fr->level_ptr = tsi_calloc_array(fr->levels + 1, sizeof(int64_t));
  fr->parent = tsi_malloc_array(mc, sizeof(int32_t));
  fr->child_ptr = tsi_calloc_array(mc + 1, sizeof(int64_t));
  fr->children = tsi_malloc_array(mc, sizeof(int32_t));
  fr->pivots = tsi_malloc_array(mc, sizeof(int32_t));
  fr->size = tsi_malloc_array(mc, sizeof(int32_t));
  fr->index_ptr = tsi_malloc_array(mc + 1, sizeof(int64_t));
  fr->offset = tsi_malloc_array(mc + 1, sizeof(int64_t));
  fr->front_of = tsi_malloc_array(m, sizeof(int32_t));
  t.front_root = tsi_malloc_array(mc, sizeof(int32_t));
  t.fill = tsi_malloc_array(mc, sizeof(int64_t));
  if (!fr->level_ptr || !fr->parent || !fr->child_ptr || !fr->children || !fr->pivots || !fr->size || !fr->index_ptr ||
      !fr->offset || !fr->front_of || !t.front_root || !t.fill)
    goto out_of_memory;
  for (int32_t s = 0; s < supernodes; s++)
    if (t.merged[s] == s)
      fr->level_ptr[t.height[s] + 1]++;
  for (int64_t l = 0; l < fr->levels; l++)
    fr->level_ptr[l + 1] += fr->level_ptr[l];
  {
    /* Supernodes ascend by first pivot, not by last: number each level's
     * fronts in order of last pivot by a second counting pass over the
     * columns (a front's last pivot is its supernode root). */
    int64_t *level_fill = tsi_malloc_array(fr->levels > 0 ? fr->levels : 1, sizeof(int64_t));
    if (!level_fill)
      goto out_of_memory;
    memcpy(level_fill, fr->level_ptr, (size_t)fr->levels * sizeof(int64_t));
    for (int64_t k = 0; k < n; k++) {
      const int32_t s = t.sn_of[k];
      if (t.sn_root[s] == k && t.merged[s] == s) {
        const int64_t front = level_fill[t.height[s]]++;
        t.sn_front[s] = (int32_t)front;
        t.front_root[front] = (int32_t)k;
      }
    }
    free(level_fill);
  }
  int64_t max_children = 0;
  for (int64_t f = 0; f < count; f++)
    fr->pivots[f] = 0;
  for (int64_t k = 0; k < n; k++) {
    const int32_t front = t.sn_front[find_front(t.merged, t.sn_of[k])];
    fr->front_of[k] = front;
    fr->pivots[front]++;
  }
  for (int64_t f = 0; f < count; f++) {
    const int32_t root = t.front_root[f];
    fr->parent[f] = parent[root] >= 0 ? fr->front_of[parent[root]] : -1;
    if (fr->parent[f] >= 0)
      fr->child_ptr[fr->parent[f] + 1]++;
  }
  for (int64_t f = 0; f < count; f++) {
    fr->child_ptr[f + 1] += fr->child_ptr[f];
    if (fr->child_ptr[f + 1] - fr->child_ptr[f] > max_children)
      max_children = fr->child_ptr[f + 1] - fr->child_ptr[f];
  }
  fr->max_children = max_children;
  memcpy(t.fill, fr->child_ptr, (size_t)count * sizeof(int64_t));
  for (int64_t f = 0; f < count; f++)
    if (fr->parent[f] >= 0)
      fr->children[t.fill[fr->parent[f]]++] = (int32_t)f;

  /* Sizes, offsets and figures; the sums are checked against overflow. */
  fr->index_ptr[0] = fr->offset[0] = 0;
  for (int64_t f = 0; f < count; f++) {
    const int64_t p = fr->pivots[f], size = p + counts[t.front_root[f]] - 1;
    int64_t square;
    if (size > INT32_MAX || tsi_mul_overflows(size, size, &square) || fr->offset[f] > INT64_MAX - square) {
      st = tsi_error(ctx, TS_ERROR_OVERFLOW, "LU fronts: front %lld of %lld rows overflows the fronts' storage",
                     (long long)f, (long long)size);
      goto cleanup;
    }
    fr->size[f] = (int32_t)size;
    fr->index_ptr[f + 1] = fr->index_ptr[f] + size;
    fr->offset[f + 1] = fr->offset[f] + square;
    fr->factor_entries += p * size - p * (p - 1) / 2;
    for (int64_t k = 0; k < p; k++) {
      const double rest = (double)(size - 1 - k);
      fr->flops += rest + 2.0 * rest * rest;
    }
    if (size > fr->max_size)
      fr->max_size = (int32_t)size;
    if (p > fr->max_pivots)
      fr->max_pivots = (int32_t)p;
  }

  /* Index lists: the pivots (columns ascending), then the update rows,
   * collected by the second pass of the row walks. */
  fr->index = tsi_malloc_array(fr->index_ptr[count] > 0 ? fr->index_ptr[count] : 1, sizeof(int32_t));
  fr->relative = tsi_malloc_array(fr->index_ptr[count] > 0 ? fr->index_ptr[count] : 1, sizeof(int32_t));
  if (!fr->index || !fr->relative)
    goto out_of_memory;
  memcpy(t.fill, fr->index_ptr, (size_t)count * sizeof(int64_t));
  for (int64_t k = 0; k < n; k++)
    fr->index[t.fill[fr->front_of[k]]++] = (int32_t)k;
  collect_state collect = {fr->front_of, t.front_root, t.fill, fr->index};
  if (!row_walks(n, &b, parent, mark, collect_visit, &collect)) {
    st = tsi_error(ctx, TS_ERROR_INTERNAL, "LU fronts: the pattern of L + U is not closed under elimination");
    goto cleanup;
  }
  for (int64_t f = 0; f < count; f++)
    if (t.fill[f] != fr->index_ptr[f + 1]) {
      st = tsi_error(ctx, TS_ERROR_INTERNAL, "LU fronts: front %lld collected %lld of its %d rows", (long long)f,
                     (long long)(t.fill[f] - fr->index_ptr[f]), fr->size[f]);
      goto cleanup;
    }

  /* The extend-add maps and every entry of L + U's place. */
  fr->lu_to_front = tsi_malloc_array(lu->lu_nnz > 0 ? lu->lu_nnz : 1, sizeof(int64_t));
  if (!fr->lu_to_front)
    goto out_of_memory;
  if (!extend_add_maps(fr, tsi_lu_threads(lu)) || !entry_places(lu, fr, tsi_lu_threads(lu))) {
    st = tsi_error(ctx, TS_ERROR_INTERNAL, "LU fronts: an entry of L + U or of a contribution block has no place");
    goto cleanup;
  }
  goto cleanup;

out_of_memory:
  st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "LU fronts: no memory for the front tree (n = %lld)", (long long)n);
cleanup:
  tables_free(&t);
  free(lrow_ptr);
  free(lrow_col);
  free(parent);
  free(ancestor);
  free(counts);
  free(mark);
  free(pivots_of);
  free(true_entries);
  if (st != TS_SUCCESS)
    tsi_lu_fronts_free(fr);
  else
    *out = fr;
  return st;
}
