/* Row matching with scaling: a permutation that puts large entries on the
 * diagonal, maximising the product of their magnitudes, with row and column
 * scales that make them 1 and every other entry at most 1 in magnitude
 * (Duff and Koster, "On algorithms for permuting large entries to the
 * diagonal of a sparse matrix", SIAM J. Matrix Anal. Appl. 22(4), 2001,
 * option 5 of MC64); plus the structural rank by plain augmenting paths. */
#include "core/complex_value.h"
#include "lu/analyze/analyze_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- structural rank -------------------------------------------------------
 * Depth-first augmenting paths from each row with a look-ahead for a free
 * column (Duff, "On algorithms for obtaining a maximum transversal", ACM TOMS
 * 7(3), 1981). A search that fails leaves every row it visited unable to
 * reach a free column for good (the set is closed under alternating steps and
 * later augmentations never enter it), so those rows are marked dead and the
 * failed searches cost O(nnz) in all. */
ts_status tsi_lu_structural_rank(ts_context *ctx, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                 const unsigned char *skip, int32_t *col_match_out, int64_t *rank) {
  ts_status st = TS_SUCCESS;
  int32_t *col_match = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *row_match = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *visited = tsi_calloc_array(n, sizeof(int32_t)); /* search id + 1 of the last visit; -1 = dead */
  int64_t *lookahead = tsi_malloc_array(n, sizeof(int64_t));
  int64_t *scan = tsi_malloc_array(n, sizeof(int64_t));
  int32_t *stack = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *via_col = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *seen = tsi_malloc_array(n, sizeof(int32_t));
  if (!col_match || !row_match || !visited || !lookahead || !scan || !stack || !via_col || !seen) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the matching of %lld rows",
                   (long long)n);
    goto cleanup;
  }
  for (int64_t k = 0; k < n; k++) {
    col_match[k] = row_match[k] = -1;
    lookahead[k] = row_ptr[k];
  }
  int64_t matched = 0;
  for (int32_t start = 0; start < (int32_t)n; start++) {
    int32_t mark = start + 1, depth = 0, seen_count = 0, found = -1;
    stack[0] = start;
    visited[start] = mark;
    seen[seen_count++] = start;
    scan[start] = row_ptr[start];
    while (depth >= 0) {
      int32_t r = stack[depth];
      /* Look-ahead: a free column of r ends the search at once. Columns
       * never become free again, so each row's pointer only moves on. */
      for (; lookahead[r] < row_ptr[r + 1]; lookahead[r]++) {
        int64_t k = lookahead[r];
        if ((!skip || !skip[k]) && col_match[col_idx[k]] < 0) {
          found = col_idx[k];
          break;
        }
      }
      if (found >= 0)
        break;
      int32_t next = -1;
      for (; scan[r] < row_ptr[r + 1]; scan[r]++) {
        int64_t k = scan[r];
        if (skip && skip[k])
          continue;
        int32_t other = col_match[col_idx[k]];
        if (visited[other] == mark || visited[other] < 0)
          continue;
        via_col[depth] = col_idx[k];
        next = other;
        scan[r]++;
        break;
      }
      if (next < 0) {
        depth--;
        continue;
      }
      stack[++depth] = next;
      visited[next] = mark;
      seen[seen_count++] = next;
      scan[next] = row_ptr[next];
    }
    if (found >= 0) {
      /* Flip the path: each row on the stack takes the column that led on. */
      col_match[found] = stack[depth];
      row_match[stack[depth]] = found;
      for (int32_t l = depth - 1; l >= 0; l--) {
        col_match[via_col[l]] = stack[l];
        row_match[stack[l]] = via_col[l];
      }
      matched++;
    } else {
      for (int32_t s = 0; s < seen_count; s++)
        visited[seen[s]] = -1;
    }
  }
  *rank = matched;
  if (col_match_out)
    memcpy(col_match_out, col_match, (size_t)n * sizeof(int32_t));
cleanup:
  free(col_match);
  free(row_match);
  free(visited);
  free(lookahead);
  free(scan);
  free(stack);
  free(via_col);
  free(seen);
  return st;
}

/* ---- maximum-product matching ----------------------------------------------
 * With c_ij = log(max_k |a_kj|) - log|a_ij| >= 0 on the nonzero entries, a
 * perfect matching of least total cost maximises the product of the matched
 * magnitudes. It is built one column at a time by shortest augmenting paths
 * (Dijkstra on the reduced costs c_ij - u_i - v_j >= 0, which stay 0 on
 * matched entries: the Hungarian method's duals, as in MC64). */

/* What a shortest-path search reads and writes of a row, together: one
 * cache line holds all of it, where separate arrays cost a miss each. */
typedef struct row_state {
  double dist;      /* tentative distance in the current search; INFINITY when not reached */
  double u;         /* the row's dual */
  int32_t col;      /* the column matched to it, -1 when free */
  int32_t position; /* in the heap, -1 when not there */
  int32_t pred;     /* the column it was reached from */
} row_state;

/* Binary min-heap of rows keyed by their tentative distance, the key stored
 * beside the row (no indirection per comparison), with positions so that a
 * distance can decrease in place. */
typedef struct heap_entry {
  double key;
  int32_t row;
} heap_entry;

typedef struct row_heap {
  heap_entry *entry;
  int32_t size;
  row_state *state;
} row_heap;

static void heap_sift_up(row_heap *h, int32_t at, heap_entry moving) {
  while (at > 0) {
    int32_t parent = (at - 1) / 2;
    if (h->entry[parent].key <= moving.key)
      break;
    h->entry[at] = h->entry[parent];
    h->state[h->entry[at].row].position = at;
    at = parent;
  }
  h->entry[at] = moving;
  h->state[moving.row].position = at;
}

static void heap_sift_down(row_heap *h, int32_t at, heap_entry moving) {
  for (;;) {
    int32_t child = 2 * at + 1;
    if (child >= h->size)
      break;
    if (child + 1 < h->size && h->entry[child + 1].key < h->entry[child].key)
      child++;
    if (moving.key <= h->entry[child].key)
      break;
    h->entry[at] = h->entry[child];
    h->state[h->entry[at].row].position = at;
    at = child;
  }
  h->entry[at] = moving;
  h->state[moving.row].position = at;
}

/* Insert row with key, or lower its key when it is in the heap already. */
static void heap_push_or_decrease(row_heap *h, int32_t row, double key) {
  int32_t at = h->state[row].position;
  if (at < 0)
    at = h->size++;
  heap_sift_up(h, at, (heap_entry){.key = key, .row = row});
}

/* Take row, which is in the heap, out of it. */
static void heap_remove(row_heap *h, int32_t row) {
  int32_t at = h->state[row].position;
  h->state[row].position = -1;
  h->size--;
  if (at == h->size)
    return;
  heap_entry moving = h->entry[h->size];
  if (at > 0 && moving.key < h->entry[(at - 1) / 2].key)
    heap_sift_up(h, at, moving);
  else
    heap_sift_down(h, at, moving);
}

static int32_t heap_pop(row_heap *h) {
  int32_t top = h->entry[0].row;
  h->state[top].position = -1;
  h->size--;
  if (h->size > 0)
    heap_sift_down(h, 0, h->entry[h->size]);
  return top;
}

/* The cost matrix by columns, with each column's largest magnitude. Its
 * pattern is A's own (col_ptr and row are A's row_ptr and col_idx) unless A
 * stores explicit zeros, which the costs leave out: then it is a compacted
 * copy (own_col_ptr, own_row). Only the costs are written, half the bytes of
 * a copy of the pattern beside them, and freshly written memory is what the
 * costs' pass pays for. */
typedef struct cost_csc {
  const int64_t *col_ptr;
  const int32_t *row;
  double *cost;
  int64_t *own_col_ptr;
  int32_t *own_row;
  double *col_max;
} cost_csc;

/* log(x), reusing the last one taken when x repeats it: many matrices
 * repeat a few values (stencils, integer matrices), and the same argument
 * gives the same bits. */
static inline double cached_log(double x, double *last_x, double *last_log) {
  if (x != *last_x) {
    *last_x = x;
    *last_log = log(x);
  }
  return *last_log;
}

/* |a_k| for the other value types, the modulus for complex values. */
static double other_magnitude(const ts_csr *a, int64_t k) {
  if (a->dtype == TS_FLOAT32)
    return fabs((double)((const float *)a->values)[k]);
  return tsi_z_abs(tsi_value_get(a->dtype, a->values, k));
}

/* |a_k|. Double, the common type, inline: the costs read every entry
 * twice, and a call per entry was a tenth of them. */
static inline double entry_magnitude(const ts_csr *a, int64_t k) {
  if (a->dtype == TS_FLOAT64)
    return fabs(((const double *)a->values)[k]);
  return other_magnitude(a, k);
}

/* The costs of A^T, whose columns are A's rows: a perfect matching of A^T
 * is one of A transposed, and the product of the matched magnitudes is the
 * same, so the optimum is too (up to ties). Read this way, A's CSR is the
 * cost matrix's CSC already: one streaming pass instead of a transpose,
 * whose scattered writes dominated the matching on large circuits
 * (bench/notes/lu-analysis.md). log(max) is taken once per column, not per
 * entry, and only for a column with a smaller entry. Values must be finite
 * for the costs to mean anything: *non_finite is the first entry that is not
 * (-1 when none), and then the costs are not built.
 *
 * When every diagonal entry is stored (diagonal_stored) and is the largest
 * of its row, the identity is a maximum-product matching: no permutation's
 * product exceeds the product of the rows' maxima, and the identity's is
 * that product; u = v = 0 are then optimal duals (every cost is >= 0, and 0
 * on the diagonal), the ones min_cost_matching's initial duals would be.
 * *identity is set, and the costs (a logarithm per entry) are not built:
 * only the column maxima, which the scales need.
 * Common on circuit matrices.
 *
 * Otherwise u and v get the initial duals of MC64's product matching
 * (Duff and Koster 2001, section 4): v_j the least cost of column j and u_i
 * the least c_ij - v_j of row i. Every column's largest entry costs 0
 * exactly and no cost is below 0 (the logarithm rises with its argument),
 * so v_j is 0, or infinite for a column without a nonzero entry, and u is
 * taken in the pass that writes the costs, without passes of its own. */
static ts_status build_costs(ts_context *ctx, const ts_csr *a, bool diagonal_stored, cost_csc *m, int64_t *non_finite,
                             bool *identity, double *u, double *v) {
  int64_t n = a->rows;
  *non_finite = -1;
  *identity = false;
  m->col_max = tsi_malloc_array(n, sizeof(double));
  if (!m->col_max)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the matching's costs (%lld rows)",
                     (long long)n);
  bool diagonal_largest = diagonal_stored, explicit_zeros = false;
  for (int64_t i = 0; i < n; i++) {
    double largest = 0.0, diagonal = 0.0;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      double magnitude = entry_magnitude(a, k);
      if (!isfinite(magnitude)) {
        *non_finite = k;
        return TS_SUCCESS;
      }
      largest = magnitude > largest ? magnitude : largest;
      diagonal = a->col_idx[k] == i ? magnitude : diagonal;
      explicit_zeros = explicit_zeros || magnitude == 0.0;
    }
    diagonal_largest = diagonal_largest && diagonal > 0.0 && diagonal >= largest;
    m->col_max[i] = largest;
  }
  if (diagonal_largest) {
    *identity = true;
    return TS_SUCCESS;
  }
  m->cost = tsi_malloc_array(a->nnz, sizeof(double));
  m->col_ptr = a->row_ptr;
  m->row = a->col_idx;
  if (m->cost && explicit_zeros) {
    m->own_col_ptr = tsi_malloc_array(n + 1, sizeof(int64_t));
    m->own_row = tsi_malloc_array(a->nnz, sizeof(int32_t));
    m->col_ptr = m->own_col_ptr;
    m->row = m->own_row;
  }
  if (!m->cost || (explicit_zeros && (!m->own_col_ptr || !m->own_row)))
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the matching's costs (%lld entries)",
                     (long long)a->nnz);
  /* A logarithm is the costs' main expense. The column's largest entries
   * cost log(largest) - log(largest) = 0 exactly, and a magnitude equal to
   * the previous one has its logarithm (cached_log): both skip the call,
   * with the same bits. */
  int64_t at = 0;
  double last_magnitude = -1.0, last_log = 0.0;
  if (explicit_zeros)
    m->own_col_ptr[0] = 0;
  for (int64_t i = 0; i < n; i++)
    u[i] = INFINITY;
  for (int64_t i = 0; i < n; i++) {
    const double largest = m->col_max[i];
    /* log(largest) only for a row with a smaller entry (a row of equal
     * entries costs 0 throughout), through the magnitudes' cache. */
    double log_largest = 0.0;
    bool log_largest_known = false;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      double magnitude = entry_magnitude(a, k);
      if (!(magnitude > 0.0))
        continue;
      double cost = 0.0;
      if (magnitude != largest) {
        if (!log_largest_known) {
          log_largest = cached_log(largest, &last_magnitude, &last_log);
          log_largest_known = true;
        }
        cost = log_largest - cached_log(magnitude, &last_magnitude, &last_log);
      }
      const int32_t row = a->col_idx[k];
      if (explicit_zeros)
        m->own_row[at] = row;
      m->cost[at++] = cost;
      /* Plain comparisons, not fmin (a library call here): the costs are
       * finite, no NaN to treat. */
      u[row] = cost < u[row] ? cost : u[row];
    }
    v[i] = at > m->col_ptr[i] ? 0.0 : INFINITY;
    if (explicit_zeros)
      m->own_col_ptr[i + 1] = at;
  }
  return TS_SUCCESS;
}

/* Reduced cost of entry k of column j: c_ij - v_j - u_i, the form every
 * test below uses, so that a zero reduced cost means the same everywhere. */
static double reduced_cost(const cost_csc *m, int64_t k, int32_t j, const double *u, const double *v) {
  return (m->cost[k] - v[j]) - u[m->row[k]];
}

/* A matching on the entries of zero reduced cost under the initial duals
 * (build_costs), as MC64 initialises its product matching (Duff and Koster
 * 2001, section 4): first greedily, then for each column left unmatched an
 * augmenting path of length 2 (a zero-cost row i of column j whose column
 * jj can move to a free zero-cost row). Each column's scan for a free row resumes where it stopped, since a
 * row once matched stays matched: O(nnz) in all. Every column matched here
 * saves a shortest-path search. Returns the number of columns left
 * unmatched. */
static int64_t initial_matching(int64_t n, const cost_csc *m, int32_t *row_of_col, int32_t *col_of_row, const double *u,
                                const double *v, int64_t *resume) {
  int64_t unmatched = n;
  for (int32_t j = 0; j < (int32_t)n; j++)
    for (int64_t k = m->col_ptr[j]; k < m->col_ptr[j + 1]; k++) {
      int32_t i = m->row[k];
      if (col_of_row[i] < 0 && reduced_cost(m, k, j, u, v) <= 0.0) {
        col_of_row[i] = j;
        row_of_col[j] = i;
        unmatched--;
        break;
      }
    }
  if (unmatched == 0)
    return 0;
  for (int64_t j = 0; j < n; j++)
    resume[j] = m->col_ptr[j];
  for (int32_t j = 0; j < (int32_t)n; j++) {
    if (row_of_col[j] >= 0)
      continue;
    for (int64_t k = m->col_ptr[j]; k < m->col_ptr[j + 1] && row_of_col[j] < 0; k++) {
      int32_t i = m->row[k];
      if (reduced_cost(m, k, j, u, v) > 0.0)
        continue;
      /* i is matched: the greedy pass would have given it to j otherwise. */
      int32_t jj = col_of_row[i];
      for (; resume[jj] < m->col_ptr[jj + 1]; resume[jj]++) {
        int64_t kk = resume[jj];
        int32_t ii = m->row[kk];
        if (col_of_row[ii] < 0 && reduced_cost(m, kk, jj, u, v) <= 0.0) {
          row_of_col[jj] = ii;
          col_of_row[ii] = jj;
          row_of_col[j] = i;
          col_of_row[i] = j;
          resume[jj]++;
          unmatched--;
          break;
        }
      }
    }
  }
  return unmatched;
}

/* Minimum-cost perfect matching on the costs: row_of_col[j] = row matched
 * to column j; u, v the duals, the initial ones on entry (build_costs).
 * *perfect = false, and no error, when some column has no augmenting path
 * (no perfect matching: the caller finds the structural rank for its
 * message). */
static ts_status min_cost_matching(ts_context *ctx, int64_t n, const cost_csc *m, int32_t *row_of_col, double *u,
                                   double *v, bool *perfect) {
  ts_status st = TS_SUCCESS;
  int32_t *col_of_row = tsi_malloc_array(n, sizeof(int32_t));
  row_state *row = tsi_malloc_array(n, sizeof(row_state));
  int32_t *touched = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *finished = tsi_malloc_array(n, sizeof(int32_t));
  int32_t *level = tsi_malloc_array(n, sizeof(int32_t));
  int64_t *resume = tsi_malloc_array(n, sizeof(int64_t));
  row_heap heap = {tsi_malloc_array(n, sizeof(heap_entry)), 0, row};
  *perfect = true;
  if (!col_of_row || !row || !touched || !finished || !level || !resume || !heap.entry) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the matching of %lld rows",
                   (long long)n);
    goto cleanup;
  }
  for (int64_t k = 0; k < n; k++)
    row_of_col[k] = col_of_row[k] = -1;
  if (!m->cost) { /* no entries: no column can be matched */
    *perfect = n == 0;
    goto cleanup;
  }
  /* The initial matching is often perfect already (a full nonzero
   * diagonal of large entries): then the duals are final, and the search
   * state need not be set up. */
  if (initial_matching(n, m, row_of_col, col_of_row, u, v, resume) == 0)
    goto cleanup;
  for (int64_t k = 0; k < n; k++)
    row[k] = (row_state){.dist = INFINITY, .u = u[k], .col = col_of_row[k], .position = -1, .pred = -1};

  /* Shortest augmenting paths from each unmatched column (MC64's
   * Dijkstra, Duff and Koster 2001, section 4): a free row is a candidate
   * end, kept out of the heap, and the search stops once no row left in
   * the heap is nearer than the best candidate lsap; one reached at the
   * current distance ends it at once. A matched row reached at the current
   * distance (a zero reduced cost: every matched entry has one) is as near
   * as any row can be, so it is finished without the heap: it goes on the
   * list level and is taken before the heap's next row, as MC64 keeps the
   * rows of the current distance in a list beside its heap (section 4).
   * The list is taken first in, first out: breadth first among equal
   * distances, which reaches a free row in fewer steps than depth first
   * where every reduced cost on the way is 0 (a pattern matrix of ones). */
  for (int32_t source = 0; source < (int32_t)n; source++) {
    if (row_of_col[source] >= 0)
      continue;
    int32_t touched_count = 0, finished_count = 0, level_head = 0, level_count = 0, free_row = -1;
    double lsap = INFINITY;
    /* Relax the entries of column col reached at distance base. */
    int32_t col = source;
    double base = 0.0;
    for (;;) {
      const double v_col = v[col];
      for (int64_t k = m->col_ptr[col]; k < m->col_ptr[col + 1]; k++) {
        int32_t i = m->row[k];
        row_state *r = &row[i];
        /* Rounding may leave a reduced cost a hair below 0. A finished
         * row needs no test of its own: it was finished at a distance of
         * at most base (they are taken in order), and keeps it. */
        double reduced = (m->cost[k] - v_col) - r->u;
        double candidate = base + (reduced > 0.0 ? reduced : 0.0);
        double bound = r->dist < lsap ? r->dist : lsap;
        if (candidate >= bound)
          continue;
        if (r->dist == INFINITY)
          touched[touched_count++] = i;
        r->dist = candidate;
        r->pred = col;
        if (r->col < 0) {
          lsap = candidate;
          free_row = i;
        } else if (candidate == base) {
          if (r->position >= 0)
            heap_remove(&heap, i);
          level[level_count++] = i;
        } else {
          heap_push_or_decrease(&heap, i, candidate);
        }
      }
      int32_t next;
      if (lsap <= base)
        break;
      if (level_head < level_count) {
        next = level[level_head++];
      } else {
        level_head = level_count = 0;
        if (heap.size == 0 || heap.entry[0].key >= lsap)
          break;
        next = heap_pop(&heap);
      }
      finished[finished_count++] = next;
      col = row[next].col;
      base = row[next].dist;
    }
    for (int32_t s = 0; s < heap.size; s++)
      row[heap.entry[s].row].position = -1;
    heap.size = 0;
    if (free_row < 0) {
      *perfect = false;
      goto cleanup;
    }
    /* Dual update keeping reduced costs >= 0 and 0 on the new path: rows
     * finished below the path length lsap drop by lsap - dist, and the
     * columns they were matched to (and the source) rise by as much. */
    v[source] += lsap;
    for (int32_t s = 0; s < finished_count; s++) {
      row_state *r = &row[finished[s]];
      double delta = lsap - r->dist;
      r->u -= delta;
      v[r->col] += delta;
    }
    /* Augment along the predecessors. */
    for (int32_t i = free_row;;) {
      int32_t c = row[i].pred;
      int32_t previous = row_of_col[c];
      row_of_col[c] = i;
      row[i].col = c;
      if (c == source)
        break;
      i = previous;
    }
    for (int32_t s = 0; s < touched_count; s++)
      row[touched[s]].dist = INFINITY;
  }
  for (int64_t k = 0; k < n; k++)
    u[k] = row[k].u;
cleanup:
  free(col_of_row);
  free(row);
  free(touched);
  free(finished);
  free(level);
  free(resume);
  free(heap.entry);
  return st;
}

/* The row scales are exp(v_k) / max_j |a_kj| and the column scales
 * exp(u_j); any common factor 2^s moved from the rows to the columns leaves
 * every scaled entry, bit for bit. Where a scale would leave double's
 * normal range (a tiny matrix such as [1e-320] wants a row scale of 1e320),
 * *shift centres both ranges of exponents on each other; when even that
 * cannot hold them (entries spanning more than about 600 decades), the
 * scaling is refused by name. */
static ts_status balance_scales(ts_lu *lu, int64_t n, const double *u, const double *v, const double *row_max,
                                int *shift) {
  const double limit = 700.0; /* |log| of a scale within double's normal range, with a margin */
  double row_low = INFINITY, row_high = -INFINITY, col_low = INFINITY, col_high = -INFINITY;
  /* Plain comparisons, not fmin and fmax (library calls here): the duals
   * of a perfect matching are finite, the row maxima positive. First
   * bounds without a logarithm per row: the log of row k's scale,
   * v_k - log(max_j |a_kj|), lies between min v - log(largest maximum) and
   * max v - log(smallest maximum); where those bounds are well inside the
   * range (by 1, far more than the rounding of the terms), every scale is
   * and no shift is needed, as the exact extremes below would find. */
  double v_low = INFINITY, v_high = -INFINITY, max_low = INFINITY, max_high = 0.0;
  for (int64_t k = 0; k < n; k++) {
    v_low = v[k] < v_low ? v[k] : v_low;
    v_high = v[k] > v_high ? v[k] : v_high;
    max_low = row_max[k] < max_low ? row_max[k] : max_low;
    max_high = row_max[k] > max_high ? row_max[k] : max_high;
    col_low = u[k] < col_low ? u[k] : col_low;
    col_high = u[k] > col_high ? u[k] : col_high;
  }
  *shift = 0;
  if (n == 0 || (v_low - log(max_high) >= 1.0 - limit && v_high - log(max_low) <= limit - 1.0 && col_low >= -limit &&
                 col_high <= limit))
    return TS_SUCCESS;
  double last_max = -1.0, last_log = 0.0;
  for (int64_t k = 0; k < n; k++) {
    const double row_log = v[k] - cached_log(row_max[k], &last_max, &last_log);
    row_low = row_log < row_low ? row_log : row_low;
    row_high = row_log > row_high ? row_log : row_high;
  }
  if (row_low >= -limit && row_high <= limit && col_low >= -limit && col_high <= limit)
    return TS_SUCCESS;
  const double row_mid = 0.5 * (row_low + row_high), col_mid = 0.5 * (col_low + col_high);
  *shift = (int)lround(0.5 * (row_mid - col_mid) / log(2.0));
  const double moved = (double)*shift * log(2.0);
  if (row_low - moved < -limit || row_high - moved > limit || col_low + moved < -limit || col_high + moved > limit)
    return tsi_error(lu->ctx, TS_ERROR_OVERFLOW,
                     "ts_lu_analyze: the matching's scaling needs factors from 1e%.0f to 1e%.0f, beyond double's "
                     "range (the entries span too many decades); analyze without the matching (no_matching)",
                     fmin(row_low - moved, col_low + moved) / log(10.0),
                     fmax(row_high - moved, col_high + moved) / log(10.0));
  return TS_SUCCESS;
}

/* |x| beyond which exp(x) may leave double's normal range. */
#define EXP_SAFE 700.0
/* log(2), as libm's M_LN2 (not in strict C). */
#define LOG_TWO 0.69314718055994530942

/* exp(x) 2^s without the intermediate exp(x) (which may overflow or
 * underflow where the product does not). */
static double shifted_exp(double x, int s) {
  const int m = (int)lround(x / LOG_TWO);
  return ldexp(exp(x - (double)m * LOG_TWO), m + s);
}

int tsi_lu_diagonal_kind(const ts_csr *a) {
  int kind = 2;
  for (int64_t i = 0; i < a->rows && kind > 0; i++) {
    int64_t k = a->row_ptr[i];
    while (k < a->row_ptr[i + 1] && a->col_idx[k] != i)
      k++;
    if (k == a->row_ptr[i + 1])
      kind = 0;
    else if (entry_magnitude(a, k) == 0.0)
      kind = 1;
  }
  return kind;
}

static ts_status structurally_singular(ts_lu *lu, int64_t rank, const char *detail) {
  lu->stats.structural_rank = rank;
  return tsi_error(lu->ctx, TS_ERROR_STRUCTURALLY_SINGULAR,
                   "ts_lu_analyze: structurally singular: structural rank %lld of %lld%s", (long long)rank,
                   (long long)lu->n, detail);
}

/* The stored pattern (explicit zeros count) has a perfect matching: the
 * identity when the diagonal is stored, else the augmenting-path search.
 * Empty rows or columns, or rows that share too few columns, show here. */
ts_status tsi_lu_check_pattern_rank(ts_lu *lu, const ts_csr *a, int diagonal) {
  int64_t rank = a->rows;
  if (diagonal == 0) {
    ts_status st = tsi_lu_structural_rank(lu->ctx, a->rows, a->row_ptr, a->col_idx, NULL, NULL, &rank);
    if (st != TS_SUCCESS)
      return st;
  }
  return rank < a->rows ? structurally_singular(lu, rank, "") : TS_SUCCESS;
}

/* The status of a matrix whose nonzero entries have no perfect matching
 * (the min-cost matching found a column without an augmenting path): the
 * structural rank of its pattern, or, when that is n, of its nonzero
 * entries (explicit zeros cannot be matched). */
ts_status tsi_lu_no_perfect_matching(ts_lu *lu, const ts_csr *a, int diagonal) {
  ts_status st = tsi_lu_check_pattern_rank(lu, a, diagonal);
  if (st != TS_SUCCESS)
    return st;
  unsigned char *zero = tsi_malloc_array(a->nnz, 1);
  if (!zero)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the matching's mask");
  for (int64_t k = 0; k < a->nnz; k++)
    zero[k] = entry_magnitude(a, k) == 0.0;
  int64_t rank = a->rows;
  st = tsi_lu_structural_rank(lu->ctx, a->rows, a->row_ptr, a->col_idx, zero, NULL, &rank);
  free(zero);
  if (st != TS_SUCCESS)
    return st;
  if (rank == a->rows)
    return tsi_error(lu->ctx, TS_ERROR_INTERNAL,
                     "ts_lu_analyze: the matching found no augmenting path, yet the nonzero entries have a perfect "
                     "matching");
  return structurally_singular(lu, rank, " once its explicit zeros are left out");
}

ts_status tsi_lu_non_finite_entry(ts_lu *lu, const ts_csr *a, int diagonal, int64_t entry) {
  ts_status st = tsi_lu_check_pattern_rank(lu, a, diagonal);
  if (st != TS_SUCCESS)
    return st;
  int64_t row = 0;
  while (a->row_ptr[row + 1] <= entry)
    row++;
  return tsi_error(lu->ctx, TS_ERROR_INVALID_MATRIX,
                   "ts_lu_analyze: entry %lld (row %lld, column %d, all from 0) is not finite", (long long)entry,
                   (long long)row, (int)a->col_idx[entry]);
}

ts_status tsi_lu_matching(ts_lu *lu, const ts_csr *a, int diagonal) {
  int64_t n = a->rows;
  ts_status st = TS_SUCCESS;
  cost_csc costs = {0};
  double *u = NULL, *v = NULL;
  int32_t *col_of_row = NULL;

  st = tsi_lu_permutations_alloc(lu, n);
  if (st != TS_SUCCESS)
    goto cleanup;
  for (int64_t k = 0; k < n; k++) {
    lu->row_perm[k] = lu->col_perm[k] = (int32_t)k;
    lu->row_scale[k] = lu->col_scale[k] = 1.0;
  }

  if (lu->options.no_matching) {
    st = tsi_lu_check_pattern_rank(lu, a, diagonal);
    if (st == TS_SUCCESS)
      lu->stats.structural_rank = n;
    goto cleanup;
  }

  u = tsi_malloc_array(n, sizeof(double));
  v = tsi_malloc_array(n, sizeof(double));
  if (!u || !v) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the matching's duals");
    goto cleanup;
  }
  col_of_row = tsi_malloc_array(n, sizeof(int32_t));
  if (!col_of_row) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the matching of %lld rows",
                   (long long)n);
    goto cleanup;
  }
  /* On A^T (build_costs): its column i is A's row i, matched to A's column
   * col_of_row[i]; u is indexed by A's columns, v by A's rows. The
   * matching itself tells whether the nonzero entries have a perfect
   * matching (the structural rank is searched for only when they have
   * none, for the message). */
  bool perfect = true, identity = false;
  int64_t non_finite = -1;
  st = build_costs(lu->ctx, a, diagonal == 2, &costs, &non_finite, &identity, u, v);
  if (st == TS_SUCCESS && identity)
    for (int64_t k = 0; k < n; k++) {
      u[k] = v[k] = 0.0;
      col_of_row[k] = (int32_t)k;
    }
  if (st == TS_SUCCESS && non_finite >= 0) {
    /* A structurally singular pattern is reported first, as it would be
     * without the matching. */
    st = tsi_lu_non_finite_entry(lu, a, diagonal, non_finite);
    goto cleanup;
  }
  if (st == TS_SUCCESS && !identity)
    st = min_cost_matching(lu->ctx, n, &costs, col_of_row, u, v, &perfect);
  if (st == TS_SUCCESS && !perfect)
    st = tsi_lu_no_perfect_matching(lu, a, diagonal);
  if (st != TS_SUCCESS)
    goto cleanup;
  lu->stats.structural_rank = n;
  /* Scaled entries of A^T are exp(u_j + v_i - c_ji) <= 1, and 1 where
   * matched; A's scales are those of A^T swapped. */
  int shift = 0;
  st = balance_scales(lu, n, u, v, costs.col_max, &shift);
  if (st != TS_SUCCESS)
    goto cleanup;
  /* ldexp by 0 is the identity, and exp(0) is 1: the usual cases skip the
   * calls (after the initial matching most duals are still 0). */
  for (int64_t k = 0; k < n; k++) {
    lu->row_perm[col_of_row[k]] = (int32_t)k;
    if (shift != 0 && (fabs(v[k]) > EXP_SAFE || fabs(u[k]) > EXP_SAFE)) {
      /* A dual whose exponential alone leaves double's range, which the
       * shift brings back: exp(x) 2^s as exp(x - m ln 2) 2^(m + s). */
      lu->row_scale[k] = shifted_exp(v[k], -shift) / costs.col_max[k];
      lu->col_scale[k] = shifted_exp(u[k], shift);
      continue;
    }
    const double exp_v = identity || v[k] == 0.0 ? 1.0 : exp(v[k]), exp_u = identity || u[k] == 0.0 ? 1.0 : exp(u[k]);
    lu->row_scale[k] = shift == 0 ? exp_v / costs.col_max[k] : exp_v / ldexp(costs.col_max[k], shift);
    lu->col_scale[k] = shift == 0 ? exp_u : ldexp(exp_u, shift);
  }
cleanup:
  free(costs.own_col_ptr);
  free(costs.own_row);
  free(costs.cost);
  free(costs.col_max);
  free(u);
  free(v);
  free(col_of_row);
  return st;
}
