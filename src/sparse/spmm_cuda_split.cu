/* SpMM with split-rows: one vector thread per (short row, column slice) as
 * thread-mapped, and the rows longer than a piece (the plan's d->piece
 * nonzeros) cut into pieces of that many, one vector thread per (piece,
 * slice), each piece kept as a record; a second launch joins each long
 * row's pieces, a warp per (long row, slice) or a block for a huge row of
 * many pieces: its vector threads take the pieces in turn and
 * lb::group_sum() adds their sums in a fixed tree (the plan's tables list
 * the pieces, the huge rows first). With vector threads of a whole warp
 * and a row-major B the short rows go in groups of consecutive rows, a warp
 * each (tsi_spmm_group_item, the long rows left out), as thread-mapped. */
#include "spmm_cuda_kernel.cuh"

/* x below the rows: row x, skipped when long; above: piece x - rows. */
template <class T, int V, int R, bool BRow>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_split_kernel(tsi_spmm_args<T> a, const int32_t *piece_row,
                                                      const int64_t *piece_begin, int64_t pieces, int64_t piece,
                                                      T *records) {
  const int64_t rows = a.work.tiles;
  tsi_spmm_for_each_slice<T, V, BRow>(a, rows + pieces, [&](int64_t x, const tsi_spmm_columns &col) {
    int64_t first, end;
    if (x < rows) {
      first = a.work.tile_begin(x);
      end = a.work.tile_end(x);
      if (end - first > piece)
        return; /* a long row: its pieces are further on */
    } else {
      const int64_t row_end = a.work.tile_end(__ldg(piece_row + (x - rows)));
      first = __ldg(piece_begin + (x - rows));
      end = row_end - first < piece ? row_end : first + piece;
    }
    T acc[R * V];
    tsi_spmm_sum<T, V, R, BRow>(a, col, first, end, 1, acc);
    if (x < rows)
      tsi_spmm_store<T, V, R>(a, x, col, acc);
    else
      tsi_spmm_record_store<T, V, R>(a, records, x - rows, col, acc);
  });
}

/* Vector threads of a whole warp, row-major B: items below groups x passes
 * are groups of short rows with S slices, the rest (piece, slice) pairs. */
template <class T, int V, int S>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_split_groups_kernel(tsi_spmm_args<T> a, int group_rows,
                                                             const int32_t *piece_row, const int64_t *piece_begin,
                                                             int64_t pieces, int64_t piece, T *records) {
  const lb::lane_position at = lb::position_of(32, 32);
  const int64_t groups = (a.work.tiles + group_rows - 1) / group_rows;
  const int64_t passes = (a.slices + S - 1) / S;
  const int64_t row_items = groups * passes;
  for (int64_t g = at.group; g < row_items + pieces * a.slices; g += at.groups) {
    if (g < row_items) {
      tsi_spmm_group_item<T, V, S>(a, g / passes, g % passes, group_rows, piece);
      continue;
    }
    int64_t x, slice;
    tsi_spmm_split_index<true>(g - row_items, pieces, a.slices, x, slice);
    const int64_t row_end = a.work.tile_end(__ldg(piece_row + x));
    const int64_t first = __ldg(piece_begin + x);
    const int64_t end = row_end - first < piece ? row_end : first + piece;
    const tsi_spmm_columns col = tsi_spmm_columns_of<T, V>(a, slice, at.lane);
    T acc[V];
    tsi_spmm_sum<T, V, 1, true>(a, col, first, end, 1, acc);
    tsi_spmm_record_store<T, V, 1>(a, records, x, col, acc);
  }
}

/* Threads that join one (long row, slice) of the warp kind: a warp, or the
 * vector thread when it is a warp already. */
static __host__ __device__ int join_threads(int lanes) { return lanes < 32 ? 32 : lanes; }

/* Long row i, slice `slice`, joined by `threads` threads (a warp's or the
 * block's, `rank` this thread's vector thread among them): vector thread r
 * adds records first + r, first + r + step, ... (J loaded before the first
 * is added), then group_sum() joins the vector threads' sums in its fixed
 * tree (through `scratch` for a block). */
template <class T, int V, int R, bool BRow>
__device__ void tsi_spmm_join_row(const tsi_spmm_args<T> &a, const int32_t *long_row, const int64_t *long_first,
                                  const T *records, int64_t i, int64_t slice, int threads, int lane, int rank,
                                  lb::group_sum_storage<TSI_SPMM_BLOCK, T, R * V> *scratch) {
  constexpr int J = R > 1 ? (sizeof(T) > 4 ? 1 : 2) : TSI_SPMM_JOIN_BATCH;
  const int step = threads / a.lanes;
  const tsi_spmm_columns col = tsi_spmm_columns_of<T, V>(a, slice, lane);
  T acc[R * V];
  tsi_spmm_zero<R * V>(acc);
  const int64_t last = __ldg(long_first + i + 1);
  for (int64_t p = __ldg(long_first + i) + rank; p < last; p += (int64_t)J * step) {
    T part[J][R * V];
#pragma unroll
    for (int j = 0; j < J; j++) {
      tsi_spmm_zero<R * V>(part[j]);
      if (p + (int64_t)j * step < last)
        tsi_spmm_record_add<T, V, R>(a, records, p + (int64_t)j * step, col, part[j]);
    }
#pragma unroll
    for (int j = 0; j < J; j++)
#pragma unroll
      for (int e = 0; e < R * V; e++)
        acc[e] += part[j][e];
  }
  lb::group_sum<TSI_SPMM_BLOCK, T, R * V>(acc, threads, a.lanes, scratch);
  if (rank == 0)
    tsi_spmm_store<T, V, R>(a, __ldg(long_row + i), col, acc);
}

/* The join: items of a block, grid-stride; the first huge_rows x slices
 * are (huge row, slice) pairs, a block each; the rest hold one (long row,
 * slice) pair a warp each. */
template <class T, int V, int R, bool BRow>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_join_pieces_kernel(tsi_spmm_args<T> a, const int32_t *long_row,
                                                            const int64_t *long_first, int64_t long_rows,
                                                            int64_t huge_rows, const T *records) {
  __shared__ lb::group_sum_storage<TSI_SPMM_BLOCK, T, R * V> scratch;
  const int threads = join_threads(a.lanes);
  const int per_block = TSI_SPMM_BLOCK / threads;
  const int64_t block_items = huge_rows * a.slices;
  const int64_t warp_items = (long_rows - huge_rows) * a.slices;
  const int64_t items = block_items + (warp_items + per_block - 1) / per_block;
  /* b is the same in the whole block, q in the whole warp: every thread
   * that group_sum() needs reaches it. */
  for (int64_t b = blockIdx.x; b < items; b += gridDim.x) {
    int64_t i, slice;
    if (b < block_items) {
      const lb::lane_position at = lb::position_of(a.lanes, TSI_SPMM_BLOCK);
      tsi_spmm_split_index<BRow>(b, huge_rows, a.slices, i, slice);
      tsi_spmm_join_row<T, V, R, BRow>(a, long_row, long_first, records, i, slice, TSI_SPMM_BLOCK, at.lane, at.rank,
                                       &scratch);
    } else {
      const lb::lane_position at = lb::position_of(a.lanes, threads);
      const int64_t q = (b - block_items) * per_block + int(threadIdx.x) / threads;
      if (q >= warp_items)
        continue;
      tsi_spmm_split_index<BRow>(q, long_rows - huge_rows, a.slices, i, slice);
      tsi_spmm_join_row<T, V, R, BRow>(a, long_row, long_first, records, huge_rows + i, slice, threads, at.lane,
                                       at.rank, nullptr);
    }
  }
}

template <class T, int V, int R, bool BRow> struct split_fn {
  static const int32_t *piece_rows(const tsi_spmm_call &c) {
    return reinterpret_cast<const int32_t *>(c.workspace + c.d->piece_row_at);
  }
  static const int64_t *piece_begins(const tsi_spmm_call &c) {
    return reinterpret_cast<const int64_t *>(c.workspace + c.d->piece_begin_at);
  }
  /* Short rows one vector thread each, then the pieces. */
  static cudaError_t launch_rows(const tsi_spmm_call &c, const tsi_spmm_args<T> &a, T *records) {
    const tsi_spmm_device *d = c.d;
    const int64_t threads = (d->rows + d->pieces) * d->lanes.slices * d->lanes.lanes;
    constexpr auto kernel = tsi_spmm_split_kernel<T, V, R, BRow>;
    kernel<<<tsi_spmm_blocks<kernel>(threads), TSI_SPMM_BLOCK, 0, c.stream>>>(a, piece_rows(c), piece_begins(c),
                                                                              d->pieces, d->piece, records);
    return cudaPeekAtLastError();
  }
  /* Short rows in groups, a warp each, then the pieces. */
  template <int S> static cudaError_t launch_groups(const tsi_spmm_call &c, const tsi_spmm_args<T> &a, T *records) {
    const tsi_spmm_device *d = c.d;
    constexpr auto kernel = tsi_spmm_split_groups_kernel<T, V, S>;
    static const int resident = lb::resident_blocks(kernel, TSI_SPMM_BLOCK);
    const int64_t passes = (d->lanes.slices + S - 1) / S;
    const int group_rows = tsi_spmm_group_rows(d->rows, passes, resident);
    const int64_t warps = (d->rows + group_rows - 1) / group_rows * passes + d->pieces * d->lanes.slices;
    kernel<<<tsi_spmm_blocks<kernel>(warps * 32), TSI_SPMM_BLOCK, 0, c.stream>>>(
        a, group_rows, piece_rows(c), piece_begins(c), d->pieces, d->piece, records);
    return cudaPeekAtLastError();
  }
  static cudaError_t call(const tsi_spmm_call &c) {
    const tsi_spmm_device *d = c.d;
    tsi_spmm_args<T> a = tsi_spmm_make_args<T>(d, c.alpha, c.b, c.beta, c.c);
    T *records = reinterpret_cast<T *>(c.workspace + d->records_at);
    cudaError_t err;
    if constexpr (BRow && R == 1) {
      if (d->lanes.lanes == 32)
        err = d->lanes.slices > 1 ? launch_groups<2>(c, a, records) : launch_groups<1>(c, a, records);
      else
        err = launch_rows(c, a, records);
    } else {
      err = launch_rows(c, a, records);
    }
    if (err != cudaSuccess || d->pieces == 0)
      return err;
    const int32_t *long_row = reinterpret_cast<const int32_t *>(c.workspace + d->long_row_at);
    const int64_t *long_first = reinterpret_cast<const int64_t *>(c.workspace + d->long_first_at);
    constexpr auto join = tsi_spmm_join_pieces_kernel<T, V, R, BRow>;
    const int64_t join_all =
        (d->huge_rows * TSI_SPMM_BLOCK + (d->long_rows - d->huge_rows) * join_threads(d->lanes.lanes)) *
        d->lanes.slices;
    join<<<tsi_spmm_blocks<join>(join_all), TSI_SPMM_BLOCK, 0, c.stream>>>(a, long_row, long_first, d->long_rows,
                                                                           d->huge_rows, records);
    return cudaPeekAtLastError();
  }
};

cudaError_t tsi_spmm_run_split(const tsi_spmm_call &call) { return tsi_spmm_by_config<split_fn>(call.d, call); }
