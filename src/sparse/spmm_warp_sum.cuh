/* SpMM's row sum when a vector thread is a whole warp (32 lanes: 128 fp32
 * or 64 fp64 columns of a row-major B a slice): the lanes load 32 of the
 * row's nonzeros at once, one each (a coalesced load instead of 32 loads of
 * one address), and the warp walks them in order, taking each one's index
 * and value from its lane by a shuffle and issuing the B loads of U of them
 * before the first is added. The sum is the one of tsi_spmm_sum(): from
 * zero, each nonzero in the order first, first + step, ... below end.
 * Every lane of the warp must call it with the same first, end and step.
 * Host-emulated in tests/sparse/test_spgemm_kernels_emulated.cpp. */
#ifndef TESSERA_SPMM_WARP_SUM_CUH
#define TESSERA_SPMM_WARP_SUM_CUH

#include <stdint.h>

/* Nonzeros whose B loads a lane issues before the first add. Design. */
#define TSI_SPMM_WARP_BATCH 4

/* acc[v] = sum of vals[k] * B(cols[k], columns v) over the nonzeros; load(index, got)
 * fills got[V] with this lane's columns of row `index` of B (called only
 * when `ok`: the lane holds columns inside the width). */
template <class T, int V, class Load>
__device__ void tsi_spmm_warp_sum(const int32_t *cols, const T *vals, int64_t first, int64_t end, int64_t step, bool ok,
                                  const Load &load, T (&acc)[V]) {
  constexpr int U = TSI_SPMM_WARP_BATCH;
  const int lane = int(threadIdx.x) & 31;
#pragma unroll
  for (int v = 0; v < V; v++)
    acc[v] = T(0);
  for (int64_t chunk = first; chunk < end; chunk += 32 * step) {
    const int64_t mine = chunk + lane * step;
    const int32_t my_index = mine < end ? __ldg(cols + mine) : 0;
    const T my_value = mine < end ? __ldg(vals + mine) : T(0);
    const int64_t left = (end - chunk + step - 1) / step;
    const int n = left < 32 ? (int)left : 32; /* nonzeros of this chunk, the same in every lane */
    for (int u0 = 0; u0 < n; u0 += U) {
      T x[U][V], w[U];
#pragma unroll
      for (int u = 0; u < U; u++) {
        const int32_t index = __shfl_sync(0xffffffffu, my_index, (u0 + u) & 31);
        w[u] = __shfl_sync(0xffffffffu, my_value, (u0 + u) & 31);
        if (u0 + u < n && ok) {
          load(index, x[u]);
        } else {
#pragma unroll
          for (int v = 0; v < V; v++)
            x[u][v] = T(0);
        }
      }
#pragma unroll
      for (int u = 0; u < U; u++) {
        if (u0 + u < n) {
#pragma unroll
          for (int v = 0; v < V; v++)
            acc[v] += w[u] * x[u][v];
        }
      }
    }
  }
}

#endif
