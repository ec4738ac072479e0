/* The multifrontal factorization on the GPU (Duff and Reid, ACM TOMS 9(3),
 * 1983; fronts from symbolic/fronts.c), giving bit for bit the factors of
 * the host's multifrontal code (frontal_cpu.c):
 *   1. the fronts cleared, M = P Dr A Dc Q scattered into them, max |M|
 *      and the pivot rule made on the device (static pivoting: Li and
 *      Demmel, SuperLU_DIST's GESP, as on every path);
 *   2. level by level of the front tree, one launch for all the level's
 *      small fronts (at most TSI_LU_FRONT_SMALL rows: a warp each, the
 *      front in shared memory, a row a lane), which add their children's
 *      contribution blocks in ascending order of child (extend-add) and
 *      eliminate pivot by pivot; then the level's large fronts: one launch
 *      for their extend-add (a block per range of target columns, so that
 *      each entry takes its children's values in ascending order), and per
 *      panel of TSI_LU_FRONT_PANEL pivots three launches: the diagonal
 *      block pivot by pivot in shared memory (a block of threads, a barrier
 *      a pivot), the panels below and to the right by substitution (a warp
 *      a row or column), and the trailing
 *      block less the panel's products, summed in pivot order from 0 (a
 *      tiled product, each entry's sum in one thread: Dongarra, Duff,
 *      Sorensen and van der Vorst, "Numerical Linear Algebra for
 *      High-Performance Computers", 1998, chapter 5);
 *   3. the factors gathered into the pattern of L + U in the device cache's
 *      layout (and into its dense tail block when it keeps one), so that
 *      the GPU solves, the pivot check and refactorization read them as
 *      they read the column path's.
 * Every operation is the host's, rounded step by step (__dadd_rn and
 * friends: no fused multiply-adds), in the host's order for each entry, so
 * the factors are the host's bits whatever the launch shapes. A singular
 * or non-finite pivot stops the factorization after its level, as on the
 * host: later levels' kernels see the level in bad_level and return.
 * Real values only (double, or float factors computed in double as on the
 * host); complex values take the columns. */
#include "lu/numeric/numeric_cuda.cuh"
#include "lu/symbolic/symbolic_internal.h"

#include <cuda_runtime.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int small_rows = TSI_LU_FRONT_SMALL;
constexpr int panel = TSI_LU_FRONT_PANEL;
constexpr int tile = TSI_LU_FRONT_TILE;
constexpr int depth = TSI_LU_FRONT_TILE_DEPTH;
constexpr int tile_threads = (tile / 4) * (tile / 4); /* 4 x 4 entries a thread */
static_assert(small_rows == 32, "a small front is a warp's rows");
static_assert(panel <= 64, "the panel kernels hold a panel's row in registers");
static_assert(tile % 16 == 0 && depth * tile % tile_threads == 0, "the tiled product's loads");

/* The host's pivot rule (frontal_cpu.c's classify): the same tests in the
 * same order. */
__device__ __forceinline__ int classify(double *pivot, const double *rule) {
  const double p = *pivot;
  if (!isfinite(p))
    return PIVOT_NOT_FINITE;
  if (fabs(p) < rule[0] || p == 0.0) {
    if (rule[2] == 0.0)
      return PIVOT_SINGULAR;
    *pivot = p < 0.0 ? -rule[1] : rule[1];
    return PIVOT_PERTURBED;
  }
  return PIVOT_OK;
}

__device__ __forceinline__ void record(signed char *kind, int32_t column, int outcome, int *bad_level, int level) {
  kind[column] = (signed char)outcome;
  if (outcome == PIVOT_SINGULAR || outcome == PIVOT_NOT_FINITE)
    atomicMin(bad_level, level);
}

/* x - l * u, x + y, x / y, each rounded: the host's operations. */
__device__ __forceinline__ double sub_product(double x, double l, double u) { return __dsub_rn(x, __dmul_rn(l, u)); }

/* M into the (cleared) fronts, max |M| as bits (non-negative doubles order
 * as their bits do: an exact maximum). s * a * t in the host's order. */
__global__ void front_scatter(int64_t nnz, const int32_t *a_row, const int32_t *a_col, const double *a_values,
                              const double *row_scale, const double *col_scale, const int64_t *a_to_front,
                              double *fronts, unsigned long long *max_bits) {
  double local_max = 0.0;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < nnz; e += (int64_t)gridDim.x * blockDim.x) {
    const double v = __dmul_rn(__dmul_rn(row_scale[a_row[e]], a_values[e]), col_scale[a_col[e]]);
    fronts[a_to_front[e]] = v;
    local_max = fmax(local_max, fabs(v));
  }
  tsi_lu_warp_max_into(max_bits, local_max);
}

struct front_args {
  double *values;
  const int32_t *size, *pivots, *children, *index, *relative;
  const int64_t *offset, *child_ptr, *index_ptr;
  signed char *kind;
  const double *rule;
  int *bad_level;
  int level;
};

/* The small fronts of a level, a warp each: the front in shared memory
 * (column-major, stride small_rows + 1), children added in ascending order
 * (within a child every entry has its own target), then pivot by pivot, lane
 * i owning row i: row k is final when step k starts (its lane does not
 * update it then), so a warp barrier a step orders everything. */
__global__ void __launch_bounds__(32 * TSI_LU_FRONT_SMALL_WARPS)
    small_fronts(front_args a, const int32_t *list, int64_t count) {
  constexpr int stride = small_rows + 1;
  __shared__ double shared[TSI_LU_FRONT_SMALL_WARPS][small_rows * stride];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t item = (int64_t)blockIdx.x * TSI_LU_FRONT_SMALL_WARPS + warp;
  if (item >= count || *(volatile int *)a.bad_level < a.level)
    return; /* the whole warp */
  const int32_t s = list[item];
  const int f = a.size[s], p = a.pivots[s];
  double *v = a.values + a.offset[s];
  double *sh = shared[warp];
  for (int j = 0; j < f; j++)
    if (lane < f)
      sh[lane + j * stride] = v[lane + (int64_t)j * f];
  __syncwarp();
  for (int64_t c = a.child_ptr[s]; c < a.child_ptr[s + 1]; c++) {
    const int32_t child = a.children[c];
    const int64_t fc = a.size[child], pc = a.pivots[child];
    const double *cv = a.values + a.offset[child];
    const int32_t *rel = a.relative + a.index_ptr[child];
    for (int64_t b = pc; b < fc; b++) {
      double *target = sh + rel[b] * stride;
      for (int64_t r = pc + lane; r < fc; r += 32)
        target[rel[r]] = __dadd_rn(target[rel[r]], cv[r + b * fc]);
    }
    __syncwarp(); /* the next child may add to the same entries */
  }
  int own_outcome = PIVOT_OK; /* row lane's pivot, recorded after the steps (no global load in the chain) */
  for (int k = 0; k < p; k++) {
    double pivot = sh[k + k * stride];
    const int outcome = classify(&pivot, a.rule);
    __syncwarp(); /* every lane has read the pivot before it is replaced */
    if (lane == k) {
      sh[k + k * stride] = pivot;
      own_outcome = outcome;
    }
    if (lane > k && lane < f) {
      const double l = __ddiv_rn(sh[lane + k * stride], pivot);
      sh[lane + k * stride] = l;
      for (int j = k + 1; j < f; j++)
        sh[lane + j * stride] = sub_product(sh[lane + j * stride], l, sh[k + j * stride]);
    }
    __syncwarp();
  }
  for (int j = 0; j < f; j++)
    if (lane < f)
      v[lane + (int64_t)j * f] = sh[lane + j * stride];
  if (lane < p)
    record(a.kind, a.index[a.index_ptr[s] + lane], own_outcome, a.bad_level, a.level);
}

/* First r in [lo, hi) with rel[r] >= x (rel ascending). */
__device__ __forceinline__ int64_t lower_bound(const int32_t *rel, int64_t lo, int64_t hi, int64_t x) {
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    if (rel[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Extend-add into the large fronts of a level: block (x, y) takes front
 * list[y]'s target columns [x w, x w + w) (w = TSI_LU_FRONT_ASSEMBLY_COLUMNS)
 * and adds each child's block into them, children in ascending order. The
 * maps ascend, so a child's columns landing there are one run. */
__global__ void __launch_bounds__(TSI_LU_FRONT_ASSEMBLY_THREADS) assemble_large(front_args a, const int32_t *list) {
  if (*(volatile int *)a.bad_level < a.level)
    return;
  const int32_t s = list[blockIdx.y];
  const int64_t f = a.size[s];
  const int64_t j0 = (int64_t)blockIdx.x * TSI_LU_FRONT_ASSEMBLY_COLUMNS;
  if (j0 >= f)
    return;
  const int64_t j1 = j0 + TSI_LU_FRONT_ASSEMBLY_COLUMNS < f ? j0 + TSI_LU_FRONT_ASSEMBLY_COLUMNS : f;
  double *v = a.values + a.offset[s];
  for (int64_t c = a.child_ptr[s]; c < a.child_ptr[s + 1]; c++) {
    const int32_t child = a.children[c];
    const int64_t fc = a.size[child], pc = a.pivots[child], rows = fc - pc;
    const double *cv = a.values + a.offset[child];
    const int32_t *rel = a.relative + a.index_ptr[child];
    const int64_t b0 = lower_bound(rel, pc, fc, j0), b1 = lower_bound(rel, b0, fc, j1);
    const int64_t entries = rows * (b1 - b0);
    for (int64_t e = threadIdx.x; e < entries; e += blockDim.x) {
      const int64_t r = pc + e % rows, b = b0 + e / rows;
      double *target = v + rel[r] + (int64_t)rel[b] * f;
      *target = __dadd_rn(*target, cv[r + b * fc]);
    }
    __syncthreads(); /* the next child may add to the same entries */
  }
}

/* Panel step t of a large front: its pivots k0 = t panel .. k0 + w. */
struct panel_view {
  double *v;
  int64_t f, p, k0, w, begin;
};

__device__ __forceinline__ bool panel_of(const front_args &a, int32_t s, int step, panel_view *out) {
  out->f = a.size[s];
  out->p = a.pivots[s];
  out->k0 = (int64_t)step * panel;
  if (out->k0 >= out->p)
    return false;
  out->w = out->p - out->k0 < panel ? out->p - out->k0 : panel;
  out->begin = out->k0 + out->w;
  out->v = a.values + a.offset[s];
  return true;
}

/* The diagonal block of a panel pivot by pivot (the host's eliminate over
 * [k0, begin), the updates kept inside the block), a block a front, the
 * block in shared memory. Thread t owns row t % panel and every
 * (DIAGONAL_THREADS / panel)-th column, so that each step is one barrier:
 * every thread divides its row's entry of column k by the pivot itself (the
 * same bits in every thread of the row) and updates its entries right of
 * k; the quotients and the pivot are written back one step later, when no
 * thread reads them any more, and the pivots' outcomes go to global memory
 * after the last step. Each entry takes its updates in pivot order, as on
 * the host. */
__global__ void __launch_bounds__(TSI_LU_FRONT_DIAGONAL_THREADS)
    panel_diagonal(front_args a, const int32_t *list, int step) {
  constexpr int groups = TSI_LU_FRONT_DIAGONAL_THREADS / panel;
  static_assert(TSI_LU_FRONT_DIAGONAL_THREADS % panel == 0, "whole rows of threads");
  __shared__ double d[panel][panel + 1];  /* d[column][row] */
  __shared__ signed char outcomes[panel]; /* recorded after the steps: no global load between barriers */
  panel_view P;
  if (*(volatile int *)a.bad_level < a.level || !panel_of(a, list[blockIdx.x], step, &P))
    return;
  const int w = (int)P.w, r = threadIdx.x % panel, group = threadIdx.x / panel;
  const int32_t *index = a.index + a.index_ptr[list[blockIdx.x]];
  for (int e = threadIdx.x; e < w * w; e += blockDim.x)
    d[e / w][e % w] = P.v[(P.k0 + e % w) + (P.k0 + e / w) * P.f];
  const double rule[3] = {a.rule[0], a.rule[1], a.rule[2]};
  __syncthreads();
  double quotient = 0.0, pivot = 0.0;
  for (int k = 0; k < w; k++) {
    /* Step k - 1's results, which step k does not read. */
    if (k > 0 && group == (k - 1) % groups) {
      if (r > k - 1 && r < w)
        d[k - 1][r] = quotient;
      else if (r == k - 1)
        d[k - 1][k - 1] = pivot;
    }
    pivot = d[k][k];
    const int outcome = classify(&pivot, rule);
    if (threadIdx.x == k % panel + panel * (k % groups))
      outcomes[k] = (signed char)outcome;
    if (r > k && r < w) {
      quotient = __ddiv_rn(d[k][r], pivot);
      for (int c = k + 1 + ((group - (k + 1) % groups + groups) % groups); c < w; c += groups)
        d[c][r] = sub_product(d[c][r], quotient, d[c][k]);
    }
    __syncthreads();
  }
  if (w > 0 && group == (w - 1) % groups && r == w - 1)
    d[w - 1][w - 1] = pivot;
  __syncthreads();
  for (int e = threadIdx.x; e < w * w; e += blockDim.x)
    P.v[(P.k0 + e % w) + (P.k0 + e / w) * P.f] = d[e / w][e % w];
  for (int t = threadIdx.x; t < w; t += blockDim.x)
    record(a.kind, index[P.k0 + t], outcomes[t], a.bad_level, a.level);
}

/* The panels: blockIdx.z 0, the rows below the diagonal block solved
 * against U11 along each row (host: lower_panel); 1, the columns right of
 * it against the unit L11 down each column (upper_panel). A warp a row or
 * column, two of its entries a lane: step s makes entry s final (a
 * quotient on the rows, computed by every lane alike) and subtracts its
 * products from the later entries, so that each entry takes its
 * subtractions in the host's order (s ascending) and the chain is w steps
 * of a few instructions. */
__global__ void __launch_bounds__(TSI_LU_FRONT_PANEL_THREADS) panel_solve(front_args a, const int32_t *list, int step) {
  constexpr int warps = TSI_LU_FRONT_PANEL_THREADS / 32;
  static_assert(panel == 64, "two entries a lane");
  __shared__ double d[panel][panel + 1]; /* d[column][row] of the factored diagonal block */
  panel_view P;
  if (*(volatile int *)a.bad_level < a.level || !panel_of(a, list[blockIdx.y], step, &P))
    return;
  const int64_t rest = P.f - P.begin;
  if ((int64_t)blockIdx.x * warps >= rest)
    return; /* the whole block */
  const int w = (int)P.w, lane = threadIdx.x & 31;
  for (int e = threadIdx.x; e < w * w; e += blockDim.x)
    d[e / w][e % w] = P.v[(P.k0 + e % w) + (P.k0 + e / w) * P.f];
  __syncthreads();
  const int64_t x = P.begin + (int64_t)blockIdx.x * warps + (threadIdx.x >> 5);
  if (x >= P.f)
    return; /* the whole warp */
  const bool lower = blockIdx.z == 0;
  double *base = lower ? P.v + x + P.k0 * P.f : P.v + P.k0 + x * P.f; /* entry c at base[c * stride] */
  const int64_t stride = lower ? P.f : 1;
  const int c0 = lane, c1 = lane + 32;
  double v0 = c0 < w ? base[c0 * stride] : 0.0, v1 = c1 < w ? base[c1 * stride] : 0.0;
  if (lower) {
    for (int s = 0; s < w; s++) {
      const double q = __ddiv_rn(__shfl_sync(0xffffffffu, s < 32 ? v0 : v1, s & 31), d[s][s]);
      if (c0 == s)
        v0 = q;
      else if (c0 > s && c0 < w)
        v0 = sub_product(v0, q, d[c0][s]);
      if (c1 == s)
        v1 = q;
      else if (c1 > s && c1 < w)
        v1 = sub_product(v1, q, d[c1][s]);
    }
  } else {
    for (int s = 0; s < w; s++) {
      const double u = __shfl_sync(0xffffffffu, s < 32 ? v0 : v1, s & 31);
      if (c0 > s && c0 < w)
        v0 = sub_product(v0, d[s][c0], u);
      if (c1 > s && c1 < w)
        v1 = sub_product(v1, d[s][c1], u);
    }
  }
  if (c0 < w)
    base[c0 * stride] = v0;
  if (c1 < w)
    base[c1 * stride] = v1;
}

/* The trailing block [begin, f)^2 less L21 U12 (host: trailing_column):
 * block x of front list[y] takes a tile x tile square; each thread 4 x 4
 * entries, each entry's products summed from pivot k0 upward starting at
 * 0, then subtracted. L21 and U12 pass through shared memory depth pivots
 * at a time. */
__global__ void __launch_bounds__(tile_threads) panel_trailing(front_args a, const int32_t *list, int step) {
  __shared__ double l[depth][tile + 1]; /* l[s][i]: L(begin + ti tile + i, k0 + c0 + s) */
  __shared__ double u[depth][tile + 1]; /* u[s][j]: U(k0 + c0 + s, begin + tj tile + j) */
  panel_view P;
  if (*(volatile int *)a.bad_level < a.level || !panel_of(a, list[blockIdx.y], step, &P))
    return;
  const int64_t rest = P.f - P.begin, tiles = (rest + tile - 1) / tile;
  if ((int64_t)blockIdx.x >= tiles * tiles)
    return;
  const int64_t i0 = P.begin + (int64_t)(blockIdx.x % tiles) * tile;
  const int64_t j0 = P.begin + (int64_t)(blockIdx.x / tiles) * tile;
  constexpr int span = tile / 16; /* entries a thread along each side */
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  double sum[span][span];
#pragma unroll
  for (int x = 0; x < span; x++)
#pragma unroll
    for (int y = 0; y < span; y++)
      sum[x][y] = 0.0;
  for (int64_t c0 = 0; c0 < P.w; c0 += depth) {
    const int chunk = (int)(P.w - c0 < depth ? P.w - c0 : depth);
    for (int e = threadIdx.x; e < depth * tile; e += tile_threads) {
      const int i = e % tile, s = e / tile;
      const int64_t row = i0 + i;
      l[s][i] = s < chunk && row < P.f ? P.v[row + (P.k0 + c0 + s) * P.f] : 0.0;
      const int su = e % depth, j = e / depth;
      const int64_t col = j0 + j;
      u[su][j] = su < chunk && col < P.f ? P.v[(P.k0 + c0 + su) + col * P.f] : 0.0;
    }
    __syncthreads();
    for (int s = 0; s < chunk; s++) {
      double lv[span], uv[span];
#pragma unroll
      for (int x = 0; x < span; x++)
        lv[x] = l[s][tx + 16 * x];
#pragma unroll
      for (int y = 0; y < span; y++)
        uv[y] = u[s][ty + 16 * y];
#pragma unroll
      for (int x = 0; x < span; x++)
#pragma unroll
        for (int y = 0; y < span; y++)
          sum[x][y] = __dadd_rn(sum[x][y], __dmul_rn(lv[x], uv[y]));
    }
    __syncthreads();
  }
#pragma unroll
  for (int y = 0; y < span; y++) {
    const int64_t col = j0 + ty + 16 * y;
    if (col >= P.f)
      continue;
#pragma unroll
    for (int x = 0; x < span; x++) {
      const int64_t row = i0 + tx + 16 * x;
      if (row < P.f)
        P.v[row + col * P.f] = __dsub_rn(P.v[row + col * P.f], sum[x][y]);
    }
  }
}

/* The factors into the pattern of L + U, rounded to the stored precision
 * as the host rounds them. */
template <typename T>
__global__ void front_gather(int64_t nnz, const double *fronts, const int64_t *lu_to_front, T *values) {
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < nnz; p += (int64_t)gridDim.x * blockDim.x)
    values[p] = (T)fronts[lu_to_front[p]];
}

/* The device cache's dense tail block from the factors as stored (the
 * column path leaves the same there: numeric_dense_tail_cuda.cu), its
 * entries outside the pattern zero (cleared before). */
template <typename T>
__global__ void front_tail_block(int64_t n, int64_t tail_start, const int64_t *col_ptr, const int32_t *row_idx,
                                 const T *values, double *d) {
  const int64_t m = n - tail_start;
  for (int64_t k = tail_start + blockIdx.x; k < n; k += gridDim.x)
    for (int64_t p = col_ptr[k] + threadIdx.x; p < col_ptr[k + 1]; p += blockDim.x) {
      const int32_t i = row_idx[p];
      if (i >= tail_start)
        d[(i - tail_start) + (k - tail_start) * m] = (double)values[p];
    }
}

unsigned grid_for(int64_t work, int threads) {
  int64_t blocks = (work + threads - 1) / threads;
  if (blocks > TSI_LU_ELEMENTWISE_BLOCKS)
    blocks = TSI_LU_ELEMENTWISE_BLOCKS;
  return (unsigned)(blocks > 0 ? blocks : 1);
}

ts_status upload(ts_context *ctx, tsi_lu_device *dev, void **dst, const void *src, int64_t count, size_t size,
                 const char *what) {
  ts_status st = tsi_lu_device_alloc(ctx, dev, dst, count > 0 ? count : 1, size, what);
  if (st == TS_SUCCESS && count > 0)
    st = tsi_cuda_memcpy_to_device(ctx, *dst, src, (size_t)count * size);
  return st;
}

/* The fronts' structure on the device, the level lists and A's places. */
ts_status build_fronts(ts_lu *lu, tsi_lu_device *dev, const tsi_lu_fronts *fr, tsi_lu_front_device **out) {
  ts_context *ctx = lu->ctx;
  tsi_lu_front_device *fd = (tsi_lu_front_device *)calloc(1, sizeof *fd);
  if (!fd)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "LU fronts on the GPU: no memory for their description");
  *out = fd;
  dev->fronts = fd; /* released with the device cache on any failure below */
  const int64_t count = fr->count, levels = fr->levels, n = lu->n;
  fd->count = count;
  fd->levels = levels;
  fd->storage = fr->offset[count];
  fd->index_entries = fr->index_ptr[count];
  fd->nnz_a = lu->nnz_a;
  fd->lu_nnz = lu->lu_nnz;
  const int64_t mc = count > 0 ? count : 1;
  fd->small_ptr_host = (int64_t *)tsi_calloc_array(levels + 1, sizeof(int64_t));
  fd->large_ptr_host = (int64_t *)tsi_calloc_array(levels + 1, sizeof(int64_t));
  fd->large_list_host = (int32_t *)tsi_malloc_array(mc, sizeof(int32_t));
  fd->size_host = (int32_t *)tsi_malloc_array(mc, sizeof(int32_t));
  fd->pivots_host = (int32_t *)tsi_malloc_array(mc, sizeof(int32_t));
  fd->level_of_host = (int32_t *)tsi_malloc_array(n > 0 ? n : 1, sizeof(int32_t));
  int32_t *small_list = (int32_t *)tsi_malloc_array(mc, sizeof(int32_t));
  int64_t *a_to_front = (int64_t *)tsi_malloc_array(lu->nnz_a > 0 ? lu->nnz_a : 1, sizeof(int64_t));
  if (!fd->small_ptr_host || !fd->large_ptr_host || !fd->large_list_host || !fd->size_host || !fd->pivots_host ||
      !fd->level_of_host || !small_list || !a_to_front) {
    free(small_list);
    free(a_to_front);
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "LU fronts on the GPU: no memory for the level lists");
  }
  memcpy(fd->size_host, fr->size, (size_t)count * sizeof(int32_t));
  memcpy(fd->pivots_host, fr->pivots, (size_t)count * sizeof(int32_t));
  int64_t small = 0, large = 0;
  for (int64_t l = 0; l < levels; l++) {
    for (int64_t s = fr->level_ptr[l]; s < fr->level_ptr[l + 1]; s++) {
      if (fr->size[s] <= TSI_LU_FRONT_SMALL)
        small_list[small++] = (int32_t)s;
      else
        fd->large_list_host[large++] = (int32_t)s;
      for (int64_t k = 0; k < fr->pivots[s]; k++)
        fd->level_of_host[fr->index[fr->index_ptr[s] + k]] = (int32_t)l;
    }
    fd->small_ptr_host[l + 1] = small;
    fd->large_ptr_host[l + 1] = large;
  }
  for (int64_t e = 0; e < lu->nnz_a; e++)
    a_to_front[e] = fr->lu_to_front[lu->a_to_lu[e]];
  const int64_t entries = fd->index_entries;
  ts_status st = TS_SUCCESS;
  struct {
    void **dst;
    const void *src;
    int64_t count;
    size_t size;
  } uploads[] = {
      {(void **)&fd->size, fr->size, count, sizeof(int32_t)},
      {(void **)&fd->pivots, fr->pivots, count, sizeof(int32_t)},
      {(void **)&fd->offset, fr->offset, count + 1, sizeof(int64_t)},
      {(void **)&fd->child_ptr, fr->child_ptr, count + 1, sizeof(int64_t)},
      {(void **)&fd->children, fr->children, count, sizeof(int32_t)},
      {(void **)&fd->index_ptr, fr->index_ptr, count + 1, sizeof(int64_t)},
      {(void **)&fd->index, fr->index, entries, sizeof(int32_t)},
      {(void **)&fd->relative, fr->relative, entries, sizeof(int32_t)},
      {(void **)&fd->lu_to_front, fr->lu_to_front, lu->lu_nnz, sizeof(int64_t)},
      {(void **)&fd->a_to_front, a_to_front, lu->nnz_a, sizeof(int64_t)},
      {(void **)&fd->small_list, small_list, count, sizeof(int32_t)},
      {(void **)&fd->large_list, fd->large_list_host, count, sizeof(int32_t)},
  };
  for (size_t u = 0; st == TS_SUCCESS && u < sizeof uploads / sizeof uploads[0]; u++)
    st = upload(ctx, dev, uploads[u].dst, uploads[u].src, uploads[u].count, uploads[u].size, "the fronts' structure");
  free(small_list);
  free(a_to_front);
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&fd->values, fd->storage > 0 ? fd->storage : 1, sizeof(double),
                             "the fronts' values");
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&fd->bad_level, 1, sizeof(int), "the fronts' stop level");
  return st;
}

/* One level's large fronts, panel step by panel step. */
ts_status factor_large(ts_context *ctx, const tsi_lu_front_device *fd, const front_args &args, int64_t first,
                       int64_t last, cudaStream_t stream) {
  const int64_t fronts = last - first;
  const int32_t *list = fd->large_list + first;
  int64_t steps = 0, widest = 0;
  for (int64_t q = first; q < last; q++) {
    const int32_t s = fd->large_list_host[q];
    const int64_t need = (fd->pivots_host[s] + panel - 1) / panel;
    steps = need > steps ? need : steps;
    widest = fd->size_host[s] > widest ? fd->size_host[s] : widest;
  }
  for (int64_t y = 0; y < fronts; y += 65535) { /* grid.y's limit */
    const unsigned part = (unsigned)(fronts - y < 65535 ? fronts - y : 65535);
    const dim3 grid((unsigned)((widest + TSI_LU_FRONT_ASSEMBLY_COLUMNS - 1) / TSI_LU_FRONT_ASSEMBLY_COLUMNS), part);
    assemble_large<<<grid, TSI_LU_FRONT_ASSEMBLY_THREADS, 0, stream>>>(args, list + y);
  }
  for (int64_t t = 0; t < steps; t++) {
    /* The step's widest remainder over the fronts that have the step. */
    int64_t rest = 0;
    for (int64_t q = first; q < last; q++) {
      const int32_t s = fd->large_list_host[q];
      const int64_t p = fd->pivots_host[s], k0 = t * panel;
      if (k0 < p) {
        const int64_t begin = k0 + (p - k0 < panel ? p - k0 : panel), r = fd->size_host[s] - begin;
        rest = r > rest ? r : rest;
      }
    }
    for (int64_t y = 0; y < fronts; y += 65535) {
      const unsigned part = (unsigned)(fronts - y < 65535 ? fronts - y : 65535);
      panel_diagonal<<<part, TSI_LU_FRONT_DIAGONAL_THREADS, 0, stream>>>(args, list + y, (int)t);
      if (rest == 0)
        continue;
      constexpr int64_t warps = TSI_LU_FRONT_PANEL_THREADS / 32;
      const dim3 solve_grid((unsigned)((rest + warps - 1) / warps), part, 2);
      panel_solve<<<solve_grid, TSI_LU_FRONT_PANEL_THREADS, 0, stream>>>(args, list + y, (int)t);
      const int64_t tiles = (rest + tile - 1) / tile;
      if (tiles * tiles > INT32_MAX)
        return tsi_error(ctx, TS_ERROR_OVERFLOW, "LU fronts on the GPU: a front of %lld rows overflows the grid",
                         (long long)widest);
      panel_trailing<<<dim3((unsigned)(tiles * tiles), part), tile_threads, 0, stream>>>(args, list + y, (int)t);
    }
  }
  return TS_SUCCESS;
}

} // namespace

void tsi_lu_frontal_cuda_release(tsi_lu_device *dev) {
  tsi_lu_front_device *fd = (tsi_lu_front_device *)dev->fronts;
  dev->fronts = NULL;
  if (!fd)
    return;
  const int64_t count = fd->count > 0 ? fd->count : 1, entries = fd->index_entries > 0 ? fd->index_entries : 1;
  tsi_lu_device_free(dev, fd->values, fd->storage > 0 ? fd->storage : 1, sizeof(double));
  tsi_lu_device_free(dev, fd->size, count, sizeof(int32_t));
  tsi_lu_device_free(dev, fd->pivots, count, sizeof(int32_t));
  tsi_lu_device_free(dev, fd->offset, fd->count + 1, sizeof(int64_t));
  tsi_lu_device_free(dev, fd->child_ptr, fd->count + 1, sizeof(int64_t));
  tsi_lu_device_free(dev, fd->children, count, sizeof(int32_t));
  tsi_lu_device_free(dev, fd->index_ptr, fd->count + 1, sizeof(int64_t));
  tsi_lu_device_free(dev, fd->index, entries, sizeof(int32_t));
  tsi_lu_device_free(dev, fd->relative, entries, sizeof(int32_t));
  tsi_lu_device_free(dev, fd->lu_to_front, fd->lu_nnz > 0 ? fd->lu_nnz : 1, sizeof(int64_t));
  tsi_lu_device_free(dev, fd->a_to_front, fd->nnz_a > 0 ? fd->nnz_a : 1, sizeof(int64_t));
  tsi_lu_device_free(dev, fd->small_list, count, sizeof(int32_t));
  tsi_lu_device_free(dev, fd->large_list, count, sizeof(int32_t));
  tsi_lu_device_free(dev, fd->bad_level, 1, sizeof(int));
  tsi_lu_device_free(dev, fd->solve_work, fd->solve_work_cols * (fd->index_entries > 0 ? fd->index_entries : 1),
                     sizeof(double));
  free(fd->small_ptr_host);
  free(fd->large_ptr_host);
  free(fd->large_list_host);
  free(fd->size_host);
  free(fd->pivots_host);
  free(fd->level_of_host);
  if (fd->solve_units_made) {
    const int64_t forward = fd->forward_unit_ptr_host[fd->levels], backward = fd->backward_unit_ptr_host[fd->levels];
    tsi_lu_device_free(dev, fd->forward_units, forward > 0 ? 2 * forward : 1, sizeof(int32_t));
    tsi_lu_device_free(dev, fd->backward_units, backward > 0 ? 2 * backward : 1, sizeof(int32_t));
  }
  free(fd->forward_unit_ptr_host);
  free(fd->backward_unit_ptr_host);
  free(fd->split_host);
  free(fd->level_pivots_host);
  free(fd);
}

bool tsi_lu_frontal_cuda_chosen(ts_lu *lu, tsi_lu_device *dev) {
  if (lu->complex_values || dev->parts != 1) {
    dev->method_reason = "columns (complex values: the fronts are real)";
    return false;
  }
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
    free_bytes = (size_t)1 << 30;
  /* The fronts already held count as free: the choice must not flip
   * because the first factorization took them. */
  int64_t available = (int64_t)free_bytes;
  const tsi_lu_front_device *fd = (const tsi_lu_front_device *)dev->fronts;
  if (fd)
    available += fd->storage * (int64_t)sizeof(double);
  return tsi_lu_frontal_chosen(lu, available, &dev->method_reason);
}

ts_status tsi_lu_frontal_cuda(ts_lu *lu, tsi_lu_device *dev, const char *caller) {
  ts_context *ctx = lu->ctx;
  const int64_t n = lu->n;
  tsi_lu_fronts *fr = NULL;
  ts_status st = tsi_lu_fronts_get(lu, &fr);
  if (st != TS_SUCCESS)
    return st;
  tsi_lu_front_device *fd = (tsi_lu_front_device *)dev->fronts;
  if (!fd) {
    st = build_fronts(lu, dev, fr, &fd);
    if (st != TS_SUCCESS) {
      tsi_lu_frontal_cuda_release(dev);
      return st;
    }
  }
  lu->stats.peak_device_bytes = dev->peak;
  lu->stats.flops = fr->flops;
  const bool single = dev->single != 0;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  st = tsi_cuda_memcpy_to_device(ctx, dev->a_values, lu->a_values, (size_t)lu->nnz_a * sizeof(double));
  if (st == TS_SUCCESS)
    st = tsi_cuda_memset(ctx, fd->values, 0, (size_t)(fd->storage > 0 ? fd->storage : 1) * sizeof(double));
  if (st == TS_SUCCESS)
    st = tsi_cuda_memset(ctx, dev->kind, 0, (size_t)n);
  if (st == TS_SUCCESS)
    st = tsi_cuda_memset(ctx, dev->max_bits, 0, sizeof(unsigned long long));
  if (st == TS_SUCCESS)
    st = tsi_cuda_memset(ctx, fd->bad_level, 0x7f, sizeof(int)); /* no bad level: a large positive number */
  if (st != TS_SUCCESS)
    return st;
  const double threshold = tsi_lu_pivot_threshold(lu);
  const double root_eps = sqrt(single ? (double)FLT_EPSILON : DBL_EPSILON);
  front_scatter<<<grid_for(lu->nnz_a, TSI_LU_ELEMENTWISE_THREADS), TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
      lu->nnz_a, dev->a_row, dev->a_col, dev->a_values, dev->row_scale, dev->col_scale, fd->a_to_front, fd->values,
      dev->max_bits);
  tsi_lu_pivot_rule_cuda(dev->max_bits, threshold, root_eps, !lu->options.no_perturbation, dev->rule, stream);
  st = tsi_cuda_check_launch(ctx, "LU fronts on the GPU: the scatter of M");
  if (st != TS_SUCCESS)
    return st;

  front_args args;
  args.values = fd->values;
  args.size = fd->size;
  args.pivots = fd->pivots;
  args.children = fd->children;
  args.index = fd->index;
  args.relative = fd->relative;
  args.offset = fd->offset;
  args.child_ptr = fd->child_ptr;
  args.index_ptr = fd->index_ptr;
  args.kind = dev->kind;
  args.rule = dev->rule;
  args.bad_level = fd->bad_level;
  double last_check = tsi_seconds();
  int64_t done = 0;
  for (int64_t l = 0; l < fd->levels; l++) {
    st = tsi_lu_gpu_check_cancel(ctx, &last_check, done, n);
    if (st != TS_SUCCESS)
      return st;
    args.level = (int)l;
    const int64_t small = fd->small_ptr_host[l + 1] - fd->small_ptr_host[l];
    if (small > 0) {
      const int64_t blocks = (small + TSI_LU_FRONT_SMALL_WARPS - 1) / TSI_LU_FRONT_SMALL_WARPS;
      small_fronts<<<(unsigned)blocks, 32 * TSI_LU_FRONT_SMALL_WARPS, 0, stream>>>(
          args, fd->small_list + fd->small_ptr_host[l], small);
    }
    if (fd->large_ptr_host[l + 1] > fd->large_ptr_host[l]) {
      st = factor_large(ctx, fd, args, fd->large_ptr_host[l], fd->large_ptr_host[l + 1], stream);
      if (st != TS_SUCCESS)
        return st;
    }
    st = tsi_cuda_check_launch(ctx, "LU fronts on the GPU: a level of the front tree");
    if (st != TS_SUCCESS)
      return st;
    for (int64_t s = fr->level_ptr[l]; s < fr->level_ptr[l + 1]; s++)
      done += fr->pivots[s];
  }

  const unsigned gather_blocks = grid_for(lu->lu_nnz, TSI_LU_ELEMENTWISE_THREADS);
  if (single)
    front_gather<float><<<gather_blocks, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
        lu->lu_nnz, fd->values, fd->lu_to_front, (float *)dev->values);
  else
    front_gather<double><<<gather_blocks, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
        lu->lu_nnz, fd->values, fd->lu_to_front, (double *)dev->values);
  if (dev->tail_dense) {
    const int64_t m = n - dev->tail_start;
    st = tsi_cuda_memset(ctx, dev->tail_dense, 0, (size_t)(m * m) * sizeof(double));
    if (st != TS_SUCCESS)
      return st;
    const unsigned blocks = (unsigned)(m < 65535 ? m : 65535);
    if (single)
      front_tail_block<float><<<blocks, TSI_LU_DENSE_TAIL_THREADS, 0, stream>>>(
          n, dev->tail_start, dev->col_ptr, dev->row_idx, (const float *)dev->values, dev->tail_dense);
    else
      front_tail_block<double><<<blocks, TSI_LU_DENSE_TAIL_THREADS, 0, stream>>>(
          n, dev->tail_start, dev->col_ptr, dev->row_idx, (const double *)dev->values, dev->tail_dense);
  }
  st = tsi_cuda_check_launch(ctx, "LU fronts on the GPU: the factors into the pattern");
  double rule[3];
  unsigned long long max_bits = 0;
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(ctx, rule, dev->rule, sizeof rule);
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(ctx, &max_bits, dev->max_bits, sizeof max_bits);
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(ctx, dev->kind_host, dev->kind, (size_t)n);
  if (st != TS_SUCCESS)
    return st;
  double max_abs;
  memcpy(&max_abs, &max_bits, sizeof max_abs);
  if (single && max_abs > FLT_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW,
                     "%s: the scaled matrix holds %.3g, beyond single precision's range; factor in "
                     "double, or with the matching's scaling",
                     caller, max_abs);
  st = tsi_lu_pivot_outcome(lu, dev->kind_host, fd->level_of_host, rule[0], threshold, caller);
  if (!TS_IS_ERROR(st))
    lu->factors_on_device = 1;
  return st;
}
