/* SpMV with the split-rows schedule in one launch: the pieces of the long
 * rows (one warp each) and the short rows (1 to 8 threads each). Of a row cut in
 * several pieces, the piece warp that finishes last adds all the piece sums,
 * in piece order. Each sum has a fixed order, whichever warp ends last, so
 * results repeat bitwise. */
#include "sparse/spmv_cuda_kernel.cuh"

namespace {

constexpr int split_block = TSI_SPLIT_BLOCK_THREADS;
constexpr int split_warps = split_block / 32;

/* T is the stored value type, Sum (tsi_spmv_sum<T>) the type rows are
 * summed in, Scalar that of alpha and beta (spmv_cuda_values.cuh). */

/* Sum over a warp by a fixed butterfly: the same bits every run. */
template <class Sum> __device__ Sum warp_sum(Sum v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = tsi_spmv_add(v, tsi_spmv_shfl_xor(v, offset));
  return v;
}

/* Of a row of several pieces, the piece warp that arrives last sums the
 * piece sums: lane i adds pieces i, i + 32, ..., then the butterfly, a fixed
 * order. The "last block" sum of the CUDA C++ Programming Guide (memory fence
 * functions; the CUDA sample threadFenceReduction), here per warp: each warp
 * stores its sum, fences, then counts itself in; the one that makes the
 * count complete sees every stored sum. It leaves the counter at zero for
 * the next call (the next launch is ordered after this one on the stream).
 * The count fits in 32 bits: a row of 2^42 entries would not fit in memory. */
template <class T, class Sum = tsi_spmv_sum<T>, class Scalar = tsi_spmv_scalar<T>>
__device__ void add_row_pieces(int lane, int64_t p, int64_t first, unsigned count, Sum sum, Sum *partial,
                               unsigned *arrivals, int32_t row, Scalar alpha, Scalar beta, T *y) {
  unsigned last = 0;
  if (lane == 0) {
    partial[p] = sum;
    __threadfence();
    last = atomicAdd(&arrivals[first], 1u) == count - 1;
  }
  if (!__shfl_sync(0xffffffffu, last, 0))
    return;
  __threadfence(); /* the other warps' sums are read after their arrival */
  if (lane == 0)
    arrivals[first] = 0;
  Sum total = tsi_spmv_zero<Sum>();
  for (unsigned i = lane; i < count; i += 32)
    total = tsi_spmv_add(total, tsi_spmv_load_l2(&partial[first + i])); /* from L2: not a stale L1 line */
  total = warp_sum(total);
  if (lane == 0)
    y[row] = tsi_spmv_finish(total, alpha, beta, y + row);
}

/* Short rows: LANES threads a row, lanes stride the row's entries (one
 * lane by default, TSI_AUTO_SPLIT_LANES). The lanes' sums meet by a fixed
 * butterfly. */
template <class T, class Index, int LANES, class Sum = tsi_spmv_sum<T>, class Scalar = tsi_spmv_scalar<T>>
__device__ void short_rows(int64_t rows, const Index *__restrict__ offsets, const int32_t *__restrict__ cols,
                           const T *__restrict__ vals, const T *__restrict__ x, Scalar alpha, Scalar beta,
                           T *__restrict__ y, unsigned block) {
  /* Entries a thread loads at once (the policy's, sparse_tuning.h). */
  constexpr int batch = sizeof(T) == 4 ? tsi_spmv_arch_policy::split_batch_f32 : tsi_spmv_arch_policy::split_batch_f64;
  constexpr int rows_per_block = split_block / LANES;
  const int64_t row = (int64_t)block * rows_per_block + threadIdx.x / LANES;
  Sum sum = tsi_spmv_zero<Sum>();
  bool mine = false;
  if (row < rows) {
    Index a = offsets[row];
    const Index e = offsets[row + 1];
    mine = e - a <= TSI_SPLIT_SHORT; /* longer rows are the pieces' */
    if (mine && LANES == 1) {
      /* A batch of entries at a time, loads predicated and issued together,
       * then added in order: a row of up to a batch costs one round trip. */
      for (Index left = e - a; left > 0; left -= batch) {
        Sum v[batch];
#pragma unroll
        for (int k = 0; k < batch; k++)
          v[k] = Index(k) < left ? tsi_spmv_product(vals[a + k], x[cols[a + k]]) : tsi_spmv_zero<Sum>();
#pragma unroll
        for (int k = 0; k < batch; k++)
          if (Index(k) < left)
            sum = tsi_spmv_add(sum, v[k]);
        if (left > batch)
          a += batch; /* never past e: no overflow at the top of the range */
      }
    } else if (mine) {
      for (Index k = a + threadIdx.x % LANES; k < e; k += LANES)
        sum = tsi_spmv_add(sum, tsi_spmv_product(vals[k], x[cols[k]]));
    }
  }
  if (LANES > 1) { /* every lane of the warp takes part, rows or not */
#pragma unroll
    for (int offset = LANES / 2; offset > 0; offset >>= 1)
      sum = tsi_spmv_add(sum, tsi_spmv_shfl_xor(sum, offset));
  }
  if (mine && threadIdx.x % LANES == 0)
    y[row] = tsi_spmv_finish(sum, alpha, beta, y + row);
}

template <class T, class Index, int LANES, class Sum = tsi_spmv_sum<T>, class Scalar = tsi_spmv_scalar<T>>
__global__ void __launch_bounds__(split_block,
                                  tsi_min_blocks_per_sm(split_block, tsi_spmv_arch_policy::split_min_blocks))
    split_rows_kernel(int64_t rows, const Index *__restrict__ offsets, const int32_t *__restrict__ cols,
                      const T *__restrict__ vals, const T *__restrict__ x, Scalar alpha, Scalar beta, T *__restrict__ y,
                      int64_t pieces, unsigned piece_blocks, const int32_t *__restrict__ piece_row,
                      const int64_t *__restrict__ piece_begin, Sum *__restrict__ partial,
                      unsigned *__restrict__ arrivals) {
  if (blockIdx.x >= piece_blocks) {
    short_rows<T, Index, LANES>(rows, offsets, cols, vals, x, alpha, beta, y, blockIdx.x - piece_blocks);
    return;
  }
  /* A piece of a long row: lanes take consecutive entries (coalesced). */
  const int64_t p = (int64_t)blockIdx.x * split_warps + threadIdx.x / 32;
  if (p >= pieces)
    return;
  const int lane = threadIdx.x % 32;
  const int32_t row = piece_row[p];
  const int64_t begin = piece_begin[p], row_begin = offsets[row], row_end = offsets[row + 1];
  const int64_t end = begin + TSI_SPLIT_PIECE < row_end ? begin + TSI_SPLIT_PIECE : row_end;
  /* A row's pieces are consecutive: its first is this one less those
   * before. Found before the loop, so that fewer values live across it. */
  const int64_t first = p - (begin - row_begin) / TSI_SPLIT_PIECE;
  const unsigned count = unsigned((row_end - row_begin + TSI_SPLIT_PIECE - 1) / TSI_SPLIT_PIECE);
  /* 32-bit steps from the piece's start: fewer registers across the loop. */
  const T *piece_vals = vals + begin;
  const int32_t *piece_cols = cols + begin;
  const int length = int(end - begin);
  Sum sum = tsi_spmv_zero<Sum>();
#pragma unroll 4
  for (int k = lane; k < length; k += 32)
    sum = tsi_spmv_add(sum, tsi_spmv_product(piece_vals[k], x[piece_cols[k]]));
  sum = warp_sum(sum);
  if (count == 1) {
    if (lane == 0)
      y[row] = tsi_spmv_finish(sum, alpha, beta, y + row);
    return;
  }
  add_row_pieces<T>(lane, p, first, count, sum, partial, arrivals, row, alpha, beta, y);
}

template <class T, class Index, int LANES>
cudaError_t launch_split(const tsi_spmv_device_matrix *a, const tsi_spmv_call &c) {
  using Sum = tsi_spmv_sum<T>;
  tsi_spmv_split_layout l = tsi_spmv_split_layout_of(a->split_pieces, a->split_multi, sizeof(Sum));
  char *base = static_cast<char *>(c.workspace);
  const Index *offsets = static_cast<const Index *>(a->offsets);
  const int32_t *piece_row = a->split_pieces ? reinterpret_cast<const int32_t *>(base + l.piece_row) : nullptr;
  const int64_t *piece_begin = a->split_pieces ? reinterpret_cast<const int64_t *>(base + l.piece_begin) : nullptr;
  Sum *partial = a->split_pieces ? reinterpret_cast<Sum *>(base + l.partial) : nullptr;
  unsigned *arrivals = a->split_multi ? reinterpret_cast<unsigned *>(base + l.arrivals) : nullptr;
  const unsigned piece_blocks = unsigned((a->split_pieces + split_warps - 1) / split_warps);
  constexpr int rows_per_block = split_block / LANES;
  const unsigned row_blocks = unsigned((a->rows + rows_per_block - 1) / rows_per_block);
  split_rows_kernel<T, Index, LANES><<<piece_blocks + row_blocks, split_block, 0, c.stream>>>(
      a->rows, offsets, a->indices, static_cast<const T *>(a->values), static_cast<const T *>(c.x),
      tsi_spmv_scalar<T>(c.alpha), tsi_spmv_scalar<T>(c.beta), static_cast<T *>(c.y), a->split_pieces, piece_blocks,
      piece_row, piece_begin, partial, arrivals);
  return cudaPeekAtLastError(); /* left for tsi_cuda_check_launch() to collect */
}

template <class S, class T, class Index> struct split_launch {
  static cudaError_t call(const tsi_spmv_device_matrix *a, const tsi_spmv_call &c) {
    switch (c.lanes) {
    case 2:
      return launch_split<T, Index, 2>(a, c);
    case 4:
      return launch_split<T, Index, 4>(a, c);
    case 8:
      return launch_split<T, Index, 8>(a, c);
    default:
      return launch_split<T, Index, 1>(a, c);
    }
  }
};

} // namespace

cudaError_t tsi_spmv_run_split(const tsi_spmv_call &c) { return tsi_spmv_by_type<void, split_launch>(c.a, c); }
