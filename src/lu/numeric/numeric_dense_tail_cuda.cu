/* The trailing columns of the GPU LU factorization (the last, narrow levels:
 * the separator at the end of a fill-reducing order) as one dense block.
 *
 * The sparse right-looking tail (numeric_sparse_tail_cuda.cu) spends a launch per
 * column and a binary search per update; there the block is dense enough
 * that storing it dense pays: its m x m entries are gathered from the
 * finished left-looking columns, factored by a blocked right-looking LU
 * without row exchanges (the same static pivot rule: a tiny pivot is
 * replaced, counted, or stops the factorization), and written back into the
 * sparse pattern. The trailing update of each panel is a GEMM on CUDA cores
 * (tessera's own, src/gemm/), so the block runs near the GPU's FP64 rate
 * instead of one column at a time. Blocked LU: Dongarra, Duff, Sorensen and
 * van der Vorst, "Numerical Linear Algebra for High-Performance Computers"
 * (1998), chapter 5; the dense trailing block of a sparse LU is the idea of
 * supernodal and multifrontal codes (e.g. Demmel et al., SuperLU, 1999).
 *
 * The result is bitwise repeatable (no atomics; the GEMM is deterministic)
 * but not bitwise the host's: the block's updates are grouped by panel.
 * Entries outside the symbolic pattern stay zero (an update only reaches
 * (i, k) when L(i, j) and U(j, k) are both in the pattern), so nothing is
 * lost when the block goes back into the pattern. */
#include "gemm/gemm_internal.h"
#include "lu/numeric/numeric_cuda.cuh"

namespace {

/* Panel width: the GEMM's depth and the triangular kernels' register
 * arrays. */
constexpr int panel = TSI_LU_DENSE_TAIL_PANEL;

/* The tail's columns k gather, in increasing order, the updates of the
 * finished columns j < tail_start (a block per column): rows of the block
 * into d, rows above it (entries of U) in place. The same order of
 * operations as the host's left-looking code. With use_map (a dense
 * scratch slot per block, zero), the column's rows above the block are
 * mapped there first (offset + 1 as int32), so that an update finds its
 * entry with one load instead of a binary search over the column; the map
 * is cleared after, leaving the slot zero. */
template <typename T>
__global__ void __launch_bounds__(TSI_LU_DENSE_TAIL_THREADS)
    dense_tail_gather(factor_args a, const T *values, int64_t tail_start, int64_t m, double *d, bool use_map) {
  const int32_t *row_idx = a.row_idx;
  int32_t *map = use_map ? (int32_t *)(a.scratch + (int64_t)blockIdx.x * a.n) : nullptr;
  for (int64_t k = tail_start + blockIdx.x; k < a.n; k += gridDim.x) {
    const int64_t begin = a.col_ptr[k], diag = a.diag_pos[k], end = a.col_ptr[k + 1];
    double *dk = d + (k - tail_start) * m;
    for (int64_t p = begin + threadIdx.x; p < end; p += blockDim.x) {
      const int32_t i = row_idx[p];
      if (i >= tail_start)
        dk[i - tail_start] = a.acc[p];
      else if (map)
        map[i] = (int32_t)(p - begin + 1);
    }
    __syncthreads();
    for (int64_t p = begin; p < diag && row_idx[p] < tail_start; p++) {
      const int32_t j = row_idx[p];
      const double u = a.acc[p];
      if (u == 0.0)
        continue; /* the same for every thread */
      const int64_t l_end = a.col_ptr[j + 1];
      for (int64_t q = a.diag_pos[j] + 1 + threadIdx.x; q < l_end; q += blockDim.x) {
        const int32_t i = row_idx[q];
        const double l = (double)values[q];
        if (i >= tail_start) {
          dk[i - tail_start] = minus_product(dk[i - tail_start], l, u);
        } else {
          int64_t pos = -1;
          if (map) {
            const int64_t at = begin + (int64_t)map[i] - 1;
            pos = at > p && at < diag ? at : -1;
          } else {
            pos = find_row(row_idx, p + 1, diag, i);
          }
          if (pos >= 0)
            a.acc[pos] = minus_product(a.acc[pos], l, u);
        }
      }
      __syncthreads();
    }
    if (map)
      for (int64_t p = begin + threadIdx.x; p < diag; p += blockDim.x)
        map[row_idx[p]] = 0; /* rows above the diagonal, which hold every row below tail_start */
    __syncthreads();         /* dk complete and the map clear before the next column reuses the block */
  }
}

/* LU of the b x b diagonal block at (c0, c0) in shared memory, one block;
 * pivots by the rule, outcomes in kind[c0 ..]. */
__global__ void __launch_bounds__(TSI_LU_DENSE_TAIL_THREADS)
    dense_diagonal_block(double *d, int64_t m, int64_t c0, int b, const double *rule, signed char *kind) {
  __shared__ double s[panel][panel + 1]; /* s[column][row] */
  for (int e = threadIdx.x; e < b * b; e += blockDim.x)
    s[e / b][e % b] = d[(c0 + e % b) + (c0 + e / b) * m];
  __syncthreads();
  for (int j = 0; j < b; j++) {
    double pivot = s[j][j];
    const int outcome = classify_pivot(&pivot, rule);
    __syncthreads(); /* s[j][j] read by all before it is replaced */
    if (threadIdx.x == 0) {
      s[j][j] = pivot;
      kind[c0 + j] = (signed char)outcome;
    }
    for (int r = j + 1 + threadIdx.x; r < b; r += blockDim.x)
      s[j][r] = s[j][r] / pivot;
    __syncthreads();
    const int rest = b - j - 1;
    for (int e = threadIdx.x; e < rest * rest; e += blockDim.x) {
      const int r = j + 1 + e % rest, c = j + 1 + e / rest;
      s[c][r] = s[c][r] - s[j][r] * s[c][j];
    }
    __syncthreads();
  }
  for (int e = threadIdx.x; e < b * b; e += blockDim.x)
    d[(c0 + e % b) + (c0 + e / b) * m] = s[e / b][e % b];
}

/* The full panel's diagonal block into shared memory, tile[column][row]. */
__device__ void load_diagonal_block(const double *d, int64_t m, int64_t c0, double (*tile)[panel + 1]) {
  for (int e = threadIdx.x; e < panel * panel; e += blockDim.x)
    tile[e / panel][e % panel] = d[(c0 + e % panel) + (c0 + e / panel) * m];
  __syncthreads();
}

/* L21 = A21 U11^-1 below a full panel: a thread per row, forward along the
 * row with U11 in shared memory. */
__global__ void __launch_bounds__(TSI_LU_DENSE_TAIL_PANEL_THREADS) dense_lower_panel(double *d, int64_t m, int64_t c0) {
  __shared__ double u[panel][panel + 1]; /* u[column][row] = U11(row, column) */
  load_diagonal_block(d, m, c0, u);
  const int64_t i = c0 + panel + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= m)
    return;
  double x[panel];
#pragma unroll
  for (int c = 0; c < panel; c++) {
    double v = d[i + (c0 + c) * m];
#pragma unroll
    for (int s = 0; s < c; s++)
      v -= x[s] * u[c][s];
    x[c] = v / u[c][c];
    d[i + (c0 + c) * m] = x[c];
  }
}

/* U12 = L11^-1 A12 right of a full panel: a thread per column, down the
 * column with the unit lower L11 in shared memory. */
__global__ void __launch_bounds__(TSI_LU_DENSE_TAIL_PANEL_THREADS) dense_upper_panel(double *d, int64_t m, int64_t c0) {
  __shared__ double l[panel][panel + 1]; /* l[column][row] = L11(row, column) */
  load_diagonal_block(d, m, c0, l);
  const int64_t c = c0 + panel + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (c >= m)
    return;
  double *column = d + c * m + c0;
  double x[panel];
#pragma unroll
  for (int r = 0; r < panel; r++) {
    double v = column[r];
#pragma unroll
    for (int s = 0; s < r; s++)
      v -= l[s][r] * x[s];
    x[r] = v;
    column[r] = v;
  }
}

/* The block back into the pattern: column k's rows of the block from d (L
 * below the diagonal, already divided; the pivot on it), rows above from
 * the working values. The block keeps the factors, rounded as stored, for
 * the solves (solve/solve_dense_tail_cuda.cu); its entries outside the
 * pattern are zero. */
template <typename T>
__global__ void __launch_bounds__(TSI_LU_DENSE_TAIL_THREADS)
    dense_tail_store(factor_args a, T *values, int64_t tail_start, int64_t m, double *d) {
  for (int64_t k = tail_start + blockIdx.x; k < a.n; k += gridDim.x) {
    const int64_t begin = a.col_ptr[k], end = a.col_ptr[k + 1];
    double *dk = d + (k - tail_start) * m;
    for (int64_t p = begin + threadIdx.x; p < end; p += blockDim.x) {
      const int32_t i = a.row_idx[p];
      if (i >= tail_start) {
        const T stored = (T)dk[i - tail_start];
        values[p] = stored;
        dk[i - tail_start] = (double)stored;
      } else {
        values[p] = (T)a.acc[p];
      }
    }
  }
}

template <typename T>
ts_status run_dense_tail(ts_context *ctx, tsi_lu_device *dev, const factor_args &a, T *values, cudaStream_t stream) {
  const int64_t tail_start = dev->tail_start, m = dev->n - tail_start;
  double *d = dev->tail_dense;
  cudaError_t err = cudaMemsetAsync(d, 0, (size_t)(m * m) * sizeof(double), stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "LU on the GPU: clearing the dense tail");
  /* The position map needs a zero dense slot for each block. */
  const bool use_map = dev->scratch_mode == TSI_LU_SCRATCH_DENSE && dev->scratch && dev->scratch_slots > 0;
  int64_t blocks = m < 65535 ? m : 65535;
  if (use_map && blocks > dev->scratch_slots)
    blocks = dev->scratch_slots;
  dense_tail_gather<T>
      <<<(unsigned)blocks, TSI_LU_DENSE_TAIL_THREADS, 0, stream>>>(a, values, tail_start, m, d, use_map);
  signed char *kind = a.kind + tail_start;
  double last_check = tsi_seconds();
  for (int64_t c0 = 0; c0 < m; c0 += panel) {
    ts_status cancel = tsi_lu_gpu_check_cancel(ctx, &last_check, tail_start + c0, dev->n);
    if (cancel != TS_SUCCESS)
      return cancel;
    const int b = (int)(m - c0 < panel ? m - c0 : panel);
    dense_diagonal_block<<<1, TSI_LU_DENSE_TAIL_THREADS, 0, stream>>>(d, m, c0, b, a.rule, kind);
    const int64_t rest = m - c0 - b;
    if (rest <= 0)
      break; /* only the last panel can be narrow */
    const unsigned blocks = (unsigned)((rest + TSI_LU_DENSE_TAIL_PANEL_THREADS - 1) / TSI_LU_DENSE_TAIL_PANEL_THREADS);
    dense_lower_panel<<<blocks, TSI_LU_DENSE_TAIL_PANEL_THREADS, 0, stream>>>(d, m, c0);
    dense_upper_panel<<<blocks, TSI_LU_DENSE_TAIL_PANEL_THREADS, 0, stream>>>(d, m, c0);
    tsi_gemm_args g;
    g.dtype = TS_FLOAT64;
    g.m = rest;
    g.n = rest;
    g.k = panel;
    g.alpha = -1.0;
    g.beta = 1.0;
    g.a = d + (c0 + panel) + c0 * m;
    g.lda = m;
    g.trans_a = false;
    g.b = d + c0 + (c0 + panel) * m;
    g.ldb = m;
    g.trans_b = false;
    g.c = d + (c0 + panel) + (c0 + panel) * m;
    g.ldc = m;
    const int config = tsi_gemm_config_choose(TS_FLOAT64, rest, rest, panel, dev->multiprocessors, NULL, 0);
    ts_status st = tsi_gemm_cuda(ctx, &g, config);
    if (st != TS_SUCCESS)
      return st;
  }
  dense_tail_store<T>
      <<<(unsigned)(m < 65535 ? m : 65535), TSI_LU_DENSE_TAIL_THREADS, 0, stream>>>(a, values, tail_start, m, d);
  return TS_SUCCESS;
}

} // namespace

ts_status tsi_lu_dense_tail(ts_context *ctx, tsi_lu_device *dev, const factor_args &args, void *values,
                            cudaStream_t stream) {
  if (dev->single)
    return run_dense_tail<float>(ctx, dev, args, static_cast<float *>(values), stream);
  return run_dense_tail<double>(ctx, dev, args, static_cast<double *>(values), stream);
}
