/* SpMM's sum of a group of consecutive rows by one warp, when a vector
 * thread is a whole warp (32 lanes: 128 fp32 or 64 fp64 columns of a
 * row-major B a slice) and each lane holds S slices' vectors of V columns.
 *
 * The rows of a group own one contiguous run of nonzeros, so the warp walks
 * that run as one stream: the group's row offsets come in one coalesced
 * load, the nonzeros' indices and values 32 at a time (lane l loads nonzero
 * l; the next 32 are loaded while these are used), and the B loads of U
 * nonzeros are issued before the first of them is added, across row ends.
 * A row of C is handed to `store` when the stream passes its end. One row
 * a warp (tsi_spmm_warp_sum) pays a dependent chain per row (offsets, then
 * indices, then B); here the chain is paid once a group and the B loads
 * stay in flight from row to row.
 *
 * Each row's sum is the one of tsi_spmm_sum(): from zero, its nonzeros in
 * storage order, so the result is bitwise the same for any group size.
 * Every lane of the warp must call it with the same row0, count and
 * longest.
 * Host-emulated in tests/sparse/test_spmm_kernels_emulated.cpp. */
#ifndef TESSERA_SPMM_WARP_ROWS_CUH
#define TESSERA_SPMM_WARP_ROWS_CUH

#include <stdint.h>

/* Rows of a warp's group at most: one row offset a lane. */
#define TSI_SPMM_GROUP_ROWS_MAX 32

/* Nonzeros whose B loads a lane issues before the first add, for S slices
 * a lane: 4 x 16 bytes in flight a lane for one slice, 2 x 2 x 16 for two
 * (the batch of tsi_spmm_warp_sum); 8 spills at the 64 registers a thread
 * of TSI_SPMM_MIN_BLOCKS. Design. */
#define TSI_SPMM_GROUP_BATCH(S) ((S) > 1 ? 2 : 4)

/* Thread-mapped's stacked order of the (group, pass) items of a launch
 * (spmm_cuda_rows.cu): item g is the g-th warp's turn of the grid-stride
 * walk, the W warps of a block taking W consecutive items. The first
 * `stacked` items (whole bands of stride x W groups, times `passes`) go in
 * blocks' turns t = g / W of one pass each, pass t % passes, and warp
 * w = g % W of turn t walks group
 *   band * stride * W + w * stride + k,  band = u / stride, k = u % stride,
 * with u = t / passes: the W warps of a block are `stride` groups apart
 * (rows i and i + stride x group rows at once), consecutive turns take
 * neighbouring groups. The items from `stacked` on (the groups after the
 * last whole band) keep the plain order, group stacked / passes + i /
 * passes and pass i % passes for i = g - stacked. Every (group, pass) below
 * the launch's comes once. 32-bit: the launcher keeps groups x passes below
 * 2^31. */
template <unsigned W>
__host__ __device__ inline void tsi_spmm_stack_item(unsigned g, unsigned passes, unsigned stride, unsigned stacked,
                                                    unsigned &group, unsigned &pass) {
  if (g < stacked) {
    const unsigned t = g / W, w = g % W, u = t / passes;
    pass = t % passes;
    group = u / stride * (stride * W) + w * stride + u % stride;
  } else {
    const unsigned i = g - stacked;
    group = stacked / passes + i / passes;
    pass = i % passes;
  }
}

/* out[0 .. V) = what load(got) fills got[V] with where `in`, else zeros:
 * the B loads of a batch, issued before any is used. */
template <class T, int V, class Load> __device__ inline void tsi_spmm_load_or_zero(bool in, const Load &load, T *out) {
  T got[V];
  if (in) {
    load(got);
  } else {
#pragma unroll
    for (int v = 0; v < V; v++)
      got[v] = T(0);
  }
#pragma unroll
  for (int v = 0; v < V; v++)
    out[v] = got[v];
}

/* For rows row0 .. row0 + count - 1 (1 <= count <= TSI_SPMM_GROUP_ROWS_MAX)
 * of at most `longest` nonzeros: acc[s * V + v] = sum of vals[k] *
 * B(cols[k], column v of slice s) over the row's nonzeros, then store(row,
 * acc); longer rows (split-rows' pieces take them) are neither walked nor
 * stored. load(index, s, got) fills got[V] with this lane's columns of slice
 * s of row `index` of B; it is called only where ok[s] (the lane holds
 * columns of slice s inside the width). */
template <class T, int V, int S, class Load, class Store>
__device__ void tsi_spmm_warp_rows(const int64_t *offsets, const int32_t *cols, const T *vals, int64_t row0, int count,
                                   int64_t longest, const bool (&ok)[S], const Load &load, const Store &store) {
  constexpr int U = TSI_SPMM_GROUP_BATCH(S);
  const unsigned all = 0xffffffffu;
  const int lane = int(threadIdx.x) & 31;
  /* Lane l holds the start and end of row row0 + l. */
  const int64_t my_start = lane < count ? __ldg(offsets + row0 + lane) : 0;
  const int64_t end = __ldg(offsets + row0 + count);
  const int64_t next_start = __shfl_down_sync(all, my_start, 1);
  const int64_t my_end = lane + 1 < count ? next_start : end;
  const unsigned skipped = __ballot_sync(all, lane < count && my_end - my_start > longest);
  T acc[S * V];
#pragma unroll
  for (int i = 0; i < S * V; i++)
    acc[i] = T(0);
  /* Runs of rows between skipped ones, each walked as one stream. */
  for (int r = 0; r < count;) {
    const unsigned later = skipped >> r;
    const int stop = later ? r + __ffs((int)later) - 1 : count;
    if (stop == r) { /* row r is skipped */
      r++;
      continue;
    }
    const int64_t begin = __shfl_sync(all, my_start, r & 31);
    const int64_t run_end = __shfl_sync(all, my_end, (stop - 1) & 31);
    int64_t row_end = __shfl_sync(all, my_end, r & 31);
    int32_t next_index = begin + lane < run_end ? __ldg(cols + begin + lane) : 0;
    T next_value = begin + lane < run_end ? __ldg(vals + begin + lane) : T(0);
    for (int64_t chunk = begin; chunk < run_end; chunk += 32) {
      const int32_t my_index = next_index;
      const T my_value = next_value;
      const int64_t ahead = chunk + 32 + lane;
      next_index = ahead < run_end ? __ldg(cols + ahead) : 0;
      next_value = ahead < run_end ? __ldg(vals + ahead) : T(0);
      const int n = run_end - chunk < 32 ? (int)(run_end - chunk) : 32; /* the same in every lane */
      for (int u0 = 0; u0 < n; u0 += U) {
        T x[U][S * V];
#pragma unroll
        for (int u = 0; u < U; u++) {
          const int32_t index = __shfl_sync(all, my_index, (u0 + u) & 31);
#pragma unroll
          for (int s = 0; s < S; s++)
            tsi_spmm_load_or_zero<T, V>(
                u0 + u < n && ok[s], [&](T(&got)[V]) { load(index, s, got); }, &x[u][s * V]);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
          if (u0 + u < n) {
            /* Rows that end before this nonzero (empty ones included) are
             * done: the condition is the same in every lane. */
            while (chunk + u0 + u >= row_end) {
              store(row0 + r, acc);
#pragma unroll
              for (int i = 0; i < S * V; i++)
                acc[i] = T(0);
              r++;
              row_end = __shfl_sync(all, my_end, r & 31);
            }
            const T w = __shfl_sync(all, my_value, (u0 + u) & 31);
#pragma unroll
            for (int i = 0; i < S * V; i++)
              acc[i] += w * x[u][i];
          }
        }
      }
    }
    /* The run's last row with nonzeros and any empty rows after it. */
    for (; r < stop; r++) {
      store(row0 + r, acc);
#pragma unroll
      for (int i = 0; i < S * V; i++)
        acc[i] = T(0);
    }
    r = stop + 1; /* past the skipped row */
  }
}

#endif
