/* SpGEMM's sorted bins (rows of at most 32, 64, 128 products, a warp each;
 * spgemm_kernels_sorted.cuh): the numeric phase's launchers (the analysis of
 * the rows counts their entries, spgemm_cuda.cu), one launch for the three
 * bins where their keys fit 32 bits. */
#include "spgemm_cuda_kernel.cuh"
#include "spgemm_kernels_sorted.cuh"

namespace {

constexpr int kBlock = TSI_SPGEMM_SORTED_WARPS * 32;
constexpr int64_t kFusedRows = 65536; /* the three bins' rows at most for one launch */

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

cudaError_t tsi_spgemm_sorted_fill_all(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base,
                                       int32_t *c_cols, void *c_vals, cudaStream_t stream) {
  int bins = 0;
  int64_t rows = 0;
  for (int b = 1; b <= TSI_SPGEMM_SORTED_BINS; b++) {
    bins += d->bin_rows[b] > 0;
    rows += d->bin_rows[b];
  }
  /* Few rows: one launch saves the host a launch or two (the cost of a
   * launch: bench/notes/spgemm.md); many rows keep the kernels of their own
   * size, of fewer registers than the joint kernel. */
  if (bins >= 2 && rows <= kFusedRows && (uint64_t)d->b.cols * 4 * TSI_SPGEMM_SORTED_FIRST <= 0xffffffffu) {
    const unsigned b1 = d->bin_rows[1] > 0 ? (unsigned)tsi_spgemm_blocks(d->bin_rows[1], TSI_SPGEMM_SORTED_WARPS) : 0;
    const unsigned b2 = d->bin_rows[2] > 0 ? (unsigned)tsi_spgemm_blocks(d->bin_rows[2], TSI_SPGEMM_SORTED_WARPS) : 0;
    const unsigned b3 = d->bin_rows[3] > 0 ? (unsigned)tsi_spgemm_blocks(d->bin_rows[3], TSI_SPGEMM_SORTED_WARPS) : 0;
    if (d->dtype == TS_FLOAT32)
      tsi_spgemm_fill_sorted_bins<float><<<b1 + b2 + b3, kBlock, 0, stream>>>(
          bin_args<float>(d, 1, c_off, c_base, c_cols, c_vals), bin_args<float>(d, 2, c_off, c_base, c_cols, c_vals),
          bin_args<float>(d, 3, c_off, c_base, c_cols, c_vals), b1, b2);
    else
      tsi_spgemm_fill_sorted_bins<double><<<b1 + b2 + b3, kBlock, 0, stream>>>(
          bin_args<double>(d, 1, c_off, c_base, c_cols, c_vals), bin_args<double>(d, 2, c_off, c_base, c_cols, c_vals),
          bin_args<double>(d, 3, c_off, c_base, c_cols, c_vals), b1, b2);
    return cudaPeekAtLastError();
  }
  cudaError_t err = cudaSuccess;
  for (int b = 1; err == cudaSuccess && b <= TSI_SPGEMM_SORTED_BINS; b++)
    err = tsi_spgemm_sorted_fill(d, b, c_off, c_base, c_cols, c_vals, stream);
  return err;
}
