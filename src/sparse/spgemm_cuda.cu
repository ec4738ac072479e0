/* SpGEMM's GPU phases as the plan calls them: the analysis of a range of
 * rows (each row's products, counted in 64 bits, and its bin), the scatter
 * of the rows into their bins, the symbolic and numeric phases bin by bin,
 * and the scan of C's row counts into its offsets (CUB). Rows are tiles of
 * the load-balancing layer's work (one warp each here, lanes over the
 * row's entries); the bins are the schedule of the phases. */
#include "spgemm_cuda_kernel.cuh"
#include "tessera/lb.cuh"

#include <cub/device/device_scan.cuh>

namespace lb = tessera::lb;

namespace {

constexpr int kWarps = TSI_SPGEMM_BLOCK / 32;

/* The bin of a row bound: 0 without products, b for the smallest table of
 * 2^(b + 5) slots holding twice the bound, else the dense bin. */
__device__ inline int bin_of(int64_t bound) {
  if (bound == 0)
    return 0;
  int64_t half = TSI_SPGEMM_FIRST_TABLE / 2;
  for (int b = 1; b <= TSI_SPGEMM_SHARED_BINS; b++, half *= 2)
    if (bound <= half)
      return b;
  return TSI_SPGEMM_DENSE_BIN;
}

/* A warp a row of A (the rows r0 .. r1 - 1 as tiles): its products, summed
 * over its entries' rows of B by the lanes, then its bound and bin. */
__global__ void __launch_bounds__(TSI_SPGEMM_BLOCK)
    analyse_rows(lb::csr_work<int64_t> a, const int32_t *a_cols, const int64_t *b_off, int64_t b_width, int64_t r0,
                 int64_t r1, unsigned char *row_bin, tsi_spgemm_counters *counters) {
  const int lane = int(threadIdx.x) & 31;
  const int64_t warps = (int64_t)gridDim.x * kWarps;
  for (int64_t row = r0 + (int64_t)blockIdx.x * kWarps + int(threadIdx.x) / 32; row < r1; row += warps) {
    unsigned long long products = 0;
    for (int64_t ka : lb::warp_stride_range<int64_t>(a.tile_begin(row), a.tile_end(row))) {
      const int64_t k = a_cols[ka];
      products += (unsigned long long)(b_off[k + 1] - b_off[k]);
    }
    for (int d = 16; d > 0; d /= 2)
      products += __shfl_xor_sync(0xffffffffu, products, d);
    if (lane == 0) {
      const int64_t bound = products < (unsigned long long)b_width ? (int64_t)products : b_width;
      const int bin = bin_of(bound);
      row_bin[row] = (unsigned char)bin;
      atomicAdd(&counters->rows[bin], 1ull);
      atomicAdd(&counters->products, products);
      if (products > (unsigned long long)INT64_MAX / 2)
        atomicOr(&counters->overflow, 1ull);
    }
  }
}

/* Where each bin starts in the row list. */
struct bin_starts {
  int64_t first[TSI_SPGEMM_BINS];
};

__global__ void scatter_rows(const unsigned char *row_bin, int64_t r0, int64_t r1, bin_starts starts,
                             tsi_spgemm_counters *counters, int32_t *row_list) {
  for (int64_t row = r0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; row < r1;
       row += (int64_t)gridDim.x * blockDim.x) {
    const int bin = row_bin[row];
    const unsigned long long at = atomicAdd(&counters->cursor[bin], 1ull);
    row_list[starts.first[bin] + (int64_t)at] = (int32_t)row;
  }
}

int multiprocessors() {
  static const int sms = [] {
    int device = 0, n = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || n < 1)
      n = 1;
    return n;
  }();
  return sms;
}

} // namespace

int64_t tsi_spgemm_blocks(int64_t groups, int per_block) {
  const int64_t wanted = (groups + per_block - 1) / per_block;
  const int64_t cap = 32 * (int64_t)multiprocessors();
  return wanted < 1 ? 1 : wanted < cap ? wanted : cap;
}

extern "C" size_t tsi_spgemm_cuda_scan_bytes(int64_t rows) {
  size_t bytes = 0;
  if (cub::DeviceScan::InclusiveSum(nullptr, bytes, (const int64_t *)nullptr, (int64_t *)nullptr, rows) !=
      cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return bytes;
}

extern "C" int64_t tsi_spgemm_cuda_free_bytes(ts_context *ctx) {
  size_t free_bytes = 0, total = 0;
  if (tsi_cuda_activate(ctx) != TS_SUCCESS || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return (int64_t)free_bytes;
}

extern "C" ts_status tsi_spgemm_cuda_bin(ts_context *ctx, tsi_spgemm_device *d, int64_t r0, int64_t r1,
                                         int64_t *products) {
  static const char op[] = "ts_spgemm_symbolic";
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  tsi_spgemm_counters counters;
  cudaError_t err = cudaMemsetAsync(d->counters, 0, sizeof counters, stream);
  lb::csr_work<int64_t> a = lb::make_csr_work<int64_t>(d->a.rows, d->a.nnz, d->a.offsets);
  if (err == cudaSuccess && r1 > r0) {
    analyse_rows<<<(unsigned)tsi_spgemm_blocks(r1 - r0, kWarps), TSI_SPGEMM_BLOCK, 0, stream>>>(
        a, d->a.indices, d->b.offsets, d->b.cols, r0, r1, d->row_bin, d->counters);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(&counters, d->counters, sizeof counters, cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: analysing rows %lld to %lld", op, (long long)r0, (long long)r1);
  if (counters.overflow || counters.products > (unsigned long long)INT64_MAX / 2)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: the products of rows %lld to %lld pass 2^62", op, (long long)r0,
                     (long long)r1);
  bin_starts starts;
  int64_t first = 0;
  for (int b = 0; b < TSI_SPGEMM_BINS; b++) {
    d->bin_rows[b] = (int64_t)counters.rows[b];
    d->bin_first[b] = starts.first[b] = first;
    first += d->bin_rows[b];
  }
  d->r0 = r0;
  d->r1 = r1;
  *products = (int64_t)counters.products;
  if (r1 > r0) {
    scatter_rows<<<(unsigned)tsi_spgemm_blocks(r1 - r0, TSI_SPGEMM_BLOCK), TSI_SPGEMM_BLOCK, 0, stream>>>(
        d->row_bin, r0, r1, starts, d->counters, d->row_list);
    err = cudaGetLastError();
    if (err != cudaSuccess)
      return tsi_cuda_error(ctx, err, "%s: binning rows", op);
  }
  return tsi_cuda_check_launch(ctx, op);
}

extern "C" ts_status tsi_spgemm_cuda_count(ts_context *ctx, const tsi_spgemm_device *d) {
  static const char op[] = "ts_spgemm_symbolic";
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  /* Rows without products (bin 0) have no entries. */
  cudaError_t err = cudaMemsetAsync(d->row_nnz + d->r0, 0, (size_t)(d->r1 - d->r0) * sizeof(int64_t), stream);
  for (int b = 1; err == cudaSuccess && b <= TSI_SPGEMM_SHARED_BINS; b++)
    if (d->bin_rows[b] > 0)
      err = tsi_spgemm_hash_count(d, b, stream);
  if (err == cudaSuccess)
    err = tsi_spgemm_dense_count(d, stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: counting the entries of C", op);
  return tsi_cuda_check_launch(ctx, op);
}

extern "C" ts_status tsi_spgemm_cuda_offsets(ts_context *ctx, const tsi_spgemm_device *d, int64_t *c_off,
                                             int64_t *nnz) {
  static const char op[] = "ts_spgemm_symbolic";
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  const int64_t rows = d->a.rows;
  size_t bytes = d->scan_bytes;
  cudaError_t err = cudaMemsetAsync(c_off, 0, sizeof(int64_t), stream);
  if (err == cudaSuccess && rows > 0)
    err = cub::DeviceScan::InclusiveSum(d->scan_temp, bytes, (const int64_t *)d->row_nnz, c_off + 1, rows, stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(nnz, c_off + rows, sizeof(int64_t), cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: scanning C's row counts", op);
  return TS_SUCCESS;
}

extern "C" ts_status tsi_spgemm_cuda_fill(ts_context *ctx, const tsi_spgemm_device *d, const int64_t *c_off,
                                          int64_t c_base, int32_t *c_cols, void *c_vals) {
  static const char op[] = "ts_spgemm_numeric";
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  cudaError_t err = cudaSuccess;
  for (int b = 1; err == cudaSuccess && b <= TSI_SPGEMM_SHARED_BINS; b++)
    if (d->bin_rows[b] > 0)
      err = tsi_spgemm_hash_fill(d, b, c_off, c_base, c_cols, c_vals, stream);
  if (err == cudaSuccess)
    err = tsi_spgemm_dense_fill(d, c_off, c_base, c_cols, c_vals, stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: filling C", op);
  return tsi_cuda_check_launch(ctx, op);
}
