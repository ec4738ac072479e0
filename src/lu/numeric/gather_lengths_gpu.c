/* The length of each column's left-looking gather, for the GPU schedule's
 * group sizes and flop count: over the threads, each column's sum in a fixed
 * order (the same numbers whatever their count): one pass over U reading
 * the column lengths of L at random, slow on one thread for large orders. */
#include "lu/numeric/numeric_internal.h"

#include <stdlib.h>

int64_t *tsi_lu_gather_lengths(const ts_lu *lu) {
  const int64_t n = lu->n;
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  int64_t *gathered = tsi_malloc_array(n > 0 ? n : 1, sizeof(int64_t));
  if (!gathered)
    return NULL;
  const int threads = n < TSI_LU_GATHER_PARALLEL_COLUMNS ? 1 : tsi_lu_threads(lu);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1024)
  for (int64_t k = 0; k < n; k++) {
    int64_t sum = 0;
    for (int64_t p = col_ptr[k]; p < diag_pos[k]; p++) {
      const int32_t j = row_idx[p];
      sum += col_ptr[j + 1] - diag_pos[j] - 1;
    }
    gathered[k] = sum;
  }
  return gathered;
}
