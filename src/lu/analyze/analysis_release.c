/* Release of an analysis: its permutations, scaling, patterns and levels,
 * and what was built on them (the device cache, the pivoted factors); used
 * before a new analysis, after a failed one, and by ts_lu_destroy. */
#include "lu/analyze/analyze_internal.h"
#include "lu/numeric/numeric_internal.h"
#include "lu/symbolic/symbolic_internal.h"

#include <math.h>
#include <stdlib.h>

void tsi_lu_analysis_release(ts_lu *lu) {
  tsi_lu_cuda_release(lu); /* the device's copy of the pattern and factors */
  tsi_lu_pivoted_release(lu);
  tsi_lu_fronts_free(lu->fronts);
  lu->fronts = NULL;
  free(lu->row_perm);
  free(lu->col_perm);
  free(lu->row_scale);
  free(lu->col_scale);
  free(lu->a_row_ptr);
  free(lu->a_col_idx);
  free(lu->a_to_lu);
  free(lu->lu_col_ptr);
  free(lu->lu_row_idx);
  free(lu->diag_pos);
  free(lu->level_ptr);
  free(lu->level_cols);
  free(lu->block_ptr);
  free(lu->block_begin);
  lu->block_ptr = NULL;
  lu->block_begin = NULL;
  lu->row_perm = lu->col_perm = NULL;
  lu->row_scale = lu->col_scale = NULL;
  lu->a_row_ptr = NULL;
  lu->a_col_idx = NULL;
  lu->a_to_lu = NULL;
  lu->lu_col_ptr = NULL;
  lu->lu_row_idx = NULL;
  lu->diag_pos = NULL;
  lu->level_ptr = NULL;
  lu->level_cols = NULL;
  lu->n = lu->nnz_a = lu->lu_nnz = lu->levels = 0;
  lu->schedule_checked = 0;
  lu->pivot_base_set = 0;
  lu->factor_work = 0.0;
  lu->host_analysis = 0;
  lu->blocks_work = INFINITY;
}
