/* SpMM with split-rows: one vector thread per (short row, column slice) as
 * thread-mapped, and the rows longer than a piece (the plan's d->piece
 * nonzeros) cut into pieces of that many, one vector thread per (piece,
 * slice), each piece kept as a record. A long row of few pieces (near, up
 * to d->near) is joined in the same launch by the vector thread that stores
 * its last record, in piece order; the others by a second launch, a warp
 * per (long row, slice) or a block for a huge row of many pieces: its
 * vector threads take the pieces in turn and lb::group_sum() adds their
 * sums in a fixed tree (the plan's tables list the pieces, the huge rows
 * first, the near ones last). With vector threads of a whole warp and a
 * row-major B the short rows go in groups of consecutive rows, a warp each
 * (tsi_spmm_group_item, the long rows left out), as thread-mapped. */
#include "spmm_cuda_kernel.cuh"

/* The split-rows tables in the workspace, as the kernels read them. */
struct tsi_spmm_split_view {
  const int32_t *piece_row;   /* pieces: its row */
  const int64_t *piece_begin; /* pieces: its first nonzero */
  const int32_t *piece_long;  /* pieces: its row's place in long_row */
  const int32_t *long_row;    /* long rows: huge, far, near */
  const int64_t *long_first;  /* long rows + 1: first piece */
  unsigned *counters;         /* near rows x slices: pieces stored this call */
  int64_t pieces, piece, joined_rows;
};

/* Records a join's vector thread loads before adding them. */
template <class T, int R> __host__ __device__ constexpr int tsi_spmm_join_batch() {
  return R > 1 ? (sizeof(T) > 4 ? 1 : 2) : TSI_SPMM_JOIN_BATCH;
}

/* acc = the records first .. end - 1 added in that order from zero, J
 * loaded before the first of them is added; L2: written by this launch. */
template <class T, int V, int R, bool L2>
__device__ void tsi_spmm_records_sum(const tsi_spmm_args<T> &a, const T *records, int64_t first, int64_t end,
                                     int64_t step, const tsi_spmm_columns &col, T (&acc)[R * V]) {
  constexpr int J = tsi_spmm_join_batch<T, R>();
  tsi_spmm_zero<R * V>(acc);
  for (int64_t p = first; p < end; p += (int64_t)J * step) {
    T part[J][R * V];
#pragma unroll
    for (int j = 0; j < J; j++) {
      tsi_spmm_zero<R * V>(part[j]);
      if (p + (int64_t)j * step < end)
        tsi_spmm_record_add<T, V, R, L2>(a, records, p + (int64_t)j * step, col, part[j]);
    }
#pragma unroll
    for (int j = 0; j < J; j++)
#pragma unroll
      for (int e = 0; e < R * V; e++)
        acc[e] += part[j][e];
  }
}

/* Piece p's record of slice `slice` is stored by this vector thread: where
 * p's row is near, the vector thread whose count completes the row's pieces
 * for the slice adds the row's records in piece order, stores the row of C
 * and sets the counter back to zero for the next call. Every lane fences
 * its stores before the count and the last reads past L1, as in the
 * threadfence reduction of the CUDA Programming Guide (B.5). */
template <class T, int V, int R>
__device__ void tsi_spmm_join_if_last(const tsi_spmm_args<T> &a, const tsi_spmm_split_view &s, const T *records,
                                      int64_t p, int64_t slice, const tsi_spmm_columns &col) {
  const int64_t i = __ldg(s.piece_long + p);
  if (i < s.joined_rows)
    return;
  const unsigned mask = lb::group_mask(a.lanes);
  const int leader = __ffs((int)mask) - 1;
  const bool lead = (int(threadIdx.x) & 31) == leader;
  const int64_t first = __ldg(s.long_first + i), end = __ldg(s.long_first + i + 1);
  unsigned *counter = s.counters + (i - s.joined_rows) * a.slices + slice;
  __threadfence();
  __syncwarp(mask);
  unsigned done = 0;
  if (lead)
    done = atomicAdd(counter, 1u);
  done = __shfl_sync(mask, done, leader);
  if ((int64_t)done + 1 != end - first)
    return;
  __threadfence();
  T acc[R * V];
  tsi_spmm_records_sum<T, V, R, true>(a, records, first, end, 1, col, acc);
  tsi_spmm_store<T, V, R>(a, __ldg(s.long_row + i), col, acc);
  if (lead)
    *counter = 0u;
}

/* Where a piece ends: the piece's length, or its row's end. */
template <class T>
__device__ inline int64_t tsi_spmm_piece_end(const tsi_spmm_args<T> &a, const tsi_spmm_split_view &s, int64_t p,
                                             int64_t first) {
  const int64_t row_end = a.work.tile_end(__ldg(s.piece_row + p));
  return row_end - first < s.piece ? row_end : first + s.piece;
}

/* x below the rows: row x, skipped when long; above: piece x - rows.
 * Near: the long rows are joined here (else by the join launch; a separate
 * instantiation keeps that kernel free of the join's code). */
template <class T, int V, int R, bool BRow, bool Near>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_split_kernel(tsi_spmm_args<T> a, tsi_spmm_split_view s, T *records) {
  const int64_t rows = a.work.tiles;
  tsi_spmm_for_each_slice<T, V, BRow>(a, rows + s.pieces, [&](int64_t x, const tsi_spmm_columns &col) {
    int64_t first, end;
    if (x < rows) {
      first = a.work.tile_begin(x);
      end = a.work.tile_end(x);
      if (end - first > s.piece)
        return; /* a long row: its pieces are further on */
    } else {
      first = __ldg(s.piece_begin + (x - rows));
      end = tsi_spmm_piece_end(a, s, x - rows, first);
    }
    T acc[R * V];
    tsi_spmm_sum<T, V, R, BRow>(a, col, first, end, 1, acc);
    if (x < rows) {
      tsi_spmm_store<T, V, R>(a, x, col, acc);
    } else {
      tsi_spmm_record_store<T, V, R>(a, records, x - rows, col, acc);
      /* The lane's first column lies inside its slice. */
      if constexpr (Near)
        tsi_spmm_join_if_last<T, V, R>(a, s, records, x - rows, col.first / a.slice, col);
    }
  });
}

/* Vector threads of a whole warp, row-major B: items below groups x passes
 * are groups of short rows with S slices, the rest (piece, slice) pairs. */
template <class T, int V, int S, bool Near>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_split_groups_kernel(tsi_spmm_args<T> a, int group_rows, tsi_spmm_split_view s,
                                                             T *records) {
  const lb::lane_position at = lb::position_of(32, 32);
  const int64_t groups = (a.work.tiles + group_rows - 1) / group_rows;
  const int64_t passes = (a.slices + S - 1) / S;
  const int64_t row_items = groups * passes;
  for (int64_t g = at.group; g < row_items + s.pieces * a.slices; g += at.groups) {
    if (g < row_items) {
      tsi_spmm_group_item<T, V, S>(a, g / passes, g % passes, group_rows, s.piece);
      continue;
    }
    int64_t x, slice;
    tsi_spmm_split_index<true>(g - row_items, s.pieces, a.slices, x, slice);
    const int64_t first = __ldg(s.piece_begin + x);
    const int64_t end = tsi_spmm_piece_end(a, s, x, first);
    const tsi_spmm_columns col = tsi_spmm_columns_of<T, V>(a, slice, at.lane);
    T acc[V];
    tsi_spmm_sum<T, V, 1, true>(a, col, first, end, 1, acc);
    tsi_spmm_record_store<T, V, 1>(a, records, x, col, acc);
    if constexpr (Near)
      tsi_spmm_join_if_last<T, V, 1>(a, s, records, x, slice, col);
  }
}

/* Threads that join one (long row, slice) of the warp kind: a warp, or the
 * vector thread when it is a warp already. */
static __host__ __device__ int join_threads(int lanes) { return lanes < 32 ? 32 : lanes; }

/* Long row i, slice `slice`, joined by `threads` threads (a warp's or the
 * block's, `rank` this thread's vector thread among them): vector thread r
 * adds records first + r, first + r + step, ..., then group_sum() joins the
 * vector threads' sums in its fixed tree (through `scratch` for a block). */
template <class T, int V, int R, bool BRow>
__device__ void tsi_spmm_join_row(const tsi_spmm_args<T> &a, const tsi_spmm_split_view &s, const T *records, int64_t i,
                                  int64_t slice, int threads, int lane, int rank,
                                  lb::group_sum_storage<TSI_SPMM_BLOCK, T, R * V> *scratch) {
  const int step = threads / a.lanes;
  const tsi_spmm_columns col = tsi_spmm_columns_of<T, V>(a, slice, lane);
  T acc[R * V];
  tsi_spmm_records_sum<T, V, R, false>(a, records, __ldg(s.long_first + i) + rank, __ldg(s.long_first + i + 1), step,
                                       col, acc);
  lb::group_sum<TSI_SPMM_BLOCK, T, R * V>(acc, threads, a.lanes, scratch);
  if (rank == 0)
    tsi_spmm_store<T, V, R>(a, __ldg(s.long_row + i), col, acc);
}

/* The join: items of a block, grid-stride; the first huge_rows x slices
 * are (huge row, slice) pairs, a block each; the rest hold one (far row,
 * slice) pair a warp each, up to the joined rows (the near ones are joined
 * by the split kernel). */
template <class T, int V, int R, bool BRow>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_join_pieces_kernel(tsi_spmm_args<T> a, tsi_spmm_split_view s,
                                                            int64_t huge_rows, const T *records) {
  __shared__ lb::group_sum_storage<TSI_SPMM_BLOCK, T, R * V> scratch;
  const int threads = join_threads(a.lanes);
  const int per_block = TSI_SPMM_BLOCK / threads;
  const int64_t block_items = huge_rows * a.slices;
  const int64_t warp_items = (s.joined_rows - huge_rows) * a.slices;
  const int64_t items = block_items + (warp_items + per_block - 1) / per_block;
  /* b is the same in the whole block, q in the whole warp: every thread
   * that group_sum() needs reaches it. */
  for (int64_t b = blockIdx.x; b < items; b += gridDim.x) {
    int64_t i, slice;
    if (b < block_items) {
      const lb::lane_position at = lb::position_of(a.lanes, TSI_SPMM_BLOCK);
      tsi_spmm_split_index<BRow>(b, huge_rows, a.slices, i, slice);
      tsi_spmm_join_row<T, V, R, BRow>(a, s, records, i, slice, TSI_SPMM_BLOCK, at.lane, at.rank, &scratch);
    } else {
      const lb::lane_position at = lb::position_of(a.lanes, threads);
      const int64_t q = (b - block_items) * per_block + int(threadIdx.x) / threads;
      if (q >= warp_items)
        continue;
      tsi_spmm_split_index<BRow>(q, s.joined_rows - huge_rows, a.slices, i, slice);
      tsi_spmm_join_row<T, V, R, BRow>(a, s, records, huge_rows + i, slice, threads, at.lane, at.rank, nullptr);
    }
  }
}

template <class T, int V, int R, bool BRow> struct split_fn {
  static tsi_spmm_split_view view(const tsi_spmm_call &c) {
    const tsi_spmm_device *d = c.d;
    tsi_spmm_split_view s;
    s.piece_row = reinterpret_cast<const int32_t *>(c.workspace + d->piece_row_at);
    s.piece_begin = reinterpret_cast<const int64_t *>(c.workspace + d->piece_begin_at);
    s.piece_long = reinterpret_cast<const int32_t *>(c.workspace + d->piece_long_at);
    s.long_row = reinterpret_cast<const int32_t *>(c.workspace + d->long_row_at);
    s.long_first = reinterpret_cast<const int64_t *>(c.workspace + d->long_first_at);
    s.counters = reinterpret_cast<unsigned *>(c.workspace + d->counters_at);
    s.pieces = d->pieces;
    s.piece = d->piece;
    s.joined_rows = d->joined_rows;
    return s;
  }
  /* Short rows one vector thread each, then the pieces. */
  template <bool Near>
  static cudaError_t launch_rows(const tsi_spmm_call &c, const tsi_spmm_args<T> &a, const tsi_spmm_split_view &s,
                                 T *records) {
    const tsi_spmm_device *d = c.d;
    const int64_t threads = (d->rows + d->pieces) * d->lanes.slices * d->lanes.lanes;
    constexpr auto kernel = tsi_spmm_split_kernel<T, V, R, BRow, Near>;
    kernel<<<tsi_spmm_blocks<kernel>(threads), TSI_SPMM_BLOCK, 0, c.stream>>>(a, s, records);
    return cudaPeekAtLastError();
  }
  /* Short rows in groups, a warp each, then the pieces. */
  template <int S, bool Near>
  static cudaError_t launch_groups(const tsi_spmm_call &c, const tsi_spmm_args<T> &a, const tsi_spmm_split_view &s,
                                   T *records) {
    const tsi_spmm_device *d = c.d;
    constexpr auto kernel = tsi_spmm_split_groups_kernel<T, V, S, Near>;
    static const int resident = lb::resident_blocks(kernel, TSI_SPMM_BLOCK);
    const int64_t passes = (d->lanes.slices + S - 1) / S;
    const int group_rows = tsi_spmm_group_rows(d->rows, passes, resident);
    const int64_t warps = (d->rows + group_rows - 1) / group_rows * passes + d->pieces * d->lanes.slices;
    kernel<<<tsi_spmm_blocks<kernel>(warps * 32), TSI_SPMM_BLOCK, 0, c.stream>>>(a, group_rows, s, records);
    return cudaPeekAtLastError();
  }
  template <bool Near>
  static cudaError_t launch(const tsi_spmm_call &c, const tsi_spmm_args<T> &a, const tsi_spmm_split_view &s,
                            T *records) {
    if constexpr (BRow && R == 1) {
      if (c.d->lanes.lanes == 32)
        return c.d->lanes.slices > 1 ? launch_groups<2, Near>(c, a, s, records)
                                     : launch_groups<1, Near>(c, a, s, records);
    }
    return launch_rows<Near>(c, a, s, records);
  }
  static cudaError_t call(const tsi_spmm_call &c) {
    const tsi_spmm_device *d = c.d;
    tsi_spmm_args<T> a = tsi_spmm_make_args<T>(d, c.alpha, c.b, c.beta, c.c);
    T *records = reinterpret_cast<T *>(c.workspace + d->records_at);
    const tsi_spmm_split_view s = view(c);
    const bool near = d->pieces > 0 && d->joined_rows == 0;
    const cudaError_t err = near ? launch<true>(c, a, s, records) : launch<false>(c, a, s, records);
    if (err != cudaSuccess || d->joined_rows == 0)
      return err;
    constexpr auto join = tsi_spmm_join_pieces_kernel<T, V, R, BRow>;
    const int64_t join_all =
        (d->huge_rows * TSI_SPMM_BLOCK + (d->joined_rows - d->huge_rows) * join_threads(d->lanes.lanes)) *
        d->lanes.slices;
    join<<<tsi_spmm_blocks<join>(join_all), TSI_SPMM_BLOCK, 0, c.stream>>>(a, s, d->huge_rows, records);
    return cudaPeekAtLastError();
  }
};

cudaError_t tsi_spmm_run_split(const tsi_spmm_call &call) { return tsi_spmm_by_config<split_fn>(call.d, call); }
