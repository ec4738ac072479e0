/* SpGEMM's merged bin (rows of few entries of A and few products, a thread
 * each; spgemm_kernels_merge.cuh): the numeric phase's launcher (the
 * analysis counts the bin's rows, spgemm_cuda.cu). */
#include "spgemm_cuda_kernel.cuh"
#include "spgemm_kernels_merge.cuh"

namespace {

template <class T>
cudaError_t fill_typed(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols, void *c_vals,
                       cudaStream_t stream) {
  tsi_spgemm_args<T> a = tsi_spgemm_make_args<T>(d, c_off, c_base, c_cols, c_vals);
  a.rows = d->row_list + d->bin_first[TSI_SPGEMM_MERGE_BIN];
  a.count = d->bin_rows[TSI_SPGEMM_MERGE_BIN];
  const unsigned blocks = (unsigned)tsi_spgemm_blocks(a.count, TSI_SPGEMM_MERGE_BLOCK);
  if (d->rules.merge_staged)
    tsi_spgemm_fill_merge_staged<T><<<blocks, TSI_SPGEMM_MERGE_BLOCK, 0, stream>>>(a);
  else
    tsi_spgemm_fill_merge<T><<<blocks, TSI_SPGEMM_MERGE_BLOCK, 0, stream>>>(a);
  return cudaPeekAtLastError();
}

} // namespace

cudaError_t tsi_spgemm_merge_fill(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                                  void *c_vals, cudaStream_t stream) {
  if (d->bin_rows[TSI_SPGEMM_MERGE_BIN] <= 0)
    return cudaSuccess;
  if (d->dtype == TS_FLOAT32)
    return fill_typed<float>(d, c_off, c_base, c_cols, c_vals, stream);
  return fill_typed<double>(d, c_off, c_base, c_cols, c_vals, stream);
}
