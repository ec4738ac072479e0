/* y = alpha*A*x + beta*y on the GPU with any schedule: the plan/kernel
 * interface of spmv_cuda.h over the load-balanced kernels of spmv_cuda_*.cu.
 * Every schedule is deterministic (bitwise repeatable, no floating-point
 * atomics); merge-path and work-oriented keep their chunk partition, searched
 * once at preparation, in the plan's workspace. */
#include "sparse/spmv_cuda_kernel.cuh"

/* AUTO reaching here (the plan resolves it) runs merge-path, the schedule
 * whose time follows nnz + rows whatever the row lengths. */
static ts_schedule resolved(ts_schedule schedule) {
  return (schedule > TS_SCHEDULE_AUTO && schedule < TS_SCHEDULE_COUNT) ? schedule : TS_SCHEDULE_MERGE_PATH;
}

static bool is_chunked(ts_schedule schedule) {
  return schedule == TS_SCHEDULE_MERGE_PATH || schedule == TS_SCHEDULE_WORK_ORIENTED;
}

extern "C" size_t tsi_spmv_cuda_workspace_bytes(const tsi_spmv_device_matrix *a, ts_schedule schedule, int group_size) {
  (void)group_size;
  schedule = resolved(schedule);
  if (a->rows == 0)
    return 0;
  if (schedule == TS_SCHEDULE_SPLIT_ROWS)
    return tsi_spmv_split_layout_of(a->split_pieces, a->split_multi, tsi_spmv_sum_bytes(a->dtype)).bytes;
  if (!is_chunked(schedule))
    return 0;
  return tsi_spmv_workspace_chunked(schedule, a);
}

static ts_status check_workspace(ts_context *ctx, const tsi_spmv_device_matrix *a, ts_schedule schedule,
                                 const void *workspace, size_t workspace_bytes, const char *op) {
  size_t need = tsi_spmv_workspace_chunked(schedule, a);
  if (!workspace || workspace_bytes < need)
    return tsi_error(ctx, TS_ERROR_INTERNAL, "%s: %s needs a workspace of %zu bytes, the plan holds %zu", op,
                     ts_schedule_name(schedule), need, workspace ? workspace_bytes : (size_t)0);
  return TS_SUCCESS;
}

/* The entry point of the schedule's kernel (split-rows has its own launch). */
static cudaError_t dispatch(ts_schedule schedule, int group_size, const tsi_spmv_call &call) {
  switch (schedule) {
  case TS_SCHEDULE_THREAD_MAPPED:
  case TS_SCHEDULE_WARP_MAPPED:
  case TS_SCHEDULE_BLOCK_MAPPED:
    return tsi_spmv_run_mapped(schedule, call);
  case TS_SCHEDULE_GROUP_MAPPED:
    return group_size <= 32 ? tsi_spmv_run_group_small(group_size, call) : tsi_spmv_run_group_large(group_size, call);
  case TS_SCHEDULE_SPLIT_ROWS:
    return tsi_spmv_run_split(call);
  default:
    return tsi_spmv_run_chunked(schedule, call);
  }
}

/* Blocks of the schedule's kernel the device holds at once: its SMs times
 * the kernel's occupancy, asked once here so that no execution asks again. */
static ts_status find_resident_blocks(ts_context *ctx, tsi_spmv_device_matrix *a, ts_schedule schedule,
                                      int group_size) {
  int sms = 0, per_sm = 0;
  cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_spmv_plan_create: the device's multiprocessor count");
  tsi_spmv_call measure{a, nullptr, 0.0, 0.0, nullptr, nullptr, nullptr, 1, &per_sm};
  err = dispatch(schedule, group_size, measure);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_spmv_plan_create: occupancy of the %s kernel", ts_schedule_name(schedule));
  a->resident_blocks = (per_sm > 0 ? per_sm : 1) * (sms > 0 ? sms : 1);
  return TS_SUCCESS;
}

extern "C" ts_status tsi_spmv_cuda_prepare(ts_context *ctx, tsi_spmv_device_matrix *a, ts_schedule schedule,
                                           int group_size, void *workspace, size_t workspace_bytes) {
  schedule = resolved(schedule);
  if (a->rows == 0)
    return TS_SUCCESS;
  ts_status st = tsi_cuda_activate(ctx);
  if (st == TS_SUCCESS && schedule != TS_SCHEDULE_SPLIT_ROWS)
    st = find_resident_blocks(ctx, a, schedule, group_size > 0 ? group_size : TSI_AUTO_GROUP_SIZE);
  if (st != TS_SUCCESS || !is_chunked(schedule))
    return st;
  st = check_workspace(ctx, a, schedule, workspace, workspace_bytes, "ts_spmv_plan_create");
  if (st != TS_SUCCESS)
    return st;
  cudaError_t err = tsi_spmv_prepare_chunked(schedule, a, workspace, (cudaStream_t)ctx->stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_spmv_plan_create: %s partition search", ts_schedule_name(schedule));
  return tsi_cuda_check_launch(ctx, "ts_spmv_plan_create");
}

extern "C" ts_status tsi_spmv_cuda_run(ts_context *ctx, const tsi_spmv_device_matrix *a, ts_schedule schedule,
                                       int group_size, void *workspace, size_t workspace_bytes, double alpha,
                                       const void *x, double beta, void *y) {
  if (a->rows == 0)
    return TS_SUCCESS;
  schedule = resolved(schedule);
  if (schedule == TS_SCHEDULE_GROUP_MAPPED) {
    if (group_size == 0)
      group_size = TSI_AUTO_GROUP_SIZE;
    if (group_size < 1 || group_size > 1024 || (group_size & (group_size - 1)) != 0)
      return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                       "ts_spmv_execute: group size %d is not a power of two from 1 to 1024", group_size);
  }
  if (is_chunked(schedule)) {
    ts_status st = check_workspace(ctx, a, schedule, workspace, workspace_bytes, "ts_spmv_execute");
    if (st != TS_SUCCESS)
      return st;
  }
  if (schedule == TS_SCHEDULE_SPLIT_ROWS && a->split_pieces > 0) {
    size_t need = tsi_spmv_split_layout_of(a->split_pieces, a->split_multi, tsi_spmv_sum_bytes(a->dtype)).bytes;
    if (!workspace || workspace_bytes < need)
      return tsi_error(ctx, TS_ERROR_INTERNAL,
                       "ts_spmv_execute: split-rows needs a workspace of %zu bytes, the plan "
                       "holds %zu",
                       need, workspace ? workspace_bytes : (size_t)0);
  }
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  if (schedule == TS_SCHEDULE_SPLIT_ROWS &&
      (group_size < 0 || group_size > TSI_SPLIT_MAX_LANES || (group_size & (group_size - 1)) != 0))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmv_execute: split-rows takes 1, 2, 4 or 8 threads a short row, not %d", group_size);
  if (a->nnz == 0 && (beta == 0.0 || beta == 1.0)) {
    /* No entries: y = beta*y is a fill or nothing; no kernel launch, whose
     * host cost would be most of the call (spmv-schedules-empty-20261201-h200.csv). */
    if (beta == 0.0) {
      cudaError_t err = cudaMemsetAsync(y, 0, (size_t)a->rows * ts_dtype_size(a->dtype), (cudaStream_t)ctx->stream);
      if (err != cudaSuccess)
        return tsi_cuda_error(ctx, err, "ts_spmv_execute: clearing y (no entries)");
    }
    return TS_SUCCESS;
  }
  tsi_spmv_call call{a,      workspace, alpha, beta, x, y, (cudaStream_t)ctx->stream, group_size > 0 ? group_size : 1,
                     nullptr};
  (void)dispatch(schedule, group_size, call);
  return tsi_cuda_check_launch(ctx, "ts_spmv_execute");
}
