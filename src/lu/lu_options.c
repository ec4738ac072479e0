/* The options of an LU object (ts_lu_options, documented in tessera/lu.h):
 * checked, and each 0 replaced by its default, when the object is created. */
#include "lu/lu_internal.h"

#include <math.h>
#include <string.h>

/* Check the caller's options and replace each 0 by its default, so that a
 * zero-initialised struct and NULL mean the same. float_factors is kept as
 * 0 or 1. */
ts_status tsi_lu_options_resolve(ts_context *ctx, const ts_lu_options *given, ts_lu_options *resolved) {
  const char *op = "ts_lu_create";
  ts_lu_options o;
  if (given)
    o = *given;
  else
    memset(&o, 0, sizeof o);
  if (o.ordering != TS_LU_ORDER_AUTO && o.ordering != TS_LU_ORDER_AMD && o.ordering != TS_LU_ORDER_COLAMD &&
      o.ordering != TS_LU_ORDER_NATURAL && o.ordering != TS_LU_ORDER_NESTED_DISSECTION)
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
  if (!isfinite(o.amd_dense))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: amd_dense %g is not finite", op, o.amd_dense);
  if (o.pivoting != TS_LU_PIVOTING_AUTO && o.pivoting != TS_LU_PIVOTING_STATIC && o.pivoting != TS_LU_PIVOTING_PARTIAL)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: unknown pivoting %d (want TS_LU_PIVOTING_AUTO, _STATIC or _PARTIAL)", op, (int)o.pivoting);
  if (o.amd_dense == 0.0)
    o.amd_dense = TSI_LU_AMD_DENSE_DEFAULT;
  *resolved = o;
  return TS_SUCCESS;
}
