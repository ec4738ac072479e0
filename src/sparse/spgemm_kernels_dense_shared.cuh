/* SpGEMM's dense rows (bound past the largest shared table) with the
 * accumulator in shared memory, when B's width fits there: a bitmap of B's
 * columns and a value per column, a slot a warp, a warp a row.
 *
 * The warp takes its row's products in the order of A's entries, 32 entries
 * of A at a time: the lanes load the entries (value, row of B) and scan their
 * rows of B's lengths, then load TSI_SPGEMM_SHARED_BATCH groups of 32
 * products at once (a lane a product, its entry found by a binary search
 * among the scanned lengths), so that many loads of B are in flight where the
 * pool's kernel waits on one row of B at a time. Each group's products are
 * then added entry by entry in order (the lanes of one entry hold distinct
 * columns; a warp barrier between entries): the first product of a column
 * stored, the next added, so that every sum is the sequential one of the
 * other dense paths, bit for bit. C's columns are read off the bitmap's words
 * in order (tsi_spgemm_emit_words()), each row leaving its words zero. */
#ifndef TESSERA_SPGEMM_KERNELS_DENSE_SHARED_CUH
#define TESSERA_SPGEMM_KERNELS_DENSE_SHARED_CUH

#include "spgemm_kernels_merge.cuh"
#include "spgemm_kernels_words.cuh"

/* Warps a block at most, and groups of 32 products a lane loads before it
 * adds them. */
#define TSI_SPGEMM_SHARED_WARPS 8
#define TSI_SPGEMM_SHARED_BATCH 4

/*
 * Numeric for the dense bin's rows: blockDim.x / 32 warps, warp w's slot at
 * w * slot_bytes of the dynamic shared memory (a bitmap of `words` words in
 * bitmap_bytes, then B's width of values). Rows r = warp's global index,
 * + the grid's warps, ...
 */
template <class T>
__global__ void __launch_bounds__(TSI_SPGEMM_SHARED_WARPS * 32)
    tsi_spgemm_fill_dense_shared(tsi_spgemm_args<T> a, int words, size_t bitmap_bytes, size_t slot_bytes) {
  extern __shared__ __align__(16) unsigned char tsi_spgemm_dense_slots[];
  __shared__ int64_t first_of[TSI_SPGEMM_SHARED_WARPS][32], b_at_of[TSI_SPGEMM_SHARED_WARPS][32];
  __shared__ T x_of[TSI_SPGEMM_SHARED_WARPS][32];
  const int warps = int(blockDim.x) / 32, warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  unsigned char *slot = tsi_spgemm_dense_slots + (size_t)warp * slot_bytes;
  unsigned *bits = reinterpret_cast<unsigned *>(slot);
  T *values = reinterpret_cast<T *>(slot + bitmap_bytes);
  int64_t *first = first_of[warp], *b_at = b_at_of[warp];
  T *xs = x_of[warp];
  for (int w = lane; w < words; w += 32)
    bits[w] = 0u;
  __syncwarp();
  for (int64_t r = (int64_t)blockIdx.x * warps + warp; r < a.count; r += (int64_t)gridDim.x * warps) {
    const int64_t row = a.rows[r];
    int lo = TSI_SPGEMM_EMPTY, hi = -1;
    const int64_t end = a.a_off[row + 1];
    for (int64_t chunk = a.a_off[row]; chunk < end; chunk += 32) {
      const int64_t total = tsi_spgemm_chunk_products(a, chunk, end, lane, first, b_at);
      xs[lane] = chunk + lane < end ? a.a_vals[chunk + lane] : T(0);
      __syncwarp();
      for (int64_t j0 = 0; j0 < total; j0 += 32 * TSI_SPGEMM_SHARED_BATCH) {
        int32_t cols[TSI_SPGEMM_SHARED_BATCH];
        T products[TSI_SPGEMM_SHARED_BATCH];
        int entry[TSI_SPGEMM_SHARED_BATCH];
#pragma unroll
        for (int u = 0; u < TSI_SPGEMM_SHARED_BATCH; u++) {
          const int64_t j = j0 + 32 * u + lane;
          entry[u] = -1;
          cols[u] = 0;
          products[u] = T(0);
          if (j < total) {
            const int e = tsi_spgemm_chunk_entry(first, j);
            const int64_t kb = b_at[e] + (j - first[e]);
            cols[u] = a.b_cols[kb];
            products[u] = tsi_spgemm_product(xs[e], a.b_vals[kb]);
            entry[u] = e;
          }
        }
#pragma unroll
        for (int u = 0; u < TSI_SPGEMM_SHARED_BATCH; u++) {
          /* The group's entries rise with the lane; lanes past the products
           * hold -1 and sit out. */
          const int e_lo = __shfl_sync(0xffffffffu, entry[u], 0);
          const int e_hi = tsi_spgemm_warp_max(entry[u]);
          for (int e = e_lo; e >= 0 && e <= e_hi; e++) {
            if (entry[u] == e) {
              const int32_t col = cols[u];
              const unsigned bit = 1u << (col & 31);
              const T before = values[col]; /* stale until the bit is set */
              const bool seen = (atomicOr(bits + (col >> 5), bit) & bit) != 0u;
              values[col] = seen ? before + products[u] : products[u];
              lo = min(lo, (int)col);
              hi = max(hi, (int)col);
            }
            __syncwarp();
          }
        }
      }
      __syncwarp(); /* first, b_at and xs are read before the next chunk writes them */
    }
    lo = tsi_spgemm_warp_min(lo);
    hi = tsi_spgemm_warp_max(hi);
    tsi_spgemm_warp_write_row(bits, values, lo, hi, a.c_off[row] - a.c_base, a.c_cols, a.c_vals, lane,
                              [&](int w) { return bits[w]; });
    __syncwarp();
  }
}

#endif
