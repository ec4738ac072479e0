/* Cancellation between the GPU factorization's launches: the host queues
 * launches far ahead of the device, so a check waits for the device first
 * (its progress is then true), and at most every TSI_LU_CANCEL_CHECK_SECONDS
 * of the host's time: about once a second of the device's work at worst (a
 * full launch queue), for a pipeline bubble per check. A single kernel is
 * not interrupted. */
#include "lu/numeric/numeric_internal.h"

ts_status tsi_lu_gpu_check_cancel(ts_context *ctx, double *last_check, int64_t done, int64_t total) {
  if (!ctx || !ctx->progress)
    return TS_SUCCESS;
  if (tsi_seconds() - *last_check < TSI_LU_CANCEL_CHECK_SECONDS)
    return TS_SUCCESS;
  ts_status st = tsi_cuda_sync(ctx);
  *last_check = tsi_seconds();
  return st != TS_SUCCESS ? st : tsi_progress(ctx, done, total);
}
