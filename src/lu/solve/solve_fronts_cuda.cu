/* A x = b through the fronts' dense blocks where the multifrontal method
 * made the factors on the GPU (numeric/frontal_cuda.cu): the front tree's
 * levels instead of the columns' (tens against thousands on a mesh), so the
 * critical path is a few dense triangular blocks rather than a chain of
 * rows. The multifrontal forward and back substitutions (Duff and Reid,
 * ACM TOMS 9(3), 1983; the solve phase of MUMPS, Amestoy, Duff, L'Excellent
 * and Koster, SIMAX 23(1), 2001):
 *   forward, leaves first: a front adds its children's update vectors into
 *   its own in ascending order of child (extend-add through the
 *   relative map), solves its unit lower triangle for its pivots, and
 *   leaves w + L21 t for its parent;
 *   backward, roots first: a front's pivot rows subtract U12 times the
 *   solution at its other indices (its ancestors' pivots, already final),
 *   then solve its upper triangle.
 * Each entry's sum runs in one fixed order (children ascending, then the
 * pivots ascending; backward the other indices ascending, then the pivots
 * descending) whatever the launch shapes, so the results are bitwise
 * repeatable. Real values and double factors, op(A) = A; the other cases
 * keep the column solves (solve_cuda.cu). */
#include "lu/numeric/numeric_cuda.cuh"
#include "lu/solve/solve_internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int panel = 32; /* the pivots a warp solves between block barriers */
constexpr int small_rows = TSI_LU_FRONT_SMALL;
constexpr int small_warps = TSI_LU_FRONT_SOLVE_SMALL_WARPS;
constexpr int large_threads = TSI_LU_FRONT_SOLVE_THREADS;
constexpr int wide_window = TSI_LU_FRONT_SOLVE_WIDE_WINDOW; /* a wide level's pivots a step, a front */
constexpr int wide_rows = TSI_LU_FRONT_SOLVE_WIDE_ROWS;     /* a wide level's triangle rows a block */
static_assert(wide_window % panel == 0 && wide_window % wide_rows == 0,
              "a window holds whole panels (the same panels as a whole front's) and whole row chunks");
static_assert(small_rows == 32, "a small front is a warp's rows");

struct front_solve_args {
  const double *values;
  const int32_t *size, *pivots, *children, *index, *relative;
  const int64_t *offset, *child_ptr, *index_ptr;
  double *y;    /* nrhs columns of n */
  double *work; /* nrhs columns of work_ld */
  int64_t n, work_ld, first_column;
};

/* One front's view for right-hand side blockIdx.y. */
struct front_view {
  const double *v; /* f x f, column-major */
  const int32_t *index;
  double *w, *work, *y;
  int64_t f, p;
};

__device__ __forceinline__ front_view view_of(const front_solve_args &a, int32_t s) {
  const int64_t column = a.first_column + blockIdx.y;
  front_view fv;
  fv.f = a.size[s];
  fv.p = a.pivots[s];
  fv.v = a.values + a.offset[s];
  fv.index = a.index + a.index_ptr[s];
  fv.work = a.work + column * a.work_ld;
  fv.w = fv.work + a.index_ptr[s];
  fv.y = a.y + column * a.n;
  return fv;
}

/* acc plus the products of `count` entries of a front's column-major
 * values, `stride` apart from v, with x, in ascending (or descending) order
 * of k: the loads of a batch are issued before its multiply-adds, so that a
 * thread has a batch of loads in flight rather than one (the products'
 * order, and so the bits, stay those of a plain loop). */
template <bool descending>
__device__ __forceinline__ double strided_products(double acc, const double *v, int64_t stride, const double *x,
                                                   int count) {
  constexpr int batch = 16;
  int k = 0;
  for (; k + batch <= count; k += batch) {
    double loaded[batch];
#pragma unroll
    for (int u = 0; u < batch; u++)
      loaded[u] = v[(descending ? count - 1 - (k + u) : k + u) * stride];
#pragma unroll
    for (int u = 0; u < batch; u++)
      acc = acc + loaded[u] * x[descending ? count - 1 - (k + u) : k + u];
  }
  for (; k < count; k++) {
    const int at = descending ? count - 1 - k : k;
    acc = acc + v[at * stride] * x[at];
  }
  return acc;
}

/* The diagonal block of the panel of `width` pivots from k0 into shared
 * memory (block[column][row]), by `threads` threads from `first` (no
 * barrier): the warp's chain of steps then reads no global memory. The
 * factors do not change during a solve, so the next panel's block is loaded
 * by the other warps while warp 0 solves the current one. */
__device__ __forceinline__ void load_diagonal_block(const front_view &fv, int64_t k0, int width,
                                                    double (*block)[panel + 1], int first, int threads) {
  for (int e = (int)threadIdx.x - first; e < width * width; e += threads)
    block[e / width][e % width] = fv.v[(k0 + e % width) + (k0 + e / width) * fv.f];
}

/* Forward, fronts of at most 32 rows, a warp each (lane r: row r). */
__global__ void __launch_bounds__(32 * small_warps)
    forward_small(front_solve_args a, const int32_t *list, int64_t count) {
  __shared__ double gathered[small_warps][small_rows];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t item = (int64_t)blockIdx.x * small_warps + warp;
  if (item >= count)
    return; /* the whole warp */
  const int32_t s = list[item];
  const front_view fv = view_of(a, s);
  double *sums = gathered[warp];
  sums[lane] = 0.0;
  __syncwarp();
  /* A child's other indices are among this front's (at most 32 of them):
   * within a child every entry has its own target. */
  for (int64_t c = a.child_ptr[s]; c < a.child_ptr[s + 1]; c++) {
    const int32_t child = a.children[c];
    const int64_t r = a.pivots[child] + lane;
    if (r < a.size[child])
      sums[a.relative[a.index_ptr[child] + r]] += fv.work[a.index_ptr[child] + r];
    __syncwarp();
  }
  const int f = (int)fv.f, p = (int)fv.p;
  /* The lane's row of L in registers, loaded before the chain of steps. */
  double row[small_rows];
#pragma unroll
  for (int k = 0; k < small_rows; k++)
    row[k] = k < p && lane > k && lane < f ? fv.v[lane + (int64_t)k * fv.f] : 0.0;
  double acc = lane < f ? sums[lane] : 0.0;
  const double b = lane < p ? fv.y[fv.index[lane]] : 0.0;
  double t = 0.0;
#pragma unroll
  for (int k = 0; k < small_rows; k++) {
    if (k >= p)
      break;
    if (lane == k)
      t = b - acc;
    const double tk = __shfl_sync(0xffffffffu, t, k);
    if (lane > k && lane < f)
      acc = acc + row[k] * tk;
  }
  if (lane < p)
    fv.y[fv.index[lane]] = t;
  else if (lane < f)
    fv.w[lane] = acc;
}

/* Forward, larger fronts, a block each: the update vector in the front's
 * work, panels of 32 pivots solved by warp 0, the rows below updated by
 * all threads between barriers (with `split`, only the pivots' rows:
 * forward_below adds the rest). With window > 0 (a wide level), step `step`
 * of the front's pivots taken a window at a time: the children's updates at
 * step 0, then the window's panels, which update the rows up to the
 * window's end (wide_triangle adds the window's products to the rest of
 * the triangle, forward_below the rows below it). */
template <bool split>
__global__ void __launch_bounds__(large_threads)
    forward_large(front_solve_args a, const int32_t *list, int64_t window, int64_t step) {
  __shared__ double solved[panel];
  __shared__ double block[2][panel][panel + 1]; /* the panel's and the next one's diagonal blocks, [column][row] */
  const int32_t s = list[blockIdx.x];
  const front_view fv = view_of(a, s);
  const int64_t f = fv.f, p = fv.p;
  const int64_t k_begin = window > 0 ? step * window : 0;
  if (k_begin > 0 && k_begin >= p)
    return; /* the whole block: this front's pivots are done */
  if (k_begin == 0) {
    for (int64_t r = threadIdx.x; r < f; r += blockDim.x)
      fv.w[r] = 0.0;
    __syncthreads();
    for (int64_t c = a.child_ptr[s]; c < a.child_ptr[s + 1]; c++) {
      const int32_t child = a.children[c];
      const int32_t *relative = a.relative + a.index_ptr[child];
      const double *update = fv.work + a.index_ptr[child];
      for (int64_t r = a.pivots[child] + threadIdx.x; r < a.size[child]; r += blockDim.x)
        fv.w[relative[r]] += update[r];
      __syncthreads(); /* the next child may add to the same entries */
    }
  }
  const int lane = threadIdx.x & 31;
  const int64_t k_end = window > 0 && k_begin + window < p ? k_begin + window : p;
  const int64_t rows_end = window > 0 ? k_end : split ? p : f; /* the rows the panels update */
  if (k_begin < k_end)
    load_diagonal_block(fv, k_begin, k_end - k_begin < panel ? (int)(k_end - k_begin) : panel, block[0], 0, blockDim.x);
  __syncthreads();
  for (int64_t k0 = k_begin, current = 0; k0 < k_end; k0 += panel, current ^= 1) {
    const int width = k_end - k0 < panel ? (int)(k_end - k0) : panel;
    const int64_t next = k0 + panel;
    if (threadIdx.x < 32) {
      double acc = lane < width ? fv.w[k0 + lane] : 0.0;
      const double b = lane < width ? fv.y[fv.index[k0 + lane]] : 0.0;
      double t = 0.0;
      for (int k = 0; k < width; k++) {
        if (lane == k)
          t = b - acc;
        const double tk = __shfl_sync(0xffffffffu, t, k);
        if (lane > k && lane < width)
          acc = acc + block[current][k][lane] * tk;
      }
      if (lane < width) {
        solved[lane] = t;
        fv.y[fv.index[k0 + lane]] = t;
      }
    } else if (next < k_end) {
      load_diagonal_block(fv, next, k_end - next < panel ? (int)(k_end - next) : panel, block[current ^ 1], 32,
                          blockDim.x - 32);
    }
    __syncthreads();
    for (int64_t r = k0 + width + threadIdx.x; r < rows_end; r += blockDim.x)
      fv.w[r] = strided_products<false>(fv.w[r], fv.v + r + k0 * f, f, solved, width);
    __syncthreads(); /* solved[] is rewritten by the next panel */
  }
}

/* acc plus row r's products with the front's columns begin .. end - 1 in
 * ascending order (for a row below rows_end; acc itself otherwise), their
 * solution gathered into `gathered` a chunk at a time by the whole block
 * (every thread calls). */
__device__ __forceinline__ double add_column_products(const front_view &fv, int64_t r, int64_t rows_end, int64_t begin,
                                                      int64_t end, double acc, double *gathered) {
  const int64_t f = fv.f;
  for (int64_t j0 = begin; j0 < end; j0 += large_threads) {
    const int chunk = end - j0 < large_threads ? (int)(end - j0) : large_threads;
    __syncthreads(); /* the previous chunk is read */
    if (threadIdx.x < chunk)
      gathered[threadIdx.x] = fv.y[fv.index[j0 + threadIdx.x]];
    __syncthreads();
    if (r < rows_end) {
      acc = strided_products<false>(acc, fv.v + r + j0 * f, f, gathered, chunk);
    }
  }
  return acc;
}

/* Forward, a split level's rows below its fronts' pivots: a block a unit
 * (a front and SOLVE_THREADS of those rows, a thread a row); each row adds
 * L21 t in ascending pivot order onto its update, as forward_large's panels
 * would (the same bits). */
__global__ void __launch_bounds__(large_threads) forward_below(front_solve_args a, const int32_t *units) {
  __shared__ double solved[large_threads];
  const int32_t s = units[2 * (int64_t)blockIdx.x], first = units[2 * (int64_t)blockIdx.x + 1];
  const front_view fv = view_of(a, s);
  const int64_t r = first + (int64_t)threadIdx.x;
  const double acc = add_column_products(fv, r, fv.f, 0, fv.p, r < fv.f ? fv.w[r] : 0.0, solved);
  if (r < fv.f)
    fv.w[r] = acc;
}

/* Step `step` of a wide level: the triangle's rows past the step's window
 * of pivots (forward) add the window's products in ascending pivot order
 * onto their sums, or the pivot rows before it (backward) in descending
 * order, as forward_large's and backward_large's panels would (the same
 * bits); a block a chunk of wide_rows rows of a front (blockIdx.x = front *
 * chunks + chunk), so that a large front's triangle is read by many
 * multiprocessors. */
template <bool backward>
__global__ void __launch_bounds__(wide_rows)
    wide_triangle(front_solve_args a, const int32_t *list, int64_t step, int64_t chunks) {
  __shared__ double solved[wide_window];
  const front_view fv = view_of(a, list[blockIdx.x / chunks]);
  const int64_t p = fv.p, k_begin = step * wide_window;
  if (k_begin >= p)
    return; /* the whole block */
  const int width = (int)(k_begin + wide_window < p ? wide_window : p - k_begin);
  const int64_t chunk_first = (int64_t)(blockIdx.x % chunks) * wide_rows;
  const int64_t first = backward ? chunk_first : k_begin + width + chunk_first, limit = backward ? k_begin : p;
  if (first >= limit)
    return; /* the whole block */
  for (int k = threadIdx.x; k < width; k += blockDim.x)
    solved[k] = fv.y[fv.index[k_begin + k]];
  __syncthreads();
  const int64_t r = first + threadIdx.x;
  if (r < limit)
    fv.w[r] = strided_products<backward>(fv.w[r], fv.v + r + k_begin * fv.f, fv.f, solved, width);
}

/* Row r's sum of U12 x over the front's other indices (0 for a row past
 * the pivots); every thread of the block calls. */
__device__ __forceinline__ double other_products(const front_view &fv, int64_t r, double *other) {
  return add_column_products(fv, r, fv.p, fv.p, fv.f, 0.0, other);
}

/* Backward, a split level's pivot rows' sums of U12 x: a block a unit (a
 * front and SOLVE_THREADS of its pivot rows), as backward_large's first
 * loop makes them. */
__global__ void __launch_bounds__(large_threads) backward_above(front_solve_args a, const int32_t *units) {
  __shared__ double other[large_threads];
  const int32_t s = units[2 * (int64_t)blockIdx.x], first = units[2 * (int64_t)blockIdx.x + 1];
  const front_view fv = view_of(a, s);
  const int64_t r = first + (int64_t)threadIdx.x;
  const double acc = other_products(fv, r, other);
  if (r < fv.p)
    fv.w[r] = acc;
}

/* Backward, fronts of at most 32 rows, a warp each. */
__global__ void __launch_bounds__(32 * small_warps)
    backward_small(front_solve_args a, const int32_t *list, int64_t count) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t item = (int64_t)blockIdx.x * small_warps + warp;
  if (item >= count)
    return;
  const front_view fv = view_of(a, list[item]);
  const int f = (int)fv.f, p = (int)fv.p;
  double acc = 0.0;
  if (lane < p)
    for (int j = p; j < f; j++)
      acc = acc + fv.v[lane + (int64_t)j * fv.f] * fv.y[fv.index[j]];
  /* The lane's row of U among the pivots (its diagonal included) in
   * registers, loaded before the chain of steps. */
  double row[small_rows];
#pragma unroll
  for (int k = 0; k < small_rows; k++)
    row[k] = k < p && lane <= k ? fv.v[lane + (int64_t)k * fv.f] : 0.0;
  const double t = lane < p ? fv.y[fv.index[lane]] : 0.0;
  double reciprocal = 0.0;
#pragma unroll
  for (int k = 0; k < small_rows; k++)
    if (lane == k && k < p)
      reciprocal = 1.0 / row[k];
  double x = 0.0;
#pragma unroll
  for (int k = small_rows - 1; k >= 0; k--) {
    if (k >= p)
      continue;
    if (lane == k)
      x = (t - acc) * reciprocal;
    const double xk = __shfl_sync(0xffffffffu, x, k);
    if (lane < k)
      acc = acc + row[k] * xk;
  }
  if (lane < p)
    fv.y[fv.index[lane]] = x;
}

/* Backward, larger fronts, a block each: the pivot rows' sums of U12 x in
 * the front's work (the solution at the other indices gathered into shared
 * memory a chunk at a time, so that the products read no index; with
 * `split` backward_above made them), then panels
 * from the last, each solved by warp 0 (every lane takes the reciprocal of
 * its pivot first, so that the chain of steps holds no division) and
 * applied to the rows above between barriers. */
template <bool split>
__global__ void __launch_bounds__(large_threads)
    backward_large(front_solve_args a, const int32_t *list, int64_t window, int64_t step) {
  __shared__ double solved[panel];
  __shared__ double block[2][panel][panel + 1]; /* the panel's and the next one's diagonal blocks, [column][row] */
  __shared__ double other[large_threads];       /* the solution at a chunk of the other indices */
  const front_view fv = view_of(a, list[blockIdx.x]);
  const int64_t f = fv.f, p = fv.p;
  /* The pivots solved here, k_low .. k_high - 1: a wide level's step its
   * window (backward_sums made the sums of U12 x). */
  int64_t k_low = 0, k_high = p;
  bool sums = !split;
  if (window > 0) {
    k_low = step * window;
    if (k_low >= p)
      return; /* the whole block: this front's window comes at a later step */
    k_high = k_low + window < p ? k_low + window : p;
    sums = false;
  }
  for (int64_t r0 = 0; sums && r0 < p; r0 += large_threads) {
    const int64_t r = r0 + threadIdx.x;
    const double acc = other_products(fv, r, other);
    if (r < p)
      fv.w[r] = acc;
  }
  const int lane = threadIdx.x & 31;
  const int64_t k_last = k_high > k_low ? k_low + (k_high - 1 - k_low) / panel * panel : -1;
  if (k_last >= k_low)
    load_diagonal_block(fv, k_last, k_high - k_last < panel ? (int)(k_high - k_last) : panel, block[0], 0, blockDim.x);
  __syncthreads();
  for (int64_t k0 = k_last, current = 0; k0 >= k_low; k0 -= panel, current ^= 1) {
    const int width = k_high - k0 < panel ? (int)(k_high - k0) : panel;
    if (threadIdx.x >= 32 && k0 - panel >= k_low) /* the next panel's block, a whole one */
      load_diagonal_block(fv, k0 - panel, panel, block[current ^ 1], 32, blockDim.x - 32);
    if (threadIdx.x < 32) {
      double acc = lane < width ? fv.w[k0 + lane] : 0.0;
      const double t = lane < width ? fv.y[fv.index[k0 + lane]] : 0.0;
      const double reciprocal = lane < width ? 1.0 / block[current][lane][lane] : 0.0;
      double x = 0.0;
      for (int k = width - 1; k >= 0; k--) {
        if (lane == k)
          x = (t - acc) * reciprocal;
        const double xk = __shfl_sync(0xffffffffu, x, k);
        if (lane < k)
          acc = acc + block[current][k][lane] * xk;
      }
      if (lane < width) {
        solved[lane] = x;
        fv.y[fv.index[k0 + lane]] = x;
      }
    }
    __syncthreads();
    for (int64_t r = k_low + threadIdx.x; r < k0; r += blockDim.x)
      fv.w[r] = strided_products<true>(fv.w[r], fv.v + r + k0 * f, f, solved, width);
    __syncthreads();
  }
}

/* A wide level's pivot rows' sums of U12 x over their fronts' other
 * indices, in ascending order as backward_large's first loop makes them (the
 * same bits); a block a chunk of wide_rows pivot rows of a front
 * (blockIdx.x = front * chunks + chunk). */
__global__ void __launch_bounds__(wide_rows) backward_sums(front_solve_args a, const int32_t *list, int64_t chunks) {
  __shared__ double other[wide_window];
  const front_view fv = view_of(a, list[blockIdx.x / chunks]);
  const int64_t f = fv.f, p = fv.p, first = (int64_t)(blockIdx.x % chunks) * wide_rows;
  if (first >= p)
    return; /* the whole block */
  const int64_t r = first + threadIdx.x;
  double acc = 0.0;
  for (int64_t j0 = p; j0 < f; j0 += wide_window) {
    const int chunk = f - j0 < wide_window ? (int)(f - j0) : wide_window;
    __syncthreads(); /* the previous chunk is read */
    for (int j = threadIdx.x; j < chunk; j += blockDim.x)
      other[j] = fv.y[fv.index[j0 + j]];
    __syncthreads();
    if (r < p)
      acc = strided_products<false>(acc, fv.v + r + j0 * f, f, other, chunk);
  }
  if (r < p)
    fv.w[r] = acc;
}

/* launch(q, slice) for the items q .. q + slice - 1 of count, in slices
 * of at most 65535 (grid.x's limit for the kernels that take a block an
 * item). */
template <typename Launch> void in_slices(int64_t count, Launch launch) {
  for (int64_t q = 0; q < count; q += 65535)
    launch(q, (unsigned)(count - q < 65535 ? count - q : 65535));
}

ts_status reserve_work(ts_context *ctx, tsi_lu_device *dev, tsi_lu_front_device *fd, int64_t nrhs) {
  if (fd->solve_work_cols >= nrhs)
    return TS_SUCCESS;
  const int64_t per_column = fd->index_entries > 0 ? fd->index_entries : 1;
  tsi_lu_device_free(dev, fd->solve_work, fd->solve_work_cols * per_column, sizeof(double));
  fd->solve_work = NULL;
  fd->solve_work_cols = 0;
  int64_t count;
  if (tsi_mul_overflows(nrhs, per_column, &count))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "LU solve through the fronts: %lld right-hand sides overflow",
                     (long long)nrhs);
  ts_status st =
      tsi_lu_device_alloc(ctx, dev, (void **)&fd->solve_work, count, sizeof(double), "the fronts' solve work");
  if (st == TS_SUCCESS)
    fd->solve_work_cols = nrhs;
  return st;
}

/* The solves' split and wide levels and the units of every level's large
 * fronts (tsi_lu_front_device), once per set of fronts: a level's forward
 * solve splits where it has fewer large fronts than
 * TSI_LU_FRONT_SOLVE_SPLIT_FRONTS and their products below the triangles
 * (rows below the pivots times the pivots) hold at least
 * TSI_LU_FRONT_SOLVE_SPLIT_ENTRIES entries; such a level is also wide where
 * a front has TSI_LU_FRONT_SOLVE_WIDE_PIVOTS pivots or more. The backward
 * units serve the switch that splits every level both ways. */
enum { split_forward = 1, split_wide = 2 }; /* the bits of split_host */

ts_status make_solve_units(ts_context *ctx, tsi_lu_device *dev, tsi_lu_front_device *fd) {
  if (fd->solve_units_made)
    return TS_SUCCESS;
  const int64_t levels = fd->levels;
  free(fd->forward_unit_ptr_host); /* a failed attempt's */
  free(fd->backward_unit_ptr_host);
  free(fd->split_host);
  free(fd->level_pivots_host);
  fd->forward_unit_ptr_host = (int64_t *)tsi_calloc_array(levels + 1, sizeof(int64_t));
  fd->backward_unit_ptr_host = (int64_t *)tsi_calloc_array(levels + 1, sizeof(int64_t));
  fd->split_host = (unsigned char *)tsi_calloc_array(levels > 0 ? levels : 1, 1);
  fd->level_pivots_host = (int64_t *)tsi_calloc_array(levels > 0 ? levels : 1, sizeof(int64_t));
  if (!fd->forward_unit_ptr_host || !fd->backward_unit_ptr_host || !fd->split_host || !fd->level_pivots_host)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "LU solve through the fronts: no memory for the levels' units");
  const auto units_of = [](int64_t rows) { return (rows + large_threads - 1) / large_threads; };
  int64_t forward = 0, backward = 0;
  for (int64_t l = 0; l < levels; l++) {
    const int64_t first = fd->large_ptr_host[l], last = fd->large_ptr_host[l + 1];
    double entries = 0.0;
    int64_t most = 0;
    for (int64_t q = first; q < last; q++) {
      const int32_t s = fd->large_list_host[q];
      entries += (double)(fd->size_host[s] - fd->pivots_host[s]) * fd->pivots_host[s];
      most = fd->pivots_host[s] > most ? fd->pivots_host[s] : most;
    }
    const bool few = last - first < TSI_LU_FRONT_SOLVE_SPLIT_FRONTS;
    fd->level_pivots_host[l] = most;
    fd->split_host[l] = (unsigned char)((few && entries >= TSI_LU_FRONT_SOLVE_SPLIT_ENTRIES ? split_forward : 0) |
                                        (few && most >= TSI_LU_FRONT_SOLVE_WIDE_PIVOTS ? split_wide : 0));
    for (int64_t q = first; q < last; q++) { /* units for every level: a test may split them all */
      const int32_t s = fd->large_list_host[q];
      forward += units_of(fd->size_host[s] - fd->pivots_host[s]);
      backward += units_of(fd->pivots_host[s]);
    }
    fd->forward_unit_ptr_host[l + 1] = forward;
    fd->backward_unit_ptr_host[l + 1] = backward;
  }
  int32_t *forward_host = (int32_t *)tsi_malloc_array(forward > 0 ? 2 * forward : 1, sizeof(int32_t));
  int32_t *backward_host = (int32_t *)tsi_malloc_array(backward > 0 ? 2 * backward : 1, sizeof(int32_t));
  ts_status st = forward_host && backward_host
                     ? TS_SUCCESS
                     : tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "LU solve through the fronts: no memory for the units");
  int64_t fu = 0, bu = 0;
  for (int64_t l = 0; st == TS_SUCCESS && l < levels; l++)
    for (int64_t q = fd->large_ptr_host[l]; q < fd->large_ptr_host[l + 1]; q++) {
      const int32_t s = fd->large_list_host[q], f = fd->size_host[s], p = fd->pivots_host[s];
      for (int32_t r = p; r < f; r += large_threads, fu++) {
        forward_host[2 * fu] = s;
        forward_host[2 * fu + 1] = r;
      }
      for (int32_t r = 0; r < p; r += large_threads, bu++) {
        backward_host[2 * bu] = s;
        backward_host[2 * bu + 1] = r;
      }
    }
  const int64_t forward_count = forward > 0 ? 2 * forward : 1, backward_count = backward > 0 ? 2 * backward : 1;
  fd->forward_units = fd->backward_units = NULL;
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&fd->forward_units, forward_count, sizeof(int32_t),
                             "the fronts' solve units");
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&fd->backward_units, backward_count, sizeof(int32_t),
                             "the fronts' solve units");
  if (st == TS_SUCCESS && forward > 0)
    st = tsi_cuda_memcpy_to_device(ctx, fd->forward_units, forward_host, (size_t)forward_count * sizeof(int32_t));
  if (st == TS_SUCCESS && backward > 0)
    st = tsi_cuda_memcpy_to_device(ctx, fd->backward_units, backward_host, (size_t)backward_count * sizeof(int32_t));
  free(forward_host);
  free(backward_host);
  if (st != TS_SUCCESS) {
    tsi_lu_device_free(dev, fd->forward_units, forward_count, sizeof(int32_t)); /* NULL is a no-op */
    tsi_lu_device_free(dev, fd->backward_units, backward_count, sizeof(int32_t));
    fd->forward_units = fd->backward_units = NULL;
    return st;
  }
  fd->solve_units_made = 1; /* the release frees the units from here */
  return TS_SUCCESS;
}

/* The steps of level l's solves when it is wide (its large fronts' pivots
 * a window at a time, their triangles' other rows by wide_triangle), else 0. */
int64_t wide_steps(const ts_lu *lu, const tsi_lu_front_device *fd, int64_t l) {
  const int force = lu->switches.gpu_solve_split;
  const bool wide = force == 2 || (force == 0 && (fd->split_host[l] & split_wide));
  return wide ? (fd->level_pivots_host[l] + wide_window - 1) / wide_window : 0;
}

/* Whether level l's products beyond the triangles are split in the forward
 * or the backward solve (a wide level's forward always, its backward never). */
bool level_split(const ts_lu *lu, const tsi_lu_front_device *fd, int64_t l, bool backward) {
  const int force = lu->switches.gpu_solve_split;
  if (wide_steps(lu, fd, l) > 0)
    return !backward;
  return force == 1 || ((force == 0 || force == 3) && !backward && (fd->split_host[l] & split_forward));
}

} // namespace

extern "C" bool tsi_lu_front_solve_applies(const ts_lu *lu, const tsi_lu_device *dev, ts_operation op) {
  return op == TS_OP_NONE && dev->parts == 1 && !dev->single && dev->used_fronts && dev->fronts &&
         !lu->switches.gpu_solve_columns && !lu->switches.gpu_solve_level_sync;
}

extern "C" ts_status tsi_lu_front_solve(ts_lu *lu, tsi_lu_device *dev, int64_t nrhs, double *y, void *stream_handle) {
  ts_context *ctx = lu->ctx;
  tsi_lu_front_device *fd = dev->fronts;
  cudaStream_t stream = (cudaStream_t)stream_handle;
  ts_status st = reserve_work(ctx, dev, fd, nrhs);
  if (st == TS_SUCCESS)
    st = make_solve_units(ctx, dev, fd);
  if (st != TS_SUCCESS)
    return st;
  if (dev->peak > lu->stats.peak_device_bytes)
    lu->stats.peak_device_bytes = dev->peak;
  front_solve_args args;
  args.values = fd->values;
  args.size = fd->size;
  args.pivots = fd->pivots;
  args.children = fd->children;
  args.index = fd->index;
  args.relative = fd->relative;
  args.offset = fd->offset;
  args.child_ptr = fd->child_ptr;
  args.index_ptr = fd->index_ptr;
  args.y = y;
  args.work = fd->solve_work;
  args.n = dev->n;
  args.work_ld = fd->index_entries > 0 ? fd->index_entries : 1;
  for (int64_t first = 0; first < nrhs; first += 65535) { /* grid.y's limit */
    args.first_column = first;
    const unsigned columns = (unsigned)(nrhs - first < 65535 ? nrhs - first : 65535);
    for (int64_t l = 0; l < fd->levels; l++) {
      const int64_t small = fd->small_ptr_host[l + 1] - fd->small_ptr_host[l];
      const int64_t large = fd->large_ptr_host[l + 1] - fd->large_ptr_host[l];
      if (small > 0)
        forward_small<<<dim3((unsigned)((small + small_warps - 1) / small_warps), columns), 32 * small_warps, 0,
                        stream>>>(args, fd->small_list + fd->small_ptr_host[l], small);
      const bool split = level_split(lu, fd, l, false);
      const int64_t steps = wide_steps(lu, fd, l);
      for (int64_t step = 0; step < (steps > 0 ? steps : 1); step++) {
        in_slices(large, [&](int64_t q, unsigned slice) {
          const int32_t *list = fd->large_list + fd->large_ptr_host[l] + q;
          if (split)
            forward_large<true>
                <<<dim3(slice, columns), large_threads, 0, stream>>>(args, list, steps > 0 ? wide_window : 0, step);
          else
            forward_large<false><<<dim3(slice, columns), large_threads, 0, stream>>>(args, list, 0, 0);
        });
        const int64_t rest = steps > 0 ? fd->level_pivots_host[l] - (step + 1) * wide_window : 0;
        const int64_t chunks = rest > 0 ? (rest + wide_rows - 1) / wide_rows : 0;
        if (chunks > 0 && large > 0)
          wide_triangle<false><<<dim3((unsigned)(large * chunks), columns), wide_rows, 0, stream>>>(
              args, fd->large_list + fd->large_ptr_host[l], step, chunks);
      }
      const int64_t below = split ? fd->forward_unit_ptr_host[l + 1] - fd->forward_unit_ptr_host[l] : 0;
      in_slices(below, [&](int64_t q, unsigned slice) {
        forward_below<<<dim3(slice, columns), large_threads, 0, stream>>>(
            args, fd->forward_units + 2 * (fd->forward_unit_ptr_host[l] + q));
      });
    }
    for (int64_t l = fd->levels - 1; l >= 0; l--) {
      const int64_t small = fd->small_ptr_host[l + 1] - fd->small_ptr_host[l];
      const int64_t large = fd->large_ptr_host[l + 1] - fd->large_ptr_host[l];
      const bool split = level_split(lu, fd, l, true);
      const int64_t above = split ? fd->backward_unit_ptr_host[l + 1] - fd->backward_unit_ptr_host[l] : 0;
      in_slices(above, [&](int64_t q, unsigned slice) {
        backward_above<<<dim3(slice, columns), large_threads, 0, stream>>>(
            args, fd->backward_units + 2 * (fd->backward_unit_ptr_host[l] + q));
      });
      if (small > 0)
        backward_small<<<dim3((unsigned)((small + small_warps - 1) / small_warps), columns), 32 * small_warps, 0,
                         stream>>>(args, fd->small_list + fd->small_ptr_host[l], small);
      const int64_t steps = wide_steps(lu, fd, l);
      const int64_t sum_chunks = steps > 0 ? (fd->level_pivots_host[l] + wide_rows - 1) / wide_rows : 0;
      if (sum_chunks > 0 && large > 0)
        backward_sums<<<dim3((unsigned)(large * sum_chunks), columns), wide_rows, 0, stream>>>(
            args, fd->large_list + fd->large_ptr_host[l], sum_chunks);
      for (int64_t step = steps > 0 ? steps - 1 : 0; step >= 0; step--) {
        in_slices(large, [&](int64_t q, unsigned slice) {
          const int32_t *list = fd->large_list + fd->large_ptr_host[l] + q;
          if (split)
            backward_large<true><<<dim3(slice, columns), large_threads, 0, stream>>>(args, list, 0, 0);
          else
            backward_large<false>
                <<<dim3(slice, columns), large_threads, 0, stream>>>(args, list, steps > 0 ? wide_window : 0, step);
        });
        const int64_t chunks = steps > 0 ? step * wide_window / wide_rows : 0;
        if (chunks > 0 && large > 0)
          wide_triangle<true><<<dim3((unsigned)(large * chunks), columns), wide_rows, 0, stream>>>(
              args, fd->large_list + fd->large_ptr_host[l], step, chunks);
      }
    }
  }
  return tsi_cuda_check_launch(ctx, "LU solve through the fronts");
}
