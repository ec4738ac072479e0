/* The LU object: ts_lu_create (options checked and resolved by
 * lu_options.c), ts_lu_destroy, ts_lu_get_stats. */
#include "lu/analyze/analyze_internal.h"
#include "lu/numeric/numeric_internal.h"

#include <stdlib.h>

ts_status ts_lu_create(ts_context *ctx, const ts_lu_options *options, ts_lu **lu) {
  if (!lu)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_lu_create: lu is NULL");
  *lu = NULL;
  ts_lu_options resolved;
  ts_status st = tsi_lu_options_resolve(ctx, options, &resolved);
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
