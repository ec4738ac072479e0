/* SpMM with split-rows: one vector thread per (short row, column slice) as
 * thread-mapped, and the rows longer than TSI_SPMM_SPLIT_PIECE nonzeros cut
 * into pieces of that many, one vector thread per (piece, slice), each piece
 * kept as a record; a second launch adds each long row's pieces in piece
 * order (the plan's tables list them). */
#include "spmm_cuda_kernel.cuh"

/* x below the rows: row x, skipped when long; above: piece x - rows. */
template <class T, int V, int R, bool BRow>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_split_kernel(tsi_spmm_args<T> a, const int32_t *piece_row,
                                                      const int64_t *piece_begin, int64_t pieces, T *records) {
  const int64_t rows = a.work.tiles;
  tsi_spmm_for_each_slice<T, V, BRow>(a, rows + pieces, [&](int64_t x, const tsi_spmm_columns &col) {
    int64_t first, end;
    if (x < rows) {
      first = a.work.tile_begin(x);
      end = a.work.tile_end(x);
      if (end - first > TSI_SPMM_SPLIT_PIECE)
        return; /* a long row: its pieces are further on */
    } else {
      const int64_t row_end = a.work.tile_end(__ldg(piece_row + (x - rows)));
      first = __ldg(piece_begin + (x - rows));
      end = row_end - first < TSI_SPMM_SPLIT_PIECE ? row_end : first + TSI_SPMM_SPLIT_PIECE;
    }
    T acc[R * V];
    tsi_spmm_sum<T, V, R, BRow>(a, col, first, end, 1, acc);
    if (x < rows)
      tsi_spmm_store<T, V, R>(a, x, col, acc);
    else
      tsi_spmm_record_store<T, V, R>(a, records, x - rows, col, acc);
  });
}

template <class T, int V, int R, bool BRow>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_join_pieces_kernel(tsi_spmm_args<T> a, const int32_t *long_row,
                                                            const int64_t *long_first, int64_t long_rows,
                                                            const T *records) {
  tsi_spmm_for_each_slice<T, V, BRow>(a, long_rows, [&](int64_t i, const tsi_spmm_columns &col) {
    T acc[R * V];
    tsi_spmm_zero<R * V>(acc);
    const int64_t last = __ldg(long_first + i + 1);
    for (int64_t p = __ldg(long_first + i); p < last; p++)
      tsi_spmm_record_add<T, V, R>(a, records, p, col, acc);
    tsi_spmm_store<T, V, R>(a, __ldg(long_row + i), col, acc);
  });
}

template <class T, int V, int R, bool BRow> struct split_fn {
  static cudaError_t call(const tsi_spmm_call &c) {
    const tsi_spmm_device *d = c.d;
    tsi_spmm_args<T> a = tsi_spmm_make_args<T>(d, c.alpha, c.b, c.beta, c.c);
    const int32_t *piece_row = reinterpret_cast<const int32_t *>(c.workspace + d->piece_row_at);
    const int64_t *piece_begin = reinterpret_cast<const int64_t *>(c.workspace + d->piece_begin_at);
    T *records = reinterpret_cast<T *>(c.workspace + d->records_at);
    const int64_t threads = (d->rows + d->pieces) * d->lanes.slices * d->lanes.lanes;
    constexpr auto kernel = tsi_spmm_split_kernel<T, V, R, BRow>;
    kernel<<<tsi_spmm_blocks<kernel>(threads), TSI_SPMM_BLOCK, 0, c.stream>>>(a, piece_row, piece_begin, d->pieces,
                                                                              records);
    cudaError_t err = cudaPeekAtLastError();
    if (err != cudaSuccess || d->pieces == 0)
      return err;
    const int32_t *long_row = reinterpret_cast<const int32_t *>(c.workspace + d->long_row_at);
    const int64_t *long_first = reinterpret_cast<const int64_t *>(c.workspace + d->long_first_at);
    constexpr auto join = tsi_spmm_join_pieces_kernel<T, V, R, BRow>;
    join<<<tsi_spmm_blocks<join>(d->long_rows * d->lanes.slices * d->lanes.lanes), TSI_SPMM_BLOCK, 0, c.stream>>>(
        a, long_row, long_first, d->long_rows, records);
    return cudaPeekAtLastError();
  }
};

cudaError_t tsi_spmm_run_split(const tsi_spmm_call &call) { return tsi_spmm_by_config<split_fn>(call.d, call); }
