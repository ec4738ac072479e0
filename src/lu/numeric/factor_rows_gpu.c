/* The strict upper or lower part of L+U by rows (columns increasing within
 * a row, each entry's position in the values): what the GPU's solves and
 * right-looking tail walk along. A transpose by counting sort, split over
 * threads by contiguous ranges of columns: each thread counts its part's
 * rows, a prefix sum over (row, thread) gives every thread its place in each
 * row, and each thread writes its entries there. The ranges are in column
 * order, so every row comes out in increasing column order whatever the
 * number of threads: the result is the serial transpose's. */
#include "lu/numeric/numeric_internal.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static void part_bounds(const ts_lu *lu, bool upper, int64_t k, int64_t *lo, int64_t *hi) {
  *lo = upper ? lu->lu_col_ptr[k] : lu->diag_pos[k] + 1;
  *hi = upper ? lu->diag_pos[k] : lu->lu_col_ptr[k + 1];
}

/* Over each part's entries in column order: count them per row (col NULL)
 * or write them at next[row]++ (next: the part's row of start). A team
 * smaller than asked for still covers every part. */
static void walk_parts(const ts_lu *lu, bool upper, int threads, int64_t *start, int32_t *col, int64_t *pos) {
  const int64_t n = lu->n;
  const int32_t *row_idx = lu->lu_row_idx;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
  {
    int first = 0, step = 1;
#ifdef _OPENMP
    first = omp_get_thread_num();
    step = omp_get_num_threads();
#endif
    for (int t = first; t < threads; t += step) {
      int64_t *next = start + (int64_t)t * (n + 1);
      for (int64_t k = n * t / threads; k < n * (t + 1) / threads; k++) {
        int64_t lo, hi;
        part_bounds(lu, upper, k, &lo, &hi);
        for (int64_t p = lo; p < hi; p++) {
          if (!col) {
            next[row_idx[p]]++;
            continue;
          }
          const int64_t at = next[row_idx[p]]++;
          col[at] = (int32_t)k;
          pos[at] = p;
        }
      }
    }
  }
}

ts_status tsi_lu_build_rows(ts_lu *lu, bool upper, int64_t **ptr_out, int32_t **col_out, int64_t **pos_out) {
  const int64_t n = lu->n;
  *ptr_out = NULL;
  *col_out = NULL;
  *pos_out = NULL;
  int threads = 1;
#ifdef _OPENMP
  threads = tsi_lu_threads(lu);
  if (lu->lu_nnz < TSI_LU_ROWS_PARALLEL_ENTRIES)
    threads = 1;
  while (threads > 1 && (int64_t)threads * (n + 1) * (int64_t)sizeof(int64_t) > TSI_LU_ROWS_COUNTER_BYTES)
    threads--;
#endif
  int64_t *ptr = (int64_t *)tsi_calloc_array(n + 1, sizeof(int64_t));
  int64_t *start = (int64_t *)tsi_calloc_array((int64_t)threads * (n + 1), sizeof(int64_t));
  if (!ptr || !start) {
    free(ptr);
    free(start);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for row offsets (n = %lld)",
                     (long long)n);
  }
  /* Thread t takes columns [n t / T, n (t + 1) / T); start[t][i] counts its
   * entries of row i, then becomes where they go. */
  walk_parts(lu, upper, threads, start, NULL, NULL);
  int64_t total = 0;
  for (int64_t i = 0; i < n; i++) {
    ptr[i] = total;
    for (int t = 0; t < threads; t++) {
      int64_t c = start[(int64_t)t * (n + 1) + i];
      start[(int64_t)t * (n + 1) + i] = total;
      total += c;
    }
  }
  ptr[n] = total;
  int32_t *col = (int32_t *)tsi_malloc_array(total > 0 ? total : 1, sizeof(int32_t));
  int64_t *pos = (int64_t *)tsi_malloc_array(total > 0 ? total : 1, sizeof(int64_t));
  if (!col || !pos) {
    free(ptr);
    free(start);
    free(col);
    free(pos);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for %lld row entries",
                     (long long)total);
  }
  walk_parts(lu, upper, threads, start, col, pos);
  free(start);
  *ptr_out = ptr;
  *col_out = col;
  *pos_out = pos;
  return TS_SUCCESS;
}
