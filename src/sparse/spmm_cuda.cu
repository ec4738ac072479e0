/* C = alpha*A*B + beta*C on the GPU with any schedule: the plan/kernel
 * interface of spmm_internal.h over the kernels of spmm_cuda_*.cu. Every
 * schedule is deterministic (no floating-point atomics; joins in a fixed
 * order); merge-path and work-oriented keep their partition, searched once
 * at preparation, in the plan's workspace. */
#include "spmm_cuda_kernel.cuh"

static bool is_parts(ts_schedule schedule) {
  return schedule == TS_SCHEDULE_MERGE_PATH || schedule == TS_SCHEDULE_WORK_ORIENTED;
}

extern "C" ts_status tsi_spmm_cuda_prepare(ts_context *ctx, const tsi_spmm_device *d, ts_schedule schedule,
                                           void *workspace) {
  if (!is_parts(schedule) || d->rows == 0 || d->lanes.slices == 0)
    return TS_SUCCESS;
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaError_t err = tsi_spmm_prepare_parts(d, schedule, static_cast<char *>(workspace), (cudaStream_t)ctx->stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_spmm_plan_create: %s partition search", ts_schedule_name(schedule));
  return tsi_cuda_check_launch(ctx, "ts_spmm_plan_create");
}

extern "C" ts_status tsi_spmm_cuda_run(ts_context *ctx, const tsi_spmm_device *d, ts_schedule schedule, void *workspace,
                                       double alpha, const void *b, double beta, void *c) {
  if (d->rows == 0 || d->lanes.slices == 0)
    return TS_SUCCESS;
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  tsi_spmm_call call{d, schedule, static_cast<char *>(workspace), alpha, beta, b, c, (cudaStream_t)ctx->stream};
  /* A launch's error stays pending: tsi_cuda_check_launch() collects it. */
  if (is_parts(schedule))
    (void)tsi_spmm_run_parts(call);
  else if (schedule == TS_SCHEDULE_SPLIT_ROWS)
    (void)tsi_spmm_run_split(call);
  else
    (void)tsi_spmm_run_rows(call);
  return tsi_cuda_check_launch(ctx, "ts_spmm_execute");
}
