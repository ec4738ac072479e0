/* SpMM with the mapped schedules: each (row, column slice) of C goes to a
 * group of vector threads (one for thread-mapped, a warp's for warp-mapped,
 * group_size threads' for group-mapped, a block's for block-mapped) that
 * take the row's nonzeros in turn and join their sums in a fixed tree.
 * Thread-mapped with vector threads of a whole warp over a row-major B
 * gives each warp a group of consecutive rows and up to two slices instead
 * (spmm_warp_rows.cuh): the same sums, fewer dependent loads; with two
 * slices and a dominant column offset d (the plan's rule, spmm_tuning.h) the
 * 8 warps of a block walk groups d rows apart, so that a stencil's rows
 * i +- d of B hit in L1 (the same sums again). */
#include "spmm_cuda_kernel.cuh"

template <class S, class T, int V, int R, bool BRow>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_rows_kernel(tsi_spmm_args<T> a, int row_threads) {
  constexpr bool block_rows = std::is_same<S, lb::block_mapped>::value;
  using scratch_type =
      typename std::conditional<block_rows, lb::group_sum_storage<TSI_SPMM_BLOCK, T, R * V>, int>::type;
  __shared__ scratch_type scratch;
  const lb::lane_position at = lb::position_of(a.lanes, row_threads);
  const int vthreads = row_threads / a.lanes;
  const int64_t tiles = a.work.tiles * a.slices;
  /* The bounds are the same for every thread of a group (of the block for
   * block-mapped): all of them reach group_sum(). */
  for (int64_t g = at.group; g < tiles; g += at.groups) {
    int64_t row, slice;
    tsi_spmm_split_index<BRow>(g, a.work.tiles, a.slices, row, slice);
    const tsi_spmm_columns col = tsi_spmm_columns_of<T, V>(a, slice, at.lane);
    T acc[R * V];
    tsi_spmm_sum<T, V, R, BRow>(a, col, a.work.tile_begin(row) + at.rank, a.work.tile_end(row), vthreads, acc);
    if constexpr (block_rows) {
      lb::group_sum<TSI_SPMM_BLOCK, T, R * V>(acc, row_threads, a.lanes, &scratch);
    } else if constexpr (!std::is_same<S, lb::thread_mapped>::value) {
      (void)scratch;
      lb::group_sum<TSI_SPMM_BLOCK, T, R * V>(acc, row_threads, a.lanes, nullptr);
    } else {
      (void)scratch;
    }
    if (at.rank == 0)
      tsi_spmm_store<T, V, R>(a, row, col, acc);
  }
}

/* Thread-mapped, vector threads of 32 lanes, row-major B: the grid-stride
 * walk gives each warp (group, pass) items (tsi_spmm_group_item). */
template <class T, int V, int S>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_warp_rows_kernel(tsi_spmm_args<T> a, int group_rows) {
  const lb::lane_position at = lb::position_of(32, 32);
  const int64_t groups = (a.work.tiles + group_rows - 1) / group_rows;
  const int64_t passes = (a.slices + S - 1) / S;
  for (int64_t g = at.group; g < groups * passes; g += at.groups)
    tsi_spmm_group_item<T, V, S>(a, g / passes, g % passes, group_rows, INT64_MAX);
}

/* The same items in the stacked order (tsi_spmm_stack_item, the plan's
 * d->stack): the warps of a block walk groups `stride` groups apart. A
 * kernel of its own, with 32-bit item arithmetic, so that the plain walk's
 * code stays as it is. */
template <class T, int V, int S>
__global__ void TSI_SPMM_BOUNDS tsi_spmm_warp_rows_stacked_kernel(tsi_spmm_args<T> a, int group_rows, unsigned passes,
                                                                  unsigned stride, unsigned stacked, unsigned items) {
  const lb::lane_position at = lb::position_of(32, 32);
  for (unsigned g = (unsigned)at.group; g < items; g += (unsigned)at.groups) {
    unsigned group, pass;
    tsi_spmm_stack_item<TSI_SPMM_BLOCK / 32>(g, passes, stride, stacked, group, pass);
    tsi_spmm_group_item<T, V, S>(a, (int64_t)group, (int64_t)pass, group_rows, INT64_MAX);
  }
}

template <class T, int V, int S> static cudaError_t launch_warp_rows(const tsi_spmm_call &call) {
  const tsi_spmm_device *d = call.d;
  tsi_spmm_args<T> a = tsi_spmm_make_args<T>(d, call.alpha, call.b, call.beta, call.c);
  constexpr auto kernel = tsi_spmm_warp_rows_kernel<T, V, S>;
  static const int resident = lb::resident_blocks(kernel, TSI_SPMM_BLOCK);
  const int64_t passes = (d->lanes.slices + S - 1) / S;
  const int group_rows = tsi_spmm_group_rows(d->rows, passes, resident);
  const int64_t groups = (d->rows + group_rows - 1) / group_rows;
  if constexpr (S > 1) {
    /* Stacked: d->stack rounded to whole groups; a band is that many groups
     * for each warp of a block. The plan asks for it only where one band
     * fits (rows >= 8 (d + 16)); the item count stays 32-bit. */
    const int64_t stride = (d->stack + group_rows / 2) / group_rows;
    const int64_t band = stride * (TSI_SPMM_BLOCK / 32);
    if (d->stack > 0 && stride > 0 && groups * passes < INT32_MAX && groups >= band) {
      constexpr auto stacked = tsi_spmm_warp_rows_stacked_kernel<T, V, S>;
      const int64_t items = groups * passes;
      stacked<<<tsi_spmm_blocks<stacked>(items * 32), TSI_SPMM_BLOCK, 0, call.stream>>>(
          a, group_rows, (unsigned)passes, (unsigned)stride, (unsigned)(groups / band * band * passes),
          (unsigned)items);
      return cudaPeekAtLastError();
    }
  }
  kernel<<<tsi_spmm_blocks<kernel>(groups * passes * 32), TSI_SPMM_BLOCK, 0, call.stream>>>(a, group_rows);
  return cudaPeekAtLastError();
}

template <class S, class T, int V, int R, bool BRow> static cudaError_t launch(const tsi_spmm_call &call) {
  const tsi_spmm_device *d = call.d;
  tsi_spmm_args<T> a = tsi_spmm_make_args<T>(d, call.alpha, call.b, call.beta, call.c);
  const int row_threads = std::is_same<S, lb::thread_mapped>::value  ? d->lanes.lanes
                          : std::is_same<S, lb::block_mapped>::value ? TSI_SPMM_BLOCK
                                                                     : d->row_threads;
  const int64_t threads = d->rows * d->lanes.slices * row_threads;
  constexpr auto kernel = tsi_spmm_rows_kernel<S, T, V, R, BRow>;
  kernel<<<tsi_spmm_blocks<kernel>(threads), TSI_SPMM_BLOCK, 0, call.stream>>>(a, row_threads);
  return cudaPeekAtLastError();
}

template <class T, int V, int R, bool BRow> struct rows_fn {
  static cudaError_t call(const tsi_spmm_call &c) {
    switch (c.schedule) {
    case TS_SCHEDULE_WARP_MAPPED:
    case TS_SCHEDULE_GROUP_MAPPED:
      /* group-mapped runs the warp-mapped kernel with its own group size
       * (up to a warp; beyond, the plan picks a block of threads) */
      return c.d->row_threads == TSI_SPMM_BLOCK ? launch<lb::block_mapped, T, V, R, BRow>(c)
                                                : launch<lb::warp_mapped, T, V, R, BRow>(c);
    case TS_SCHEDULE_BLOCK_MAPPED:
      return launch<lb::block_mapped, T, V, R, BRow>(c);
    default:
      if constexpr (BRow && R == 1) {
        if (c.d->lanes.lanes == 32)
          return c.d->lanes.slices > 1 ? launch_warp_rows<T, V, 2>(c) : launch_warp_rows<T, V, 1>(c);
      }
      return launch<lb::thread_mapped, T, V, R, BRow>(c);
    }
  }
};

cudaError_t tsi_spmm_run_rows(const tsi_spmm_call &call) { return tsi_spmm_by_config<rows_fn>(call.d, call); }
