/* Creation (options validated, defaults resolved), release and statistics of
 * an LU object. */
#include "lu_analysis.h"
#include "lu_pivoted.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Defaults of ts_lu_options (documented in tessera/lu.h). */
#define TSI_LU_PIVOT_THRESHOLD_F64 1e-14
#define TSI_LU_PIVOT_THRESHOLD_F32 1e-7
/* Refinement stops once a step fails to halve the backward error, so a
 * high cap costs nothing where one or two steps suffice, and lets it finish
 * where many perturbed pivots slow it down (jagmesh7: 190 perturbed pivots,
 * 21 steps to 3e-16). */
#define TSI_LU_REFINE_MAX_STEPS 30
#define TSI_LU_REFINE_TOLERANCE 1e-15

/* Check the caller's options and replace each 0 by its default, so that a
 * zero-initialised struct and NULL mean the same. float_factors is kept as
 * 0 or 1. */
static ts_status resolve_options(ts_context *ctx, const ts_lu_options *given, ts_lu_options *resolved) {
  const char *op = "ts_lu_create";
  ts_lu_options o;
  if (given)
    o = *given;
  else
    memset(&o, 0, sizeof o);
  if (o.ordering != TS_LU_ORDER_AMD && o.ordering != TS_LU_ORDER_COLAMD && o.ordering != TS_LU_ORDER_NATURAL)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown ordering %d", op, (int)o.ordering);
  o.float_factors = o.float_factors != 0;
  if (!(o.pivot_threshold >= 0.0) || !isfinite(o.pivot_threshold))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: pivot_threshold %g is not a finite value >= 0", op,
                     o.pivot_threshold);
  if (o.pivot_threshold == 0.0)
    o.pivot_threshold = o.float_factors ? TSI_LU_PIVOT_THRESHOLD_F32 : TSI_LU_PIVOT_THRESHOLD_F64;
  if (o.refine_max_steps < -1)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: refine_max_steps %d (want -1 for none, 0 for the default, or more)", op, o.refine_max_steps);
  if (o.refine_max_steps == 0)
    o.refine_max_steps = TSI_LU_REFINE_MAX_STEPS;
  if (!(o.refine_tolerance >= 0.0) || !isfinite(o.refine_tolerance))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: refine_tolerance %g is not a finite value >= 0", op,
                     o.refine_tolerance);
  if (o.refine_tolerance == 0.0)
    o.refine_tolerance = TSI_LU_REFINE_TOLERANCE;
  /* 0 stays 0: the automatic budget depends on the order, known at analysis. */
  if (o.symbolic_memory_budget < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: symbolic_memory_budget %lld is negative", op,
                     (long long)o.symbolic_memory_budget);
  if (o.backend != TS_BACKEND_AUTO && o.backend != TS_BACKEND_CPU && o.backend != TS_BACKEND_CUDA)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown backend %d", op, (int)o.backend);
  if (o.symbolic_backend != TS_BACKEND_AUTO && o.symbolic_backend != TS_BACKEND_CPU &&
      o.symbolic_backend != TS_BACKEND_CUDA)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown symbolic backend %d", op, (int)o.symbolic_backend);
  if (o.symbolic_backend == TS_BACKEND_CUDA && (!ctx || ctx->backend != TS_BACKEND_CUDA))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the symbolic factorization on the GPU needs a CUDA context",
                     op);
  if (o.levelize_backend != TS_BACKEND_AUTO && o.levelize_backend != TS_BACKEND_CPU &&
      o.levelize_backend != TS_BACKEND_CUDA)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown levelize backend %d", op, (int)o.levelize_backend);
  if (o.levelize_backend == TS_BACKEND_CUDA && (!ctx || ctx->backend != TS_BACKEND_CUDA))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: the levelization on the GPU needs a CUDA context", op);
  *resolved = o;
  return TS_SUCCESS;
}

ts_status ts_lu_create(ts_context *ctx, const ts_lu_options *options, ts_lu **lu) {
  if (!lu)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_create: lu is NULL");
  *lu = NULL;
  ts_lu_options resolved;
  ts_status st = resolve_options(ctx, options, &resolved);
  if (st != TS_SUCCESS)
    return st;
  ts_lu *created = calloc(1, sizeof *created);
  if (!created)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_create: cannot allocate the LU object");
  created->ctx = ctx;
  tsi_context_retain(ctx); /* released by ts_lu_destroy */
  created->options = resolved;
  created->state = TSI_LU_CREATED;
  created->stats.singular_column = -1;
  *lu = created;
  return TS_SUCCESS;
}

/* Free the analysis (permutations, scaling, patterns, levels) and reset its
 * fields, keeping the options; used before a new analysis and by destroy. */
void tsi_lu_analysis_release(ts_lu *lu) {
  tsi_lu_cuda_release(lu); /* the device's copy of the pattern and factors */
  tsi_lu_pivoted_release(lu);
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
}

void ts_lu_destroy(ts_lu *lu) {
  if (!lu)
    return;
  /* The numeric code owns its values and cache (lu_values, lu_values_f32,
   * numeric_aux, a_values) and releases them. */
  tsi_lu_numeric_release(lu);
  tsi_lu_analysis_release(lu);
  ts_context *ctx = lu->ctx;
  free(lu);
  tsi_context_release(ctx);
}

ts_status ts_lu_get_stats(const ts_lu *lu, ts_lu_stats *stats) {
  if (!lu || !stats)
    return tsi_error(lu ? lu->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_lu_get_stats: %s is NULL",
                     lu ? "stats" : "lu");
  *stats = lu->stats;
  return TS_SUCCESS;
}
