/* SpGEMM's dense bin's fill with its accumulators in shared memory when
 * B's width fits (spgemm_kernels_dense_shared.cuh: a warp a row with a
 * bitmap and values; the count's kernel, a block a row with a bitmap, is
 * launched by spgemm_cuda_dense.cu): no pool, no sort, one launch. The plan
 * asks tsi_spgemm_cuda_shared_dense() which of the two fit. */
#include "spgemm_cuda_kernel.cuh"
#include "spgemm_kernels_dense_shared.cuh"

namespace {

/* Static shared memory of the fill kernel (entries of A a warp) and of the
 * count kernel, beside their dynamic slots. */
template <class T> constexpr size_t fill_static_bytes() {
  return (size_t)TSI_SPGEMM_SHARED_WARPS * 32 * (2 * sizeof(int64_t) + sizeof(T));
}
constexpr size_t count_static_bytes = (size_t)TSI_SPGEMM_DENSE_COUNT_BLOCK * 2 * sizeof(int64_t) + 64;

size_t round16(size_t n) { return (n + 15) / 16 * 16; }

template <class T>
cudaError_t fill_typed(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols, void *c_vals,
                       cudaStream_t stream) {
  tsi_spgemm_args<T> a = tsi_spgemm_make_args<T>(d, c_off, c_base, c_cols, c_vals);
  a.rows = d->row_list + d->bin_first[TSI_SPGEMM_DENSE_BIN];
  a.count = d->bin_rows[TSI_SPGEMM_DENSE_BIN];
  if (a.count == 0)
    return cudaSuccess;
  const int warps = d->shared_fill_warps;
  const size_t shared = (size_t)warps * d->shared_slot_bytes;
  cudaError_t err = tsi_spgemm_allow_shared(tsi_spgemm_fill_dense_shared<T>, shared);
  if (err != cudaSuccess)
    return err;
  const int words = (int)((d->b.cols + 31) / 32);
  tsi_spgemm_fill_dense_shared<T><<<(unsigned)tsi_spgemm_blocks(a.count, warps), warps * 32, shared, stream>>>(
      a, words, round16((size_t)words * sizeof(unsigned)), d->shared_slot_bytes);
  return cudaPeekAtLastError();
}

} // namespace

cudaError_t tsi_spgemm_dense_shared_fill(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base,
                                         int32_t *c_cols, void *c_vals, cudaStream_t stream) {
  if (d->dtype == TS_FLOAT32)
    return fill_typed<float>(d, c_off, c_base, c_cols, c_vals, stream);
  return fill_typed<double>(d, c_off, c_base, c_cols, c_vals, stream);
}

extern "C" ts_status tsi_spgemm_cuda_shared_dense(ts_context *ctx, tsi_spgemm_device *d, bool allowed) {
  d->shared_count = false;
  d->shared_fill_warps = 0;
  d->shared_slot_bytes = 0;
  const int64_t rows = d->bin_rows[TSI_SPGEMM_DENSE_BIN] + d->bin_rows[TSI_SPGEMM_LONG_BIN];
  if (!allowed || rows == 0 || d->b.cols == 0)
    return TS_SUCCESS;
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  int device = 0, optin = 0, per_sm = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return TS_SUCCESS; /* the pool's kernels need no opt-in */
  }
  /* A block a row counts: unless one row holds more than a
   * TSI_SPGEMM_SHARED_COUNT_SHARE-th of the dense rows' products (a
   * power law's hub row would keep one block busy while the rest of the GPU
   * idles; the pool's count spreads the products instead). */
  const size_t words = ((size_t)d->b.cols + 31) / 32;
  const double products = (double)d->dense_products, longest = (double)d->dense_longest;
  d->shared_count = words * sizeof(unsigned) + count_static_bytes <= (size_t)optin &&
                    longest * TSI_SPGEMM_SHARED_COUNT_SHARE <= products;
  const size_t value_bytes = d->dtype == TS_FLOAT32 ? sizeof(float) : sizeof(double);
  const size_t fixed = d->dtype == TS_FLOAT32 ? fill_static_bytes<float>() : fill_static_bytes<double>();
  const size_t slot = round16(words * sizeof(unsigned)) + round16((size_t)d->b.cols * value_bytes);
  if (slot + fixed > (size_t)optin || d->dense_entries >= TSI_SPGEMM_SHARED_FILL_ENTRIES)
    return TS_SUCCESS;
  /* As many warps a block as leave room for two blocks a multiprocessor, at
   * least one; then a warp a row fills when the products are few (the
   * sort's fixed costs dominate) or when the longest row takes at most
   * twice a warp's share of them. */
  int warps = (int)(TSI_SPGEMM_SHARED_BLOCK_BYTES / slot);
  warps = warps < 1 ? 1 : warps > TSI_SPGEMM_SHARED_WARPS ? TSI_SPGEMM_SHARED_WARPS : warps;
  const size_t block_bytes = (size_t)warps * slot + fixed;
  const double resident =
      (double)sms * (double)warps * (double)((size_t)per_sm / block_bytes > 0 ? (size_t)per_sm / block_bytes : 1);
  if (products > TSI_SPGEMM_SHARED_FILL_FEW && longest * resident > 2.0 * products)
    return TS_SUCCESS;
  d->shared_fill_warps = warps;
  d->shared_slot_bytes = slot;
  return TS_SUCCESS;
}
