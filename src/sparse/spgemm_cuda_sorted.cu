/* SpGEMM's sorted bins (rows of at most 32, 64, 128 products, a warp each;
 * spgemm_kernels_sorted.cuh): the numeric phase's launcher (the analysis of
 * the rows counts their entries, spgemm_cuda.cu). */
#include "spgemm_cuda_kernel.cuh"
#include "spgemm_kernels_sorted.cuh"

namespace {

constexpr int kBlock = TSI_SPGEMM_SORTED_WARPS * 32;

template <class Kernel, class Args> cudaError_t launch(Kernel kernel, const Args &a, cudaStream_t stream) {
  kernel<<<(unsigned)tsi_spgemm_blocks(a.count, TSI_SPGEMM_SORTED_WARPS), kBlock, 0, stream>>>(a);
  return cudaPeekAtLastError();
}

template <class T>
tsi_spgemm_args<T> bin_args(const tsi_spgemm_device *d, int bin, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                            void *c_vals) {
  tsi_spgemm_args<T> a = tsi_spgemm_make_args<T>(d, c_off, c_base, c_cols, c_vals);
  a.rows = d->row_list + d->bin_first[bin];
  a.count = d->bin_rows[bin];
  return a;
}

/* Keys of 32 bits when every (column << log2(N) | j) of B's width stays
 * below the padding key 2^32 - 1, else 64. */
template <class T, int N> cudaError_t fill_bin(const tsi_spgemm_args<T> &a, cudaStream_t stream) {
  if ((uint64_t)a.b_width * N <= 0xffffffffu)
    return launch(tsi_spgemm_fill_sorted<T, N, uint32_t>, a, stream);
  return launch(tsi_spgemm_fill_sorted<T, N, unsigned long long>, a, stream);
}

template <class T> cudaError_t fill_typed(const tsi_spgemm_args<T> &a, int bin, cudaStream_t stream) {
  switch (bin) {
  case 1:
    return fill_bin<T, TSI_SPGEMM_SORTED_FIRST>(a, stream);
  case 2:
    return fill_bin<T, 2 * TSI_SPGEMM_SORTED_FIRST>(a, stream);
  default:
    return fill_bin<T, 4 * TSI_SPGEMM_SORTED_FIRST>(a, stream);
  }
}

} // namespace

static_assert(TSI_SPGEMM_SORTED_BINS == 3, "sorted bins of 32, 64 and 128 products");

cudaError_t tsi_spgemm_sorted_fill(const tsi_spgemm_device *d, int bin, const int64_t *c_off, int64_t c_base,
                                   int32_t *c_cols, void *c_vals, cudaStream_t stream) {
  if (d->bin_rows[bin] <= 0)
    return cudaSuccess;
  if (d->dtype == TS_FLOAT32)
    return fill_typed(bin_args<float>(d, bin, c_off, c_base, c_cols, c_vals), bin, stream);
  return fill_typed(bin_args<double>(d, bin, c_off, c_base, c_cols, c_vals), bin, stream);
}
