/* SpGEMM's dense and long bins: rows whose bound passes the largest shared
 * table. The symbolic phase takes a block a row (spgemm_kernels_dense.cuh)
 * and the bitmap of a slot of the dense pool (or of the long pool when the
 * dense bin is empty). The numeric phase of a long row is a block's too
 * (spgemm_kernels_dense.cuh, the long pool's slots); a dense row's is one
 * warp's, with a slot of the dense pool, a bitmap of B's columns and a value
 * per column: the warp walks A's entries in order, its lanes taking the
 * entries of B's row (distinct columns, so one lane a column at each step),
 * the first product of a column stored and the next ones added; then the
 * bitmap's words between the row's first and last column are read in order
 * and their columns written sorted. Each row leaves its words zero for the
 * next. */
#include "spgemm_cuda_kernel.cuh"
#include "spgemm_kernels_dense.cuh"

namespace {

constexpr int kWarps = TSI_SPGEMM_BLOCK / 32;

struct warp_step {
  __device__ void operator()() const { __syncwarp(); }
};

/* The warp's slot, or NULL past the pool. */
__device__ inline unsigned char *slot_of(void *pool, size_t slot_bytes, int64_t slots, int64_t *warp) {
  *warp = (int64_t)blockIdx.x * kWarps + int(threadIdx.x) / 32;
  return *warp < slots ? static_cast<unsigned char *>(pool) + *warp * slot_bytes : nullptr;
}

__device__ inline int warp_min(int x) {
  for (int d = 16; d > 0; d /= 2)
    x = min(x, __shfl_xor_sync(0xffffffffu, x, d));
  return x;
}
__device__ inline int warp_max(int x) {
  for (int d = 16; d > 0; d /= 2)
    x = max(x, __shfl_xor_sync(0xffffffffu, x, d));
  return x;
}

/* Set bit col and widen [lo, hi]; the bit's previous state. */
__device__ inline bool set_bit(unsigned *bits, int32_t col, int *lo, int *hi) {
  const unsigned bit = 1u << (col & 31);
  *lo = min(*lo, (int)col);
  *hi = max(*hi, (int)col);
  return (atomicOr(bits + (col >> 5), bit) & bit) != 0;
}

template <class T>
__global__ void __launch_bounds__(TSI_SPGEMM_BLOCK)
    fill_dense(tsi_spgemm_args<T> a, void *pool, size_t slot_bytes, size_t bitmap_bytes, int64_t slots) {
  int64_t warp;
  unsigned char *slot = slot_of(pool, slot_bytes, slots, &warp);
  if (!slot)
    return;
  unsigned *bits = reinterpret_cast<unsigned *>(slot);
  T *values = reinterpret_cast<T *>(slot + bitmap_bytes);
  const int lane = int(threadIdx.x) & 31;
  for (int64_t r = warp; r < a.count; r += slots) {
    const int64_t row = a.rows[r];
    int lo = TSI_SPGEMM_EMPTY, hi = -1;
    tsi_spgemm_products(
        a, row, 0, 1, lane, 32,
        [&](int64_t ka, int64_t kb) {
          const int32_t col = a.b_cols[kb];
          const T product = a.a_vals[ka] * a.b_vals[kb];
          values[col] = set_bit(bits, col, &lo, &hi) ? values[col] + product : product;
        },
        warp_step{});
    lo = warp_min(lo);
    hi = warp_max(hi);
    __syncwarp();
    int64_t at = a.c_off[row] - a.c_base;
    for (int first = lo >> 5; hi >= 0 && first <= (hi >> 5); first += 32) {
      const int w = first + lane;
      unsigned word = w <= (hi >> 5) ? __ldcg(bits + w) : 0u;
      const int mine = __popc(word);
      int before = mine; /* inclusive scan of the words' counts, then exclusive */
      for (int d = 1; d < 32; d *= 2) {
        const int other = __shfl_up_sync(0xffffffffu, before, d);
        if (lane >= d)
          before += other;
      }
      const int total = __shfl_sync(0xffffffffu, before, 31);
      int64_t pos = at + before - mine;
      while (word) {
        const int32_t col = w * 32 + __ffs(word) - 1;
        word &= word - 1;
        a.c_cols[pos] = col;
        a.c_vals[pos] = values[col];
        pos++;
      }
      if (w <= (hi >> 5))
        bits[w] = 0u;
      at += total;
    }
    __syncwarp();
  }
}

} // namespace

cudaError_t tsi_spgemm_dense_count(const tsi_spgemm_device *d, cudaStream_t stream) {
  /* The dense and long bins are neighbours in the row list. */
  static_assert(TSI_SPGEMM_LONG_BIN == TSI_SPGEMM_DENSE_BIN + 1, "the long bin follows the dense bin");
  tsi_spgemm_args<float> a = tsi_spgemm_make_args<float>(d, NULL, 0, NULL, NULL);
  a.rows = d->row_list + d->bin_first[TSI_SPGEMM_DENSE_BIN];
  a.count = d->bin_rows[TSI_SPGEMM_DENSE_BIN] + d->bin_rows[TSI_SPGEMM_LONG_BIN];
  const bool dense = d->pool_slots > 0;
  const int64_t slots = dense ? d->pool_slots : d->long_slots;
  if (a.count == 0 || slots == 0)
    return cudaSuccess;
  const unsigned blocks = (unsigned)(slots < a.count ? slots : a.count);
  tsi_spgemm_count_dense_rows<<<blocks, TSI_SPGEMM_DENSE_COUNT_BLOCK, 0, stream>>>(
      a, static_cast<unsigned char *>(dense ? d->pool : d->long_pool), dense ? d->slot_bytes : d->long_slot_bytes);
  return cudaPeekAtLastError();
}

template <class T>
static cudaError_t fill_typed(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                              void *c_vals, cudaStream_t stream) {
  tsi_spgemm_args<T> a = tsi_spgemm_make_args<T>(d, c_off, c_base, c_cols, c_vals);
  a.rows = d->row_list + d->bin_first[TSI_SPGEMM_DENSE_BIN];
  a.count = d->bin_rows[TSI_SPGEMM_DENSE_BIN];
  const size_t bitmap_bytes = tsi_spgemm_bitmap_bytes(d->b.cols);
  if (a.count > 0 && d->pool_slots > 0) {
    const unsigned blocks = (unsigned)((d->pool_slots + kWarps - 1) / kWarps);
    fill_dense<T><<<blocks, TSI_SPGEMM_BLOCK, 0, stream>>>(a, d->pool, d->slot_bytes, bitmap_bytes, d->pool_slots);
    cudaError_t err = cudaPeekAtLastError();
    if (err != cudaSuccess)
      return err;
  }
  a.rows = d->row_list + d->bin_first[TSI_SPGEMM_LONG_BIN];
  a.count = d->bin_rows[TSI_SPGEMM_LONG_BIN];
  if (a.count == 0 || d->long_slots == 0)
    return cudaSuccess;
  const unsigned blocks = (unsigned)(d->long_slots < a.count ? d->long_slots : a.count);
  tsi_spgemm_fill_long_rows<T>
      <<<blocks, TSI_SPGEMM_LONG_BLOCK, 0, stream>>>(a, static_cast<unsigned char *>(d->long_pool), d->long_slot_bytes,
                                                     bitmap_bytes, tsi_spgemm_part_bytes(d->b.cols, d->dtype));
  return cudaPeekAtLastError();
}

cudaError_t tsi_spgemm_dense_fill(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                                  void *c_vals, cudaStream_t stream) {
  if (d->dtype == TS_FLOAT32)
    return fill_typed<float>(d, c_off, c_base, c_cols, c_vals, stream);
  return fill_typed<double>(d, c_off, c_base, c_cols, c_vals, stream);
}
