/* SpMV with the split-rows schedule: one launch runs the pieces of the long
 * rows (one warp each) and the short rows (one thread each); a second adds
 * the pieces of rows cut in several, in piece order. Each sum has a fixed
 * order, so results repeat bitwise. */
#include "spmv_cuda_kernel.cuh"

namespace {

constexpr int split_block = 256;
constexpr int split_warps = split_block / 32;

template <class T> __device__ T finish(T sum, T alpha, T beta, const T *y, int64_t row) {
  return beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
}

/* Sum over a warp by a fixed butterfly: the same bits every run. */
template <class T> __device__ T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

template <class T, class Index>
__global__ void __launch_bounds__(split_block, 8)
    split_rows_kernel(int64_t rows, const Index *__restrict__ offsets, const int32_t *__restrict__ cols,
                      const T *__restrict__ vals, const T *__restrict__ x, T alpha, T beta, T *__restrict__ y,
                      int64_t pieces, unsigned piece_blocks, const int32_t *__restrict__ piece_row,
                      const int64_t *__restrict__ piece_begin, T *__restrict__ partial) {
  if (blockIdx.x < piece_blocks) {
    /* A piece of a long row: lanes take consecutive entries (coalesced). */
    const int64_t p = (int64_t)blockIdx.x * split_warps + threadIdx.x / 32;
    if (p >= pieces)
      return;
    const int lane = threadIdx.x % 32;
    const int32_t row = piece_row[p];
    const int64_t begin = piece_begin[p], row_begin = offsets[row], row_end = offsets[row + 1];
    const int64_t end = begin + TSI_SPLIT_PIECE < row_end ? begin + TSI_SPLIT_PIECE : row_end;
    T sum = T(0);
#pragma unroll 4
    for (int64_t k = begin + lane; k < end; k += 32)
      sum += vals[k] * x[cols[k]];
    sum = warp_sum(sum);
    if (lane == 0) {
      if (begin == row_begin && end == row_end)
        y[row] = finish(sum, alpha, beta, y, row);
      else
        partial[p] = sum;
    }
    return;
  }
  /* Short rows, one per thread; long rows are the pieces' (or the combine's). */
  const int64_t row = (int64_t)(blockIdx.x - piece_blocks) * split_block + threadIdx.x;
  if (row >= rows)
    return;
  Index a = offsets[row];
  const Index e = offsets[row + 1];
  if (e - a > TSI_SPLIT_SHORT)
    return;
  T sum = T(0);
  for (; e - a >= 4; a += 4) {
    T v0 = vals[a] * x[cols[a]], v1 = vals[a + 1] * x[cols[a + 1]];
    T v2 = vals[a + 2] * x[cols[a + 2]], v3 = vals[a + 3] * x[cols[a + 3]];
    sum = (((sum + v0) + v1) + v2) + v3;
  }
  for (; a < e; ++a)
    sum += vals[a] * x[cols[a]];
  y[row] = finish(sum, alpha, beta, y, row);
}

/* Rows of several pieces: one warp each, lane i adds pieces i, i + 32, ...,
 * then the butterfly. */
template <class T, class Index>
__global__ void __launch_bounds__(split_block)
    split_combine_kernel(int64_t multi, const Index *__restrict__ offsets, const int32_t *__restrict__ multi_row,
                         const int64_t *__restrict__ multi_first, const T *__restrict__ partial, T alpha, T beta,
                         T *__restrict__ y) {
  const int64_t m = (int64_t)blockIdx.x * split_warps + threadIdx.x / 32;
  if (m >= multi)
    return;
  const int lane = threadIdx.x % 32;
  const int32_t row = multi_row[m];
  const int64_t first = multi_first[m];
  const int64_t count = ((int64_t)offsets[row + 1] - (int64_t)offsets[row] + TSI_SPLIT_PIECE - 1) / TSI_SPLIT_PIECE;
  T sum = T(0);
  for (int64_t i = lane; i < count; i += 32)
    sum += partial[first + i];
  sum = warp_sum(sum);
  if (lane == 0)
    y[row] = finish(sum, alpha, beta, y, row);
}

template <class S, class T, class Index> struct split_launch {
  static cudaError_t call(const tsi_spmv_device_matrix *a, const tsi_spmv_call &c) {
    tsi_spmv_split_layout l = tsi_spmv_split_layout_of(a->split_pieces, a->split_multi, sizeof(T));
    char *base = static_cast<char *>(c.workspace);
    const Index *offsets = static_cast<const Index *>(a->offsets);
    const int32_t *piece_row = a->split_pieces ? reinterpret_cast<const int32_t *>(base + l.piece_row) : nullptr;
    const int64_t *piece_begin = a->split_pieces ? reinterpret_cast<const int64_t *>(base + l.piece_begin) : nullptr;
    T *partial = a->split_pieces ? reinterpret_cast<T *>(base + l.partial) : nullptr;
    const unsigned piece_blocks = unsigned((a->split_pieces + split_warps - 1) / split_warps);
    const unsigned row_blocks = unsigned((a->rows + split_block - 1) / split_block);
    split_rows_kernel<T, Index><<<piece_blocks + row_blocks, split_block, 0, c.stream>>>(
        a->rows, offsets, a->indices, static_cast<const T *>(a->values), static_cast<const T *>(c.x), T(c.alpha),
        T(c.beta), static_cast<T *>(c.y), a->split_pieces, piece_blocks, piece_row, piece_begin, partial);
    if (a->split_multi > 0) {
      const unsigned combine_blocks = unsigned((a->split_multi + split_warps - 1) / split_warps);
      split_combine_kernel<T, Index><<<combine_blocks, split_block, 0, c.stream>>>(
          a->split_multi, offsets, reinterpret_cast<const int32_t *>(base + l.multi_row),
          reinterpret_cast<const int64_t *>(base + l.multi_first), partial, T(c.alpha), T(c.beta),
          static_cast<T *>(c.y));
    }
    return cudaPeekAtLastError(); /* left for tsi_cuda_check_launch() to collect */
  }
};

} // namespace

cudaError_t tsi_spmv_run_split(const tsi_spmv_call &c) { return tsi_spmv_by_type<void, split_launch>(c.a, c); }
