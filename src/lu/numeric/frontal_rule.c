/* Which numeric method the GPU factorization takes, the columns (the
 * left-looking levels with their right-looking tail) or the fronts (the
 * multifrontal kernels), from a model of each one's time on the device:
 *   fronts:  levels of the front tree x the cost of a level's launch, the
 *            large fronts' panel steps x the cost of a step's three
 *            launches, the dense flops at the panel kernels' rate, and the
 *            fronts' storage moved about three times (cleared, factored,
 *            gathered into the pattern);
 *   columns: the column levels x the cost of a dataflow level, and the
 *            flops at the sparse updates' rate.
 * The fronts must also fit: their storage within TSI_LU_FRONT_BYTES and a
 * quarter of the free device memory (the caller's free_bytes). The
 * constants (lu_tuning.h, TSI_LU_MODEL_*) are estimates until a run of
 * bench/lu_numeric_gpu with both methods forced on the GPU calibrates them
 * (the fronts' kernels: frontal_cuda.cu).
 *
 * On the host (tsi_lu_frontal_chosen_host) a measured rule instead, from the
 * analysis's figures only, never the threads or the load, so that a matrix
 * always gets the same method and the same bits: the fronts where the fill
 * is dense (lu_tuning.h, TSI_LU_HOST_FRONT_*). */
#include "lu/numeric/numeric_internal.h"
#include "lu/symbolic/symbolic_internal.h"

ts_status tsi_lu_fronts_get(ts_lu *lu, tsi_lu_fronts **fronts) {
  if (!lu->fronts) {
    const tsi_lu_front_rule rule = tsi_lu_front_rule_default();
    ts_status st = tsi_lu_fronts_build(lu, &rule, &lu->fronts);
    if (st != TS_SUCCESS)
      return st;
  }
  *fronts = lu->fronts;
  return TS_SUCCESS;
}

/* Panel steps of the large fronts: per level, the most any of its fronts
 * above TSI_LU_FRONT_SMALL rows needs. */
static int64_t panel_steps(const tsi_lu_fronts *fr) {
  int64_t steps = 0;
  for (int64_t l = 0; l < fr->levels; l++) {
    int64_t most = 0;
    for (int64_t s = fr->level_ptr[l]; s < fr->level_ptr[l + 1]; s++)
      if (fr->size[s] > TSI_LU_FRONT_SMALL) {
        const int64_t need = (fr->pivots[s] + TSI_LU_FRONT_PANEL - 1) / TSI_LU_FRONT_PANEL;
        most = need > most ? need : most;
      }
    steps += most;
  }
  return steps;
}

double tsi_lu_frontal_model_seconds(const tsi_lu_fronts *fr) {
  const double bytes = 3.0 * 8.0 * (double)fr->offset[fr->count];
  return TSI_LU_MODEL_FRONT_LEVEL_SECONDS * (double)fr->levels +
         TSI_LU_MODEL_PANEL_STEP_SECONDS * (double)panel_steps(fr) + fr->flops / TSI_LU_MODEL_FRONT_FLOPS +
         bytes / TSI_LU_MODEL_BYTES_PER_SECOND;
}

double tsi_lu_column_model_seconds(const ts_lu *lu) {
  return TSI_LU_MODEL_COLUMN_LEVEL_SECONDS * (double)lu->levels + lu->stats.flops / TSI_LU_MODEL_COLUMN_FLOPS;
}

bool tsi_lu_frontal_chosen(ts_lu *lu, int64_t free_bytes, const char **reason) {
  if (lu->switches.numeric_method == TSI_LU_METHOD_COLUMNS) {
    *reason = "columns (switch)";
    return false;
  }
  /* Under AUTO, columns the model gives a few milliseconds keep them
   * without building the fronts (a host pass over L + U at the first
   * factorization, which such a matrix's refactorizations could not repay). */
  if (lu->switches.numeric_method != TSI_LU_METHOD_FRONTS &&
      tsi_lu_column_model_seconds(lu) < TSI_LU_FRONT_MIN_COLUMN_SECONDS) {
    *reason = "columns (the model's time of the columns is too short to build the fronts for)";
    return false;
  }
  tsi_lu_fronts *fr = NULL;
  if (tsi_lu_fronts_get(lu, &fr) != TS_SUCCESS) {
    *reason = "columns (the fronts could not be built)";
    return false;
  }
  if (lu->switches.numeric_method == TSI_LU_METHOD_FRONTS) {
    *reason = "fronts (switch)";
    return true;
  }
  const int64_t budget = free_bytes / 4 < TSI_LU_FRONT_BYTES ? free_bytes / 4 : TSI_LU_FRONT_BYTES;
  if (fr->offset[fr->count] > budget / 8) {
    *reason = "columns (the fronts do not fit the device budget)";
    return false;
  }
  if (tsi_lu_frontal_model_seconds(fr) > tsi_lu_column_model_seconds(lu)) {
    *reason = "columns (the model's time of the fronts is the longer)";
    return false;
  }
  *reason = "fronts (the model's time of the fronts is the shorter)";
  return true;
}

bool tsi_lu_frontal_chosen_host(ts_lu *lu) {
  if (lu->block_ptr)
    return false; /* the fronts factor the whole matrix */
  if (lu->switches.numeric_method != TSI_LU_METHOD_AUTO)
    return lu->switches.numeric_method == TSI_LU_METHOD_FRONTS;
  const double entries = (double)(lu->lu_nnz > 0 ? lu->lu_nnz : 1);
  /* Sparse fill (circuits) keeps the columns without building the fronts. */
  if (lu->factor_work < TSI_LU_HOST_FRONT_WORK_PER_ENTRY * entries)
    return false;
  tsi_lu_fronts *fr = NULL;
  if (tsi_lu_fronts_get(lu, &fr) != TS_SUCCESS)
    return false;
  return fr->flops <= TSI_LU_HOST_FRONT_FLOP_RATIO * lu->factor_work &&
         (double)fr->offset[fr->count] <= TSI_LU_HOST_FRONT_STORAGE_RATIO * entries;
}
