/* SpMM with merge-path and work-oriented: the path of rows and nonzeros (or
 * of nonzeros alone) is cut into parts of TSI_SPMM_PART_ITEMS items by the
 * layer's partition search, once at preparation; each (part, column slice)
 * goes to one vector thread, which writes the rows it holds whole and keeps
 * its partial rows (at most a head, closed here, and a tail, left open) as
 * records; a second launch joins each row cut between parts in part order
 * (Merrill and Garland's carry-out fix-up, SC'16). */
#include "spmm_cuda_kernel.cuh"

using coordinate = lb::coordinate<int64_t>;

template <class T, int V, int R, bool BRow>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_parts_kernel(tsi_spmm_args<T> a, const coordinate *coords, int64_t parts,
                                                      T *head, T *tail) {
  tsi_spmm_for_each_slice<T, V, BRow>(a, parts, [&](int64_t part, const tsi_spmm_columns &col) {
    lb::for_each_tile_of_part(a.work, coords[part], coords[part + 1],
                              [&](int64_t row, int64_t first, int64_t end, bool closes, bool whole) {
                                T acc[R * V];
                                tsi_spmm_sum<T, V, R, BRow>(a, col, first, end, 1, acc);
                                if (closes && whole)
                                  tsi_spmm_store<T, V, R>(a, row, col, acc);
                                else
                                  tsi_spmm_record_store<T, V, R>(a, closes ? head : tail, part, col, acc);
                              });
  });
}

/* Rows cut between parts: the thread of the first boundary inside a row adds
 * the tails of the parts that leave it open and the head of the part that
 * closes it, in part order. */
template <class T, int V, int R, bool BRow>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_join_parts_kernel(tsi_spmm_args<T> a, const coordinate *coords, int64_t parts,
                                                           const T *head, const T *tail) {
  tsi_spmm_for_each_slice<T, V, BRow>(a, parts, [&](int64_t q, const tsi_spmm_columns &col) {
    const long long run = lb::split_tile_run(a.work, coords, parts, q);
    if (run == 0)
      return;
    T acc[R * V];
    tsi_spmm_zero<R * V>(acc);
    for (int64_t p = q - 1; p < q + run - 1; p++)
      tsi_spmm_record_add<T, V, R>(a, tail, p, col, acc);
    tsi_spmm_record_add<T, V, R>(a, head, q + run - 1, col, acc);
    tsi_spmm_store<T, V, R>(a, coords[q].tile, col, acc);
  });
}

template <class T, int V, int R, bool BRow> struct parts_fn {
  static cudaError_t call(const tsi_spmm_call &c) {
    const tsi_spmm_device *d = c.d;
    tsi_spmm_args<T> a = tsi_spmm_make_args<T>(d, c.alpha, c.b, c.beta, c.c);
    const coordinate *coords = reinterpret_cast<const coordinate *>(c.workspace + d->coords_at);
    T *head = reinterpret_cast<T *>(c.workspace + d->head_at);
    T *tail = reinterpret_cast<T *>(c.workspace + d->tail_at);
    const int64_t threads = d->parts * d->lanes.slices * d->lanes.lanes;
    constexpr auto kernel = tsi_spmm_parts_kernel<T, V, R, BRow>;
    kernel<<<tsi_spmm_blocks<kernel>(threads), TSI_SPMM_BLOCK, 0, c.stream>>>(a, coords, d->parts, head, tail);
    cudaError_t err = cudaPeekAtLastError();
    if (err != cudaSuccess || d->parts < 2)
      return err;
    constexpr auto join = tsi_spmm_join_parts_kernel<T, V, R, BRow>;
    join<<<tsi_spmm_blocks<join>(threads), TSI_SPMM_BLOCK, 0, c.stream>>>(a, coords, d->parts, head, tail);
    return cudaPeekAtLastError();
  }
};

cudaError_t tsi_spmm_run_parts(const tsi_spmm_call &call) { return tsi_spmm_by_config<parts_fn>(call.d, call); }

cudaError_t tsi_spmm_prepare_parts(const tsi_spmm_device *d, ts_schedule schedule, char *workspace,
                                   cudaStream_t stream) {
  lb::csr_work<int64_t> work = lb::make_csr_work<int64_t>(d->rows, d->nnz, d->offsets);
  coordinate *coords = reinterpret_cast<coordinate *>(workspace + d->coords_at);
  if (schedule == TS_SCHEDULE_WORK_ORIENTED)
    return lb::partition_path<lb::work_oriented>(work, coords, d->parts, TSI_SPMM_PART_ITEMS, stream);
  return lb::partition_path<lb::merge_path>(work, coords, d->parts, TSI_SPMM_PART_ITEMS, stream);
}
