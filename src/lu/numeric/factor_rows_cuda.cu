/* The strict upper and lower parts of L+U by rows, built on the device from
 * the columns already there (the same arrays as tsi_lu_build_rows gives on
 * the host, bit for bit): every off-diagonal entry is keyed by its row (U's
 * rows 0..n-1, L's n..2n-1, the diagonal last), and one stable radix sort
 * of the keys in column order (CUB's DeviceRadixSort) leaves each row's
 * entries in increasing column order, U's rows before L's. Far faster than
 * the host's transpose (two counting sorts over per-thread counters) for
 * large orders, and the rows need not cross the bus. */
#include "core/internal.h"
#include "lu/numeric/numeric_internal.h"

#include <cub/device/device_radix_sort.cuh>

namespace {

constexpr int ROWS_BLOCK = TSI_LU_ELEMENTWISE_THREADS;

/* The column holding position p: the last k with col_ptr[k] <= p (no column
 * of L+U is empty: each holds its diagonal). */
__device__ int64_t column_of(const int64_t *col_ptr, int64_t n, int64_t p) {
  int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (col_ptr[mid] <= p)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

__global__ void row_keys(int64_t n, int64_t nnz, const int64_t *col_ptr, const int32_t *row_idx, uint32_t *key,
                         uint32_t *entry, int32_t *col_of) {
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < nnz; p += (int64_t)gridDim.x * blockDim.x) {
    const int64_t k = column_of(col_ptr, n, p), r = row_idx[p];
    key[p] = (uint32_t)(r < k ? r : (r > k ? n + r : 2 * n));
    entry[p] = (uint32_t)p;
    col_of[p] = (int32_t)k;
  }
}

/* The first sorted position whose key is at least key. */
__device__ int64_t lower_bound(const uint32_t *sorted, int64_t count, uint32_t key) {
  int64_t lo = 0, hi = count;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

__global__ void row_offsets(int64_t n, int64_t nnz, const uint32_t *sorted_key, int64_t u_count, int64_t *urow_ptr,
                            int64_t *lrow_ptr) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i <= n; i += (int64_t)gridDim.x * blockDim.x) {
    urow_ptr[i] = lower_bound(sorted_key, nnz, (uint32_t)i);
    lrow_ptr[i] = lower_bound(sorted_key, nnz, (uint32_t)(n + i)) - u_count;
  }
}

__global__ void row_entries(int64_t u_count, int64_t l_count, const uint32_t *sorted_entry, const int32_t *col_of,
                            int32_t *urow_col, int64_t *urow_pos, int32_t *lrow_col, int64_t *lrow_pos) {
  for (int64_t at = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; at < u_count + l_count;
       at += (int64_t)gridDim.x * blockDim.x) {
    const uint32_t p = sorted_entry[at];
    if (at < u_count) {
      urow_col[at] = col_of[p];
      urow_pos[at] = p;
    } else {
      lrow_col[at - u_count] = col_of[p];
      lrow_pos[at - u_count] = p;
    }
  }
}

unsigned grid_for(int64_t items) {
  int64_t blocks = (items + ROWS_BLOCK - 1) / ROWS_BLOCK;
  if (blocks > 65535)
    blocks = 65535;
  return (unsigned)(blocks > 0 ? blocks : 1);
}

} // namespace

extern "C" bool tsi_lu_cuda_rows_fit(const ts_lu *lu) {
  return lu->lu_nnz <= (int64_t)UINT32_MAX && lu->n <= (int64_t)(UINT32_MAX / 2 - 1);
}

extern "C" ts_status tsi_lu_cuda_build_rows(ts_lu *lu, tsi_lu_device *dev) {
  ts_context *ctx = lu->ctx;
  const int64_t n = lu->n, nnz = lu->lu_nnz;
  if (!tsi_lu_cuda_rows_fit(lu))
    return tsi_error(ctx, TS_ERROR_INTERNAL, "LU on the GPU: %lld entries are too many for the rows' sort",
                     (long long)nnz);
  int64_t u_count = 0;
  for (int64_t k = 0; k < n; k++)
    u_count += lu->diag_pos[k] - lu->lu_col_ptr[k];
  const int64_t l_count = nnz - n - u_count;
  int end_bit = 1;
  while (end_bit < 32 && ((uint64_t)1 << end_bit) <= (uint64_t)(2 * n))
    end_bit++;

  cudaStream_t stream = (cudaStream_t)ctx->stream;
  uint32_t *key = NULL, *sorted_key = NULL, *entry = NULL, *sorted_entry = NULL;
  int32_t *col_of = NULL;
  void *temp = NULL;
  size_t temp_bytes = 0;
  ts_status st = TS_SUCCESS;
  dev->urow_ptr_host = (int64_t *)tsi_malloc_array(n + 1, sizeof(int64_t));
  if (!dev->urow_ptr_host)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for row offsets (n = %lld)", (long long)n);
  cudaError_t err =
      cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, key, sorted_key, entry, sorted_entry, nnz, 0, end_bit, stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "LU on the GPU: sizing the rows' sort");
  struct {
    void **ptr;
    int64_t count;
    size_t size;
  } temps[] = {{(void **)&key, nnz, sizeof(uint32_t)},   {(void **)&sorted_key, nnz, sizeof(uint32_t)},
               {(void **)&entry, nnz, sizeof(uint32_t)}, {(void **)&sorted_entry, nnz, sizeof(uint32_t)},
               {(void **)&col_of, nnz, sizeof(int32_t)}, {&temp, (int64_t)temp_bytes, 1}};
  for (size_t t = 0; st == TS_SUCCESS && t < sizeof temps / sizeof temps[0]; t++)
    st = tsi_lu_device_alloc(ctx, dev, temps[t].ptr, temps[t].count, temps[t].size, "the rows' sort");
  struct {
    void **ptr;
    int64_t count;
    size_t size;
  } rows[] = {{(void **)&dev->urow_ptr, n + 1, sizeof(int64_t)},   {(void **)&dev->lrow_ptr, n + 1, sizeof(int64_t)},
              {(void **)&dev->urow_col, u_count, sizeof(int32_t)}, {(void **)&dev->urow_pos, u_count, sizeof(int64_t)},
              {(void **)&dev->lrow_col, l_count, sizeof(int32_t)}, {(void **)&dev->lrow_pos, l_count, sizeof(int64_t)}};
  for (size_t r = 0; st == TS_SUCCESS && r < sizeof rows / sizeof rows[0]; r++)
    st = tsi_lu_device_alloc(ctx, dev, rows[r].ptr, rows[r].count, rows[r].size, "the rows of L and U");
  if (st == TS_SUCCESS) {
    row_keys<<<grid_for(nnz), ROWS_BLOCK, 0, stream>>>(n, nnz, dev->col_ptr, dev->row_idx, key, entry, col_of);
    err = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key, sorted_key, entry, sorted_entry, nnz, 0, end_bit,
                                          stream);
    if (err != cudaSuccess)
      st = tsi_cuda_error(ctx, err, "LU on the GPU: the rows' sort");
  }
  if (st == TS_SUCCESS) {
    row_offsets<<<grid_for(n + 1), ROWS_BLOCK, 0, stream>>>(n, nnz, sorted_key, u_count, dev->urow_ptr, dev->lrow_ptr);
    row_entries<<<grid_for(u_count + l_count), ROWS_BLOCK, 0, stream>>>(
        u_count, l_count, sorted_entry, col_of, dev->urow_col, dev->urow_pos, dev->lrow_col, dev->lrow_pos);
    st = tsi_cuda_check_launch(ctx, "LU on the GPU: the rows of L and U");
  }
  /* The tail's steps size their grids from U's row lengths on the host. */
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(ctx, dev->urow_ptr_host, dev->urow_ptr, (size_t)(n + 1) * sizeof(int64_t));
  /* On failure dev->urow_ptr_host's last entry must still size U's arrays
   * for their release. */
  if (st != TS_SUCCESS)
    dev->urow_ptr_host[n] = u_count;
  for (size_t t = 0; t < sizeof temps / sizeof temps[0]; t++)
    tsi_lu_device_free(dev, *temps[t].ptr, temps[t].count, temps[t].size);
  return st;
}
