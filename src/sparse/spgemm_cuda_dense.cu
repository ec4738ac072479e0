/* SpGEMM's dense and long bins (rows whose bound passes the largest shared
 * table): the launchers of the kernels of spgemm_kernels_dense.cuh. The
 * symbolic phase takes a block a row and the bitmap of a slot of the dense
 * pool (or of the long pool when the dense bin is empty); the numeric phase
 * a warp a dense row with a slot of the dense pool, a block a long row with
 * a slot of the long pool. When B's width fits, the count's bitmap is in
 * the block's shared memory instead (no pool, no waves). */
#include "spgemm_cuda_kernel.cuh"
#include "spgemm_kernels_dense.cuh"

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

cudaError_t tsi_spgemm_dense_shared_count(const tsi_spgemm_device *d, cudaStream_t stream) {
  /* The dense and long bins are neighbours in the row list. */
  tsi_spgemm_args<float> a = tsi_spgemm_make_args<float>(d, NULL, 0, NULL, NULL);
  a.rows = d->row_list + d->bin_first[TSI_SPGEMM_DENSE_BIN];
  a.count = d->bin_rows[TSI_SPGEMM_DENSE_BIN] + d->bin_rows[TSI_SPGEMM_LONG_BIN];
  if (a.count == 0)
    return cudaSuccess;
  const int words = (int)((d->b.cols + 31) / 32);
  const size_t shared = (size_t)words * sizeof(unsigned);
  cudaError_t err = tsi_spgemm_allow_shared(tsi_spgemm_count_dense_shared, shared);
  if (err != cudaSuccess)
    return err;
  tsi_spgemm_count_dense_shared<<<(unsigned)tsi_spgemm_blocks(a.count, 1), TSI_SPGEMM_DENSE_COUNT_BLOCK, shared,
                                  stream>>>(a, words);
  return cudaPeekAtLastError();
}

template <class T>
static cudaError_t fill_typed(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                              void *c_vals, cudaStream_t stream) {
  tsi_spgemm_args<T> a = tsi_spgemm_make_args<T>(d, c_off, c_base, c_cols, c_vals);
  a.rows = d->row_list + d->bin_first[TSI_SPGEMM_DENSE_BIN];
  a.count = d->bin_rows[TSI_SPGEMM_DENSE_BIN];
  const size_t bitmap_bytes = tsi_spgemm_bitmap_bytes(d->b.cols);
  if (a.count > 0 && d->pool_slots > 0 && d->shared_fill_warps == 0) {
    const int64_t warps = d->pool_slots < a.count ? d->pool_slots : a.count;
    const unsigned blocks = (unsigned)((warps + TSI_SPGEMM_DENSE_FILL_WARPS - 1) / TSI_SPGEMM_DENSE_FILL_WARPS);
    tsi_spgemm_fill_dense_rows<T><<<blocks, TSI_SPGEMM_DENSE_FILL_WARPS * 32, 0, stream>>>(
        a, static_cast<unsigned char *>(d->pool), d->slot_bytes, bitmap_bytes, warps);
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
