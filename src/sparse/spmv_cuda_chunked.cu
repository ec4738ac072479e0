/* SpMV with the merge-path and work-oriented schedules: their workspace (the
 * chunk start points, records of rows split between blocks, a counter),
 * searched once at preparation, and the run. */
#include "sparse/spmv_cuda_kernel.cuh"

template <class S, class T, class Index> struct workspace_fn {
  static size_t call(const tsi_spmv_device_matrix *a) {
    return lb::workspace_bytes<S, tsi_spmv_sum<T>, Index>(Index(a->rows), Index(a->nnz));
  }
};

template <class S, class T, class Index> struct prepare_fn {
  static cudaError_t call(const tsi_spmv_device_matrix *a, void *workspace, cudaStream_t stream) {
    lb::plan<Index> p = tsi_spmv_plan_of<S, T, Index>(a, workspace);
    return lb::prepare<S>(p, tsi_spmv_work<Index>(a), stream);
  }
};

size_t tsi_spmv_workspace_chunked(ts_schedule schedule, const tsi_spmv_device_matrix *a) {
  if (schedule == TS_SCHEDULE_WORK_ORIENTED)
    return tsi_spmv_by_type<lb::work_oriented, workspace_fn>(a);
  return tsi_spmv_by_type<lb::merge_path, workspace_fn>(a);
}

cudaError_t tsi_spmv_prepare_chunked(ts_schedule schedule, const tsi_spmv_device_matrix *a, void *workspace,
                                     cudaStream_t stream) {
  if (schedule == TS_SCHEDULE_WORK_ORIENTED)
    return tsi_spmv_by_type<lb::work_oriented, prepare_fn>(a, workspace, stream);
  return tsi_spmv_by_type<lb::merge_path, prepare_fn>(a, workspace, stream);
}

cudaError_t tsi_spmv_run_chunked(ts_schedule schedule, const tsi_spmv_call &c) {
  if (schedule == TS_SCHEDULE_WORK_ORIENTED)
    return tsi_spmv_by_type<lb::work_oriented, tsi_spmv_launch_fn>(c.a, c);
  return tsi_spmv_by_type<lb::merge_path, tsi_spmv_launch_fn>(c.a, c);
}
