/* The level schedules of the GPU's triangular solves, on the host: the two
 * triangles of one solve (L and U, or U^T and L^T) side by side on two
 * threads, each one dependent sweep over its triangle. */
#include "lu/solve/solve_internal.h"

#include <stdlib.h>

/* Levels of one solve on the host: level[r] = 1 + the largest level of the
 * entries it reads; rows then bucketed by level into s->level_ptr and
 * items (n); false when out of memory. */
static bool solve_levels(const ts_lu *lu, int mode, tsi_lu_solve_schedule *s, int32_t *items) {
  const int64_t n = lu->n;
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *row_idx = lu->lu_row_idx;
  int64_t *level = tsi_calloc_array(n > 0 ? n : 1, sizeof(int64_t));
  if (!level)
    return false;
  int64_t levels = 0;
  for (int64_t step = 0; step < n; step++) {
    const bool forward = mode == TSI_LU_SOLVE_LOWER || mode == TSI_LU_SOLVE_UPPER_T;
    const int64_t k = forward ? step : n - 1 - step;
    const bool lower = mode == TSI_LU_SOLVE_LOWER || mode == TSI_LU_SOLVE_LOWER_T;
    const int64_t lo = lower ? diag_pos[k] + 1 : col_ptr[k], hi = lower ? col_ptr[k + 1] : diag_pos[k];
    if (mode == TSI_LU_SOLVE_LOWER || mode == TSI_LU_SOLVE_UPPER) {
      /* Column k is final here: it pushes to the rows it enters. */
      for (int64_t p = lo; p < hi; p++)
        if (level[row_idx[p]] < level[k] + 1)
          level[row_idx[p]] = level[k] + 1;
    } else {
      for (int64_t p = lo; p < hi; p++)
        if (level[k] < level[row_idx[p]] + 1)
          level[k] = level[row_idx[p]] + 1;
    }
    if (level[k] + 1 > levels)
      levels = level[k] + 1;
  }
  free(s->level_ptr); /* left by an earlier attempt that failed further on */
  s->level_ptr = tsi_calloc_array(levels + 1, sizeof(int64_t));
  if (!s->level_ptr) {
    free(level);
    return false;
  }
  for (int64_t k = 0; k < n; k++)
    s->level_ptr[level[k] + 1]++;
  for (int64_t l = 0; l < levels; l++)
    s->level_ptr[l + 1] += s->level_ptr[l];
  for (int64_t k = 0; k < n; k++)
    items[s->level_ptr[level[k]]++] = (int32_t)k;
  for (int64_t l = levels; l > 0; l--)
    s->level_ptr[l] = s->level_ptr[l - 1];
  s->level_ptr[0] = 0;
  s->levels = levels;
  free(level);
  return true;
}

bool tsi_lu_solve_levels(const ts_lu *lu, const int modes[2], tsi_lu_solve_schedule *pair[2], int32_t *items[2]) {
  bool made[2] = {false, false};
#pragma omp parallel for num_threads(2) schedule(static, 1)
  for (int t = 0; t < 2; t++)
    made[t] = solve_levels(lu, modes[t], pair[t], items[t]);
  return made[0] && made[1];
}
