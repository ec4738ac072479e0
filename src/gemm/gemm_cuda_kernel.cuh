/* The tiled GEMM kernel on CUDA cores, one template for every configuration
 * of gemm_configs.h. Classic two-level blocking (shared-memory block tiles,
 * register tiles per thread; Volkov and Demmel, "Benchmarking GPUs to tune
 * dense linear algebra", SC 2008, sections 4-5) with a warp-level tile so
 * that each warp-wide fragment load reads one contiguous 128-byte row of
 * shared memory (no bank conflicts), and the next k-slice prefetched into
 * registers while the current one is multiplied, so that one barrier per
 * k-step suffices (double-buffered shared memory).
 *
 * Column-major operands, any transposition, any m, n, k: an operand is
 * read either along the tile's rows (A, or B^T) or along k (B, or A^T);
 * both are coalesced (a warp reads 32 neighbours, or 4 runs of block_k) and
 * stored k-major in shared memory. Edge tiles load zeros outside the matrix
 * and store only inside it. */
#ifndef TESSERA_GEMM_CUDA_KERNEL_CUH
#define TESSERA_GEMM_CUDA_KERNEL_CUH

#include "core/cuda_arch_limits.cuh"
#include "gemm/gemm_configs.h"

#include <cuda_runtime.h>
#include <stdint.h>

template <typename T> struct tsi_gemm_vector;
template <> struct tsi_gemm_vector<float> { typedef float4 type; };
template <> struct tsi_gemm_vector<double> { typedef double2 type; };

/* Where one thread's share of an operand's k-slice lies: load s of the
 * thread is at p + s * stride in global memory and at shared + s *
 * shared_step in the k-major shared tile; p moves by advance per k-step.
 * Only edge tiles need the load's row and k (tsi_gemm_position). */
template <typename T> struct tsi_gemm_cursor {
  const T *p;
  int64_t stride;
  int64_t advance;
  int shared, shared_step;
  bool k_contiguous;
};

/* Cursor of a ROWS x BK slice (rows of op(X) from row0) with NT threads.
 * k_contiguous: the operand's k index is its unit-stride one; then a warp
 * reads NT/BK runs of BK along k, else 32 neighbouring rows. */
template <typename T, int ROWS, int BK, int NT>
__device__ __forceinline__ tsi_gemm_cursor<T> tsi_gemm_cursor_make(const T *x, int64_t ld, bool k_contiguous,
                                                                   int row0) {
  static_assert(NT % ROWS == 0 && NT % BK == 0, "every thread loads a fixed row or k of the slice");
  constexpr int S = ROWS + TSI_GEMM_SHARED_PAD;
  tsi_gemm_cursor<T> c;
  int t = (int)threadIdx.x;
  c.k_contiguous = k_contiguous;
  if (k_contiguous) {
    int kk = t % BK, row = t / BK;
    c.p = x + (int64_t)(row0 + row) * ld + kk;
    c.stride = (int64_t)(NT / BK) * ld;
    c.advance = BK;
    c.shared = kk * S + row;
    c.shared_step = NT / BK;
  } else {
    int row = t % ROWS, kk = t / ROWS;
    c.p = x + (int64_t)kk * ld + row0 + row;
    c.stride = (int64_t)(NT / ROWS) * ld;
    c.advance = (int64_t)BK * ld;
    c.shared = kk * S + row;
    c.shared_step = (NT / ROWS) * S;
  }
  return c;
}

/* Row and k (within the slice) of load s of this thread. */
template <int ROWS, int BK, int NT>
__device__ __forceinline__ void tsi_gemm_position(bool k_contiguous, int s, int *row, int *kk) {
  int t = (int)threadIdx.x;
  if (k_contiguous) {
    *kk = t % BK;
    *row = t / BK + s * (NT / BK);
  } else {
    *row = t % ROWS;
    *kk = t / ROWS + s * (NT / ROWS);
  }
}

/* Load this thread's share of the slice into registers; on edge slices
 * (not full) zeros outside rows_left rows and k_left depth. */
template <typename T, int ROWS, int BK, int NT, int LOADS>
__device__ __forceinline__ void tsi_gemm_load(T (&reg)[LOADS], const tsi_gemm_cursor<T> &c, int rows_left, int k_left,
                                              bool full) {
  if (full) {
#pragma unroll
    for (int s = 0; s < LOADS; s++)
      reg[s] = __ldg(c.p + s * c.stride);
    return;
  }
#pragma unroll
  for (int s = 0; s < LOADS; s++) {
    int row, kk;
    tsi_gemm_position<ROWS, BK, NT>(c.k_contiguous, s, &row, &kk);
    reg[s] = row < rows_left && kk < k_left ? __ldg(c.p + s * c.stride) : T(0);
  }
}

/* Store the registers into the k-major shared tile (rows padded). */
template <typename T, int LOADS>
__device__ __forceinline__ void tsi_gemm_store(T *tile, const T (&reg)[LOADS], const tsi_gemm_cursor<T> &c) {
#pragma unroll
  for (int s = 0; s < LOADS; s++)
    tile[c.shared + s * c.shared_step] = reg[s];
}

/* Block tile of output for block b: groups of TSI_GEMM_TILE_GROUP tile-rows
 * are swept column by column, so that blocks running together share A and B
 * panels in L2. */
__device__ __forceinline__ void tsi_gemm_tile_of(int b, int tiles_m, int tiles_n, int *tile_m, int *tile_n) {
  const int group = TSI_GEMM_TILE_GROUP;
  int per_group = group * tiles_n;
  int first_m = (b / per_group) * group;
  int height = min(tiles_m - first_m, group);
  int in_group = b % per_group;
  *tile_m = first_m + in_group % height;
  *tile_n = in_group / height;
}

/* Shared memory of one block: both stages of the A and B tiles. */
template <typename T, int BM, int BN, int BK> constexpr int tsi_gemm_shared_bytes() {
  return 2 * BK * (BM + BN + 2 * TSI_GEMM_SHARED_PAD) * (int)sizeof(T);
}

/* MIN_BLOCKS: resident blocks per SM the register budget must allow. */
template <typename T, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int TM, int TN, int MIN_BLOCKS>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, tsi_min_blocks_per_sm(32 * WARPS_M * WARPS_N, MIN_BLOCKS))
    tsi_gemm_kernel(int m, int n, int k, T alpha, T beta, const T *__restrict__ a, int64_t lda, bool a_k_contiguous,
                    const T *__restrict__ b, int64_t ldb, bool b_k_contiguous, T *__restrict__ c, int64_t ldc,
                    int tiles_m, int tiles_n) {
  constexpr int NT = 32 * WARPS_M * WARPS_N;
  constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
  constexpr int LANES_M = WM / TM, LANES_N = WN / TN;
  constexpr int V = 16 / (int)sizeof(T);
  constexpr int A_LOADS = BM * BK / NT, B_LOADS = BN * BK / NT;
  constexpr int AS = BM + TSI_GEMM_SHARED_PAD, BS = BN + TSI_GEMM_SHARED_PAD;
  static_assert(LANES_M * LANES_N == 32, "a warp's lanes tile its warp tile");
  static_assert(TM % V == 0 && TN % V == 0, "register tiles are whole vectors");
  static_assert(BM * BK % NT == 0 && BN * BK % NT == 0, "slices split evenly over threads");
  typedef typename tsi_gemm_vector<T>::type vec;

  /* Dynamic shared memory: the deeper tiles pass the 48 KiB static limit. */
  extern __shared__ __align__(16) unsigned char tsi_gemm_shared[];
  T(*a_tile)[BK * AS] = reinterpret_cast<T(*)[BK * AS]>(tsi_gemm_shared);
  T(*b_tile)[BK * BS] = reinterpret_cast<T(*)[BK * BS]>(tsi_gemm_shared + 2 * BK * AS * sizeof(T));

  int tile_m, tile_n;
  tsi_gemm_tile_of((int)blockIdx.x, tiles_m, tiles_n, &tile_m, &tile_n);
  int row0 = tile_m * BM, col0 = tile_n * BN;
  int rows_left = m - row0, cols_left = n - col0;
  bool rows_full = rows_left >= BM, cols_full = cols_left >= BN;

  tsi_gemm_cursor<T> ca = tsi_gemm_cursor_make<T, BM, BK, NT>(a, lda, a_k_contiguous, row0);
  tsi_gemm_cursor<T> cb = tsi_gemm_cursor_make<T, BN, BK, NT>(b, ldb, b_k_contiguous, col0);

  int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
  int a_frag = (warp % WARPS_M) * WM + (lane % LANES_M) * V;
  int b_frag = (warp / WARPS_M) * WN + (lane / LANES_M) * V;

  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++)
      acc[i][j] = T(0);

  T a_next[A_LOADS], b_next[B_LOADS];
  int k_tiles = (k + BK - 1) / BK;
  tsi_gemm_load<T, BM, BK, NT>(a_next, ca, rows_left, k, rows_full && k >= BK);
  tsi_gemm_load<T, BN, BK, NT>(b_next, cb, cols_left, k, cols_full && k >= BK);
  tsi_gemm_store(a_tile[0], a_next, ca);
  tsi_gemm_store(b_tile[0], b_next, cb);
  __syncthreads();

  for (int kt = 0; kt < k_tiles; kt++) {
    int stage = kt & 1;
    bool more = kt + 1 < k_tiles;
    if (more) { /* prefetch slice kt + 1 while slice kt is multiplied */
      int k_left = k - (kt + 1) * BK;
      ca.p += ca.advance;
      cb.p += cb.advance;
      tsi_gemm_load<T, BM, BK, NT>(a_next, ca, rows_left, k_left, rows_full && k_left >= BK);
      tsi_gemm_load<T, BN, BK, NT>(b_next, cb, cols_left, k_left, cols_full && k_left >= BK);
    }
    const T *as = a_tile[stage];
    const T *bs = b_tile[stage];
#pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      T af[TM], bf[TN];
#pragma unroll
      for (int i = 0; i < TM / V; i++)
        *reinterpret_cast<vec *>(&af[i * V]) = *reinterpret_cast<const vec *>(&as[kk * AS + a_frag + i * LANES_M * V]);
#pragma unroll
      for (int j = 0; j < TN / V; j++)
        *reinterpret_cast<vec *>(&bf[j * V]) = *reinterpret_cast<const vec *>(&bs[kk * BS + b_frag + j * LANES_N * V]);
#pragma unroll
      for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
          acc[i][j] = fma(af[i], bf[j], acc[i][j]);
    }
    if (more) {
      tsi_gemm_store(a_tile[stage ^ 1], a_next, ca);
      tsi_gemm_store(b_tile[stage ^ 1], b_next, cb);
    }
    __syncthreads();
  }

  /* C = alpha acc + beta C; beta = 0 does not read C. A thread's V
   * neighbouring rows of a column are one 16-byte access where C's layout
   * allows it; lanes with neighbouring row fragments write neighbouring
   * addresses. */
  bool vector_c = ldc % V == 0 && reinterpret_cast<uintptr_t>(c) % 16 == 0;
#pragma unroll
  for (int ii = 0; ii < TM / V; ii++) {
    int row = a_frag + ii * LANES_M * V;
    if (row >= rows_left)
      continue;
#pragma unroll
    for (int j = 0; j < TN; j++) {
      int col = b_frag + (j / V) * LANES_N * V + j % V;
      if (col >= cols_left)
        continue;
      T *out = c + (int64_t)(col0 + col) * ldc + row0 + row;
      if (vector_c && row + V <= rows_left) {
        T value[V] = {};
        if (beta != T(0))
          *reinterpret_cast<vec *>(value) = *reinterpret_cast<const vec *>(out);
#pragma unroll
        for (int v = 0; v < V; v++)
          value[v] = beta == T(0) ? alpha * acc[ii * V + v][j] : alpha * acc[ii * V + v][j] + beta * value[v];
        *reinterpret_cast<vec *>(out) = *reinterpret_cast<const vec *>(value);
      } else {
#pragma unroll
        for (int v = 0; v < V; v++)
          if (row + v < rows_left)
            out[v] = beta == T(0) ? alpha * acc[ii * V + v][j] : alpha * acc[ii * V + v][j] + beta * out[v];
      }
    }
  }
}

#endif
