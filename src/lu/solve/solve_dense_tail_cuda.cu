/* The dense tail's part of the GPU triangular solves: the trailing m x m
 * block of L+U (rows and columns tail_start .. n-1), kept dense and
 * column-major in dev->tail_dense by the factorization
 * (numeric/numeric_dense_tail_cuda.cu), solved by blocks of rows: a warp solves
 * a block's triangle, then a launch subtracts the block's solution from the
 * rows still to come (blocked triangular solve: Dongarra, Duff, Sorensen
 * and van der Vorst, "Numerical Linear Algebra for High-Performance
 * Computers", 1998, chapter 5). The synchronisation-free kernel takes the
 * block's m rows one after another, a chain of m warps; here the chain is
 * m / 64 pairs of launches. Fixed order of operations: bitwise repeatable. */
#include "lu/solve/solve_internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

namespace {

/* Rows a triangle block holds (two a lane). */
constexpr int TRIANGLE_ROWS = 64;
/* Rows an update block subtracts the solved block from (a thread each). */
constexpr int UPDATE_ROWS = TSI_LU_SOLVE_UPDATE_ROWS;

/* Entry (r, c) of op's triangle within the block: L and U as stored
 * (column-major), U^T and L^T transposed. */
template <int MODE> __device__ __forceinline__ double tail_entry(const double *d, int64_t m, int64_t r, int64_t c) {
  return MODE == TSI_LU_SOLVE_LOWER || MODE == TSI_LU_SOLVE_UPPER ? d[r + c * m] : d[c + r * m];
}

template <int MODE> __host__ __device__ constexpr bool forward() {
  return MODE == TSI_LU_SOLVE_LOWER || MODE == TSI_LU_SOLVE_UPPER_T;
}
template <int MODE> __host__ __device__ constexpr bool unit_diagonal() {
  return MODE == TSI_LU_SOLVE_LOWER || MODE == TSI_LU_SOLVE_LOWER_T;
}

/* Rows r0 .. r0 + b of the tail (b <= 64), one warp per right-hand side:
 * each lane holds rows r0 + lane and r0 + lane + 32; in op's order each row
 * is finished (divided by its pivot for U and U^T) and subtracted from the
 * rows after it. y is the tail's part of the first right-hand side. */
template <int MODE>
__global__ void __launch_bounds__(32)
    dense_triangle(const double *d, int64_t m, int64_t r0, int b, double *y, int64_t n, int64_t nrhs) {
  __shared__ double t[TRIANGLE_ROWS][TRIANGLE_ROWS + 1]; /* t[row][column] of op */
  const int lane = threadIdx.x;
  const bool transposed = !(MODE == TSI_LU_SOLVE_LOWER || MODE == TSI_LU_SOLVE_UPPER);
  for (int e = lane; e < b * b; e += 32) { /* along the stored columns: coalesced */
    const int inner = e % b, outer = e / b;
    const int r = transposed ? outer : inner, c = transposed ? inner : outer;
    t[r][c] = tail_entry<MODE>(d, m, r0 + r, r0 + c);
  }
  __syncwarp();
  for (int64_t rhs = blockIdx.x; rhs < nrhs; rhs += gridDim.x) {
    double *yc = y + rhs * n + r0;
    double v[2] = {lane < b ? yc[lane] : 0.0, lane + 32 < b ? yc[lane + 32] : 0.0};
    for (int s = 0; s < b; s++) {
      const int c = forward<MODE>() ? s : b - 1 - s;
      const double held0 = __shfl_sync(0xffffffffu, v[0], c & 31), held1 = __shfl_sync(0xffffffffu, v[1], c & 31);
      double known = c < 32 ? held0 : held1;
      if (!unit_diagonal<MODE>())
        known /= t[c][c];
      if (lane == (c & 31))
        v[c >> 5] = known;
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int r = lane + 32 * h;
        if (r < b && (forward<MODE>() ? r > c : r < c))
          v[h] -= t[r][c] * known;
      }
    }
    if (lane < b)
      yc[lane] = v[0];
    if (lane + 32 < b)
      yc[lane + 32] = v[1];
  }
}

/* Rows row_lo .. row_hi of the tail lose the solved rows c0 .. c0 + b:
 * y_r -= sum_c op(r, c) y_c, the sum in increasing c. A block per 64 rows
 * (blockIdx.x) and right-hand side (blockIdx.y, striding). */
template <int MODE>
__global__ void __launch_bounds__(UPDATE_ROWS)
    dense_update(const double *d, int64_t m, int64_t c0, int b, int64_t row_lo, int64_t row_hi, double *y, int64_t n,
                 int64_t nrhs) {
  __shared__ double a[UPDATE_ROWS][TRIANGLE_ROWS + 1]; /* a[row][column] of op */
  __shared__ double known[TRIANGLE_ROWS];
  const int64_t base = row_lo + (int64_t)blockIdx.x * UPDATE_ROWS;
  const int rows = (int)(row_hi - base < UPDATE_ROWS ? row_hi - base : UPDATE_ROWS);
  const bool transposed = !(MODE == TSI_LU_SOLVE_LOWER || MODE == TSI_LU_SOLVE_UPPER);
  const int extent = transposed ? b : rows; /* the contiguous direction, for coalesced loads */
  for (int e = threadIdx.x; e < rows * b; e += UPDATE_ROWS) {
    const int inner = e % extent, outer = e / extent;
    const int r = transposed ? outer : inner, c = transposed ? inner : outer;
    a[r][c] = tail_entry<MODE>(d, m, base + r, c0 + c);
  }
  for (int64_t rhs = blockIdx.y; rhs < nrhs; rhs += gridDim.y) {
    double *yc = y + rhs * n;
    __syncthreads(); /* the tile loaded; the previous column's reads of known done */
    if (threadIdx.x < b)
      known[threadIdx.x] = yc[c0 + threadIdx.x];
    __syncthreads();
    if ((int)threadIdx.x < rows) {
      double sum = 0.0;
      for (int c = 0; c < b; c++)
        sum = fma(a[threadIdx.x][c], known[c], sum);
      yc[base + threadIdx.x] -= sum;
    }
  }
}

template <int MODE>
void launch_blocks(const double *d, int64_t m, double *y, int64_t n, int64_t nrhs, cudaStream_t stream) {
  const unsigned rhs_blocks = (unsigned)(nrhs < 65535 ? nrhs : 65535);
  for (int64_t done = 0; done < m; done += TRIANGLE_ROWS) {
    const int b = (int)(m - done < TRIANGLE_ROWS ? m - done : TRIANGLE_ROWS);
    /* Forward: rows done .. done + b, then the rows after them; backward:
     * the same counted from the end. */
    const int64_t r0 = forward<MODE>() ? done : m - done - b;
    dense_triangle<MODE><<<rhs_blocks, 32, 0, stream>>>(d, m, r0, b, y, n, nrhs);
    const int64_t lo = forward<MODE>() ? r0 + b : 0, hi = forward<MODE>() ? m : r0;
    if (hi > lo) {
      const dim3 grid((unsigned)((hi - lo + UPDATE_ROWS - 1) / UPDATE_ROWS), rhs_blocks);
      dense_update<MODE><<<grid, UPDATE_ROWS, 0, stream>>>(d, m, r0, b, lo, hi, y, n, nrhs);
    }
  }
}

} // namespace

extern "C" void tsi_lu_dense_tail_solve(const tsi_lu_device *dev, int mode, int64_t nrhs, double *y,
                                        void *stream_handle) {
  cudaStream_t stream = (cudaStream_t)stream_handle;
  const int64_t m = dev->n - dev->tail_start;
  double *tail_y = y + dev->tail_start;
  switch (mode) {
  case TSI_LU_SOLVE_LOWER:
    launch_blocks<TSI_LU_SOLVE_LOWER>(dev->tail_dense, m, tail_y, dev->n, nrhs, stream);
    break;
  case TSI_LU_SOLVE_UPPER:
    launch_blocks<TSI_LU_SOLVE_UPPER>(dev->tail_dense, m, tail_y, dev->n, nrhs, stream);
    break;
  case TSI_LU_SOLVE_UPPER_T:
    launch_blocks<TSI_LU_SOLVE_UPPER_T>(dev->tail_dense, m, tail_y, dev->n, nrhs, stream);
    break;
  default:
    launch_blocks<TSI_LU_SOLVE_LOWER_T>(dev->tail_dense, m, tail_y, dev->n, nrhs, stream);
    break;
  }
}
